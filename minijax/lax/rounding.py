"""Rounding to integral values: ``floor``, ``ceil`` and ``round`` (away from zero, or to the
nearest even integer); the test ``is_finite``; ``nextafter``, the next representable
number; and ``reduce_precision``, rounding to a narrower float format. Primitives of
floating-point operands, each lowered to its StableHLO op as JAX lowers it (``nextafter``
to ``chlo.next_after``); their derivatives are zero (the roundings are piecewise constant,
``is_finite`` gives booleans), but for ``nextafter``, which JAX does not differentiate, and
``reduce_precision``, which JAX differentiates as if it were linear.
"""
from __future__ import annotations

import enum

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray
from minijax.lax.static import static_int
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import (
    FLOATING, binary_primitive, promote_weak_scalars, unary_primitive)
from minijax.lowering import register_lowering

floor_p = unary_primitive('floor', np.floor, hlo.FloorOp, accepts=FLOATING)
ceil_p = unary_primitive('ceil', np.ceil, hlo.CeilOp, accepts=FLOATING)


def floor(x):
    """Elementwise largest integral value not above ``x``."""
    return floor_p.bind(x)


def ceil(x):
    """Elementwise smallest integral value not below ``x``."""
    return ceil_p.bind(x)

# ----------------------------------------------------------------------------- round


class RoundingMethod(enum.IntEnum):
    """Which way ``round`` takes a value halfway between two integers (JAX's values)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


round_p = Primitive('round')


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001 (lax.round)
    """Elementwise nearest integral value; a tie goes away from zero (``2.5`` to ``3.``) or,
    with ``RoundingMethod.TO_NEAREST_EVEN``, to the even neighbour (``2.5`` to ``2.``)."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def _float_only(name, x):
    if not dtypes.is_float(x.dtype):
        raise TypeError(f'{name} does not accept dtype {x.dtype.name}. Accepted dtypes are '
                        'subtypes of floating.')  # (JAX's text)


def _round_abstract_eval(x, *, rounding_method):
    _float_only('round', x)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _round_impl(x, *, rounding_method):
    x = np.asarray(x)
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.rint(x)
    whole = np.trunc(x)  # x - whole is exact: a tie is seen as one
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole).astype(x.dtype)


_ROUND_OPS = {RoundingMethod.AWAY_FROM_ZERO: hlo.RoundOp,  # (stablehlo.round_nearest_afz)
              RoundingMethod.TO_NEAREST_EVEN: hlo.RoundNearestEvenOp}

round_p.def_impl(_round_impl)
round_p.def_abstract_eval(_round_abstract_eval)
ad.defjvp_zero(round_p)
round_p.def_batching(lambda vals, dims, **params: (round_p.bind(*vals, **params), dims[0]))
register_lowering(round_p, lambda ctx, x, *, rounding_method: _ROUND_OPS[rounding_method](
    x).result)

# ----------------------------------------------------------------------------- is_finite

is_finite_p = Primitive('is_finite')


def is_finite(x):
    """Elementwise ``True`` where ``x`` is neither infinite nor NaN."""
    return is_finite_p.bind(x)


def _is_finite_abstract_eval(x):
    _float_only('is_finite', x)
    return ShapedArray(x.shape, dtypes.bool_)


is_finite_p.def_impl(lambda x: np.isfinite(np.asarray(x)))
is_finite_p.def_abstract_eval(_is_finite_abstract_eval)
ad.defjvp_zero(is_finite_p)
is_finite_p.def_batching(lambda vals, dims: (is_finite_p.bind(*vals), dims[0]))
register_lowering(is_finite_p, lambda ctx, x: hlo.IsFiniteOp(x).result)

# ----------------------------------------------------------------------------- nextafter

nextafter_p = binary_primitive('nextafter', np.nextafter,
                               lambda ctx, x, y: chlo.NextAfterOp(x, y).result, accepts=FLOATING)


def nextafter(x1, x2):
    """Elementwise the floating-point number next to ``x1`` in the direction of ``x2``."""
    return nextafter_p.bind(*promote_weak_scalars('nextafter', x1, x2))

# ----------------------------------------------------------------------------- reduce_precision

reduce_precision_p = Primitive('reduce_precision')


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """``operand`` rounded to the float format with ``exponent_bits`` and ``mantissa_bits``
    (to nearest, ties to even), kept in its own dtype: what a value would be were it stored
    in the narrower format (``5, 10`` is float16), so a program can study rounding without
    changing its types."""
    return reduce_precision_p.bind(
        operand,
        exponent_bits=static_int(exponent_bits, 'reduce_precision', 'exponent_bits'),
        mantissa_bits=static_int(mantissa_bits, 'reduce_precision', 'mantissa_bits'))


def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
    _float_only('reduce_precision', x)
    if exponent_bits < 1:  # (JAX's texts)
        raise ValueError(f'reduce_precision: exponent_bits must be positive; got {exponent_bits}')
    if mantissa_bits < 0:
        raise ValueError('reduce_precision: mantissa_bits must be non-negative; got '
                         f'{mantissa_bits}')
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    """XLA's bit-level rounding: round the mantissa to nearest even, then an exponent above
    the narrow format's range is infinity and one below its normal range a signed zero (the
    narrow format keeps no subnormals); a NaN stays NaN."""
    x = np.asarray(x)
    width = 8 * x.dtype.itemsize
    kept_mantissa = dtypes.finfo(x.dtype).nmant
    own_exponent = width - 1 - kept_mantissa
    bits = x.view(f'uint{width}').astype(np.uint64)
    if mantissa_bits < kept_mantissa:
        dropped = np.uint64(kept_mantissa - mantissa_bits)
        last_kept = np.uint64(1) << dropped
        half_minus_one = (last_kept >> np.uint64(1)) - np.uint64(1)
        ties_to_even = (bits & last_kept) >> dropped
        bits = (bits + half_minus_one + ties_to_even) & ~(last_kept - np.uint64(1))
    if exponent_bits < own_exponent:
        exponent_mask = np.uint64(((1 << own_exponent) - 1) << kept_mantissa)
        own_bias, narrow_bias = (1 << (own_exponent - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        signed_zero = bits & np.uint64(1 << (width - 1))
        bits = np.where(exponent > np.uint64((own_bias + narrow_bias) << kept_mantissa),
                        signed_zero | exponent_mask,
                        np.where(exponent <= np.uint64((own_bias - narrow_bias) << kept_mantissa),
                                 signed_zero, bits))
    rounded = bits.astype(f'uint{width}').view(x.dtype)
    return np.where(np.isnan(x), x, rounded)


def _reduce_precision_lowering(ctx, x, *, exponent_bits, mantissa_bits):
    i32 = ir.IntegerType.get_signless(32)
    return hlo.ReducePrecisionOp(x, ir.IntegerAttr.get(i32, exponent_bits),
                                 ir.IntegerAttr.get(i32, mantissa_bits)).result


reduce_precision_p.def_impl(_reduce_precision_impl)
reduce_precision_p.def_abstract_eval(_reduce_precision_abstract_eval)
ad.defjvp_linear(reduce_precision_p)
reduce_precision_p.def_transpose(lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])
reduce_precision_p.def_batching(lambda vals, dims, **params: (
    reduce_precision_p.bind(*vals, **params), dims[0]))
register_lowering(reduce_precision_p, _reduce_precision_lowering)
