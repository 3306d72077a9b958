# RUN: %python %s | FileCheck %s
# The scatter family (scatter, scatter_add, scatter_mul, scatter_min, scatter_max) lowers to
# stablehlo.scatter; its update region combines the operand's element (first argument) with
# the update (second): the update itself for scatter, else add, multiply, minimum, maximum. A
# window that does not fit is dropped whole: XLA drops it, but the StableHLO spec drops only its
# elements outside. A window of one element along each indexed axis fits whole or not at all,
# so its indices go to the scatter as they are (as in JAX); a wider one's indices are first
# selected to the operand's end (4), wholly outside, where the window does not fit, for every
# executor. mode='clip' first clamps the indices into [0, size - window].
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

ROWS = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
BLOCKS = lax.ScatterDimensionNumbers(update_window_dims=(1, 2), inserted_window_dims=(),
                                     scatter_dims_to_operand_dims=(0,))
x, i, u = (ShapeDtypeStruct((4, 3), np.float32), ShapeDtypeStruct((2, 1), np.int32),
           ShapeDtypeStruct((2, 3), np.float32))
blocks = ShapeDtypeStruct((2, 2, 3), np.float32)


def scatter_add(x, i, u):
    return lax.scatter_add(x, i, u, ROWS)


print(jit(scatter_add).lower(x, i, u).as_text())
# CHECK-LABEL: module @jit_scatter_add
# CHECK: func.func public @main(%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2x1xi32>, %[[U:.*]]: tensor<2x3xf32>) -> (tensor<4x3xf32> {jax.result_info = "result"})
# CHECK-NEXT: %[[Y:.*]] = "stablehlo.scatter"(%[[X]], %[[I]], %[[U]]) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
# CHECK-NEXT: ^bb0(%[[OLD:.*]]: tensor<f32>, %[[NEW:.*]]: tensor<f32>):
# CHECK-NEXT: %[[SUM:.*]] = stablehlo.add %[[OLD]], %[[NEW]] : tensor<f32>
# CHECK-NEXT: stablehlo.return %[[SUM]] : tensor<f32>
# CHECK-NEXT: }) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>


def scatter_add_blocks(x, i, u):
    return lax.scatter_add(x, i, u, BLOCKS)


print(jit(scatter_add_blocks).lower(x, i, blocks).as_text())
# CHECK-LABEL: module @jit_scatter_add_blocks
# CHECK: func.func public @main(%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2x1xi32>, %[[U:.*]]: tensor<2x2x3xf32>)
# CHECK: %[[END:.*]] = stablehlo.constant dense<4> : tensor<1xi32>
# CHECK: %[[FITS:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [1] : (tensor<2x1xi1>, tensor<i1>) -> tensor<2xi1>
# CHECK-NEXT: %[[ENDS:.*]] = stablehlo.broadcast_in_dim %[[END]], dims = [1] : (tensor<1xi32>) -> tensor<2x1xi32>
# CHECK-NEXT: %[[FIT:.*]] = stablehlo.broadcast_in_dim %[[FITS]], dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
# CHECK-NEXT: %[[STARTS:.*]] = stablehlo.select %[[FIT]], %[[I]], %[[ENDS]] : tensor<2x1xi1>, tensor<2x1xi32>
# CHECK-NEXT: "stablehlo.scatter"(%[[X]], %[[STARTS]], %[[U]])


def scatter(x, i, u):
    return lax.scatter(x, i, u, ROWS, mode='clip')


print(jit(scatter).lower(x, i, u).as_text())
# CHECK-LABEL: module @jit_scatter
# CHECK: %[[LIMIT:.*]] = stablehlo.constant dense<3> : tensor<1xi32>
# CHECK: %[[ABOVE:.*]] = stablehlo.maximum %[[I:.*]], %{{.*}} : tensor<2x1xi32>
# CHECK-NEXT: %[[CLAMPED:.*]] = stablehlo.minimum %[[ABOVE]], %{{.*}} : tensor<2x1xi32>
# CHECK-NEXT: "stablehlo.scatter"(%{{.*}}, %[[CLAMPED]], %{{.*}})
# CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %[[NEW:.*]]: tensor<f32>):
# CHECK-NEXT: stablehlo.return %[[NEW]] : tensor<f32>

for name in ('scatter_mul', 'scatter_min', 'scatter_max'):
    fn = getattr(lax, name)
    print(jit(lambda x, i, u: fn(x, i, u, ROWS)).lower(x, i, u).as_text())
# CHECK: "stablehlo.scatter"
# CHECK: stablehlo.multiply %{{.*}}, %{{.*}} : tensor<f32>
# CHECK: "stablehlo.scatter"
# CHECK: stablehlo.minimum %{{.*}}, %{{.*}} : tensor<f32>
# CHECK: "stablehlo.scatter"
# CHECK: stablehlo.maximum %{{.*}}, %{{.*}} : tensor<f32>
