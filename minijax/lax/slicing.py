"""Windows into arrays: ``slice`` (static bounds), ``dynamic_slice`` and
``dynamic_update_slice`` (start indices are traced scalars, clamped into range as in StableHLO).

The three are linear in their array operands; each one's transpose is another of the family
(or ``pad``), which is why they live together.
"""
from __future__ import annotations

import builtins
import functools

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, lax
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import axis_size_of, not_mapped, vmap, vmap_rules
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.static import static_int, static_ints
from minijax.lowering import register_lowering

# ----------------------------------------------------------------------------- slice

slice_p = Primitive('slice')


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001 (lax.slice)
    """``operand[start:limit:stride]`` along every axis, with static bounds. ``strides``
    stays None (every stride 1) when not given, as in JAX's equation."""
    return slice_p.bind(operand, start_indices=static_ints(start_indices, 'slice', 'start_indices'),
                        limit_indices=static_ints(limit_indices, 'slice', 'limit_indices'),
                        strides=None if strides is None else static_ints(strides, 'slice',
                                                                          'strides'))


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one axis, keeping the others whole. As in JAX, a start or limit of
    None is the axis's start or end, and a negative one counts from the end."""
    shape = core.get_aval(operand).shape
    axis = core.canonicalize_axis(axis, len(shape), 'slice_in_dim: axis')
    size = shape[axis]

    def bound(value, default, what):
        value = default if value is None else static_int(value, 'slice_in_dim', what)
        return value + size if value < 0 else value

    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis] = bound(start_index, 0, 'start_index')
    limits[axis] = bound(limit_index, size, 'limit_index')
    strides[axis] = static_int(stride, 'slice_in_dim', 'stride')
    return slice(operand, starts, limits, strides)


def _sliced_size(start, limit, stride):
    return max(0, -(-(limit - start) // stride))


def _unit_if_none(strides, start_indices):
    return (1,) * len(start_indices) if strides is None else strides


def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    strides = _unit_if_none(strides, start_indices)
    ok = (len(start_indices) == len(limit_indices) == len(strides) == x.ndim
          and all(0 <= s <= l <= n for s, l, n in zip(start_indices, limit_indices, x.shape))
          and all(s > 0 for s in strides))
    if not ok:
        raise TypeError(f'slice: start {start_indices}, limit {limit_indices} and strides '
                        f'{strides} do not fit {x.str_short()}')
    shape = [_sliced_size(*b) for b in zip(start_indices, limit_indices, strides)]
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = _unit_if_none(strides, start_indices)
    return np.asarray(x)[tuple(map(builtins.slice, start_indices, limit_indices, strides))]


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    """Pad the cotangent back to the operand's shape, with zeros between strided elements."""
    config = []
    for start, n_out, stride, n_in in zip(start_indices, core.get_aval(ct).shape,
                                          _unit_if_none(strides, start_indices), x.aval.shape):
        end = start + (n_out - 1) * stride + 1 if n_out else start
        config.append((start, n_in - end, stride - 1))
    return [lax.pad(ct, np.zeros((), x.aval.dtype), config)]


def _slice_batching(vals, dims, *, start_indices, limit_indices, strides):
    (x,), (bdim,) = vals, dims
    size = core.get_aval(x).shape[bdim]

    def insert(seq, value):
        return (*seq[:bdim], value, *seq[bdim:])

    return slice(x, insert(start_indices, 0), insert(limit_indices, size),
                 None if strides is None else insert(strides, 1)), bdim


slice_p.def_impl(_slice_impl)
slice_p.def_abstract_eval(_slice_abstract_eval)
ad.defjvp_linear(slice_p)
slice_p.def_transpose(_slice_transpose)
slice_p.def_batching(_slice_batching)
register_lowering(slice_p, lambda ctx, x, *, start_indices, limit_indices, strides:
                  hlo.SliceOp(x, start_indices, limit_indices,
                              _unit_if_none(strides, start_indices)).result)

# ----------------------------------------------------------------------------- dynamic_slice

dynamic_slice_p = Primitive('dynamic_slice')


def _index_operands(name, shape, start_indices, allow_negative_indices=True):
    """Start indices as JAX normalizes them: each keeps its own integer dtype (a Python int
    is int64), and a negative one counts from the end once, the axis size being added in
    that dtype (an int8 index on an axis longer than 127 wraps around, as in JAX), unless
    ``allow_negative_indices`` (one bool, or one per index) says not to: the primitive then
    clamps the window into range, as StableHLO does. An unsigned index is never negative.
    A float index is the user's mistake, not something to truncate."""
    if len(start_indices) != len(shape):
        raise ValueError(f'{name}: {len(start_indices)} start indices for an operand of '
                         f'{len(shape)} axes {tuple(shape)}')
    if isinstance(allow_negative_indices, (bool, np.bool_)):
        allow_negative_indices = [allow_negative_indices] * len(start_indices)
    return [_normalized_start(name, k, i, size, wrap) for k, (i, size, wrap) in
            enumerate(zip(start_indices, shape, allow_negative_indices, strict=True))]


def _normalized_start(name, k, index, size, wrap):
    aval = core.get_aval(index)
    dtype = aval.dtype
    if aval.ndim or not np.issubdtype(dtype, np.integer):
        what = f'shape {aval.shape}' if aval.ndim else f'dtype {dtype.name}'
        raise TypeError(f'{name}: start index {k} has {what}; start indices must be '
                        'integer scalars')
    if isinstance(index, (int, np.integer)):  # static: normalized now, in its dtype
        if index < 0 and not wrap:
            raise ValueError(f'Index {index} is out of bounds for dimension {size} if '
                             'allow_negative_indices=False')
        return np.asarray(index + size if index < 0 else index, dtype)
    if not wrap or np.issubdtype(dtype, np.unsignedinteger):
        return index
    size = np.asarray(size).astype(dtype)  # wraps as JAX's conversion does
    # (``+`` promotes a weakly typed index to the size's type, as JAX's ``i + d`` does)
    return lax.select_n(lax.lt(index, np.zeros((), dtype)), index, index + size)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The window of ``operand`` of shape ``slice_sizes`` at ``start_indices`` (traced
    scalars): a negative start counts from the end (unless ``allow_negative_indices`` is
    False), then the window is clamped to stay inside ``operand``."""
    indices = _index_operands('dynamic_slice', core.get_aval(operand).shape, start_indices,
                              allow_negative_indices)
    return dynamic_slice_p.bind(operand, *indices, slice_sizes=static_ints(
        slice_sizes, 'dynamic_slice', 'slice_sizes'))


def _one_axis_starts(x, index, axis, name, allow_negative_indices):
    """Start indices that put ``index`` on ``axis`` and 0 (in the index's dtype) on every
    other axis, and whether each may count from the end: only ``index`` may, as JAX
    normalizes them (the zeros are known not to be negative)."""
    ndim = len(core.get_aval(x).shape)
    axis = core.canonicalize_axis(axis, ndim, f'{name}: axis')
    zero = np.zeros((), core.get_aval(index).dtype)
    return axis, [index if a == axis else zero for a in range(ndim)], \
        [a == axis and allow_negative_indices for a in range(ndim)]


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along one axis, keeping the others whole."""
    axis, starts, wrap = _one_axis_starts(operand, start_index, axis, 'dynamic_slice_in_dim',
                                          allow_negative_indices)
    sizes = list(core.get_aval(operand).shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=wrap)


def _staged_as_jit(*static_argnames):
    """The function as a ``jit`` of its own name, as JAX 0.10.2 stages it: a jaxpr shows a
    nested ``jit``, a module a private function called where it is used (a ``scan``'s
    loop reads and writes its rows through these). The ``jit`` is made on first use:
    ``minijax.jit`` is a layer above lax."""
    def stage(fn):
        @functools.cache
        def jitted():
            from minijax.jit import jit
            return jit(fn, static_argnames=static_argnames)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            return jitted()(*args, **kwargs)
        return call
    return stage


@_staged_as_jit('axis', 'keepdims', 'allow_negative_indices')
def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """The size-1 ``dynamic_slice`` at ``index`` along ``axis``; without ``keepdims`` that
    axis is dropped."""
    axis = core.canonicalize_axis(axis, len(core.get_aval(operand).shape),
                                  'dynamic_index_in_dim')
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else lax.squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` at ``start_index`` along ``axis`` (0 along the others)."""
    _, starts, wrap = _one_axis_starts(operand, start_index, axis,
                                       'dynamic_update_slice_in_dim', allow_negative_indices)
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=wrap)


@_staged_as_jit('axis', 'allow_negative_indices')
def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """``operand`` with the slice at ``index`` along ``axis`` replaced by ``update`` (which
    may lack that axis)."""
    ndim = len(core.get_aval(operand).shape)
    axis = core.canonicalize_axis(axis, ndim, 'dynamic_update_index_in_dim')
    if len(core.get_aval(update).shape) == ndim - 1:
        update = lax.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


def _check_indices(name, x, indices):
    """One integer scalar per axis, all of one dtype (StableHLO's rule): JAX's ValueError
    for a wrong count, TypeError for a wrong type."""
    if len(indices) != x.ndim:
        raise ValueError(f'{name}: needs {x.ndim} start indices for {x.str_short()}, got '
                         f'({", ".join(i.str_short() for i in indices)})')
    if any(i.shape or not np.issubdtype(i.dtype, np.integer) for i in indices) or \
            len({i.dtype for i in indices}) > 1:
        raise TypeError(f'index arguments to {name} must be integers of the same type, got: '
                        f'{", ".join(i.str_short() for i in indices)}')


def _dynamic_slice_abstract_eval(x, *indices, slice_sizes):
    _check_indices('dynamic_slice', x, indices)
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        raise TypeError(f'dynamic_slice: slice_sizes {slice_sizes} do not fit {x.str_short()}')
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _clamped_window(shape, indices, sizes):
    """The Python slices StableHLO's clamping semantics select."""
    starts = [int(np.clip(np.asarray(i), 0, n - s)) for i, n, s in zip(indices, shape, sizes)]
    return tuple(builtins.slice(b, b + s) for b, s in zip(starts, sizes))


def _dynamic_slice_impl(x, *indices, slice_sizes):
    x = np.asarray(x)
    return x[_clamped_window(x.shape, indices, slice_sizes)]


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *indices = primals
    out = dynamic_slice_p.bind(x, *indices, slice_sizes=slice_sizes)
    if isinstance(tangents[0], ad.Zero):
        return out, ad.Zero(core.get_aval(out))
    return out, dynamic_slice_p.bind(tangents[0], *indices, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, x, *indices, slice_sizes):
    zeros = lax.full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *indices)] + [None] * len(indices)


def _batched_start_indices(indices, dims):
    """The scalar start indices as one index vector (JAX's ``_batch_dynamic_slice_indices``):
    ``int32[0]`` if there are none; ``[n]`` if none is batched; else ``[batch, n]``, each
    unbatched one broadcast along the batch."""
    if not indices:
        return np.array([], 'int32'), not_mapped
    if all(d is not_mapped for d in dims):
        return lax.concatenate([lax.broadcast(i, (1,)) for i in indices], 0), not_mapped
    size = axis_size_of(indices, dims)
    return lax.concatenate([lax.broadcast_in_dim(i, (size, 1), () if d is not_mapped else (0,))
                            for i, d in zip(indices, dims)], 1), 0


def _dynamic_slice_batching(vals, dims, *, slice_sizes):
    """A gather of one window per index vector, as JAX batches it: the gather primitive
    clamps each window into the operand, as ``dynamic_slice`` does (JAX's mode CLIP)."""
    (x, *indices), (x_dim, *index_dims) = vals, dims
    axes = tuple(range(len(slice_sizes)))
    index, index_dim = _batched_start_indices(indices, index_dims)
    dnums = lax.GatherDimensionNumbers(offset_dims=axes, collapsed_slice_dims=(),
                                       start_index_map=axes)
    return vmap_rules[lax.gather_p]([x, index], [x_dim, index_dim], dimension_numbers=dnums,
                                    slice_sizes=slice_sizes, unique_indices=True,
                                    indices_are_sorted=True)


dynamic_slice_p.def_impl(_dynamic_slice_impl)
dynamic_slice_p.def_abstract_eval(_dynamic_slice_abstract_eval)
dynamic_slice_p.def_jvp(_dynamic_slice_jvp, symbolic_zeros=True)
dynamic_slice_p.def_transpose(_dynamic_slice_transpose)
dynamic_slice_p.def_batching(_dynamic_slice_batching)
register_lowering(dynamic_slice_p, lambda ctx, x, *indices, slice_sizes:
                  hlo.DynamicSliceOp(x, list(indices), slice_sizes).result)

# ----------------------------------------------------------------------------- dynamic_update_slice

dynamic_update_slice_p = Primitive('dynamic_update_slice')


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with the window at ``start_indices`` (counted and clamped as in
    ``dynamic_slice``) replaced by ``update``."""
    indices = _index_operands('dynamic_update_slice', core.get_aval(operand).shape,
                              start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *indices)


def _dynamic_update_slice_abstract_eval(x, update, *indices):
    _check_indices('dynamic_update_slice', x, indices)
    if (update.dtype != x.dtype or update.ndim != x.ndim
            or any(u > n for u, n in zip(update.shape, x.shape))):
        raise TypeError(f'dynamic_update_slice: update {update.str_short()} does not fit '
                        f'into operand {x.str_short()}')
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _dynamic_update_slice_impl(x, update, *indices):
    out = np.array(x)
    # as a NumPy array: a bfloat16 array takes no other object into a 0-d window
    out[_clamped_window(out.shape, indices, np.shape(update))] = np.asarray(update)
    return out


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *indices = primals
    out = dynamic_update_slice_p.bind(x, update, *indices)
    t_x, t_update = tangents[:2]
    if isinstance(t_x, ad.Zero) and isinstance(t_update, ad.Zero):
        return out, ad.Zero(core.get_aval(out))
    return out, dynamic_update_slice_p.bind(ad.instantiate(t_x), ad.instantiate(t_update),
                                            *indices)


def _dynamic_update_slice_transpose(ct, x, update, *indices):
    update_aval = update.aval if is_undefined_primal(update) else core.get_aval(update)
    ct_x = ct_update = None
    if is_undefined_primal(x):
        zeros = lax.full(update_aval.shape, 0, update_aval.dtype)
        ct_x = dynamic_update_slice_p.bind(ct, zeros, *indices)
    if is_undefined_primal(update):
        ct_update = dynamic_slice_p.bind(ct, *indices, slice_sizes=update_aval.shape)
    return [ct_x, ct_update] + [None] * len(indices)


def _dynamic_update_slice_batching(vals, dims):
    """A scatter in mode CLIP of one window per index vector, vectorized with ``vmap``, as
    JAX batches it."""
    (x, update, *indices), (x_dim, update_dim, *index_dims) = vals, dims
    axes = tuple(range(core.get_aval(update).ndim - (update_dim is not not_mapped)))
    dnums = lax.ScatterDimensionNumbers(update_window_dims=axes, inserted_window_dims=(),
                                        scatter_dims_to_operand_dims=axes)
    index, index_dim = _batched_start_indices(indices, index_dims)
    scatter = functools.partial(lax.scatter, dimension_numbers=dnums, indices_are_sorted=True,
                                unique_indices=True, mode=lax.GatherScatterMode.CLIP)
    return vmap(scatter, in_axes=(x_dim, index_dim, update_dim))(x, index, update), 0


dynamic_update_slice_p.def_impl(_dynamic_update_slice_impl)
dynamic_update_slice_p.def_abstract_eval(_dynamic_update_slice_abstract_eval)
dynamic_update_slice_p.def_jvp(_dynamic_update_slice_jvp, symbolic_zeros=True)
dynamic_update_slice_p.def_transpose(_dynamic_update_slice_transpose)
dynamic_update_slice_p.def_batching(_dynamic_update_slice_batching)
register_lowering(dynamic_update_slice_p, lambda ctx, x, update, *indices:
                  hlo.DynamicUpdateSliceOp(x, update, list(indices)).result)
