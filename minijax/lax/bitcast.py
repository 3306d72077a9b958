"""``bitcast_convert_type``: the same bits read as another dtype (NumPy's ``view``).

Where ``convert_element_type`` keeps the *value* (``1.0`` -> ``1``), a bitcast keeps the
*bits* (``1.0`` -> ``0x3f800000``). ``minijax.random`` needs it to build floats from random
bits: random bits under the exponent of 1.0 read as a float lie uniformly in [1, 2).

As in JAX and StableHLO, the widths may differ: a wider element becomes a trailing axis of
narrower ones (float64[3] -> int32[3, 2]), and a trailing axis of narrower elements becomes
one wider element (int32[3, 2] -> float64[3]); within an element the order of the narrow
pieces is the machine's (little-endian on x86 and ARM), as XLA's CPU backend has it too.
The output's bits do not vary smoothly with the input, so its derivative is zero.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import moveaxis
from minijax.lowering import register_lowering, tensor_type

bitcast_convert_type_p = Primitive('bitcast_convert_type')


def bitcast_convert_type(operand, new_dtype):
    """The bits of ``operand`` read as ``new_dtype`` (a trailing axis appears or disappears
    when the widths differ)."""
    new_dtype = dtypes.check_supported(new_dtype, 'bitcast_convert_type target')
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


def _bits(dtype):
    return np.dtype(dtype).itemsize * 8


def _out_shape(shape, old_dtype, new_dtype):
    """The shape rule: equal widths keep the shape; a narrower target adds a trailing axis of
    ``old / new`` pieces; a wider one consumes a trailing axis of exactly ``new / old``."""
    old_bits, new_bits = _bits(old_dtype), _bits(new_dtype)
    if old_bits == new_bits:
        return tuple(shape)
    if old_bits > new_bits:
        return (*shape, old_bits // new_bits)
    if not shape or shape[-1] * old_bits != new_bits:
        raise ValueError(
            f'bitcast_convert_type: {old_dtype.name}{list(shape)} -> {new_dtype.name} needs a '
            f'trailing axis of {new_bits // old_bits} elements, got shape {tuple(shape)}')
    return tuple(shape[:-1])


def _abstract_eval(x, *, new_dtype):
    """Bool and complex values have no bits to reinterpret but as themselves (JAX's rule)."""
    if x.dtype != new_dtype and any(dtypes.kind(d) in 'bc' for d in (x.dtype, new_dtype)):
        raise TypeError(f'bitcast_convert_type does not support bool or complex values unless '
                        f'the dtypes match, got {x.str_short()} -> {np.dtype(new_dtype).name}')
    return ShapedArray(_out_shape(x.shape, x.dtype, new_dtype), new_dtype)


def _impl(x, *, new_dtype):
    """NumPy's ``view`` reinterprets the trailing axis, which a 0-d array lacks: it is read
    as a 1-element vector."""
    x = np.require(x, requirements='C')  # (np.ascontiguousarray makes a scalar 1-d)
    out_shape = _out_shape(x.shape, x.dtype, new_dtype)
    return np.atleast_1d(x).view(new_dtype).reshape(out_shape)


def _batching(vals, dims, *, new_dtype):
    """Elementwise along every axis but the trailing one a width change adds or consumes:
    a batch axis there moves to the front first."""
    (x,), (dim,) = vals, dims
    ndim = x.ndim if hasattr(x, 'ndim') else np.ndim(x)
    if dim == ndim - 1 and _bits(x.dtype) < _bits(new_dtype):
        x, dim = moveaxis(x, dim, 0), 0
    return bitcast_convert_type(x, new_dtype), dim


bitcast_convert_type_p.def_impl(_impl)
bitcast_convert_type_p.def_abstract_eval(_abstract_eval)
ad.defjvp_zero(bitcast_convert_type_p)
bitcast_convert_type_p.def_batching(_batching)
register_lowering(
    bitcast_convert_type_p,
    lambda ctx, x, *, new_dtype: hlo.BitcastConvertOp(tensor_type(ctx.avals_out[0]), x).result)
