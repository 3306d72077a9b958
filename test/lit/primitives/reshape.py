# RUN: %python %s | FileCheck %s
# reshape lowers to stablehlo.reshape; squeeze and expand_dims are reshapes too.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def flatten(x):
    return lax.reshape(x, (6,))


def drop_axis(x):
    return lax.squeeze(x, (0,))


def add_axis(x):
    return lax.expand_dims(x, (1,))


print(jit(flatten).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())
# CHECK-LABEL: module @jit_flatten
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<6xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<6xf32>
# CHECK-NEXT: return %[[Y]] : tensor<6xf32>

print(jit(drop_axis).lower(ShapeDtypeStruct((1, 3), np.int32)).as_text())
# CHECK-LABEL: module @jit_drop_axis
# CHECK: stablehlo.reshape %{{.*}} : (tensor<1x3xi32>) -> tensor<3xi32>

print(jit(add_axis).lower(ShapeDtypeStruct((3,), np.float64)).as_text())
# CHECK-LABEL: module @jit_add_axis
# CHECK: stablehlo.reshape %{{.*}} : (tensor<3xf64>) -> tensor<3x1xf64>
