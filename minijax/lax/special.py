"""The error function ``erf`` and its complement ``erfc``: primitives StableHLO has no op for.

They lower to ``chlo.erf``/``chlo.erfc``, as in JAX. XLA compiles ``erf`` as an op of its own
(a transcendental function, as ``exp`` is) and expands ``erfc`` into a rational
approximation, which ``erfc_expansion`` writes in lax ops: what ``minijax.flops`` counts, and
for a reader to see. Its coefficients are Cephes' (S. L. Moshier, ``ndtr.c``), the ones XLA
uses for float64: on [0, 1] ``erf(x) = x T(x^2) / U(x^2)``; above 1 ``erfc(x) = exp(-x^2)
P(x) / Q(x)`` (``R/S`` from 8 on). The reference interpreter runs them legalized by
``chlo-legalize-to-stablehlo``.

Eager evaluation (the impl) uses the C library's ``erf``/``erfc``, correctly rounded or
nearly: eager and jitted results may differ in the last bits, as JAX's CPU and GPU results do.
"""
from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir.dialects import chlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import abs, add, div, exp, full_like, less, mul, neg, select_n, sub
from minijax.lowering import register_lowering

# Highest power first, as Cephes lists them; a leading 1 is implied in U, Q and S.
_T = [9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
      7.00332514112805075473E3, 5.55923013010394962768E4]
_U = [1., 3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
      2.26290000613890934246E4, 4.92673942608635921086E4]
_P = [2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
      4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
      9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2]
_Q = [1., 1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
      9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
      1.65666309194161350182E3, 5.57535340817727675546E2]
_R = [5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
      6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0]
_S = [1., 2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
      1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0]
def _polynomial(coefficients, x):
    """Horner's rule: ``c[0] x^n + ... + c[n]`` (no multiplication by a leading 1)."""
    leading, *rest = coefficients
    acc = x if leading == 1 else mul(leading, x)
    for c in rest[:-1]:
        acc = mul(add(acc, c), x)
    return add(acc, rest[-1])


def _erf_near_zero(x, x_squared):
    """erf for |x| <= 1."""
    return div(mul(x, _polynomial(_T, x_squared)), _polynomial(_U, x_squared))


def _erfc_of_magnitude(a, minus_x_squared):
    """erfc for a = |x| >= 1: exp(-x^2) P(a) / Q(a) (R(a) / S(a) from 8 on), and 0 where
    exp(-x^2) underflows, which also spares inf / inf (NaN stays NaN)."""
    gaussian = exp(minus_x_squared)
    near = div(mul(gaussian, _polynomial(_P, a)), _polynomial(_Q, a))
    far = div(mul(gaussian, _polynomial(_R, a)), _polynomial(_S, a))
    tail = select_n(less(a, 8.), far, near)
    bound = -np.log(np.finfo(core.get_aval(a).dtype).max)
    return select_n(less(minus_x_squared, bound), tail, full_like(tail, 0))


def erfc_expansion(x):
    """erfc in lax ops, as XLA expands ``chlo.erfc`` (what ``minijax.flops`` counts); 2 -
    erfc(|x|) for negative x."""
    a, x_squared = abs(x), mul(x, x)
    tail = _erfc_of_magnitude(a, neg(x_squared))
    outer = select_n(less(x, 0.), tail, sub(2., tail))
    return select_n(less(a, 1.), outer, sub(1., _erf_near_zero(x, x_squared)))


def _float_unary_abstract_eval(name):
    def abstract_eval(x):
        if not dtypes.is_float(x.dtype):
            raise TypeError(f'{name} needs a floating-point operand, got {x.str_short()}')
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return abstract_eval


def _elementwise(libm_function):
    """The C library's scalar function applied to each element, in the operand's dtype."""
    ufunc = np.frompyfunc(libm_function, 1, 1)
    return lambda x: np.asarray(ufunc(np.asarray(x)), np.asarray(x).dtype)


def _gaussian_slope(scale):
    """``scale * 2/sqrt(pi) * exp(-x^2)``: the derivative of erf (scale 1) and erfc (-1)."""
    return lambda t, x: mul(t, mul(scale * 2 / math.sqrt(math.pi), exp(neg(mul(x, x)))))


def _special_primitive(name, libm_function, chlo_op, derivative):
    prim = Primitive(name)
    prim.def_impl(_elementwise(libm_function))
    prim.def_abstract_eval(_float_unary_abstract_eval(name))
    ad.defjvp(prim, derivative)
    prim.def_batching(lambda vals, dims: (prim.bind(*vals), dims[0]))
    register_lowering(prim, lambda ctx, x: chlo_op(x).result)
    return prim


erf_p = _special_primitive('erf', math.erf, chlo.ErfOp, _gaussian_slope(1))
erfc_p = _special_primitive('erfc', math.erfc, chlo.ErfcOp, _gaussian_slope(-1))

def erf(x):
    """Elementwise error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return erf_p.bind(x)


def erfc(x):
    """Elementwise complementary error function ``1 - erf(x)``, accurate where erf is near 1."""
    return erfc_p.bind(x)
