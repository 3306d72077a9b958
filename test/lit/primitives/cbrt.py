# RUN: %python %s | FileCheck %s
# cbrt lowers to stablehlo.cbrt, keeping shape and element type.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

for shape, dtype in [((2, 3), np.float32), ((), np.float64)]:
    print(jit(lax.cbrt).lower(ShapeDtypeStruct(shape, dtype)).as_text())

# CHECK-LABEL: module @jit_cbrt
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.cbrt %[[X]] : tensor<2x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xf32>

# CHECK-LABEL: module @jit_cbrt
# CHECK: func.func public @main(%[[X:.*]]: tensor<f64>) -> tensor<f64>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.cbrt %[[X]] : tensor<f64>
# CHECK-NEXT: return %[[Y]] : tensor<f64>
