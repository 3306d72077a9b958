# RUN: %python %s | FileCheck %s
# The cumulative reductions (cumsum, cumprod, cummax, cummin, cumlogsumexp) lower as JAX's do
# on CPU: one stablehlo.reduce_window whose window spans the whole axis, padded with n - 1
# identities before the first element (after the last, for reverse), so that output i reduces
# elements 0..i. cumlogsumexp's body is logaddexp: max + log1p(exp(-|x - y|)), or x + y where
# x - y is NaN.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def running_sum(x):
    return lax.cumsum(x, 1)


def running_max_from_end(x):
    return lax.cummax(x, 0, reverse=True)


def running_logsumexp(x):
    return lax.cumlogsumexp(x)


print(jit(running_sum).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())
# CHECK-LABEL: module @jit_running_sum
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
# CHECK-NEXT: %[[R:.*]] = "stablehlo.reduce_window"(%[[X]], %[[ZERO]]) <{padding = dense<{{\[\[}}0, 0], [2, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}>
# CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
# CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<f32>
# CHECK-NEXT: stablehlo.return %[[S]] : tensor<f32>
# CHECK: return %[[R]] : tensor<2x3xf32>

print(jit(running_max_from_end).lower(ShapeDtypeStruct((4, 2), np.int32)).as_text())
# CHECK-LABEL: module @jit_running_max_from_end
# CHECK: %[[LOW:.*]] = stablehlo.constant dense<-2147483648> : tensor<i32>
# CHECK-NEXT: "stablehlo.reduce_window"(%{{.*}}, %[[LOW]]) <{padding = dense<{{\[\[}}0, 3], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 4, 1>
# CHECK: stablehlo.maximum

print(jit(running_logsumexp).lower(ShapeDtypeStruct((3,), np.float64)).as_text())
# CHECK-LABEL: module @jit_running_logsumexp
# CHECK: %[[NEGINF:.*]] = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
# CHECK-NEXT: "stablehlo.reduce_window"(%{{.*}}, %[[NEGINF]]) <{padding = dense<{{\[\[}}2, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 3>
# CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<f64>, %[[Y:.*]]: tensor<f64>):
# CHECK-NEXT: %[[MAX:.*]] = stablehlo.maximum %[[X]], %[[Y]]
# CHECK-NEXT: %[[D:.*]] = stablehlo.subtract %[[X]], %[[Y]]
# CHECK-NEXT: %[[ABS:.*]] = stablehlo.abs %[[D]]
# CHECK-NEXT: %[[NEG:.*]] = stablehlo.negate %[[ABS]]
# CHECK-NEXT: %[[EXP:.*]] = stablehlo.exponential %[[NEG]]
# CHECK-NEXT: %[[LOG:.*]] = stablehlo.log_plus_one %[[EXP]]
# CHECK-NEXT: %[[NAN:.*]] = stablehlo.compare NE, %[[D]], %[[D]], FLOAT
# CHECK-NEXT: %[[SUM:.*]] = stablehlo.add %[[X]], %[[Y]]
# CHECK-NEXT: %[[SPREAD:.*]] = stablehlo.add %[[MAX]], %[[LOG]]
# CHECK-NEXT: stablehlo.select %[[NAN]], %[[SUM]], %[[SPREAD]]
