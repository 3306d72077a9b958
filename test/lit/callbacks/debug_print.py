# A host callback lowers to a custom call of jaxlib's Python-callback FFI handler, as JAX
# emits it: the index attribute points into the module's list of Python functions.
# RUN: %python %s | FileCheck %s
import numpy as np

import minijax
import minijax.numpy as jnp


@minijax.jit
def f(x):
    minijax.debug.print('x: {}', x)
    y = minijax.pure_callback(np.sin, minijax.ShapeDtypeStruct((3,), 'float64'), x)
    minijax.debug.print('y: {}', y)
    return jnp.cos(x)  # y is read by the print only: the pure callback stays for it


print(f.lower(np.ones(3)).as_text())
# CHECK-LABEL: module @jit_f
# CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = []} : (tensor<3xf64>) -> ()
# CHECK: %[[Y:.+]] = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<3xf64>) -> tensor<3xf64>
# CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%[[Y]]) {{.*}}index = 2 : ui64
# CHECK: stablehlo.cosine


@minijax.jit
def g(x):
    minijax.pure_callback(np.sin, minijax.ShapeDtypeStruct((), 'float64'), x)
    return x * 2  # a pure callback nobody reads is dead code, as in JAX


print(g.lower(1.).as_text())
# CHECK-LABEL: module @jit_g
# CHECK-NOT: custom_call
# CHECK: return
