# RUN: %python %s | FileCheck %s
# dynamic_slice lowers to stablehlo.dynamic_slice with int32 scalar start indices and static
# sizes; dynamic_update_slice to stablehlo.dynamic_update_slice. A traced start index is first
# wrapped once if negative (compare LT 0, add the dimension, select), as jax.lax does; the op
# itself then clamps the window into range.
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
# CHECK: %[[NEG_I:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}, SIGNED
# CHECK: %[[DIM_I:.*]] = stablehlo.constant dense<4> : tensor<i32>
# CHECK: %[[WRAPPED_I:.*]] = stablehlo.add %[[I]], %[[DIM_I]] : tensor<i32>
# CHECK: %[[START_I:.*]] = stablehlo.select %[[NEG_I]], %[[WRAPPED_I]], %[[I]] : tensor<i1>, tensor<i32>
# CHECK: %[[START_J:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[J]] : tensor<i1>, tensor<i32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.dynamic_slice %[[X]], %[[START_I]], %[[START_J]], sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x2xf32>

print(jit(overwrite).lower(ShapeDtypeStruct((5,), np.float32), ShapeDtypeStruct((2,), np.float32),
                           index).as_text())
# CHECK-LABEL: module @jit_overwrite
# CHECK: func.func public @main(%[[X:.*]]: tensor<5xf32>, %[[U:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<i32>) -> tensor<5xf32>
# CHECK: %[[DIM:.*]] = stablehlo.constant dense<5> : tensor<i32>
# CHECK: %[[START:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[I]] : tensor<i1>, tensor<i32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.dynamic_update_slice %[[X]], %[[U]], %[[START]] : (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
# CHECK-NEXT: return %[[Y]] : tensor<5xf32>
