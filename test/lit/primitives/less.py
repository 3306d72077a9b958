# RUN: %python %s | FileCheck %s
# less lowers to stablehlo.compare LT with a boolean (i1) result; the comparison type
# follows the operands' dtype: FLOAT for floats, SIGNED for integers.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

for dtype in [np.float32, np.int64]:
    x = ShapeDtypeStruct((3,), dtype)
    print(jit(lax.less).lower(x, x).as_text())

# CHECK-LABEL: module @jit_less
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xi1>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.compare LT, %[[X]], %[[Y]], FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
# CHECK-NEXT: return %[[Z]] : tensor<3xi1>

# CHECK-LABEL: module @jit_less
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xi64>, %[[Y:.*]]: tensor<3xi64>) -> tensor<3xi1>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.compare LT, %[[X]], %[[Y]], SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
# CHECK-NEXT: return %[[Z]] : tensor<3xi1>
