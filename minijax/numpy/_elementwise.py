"""More of ``jnp``'s elementwise functions: integer ones (``gcd``, ``lcm``, the array API's
shift names, ``packbits``), the float decompositions (``frexp``, ``modf``, ``nextafter``,
``spacing``), ``i0``, ``unwrap``, ``sort_complex``, ``matvec``/``vecmat`` and the dtype
predicates; each as JAX writes it, so the values (and derivatives) are JAX's.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes, lax
from minijax.control_flow import while_loop
from minijax.custom_derivatives import custom_jvp
from minijax.numpy import (_SAME_WIDTH_INT, _cast, _promote, _promote_inexact, _where, abs,
                           all, any, arange, asarray, broadcast_arrays, ceil, concatenate,
                           copysign, conj, cumsum, diff, equal, exp2, expand_dims, floor,
                           floor_divide, iscomplexobj, isinf, isnan, left_shift, matmul,
                           multiply, ravel, remainder, reshape, right_shift, sum, swapaxes,
                           where)
from minijax.numpy._ufuncs import vectorize

__all__ = ['array_equiv', 'bitwise_left_shift', 'bitwise_right_shift', 'frexp', 'gcd', 'i0',
           'isdtype', 'isrealobj', 'lcm', 'matvec', 'modf', 'nextafter', 'packbits',
           'sort_complex', 'spacing', 'unpackbits', 'unwrap', 'vecmat']


def bitwise_left_shift(x, y, /):
    """The array API's name of ``left_shift``."""
    return left_shift(x, y)


def bitwise_right_shift(x1, x2, /):
    """The array API's name of ``right_shift``."""
    return right_shift(x1, x2)


def _integers(name, x1, x2):
    x1, x2 = _promote(asarray(x1), asarray(x2))
    if not dtypes.is_integer(core.get_aval(x1).dtype):
        raise ValueError(f'Arguments to jax.numpy.{name} must be integers.')
    return x1, x2


def gcd(x1, x2):
    """The greatest common divisor, by Euclid's algorithm in a ``while_loop`` until every
    remainder is 0 (JAX's loop)."""
    x1, x2 = broadcast_arrays(*map(abs, _integers('gcd', x1, x2)))

    def body(xs):
        a, b = xs
        a, b = where(b != 0, b, a), where(b != 0, lax.rem(a, where(b != 0, b, 1)), 0)
        return where(a < b, b, a), where(a < b, a, b)
    return while_loop(lambda xs: any(xs[1] != 0), body, (x1, x2))[0]


def lcm(x1, x2):
    """The least common multiple, ``|x1| * (|x2| // gcd)``; 0 if either is 0."""
    x1, x2 = map(abs, _integers('lcm', x1, x2))
    d = gcd(x1, x2)
    return where(d == 0, 0, multiply(x1, floor_divide(x2, where(d == 0, 1, d))))


def frexp(x, /):
    """``(mantissa, exponent)`` with ``x = mantissa * 2**exponent`` and ``0.5 <= |mantissa|
    < 1``, read from the bits (subnormals first scaled up); the exponent is int32."""
    x, = _promote_inexact(x)
    if iscomplexobj(x):
        raise TypeError('frexp does not support complex-valued inputs')
    return _frexp(x)


def _normalized_bits(x):
    """``x``'s bits as a signed integer of its width, a subnormal's first scaled up to a
    normal number; and the exponent that scaling adds (its negation, 0 elsewhere)."""
    dtype = core.get_aval(x).dtype
    info, int_type = dtypes.finfo(dtype), _SAME_WIDTH_INT[np.dtype(dtype).itemsize]
    subnormal = lax.abs(x) < info.tiny
    x = _where(subnormal, x * np.array(1 << info.nmant, dtype), x)
    shift = _where(subnormal, int_type.type(-info.nmant), int_type.type(0))
    return lax.bitcast_convert_type(x, int_type), shift


@custom_jvp
def _frexp(x):
    """The exponent read from the bits, the mantissa those bits with the exponent of 0.5
    (JAX's formula)."""
    dtype = core.get_aval(x).dtype
    info = dtypes.finfo(dtype)
    mask, bias = (1 << info.nexp) - 1, 1 - info.minexp
    bits, exponent = _normalized_bits(x)
    exponent = exponent + (((bits >> info.nmant) & mask) - bias + 1)
    mantissa = lax.bitcast_convert_type(
        (bits & ~(mask << info.nmant)) | (bias - 1) << info.nmant, dtype)
    special = isinf(x) | isnan(x) | (x == 0)
    exponent = _where(special, lax.full_like(exponent, 0), exponent)
    return _where(special, x, mantissa), lax.convert_element_type(exponent, dtypes.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = _frexp(x)
    return (m, e), (t * exp2(-e.astype(core.get_aval(t).dtype)), lax.full_like(e, 0))


def modf(x, /, out=None):
    """``(fractional part, integral part)``, both with the sign of ``x``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    x, = _promote_inexact(x)
    whole = where(x >= 0, floor(x), ceil(x))
    return x - whole, whole


def nextafter(x, y, /):
    """The next float after ``x`` towards ``y``."""
    return lax.nextafter(*_promote_inexact(x, y))


def spacing(x, /):
    """The distance from ``x`` to the next float away from zero (the smallest subnormal
    where that is 0, with ``x``'s sign), as JAX computes it."""
    x, = _promote_inexact(x)
    dtype = core.get_aval(x).dtype
    if dtypes.is_complex(dtype):
        raise ValueError('jnp.spacing is not defined for complex inputs.')
    inf = np.array(np.inf, dtype)
    if dtype == dtypes.float16:
        return lax.nextafter(x, lax.full_like(x, inf)) - x
    result = lax.nextafter(x, copysign(inf, x)) - x
    tiny = np.array(dtypes.finfo(dtype).smallest_subnormal, dtype)
    return where(result == 0, copysign(tiny, x), result)


def i0(x):
    """The modified Bessel function of the first kind, order 0: ``exp(|x|) * i0e(|x|)``,
    with JAX's derivative (0 at 0)."""
    x, = _promote_inexact(x)
    if not dtypes.is_float(core.get_aval(x).dtype):
        raise ValueError(f'Unsupported input type to jax.numpy.i0: {core.get_aval(x).dtype}')
    return _i0(x)


@custom_jvp
def _i0(x):
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


@_i0.defjvp
def _i0_jvp(primals, tangents):
    from minijax.autodiff import jvp  # the api layer's transformation of the value
    out, t_out = jvp(_i0.fun, primals, tangents)
    return out, where(primals[0] == 0, 0., t_out)


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` along ``axis`` taken modulo ``period``
    (phase unwrapping), JAX's formula."""
    p, period = _promote(asarray(p), asarray(period))
    if iscomplexobj(p):
        raise ValueError('jnp.unwrap does not support complex input.')
    if np.shape(p)[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if dtypes.is_integer(core.get_aval(p).dtype) else period / 2
    dd = diff(p, axis=axis)
    ddmod = remainder(dd + interval, period) - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = where(abs(dd) < discont, 0, ddmod - dd)
    axis = core.canonicalize_axis(axis, np.ndim(p), 'unwrap: axis')
    n = np.shape(p)[axis]
    return concatenate([lax.slice_in_dim(p, 0, 1, axis=axis),
                        lax.slice_in_dim(p, 1, n, axis=axis) + cumsum(correction, axis=axis)],
                       axis=axis)


def sort_complex(a):
    """``a`` sorted (by real part, then imaginary part) as complex numbers."""
    a = lax.sort(asarray(a), dimension=np.ndim(a) - 1)
    return _cast(a, dtypes.COMPLEX_OF.get(core.get_aval(a).dtype, dtypes.complex128)
                 if not iscomplexobj(a) else core.get_aval(a).dtype)


def packbits(a, axis=None, bitorder='big'):
    """The booleans (nonzero elements) of ``a`` packed 8 to a uint8 along ``axis`` (of the
    flattened ``a`` if None), zero-padded to a multiple of 8."""
    a = asarray(a)
    if dtypes.kind(core.get_aval(a).dtype) not in 'iub':
        raise TypeError('Expected an input array of integer or boolean data type')
    if bitorder not in ('little', 'big'):
        raise ValueError("'order' must be either 'little' or 'big'")
    a = lax.convert_element_type(lax.ne(a, lax.full_like(a, 0)), dtypes.uint8)
    bits = arange(8, dtype=dtypes.uint8)
    bits = bits[::-1] if bitorder == 'big' else bits
    if axis is None:
        a, axis = ravel(a), 0
    a = swapaxes(a, axis, -1)
    extra = np.shape(a)[-1] % 8
    if extra:
        a = lax.pad(a, np.uint8(0), [(0, 0, 0)] * (np.ndim(a) - 1) + [(0, 8 - extra, 0)])
    a = reshape(a, np.shape(a)[:-1] + (np.shape(a)[-1] // 8, 8))
    packed = sum(left_shift(a, expand_dims(bits, tuple(range(np.ndim(a) - 1)))), -1)
    return swapaxes(packed.astype(dtypes.uint8), axis, -1)


def unpackbits(a, axis=None, count=None, bitorder='big'):
    """The bits of the uint8 ``a`` as uint8 0s and 1s along ``axis``, the first ``count``
    of them (all if None; ``count < 0`` drops that many from the end)."""
    a = asarray(a)
    if core.get_aval(a).dtype != dtypes.uint8:
        raise TypeError('Expected an input array of unsigned byte data type')
    if bitorder not in ('little', 'big'):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = left_shift(np.uint8(1), arange(8, dtype=dtypes.uint8))
    bits = bits[::-1] if bitorder == 'big' else bits
    if axis is None:
        a, axis = ravel(a), 0
    a = swapaxes(a, axis, -1)
    unpacked = (expand_dims(a, -1) & expand_dims(bits, tuple(range(np.ndim(a))))) != 0
    unpacked = reshape(unpacked.astype(dtypes.uint8), np.shape(a)[:-1] + (-1,))
    if count is not None:
        if count > np.shape(unpacked)[-1]:
            unpacked = lax.pad(unpacked, np.uint8(0), [(0, 0, 0)] * (np.ndim(unpacked) - 1)
                               + [(0, count - np.shape(unpacked)[-1], 0)])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)


def matvec(x1, x2, /):
    """Matrix-vector products over the leading (broadcast) axes: ``x1[..., n, m] @
    x2[..., m]``."""
    return vectorize(matmul, signature='(n,m),(m)->(n)')(x1, x2)


def vecmat(x1, x2, /):
    """Vector-matrix products over the leading axes, ``x1`` conjugated:
    ``conj(x1[..., n]) @ x2[..., n, m]``."""
    return vectorize(matmul, signature='(n),(n,m)->(m)')(conj(x1), x2)


#: The dtype kinds of the array API's ``isdtype``, as ``minijax.dtypes.kind`` letters.
_KINDS = {'bool': 'b', 'signed integer': 'i', 'unsigned integer': 'u', 'integral': 'iu',
          'real floating': 'f', 'complex floating': 'c', 'numeric': 'iufc'}


def isdtype(dtype, kind):
    """Whether ``dtype`` is ``kind``: one of the array API's kind names, a dtype, or a
    tuple of them."""
    dtype = np.dtype(dtype)
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KINDS:
            if dtypes.kind(dtype) in _KINDS[k]:
                return True
            continue
        try:
            other = np.dtype(k)
        except TypeError as error:
            if isinstance(k, str):
                raise ValueError(f'Unrecognized kind={k!r} expected one of {list(_KINDS)}, or '
                                 'a compatible input for jnp.dtype()') from None
            raise TypeError(f'Expected kind to be a dtype, string, or tuple; got '
                            f'kind={k!r}') from error
        if dtype == other:
            return True
    return False


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype (whatever its values)."""
    return not iscomplexobj(x)


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast together and are equal everywhere; False (not an
    error) if they do not broadcast."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = equal(a1, a2)
    except (ValueError, TypeError):
        return asarray(False)
    return all(eq)
