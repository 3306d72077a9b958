"""Trigonometric, hyperbolic and other transcendental functions beyond ``elementwise``.

Each is a primitive, as in JAX. ``tan``, ``atan2``, ``expm1`` and ``cbrt`` lower to their
StableHLO ops; the inverse trigonometric and the (inverse) hyperbolic functions, and
``square`` of a floating-point or complex number, to CHLO ops (``chlo.asin``, ``chlo.sinh``,
``chlo.square``...), which XLA expands into elementwise ops, as JAX lowers them. They run
eagerly on XLA too: their values are XLA's approximations.
"""
from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir.dialects import chlo, stablehlo as hlo

from minijax import dtypes
from minijax.interpreters import jvp as ad
from minijax.lax.accuracy import AccuracyMode, accuracy_attr
from minijax.lax.elementwise import (
    FLOATING, NUMBER, add, binary_primitive, div, exp, full_like, integer_pow, log, mul, neg,
    promote_weak_scalars, rsqrt, sub, unary_function, unary_primitive)
from minijax.lowering import constant, register_lowering
from minijax.lowering.ops import broadcast_in_dim as hlo_broadcast_in_dim

_LN2 = math.log(2)

# ----------------------------------------------------------------------------- primitives

def _expm1_tangent(t, x, ans, accuracy=None):
    """``t (ans + 1)``; asked for the highest accuracy, JAX's ``t exp(x)``."""
    if accuracy is AccuracyMode.HIGHEST:
        return mul(t, exp(x, accuracy=accuracy))
    return mul(t, add(ans, 1.))


tan_p = unary_primitive('tan', np.tan, hlo.TanOp,
                        lambda t, x, ans, accuracy=None: mul(t, add(1., mul(ans, ans))),
                        eager_on_xla=True)
expm1_p = unary_primitive('expm1', np.expm1, hlo.Expm1Op, _expm1_tangent, eager_on_xla=True)
cbrt_p = unary_primitive('cbrt', np.cbrt, hlo.CbrtOp,
                         lambda t, x, ans, accuracy=None: mul(t, mul(1 / 3, integer_pow(ans, -2))),
                         accepts=FLOATING, eager_on_xla=True)
atan2_p = binary_primitive('atan2', np.arctan2, lambda ctx, x, y: hlo.Atan2Op(x, y).result,
                           accepts=FLOATING, eager_on_xla=True)


def _atan2_slope(numerator):
    """``numerator / (x^2 + y^2)``: the partial derivatives of ``atan2(x, y)``, ``y / r^2``
    (in x) and ``-x / r^2`` (in y)."""
    return lambda t, x, y: mul(t, div(numerator(x, y), add(mul(x, x), mul(y, y))))


ad.defjvp(atan2_p, _atan2_slope(lambda x, y: y), _atan2_slope(lambda x, y: neg(x)))


tan = unary_function(tan_p, 'Elementwise tangent.', accuracy=True)


expm1 = unary_function(expm1_p, 'Elementwise ``exp(x) - 1``, accurate for small ``x``.',
                       accuracy=True)


cbrt = unary_function(cbrt_p, 'Elementwise cube root (negative for negative ``x``).',
                      accuracy=True)


def atan2(x, y):
    """Elementwise angle of the point ``(y, x)``: ``atan(x / y)`` in the right quadrant."""
    return atan2_p.bind(*promote_weak_scalars('atan2', x, y))

# ----------------------------------------------------------------------------- compositions


def reciprocal(x):
    """Elementwise ``1 / x``."""
    return integer_pow(x, -1)

# ----------------------------------------------------------------------------- through CHLO


def _chlo_primitive(name, chlo_op, tangent, np_impl):
    """A primitive of a floating-point or complex operand lowered to ``chlo_op``."""
    return unary_primitive(name, np_impl, chlo_op, tangent, eager_on_xla=True)


def _one_minus_square(x):
    return sub(full_like(x, 1), square(x))


sinh_p = _chlo_primitive('sinh', chlo.SinhOp, lambda t, x, ans: mul(t, cosh(x)), np.sinh)
cosh_p = _chlo_primitive('cosh', chlo.CoshOp, lambda t, x, ans: mul(t, sinh(x)), np.cosh)
asin_p = _chlo_primitive('asin', chlo.AsinOp,
                         lambda t, x, ans: mul(t, rsqrt(_one_minus_square(x))), np.arcsin)
acos_p = _chlo_primitive('acos', chlo.AcosOp,
                         lambda t, x, ans: mul(t, neg(rsqrt(_one_minus_square(x)))), np.arccos)
atan_p = _chlo_primitive('atan', chlo.AtanOp,
                         lambda t, x, ans: div(t, add(full_like(x, 1), square(x))), np.arctan)
asinh_p = _chlo_primitive('asinh', chlo.AsinhOp,
                          lambda t, x, ans: mul(t, rsqrt(add(square(x), full_like(x, 1)))),
                          np.arcsinh)
acosh_p = _chlo_primitive(
    'acosh', chlo.AcoshOp,
    lambda t, x, ans: mul(t, rsqrt(mul(sub(x, full_like(x, 1)), add(x, full_like(x, 1))))),
    np.arccosh)
atanh_p = _chlo_primitive(
    'atanh', chlo.AtanhOp,
    lambda t, x, ans: mul(reciprocal(add(full_like(x, 1), x)), div(t, sub(full_like(x, 1), x))),
    np.arctanh)


def _square_lowering(ctx, x):
    """``chlo.square`` of a float or complex number, a multiplication of an integer."""
    if dtypes.is_inexact(ctx.avals_in[0].dtype):
        return chlo.SquareOp(x).result
    return hlo.MulOp(x, x).result


square_p = unary_primitive('square', np.square, None, lambda t, x, ans: mul(t, mul(2, x)),
                           accepts=NUMBER, eager_on_xla=dtypes.complex_operand)  # (XLA's formula)
register_lowering(square_p, _square_lowering)


def _exp2_lowering(ctx, x, accuracy=None):
    """``exp(log(2) x)``, as JAX lowers it, the exponential carrying the ``accuracy`` (one
    op: JAX builds no op without it here)."""
    aval = ctx.avals_in[0]
    ln2 = hlo_broadcast_in_dim(constant(np.asarray(_LN2, aval.dtype)), aval, ())
    result_accuracy = None if accuracy is None else accuracy_attr(accuracy)
    return hlo.ExpOp(hlo.MulOp(ln2, x).result, result_accuracy=result_accuracy).result


exp2_p = unary_primitive('exp2', np.exp2, None,
                         lambda t, x, ans, accuracy=None: mul(mul(log(full_like(x, 2)), t), ans),
                         eager_on_xla=True)
register_lowering(exp2_p, _exp2_lowering)


sinh = unary_function(sinh_p, 'Elementwise hyperbolic sine.')
cosh = unary_function(cosh_p, 'Elementwise hyperbolic cosine.')
asin = unary_function(asin_p, 'Elementwise arcsine.')
acos = unary_function(acos_p, 'Elementwise arccosine.')
atan = unary_function(atan_p, 'Elementwise arctangent.')
asinh = unary_function(asinh_p, 'Elementwise inverse hyperbolic sine.')
acosh = unary_function(acosh_p, 'Elementwise inverse hyperbolic cosine (NaN below 1).')
atanh = unary_function(atanh_p, 'Elementwise inverse hyperbolic tangent.')
square = unary_function(square_p, 'Elementwise ``x * x``.')


exp2 = unary_function(exp2_p, 'Elementwise ``2 ** x``.', accuracy=True)
