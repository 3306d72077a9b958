# RUN: %python %s | FileCheck %s
# max and min lower to stablehlo.maximum / stablehlo.minimum; a scalar operand is broadcast
# to the other operand's shape first.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def maximum(x, y):
    return lax.max(x, y)


def minimum(x, y):
    return lax.min(x, y)


x = ShapeDtypeStruct((3,), np.float32)
print(jit(maximum).lower(x, x).as_text())
# CHECK-LABEL: module @jit_maximum
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.maximum %[[X]], %[[Y]] : tensor<3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<3xf32>

print(jit(minimum).lower(ShapeDtypeStruct((3,), np.int32), ShapeDtypeStruct((), np.int32)).as_text())
# CHECK-LABEL: module @jit_minimum
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xi32>, %[[Y:.*]]: tensor<i32>) -> tensor<3xi32>
# CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[Y]], dims = [] : (tensor<i32>) -> tensor<3xi32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.minimum %[[X]], %[[B]] : tensor<3xi32>
# CHECK-NEXT: return %[[Z]] : tensor<3xi32>
