# RUN: %python %s | FileCheck %s
# reduce_sum lowers to stablehlo.reduce with an add body and a zero of the operand's dtype
# as the initial value.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def row_sums(x):
    return lax.reduce_sum(x, axis=1)


def total(x):
    return lax.reduce_sum(x)


print(jit(row_sums).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())
# CHECK-LABEL: module @jit_row_sums
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2xf32>
# CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.reduce(%[[X]] init: %[[ZERO]]) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2xf32>

print(jit(total).lower(ShapeDtypeStruct((2, 3), np.int64)).as_text())
# CHECK-LABEL: module @jit_total
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xi64>) -> tensor<i64>
# CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i64>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.reduce(%[[X]] init: %[[ZERO]]) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xi64>, tensor<i64>) -> tensor<i64>
# CHECK-NEXT: return %[[Y]] : tensor<i64>
