# RUN: %python %s | FileCheck %s
# pad lowers to stablehlo.pad with low, high and interior padding per axis.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def padded(x):
    return lax.pad(x, np.float32(0), [(1, 2, 1)])


print(jit(padded).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_padded
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>) -> tensor<8xf32>
# CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.pad %[[X]], %[[ZERO]], low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
# CHECK-NEXT: return %[[Y]] : tensor<8xf32>
