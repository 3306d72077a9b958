# RUN: %python %s | FileCheck %s
# stop_gradient lowers to nothing: the function returns its argument, as in JAX.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

print(jit(lax.stop_gradient).lower(ShapeDtypeStruct((2, 3), np.float32)).as_text())

# CHECK-LABEL: module @jit_stop_gradient
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
