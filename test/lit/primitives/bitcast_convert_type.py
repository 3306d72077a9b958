# RUN: %python %s | FileCheck %s
# bitcast_convert_type lowers to stablehlo.bitcast_convert: same width keeps the shape; a
# narrower target adds a trailing axis, a wider one consumes it.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def float_bits(x):
    return lax.bitcast_convert_type(x, np.uint32)


def words(x):
    return lax.bitcast_convert_type(x, np.int32)


def from_words(x):
    return lax.bitcast_convert_type(x, np.float64)


print(jit(float_bits).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_float_bits
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>) -> tensor<3xui32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.bitcast_convert %[[X]] : (tensor<3xf32>) -> tensor<3xui32>
# CHECK-NEXT: return %[[Y]] : tensor<3xui32>

print(jit(words).lower(ShapeDtypeStruct((3,), np.float64)).as_text())
# CHECK-LABEL: module @jit_words
# CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<3xf64>) -> tensor<3x2xi32>

print(jit(from_words).lower(ShapeDtypeStruct((3, 2), np.int32)).as_text())
# CHECK-LABEL: module @jit_from_words
# CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<3x2xi32>) -> tensor<3xf64>
