# RUN: %python %s | FileCheck %s
# convert_element_type lowers to stablehlo.convert, from and to every supported dtype.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def to_int32(x):
    return lax.convert_element_type(x, np.int32)


def to_float64(x):
    return lax.convert_element_type(x, np.float64)


print(jit(to_int32).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_to_int32
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>) -> tensor<3xi32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.convert %[[X]] : (tensor<3xf32>) -> tensor<3xi32>
# CHECK-NEXT: return %[[Y]] : tensor<3xi32>

print(jit(to_float64).lower(ShapeDtypeStruct((2, 2), np.bool_)).as_text())
# CHECK-LABEL: module @jit_to_float64
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x2xi1>) -> tensor<2x2xf64>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.convert %[[X]] : (tensor<2x2xi1>) -> tensor<2x2xf64>
# CHECK-NEXT: return %[[Y]] : tensor<2x2xf64>
