# RUN: %python %s | FileCheck %s
# minijax.numpy: broadcasting is rank promotion (leading axes of size 1, as JAX adds them),
# then each operand broadcast to the result by the lax op's own lowering; static
# indexing is stablehlo.slice then stablehlo.reshape (a None a new axis, by
# stablehlo.broadcast_in_dim, as JAX writes it); x.at[i].set(v) pads the update and selects
# it in.
import numpy as np
from minijax import ShapeDtypeStruct, jit


def outer_sum(x, y):
    return x[:, None] + y


def second_row(x):
    return x[1]


def zero_row(x):
    return x.at[1].set(0.)


f32 = np.float32
print(jit(outer_sum).lower(ShapeDtypeStruct((3,), f32), ShapeDtypeStruct((4,), f32)).as_text())
# CHECK-LABEL: module @jit_outer_sum
# CHECK: %[[COL:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
# CHECK-NEXT: %[[ROW:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
# CHECK-NEXT: %[[X:.*]] = stablehlo.broadcast_in_dim %[[COL]], dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x4xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.broadcast_in_dim %[[ROW]], dims = [0, 1] : (tensor<1x4xf32>) -> tensor<3x4xf32>
# CHECK-NEXT: stablehlo.add %[[X]], %[[Y]] : tensor<3x4xf32>

print(jit(second_row).lower(ShapeDtypeStruct((3, 4), f32)).as_text())
# CHECK-LABEL: module @jit_second_row
# CHECK: %[[S:.*]] = stablehlo.slice %{{.*}} [1:2, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
# CHECK-NEXT: stablehlo.reshape %[[S]] : (tensor<1x4xf32>) -> tensor<4xf32>

print(jit(zero_row).lower(ShapeDtypeStruct((3, 4), f32)).as_text())
# CHECK-LABEL: module @jit_zero_row
# CHECK: %[[V:.*]] = stablehlo.pad %{{.*}}, %{{.*}}, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
# CHECK: %[[M:.*]] = stablehlo.pad %{{.*}}, %{{.*}}, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<1x4xi1>, tensor<i1>) -> tensor<3x4xi1>
# CHECK-NEXT: stablehlo.select %[[M]], %[[V]], %{{.*}} : tensor<3x4xi1>, tensor<3x4xf32>
