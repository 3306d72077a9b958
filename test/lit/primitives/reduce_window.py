# RUN: %python %s | FileCheck %s
# reduce_window with lax.max, lax.add or lax.min binds reduce_window_max, reduce_window_sum or
# reduce_window_min, each one stablehlo.reduce_window whose body is that computation, starting
# from its identity (-inf, 0, the largest integer); padding and dilations are attributes.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def max_pool(x):
    return lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')


def dilated_sum(x):
    return lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), ((0, 1), (1, 0)), (1, 2), (2, 1))


def running_min(x):
    return lax.reduce_window(x, np.iinfo(np.int32).max, lax.min, (3,), (1,), 'SAME')


print(jit(max_pool).lower(ShapeDtypeStruct((1, 4, 4, 3), np.float32)).as_text())
# CHECK-LABEL: module @jit_max_pool
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
# CHECK-NEXT: "stablehlo.reduce_window"(%{{.*}}, %[[INIT]]) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}>
# CHECK: stablehlo.maximum
# CHECK: (tensor<1x4x4x3xf32>, tensor<f32>) -> tensor<1x2x2x3xf32>

print(jit(dilated_sum).lower(ShapeDtypeStruct((4, 4), np.float64)).as_text())
# CHECK-LABEL: module @jit_dilated_sum
# CHECK: "stablehlo.reduce_window"(%{{.*}}, %{{.*}}) <{base_dilations = array<i64: 1, 2>, padding = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 2, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}>
# CHECK: stablehlo.add
# CHECK: (tensor<4x4xf64>, tensor<f64>) -> tensor<3x7xf64>

print(jit(running_min).lower(ShapeDtypeStruct((5,), np.int32)).as_text())
# CHECK-LABEL: module @jit_running_min
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<2147483647> : tensor<i32>
# CHECK-NEXT: "stablehlo.reduce_window"(%{{.*}}, %[[INIT]]) <{base_dilations = array<i64: 1>, padding = dense<1> : tensor<1x2xi64>
# CHECK: stablehlo.minimum
