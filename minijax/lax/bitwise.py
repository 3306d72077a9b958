"""Bitwise and integer primitives: ``and``, ``or``, ``xor``, ``not``, the three shifts,
``population_count``, ``clz``, ``mulhi`` and ``rem``, each with every rule.

They work on the bits of integers (``and``/``or``/``xor``/``not`` on booleans too), so they
have no derivative: their tangent is zero, as in JAX. ``rem``, the C remainder (the sign of
the dividend), works on floats too and is differentiable.

The NumPy implementations follow XLA where C leaves the answer undefined, so that eager
results match compiled ones: a shift by the bit width or more gives 0 (``shift_left``,
``shift_right_logical``) or the sign bit everywhere (``shift_right_arithmetic``), the shift
amount read as unsigned; ``rem(x, 0)`` is ``x`` and ``rem(INT_MIN, -1)`` is 0 for integers.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import (
    ANY, _binary_abstract_eval, _binary_function, _hlo_binary, abs, add, binary_primitive,
    convert_element_type, div, mul, neg, promote_weak_scalars, safe_integer_divisor, sign, sub,
    unary_primitive)
from minijax.lax.bitcast import bitcast_convert_type
from minijax.lax.rounding import floor
from minijax.lowering import lower_fun

# ----------------------------------------------------------------------------- type checks


def _check_kind(name, aval, allow_bool):
    allowed = 'biu' if allow_bool else 'iu'
    if dtypes.kind(aval.dtype) not in allowed:
        wanted = 'boolean or integer' if allow_bool else 'integer'
        raise TypeError(f'{name} needs {wanted} operands, got {aval.str_short()}')


def _integer_binary_primitive(name, impl, hlo_op, allow_bool):
    """A binary primitive on integers (and booleans if ``allow_bool``) with a zero tangent,
    lowered to ``hlo_op`` (a class of op, or a lowering function)."""
    lowering = _hlo_binary(hlo_op) if isinstance(hlo_op, type) else hlo_op
    prim = binary_primitive(name, impl, lowering)
    same_types = _binary_abstract_eval(name)

    def abstract_eval(x, y):
        _check_kind(name, x, allow_bool)
        return same_types(x, y)

    prim.def_abstract_eval(abstract_eval)
    ad.defjvp_zero(prim)
    return prim


def _integer_unary_primitive(name, impl, hlo_op, allow_bool):
    prim = unary_primitive(name, impl, hlo_op, None, accepts=ANY)

    def abstract_eval(x):
        _check_kind(name, x, allow_bool)
        return ShapedArray(x.shape, x.dtype, x.weak_type)

    prim.def_abstract_eval(abstract_eval)
    return prim


def _function(prim, name, arity, doc):
    fn = _binary_function(prim, doc) if arity == 2 else lambda x: prim.bind(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn

# ----------------------------------------------------------------------------- and, or, xor, not


and_p = _integer_binary_primitive('and', np.bitwise_and, hlo.AndOp, allow_bool=True)
or_p = _integer_binary_primitive('or', np.bitwise_or, hlo.OrOp, allow_bool=True)
xor_p = _integer_binary_primitive('xor', np.bitwise_xor, hlo.XorOp, allow_bool=True)
not_p = _integer_unary_primitive('not', np.invert, hlo.NotOp, allow_bool=True)

bitwise_and = _function(and_p, 'bitwise_and', 2, 'Elementwise x & y (logical and of bools).')
bitwise_or = _function(or_p, 'bitwise_or', 2, 'Elementwise x | y (logical or of bools).')
bitwise_xor = _function(xor_p, 'bitwise_xor', 2, 'Elementwise x ^ y (logical xor of bools).')
bitwise_not = _function(not_p, 'bitwise_not', 1, 'Elementwise ~x (logical not of bools).')

# ----------------------------------------------------------------------------- shifts


def _unsigned(dtype):
    return np.dtype(f'uint{8 * np.dtype(dtype).itemsize}')


def _signed(dtype):
    return np.dtype(f'int{8 * np.dtype(dtype).itemsize}')


def _shift_impl(shift, overflow_fill):
    """A NumPy shift with XLA's answer for amounts of the bit width or more (read as
    unsigned, so a negative amount is a huge one): ``overflow_fill(x)``. NumPy (and C)
    leave those undefined."""
    def impl(x, y):
        x, y = np.asarray(x), np.asarray(y)
        amount = y.astype(_unsigned(y.dtype))  # two's complement: -1 becomes the maximum
        too_far = amount >= 8 * x.dtype.itemsize
        shifted = shift(x, np.where(too_far, 0, amount).astype(x.dtype))
        return np.where(too_far, overflow_fill(x), shifted).astype(x.dtype)
    return impl


def _logical_right_shift(x, amount):
    """Shift in zeros from the left whatever the sign: shift the bits as unsigned."""
    unsigned = _unsigned(x.dtype)
    return np.right_shift(x.view(unsigned), amount.view(unsigned)).view(x.dtype)


def _arithmetic_right_shift(x, amount):
    """Shift in copies of the top bit, even for unsigned types (as XLA does): shift the bits
    as signed."""
    signed = _signed(x.dtype)
    return np.right_shift(x.view(signed), amount.view(signed)).view(x.dtype)


def _sign_fill(x):
    """Every bit a copy of the top (sign) bit: all ones where it is set, 0 elsewhere."""
    return _arithmetic_right_shift(x, np.full_like(x, 8 * x.dtype.itemsize - 1))


shift_left_p = _integer_binary_primitive(
    'shift_left', _shift_impl(np.left_shift, np.zeros_like), hlo.ShiftLeftOp, allow_bool=False)
shift_right_logical_p = _integer_binary_primitive(
    'shift_right_logical', _shift_impl(_logical_right_shift, np.zeros_like),
    hlo.ShiftRightLogicalOp, allow_bool=False)
shift_right_arithmetic_p = _integer_binary_primitive(
    'shift_right_arithmetic', _shift_impl(_arithmetic_right_shift, _sign_fill),
    hlo.ShiftRightArithmeticOp, allow_bool=False)

shift_left = _function(shift_left_p, 'shift_left', 2,
                       'Elementwise x << y; 0 where y is the bit width or more.')
shift_right_logical = _function(
    shift_right_logical_p, 'shift_right_logical', 2,
    'Elementwise x >> y shifting in zeros; 0 where y is the bit width or more.')
shift_right_arithmetic = _function(
    shift_right_arithmetic_p, 'shift_right_arithmetic', 2,
    'Elementwise x >> y shifting in copies of the sign bit (-1 or 0 once y reaches the '
    'bit width).')

# ----------------------------------------------------------------------------- bit counts


def _population_count(x):
    """Set bits per element, counted in the unsigned view (NumPy counts |x| for signed)."""
    return np.bitwise_count(x.view(_unsigned(x.dtype))).astype(x.dtype)


def _count_leading_zeros(x):
    """Bit width minus the position of the highest set bit, found one bit at a time."""
    bits = 8 * x.dtype.itemsize
    unsigned = x.view(_unsigned(x.dtype))
    length = sum((unsigned >> np.array(k, unsigned.dtype)) != 0 for k in range(bits))
    return (bits - length).astype(x.dtype)


population_count_p = _integer_unary_primitive('population_count', _population_count,
                                              hlo.PopulationCountOp, allow_bool=False)


def _clz_of_the_bits(x):
    """``stablehlo.count_leading_zeros`` of ``x``'s bits read as unsigned: XLA's constant
    folder (jaxlib 0.10.2) widens a signed int8/16/32 constant to 64 bits with its sign, so
    it folds the count of a negative one to a negative number (-32 for int32), where the
    compiled code and the StableHLO spec give 0."""
    signed = ir.RankedTensorType(x.type)
    element = ir.IntegerType(signed.element_type)
    if element.is_unsigned:
        return hlo.ClzOp(x)
    unsigned = ir.RankedTensorType.get(signed.shape, ir.IntegerType.get_unsigned(element.width))
    count = hlo.ClzOp(hlo.BitcastConvertOp(unsigned, x).result).result
    return hlo.BitcastConvertOp(signed, count)


clz_p = _integer_unary_primitive('clz', _count_leading_zeros, _clz_of_the_bits,
                                 allow_bool=False)

population_count = _function(population_count_p, 'population_count', 1,
                             'Elementwise number of set bits.')
clz = _function(clz_p, 'clz', 1, 'Elementwise number of leading zero bits.')

# ----------------------------------------------------------------------------- mulhi


def _multiply_high(x, y):
    """The upper half of each 2N-bit product, from Python's unbounded integers (whose ``>>``
    floors, as the upper word of a two's-complement product does)."""
    x, y = np.asarray(x), np.asarray(y)
    bits = 8 * x.dtype.itemsize
    wide = x.astype(object) * y.astype(object)
    return np.asarray(wide >> bits, dtype=object).astype(x.dtype).reshape(np.shape(wide))


def _multiply_high_by_halves(x, y):
    """The upper word of a 64-bit product from the four products of 32-bit halves (none of
    the sums below can carry out of 64 bits). For signed operands, the unsigned upper word
    counts a negative x as x + 2**64, so it is y too large; a negative y likewise."""
    dtype = core.get_aval(x).dtype
    u, v = (bitcast_convert_type(a, np.uint64) for a in (x, y))
    half, low_mask = np.uint64(32), np.uint64(0xFFFFFFFF)
    u_low, u_high = bitwise_and(u, low_mask), shift_right_logical(u, half)
    v_low, v_high = bitwise_and(v, low_mask), shift_right_logical(v, half)
    low_by_high = mul(u_low, v_high)
    high_by_low = mul(u_high, v_low)
    middle = add(add(shift_right_logical(mul(u_low, v_low), half),
                     bitwise_and(high_by_low, low_mask)), low_by_high)
    high = add(add(mul(u_high, v_high), shift_right_logical(high_by_low, half)),
               shift_right_logical(middle, half))
    if dtypes.kind(dtype) == 'u':
        return high
    x_negative, y_negative = (bitcast_convert_type(shift_right_arithmetic(a, np.int64(63)),
                                                   np.uint64) for a in (x, y))
    high = sub(sub(high, bitwise_and(x_negative, v)), bitwise_and(y_negative, u))
    return bitcast_convert_type(high, dtype)


def _multiply_high_expanded(x, y):
    """mulhi from ops XLA compiles anywhere, as JAX lowers it for jaxlibs without
    ``chlo.mulhi``: XLA in jaxlib 0.10.2 has the op but fails to compile it inside most
    fusions (JAX's own jit then fails). Narrower than 64 bits: one product in twice the
    width, shifted down; 64 bits: by halves."""
    dtype = np.dtype(core.get_aval(x).dtype)
    if dtype.itemsize == 8:
        return _multiply_high_by_halves(x, y)
    wide = np.dtype(f'{dtype.kind}{2 * dtype.itemsize}')
    product = mul(convert_element_type(x, wide), convert_element_type(y, wide))
    shift = shift_right_arithmetic if dtype.kind == 'i' else shift_right_logical
    return convert_element_type(shift(product, np.array(8 * dtype.itemsize, wide)), dtype)


mulhi_p = _integer_binary_primitive('mulhi', _multiply_high, lower_fun(_multiply_high_expanded),
                                    allow_bool=False)


def mulhi(x, y, /):
    """Elementwise upper N bits of the 2N-bit product of N-bit integers."""
    return mulhi_p.bind(*promote_weak_scalars('mulhi', x, y))


# ----------------------------------------------------------------------------- rem


def _rem_impl(x, y):
    """C's remainder, the sign of ``x``: ``fmod`` for floats; for integers XLA's answers
    where C has none, ``rem(x, 0) = x`` and ``rem(INT_MIN, -1) = 0``."""
    x, y = np.asarray(x), np.asarray(y)
    if dtypes.is_float(x.dtype):
        return np.fmod(x, y)
    by_zero = y == 0
    minus_one = (y == -1) if dtypes.kind(y.dtype) == 'i' else np.zeros(y.shape, bool)
    safe_y = np.where(by_zero | minus_one, np.ones_like(y), y)  # x rem 1 = x rem -1 = 0
    return np.where(by_zero, x, np.fmod(x, safe_y))


def _rem_lowering(ctx, x, y):
    """``stablehlo.remainder``; for integers, with XLA's answer for ``x rem 0`` (``x``)
    chosen in the program, as ``div``'s lowering does."""
    if dtypes.is_float(ctx.avals_out[0].dtype):
        return hlo.RemOp(x, y).result
    by_zero, safe_y = safe_integer_divisor(ctx, x, y)
    return hlo.SelectOp(by_zero, x, hlo.RemOp(x, safe_y).result).result


rem_p = binary_primitive('rem', _rem_impl, _rem_lowering,  # no complex: XLA would crash
                         accepts=('iuf', 'integer or floating-point'))
rem = _function(rem_p, 'rem', 2,
                'Elementwise C remainder of x / y: the sign of x (``fmod`` for floats).')


def _rem_jvp_divisor(t, x, y):
    """d rem(x, y) / dy = -trunc(x / y), the quotient rounded towards zero, written as JAX
    writes it: sign(x / y) * floor(|x / y|), which is infinite (not NaN) for an infinite x."""
    quotient = div(x, y)
    return mul(neg(t), mul(sign(quotient), floor(abs(quotient))))


ad.defjvp(rem_p, lambda t, x, y: t, _rem_jvp_divisor)
