# RUN: %python %s | FileCheck %s
# erf and erfc have no StableHLO op (JAX emits chlo.erf): each lowers to its rational
# approximation in plain StableHLO ops, both ranges computed and one selected.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

print(jit(lax.erf).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())
print(jit(lax.erfc).lower(ShapeDtypeStruct((), np.float64)).as_text())

# CHECK-LABEL: module @jit_erf
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NOT: chlo
# CHECK: stablehlo.exponential
# CHECK: stablehlo.divide
# CHECK: stablehlo.select
# CHECK: return %{{.*}} : tensor<2x3xf32>

# CHECK-LABEL: module @jit_erfc
# CHECK: func.func public @main(%[[X:.*]]: tensor<f64>) -> tensor<f64>
# CHECK-NOT: chlo
# CHECK: stablehlo.exponential
# CHECK: stablehlo.select
# CHECK: return %{{.*}} : tensor<f64>
