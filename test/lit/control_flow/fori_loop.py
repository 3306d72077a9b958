# RUN: %python %s | FileCheck %s
# fori_loop with Python int bounds goes through scan (a counted stablehlo.while with an i64
# step, its body a private @closed_call, as JAX lowers it); with traced bounds it is a
# while_loop over (i, upper, value).
import numpy as np
from minijax import ShapeDtypeStruct, fori_loop, jit, lax

f32 = ShapeDtypeStruct((), np.float32)


def static_bounds(x):
    return fori_loop(0, 5, lambda i, v: lax.sin(v), x)


print(jit(static_bounds).lower(f32).as_text())
# CHECK-LABEL: module @jit_static_bounds
# CHECK: stablehlo.while(%[[K:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i64>, tensor<f32>
# CHECK: stablehlo.constant dense<5> : tensor<i64>
# CHECK: stablehlo.compare LT, %[[K]]
# CHECK: func.call @closed_call
# CHECK: stablehlo.add %[[K]]
# CHECK: func.func private @closed_call
# CHECK-NEXT: stablehlo.sine


def traced_bounds(n, x):
    return fori_loop(0, n, lambda i, v: lax.sin(v), x)


print(jit(traced_bounds).lower(ShapeDtypeStruct((), np.int32), f32).as_text())
# CHECK-LABEL: module @jit_traced_bounds
# CHECK: func.func public @main(%[[N:.*]]: tensor<i32>, %{{.*}}: tensor<f32>)
# CHECK: stablehlo.while(%[[I:.*]] = %{{.*}}, %[[U:.*]] = %[[N]], %{{.*}} = %{{.*}}) : tensor<i32>, tensor<i32>, tensor<f32>
# CHECK: stablehlo.compare LT, %[[I]], %[[U]], SIGNED
# CHECK: stablehlo.sine
