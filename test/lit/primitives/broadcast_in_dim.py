# RUN: %python %s | FileCheck %s
# broadcast_in_dim lowers to stablehlo.broadcast_in_dim; `dims` maps operand axes to result
# axes, and a size-1 operand axis may grow.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def rows(x):
    return lax.broadcast_in_dim(x, (2, 3), (1,))


def grow(x):
    return lax.broadcast_in_dim(x, (4, 3), (0, 1))


print(jit(rows).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_rows
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.broadcast_in_dim %[[X]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xf32>

print(jit(grow).lower(ShapeDtypeStruct((1, 3), np.int64)).as_text())
# CHECK-LABEL: module @jit_grow
# CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 1] : (tensor<1x3xi64>) -> tensor<4x3xi64>
