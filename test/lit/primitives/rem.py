# RUN: %python %s | FileCheck %s
# rem lowers to stablehlo.remainder. For integers the divisor is first made safe (1 where
# it is 0, or -1 under INT_MIN), and x rem 0 is selected as x (XLA's answer), so that no
# executor ever traps on it; floats need no guard.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

f32 = ShapeDtypeStruct((3,), np.float32)
print(jit(lax.rem).lower(f32, f32).as_text())
# CHECK-LABEL: module @jit_rem
# CHECK: func.func public @main(%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.remainder %[[X]], %[[Y]] : tensor<3xf32>
# CHECK-NEXT: return %[[Z]] : tensor<3xf32>

u8 = ShapeDtypeStruct((4,), np.uint8)
print(jit(lax.rem).lower(u8, u8).as_text())
# CHECK-LABEL: module @jit_rem
# CHECK: func.func public @main(%[[X:.*]]: tensor<4xui8>, %[[Y:.*]]: tensor<4xui8>) -> tensor<4xui8>
# CHECK: %[[ZERO:.*]] = stablehlo.compare EQ, %[[Y]], %{{.*}}, UNSIGNED
# CHECK: %[[SAFE:.*]] = stablehlo.select %[[ZERO]], %{{.*}}, %[[Y]] : tensor<4xi1>, tensor<4xui8>
# CHECK-NEXT: %[[R:.*]] = stablehlo.remainder %[[X]], %[[SAFE]] : tensor<4xui8>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.select %[[ZERO]], %[[X]], %[[R]] : tensor<4xi1>, tensor<4xui8>
# CHECK-NEXT: return %[[Z]] : tensor<4xui8>
