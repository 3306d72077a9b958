"""``jnp`` indexing: ``x[idx]`` and ``x.at[idx]``, written on the functions of ``minijax.numpy``,
which imports them back.

``x[idx]`` follows NumPy. Static ints, slices, None and Ellipsis alone are *basic* indexing:
a strided ``lax.slice`` and a reshape. An integer array or a traced integer makes the index
*advanced*: the ints then count as advanced too, all of them are broadcast together, and
one ``lax.gather`` reads an element (or a row, for the axes sliced) per index; their axes go
where the first of them stood if they are adjacent, else to the front. ``x.at[idx]``
updates with the matching scatter. Out of bounds, as in JAX: reads clamp (``mode=None``;
``.at[idx].get(mode='fill')`` fills instead), updates are dropped (``mode='clip'`` clamps).
"""
from __future__ import annotations

import builtins
import operator
from typing import NamedTuple

import numpy as np

from minijax import core, dtypes, lax
from minijax.array import Array, scalar as _scalar
from minijax.core import Tracer
from minijax.errors import NonConcreteBooleanIndexError
from minijax.numpy import (_no_out, _shape_str, add, asarray, broadcast_to, concatenate, divide,
                           maximum, minimum, multiply, negative, ones_like, power, ravel,
                           remainder, reshape, where)

__all__ = ['getitem', 'index_update_helper', 'take', 'take_along_axis']


def _index_entry(i):
    """One entry of an index: a static int, slice, None or Ellipsis, or an integer array or
    traced integer (an Array or Tracer). Concrete integer scalars (NumPy, Array) become ints."""
    if i is None or i is Ellipsis or isinstance(i, builtins.slice):
        return i
    if isinstance(i, (bool, np.bool_)) or (hasattr(i, 'dtype') and np.dtype(i.dtype) == bool):
        raise TypeError('minijax does not support a scalar boolean index (x[True]): use '
                        'x[None], or x[None][:0] for x[False]')
    if isinstance(i, (int, np.integer)):
        if isinstance(i, int) and not -2**63 <= i < 2**63:
            raise OverflowError(f'Python int {i} too large to convert to int64')  # JAX's
        return int(i)
    if isinstance(i, (Tracer, Array, np.ndarray, list, tuple)):
        if not np.issubdtype(np.result_type(core.get_aval(i).dtype if isinstance(i, Tracer)
                                            else np.asarray(i).dtype), np.integer):
            raise TypeError(f'indices must be integers, got an index of type '
                            f'{type(i).__name__} with dtype {np.asarray(i).dtype.name}'
                            if not isinstance(i, Tracer) else
                            f'indices must be integers, got {i.aval.str_short()}')
        if np.ndim(i) == 0 and not isinstance(i, Tracer):
            return operator.index(np.asarray(i))
        return asarray(i)
    raise TypeError(f'an index must be an int, slice, None, Ellipsis or integer array, got '
                    f'{type(i).__name__}')


def _check_static_slice(i, position):
    """A slice's bounds fix its result's shape, so they must be known while tracing (for a
    window at a traced start: ``lax.dynamic_slice``)."""
    if isinstance(i, builtins.slice) and builtins.any(
            isinstance(b, Tracer) for b in (i.start, i.stop, i.step)):
        raise IndexError(f'Slice entries must be static integers. Got {i} at position '
                         f'{position}')


def _is_array_index(i):
    return not (i is None or isinstance(i, (int, builtins.slice)))


def _is_bool_mask(i):
    """A boolean array index of one axis or more (``x[mask]``)."""
    return (isinstance(i, (Tracer, Array, np.ndarray)) and np.dtype(i.dtype) == bool
            and np.ndim(i) > 0)


def _axes_indexed(i):
    if i is None or i is Ellipsis:
        return 0
    return np.ndim(i) if _is_bool_mask(i) else 1


def _expand_bool_masks(shape_, idx):
    """``idx`` with each boolean mask replaced by the integer indices of its True elements,
    one array per axis it covers (NumPy's ``nonzero`` of its value: as in JAX, the mask
    must be concrete, for the number of elements to be known)."""
    out, axis = [], 0
    for position, i in enumerate(idx):
        if i is Ellipsis:
            axis = len(shape_) - builtins.sum(map(_axes_indexed, idx[position + 1:]))
        if not _is_bool_mask(i):
            out.append(i)
            axis += _axes_indexed(i)
            continue
        if not isinstance(core.get_aval(i), core.ConcreteArray):
            raise NonConcreteBooleanIndexError(i)
        mask = np.asarray(core.get_aval(i).val)
        covered = tuple(shape_[axis:axis + mask.ndim])
        if mask.shape != covered:
            raise IndexError(f'boolean index {position} has shape {_shape_str(mask.shape)} '
                             f'but the axes it indexes have shape {_shape_str(covered)}')
        out.extend(np.nonzero(mask))
        axis += mask.ndim
    return tuple(out)


def _expand_index(shape_, idx):
    """``idx`` as one entry per axis of ``shape_`` (plus ``None`` entries, which add axes):
    boolean masks as integer indices, the ellipsis (or the end) filled with full slices."""
    idx = _expand_bool_masks(shape_, idx if isinstance(idx, tuple) else (idx,))
    for position, i in enumerate(idx):
        _check_static_slice(i, position)
    idx = tuple(map(_index_entry, idx))
    used = builtins.sum(1 for i in idx if i is not None and i is not Ellipsis)
    if used > len(shape_):
        raise IndexError(f'too many indices ({used}) for an array of shape {_shape_str(shape_)}')
    if idx.count(Ellipsis) > 1:
        raise IndexError('an index can only have a single ellipsis')
    fill = (builtins.slice(None),) * (len(shape_) - used)
    if Ellipsis in idx:
        at = idx.index(Ellipsis)
        return idx[:at] + fill + idx[at + 1:]
    return idx + fill


def _uses_gather(entries, mode, int_mode):
    """Whether ``entries`` need a gather/scatter: an array index, or a static int whose
    out-of-bounds behaviour ``mode`` sets to ``int_mode`` (which slicing does not have)."""
    return builtins.any(map(_is_array_index, entries)) or (
        mode is not None and lax.GatherScatterMode.from_any(mode) is int_mode
        and builtins.any(isinstance(i, int) for i in entries))


def _slice_window(s, n):
    """``(start, limit, stride)`` of the slice ``s`` of an axis of size ``n``, and whether
    the slice runs backwards. A negative step reads the same elements as the forward
    window from its last element with the step's magnitude, then reverses them (as JAX)."""
    start, stop, step = s.indices(n)
    count, backwards = len(range(start, stop, step)), step < 0
    if backwards:
        start, step = start + (count - 1) * step if count else 0, -step
    return (start, start + (count - 1) * step + 1 if count else start, step), backwards


def _static_window(shape_, entries):
    """Static basic indexing as a strided slice plus a reshape: the ``(start, limit,
    stride)`` per axis and the result shape (integers drop an axis, ``None`` adds one). An
    integer out of bounds is clamped into the axis, as JAX's gathers do."""
    window, out_shape, reversed_axes, axis = [], [], [], 0
    for i in entries:
        if i is None:
            out_shape.append(1)
            continue
        n = shape_[axis]
        if isinstance(i, builtins.slice):
            axis_window, backwards = _slice_window(i, n)
            window.append(axis_window)
            out_shape.append(len(range(*axis_window)))
            reversed_axes += [axis] * backwards
        else:
            if n == 0:
                raise IndexError(f'index {i} is out of bounds for axis {axis} with size 0')
            i = builtins.min(builtins.max(i + n if i < 0 else i, 0), n - 1)
            window.append((i, i + 1, 1))
        axis += 1
    return window, tuple(out_shape), tuple(reversed_axes)


def _is_whole_window(shape_, window):
    return window == [(0, n, 1) for n in shape_]


def _is_whole(shape_, slices):
    """Whether the static ``slices`` view all of an array of shape ``shape_``, in order."""
    window, _, reversed_axes = _static_window(shape_, slices)
    return _is_whole_window(shape_, window) and not reversed_axes


def _static_getitem(x, entries):
    shape_ = np.shape(x)
    window, out_shape, reversed_axes = _static_window(shape_, entries)
    if not _is_whole_window(shape_, window):
        starts, limits, strides = zip(*window)
        x = lax.slice(x, starts, limits, None if set(strides) == {1} else strides)
    if reversed_axes:
        x = lax.rev(x, reversed_axes)
    # as JAX: the axes of int entries squeezed out, then the None entries' new axes inserted
    kept = [i for i in entries if i is not None]
    dropped = [axis for axis, i in enumerate(kept) if not isinstance(i, builtins.slice)]
    if dropped:
        x = lax.squeeze(x, dropped)
    shown = [i for i in entries if i is None or isinstance(i, builtins.slice)]
    new = [axis for axis, i in enumerate(shown) if i is None]
    return lax.expand_dims(x, new) if new else x


def _basic_part(x, entries):
    """Split advanced indexing in two: ``x`` with the ``None`` axes added, the static part
    (the slices, full slices elsewhere, as entries of ``x``), and the advanced part (the
    entries of ``x[static part]``: full slices and the array and integer indices)."""
    new_axes = [k for k, i in enumerate(entries) if i is None]
    if new_axes:
        x = lax.expand_dims(x, new_axes)
    static = tuple(builtins.slice(None) if i is None or not isinstance(i, builtins.slice) else i
                   for i in entries)
    advanced = tuple(builtins.slice(None) if isinstance(i, builtins.slice) or i is None else i
                     for i in entries)
    return x, static, advanced


class _Indexer(NamedTuple):
    """A gather reading ``x[advanced part]`` (and the matching scatter writing it)."""
    indices: object             # int32 (*broadcast shape, number of indexed axes)
    dimension_numbers: tuple    # the gather's; the scatter's are the same numbers
    slice_sizes: tuple
    shape: tuple                # the result's shape: the updates' shape of the scatter

    def hints(self, given):
        """The caller's hints; with every index a scalar (traced or not) there is one index
        point, unique and sorted, and JAX marks it so (what makes ``scatter_mul``
        differentiable in its updates)."""
        if np.ndim(self.indices) == 1:
            return {**given, 'unique_indices': True, 'indices_are_sorted': True}
        return given


def _as_int32(i: int) -> np.int32:
    """A static index as JAX's gathers and scatters take it: converted to int32, wrapping
    around (2**32 + 1 is 1, uint32 4294967295 is -1)."""
    return np.int32((i + 2**31) % 2**32 - 2**31)


def _normalized_index(i, n, normalize):
    """An index as int32, counting from the end once if negative (``normalize``): in its own
    dtype first, then converted (wrapping) as JAX converts it. An unsigned index never
    counts from the end."""
    if isinstance(i, int):
        return _as_int32(i + n if normalize and i < 0 else i)
    if normalize and dtypes.kind(core.get_aval(i).dtype) == 'i':
        i = where(i < 0, i + n, i)
    return asarray(i, dtypes.int32)


def _indexer(shape_, entries, normalize=True):
    """The gather for ``entries``: full slices and (at least one) array or int indices."""
    axes = [k for k, i in enumerate(entries) if not isinstance(i, builtins.slice)]
    kept = [k for k in range(len(shape_)) if k not in axes]
    indices = [_normalized_index(entries[k], shape_[k], normalize) for k in axes]
    batch = np.broadcast_shapes(*(np.shape(i) for i in indices))
    columns = [reshape(broadcast_to(i, batch), (*batch, 1)) for i in indices]
    stacked = columns[0] if len(columns) == 1 else concatenate(columns, -1)
    first = axes[0] if axes == list(range(axes[0], axes[-1] + 1)) else 0
    offset_dims = tuple(d for d in range(len(kept) + len(batch))
                        if not first <= d < first + len(batch))
    kept_shape = [shape_[k] for k in kept]
    return _Indexer(stacked, (offset_dims, tuple(axes), tuple(axes)),
                    tuple(1 if k in axes else shape_[k] for k in range(len(shape_))),
                    (*kept_shape[:first], *batch, *kept_shape[first:]))


def _gather_index(x, entries, mode=None, fill_value=None, normalize=True, **hints):
    x, static, advanced = _basic_part(x, entries)
    view = _static_getitem(x, static)
    ix = _indexer(np.shape(view), advanced, normalize)
    if 0 in ix.shape:  # nothing to read: zeros that depend on nothing (as JAX reads them)
        return lax.full_like(view, 0, shape=ix.shape)
    return lax.gather(view, ix.indices, lax.GatherDimensionNumbers(*ix.dimension_numbers),
                      ix.slice_sizes, mode=mode, fill_value=fill_value, **ix.hints(hints))


def _is_dynamic_window(entries, mode):
    """Whether JAX reads ``x[entries]`` with one ``dynamic_slice``: its array indices are all
    integer scalars, its slices step by 1 or -1, and out of bounds clamps."""
    if mode is not None and lax.GatherScatterMode.from_any(mode) not in (
            lax.GatherScatterMode.CLIP, lax.GatherScatterMode.PROMISE_IN_BOUNDS):
        return False
    return builtins.all(np.ndim(i) == 0 if _is_array_index(i) else
                        not isinstance(i, builtins.slice) or i.step in (None, 1, -1)
                        for i in entries)


def _dynamic_getitem(x, entries):
    """``x[entries]`` with integer scalars among the entries (traced ones, or static ones out
    of bounds): a window of one element on their axes, at a start that a negative index
    counts from the end of, clamped into the axis (a ``dynamic_slice``), then reversed where
    a slice steps back and reshaped. As in JAX, the starts of an array of two axes or more
    are converted to int32 together, which wraps an index that int32 cannot hold; a vector's
    one start keeps its dtype."""
    shape_ = np.shape(x)
    starts, sizes, reversed_axes, out_shape, axis = [], [], [], [], 0
    for i in entries:
        if i is None:
            out_shape.append(1)
            continue
        if isinstance(i, builtins.slice):
            (start, limit, _), backwards = _slice_window(i, shape_[axis])
            starts.append(start)
            sizes.append(limit - start)
            out_shape.append(limit - start)
            reversed_axes += [axis] * backwards
        elif shape_[axis] == 0:
            raise IndexError(f'index is out of bounds for axis {axis} with size 0')
        else:
            starts.append(i)
            sizes.append(1)
        axis += 1
    if len(starts) > 1:
        starts = [_as_int32(i) if isinstance(i, int) else asarray(i, dtypes.int32)
                  for i in starts]
    elif isinstance(starts[0], int):  # clamped into [-n, n], which moves no window
        starts = [builtins.min(builtins.max(starts[0], -shape_[0]), shape_[0])]
    x = lax.dynamic_slice(x, starts, sizes)
    if reversed_axes:
        x = lax.rev(x, reversed_axes)
    return x if np.shape(x) == tuple(out_shape) else lax.reshape(x, tuple(out_shape))


def _getitem(x, idx, mode=None, fill_value=None, **hints):
    """JAX's three ways: a static window (a slice) for static ints and slices, a window at
    traced starts (a dynamic slice) for scalar array indices, else a gather. As in JAX, a
    static int out of bounds (unless ``mode='clip'``) takes the second way, where an int
    beyond int32 wraps in an array of two axes or more."""
    entries = _expand_index(np.shape(x), idx)
    checked = mode is None or lax.GatherScatterMode.from_any(
        mode) is lax.GatherScatterMode.PROMISE_IN_BOUNDS
    if not _uses_gather(entries, mode, lax.GatherScatterMode.FILL_OR_DROP) and (
            not checked or _ints_in_bounds(np.shape(x), entries, counted_from_end=True)):
        return _static_getitem(x, entries)
    if _is_dynamic_window(entries, mode):
        return _dynamic_getitem(x, entries)
    return _gather_index(x, entries, mode, fill_value, **hints)


def getitem(x, idx):
    """``x[idx]``: basic indexing slices, advanced indexing gathers (see above)."""
    return _getitem(x, idx)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """The elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if None).
    ``mode`` (JAX's): 'fill' (the default: out of bounds gives ``fill_value``, NaN for
    floats), 'clip' (negative indices clamp to 0 too) or 'wrap'. JAX's jit ``_take``, its
    axis an index (hashable, static)."""
    _no_out('take', out)
    return _take(a, indices, None if axis is None else operator.index(axis), mode,
                 unique_indices, indices_are_sorted, fill_value)


def _take(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value):
    if axis is None:
        a, axis = ravel(a), 0
    axis = core.canonicalize_axis(axis, np.ndim(a), 'take: axis')
    mode = 'fill' if mode is None else mode
    if mode not in ('fill', 'clip', 'wrap'):
        raise (NotImplementedError if mode == 'raise' else ValueError)(
            f"take: mode {mode!r} is not supported; use 'fill', 'clip' or 'wrap'")
    indices = asarray(indices)
    if not dtypes.is_integer(core.get_aval(indices).dtype):
        raise ValueError(f'take: indices must have an integer type, got '
                         f'{core.get_aval(indices).str_short()}')  # JAX's class
    if mode == 'wrap':
        indices = remainder(indices, np.asarray(np.shape(a)[axis], indices.dtype))
    entries = (builtins.slice(None),) * axis + (indices,)
    entries += (builtins.slice(None),) * (np.ndim(a) - axis - 1)
    return _gather_index(a, entries, 'promise_in_bounds' if mode == 'wrap' else mode,
                         fill_value, normalize=mode != 'clip', unique_indices=unique_indices,
                         indices_are_sorted=indices_are_sorted)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """``arr`` indexed along ``axis`` by ``indices`` of the same rank, the other axes walked
    together (broadcast): one gather with batching dims. ``mode`` as in ``take``, default
    'fill'; negative indices count from the end if ``wrap_negative_indices`` (by default,
    unless 'promise_in_bounds')."""
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError(f'take_along_axis: with axis=None, indices must be 1-D, got '
                             f'shape {np.shape(indices)}')
        arr, axis = ravel(arr), 0
    if np.ndim(indices) != np.ndim(arr):
        raise ValueError(f'take_along_axis: indices of shape {np.shape(indices)} and arr of '
                         f'shape {np.shape(arr)} must have the same rank')
    axis = core.canonicalize_axis(axis, np.ndim(arr), 'take_along_axis: axis')
    mode = 'fill' if mode is None else mode
    n = np.shape(arr)[axis]
    shape_ = np.broadcast_shapes(np.shape(indices), np.shape(arr)[:axis] + (1,)
                                 + np.shape(arr)[axis + 1:])
    arr = broadcast_to(arr, shape_[:axis] + (n,) + shape_[axis + 1:])
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != 'promise_in_bounds'
    indices = _normalized_index(_index_entry(indices), n, wrap_negative_indices)
    others = tuple(d for d in range(len(shape_)) if d != axis)
    dnums = lax.GatherDimensionNumbers((), (axis,), (axis,), others, others)
    return lax.gather(arr, reshape(broadcast_to(indices, shape_), (*shape_, 1)), dnums,
                      (1,) * len(shape_), mode=mode, fill_value=fill_value)


class _IndexUpdateHelper:
    """``x.at``: ``x.at[idx]`` gives an ``_IndexUpdateRef`` with ``set``, ``add``, ..."""
    __slots__ = ('array',)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    """A functional update of the elements ``x[idx]``: a new array, ``x`` is unchanged.

    Basic indices never select an element twice: the update is ``op(x[idx], values)``
    padded to the shape of ``x`` and chosen by a padded mask. Advanced indices scatter
    (``lax.scatter``, ``scatter_add``...), so repeated indices accumulate, as in JAX. Either
    way an index out of bounds drops its update (``mode='clip'`` clamps it instead).
    """
    __slots__ = ('array', 'idx')

    def __init__(self, array, idx):
        self.array, self.idx = array, idx

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None):
        return _getitem(self.array, self.idx, mode, fill_value,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)

    def set(self, values, **hints):  # noqa: A003
        return _update(self.array, self.idx, values, 'set', **hints)

    def add(self, values, **hints):
        return _update(self.array, self.idx, values, 'add', **hints)

    def subtract(self, values, **hints):
        return self.add(negative(asarray(values)), **hints)

    def multiply(self, values, **hints):
        return _update(self.array, self.idx, values, 'multiply', **hints)

    mul = multiply

    def divide(self, values, **hints):
        """``x / ones.at[idx].multiply(values)``, as JAX computes it."""
        return divide(self.array, ones_like(self.array).at[self.idx].multiply(values, **hints))

    def power(self, values, **hints):
        return power(self.array, ones_like(self.array).at[self.idx].multiply(values, **hints))

    def min(self, values, **hints):  # noqa: A003
        return _update(self.array, self.idx, values, 'min', **hints)

    def max(self, values, **hints):  # noqa: A003
        return _update(self.array, self.idx, values, 'max', **hints)

    def apply(self, func, **hints):
        """``func`` (elementwise) applied to the selected elements: as JAX, once per index
        selecting an element (``lax.scatter_apply``), so a repeated index applies it again."""
        return _update(self.array, self.idx, func, 'apply', **hints)


#: ``.at[idx]`` update -> (its scatter, its elementwise form for basic indices)
_UPDATES = {'set': (lax.scatter, lambda old, new: new), 'add': (lax.scatter_add, add),
            'multiply': (lax.scatter_mul, multiply), 'min': (lax.scatter_min, minimum),
            'max': (lax.scatter_max, maximum), 'apply': (None, lambda old, func: func(old))}


def _update(x, idx, values, kind, mode=None, **hints):
    scatter, elementwise = _UPDATES[kind]
    entries = _expand_index(np.shape(x), idx)
    dtype = core.get_aval(x).dtype
    if kind != 'apply':  # (a Python int wraps around to ``x``'s dtype, as in JAX)
        values = _scalar(values, dtype) if type(values) in dtypes.PYTHON_SCALARS \
            else asarray(values, dtype)
    if not _uses_gather(entries, mode, lax.GatherScatterMode.CLIP):
        entries = _static_ints_as_scattered(np.shape(x), entries)
        if not _ints_in_bounds(np.shape(x), entries, counted_from_end=False) or \
                0 in _static_window(np.shape(x), entries)[1]:
            return asarray(x)  # JAX's scatter drops an update out of bounds, skips an empty one
        return _static_update(x, entries,
                              asarray(elementwise(_static_getitem(x, entries), values), dtype))
    expanded, static, advanced = _basic_part(x, entries)
    view = _static_getitem(expanded, static)
    ix = _indexer(np.shape(view), advanced)
    if 0 in ix.shape:  # nothing to write: ``x`` itself, as JAX skips the scatter
        return asarray(x)
    dnums = lax.ScatterDimensionNumbers(*ix.dimension_numbers)
    if kind == 'apply':
        view = lax.scatter_apply(view, ix.indices, values, dnums, update_shape=ix.shape,
                                 mode=mode, **ix.hints(hints))
    else:
        view = scatter(view, ix.indices, broadcast_to(values, ix.shape), dnums, mode=mode,
                       **ix.hints(hints))
    if not _is_whole(np.shape(expanded), static):  # a strided view: put it back in place
        view = _static_update(expanded, static, view)
    return reshape(view, np.shape(x))


def _static_ints_as_scattered(shape_, entries):
    """The static int entries as JAX's scatter sees them: counted from the end once if
    negative, then converted to int32 (wrapping: index 2**32 + 1 updates element 1)."""
    out, axis = [], 0
    for i in entries:
        if isinstance(i, int):
            i = int(_normalized_index(i, shape_[axis], True))
        out.append(i)
        axis += i is not None
    return tuple(out)


def _ints_in_bounds(shape_, entries, counted_from_end):
    """Whether every static int entry is inside its axis (from -n if ``counted_from_end``)."""
    axes = [e for e in entries if e is not None]
    return builtins.all(-n * counted_from_end <= i < n for i, n in zip(axes, shape_)
                        if isinstance(i, int))


def _static_update(x, entries, values):
    shape_, dtype_ = np.shape(x), core.get_aval(x).dtype
    window, out_shape, reversed_axes = _static_window(shape_, entries)
    sizes = [len(range(*w)) for w in window]
    values = reshape(broadcast_to(values, out_shape), sizes)
    if reversed_axes:
        values = lax.rev(values, reversed_axes)
    config = [(start, n - limit, stride - 1) for (start, limit, stride), n in zip(window, shape_)]
    padded = lax.pad(values, np.zeros((), dtype_), config)
    mask = lax.pad(lax.full(sizes, True, dtypes.bool_), np.array(False), config)
    return lax.select_n(mask, x, padded)


def index_update_helper(x):
    return _IndexUpdateHelper(x)
