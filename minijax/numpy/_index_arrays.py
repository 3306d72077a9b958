"""``jnp``'s index arrays: the indices of a triangle or a diagonal (``tril_indices``,
``diag_indices``), an index grid (``indices``), and flat indices to coordinates and back
(``unravel_index``, ``ravel_multi_index``). They compute indices to index other arrays with,
not values; written on the functions of ``minijax.numpy``, which imports them back.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.numpy import (add, arange, asarray, clip, divmod, greater, less, multiply,
                           remainder, result_type, stack, where, zeros, zeros_like)

__all__ = ['diag_indices', 'indices', 'ravel_multi_index', 'tril_indices', 'triu_indices',
           'unravel_index']


def tril_indices(n, k=0, m=None):
    """The (row, column) indices of the lower triangle of an (n, m) matrix (static)."""
    return tuple(asarray(i) for i in np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """The (row, column) indices of the upper triangle of an (n, m) matrix (static)."""
    return tuple(asarray(i) for i in np.triu_indices(n, k, m))


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``ndim``-dimensional cube of side ``n``."""
    return (arange(n),) * ndim


def indices(dimensions, dtype=None, sparse=False):
    """An index grid: ``out[i]`` holds each element's index along axis ``i``."""
    dtype = dtypes.check_supported(dtype or dtypes.int64, 'indices')
    shape_ = tuple(dimensions)
    if sparse:
        return tuple(lax.broadcasted_iota(dtype, tuple(n if j == i else 1 for j, n in enumerate(shape_)), i)
                     for i in range(len(shape_)))
    return stack([lax.broadcasted_iota(dtype, shape_, i) for i in range(len(shape_))]) if shape_ else \
        zeros((0,), dtype)


def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` (a sequence, or one size) of flat
    ``indices``, JAX's way: a ``divmod`` per axis from the last, then each coordinate of an
    index out of bounds clamped (a negative index in bounds counts from the end)."""
    indices = asarray(indices)
    shape = list(shape) if np.iterable(shape) else [shape]
    coords = [0] * len(shape)
    for i in reversed(range(len(shape))):
        indices, coords[i] = divmod(indices, shape[i])
    above = greater(indices, 0)
    below = asarray(False) if np.issubdtype(indices.dtype, np.unsignedinteger) else \
        less(indices, -1)
    return tuple(where(above, s - 1, where(below, 0, c)) for s, c in zip(shape, coords))


def ravel_multi_index(multi_index, dims, mode='raise', order='C', *, dtype=None):
    """The flat indices of the coordinates ``multi_index`` in an array of shape ``dims``, of
    ``dtype`` (an integer type; by default the coordinates' promoted with int);
    out-of-bounds coordinates ``'clip'`` or ``'wrap'``; ``'raise'`` checks concrete ones."""
    if order not in ('C', 'F'):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    if len(multi_index) != len(dims):
        raise ValueError(f'ravel_multi_index: {len(multi_index)} coordinates for '
                         f'{len(dims)} dimensions')
    coords = [asarray(i) for i in multi_index]
    dtype = _index_dtype(dtype, coords, dims)
    if mode == 'raise':
        if builtins.any(isinstance(c, Tracer) for c in coords):
            raise ValueError("ravel_multi_index: mode='raise' needs concrete indices; use "
                             "mode='clip' or 'wrap' under a transformation")
        if builtins.any(np.any((np.asarray(c) < 0) | (np.asarray(c) >= n))
                        for c, n in zip(coords, dims)):
            raise ValueError(f'ravel_multi_index: an index is out of bounds for dims {dims}')
    elif mode == 'wrap':
        coords = [remainder(c, n) for c, n in zip(coords, dims)]
    elif mode == 'clip':
        coords = [clip(c, 0, n - 1) for c, n in zip(coords, dims)]
    else:
        raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', got "
                         f'{mode!r}')
    sizes = list(dims) if order == 'C' else list(dims)[::-1]
    coords = coords if order == 'C' else coords[::-1]
    flat = zeros_like(coords[0], dtype) if coords else asarray(0, dtype)
    for c, n in zip(coords, sizes):
        flat = add(multiply(flat, n), c.astype(dtype))
    return flat


def _index_dtype(dtype, coords, dims):
    """``ravel_multi_index``'s result dtype: an integer type that holds every flat index."""
    if dtype is None:
        return result_type(int, *coords)
    dtype = dtypes.check_supported(dtype, 'ravel_multi_index: dtype')
    if not dtypes.is_integer(dtype):
        raise ValueError(f'dtype={np.dtype(dtype)!r} is not an integer type.')
    if math.prod(dims) - 1 > np.iinfo(dtype).max:
        raise ValueError(f'jnp.ravel_multi_index: dtype={np.dtype(dtype)!r} not large enough '
                         f'to hold flattened index for dims={tuple(dims)}. Use the dtype '
                         'argument to pass a suitable dtype (e.g. '
                         'dtype=np.min_scalar_type(prod(dims))).')
    return dtype
