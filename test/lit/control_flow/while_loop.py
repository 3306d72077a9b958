# RUN: %python %s | FileCheck %s
# while_loop -> stablehlo.while with a cond region and a body region; values the loop
# closes over are used directly from the enclosing function.
import numpy as np
from minijax import ShapeDtypeStruct, jit, while_loop


def power_until(x):
    return while_loop(lambda c: c[1] < 100., lambda c: (c[0] + 1, c[1] * x), (0, 1.))


print(jit(power_until).lower(ShapeDtypeStruct((), np.float32)).as_text())
# CHECK-LABEL: module @jit_power_until
# CHECK: func.func public @main(%[[X:.*]]: tensor<f32>) -> (tensor<i64>, tensor<f32>)
# CHECK: stablehlo.while(%[[I:.*]] = %{{.*}}, %[[V:.*]] = %{{.*}}) : tensor<i64>, tensor<f32>
# CHECK-NEXT: cond {
# CHECK: %[[P:.*]] = stablehlo.compare LT, %[[V]], %{{.*}}, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
# CHECK-NEXT: stablehlo.return %[[P]] : tensor<i1>
# CHECK-NEXT: } do {
# CHECK: stablehlo.add %[[I]]
# CHECK: stablehlo.multiply %[[V]], %[[X]] : tensor<f32>
# CHECK: stablehlo.return
