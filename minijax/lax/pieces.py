"""Arrays cut into pieces and assembled from them: ``split`` (along an axis, into pieces of
given sizes), ``unstack`` (into the slices along an axis), ``stack`` (arrays along a new
axis) and ``tile`` (copies of an array side by side).

Structural primitives, as in JAX: each is linear, and its transpose is the opposite
assembly (a split's is a concatenation, a stack's an unstack, a tile's a sum over the
copies). Each lowers as JAX lowers it: to slices (and reshapes), to ``broadcast_in_dim``
and a concatenation, or to reshape, broadcast, reshape.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import axis_size_of, moveaxis, not_mapped
from minijax.interpreters.transpose import instantiate_cts, is_undefined_primal
from minijax.lax.reductions import reduce_sum
from minijax.lax.static import canonical_axes, static_int, static_ints
from minijax.lax.structural import broadcast, concatenate, reshape
from minijax.lowering import register_lowering, tensor_type
from minijax.lowering import ops as hlo_ops
from minijax.lowering.ops import broadcast_in_dim as hlo_broadcast_in_dim
from minijax.lowering.shardings import constrain_to_type


def _axis(axis, ndim, fn):
    (axis,) = canonical_axes(static_int(axis, fn, 'axis'), ndim, f'{fn}: axis')
    return axis


def _without(shape, axis):
    return shape[:axis] + shape[axis + 1:]


def _slice(x, aval, axis, start, stop):
    """``x[..., start:stop, ...]`` along ``axis`` in StableHLO."""
    starts, limits = [0] * aval.ndim, list(aval.shape)
    starts[axis], limits[axis] = start, stop
    return hlo.SliceOp(x, starts, limits, [1] * aval.ndim).result

# ----------------------------------------------------------------------------- split


split_p = Primitive('split', multiple_results=True)


def split(operand, sizes, axis=0):
    """``operand`` cut along ``axis`` into consecutive pieces of ``sizes``, which add up to
    its size there."""
    axis = _axis(axis, np.ndim(operand), 'split')
    return split_p.bind(operand, sizes=static_ints(sizes, 'split', 'sizes'), axis=axis)


def _split_abstract_eval(x, *, sizes, axis):
    if any(s < 0 for s in sizes):
        raise ValueError(f'split: sizes must be nonnegative, got {list(sizes)}')
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f'split: sizes {list(sizes)} add up to {sum(sizes)}, but axis {axis} '
                         f'of {x.str_short()} has size {x.shape[axis]}')
    return [ShapedArray(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype, x.weak_type)
            for s in sizes]


def _split_lowering(ctx, x, *, sizes, axis):
    """Each piece sliced, then constrained to its type's sharding (JAX's order)."""
    ends = np.cumsum(sizes)
    return [constrain_to_type(ctx, _slice(x, ctx.avals_in[0], axis, end - size, end), out)
            for size, end, out in zip(sizes, ends, ctx.avals_out)]


def _split_transpose(cts, x, *, sizes, axis):
    pieces = _split_abstract_eval(x.aval, sizes=sizes, axis=axis)
    return [concatenate(instantiate_cts(cts, pieces), axis)]


def _split_batching(vals, dims, *, sizes, axis):
    (x,), (bdim,) = vals, dims
    return split_p.bind(x, sizes=sizes, axis=axis + (bdim <= axis)), [bdim] * len(sizes)


split_p.def_impl(lambda x, *, sizes, axis: np.split(np.asarray(x), np.cumsum(sizes)[:-1], axis))
split_p.def_abstract_eval(_split_abstract_eval)
ad.defjvp_linear(split_p)
split_p.def_transpose(_split_transpose)
split_p.def_batching(_split_batching)
register_lowering(split_p, _split_lowering)

# ----------------------------------------------------------------------------- unstack

unstack_p = Primitive('unstack', multiple_results=True)


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, that axis removed: ``x.shape[axis]`` arrays."""
    return tuple(unstack_p.bind(x, axis=_axis(axis, np.ndim(x), 'unstack')))


def _unstack_abstract_eval(x, *, axis):
    return [ShapedArray(_without(x.shape, axis), x.dtype, x.weak_type)] * x.shape[axis]


def _unstack_lowering(ctx, x, *, axis):
    (aval,), outs = ctx.avals_in, ctx.avals_out
    return [constrain_to_type(ctx, hlo.ReshapeOp(tensor_type(out),
                                                 _slice(x, aval, axis, i, i + 1)).result, out)
            for i, out in enumerate(outs)]


def _unstack_transpose(cts, x, *, axis):
    return [stack(instantiate_cts(cts, _unstack_abstract_eval(x.aval, axis=axis)), axis)]


def _unstack_batching(vals, dims, *, axis):
    (x,), (bdim,) = vals, dims
    axis = axis + (bdim <= axis)
    outs = unstack_p.bind(x, axis=axis)
    return outs, [bdim - (axis < bdim)] * len(outs)


unstack_p.def_impl(lambda x, *, axis: [np.take(np.asarray(x), i, axis)
                                       for i in range(np.shape(x)[axis])])
unstack_p.def_abstract_eval(_unstack_abstract_eval)
ad.defjvp_linear(unstack_p)
unstack_p.def_transpose(_unstack_transpose)
unstack_p.def_batching(_unstack_batching)
register_lowering(unstack_p, _unstack_lowering)

# ----------------------------------------------------------------------------- stack

stack_p = Primitive('stack')


def stack(operands, axis=0):
    """The ``operands`` (of one shape and dtype) along a new axis ``axis`` of the result."""
    if not operands:
        raise ValueError('stack needs at least one operand, got none')
    return stack_p.bind(*operands, axis=_axis(axis, np.ndim(operands[0]) + 1, 'stack'))


def _stack_abstract_eval(*avals, axis):
    first = avals[0]
    if any(a.shape != first.shape or a.dtype != first.dtype for a in avals):
        raise ValueError(f'stack: the operands must have one shape and dtype, got '
                         f'{", ".join(a.str_short() for a in avals)}')
    return ShapedArray(first.shape[:axis] + (len(avals),) + first.shape[axis:], first.dtype,
                       all(a.weak_type for a in avals))


def _stack_lowering(ctx, *xs, axis):
    aval = ctx.avals_in[0]
    one = aval.update(shape=aval.shape[:axis] + (1,) + aval.shape[axis:])
    dims = [d for d in range(one.ndim) if d != axis]
    return hlo_ops.concatenate([hlo_broadcast_in_dim(x, one, dims) for x in xs], axis)


def _stack_transpose(ct, *operands, axis):
    pieces = unstack(ct, axis)
    return [piece if is_undefined_primal(x) else None for x, piece in zip(operands, pieces)]


def _stack_batching(vals, dims, *, axis):
    """Operands batched alike stay where they are (the new axis goes before or after their
    batch axis); otherwise every batch axis is moved (or broadcast) to the front."""
    if len(set(dims)) == 1:
        (bdim,) = set(dims)
        if axis <= bdim:
            return stack_p.bind(*vals, axis=axis), bdim + 1
        return stack_p.bind(*vals, axis=axis + 1), bdim
    size = axis_size_of(vals, dims)  # (an unbatched operand broadcast by lax.broadcast, as JAX)
    return stack([broadcast(x, (size,)) if d is not_mapped else moveaxis(x, d, 0)
                  for x, d in zip(vals, dims)], axis + 1), 0


stack_p.def_impl(lambda *xs, axis: np.stack(xs, axis))
stack_p.def_abstract_eval(_stack_abstract_eval)
ad.defjvp_linear(stack_p)
stack_p.def_transpose(_stack_transpose)
stack_p.def_batching(_stack_batching)
register_lowering(stack_p, _stack_lowering)

# ----------------------------------------------------------------------------- tile

tile_p = Primitive('tile')


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each axis ``i``."""
    return tile_p.bind(operand, reps=static_ints(reps, 'tile', 'reps'))


def _tile_abstract_eval(x, *, reps):
    if len(reps) != x.ndim:
        raise TypeError(f'tile: reps {list(reps)} must have one entry per axis of '
                        f'{x.str_short()}')  # (JAX's class)
    if any(r < 0 for r in reps):  # (JAX makes a negative size of them)
        raise ValueError(f'tile: reps must be nonnegative, got {list(reps)}')
    return ShapedArray(tuple(r * n for r, n in zip(reps, x.shape)), x.dtype, x.weak_type)


def _interleaved(reps, shape):
    """``(reps[0], shape[0], reps[1], shape[1], ...)``: the copies' axes beside the axes."""
    return tuple(n for pair in zip(reps, shape) for n in pair)


def _tile_lowering(ctx, x, *, reps):
    """Each dimension spread to (1, n), broadcast to (r, n), merged: under sharding in
    types, each step constrained to its type, the copies' axes unsharded (JAX's)."""
    (aval,), (out,) = ctx.avals_in, ctx.avals_out
    sharding = _spread_sharding(aval)
    spread = ShapedArray(_interleaved((1,) * aval.ndim, aval.shape), aval.dtype,
                         aval.weak_type, sharding)
    copies = ShapedArray(_interleaved(reps, aval.shape), aval.dtype, aval.weak_type, sharding)
    x = constrain_to_type(ctx, hlo.ReshapeOp(tensor_type(spread), x).result, spread)
    x = hlo_broadcast_in_dim(x, copies, list(range(copies.ndim)))
    x = constrain_to_type(ctx, x, copies)
    return hlo.ReshapeOp(tensor_type(out), x).result


def _spread_sharding(aval):
    """``aval``'s sharding with an unsharded dimension before each of its dimensions."""
    if aval._sharding is None:
        return None
    spec = aval._sharding.spec
    entries = [e for entry in spec.partitions for e in (None, entry)]
    return aval._sharding.update(spec=spec.update(partitions=entries))


def _tile_transpose(ct, x, *, reps):
    """The sum of the copies' cotangents (laid out as the operand's, the copies' axes
    unsharded)."""
    shape = x.aval.shape
    sharding = _spread_sharding(x.aval)
    copies = reshape(ct, _interleaved(reps, shape), out_sharding=sharding)
    return [reduce_sum(copies, tuple(range(0, 2 * len(shape), 2)))]


def _tile_batching(vals, dims, *, reps):
    (x,), (bdim,) = vals, dims
    return tile_p.bind(x, reps=reps[:bdim] + (1,) + reps[bdim:]), bdim


tile_p.def_impl(lambda x, *, reps: np.tile(np.asarray(x), reps))
tile_p.def_abstract_eval(_tile_abstract_eval)
ad.defjvp_linear(tile_p)
tile_p.def_transpose(_tile_transpose)
tile_p.def_batching(_tile_batching)
register_lowering(tile_p, _tile_lowering)
