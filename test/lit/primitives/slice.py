# RUN: %python %s | FileCheck %s
# slice lowers to stablehlo.slice [start:limit:stride] per axis (a unit stride is not printed).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def window(x):
    return lax.slice(x, (1, 0), (3, 4), (1, 2))


print(jit(window).lower(ShapeDtypeStruct((4, 4), np.float32)).as_text())
# CHECK-LABEL: module @jit_window
# CHECK: func.func public @main(%[[X:.*]]: tensor<4x4xf32>) -> tensor<2x2xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.slice %[[X]] [1:3, 0:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x2xf32>
