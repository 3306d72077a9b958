"""Trigonometric, hyperbolic and other transcendental functions beyond ``elementwise``.

``tan``, ``atan2``, ``expm1`` and ``cbrt`` are primitives, as in JAX: StableHLO has an op for
each. The inverse trigonometric and the (inverse) hyperbolic functions are primitives in JAX
too, but JAX lowers them through CHLO, which minijax does not emit; here each is a function
of primitives, the formula XLA's CHLO expansion uses, and is differentiated through it.
Where a formula's two branches are selected with ``select_n``, the branch not taken gets a
harmless operand: its zero cotangent times an infinite derivative would be NaN.
"""
from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import (
    FLOATING, abs, add, binary_primitive, div, eq, exp, full_like, ge, integer_pow, less, log,
    log1p, mul, neg, promote_weak_scalars, select_n, sqrt, sub, unary_primitive)
from minijax.lax.static import default_options_only

_LN2 = math.log(2)

# ----------------------------------------------------------------------------- primitives

tan_p = unary_primitive('tan', np.tan, hlo.TanOp,
                        lambda t, x, ans: mul(t, add(1., mul(ans, ans))), eager_on_xla=True)
expm1_p = unary_primitive('expm1', np.expm1, hlo.Expm1Op, lambda t, x, ans: mul(t, add(ans, 1.)),
                          eager_on_xla=True)
cbrt_p = unary_primitive('cbrt', np.cbrt, hlo.CbrtOp,
                         lambda t, x, ans: mul(t, mul(1 / 3, integer_pow(ans, -2))),
                         accepts=FLOATING, eager_on_xla=True)
atan2_p = binary_primitive('atan2', np.arctan2, lambda ctx, x, y: hlo.Atan2Op(x, y).result,
                           accepts=FLOATING, eager_on_xla=True)


def _atan2_slope(numerator):
    """``numerator / (x^2 + y^2)``: the partial derivatives of ``atan2(x, y)``, ``y / r^2``
    (in x) and ``-x / r^2`` (in y)."""
    return lambda t, x, y: mul(t, div(numerator(x, y), add(mul(x, x), mul(y, y))))


ad.defjvp(atan2_p, _atan2_slope(lambda x, y: y), _atan2_slope(lambda x, y: neg(x)))


def tan(x, *, accuracy=None):
    """Elementwise tangent."""
    default_options_only('tan', accuracy=accuracy)
    return tan_p.bind(x)


def expm1(x, *, accuracy=None):
    """Elementwise ``exp(x) - 1``, accurate for small ``x``."""
    default_options_only('expm1', accuracy=accuracy)
    return expm1_p.bind(x)


def cbrt(x, *, accuracy=None):
    """Elementwise cube root (negative for negative ``x``)."""
    default_options_only('cbrt', accuracy=accuracy)
    return cbrt_p.bind(x)


def atan2(x, y):
    """Elementwise angle of the point ``(y, x)``: ``atan(x / y)`` in the right quadrant."""
    return atan2_p.bind(*promote_weak_scalars('atan2', x, y))

# ----------------------------------------------------------------------------- compositions


def square(x):
    """Elementwise ``x * x`` (``integer_pow``'s rules: JAX's TypeError for bool)."""
    return integer_pow(x, 2)


def reciprocal(x):
    """Elementwise ``1 / x``."""
    return integer_pow(x, -1)


def exp2(x, *, accuracy=None):
    """Elementwise ``2 ** x``, as ``exp(x log 2)`` (JAX lowers it so too)."""
    default_options_only('exp2', accuracy=accuracy)
    return exp(mul(x, _LN2))


def _piecewise(pred, x, on_true, on_false, safe):
    """``on_true(x)`` where ``pred``, else ``on_false(x)``. Each branch sees ``x`` only where
    it is taken (``safe``, a point inside its domain, elsewhere), so the branch not taken
    has finite derivatives and its zero cotangent stays zero."""
    safe_x = full_like(x, safe)
    return select_n(pred, on_false(select_n(pred, x, safe_x)),
                    on_true(select_n(pred, safe_x, x)))


def _sqrt_of_max(x):
    """Where squaring ``x`` starts to overflow in its dtype."""
    return math.sqrt(float(dtypes.finfo(core.get_aval(x).dtype).max))


def _sqrt_1_minus_square(x):
    return sqrt(mul(sub(1., x), add(1., x)))


def asin(x):
    """Elementwise arcsine, ``2 atan2(x, 1 + sqrt(1 - x^2))``."""
    return mul(2., atan2(x, add(1., _sqrt_1_minus_square(x))))


def acos(x):
    """Elementwise arccosine, ``2 atan2(sqrt(1 - x^2), 1 + x)``, and pi at ``x = -1``."""
    angle = mul(2., atan2(_sqrt_1_minus_square(x), add(1., x)))
    return select_n(eq(x, -1.), angle, full_like(x, np.pi))


def atan(x):
    """Elementwise arctangent, ``atan2(x, 1)``."""
    return atan2(x, full_like(x, 1.))


def _sinh_near_zero(x):
    """``(m + m / (m + 1)) / 2`` with ``m = expm1(x)``: no cancellation for small ``x``."""
    m = expm1(x)
    return mul(.5, add(m, div(m, add(m, 1.))))


def _half_exp(x):
    """``exp(x) / 2``, finite wherever the result is (up to ``x = log(2 max)``)."""
    return exp(sub(x, _LN2))


def sinh(x):
    """Elementwise hyperbolic sine."""
    return _piecewise(less(abs(x), 1.), x, _sinh_near_zero,
                      lambda x: sub(_half_exp(x), _half_exp(neg(x))), safe=.5)


def cosh(x):
    """Elementwise hyperbolic cosine, ``exp(x) / 2 + exp(-x) / 2``."""
    return add(_half_exp(x), _half_exp(neg(x)))


def _log_of_twice(a):
    """``log(2 a)``, which ``asinh(a)`` and ``acosh(a)`` are where ``a^2`` overflows."""
    return add(log(a), _LN2)


def _asinh_of_magnitude(a):
    """``log1p(a + a^2 / (1 + sqrt(1 + a^2)))``, ``log(a + sqrt(a^2 + 1))`` rewritten to
    keep its precision near 0."""
    a2 = mul(a, a)
    return log1p(add(a, div(a2, add(1., sqrt(add(1., a2))))))


def asinh(x):
    """Elementwise inverse hyperbolic sine, odd: computed on ``|x|``."""
    a = abs(x)
    magnitude = _piecewise(ge(a, _sqrt_of_max(x)), a, _log_of_twice, _asinh_of_magnitude,
                           safe=1.)
    return select_n(less(x, 0.), magnitude, neg(magnitude))


def _acosh_moderate(x):
    """``log1p(y + sqrt(y (y + 2)))`` with ``y = x - 1``: precise near ``x = 1``."""
    y = sub(x, 1.)
    return log1p(add(y, sqrt(mul(y, add(y, 2.)))))


def acosh(x):
    """Elementwise inverse hyperbolic cosine (NaN below 1)."""
    return _piecewise(ge(x, _sqrt_of_max(x)), x, _log_of_twice, _acosh_moderate, safe=2.)


def atanh(x):
    """Elementwise inverse hyperbolic tangent, ``(log1p(x) - log1p(-x)) / 2``."""
    return mul(.5, sub(log1p(x), log1p(neg(x))))
