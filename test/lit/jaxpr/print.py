# RUN: %python %s | FileCheck %s
# The jaxpr printer, in the Autodidax format: typed binders, constants as literals,
# equation parameters in brackets, sub-jaxprs of xla_call printed under their equation.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax, make_jaxpr


def f(x):
    return -(lax.sin(x) * 2.) + x


print(make_jaxpr(f)(3.))
# CHECK-LABEL: { lambda a:float64[] .
# CHECK-NEXT:   let b:float64[] = sin a
# CHECK-NEXT:       c:float64[] = mul b 2.0
# CHECK-NEXT:       d:float64[] = neg c
# CHECK-NEXT:       e:float64[] = add d a
# CHECK-NEXT:   in ( e ) }


def g(x, y):
    return lax.reduce_sum(lax.transpose(x, (1, 0)) * jit(lax.cos)(y), axis=0)


print(make_jaxpr(g)(ShapeDtypeStruct((2, 3), np.float32), ShapeDtypeStruct((3, 2), np.float32)))
# CHECK-LABEL: { lambda a:float32[2,3] b:float32[3,2] .
# CHECK-NEXT:   let c:float32[3,2] = transpose [ perm=(1, 0) ] a
# CHECK-NEXT:       d:float32[3,2] = xla_call [ name=cos ] b
# CHECK-NEXT:         jaxpr=
# CHECK-NEXT:           { lambda a:float32[3,2] .
# CHECK-NEXT:             let b:float32[3,2] = cos a
# CHECK-NEXT:             in ( b ) }
# CHECK-NEXT:       e:float32[3,2] = mul c d
# CHECK-NEXT:       f:float32[2] = reduce_sum [ axes=(0,) ] e
# CHECK-NEXT:   in ( f ) }
