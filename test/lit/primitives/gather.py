# RUN: %python %s | FileCheck %s
# gather lowers to one stablehlo.gather whose dimension numbers are the primitive's, the index
# vector being the last axis of the indices. Out of bounds the op clamps each window (XLA's
# semantics, and mode=None's, as in jax.lax); mode='fill' then selects fill_value where the
# unclamped window did not fit (0 <= start <= size - window along each indexed axis).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))


def rows(x, i):
    return lax.gather(x, i, ROWS, (1, 3))


def rows_or_nan(x, i):
    return lax.gather(x, i, ROWS, (1, 3), mode='fill')


x, i = ShapeDtypeStruct((4, 3), np.float32), ShapeDtypeStruct((2, 1), np.int32)
print(jit(rows).lower(x, i).as_text())
# CHECK-LABEL: module @jit_rows
# CHECK: func.func public @main(%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2x1xi32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Y:.*]] = "stablehlo.gather"(%[[X]], %[[I]]) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xf32>

print(jit(rows_or_nan).lower(x, i).as_text())
# CHECK-LABEL: module @jit_rows_or_nan
# CHECK: %[[LIMIT:.*]] = stablehlo.constant dense<3> : tensor<1xi32>
# CHECK: %[[Y:.*]] = "stablehlo.gather"
# CHECK: stablehlo.compare GE, %[[I:.*]], %{{.*}}, SIGNED
# CHECK: stablehlo.compare LE, %[[I]], %{{.*}}, SIGNED
# CHECK: %[[FITS:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [1] : (tensor<2x1xi1>, tensor<i1>) -> tensor<2xi1>
# CHECK: %[[NAN:.*]] = stablehlo.constant dense<0x7FC00000> : tensor<f32>
# CHECK: %[[MASK:.*]] = stablehlo.broadcast_in_dim %[[FITS]], dims = [0] : (tensor<2xi1>) -> tensor<2x3xi1>
# CHECK-NEXT: stablehlo.select %[[MASK]], %[[Y]], %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
