# RUN: %python %s | FileCheck %s
# dynamic_slice lowers to stablehlo.dynamic_slice with int32 scalar start indices and static
# sizes; dynamic_update_slice to stablehlo.dynamic_update_slice.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def window(x, i, j):
    return lax.dynamic_slice(x, (i, j), (2, 2))


def overwrite(x, update, i):
    return lax.dynamic_update_slice(x, update, (i,))


index = ShapeDtypeStruct((), np.int32)
print(jit(window).lower(ShapeDtypeStruct((4, 4), np.float32), index, index).as_text())
# CHECK-LABEL: module @jit_window
# CHECK: func.func public @main(%[[X:.*]]: tensor<4x4xf32>, %[[I:.*]]: tensor<i32>, %[[J:.*]]: tensor<i32>) -> tensor<2x2xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.dynamic_slice %[[X]], %[[I]], %[[J]], sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x2xf32>

print(jit(overwrite).lower(ShapeDtypeStruct((5,), np.float32), ShapeDtypeStruct((2,), np.float32),
                           index).as_text())
# CHECK-LABEL: module @jit_overwrite
# CHECK: func.func public @main(%[[X:.*]]: tensor<5xf32>, %[[U:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<i32>) -> tensor<5xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.dynamic_update_slice %[[X]], %[[U]], %[[I]] : (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
# CHECK-NEXT: return %[[Y]] : tensor<5xf32>
