"""Gather and scatter: reading and writing many windows of an array at traced positions.

``gather(operand, start_indices, dimension_numbers, slice_sizes)`` reads one window of shape
``slice_sizes`` per index vector; ``scatter`` and its combining variants (``scatter_add``,
``scatter_mul``, ``scatter_min``, ``scatter_max``) write one window of ``updates`` per index
vector. The dimension numbers are StableHLO's, the index vector always the last axis of the
indices (as in ``jax.lax``):

- ``offset_dims`` (scatter: ``update_window_dims``): the result (updates) axes that run over
  a window; the other axes run over the index vectors, in order (the *batch* axes);
- ``collapsed_slice_dims`` (``inserted_window_dims``): operand axes whose window has size 1
  and no axis in the window;
- ``start_index_map`` (``scatter_dims_to_operand_dims``): index vector component k is the
  start of the window along operand axis ``start_index_map[k]``;
- ``operand_batching_dims`` / ``start_indices_batching_dims`` (``scatter_indices_batching_dims``):
  pairs of axes walked together, so example b of the indices reads example b of the operand
  (what ``vmap`` of a gather needs).

A scatter is the mirror of a gather with the corresponding dimension numbers: the window
its updates element u lands on is where that gather's output element u would be read from.
So one function, ``_operand_coords``, serves both impls, and one checker both abstract evals.

Out of bounds, the primitives do what XLA does: a gather clamps each window into the operand,
a scatter drops a window that does not fit (the lowering moves such a window wholly outside,
so that the reference interpreter, which drops only the elements outside, agrees). The
``mode`` argument of the functions builds the other behaviours on top, as JAX documents them
(``GatherScatterMode``): ``CLIP`` clamps a scatter's indices first; ``FILL_OR_DROP``
replaces an out-of-bounds gather window by ``fill_value``. So the rules of the primitives see
one semantics each, and each transpose is the exact adjoint of it (JAX's
``PROMISE_IN_BOUNDS`` leaves gradients out of bounds undefined; here they are those of the
clamped read and the dropped write).

Derivatives: ``gather`` and ``scatter_add`` are linear and transpose to each other.
``scatter`` (set) finds which update won each element by scattering ids, then is a
``scatter_add`` of the winners; ``scatter_min``/``scatter_max`` share the tangent among the
values that tie for the extremum, as JAX does; ``scatter_mul`` differentiates in ``updates``
only for ``unique_indices=True``, as in JAX.
"""
from __future__ import annotations

import enum
import math
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lax, tree_util
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import move_batch_axis, moveaxis, not_mapped
from minijax.interpreters.transpose import is_undefined_primal
from minijax.ir.jaxpr import ClosedJaxpr, jaxpr_as_fun
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lax.static import static_ints
from minijax.lowering import (append_block, constant, lower_closed_jaxpr, register_lowering,
                              tensor_type, traceless_location)
from minijax.lowering.ops import broadcast_in_dim, choose
from minijax.lowering.types import element_type


class GatherScatterMode(enum.Enum):
    """Out-of-bounds behaviour: ``CLIP`` clamps every window into the operand;
    ``FILL_OR_DROP`` fills a gather window that does not fit with ``fill_value`` and drops
    such a scatter window; ``PROMISE_IN_BOUNDS`` does what XLA does (a gather clamps, a
    scatter drops)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(mode) -> GatherScatterMode:
        """A mode from itself, 'clip', 'fill', 'drop', 'promise_in_bounds' or None (fill or
        drop, JAX's default for scatters)."""
        if isinstance(mode, GatherScatterMode):
            return mode
        names = {'clip': GatherScatterMode.CLIP, 'fill': GatherScatterMode.FILL_OR_DROP,
                 'drop': GatherScatterMode.FILL_OR_DROP, None: GatherScatterMode.FILL_OR_DROP,
                 'promise_in_bounds': GatherScatterMode.PROMISE_IN_BOUNDS}
        if mode not in names:
            raise ValueError(f'unknown gather/scatter mode {mode!r}: use one of '
                             f"{[n for n in names if n]} or a GatherScatterMode")
        return names[mode]


class GatherDimensionNumbers(NamedTuple):
    """StableHLO's gather dimension numbers (the index vector is the indices' last axis)."""
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """StableHLO's scatter dimension numbers, in the order of the gather's they mirror."""
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


def _canonical(dnums, cls):
    if not isinstance(dnums, tuple) or len(dnums) not in (3, 5):
        raise TypeError(f'dimension_numbers must be a {cls.__name__}, got {dnums!r}')
    return cls(*(static_ints(dims, cls.__name__, field) for dims, field in zip(dnums, cls._fields)))


def as_gather_dimension_numbers(dnums: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather that reads back the windows a scatter writes."""
    return GatherDimensionNumbers(*dnums)


def as_scatter_dimension_numbers(dnums: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    """The scatter that writes the windows a gather reads."""
    return ScatterDimensionNumbers(*dnums)


def _window_axes(ndim, dnums):
    """The operand axes that have an axis in the window (not collapsed, not batching)."""
    return [d for d in range(ndim) if d not in dnums[1] and d not in dnums[3]]


def scatter_window_sizes(operand_shape, updates_shape, dnums):
    """The window a scatter writes, as a gather's ``slice_sizes``."""
    sizes = [1] * len(operand_shape)
    for d, u in zip(_window_axes(len(operand_shape), dnums), dnums.update_window_dims):
        sizes[d] = updates_shape[u]
    return tuple(sizes)

# ----------------------------------------------------------------------------- shapes and checks


def _gather_shape(indices_shape, dnums, slice_sizes):
    """The shape a gather gives: batch axes from the indices, window axes at ``dnums[0]``."""
    offset_dims = dnums[0]
    window = iter(slice_sizes[d] for d in _window_axes(len(slice_sizes), dnums))
    batch = iter(indices_shape[:-1])
    rank = len(offset_dims) + len(indices_shape) - 1
    return tuple(next(window) if d in offset_dims else next(batch) for d in range(rank))


def _check_dimension_numbers(name, dnums, operand, indices, slice_sizes):
    """StableHLO's constraints on gather (and mirrored scatter) dimension numbers: each
    failure names the field of ``dnums`` and the shapes involved."""
    window, collapsed, index_map, operand_batching, indices_batching = dnums
    fields = type(dnums)._fields
    shapes = f'operand {operand.str_short()}, indices {indices.str_short()}'

    def fail(message, error=TypeError):
        raise error(f'{name}: {message} ({shapes})')

    if not dtypes.is_integer(indices.dtype) or indices.ndim < 1:
        fail('indices must be an integer array whose last axis is the index vector',
             ValueError)  # JAX's class
    if len(slice_sizes) != operand.ndim:
        fail(f'{len(slice_sizes)} window sizes {tuple(slice_sizes)} for {operand.ndim} axes')
    for field, dims, bound in [(fields[1], collapsed, operand.ndim),
                               (fields[3], operand_batching, operand.ndim),
                               (fields[4], indices_batching, indices.ndim - 1),
                               (fields[2], index_map, operand.ndim)]:
        if len(set(dims)) != len(dims) or any(not 0 <= d < bound for d in dims):
            fail(f'{field}={dims} must be distinct axes below {bound}')
    if list(collapsed) != sorted(collapsed) or list(operand_batching) != sorted(operand_batching):
        fail(f'{fields[1]}={collapsed} and {fields[3]}={operand_batching} must be sorted')
    if set(collapsed) & set(operand_batching) or set(index_map) & set(operand_batching):
        fail(f'{fields[3]}={operand_batching} overlaps {fields[1]}={collapsed} or '
             f'{fields[2]}={index_map}')
    if len(index_map) != indices.shape[-1]:
        fail(f'{fields[2]}={index_map} needs an index vector of {len(index_map)}, the last '
             f'axis of the indices has {indices.shape[-1]}')
    pairs = list(zip(operand_batching, indices_batching))
    if len(indices_batching) != len(operand_batching) or any(
            operand.shape[o] != indices.shape[i] for o, i in pairs):
        fail(f'{fields[3]}={operand_batching} and {fields[4]}={indices_batching} must pair '
             'axes of equal size')
    if indices.size and any(not 0 <= s <= n for s, n in zip(slice_sizes, operand.shape)):
        fail(f'window sizes {tuple(slice_sizes)} do not fit')  # (no index: no window, as JAX)
    if any(slice_sizes[d] > 1 for d in (*collapsed, *operand_batching)):
        fail(f'the windows along {fields[1]}={collapsed} and {fields[3]}={operand_batching} must '
             f'have size 1, got window sizes {tuple(slice_sizes)}')
    rank = len(window) + indices.ndim - 1
    if (len(window) != operand.ndim - len(collapsed) - len(operand_batching)
            or list(window) != sorted(set(window)) or any(not 0 <= d < rank for d in window)):
        fail(f'{fields[0]}={window} must be {operand.ndim - len(collapsed) - len(operand_batching)}'
             f' sorted distinct axes below {rank}')


def _index_operands(name, operand, start_indices):
    """Checks common to the gather and scatter functions, before binding."""
    for what, x in [('operand', operand), ('indices', start_indices)]:
        if not core.is_valid_value(x):
            raise TypeError(f'{name}: {what} must be an array, got {type(x).__name__}')


def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes,
                          indices_are_sorted, unique_indices):
    _check_dimension_numbers('gather', dimension_numbers, operand, indices, slice_sizes)
    shape = _gather_shape(indices.shape, dimension_numbers, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _scatter_abstract_eval(name):
    def abstract_eval(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                      unique_indices, update_jaxpr=None, **_):
        if updates.dtype != operand.dtype:
            raise TypeError(f'{name}: updates {updates.str_short()} must have the dtype of the '
                            f'operand {operand.str_short()}')
        window = dimension_numbers.update_window_dims
        if any(not 0 <= d < updates.ndim for d in window):
            raise TypeError(f'{name}: update_window_dims={window} are not axes of the updates '
                            f'{updates.str_short()}')
        sizes = scatter_window_sizes(operand.shape, updates.shape, dimension_numbers)
        _check_dimension_numbers(name, dimension_numbers, operand, indices, sizes)
        expected = _gather_shape(indices.shape, dimension_numbers, sizes)
        if tuple(updates.shape) != expected:
            raise TypeError(f'{name}: updates {updates.str_short()} must have shape {expected} '
                            f'for indices {indices.str_short()} and {dimension_numbers}')
        if update_jaxpr is not None and [(a.shape, a.dtype) for a in update_jaxpr.out_avals] \
                != [((), operand.dtype)]:
            raise TypeError(f'scatter_apply: func must return one scalar of the operand\'s '
                            f'dtype, got {[a.str_short() for a in update_jaxpr.out_avals]} for '
                            f'{operand.str_short()}')
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)
    return abstract_eval

# ----------------------------------------------------------------------------- NumPy semantics


def _operand_coords(operand_shape, indices, dnums, slice_sizes, out_shape):
    """For each element of a gather's output (of ``out_shape``), the operand element it reads,
    with each window clamped into the operand, as XLA clamps: one coordinate array per operand
    axis; and whether the unclamped window fit (a bool array)."""
    window, _, index_map, operand_batching, indices_batching = dnums
    grid = np.indices(out_shape, sparse=True) if out_shape else []
    batch = [grid[d] for d in range(len(out_shape)) if d not in window]
    starts = np.asarray(indices, np.int64)[tuple(batch)]  # out_shape (1 on window axes) + (k,)
    limits = np.array([operand_shape[d] - slice_sizes[d] for d in index_map], np.int64)
    fits = np.all((starts >= 0) & (starts <= limits), axis=-1)
    starts = np.clip(starts, 0, limits)
    coords = [np.zeros((), np.int64)] * len(operand_shape)
    for k, d in enumerate(index_map):
        coords[d] = starts[..., k]
    for d, i in zip(operand_batching, indices_batching):
        coords[d] = batch[i]
    for d, o in zip(_window_axes(len(operand_shape), dnums), window):
        coords[d] = coords[d] + grid[o]
    return tuple(np.broadcast_to(c, out_shape) for c in coords), np.broadcast_to(fits, out_shape)


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, **_):
    operand = np.asarray(operand)
    out_shape = _gather_shape(np.shape(indices), dimension_numbers, slice_sizes)
    coords, _ = _operand_coords(operand.shape, indices, dimension_numbers, slice_sizes, out_shape)
    return operand[coords]


def _assign_at(out, coords, values):
    """``out[coords] = values``; where coords repeat, the last update wins (as on XLA:CPU)."""
    out[coords] = values


def _scatter_impl(combine):
    """A scatter's impl: ``combine(out, coords, values)`` writes in place (``np.add.at``...);
    a window that does not fit is dropped, as XLA drops it."""
    def impl(operand, indices, updates, *, dimension_numbers, update_jaxpr=None,
             update_consts=(), **_):
        out, updates = np.array(operand), np.asarray(updates)
        sizes = scatter_window_sizes(out.shape, updates.shape, dimension_numbers)
        coords, fits = _operand_coords(out.shape, indices, dimension_numbers, sizes,
                                       updates.shape)
        write = combine if update_jaxpr is None else _apply_at(update_jaxpr, update_consts)
        write(out, tuple(c[fits] for c in coords), updates[fits])
        return out
    return impl


def _apply_at(update_jaxpr, update_consts):
    """The in-place combine of ``scatter_apply``: the update computation applied to each
    element once per update reaching it, in order."""
    fn = jaxpr_as_fun(ClosedJaxpr(update_jaxpr, list(update_consts)))

    def combine(out, coords, values):
        for k, value in enumerate(values):
            at = tuple(c[k] for c in coords)
            out[at] = np.asarray(fn(out[at], value)[0])
    return combine

# ----------------------------------------------------------------------------- the functions


def _fill_value(dtype, fill_value):
    """JAX's default fill for an out-of-bounds gather: NaN (NaN+0j for complex numbers), the
    lowest signed or the highest unsigned integer, True."""
    if fill_value is not None:
        return np.array(fill_value, dtype)
    if dtypes.is_inexact(dtype):
        return np.array(np.nan, dtype)
    if dtype == dtypes.bool_:
        return np.array(True)
    info = np.iinfo(dtype)
    return np.array(info.max if info.min == 0 else info.min, dtype)


def _start_limits(operand_shape, indices, index_map, slice_sizes):
    """The largest start of each window that fits, broadcast to the indices' shape (at most
    the indices' greatest value, which a narrow index type may not reach past)."""
    aval = core.get_aval(indices)
    limits = np.array([min(operand_shape[d] - slice_sizes[d], dtypes.highest(aval.dtype))
                       for d in index_map], aval.dtype)
    return lax.broadcast_in_dim(limits, aval.shape, (aval.ndim - 1,))


def _window_fits(operand_shape, indices, index_map, slice_sizes):
    """Per index vector (the indices without their last axis), whether its window fits."""
    aval = core.get_aval(indices)
    limits = _start_limits(operand_shape, indices, index_map, slice_sizes)
    fits = lax.bitwise_and(lax.ge(indices, np.zeros((), aval.dtype)), lax.le(indices, limits))
    return lax.reduce_min(fits, aval.ndim - 1)


def _clamp_indices(operand_shape, indices, index_map, slice_sizes):
    limits = _start_limits(operand_shape, indices, index_map, slice_sizes)
    return lax.min(lax.max(indices, np.zeros((), core.get_aval(indices).dtype)), limits)


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """One window of ``slice_sizes`` per index vector (the last axis of ``start_indices``).

    ``mode`` None means ``PROMISE_IN_BOUNDS`` (XLA clamps), as in ``jax.lax.gather``;
    ``FILL_OR_DROP`` gives ``fill_value`` (default: NaN, or the extreme integer) for a window
    that does not fit.
    """
    _index_operands('gather', operand, start_indices)
    dnums = _canonical(dimension_numbers, GatherDimensionNumbers)
    slice_sizes = core.canonicalize_shape(slice_sizes, 'gather: slice_sizes')
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
                                      else mode)
    out = gather_p.bind(operand, start_indices, dimension_numbers=dnums,
                        slice_sizes=slice_sizes, indices_are_sorted=bool(indices_are_sorted),
                        unique_indices=bool(unique_indices))
    if mode is not GatherScatterMode.FILL_OR_DROP:
        return out
    out_aval = core.get_aval(out)
    fits = _window_fits(core.get_aval(operand).shape, start_indices, dnums.start_index_map,
                        slice_sizes)
    batch_axes = [d for d in range(out_aval.ndim) if d not in dnums.offset_dims]
    sharding = out_aval._sharding  # (the fill and the mask lie as the gathered values)
    fill = lax.full(out_aval.shape, _fill_value(out_aval.dtype, fill_value), out_aval.dtype,
                    sharding=sharding)
    return lax.select_n(lax.broadcast_in_dim(fits, out_aval.shape, batch_axes,
                                             out_sharding=sharding), fill, out)


def index_take(src, idxs, axes):
    """``src`` at the points whose coordinates along ``axes`` are ``idxs`` (one index array
    per axis, each taken modulo its axis, as Python's ``%``), whole along the other axes: a
    gather with one index vector per point, as JAX writes it."""
    indices = lax.concatenate([lax.expand_dims(i, (1,)) for i in idxs], 1)
    shape = core.get_aval(src).shape
    indices = indices % lax.expand_dims(np.array([shape[a] for a in axes]),
                                        tuple(range(np.ndim(indices) - 1)))
    slice_sizes = tuple(1 if d in axes else n for d, n in enumerate(shape))
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape) - len(axes) + 1)),
                                   collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes))
    return gather(src, indices, dnums, slice_sizes)


def _clipped_scatter_indices(operand, scatter_indices, updates, dnums):
    """``mode='clip'``: each index vector moved so that its whole window fits."""
    shape = core.get_aval(operand).shape
    sizes = scatter_window_sizes(shape, core.get_aval(updates).shape, dnums)
    return _clamp_indices(shape, scatter_indices, dnums.scatter_dims_to_operand_dims, sizes)


def _scatter_function(primitive):
    def scatter_fn(operand, scatter_indices, updates, dimension_numbers, *,
                   indices_are_sorted=False, unique_indices=False, mode=None):
        _index_operands(primitive.name, operand, scatter_indices)
        dnums = _canonical(dimension_numbers, ScatterDimensionNumbers)
        if GatherScatterMode.from_any(mode) is GatherScatterMode.CLIP:
            scatter_indices = _clipped_scatter_indices(operand, scatter_indices, updates,
                                                       dnums)
        return primitive.bind(operand, scatter_indices, updates, dimension_numbers=dnums,
                              indices_are_sorted=bool(indices_are_sorted),
                              unique_indices=bool(unique_indices))
    scatter_fn.__name__ = primitive.name
    scatter_fn.__doc__ = (f'``operand`` with one window of ``updates`` per index vector '
                          f'{_COMBINED[primitive.name]}; a window that does not fit is '
                          "dropped (mode None, 'drop', 'promise_in_bounds') or clamped in "
                          "('clip').")
    return scatter_fn


_COMBINED = {'scatter': 'written over it', 'scatter-add': 'added to it',
             'scatter-sub': 'subtracted from it',
             'scatter-mul': 'multiplied into it', 'scatter-min': 'taking the minimum',
             'scatter-max': 'taking the maximum'}

# ----------------------------------------------------------------------------- derivatives


def _linear_jvp(primitive):
    """The JVP of a primitive linear in every operand but its indices (operand 1): the
    primitive applied to the tangents, at the same indices."""
    def jvp(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        arrays = tangents[:1] + tangents[2:]
        if all(isinstance(t, ad.Zero) for t in arrays):
            return out, ad.Zero(core.get_aval(out))
        t_first, *t_rest = (ad.instantiate(t) for t in arrays)
        return out, primitive.bind(t_first, primals[1], *t_rest, **params)
    return jvp



def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices):
    """A gather reads clamped windows: its adjoint adds the cotangent into the clamped
    windows (``scatter_add`` in CLIP mode)."""
    zeros = lax.full(operand.aval.shape, 0, operand.aval.dtype,
                     sharding=operand.aval._sharding)  # (lying as the operand, as JAX's)
    return [scatter_add(zeros, indices, ct, as_scatter_dimension_numbers(dimension_numbers),
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                        mode=GatherScatterMode.CLIP), None]


def _gather_back(x, indices, updates_shape, dnums, fill_value=0):
    """The windows of ``x`` a scatter with ``dnums`` writes, in the updates' layout; a window
    the scatter drops reads ``fill_value``."""
    sizes = scatter_window_sizes(core.get_aval(x).shape, updates_shape, dnums)
    return gather(x, indices, as_gather_dimension_numbers(dnums), sizes,
                  mode=GatherScatterMode.FILL_OR_DROP, fill_value=fill_value)


def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers, **_):
    updates_shape = (updates.aval if is_undefined_primal(updates) else core.get_aval(updates)).shape
    ct_updates = (_gather_back(ct, indices, updates_shape, dimension_numbers)
                  if is_undefined_primal(updates) else None)
    return [ct if is_undefined_primal(operand) else None, None, ct_updates]


def _scatter_sub_transpose(ct, operand, indices, updates, **params):
    """As ``scatter_add``'s, the updates' cotangent negated."""
    ct_operand, _, ct_updates = _scatter_add_transpose(ct, operand, indices, updates, **params)
    return [ct_operand, None, None if ct_updates is None else lax.neg(ct_updates)]


def _scatter_mul_jvp(primals, tangents, **params):
    """d(x * prod u) = dx * prod u + x * du (the second only when each element gets at most
    one update, as JAX requires)."""
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    out = scatter_mul_p.bind(operand, indices, updates, **params)
    terms = []
    if not isinstance(t_operand, ad.Zero):
        terms.append(scatter_mul_p.bind(t_operand, indices, updates, **params))
    if not isinstance(t_updates, ad.Zero):
        if not params['unique_indices']:
            raise NotImplementedError('scatter_mul: the derivative with respect to the updates '
                                      'is only implemented for unique_indices=True (as in JAX)')
        zeros = lax.full(core.get_aval(operand).shape, 0, core.get_aval(operand).dtype)
        terms.append(lax.mul(operand, scatter_add_p.bind(zeros, indices, t_updates, **params)))
    if not terms:
        return out, ad.Zero(core.get_aval(out))
    return out, terms[0] if len(terms) == 1 else lax.add(*terms)


def _scatter_mul_transpose(ct, operand, indices, updates, **params):
    if is_undefined_primal(updates):
        raise NotImplementedError('scatter_mul is linear in its operand only')
    return [scatter_mul_p.bind(ct, indices, updates, **params), None, None]


def _scatter_jvp(primals, tangents, **params):
    """A set: each element comes from the operand or from the update that won it. Scattering
    ids 1, 2, ... finds the winners; the output and its tangent are ``scatter_add`` of the
    operand and of the winning updates, masked, so both agree on who won."""
    operand, indices, updates = primals
    if all(isinstance(t, ad.Zero) for t in tangents[::2]):
        out = scatter_p.bind(operand, indices, updates, **params)
        return out, ad.Zero(core.get_aval(out))
    if params.get('update_jaxpr') is not None:
        raise NotImplementedError('scatter_apply JVP not implemented')  # (JAX's text)
    t_operand, t_updates = (ad.instantiate(t) for t in tangents[::2])
    dnums = params['dimension_numbers']
    shape, updates_shape = core.get_aval(operand).shape, core.get_aval(updates).shape
    ids = lax.add(lax.reshape(lax.iota(dtypes.int32, math.prod(updates_shape)),
                              updates_shape), np.int32(1))
    scattered = scatter_p.bind(lax.full(shape, 0, dtypes.int32), indices, ids, **params)
    kept = lax.eq(scattered, np.int32(0))
    won = lax.eq(_gather_back(scattered, indices, updates_shape, dnums), ids)

    def masked_scatter(x, u):
        zero = np.zeros((), core.get_aval(x).dtype)
        return scatter_add_p.bind(lax.select_n(kept, lax.full_like(x, zero), x), indices,
                                  lax.select_n(won, lax.full_like(u, zero), u), **params)
    return masked_scatter(operand, updates), masked_scatter(t_operand, t_updates)


def _scatter_extremal_jvp(primitive):
    """min/max: an element's tangent is the mean of the tangents of the values that tie for
    its extremum (its own, and those of the updates reaching it that equal it), as in JAX.
    Written, as JAX writes it, as the operand's tangent plus a correction per update, so that
    an element no update reaches keeps its tangent even where it is NaN."""
    def jvp(primals, tangents, **params):
        operand, indices, updates = primals
        out = primitive.bind(operand, indices, updates, **params)
        if all(isinstance(t, ad.Zero) for t in tangents[::2]):
            return out, ad.Zero(core.get_aval(out))
        t_operand, t_updates = (ad.instantiate(t) for t in tangents[::2])
        dnums, shape = params['dimension_numbers'], core.get_aval(updates).shape
        dtype = core.get_aval(out).dtype
        zeros, ones = lax.full(shape, 0, dtype), lax.full(shape, 1, dtype)

        def back(x):
            return _gather_back(x, indices, shape, dnums)

        def count(per_update):  # per update: how many updates reach its element
            total = scatter_add_p.bind(lax.full_like(out, np.zeros((), dtype)), indices,
                                       per_update, **params)
            return back(total)

        target = back(out)
        won, kept = lax.eq(updates, target), lax.eq(back(operand), target)
        winners = count(lax.select_n(won, zeros, ones))
        share = lax.div(ones, lax.add(winners, lax.select_n(kept, zeros, ones)))
        update_coef = lax.select_n(won, zeros, share)
        operand_coef = lax.div(lax.sub(lax.select_n(kept, zeros, share), ones), count(ones))
        correction = lax.add(lax.mul(back(t_operand), operand_coef),
                             lax.mul(t_updates, update_coef))
        return out, scatter_add_p.bind(t_operand, indices, correction, **params)
    return jvp

# ----------------------------------------------------------------------------- vmap


def _shift(dims):
    """``dims`` one axis further, computed with NumPy as JAX's rules compute them (so the
    dimension numbers hold ``np.int64`` values and print as JAX's)."""
    return tuple(np.add(1, dims))


def _gather_batching(vals, dims, *, dimension_numbers, slice_sizes, **params):
    """The batch axis becomes an axis of the window (operand batched alone), a batch axis of
    the indices (indices alone), or a pair of batching dims (both); it is axis 0 of the
    output in each case (JAX's rule, case by case)."""
    (operand, indices), (operand_dim, indices_dim) = vals, dims
    offset, collapsed, index_map, operand_batching, indices_batching = dimension_numbers
    if indices_dim is not_mapped:
        operand = moveaxis(operand, operand_dim, 0)
        dnums = GatherDimensionNumbers((0, *_shift(offset)), _shift(collapsed), _shift(index_map),
                                       _shift(operand_batching), indices_batching)
        sizes = (core.get_aval(operand).shape[0], *slice_sizes)
    elif operand_dim is not_mapped:
        indices = moveaxis(indices, indices_dim, 0)
        dnums = GatherDimensionNumbers(tuple(1 + d for d in offset), collapsed, index_map,
                                       operand_batching, _shift(indices_batching))
        sizes = slice_sizes  # (batched indices into one array: maybe unsorted, repeated)
        params = dict(params, indices_are_sorted=False, unique_indices=False)
    else:
        operand = moveaxis(operand, operand_dim, 0)
        indices = moveaxis(indices, indices_dim, 0)
        dnums = GatherDimensionNumbers(_shift(offset), _shift(collapsed), _shift(index_map),
                                       (0, *_shift(operand_batching)),
                                       (0, *_shift(indices_batching)))
        sizes = (min(1, core.get_aval(operand).shape[0]), *slice_sizes)
    return gather_p.bind(operand, indices, dimension_numbers=dnums, slice_sizes=sizes,
                         **params), 0


def _scatter_batching(primitive):
    """Operand and updates batched at axis 0 (broadcast if need be); unbatched indices
    scatter the batch axis as one more window axis, batched ones pair it as batching dims
    (JAX's rule)."""
    def batching(vals, dims, *, dimension_numbers, **params):
        size = next(core.get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
        (operand, indices, updates), (operand_dim, indices_dim, updates_dim) = vals, dims
        operand = move_batch_axis(size, operand_dim, 0, operand)
        updates = move_batch_axis(size, updates_dim, 0, updates)
        window, inserted, to_operand, operand_batching, indices_batching = dimension_numbers
        if indices_dim is not_mapped:
            dnums = ScatterDimensionNumbers((0, *_shift(window)), _shift(inserted),
                                            _shift(to_operand), _shift(operand_batching),
                                            indices_batching)
        else:
            indices = moveaxis(indices, indices_dim, 0)
            dnums = ScatterDimensionNumbers(_shift(window), _shift(inserted), _shift(to_operand),
                                            (0, *_shift(operand_batching)),
                                            (0, *_shift(indices_batching)))
        return primitive.bind(operand, indices, updates, dimension_numbers=dnums, **params), 0
    return batching

# ----------------------------------------------------------------------------- lowering


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted, unique_indices):
    aval_out = ctx.avals_out[0]
    if aval_out.size == 0:  # no window (its sizes need not fit): zeros, as JAX emits
        return broadcast_in_dim(constant(np.zeros((), aval_out.dtype)), aval_out, ())
    offset, collapsed, index_map, operand_batching, indices_batching = dimension_numbers
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=list(offset), collapsed_slice_dims=list(collapsed),
        operand_batching_dims=list(operand_batching),
        start_indices_batching_dims=list(indices_batching), start_index_map=list(index_map),
        index_vector_dim=ctx.avals_in[1].ndim - 1)
    return hlo.GatherOp(operand, indices, dnums, list(slice_sizes),
                        indices_are_sorted=indices_are_sorted).result


def _windows_outside_unless_they_fit(operand_shape, updates_shape, indices, dnums):
    """``indices`` with each window that does not fit moved wholly outside the operand (its
    start at the end of every indexed axis). XLA drops a window that does not fit, but the
    StableHLO spec (and its reference interpreter) drops only its elements outside: so the
    module itself says which windows to drop, and both give the primitive's answer. Indices
    too narrow to reach the end are widened to int64 first."""
    ends = [operand_shape[d] for d in dnums.scatter_dims_to_operand_dims]
    if max(ends, default=0) > dtypes.highest(core.get_aval(indices).dtype):
        indices = lax.convert_element_type(indices, dtypes.int64)
    aval = core.get_aval(indices)
    fits = _window_fits(operand_shape, indices, dnums.scatter_dims_to_operand_dims,
                        scatter_window_sizes(operand_shape, updates_shape, dnums))
    outside = lax.broadcast_in_dim(np.array(ends, aval.dtype), aval.shape, (aval.ndim - 1,))
    fits = lax.broadcast_in_dim(fits, aval.shape, tuple(range(aval.ndim - 1)))
    return lax.select_n(fits, outside, indices)


def _scatter_lowering(combine):
    """``stablehlo.scatter`` whose update region is ``combine(current, update, dtype)``."""
    def lowering(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                 unique_indices, mode=None, update_jaxpr=None, update_consts=()):
        operand_aval, indices_aval, updates_aval = ctx.avals_in
        sizes = scatter_window_sizes(operand_aval.shape, updates_aval.shape, dimension_numbers)
        if any(sizes[d] != 1 for d in dimension_numbers.scatter_dims_to_operand_dims):
            # a window may fit in part (one of a single element fits whole or not at all,
            # on every executor: its indices go to the scatter as they are, as in JAX)
            closed, _ = trace_to_jaxpr(lambda i: [_windows_outside_unless_they_fit(
                operand_aval.shape, updates_aval.shape, i, dimension_numbers)], [indices_aval])
            [indices] = lower_closed_jaxpr(ctx.module_context, closed, [indices])
        window, inserted, to_operand, operand_batching, indices_batching = dimension_numbers
        dnums = hlo.ScatterDimensionNumbers.get(
            update_window_dims=list(window), inserted_window_dims=list(inserted),
            input_batching_dims=list(operand_batching),
            scatter_indices_batching_dims=list(indices_batching),
            scattered_dims_to_operand_dims=list(to_operand),
            index_vector_dim=indices_aval.ndim - 1)
        op = hlo.ScatterOp([tensor_type(ctx.avals_out[0])], [operand], indices, [updates], dnums,
                           indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
        scalar = ir.RankedTensorType.get([], element_type(ctx.avals_in[0].dtype))
        block = append_block(ctx, op.update_computation, scalar, scalar)
        current, update = block.arguments
        # (JAX lowers the combining function's jaxpr, one equation of the primitive the
        # scatter is named after: scatter-add's add)
        combiner = ctx.primitive.name.removeprefix('scatter').lstrip('-')
        with ir.InsertionPoint(block):
            if update_jaxpr is None:
                with traceless_location(ctx, combiner):
                    combined = [combine(current, update, operand_aval.dtype)]
            else:  # scatter_apply's
                combined = lower_closed_jaxpr(
                    ctx.module_context, ClosedJaxpr(update_jaxpr, list(update_consts)),
                    [current, update])
            hlo.ReturnOp(combined)
        return op.result
    return lowering

# ----------------------------------------------------------------------------- the primitives


gather_p = Primitive('gather')
gather_p.def_impl(_gather_impl)
gather_p.def_abstract_eval(_gather_abstract_eval)
gather_p.def_jvp(_linear_jvp(gather_p), symbolic_zeros=True)
gather_p.def_transpose(_gather_transpose)
gather_p.def_batching(_gather_batching)
register_lowering(gather_p, _gather_lowering)

def _extremal_at(ufunc, chooser):
    """``ufunc.at`` (``np.minimum.at``), but for complex numbers the updates are taken one
    at a time by ``chooser`` (``lax.min``'s impl), in JAX's order: real parts first."""
    def combine(out, coords, values):
        if not dtypes.is_complex(out.dtype):
            return ufunc.at(out, coords, values)
        for k, value in enumerate(values):  # (coords and values: one entry per element)
            at = tuple(c[k] for c in coords)
            out[at] = chooser(out[at], value)
    return combine


def _region(op):
    return lambda current, update, dtype: op(current, update).result


#: name (JAX's: ``scatter-add``) -> (NumPy in-place combine, the update region ``(current, update, dtype) -> value``,
#: jvp rule of the primitive).
_SCATTERS = {
    'scatter': (_assign_at, lambda current, update, dtype: update, lambda p: _scatter_jvp),
    'scatter-add': (np.add.at, _region(hlo.AddOp), _linear_jvp),
    'scatter-sub': (np.subtract.at, _region(hlo.SubtractOp), _linear_jvp),
    'scatter-mul': (np.multiply.at, _region(hlo.MulOp), lambda p: _scatter_mul_jvp),
    'scatter-min': (_extremal_at(np.minimum, core.impl_rules[lax.min_p]),
                    lambda current, update, dtype: choose(current, update, 'LT', dtype),
                    _scatter_extremal_jvp),
    'scatter-max': (_extremal_at(np.maximum, core.impl_rules[lax.max_p]),
                    lambda current, update, dtype: choose(current, update, 'GT', dtype),
                    _scatter_extremal_jvp),
}


def _scatter_primitive(name, combine, region, make_jvp):
    primitive = Primitive(name)
    primitive.def_impl(_scatter_impl(combine))
    primitive.def_abstract_eval(_scatter_abstract_eval(name))
    primitive.def_jvp(make_jvp(primitive), symbolic_zeros=True)
    primitive.def_batching(_scatter_batching(primitive))
    register_lowering(primitive, _scatter_lowering(region))
    return primitive


scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p = (
    _scatter_primitive(name, *row) for name, row in _SCATTERS.items())
scatter_add_p.def_transpose(_scatter_add_transpose)
scatter_sub_p.def_transpose(_scatter_sub_transpose)
scatter_mul_p.def_transpose(_scatter_mul_transpose)
scatter, scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max = (
    _scatter_function(p) for p in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p,
                                   scatter_min_p, scatter_max_p))


class _Applied(NamedTuple):
    """``func`` as a scatter's update computation, ``(current, update) -> func(current)``:
    equal for one ``func``, so that its jaxpr is traced once (as JAX caches it)."""
    func: object

    def __call__(self, current, update):
        return self.func(current)


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """``operand`` with ``func`` (of a scalar) applied to each element a window of shape
    ``update_shape`` per index vector covers, once per window covering it. As JAX writes it:
    a ``scatter`` of unused zeros whose update computation is ``func`` of the current value.
    JAX does not differentiate it (nor does minijax)."""
    _index_operands('scatter_apply', operand, scatter_indices)
    dnums = _canonical(dimension_numbers, ScatterDimensionNumbers)
    dtype = core.get_aval(operand).dtype
    unused = lax.full(core.canonicalize_shape(update_shape, 'scatter_apply: update_shape'), 0,
                      dtype)
    closed, _ = lax.reductions.computation_jaxpr(_Applied(func), (ShapedArray((), dtype),),
                                                 tree_util.tree_structure(0))
    mode = GatherScatterMode.from_any(mode)
    if mode is GatherScatterMode.CLIP:
        scatter_indices = _clipped_scatter_indices(operand, scatter_indices, unused, dnums)
    return scatter_p.bind(operand, scatter_indices, unused, dimension_numbers=dnums,
                          indices_are_sorted=bool(indices_are_sorted),
                          unique_indices=bool(unique_indices), mode=mode,
                          update_jaxpr=closed.jaxpr, update_consts=tuple(closed.consts))
