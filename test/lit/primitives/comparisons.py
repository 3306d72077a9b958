# RUN: %python %s | FileCheck %s
# eq, ne, ge and le lower to stablehlo.compare with an i1 result; booleans compare UNSIGNED.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

x = ShapeDtypeStruct((3,), np.float32)
for name in ['eq', 'ne', 'ge', 'le']:
    print(jit(getattr(lax, name)).lower(x, x).as_text())
print(jit(lax.eq).lower(ShapeDtypeStruct((2,), np.bool_), ShapeDtypeStruct((2,), np.bool_)).as_text())

# CHECK-LABEL: module @jit_eq
# CHECK: stablehlo.compare EQ, %{{.*}}, %{{.*}}, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
# CHECK-LABEL: module @jit_ne
# CHECK: stablehlo.compare NE, %{{.*}}, %{{.*}}, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
# CHECK-LABEL: module @jit_ge
# CHECK: stablehlo.compare GE, %{{.*}}, %{{.*}}, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
# CHECK-LABEL: module @jit_le
# CHECK: stablehlo.compare LE, %{{.*}}, %{{.*}}, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
# CHECK-LABEL: module @jit_eq
# CHECK: stablehlo.compare EQ, %{{.*}}, %{{.*}}, UNSIGNED : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
