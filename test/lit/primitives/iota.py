# RUN: %python %s | FileCheck %s
# iota lowers to stablehlo.iota counting along `dim`.
import numpy as np
from minijax import jit, lax


def counts():
    return lax.iota(np.int32, (2, 3), 1)


print(jit(counts).lower().as_text())
# CHECK-LABEL: module @jit_counts
# CHECK: func.func public @main() -> tensor<2x3xi32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.iota dim = 1 : tensor<2x3xi32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xi32>
