"""Special functions StableHLO has no op for, lowered to CHLO ops as in JAX: the error
function ``erf``, its complement ``erfc`` and its inverse ``erf_inv``; ``lgamma``, ``digamma``
and ``polygamma``; the Hurwitz zeta function ``zeta``; the exponentially scaled Bessel
function ``bessel_i1e``. XLA expands each into elementwise ops; the reference interpreter
runs them legalized by ``chlo-legalize-to-stablehlo``. ``bessel_i0e`` has no CHLO op: JAX
lowers it to Cephes' Chebyshev series, and so does ``bessel_i0e_expansion`` here, in JAX's
op order.

XLA compiles ``erf`` as an op of its own (a transcendental function, as ``exp`` is) and
expands ``erfc`` into a rational approximation, which ``erfc_expansion`` writes in lax ops:
what ``minijax.flops`` counts, and for a reader to see. Its coefficients are Cephes' (S. L.
Moshier, ``ndtr.c``), the ones XLA uses for float64: on [0, 1] ``erf(x) = x T(x^2) / U(x^2)``;
above 1 ``erfc(x) = exp(-x^2) P(x) / Q(x)`` (``R/S`` from 8 on).

Eager ``erf`` and ``erfc`` use the C library's, correctly rounded or nearly: eager and jitted
results may differ in the last bits, as JAX's CPU and GPU results do. The others run eagerly
on XLA, so their values are JAX's; their NumPy impls (``MINIJAX_EAGER=numpy``) are the
textbook series: a recurrence and an asymptotic expansion for ``digamma``, Euler-Maclaurin
summation for ``zeta`` (and ``polygamma``, a multiple of it), Newton's method for ``erf_inv``,
the power series and the asymptotic expansion for the Bessel functions.
"""
from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir.dialects import chlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import (
    FLOATING, abs, add, binary_primitive, div, exp, full_like, gt, in_float32_if_narrow, le,
    less, mul, neg, promote_weak_scalars, select_n, sign, sqrt, sub, unary_function,
    unary_primitive)
from minijax.lax.transcendental import reciprocal, square
from minijax.lowering import lower_fun, register_lowering

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


def polygamma(m, x):
    """Elementwise ``m``-th derivative of ``digamma`` (``m`` a whole number, NaN otherwise)."""
    return polygamma_p.bind(*promote_weak_scalars('polygamma', m, x))


def zeta(x, q):
    """Elementwise Hurwitz zeta function ``sum_k (q + k) ** -x`` (``x > 1``)."""
    return zeta_p.bind(*promote_weak_scalars('zeta', x, q))

# ----------------------------------------------------------------------------- NumPy impls


def _in_float64(fn):
    """``fn`` computed in float64 and rounded to the operands' dtype."""
    def impl(*args):
        args = np.broadcast_arrays(*map(np.asarray, args))
        with np.errstate(divide='ignore', invalid='ignore'):  # poles: inf; outside: NaN
            return np.asarray(fn(*(a.astype(np.float64) for a in args))).astype(args[0].dtype)
    return impl


def _lgamma_of(v):
    try:
        return math.lgamma(v)
    except ValueError:  # a pole: 0, -1, -2, ...
        return math.inf


def _digamma(x):
    """``psi(1 - x) - pi / tan(pi x)`` below 1/2; above, ``psi(z) = psi(z + 1) - 1 / z`` up
    to 10, then the asymptotic series ``log z - 1 / 2z - sum B_2k / (2k z^2k)``."""
    reflected = x < 0.5
    z = np.where(reflected, 1 - x, x)
    shift = np.zeros_like(z)
    for _ in range(10):
        small = z < 10
        shift = shift - np.where(small, 1 / z, 0)
        z = np.where(small, z + 1, z)
    w = 1 / (z * z)
    series = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (
        1 / 132 - w * (691 / 32760 - w / 12))))))
    psi = np.log(z) - 0.5 / z - series + shift
    return np.where(reflected, psi - np.pi / np.tan(np.pi * x), psi)


#: B_2j / (2j)! for j = 1..7: the Euler-Maclaurin coefficients.
_EULER_MACLAURIN = [1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160,
                    -691 / 1307674368000, 1 / 74724249600]


def _zeta(s, q):
    """The first 10 terms, then Euler-Maclaurin for the rest: ``a^(1-s) / (s-1) + a^-s / 2
    + sum_j B_2j / (2j)! s (s+1) ... (s+2j-2) a^(1-s-2j)`` with ``a = q + 10``."""
    head = sum((q + k) ** -s for k in range(10))
    a = q + 10
    tail = a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    rising, power = s, a ** (-s - 1)
    for j, coefficient in enumerate(_EULER_MACLAURIN):
        tail = tail + coefficient * rising * power
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2)
        power = power / (a * a)
    return np.where(s == 1, np.inf, np.where(s < 1, np.nan, head + tail))


def _polygamma(m, x):
    """``digamma`` for ``m = 0``, else ``(-1)^(m+1) m! zeta(m + 1, x)``."""
    whole = (m >= 0) & (m == np.floor(m))
    sign = np.where(np.mod(m, 2) == 0, -1., 1.)
    factorial = np.vectorize(lambda k: math.gamma(k + 1) if k >= 0 else np.nan)(m)
    higher = sign * factorial * _zeta(m + 1, x)
    return np.where(whole, np.where(m == 0, _digamma(x), higher), np.nan)


def _erf_inv(y):
    """Newton's method on ``erf(x) = |y|`` from Winitzki's approximation; near 1 the residual
    is ``(1 - |y|) - erfc(x)``, which keeps its digits."""
    a = np.abs(y)
    log_term = np.log((1 - a) * (1 + a))
    k = 2 / (np.pi * 0.147) + log_term / 2
    x = np.sqrt(np.sqrt(k * k - log_term / 0.147) - k)
    erf, erfc = np.frompyfunc(math.erf, 1, 1), np.frompyfunc(math.erfc, 1, 1)
    for _ in range(4):
        residual = np.where(a < 0.5, erf(x).astype(float) - a, (1 - a) - erfc(x).astype(float))
        x = x - residual * np.sqrt(np.pi) / 2 * np.exp(x * x)
    x = np.where(a == 1, np.inf, np.where(a > 1, np.nan, x))
    return np.copysign(x, y)

# ----------------------------------------------------------------------------- primitives


def _chlo_binary(chlo_op):
    return lambda ctx, x, y: chlo_op(x, y).result


def _no_derivative_in_m(t, m, x):
    raise ValueError('polygamma gradient with respect to m is not supported')  # (JAX's text)


erf_inv_p = unary_primitive(
    'erf_inv', _in_float64(_erf_inv), chlo.ErfInvOp,
    lambda t, x, ans: mul(math.sqrt(math.pi) / 2, mul(t, exp(square(ans)))),
    accepts=FLOATING, eager_on_xla=True)
lgamma_p = unary_primitive('lgamma', _elementwise(_lgamma_of), chlo.LgammaOp,
                           lambda t, x, ans: mul(t, digamma(x)), accepts=FLOATING,
                           eager_on_xla=True)
digamma_p = unary_primitive('digamma', _in_float64(_digamma), chlo.DigammaOp,
                            lambda t, x, ans: mul(t, polygamma(full_like(x, 1), x)),
                            accepts=FLOATING, eager_on_xla=True)
polygamma_p = binary_primitive('polygamma', _in_float64(_polygamma),
                               _chlo_binary(chlo.PolygammaOp), accepts=FLOATING,
                               eager_on_xla=True)
ad.defjvp(polygamma_p, _no_derivative_in_m,
          lambda t, m, x: mul(t, polygamma(add(m, full_like(m, 1)), x)))
erf_inv = unary_function(erf_inv_p, 'Elementwise inverse of ``erf``: ``-inf`` at -1, '
                                    '``inf`` at 1, NaN beyond.')
lgamma = unary_function(lgamma_p, 'Elementwise logarithm of the absolute value of the gamma '
                                  'function.')
digamma = unary_function(digamma_p, 'Elementwise digamma function: the derivative of '
                                    '``lgamma``.')
zeta_p = binary_primitive('zeta', _in_float64(_zeta), _chlo_binary(chlo.ZetaOp),
                          accepts=FLOATING, eager_on_xla=True)  # (not differentiable, as in JAX)

# ----------------------------------------------------------------------------- Bessel functions

#: Cephes' Chebyshev coefficients of ``exp(-x) I0(x)`` (``i0.c``), highest order first: A on
#: [0, 8] in the variable ``x / 2 - 2``; B above 8, of ``sqrt(x) exp(-x) I0(x)`` in ``32 / x
#: - 2``. float32 takes the last 18 and 7 of them, as Cephes' single-precision ``i0f.c``.
_I0E_A = [
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0E_B = [
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1]


def _chebyshev_series(x, coefficients):
    """Cephes' ``chbevl``: Clenshaw's recurrence ``b0 = x b1 - b2 + c`` over the coefficients,
    then ``(b0 - b2) / 2``."""
    b0, b1, b2 = full_like(x, 0), full_like(x, 0), full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = add(sub(mul(x, b1), b2), full_like(x, c))
    return mul(0.5, sub(b0, b2))


def bessel_i0e_expansion(x):
    """``exp(-|x|) I0(x)`` in lax ops, as JAX lowers ``bessel_i0e`` (float16 and bfloat16 in
    float32: the coefficients need its range)."""
    def expansion(x):
        wide = core.get_aval(x).dtype == np.float64
        a, b = (_I0E_A, _I0E_B) if wide else (_I0E_A[-18:], _I0E_B[-7:])
        x = abs(x)
        half, two, thirty_two = full_like(x, 0.5), full_like(x, 2.), full_like(x, 32.)
        near = _chebyshev_series(sub(mul(half, x), two), a)
        far = div(_chebyshev_series(sub(div(thirty_two, x), two), b), sqrt(x))
        return select_n(le(x, 8.), far, near)
    return in_float32_if_narrow(expansion, x)


def _scaled_bessel(order):
    """``exp(-|x|) I_order(x)`` in float64: the power series ``sum (x/2)^(2k+n) / (k! (k+n)!)``
    up to ``|x| = 30``, beyond it the asymptotic series ``exp(x) / sqrt(2 pi x) sum_k (-1)^k
    (4n^2 - 1^2)(4n^2 - 3^2)...(4n^2 - (2k-1)^2) / (k! (8x)^k)``."""
    def scaled(x):
        a = np.abs(x)
        small = np.minimum(a, 30.)
        term = (small / 2) ** order / math.factorial(order)
        series = term
        for k in range(1, 100):
            term = term * (small / 2) ** 2 / (k * (k + order))
            series = series + term
        large = np.maximum(a, 30.)
        term, asymptotic = np.ones_like(large), np.ones_like(large)
        for k in range(1, 25):
            term = -term * (4 * order ** 2 - (2 * k - 1) ** 2) / (k * 8 * large)
            asymptotic = asymptotic + term
        out = np.where(a <= 30., series * np.exp(-a), asymptotic / np.sqrt(2 * np.pi * large))
        return np.copysign(out, x) if order % 2 else out
    return scaled


def _bessel_i0e_tangent(t, x, ans):
    return mul(t, sub(bessel_i1e(x), mul(sign(x), ans)))


def _bessel_i1e_tangent(t, x, ans):
    """``i0e(x) - i1e(x) (sign(x) + 1 / x)``, and its limit 1/2 within eps of 0 (JAX's)."""
    eps = np.finfo(core.get_aval(x).dtype).eps
    not_tiny = gt(abs(x), eps)
    safe_x = select_n(not_tiny, full_like(x, eps), x)
    slope = sub(bessel_i0e(safe_x), mul(ans, add(sign(safe_x), reciprocal(safe_x))))
    return mul(t, select_n(not_tiny, full_like(x, 0.5), slope))


bessel_i0e_p = unary_primitive('bessel_i0e', _in_float64(_scaled_bessel(0)), None,
                               _bessel_i0e_tangent, accepts=FLOATING, eager_on_xla=True)
register_lowering(bessel_i0e_p, lower_fun(bessel_i0e_expansion))
bessel_i1e_p = unary_primitive('bessel_i1e', _in_float64(_scaled_bessel(1)), chlo.BesselI1eOp,
                               _bessel_i1e_tangent, accepts=FLOATING, eager_on_xla=True)
bessel_i0e = unary_function(bessel_i0e_p, 'Elementwise exponentially scaled modified Bessel '
                                          'function of order 0: ``exp(-|x|) I0(x)``.')
bessel_i1e = unary_function(bessel_i1e_p, 'Elementwise exponentially scaled modified Bessel '
                                          'function of order 1: ``exp(-|x|) I1(x)``.')
