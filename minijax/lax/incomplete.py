"""The regularized incomplete gamma and beta functions, which StableHLO and CHLO lack: JAX
lowers each to an expansion in lax ops (a series or a continued fraction in a while loop),
and so does minijax, in JAX's op order, so that the module is JAX's and the values are
XLA's bits.

``igamma(a, x) = P(a, x)``, the integral of ``t^(a-1) e^-t / Gamma(a)`` from 0 to ``x``,
and ``igammac = Q = 1 - P``: below ``x = max(1, a)`` the power series ``P = e^-x x^a /
Gamma(a + 1) sum_n x^n / ((a + 1)...(a + n))``, above it Legendre's continued fraction for
``Q`` (Cephes' ``igam.c``, as XLA's ``math.cc`` writes them). Both carry the derivative in
``a`` alongside, which gives ``igamma_grad_a`` and ``random_gamma_grad`` (the derivative of a
Gamma(a) sample ``x`` in ``a``, ``-(dP/da) / (dP/dx)``).

``betainc(a, b, x) = I_x(a, b)``: the continued fraction of DLMF 8.17.22, evaluated by the
modified Lentz method, on ``1 - x`` with ``a`` and ``b`` swapped where it would converge
slowly (DLMF 8.17.4).

Eagerly they run on XLA (JAX's bits); their NumPy impls (``MINIJAX_EAGER=numpy``) are the
same series and fractions, element by element in float64.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.lax.bitwise import bitwise_and, bitwise_not, bitwise_or, rem
from minijax.lax.elementwise import (
    FLOATING, abs, add, binary_primitive, broadcast_shape, convert_element_type, div, eq,
    exp, full_like, ge, gt, le, log, log1p, lt, mul, ne, neg, promote_weak_scalars,
    same_dtypes_error, select, sub)
from minijax.lax.reductions import reduce_or
from minijax.lax.special import digamma, lgamma
from minijax.lax.structural import broadcast_in_dim
from minijax.lax.transcendental import reciprocal
from minijax.lowering import lower_fun, register_lowering

# ----------------------------------------------------------------------------- lax expansions


def _any(predicates):
    return reduce_or(predicates, tuple(range(core.get_aval(predicates).ndim)))


def _is_nan(x):
    return ne(x, x)


def _value(x, value):
    """``value`` as a scalar of ``x``'s dtype: a literal in the jaxpr, as JAX's ``_const``."""
    return np.asarray(value, core.get_aval(x).dtype)


def _eps(x):
    return _value(x, np.finfo(core.get_aval(x).dtype).eps)


def _log_max(x):
    """``-log(max)`` of ``x``'s dtype: below it, ``exp`` underflows to 0."""
    return neg(log(_value(x, np.finfo(core.get_aval(x).dtype).max)))


def _in_float32_if_narrow(expansion):
    """``expansion(*operands)`` of the operands broadcast to one shape, computed in float32
    for float16 and bfloat16 operands (its constants need float32's range), the result
    rounded back: JAX's way, in lax ops."""
    @functools.wraps(expansion)
    def rule(*args, **params):
        shape = np.broadcast_shapes(*(np.shape(x) for x in args))  # (checked when traced)
        args = [broadcast_in_dim(x, shape, tuple(range(np.ndim(x)))) for x in args]
        dtype = core.get_aval(args[0]).dtype
        if dtype not in dtypes.NARROW_FLOATS:
            return expansion(*args, **params)
        out = expansion(*(convert_element_type(x, np.float32) for x in args), **params)
        return convert_element_type(out, dtype)
    return rule


_VALUE, _DERIVATIVE, _SAMPLE_DERIVATIVE = 'value', 'derivative', 'sample_derivative'


def _igamma_series(ax, x, a, enabled, mode):
    """``P(a, x)`` (or its derivative in ``a``) by the power series, where ``enabled``: terms
    ``c_n = c_(n-1) x / (a + n)`` until one is below eps of the sum."""
    eps = _eps(x)

    def body(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = add(r, 1.)
        dc_da = sub(mul(dc_da, div(x, r)), div(mul(c, x), mul(r, r)))
        dans_da = add(dans_da, dc_da)
        c = mul(c, div(x, r))
        ans = add(ans, c)
        if mode == _VALUE:
            going = bitwise_and(enabled, gt(div(c, ans), eps))
        else:
            going = bitwise_and(enabled, gt(abs(div(dc_da, dans_da)), eps))
        return (going, *(select(enabled, new, old)
                         for new, old in zip((r, c, ans, x, dc_da, dans_da), vals[1:])))

    from minijax.control_flow import while_loop  # (a layer above lax)
    init = (enabled, a, full_like(a, 1), full_like(a, 1), x, full_like(a, 0), full_like(a, 0))
    _, _, _, ans, _, _, dans_da = while_loop(lambda vals: _any(vals[0]), body, init)
    if mode == _VALUE:
        return div(mul(ans, ax), a)
    dlogax_da = sub(log(x), digamma(add(a, 1.)))
    if mode == _DERIVATIVE:
        return div(mul(ax, add(mul(ans, dlogax_da), dans_da)), a)
    return div(mul(neg(add(dans_da, mul(ans, dlogax_da))), x), a)


def _igammac_continued_fraction(ax, x, a, enabled, mode):
    """``Q(a, x)`` (or its derivative in ``a``) by the continued fraction, where ``enabled``:
    convergents ``p_k / q_k`` (rescaled by eps when they grow past 1/eps), at most 2000,
    until one moves by less than eps (relatively; the derivative: absolutely)."""
    eps = _eps(x)

    def body(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = add(c, 1.)
        y = add(y, 1.)
        z = add(z, 2.)
        yc = mul(y, c)
        pk = sub(mul(pkm1, z), mul(pkm2, yc))
        qk = sub(mul(qkm1, z), mul(qkm2, yc))
        nonzero = ne(qk, 0.)
        r = div(pk, qk)
        t = select(nonzero, abs(div(sub(ans, r), r)), full_like(r, 1))
        ans = select(nonzero, r, ans)
        dpk_da = add(sub(sub(mul(dpkm1_da, z), pkm1), mul(dpkm2_da, yc)), mul(pkm2, c))
        dqk_da = add(sub(sub(mul(dqkm1_da, z), qkm1), mul(dqkm2_da, yc)), mul(qkm2, c))
        new_dans_da = select(nonzero, div(sub(dpk_da, mul(ans, dqk_da)), qk), dans_da)
        grad_change = select(nonzero, abs(sub(new_dans_da, dans_da)), full_like(dans_da, 1))
        rescale = gt(abs(pk), reciprocal(eps))
        shifted = [select(rescale, mul(v, eps), v) for v in
                   (pkm1, pk, qkm1, qk, dpkm1_da, dqkm1_da, dpk_da, dqk_da)]
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = shifted
        going = bitwise_and(enabled, gt(t if mode == _VALUE else grad_change, eps))
        updated = (ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da,
                   dqkm1_da, new_dans_da)
        return (going, *(new if k == 4 else select(enabled, new, old)  # (c counts on)
                         for k, (new, old) in enumerate(zip(updated, vals[1:]))))

    y = sub(_value(a, 1), a)
    z = add(add(x, y), 1.)
    pkm2 = full_like(x, 1)
    pkm1 = add(x, 1.)
    qkm1 = mul(z, x)
    ans = div(pkm1, qkm1)
    t = full_like(x, 1)
    dpkm2_da, dqkm2_da, dpkm1_da = full_like(x, 0), full_like(x, 0), full_like(x, 0)
    dqkm1_da = neg(x)
    dans_da = div(sub(dpkm1_da, mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, t, y, z, _value(x, 0), pkm1, qkm1, pkm2, x,
            dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da)

    def more(vals):
        return bitwise_and(lt(vals[5], 2000.), _any(vals[0]))

    from minijax.control_flow import while_loop  # (a layer above lax)
    vals = while_loop(more, body, init)
    ans, dans_da = vals[1], vals[14]
    if mode == _VALUE:
        return mul(ans, ax)
    dlogax_da = sub(log(x), digamma(a))
    if mode == _DERIVATIVE:
        return mul(ax, add(mul(ans, dlogax_da), dans_da))
    return neg(mul(add(dans_da, mul(ans, dlogax_da)), x))


def _log_of_ax(a, x):
    """``a log(x) - x - lgamma(a)``: the log of the prefactor ``x^a e^-x / Gamma(a)``."""
    return sub(sub(mul(a, log(x)), x), lgamma(a))


def _any_of(*predicates):
    return functools.reduce(bitwise_or, predicates)


@_in_float32_if_narrow
def igamma_expansion(a, x):
    """``P(a, x)`` in lax ops, as JAX lowers ``igamma``: 0 at ``x = 0``, 1 at ``x = inf``,
    NaN outside the domain ``a, x >= 0`` (but ``a = x = 0``) and for NaN."""
    is_nan = bitwise_or(_is_nan(a), _is_nan(x))
    x_is_infinity = eq(x, _value(x, np.inf))
    a_is_zero = eq(a, _value(a, 0))
    x_is_zero = eq(x, _value(x, 0))
    domain_error = _any_of(lt(x, _value(x, 0)), lt(a, _value(a, 0)),
                           bitwise_and(a_is_zero, x_is_zero), is_nan)
    use_igammac = bitwise_and(ge(x, _value(x, 1)), gt(x, a))
    log_ax = _log_of_ax(a, x)
    underflow = lt(log_ax, _log_max(x))
    ax = exp(log_ax)
    enabled = bitwise_not(_any_of(x_is_zero, domain_error, underflow, x_is_infinity))
    output = select(
        use_igammac,
        sub(_value(a, 1), _igammac_continued_fraction(
            ax, x, a, bitwise_and(enabled, use_igammac), _VALUE)),
        _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_igammac)), _VALUE))
    output = select(x_is_zero, full_like(a, 0), output)
    output = select(x_is_infinity, full_like(a, 1), output)
    return select(domain_error, full_like(a, np.nan), output)


@_in_float32_if_narrow
def igammac_expansion(a, x):
    """``Q(a, x)`` in lax ops, as JAX lowers ``igammac``: 0 at ``x = inf`` and ``a = 0``."""
    is_nan = bitwise_or(_is_nan(a), _is_nan(x))
    a_is_zero = eq(a, _value(a, 0))
    x_is_zero = eq(x, _value(x, 0))
    x_is_infinity = eq(x, _value(x, np.inf))
    domain_error = _any_of(lt(x, _value(x, 0)), lt(a, _value(a, 0)),
                           bitwise_and(a_is_zero, x_is_zero), is_nan)
    use_igamma = bitwise_or(lt(x, _value(x, 1)), lt(x, a))
    log_ax = _log_of_ax(a, x)
    underflow = lt(log_ax, _log_max(x))
    enabled = bitwise_not(_any_of(domain_error, underflow, x_is_infinity, a_is_zero))
    ax = exp(log_ax)
    series = _igamma_series(ax, x, a, bitwise_and(enabled, use_igamma), _VALUE)
    fraction = _igammac_continued_fraction(ax, x, a, bitwise_and(enabled, bitwise_not(use_igamma)),
                                           _VALUE)
    output = select(use_igamma, sub(_value(a, 1), series), fraction)
    output = select(bitwise_or(x_is_infinity, a_is_zero), full_like(output, 0), output)
    return select(domain_error, full_like(a, np.nan), output)


def _igamma_derivative(a, x, mode):
    """``dP/da`` (``_DERIVATIVE``) or ``-(dP/da) / (dP/dx)`` (``_SAMPLE_DERIVATIVE``) in lax
    ops, as JAX computes ``igamma_grad_a`` and ``random_gamma_grad``: 0 at ``x = 0``, NaN
    for ``x < 0``, ``a <= 0`` and NaN."""
    is_nan = bitwise_or(_is_nan(a), _is_nan(x))
    x_is_zero = eq(x, full_like(x, 0))
    domain_error = bitwise_or(lt(x, full_like(x, 0)), le(a, full_like(a, 0)))
    use_igammac = bitwise_and(gt(x, full_like(x, 1)), gt(x, a))
    log_ax = _log_of_ax(a, x)
    underflow = lt(log_ax, _log_max(a))
    ax = exp(log_ax)
    enabled = bitwise_not(_any_of(x_is_zero, domain_error, underflow, is_nan))
    output = select(
        use_igammac,
        neg(_igammac_continued_fraction(ax, x, a, bitwise_and(enabled, use_igammac), mode)),
        _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_igammac)), mode))
    output = select(x_is_zero, full_like(output, 0), output)
    return select(bitwise_or(domain_error, is_nan), full_like(a, np.nan), output)


igamma_grad_a_expansion = _in_float32_if_narrow(
    functools.partial(_igamma_derivative, mode=_DERIVATIVE))


random_gamma_grad_expansion = _in_float32_if_narrow(
    functools.partial(_igamma_derivative, mode=_SAMPLE_DERIVATIVE))


def _betainc_numerator(k, a, b, x):
    """The ``k``-th partial numerator of DLMF 8.17.22 (k >= 1): 1 for k = 1, then
    ``-(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))`` for even k = 2m + 2 (m = 0 written
    apart, which keeps its digits where a is tiny and denormals flush), ``m (b - m) x / ((a +
    2m - 1)(a + 2m))`` for odd k = 2m + 1."""
    shape = core.get_aval(a).shape
    k = broadcast_in_dim(k, shape, ())
    is_even = eq(rem(k, full_like(k, 2)), full_like(k, 0))
    is_one = eq(k, full_like(k, 1))
    m = div(sub(k, full_like(k, 1)), full_like(k, 2))  # (k >= 1: truncating is flooring)
    m_is_zero = eq(m, full_like(m, 0))
    m = convert_element_type(m, core.get_aval(a).dtype)
    one, two = full_like(a, 1), full_like(a, 2.)
    first = div(mul(neg(add(a, b)), x), add(a, one))
    even = select(m_is_zero, first,
                  div(mul(mul(neg(add(a, m)), add(add(a, b), m)), x),
                      mul(add(a, mul(two, m)), add(add(a, mul(two, m)), one))))
    odd = div(mul(mul(m, sub(b, m)), x),
              mul(sub(add(a, mul(two, m)), one), add(a, mul(two, m))))
    return select(is_one, full_like(x, 1.), select(is_even, even, odd))


def _betainc_denominator(k, a, b, x):
    """The ``k``-th partial denominator: 0 for k = 0, then 1."""
    k = broadcast_in_dim(k, core.get_aval(a).shape, ())
    return select(eq(k, full_like(k, 0)), full_like(x, 0), full_like(x, 1))


def _lentz(a, b, x, iterations, small):
    """The continued fraction ``b0 + a1 / (b1 + a2 / (b2 + ...))`` by the modified Lentz
    method (Thompson and Barnett): ``h *= C D`` with ``C = b + a / C``, ``D = 1 / (b + a D)``
    (kept off zero by ``small``), until every element's ``C D`` is within ``small`` of 1."""
    def body(vals):
        k, _, c, d, h = vals
        numerator, denominator = _betainc_numerator(k, a, b, x), _betainc_denominator(k, a, b, x)
        c = add(denominator, div(numerator, c))
        tiny = full_like(c, small)
        c = select(lt(abs(c), tiny), tiny, c)
        d = add(denominator, mul(numerator, d))
        d = reciprocal(select(lt(abs(d), tiny), tiny, d))
        delta = mul(c, d)
        h = mul(h, delta)
        return [add(k, 1), _any(ge(abs(sub(delta, 1.)), small)), c, d, h]

    first = _betainc_denominator(0, a, b, x)
    h = select(lt(abs(first), small), broadcast_in_dim(small, core.get_aval(first).shape, ()),
               first)

    def more(vals):
        return bitwise_and(lt(vals[0], iterations), vals[1])

    from minijax.control_flow import while_loop  # (a layer above lax)
    return while_loop(more, body, [1, True, h, full_like(h, 0), h])[4]


@_in_float32_if_narrow
def betainc_expansion(a, b, x):
    """``I_x(a, b)`` in lax ops, as JAX lowers ``betainc`` (but for the partial numerators'
    parity and halving, by ``rem`` and ``div`` where JAX calls ``jnp.remainder`` and
    ``jnp.floor_divide``: the same values)."""
    dtype = core.get_aval(a).dtype
    a_is_zero = bitwise_or(eq(a, full_like(a, 0)), eq(b, full_like(b, np.inf)))
    b_is_zero = bitwise_or(eq(b, full_like(b, 0)), eq(a, full_like(a, np.inf)))
    x_is_zero = eq(x, full_like(x, 0))
    x_is_one = eq(x, full_like(x, 1))
    x_is_not_zero, x_is_not_one = bitwise_not(x_is_zero), bitwise_not(x_is_one)
    is_nan = bitwise_or(bitwise_or(_is_nan(a), _is_nan(b)), _is_nan(x))
    is_zero = bitwise_or(bitwise_and(b_is_zero, x_is_not_one), bitwise_and(a_is_zero, x_is_zero))
    is_one = bitwise_or(bitwise_and(a_is_zero, x_is_not_zero), bitwise_and(b_is_zero, x_is_one))
    outside = bitwise_or(bitwise_or(lt(a, full_like(a, 0)), lt(b, full_like(b, 0))),
                         lt(x, full_like(x, 0)))
    outside = bitwise_or(outside, gt(x, full_like(x, 1)))
    is_nan = bitwise_or(outside, bitwise_or(bitwise_and(a_is_zero, b_is_zero), is_nan))
    # The fraction converges fast below x = (a + 1) / (a + b + 2); above, I_x(a, b) is
    # 1 - I_(1-x)(b, a).
    direct = lt(x, div(add(a, full_like(a, 1)), add(add(a, b), full_like(b, 2.))))
    a, b, x = (select(direct, a, b), select(direct, b, a),
               select(direct, x, sub(full_like(x, 1), x)))
    eps = np.finfo(dtype).eps / 2
    fraction = _lentz(a, b, x, 200 if dtype == np.float32 else 600, _value(a, eps))
    # a Gamma(a) = Gamma(a + 1) -> 1 as a -> 0: the prefactor without 1 / (a B(a, b)).
    lbeta_small_a = sub(lgamma(b), lgamma(add(a, b)))
    lbeta = add(lgamma(a), lbeta_small_a)
    factor = select(lt(a, full_like(a, _value(a, np.finfo(dtype).tiny * 2))),
                    exp(sub(mul(log1p(neg(x)), b), lbeta_small_a)),
                    div(exp(sub(add(mul(log(x), a), mul(log1p(neg(x)), b)), lbeta)), a))
    result = mul(fraction, factor)
    result = select(direct, result, sub(full_like(result, 1), result))
    result = select(is_zero, full_like(a, 0), result)
    result = select(is_one, full_like(a, 1), result)
    return select(is_nan, full_like(a, np.nan), result)

# ----------------------------------------------------------------------------- NumPy impls

_EPS = np.finfo(np.float64).eps
_LOG_MAX = math.log(np.finfo(np.float64).max)


def _log_ax(a, x):
    """``a log(x) - x - lgamma(a)`` (``a, x >= 0``): ``-inf`` where ``x`` or ``a`` is 0."""
    return -math.inf if x == 0 or a == 0 else a * math.log(x) - x - math.lgamma(a)


def _series(a, x):
    """``sum_n x^n / ((a + 1)...(a + n))`` and its derivative in ``a``."""
    r, c, total, dc_da, dtotal_da = a, 1., 1., 0., 0.
    for _ in range(100_000):
        r += 1
        dc_da = dc_da * (x / r) - c * x / (r * r)
        dtotal_da += dc_da
        c *= x / r
        total += c
        if c <= _EPS * total and abs(dc_da) <= _EPS * abs(dtotal_da):
            break
    return total, dtotal_da


def _continued_fraction(a, x):
    """Legendre's continued fraction of ``Q(a, x) / (x^a e^-x / Gamma(a))`` and its
    derivative in ``a``: the convergents ``p_k / q_k``, rescaled when they grow past 1/eps."""
    y, c = 1 - a, 0.
    z = x + y + 1
    pkm2, qkm2, pkm1, qkm1 = 1., x, x + 1, z * x
    dpkm2, dqkm2, dpkm1, dqkm1 = 0., 0., 0., -x
    ans = pkm1 / qkm1
    dans = (dpkm1 - ans * dqkm1) / qkm1
    for _ in range(2000):
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        t, change = 1., 1.
        if qk != 0:
            r = pk / qk
            t, ans = abs((ans - r) / r), r
            new_dans = (dpk - ans * dqk) / qk
            change, dans = abs(new_dans - dans), new_dans
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
        if abs(pk) > 1 / _EPS:
            pkm2, pkm1, qkm2, qkm1 = pkm2 * _EPS, pkm1 * _EPS, qkm2 * _EPS, qkm1 * _EPS
            dpkm2, dpkm1, dqkm2, dqkm1 = dpkm2 * _EPS, dpkm1 * _EPS, dqkm2 * _EPS, dqkm1 * _EPS
        if t <= _EPS and change <= _EPS:
            break
    return ans, dans


def _digamma_of(a):
    from minijax.lax.special import _digamma  # (the NumPy digamma)
    return float(_digamma(np.float64(a)))


def _igamma(a, x):
    if math.isnan(a) or math.isnan(x) or x < 0 or a < 0 or a == x == 0:
        return math.nan
    if x == 0 or math.isinf(x):
        return 0. if x == 0 else 1.
    log_ax = _log_ax(a, x)
    ax, enabled = math.exp(log_ax), log_ax >= -_LOG_MAX
    if x >= 1 and x > a:
        return 1 - (_continued_fraction(a, x)[0] if enabled else (x + 1) / ((x + 2 - a) * x)) * ax
    return (_series(a, x)[0] if enabled else 1.) * ax / a


def _igammac(a, x):
    if math.isnan(a) or math.isnan(x) or x < 0 or a < 0 or a == x == 0:
        return math.nan
    if math.isinf(x) or a == 0:
        return 0.
    log_ax = _log_ax(a, x)
    ax, enabled = math.exp(log_ax), log_ax >= -_LOG_MAX
    if x < 1 or x < a:
        return 1 - (_series(a, x)[0] if enabled else 1.) * ax / a
    return (_continued_fraction(a, x)[0] if enabled else (x + 1) / ((x + 2 - a) * x)) * ax


def _igamma_grad_a(a, x):
    """``dP/da``: of the series below ``x = max(1, a)``, of ``-Q``'s fraction above."""
    if math.isnan(a) or math.isnan(x) or x < 0 or a <= 0:
        return math.nan
    if x == 0:
        return 0.
    log_ax = _log_ax(a, x)
    if log_ax < -_LOG_MAX:
        return 0.
    ax = math.exp(log_ax)
    if x > 1 and x > a:
        ans, dans = _continued_fraction(a, x)
        return -ax * (ans * (math.log(x) - _digamma_of(a)) + dans)
    ans, dans = _series(a, x)
    return ax * (ans * (math.log(x) - _digamma_of(a + 1)) + dans) / a


def _betainc_fraction(a, b, x):
    """DLMF 8.17.22's continued fraction by the modified Lentz method."""
    small = _EPS / 2
    h, c, d = small, small, 0.
    for k in range(1, 600):
        m = (k - 1) // 2
        if k == 1:
            numerator = 1.
        elif k % 2 == 0:
            numerator = (-(a + b) * x / (a + 1) if m == 0 else
                         -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)))
        else:
            numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        c = 1 + numerator / c
        c = small if abs(c) < small else c
        d = 1 + numerator * d
        d = 1 / (small if abs(d) < small else d)
        h *= c * d
        if abs(c * d - 1) < small:
            break
    return h


def _betainc(a, b, x):
    a_is_zero, b_is_zero = a == 0 or b == math.inf, b == 0 or a == math.inf
    if (math.isnan(a) or math.isnan(b) or math.isnan(x) or a < 0 or b < 0 or x < 0 or x > 1
            or (a_is_zero and b_is_zero)):
        return math.nan
    if (b_is_zero and x != 1) or (a_is_zero and x == 0):
        return 0.
    if a_is_zero or b_is_zero:
        return 1.
    direct = x < (a + 1) / (a + b + 2)
    if not direct:
        a, b, x = b, a, 1 - x
    if a < 2 * np.finfo(np.float64).tiny:
        factor = math.exp(math.log1p(-x) * b - (math.lgamma(b) - math.lgamma(a + b)))
    else:
        log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
        factor = math.exp(math.log(x) * a + math.log1p(-x) * b - log_beta) / a
    result = _betainc_fraction(a, b, x) * factor
    return result if direct else 1 - result


def _elementwise_in_float64(scalar_fn):
    """``scalar_fn`` of float64 Python numbers, applied to each element of the broadcast
    operands and rounded to their dtype."""
    vectorized = np.vectorize(scalar_fn, otypes=[np.float64])

    def impl(*args):
        args = np.broadcast_arrays(*map(np.asarray, args))
        with np.errstate(all='ignore'):
            return np.asarray(vectorized(*(x.astype(np.float64) for x in args)),
                              args[0].dtype)
    return impl

# ----------------------------------------------------------------------------- primitives


def _derivative_in_x(a, x):
    """``dP/dx``, the Gamma(a) density: ``exp(-x + (a - 1) log(x) - lgamma(a))``."""
    return exp(sub(add(neg(x), mul(sub(a, full_like(a, 1)), log(x))), lgamma(a)))


def _betainc_derivative_in_x(a, b, x):
    """``x^(a-1) (1 - x)^(b-1) / B(a, b)``, as JAX writes it."""
    log_beta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    return exp(sub(add(mul(sub(b, 1.), log1p(neg(x))), mul(sub(a, 1.), log(x))), log_beta))


def _no_derivative_in_a_or_b(t, a, b, x):
    raise ValueError('Betainc gradient with respect to a and b not supported.')  # (JAX's text)


igamma_p = binary_primitive('igamma', _elementwise_in_float64(_igamma),
                            lower_fun(igamma_expansion), accepts=FLOATING, eager_on_xla=True,
                            lowering_broadcasts=True)
igammac_p = binary_primitive('igammac', _elementwise_in_float64(_igammac),
                             lower_fun(igammac_expansion), accepts=FLOATING, eager_on_xla=True,
                             lowering_broadcasts=True)
# (igamma_grad_a is not differentiable, as in JAX)
igamma_grad_a_p = binary_primitive('igamma_grad_a', _elementwise_in_float64(_igamma_grad_a),
                                   lower_fun(igamma_grad_a_expansion), accepts=FLOATING,
                                   eager_on_xla=True, lowering_broadcasts=True)
ad.defjvp(igamma_p, lambda t, a, x: mul(t, igamma_grad_a(a, x)),
          lambda t, a, x: mul(t, _derivative_in_x(a, x)))
ad.defjvp(igammac_p, lambda t, a, x: neg(mul(t, igamma_grad_a(a, x))),
          lambda t, a, x: neg(mul(t, _derivative_in_x(a, x))))


def _ternary_abstract_eval(name):
    def abstract_eval(*avals):
        for aval in avals:
            if not dtypes.is_float(aval.dtype):
                raise TypeError(f'{name} needs floating-point operands, got '
                                f'{aval.str_short()}')
        if len({aval.dtype for aval in avals}) > 1:
            raise same_dtypes_error(name, *(aval.dtype for aval in avals))
        return ShapedArray(broadcast_shape(name, *(aval.shape for aval in avals)),
                           avals[0].dtype, all(aval.weak_type for aval in avals))
    return abstract_eval


regularized_incomplete_beta_p = Primitive('regularized_incomplete_beta', eager_on_xla=True)
regularized_incomplete_beta_p.def_impl(_elementwise_in_float64(_betainc))
regularized_incomplete_beta_p.def_abstract_eval(
    _ternary_abstract_eval('regularized_incomplete_beta'))
batching.broadcasting_batcher(regularized_incomplete_beta_p)
register_lowering(regularized_incomplete_beta_p,
                  lower_fun(betainc_expansion))
ad.defjvp(regularized_incomplete_beta_p, _no_derivative_in_a_or_b, _no_derivative_in_a_or_b,
          lambda t, a, b, x: mul(_betainc_derivative_in_x(a, b, x), t))

# ----------------------------------------------------------------------------- the functions


def igamma(a, x):
    """Elementwise regularized lower incomplete gamma function ``P(a, x)``."""
    return igamma_p.bind(*promote_weak_scalars('igamma', a, x))


def igammac(a, x):
    """Elementwise regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return igammac_p.bind(*promote_weak_scalars('igammac', a, x))


def igamma_grad_a(a, x):
    """Elementwise derivative of ``igamma(a, x)`` in ``a``."""
    return igamma_grad_a_p.bind(*promote_weak_scalars('igamma_grad_a', a, x))


def random_gamma_grad(*args):
    """``random_gamma_grad(a, x)``: elementwise derivative in ``a`` of a sample ``x`` of
    Gamma(a, 1) (implicit differentiation of ``igamma(a, x) = u``). Not a primitive: its
    lax ops are staged where it is called, as in JAX (hence JAX's ``*args`` signature)."""
    return random_gamma_grad_expansion(*promote_weak_scalars('random_gamma_grad', *args))


def betainc(a, b, x):
    """Elementwise regularized incomplete beta function ``I_x(a, b)``."""
    typed = next((v for v in (x, a, b) if not core.get_aval(v).weak_type), x)
    return regularized_incomplete_beta_p.bind(
        *(promote_weak_scalars('betainc', typed, v)[1] for v in (a, b, x)))
