# RUN: %python %s | FileCheck %s
# dot_general lowers to stablehlo.dot_general with its batching and contracting dimensions.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def matmul(x, y):
    return lax.dot_general(x, y, (((1,), (0,)), ((), ())))


def batched_matmul(x, y):
    return lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,))))


print(jit(matmul).lower(ShapeDtypeStruct((2, 3), np.float32),
                        ShapeDtypeStruct((3, 4), np.float32)).as_text())
# CHECK-LABEL: module @jit_matmul
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3x4xf32>) -> tensor<2x4xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.dot_general %[[X]], %[[Y]], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
# CHECK-NEXT: return %[[Z]] : tensor<2x4xf32>

print(jit(batched_matmul).lower(ShapeDtypeStruct((5, 2, 3), np.float64),
                                ShapeDtypeStruct((5, 3, 4), np.float64)).as_text())
# CHECK-LABEL: module @jit_batched_matmul
# CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
