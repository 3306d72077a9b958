# RUN: %python %s | FileCheck %s
# sign lowers to stablehlo.sign, keeping shape and element type.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

for shape, dtype in [((2, 3), np.float32), ((), np.float64), ((4,), np.int32)]:
    print(jit(lax.sign).lower(ShapeDtypeStruct(shape, dtype)).as_text())

# CHECK-LABEL: module @jit_sign
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.sign %[[X]] : tensor<2x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xf32>

# CHECK-LABEL: module @jit_sign
# CHECK: func.func public @main(%[[X:.*]]: tensor<f64>) -> tensor<f64>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.sign %[[X]] : tensor<f64>
# CHECK-NEXT: return %[[Y]] : tensor<f64>

# CHECK-LABEL: module @jit_sign
# CHECK: func.func public @main(%[[X:.*]]: tensor<4xi32>) -> tensor<4xi32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.sign %[[X]] : tensor<4xi32>
# CHECK-NEXT: return %[[Y]] : tensor<4xi32>
