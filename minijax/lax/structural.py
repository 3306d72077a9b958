"""Primitives that move or replicate data: broadcast and transpose (all linear)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, lax
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import moveaxis
from minijax.lowering import register_lowering
from minijax.lowering.ops import broadcast_in_dim

# ----------------------------------------------------------------------------- broadcast

broadcast_p = Primitive('broadcast')


def broadcast(x, shape, axes):
    """``x`` replicated to ``shape``; ``axes`` are the result axes that ``x`` does not have."""
    return broadcast_p.bind(x, shape=tuple(int(d) for d in shape),
                            axes=tuple(sorted(int(a) % len(shape) for a in axes)))


def full(shape, fill_value, dtype):
    """An array of ``shape`` filled with ``fill_value``: a broadcast scalar, not a big constant."""
    return broadcast(np.array(fill_value, dtype), shape, tuple(range(len(shape))))


def _kept_dims(shape, axes):
    return [i for i in range(len(shape)) if i not in axes]


def _broadcast_abstract_eval(x, *, shape, axes):
    kept = tuple(shape[i] for i in _kept_dims(shape, axes))
    if kept != x.shape:
        raise TypeError(f'broadcast: operand {x.str_short()} does not fit shape {shape} '
                        f'with new axes {axes}')
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_batching(vals, dims, *, shape, axes):
    (x,), (bdim,) = vals, dims
    x = moveaxis(x, bdim, 0)
    size = core.get_aval(x).shape[0]
    new_axes = tuple(a + 1 for a in axes)
    return broadcast(x, (size, *shape), new_axes), 0


broadcast_p.def_impl(lambda x, *, shape, axes: np.broadcast_to(np.expand_dims(x, axes), shape))
broadcast_p.def_abstract_eval(_broadcast_abstract_eval)
ad.defjvp_linear(broadcast_p)
broadcast_p.def_transpose(lambda ct, x, *, shape, axes: [lax.reduce_sum(ct, axes)])
broadcast_p.def_batching(_broadcast_batching)
register_lowering(broadcast_p, lambda ctx, x, *, shape, axes: broadcast_in_dim(
    x, ctx.avals_out[0], _kept_dims(shape, axes)))

# ----------------------------------------------------------------------------- transpose

transpose_p = Primitive('transpose')


def transpose(x, perm):
    """Permute the axes of ``x``: result axis i is operand axis ``perm[i]``."""
    return transpose_p.bind(x, perm=tuple(int(p) for p in perm))


def _transpose_abstract_eval(x, *, perm):
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f'transpose: perm {perm} is not a permutation of the axes of '
                        f'{x.str_short()}')
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)


def _transpose_batching(vals, dims, *, perm):
    (x,), (bdim,) = vals, dims
    x = moveaxis(x, bdim, 0)
    return transpose(x, (0, *(p + 1 for p in perm))), 0


transpose_p.def_impl(lambda x, *, perm: np.transpose(x, perm))
transpose_p.def_abstract_eval(_transpose_abstract_eval)
ad.defjvp_linear(transpose_p)
transpose_p.def_transpose(lambda ct, x, *, perm: [transpose(ct, np.argsort(perm))])
transpose_p.def_batching(_transpose_batching)
register_lowering(transpose_p, lambda ctx, x, *, perm: hlo.TransposeOp(x, list(perm)).result)
