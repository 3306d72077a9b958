# RUN: %python %s | FileCheck %s
# broadcast lowers to stablehlo.broadcast_in_dim; `dims` lists the result axes the operand's
# axes go to, i.e. the axes that are not new.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def rows(x):
    return lax.broadcast(x, (2, 3), (0,))


def columns(x):
    return lax.broadcast(x, (3, 2), (1,))


def fill(x):
    return lax.broadcast(x, (2, 2), (0, 1))


print(jit(rows).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_rows
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.broadcast_in_dim %[[X]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xf32>

print(jit(columns).lower(ShapeDtypeStruct((3,), np.int32)).as_text())
# CHECK-LABEL: module @jit_columns
# CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>

print(jit(fill).lower(ShapeDtypeStruct((), np.float64)).as_text())
# CHECK-LABEL: module @jit_fill
# CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f64>) -> tensor<2x2xf64>
