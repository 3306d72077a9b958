# RUN: %python %s | FileCheck %s
# argmax lowers to a two-operand stablehlo.reduce over (values, iota indices). The body is a
# total order, so the reduction order does not matter: a NaN beats any number, then the larger
# value wins, and among equal values (NaNs equal) the smaller index. argmin compares LT.
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
# CHECK-NEXT: reducer(%[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>) (%[[AI:[a-z0-9_]+]]: tensor<i32>, %[[BI:[a-z0-9_]+]]: tensor<i32>)
# CHECK-NEXT: %[[GT:.*]] = stablehlo.compare GT, %[[A]], %[[B]], FLOAT
# CHECK-NEXT: %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[B]], FLOAT
# CHECK-NEXT: %[[ANAN:.*]] = stablehlo.compare NE, %[[A]], %[[A]], FLOAT
# CHECK-NEXT: %[[BNAN:.*]] = stablehlo.compare NE, %[[B]], %[[B]], FLOAT
# CHECK: %[[BEATS:.*]] = stablehlo.or %[[GT]],
# CHECK: %[[EQUAL:.*]] = stablehlo.or %[[EQ]],
# CHECK-NEXT: %[[FIRST:.*]] = stablehlo.compare LT, %[[AI]], %[[BI]], SIGNED
# CHECK-NEXT: %[[TIE:.*]] = stablehlo.and %[[EQUAL]], %[[FIRST]]
# CHECK-NEXT: %[[WINS:.*]] = stablehlo.or %[[BEATS]], %[[TIE]]
# CHECK-NEXT: stablehlo.select %[[WINS]], %[[A]], %[[B]]
# CHECK-NEXT: stablehlo.select %[[WINS]], %[[AI]], %[[BI]]
# CHECK-NEXT: stablehlo.return
# CHECK: return %[[R]]#1 : tensor<2xi32>

print(jit(first_min).lower(ShapeDtypeStruct((2, 3), np.int32)).as_text())
# CHECK-LABEL: module @jit_first_min
# CHECK: stablehlo.iota dim = 0 : tensor<2x3xi64>
# CHECK: stablehlo.constant dense<2147483647> : tensor<i32>
# CHECK: stablehlo.compare LT, {{.*}} SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
