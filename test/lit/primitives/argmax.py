# RUN: %python %s | FileCheck %s
# argmax lowers to a two-operand stablehlo.reduce over (values, iota indices): the body keeps
# the larger value (or a NaN) and, on ties, the smaller index. argmin compares LT instead.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def first_max(x):
    return lax.argmax(x, 1, np.int32)


def first_min(x):
    return lax.argmin(x, 0, np.int64)


print(jit(first_max).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())
# CHECK-LABEL: module @jit_first_max
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2xi32>
# CHECK-NEXT: %[[IDX:.*]] = stablehlo.iota dim = 1 : tensor<2x3xi32>
# CHECK-NEXT: %[[LOW:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
# CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i32>
# CHECK-NEXT: %[[R:.*]]:2 = stablehlo.reduce(%[[X]] init: %[[LOW]]), (%[[IDX]] init: %[[ZERO]]) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
# CHECK: stablehlo.compare GT
# CHECK: stablehlo.compare NE
# CHECK: stablehlo.or
# CHECK: stablehlo.compare EQ
# CHECK: stablehlo.compare LT, {{.*}} SIGNED
# CHECK: stablehlo.and
# CHECK: stablehlo.select
# CHECK: stablehlo.select
# CHECK: stablehlo.return
# CHECK: return %[[R]]#1 : tensor<2xi32>

print(jit(first_min).lower(ShapeDtypeStruct((2, 3), np.int32)).as_text())
# CHECK-LABEL: module @jit_first_min
# CHECK: stablehlo.iota dim = 0 : tensor<2x3xi64>
# CHECK: stablehlo.constant dense<2147483647> : tensor<i32>
# CHECK: stablehlo.compare LT, {{.*}} SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
