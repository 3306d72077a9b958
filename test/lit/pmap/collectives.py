# RUN: env MINIJAX_NUM_CPU_DEVICES=4 %python %s | FileCheck %s
# Each collective lowers to its StableHLO collective over the replicas of the pmap axis:
# psum, pmax, pmin to all_reduce (add, max, min regions), axis_index to replica_id,
# all_gather, psum_scatter to reduce_scatter, ppermute to collective_permute, all_to_all.
import numpy as np
import minijax
from minijax import lax

x = np.ones((2, 2, 3), np.float32)


def lower(f):
    print(minijax.pmap(f, 'i').lower(x).as_text())


def reductions(v):
    return lax.pmax(v, 'i') - lax.pmin(v, 'i')


lower(reductions)
# CHECK-LABEL: module @pmap_reductions
# CHECK: "stablehlo.all_reduce"(%{{.*}}) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}>
# CHECK: stablehlo.maximum
# CHECK: "stablehlo.all_reduce"
# CHECK: stablehlo.minimum


def index(v):
    return lax.axis_index('i')


lower(index)
# CHECK-LABEL: module @pmap_index
# CHECK: %[[R:.*]] = stablehlo.replica_id : tensor<ui32>
# CHECK-NEXT: stablehlo.convert %[[R]] : (tensor<ui32>) -> tensor<i32>


def gather(v):
    return lax.all_gather(v, 'i', axis=1)


lower(gather)
# CHECK-LABEL: module @pmap_gather
# CHECK: stablehlo.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
# CHECK: "stablehlo.all_gather"(%{{.*}}) <{all_gather_dim = 1 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<2x1x3xf32>) -> tensor<2x2x3xf32>


def scatter(v):
    return lax.psum_scatter(v, 'i')


lower(scatter)
# CHECK-LABEL: module @pmap_scatter
# CHECK: "stablehlo.reduce_scatter"(%{{.*}}) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}>
# CHECK: stablehlo.add
# CHECK: (tensor<2x3xf32>) -> tensor<1x3xf32>
# CHECK: stablehlo.reshape %{{.*}} : (tensor<1x3xf32>) -> tensor<3xf32>


def rotate(v):
    return lax.ppermute(v, 'i', [(0, 1), (1, 0)])


lower(rotate)
# CHECK-LABEL: module @pmap_rotate
# CHECK: "stablehlo.collective_permute"(%{{.*}}) <{source_target_pairs = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>


def exchange(v):
    return lax.all_to_all(v, 'i', 0, 1)


lower(exchange)
# CHECK-LABEL: module @pmap_exchange
# CHECK: "stablehlo.all_to_all"(%{{.*}}) <{concat_dimension = 2 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<2x3x1xf32>) -> tensor<1x3x2xf32>
# CHECK: stablehlo.reshape %{{.*}} : (tensor<1x3x2xf32>) -> tensor<3x2xf32>
