# RUN: %python %s | FileCheck %s
# population_count lowers to stablehlo.popcnt and clz to stablehlo.count_leading_zeros (of
# a signed operand's bits as unsigned: XLA's constant folder miscounts negative ones); both
# give the operand's integer type.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

print(jit(lax.population_count).lower(ShapeDtypeStruct((4,), np.uint32)).as_text())
print(jit(lax.clz).lower(ShapeDtypeStruct((3,), np.int16)).as_text())

# CHECK-LABEL: module @jit_population_count
# CHECK: %[[Z:.*]] = stablehlo.popcnt %{{.*}} : tensor<4xui32>
# CHECK-NEXT: return %[[Z]] : tensor<4xui32>
# CHECK-LABEL: module @jit_clz
# CHECK: %[[U:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<3xi16>) -> tensor<3xui16>
# CHECK-NEXT: %[[C:.*]] = stablehlo.count_leading_zeros %[[U]] : tensor<3xui16>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.bitcast_convert %[[C]] : (tensor<3xui16>) -> tensor<3xi16>
# CHECK-NEXT: return %[[Z]] : tensor<3xi16>
