"""``jnp``'s set operations on 1-D arrays (``intersect1d``, ``union1d``, ``setdiff1d``,
``setxor1d``) and the array API's ``unique_*``: each sorts and compares neighbours, as JAX
does. The result's size depends on the values: it is read from concrete operands, or given as
``size=`` (with ``fill_value=``, by default the smallest result) under ``jit`` or ``vmap``,
as in JAX.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from minijax import core, dtypes, lax
from minijax.numpy import (_concrete_or_error, _in1d, _promote, arange, asarray, concatenate,
                           full_like, nonzero, ones, ravel, sort, sum, unique, where, zeros)

__all__ = ['intersect1d', 'setdiff1d', 'setxor1d', 'union1d', 'unique_all', 'unique_counts',
           'unique_inverse', 'unique_values']


def _flat_pair(ar1, ar2):
    return _promote(ravel(asarray(ar1)), ravel(asarray(ar2)))


def _static_size(size, name):
    return None if size is None else _concrete_or_error(
        operator.index, size, f'The error arose in {name}()')


def _padded(aux, keep, size, fill_value):
    """The first ``size`` elements of ``aux`` where ``keep``, then ``fill_value`` (by
    default the smallest of them, JAX's choice)."""
    count = sum(keep)
    valid = arange(size) < count
    if np.size(aux):
        vals = aux.at[nonzero(keep, size=size, fill_value=np.size(aux))[0]].get(
            mode='fill', fill_value=0)
    else:
        vals = zeros(size, core.get_aval(aux).dtype)
    if fill_value is None:
        vals = where(valid, vals, vals.max())
        return where(valid, vals, vals.min())
    return where(valid, vals, fill_value)


def _unique_padded(a):
    """The sorted unique elements of the 1-D ``a`` padded to its size, and their count."""
    if not np.size(a):
        return a, np.int64(0)
    aux = sort(a)
    starts = concatenate([ones(1, dtypes.bool_), aux[1:] != aux[:-1]])
    return unique(a, size=np.size(a), fill_value=0), sum(starts)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique elements found in either array."""
    ar1, ar2 = asarray(ar1), asarray(ar2)
    size = _static_size(size, 'union1d')
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique elements of ``ar1`` not in ``ar2``."""
    arr1, arr2 = ravel(asarray(ar1)), ravel(asarray(ar2))
    size = _static_size(size, 'setdiff1d')
    fill_value = full_like(arr1, 0 if fill_value is None else fill_value, shape=())
    if np.size(arr1) == 0:
        return full_like(arr1, fill_value, shape=size or 0)
    if not assume_unique:
        arr1 = unique(arr1, size=size and np.size(arr1))
    mask = _in1d(arr1, arr2, True)
    if size is None:
        return arr1[mask]
    if not assume_unique:
        n_unique = np.size(arr1) + 1 - (arr1 == arr1[0]).sum()
        mask = where(arange(np.size(arr1)) < n_unique, mask, False)
    return where(arange(size) < mask.sum(), arr1[nonzero(mask, size=size)[0]], fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique elements found in exactly one of the arrays."""
    arr1, arr2 = _flat_pair(ar1, ar2)
    size = _static_size(size, 'setxor1d')
    if size is not None:
        return _setxor1d_size(arr1, arr2, fill_value, assume_unique, size)
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = concatenate((arr1, arr2))
    if np.size(aux) == 0:
        return aux
    aux = sort(aux)
    flag = concatenate((ones(1, dtypes.bool_), aux[1:] != aux[:-1], ones(1, dtypes.bool_)))
    return aux[flag[1:] & flag[:-1]]


def _concat_unique(arr1, arr2):
    """The unique elements of each, the second's right after the first's, and their count."""
    (u1, n1), (u2, n2) = _unique_padded(arr1), _unique_padded(arr2)
    arr = zeros(np.size(arr1) + np.size(arr2), core.get_aval(arr1).dtype)
    arr = lax.dynamic_update_slice(lax.dynamic_update_slice(arr, u1, (0,)), u2, (n1,))
    return arr, n1 + n2


def _setxor1d_size(arr1, arr2, fill_value, assume_unique, size):
    true, false = ones(1, dtypes.bool_), zeros(1, dtypes.bool_)
    if assume_unique:
        aux = sort(concatenate([arr1, arr2]))
        flag = concatenate((true if np.size(aux) else false, aux[1:] != aux[:-1], true))
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        mask = arange(np.size(arr) + 1) < num_unique + 1
        _, aux = lax.sort([~mask[1:], arr], num_keys=2)
        flag = mask & concatenate((true if np.size(aux) else false, aux[1:] != aux[:-1],
                                   false)).at[num_unique].set(True)
    return _padded(aux, flag[1:] & flag[:-1], size, fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique elements found in both arrays and, with ``return_indices``, where
    each first occurs in ``ar1`` and in ``ar2``."""
    arr1, arr2 = _flat_pair(ar1, ar2)
    size = _static_size(size, 'intersect1d')
    if size is not None:
        return _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices)
    ind1 = ind2 = None
    if not assume_unique:
        if return_indices:
            (arr1, ind1), (arr2, ind2) = (unique(a, return_index=True) for a in (arr1, arr2))
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    arr = concatenate((arr1, arr2))
    iota = lax.broadcasted_iota(_index_dtype(np.size(arr)), np.shape(arr), 0)
    aux, order = lax.sort((arr, iota), num_keys=1)
    mask = aux[1:] == aux[:-1]
    values = aux[:-1][mask]
    if not return_indices:
        return values
    i1, i2 = order[:-1][mask], order[1:][mask] - np.size(arr1)
    return (values, i1, i2) if assume_unique else (values, ind1[i1], ind2[i2])


def _index_dtype(n):
    """JAX's index dtype for an axis of ``n``: int32 where it fits."""
    return dtypes.int32 if n <= np.iinfo(np.int32).max else dtypes.int64


def _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices):
    n1, n2 = np.size(arr1), np.size(arr2)
    if assume_unique:
        ind1, num1, ind2 = arange(n1), n1, arange(n2)
        arr = concatenate([arr1, arr2])
        aux, order = lax.sort([arr, arange(np.size(arr))], num_keys=1)
        mask = ones(np.size(arr), dtypes.bool_)
    else:
        (u1, num1), (u2, num2) = _unique_padded(arr1), _unique_padded(arr2)
        ind1 = unique(arr1, return_index=True, size=n1, fill_value=0)[1] if n1 else arange(0)
        ind2 = unique(arr2, return_index=True, size=n2, fill_value=0)[1] if n2 else arange(0)
        arr = zeros(n1 + n2, core.get_aval(arr1).dtype)
        arr = lax.dynamic_update_slice(lax.dynamic_update_slice(arr, u1, (0,)), u2, (num1,))
        mask = arange(np.size(arr)) < num1 + num2
        _, aux, order = lax.sort([~mask, arr, arange(np.size(arr))], num_keys=2)
    keep = (aux[1:] == aux[:-1]) & mask[1:]
    values = _padded(aux, keep, size, fill_value)
    if not return_indices:
        return values
    valid = arange(size) < sum(keep)
    at = nonzero(keep, size=size, fill_value=np.size(aux))[0] if np.size(aux) else arange(0)
    i1 = where(valid, order.at[at].get(mode='fill', fill_value=n1), n1)
    i2 = where(valid, order.at[at + 1].get(mode='fill', fill_value=n2) - num1, n2)
    if not assume_unique:
        i1 = ind1.at[i1].get(mode='fill', fill_value=np.size(ind1))
        i2 = ind2.at[i2].get(mode='fill', fill_value=np.size(ind2))
    return values, i1, i2


class UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def unique_all(x, /, *, size=None, fill_value=None):
    """The array API's ``unique`` with everything: values, first indices, inverse, counts
    (NaNs each their own value)."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True,
                                   equal_nan=False, size=size, fill_value=fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    """The unique values and how often each occurs."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """The unique values and each element's position among them."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_values(x, /, *, size=None, fill_value=None):
    """The sorted unique values."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)
