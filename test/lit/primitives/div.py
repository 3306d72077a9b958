# RUN: %python %s | FileCheck %s
# div lowers to stablehlo.divide; a Python scalar operand becomes a constant of the array's
# dtype, broadcast to its shape.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def div_scalar(x):
    return lax.div(x, 2.)


f32 = ShapeDtypeStruct((2, 3), np.float32)
print(jit(lax.div).lower(f32, f32).as_text())
# CHECK-LABEL: module @jit_div
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.divide %[[X]], %[[Y]] : tensor<2x3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<2x3xf32>

print(jit(div_scalar).lower(ShapeDtypeStruct((3,), np.float64)).as_text())
# CHECK-LABEL: module @jit_div_scalar
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf64>) -> tensor<3xf64>
# CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<f64>
# CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[C]], dims = [] : (tensor<f64>) -> tensor<3xf64>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.divide %[[X]], %[[B]] : tensor<3xf64>
# CHECK-NEXT: return %[[Z]] : tensor<3xf64>

i32 = ShapeDtypeStruct((4,), np.int32)
print(jit(lax.div).lower(i32, i32).as_text())
# CHECK-LABEL: module @jit_div
# CHECK: stablehlo.divide %{{.*}}, %{{.*}} : tensor<4xi32>
