"""``jnp``'s reductions: ``sum``, ``prod``, ``max``, ``min``, ``any``, ``all`` (one
``_reduction`` each, from a monoid: the lax reduction, the binary op and the identity, with
JAX's ``axis``, ``keepdims``, ``initial`` and ``where``), the statistics built on them
(``mean``, ``var``, ``std``, ``count_nonzero``), ``argmax``/``argmin``, the cumulative sums
and products, and sorting. Written on the functions of ``minijax.numpy``, which imports them
back.
"""
from __future__ import annotations

import builtins
import functools
import math
import operator
from typing import Any, Callable, NamedTuple

import numpy as np

from minijax import core, dtypes, lax
from minijax.lax.elementwise import in_float32_if_narrow as _in_float32_if_narrow
from minijax.numpy._boundary import inlined_jit
from minijax.numpy import (_as_bool, _axes, _cast, _is_bool, _is_complex, _no_out, _where,
                           asarray, broadcast_to, concatenate, equal, expand_dims, flip,
                           greater, logical_not, negative, not_equal, ravel, reshape, swapaxes)

__all__ = ['all', 'amax', 'amin', 'any', 'argmax', 'argmin', 'argpartition', 'argsort',
           'count_nonzero', 'cumprod', 'cumsum', 'max', 'mean', 'min', 'nancumprod',
           'nancumsum', 'partition', 'prod',
           'sort', 'std', 'sum', 'var']


def _strong(x):
    """``x`` strongly typed: a reduction's result is, in JAX, even of weakly typed operands
    (it casts to the result dtype), so ``jnp.sum(2.)`` prints without ``weak_type=True``."""
    aval = core.get_aval(x)
    return lax.convert_element_type(x, aval.dtype, weak_type=False) if aval.weak_type else x


def _keep(out, axes, keepdims):
    """The tail of every reduction: the reduced axes kept as size 1 if asked; strong."""
    out = _strong(out)
    return lax.expand_dims(out, axes) if keepdims else out


#: The dtype that JAX's sums and products of booleans and narrow integers accumulate in and
#: return (with x64): the default int or uint, so that ``sum`` of int8 100s is 300, not 44.
_ACCUMULATOR = {**dict.fromkeys([dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32],
                                dtypes.int64),
                **dict.fromkeys([dtypes.uint8, dtypes.uint16, dtypes.uint32], dtypes.uint64)}


def _accumulator(dtype):
    """The dtype a sum or product of ``dtype`` values is computed in and returned as."""
    return _ACCUMULATOR.get(np.dtype(dtype), np.dtype(dtype))


def _sum_dtype(x, dtype, promote_integers=True):
    """The operand of a sum or product: booleans as int32 (JAX's numeric operand), then cast
    to ``dtype``, or to its accumulator (narrow integers widen to 64 bits; without
    ``promote_integers``, integers keep their dtype)."""
    if _is_bool(x):
        x = _cast(x, dtypes.int32)
    if dtype is not None:
        return _cast(x, dtypes.check_supported(dtype))
    if not promote_integers:
        return x
    return _cast(x, _accumulator(core.get_aval(x).dtype))


def _lax_sum(x, axes):
    """``reduce_sum``; booleans (``sum(dtype=bool)``) are or-ed, as JAX sums them (lax sums
    numbers only)."""
    return lax.reduce_or(x, axes) if _is_bool(x) else lax.reduce_sum(x, axes)


def _lax_prod(x, axes):
    """``reduce_prod``; booleans (``prod(dtype=bool)``) are and-ed, as JAX multiplies them."""
    return lax.reduce_and(x, axes) if _is_bool(x) else lax.reduce_prod(x, axes)


def _to_bool(x):
    """The operand of ``any``/``all``: converted to booleans, as JAX does (a complex one is
    compared with 0, where JAX would convert its real part)."""
    return _as_bool(x) if _is_complex(x) else lax.convert_element_type(x, dtypes.bool_)


def _reduction_mask(name, a, where):
    """The ``where=`` of a reduction: a boolean array, to broadcast to ``a``'s shape (None:
    every element counts)."""
    if where is None:
        return None
    where = asarray(where)
    if core.get_aval(where).dtype != dtypes.bool_:
        raise ValueError(f'jnp.{name}: where must be None or a boolean array; '
                         f'got where.dtype={core.get_aval(where).dtype!r}.')
    return where


def _reduction_identity(value, dtype):
    """``value`` (0, 1, an infinity, a truth value) as a scalar of ``dtype``; an infinity is
    an integer dtype's extreme, as JAX's reductions take it."""
    dtype = np.dtype(dtype)
    if dtype == dtypes.bool_:
        return np.array(value > 0)
    if dtypes.is_integer(dtype) and np.isinf(value):
        info = np.iinfo(dtype)
        return np.array(info.min if value < 0 else info.max, dtype)
    return np.array(value, dtype)


def _masked(a, mask, neutral):
    """``a`` with ``neutral`` (the reduction's identity) where ``mask`` is False: masked
    elements change nothing (XLA's reduce takes an identity as its initial value, so a mask
    is a ``where`` before it, as in JAX)."""
    if mask is None:
        return a
    return _where(mask, a, _reduction_identity(neutral, core.get_aval(a).dtype))


class _Monoid(NamedTuple):
    """What a NumPy reduction folds with: ``reduce(x, axes)``, the binary ``combine`` that
    folds in ``initial=`` (None: the function takes no ``initial``), the ``identity`` that
    masked-out elements take, and whether it truly is one (max and min have none: ``-inf``
    is only a filler, so a mask or an empty axis needs ``initial``, as in JAX); ``preproc``
    converts the operand first (``any`` and ``all`` reduce booleans)."""
    reduce: Callable
    combine: Callable | None
    identity: Any
    has_identity: bool = True
    preproc: Callable | None = None


def _fold(name, monoid, a, axes, initial, mask):
    """``monoid.reduce`` of ``a`` over ``axes``, skipping the masked-out elements, with
    ``initial`` folded in afterwards (XLA's init must be the identity)."""
    if initial is None and not monoid.has_identity:
        if mask is not None:
            raise ValueError(f'reduction operation {name} does not have an identity, so to '
                             f"use a where mask one has to specify 'initial'")
        if builtins.any(np.shape(a)[d] == 0 for d in axes):
            raise ValueError(f'zero-size array to reduction operation {name} which has no '
                             'identity')
    if monoid.preproc is not None:
        a = monoid.preproc(a)
    out = monoid.reduce(_masked(a, mask, monoid.identity), axes)
    if initial is None:
        return out
    if np.ndim(initial) != 0:
        raise ValueError(f'initial value must be a scalar. Got array of shape '
                         f'{np.shape(initial)}')
    return monoid.combine(_cast(asarray(initial), core.get_aval(out).dtype), out)


def _reduction(name, monoid, prepare=None, doc=''):
    """A NumPy reduction ``name(a, axis=None, [dtype=None,] out=None, keepdims=False,
    initial=None, where=None[, promote_integers=True])``; ``prepare(a, dtype,
    promote_integers)``, when given, casts the operand and adds the dtype and
    promote_integers arguments (a float16 operand is then reduced in float32). The work is
    JAX's inline ``jit`` of its name (``_reduce_sum``), its axes made hashable first."""
    def reduce(a, axis, dtype, out, keepdims, initial, where, promote_integers):
        _no_out(name, out)
        axes = _axes(name, a, axis)
        mask = _reduction_mask(name, a, where)
        if prepare is None:
            return _keep(_fold(name, monoid, a, axes, initial, mask), axes, keepdims)
        a = prepare(asarray(a), dtype, promote_integers)
        fold = functools.partial(_fold, name, monoid)
        out = (_in_float32_if_narrow(fold, a, axes, initial, mask) if dtype is None
               else fold(a, axes, initial, mask))
        return _keep(out, axes, keepdims)

    reduce.__name__ = reduce.__qualname__ = f'_reduce_{name}'
    reduce = inlined_jit(reduce, ('axis', 'dtype', 'keepdims', 'promote_integers'))
    if prepare is not None:
        def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
               promote_integers=True):
            return reduce(a, _static_axes(axis), dtype, out, keepdims, initial, where,
                          promote_integers)
    elif monoid.combine is not None:
        def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
            return reduce(a, _static_axes(axis), None, out, keepdims, initial, where, True)
    else:
        def fn(a, axis=None, out=None, keepdims=False, *, where=None):
            return reduce(a, _static_axes(axis), None, out, keepdims, None, where, True)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


sum = _reduction('sum', _Monoid(_lax_sum, lax.add, 0), _sum_dtype,  # noqa: A001
                 'Sum over ``axis`` (all axes if None).')
prod = _reduction('prod', _Monoid(_lax_prod, lax.mul, 1), _sum_dtype,
                  'Product over ``axis`` (all if None).')
max = amax = _reduction('max', _Monoid(lax.reduce_max, lax.max, -np.inf, False),  # noqa: A001
                        doc='Maximum over ``axis``.')
min = amin = _reduction('min', _Monoid(lax.reduce_min, lax.min, np.inf, False),  # noqa: A001
                        doc='Minimum over ``axis``.')
any = _reduction('any', _Monoid(lax.reduce_or, None, False, preproc=_to_bool),  # noqa: A001
                 doc='Whether any element is nonzero.')
all = _reduction('all', _Monoid(lax.reduce_and, None, True, preproc=_to_bool),  # noqa: A001
                 doc='Whether all elements are nonzero.')


def _count(x, axes):
    return math.prod([np.shape(x)[a] for a in axes])


def _normalizer(a, axes, keepdims, where, dtype):
    """The number of elements a mean over ``axes`` divides by, as ``dtype``: a constant
    (folded into a literal) or the count of those ``where`` keeps."""
    if where is None:
        return lax.convert_element_type(_count(a, axes), dtype)
    return sum(broadcast_to(where, np.shape(a)), axes, dtype=dtype, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """The mean over ``axis`` (of the elements ``where`` keeps); integers and booleans
    average as floats."""
    return _mean(a, _static_axes(axis), dtype, out, keepdims, where=where,
                 upcast_f16_for_computation=dtype is None)


def _static_axes(axis):
    """``axis`` hashable, as the static argument of a ``jit`` (a list becomes a tuple)."""
    return tuple(axis) if isinstance(axis, (list, np.ndarray)) else axis


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *,
          upcast_f16_for_computation=True, where=None):
    """``mean``, as JAX stages it: the sum in the computation dtype (float32 for narrow
    floats) over the count, then cast to the result's dtype."""
    _no_out('mean', out)
    a = asarray(a)
    axes = _axes('mean', a, axis)
    _reduction_mask('mean', a, where)
    a_dtype = core.get_aval(a).dtype
    result = (dtypes.FLOAT_OF.get(a_dtype, a_dtype) if dtype is None
              else dtypes.check_supported(dtype))
    computation = result
    if upcast_f16_for_computation and result in dtypes.NARROW_FLOATS:
        computation = np.dtype(dtypes.float32)
    normalizer = _normalizer(a, axes, keepdims, where, computation)
    total = sum(a, axis, dtype=computation, keepdims=keepdims, where=where)
    return _cast(lax.div(total, normalizer), result)


def _var_dtypes(name, a, dtype):
    """JAX's dtypes for the variance of ``a``: the one it is computed in (``dtype``, else
    ``a``'s as a float; float32 for narrow floats) and the result's (``dtype``, else real:
    the mean squared modulus of a complex ``a``). JAX refuses a complex ``a`` with a real
    ``dtype``."""
    a_dtype = core.get_aval(a).dtype
    if dtype is None:
        computation = dtypes.FLOAT_OF.get(a_dtype, a_dtype)
        result = dtypes.real_part_dtype(computation)
    else:
        computation = result = dtypes.check_supported(dtype, f'jnp.{name}: dtype')
        if dtypes.is_complex(a_dtype) and not dtypes.is_complex(result):
            raise ValueError(f'jnp.{name}: the variance of a complex array ({a_dtype}) in a '
                             f'real dtype ({result}) is not supported (as in JAX).')
    if computation in dtypes.NARROW_FLOATS:
        computation = np.dtype(dtypes.float32)
    return computation, result


def _ddof(ddof, correction):
    """The ``ddof`` of ``var`` and ``std``, or ``correction``, the array API's name for it
    (JAX's ValueError if both are given)."""
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """The variance over ``axis`` (of the elements ``where`` keeps): the mean squared
    deviation from the mean (or from ``mean``, given with the reduced axes kept), divided by
    ``n - ddof`` (``correction``) instead of ``n``; NaN where that is not positive. An
    integer ``dtype`` gives an integer variance that JAX then returns as a weak float64
    (the ``where`` with the NaN promotes it)."""
    correction = _ddof(ddof, correction)
    return _var(asarray(a), axis=_static_axes(axis), dtype=dtype, out=out,
                correction=correction, keepdims=keepdims, where=where, a_mean=mean)


def _var(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None,
         a_mean=None):
    """``var``, as JAX stages it (a ``jit`` whose ``correction`` is traced)."""
    _no_out('var', out)
    axes = _axes('var', a, axis)
    _reduction_mask('var', a, where)
    computation, result = _var_dtypes('var', a, dtype)
    a = _cast(a, computation)
    if a_mean is None:
        a_mean = _mean(a, axis, computation, None, True, upcast_f16_for_computation=False,
                       where=where)
    else:
        a_mean = _cast(asarray(a_mean), computation)
    centered = lax.sub(a, a_mean)
    if _is_complex(centered):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        computation = core.get_aval(centered).dtype
    else:
        centered = lax.square(centered)
    normalizer = _normalizer(a, axes, keepdims, where, computation)
    normalizer = lax.sub(normalizer, lax.convert_element_type(correction, computation))
    total = sum(centered, axis, dtype=computation, keepdims=keepdims, where=where)
    out = _cast(lax.div(total, normalizer), result)
    return _where(greater(normalizer, 0), out, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """The standard deviation over ``axis``: ``sqrt(var(...))``; ``dtype`` must be a float
    or complex one, as in JAX."""
    correction = _ddof(ddof, correction)
    return _std(asarray(a), axis=_static_axes(axis), dtype=dtype, out=out,
                correction=correction, keepdims=keepdims, where=where, mean=mean)


def _std(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None,
         mean=None):
    """``std``, as JAX stages it: a ``jit`` around ``var``'s."""
    if dtype is not None and not dtypes.is_inexact(dtypes.check_supported(dtype)):
        raise ValueError(f'dtype argument to jnp.std must be inexact; got {np.dtype(dtype)}')
    _no_out('std', out)
    return lax.sqrt(var(a, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims,
                        where=where, mean=mean))


def count_nonzero(a, axis=None, keepdims=False):
    return sum(not_equal(a, 0), axis, keepdims=keepdims)


def _arg_reduction(lax_fn):
    """``argmax``-like: ``lax_fn`` along one axis (of the flattened array if None), in JAX's
    inline ``jit`` of its name (``_argmax``)."""
    def arg_reduce(x, axis, keepdims):
        if axis is None:
            out = lax_fn(reshape(x, (-1,)), 0, dtypes.int64)
            return reshape(out, (1,) * np.ndim(x)) if keepdims else out
        axis = core.canonicalize_axis(axis, np.ndim(x), f'{lax_fn.__name__}: axis')
        return _keep(lax_fn(x, axis, dtypes.int64), (axis,), keepdims)
    arg_reduce.__name__ = arg_reduce.__qualname__ = f'_{lax_fn.__name__}'
    return inlined_jit(arg_reduce, ('axis', 'keepdims'))


_argmax, _argmin = _arg_reduction(lax.argmax), _arg_reduction(lax.argmin)


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the first maximum along ``axis`` (of the flattened array if ``None``)."""
    _no_out('argmax', out)
    return _argmax(a, _static_axis(axis), bool(keepdims))


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the first minimum along ``axis`` (of the flattened array if ``None``)."""
    _no_out('argmin', out)
    return _argmin(a, _static_axis(axis), bool(keepdims))


def _static_axis(axis):
    """One ``axis`` (or None) as an int, as the static argument of a ``jit``: a NumPy or
    0-d integer is read; anything else is refused, naming it."""
    return None if axis is None else operator.index(axis)


def _accumulate(lax_cumulative, a, axis, dtype):
    """``lax_cumulative`` of ``a`` as ``dtype`` (``a``'s own if None, int64 for booleans, as in
    JAX). lax accumulates numbers only: a boolean ``dtype`` runs over whether each element is
    nonzero, counted as int64 (so that -1 and 1 do not cancel), then read as booleans."""
    if dtype is None:
        dtype = dtypes.int64 if _is_bool(a) else core.get_aval(a).dtype
    dtype = dtypes.check_supported(dtype)
    if dtype != dtypes.bool_:
        return lax_cumulative(_cast(a, dtype), axis)
    nonzero = a if _is_bool(a) else not_equal(a, 0)
    counts = lax_cumulative(lax.convert_element_type(nonzero, dtypes.int64), axis)
    return lax.convert_element_type(counts, dtypes.bool_)


def _cumulative(name, lax_cumulative, nan_fill=None, promote_integers=False):
    """``cumsum``-like ``name``: ``lax_cumulative`` along ``axis`` (of the flattened array if
    None); with ``nan_fill``, NaNs count as that (``nancumsum``); with ``promote_integers``,
    narrow integers accumulate as ``sum``'s do. As JAX's ``_cumulative_reduction``."""
    def cumulative(a, axis=None, dtype=None, out=None):
        _no_out(name, out)
        a = asarray(a)
        if axis is None:
            a, axis = ravel(a), 0
        axis = core.canonicalize_axis(axis, np.ndim(a), f'{name}: axis')
        if nan_fill is not None:  # (integers too, as JAX: a no-op select)
            a = _where(lax.ne(a, a), np.array(nan_fill, core.get_aval(a).dtype), a)
        if dtype is None and promote_integers:
            dtype = _accumulator(core.get_aval(a).dtype)
        return _strong(_accumulate(lax_cumulative, a, axis, dtype))
    cumulative.__name__ = cumulative.__qualname__ = name
    cumulative.__doc__ = f'The running {name[3:]} along ``axis`` (of the flattened array if None)'
    cumulative.__doc__ += f', NaNs counting as {nan_fill}.' if nan_fill is not None else '.'
    return cumulative


cumsum = _cumulative('cumsum', lax.cumsum)
cumprod = _cumulative('cumprod', lax.cumprod)
nancumsum = _cumulative('nancumsum', lax.cumsum, 0)
nancumprod = _cumulative('nancumprod', lax.cumprod, 1)
# the helpers of the array API's cumulative_sum (JAX's jit of this name) and cumulative_prod
_cumsum_with_promotion = _cumulative('_cumsum_with_promotion', lax.cumsum,
                                     promote_integers=True)
_cumulative_prod = _cumulative('cumulative_prod', lax.cumprod)


def _sort_axis(name, a, axis, kind, order):
    """``(a, axis)`` to sort along: the flattened array when ``axis`` is None."""
    if kind is not None or order is not None:
        raise TypeError(f'{name}: kind and order are not supported (use stable=True or False)')
    if axis is None:
        return ravel(a), 0
    return a, core.canonicalize_axis(axis, np.ndim(a), f'{name}: axis')


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``a`` sorted along ``axis`` (NaNs last; the flattened array if None); ``descending``
    reverses the ascending result, as jnp.sort does."""
    a, axis = _sort_axis('sort', a, axis, kind, order)
    result = lax.sort(a, axis, is_stable=stable)
    return flip(result, axis) if descending else result


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """The indices (of ``dtype``, int64 by default) that sort ``a`` along ``axis``. A stable
    descending sort sorts the reversed array and reverses the result, so that equal elements
    keep their order."""
    a, axis = _sort_axis('argsort', a, axis, kind, order)
    dtype = dtypes.int64 if dtype is None else dtypes.check_supported(dtype, 'argsort: dtype')
    indices = lax.broadcasted_iota(dtype, np.shape(a), axis)
    if descending and stable:
        a, indices = flip(a, axis), flip(indices, axis)
    _, indices = lax.sort_key_val(a, indices, axis, is_stable=stable)
    return flip(indices, axis) if descending else indices


# Partial sorts, as JAX computes them (so that the order within each part is JAX's): the
# ``kth + 1`` smallest entries come first, from ``top_k`` of the negated array, then the rest.

def _partition_axis(name, a, kth, axis):
    """``a`` with ``axis`` moved last, and ``kth`` as a non-negative position on it."""
    a = asarray(a)
    if _is_complex(a):
        raise NotImplementedError(f'jnp.{name} for complex dtype is not implemented.')
    axis = core.canonicalize_axis(axis, np.ndim(a), f'{name}: axis')
    kth = core.canonicalize_axis(kth, np.shape(a)[axis], f'{name}: kth')
    return swapaxes(a, axis, -1), kth, axis


def _smallest(a, k):
    """The ``k`` smallest entries along the last axis, smallest first, and their indices:
    ``top_k`` of ``-a`` (of ``-(a + 1)`` for unsigned ``a``, so that 0 becomes the largest)."""
    if core.get_aval(a).dtype.kind == 'u':
        values, indices = lax.top_k(negative(a + 1), k)
        return negative(values) - 1, indices
    values, indices = lax.top_k(negative(a), k)
    return negative(values), indices


def partition(a, kth, axis=-1):
    """``a`` with its ``kth + 1`` smallest entries along ``axis`` first (sorted), then the
    others (largest first)."""
    a, kth, axis = _partition_axis('partition', a, kth, axis)
    smallest, _ = _smallest(a, kth + 1)
    others, _ = lax.top_k(a, np.shape(a)[-1] - kth - 1)
    return swapaxes(concatenate([smallest, others], -1), -1, axis)


def argpartition(a, kth, axis=-1):
    """The indices that ``partition`` ``a``: those of its ``kth + 1`` smallest entries
    (smallest first), then the others in increasing order (``top_k`` of a mask of them)."""
    a, kth, axis = _partition_axis('argpartition', a, kth, axis)
    n = np.shape(a)[-1]
    _, smallest = _smallest(a, kth + 1)
    chosen = any(equal(expand_dims(smallest, -1), lax.iota(dtypes.int32, n)), -2)
    _, others = lax.top_k(lax.convert_element_type(logical_not(chosen), np.float32), n - kth - 1)
    return swapaxes(concatenate([smallest, others], -1), -1, axis)
