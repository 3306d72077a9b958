"""``jnp``'s functions that edit an array's elements or cut and glue it: ``append``,
``insert``, ``delete``, ``put``, ``put_along_axis``, ``place``, ``resize``, ``trim_zeros``;
``array_split`` and the axis-named splits and stacks, ``block``, ``atleast_3d``, ``rollaxis``;
and the functions mapped over axes (``apply_along_axis``, ``apply_over_axes``). JAX's arrays
are immutable: the NumPy functions that write in place need ``inplace=False`` and return the
new array, as in JAX.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from minijax import core, dtypes, lax
from minijax.numpy import _shapes
from minijax.array import Array
from minijax.core import Tracer
from minijax.interpreters.batching import vmap
from minijax.numpy import (_axes, _concrete_or_error, arange, argsort, array, asarray,
                           broadcast_shapes, broadcast_to, clip, concatenate, expand_dims, full,
                           moveaxis, nonzero, ones, ravel, remainder, reshape, sort, tile,
                           unravel_index, where, zeros_like)

__all__ = ['append', 'apply_along_axis', 'apply_over_axes', 'array_split', 'atleast_3d',
           'block', 'delete', 'dsplit', 'dstack', 'hsplit', 'insert', 'place', 'put',
           'put_along_axis', 'resize', 'rollaxis', 'trim_zeros', 'vsplit']


# ----------------------------------------------------------------------------- editing

def append(arr, values, axis=None):
    """``values`` joined after ``arr`` along ``axis`` (both flattened if None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the indices ``obj`` along ``axis`` (of the
    flattened ``arr`` if None): scattered to their places, ``arr``'s elements to the rest
    (JAX's way, which works for traced indices)."""
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = core.canonicalize_axis(axis, np.ndim(a), 'insert: axis')
    n = np.shape(a)[axis]
    indices = arange(*obj.indices(n)) if isinstance(obj, slice) else asarray(obj)
    if np.ndim(indices) > 1:
        raise ValueError(f'jnp.insert(): obj must be a slice, a one-dimensional array, or a '
                         f'scalar; got {obj}')
    if not dtypes.is_integer(core.get_aval(indices).dtype):
        if np.size(indices) == 0 and not isinstance(obj, core.Tracer):
            indices = indices.astype(dtypes.int64)
        else:
            raise ValueError(f'jnp.insert(): index array must be integer typed; got {obj}')
    values = array(values, ndmin=np.ndim(a), dtype=core.get_aval(a).dtype, copy=False)
    if np.size(indices) == 1:
        index = ravel(indices)[0]
        if np.ndim(indices) == 0:
            values = moveaxis(values, 0, axis)
        indices = full(np.shape(values)[axis], index)
    count = broadcast_shapes(np.shape(indices), (np.shape(values)[axis],))[0]
    out_shape = list(np.shape(a))
    out_shape[axis] += count
    out = zeros_like(a, shape=tuple(out_shape))
    indices = clip(where(indices < 0, indices + n, indices), 0, n)
    values_at = indices.at[argsort(indices)].add(arange(count, dtype=core.get_aval(
        indices).dtype))
    kept = ones(n + count, dtypes.bool_).at[values_at].set(False)
    arr_at = nonzero(kept, size=n)[0]
    before = (slice(None),) * axis
    return out.at[before + (values_at,)].set(values).at[before + (arr_at,)].set(a)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an index, a slice, indices or a boolean mask)
    along ``axis``. Traced indices need ``assume_unique_indices=True``, as in JAX."""
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = core.canonicalize_axis(axis, np.ndim(a), 'delete: axis')
    n, before = np.shape(a)[axis], (slice(None),) * axis
    try:
        obj = core.canonicalize_axis(operator.index(obj), n, 'delete: obj')
    except TypeError:
        pass
    else:
        return concatenate([a[before + (slice(0, obj),)], a[before + (slice(obj + 1, None),)]],
                           axis=axis)
    if isinstance(obj, slice):
        obj, assume_unique_indices = arange(n)[obj], True
    if isinstance(obj, (list, tuple)):
        raise TypeError('delete requires ndarray or scalar arguments, got '
                        f'{type(obj)} at position 1.')
    if dtypes.is_integer(core.get_aval(obj).dtype) and assume_unique_indices:
        obj = ravel(asarray(obj))
        obj = sort(clip(where(obj < 0, obj + n, obj), 0, n))
        obj = obj - arange(np.size(obj), dtype=core.get_aval(obj).dtype)
        i = arange(n - np.size(obj), dtype=core.get_aval(obj).dtype)
        i = i + (expand_dims(i, 0) >= expand_dims(obj, 1)).sum(0, dtype=core.get_aval(i).dtype)
        return a[before + (i,)]
    obj = _concrete_or_error(np.asarray, obj, "'obj' array argument of jnp.delete()")
    if np.issubdtype(obj.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[obj] = False
    elif obj.dtype == bool:
        if obj.shape != (n,):
            raise ValueError('np.delete(arr, obj): for boolean indices, obj must be '
                             'one-dimensional with length matching specified axis.')
        mask = ~obj
    else:
        raise ValueError(f'np.delete(arr, obj): got obj.dtype={obj.dtype}; must be integer '
                         'or bool.')
    return a[before + (mask,)]


def _refuse_inplace(name, inplace):
    if inplace:
        raise ValueError(f'jax.numpy.{name} cannot modify arrays in-place, because JAX arrays '
                         'are immutable. Pass inplace=False to instead return an updated array.')


def _tile_to_size(x, size):
    """The 1-D ``x`` repeated to ``size`` elements."""
    n = np.shape(x)[0]
    x = tile(x, -(-size // n)) if n < size else x
    return x[:size] if np.shape(x)[0] > size else x


def put(a, ind, v, mode=None, *, inplace=True):
    """``a`` with the flat indices ``ind`` set to ``v`` (repeated as needed); indices out
    of bounds are dropped (``mode=None``), clipped or wrapped."""
    _refuse_inplace('put', inplace)
    a, ind, v = asarray(a), ravel(asarray(ind)), ravel(asarray(v))
    if not np.size(a) or not np.size(ind) or not np.size(v):
        return a
    v = _tile_to_size(v, np.shape(ind)[0])
    if mode is None:
        scatter_mode = 'drop'
    elif mode == 'clip':
        ind, scatter_mode = clip(ind, 0, np.size(a) - 1), 'promise_in_bounds'
    elif mode == 'wrap':
        ind, scatter_mode = remainder(ind, np.size(a)), 'promise_in_bounds'
    elif mode == 'raise':
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return a.at[unravel_index(ind, np.shape(a))].set(v, mode=scatter_mode)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` put at ``indices`` along ``axis``, the other axes walked
    together (the inverse of ``take_along_axis``)."""
    _refuse_inplace('put_along_axis', inplace)
    arr, indices, values = asarray(arr), asarray(indices), asarray(values)
    shape_ = np.shape(arr)
    if axis is None:
        arr, axis_ = ravel(arr), 0
    else:
        axis_ = axis
    if np.ndim(arr) != np.ndim(indices):
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. "
                         f'Got arr.ndim={np.ndim(arr)} and indices.ndim={np.ndim(indices)}.')
    try:
        values = broadcast_to(values, np.shape(indices))
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to 'indices'. "
                         f'Got values.shape={np.shape(values)} and '
                         f'indices.shape={np.shape(indices)}.') from None
    axis_ = core.canonicalize_axis(axis_, np.ndim(arr), 'put_along_axis: axis')
    idx = tuple(indices if d == axis_ else lax.broadcasted_iota(
        dtypes.int64, tuple(s if k == d else 1 for k, s in enumerate(np.shape(arr))), d)
        for d in range(np.ndim(arr)))
    out = arr.at[idx].set(values, mode=mode)
    return reshape(out, shape_) if axis is None else out


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the elements where ``mask`` holds set to ``vals`` in order (repeated
    as needed)."""
    data, mask, vals = asarray(arr), asarray(mask), ravel(asarray(vals))
    if inplace:
        raise ValueError('jax.numpy.place cannot modify arrays in-place, because JAX arrays are '
                         'immutable. Pass inplace=False to instead return an updated array.')
    if np.size(data) != np.size(mask):
        raise ValueError('place: arr and mask must be the same size')
    if not np.size(vals):
        raise ValueError('Cannot place values from an empty array')
    if not np.size(data):
        return data
    where_ = nonzero(ravel(mask), size=np.size(mask), fill_value=np.size(mask))[0]
    vals = _tile_to_size(vals, np.shape(where_)[0])
    return reshape(ravel(data).at[where_].set(vals, mode='drop'), np.shape(data))


def resize(a, new_shape):
    """``a`` flattened, repeated to fill ``new_shape``."""
    new_shape = tuple(new_shape) if np.iterable(new_shape) else (new_shape,)
    new_shape = tuple(map(operator.index, new_shape))
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError('all elements of `new_shape` must be non-negative')
    arr = ravel(a)
    new_size = math.prod(new_shape)
    if np.size(arr) == 0 or new_size == 0:
        return zeros_like(arr, shape=new_shape)
    return reshape(tile(arr, -(-new_size // np.size(arr)))[:new_size], new_shape)


def trim_zeros(filt, trim='fb', axis=None):
    """``filt`` without its leading (``'f'``) and trailing (``'b'``) zero slices along
    ``axis`` (every axis if None): the sizes are read from concrete values."""
    filt = asarray(filt)
    value = _concrete_or_error(np.asarray, filt,
                                   'Error arose in the `filt` argument of trim_zeros()')
    axes = set(range(np.ndim(filt)) if axis is None else _axes('trim_zeros', filt, axis))
    trim = trim.lower()
    if not axes or ('f' not in trim and 'b' not in trim):
        return filt

    def window(ax):
        if ax not in axes:
            return slice(None)
        mask = value.any(axis=tuple(i for i in range(value.ndim) if i != ax))
        if not mask.any():
            return slice(0, 0)
        start = int(mask.argmax()) if 'f' in trim else None
        stop = value.shape[ax] - int(mask[::-1].argmax()) if 'b' in trim else None
        return slice(start, stop)
    return filt[tuple(window(ax) for ax in range(np.ndim(filt)))]


# ----------------------------------------------------------------------------- cutting and gluing

def array_split(ary, indices_or_sections, axis=0):
    """``ary`` cut along ``axis`` into ``n`` nearly equal sections (the first ones one
    longer), or at the given indices."""
    return _split('array_split', ary, indices_or_sections, axis)


def _split(name, ary, indices_or_sections, axis):
    ary = asarray(ary)
    axis = core.canonicalize_axis(operator.index(axis), np.ndim(ary), f'{name}: axis')
    size = np.shape(ary)[axis]
    if isinstance(indices_or_sections, (tuple, list)) or np.ndim(indices_or_sections) > 0:
        cuts = [0] + [operator.index(_concrete_or_error(int, i, f'in jax.numpy.{name} '
                                                             'argument 1'))
                      for i in indices_or_sections] + [size]
        sizes = list(np.diff(cuts))
    else:
        sections = _concrete_or_error(int, indices_or_sections,
                                          f'in jax.numpy.{name} argument 1')
        part, rest = divmod(size, sections)
        if rest and name != 'array_split':
            raise ValueError(f'array split does not result in an equal division: rest is {rest}')
        sizes = [part + 1] * rest + [part] * (sections - rest)
    return _shapes._pieces(ary, [int(b) for b in np.cumsum([0] + sizes)], axis)


def _axis_split(name, axis):
    def split_(ary, indices_or_sections):
        ary = asarray(ary)
        return _split(name, ary, indices_or_sections, 0 if np.ndim(ary) == 1 else axis)
    split_.__name__ = split_.__qualname__ = name
    split_.__doc__ = f'``split`` along axis {axis}{" (0 for 1-D arrays)" * (axis == 1)}.'
    return split_


hsplit, vsplit, dsplit = (_axis_split(name, axis) for name, axis in (('hsplit', 1), ('vsplit', 0),
                                                                     ('dsplit', 2)))


def atleast_3d(*arys):
    """Each of ``arys`` with at least 3 axes: a 1-D ``(n,)`` becomes ``(1, n, 1)``, a 2-D
    ``(m, n)`` ``(m, n, 1)``; one array alone is returned alone, several are each this
    function's (a jit of its own, as in JAX)."""
    if len(arys) != 1:
        return [atleast_3d(a) for a in arys]
    a = asarray(arys[0])
    new_axes = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}.get(np.ndim(a))
    return a if new_axes is None else expand_dims(a, new_axes)


def dstack(tup, dtype=None):
    """Arrays joined along the third axis (after ``atleast_3d``); an array stands for the
    sequence of its slices along the first axis."""
    if isinstance(tup, (np.ndarray, Array, Tracer)):
        arrays = vmap(atleast_3d)(tup)
    else:
        arrays = [atleast_3d(a) for a in tup]
    if dtype is not None:
        arrays = [a.astype(dtype) for a in arrays]
    return concatenate(arrays, 2)


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists joined along
    the last axis, the next ones along the one before... (a jit, as JAX's)."""
    return _block(arrays)[0]


def _block(xs):
    if isinstance(xs, tuple):
        raise ValueError(f'jax.numpy.block does not allow tuples, got {xs}')
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ValueError('jax.numpy.block does not allow empty list arguments')
    parts, depths = zip(*map(_block, xs))
    if builtins.any(d != depths[0] for d in depths[1:]):
        raise ValueError('Mismatched list depths in jax.numpy.block')
    rank = builtins.max(depths[0], builtins.max(np.ndim(x) for x in parts))
    parts = [lax.broadcast(x, (1,) * (rank - np.ndim(x))) for x in parts]
    return concatenate(parts, axis=-depths[0]), depths[0] + 1


def rollaxis(a, axis, start=0):
    """``a`` with ``axis`` moved to before ``start`` (NumPy's older ``moveaxis``)."""
    a = asarray(a)
    n = np.ndim(a)
    axis = core.canonicalize_axis(axis, n, 'rollaxis: axis')
    if not -n <= start <= n:
        raise ValueError(f'start={start} must satisfy {-n}<=start<={n}')
    start = start + n if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


# ----------------------------------------------------------------------------- mapped over axes

def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` of each 1-D slice along ``axis``, mapped over the other axes with
    ``vmap`` (its result's axes take the place of ``axis``)."""
    arr = asarray(arr)
    ndim_ = np.ndim(arr)
    axis = core.canonicalize_axis(axis, ndim_, 'apply_along_axis: axis')

    def func(x):
        return func1d(x, *args, **kwargs)
    for i in range(1, ndim_ - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each of ``axes`` in turn, each result keeping ``a``'s rank."""
    a = asarray(a)
    for axis in axes:
        b = func(a, axis)
        if np.ndim(b) == np.ndim(a):
            a = b
        elif np.ndim(b) == np.ndim(a) - 1:
            a = expand_dims(b, axis)
        else:
            raise ValueError('function is not returning an array of the correct shape')
    return a
