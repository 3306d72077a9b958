# RUN: %python %s | FileCheck %s
# jit(grad(f)) where f calls a jitted inner function: the forward program calls the inner
# function's known part, the backward program calls its transpose (named @inner_0, as JAX
# names a second function of one name); nothing else is emitted
# (the forward sin feeds no output of the gradient: it is pruned, as JAX prunes it).
import numpy as np
from minijax import ShapeDtypeStruct, grad, jit, lax


@jit
def inner(x):
    return lax.sin(x) * 2.


def f(x):
    return lax.reduce_sum(inner(x * 3.))


print(jit(grad(f)).lower(ShapeDtypeStruct((4,), np.float32)).as_text())
# CHECK-LABEL: module @jit_f
# CHECK: func.func public @main(%[[X:.*]]: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"})
# CHECK: %[[R:.*]] = call @inner(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
# CHECK: %[[CT:.*]] = call @inner_0(%[[R]], %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
# CHECK: stablehlo.multiply %[[CT]]
# CHECK: return
# CHECK: func.func private @inner(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
# CHECK-NOT: stablehlo.sine
# CHECK: stablehlo.cosine
# CHECK: func.func private @inner_0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<4xf32>
# CHECK: stablehlo.multiply
# CHECK-NOT: func.func
# CHECK: }
# CHECK-NEXT: }
