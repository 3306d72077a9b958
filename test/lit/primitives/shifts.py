# RUN: %python %s | FileCheck %s
# shift_left, shift_right_logical and shift_right_arithmetic lower to the StableHLO op of
# the same name, whose answer for shifts of the bit width or more is XLA's (0, or the sign).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

u32, i64 = ShapeDtypeStruct((4,), np.uint32), ShapeDtypeStruct((2, 2), np.int64)
print(jit(lax.shift_left).lower(u32, u32).as_text())
print(jit(lax.shift_right_logical).lower(i64, i64).as_text())
print(jit(lax.shift_right_arithmetic).lower(i64, i64).as_text())

# CHECK-LABEL: module @jit_shift_left
# CHECK: func.func public @main(%[[X:.*]]: tensor<4xui32>, %[[Y:.*]]: tensor<4xui32>) -> tensor<4xui32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.shift_left %[[X]], %[[Y]] : tensor<4xui32>
# CHECK-NEXT: return %[[Z]] : tensor<4xui32>
# CHECK-LABEL: module @jit_shift_right_logical
# CHECK: stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<2x2xi64>
# CHECK-LABEL: module @jit_shift_right_arithmetic
# CHECK: stablehlo.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<2x2xi64>
