# RUN: %python %s | FileCheck %s
# cond -> stablehlo.case: the predicate becomes the index through stablehlo.convert
# (i1 -> i32), and the regions are ordered false, true.
import numpy as np
from minijax import ShapeDtypeStruct, cond, jit, lax

x = ShapeDtypeStruct((3,), np.float32)


def choose(p, x):
    return cond(p, lambda v: lax.sin(v), lambda v: lax.cos(v), x)


print(jit(choose).lower(ShapeDtypeStruct((), np.bool_), x).as_text())
# CHECK-LABEL: module @jit_choose
# CHECK: func.func public @main(%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK: %[[I:.*]] = stablehlo.convert %[[P]] : (tensor<i1>) -> tensor<i32>
# CHECK: %[[R:.*]] = "stablehlo.case"(%[[I]]) ({
# CHECK-NEXT: %[[F:.*]] = stablehlo.cosine %[[X]] : tensor<3xf32>
# CHECK-NEXT: stablehlo.return %[[F]] : tensor<3xf32>
# CHECK-NEXT: }, {
# CHECK-NEXT: %[[T:.*]] = stablehlo.sine %[[X]] : tensor<3xf32>
# CHECK-NEXT: stablehlo.return %[[T]] : tensor<3xf32>
# CHECK-NEXT: }) : (tensor<i32>) -> tensor<3xf32>
# CHECK: return %[[R]] : tensor<3xf32>


@jit
def inner(v):
    return cond(lax.reduce_sum(v) > 0., lambda: v * 2., lambda: v)


def outer(x):
    return cond(lax.reduce_sum(x) < 0., lambda: inner(x), lambda: x)


print(jit(outer).lower(x).as_text())
# A jitted function inside a branch: func.call inside the case region, and the private
# function holds a case of its own.
# CHECK-LABEL: module @jit_outer
# CHECK: "stablehlo.case"
# CHECK: }, {
# CHECK-NEXT: %[[C:.*]] = func.call @inner(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: stablehlo.return %[[C]] : tensor<3xf32>
# CHECK: func.func private @inner
# CHECK: stablehlo.convert %{{.*}} : (tensor<i1>) -> tensor<i32>
# CHECK: "stablehlo.case"
