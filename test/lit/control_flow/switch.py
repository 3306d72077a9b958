# RUN: %python %s | FileCheck %s
# switch -> stablehlo.case with one region per branch; the index is clamped into range.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax, switch


def pick(i, x):
    return switch(i, [lambda v: v * 2., lambda v: lax.sin(v), lambda v: lax.exp(v)], x)


print(jit(pick).lower(ShapeDtypeStruct((), np.int32), ShapeDtypeStruct((2,), np.float64)).as_text())
# CHECK-LABEL: module @jit_pick
# CHECK: func.func public @main(%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<2xf64>) -> tensor<2xf64>
# CHECK: %[[LO:.*]] = stablehlo.maximum %[[I]], %{{.*}} : tensor<i32>
# CHECK: %[[IDX:.*]] = stablehlo.minimum %[[LO]], %{{.*}} : tensor<i32>
# CHECK: "stablehlo.case"(%[[IDX]]) ({
# CHECK: stablehlo.multiply
# CHECK: }, {
# CHECK: stablehlo.sine
# CHECK: }, {
# CHECK: stablehlo.exponential
# CHECK: }) : (tensor<i32>) -> tensor<2xf64>
