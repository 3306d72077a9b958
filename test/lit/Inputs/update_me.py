# RUN: %python %s | FileCheck %s
# A golden test whose CHECK lines are stale: `minijax update-checks` rewrites them.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def scale(x):
    return lax.sin(x) * 2.


def pair(x, y):
    return jit(scale)(x) + jit(scale)(y), lax.greater(x, y)


print(jit(scale).lower(ShapeDtypeStruct((3,), np.float32)).as_text())
# CHECK-LABEL: module @jit_scale
# CHECK: stablehlo.cosine

f = ShapeDtypeStruct((2, 2), np.float64)
print(jit(pair).lower(f, f).as_text())
# CHECK-LABEL: module @jit_pair
# CHECK-NEXT: this line is out of date
