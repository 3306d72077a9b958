"""The special functions defined by integrals (``erfcx``, ``wofz``, ``dawsn``, ``expi``,
``exp1``, ``expn``, ``sici``, ``spence``, ``fresnel``, ``owens_t``), as JAX evaluates them: the
rational approximations (or quadrature) of ``_cephes`` on intervals, chosen by
``where``/``piecewise``, with closed-form derivatives.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as jnp
from minijax.control_flow import while_loop
from minijax.custom_derivatives import custom_jvp
from minijax.jit import jit
from minijax.numpy import _promote_inexact, _promote_shapes
from minijax.scipy import _cephes

__all__ = ['dawsn', 'erfcx', 'exp1', 'expi', 'expn', 'fresnel', 'owens_t', 'sici', 'spence',
           'wofz']


def _c(x, value):
    return np.array(value, core.get_aval(x).dtype)


def _polyval(coefficients, x):
    return jnp.polyval(np.array(coefficients, core.get_aval(x).dtype), x)


def _real(name, x):
    x, = _promote_inexact(x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        raise ValueError(f'{name} does not support complex-valued inputs.')
    return x

# ----------------------------------------------------------------------------- erfcx, wofz


def _wofz_upper(z):
    """Weideman's approximation of ``w(z)`` for ``Im z >= 0``."""
    re = lax.real(z)
    big_l = lax.complex(_c(re, _cephes.WOFZ_L), _c(re, 0.))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denominator = big_l - iz
    p = _polyval(_cephes.WOFZ_C, (big_l + iz) / denominator)
    inverse_sqrt_pi = lax.complex(_c(re, 1. / np.sqrt(np.pi)), _c(re, 0.))
    return 2 * p / (denominator * denominator) + inverse_sqrt_pi / denominator


@custom_jvp
def _wofz(z):
    """``w(z)``; below the real axis by ``w(z) = 2 exp(-z^2) - w(-z)``."""
    upper = lax.ge(lax.imag(z), _c(lax.real(z), 0.))
    w_upper = _wofz_upper(lax.select(upper, z, lax.neg(z)))
    return lax.select(upper, w_upper, 2 * lax.exp(lax.neg(z * z)) - w_upper)


_wofz.defjvps(lambda g, w, z: g * (lax.neg(2 * z * w) + lax.complex(
    _c(lax.real(z), 0.), _c(lax.real(z), 2. / np.sqrt(np.pi)))))


def wofz(z):
    """The Faddeeva function ``exp(-z^2) erfc(-iz)`` (complex)."""
    z, = _promote_inexact(z)
    if not dtypes.is_complex(core.get_aval(z).dtype):
        z = lax.convert_element_type(z, dtypes.COMPLEX_OF[core.get_aval(z).dtype])
    return _wofz(z)


#: ``(2k - 1)!! (-1/2)^k`` for k = 8..0: erfcx's asymptotic series in ``1/x^2``.
_ERFCX_SERIES = (7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, .75,
                 -.5, 1.)


def _erfcx_of(x, terms):
    """``exp(x^2) erfc(x)``, by the asymptotic series (``terms`` of it) where ``exp(x^2)``
    would overflow."""
    large = x > _c(x, np.sqrt(np.log(np.finfo(core.get_aval(x).dtype).max)))
    safe = lax.select(large, lax.full_like(x, 1.), x)
    direct = lax.exp(lax.square(safe)) * lax.erfc(safe)
    series = _polyval(_ERFCX_SERIES[-terms:], _c(x, 1.) / lax.square(x))
    return lax.select(large, series / (x * _c(x, np.sqrt(np.pi))), direct)


@custom_jvp
def _erfcx(x):
    dtype = core.get_aval(x).dtype
    if dtype == np.float64:
        return _erfcx_of(x, 9)
    if dtype == np.float32:
        return _erfcx_of(x, 5)
    return _erfcx_of(x.astype(np.float32), 5).astype(dtype)


_erfcx.defjvps(lambda g, y, x: g * (2 * x * y - _c(x, 2. / np.sqrt(np.pi))))


def erfcx(x):
    """The scaled complementary error function ``exp(x^2) erfc(x)``, without overflow (a
    complex ``x``: ``wofz(ix)``)."""
    x, = _promote_inexact(x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        return _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x)))
    return _erfcx(x)

# ----------------------------------------------------------------------------- dawsn


def _dawsn_of(x):
    """Dawson's integral on ``|x|`` by interval, each evaluated at a harmless point outside
    its own (so no inf/inf reaches a ``select``), the sign restored."""
    ax = lax.abs(x)
    one = lax.full_like(ax, 1.)
    first = ax < _c(x, 3.25)
    second = (ax >= _c(x, 3.25)) & (ax < _c(x, 6.25))
    third = ax >= _c(x, 6.25)
    a1 = lax.select(first, ax, one)
    near = a1 * _polyval(_cephes.DAWSN_AN, lax.square(a1)) / _polyval(_cephes.DAWSN_AD,
                                                                      lax.square(a1))
    t = _c(x, 1.) / lax.square(ax)

    def tail(inside, numerator, denominator):
        ti, ai = lax.select(inside, t, lax.full_like(t, 1.)), lax.select(inside, ax, one)
        return (_c(x, 0.5) / ai) * (_c(x, 1.) + ti * _polyval(numerator, ti)
                                    / _polyval(denominator, ti))
    middle = tail(second, _cephes.DAWSN_BN, _cephes.DAWSN_BD)
    far = tail(third, _cephes.DAWSN_CN, _cephes.DAWSN_CD)
    return jnp.sign(x) * lax.select(first, near, lax.select(ax < _c(x, 6.25), middle, far))


@custom_jvp
def _dawsn(x):
    dtype = core.get_aval(x).dtype
    if dtype in (np.float32, np.float64):
        return _dawsn_of(x)
    return _dawsn_of(x.astype(np.float32)).astype(dtype)


_dawsn.defjvps(lambda g, y, x: g * (_c(x, 1.) - _c(x, 2.) * x * y))


def dawsn(x):
    """Dawson's integral ``exp(-x^2) integral_0^x exp(t^2) dt``."""
    return _dawsn(_real('dawsn', x))

# ----------------------------------------------------------------------------- E1, Ei, En


def _expint_near(x):
    numerator, denominator = _cephes.EXPINT[0]
    return x * (_polyval(numerator, x) / _polyval(denominator, x)) + np.euler_gamma + jnp.log(x)


def _expint_far(k):
    """Ei on the ``k``-th interval beyond 2: ``exp(x)/x (1 + R(1/x)/x)``."""
    numerator, denominator = _cephes.EXPINT[k]

    def ei(x):
        w = _c(x, 1.0) / x
        return jnp.exp(x) * w * (w * (_polyval(numerator, w) / _polyval(denominator, w))
                                 + _c(x, 1.0))
    return ei


def _expi_positive(x):
    conditions = [(_c(x, 0) < x) & (x <= _c(x, 2))] + [
        (_c(x, 2 ** i) < x) & (x <= _c(x, 2 ** (i + 1))) for i in range(1, 6)]
    return jnp.piecewise(x, conditions, [_expint_near] + [_expint_far(k) for k in range(1, 7)])


@custom_jvp
@jit
def expi(x):
    """The exponential integral ``Ei(x) = integral_-inf^x exp(t)/t dt``."""
    x = _real('expi', x)
    return jnp.piecewise(x, [x < 0], [lambda x: -exp1(-x), _expi_positive])


@expi.defjvp
@jit
def _expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


def _expn_series(x, n):
    """``E_n`` for ``x <= 1``: the power series, summed until a term is below eps."""
    eps = np.finfo(core.get_aval(x).dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    # psi(n) = -gamma - log(x) + sum_{i<n} 1/i (a float counter: JAX's fori_loop over floats)
    _, psi = while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + one / c[0]),
                        (_c(n, 1), -np.euler_gamma - jnp.log(x)))
    n1 = jnp.where(n == _c(n, 1), one + one, n)
    state = dict(x=x, z=-x, xk=zero, yk=one, pk=one - n,
                 ans=jnp.where(n == _c(n, 1), zero, one / (one - n1)), t=np.inf)

    def body(d):
        d = dict(d)
        d['xk'] = d['xk'] + one
        d['yk'] = d['yk'] * d['z'] / d['xk']
        d['pk'] = d['pk'] + one
        d['ans'] = d['ans'] + jnp.where(d['pk'] != zero, d['yk'] / d['pk'], zero)
        d['t'] = jnp.where(d['ans'] != zero, abs(d['yk'] / d['ans']), one)
        return d
    d = while_loop(lambda d: (d['x'] > _c(d['x'], 0.0)) & (d['t'] > eps), body, state)
    return d['z'] ** (n - _c(n, 1)) * psi / jnp.exp(lax.lgamma(n)) - d['ans']


def _expn_fraction(x, n):
    """``E_n`` for ``x > 1``: the continued fraction, its terms rescaled when they grow
    past 2^57."""
    big = _c(x, 1.44115188075855872e17)
    eps = np.finfo(core.get_aval(x).dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    state = dict(k=_c(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
                 t=_c(x, np.inf), r=zero, x=x)

    def body(d):
        d = dict(d)
        x = d['x']
        d['k'] = k = d['k'] + _c(d['k'], 1)
        odd = k % _c(k, 2) == _c(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - _c(k, 1)) / _c(k, 2), k / _c(k, 2))
        pk = d['pkm1'] * yk + d['pkm2'] * xk
        qk = d['qkm1'] * yk + d['qkm2'] * xk
        nonzero = qk != zero
        d['r'] = r = jnp.where(nonzero, pk / qk, d['r'])
        d['t'] = jnp.where(nonzero, abs((d['ans'] - r) / r), one)
        d['ans'] = jnp.where(nonzero, r, d['ans'])
        d['pkm2'], d['pkm1'], d['qkm2'], d['qkm1'] = d['pkm1'], pk, d['qkm1'], qk
        rescale = abs(pk) > big
        for key in ('pkm1', 'pkm2', 'qkm1', 'qkm2'):
            d[key] = jnp.where(rescale, d[key] / big, d[key])
        return d
    d = while_loop(lambda d: (d['x'] > _c(d['k'], 0)) & (d['t'] > eps), body, state)
    return d['ans'] * jnp.exp(-x)


def _expn_large_n(x, n):
    """``E_n`` for ``n >= 5000``: three terms of the expansion in ``1/(x + n)``."""
    one = _c(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    ans = yk * n * (_c(x, 6) * x * x - _c(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - _c(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + one) * jnp.exp(-x) / xk


@jit
def _expn_scalar(n, x):
    n, x = _promote_inexact(n, x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        raise ValueError('expn does not support complex-valued inputs.')
    zero, one = _c(x, 0), _c(x, 1)
    conditions = [(n < _c(n, 0)) | (x < zero), (x == zero) & (n < _c(n, 2)),
                  (x == zero) & (n >= _c(n, 2)), (n == _c(n, 0)) & (x >= zero),
                  n >= _c(n, 5000), x > one]
    n1 = jnp.where(n == _c(n, 1), n + n, n)  # (no division by zero in the unused branch)
    values = [np.nan, np.inf, one / n1, jnp.exp(-x) / x, _expn_large_n, _expn_fraction,
              _expn_series]
    return jnp.piecewise(x, conditions, values, n=n)


@partial(custom_jvp, nondiff_argnums=(0,))
def expn(n, x):
    """The generalized exponential integral ``E_n(x) = integral_1^inf exp(-x t)/t^n dt``,
    one element at a time (``jnp.vectorize``) as in JAX: its loops run until each element
    converges."""
    return jnp.vectorize(_expn_scalar)(n, x)


@expn.defjvp
@jit
def _expn_jvp(n, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(x_dot), expn(lax.sub(n, _c(n, 1)), x))


def exp1(x):
    """``E_1(x) = integral_x^inf exp(-t)/t dt``."""
    return expn(1, _real('exp1', x))

# ----------------------------------------------------------------------------- Si, Ci


def _sici_series(x):
    """Si and Ci for ``0 <= x <= 4``: rational functions of ``x^2``."""
    t = x * x
    si = x * _polyval(_cephes.SICI_SN, t) / _polyval(_cephes.SICI_SD, t)
    ci = (np.euler_gamma + jnp.log(x)
          + t * _polyval(_cephes.SICI_CN, t) / _polyval(_cephes.SICI_CD, t))
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asymptotic(x):
    """Si and Ci for ``4 < x <= 1e9``: the auxiliary functions f and g in ``1/x^2``."""
    s, c, z = jnp.sin(x), jnp.cos(x), 1.0 / (x * x)
    below_8 = x < 8.0
    f = jnp.where(below_8, _polyval(_cephes.SICI_FN4, z) / (x * _polyval(_cephes.SICI_FD4, z)),
                  _polyval(_cephes.SICI_FN8, z) / (x * _polyval(_cephes.SICI_FD8, z)))
    g = jnp.where(below_8, z * _polyval(_cephes.SICI_GN4, z) / _polyval(_cephes.SICI_GD4, z),
                  z * _polyval(_cephes.SICI_GN8, z) / _polyval(_cephes.SICI_GD8, z))
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_far(x):
    si = jnp.where(jnp.isposinf(x), np.pi / 2, (np.pi / 2) - jnp.cos(x) / x)
    return si, jnp.where(jnp.isposinf(x), 0.0, jnp.sin(x) / x)


@custom_jvp
@jit
def sici(x):
    """``(Si(x), Ci(x))``: the sine integral ``integral_0^x sin(t)/t dt`` and the cosine
    integral ``gamma + log(x) + integral_0^x (cos(t) - 1)/t dt``."""
    x, = _promote_inexact(x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        raise ValueError(f'Argument `x` to sici must be real-valued. Got dtype '
                         f'{core.get_aval(x).dtype}.')
    ax = jnp.abs(x)
    (si_near, ci_near), (si_mid, ci_mid), (si_far, ci_far) = (
        _sici_series(ax), _sici_asymptotic(ax), _sici_far(ax))
    near, mid = ax <= 4, (ax > 4) & (ax <= 1e9)
    si = jnp.select([near, mid], [si_near, si_mid], si_far)
    ci = jnp.select([near, mid], [ci_near, ci_mid], ci_far)
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


@sici.defjvp
@jit
def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)

# ----------------------------------------------------------------------------- spence


def _spence_positive(x):
    """Spence's function for ``x > 0`` (not 1): the rational approximation in ``w`` near 1,
    reflected for ``x < 1/2`` and inverted for ``x > 3/2``."""
    inverted = x > 2.0
    x = jnp.piecewise(x, [inverted], [lambda x: 1.0 / x, lambda x: x])
    above, below = x > 1.5, x < 0.5
    inverted = inverted | above
    w = jnp.piecewise(x, [above, below], [lambda x: 1.0 / x - 1.0, lambda x: -x,
                                          lambda x: x - 1.0])
    y = -w * _polyval(_cephes.SPENCE_A, w) / _polyval(_cephes.SPENCE_B, w)
    y = jnp.where(below, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(inverted, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function ``integral_1^x log(t)/(1 - t) dt`` for ``x >= 0`` (NaN below, as in
    JAX)."""
    x = jnp.asarray(x)
    dtype = core.get_aval(x).dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(f'x.dtype={dtype} is not supported, see docstring for supported '
                        f'types.')
    return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0],
                         [np.nan, 0, np.pi ** 2 / 6, _spence_positive])

# ----------------------------------------------------------------------------- Fresnel


@jit
def _sin_cos_half_pi_square(x):
    """``sin(pi x^2 / 2)`` and ``cos(pi x^2 / 2)`` with ``x^2 / 2`` reduced mod 2 exactly
    first: with ``s = x mod 2``, ``x^2 / 2 = s (x - s/2)`` mod 2, so large ``x`` keep their
    accuracy."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sin = jnp.where(r < 0.5, jnp.sin(np.pi * r), jnp.where(
        r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))))
    cos = jnp.where(r == 0.5, 0.0, jnp.where(
        r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5))))
    return sin, cos


#: dtype -> the (numerator, denominator) pairs of S and C near 0 and of the auxiliary f and g
#: (Cephes' ``fresnl``; single precision has polynomials only, and S = C = 1/2 far out).
_FRESNEL = {
    np.dtype('float64'): ((_cephes.FRESNEL_SN, _cephes.FRESNEL_SD),
                          (_cephes.FRESNEL_CN, _cephes.FRESNEL_CD),
                          (_cephes.FRESNEL_FN, _cephes.FRESNEL_FD),
                          (_cephes.FRESNEL_GN, _cephes.FRESNEL_GD)),
    np.dtype('float32'): ((_cephes.FRESNEL_SN32, None), (_cephes.FRESNEL_CN32, None),
                          (_cephes.FRESNEL_FN32, None), (_cephes.FRESNEL_GN32, None)),
}


def _rational(coefficients, x):
    numerator, denominator = coefficients
    value = _polyval(numerator, x)
    return value if denominator is None else value / _polyval(denominator, x)


def _fresnel_of(x):
    """S and C of a float32 or float64 ``x``: series for ``x^2 < 2.5625``, the auxiliary
    functions f and g up to 36974, the leading asymptotic term beyond (1/2 in single
    precision)."""
    sn, cn, fn, gn = _FRESNEL[core.get_aval(x).dtype]
    ax = jnp.abs(x)
    x2 = ax * ax
    t = x2 * x2
    s_small, c_small = ax * x2 * _rational(sn, t), ax * _rational(cn, t)
    sin, cos = _sin_cos_half_pi_square(ax)
    if cn[1] is None:
        s_large = c_large = _c(x, 0.5)
    else:
        s_large, c_large = 0.5 - 1 / (np.pi * ax) * cos, 0.5 + 1 / (np.pi * ax) * sin
    t = 1.0 / (np.pi * x2)
    u = t * t
    f, g = 1.0 - u * _rational(fn, u), t * _rational(gn, u)
    s_mid = 0.5 - (f * cos + g * sin) / (np.pi * ax)
    c_mid = 0.5 + (f * sin - g * cos) / (np.pi * ax)
    conditions = [jnp.isinf(x), x2 < 2.5625, ax > 36974.0]
    s = jnp.select(conditions, [_c(x, 0.5), s_small, s_large], s_mid)
    c = jnp.select(conditions, [_c(x, 0.5), c_small, c_large], c_mid)
    negative = x < 0.0
    return jnp.where(negative, -s, s), jnp.where(negative, -c, c)


@custom_jvp
def fresnel(x):
    """The Fresnel integrals ``(S(x), C(x))``: ``integral_0^x sin(pi t^2 / 2) dt`` and the
    cosine one (real ``x``; float16 and bfloat16 evaluated in float32), accurate on
    [-10, 10] as Cephes'."""
    x, = _promote_inexact(x)
    dtype = core.get_aval(x).dtype
    if dtypes.is_complex(dtype):
        raise NotImplementedError('Support for complex-valued inputs is not implemented yet.')
    if dtype in (np.float16, dtypes.bfloat16):
        return tuple(v.astype(dtype) for v in _fresnel_of(x.astype(np.float32)))
    if dtype not in _FRESNEL:
        raise NotImplementedError(f'Support for {dtype} dtype is not implemented yet.')
    return _fresnel_of(x)


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    sin, cos = _sin_cos_half_pi_square(x)
    return fresnel(x), (sin * x_dot, cos * x_dot)

# ----------------------------------------------------------------------------- Owen's T


def _owens_t_quadrature(h, a):
    """``a sum_i w_i exp(-h^2 (1 + a^2 t_i) / 2) / (1 + a^2 t_i)`` for ``|a| <= 1``; the nodes
    and weights are float64 arrays, so (as in JAX) the sum is float64."""
    r = jnp.square(a)[..., None] * np.array(_cephes.OWENS_T_NODES)
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1. + r)) / (1. + r)
    return a * (integrand @ np.array(_cephes.OWENS_T_WEIGHTS))


@custom_jvp
def _owens_t(h, a):
    """T(h, a): the quadrature on ``|a| <= 1``, ``T(h, a) = ndtr terms - T(a h, 1/a)`` beyond;
    exact at ``h = 0`` and ``|a| = 1``."""
    h, abs_a = jnp.abs(h), jnp.abs(a)
    root_2 = _c(h, np.sqrt(2))
    h_normed = h / root_2
    inside = abs_a <= 1.
    a1, h1 = jnp.where(inside, abs_a, jnp.reciprocal(abs_a)), jnp.where(inside, h, abs_a * h)
    t = _owens_t_quadrature(h1, a1)
    t = jnp.where(h1 == 0., jnp.arctan(a1) / (2 * np.pi), t)
    t = jnp.where(a1 == 1., 0.125 * lax.erfc(-h1 / root_2) * lax.erfc(h1 / root_2), t)
    q_h, q_ah = lax.erfc(h_normed), lax.erfc(abs_a * h_normed)
    near = 0.25 - 0.25 * lax.erf(h_normed) * lax.erf(abs_a * h_normed) - t
    far = 0.25 * (q_h + q_ah - q_h * q_ah) - t
    t = jnp.where(abs_a > 1., jnp.where(abs_a * h <= 0.67, near, far), t)
    t = lax.sign(a) * t
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(t, np.nan), t)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (h_dot, a_dot) = primals, tangents
    t = _owens_t(h, a)
    d_h = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / _c(h, np.sqrt(2)))
           / (2. * _c(h, np.sqrt(2. * np.pi))))
    d_a = lax.exp(-0.5 * (lax.square(a) + 1.) * lax.square(h)) / (2. * np.pi
                                                                  * (lax.square(a) + 1.))
    return t, (d_h * h_dot + d_a * a_dot).astype(t.dtype)


def owens_t(h, a):
    """Owen's T function ``1/(2 pi) integral_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx``, by
    a 13-point quadrature (Patefield and Tandy's method T5) on all of its domain."""
    return _owens_t(*_promote_shapes(*_promote_inexact(h, a)))
