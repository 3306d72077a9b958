"""Reductions: reduce_sum, lowered to ``stablehlo.reduce`` with an ``add`` body."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.structural import broadcast
from minijax.lowering import register_lowering
from minijax.lowering.ops import reduce

reduce_sum_p = Primitive('reduce_sum')


def reduce_sum(x, axis=None):
    """Sum of ``x`` over ``axis`` (an int, a tuple of ints, or None for every axis)."""
    ndim = np.ndim(x)
    if axis is None:
        axis = tuple(range(ndim))
    elif isinstance(axis, int):
        axis = (axis,)
    axes = tuple(sorted(int(a) % ndim for a in axis)) if ndim else ()
    return reduce_sum_p.bind(x, axis=axes)


def _reduce_sum_abstract_eval(x, *, axis):
    if any(not 0 <= a < x.ndim for a in axis):
        raise TypeError(f'reduce_sum: axis {axis} out of range for {x.str_short()}')
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axis)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _reduce_sum_batching(vals, dims, *, axis):
    (x,), (bdim,) = vals, dims
    per_example = [a for a in range(np.ndim(x))
                   if a != bdim]
    new_axis = tuple(per_example[a] for a in axis)
    out_bdim = bdim - sum(a < bdim for a in new_axis)
    return reduce_sum_p.bind(x, axis=new_axis), out_bdim


def _reduce_sum_transpose(ct, x, *, axis):
    return [broadcast(ct, x.aval.shape, axis)]


reduce_sum_p.def_impl(lambda x, *, axis: np.sum(x, axis, dtype=np.asarray(x).dtype))
reduce_sum_p.def_abstract_eval(_reduce_sum_abstract_eval)
ad.defjvp_linear(reduce_sum_p)
reduce_sum_p.def_transpose(_reduce_sum_transpose)
reduce_sum_p.def_batching(_reduce_sum_batching)


def _reduce_sum_lowering(ctx, x, *, axis):
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    return reduce(x, np.zeros((), aval_in.dtype), axis, aval_out, hlo.AddOp)


register_lowering(reduce_sum_p, _reduce_sum_lowering)
