# RUN: %python %s | FileCheck %s
# The jaxpr printer, in JAX's syntax (the text jax.make_jaxpr prints for these programs):
# short dtypes, typed literals, parameters in brackets, xla_call printed as JAX's jit with its
# sub-jaxpr nested in the parameters and named like the operands it stands for.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax, make_jaxpr
from minijax.core import ShapedArray


def f(x):
    return -(lax.sin(x) * 2.) + x


print(make_jaxpr(f)(3.))
# CHECK-LABEL: { lambda ; a:f64[]. let
# CHECK-NEXT:     b:f64[] = sin a
# CHECK-NEXT:     c:f64[] = mul b 2.0:f64[]
# CHECK-NEXT:     d:f64[] = neg c
# CHECK-NEXT:     e:f64[] = add d a
# CHECK-NEXT:   in (e,) }


def g(x, y):
    return lax.reduce_sum(lax.transpose(x, (1, 0)) * jit(lax.cos)(y), axis=0)


print(make_jaxpr(g)(ShapeDtypeStruct((2, 3), np.float32), ShapeDtypeStruct((3, 2), np.float32)))
# CHECK-LABEL: { lambda ; a:f32[2,3] b:f32[3,2]. let
# CHECK-NEXT:     c:f32[3,2] = transpose[permutation=(1, 0)] a
# CHECK-NEXT:     d:f32[3,2] = jit[
# CHECK-NEXT:       name=cos
# CHECK-NEXT:       jaxpr={ lambda ; b:f32[3,2]. let d:f32[3,2] = cos b in (d,) }
# CHECK-NEXT:     ] b
# CHECK-NEXT:     e:f32[3,2] = mul c d
# CHECK-NEXT:     f:f32[2] = reduce_sum[axes=(0,) out_sharding=None] e
# CHECK-NEXT:   in (f,) }


# The Autodidax call make_jaxpr(f, *avals) returns (jaxpr, consts, out_tree) and its jaxpr
# prints in the seed's syntax.
jaxpr, consts, out_tree = make_jaxpr(f, ShapedArray((), np.float64))
print(jaxpr)
# CHECK-LABEL: { lambda a:float64[] .
# CHECK-NEXT:   let b:float64[] = sin a
# CHECK-NEXT:       c:float64[] = mul b 2.0
# CHECK-NEXT:       d:float64[] = neg c
# CHECK-NEXT:       e:float64[] = add d a
# CHECK-NEXT:   in ( e ) }
