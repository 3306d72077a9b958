# RUN: %python %s | FileCheck %s
# reduce_max / reduce_min lower to stablehlo.reduce with a maximum / minimum body, starting
# from -inf / +inf (the extreme integers for integer dtypes).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def row_max(x):
    return lax.reduce_max(x, 1)


def column_min(x):
    return lax.reduce_min(x, 0)


print(jit(row_max).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())
# CHECK-LABEL: module @jit_row_max
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2xf32>
# CHECK-NEXT: %[[INIT:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.reduce(%[[X]] init: %[[INIT]]) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2xf32>

print(jit(column_min).lower(ShapeDtypeStruct((2, 3), np.int32)).as_text())
# CHECK-LABEL: module @jit_column_min
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<2147483647> : tensor<i32>
# CHECK-NEXT: stablehlo.reduce(%{{.*}} init: %[[INIT]]) applies stablehlo.minimum across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
