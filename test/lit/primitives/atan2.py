# RUN: %python %s | FileCheck %s
# atan2 lowers to stablehlo.atan2; a scalar operand is broadcast to the other's shape first.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def angle(x, y):
    return lax.atan2(x, y)


x = ShapeDtypeStruct((3,), np.float32)
print(jit(angle).lower(x, x).as_text())
# CHECK-LABEL: module @jit_angle
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.atan2 %[[X]], %[[Y]] : tensor<3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<3xf32>

print(jit(angle).lower(ShapeDtypeStruct((), np.float64),
                       ShapeDtypeStruct((2,), np.float64)).as_text())
# CHECK-LABEL: module @jit_angle
# CHECK: func.func public @main(%[[X:.*]]: tensor<f64>, %[[Y:.*]]: tensor<2xf64>) -> tensor<2xf64>
# CHECK-NEXT: %[[XS:.*]] = stablehlo.broadcast_in_dim %[[X]], dims = [] : (tensor<f64>) -> tensor<2xf64>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.atan2 %[[XS]], %[[Y]] : tensor<2xf64>
# CHECK-NEXT: return %[[Z]] : tensor<2xf64>
