# RUN: %python %s | FileCheck %s
# scan -> stablehlo.while over an i32 index: each step reads a slice of xs with
# dynamic_slice and writes its output into the stacked ys with dynamic_update_slice.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax, scan


def cumulative(c, xs):
    return scan(lambda c, x: (c + x, lax.sin(c)), c, xs)


print(jit(cumulative).lower(ShapeDtypeStruct((2,), np.float32),
                            ShapeDtypeStruct((5, 2), np.float32)).as_text())
# CHECK-LABEL: module @jit_cumulative
# CHECK: func.func public @main(%[[C:.*]]: tensor<2xf32>, %[[XS:.*]]: tensor<5x2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>)
# CHECK: %[[YS0:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<5x2xf32>
# CHECK: stablehlo.while(%[[I:.*]] = %{{.*}}, %[[CARRY:.*]] = %[[C]], %[[YS:.*]] = %[[YS0]]) : tensor<i32>, tensor<2xf32>, tensor<5x2xf32>
# CHECK: stablehlo.constant dense<5> : tensor<i32>
# CHECK: stablehlo.compare LT, %[[I]]
# CHECK: } do {
# CHECK: %[[ROW:.*]] = stablehlo.dynamic_slice %[[XS]], %[[I]], %{{.*}}, sizes = [1, 2] : (tensor<5x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
# CHECK: %[[X:.*]] = stablehlo.reshape %[[ROW]] : (tensor<1x2xf32>) -> tensor<2xf32>
# CHECK: stablehlo.add %[[CARRY]], %[[X]] : tensor<2xf32>
# CHECK: stablehlo.sine %[[CARRY]] : tensor<2xf32>
# CHECK: stablehlo.dynamic_update_slice %[[YS]], %{{.*}}, %[[I]], %{{.*}} : (tensor<5x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<5x2xf32>
