# RUN: %python %s | FileCheck %s
# sort lowers to one stablehlo.sort of all its operands, whose comparator region says whether
# one element goes before another. Float keys are first made canonical (-0. to +0., every NaN
# to one positive NaN) and then compared in TOTALORDER, so NaNs go last and zeros tie, as in
# JAX. Several keys compare lexicographically, built from the last key up: lt0 or (eq0 and lt1).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def by_key(keys, values):
    return lax.sort_key_val(keys, values, 0)


def two_keys(a, b):
    return lax.sort((a, b), num_keys=2, is_stable=False)


print(jit(by_key).lower(ShapeDtypeStruct((2, 3), np.float32),
                        ShapeDtypeStruct((2, 3), np.int32)).as_text())
# CHECK-LABEL: module @jit_by_key
# CHECK: func.func public @main(%[[K:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<2x3xi32>)
# CHECK-NEXT: %[[R:.*]]:2 = "stablehlo.sort"(%[[K]], %[[V]]) <{dimension = 0 : i64, is_stable = true}>
# CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: tensor<f32>, %[[Y:[a-z0-9_]+]]: tensor<f32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>):
# CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
# CHECK-NEXT: %[[NAN:.*]] = stablehlo.constant dense<0x7FC00000> : tensor<f32>
# CHECK-NEXT: %[[XZ:.*]] = stablehlo.compare EQ, %[[X]], %[[ZERO]], FLOAT
# CHECK-NEXT: %[[X1:.*]] = stablehlo.select %[[XZ]], %[[ZERO]], %[[X]]
# CHECK-NEXT: %[[XN:.*]] = stablehlo.compare NE, %[[X1]], %[[X1]], FLOAT
# CHECK-NEXT: %[[X2:.*]] = stablehlo.select %[[XN]], %[[NAN]], %[[X1]]
# CHECK: %[[Y2:.*]] = stablehlo.select %{{.*}}, %[[NAN]], %{{.*}}
# CHECK-NEXT: %[[LT:.*]] = stablehlo.compare LT, %[[X2]], %[[Y2]], TOTALORDER
# CHECK-NEXT: stablehlo.return %[[LT]] : tensor<i1>
# CHECK: return %[[R]]#0, %[[R]]#1 : tensor<2x3xf32>, tensor<2x3xi32>

print(jit(two_keys).lower(ShapeDtypeStruct((4,), np.int32),
                          ShapeDtypeStruct((4,), np.uint32)).as_text())
# CHECK-LABEL: module @jit_two_keys
# CHECK: "stablehlo.sort"(%{{.*}}, %{{.*}}) <{dimension = 0 : i64, is_stable = false}>
# CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<i32>, %[[B:[a-z0-9_]+]]: tensor<i32>, %[[C:[a-z0-9_]+]]: tensor<ui32>, %[[D:[a-z0-9_]+]]: tensor<ui32>):
# CHECK-NEXT: %[[LT1:.*]] = stablehlo.compare LT, %[[C]], %[[D]], UNSIGNED
# CHECK-NEXT: %[[LT0:.*]] = stablehlo.compare LT, %[[A]], %[[B]], SIGNED
# CHECK-NEXT: %[[EQ0:.*]] = stablehlo.compare EQ, %[[A]], %[[B]], SIGNED
# CHECK-NEXT: %[[TIE:.*]] = stablehlo.and %[[EQ0]], %[[LT1]]
# CHECK-NEXT: %[[LESS:.*]] = stablehlo.or %[[LT0]], %[[TIE]]
# CHECK-NEXT: stablehlo.return %[[LESS]] : tensor<i1>
