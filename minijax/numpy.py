"""The NumPy-flavoured API (``import minijax.numpy as jnp``), written on top of ``minijax.lax``.

``lax`` primitives are strict: one dtype, equal shapes (or a scalar). This module adds what
NumPy users expect: broadcasting (rank promotion through ``broadcast_in_dim``), type promotion
(JAX's lattice: ``int8 + uint8`` is int16; a Python scalar is *weakly typed* and takes the
other operand's dtype unless it is of a higher kind), indexing (static, and with traced
integers through ``dynamic_slice``) and ``x.at[i].set(v)``. The arithmetic operators and the
array methods of traced values and Arrays dispatch here. Called eagerly, every function
returns a ``minijax.Array``, as in JAX (see "the API boundary" at the end).

Each function is written once on ``lax`` primitives. Where minijax has no primitive that
computes a function exactly (``floor``, ``remainder``, ``expm1``...), it is composed from the
ones it has, and its docstring says how the result can differ from XLA's in the last bits.
"""
from __future__ import annotations

import builtins
import functools
import math
import operator
import sys
import types

import numpy as np

from minijax import core, dtypes, lax
from minijax.array import Array, device_array, eager_result, scalar
from minijax.core import Tracer
from minijax.interpreters.batching import vmap

# ----------------------------------------------------------------------------- dtypes, constants


class _ScalarType:
    """A dtype object such as ``jnp.float32``: accepted wherever a dtype is (it has
    ``.dtype``, which NumPy reads) and callable, as in JAX: ``jnp.float32(x)`` is ``x``
    (traced or not) as an Array of that dtype."""

    def __init__(self, np_type):
        self.type, self.dtype = np_type, np.dtype(np_type)
        self.__name__ = self.dtype.name

    def __call__(self, x):
        return asarray(x, self.dtype)

    def __repr__(self):
        return f"<class 'minijax.numpy.{self.dtype.name}'>"


(float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32,
 uint64, bool_) = (_ScalarType(t) for t in (
    np.float16, dtypes.bfloat16.type, np.float32, np.float64, np.int8, np.int16, np.int32,
    np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_))
float_, int_ = float64, int64  # x64, as minijax always is
dtype, finfo, iinfo, issubdtype = np.dtype, np.finfo, np.iinfo, np.issubdtype
generic, number, inexact, floating, integer, signedinteger, unsignedinteger = (
    np.generic, np.number, np.inexact, np.floating, np.integer, np.signedinteger,
    np.unsignedinteger)
pi, e, inf, nan, euler_gamma = np.pi, np.e, np.inf, np.nan, np.euler_gamma
newaxis = None
ndarray = Array

# ----------------------------------------------------------------------------- type promotion

#: The float type an integer or bool becomes in true division and float-only functions (JAX's).
_TO_FLOAT = {**dict.fromkeys([dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32,
                              dtypes.uint8, dtypes.uint16, dtypes.uint32], dtypes.float32),
             dtypes.int64: dtypes.float64, dtypes.uint64: dtypes.float64}


def result_type(*args):
    """The dtype ``args`` promote to, by JAX's type-promotion lattice (``dtypes.promote``;
    the table is in docs/semantics.md). Weakly typed values (Python scalars) count only
    when they are of a higher kind (bool < int < float) than every strongly typed one."""
    avals = [core.get_aval(a) for a in args]
    return dtypes.promote(*((a.dtype, a.weak_type) for a in avals))[0]


def _cast(x, dtype, weak_type=False):
    """``x`` as ``dtype``; a weakly typed result (every operand was weak) stays weak."""
    aval = core.get_aval(x)
    if aval.dtype == dtype:
        return x
    if type(x) in dtypes.PYTHON_SCALARS:
        return scalar(x, dtype, weak_type)
    return lax.convert_element_type(x, dtype, weak_type=weak_type)


def _promote(*args):
    dtype, weak_type = dtypes.promote(*((a.dtype, a.weak_type) for a in map(core.get_aval, args)))
    return [_cast(x, dtype, weak_type) for x in args]


def _to_float(x):
    dtype = core.get_aval(x).dtype
    return x if dtypes.is_float(dtype) else lax.convert_element_type(x, _TO_FLOAT[dtype])


def _is_float(x):
    return dtypes.is_float(core.get_aval(x).dtype)


def _is_bool(x):
    return core.get_aval(x).dtype == dtypes.bool_


# ----------------------------------------------------------------------------- broadcasting

def _shape_str(shape):
    return f'({", ".join(map(str, shape))}{"," if len(shape) == 1 else ""})'


def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes``; a ValueError names the shapes that do not fit."""
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            raise ValueError('shapes ' + ' and '.join(_shape_str(s) for s in shapes)
                             + ' cannot be broadcast together')
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` by NumPy's rules (new axes on the left, size 1 grows)."""
    shape = tuple(int(d) for d in shape)
    x_shape = np.shape(x)
    if len(x_shape) > len(shape) or broadcast_shapes(x_shape, shape) != shape:
        raise ValueError(f'cannot broadcast an array of shape {_shape_str(x_shape)} to shape '
                         f'{_shape_str(shape)}')
    if x_shape == shape:
        return x
    lead = len(shape) - len(x_shape)
    return lax.broadcast_in_dim(x, shape, range(lead, len(shape)))


def broadcast_arrays(*args):
    return [broadcast_to(a, broadcast_shapes(*map(np.shape, args))) for a in args]


def _broadcast(*args, scalars_too=False):
    """Broadcast ``args`` to one shape; rank-0 operands stay scalars (lax ops take them)
    unless ``scalars_too``."""
    shape = broadcast_shapes(*(np.shape(a) for a in args))
    return [a if np.ndim(a) == 0 and not scalars_too else broadcast_to(a, shape) for a in args]


# ----------------------------------------------------------------------------- elementwise

def _binary(lax_fn, name, doc, to_float=False):
    def fn(x, y, /):
        x, y = _broadcast(*_promote(x, y))
        if to_float:
            x, y = _to_float(x), _to_float(y)
        return lax_fn(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


add = _binary(lax.add, 'add', 'x + y, broadcast and promoted.')
subtract = _binary(lax.sub, 'subtract', 'x - y, broadcast and promoted.')
multiply = _binary(lax.mul, 'multiply', 'x * y, broadcast and promoted.')
true_divide = divide = _binary(lax.div, 'true_divide', 'x / y (float, even for integers).',
                               to_float=True)
maximum = _binary(lax.max, 'maximum', 'Elementwise maximum, broadcast and promoted.')
minimum = _binary(lax.min, 'minimum', 'Elementwise minimum, broadcast and promoted.')
equal = _binary(lax.eq, 'equal', 'x == y.')
not_equal = _binary(lax.ne, 'not_equal', 'x != y.')
greater = _binary(lax.greater, 'greater', 'x > y.')
greater_equal = _binary(lax.ge, 'greater_equal', 'x >= y.')
less = _binary(lax.less, 'less', 'x < y.')
less_equal = _binary(lax.le, 'less_equal', 'x <= y.')
_power = _binary(lax.pow, 'power', 'x ** y.')
bitwise_and = _binary(lax.bitwise_and, 'bitwise_and', 'x & y (logical and for booleans).')
bitwise_or = _binary(lax.bitwise_or, 'bitwise_or', 'x | y (logical or for booleans).')
bitwise_xor = _binary(lax.bitwise_xor, 'bitwise_xor', 'x ^ y (logical xor for booleans).')
left_shift = _binary(lax.shift_left, 'left_shift', 'x << y (0 once y reaches the bit width).')


def power(x, y, /):
    """``x ** y``; a Python int exponent becomes ``integer_pow`` (multiplications), as in JAX."""
    if type(y) is int and not isinstance(x, (int, float)):
        return lax.integer_pow(x, y)
    return _power(x, y)


def right_shift(x, y, /):
    """``x >> y``: arithmetic (copies of the sign bit come in) for signed integers, logical
    (zeros come in) for unsigned ones, as in NumPy."""
    x, y = _broadcast(*_promote(x, y))
    if dtypes.kind(core.get_aval(x).dtype) == 'u':
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


def bitwise_count(x, /):
    """The number of set bits of each element of an integer array (of ``|x|`` for signed
    integers, as NumPy counts)."""
    counts = lax.population_count(abs(x) if dtypes.kind(core.get_aval(x).dtype) == 'i' else x)
    return lax.convert_element_type(counts, dtypes.uint8)


def _as_bool(x):
    return x if _is_bool(x) else not_equal(x, 0)


def logical_and(x, y, /):
    return bitwise_and(_as_bool(x), _as_bool(y))


def logical_or(x, y, /):
    return bitwise_or(_as_bool(x), _as_bool(y))


def logical_xor(x, y, /):
    return bitwise_xor(_as_bool(x), _as_bool(y))


def logical_not(x, /):
    return lax.eq(_as_bool(x), False)


def invert(x, /):
    """``~x``: logical not of booleans, every bit flipped for integers."""
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def floor_divide(x, y, /):
    """``x // y``, rounding towards minus infinity, as JAX defines it. Unsigned integers:
    ``lax.div``. Signed integers: ``lax.div`` (which truncates) one lower where the signs
    differ and the division is not exact. Floats: Python's ``float_divmod``, the quotient
    ``(x - fmod(x, y)) / y`` one lower where the remainder has the wrong sign, then rounded
    (exact where ``floor(x / y)`` is not: ``1. // .1`` is 9)."""
    x, y = _broadcast(*_promote(x, y))
    kind = dtypes.kind(core.get_aval(x).dtype)
    if kind == 'u':
        return lax.div(x, y)
    if kind == 'i':
        q = lax.div(x, y)
        inexact_and_negative = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)),
                                               lax.ne(lax.rem(x, y), 0))
        return lax.select_n(inexact_and_negative, q, lax.sub(q, 1))
    return _float_divmod(x, y)[0]


def _wrong_sign(r, y):
    """Where a C remainder ``r`` (the sign of the dividend) must move by one divisor ``y``
    to become Python's (the sign of the divisor)."""
    return lax.bitwise_and(lax.ne(lax.less(r, 0), lax.less(y, 0)), lax.ne(r, 0))


def _float_divmod(x, y):
    """``(x // y, x % y)`` for floats, as CPython's ``float_divmod`` computes them."""
    r = lax.rem(x, y)
    exact = lax.select_n(lax.eq(y, 0), lax.sub(x, r), x)
    q = lax.div(exact, y)
    moves = _wrong_sign(r, y)
    return (_rint(lax.select_n(moves, q, lax.sub(q, 1.))),
            lax.select_n(moves, r, lax.add(r, y)))


def _nonzero_divisor(y):
    """An integer divisor with 1 for 0: JAX's ``x % 0`` and ``fmod(x, 0)`` are 0."""
    if not dtypes.is_integer(core.get_aval(y).dtype):
        return y
    return lax.select_n(lax.eq(y, 0), y, lax.full_like(y, 1))


def fmod(x, y, /):
    """The C remainder of ``x / y``, with the sign of ``x`` (``lax.rem``); 0 for ``x``
    an integer and ``y`` zero, as in JAX."""
    x, y = _broadcast(*_promote(x, y))
    return lax.rem(x, _nonzero_divisor(y))


def remainder(x, y, /):
    """``x % y``, with the sign of ``y`` (NumPy's ``mod``): ``lax.rem`` moved by one ``y``
    where its sign is wrong. For integers ``x % 0`` is 0, as in JAX."""
    x, y = _broadcast(*_promote(x, y))
    y = _nonzero_divisor(y)
    r = lax.rem(x, y)
    return lax.select_n(_wrong_sign(r, y), r, lax.add(r, y))


def divmod(x, y, /):  # noqa: A001 (jnp.divmod, as in JAX)
    """``(x // y, x % y)``."""
    return floor_divide(x, y), remainder(x, y)


mod = remainder


def _with_sign_of_zero(out, x):
    """``out``, but where it is zero, the zero ``x * 0.`` (carrying ``x``'s sign): rounding
    through integers loses the sign of ``-0.3 -> -0.``."""
    return lax.select_n(lax.eq(out, 0.), out, lax.mul(x, 0.))


def _trunc(x):
    """Round towards zero through an int64 round trip. Floats at or above 2**(mantissa bits),
    infinities and NaN are already integral (or not numbers) and pass through unchanged."""
    if not _is_float(x):
        return x
    dtype = core.get_aval(x).dtype
    integral_above = float(2 ** np.finfo(dtype).nmant)
    rounded = lax.convert_element_type(lax.convert_element_type(x, dtypes.int64), dtype)
    small = lax.less(lax.abs(x), integral_above)  # False for NaN and infinities
    return lax.select_n(small, x, _with_sign_of_zero(rounded, x))


def _floor(x):
    """Elementwise floor: the truncation, one lower where that rounded a negative up."""
    if not _is_float(x):
        return x
    t = _trunc(x)
    return lax.sub(t, lax.convert_element_type(lax.greater(t, x), core.get_aval(x).dtype))


def _ceil(x):
    """Elementwise ceiling, ``-floor(-x)``."""
    return x if not _is_float(x) else lax.neg(_floor(lax.neg(x)))


def _rint(x):
    """Round to the nearest integer, halves to even (as ``jnp.round``): the floor, one up
    where the fraction is above one half, or exactly one half and the floor is odd."""
    if not _is_float(x):
        return x
    f = _floor(x)
    fraction = lax.sub(x, f)
    odd = lax.ne(lax.sub(f, lax.mul(_floor(lax.mul(f, .5)), 2.)), 0.)
    up = lax.max(lax.greater(fraction, .5), lax.min(lax.eq(fraction, .5), odd))
    out = lax.add(f, lax.convert_element_type(up, core.get_aval(x).dtype))
    return _with_sign_of_zero(out, x)


def _safe_where(unsafe, x, replacement):
    """``x`` with ``replacement`` where ``unsafe``: the branch of a ``where`` that is not
    taken must still be finite, or its zero cotangent times an infinite derivative is NaN."""
    return lax.select_n(unsafe, x, lax.full_like(x, replacement))


def _expm1(x):
    """``exp(x) - 1`` accurate for tiny ``x`` (Kahan): ``(u - 1) * x / log(u)`` with
    ``u = exp(x)``; where ``u`` rounds to 1, ``x``; where ``u - 1`` is -1 or inf, that."""
    u = lax.exp(x)
    um1 = lax.sub(u, 1.)
    near_one = lax.eq(u, 1.)
    saturated = lax.max(lax.eq(um1, -1.), lax.eq(u, np.inf))
    safe_u = _safe_where(lax.max(near_one, saturated), u, 2.)
    kahan = lax.div(lax.mul(lax.sub(safe_u, 1.), x), lax.log(safe_u))
    return lax.select_n(near_one, lax.select_n(saturated, kahan, um1), x)


def _sinh(x):
    """``(expm1(x) - expm1(-x)) / 2``: no cancellation for small ``x``."""
    return lax.mul(lax.sub(_expm1(x), _expm1(lax.neg(x))), .5)


def _cosh(x):
    return lax.mul(lax.add(lax.exp(x), lax.exp(lax.neg(x))), .5)


def _tan(x):
    """``sin(x) / cos(x)`` (minijax has no tan primitive): within a few ulps of XLA's."""
    return lax.div(lax.sin(x), lax.cos(x))


def _isnan(x):
    return lax.ne(x, x) if _is_float(x) else lax.full(np.shape(x), False, dtypes.bool_)


def _isinf(x):
    return lax.eq(lax.abs(x), np.inf) if _is_float(x) else lax.full(np.shape(x), False, dtypes.bool_)


def _isfinite(x):
    return lax.less(lax.abs(x), np.inf) if _is_float(x) else lax.full(np.shape(x), True, dtypes.bool_)


def _unary(name, fn, to_float=True):
    """A function of one operand; ``to_float``: integer and boolean operands become floats
    first (as ``jnp.sin(1)`` is a float)."""
    def unary(x, /):
        return fn(_to_float(x) if to_float else x)
    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = fn.__doc__ or f'Elementwise {name}.'
    return unary


_LN2, _LN10 = math.log(2), math.log(10)

sin = _unary('sin', lax.sin)
cos = _unary('cos', lax.cos)
tan = _unary('tan', _tan)
exp = _unary('exp', lax.exp)
log = _unary('log', lax.log)
tanh = _unary('tanh', lax.tanh)
sqrt = _unary('sqrt', lax.sqrt)
log1p = _unary('log1p', lax.log1p)
expm1 = _unary('expm1', _expm1)
sinh = _unary('sinh', _sinh)
cosh = _unary('cosh', _cosh)
exp2 = _unary('exp2', lambda x: lax.exp(lax.mul(x, _LN2)))
log2 = _unary('log2', lambda x: lax.div(lax.log(x), _LN2))
log10 = _unary('log10', lambda x: lax.div(lax.log(x), _LN10))
deg2rad = radians = _unary('deg2rad', lambda x: lax.mul(x, np.pi / 180))
rad2deg = degrees = _unary('rad2deg', lambda x: lax.mul(x, 180 / np.pi))
abs = absolute = _unary('abs', lax.abs, to_float=False)  # noqa: A001
sign = _unary('sign', lax.sign, to_float=False)
negative = _unary('negative', lax.neg, to_float=False)
positive = _unary('positive', lambda x: x, to_float=False)
square = _unary('square', lambda x: lax.integer_pow(x, 2), to_float=False)
floor = _unary('floor', _floor, to_float=False)
ceil = _unary('ceil', _ceil, to_float=False)
trunc = _unary('trunc', _trunc, to_float=False)
rint = _unary('rint', _rint, to_float=False)
isnan = _unary('isnan', _isnan, to_float=False)
isinf = _unary('isinf', _isinf, to_float=False)
isfinite = _unary('isfinite', _isfinite, to_float=False)
conj = conjugate = real = _unary('real', lambda x: x, to_float=False)  # real dtypes only
imag = _unary('imag', lambda x: lax.full_like(x, 0), to_float=False)


def round(a, decimals=0):  # noqa: A001
    """Round to ``decimals`` places, halves to even, as ``jnp.round``: ``rint(a * 10**d) /
    10**d`` for floats; integers are returned unchanged for ``decimals >= 0``."""
    if not _is_float(a) or decimals == 0:
        return rint(a)
    factor = 10. ** decimals
    return lax.div(rint(lax.mul(a, factor)), factor)


around = round


def clip(arr, /, min=None, max=None):  # noqa: A002
    """``arr`` limited to ``[min, max]`` (either bound may be None)."""
    if min is not None:
        arr = maximum(arr, min)
    if max is not None:
        arr = minimum(arr, max)
    return arr


def where(condition, x=None, y=None, /):
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast together)."""
    if x is None or y is None:
        raise TypeError('where(condition) with one argument gives indices of data-dependent '
                        'shape, which minijax does not support: pass x and y')
    condition = _as_bool(condition)
    x, y = _promote(x, y)
    condition, x, y = _broadcast(condition, x, y, scalars_too=True)
    return lax.select_n(condition, y, x)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise; infinities are close only to
    themselves; NaNs to each other only with ``equal_nan``."""
    a, b = _broadcast(*_promote(a, b), scalars_too=True)
    if not _is_float(a):
        return equal(a, b)
    close = less_equal(abs(subtract(a, b)), add(atol, multiply(rtol, abs(b))))
    finite = logical_and(isfinite(a), isfinite(b))
    out = where(finite, close, equal(a, b))
    if equal_nan:
        out = logical_or(out, logical_and(isnan(a), isnan(b)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is close to ``b`` (see ``isclose``): a bool Array."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether ``a1`` and ``a2`` have one shape and equal elements: a bool Array."""
    if np.shape(a1) != np.shape(a2):
        return asarray(False)
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all(eq)


# ----------------------------------------------------------------------------- arrays from values

def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


def asarray(a, dtype=None):
    """``a`` as a minijax value of ``dtype``: a traced value stays traced; a (nested) list
    holding traced values is stacked into one; anything else becomes an Array."""
    if dtype is not None:
        dtype = dtypes.check_supported(dtype, 'asarray: dtype')
    if isinstance(a, (Tracer, Array)):
        return a if dtype is None else _cast(a, dtype)
    if isinstance(a, (list, tuple)):
        leaves = _leaves(a)
        if builtins.any(isinstance(x, (Tracer, Array)) for x in leaves):
            return _stack_nested(a, dtype or result_type(*leaves))
    weak_type = dtype is None and type(a) in (int, float)  # a Python scalar, as in JAX
    a = np.asarray(a, dtype)
    dtypes.check_supported(a.dtype, f'asarray of shape {a.shape}')
    return device_array(a, weak_type)


def _stack_nested(a, dtype):
    if isinstance(a, (list, tuple)):
        return stack([_stack_nested(x, dtype) for x in a])
    return _cast(a, dtype)


def array(object, dtype=None, copy=True, ndmin=0):  # noqa: A002 (NumPy's name)
    """``asarray`` (Arrays are immutable, so a copy is never needed), with at least
    ``ndmin`` axes."""
    out = asarray(object, dtype)
    return reshape(out, (1,) * (ndmin - np.ndim(out)) + np.shape(out)) if ndmin else out


def astype(x, dtype):
    return lax.convert_element_type(x, dtype)


def copy(a):
    """``a`` itself: Arrays are immutable."""
    return asarray(a)


def shape(a):
    return np.shape(a)


def ndim(a):
    return np.ndim(a)


def size(a):
    return int(np.prod(np.shape(a), dtype=np.int64))


# ----------------------------------------------------------------------------- reductions

def _axes(name, x, axis):
    return core.canonicalize_axes(axis, np.ndim(x), f'{name}: axis')


def _keep(out, axes, keepdims):
    return lax.expand_dims(out, axes) if keepdims else out


def _no_out(name, out):
    if out is not None:
        raise TypeError(f'{name}: out= is not supported (minijax arrays are immutable)')


def _sum_dtype(x, dtype):
    """The operand of a sum or product: cast to ``dtype``; booleans and int32 are summed as
    int64, as in NumPy and JAX (with x64)."""
    if dtype is not None:
        return _cast(x, dtypes.check_supported(dtype))
    if core.get_aval(x).dtype in (dtypes.bool_, dtypes.int32):
        return lax.convert_element_type(x, dtypes.int64)
    return x


def _reduce_prod(x, axes):
    """The product over ``axes``, with no product primitive: the reduced axes are flattened
    into one, which is halved (padded with a 1 to an even length) and multiplied, halves
    with halves, until one element is left: log2(n) multiplications."""
    shape = np.shape(x)
    kept = [a for a in range(len(shape)) if a not in axes]
    x = lax.transpose(x, kept + list(axes))
    n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    x = lax.reshape(x, [shape[a] for a in kept] + [n])
    last = len(kept)
    if n == 0:
        return lax.full([shape[a] for a in kept], 1, core.get_aval(x).dtype)
    while n > 1:
        if n % 2:
            config = [(0, 0, 0)] * last + [(0, 1, 0)]
            x, n = lax.pad(x, np.ones((), core.get_aval(x).dtype), config), n + 1
        x = lax.mul(lax.slice_in_dim(x, 0, n // 2, axis=last),
                    lax.slice_in_dim(x, n // 2, n, axis=last))
        n //= 2
    return lax.squeeze(x, [last])


def _any_all(reduce):
    """``any``/``all``: the maximum/minimum of the operand as booleans (or and and)."""
    return lambda x, axes: reduce(_as_bool(x), axes)


def _reduction(name, reduce, prepare=None, doc=''):
    """A NumPy reduction ``name(a, axis=None, [dtype=None,] out=None, keepdims=False)``;
    ``prepare(a, dtype)``, when given, casts the operand and adds the dtype argument."""
    def reduction(a, axis=None, out=None, keepdims=False):
        _no_out(name, out)
        axes = _axes(name, a, axis)
        return _keep(reduce(a, axes), axes, keepdims)

    def typed_reduction(a, axis=None, dtype=None, out=None, keepdims=False):
        _no_out(name, out)
        axes = _axes(name, a, axis)
        return _keep(reduce(prepare(a, dtype), axes), axes, keepdims)

    fn = reduction if prepare is None else typed_reduction
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


sum = _reduction('sum', lax.reduce_sum, _sum_dtype,  # noqa: A001
                 'Sum over ``axis`` (all axes if None).')
prod = _reduction('prod', _reduce_prod, _sum_dtype, 'Product over ``axis`` (all if None).')
max = amax = _reduction('max', lax.reduce_max, doc='Maximum over ``axis``.')  # noqa: A001
min = amin = _reduction('min', lax.reduce_min, doc='Minimum over ``axis``.')  # noqa: A001
any = _reduction('any', _any_all(lax.reduce_max), doc='Whether any element is nonzero.')  # noqa: A001
all = _reduction('all', _any_all(lax.reduce_min), doc='Whether all elements are nonzero.')  # noqa: A001


def _count(x, axes):
    return int(np.prod([np.shape(x)[a] for a in axes], dtype=np.int64))


def _divide_by_count(x, n):
    """``x / n`` for a static count ``n``, as XLA computes it: its simplifier turns a division
    by a constant into a product with the constant's reciprocal (rounded to ``x``'s dtype),
    which is what JAX's jitted ``jnp.mean`` returns, eagerly too."""
    dtype = core.get_aval(x).dtype
    with np.errstate(divide='ignore'):
        return lax.mul(x, np.divide(np.ones((), dtype), np.asarray(n, dtype)))


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """The mean over ``axis``; integers and booleans average as floats."""
    _no_out('mean', out)
    axes = _axes('mean', a, axis)
    a = _to_float(a) if dtype is None else _cast(a, dtypes.check_supported(dtype))
    return _keep(_divide_by_count(lax.reduce_sum(a, axes), _count(a, axes)), axes, keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance over ``axis``: the mean squared deviation from the mean, divided by
    ``n - ddof`` instead of ``n``."""
    _no_out('var', out)
    axes = _axes('var', a, axis)
    a = _to_float(a) if dtype is None else _cast(a, dtypes.check_supported(dtype))
    centered = subtract(a, mean(a, axes, keepdims=True))
    squares = lax.reduce_sum(lax.mul(centered, centered), axes)
    return _keep(_divide_by_count(squares, _count(a, axes) - ddof), axes, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The standard deviation over ``axis``: ``sqrt(var(...))``."""
    return sqrt(var(a, axis, dtype, out, ddof, keepdims))


def count_nonzero(a, axis=None, keepdims=False):
    return sum(not_equal(a, 0), axis, keepdims=keepdims)


def _arg_reduce(lax_fn, x, axis, keepdims):
    if axis is None:
        out = lax_fn(reshape(x, (-1,)), 0, dtypes.int64)
        return reshape(out, (1,) * np.ndim(x)) if keepdims else out
    axis = core.canonicalize_axis(axis, np.ndim(x), f'{lax_fn.__name__}: axis')
    return _keep(lax_fn(x, axis, dtypes.int64), (axis,), keepdims)


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the first maximum along ``axis`` (of the flattened array if ``None``)."""
    _no_out('argmax', out)
    return _arg_reduce(lax.argmax, a, axis, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the first minimum along ``axis`` (of the flattened array if ``None``)."""
    _no_out('argmin', out)
    return _arg_reduce(lax.argmin, a, axis, keepdims)


def _cumulative(name, lax_cumulative):
    def cumulative(a, axis=None, dtype=None, out=None):
        _no_out(name, out)
        if axis is None:
            a, axis = ravel(a), 0
        axis = core.canonicalize_axis(axis, np.ndim(a), f'{name}: axis')
        if dtype is not None:
            a = _cast(a, dtypes.check_supported(dtype))
        elif _is_bool(a):
            a = lax.convert_element_type(a, dtypes.int64)
        return lax_cumulative(a, axis)
    cumulative.__name__ = cumulative.__qualname__ = name
    cumulative.__doc__ = f'The running {name[3:]} along ``axis`` (of the flattened array if None).'
    return cumulative


cumsum = _cumulative('cumsum', lax.cumsum)
cumprod = _cumulative('cumprod', lax.cumprod)


def _sort_axis(name, a, axis, kind, order):
    """``(a, axis)`` to sort along: the flattened array when ``axis`` is None."""
    if kind is not None or order is not None:
        raise TypeError(f'{name}: kind and order are not supported (use stable=True or False)')
    if axis is None:
        return ravel(a), 0
    return a, core.canonicalize_axis(axis, np.ndim(a), f'{name}: axis')


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``a`` sorted along ``axis`` (NaNs last; the flattened array if None); ``descending``
    reverses the ascending result, as jnp.sort does."""
    a, axis = _sort_axis('sort', a, axis, kind, order)
    result = lax.sort(a, axis, is_stable=stable)
    return flip(result, axis) if descending else result


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """The indices that sort ``a`` along ``axis``. A stable descending sort sorts the
    reversed array and reverses the result, so that equal elements keep their order."""
    a, axis = _sort_axis('argsort', a, axis, kind, order)
    indices = lax.iota(dtypes.int64, np.shape(a), axis)
    if descending and stable:
        a, indices = flip(a, axis), flip(indices, axis)
    _, indices = lax.sort_key_val(a, indices, axis, is_stable=stable)
    return flip(indices, axis) if descending else indices


# ----------------------------------------------------------------------------- linear algebra

def _not_aligned(name, a_shape, b_shape, detail):
    """The TypeError JAX raises for operands whose contracted sizes differ."""
    return TypeError(f'{name}: shapes {_shape_str(a_shape)} and {_shape_str(b_shape)} are not '
                     f'aligned ({detail})')


def matmul(a, b, /):
    """NumPy's ``a @ b``: 1-D operands gain (and lose) a unit axis; leading axes broadcast and
    become batch axes of ``dot_general``."""
    a, b = _promote(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not a_shape or not b_shape:
        raise TypeError('matmul needs operands of rank 1 or more, got shapes '
                        f'{_shape_str(a_shape)} and {_shape_str(b_shape)}')
    a2 = expand_dims(a, 0) if len(a_shape) == 1 else a
    b2 = expand_dims(b, 1) if len(b_shape) == 1 else b
    if np.shape(a2)[-1] != np.shape(b2)[-2]:
        raise _not_aligned('matmul', a_shape, b_shape, 'the last axis of the first must match '
                           'the second to last of the second')
    batch = broadcast_shapes(np.shape(a2)[:-2], np.shape(b2)[:-2])
    a2 = broadcast_to(a2, batch + np.shape(a2)[-2:])
    b2 = broadcast_to(b2, batch + np.shape(b2)[-2:])
    n = len(batch)
    out = lax.dot_general(a2, b2, (((n + 1,), (n,)), (tuple(range(n)), tuple(range(n)))))
    drop = [ax for ax, one_d in [(-2, len(a_shape) == 1), (-1, len(b_shape) == 1)] if one_d]
    return lax.squeeze(out, drop) if drop else out


def dot(a, b):
    """NumPy's ``dot``: a product with a scalar, an inner product of vectors, or a contraction
    of the last axis of ``a`` with the second to last of ``b`` (the last if ``b`` is 1-D)."""
    a, b = _promote(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not a_shape or not b_shape:
        return multiply(a, b)
    b_axis = 0 if len(b_shape) == 1 else len(b_shape) - 2
    if a_shape[-1] != b_shape[b_axis]:
        raise _not_aligned('dot', a_shape, b_shape, f'axis {len(a_shape) - 1} of the first '
                           f'has size {a_shape[-1]}, axis {b_axis} of the second {b_shape[b_axis]}')
    return lax.dot_general(a, b, (((len(a_shape) - 1,), (b_axis,)), ((), ())))


def tensordot(a, b, axes=2):
    """The contraction of ``axes`` of ``a`` with those of ``b`` (an int N: the last N of
    ``a`` with the first N of ``b``); the free axes of ``a`` come first, then ``b``'s."""
    a, b = _promote(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if isinstance(axes, (int, np.integer)):
        a_axes, b_axes = range(len(a_shape) - axes, len(a_shape)), range(axes)
    else:
        a_axes, b_axes = ((x,) if isinstance(x, (int, np.integer)) else x for x in axes)
    a_axes = [core.canonicalize_axis(x, len(a_shape), 'tensordot: axis of a') for x in a_axes]
    b_axes = [core.canonicalize_axis(x, len(b_shape), 'tensordot: axis of b') for x in b_axes]
    if [a_shape[x] for x in a_axes] != [b_shape[x] for x in b_axes]:
        raise _not_aligned('tensordot', a_shape, b_shape, f'axes {a_axes} and {b_axes}')
    return lax.dot_general(a, b, ((tuple(a_axes), tuple(b_axes)), ((), ())))


def inner(a, b, /):
    """The sum over the last axes of ``a`` and ``b`` (a product with a scalar)."""
    if not np.ndim(a) or not np.ndim(b):
        return multiply(a, b)
    return tensordot(a, b, ((-1,), (-1,)))


def vdot(a, b, /):
    """The dot product of ``a`` and ``b`` flattened."""
    return dot(ravel(a), ravel(b))


vecdot = inner


def outer(a, b):
    """``a[i] * b[j]`` of ``a`` and ``b`` flattened."""
    return multiply(expand_dims(ravel(a), 1), expand_dims(ravel(b), 0))


def _einsum_parse(subscripts, ndims):
    """Input and output letters, one per axis; an ellipsis becomes letters not otherwise
    used (its axes aligned from the right); no ``->`` means the letters used once, sorted."""
    subscripts = subscripts.replace(' ', '')
    inputs, arrow, output = subscripts.partition('->')
    inputs = inputs.split(',')
    if len(inputs) != len(ndims):
        raise ValueError(f'einsum: {len(inputs)} operands in {subscripts!r}, got {len(ndims)}')
    spare = [c for c in 'ZYXWVUTSRQPONMLKJIHGFEDCBA' if c not in subscripts]
    ellipsis_ndim = builtins.max((n - len(s.replace('...', '')) for s, n in zip(inputs, ndims)
                                  if '...' in s), default=0)
    ellipsis = ''.join(spare[:ellipsis_ndim])
    inputs = [s.replace('...', ellipsis[ellipsis_ndim - (n - len(s) + 3):] if '...' in s else '')
              for s, n in zip(inputs, ndims)]
    if not arrow:
        letters = ''.join(inputs)
        output = ellipsis + ''.join(sorted(c for c in set(letters) - set(ellipsis)
                                           if letters.count(c) == 1))
    output = output.replace('...', ellipsis)
    for s, n in zip(inputs, ndims):
        if len(s) != n:
            raise ValueError(f'einsum: subscripts {s!r} do not fit an operand of rank {n}')
    return inputs, output


def _einsum_reduce(x, letters, keep):
    """``x`` with repeated letters turned into diagonals and letters not in ``keep``
    summed away."""
    for c in set(letters):
        while letters.count(c) > 1:
            i = letters.index(c)
            j = letters.index(c, i + 1)
            x = diagonal(x, 0, i, j)
            letters = letters[:i] + letters[i + 1:j] + letters[j + 1:] + c
    gone = [i for i, c in enumerate(letters) if c not in keep]
    if gone:
        x = lax.reduce_sum(x, gone)
        letters = ''.join(c for c in letters if c in keep)
    return x, letters


def _einsum_pair(x, xl, y, yl, keep):
    """Contract ``x`` and ``y`` with one dot_general: shared letters in ``keep`` are batch
    axes, other shared letters are summed."""
    shared = [c for c in xl if c in yl]
    for c in shared:
        if np.shape(x)[xl.index(c)] != np.shape(y)[yl.index(c)]:
            raise ValueError(f'einsum: index {c!r} has size {np.shape(x)[xl.index(c)]} in one '
                             f'operand and {np.shape(y)[yl.index(c)]} in another')
    batch = [c for c in shared if c in keep]
    contract = [c for c in shared if c not in keep]
    numbers = ((tuple(xl.index(c) for c in contract), tuple(yl.index(c) for c in contract)),
               (tuple(xl.index(c) for c in batch), tuple(yl.index(c) for c in batch)))
    out = lax.dot_general(x, y, numbers)
    return out, ''.join(batch) + ''.join(c for c in xl if c not in shared) + ''.join(
        c for c in yl if c not in shared)


def einsum(subscripts, *operands):
    """Einstein summation, contracting the operands left to right with ``dot_general``
    (repeated letters within one operand take diagonals; ``...`` is supported, without
    broadcasting of size-1 axes)."""
    operands = _promote(*operands)
    inputs, output = _einsum_parse(subscripts, [np.ndim(x) for x in operands])
    x, xl = operands[0], inputs[0]
    for k in range(1, len(operands)):
        later = output + ''.join(inputs[k + 1:])
        x, xl = _einsum_reduce(x, xl, later + inputs[k])
        y, yl = _einsum_reduce(operands[k], inputs[k], later + xl)
        x, xl = _einsum_pair(x, xl, y, yl, later)
    x, xl = _einsum_reduce(x, xl, output)
    return lax.transpose(x, [xl.index(c) for c in output])


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``a[..., i, i + offset]`` of the axes ``axis1`` and ``axis2``, as a new
    last axis: the two axes are moved last, cut to the square the diagonal crosses, and
    flattened, so the diagonal is every (n + 1)-th element (a strided slice)."""
    ndim = np.ndim(a)
    axis1 = core.canonicalize_axis(axis1, ndim, 'diagonal: axis1')
    axis2 = core.canonicalize_axis(axis2, ndim, 'diagonal: axis2')
    if axis1 == axis2:
        raise ValueError(f'diagonal: axis1 and axis2 are both {axis1}')
    rest = [i for i in range(ndim) if i not in (axis1, axis2)]
    a = lax.transpose(a, rest + [axis1, axis2])
    rows, cols = np.shape(a)[-2:]
    n = builtins.max(0, builtins.min(rows + builtins.min(offset, 0), cols - builtins.max(offset, 0)))
    row0, col0 = builtins.max(-offset, 0), builtins.max(offset, 0)
    lead = list(np.shape(a)[:-2])
    a = lax.slice(a, [0] * len(lead) + [row0, col0], lead + [row0 + n, col0 + n])
    flat = lax.reshape(a, lead + [n * n])
    return lax.slice_in_dim(flat, 0, n * n, n + 1, axis=len(lead)) if n else flat


def trace(a, offset=0, axis1=0, axis2=1):
    """The sum of the diagonal."""
    return sum(diagonal(a, offset, axis1, axis2), -1)


def _tri_mask(n, m, k, lower):
    """The (n, m) boolean mask of ``j - i <= k`` (``lower``) or ``j - i >= k``."""
    rows = lax.iota(dtypes.int64, (n, m), 0)
    cols = lax.iota(dtypes.int64, (n, m), 1)
    diff = lax.sub(cols, rows)
    return lax.le(diff, k) if lower else lax.ge(diff, k)


def tril(m, k=0):
    """``m`` (its last two axes) with the elements above the ``k``-th diagonal zeroed."""
    mask = _tri_mask(*np.shape(m)[-2:], k, lower=True)
    return where(mask, m, lax.full((), 0, core.get_aval(m).dtype))


def triu(m, k=0):
    """``m`` (its last two axes) with the elements below the ``k``-th diagonal zeroed."""
    mask = _tri_mask(*np.shape(m)[-2:], k, lower=False)
    return where(mask, m, lax.full((), 0, core.get_aval(m).dtype))


def eye(N, M=None, k=0, dtype=None):
    """The (N, M) matrix with ones on the ``k``-th diagonal."""
    mask = lax.eq(lax.sub(lax.iota(dtypes.int64, (N, M or N), 1),
                          lax.iota(dtypes.int64, (N, M or N), 0)), k)
    return lax.convert_element_type(mask, dtypes.check_supported(dtype or float64))


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """The (N, M) matrix of ones at and below the ``k``-th diagonal."""
    return lax.convert_element_type(_tri_mask(N, M or N, k, lower=True),
                                    dtypes.check_supported(dtype or float64))


def diag(v, k=0):
    """The ``k``-th diagonal of a matrix ``v``, or the matrix with the vector ``v`` on its
    ``k``-th diagonal (``v`` broadcast along the other axis, kept on the diagonal only)."""
    if np.ndim(v) == 2:
        return diagonal(v, k)
    if np.ndim(v) != 1:
        raise ValueError(f'diag needs a 1-D or 2-D array, got shape {_shape_str(np.shape(v))}')
    n = np.shape(v)[0] + builtins.abs(k)
    along_rows = lax.pad(v, np.zeros((), core.get_aval(v).dtype), [(0, builtins.abs(k), 0)])
    full_v = lax.broadcast_in_dim(along_rows, (n, n), (0 if k >= 0 else 1,))
    mask = lax.eq(lax.sub(lax.iota(dtypes.int64, (n, n), 1), lax.iota(dtypes.int64, (n, n), 0)), k)
    return where(mask, full_v, lax.full((), 0, core.get_aval(v).dtype))


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """The vector norm (``axis`` an int, or None for a 1-D ``x``) or matrix norm (two
    axes, or None for a 2-D ``x``) of ``ord``, as ``jnp.linalg.norm``. The matrix 2-norm
    and nuclear norm need singular values, which minijax does not compute."""
    x = _to_float(x)
    if axis is None and ord is None:
        return _keep_all(sqrt(sum(lax.mul(x, x))), np.ndim(x), keepdims)
    axes = _axes('norm', x, axis)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f'norm: axis {axis} must name one or two axes')


def _keep_all(out, ndim, keepdims):
    return reshape(out, (1,) * ndim) if keepdims else out


def _vector_norm(x, ord, axes, keepdims):  # noqa: A002
    absx = abs(x)
    if ord is None or ord == 2:
        return sqrt(sum(lax.mul(x, x), axes, keepdims=keepdims))
    if ord == np.inf:
        return max(absx, axes, keepdims=keepdims)
    if ord == -np.inf:
        return min(absx, axes, keepdims=keepdims)
    if ord == 0:
        return sum(lax.convert_element_type(not_equal(x, 0), core.get_aval(x).dtype), axes,
                   keepdims=keepdims)
    if ord == 1:
        return sum(absx, axes, keepdims=keepdims)
    return power(sum(power(absx, float(ord)), axes, keepdims=keepdims), 1. / ord)


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    row, col = axes
    if ord in (None, 'fro'):
        return sqrt(sum(lax.mul(x, x), axes, keepdims=keepdims))
    chooser = {1: (max, row, col), -1: (min, row, col), np.inf: (max, col, row),
               -np.inf: (min, col, row)}.get(ord)
    if chooser is None:
        raise NotImplementedError(f'norm: the matrix norm ord={ord!r} needs singular values, '
                                  "which minijax does not compute (it has 'fro', 1, -1, inf, "
                                  '-inf)')
    choose, summed, chosen = chooser
    sums = sum(abs(x), summed, keepdims=True)
    out = choose(sums, chosen, keepdims=True)
    return out if keepdims else lax.squeeze(out, axes)


# ----------------------------------------------------------------------------- shapes

def reshape(a, shape=None, order='C', **kwargs):
    """``a`` with a new shape; one entry may be -1 (inferred). (JAX's old ``newshape=``
    keyword is accepted.)"""
    shape = kwargs.pop('newshape', shape)
    if kwargs or order != 'C':
        raise TypeError(f'reshape: unsupported arguments {sorted(kwargs) or ["order"]}')
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    size_ = size(a)
    if shape.count(-1) == 1:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known and size_ % known == 0:
            shape = tuple(size_ // known if d == -1 else d for d in shape)
    if shape.count(-1) or int(np.prod(shape, dtype=np.int64)) != size_:
        raise ValueError(f'cannot reshape an array of shape {_shape_str(np.shape(a))} into '
                         f'shape {_shape_str(shape)}')
    return a if shape == np.shape(a) else lax.reshape(a, shape)


def ravel(a):
    return reshape(a, (-1,))


def transpose(a, axes=None):
    """Permute the axes (reverse them if ``axes`` is None)."""
    ndim_ = np.ndim(a)
    if axes is None:
        return lax.transpose(a, tuple(reversed(range(ndim_))))
    perm = [core.canonicalize_axis(x, ndim_, 'transpose: axis') for x in axes]
    if sorted(perm) != list(range(ndim_)):
        raise ValueError(f'transpose: axes {tuple(axes)} are not a permutation of the '
                         f'{ndim_} axes of the array')
    return lax.transpose(a, perm)


def swapaxes(a, axis1, axis2):
    ndim_ = np.ndim(a)
    axis1 = core.canonicalize_axis(axis1, ndim_, 'swapaxes: axis1')
    axis2 = core.canonicalize_axis(axis2, ndim_, 'swapaxes: axis2')
    perm = list(range(ndim_))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to positions ``destination``."""
    ndim_ = np.ndim(a)
    source = _axis_list('moveaxis: source', source, ndim_)
    destination = _axis_list('moveaxis: destination', destination, ndim_)
    if len(source) != len(destination):
        raise ValueError('moveaxis: source and destination need the same number of axes')
    perm = [i for i in range(ndim_) if i not in source]
    for dst, src in sorted(zip(destination, source)):
        perm.insert(dst, src)
    return lax.transpose(a, perm)


def _axis_list(what, axes, ndim_):
    axes = axes if np.iterable(axes) else (axes,)
    return [core.canonicalize_axis(x, ndim_, what) for x in axes]


def expand_dims(a, axis):
    return lax.expand_dims(a, axis)


def squeeze(a, axis=None):
    shape_ = np.shape(a)
    if axis is None:
        return lax.squeeze(a, [i for i, d in enumerate(shape_) if d == 1])
    return lax.squeeze(a, _axes('squeeze', a, axis))


def atleast_1d(*arys):
    out = [reshape(a, (1,)) if np.ndim(a) == 0 else asarray(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = [reshape(a, (1,) * (2 - np.ndim(a)) + np.shape(a)) if np.ndim(a) < 2 else asarray(a)
           for a in arys]
    return out[0] if len(out) == 1 else out


def concatenate(arrays, axis=0):
    """``arrays`` (promoted to one dtype) joined along ``axis`` (flattened first if None)."""
    arrays = _nonempty('concatenate', arrays)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    arrays = _promote(*(asarray(a) for a in arrays))
    ndim_ = np.ndim(arrays[0])
    axis = core.canonicalize_axis(axis, ndim_, 'concatenate: axis')
    shapes = [np.shape(a) for a in arrays]
    if builtins.any(len(s) != ndim_ or s[:axis] + s[axis + 1:] != shapes[0][:axis]
                    + shapes[0][axis + 1:] for s in shapes):
        raise ValueError(f'concatenate along axis {axis}: shapes '
                         f'{" and ".join(map(_shape_str, shapes))} do not fit')
    return lax.concatenate(arrays, axis)


def stack(arrays, axis=0):
    """``arrays`` (of one shape) joined along a new axis ``axis``."""
    arrays = _nonempty('stack', arrays)
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError('stack needs arrays of one shape, got shapes '
                         f'{" and ".join(map(_shape_str, sorted(shapes)))}')
    axis = core.canonicalize_axis(axis, len(shapes.pop()) + 1, 'stack: axis')
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def vstack(tup):
    """Arrays joined along the first axis (1-D ones as rows)."""
    return concatenate([atleast_2d(a) for a in _nonempty('vstack', tup)], 0)


row_stack = vstack


def hstack(tup):
    """Arrays joined along the second axis (the first for 1-D ones)."""
    arrays = [atleast_1d(a) for a in _nonempty('hstack', tup)]
    return concatenate(arrays, 0 if np.ndim(arrays[0]) == 1 else 1)


def column_stack(tup):
    """1-D arrays as columns (and 2-D ones as they are) joined along the second axis."""
    return concatenate([reshape(a, (-1, 1)) if np.ndim(a) < 2 else a
                        for a in _nonempty('column_stack', tup)], 1)


def _nonempty(name, arrays):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f'{name} needs at least one array, got an empty sequence')
    return arrays


def split(ary, indices_or_sections, axis=0):
    """``ary`` cut along ``axis`` into equal sections, or at the given indices."""
    n = np.shape(ary)[core.canonicalize_axis(axis, np.ndim(ary), 'split: axis')]
    if isinstance(indices_or_sections, (int, np.integer)):
        if n % indices_or_sections:
            raise ValueError(f'split: an axis of size {n} does not divide into '
                             f'{indices_or_sections} equal sections')
        step = n // indices_or_sections
        cuts = list(range(step, n, step))[:indices_or_sections - 1]
    else:
        cuts = [int(i) for i in indices_or_sections]
    bounds = [0] + [builtins.min(builtins.max(c % n if c < 0 else c, 0), n) for c in cuts] + [n]
    return [lax.slice_in_dim(ary, lo, builtins.max(lo, hi), axis=axis)
            for lo, hi in zip(bounds, bounds[1:])]


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis: broadcast to (r0, n0, r1, n1, ...) and
    reshaped."""
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    ndim_ = builtins.max(np.ndim(A), len(reps))
    A = reshape(A, (1,) * (ndim_ - np.ndim(A)) + np.shape(A))
    reps = (1,) * (ndim_ - len(reps)) + reps
    sizes = np.shape(A)
    pairs = [d for r, n in zip(reps, sizes) for d in (r, n)]
    out = lax.broadcast_in_dim(A, pairs, range(1, 2 * ndim_, 2))
    return lax.reshape(out, [r * n for r, n in zip(reps, sizes)])


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` (a static int) times along ``axis``: a
    new axis after ``axis`` is broadcast to ``repeats`` and merged into it."""
    if not isinstance(repeats, (int, np.integer)):
        raise TypeError('repeat: minijax supports a static integer number of repeats only, '
                        f'got {type(repeats).__name__}')
    if axis is None:
        a, axis = ravel(a), 0
    axis = core.canonicalize_axis(axis, np.ndim(a), 'repeat: axis')
    sizes = list(np.shape(a))
    out = lax.broadcast_in_dim(a, sizes[:axis + 1] + [repeats] + sizes[axis + 1:],
                               [i for i in range(len(sizes) + 1) if i != axis + 1])
    return lax.reshape(out, sizes[:axis] + [sizes[axis] * repeats] + sizes[axis + 1:])


def _reverse(x, axis):
    """``x`` reversed along ``axis``, with no reverse primitive: padded in front to a power
    of two m = 2**k, the axis becomes k axes of size 2, one per bit of the index; reversing
    the index flips every bit, so each size-2 axis swaps its halves. The front padding ends
    up at the back, where it is cut off."""
    shape_ = list(np.shape(x))
    n = shape_[axis]
    if n <= 1:
        return x
    k = (n - 1).bit_length()
    config = [(2 ** k - n, 0, 0) if a == axis else (0, 0, 0) for a in range(len(shape_))]
    x = lax.pad(x, np.zeros((), core.get_aval(x).dtype), config)
    x = lax.reshape(x, shape_[:axis] + [2] * k + shape_[axis + 1:])
    for bit in range(axis, axis + k):
        x = lax.concatenate([lax.slice_in_dim(x, 1, 2, axis=bit),
                             lax.slice_in_dim(x, 0, 1, axis=bit)], bit)
    x = lax.reshape(x, shape_[:axis] + [2 ** k] + shape_[axis + 1:])
    return lax.slice_in_dim(x, 0, n, axis=axis)


def flip(m, axis=None):
    """``m`` with the order of the elements along ``axis`` (all axes if None) reversed."""
    for a in _axes('flip', m, axis):
        m = _reverse(m, a)
    return m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``a`` shifted by ``shift`` (static or traced) along ``axis`` (the flattened array if
    None), wrapping around: a window of ``a`` concatenated with itself."""
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), np.shape(a))
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        raise ValueError(f'roll: {len(shifts)} shifts for {len(axes)} axes')
    for s, ax in zip(shifts, axes):
        ax = core.canonicalize_axis(ax, np.ndim(a), 'roll: axis')
        n = np.shape(a)[ax]
        if n:
            starts = [0] * np.ndim(a)
            starts[ax] = (-s) % n  # a Python int, or traced
            a = lax.dynamic_slice(lax.concatenate([a, a], ax), starts, np.shape(a))
    return a


def meshgrid(*xi, copy=True, sparse=False, indexing='xy'):
    """Coordinate arrays from the 1-D coordinate vectors ``xi`` (``'xy'``: the first two
    axes swapped, as for images; ``'ij'``: matrix indexing)."""
    if indexing not in ('xy', 'ij'):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xi = [ravel(asarray(x)) for x in xi]
    dims = list(range(len(xi)))
    if indexing == 'xy' and len(xi) >= 2:
        dims[0], dims[1] = 1, 0
    shape_ = [0] * len(xi)
    for x, d in zip(xi, dims):
        shape_[d] = np.shape(x)[0]
    if sparse:
        return [reshape(x, [n if i == d else 1 for i, n in enumerate(shape_)])
                for x, d in zip(xi, dims)]
    return [lax.broadcast_in_dim(x, shape_, (d,)) for x, d in zip(xi, dims)]


def pad(array, pad_width, mode='constant', constant_values=0):
    """``array`` padded with ``constant_values`` (mode 'constant' only); ``pad_width`` is
    an int, a (before, after) pair, or one pair per axis."""
    if mode != 'constant':
        raise NotImplementedError(f"pad: mode {mode!r} is not supported (only 'constant')")
    widths = np.broadcast_to(np.asarray(pad_width, np.int64), (np.ndim(array), 2))
    fill = _cast(constant_values, core.get_aval(array).dtype)
    return lax.pad(array, fill, [(int(lo), int(hi), 0) for lo, hi in widths])


# ----------------------------------------------------------------------------- creation

def full(shape, fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value`` (a scalar, possibly traced); weakly
    typed where ``fill_value`` is and ``dtype`` is not given, as in JAX."""
    shape = core.canonicalize_shape(shape, 'full')
    fill_aval = core.get_aval(fill_value)
    weak_type = dtype is None and fill_aval.weak_type
    dtype = dtypes.check_supported(dtype if dtype is not None else fill_aval.dtype, 'full')
    return _full(shape, fill_value, dtype, weak_type)


def _full(shape, fill_value, dtype, weak_type):
    if isinstance(fill_value, Tracer):
        return broadcast_to(_cast(fill_value, dtype, weak_type), shape)
    return lax.full(shape, fill_value, dtype, weak_type)


def zeros(shape, dtype=None):
    return full(shape, 0, dtype or float64)


def ones(shape, dtype=None):
    return full(shape, 1, dtype or float64)


empty = zeros


def full_like(a, fill_value, dtype=None, shape=None):
    """``full`` with ``a``'s shape and dtype, weakly typed where ``a`` is (JAX's rule)."""
    aval = core.get_aval(a)
    shape = aval.shape if shape is None else core.canonicalize_shape(shape, 'full_like')
    if dtype is not None:
        return full(shape, fill_value, dtype)
    return _full(shape, fill_value, aval.dtype, aval.weak_type)


def zeros_like(a, dtype=None, shape=None):
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return full_like(a, 1, dtype, shape)


empty_like = zeros_like


def arange(start, stop=None, step=1, dtype=None):
    """``start, start + step, ...`` below ``stop`` (static bounds), built on ``iota``."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = np.result_type(*(type(v) for v in (start, stop, step)))
    dtype = dtypes.check_supported(dtype, 'arange')
    if step == 0:
        raise ValueError('arange: step must not be zero')
    n = builtins.max(0, int(np.ceil((stop - start) / step)))
    out = lax.iota(dtype, (n,))
    if step != 1:
        out = lax.mul(out, np.asarray(step, dtype))
    if start != 0:
        out = lax.add(out, np.asarray(start, dtype))
    return out


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop``; computed on the host (the
    bounds are static), so it enters a traced program as a constant."""
    out = np.linspace(start, stop, num, endpoint=endpoint)
    return out.astype(dtypes.check_supported(dtype or out.dtype, 'linspace'))


# ----------------------------------------------------------------------------- indexing

def _is_traced_integer(i):
    return isinstance(i, Tracer) and not dtypes.is_float(i.aval.dtype) and not _is_bool(i)


def _index_entry(i):
    """One entry of an index: a static int, slice, None or Ellipsis; a traced integer
    scalar; or an integer array (``_IntegerArray``). Concrete integer scalars (NumPy, Array)
    become ints."""
    if i is None or i is Ellipsis or isinstance(i, builtins.slice):
        return i
    if isinstance(i, (bool, np.bool_)) or (hasattr(i, 'dtype') and np.dtype(i.dtype) == bool):
        raise TypeError('boolean mask indices select a data-dependent number of elements, '
                        'which minijax does not support: use jnp.where(mask, x, other)')
    if isinstance(i, (int, np.integer)):
        return int(i)
    if isinstance(i, (Tracer, Array, np.ndarray, list, tuple)):
        if not np.issubdtype(np.result_type(core.get_aval(i).dtype if isinstance(i, Tracer)
                                            else np.asarray(i).dtype), np.integer):
            raise TypeError(f'indices must be integers, got an index of type '
                            f'{type(i).__name__} with dtype {np.asarray(i).dtype.name}'
                            if not isinstance(i, Tracer) else
                            f'indices must be integers, got {i.aval.str_short()}')
        if np.ndim(i) == 0 and not isinstance(i, Tracer):
            return operator.index(np.asarray(i))
        return i if np.ndim(i) == 0 else _IntegerArray(asarray(i))
    raise TypeError(f'an index must be an int, slice, None, Ellipsis or integer array, got '
                    f'{type(i).__name__}')


class _IntegerArray:
    """An integer-array index entry (``x[idx]``): gathered one element at a time."""
    __slots__ = ('array',)

    def __init__(self, array):
        self.array = array


def _expand_index(shape_, idx):
    """``idx`` as one entry per axis of ``shape_`` (plus ``None`` entries, which add axes):
    the ellipsis (or the end) filled with full slices."""
    idx = tuple(map(_index_entry, idx if isinstance(idx, tuple) else (idx,)))
    used = builtins.sum(1 for i in idx if i is not None and i is not Ellipsis)
    if used > len(shape_):
        raise IndexError(f'too many indices ({used}) for an array of shape {_shape_str(shape_)}')
    if idx.count(Ellipsis) > 1:
        raise IndexError('an index can only have a single ellipsis')
    fill = (builtins.slice(None),) * (len(shape_) - used)
    if Ellipsis in idx:
        at = idx.index(Ellipsis)
        return idx[:at] + fill + idx[at + 1:]
    return idx + fill


def _static_window(shape_, entries):
    """Static basic indexing as a strided slice plus a reshape: the ``(start, limit,
    stride)`` per axis and the result shape (integers drop an axis, ``None`` adds one). An
    integer out of bounds is clamped into the axis, as JAX's gathers do."""
    window, out_shape, axis = [], [], 0
    for i in entries:
        if i is None:
            out_shape.append(1)
            continue
        n = shape_[axis]
        if isinstance(i, builtins.slice):
            start, stop, step = i.indices(n)
            if step < 0:
                raise IndexError('negative slice steps are not supported (use jnp.flip)')
            count = len(range(start, stop, step))
            window.append((start, start + (count - 1) * step + 1 if count else start, step))
            out_shape.append(count)
        else:
            if n == 0:
                raise IndexError(f'index {i} is out of bounds for axis {axis} with size 0')
            i = builtins.min(builtins.max(i + n if i < 0 else i, 0), n - 1)
            window.append((i, i + 1, 1))
        axis += 1
    return window, tuple(out_shape)


def _static_getitem(x, entries):
    shape_ = np.shape(x)
    window, out_shape = _static_window(shape_, entries)
    starts, limits, strides = zip(*window) if window else ((), (), ())
    if (starts, limits, strides) != ((0,) * len(shape_), shape_, (1,) * len(shape_)):
        x = lax.slice(x, starts, limits, strides)
    return x if np.shape(x) == out_shape else lax.reshape(x, out_shape)


def _result_axis(entries, k):
    """The axis of the result of static indexing that entry ``k`` (a full slice) gives."""
    return builtins.sum(1 for i in entries[:k] if not isinstance(i, int))


def _dynamic_index(x, axes, indices):
    """``x`` indexed by the traced integers ``indices`` along ``axes``: a window of size 1
    (``dynamic_slice``: a negative index counts from the end; out of bounds clamps, as in
    JAX) with those axes squeezed away."""
    starts, sizes = [0] * np.ndim(x), list(np.shape(x))
    for axis, i in zip(axes, indices):
        starts[axis], sizes[axis] = i, 1
    return lax.squeeze(lax.dynamic_slice(x, starts, sizes), axes)


def getitem(x, idx):
    """``x[idx]``: static ints, slices, None and Ellipsis are one strided slice; traced
    integer scalars then index the axes they stand for with ``dynamic_slice``; one integer
    array gathers (``vmap`` of a traced index)."""
    entries = _expand_index(np.shape(x), idx)
    gathers = [k for k, i in enumerate(entries) if isinstance(i, _IntegerArray)]
    if len(gathers) > 1:
        raise TypeError('minijax supports one integer-array index per indexing operation')
    traced = [k for k, i in enumerate(entries) if isinstance(i, Tracer)]
    static = tuple(builtins.slice(None) if k in traced or k in gathers else i
                   for k, i in enumerate(entries))
    out = _static_getitem(x, static)
    if traced:
        out = _dynamic_index(out, [_result_axis(static, k) for k in traced],
                             [entries[k] for k in traced])
    if gathers:
        k, = gathers
        gone = builtins.sum(1 for t in traced if t < k)
        out = _gather(out, _result_axis(static, k) - gone, entries[k].array)
    return out


def _gather(x, axis, indices):
    """``x`` indexed along ``axis`` by the integer array ``indices`` (its axes replace
    ``axis``): each index is a traced scalar index under ``vmap``."""
    flat = reshape(indices, (-1,))
    out = vmap(lambda i: _dynamic_index(x, [axis], [i]), out_axes=axis)(flat)
    shape_ = np.shape(x)
    return reshape(out, shape_[:axis] + np.shape(indices) + shape_[axis + 1:])


def take(a, indices, axis=None):
    """The elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if None)."""
    if axis is None:
        a, axis = ravel(a), 0
    axis = core.canonicalize_axis(axis, np.ndim(a), 'take: axis')
    return getitem(a, (builtins.slice(None),) * axis + (asarray(indices),))


class _IndexUpdateHelper:
    """``x.at``: ``x.at[idx]`` gives an ``_IndexUpdateRef`` with ``set``, ``add``, ..."""
    __slots__ = ('array',)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    """A functional update of the elements ``x[idx]``: a new array, ``x`` is unchanged.

    ``set`` is the one update: with static indices, the values are padded (with zeros
    between strided elements) to the shape of ``x`` and chosen by a padded mask
    (``select_n``); with traced integers, they are a ``dynamic_update_slice``, dropped when
    an index is out of bounds, as in JAX. ``add``, ``multiply``, ``min``... set
    ``op(x[idx], values)``: basic indices never select an element twice.
    """
    __slots__ = ('array', 'idx')

    def __init__(self, array, idx):
        self.array, self.idx = array, idx

    def get(self):
        return getitem(self.array, self.idx)

    def set(self, values):
        x = self.array
        entries = _expand_index(np.shape(x), self.idx)
        values = asarray(values, core.get_aval(x).dtype)
        if builtins.any(isinstance(i, (Tracer, _IntegerArray)) for i in entries):
            return _dynamic_update(x, entries, values)
        if not _static_in_bounds(np.shape(x), entries):
            return asarray(x)  # JAX's scatter drops an update out of bounds
        return _static_update(x, entries, values)

    def _apply(self, op, values):
        return self.set(op(self.get(), values))

    def add(self, values):
        return self._apply(add, values)

    def subtract(self, values):
        return self._apply(subtract, values)

    def multiply(self, values):
        return self._apply(multiply, values)

    mul = multiply

    def divide(self, values):
        return self._apply(divide, values)

    def power(self, values):
        return self._apply(power, values)

    def min(self, values):  # noqa: A003
        return self._apply(minimum, values)

    def max(self, values):  # noqa: A003
        return self._apply(maximum, values)


def _static_in_bounds(shape_, entries):
    axes = [e for e in entries if e is not None]
    return builtins.all(-n <= i < n for i, n in zip(axes, shape_) if isinstance(i, int))


def _static_update(x, entries, values):
    shape_, dtype_ = np.shape(x), core.get_aval(x).dtype
    window, out_shape = _static_window(shape_, entries)
    sizes = [len(range(*w)) for w in window]
    values = reshape(broadcast_to(values, out_shape), sizes)
    config = [(start, n - limit, stride - 1) for (start, limit, stride), n in zip(window, shape_)]
    padded = lax.pad(values, np.zeros((), dtype_), config)
    mask = lax.pad(lax.full(sizes, True, dtypes.bool_), np.array(False), config)
    return lax.select_n(mask, x, padded)


def _dynamic_update(x, entries, values):
    """``x`` with a window replaced: each entry is an int or traced integer (a window of
    size 1) or a slice of stride 1. An index out of bounds drops the update, as JAX's
    scatter does (``dynamic_update_slice`` alone would clamp the window into the array)."""
    starts, sizes, out_shape, axis, in_bounds = [], [], [], 0, True
    for i in entries:
        n = np.shape(x)[axis] if axis < np.ndim(x) else 0
        if isinstance(i, builtins.slice) and i.indices(n)[2] == 1:
            start, stop, _ = i.indices(n)
            starts.append(start)
            sizes.append(builtins.max(stop - start, 0))
            out_shape.append(sizes[-1])
        elif isinstance(i, (int, Tracer)):
            starts.append(i)
            sizes.append(1)
            in_bounds = logical_and(in_bounds, logical_and(i >= -n, i < n))
        else:
            raise TypeError('an update at a traced index takes ints, traced integers and '
                            'slices of stride 1 only (no None, strides or integer arrays)')
        axis += 1
    update = reshape(broadcast_to(values, tuple(out_shape)), sizes)
    return where(in_bounds, lax.dynamic_update_slice(x, update, starts), x)


def index_update_helper(x):
    return _IndexUpdateHelper(x)


# ----------------------------------------------------------------------------- jnp.linalg

linalg = types.ModuleType('minijax.numpy.linalg', 'Linear algebra: ``norm``.')
linalg.norm = _norm
sys.modules[linalg.__name__] = linalg

# ----------------------------------------------------------------------------- the API boundary

def _as_array_result(out, args):
    """An eager result as an Array, as the primitives' own results are
    (``minijax.array.eager_result``): here for a function that returned a NumPy value
    without binding a primitive (an argument returned as it is, a constant)."""
    if isinstance(out, list):
        return [_as_array_result(o, args) for o in out]
    return eager_result(out, None, args)


def _returns_arrays(fn):
    @functools.wraps(fn)
    def api_function(*args, **kwargs):
        return _as_array_result(fn(*args, **kwargs), args)
    return api_function


def _install_api_boundary(namespace):
    """Make every public function of ``namespace`` (a module or class) return Arrays when it runs eagerly, as
    ``jax.numpy`` does. The primitives' eager implementations compute NumPy values; the
    boundary wraps the result of each API call (not each primitive), for free: no copy, no
    transfer until a compiled program needs the value on the device."""
    for name, value in list(vars(namespace).items()):
        if (isinstance(value, types.FunctionType) and not name.startswith('_')
                and value.__module__ == __name__):
            setattr(namespace, name, _returns_arrays(value))


_install_api_boundary(sys.modules[__name__])
_install_api_boundary(linalg)
_install_api_boundary(_IndexUpdateRef)

# ----------------------------------------------------------------------------- operators, methods

def _immutable(self, *args):
    raise TypeError(f'{type(self).__name__} is immutable: instead of x[idx] = y, use '
                    'x = x.at[idx].set(y)')


def _shape_args(args):
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` alike."""
    return args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args


def _round_method(self, ndigits=None):
    return round(self, ndigits or 0)


#: method name -> the function of this module it is (its first argument the array)
_METHODS = {
    'sum': 'sum', 'prod': 'prod', 'max': 'max', 'min': 'min', 'mean': 'mean', 'var': 'var',
    'std': 'std', 'any': 'any', 'all': 'all', 'argmax': 'argmax', 'argmin': 'argmin',
    'cumsum': 'cumsum', 'cumprod': 'cumprod', 'astype': 'astype', 'ravel': 'ravel',
    'flatten': 'ravel', 'clip': 'clip', 'round': 'round', 'squeeze': 'squeeze',
    'swapaxes': 'swapaxes', 'dot': 'dot', 'conj': 'conj', 'conjugate': 'conj',
    'copy': 'copy', 'diagonal': 'diagonal', 'trace': 'trace', 'take': 'take',
    'repeat': 'repeat',
}
#: operator -> (function of this module, whether it also has a reflected form)
_OPERATORS = {
    'add': ('add', True), 'sub': ('subtract', True), 'mul': ('multiply', True),
    'truediv': ('true_divide', True), 'floordiv': ('floor_divide', True),
    'mod': ('remainder', True), 'pow': ('power', True), 'matmul': ('matmul', True),
    'and': ('bitwise_and', True), 'or': ('bitwise_or', True), 'xor': ('bitwise_xor', True),
    'lshift': ('left_shift', True), 'rshift': ('right_shift', True),
    'gt': ('greater', False), 'lt': ('less', False), 'ge': ('greater_equal', False),
    'le': ('less_equal', False), 'eq': ('equal', False), 'ne': ('not_equal', False),
}


def _install_operators(cls):
    """Give ``cls`` (traced values and Arrays) NumPy's operators and array methods, each
    calling the function of this module with the same meaning."""
    this = globals()

    def binary(name, reflected=False):
        def op(self, other):
            if not core.is_valid_value(other):
                return NotImplemented
            return this[name](other, self) if reflected else this[name](self, other)
        return op

    for dunder, (name, has_reflected) in _OPERATORS.items():
        setattr(cls, f'__{dunder}__', binary(name))
        if has_reflected:
            setattr(cls, f'__r{dunder}__', binary(name, reflected=True))
    cls.__neg__ = negative
    cls.__pos__ = positive
    cls.__abs__ = abs
    cls.__invert__ = invert
    cls.__round__ = _round_method
    cls.__getitem__ = getitem
    cls.__setitem__ = _immutable
    cls.at = property(index_update_helper)
    cls.T = property(transpose)
    cls.real = property(real)
    cls.imag = property(imag)
    cls.reshape = lambda self, *shape, order='C': reshape(self, _shape_args(shape), order)
    cls.transpose = lambda self, *axes: transpose(self, _shape_args(axes) if axes else None)
    for method, name in _METHODS.items():
        setattr(cls, method, this[name])


_install_operators(Tracer)
_install_operators(Array)
