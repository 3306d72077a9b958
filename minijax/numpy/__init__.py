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

import builtins
import functools
import math
import operator
import sys
import warnings

import numpy as np

from minijax import core, dtypes, lax, unsupported
from minijax import array as arrays
from minijax.sharding import rules as sharding_rules
from minijax.lax.log_add_exp import logaddexp as _logaddexp, logaddexp2 as _logaddexp2
from minijax.lax import reshard
from minijax.control_flow import switch as _switch
from minijax.custom_derivatives import custom_jvp as _custom_jvp

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
 uint64, bool_, complex64, complex128) = (_ScalarType(t) for t in (
    np.float16, dtypes.bfloat16.type, np.float32, np.float64, np.int8, np.int16, np.int32,
    np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128))
float_, int_, complex_ = float64, int64, complex128  # x64, as minijax always is
# NumPy's other names of these types (``bool`` shadows the builtin here: code below that
# means Python's writes ``builtins.bool``)
bool, double, single, cdouble, csingle, uint = (  # noqa: A001
    bool_, float64, float32, complex128, complex64, uint64)
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning
# NumPy's own functions, as JAX exports them: printing (JAX's arrays print through NumPy),
# saving, and the index expressions
array_repr, array_str, get_printoptions, printoptions, set_printoptions = (
    np.array_repr, np.array_str, np.get_printoptions, np.printoptions, np.set_printoptions)
save, savez, iterable, index_exp, s_ = np.save, np.savez, np.iterable, np.index_exp, np.s_
dtype, finfo, iinfo = np.dtype, dtypes.finfo, np.iinfo


def issubdtype(arg1, arg2):
    """``dtypes.issubdtype`` under jnp's parameter names (JAX's differ between the two)."""
    return dtypes.issubdtype(arg1, arg2)


generic, number, inexact, floating, complexfloating, integer, signedinteger, unsignedinteger = (
    np.generic, np.number, np.inexact, np.floating, np.complexfloating, np.integer,
    np.signedinteger, np.unsignedinteger)
pi, e, inf, nan, euler_gamma = np.pi, np.e, np.inf, np.nan, np.euler_gamma
newaxis = None
ndarray = arrays.Array

# ----------------------------------------------------------------------------- type promotion

def result_type(*args):
    """The dtype ``args`` promote to, by JAX's type-promotion lattice (``dtypes.promote``;
    the table is in docs/semantics.md). Weakly typed values (Python scalars) count only
    when they are of a higher kind (bool < int < float) than every strongly typed one."""
    return dtypes.result_type(*args)


def _cast(x, dtype, weak_type=False, aval=None):
    """``x`` (of type ``aval``, if the caller has it) as ``dtype``; a weakly typed result
    (every operand was weak) stays weak. As in JAX, a weakly typed array meeting a strong
    one of its dtype is converted to strong (a ``convert_element_type`` in the jaxpr); a
    Python scalar stays a literal (converted to a weak type no Python scalar has, as
    ``2`` meeting a weakly typed float32, it is converted by a ``convert_element_type``
    that tracing folds into a literal)."""
    aval = aval or core.shaped_aval(x)
    python_scalar = type(x) in dtypes.PYTHON_SCALARS
    if aval.dtype == dtype and (aval.weak_type == weak_type or python_scalar):
        return x
    if python_scalar and not weak_type:
        return arrays.scalar(x, dtype)
    return lax.convert_element_type(x, dtype, weak_type=weak_type)


def _promote(*args, avals=None):
    """``args`` cast to the type they promote to (``avals``: their types, if the caller has
    them)."""
    avals = avals or [core.shaped_aval(x) for x in args]
    dtype, weak_type = dtypes.promote(*((a.dtype, a.weak_type) for a in avals))
    return [_cast(x, dtype, weak_type, aval) for x, aval in zip(args, avals)]


def _to_float(x):
    """``x`` as JAX's float for its dtype, weakly typed if ``x`` is (``jnp.sin(2)`` is);
    a complex ``x`` stays complex."""
    aval = core.shaped_aval(x)
    if dtypes.is_inexact(aval.dtype):
        return x
    return lax.convert_element_type(x, dtypes.FLOAT_OF[aval.dtype], weak_type=aval.weak_type)


def _promote_inexact(*args):
    """The operands as arrays of one dtype, then floats (JAX's ``promote_dtypes_inexact``)."""
    return [_to_float(a) for a in _promote(*map(asarray, args))]


def _like(y, x):
    """``y`` (a result computed from ``x``) as ``x``'s dtype and weak type."""
    aval = core.get_aval(x)
    return lax.convert_element_type(y, aval.dtype, weak_type=aval.weak_type)


def _is_float(x):
    return dtypes.is_float(core.shaped_aval(x).dtype)


def _is_inexact(x):
    return dtypes.is_inexact(core.shaped_aval(x).dtype)


def _is_bool(x):
    return core.shaped_aval(x).dtype == dtypes.bool_


# ----------------------------------------------------------------------------- broadcasting

def _shape_str(shape):
    return f'({", ".join(map(str, shape))}{"," if len(shape) == 1 else ""})'


def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes``; a ValueError names the shapes that do not fit."""
    distinct = set(map(tuple, shapes)) - {()}
    if len(distinct) <= 1:  # the common case, on every op: one shape, and scalars
        return distinct.pop() if distinct else ()
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            raise ValueError('Incompatible shapes for broadcasting: shapes='
                             f'{[tuple(s) for s in shapes]}')
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _broadcast_shape(shapes, primitive):
    """``broadcast_shapes``, failing as JAX does for the operands of ``primitive``: those
    of one rank (scalars aside) go to the lax primitive unchanged, which refuses sizes that
    differ with a TypeError naming itself; ranks that differ fail in rank promotion."""
    try:
        return broadcast_shapes(*shapes)
    except ValueError:
        if primitive and len({len(s) for s in shapes if s}) == 1:
            raise TypeError(f'{primitive} got incompatible shapes for broadcasting: '
                            f'{", ".join(map(_shape_str, shapes))}.') from None
        raise


def broadcast_to(array, shape, *, out_sharding=None):
    """``array`` broadcast to ``shape`` by NumPy's rules (new axes on the left, size 1
    grows)."""
    x = array
    shape = core.canonicalize_shape(shape, 'broadcast_to')
    x_shape = np.shape(x)
    if len(x_shape) > len(shape) or broadcast_shapes(x_shape, shape) != shape:
        raise ValueError(f'cannot broadcast an array of shape {_shape_str(x_shape)} to shape '
                         f'{_shape_str(shape)}')
    if x_shape == shape and out_sharding is None:
        return x
    lead = len(shape) - len(x_shape)
    return lax.broadcast_in_dim(x, shape, range(lead, len(shape)), out_sharding=out_sharding)


def broadcast_arrays(*args):
    return [broadcast_to(a, broadcast_shapes(*map(np.shape, args))) for a in args]


_HAS_SHAPE = (core.Tracer, arrays.Array, np.ndarray, np.generic)


def _shape_of(x) -> tuple:
    """``np.shape(x)``, read without NumPy's conversion where ``x`` has a shape or is a
    Python scalar (asked of every operand of every op)."""
    if isinstance(x, _HAS_SHAPE):
        return x.shape
    return () if type(x) in dtypes.PYTHON_SCALARS else np.shape(x)


def _broadcast(*args, scalars_too=False, primitive=None):
    """Broadcast ``args`` (the operands of the lax ``primitive``) to one shape; rank-0
    operands stay scalars (lax ops take them) unless ``scalars_too``."""
    shapes = list(map(_shape_of, args))
    shape = _broadcast_shape(shapes, primitive)
    sharding = None  # (under sharding in types, the broadcast operands' result's, as JAX)
    if core.sharding_in_types() and builtins.any(s != shape for s in shapes):
        sharding = sharding_rules.broadcast_shardings(*map(core.shaped_aval, args))
    return [a if s == shape or (s == () and not scalars_too) else
            broadcast_to(a, shape, out_sharding=sharding) for a, s in zip(args, shapes)]


def _promote_shapes(*args, primitive=None, shapes=None):
    """``args`` made ready for a lax elementwise op as JAX's ``promote_shapes`` makes them:
    operands of one rank (scalars aside) as they are, since lax broadcasts axes of size 1
    and scalars itself; otherwise each gets leading axes of size 1 up to the common rank.
    (``shapes``: theirs, if the caller has them.)"""
    shapes = shapes or list(map(_shape_of, args))
    if len({len(s) for s in shapes if s}) < 2:
        return list(args)
    rank = len(_broadcast_shape(shapes, primitive))
    return [lax.broadcast_to_rank(a, rank) for a in args]


# ----------------------------------------------------------------------------- elementwise

def _refuse_keys(name, avals):
    """PRNG keys have no arithmetic (and no NumPy dtype to promote): JAX's TypeError."""
    key_dtypes = [a.dtype for a in avals]
    if builtins.any(dtypes.is_key(d) for d in key_dtypes):
        raise TypeError(f'{name} does not accept dtypes {", ".join(map(str, key_dtypes))}.')


def _as_they_are(x, y, x_aval, y_aval, to_float) -> bool:
    """Whether ``x`` and ``y`` (typed ``x_aval``, ``y_aval``) go to a lax binary op as
    they are: one dtype (a float one, ``to_float``), which promotion keeps, weak or strong
    as promotion makes the result or a Python scalar (which stays a literal), and one rank
    or a scalar. Most eager ops (an array and a scalar, two arrays of one type) are such;
    this answers in a few comparisons what the general path computes step by step."""
    dtype = x_aval.dtype
    if dtype != y_aval.dtype or isinstance(dtype, dtypes.KeyDType) or (
            to_float and not dtypes.is_inexact(dtype)):
        return False
    weak = x_aval.weak_type and y_aval.weak_type and dtype != dtypes.bool_
    return ((x_aval.weak_type == weak or type(x) in dtypes.PYTHON_SCALARS)
            and (y_aval.weak_type == weak or type(y) in dtypes.PYTHON_SCALARS)
            and (not x_aval.shape or not y_aval.shape
                 or len(x_aval.shape) == len(y_aval.shape)))


def _absorbed_scalar(x, y, x_aval, y_aval, to_float):
    """``(x, y)`` ready for a lax binary op where one is a Python scalar that the other, a
    strongly typed numeric array, absorbs (``x * 1.5`` of float32 ``x``): the scalar as a
    constant of the array's dtype, what promotion and casting give, in fewer steps; else
    None."""
    if type(y) in dtypes.PYTHON_SCALARS:
        array_aval, scalar_aval = x_aval, y_aval
    elif type(x) in dtypes.PYTHON_SCALARS:
        array_aval, scalar_aval = y_aval, x_aval
    else:
        return None
    dtype = array_aval.dtype
    if array_aval.weak_type or dtype == dtypes.bool_ or isinstance(dtype, dtypes.KeyDType) \
            or (to_float and not dtypes.is_inexact(dtype)) \
            or dtypes.promote((dtype, False), (scalar_aval.dtype, True)) != (dtype, False):
        return None
    if array_aval is x_aval:
        return x, arrays.scalar(y, dtype)
    return arrays.scalar(x, dtype), y


def _binary(lax_fn, name, doc, to_float=False, on_bools=None):
    """jnp's ``name``: ``lax_fn`` of the operands broadcast and promoted (then floats, if
    ``to_float``); of booleans, ``on_bools`` if given (JAX's ``add`` is ``or`` there)."""
    def fn(x, y, /):
        avals = [core.shaped_aval(x), core.shaped_aval(y)]  # (read once, for every step)
        if _as_they_are(x, y, *avals, to_float):
            bools = on_bools is not None and avals[0].dtype == dtypes.bool_
            return (on_bools if bools else lax_fn)(x, y)
        absorbed = _absorbed_scalar(x, y, *avals, to_float)
        if absorbed is not None:
            return lax_fn(*absorbed)
        _refuse_keys(name, avals)
        x, y = _promote_shapes(*_promote(x, y, avals=avals), primitive=lax_fn.__name__,
                               shapes=[a.shape for a in avals])
        if to_float:
            x, y = _to_float(x), _to_float(y)
        if on_bools is not None and core.get_aval(x).dtype == dtypes.bool_:
            return on_bools(x, y)
        return lax_fn(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


add = _binary(lax.add, 'add', 'x + y, broadcast and promoted.', on_bools=lax.bitwise_or)
subtract = _binary(lax.sub, 'subtract', 'x - y, broadcast and promoted.')
multiply = _binary(lax.mul, 'multiply', 'x * y, broadcast and promoted.',
                   on_bools=lax.bitwise_and)
true_divide = divide = _binary(lax.div, 'true_divide', 'x / y (float, even for integers).',
                               to_float=True)
maximum = _binary(lax.max, 'maximum', 'Elementwise maximum, broadcast and promoted.')
minimum = _binary(lax.min, 'minimum', 'Elementwise minimum, broadcast and promoted.')
equal = _binary(lax.eq, 'equal', 'x == y.')
not_equal = _binary(lax.ne, 'not_equal', 'x != y.')


def _lexicographic(lax_fn):
    """The ordering comparison ``lax_fn`` extended to complex numbers as JAX orders them,
    by real part, then imaginary part (lax itself orders no complex numbers)."""
    def compare(x, y):
        if not dtypes.is_complex(core.get_aval(x).dtype):
            return lax_fn(x, y)
        return lax.select(lax.eq(lax.real(x), lax.real(y)), lax_fn(lax.imag(x), lax.imag(y)),
                          lax_fn(lax.real(x), lax.real(y)))
    compare.__name__ = lax_fn.__name__
    return compare


greater = _binary(_lexicographic(lax.greater), 'greater', 'x > y.')
greater_equal = _binary(_lexicographic(lax.ge), 'greater_equal', 'x >= y.')
less = _binary(_lexicographic(lax.less), 'less', 'x < y.')
less_equal = _binary(_lexicographic(lax.le), 'less_equal', 'x <= y.')
_power = _binary(lax.pow, 'power', 'x ** y.')
bitwise_and = _binary(lax.bitwise_and, 'bitwise_and', 'x & y (logical and for booleans).')
bitwise_or = _binary(lax.bitwise_or, 'bitwise_or', 'x | y (logical or for booleans).')
bitwise_xor = _binary(lax.bitwise_xor, 'bitwise_xor', 'x ^ y (logical xor for booleans).')
left_shift = _binary(lax.shift_left, 'left_shift', 'x << y (0 once y reaches the bit width).')


def power(x, y, /):
    """``x ** y``; a Python int exponent becomes ``integer_pow`` (multiplications), as in JAX.
    XLA has no integer ``pow``: integers to integer powers are ``_integer_power``. An
    inexact base keeps its type against an integer exponent, as in JAX (``2.0 ** ints`` is
    a strong float: the exponent does not promote the base)."""
    if type(y) is int:
        return lax.integer_pow(asarray(x), y)
    if dtypes.is_integer(result_type(x, y)):
        return _integer_power(*_broadcast(*_promote(x, y), scalars_too=True))
    x, y = asarray(x), asarray(y)
    if dtypes.is_inexact(x.dtype) and dtypes.is_integer(y.dtype):
        return lax.pow(*_broadcast(x, y, primitive='pow'))
    return _power(x, y)


def _integer_power(x, y):
    """``x ** y`` by binary exponentiation over the low 6 bits of ``y`` (a higher power
    overflows for any ``|x| > 1``), as JAX computes it; ``0 ** 0`` is 1."""
    zero, one = lax.full_like(y, 0), lax.full_like(y, 1)
    acc = lax.select(lax.bitwise_and(lax.eq(x, zero), lax.ne(y, zero)), zero, one)
    for _ in range(6):
        acc = lax.select(lax.ne(lax.bitwise_and(y, one), zero), lax.mul(acc, x), acc)
        x, y = lax.mul(x, x), lax.shift_right_logical(y, one)
    return acc


def right_shift(x, y, /):
    """``x >> y``: arithmetic (copies of the sign bit come in) for signed integers, logical
    (zeros come in) for unsigned ones, as in NumPy."""
    x, y = _promote_shapes(*_promote(x, y))
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
    x, y = _promote_shapes(*_promote(x, y))
    kind = dtypes.kind(core.get_aval(x).dtype)
    if kind == 'u':
        return lax.div(x, y)
    if kind == 'i':
        quotient = lax.div(x, y)
        inexact_and_negative = logical_and(lax.sign(x) != lax.sign(y), lax.rem(x, y) != 0)
        return _where(inexact_and_negative, quotient - 1, quotient)
    if kind == 'c':
        raise TypeError('floor_divide does not support complex-valued inputs')
    return _float_divmod(x, y)[0]


def _float_divmod(x, y):
    """``(x // y, x % y)`` for floats, as CPython's ``float_divmod`` computes them (JAX's
    equations)."""
    r = lax.rem(x, y)
    exact = _where(y == 0, x, lax.sub(x, r))
    q = lax.div(exact, y)
    moves = lax.bitwise_and(r != 0, lax.sign(y) != lax.sign(r))
    r = lax.select(moves, r + y, r)
    return lax.round(lax.select(moves, q - 1.0, q)), r


def fmod(x, y, /):
    """The C remainder of ``x / y``, with the sign of ``x`` (``lax.rem``); 0 for ``x``
    an integer and ``y`` zero (the divisor taken as 1 first, as in JAX)."""
    if dtypes.is_integer(result_type(x, y)):
        y = asarray(y)
        y = _where(y == 0, lax.full_like(y, 1), y)
    return lax.rem(*_promote_shapes(*_promote(x, y)))


def remainder(x, y, /):
    """``x % y``, with the sign of ``y`` (NumPy's ``mod``): ``lax.rem`` moved by one ``y``
    where its sign is wrong. For integers ``x % 0`` is 0, as in JAX."""
    x, y = _promote_shapes(*_promote(x, y))
    zero = np.zeros((), core.get_aval(x).dtype)
    if dtypes.is_integer(core.get_aval(y).dtype):
        y = _where(y == 0, lax.full_like(y, 1), y)
    r = lax.rem(x, y)
    nonzero = lax.ne(r, zero)
    moves = lax.bitwise_and(lax.ne(lax.lt(r, zero), lax.lt(y, zero)), nonzero)
    return lax.select(moves, lax.add(r, y), r)


def divmod(x, y, /):  # noqa: A001 (jnp.divmod, as in JAX)
    """``(x // y, x % y)``."""
    x, y = _promote_shapes(*_promote(x, y))
    if dtypes.is_integer(core.get_aval(x).dtype):
        return floor_divide(x, y), remainder(x, y)
    return _float_divmod(x, y)


mod = remainder


def _trunc(x):
    """Round towards zero, as JAX writes it: the ceiling of a negative, else the floor."""
    if not _is_float(x):
        return x
    return where(lax.lt(x, 0.), lax.ceil(x), lax.floor(x))


def _floor(x):
    return lax.floor(x) if _is_float(x) else x


def _ceil(x):
    return lax.ceil(x) if _is_float(x) else x


def _rint(x):
    """Round to the nearest integer, halves to even (as ``jnp.round``); each part of a
    complex number."""
    if _is_complex(x):
        return lax.complex(_rint(lax.real(x)), _rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN) if _is_float(x) else x


def _rint_as_float(x):
    """``jnp.rint``: integers and booleans first become JAX's default float (strong float64,
    whatever their width and weak type: not ``_to_float``'s), as JAX converts them."""
    return _rint(x if _is_inexact(x) else lax.convert_element_type(x, dtypes.float64))


def _safe_where(unsafe, x, replacement):
    """``x`` with ``replacement`` where ``unsafe``: the branch of a ``where`` that is not
    taken must still be finite, or its zero cotangent times an infinite derivative is NaN."""
    return lax.select_n(unsafe, x, lax.full_like(x, replacement))


def _isnan(x):
    """``x != x``, as JAX stages it for every dtype (a complex NaN in either part too)."""
    return lax.ne(x, x)


def _isinf(x):
    """``|x| == inf``; a complex ``x`` where either part is infinite, as in JAX."""
    if _is_complex(x):
        re, im = lax.real(x), lax.imag(x)
        return lax.bitwise_or(_isinf(re), _isinf(im))
    return lax.eq(lax.abs(x), np.inf) if _is_float(x) else lax.full(np.shape(x), False,
                                                                      dtypes.bool_)


def _isfinite(x):
    if _is_complex(x):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x) if _is_float(x) else lax.full(np.shape(x), True, dtypes.bool_)


def _sinc(x):
    """``sin(pi x) / (pi x)``, and at 0 the value of its Maclaurin series, whose derivatives
    of every order are the function's there (JAX's formula)."""
    at_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe_pi_x = _where(at_zero, _const(x, 1), pi_x)
    return _where(at_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


def _const(x, value):
    """``value`` as a scalar of ``x``'s type (weak if ``x`` is), as JAX's ``lax._const``:
    a constant that changes neither the type nor the weakness of what it meets."""
    aval = core.get_aval(x)
    return arrays.scalar(value, aval.dtype, aval.weak_type)


@functools.partial(_custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
    """The ``k``-th derivative of ``sin(x) / x`` at 0, as an array of ``x``'s type (its
    derivative the next one's)."""
    return x * 0 if k % 2 else x * 0 + _const(x, (-1) ** (k // 2) / (k + 1))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), _sinc_maclaurin(k + 1, x) * t


#: The signed integer type of a float's width, to read its sign bit.
_SAME_WIDTH_INT = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def _signbit(x):
    """Whether the sign bit is set: true for -0. and negative NaNs too (read from the bits)."""
    dtype = core.get_aval(x).dtype
    if dtype == dtypes.bool_:
        return lax.full_like(x, False)
    if dtypes.is_float(dtype):
        x = lax.bitcast_convert_type(x, _SAME_WIDTH_INT[np.dtype(dtype).itemsize])
    return lax.less(x, lax.full_like(x, 0))


def _is_infinity(x, infinity):
    return lax.eq(x, infinity) if _is_float(x) else lax.full(np.shape(x), False, dtypes.bool_)


def _is_complex(x):
    return dtypes.is_complex(core.get_aval(x).dtype)


def _conjugate(x):
    """The complex conjugate; a real ``x`` is its own."""
    return lax.conj(x) if _is_complex(x) else x


def _real(x):
    """The real part; a real ``x`` is its own."""
    return lax.real(x) if _is_complex(x) else x


def _imag(x):
    """The imaginary part; zeros for a real ``x``."""
    return lax.imag(x) if _is_complex(x) else lax.full_like(x, 0)


def angle(z, deg=False):
    """The argument of complex ``z``, ``atan2(imag, real)`` (0 or pi for a real ``z``), in
    degrees with ``deg``; computed in the default float for integers and real scalars, as
    JAX computes it."""
    z = asarray(z)
    re, im = _real(z), _imag(z)
    dtype = core.get_aval(re).dtype
    if not dtypes.is_inexact(dtype) or (dtypes.is_float(dtype) and not np.ndim(z)):
        re, im = (lax.convert_element_type(v, float64) for v in (re, im))
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


def _unary(name, fn, to_float=True, real_only=False):
    """A function of one operand; ``to_float``: integer and boolean operands become floats
    first (as ``jnp.sin(1)`` is a float); ``real_only``: complex ones are refused, as JAX
    refuses them (the function rounds, and complex numbers have no order)."""
    def unary(x, /):
        x = asarray(x)
        if real_only and _is_complex(x):
            raise TypeError(f'{name} does not accept dtype {core.get_aval(x).dtype}: it '
                            'takes real numbers only (complex ones have no order).')
        return fn(_to_float(x) if to_float else x)
    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = fn.__doc__ or f'Elementwise {name}.'
    return unary


_LN2 = math.log(2)

sin = _unary('sin', lax.sin)
cos = _unary('cos', lax.cos)
tan = _unary('tan', lax.tan)
exp = _unary('exp', lax.exp)
log = _unary('log', lax.log)
tanh = _unary('tanh', lax.tanh)
sqrt = _unary('sqrt', lax.sqrt)
log1p = _unary('log1p', lax.log1p)
expm1 = _unary('expm1', lax.expm1)
sinh = _unary('sinh', lax.sinh)
cosh = _unary('cosh', lax.cosh)
exp2 = _unary('exp2', lax.exp2)
log2 = _unary('log2', lambda x: _divide_by_constant(lax.log(x), _LN2))
log10 = _unary('log10', lambda x: _times_constant(lax.log(x), math.log10(math.e)))  # JAX's
deg2rad = radians = _unary('deg2rad', lambda x: lax.mul(x, np.pi / 180))
rad2deg = degrees = _unary('rad2deg', lambda x: lax.mul(x, 180 / np.pi))
def _absolute(x):
    """|x|: an unsigned or boolean value is its own (lax.abs takes signed numbers, as JAX's)."""
    return x if dtypes.kind(x.dtype) in 'ub' else lax.abs(x)


abs = absolute = _unary('abs', _absolute, to_float=False)  # noqa: A001
sign = _unary('sign', lax.sign, to_float=False)
negative = _unary('negative', lax.neg, to_float=False)
positive = _unary('positive', lambda x: x, to_float=False)
square = _unary('square', lax.square, to_float=False)
floor = _unary('floor', _floor, to_float=False, real_only=True)
ceil = _unary('ceil', _ceil, to_float=False, real_only=True)
trunc = _unary('trunc', _trunc, to_float=False, real_only=True)
rint = _unary('rint', _rint_as_float, to_float=False)
isnan = _unary('isnan', _isnan, to_float=False)
isinf = _unary('isinf', _isinf, to_float=False)
isfinite = _unary('isfinite', _isfinite, to_float=False)
conj = conjugate = _unary('conjugate', _conjugate, to_float=False)
real = _unary('real', _real, to_float=False)
imag = _unary('imag', _imag, to_float=False)
arcsin = asin = _unary('arcsin', lax.asin)
arccos = acos = _unary('arccos', lax.acos)
arctan = atan = _unary('arctan', lax.atan)
arcsinh = asinh = _unary('arcsinh', lax.asinh)
arccosh = acosh = _unary('arccosh', lax.acosh)
arctanh = atanh = _unary('arctanh', lax.atanh)
cbrt = _unary('cbrt', lax.cbrt)
fabs = _unary('fabs', lax.abs)
reciprocal = _unary('reciprocal', lax.reciprocal)
sinc = _unary('sinc', _sinc)
signbit = _unary('signbit', _signbit, to_float=False)


def isposinf(x, /, out=None):
    """Whether each element of ``x`` is +inf."""
    _no_out('isposinf', out)
    return _is_infinity(asarray(x), np.inf)


def isneginf(x, /, out=None):
    """Whether each element of ``x`` is -inf."""
    _no_out('isneginf', out)
    return _is_infinity(asarray(x), -np.inf)


def round(a, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` places, halves to even, as ``jnp.round``: ``rint(a * 10**d) /
    10**d`` for floats and complex numbers; integers are returned unchanged for
    ``decimals >= 0``; booleans are refused, as in JAX."""
    _no_out('round', out)
    decimals = _static_int(decimals, 'round: decimals')
    if _is_bool(a):
        raise ValueError(f'round: booleans have no decimals to round (JAX refuses them), got '
                         f'{core.get_aval(a).str_short()}')
    if not _is_inexact(a):
        if decimals < 0:
            raise NotImplementedError(f'round: integers to decimals={decimals} (< 0) are not '
                                      'implemented (nor in JAX)')
        return a
    if decimals == 0:
        return _rint(a)
    factor = 10. ** decimals
    return lax.div(_rint(lax.mul(a, factor)), factor)


def around(a, decimals=0, out=None):
    """``round`` (JAX's ``jit`` of its own around it)."""
    return round(a, decimals, out)


def clip(arr, /, min=None, max=None):  # noqa: A002
    """``arr`` limited to ``[min, max]`` (either bound may be None); complex numbers have
    no order, so JAX refuses them."""
    arr = asarray(arr)
    if builtins.any(b is not None and _is_complex(asarray(b)) for b in (arr, min, max)):
        raise ValueError(f'clip: complex values have no order, so they cannot be clipped; '
                         f'got arr of dtype {core.get_aval(arr).dtype}')
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return arr


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast together); with
    ``condition`` alone, ``nonzero(condition, size=size, fill_value=fill_value)``."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise TypeError('where: give both x and y, or neither (for the indices where '
                        'condition holds)')  # JAX's class
    return _where(condition, x, y)


def _where(condition, x, y):
    """The three-operand ``where`` (JAX's nested ``jit`` of that name when traced)."""
    condition = _as_bool(condition)
    x, y = _promote(x, y)
    if np.ndim(condition) == 0:  # select_n takes a scalar predicate as it is
        x, y = _broadcast(x, y, scalars_too=True)
    else:
        condition, x, y = _broadcast(condition, x, y, scalars_too=True)
    return lax.select_n(condition, y, x)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise, or ``a == b``; an infinite ``b`` is
    close only to itself; NaNs to each other only with ``equal_nan``. Integers and booleans
    compare as floats, with the tolerances (as in JAX, not NumPy's exact integers). JAX's
    equations (its NaN test is staged even without ``equal_nan``)."""
    a, b = _promote_shapes(*_promote_inexact(a, b))
    dtype = dtypes.real_part_dtype(core.get_aval(a).dtype)
    rtol, atol = (lax.convert_element_type(t, dtype) for t in (rtol, atol))
    both_nan = logical_and(isnan(a), isnan(b))
    finite = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(finite, in_range))
    return logical_or(out, both_nan) if equal_nan else out


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


def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
    """``a`` as a minijax value of ``dtype``: a traced value stays traced; a (nested) list
    holding traced values is stacked into one; anything else becomes an Array. ``copy``:
    True copies as ``array`` does; False and None copy only where needed (on the CPU no
    conversion needs one). ``order``, ``device`` and ``out_sharding`` as in ``array``."""
    if copy or order not in (None, 'K') or device is not None or out_sharding is not None:
        return array(a, dtype, copy=builtins.bool(copy), order=order, device=device,
                     out_sharding=out_sharding)
    return _asarray(a, dtype)


def _asarray(a, dtype=None):
    if dtype is not None:
        dtype = dtypes.check_supported(dtype, 'asarray: dtype')
    if isinstance(a, (core.Tracer, arrays.Array)):
        return a if dtype is None else _cast(a, dtype)
    if a is None:
        raise ValueError('None is not a valid value for jnp.array')
    if isinstance(a, (list, tuple)):
        leaves = _leaves(a)
        if builtins.any(x is None for x in leaves):
            raise ValueError('None is not a valid value for jnp.array')
        if builtins.any(isinstance(x, (core.Tracer, arrays.Array)) for x in leaves):
            return _stack_nested(a, dtype or result_type(*leaves))
    if type(a) in dtypes.PYTHON_SCALARS and dtype is None:
        dtypes.python_scalar(a)  # an int too large for int64 is an OverflowError
    # a Python int, float or complex is weakly typed, as in JAX (a bool is not)
    weak_type = dtype is None and dtypes.PYTHON_SCALARS.get(type(a), (None, False))[1]
    a = np.asarray(a, dtype)
    dtypes.check_supported(a.dtype, f'asarray of shape {a.shape}')
    # Traced, a scalar is a constant of the jaxpr, a literal, as JAX stages it.
    staged = core.staged_constant(arrays.scalar(a, a.dtype, weak_type)) if a.ndim == 0 else None
    return arrays.device_array(a, weak_type) if staged is None else staged


def _stack_nested(a, dtype):
    """Each element converted and given its new leading axis in turn, then joined: the
    equations in JAX's order."""
    if isinstance(a, (list, tuple)):
        return concatenate([expand_dims(_stack_nested(x, dtype), 0) for x in a])
    return _asarray(a, dtype)


def array(object, dtype=None, *args, copy=True, order='K', ndmin=0, device=None,  # noqa: A002
          out_sharding=None):
    """``asarray``, with at least ``ndmin`` axes; with ``copy``, a traced value or an Array
    is copied (``copy_p``, as JAX binds it: a jaxpr shows where a program asked for a
    copy). ``copy``, ``order`` and ``ndmin`` may still be given by position (deprecated,
    as in JAX); ``order`` can only be ``'K'`` (or None); the result is placed on
    ``device`` or as ``out_sharding`` says (one of them)."""
    copy, order, ndmin = _array_positional_args(args, copy, order, ndmin)
    if order is not None and order != 'K':
        raise NotImplementedError("Only implemented for order='K'")
    placement = _device_or_out_sharding(device, out_sharding)
    if isinstance(object, (core.Tracer, arrays.Array)):
        out = lax.copy_p.bind(object) if copy else object
        if dtype is not None:
            out = _cast(out, dtypes.check_supported(dtype, 'array: dtype'))
    else:
        out = _asarray(object, dtype)
    out = reshape(out, (1,) * (ndmin - np.ndim(out)) + np.shape(out)) if ndmin else out
    return _placed(out, placement)


_ARRAY_POSITIONAL = ('copy', 'order', 'ndmin')


def _array_positional_args(args, copy, order, ndmin):
    """``array``'s ``copy, order, ndmin`` given by position after ``dtype`` (JAX still takes
    them so, with a DeprecationWarning), merged with those given by keyword."""
    if not args:
        return copy, order, ndmin
    if len(args) > 3:
        raise TypeError(f'array() takes at most 5 positional arguments but {len(args) + 2} '
                        'were given')
    given, defaults = (copy, order, ndmin), (True, 'K', 0)
    for name, value, default, _ in zip(_ARRAY_POSITIONAL, given, defaults, args):
        if value != default:
            raise TypeError(f"array() got multiple values for argument '{name}'")
    warnings.warn('Passing the copy, order, and ndmin arguments to jnp.array positionally is '
                  'deprecated. Use keyword arguments instead.', DeprecationWarning, stacklevel=3)
    return (*args, *given[len(args):])


def _device_or_out_sharding(device, out_sharding):
    """Where a creation function places its result: ``device`` (a Device or a Sharding) or
    ``out_sharding`` (a NamedSharding or a PartitionSpec), never both (JAX's ValueError)."""
    if device is not None and out_sharding is not None:
        raise ValueError(f'Only one of `device` or `out_sharding` can be set. Got '
                         f'device={device} and out_sharding={out_sharding}')
    return device if device is not None else out_sharding


def _computed_as(out_sharding, name, fn, *args):
    """``fn(*args)``, its result sharded as ``out_sharding`` says (if given), as JAX does it
    where no sharding rule decides the result's: ``fn`` runs with the mesh's explicit axes
    ``Auto`` (``auto_axes``), the compiler choosing how values are sharded inside."""
    if out_sharding is None:
        return fn(*args)
    sharding = sharding_rules.canonicalize_sharding(out_sharding, name)
    return reshard.auto_axes(fn, out_sharding=sharding, axes=sharding.mesh.explicit_axes)(*args)


def _placed(out, placement):
    """``out`` placed as ``placement`` (see ``_device_or_out_sharding``) says, by
    ``device_put``: eagerly committed to the device or split over the mesh; traced,
    constrained to the sharding (a device changes nothing in a jaxpr)."""
    return out if placement is None else arrays.device_put(out, placement)


def astype(x, dtype, /, *, copy=False, device=None):
    """``x`` converted to ``dtype`` (the default float if None); a complex ``x`` becomes a
    boolean as ``x != 0``; with ``copy``, the result is a copy even when no conversion was
    needed."""
    x = asarray(x)
    dtype = float64 if dtype is None else dtypes.check_supported(dtype, 'astype')
    if _is_complex(x) and np.dtype(dtype) == np.bool_:
        x = not_equal(x, 0)
    out = lax.convert_element_type(x, dtype)
    return _placed(lax.copy_p.bind(out) if copy else out, device)


def copy(a, order=None):
    """A copy of ``a`` (``copy_p`` for a traced value or an Array, as in JAX)."""
    return array(a, copy=True, order=order)


def shape(a):
    return np.shape(a)


def ndim(a):
    return np.ndim(a)


def size(a, axis=None):
    """The number of elements of ``a``, or of its axes ``axis`` (an int or a sequence)."""
    shape_ = np.shape(a)
    if axis is None:
        return math.prod(shape_)
    axes = core.canonicalize_axes(axis, len(shape_), 'size: axis')
    return math.prod(shape_[i] for i in axes)


# ----------------------------------------------------------------------------- shared helpers

def _axes(name, x, axis):
    return core.canonicalize_axes(axis, np.ndim(x), f'{name}: axis')


def _static_int(value, what):
    """``value`` as a Python int (an integer of any kind, as ``operator.index`` takes it); a
    float or a string is JAX's TypeError naming ``what`` ("function: argument")."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f'{what} must be an integer, got {value!r}') from None


def _concrete_or_error(fn, x, what):
    """``fn(x)`` (``x`` itself if ``fn`` is None) for a value known while tracing (a
    constant, or a concrete tracer under ``grad``); a traced ``x`` is JAX's
    ConcretizationTypeError naming ``what``."""
    if isinstance(x, core.Tracer):
        aval = core.get_aval(x)
        if not isinstance(aval, core.ConcreteArray):
            raise core.ConcretizationTypeError(x, what)
        x = aval.val
    return x if fn is None else fn(x)


def _no_out(name, out):
    """JAX's refusal of NumPy's ``out=`` (arrays are immutable): any value but None."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _divide_by_constant(x, c):
    """``x / c`` for a constant ``c``, as XLA computes it: its simplifier turns a division by
    a constant into a product with the constant's reciprocal (rounded to ``x``'s dtype),
    which is what JAX's jitted ``jnp.mean`` or ``jnp.log2`` returns, eagerly too. An integer
    ``x`` is divided (a ``mean`` asked for as an integer truncates, as in JAX)."""
    dtype = core.get_aval(x).dtype
    if dtypes.is_integer(dtype):
        return lax.div(x, np.asarray(c, dtype))
    with np.errstate(divide='ignore'):
        return lax.mul(x, np.divide(np.ones((), dtype), np.asarray(c, dtype)))


def _times_constant(x, c):
    """``x * c`` with ``c`` a constant of ``x``'s dtype, strongly typed as JAX's is (so a
    weakly typed ``x`` gives a strong result, as in ``jnp.log10(2.)``)."""
    return lax.mul(x, np.asarray(c, core.get_aval(x).dtype))


# ----------------------------------------------------------------------------- more math

arctan2 = atan2 = _binary(lax.atan2, 'arctan2', 'The angle of the point (x2, x1): atan(x1 / x2) '
                          'in the right quadrant.', to_float=True)
float_power = _binary(lax.pow, 'float_power', 'x ** y, in floating point.', to_float=True)
pow = power  # noqa: A001 (jnp.pow, the array API's name)


def _float_pair(x, y):
    x, y = _promote_shapes(*_promote(x, y))
    return _to_float(x), _to_float(y)


def hypot(x1, x2, /):
    """``sqrt(x1^2 + x2^2)`` as ``big * sqrt(1 + (small / big)^2)``: no overflow; inf if
    either is infinite (even with a NaN)."""
    x1, x2 = _float_pair(x1, x2)
    dtype = core.get_aval(x1).dtype
    if dtypes.is_complex(dtype):  # (JAX's error type)
        raise ValueError(f'hypot is not defined for complex inputs (got {dtype.name}): take '
                         'their abs first')
    a1, a2 = lax.abs(x1), lax.abs(x2)
    big, small = lax.max(a1, a2), lax.min(a1, a2)
    ratio = lax.div(small, _safe_where(lax.eq(big, 0.), big, 1.))
    out = lax.mul(big, lax.sqrt(lax.add(1., lax.mul(ratio, ratio))))
    return where(logical_or(isposinf(a1), isposinf(a2)), np.inf, out)


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow: JAX's ``custom_jvp`` function (see
    ``minijax.lax.log_add_exp``), with its derivative at infinities and ties."""
    return _logaddexp(*_float_pair(x1, x2))


def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow, as ``logaddexp`` in base 2."""
    return _logaddexp2(*_float_pair(x1, x2))


def copysign(x1, x2, /):
    """``|x1|`` with the sign bit of ``x2``."""
    x1, x2 = _float_pair(x1, x2)
    return where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


def fmax(x1, x2, /):
    """Elementwise maximum ignoring NaN: a NaN loses to a number."""
    x1, x2 = _promote(x1, x2)  # (greater, less and where broadcast them)
    return where(logical_or(greater(x1, x2), isnan(x2)), x1, x2)


def fmin(x1, x2, /):
    """Elementwise minimum ignoring NaN: a NaN loses to a number."""
    x1, x2 = _promote(x1, x2)  # (greater, less and where broadcast them)
    return where(logical_or(less(x1, x2), isnan(x2)), x1, x2)


def heaviside(x1, x2, /):
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0`` (NaN stays NaN)."""
    x1, x2 = _float_pair(x1, x2)  # (lax's comparisons: complex numbers are refused)
    return where(lax.less(x1, 0.), 0., where(lax.greater(x1, 0.), 1.,
                                             where(isnan(x1), x1, x2)))


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for an integer ``x2``, JAX's way: ``x1``'s own exponent split off
    (``frexp``) and added to ``x2``, so that a tiny ``x1`` scaled by a huge power of two
    does not overflow on the way."""
    x1_dtype, x2_dtype = core.get_aval(x1).dtype, core.get_aval(x2).dtype
    if dtypes.is_complex(x1_dtype) or dtypes.is_inexact(x2_dtype):  # (JAX's error type)
        raise ValueError(f'ldexp is not supported for input types ({x1_dtype}, {x2_dtype}): '
                         'x1 must be real and x2 an integer or bool array')
    x1 = _to_float(asarray(x1))
    x2 = lax.convert_element_type(x2, x1.dtype)
    m, e = frexp(x1)
    e = (e.astype(x2.dtype) + x2).astype(x1.dtype)
    m = _where(e > 0, m * 2, m)  # (an exponent one too large can still give a finite x)
    e = _where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(m.dtype))
    return _where(isinf(x1) | (x1 == 0), x1, x)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (the
    largest finite values by default)."""
    if not _is_float(x):
        return asarray(x)
    dtype = core.get_aval(x).dtype
    info = dtypes.finfo(dtype)
    x = where(isnan(x), _strong_value(nan, dtype), x)
    x = where(isposinf(x), _strong_value(info.max if posinf is None else posinf, dtype), x)
    return where(isneginf(x), _strong_value(info.min if neginf is None else neginf, dtype), x)


def _strong_value(v, dtype):
    """``v`` as a strongly typed ``dtype`` value (a NumPy scalar where ``v`` is a constant,
    so that it stays a literal when traced), as JAX converts a fill value."""
    if isinstance(v, core.Tracer):
        return lax.convert_element_type(v, dtype)
    return np.asarray(v, dtype)

# ----------------------------------------------------------------------------- more arrays








def searchsorted(a, v, side='left', sorter=None, *, method='scan'):
    """Where each ``v`` would be inserted into the sorted 1-D ``a``: the count of elements
    of ``a`` before it (below ``v``; at or below for ``side='right'``), NaN above all."""
    if side not in ('left', 'right'):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if np.ndim(a) != 1:
        raise ValueError(f'searchsorted: a must be 1-D, got shape {np.shape(a)}')
    a = asarray(a) if sorter is None else asarray(a)[sorter]
    a, v = _promote(a, asarray(v))
    a_col, v_row = reshape(a, (-1,) + (1,) * np.ndim(v)), expand_dims(v, 0)
    before = _nan_last_less(a_col, v_row) if side == 'left' else \
        logical_not(_nan_last_less(v_row, a_col))
    return astype(sum(before, 0), dtypes.int32)


def _nan_last_less(x, y):
    """``x < y`` in the order that puts NaN above everything, as ``sort`` does."""
    below = less(x, y)
    return logical_or(below, logical_and(logical_not(isnan(x)), isnan(y))) if _is_float(x) \
        else below


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` (``xp`` increasing) at
    ``x``; ``left``/``right`` outside (default: the end values), or periodic."""
    if np.ndim(xp) != 1 or np.shape(xp) != np.shape(fp):
        raise ValueError(f'interp: xp and fp must be one-dimensional arrays of equal size, '
                         f'got shapes {_shape_str(np.shape(xp))} and {_shape_str(np.shape(fp))}')
    x, xp, fp = (_to_float(asarray(v)) for v in (x, xp, fp))
    if period is not None:
        x, xp = remainder(x, period), remainder(xp, period)
        xp, fp = lax.sort_key_val(xp, fp)
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    i = clip(searchsorted(xp, x, side='right'), 1, np.shape(xp)[0] - 1)
    x0, x1, f0, f1 = xp[i - 1], xp[i], fp[i - 1], fp[i]
    dx = subtract(x1, x0)
    flat = less_equal(abs(dx), np.spacing(dtypes.finfo(core.get_aval(dx).dtype).eps))
    slope = true_divide(subtract(f1, f0), where(flat, 1., dx))
    f = where(flat, f0, add(f0, multiply(subtract(x, x0), slope)))
    if period is None:
        f = where(less(x, xp[0]), fp[0] if left is None else left, f)
        f = where(greater(x, xp[-1]), fp[-1] if right is None else right, f)
    return f


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at points ``x`` (or
    spaced ``dx``)."""
    y = moveaxis(_to_float(asarray(y)), axis, -1)
    if x is not None:
        x = asarray(x)
        dx = diff(x) if np.ndim(x) == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    n = np.shape(y)[-1]
    ends = add(lax.slice_in_dim(y, 1, n, axis=np.ndim(y) - 1),
               lax.slice_in_dim(y, 0, builtins.max(n - 1, 0), axis=np.ndim(y) - 1))
    return multiply(.5, sum(multiply(dx, ends), -1))


def select(condlist, choicelist, default=0):
    """``choicelist[i]`` where ``condlist[i]`` is the first condition that holds, else
    ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError(f'select: {len(condlist)} conditions for {len(choicelist)} choices')
    out = default
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        out = where(condition, choice, out)
    return asarray(out)


def choose(a, choices, out=None, mode='raise'):
    """``choices[a]`` elementwise, ``a`` and the choices broadcast together. An index out of
    ``range(len(choices))`` is an error (``mode='raise'``, which reads a concrete ``a``), or
    wraps around (``'wrap'``) or is clipped (``'clip'``)."""
    _no_out('choose', out)
    a = _choice_index(asarray(a), len(choices), mode)
    a, *choices = broadcast_arrays(a, *_promote(*map(asarray, choices)))
    return lax.select_n(a, *choices)


def _choice_index(a, n, mode):
    """``a`` as indices into ``n`` choices, checked, wrapped or clipped by ``mode``."""
    aval = core.get_aval(a)
    if not dtypes.is_integer(aval.dtype):
        raise ValueError('`a` array must be integer typed')
    if mode == 'wrap':
        return remainder(a, n)
    if mode == 'clip':
        return clip(a, 0, n - 1)
    if mode != 'raise':
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    if not isinstance(aval, core.ConcreteArray):
        raise core.ConcretizationTypeError(
            a, 'choose', "The error occurred because jnp.choose was jit-compiled with "
            "mode='raise'. Use mode='wrap' or mode='clip' instead.")
    values = np.asarray(aval.val)
    if values.size and (values.min() < 0 or values.max() >= n):
        raise ValueError('invalid entry in choice array')
    return a


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` (or the constant ``funclist[i]``) where ``condlist[i]``, the last
    condition that holds winning; an extra last function is the default. JAX's jit
    ``_piecewise``: the functions static, the constants traced."""
    x = asarray(x)
    condlist = list(condlist) if isinstance(condlist, (list, tuple)) else [condlist]
    if len(funclist) == len(condlist) + 1:
        funclist = [funclist[-1], *funclist[:-1]]
    elif len(funclist) == len(condlist):
        funclist = [0, *funclist]
    else:
        raise ValueError(f'piecewise: {len(funclist)} functions for {len(condlist)} '
                         'conditions (give one per condition, and one more as the default)')
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = frozenset((i, f) for i, f in enumerate(funclist) if callable(f))
    return _piecewise(x, asarray(condlist, dtype=bool), consts, funcs, *args, **kw)


def _piecewise(x, condlist, consts, funcs, *args, **kw):
    """Each element's branch (0, the default, where no condition holds) switched to, one
    element at a time (``vectorize`` of ``switch``)."""
    funcs = dict(funcs)
    dtype = x.dtype
    branches = [(lambda v, f=funcs[i]: f(v, *args, **kw).astype(dtype)) if i in funcs else
                (lambda v, c=consts[i]: array(c, dtype=dtype)) for i in range(len(condlist) + 1)]
    chosen = argmax(cumsum(concatenate([zeros_like(condlist[:1]), condlist], 0), 0), 0)
    return vectorize(_switch, excluded=(1,))(chosen, branches, x)


def isin(element, test_elements, assume_unique=False, invert=False, *, method='auto'):
    """Whether each element is one of ``test_elements``: JAX's jit ``_in1d`` of the flattened
    arrays (every pair compared, whatever the method)."""
    return reshape(_in1d(element, test_elements, invert), np.shape(element))


def _in1d(ar1, ar2, invert):
    ar1, ar2 = (ravel(x) for x in _promote(asarray(ar1), asarray(ar2)))
    if invert:
        return all(not_equal(ar1[:, None], ar2[None, :]), -1)
    return any(equal(ar1[:, None], ar2[None, :]), -1)


# ----------------------------------------------------------------------------- kinds and dtypes


def isscalar(element):
    """Whether ``element`` is a scalar: a Python or NumPy scalar, or a 0-d array."""
    if isinstance(element, (arrays.Array, core.Tracer, np.ndarray)):
        return np.ndim(element) == 0
    return builtins.bool(np.isscalar(element))


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (whatever its values)."""
    return dtypes.is_complex(x.dtype if hasattr(x, 'dtype') else np.asarray(x).dtype)


def iscomplex(x):
    """Elementwise: whether the imaginary part is nonzero."""
    return not_equal(imag(x), 0)


def isreal(x):
    """Elementwise: whether the imaginary part is zero."""
    return equal(imag(x), 0)


def _as_dtype(t):
    """A dtype from a dtype-like; Python's ``int`` and ``float`` are 64-bit (x64)."""
    return dtypes.check_supported({int: np.int64, float: np.float64,
                                   builtins.bool: np.bool_}.get(t, t))


def promote_types(a, b):
    """The dtype ``a`` and ``b`` promote to, on JAX's lattice."""
    return dtypes.promote((_as_dtype(a), False), (_as_dtype(b), False))[0]


def can_cast(from_, to, casting='safe'):
    """Whether a cast between the dtypes is allowed under ``casting`` (NumPy's rules)."""
    return builtins.bool(np.can_cast(_as_dtype(from_), _as_dtype(to), casting))


# ----------------------------------------------------------------------------- creation

def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (a scalar, possibly traced); weakly
    typed where ``fill_value`` is and ``dtype`` is not given, as in JAX. On ``device``, or
    sharded as ``out_sharding`` says."""
    _device_or_out_sharding(device, out_sharding)
    shape = core.canonicalize_shape(shape, 'full')
    fill_aval = core.get_aval(fill_value)
    weak_type = dtype is None and fill_aval.weak_type
    dtype = dtypes.check_supported(dtype if dtype is not None else fill_aval.dtype, 'full')
    return _filled_on(_full(shape, fill_value, dtype, weak_type, out_sharding), device)


def _filled_on(out, device):
    """A filled array ``out`` on ``device``: eagerly, strongly typed, as JAX builds it for a
    device (from its shards)."""
    if device is not None and not isinstance(out, core.Tracer):
        out = lax.convert_element_type(out, core.get_aval(out).dtype, weak_type=False)
    return _placed(out, device)


def _full(shape, fill_value, dtype, weak_type, out_sharding=None):
    """A traced or non-scalar ``fill_value`` is broadcast to ``shape`` (a ValueError if it
    cannot be, as in JAX); a concrete scalar is ``lax.full``'s broadcast constant."""
    if isinstance(fill_value, core.Tracer) or np.ndim(fill_value):
        return broadcast_to(_cast(fill_value, dtype, weak_type), shape, out_sharding=out_sharding)
    return lax.full(shape, fill_value, dtype, weak_type=weak_type, sharding=out_sharding)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    return full(shape, 0, dtype or float64, device=device, out_sharding=out_sharding)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    return full(shape, 1, dtype or float64, device=device, out_sharding=out_sharding)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """``zeros``: XLA has no uninitialized arrays (nor has JAX)."""
    return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """``full`` with ``a``'s shape and dtype, weakly typed where ``a`` is (JAX's rule), and
    its sharding when the shape is its own (unless ``out_sharding`` or ``device`` says
    where)."""
    _device_or_out_sharding(device, out_sharding)
    aval = core.get_aval(a)
    sharding = aval._sharding if shape is None and device is None else None
    sharding = sharding if out_sharding is None else out_sharding
    shape = aval.shape if shape is None else core.canonicalize_shape(shape, 'full_like')
    if dtype is not None:
        out = full(shape, fill_value, dtype, out_sharding=sharding)
    else:
        out = _full(shape, fill_value, aval.dtype, aval.weak_type, sharding)
    return _filled_on(out, device)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return full_like(a, 0, dtype, shape, device=device, out_sharding=out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return full_like(a, 1, dtype, shape, device=device, out_sharding=out_sharding)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """``zeros_like``: XLA has no uninitialized arrays (nor has JAX)."""
    return zeros_like(prototype, dtype, shape, device=device)


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """``start, start + step, ...`` below ``stop`` (static bounds), built on ``iota``; on
    ``device``, or sharded as ``out_sharding`` says."""
    _device_or_out_sharding(device, out_sharding)
    return _placed(_arange(start, stop, step, dtype, out_sharding), device)


def _arange(start, stop, step, dtype, out_sharding):
    """JAX's three forms: ``iota`` (from 0 by 1), ``start + iota``, and ``start + step *
    iota`` (computed in float32 for a narrow float ``dtype``, then converted)."""
    if builtins.any(np.iscomplexobj(v) for v in (start, stop, step)):
        raise ValueError(f'arange: complex start, stop or step are not supported (as in JAX), '
                         f'got {start!r}, {stop!r}, {step!r}')
    if dtype is None:  # of the bounds given (arange(np.int32(3)) is int32)
        dtype = np.result_type(*(type(v) for v in (start, stop, step) if v is not None))
    dtype = dtypes.check_supported(dtype, 'arange')
    if stop is None:
        start, stop = 0, start
    if step is None:
        n = builtins.max(0, int(np.ceil(stop - start)))
        out = lax.broadcasted_iota(dtype, (n,), 0, out_sharding=out_sharding)
        return out if start == 0 else lax.add(lax.convert_element_type(start, dtype), out)
    if step == 0:
        raise ZeroDivisionError('arange: step must not be zero')  # JAX's (and NumPy's) class
    n = builtins.max(0, int(np.ceil((stop - start) / step)))
    working = dtypes.float32 if dtype in dtypes.NARROW_FLOATS else dtype
    out = lax.add(lax.convert_element_type(start, working),
                  lax.mul(lax.convert_element_type(step, working),
                          lax.broadcasted_iota(working, (n,), 0, out_sharding=out_sharding)))
    return lax.convert_element_type(out, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` along ``axis`` (JAX's formula
    ``start * (1 - t) + stop * t`` for ``t = i / div``, then ``stop``, in JAX's ``jit`` of
    it, so that the last bits are JAX's); with ``retstep``, also the step between them; on
    ``device``."""
    num = operator.index(num)
    axis = _static_int(axis, 'linspace: axis')
    out = _linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if retstep:
        return _placed(out[0], device), out[1]
    return _placed(out, device)


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if num < 0:
        raise ValueError(f'linspace: number of samples, {num}, must be non-negative')
    start, stop = asarray(start), asarray(stop)
    dtype, computation = _spaced_dtypes(start, stop, dtype, 'linspace')
    start, stop = astype(start, computation), astype(stop, computation)
    bounds_shape = list(np.broadcast_shapes(np.shape(start), np.shape(stop)))
    start_, stop_ = broadcast_to(start, bounds_shape), broadcast_to(stop, bounds_shape)
    axis = core.canonicalize_axis(axis, len(bounds_shape) + 1, 'linspace: axis')
    bounds_shape.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = lax.convert_element_type(stop - start, computation) / asarray(div, computation)
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        real = dtypes.real_part_dtype(computation)
        step = astype(lax.iota(real, div).reshape(iota_shape) / asarray(div, real), computation)
        out = start_.reshape(bounds_shape) * (1 - step) + stop_.reshape(bounds_shape) * step
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(stop_, (axis,))], axis)
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, computation)
        out = start_.reshape(bounds_shape)
    else:
        delta = full((), np.nan, computation)
        out = empty([*bounds_shape[:axis], 0, *bounds_shape[axis + 1:]], dtype)
    if dtypes.is_integer(dtype) and not dtypes.is_integer(core.get_aval(out).dtype):
        out = lax.floor(out)
    out = lax.convert_element_type(out, dtype)
    return (out, delta) if retstep else out


def _spaced_dtypes(start, stop, dtype, name):
    """The dtype of evenly spaced values (by default the bounds', made inexact) and the
    inexact one they are computed in."""
    if dtype is None:
        bounds = result_type(start, stop)
        dtype = dtypes.FLOAT_OF.get(bounds, bounds)
    dtype = dtypes.check_supported(dtype, name)
    return dtype, dtypes.FLOAT_OF.get(dtype, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values from ``start`` to ``stop`` evenly spaced on a log scale, their sign
    ``start``'s (JAX's jit ``_geomspace``, on ``logspace``)."""
    return _geomspace(start, stop, operator.index(num), endpoint, dtype,
                      _static_int(axis, 'geomspace: axis'))


def _geomspace(start, stop, num, endpoint, dtype, axis):
    dtype, computation = _spaced_dtypes(start, stop, dtype, 'geomspace')
    start, stop = astype(asarray(start), computation), astype(asarray(stop), computation)
    sign_ = sign(start)
    out = sign_ * logspace(log10(start / sign_), log10(stop / sign_), num, endpoint,
                           dtype=computation)
    axis = core.canonicalize_axis(axis, np.ndim(out), 'geomspace: axis')
    if axis:  # (the values' axis, first, moved to ``axis``)
        out = lax.transpose(out, (*range(1, axis + 1), 0, *range(axis + 1, np.ndim(out))))
    return lax.convert_element_type(out, dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop)`` (JAX's jit ``_logspace``, ``base`` traced)."""
    return _logspace(start, stop, operator.index(num), endpoint, base, dtype,
                     _static_int(axis, 'logspace: axis'))


def _logspace(start, stop, num, endpoint, base, dtype, axis):
    dtype, computation = _spaced_dtypes(start, stop, dtype, 'logspace')
    start, stop = astype(asarray(start), computation), astype(asarray(stop), computation)
    return lax.convert_element_type(power(base, linspace(start, stop, num, endpoint, axis=axis)),
                                    dtype)


# ----------------------------------------------------------------------------- the API boundary

from minijax.numpy._boundary import (install_api_boundary as _install_api_boundary,  # noqa: E402
                                      returns_arrays as _returns_arrays)

_install_api_boundary(sys.modules[__name__], __name__)

# The topic modules are written on the functions above (wrapped, as every caller sees them),
# so they come last; their public functions get the same boundary and join this namespace.
# The shape functions come first: every other topic module imports some of them.
from minijax.numpy import _shapes  # noqa: E402
_install_api_boundary(_shapes, _shapes.__name__)
from minijax.numpy._shapes import (atleast_1d, atleast_2d, column_stack, concat, concatenate,
                                   expand_dims, flip, fliplr, flipud, hstack, matrix_transpose,
                                   meshgrid, moveaxis, pad, permute_dims, ravel, repeat, reshape,
                                   roll, rot90, split, squeeze, stack, swapaxes, tile,
                                   transpose, unstack, vstack)  # noqa: E402
from minijax.numpy import _index_arrays  # noqa: E402  (it uses stack, from _shapes)
_install_api_boundary(_index_arrays, _index_arrays.__name__)
from minijax.numpy._index_arrays import (diag_indices, indices, ravel_multi_index, tril_indices,
                                         triu_indices, unravel_index)  # noqa: E402
from minijax.numpy import _reductions  # noqa: E402
_install_api_boundary(_reductions, _reductions.__name__)
from minijax.numpy._reductions import (all, amax, amin, any, argmax, argmin,  # noqa: A004
                                       argpartition, argsort, count_nonzero, cumprod, cumsum,
                                       max, mean, min, nancumprod, nancumsum, partition,
                                       prod, sort, std, sum, var)  # noqa: E402
from minijax.numpy import _indexing  # noqa: E402
_install_api_boundary(_indexing, _indexing.__name__)
_install_api_boundary(_indexing._IndexUpdateRef, _indexing.__name__)
from minijax.numpy._indexing import take, take_along_axis, _IndexUpdateRef  # noqa: E402
from minijax.numpy import _linear_algebra  # noqa: E402
_install_api_boundary(_linear_algebra, _linear_algebra.__name__)
from minijax.numpy._linear_algebra import (_norm, convolve, correlate, cross, diag, diagonal, dot,
                                           einsum, einsum_path, eye, identity, inner, kron,
                                           matmul, outer, tensordot, trace, tri, tril, triu, vdot,
                                           vecdot)  # noqa: E402
from minijax.numpy import _statistics  # noqa: E402
_install_api_boundary(_statistics, _statistics.__name__)
from minijax.numpy._statistics import (average, corrcoef, cov, cumulative_prod, cumulative_sum,
                                       diff, digitize, ediff1d, gradient, histogram,
                                       histogram2d, histogram_bin_edges, histogramdd,
                                       median, nanargmax, nanargmin, nanmax, nanmean, nanmedian,
                                       nanmin, nanpercentile, nanprod, nanquantile, nanstd,
                                       nansum, nanvar, percentile, ptp, quantile)  # noqa: E402
from minijax.numpy import _data_dependent  # noqa: E402  (it uses diff, from _statistics)
_install_api_boundary(_data_dependent, _data_dependent.__name__)
from minijax.numpy._data_dependent import (argwhere, bincount, compress, extract, flatnonzero,
                                           lexsort, nonzero, unique)  # noqa: E402
from minijax.numpy import linalg  # noqa: E402  (jnp.linalg)
for _name in linalg.__all__:
    setattr(linalg, _name, _returns_arrays(getattr(linalg, _name)))
from minijax.numpy import fft  # noqa: E402  (jnp.fft)
for _name in fft.__all__:
    setattr(fft, _name, _returns_arrays(getattr(fft, _name)))
from minijax.numpy import _polynomial  # noqa: E402  (it uses linalg.lstsq)
_install_api_boundary(_polynomial, _polynomial.__name__)
from minijax.numpy._polynomial import (poly, polyadd, polyder, polydiv, polyfit, polyint,
                                       polymul, polysub, polyval, roots, vander)  # noqa: E402
from minijax.numpy import _ufuncs  # noqa: E402
_install_api_boundary(_ufuncs, _ufuncs.__name__)
from minijax.numpy._ufuncs import frompyfunc, ufunc, vectorize  # noqa: E402
from minijax.numpy import _elementwise  # noqa: E402  (it uses vectorize)
_install_api_boundary(_elementwise, _elementwise.__name__)
from minijax.numpy._elementwise import (array_equiv, bitwise_left_shift,  # noqa: E402
                                        bitwise_right_shift, frexp, gcd, i0, isdtype,
                                        isrealobj, lcm, matvec, modf, nextafter, packbits,
                                        sort_complex, spacing, unpackbits, unwrap, vecmat)
from minijax.numpy import _creation  # noqa: E402  (it uses i0)
_install_api_boundary(_creation, _creation.__name__)
from minijax.numpy._creation import (bartlett, blackman, c_, diag_indices_from,  # noqa: E402
                                     diagflat, fill_diagonal, from_dlpack, frombuffer,
                                     fromfile, fromfunction, fromiter, fromstring, hamming,
                                     hanning, ix_, kaiser, load, mask_indices, mgrid, ogrid, r_,
                                     tril_indices_from, triu_indices_from)
from minijax.numpy import _editing  # noqa: E402
_install_api_boundary(_editing, _editing.__name__)
from minijax.numpy._editing import (append, apply_along_axis, apply_over_axes,  # noqa: E402
                                    array_split, atleast_3d, block, delete, dsplit, dstack,
                                    hsplit, insert, place, put, put_along_axis, resize,
                                    rollaxis, trim_zeros, vsplit)
from minijax.numpy import _sets  # noqa: E402
_install_api_boundary(_sets, _sets.__name__)
from minijax.numpy._sets import (intersect1d, setdiff1d, setxor1d, union1d,  # noqa: E402
                                 unique_all, unique_counts, unique_inverse, unique_values)
from minijax.numpy import _array_api  # noqa: E402  (the array API standard's entry points)
__array_api_version__ = _array_api.ARRAY_API_VERSION
__array_namespace_info__ = _array_api.__array_namespace_info__
from minijax.numpy import _methods  # noqa: E402  (Arrays' and tracers' operators and methods)
_methods.install(core.Tracer)
_methods.install(arrays.Array)
# JAX's binary functions (and negative) are ufunc objects (``jnp.add.outer``,
# ``jnp.add.reduce``...): each replaces its function here, last, the operators and the other
# modules having taken the function itself.
for _name, _ufunc in _ufuncs.jnp_ufuncs(sys.modules[__name__]).items():
    globals()[_name] = _ufunc


__getattr__ = unsupported.missing_name('jax.numpy')
