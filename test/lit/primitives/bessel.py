# RUN: %python %s | FileCheck %s
# lax.bessel_i1e lowers to chlo.bessel_i1e, as in JAX. lax.bessel_i0e has no CHLO op: it
# lowers to Cephes' Chebyshev series, in JAX's op order: on |x|, Clenshaw's recurrence over
# 18 coefficients in x/2 - 2 (30 in float64), over 7 in 32/x - 2 (25) divided by sqrt(|x|),
# and a select at |x| <= 8; float16 is computed in float32.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

print(jit(lax.bessel_i1e).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_bessel_i1e
# CHECK: %[[Y:.*]] = chlo.bessel_i1e %arg0 : tensor<3xf32> -> tensor<3xf32>
# CHECK-NEXT: return %[[Y]]

for dtype in (np.float32, np.float64, np.float16):
    print(jit(lax.bessel_i0e).lower(ShapeDtypeStruct((3,), dtype)).as_text())
# CHECK-LABEL: module @jit_bessel_i0e
# CHECK: %[[A:.*]] = stablehlo.abs %arg0 : tensor<3xf32>
# CHECK: stablehlo.constant dense<-1.30002498E-8>
# CHECK-COUNT-18: stablehlo.add
# CHECK-NOT: stablehlo.add
# CHECK: stablehlo.divide %{{.*}}, %[[A]]
# CHECK: stablehlo.constant dense<3.39623196E-9>
# CHECK-COUNT-7: stablehlo.add
# CHECK-NOT: stablehlo.add
# CHECK: %[[ROOT:.*]] = stablehlo.sqrt %[[A]]
# CHECK-NEXT: %[[FAR:.*]] = stablehlo.divide %{{.*}}, %[[ROOT]]
# CHECK: %[[NEAR:.*]] = stablehlo.compare LE, %[[A]], %{{.*}}, FLOAT
# CHECK-NEXT: %[[Y:.*]] = stablehlo.select %[[NEAR]], %{{.*}}, %[[FAR]]
# CHECK-NEXT: return %[[Y]]

# CHECK-LABEL: module @jit_bessel_i0e
# CHECK: stablehlo.abs %arg0 : tensor<3xf64>
# CHECK: stablehlo.constant dense<-4.4153416464793395E-18>
# CHECK-COUNT-30: stablehlo.add
# CHECK-NOT: stablehlo.add
# CHECK: stablehlo.constant dense<-7.2331804878747538E-18>
# CHECK-COUNT-25: stablehlo.add
# CHECK-NOT: stablehlo.add
# CHECK: stablehlo.sqrt

# CHECK-LABEL: module @jit_bessel_i0e
# CHECK: %[[X:.*]] = stablehlo.convert %arg0 : (tensor<3xf16>) -> tensor<3xf32>
# CHECK-NEXT: stablehlo.abs %[[X]] : tensor<3xf32>
# CHECK: %[[Y:.*]] = stablehlo.select
# CHECK-NEXT: %[[Z:.*]] = stablehlo.convert %[[Y]] : (tensor<3xf32>) -> tensor<3xf16>
# CHECK-NEXT: return %[[Z]]
