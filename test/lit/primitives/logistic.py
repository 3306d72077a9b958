# RUN: %python %s | FileCheck %s
# logistic lowers to 1 / (1 + exp(-x)), as JAX lowers it (stablehlo.logistic's XLA expansion
# rounds differently), keeping shape and element type.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

for shape, dtype in [((2, 3), np.float32), ((), np.float64)]:
    print(jit(lax.logistic).lower(ShapeDtypeStruct(shape, dtype)).as_text())

# CHECK-LABEL: module @jit_logistic
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>
# CHECK-NEXT: %[[NEG:.*]] = stablehlo.negate %[[X]] : tensor<2x3xf32>
# CHECK-NEXT: %[[EXP:.*]] = stablehlo.exponential %[[NEG]] : tensor<2x3xf32>
# CHECK-NEXT: %[[DEN:.*]] = stablehlo.add %[[ONE]], %[[EXP]] : tensor<2x3xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.divide %[[ONE]], %[[DEN]] : tensor<2x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x3xf32>

# CHECK-LABEL: module @jit_logistic
# CHECK: func.func public @main(%[[X:.*]]: tensor<f64>) -> tensor<f64>
# CHECK-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f64>
# CHECK-NEXT: %[[NEG:.*]] = stablehlo.negate %[[X]] : tensor<f64>
# CHECK-NEXT: %[[EXP:.*]] = stablehlo.exponential %[[NEG]] : tensor<f64>
# CHECK-NEXT: %[[DEN:.*]] = stablehlo.add %[[ONE]], %[[EXP]] : tensor<f64>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.divide %[[ONE]], %[[DEN]] : tensor<f64>
# CHECK-NEXT: return %[[Y]] : tensor<f64>
