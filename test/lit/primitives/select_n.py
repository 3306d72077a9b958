# RUN: %python %s | FileCheck %s
# select_n with a bool selector is one stablehlo.select (true case first); with an int32
# selector over n cases it is a tree of compares against the split points and selects.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def where(c, x, y):
    return lax.select_n(c, y, x)


def pick(i, a, b, c):
    return lax.select_n(i, a, b, c)


f = ShapeDtypeStruct((3,), np.float32)
print(jit(where).lower(ShapeDtypeStruct((3,), np.bool_), f, f).as_text())
# CHECK-LABEL: module @jit_where
# CHECK: func.func public @main(%[[C:.*]]: tensor<3xi1>, %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.select %[[C]], %[[X]], %[[Y]] : tensor<3xi1>, tensor<3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<3xf32>

print(jit(pick).lower(ShapeDtypeStruct((3,), np.int32), f, f, f).as_text())
# CHECK-LABEL: module @jit_pick
# CHECK: func.func public @main(%[[I:.*]]: tensor<3xi32>, %[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<3xf32>)
# CHECK: %[[LT1:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
# CHECK: %[[LT2:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
# CHECK-NEXT: %[[BC:.*]] = stablehlo.select %[[LT2]], %[[B]], %[[C]] : tensor<3xi1>, tensor<3xf32>
# CHECK-NEXT: %[[ABC:.*]] = stablehlo.select %[[LT1]], %[[A]], %[[BC]] : tensor<3xi1>, tensor<3xf32>
# CHECK-NEXT: return %[[ABC]] : tensor<3xf32>
