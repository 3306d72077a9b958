# RUN: %python %s | FileCheck %s
# add_any, the sum of two contributions to one derivative (the cotangents of a value used
# twice, here), lowers to stablehlo.add as add does.
import numpy as np
from minijax import ShapeDtypeStruct, grad, jit, lax


def square(x):
    return x * x


f64 = ShapeDtypeStruct((), np.float64)
print(jit(grad(square)).lower(f64).as_text())
# CHECK-LABEL: module @jit_{{.*}}square
# CHECK: func.func public @main(%[[X:.*]]: tensor<f64>
# CHECK: %[[B:.*]] = stablehlo.multiply %[[X]], %cst : tensor<f64>
# CHECK: %[[C:.*]] = stablehlo.multiply %cst_0, %[[X]] : tensor<f64>
# CHECK-NEXT: %[[D:.*]] = stablehlo.add %[[B]], %[[C]] : tensor<f64>
# CHECK-NEXT: return %[[D]] : tensor<f64>

f32 = ShapeDtypeStruct((2, 3), np.float32)
print(jit(lax.add_any).lower(f32, f32).as_text())
# CHECK-LABEL: module @jit_add_any
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>) -> {{.*}}tensor<2x3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.add %[[X]], %[[Y]] : tensor<2x3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<2x3xf32>
