# RUN: %python %s | FileCheck %s
# transpose lowers to stablehlo.transpose with the permutation as `dims`.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def swap_leading(x):
    return lax.transpose(x, (1, 0, 2))


def matrix_transpose(x):
    return lax.transpose(x, (1, 0))


print(jit(swap_leading).lower(ShapeDtypeStruct((2, 3, 4), np.float32)).as_text())
# CHECK-LABEL: module @jit_swap_leading
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.transpose %[[X]], dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
# CHECK-NEXT: return %[[Y]] : tensor<3x2x4xf32>

print(jit(matrix_transpose).lower(ShapeDtypeStruct((2, 5), np.int64)).as_text())
# CHECK-LABEL: module @jit_matrix_transpose
# CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<2x5xi64>) -> tensor<5x2xi64>
