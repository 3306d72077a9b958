"""Bitwise and integer primitives: ``and``, ``or``, ``xor``, ``not``, the three shifts,
``population_count``, ``clz`` and ``rem``, each with every rule.

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

from minijax import dtypes
from minijax.core import ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import (
    ANY, _binary_abstract_eval, _binary_function, _hlo_binary, binary_primitive, div, mul, neg,
    safe_integer_divisor, sub, unary_primitive)

# ----------------------------------------------------------------------------- type checks


def _check_kind(name, aval, allow_bool):
    allowed = 'biu' if allow_bool else 'iu'
    if dtypes.kind(aval.dtype) not in allowed:
        wanted = 'boolean or integer' if allow_bool else 'integer'
        raise TypeError(f'{name} needs {wanted} operands, got {aval.str_short()}')


def _integer_binary_primitive(name, impl, hlo_op, allow_bool):
    """A binary primitive on integers (and booleans if ``allow_bool``) with a zero tangent."""
    prim = binary_primitive(name, impl, _hlo_binary(hlo_op))
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
    """d rem(x, y) / dy = -trunc(x / y), the quotient rounded towards zero; minijax has no
    rounding primitive, so it is taken as (x - rem(x, y)) / y, an integer up to rounding."""
    return neg(mul(t, div(sub(x, rem(x, y)), y)))


ad.defjvp(rem_p, lambda t, x, y: t, _rem_jvp_divisor)
