"""Special functions, as ``jax.scipy.special`` defines them.

``erf``, ``erfc``, ``erfinv`` (``lax.erf_inv``), ``gammaln`` (``lax.lgamma``) and
``digamma`` are primitives (``minijax.lax.special``), as in JAX; the others are written on
them and on ``minijax.numpy``, in the numerically stable forms JAX uses.
"""

import functools
import math
import operator

import numpy as np

from minijax import control_flow, core, custom_derivatives, dtypes, lax
from minijax import numpy as mnp
from minijax.interpreters import batching
from minijax.jit import jit as _jit
from minijax.numpy import _promote_shapes, _to_float  # jnp's promotions

from minijax.scipy._special_integrals import (  # noqa: F401 (re-exported)
    dawsn, erfcx, exp1, expi, expn, fresnel, owens_t, sici, spence, wofz)
from minijax.scipy._hypergeometric import hyp1f1, hyp2f1  # noqa: F401 (re-exported)
from minijax.scipy._spherical_harmonics import sph_harm_y  # noqa: F401 (re-exported)

__all__ = ['bernoulli', 'bessel_jn', 'beta', 'betainc', 'betaln', 'boxcox', 'boxcox1p', 'comb',
           'dawsn', 'digamma', 'entr', 'erf', 'erfc', 'erfcx', 'erfinv', 'exp1', 'expi', 'expit',
           'expn', 'factorial', 'fresnel', 'gamma', 'gammainc', 'gammaincc', 'gammaln',
           'gammasgn', 'hyp1f1', 'hyp2f1', 'i0', 'i0e', 'i1', 'i1e', 'kl_div', 'log_ndtr',
           'log_softmax', 'loggamma', 'logit', 'logsumexp', 'multigammaln', 'ndtr', 'ndtri',
           'owens_t', 'poch', 'polygamma', 'rel_entr', 'sici', 'softmax', 'spence', 'sph_harm_y',
           'wofz', 'xlog1py', 'xlogy', 'zeta']


def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return lax.erf(_to_float(mnp.asarray(x)))


def erfc(x):
    """``1 - erf(x)``, accurate where ``erf(x)`` is close to 1."""
    return lax.erfc(_to_float(mnp.asarray(x)))


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return lax.logistic(_to_float(mnp.asarray(x)))


def logit(x):
    """The inverse of ``expit``: ``log(x / (1 - x))``."""
    x = _to_float(mnp.asarray(x))
    return lax.log(lax.div(x, lax.sub(1., x)))


def ndtr(x):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2``.

    Where ``erf`` is near -1 or 1, the complement ``erfc`` keeps the tail's relative
    accuracy (``ndtr(-30)`` is 4.9e-198, not 0), as JAX computes it."""
    z = lax.mul(_to_float(mnp.asarray(x)), math.sqrt(.5))
    w = lax.abs(z)
    tails = mnp.where(mnp.greater(z, 0.), lax.sub(2., lax.erfc(z)), lax.erfc(w))
    return lax.mul(.5, mnp.where(mnp.less(w, math.sqrt(.5)), lax.add(1., lax.erf(z)), tails))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis`` (of the elements ``where`` keeps), without
    overflow.

    The maximum is subtracted first (and held constant to differentiation: it cancels, so
    the gradient is ``softmax``); an all ``-inf`` or infinite slice shifts by 0 instead.
    With ``b``, terms where ``b == 0`` drop out; a negative sum gives NaN unless
    ``return_sign``, which returns ``(log|sum|, sign(sum))``. The equations are JAX's.
    """
    if where is not None:
        a = mnp.where(where, a, 0)
    if b is not None:
        a, b = _promote_shapes(*mnp._promote_inexact(a, b))
        a = mnp.where(mnp.not_equal(b, 0), a, -np.inf)
    else:
        a = _to_float(mnp.asarray(a))
    amax = mnp.max(mnp.real(a), axis, keepdims=keepdims, where=where, initial=-np.inf)
    axes = core.canonicalize_axes(axis, np.ndim(a), 'logsumexp: axis')
    amax = lax.stop_gradient(lax.select(mnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, axes)
    dtype = core.get_aval(a).dtype
    exp_a = lax.exp(lax.sub(a, mnp.astype(amax_with_dims, dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = mnp.sum(exp_a, axes, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not dtypes.is_complex(dtype):
        sumexp = mnp.abs(sumexp)
    out = lax.add(lax.log(sumexp), mnp.astype(amax, core.get_aval(sumexp).dtype))
    if return_sign:
        return out, sign
    if b is not None and not dtypes.is_complex(dtype):
        out = mnp.where(mnp.less(sign, 0), mnp.array(np.nan, core.get_aval(out).dtype), out)
    return out


def softmax(x, /, *, axis=None):
    """``minijax.nn.softmax``, over all axes by default (SciPy's default)."""
    from minijax import nn  # nn imports this module (logsumexp), so not at module level
    return nn.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """``minijax.nn.log_softmax``, over all axes by default (SciPy's default)."""
    from minijax import nn
    return nn.log_softmax(x, axis=axis)


# ----------------------------------------------------------------------------- gamma functions

def _const(x, value):
    return np.array(value, core.get_aval(x).dtype)


def gammaln(x):
    """``log|Gamma(x)|``; its derivative is ``digamma``."""
    return lax.lgamma(_to_float(mnp.asarray(x)))


def digamma(x):
    """``d/dx log|Gamma(x)|``; NaN at the poles 0, -1, -2, ..."""
    return lax.digamma(_to_float(mnp.asarray(x)))


def _promote_inexact(*args):
    """The operands promoted together to one float dtype, as JAX's
    ``promote_args_inexact``."""
    dtype = mnp.result_type(*args)
    return [_to_float(mnp.asarray(a, dtype)) for a in args]


def _promote_args_inexact(*args):
    """JAX's ``promote_args_inexact``: one float dtype, then one rank (lax broadcasts
    scalars and axes of size 1)."""
    return _promote_shapes(*_promote_inexact(*args))


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)`` (``lax.igamma``)."""
    return lax.igamma(*_promote_args_inexact(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return lax.igammac(*_promote_args_inexact(a, x))


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)`` (real operands only)."""
    a, b, x = _promote_args_inexact(a, b, x)
    if dtypes.is_complex(x.dtype):
        raise ValueError('betainc does not support complex-valued inputs.')  # (JAX's text)
    return lax.betainc(a, b, x)


def i0e(x):
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``."""
    return lax.bessel_i0e(*_promote_args_inexact(x))


def i0(x):
    """The modified Bessel function of order 0, ``exp(|x|) i0e(x)``."""
    x, = _promote_args_inexact(x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x):
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``."""
    return lax.bessel_i1e(*_promote_args_inexact(x))


def i1(x):
    """The modified Bessel function of order 1, ``exp(|x|) i1e(x)``."""
    x, = _promote_args_inexact(x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


def _algdiv(a, b):
    """``log(Gamma(b) / Gamma(a + b))`` for ``8 <= b``, ``a <= b`` (cdflib's ``algdiv``)."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return mnp.where(u <= v, (w - v) - u, (w - u) - v)


@_jit
def betaln(a, b):
    """``log|B(a, b)|``; for ``8 <= max(a, b)`` through ``algdiv``, which keeps the accuracy
    that ``gammaln(a) + gammaln(b) - gammaln(a + b)`` loses to cancellation."""
    a, b = _promote_inexact(a, b)
    a, b = mnp.minimum(a, b), mnp.maximum(a, b)
    small_b = gammaln(a) + (gammaln(b) - gammaln(a + b))
    return mnp.where(b < 8, small_b, gammaln(a) + _algdiv(a, b))


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a static int)."""
    d = core.static_int(d, 'multigammaln: d')
    a, d_ = _promote_inexact(a, d)
    constant = lax.mul(lax.mul(lax.mul(_const(a, .25), d_), lax.sub(d_, _const(a, 1.))),
                       lax.log(_const(a, np.pi)))
    b = lax.div(mnp.arange(d, dtype=d_.dtype), _const(a, 2.))
    terms = gammaln(mnp.expand_dims(a, -1) - mnp.expand_dims(b, tuple(range(a.ndim))))
    return mnp.sum(terms, axis=-1) + constant


# ----------------------------------------------------------------------------- x log y

def _x_times(name, log, log_argument):
    """``x * log(y)`` for ``log`` one of ``lax.log``, ``lax.log1p``: 0 where ``x == 0``
    (unless ``y`` is NaN). ``log_argument(y)`` is what ``log`` takes the logarithm of, the
    denominator of its derivative."""
    def x_times_log(x, y):
        x, y = _promote_inexact(x, y)
        return mnp.where((x != 0.) | mnp.isnan(y), lax.mul(x, log(y)), mnp.zeros_like(x))

    x_times_log.__name__ = x_times_log.__qualname__ = name
    x_times_log.__doc__ = f'``x * {log.__name__}(y)``, 0 where ``x == 0`` (unless ``y`` is NaN).'
    fn = custom_derivatives.custom_jvp(x_times_log)

    @fn.defjvp
    def _jvp(primals, tangents):
        (x, y), (x_dot, y_dot) = primals, tangents
        result = fn(x, y)
        return result, (x_dot * log(y) + y_dot * x / log_argument(y)).astype(result.dtype)
    return fn


xlogy = _x_times('xlogy', lax.log, lambda y: y)
xlog1py = _x_times('xlog1py', lax.log1p, lambda y: 1 + y)


@custom_derivatives.custom_jvp
def _xlogx(x):
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


def entr(x):
    """The entropy term ``-x log(x)``: 0 at 0, -inf below."""
    x, = _promote_inexact(x)
    return lax.select_n(lax.less(x, _const(x, 0.)), lax.neg(_xlogx(x)),
                        lax.full_like(x, -np.inf))


# ----------------------------------------------------------------------------- inverses

def erfinv(x):
    """The inverse of ``erf`` on (-1, 1); its derivative is ``sqrt(pi)/2 exp(erfinv(x)^2)``."""
    return lax.erf_inv(_to_float(mnp.asarray(x)))


#: Cephes' rational approximations for ndtri (highest power first): near the median (p0/q0,
#: in w = p - 1/2) and in the tails (p1/q1 for z = sqrt(-2 log p) < 8, p2/q2 beyond).
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def _ratio(numerator, denominator, x):
    dtype = core.get_aval(x).dtype
    return (mnp.polyval(np.array(numerator, dtype), x)
            / mnp.polyval(np.array(denominator, dtype), x))


def ndtri(p):
    """The inverse of ``ndtr``: the standard normal quantile of ``p`` (-inf at 0, inf at 1)."""
    p, = _promote_inexact(p)
    dtype = core.get_aval(p).dtype.type
    complement = mnp.where(p > dtype(-np.expm1(-2.)), dtype(1.) - p, p)
    q = mnp.where(complement == dtype(0.), mnp.full(p.shape, dtype(.5)), complement)
    w = q - dtype(.5)
    ww = lax.mul(w, w)
    near_median = (w + w * ww * _ratio(_NDTRI_P0, _NDTRI_Q0, ww)) * -dtype(np.sqrt(2 * np.pi))
    z = lax.sqrt(dtype(-2.) * lax.log(q))
    first_term = z - lax.log(z) / z
    far_tail = first_term - _ratio(_NDTRI_P2, _NDTRI_Q2, 1 / z) / z
    near_tail = first_term - _ratio(_NDTRI_P1, _NDTRI_Q1, 1 / z) / z
    x = mnp.where(q > dtype(np.exp(-2.)), near_median, mnp.where(z >= dtype(8.), far_tail,
                                                                 near_tail))
    x = mnp.where(p > dtype(1. - np.exp(-2.)), x, -x)
    infinity = mnp.full(p.shape, dtype(np.inf))
    return mnp.where(p == dtype(0.), -infinity, mnp.where(p == dtype(1.), infinity, x))


#: Where log_ndtr switches from log(ndtr) to the asymptotic series (below) and to -ndtr(-x)
#: (above), per dtype.
_LOG_NDTR_SEGMENTS = {np.dtype('float64'): (-20., 8.), np.dtype('float32'): (-10., 5.)}


def _asymptotic_series(x, series_order):
    """``1 - 1/x^2 + 3/x^4 - 15/x^6 ...`` to ``series_order`` terms, odd and even terms
    summed apart as JAX sums them."""
    dtype = core.get_aval(x).dtype
    x_2 = lax.mul(x, x)
    sums = [mnp.zeros_like(x), mnp.zeros_like(x)]  # even, odd
    x_2n = x_2
    for n in range(1, series_order + 1):
        sums[n % 2] = sums[n % 2] + np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        x_2n = x_2n * x_2
    return dtype.type(1.) + sums[0] - sums[1]


def _log_ndtr_lower(x, series_order):
    dtype = core.get_aval(x).dtype.type
    log_scale = (-dtype(.5) * lax.mul(x, x) - lax.log(-x)
                 - dtype(.5 * np.log(2. * np.pi)))
    if series_order <= 0:
        return log_scale + lax.log(np.array(1, dtype))
    return log_scale + lax.log(_asymptotic_series(x, series_order))


@functools.partial(custom_derivatives.custom_jvp, nondiff_argnums=(1,))
def _log_ndtr(x, series_order):
    lower, upper = (np.array(v, core.get_aval(x).dtype)
                    for v in _LOG_NDTR_SEGMENTS[core.get_aval(x).dtype])
    above = lax.greater(x, upper)
    ndtr_value = ndtr(mnp.where(above, -x, lax.max(x, lower)))
    return mnp.where(above, -ndtr_value,
                     mnp.where(lax.greater(x, lower), lax.log(ndtr_value),
                               _log_ndtr_lower(lax.min(x, lower), series_order)))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _log_ndtr(x, series_order)
    log_pdf = lax.sub(lax.mul(_const(x, -.5), lax.mul(x, x)),
                      _const(x, np.log(np.sqrt(2 * np.pi))))
    return out, lax.mul(t, lax.exp(lax.sub(log_pdf, out)))


def log_ndtr(x, series_order=3):
    """``log(ndtr(x))``, accurate in both tails: -ndtr(-x) far above 0, an asymptotic series
    of ``series_order`` terms far below."""
    if not 0 <= series_order <= 30:
        raise ValueError(f'log_ndtr: series_order must be in [0, 30], got {series_order}')
    x = _to_float(mnp.asarray(x))
    if core.get_aval(x).dtype not in _LOG_NDTR_SEGMENTS:
        raise TypeError(f'log_ndtr: x.dtype={core.get_aval(x).dtype} is not supported.')
    return _log_ndtr(x, series_order)


# ----------------------------------------------------------------------------- gamma and beta

def _real(name, *args):
    """The operands promoted to one float dtype; complex ones refused (JAX's ValueError)."""
    args = _promote_inexact(*args)
    if dtypes.is_complex(core.get_aval(args[0]).dtype):
        raise ValueError(f'{name} does not support complex-valued inputs.')
    return args


@_jit
def gammasgn(x):
    """The sign of ``Gamma(x)``: NaN at the poles (negative integers), ``-inf`` and NaN;
    -1 between the poles ``-2k-1 < x < -2k`` and at ``-0``."""
    x, = _real('gammasgn', x)
    floor = lax.floor(x)
    negative = x < 0
    return mnp.select([(negative & (x == floor)) | mnp.isnan(x),
                       (negative & (floor % 2 != 0)) | ((x == 0) & mnp.signbit(x))],
                      [_const(x, np.nan), _const(x, -1.)], _const(x, 1.))


def _complex_unsupported(name, x):
    if dtypes.is_complex(core.get_aval(x).dtype):
        raise NotImplementedError(f'{name}: minijax does not support complex inputs yet '
                                  f'(JAX evaluates them by a Lanczos approximation)')


def gamma(x):
    """The gamma function, ``gammasgn(x) * exp(gammaln(x))`` (real inputs)."""
    x, = _promote_inexact(x)
    _complex_unsupported('gamma', x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def loggamma(x):
    """The principal branch of ``log(Gamma(x))``: ``gammaln`` for ``x > 0``, NaN elsewhere
    (real inputs)."""
    x, = _promote_inexact(x)
    _complex_unsupported('loggamma', x)
    return mnp.where(x > 0, lax.lgamma(x), np.nan)


def factorial(n, exact=False):
    """``n!`` as ``Gamma(n + 1)`` (0 for negative ``n``); ``exact=True`` is not supported,
    as in JAX."""
    if exact:
        raise NotImplementedError('factorial with exact=True')
    n, = _promote_inexact(n)
    return mnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition=False):  # noqa: N803 (SciPy's name)
    """``N choose k`` through ``gammaln`` (0 unless ``0 <= k <= N``); with ``repetition``,
    ``comb(N + k - 1, k)``."""
    N, k = _promote_inexact(N, k)  # noqa: N806
    if repetition:
        return mnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    N, k = mnp.where(valid, N, 0.0), mnp.where(valid, k, 0.0)  # noqa: N806
    return mnp.where(valid, lax.exp(gammaln(N + 1) - gammaln(k + 1) - gammaln(N + 1 - k)), 0.0)


def beta(a, b):
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``, as its sign times
    ``exp(betaln)``."""
    a, b = _real('beta', a, b)
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * lax.exp(betaln(a, b))


@custom_derivatives.custom_jvp
def poch(z, m):
    """The Pochhammer symbol ``Gamma(z + m) / Gamma(z)`` (1 where ``m == 0``)."""
    z, m = _promote_inexact(z, m)
    _complex_unsupported('poch', z)
    return mnp.where(m == 0., np.array(1, z.dtype), gamma(z + m) / gamma(z))


poch.defjvps(lambda z_dot, out, z, m: (digamma(z + m) - digamma(z)) * poch(z, m) * z_dot,
             lambda m_dot, out, z, m: digamma(z + m) * poch(z, m) * m_dot)


def polygamma(n, x):
    """The ``n``-th derivative of ``digamma`` (``n`` an integer array)."""
    if not dtypes.is_integer(core.get_aval(mnp.asarray(n)).dtype):
        raise ValueError(f'Argument `n` to polygamma must be of integer type. Got dtype '
                         f'{core.get_aval(mnp.asarray(n)).dtype}.')
    n, x = _real('polygamma', n, x)
    return lax.polygamma(*_promote_shapes(n, x))


#: ``(2k)! / B_2k`` for the Bernoulli numbers ``B_2, B_4, ...``: the Euler-Maclaurin
#: remainder terms of the Hurwitz zeta series.
_BERNOULLI_RATIOS = np.array([
    12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600,
    -10670622842880000 / 3617, 5109094217170944000 / 43867, -802857662698291200000 / 174611,
    14101100039391805440000 / 77683, -1693824136731743669452800000 / 236364091,
    186134520519971831808000000 / 657931, -37893265687455865519472640000000 / 3392780147,
    759790291646040068357842010112000000 / 1723168255201,
    -134196726836183700385281186201600000000 / 7709321041217])


def _riemann_unsupported(q):
    if q is None:
        raise NotImplementedError('Riemann zeta function not implemented; pass q != None to '
                                  'compute the Hurwitz Zeta function.')


def _zeta_series(x, q):
    """Hurwitz zeta by Euler-Maclaurin summation (Johansson 2015, formula 5): ``N`` terms
    summed, the integral of the rest, and ``M`` Bernoulli corrections. Differentiable in
    both arguments, so ``zeta``'s derivatives are this series'."""
    s, a = _promote_inexact(x, q)
    dtype = core.get_aval(a).dtype.type
    terms = dtype(8) if core.get_aval(a).dtype == np.float32 else dtype(16)
    s_, a_ = mnp.expand_dims(s, -1), mnp.expand_dims(a, -1)
    k = mnp.expand_dims(np.arange(terms, dtype=dtype), tuple(range(a.ndim)))
    head = mnp.sum((a_ + k) ** -s_, -1)
    integral = lax.div((a + terms) ** (dtype(1) - s), s - dtype(1))
    first = (a + terms) ** -s
    m = mnp.expand_dims(np.arange(2 * terms, dtype=dtype), tuple(range(s.ndim)))
    rising = mnp.cumprod((s_ + m) / (a_ + terms), -1)[..., ::2]
    rising = mnp.clip(rising, max=np.finfo(dtype).max)
    ratios = np.expand_dims(np.array(_BERNOULLI_RATIOS[:rising.shape[-1]], dtype=dtype),
                            tuple(range(a.ndim)))
    return head + integral + first * (dtype(0.5) + (rising / ratios).sum(-1))


@custom_derivatives.custom_jvp
def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_n (n + q)^-x`` (``lax.zeta``); the Riemann one
    (``q=None``) is not implemented, as in JAX."""
    _riemann_unsupported(q)
    return lax.zeta(*_promote_args_inexact(x, q))


@zeta.defjvp
def _zeta_jvp(primals, tangents):
    from minijax.autodiff import jvp
    return jvp(_zeta_series, primals, tangents)


def bernoulli(n):
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``), the even ones by the zeta
    series of Chowla and Hartung."""
    n = operator.index(n)
    if n < 0:
        raise ValueError('n must be a non-negative integer.')
    first = mnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[:n + 1]
    bn = mnp.zeros(n + 1).at[:3].set(first)
    m = mnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = (1. / np.pi ** 2) * mnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    k = mnp.arange(2, 50, dtype=bn.dtype)  # 2^-50 < 1e-15
    q2 = mnp.sum(k[:, None] ** -m[None, :], axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))


# ----------------------------------------------------------------------------- transforms

def _boxcox(name, log):
    def transform(x, lmbda):
        x, lmbda = _promote_inexact(x, lmbda)
        zero = lmbda == 0
        log_x = log(x)
        power = mnp.expm1(mnp.where(zero, mnp.ones_like(lmbda), lmbda) * log_x)
        return mnp.where(zero, log_x, power / mnp.where(zero, mnp.ones_like(lmbda), lmbda))
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = (f'The Box-Cox transformation of ``{"1 + " * (log is mnp.log1p)}x``: '
                         f'``(y^lmbda - 1) / lmbda``, or ``log(y)`` where ``lmbda == 0``.')
    return transform


boxcox = _boxcox('boxcox', mnp.log)
boxcox1p = _boxcox('boxcox1p', mnp.log1p)


def rel_entr(p, q):
    """The relative entropy term ``p log(p / q)``: 0 where ``p == 0 <= q``, inf where either
    is negative (or ``q == 0 < p``)."""
    p, q = _real('rel_entr', p, q)
    zero = _const(p, 0.)
    positive = lax.gt(p, zero) & lax.gt(q, zero)
    p_zero = lax.eq(p, zero) & lax.ge(q, zero)
    safe_p, safe_q = mnp.where(positive, p, 1), mnp.where(positive, q, 1)
    value = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return mnp.where(positive, value, mnp.where(p_zero, zero, np.inf))


def kl_div(p, q):
    """The Kullback-Leibler divergence term ``p log(p / q) - p + q``."""
    p, q = _real('kl_div', p, q)
    return rel_entr(p, q) - p + q


# ----------------------------------------------------------------------------- Bessel J

def _bessel_jn_step(carry, k):
    """One step of Miller's backward recurrence ``J_k = 2(k+1)/z J_{k+1} - J_{k+2}``, with the
    normalizing sum ``J_0 + 2 (J_2 + J_4 + ...)`` accumulated on the even orders."""
    f0, f1, total, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    total = control_flow.cond(mnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0],
                              (total, f))
    return (f1, f, total, z), f


def _bessel_jn_orders(z, *, v, n_iter):
    (_, _, total, _), values = control_flow.scan(
        _bessel_jn_step, (_const(z, 0.0), _const(z, 1e-16), _const(z, 0.0), z),
        lax.iota(core.get_aval(z).dtype, n_iter + 1), reverse=True)
    return values[:v + 1] / (total - values[0])


@functools.partial(_jit, static_argnames=['v', 'n_iter'])
def bessel_jn(z, *, v, n_iter=50):
    """The Bessel functions of the first kind ``J_0 .. J_v`` at ``z`` (stacked on a new first
    axis), by ``n_iter`` steps of Miller's backward recurrence."""
    z, = _promote_inexact(mnp.asarray(z))
    if dtypes.is_complex(core.get_aval(z).dtype):
        raise ValueError('complex input not supported.')
    orders = functools.partial(_bessel_jn_orders, v=operator.index(v), n_iter=int(n_iter))
    for _ in range(z.ndim):
        orders = batching.vmap(orders)
    return mnp.moveaxis(orders(z), -1, 0)
