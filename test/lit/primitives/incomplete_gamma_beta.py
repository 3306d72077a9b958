# RUN: %python %s | FileCheck %s
# The incomplete gamma functions lower to JAX's expansions, op for op: lax.igamma (P),
# lax.igammac (Q = 1 - P) and lax.igamma_grad_a (dP/da) run, element by element where
# enabled, the power series (a while loop until every term is below eps of its sum) and the
# continued fraction (a while loop of at most 2000 convergents); the prefactor is
# exp(a log x - x - lgamma(a)); the derivatives need chlo.digamma. lax.random_gamma_grad is
# no primitive: its ops are staged where it is called. lax.betainc
# (regularized_incomplete_beta) runs the Lentz continued fraction in a while loop of at
# most 200 steps in float32 (600 in float64), with an i64 step counter.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

x = ShapeDtypeStruct((3,), np.float32)
for fn in (lax.igamma, lax.igammac, lax.igamma_grad_a, lax.random_gamma_grad):
    print(jit(fn).lower(x, x).as_text())
print(jit(lax.betainc).lower(x, x, x).as_text())

# CHECK-LABEL: module @jit_igamma
# CHECK: chlo.lgamma %arg0 : tensor<3xf32> -> tensor<3xf32>
# CHECK: stablehlo.exponential
# CHECK: stablehlo.while
# CHECK: cond {
# CHECK: stablehlo.constant dense<2.000000e+03> : tensor<f32>
# CHECK: stablehlo.reduce(%{{.*}}) applies stablehlo.or across dimensions = [0]
# CHECK: } do {
# CHECK: stablehlo.constant dense<1.1920929E-7>
# CHECK: stablehlo.while
# CHECK: cond {
# CHECK-NEXT: stablehlo.constant dense<false>
# CHECK-NEXT: stablehlo.reduce(%{{.*}}) applies stablehlo.or across dimensions = [0]
# CHECK-NEXT: stablehlo.return
# CHECK-NEXT: } do {
# CHECK: stablehlo.constant dense<0x7FC00000>
# CHECK: return

# CHECK-LABEL: module @jit_igammac
# CHECK: chlo.lgamma %arg0
# CHECK: stablehlo.while
# CHECK: cond {
# CHECK-NEXT: stablehlo.constant dense<false>
# CHECK: stablehlo.while
# CHECK: stablehlo.constant dense<2.000000e+03>
# CHECK: return

# CHECK-LABEL: module @jit_igamma_grad_a
# CHECK: chlo.lgamma %arg0
# CHECK: stablehlo.while
# CHECK: chlo.digamma %arg0
# CHECK: stablehlo.while
# CHECK: chlo.digamma
# CHECK: return

# CHECK-LABEL: module @jit_random_gamma_grad
# CHECK: chlo.lgamma %arg0
# CHECK: stablehlo.while
# CHECK: chlo.digamma %arg0
# CHECK: stablehlo.while
# CHECK: chlo.digamma
# CHECK: return

# CHECK-LABEL: module @jit_betainc
# CHECK-COUNT-2: stablehlo.constant dense<5.96046448E-8> : tensor<f32>
# CHECK: stablehlo.while({{.*}}) : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>, tensor<i1>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
# CHECK: cond {
# CHECK: stablehlo.constant dense<200> : tensor<i64>
# CHECK: } do {
# CHECK: stablehlo.remainder
# CHECK: stablehlo.divide {{.*}} : tensor<3xi64>
# CHECK: stablehlo.reduce(%{{.*}}) applies stablehlo.or across dimensions = [0]
# CHECK: chlo.lgamma
# CHECK: stablehlo.log_plus_one
# CHECK: return
