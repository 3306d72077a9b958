# RUN: %python %s | FileCheck %s
# rev lowers to stablehlo.reverse along its dimensions.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def flip(x):
    return lax.rev(x, (0, 2))


print(jit(flip).lower(ShapeDtypeStruct((2, 3, 4), np.float32)).as_text())
# CHECK-LABEL: module @jit_flip
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.reverse %[[X]], dims = [0, 2] : tensor<2x3x4xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3x4xf32>
