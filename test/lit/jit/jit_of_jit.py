# RUN: %python %s | FileCheck %s
# A jitted function called inside a jitted function becomes a func.call to a private
# function: one private function per (jaxpr, argument types), however often it is called.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


@jit
def inner(x):
    return lax.sin(x) * 2.


def twice(x, y):
    return inner(x) + inner(y)


def two_types(x, y):
    return lax.convert_element_type(inner(x), np.float64) + inner(y)


f32 = ShapeDtypeStruct((3,), np.float32)
print(jit(twice).lower(f32, f32).as_text())
# CHECK-LABEL: module @jit_twice
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[A:.*]] = call @inner(%[[X]]) : (tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[B:.*]] = call @inner(%[[Y]]) : (tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[C:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<3xf32>
# CHECK-NEXT: return %[[C]] : tensor<3xf32>
# CHECK-NEXT: }
# CHECK-NEXT: func.func private @inner(%[[Z:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: stablehlo.sine %[[Z]] : tensor<3xf32>
# CHECK-NOT: func.func
# CHECK: }
# CHECK-NEXT: }

f64 = ShapeDtypeStruct((3,), np.float64)
print(jit(two_types).lower(f32, f64).as_text())
# CHECK-LABEL: module @jit_two_types
# CHECK: call @inner(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
# CHECK: call @inner_1(%{{.*}}) : (tensor<3xf64>) -> tensor<3xf64>
# CHECK: func.func private @inner(%{{.*}}: tensor<3xf32>) -> tensor<3xf32>
# CHECK: func.func private @inner_1(%{{.*}}: tensor<3xf64>) -> tensor<3xf64>


def plain(x):
    return lax.cos(x)


def wrapped_twice(x, y):
    return jit(plain)(x) + jit(plain)(y)


print(jit(wrapped_twice).lower(f32, f32).as_text())
# The same Python function jitted at two call sites is still one private function.
# CHECK-LABEL: module @jit_wrapped_twice
# CHECK: call @plain(
# CHECK: call @plain(
# CHECK: func.func private @plain(
# CHECK-NOT: func.func
