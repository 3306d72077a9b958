"""The confluent and Gauss hypergeometric functions ``hyp1f1`` and ``hyp2f1``, as JAX evaluates
them (Pearson, Olver and Porter 2014): one element at a time (``jnp.vectorize``), by series
summed in ``while_loop``s until a term is below eps (at most 250 terms), with the special
cases and transformations chosen by ``select``. Their derivatives in the parameters are
series of their own (custom_jvp), in ``x`` a shifted function.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as jnp
from minijax.control_flow import cond, while_loop
from minijax.custom_derivatives import custom_jvp
from minijax.jit import jit
from minijax.numpy import _promote_inexact

__all__ = ['hyp1f1', 'hyp2f1']


def _gamma(x):
    from minijax.scipy.special import gamma  # special re-exports this module's functions
    return gamma(x)


def _eps(x):
    return np.finfo(core.get_aval(x).dtype).eps


def _c(x, value):
    return np.array(value, core.get_aval(x).dtype)


def _series(x, first, ratio, weight=None, start=0., relative=True, limit=250):
    """``start + sum_{k>=1} weight(k) term_k`` with ``term_1 = first`` and
    ``term_{k+1} = term_k * ratio(k)``, until ``|term| / |sum| <= eps`` (``relative``) or
    ``|term| <= eps |sum|``, or ``k == limit``."""
    eps = _eps(x)

    def go_on(state):
        total, k, term = state
        small = (lax.abs(term) / lax.abs(total) > eps if relative
                 else lax.abs(term) > eps * lax.abs(total))
        return (k < limit) & small

    def body(state):
        total, k, term = state
        total = total + (term if weight is None else term * weight(k))
        return total, k + 1, term * ratio(k)
    return while_loop(go_on, body, (_c(x, start), _c(x, 1), first))[0]


def _real_operands(name, *args):
    args = _promote_inexact(*args)
    if dtypes.is_complex(core.get_aval(args[0]).dtype):
        raise ValueError(f'{name} does not support complex-valued inputs.')
    return args

# ----------------------------------------------------------------------------- 1F1


def _hyp1f1_series(a, b, x):
    """The Taylor series ``sum_k (a)_k / (b)_k x^k / k!``, for ``|x| < 100``."""
    return _series(x, a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1), start=1.)


def _hyp1f1_asymptotic(a, b, x):
    """The large-``|x|`` expansion ``Gamma(b)/Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k /
    (k! x^k)``."""
    total = _series(x, (b - a) * (1 - a) / x,
                    lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x, start=1.)
    return _gamma(b) / _gamma(a) * lax.exp(x) * x ** (a - b) * total


def _hyp1f1_scalar(a, b, x):
    """``1F1(a; b; x)``: 1 where ``a == 0``, ``e^x`` where ``a == b``, inf where ``b == 0``."""
    a, b, x = _real_operands('hyp1f1', a, b, x)
    value = cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    return jnp.select([a == 0, a == b, b == 0], [_c(x, 1), jnp.exp(x), _c(x, np.inf)], value)


def _hyp1f1_derivative(weight):
    """The derivative of 1F1 in a parameter: its series with each term weighted by the
    derivative of the log of that parameter's Pochhammer symbol, ``weight(a, b, k)``."""
    def derivative(a, b, x):
        return _series(x, a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k: weight(a, b, k))
    return jit(jnp.vectorize(derivative))


_HYP1F1_A_DERIVATIVE = _hyp1f1_derivative(lambda a, b, k: lax.digamma(a + k) - lax.digamma(a))
_HYP1F1_B_DERIVATIVE = _hyp1f1_derivative(lambda a, b, k: lax.digamma(b) - lax.digamma(b + k))


@custom_jvp
@jit
def hyp1f1(a, b, x):
    """The confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!``
    (real operands): the series for ``|x| < 100``, the asymptotic expansion beyond; 1 at
    ``a = b = 0`` (SciPy gives NaN), as in JAX."""
    return jnp.vectorize(_hyp1f1_scalar)(a, b, x)


hyp1f1.defjvps(
    lambda a_dot, _, a, b, x: _HYP1F1_A_DERIVATIVE(a, b, x) * a_dot,
    lambda b_dot, _, a, b, x: _HYP1F1_B_DERIVATIVE(a, b, x) * b_dot,
    lambda x_dot, _, a, b, x: a / b * hyp1f1(a + 1, b + 1, x) * x_dot)

# ----------------------------------------------------------------------------- 2F1


def _hyp2f1_terminal(a, b, c, x):
    """The Taylor series of 2F1 where ``a`` (or ``b``) is a non-positive integer, so it ends
    after ``|a|`` terms: the one of them of larger magnitude (unless ``c`` is a non-positive
    integer between them) bounds the loop."""
    ib = jnp.round(b)
    swap = ((b < a) & (jnp.abs(b - ib) < _eps(x) * 50)
            & ~((c % 1 == 0) & (c <= 0) & (c > b)))
    a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
    a = jnp.abs(a)

    def body(state):
        i, total, term = state
        term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return i + 1, total + term, term
    one = _c(x, 1)
    return while_loop(lambda s: s[0] < a + 1, body, (_c(a, 1), one, one))[1]


def _hyp2f1_series(a, b, c, x):
    """The Taylor series ``sum_k (a)_k (b)_k / (c)_k x^k / k!``."""
    return _series(x, _c(x, 1), lambda k: (a + k - 1) * (b + k - 1) / (c + k - 1) / k * x,
                   relative=False)


def _hyp2f1_digamma_transform(a, b, c, x):
    """2F1 near ``x = 1`` where ``c - a - b`` is an integer (AMS 55, 15.3.10-12): a digamma
    series in ``1 - x``, plus a finite sum when ``c - a - b != 0``."""
    eps = _eps(x)
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    zero = _c(d, 0)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, zero)
    d2 = jnp.where(rd >= 0, zero, d)
    ard = jnp.where(rd >= 0, rd, -rd).astype('int32')
    ax = jnp.log(s)
    digamma = lax.digamma
    one = _c(x, 1.)
    y = (digamma(one) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - ax)
    y = y / _gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / _gamma(e + 2.0)

    def body(state):
        p, q, t, y = state
        r = (digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1)
             - digamma(b + t + d1) - ax)
        q = p * r
        y = y + q
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y
    _, _, _, y = while_loop(lambda st: (st[2] < 250) & (jnp.abs(st[1]) >= eps * jnp.abs(st[3])),
                            body, (p, y, one, y))

    def finite_sum(state):
        i, p, t, y1 = state
        p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t))
        t = t + 1.0
        p = p / t
        return i + 1, p, t, y1 + p
    y1 = while_loop(lambda st: st[0] < ard, finite_sum,
                    (np.int32(1), one, _c(x, 0.), one))[3]
    gamma_c = _gamma(c)
    y1 = y1 * (_gamma(e) * gamma_c / (_gamma(a + d1) * _gamma(b + d1)))
    y_sum = y * (gamma_c / (_gamma(a + d2) * _gamma(b + d2)))
    y_sum = jnp.where((ard & 1) != 0, -y_sum, y_sum)
    q = s ** rd
    total = jnp.where(rd > 0, y_sum * q + y1, y_sum + y1 * q)
    return jnp.where(rd == 0, y * _gamma(c) / (_gamma(a) * _gamma(b)), total)


def _hyp2f1_terminal_or_series(a, b, c, x):
    """The series, ended where ``a`` or ``b`` is a non-positive integer; past ``x = 0.9``
    with an integer ``c - a - b``, the digamma transformation."""
    eps = _eps(x) * 50
    d = c - a - b
    negative_integer = (((a <= 0) & (jnp.abs(a - jnp.round(a)) < eps))
                        | ((b <= 0) & (jnp.abs(b - jnp.round(b)) < eps)))
    integer_d = ~(jnp.abs(d - jnp.round(d)) >= eps)  # (NaN counts as an integer, as in JAX)
    return jnp.select([(x > 0.9) & ~negative_integer & integer_d, negative_integer],
                      [_hyp2f1_digamma_transform(a, b, c, x), _hyp2f1_terminal(a, b, c, x)],
                      _hyp2f1_series(a, b, c, x))


def _hyp2f1_scalar(a, b, c, x):
    """``2F1(a, b; c; x)`` by case: 1 at ``x = 0``, inf at the poles of ``c`` and beyond
    ``x = 1``, Euler's transformation when ``c - a - b <= -1``, the closed forms where ``c``
    equals ``a`` or ``b`` and at ``x = 1`` (Gauss)."""
    a, b, c, x = _promote_inexact(a, b, c, x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        raise TypeError('hyp2f1 does not support complex-valued inputs (JAX raises from '
                        'rem).')
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    non_integer_d = jnp.abs(d - jnp.round(d)) >= _eps(x) * 50
    infinity = _c(x, np.inf)
    conditions = [(x == 0) | (((a == 0) | (b == 0)) & (c != 0)),
                  (c == 0) | ((c < 0) & (c % 1 == 0)),
                  (d <= -1) & ~(non_integer_d & (s < 0)),
                  (d <= 0) & (x == 1), (x < 1) & (b == c), (x < 1) & (a == c), x > 1, x == 1]
    values = [_c(x, 1), infinity, s ** d * _hyp2f1_terminal_or_series(ca, cb, c, x),
              infinity, s ** (-a), s ** (-b), infinity,
              _gamma(c) * _gamma(d) / (_gamma(ca) * _gamma(cb))]
    return jnp.select(conditions, values, _hyp2f1_terminal_or_series(a, b, c, x))


def _hyp2f1_derivative(weight):
    """The derivative of 2F1 in a parameter: its series with each term weighted by the
    derivative of the log of that parameter's Pochhammer symbol, ``weight(a, b, c, k)``."""
    def derivative(a, b, c, x):
        return _series(x, a * b / c * x, lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x,
                       lambda k: weight(a, b, c, k))
    return jit(jnp.vectorize(derivative))


_HYP2F1_DERIVATIVES = [_hyp2f1_derivative(w) for w in (
    lambda a, b, c, k: lax.digamma(a + k) - lax.digamma(a),
    lambda a, b, c, k: lax.digamma(b + k) - lax.digamma(b),
    lambda a, b, c, k: lax.digamma(c) - lax.digamma(c + k))]


def _hyp2f1_jvp_rule(derivative):
    return lambda t, _, a, b, c, x: derivative(a, b, c, x) * t


@custom_jvp
@jit
def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function ``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k /
    k!`` (real operands; inf beyond ``x = 1``)."""
    return jnp.vectorize(_hyp2f1_scalar)(a, b, c, x)


hyp2f1.defjvps(*map(_hyp2f1_jvp_rule, _HYP2F1_DERIVATIVES),
               lambda x_dot, _, a, b, c, x: a * b / c * hyp2f1(a + 1, b + 1, c + 1, x) * x_dot)
