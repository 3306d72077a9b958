# RUN: %python %s | FileCheck %s
# and, or, xor and not lower to stablehlo.and/or/xor/not, on integers (unsigned ones are
# MLIR's ui32) and on booleans (i1).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

u32 = ShapeDtypeStruct((4,), np.uint32)
for fn in [lax.bitwise_and, lax.bitwise_or, lax.bitwise_xor]:
    print(jit(fn).lower(u32, u32).as_text())
print(jit(lax.bitwise_not).lower(ShapeDtypeStruct((2, 3), np.int8)).as_text())
print(jit(lax.bitwise_not).lower(ShapeDtypeStruct((2,), np.bool_)).as_text())

# CHECK-LABEL: module @jit_bitwise_and
# CHECK: func.func public @main(%[[X:.*]]: tensor<4xui32>, %[[Y:.*]]: tensor<4xui32>) -> tensor<4xui32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.and %[[X]], %[[Y]] : tensor<4xui32>
# CHECK-NEXT: return %[[Z]] : tensor<4xui32>
# CHECK-LABEL: module @jit_bitwise_or
# CHECK: stablehlo.or %{{.*}}, %{{.*}} : tensor<4xui32>
# CHECK-LABEL: module @jit_bitwise_xor
# CHECK: stablehlo.xor %{{.*}}, %{{.*}} : tensor<4xui32>
# CHECK-LABEL: module @jit_bitwise_not
# CHECK: stablehlo.not %{{.*}} : tensor<2x3xi8>
# CHECK-LABEL: module @jit_bitwise_not
# CHECK: stablehlo.not %{{.*}} : tensor<2xi1>
