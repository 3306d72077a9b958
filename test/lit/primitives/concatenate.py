# RUN: %python %s | FileCheck %s
# concatenate lowers to stablehlo.concatenate along `dim`.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def join(x, y):
    return lax.concatenate([x, y], 1)


print(jit(join).lower(ShapeDtypeStruct((2, 3), np.float32),
                      ShapeDtypeStruct((2, 1), np.float32)).as_text())
# CHECK-LABEL: module @jit_join
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x1xf32>) -> tensor<2x4xf32>
# CHECK-NEXT: %[[Z:.*]] = stablehlo.concatenate %[[X]], %[[Y]], dim = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
# CHECK-NEXT: return %[[Z]] : tensor<2x4xf32>
