# RUN: %python %s | FileCheck %s
# pow lowers to stablehlo.power; integer_pow (a static exponent) to square-and-multiply
# stablehlo.multiply ops, and a negative exponent divides one by the product.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def power(x, y):
    return lax.pow(x, y)


def cube(x):
    return lax.integer_pow(x, 3)


def inverse_square(x):
    return lax.integer_pow(x, -2)


x = ShapeDtypeStruct((3,), np.float32)
print(jit(power).lower(x, x).as_text())
# CHECK-LABEL: module @jit_power
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.power %[[X]], %[[Y]] : tensor<3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<3xf32>

print(jit(cube).lower(x).as_text())
# CHECK-LABEL: module @jit_cube
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[SQ:.*]] = stablehlo.multiply %[[X]], %[[X]] : tensor<3xf32>
# CHECK-NEXT: %[[CUBE:.*]] = stablehlo.multiply %[[X]], %[[SQ]] : tensor<3xf32>
# CHECK-NEXT: return %[[CUBE]] : tensor<3xf32>

print(jit(inverse_square).lower(ShapeDtypeStruct((3,), np.float64)).as_text())
# CHECK-LABEL: module @jit_inverse_square
# CHECK: %[[SQ:.*]] = stablehlo.multiply %[[X:.*]], %[[X]] : tensor<3xf64>
# CHECK-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f64>
# CHECK-NEXT: %[[ONES:.*]] = stablehlo.broadcast_in_dim %[[ONE]], dims = [] : (tensor<f64>) -> tensor<3xf64>
# CHECK-NEXT: %[[R:.*]] = stablehlo.divide %[[ONES]], %[[SQ]] : tensor<3xf64>
# CHECK-NEXT: return %[[R]] : tensor<3xf64>
