"""``jnp``'s functions whose result shape depends on values (``nonzero``, ``unique``,
``argwhere``, ``compress``...): the shape is read from concrete values, or given as ``size=``
under a transformation, as in JAX. Written on the functions of ``minijax.numpy``, which imports
them back.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from minijax import core, dtypes, lax
from minijax.numpy import (_as_bool, _computed_as, _is_bool, _is_float, _no_out, any, arange,
                           argsort, asarray, atleast_1d, clip, concatenate, cumsum, diff,
                           expand_dims, floor_divide, greater_equal, isnan, less, logical_and,
                           logical_not, moveaxis, not_equal, ones, ravel, remainder, reshape,
                           stack, sum, where, zeros)
from minijax.sharding import rules as sharding_rules

__all__ = ['argwhere', 'bincount', 'compress', 'extract', 'flatnonzero', 'lexsort', 'nonzero',
           'unique']


# ``nonzero``, ``unique``, ``x[mask]``...: the size of the result depends on the values. As in
# JAX, it is read from a concrete operand (eagerly, or under ``grad`` of concrete values);
# under ``jit`` or ``vmap`` the caller passes ``size=`` (and ``fill_value=``) instead. Each
# function is written once, for a given size: the concrete case only computes that size.


def _concrete_value(x, function, advice):
    """``x`` as a NumPy value, which sets the shape of ``function``'s result. Traced values
    are not concrete (jit, vmap), except under ``grad`` of a concrete value, as in JAX."""
    aval = core.get_aval(x)
    if isinstance(aval, core.ConcreteArray):
        return np.asarray(aval.val)
    raise core.ConcretizationTypeError(x, function, advice)


def _size_or_count(function, mask, size):
    """``size``, or else the number of True elements of a concrete ``mask``."""
    if size is not None:
        return operator.index(size)
    advice = (f'The size argument of {function} must be statically specified to use '
              f'{function} within jit, vmap or other transformations (and fill_value= for '
              'the padding).')
    return int(np.count_nonzero(_concrete_value(mask, function, advice)))


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """How often each value ``0..length-1`` occurs in the integers ``x`` (the sum of their
    ``weights``): a scatter-add, negative values counting as 0 and larger ones dropped.
    ``length`` defaults to ``max(minlength, max(x) + 1)`` of a concrete ``x``. The result is
    sharded as ``out_sharding`` says (replicated, or unreduced: JAX's rule)."""
    x = asarray(x)
    if _is_bool(x):
        x = lax.convert_element_type(x, dtypes.int32)
    if dtypes.kind(core.get_aval(x).dtype) not in 'iu' or np.ndim(x) != 1:
        raise TypeError(f'bincount: x must be a 1-D array of integers, got '
                        f'{core.get_aval(x).str_short()}')
    if length is None:
        value = _concrete_value(x, 'jnp.bincount', 'Pass a static length= to use '
                                'jnp.bincount within jit, vmap or other transformations.')
        length = builtins.max(minlength, int(value.max(initial=-1)) + 1)
    weights = np.array(1, dtypes.int64) if weights is None else asarray(weights)
    counts = zeros(operator.index(length), core.get_aval(asarray(weights)).dtype)
    if out_sharding is not None and builtins.any(
            p is not None for p in sharding_rules.canonicalize_sharding(
                out_sharding, 'jnp.bincount').spec):
        raise core.ShardingTypeError('out_sharding passed to `jnp.bincount` can only be fully '
                                     'replicated or fully unreduced along all mesh axes')
    return _computed_as(out_sharding, 'jnp.bincount',
                        lambda c, i, w: c.at[i].add(w, mode='drop'), counts, clip(x, 0), weights)


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements, one array per axis. The ``k``-th flat index is
    how many elements have fewer than ``k + 1`` nonzeros up to and including them: a
    ``cumsum`` of a ``bincount`` of the ``cumsum`` (JAX's formula). Past the count, indices
    are ``fill_value`` (default 0)."""
    a = asarray(a)
    if np.ndim(a) == 0:
        raise ValueError('nonzero: a 0-d array has no axes to index; use '
                         'jnp.atleast_1d(x).nonzero()')
    mask = a if _is_bool(a) else not_equal(a, 0)
    size = _size_or_count('jnp.nonzero', mask, size)
    shape_ = np.shape(a)
    if math.prod(shape_) == 0 or size == 0:
        return tuple(zeros(size, dtypes.int64) for _ in shape_)
    flat = cumsum(bincount(cumsum(mask), length=size))
    strides = np.cumprod(shape_[::-1])[::-1] // shape_
    out = tuple(remainder(floor_divide(flat, int(s)), n) for s, n in zip(strides, shape_))
    if fill_value is None:
        return out
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape_)
    if len(fills) != len(shape_) or builtins.any(np.ndim(f) for f in fills):
        raise ValueError(f'nonzero: fill_value must be a scalar or a tuple of {len(shape_)} '
                         f'scalars, got {fill_value!r}')
    padding = greater_equal(arange(size), sum(mask))
    return tuple(where(padding, f, o) for f, o in zip(fills, out))


def flatnonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of the flattened ``a``."""
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements as rows ``[count, ndim]``."""
    indices = nonzero(atleast_1d(a), size=size, fill_value=fill_value)
    return reshape(stack(indices, 1), (np.shape(indices[0])[0], np.ndim(a)))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` (of the flattened ``a`` if None) where the 1-D
    ``condition`` holds. With ``size``, the first ``size`` of them, then ``fill_value``:
    the selected slices moved first by a stable sort on the condition (JAX's way)."""
    _no_out('compress', out)
    condition = _as_bool(condition)
    if np.ndim(condition) != 1:
        raise ValueError(f'compress: condition must be 1-D, got '
                         f'{core.get_aval(condition).str_short()}')
    a = ravel(a) if axis is None else moveaxis(a, axis, 0)
    n = np.shape(a)[0]
    condition, extra = condition[:n], condition[n:]
    a = a[:np.shape(condition)[0]]
    if size is None:
        if np.shape(extra)[0] and _concrete_value(any(extra), 'jnp.compress', '').item():
            raise ValueError('compress: condition has True entries beyond the axis of a')
        size = _size_or_count('jnp.compress', condition, size)
    elif not 0 <= size <= np.shape(a)[0]:
        raise ValueError(f'compress: size={size} must be between 0 and the length '
                         f'{np.shape(a)[0]} of the axis')
    kept = where(expand_dims(condition, tuple(range(1, np.ndim(a)))), a,
                 asarray(fill_value, core.get_aval(a).dtype))
    selected = kept[argsort(condition, stable=True, descending=True)][:size]
    return selected if axis is None else moveaxis(selected, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` holds, both flattened."""
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def lexsort(keys, axis=-1):
    """The indices that sort by several keys, the LAST key the primary one (NumPy's
    order): one stable ``lax.sort`` with the keys reversed and an iota riding along."""
    keys = [asarray(k) for k in keys]
    if not keys:
        raise TypeError('lexsort: needs at least one key')
    if len({np.shape(k) for k in keys}) > 1:
        raise ValueError(f'lexsort: all keys must have one shape, got '
                         f'{[np.shape(k) for k in keys]}')
    if np.ndim(keys[0]) == 0:
        return zeros((), dtypes.int64)
    axis = core.canonicalize_axis(axis, np.ndim(keys[0]), 'lexsort: axis')
    iota = lax.broadcasted_iota(dtypes.int64, np.shape(keys[0]), axis)
    return lax.sort((*keys[::-1], iota), axis, num_keys=len(keys))[-1]


def _sorted_with_starts(a, equal_nan):
    """``a``'s slices along axis 0 sorted (``perm`` the order) and a mask: True where a
    slice differs from the one before it, i.e. where a run of equal slices starts."""
    n, width = np.shape(a)[0], math.prod(np.shape(a)[1:])
    rows = reshape(a, (n, width))
    keys = [rows[:, j] for j in reversed(range(width))]  # the first column primary
    perm = lexsort(keys) if width else zeros(builtins.min(n, 1), dtypes.int64)
    a = a[perm]
    later, earlier = a[1:], a[:-1]
    differs = not_equal(later, earlier)
    if equal_nan and _is_float(a):
        differs = logical_and(differs, logical_not(logical_and(isnan(later), isnan(earlier))))
    starts = concatenate([ones(builtins.min(np.shape(a)[0], 1), dtypes.bool_),
                          any(differs, tuple(range(1, np.ndim(a))))])
    return a, starts, perm


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """The sorted unique elements (slices along ``axis``; of the flattened ``ar`` if None)
    and, if asked, the index of each one's first occurrence, the inverse (each element's
    position among the uniques) and the counts. With ``size``: the first ``size`` uniques,
    then ``fill_value`` (default: the smallest). Sorting puts equal slices in runs; a
    ``nonzero`` of the run starts picks one of each (JAX's way)."""
    ar = asarray(ar)
    shape_, flattened = np.shape(ar), axis is None
    ar, axis = (ravel(ar), 0) if flattened else (ar, axis)
    axis = core.canonicalize_axis(axis, np.ndim(ar), 'unique: axis')
    if size and fill_value is None and np.shape(ar)[axis] == 0:
        raise ValueError('unique: an empty array with size= needs fill_value=')
    aux, starts, perm = _sorted_with_starts(moveaxis(ar, axis, 0), equal_nan)
    n, count = np.shape(starts)[0], _size_or_count('jnp.unique', starts, size)
    first = nonzero(starts, size=count + 1)[0]  # where each run starts, then 0s
    result = aux[first[:count]] if n else zeros((count, *np.shape(aux)[1:]),
                                                core.get_aval(aux).dtype)
    if size is not None and fill_value is not None:
        valid = expand_dims(less(arange(count), sum(starts)), tuple(range(1, np.ndim(result))))
        result = where(valid, result, asarray(fill_value, core.get_aval(result).dtype))
    outputs = [moveaxis(result, 0, axis)]
    if return_index:
        outputs.append(perm[first[:count]] if n else perm)
    if return_inverse:
        inverse = zeros(n, dtypes.int64).at[perm].set(cumsum(starts) - 1)
        outputs.append(reshape(inverse, shape_) if flattened else inverse)
    if return_counts:
        outputs.append(diff(first.at[1:].set(where(first[1:], first[1:], n))))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)
