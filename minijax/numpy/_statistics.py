"""``jnp``'s statistics and NaN-aware reductions (``median``, ``quantile``, ``cov``, ``diff``,
``nanmean``...), written on the functions of ``minijax.numpy``, which imports them back.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from minijax import core, dtypes, lax
from minijax.numpy import (_axes, _cast, _computed_as, _is_bool, _is_float, _no_out, _promote,
                           _where, _promote_inexact, _static_int, _to_float, add, all, any, argmax,
                           argmin, asarray, atleast_2d, broadcast_to, ceil, clip, concatenate, conj,
                           cumsum, diag, divide, equal, expand_dims, floor, full_like,
                           greater_equal, isnan, less_equal, linspace, logical_not, matmul, max,
                           mean, min, moveaxis, multiply, not_equal, ones_like, prod, ravel,
                           ravel_multi_index, reshape, searchsorted, size, sort, sqrt, squeeze,
                           subtract, sum, take_along_axis, transpose, true_divide, where, zeros,
                           zeros_like)
from minijax.numpy import _reductions
from minijax.numpy._reductions import _var_dtypes

__all__ = ['average', 'corrcoef', 'cov', 'cumulative_prod', 'cumulative_sum', 'diff', 'digitize',
           'ediff1d', 'gradient', 'histogram', 'histogram2d', 'histogram_bin_edges',
           'histogramdd', 'median', 'nanargmax',
           'nanargmin', 'nanmax', 'nanmean', 'nanmedian', 'nanmin',
           'nanpercentile', 'nanprod', 'nanquantile', 'nanstd', 'nansum', 'nanvar', 'percentile',
           'ptp', 'quantile']


def _nan_reduction(reduction, fill, nan_if_all_nan, a, axis, keepdims, where, **kwargs):
    """JAX's: ``reduction`` of ``a`` with its NaNs replaced by ``fill`` (the reduction's
    identity); NaN where all are NaN if ``nan_if_all_nan``. Integers and booleans have no
    NaNs to skip."""
    a = asarray(a)
    dtype = core.get_aval(a).dtype
    if not dtypes.is_inexact(dtype):
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    out = reduction(_where(isnan(a), _reductions._reduction_identity(fill, dtype), a),
                    axis=axis, keepdims=keepdims, where=where, **kwargs)
    if not nan_if_all_nan:
        return out
    return _where(all(isnan(a), axis=axis, keepdims=keepdims), np.array(np.nan, dtype), out)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``sum`` treating NaN as 0."""
    return _nan_reduction(sum, 0, False, a, axis, keepdims, where, dtype=dtype, out=out,
                          initial=initial)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``prod`` treating NaN as 1."""
    return _nan_reduction(prod, 1, False, a, axis, keepdims, where, dtype=dtype, out=out,
                          initial=initial)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``max`` ignoring NaNs (NaN where all are NaN, unless an ``initial`` is given)."""
    return _nan_reduction(max, -np.inf, initial is None, a, axis, keepdims, where, out=out,
                          initial=initial)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``min`` ignoring NaNs (NaN where all are NaN, unless an ``initial`` is given)."""
    return _nan_reduction(min, np.inf, initial is None, a, axis, keepdims, where, out=out,
                          initial=initial)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """The index of the largest element that is not NaN (-1 where all are NaN)."""
    _no_out('nanargmax', out)
    return _nanargmax(asarray(a), None if axis is None else operator.index(axis),
                      keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
    """The index of the smallest element that is not NaN (-1 where all are NaN)."""
    _no_out('nanargmin', out)
    return _nanargmin(asarray(a), None if axis is None else operator.index(axis),
                      keepdims=bool(keepdims))


def _nan_arg_extremum(arg_reduction, fill):
    def nan_arg(a, axis=None, keepdims=False):
        if not dtypes.is_inexact(core.get_aval(a).dtype):
            return arg_reduction(a, axis=axis, keepdims=keepdims)
        nan = isnan(a)
        out = arg_reduction(where(nan, fill, a), axis=axis, keepdims=keepdims)
        return where(all(nan, axis=axis, keepdims=keepdims), -1, out)
    nan_arg.__name__ = nan_arg.__qualname__ = f'_nan{arg_reduction.__name__}'
    return nan_arg


_nanargmax = _nan_arg_extremum(argmax, -np.inf)
_nanargmin = _nan_arg_extremum(argmin, np.inf)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """The mean of the elements that are not NaN (of those ``where`` keeps): the ``mean``
    of integers, which have none."""
    _no_out('nanmean', out)
    a = asarray(a)
    if not dtypes.is_inexact(core.get_aval(a).dtype):
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    a_dtype = core.get_aval(a).dtype
    dtype = a_dtype if dtype is None else dtypes.check_supported(dtype)
    numbers = lax.bitwise_not(isnan(a))
    normalizer = sum(numbers, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
    """The variance of the elements that are not NaN (of those ``where`` keeps; NaN where
    ``n - ddof <= 0``) about their mean (or ``mean``, given with the reduced axes kept), of
    ``var``'s dtype (JAX's formulas)."""
    _no_out('nanvar', out)
    a = asarray(a)
    computation, result = _var_dtypes('nanvar', a, dtype)
    a = _cast(a, computation)
    if mean is None:
        mean = nanmean(a, axis, dtype=computation, keepdims=True, where=where)
    else:
        mean = _cast(asarray(mean), computation)
    centered = _where(isnan(a), 0, lax.sub(a, mean))  # (the double where: no NaN in grads)
    if dtypes.is_complex(core.get_aval(centered).dtype):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    normalizer = sum(lax.bitwise_not(isnan(a)), axis=axis, keepdims=keepdims, where=where) - ddof
    too_few = lax.le(normalizer, np.zeros((), core.get_aval(normalizer).dtype))
    total = _where(too_few, np.nan, sum(centered, axis, keepdims=keepdims, where=where))
    divisor = _where(too_few, 1, normalizer)
    total = lax.div(total, lax.convert_element_type(divisor, core.get_aval(total).dtype))
    return lax.convert_element_type(total, result)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
    """``sqrt(nanvar(...))`` (``lax.sqrt``, which refuses an integer ``dtype``, as JAX's)."""
    _no_out('nanstd', out)
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                           where=where, mean=mean))


def _cumulative_axis(name, x, axis):
    """The array API's ``axis`` of ``cumulative_sum``/``cumulative_prod``: it may be omitted
    only for a 1-D array."""
    if axis is None:
        if np.ndim(x) != 1:
            raise ValueError(f'{name}: axis is required for an array of {np.ndim(x)} axes')
        axis = 0
    return core.canonicalize_axis(axis, np.ndim(x), f'{name}: axis')


def _with_initial(out, axis, identity, include_initial):
    """``out`` with the identity first along ``axis`` if ``include_initial``."""
    if not include_initial:
        return out
    shape = list(np.shape(out))
    shape[axis] = 1
    return lax.concatenate([lax.full(shape, identity, core.get_aval(out).dtype), out], axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """``cumsum`` along ``axis``, as the array API defines it: narrow integers accumulate as
    ``sum``'s do (JAX's jit ``_cumsum_with_promotion``); ``include_initial`` puts 0 first."""
    axis = _cumulative_axis('cumulative_sum', x, axis)
    out = _reductions._cumsum_with_promotion(x, axis=axis, dtype=dtype)
    return _with_initial(out, axis, 0, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """``cumprod`` along ``axis``, as the array API defines it (its equations, no ``jit``, as
    JAX's); ``include_initial`` puts 1 first."""
    axis = _cumulative_axis('cumulative_prod', x, axis)
    return _with_initial(_reductions._cumulative_prod(x, axis, dtype), axis, 1, include_initial)



def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference ``a[i + 1] - a[i]`` along ``axis``."""
    a = asarray(a)
    if _static_int(n, 'diff: n') < 0:
        raise ValueError(f'diff: the order n must be non-negative, got {n}')
    axis = core.canonicalize_axis(axis, np.ndim(a), 'diff: axis')
    pieces = [_edge(v, a, axis) for v in (prepend,) if v is not None] + [a]
    pieces += [_edge(v, a, axis) for v in (append,) if v is not None]
    a = concatenate(pieces, axis) if len(pieces) > 1 else a
    for _ in range(n):
        whole = (builtins.slice(None),) * axis   # (indexing, as JAX's diff slices)
        upper, lower = a[whole + (builtins.slice(1, None),)], a[whole + (builtins.slice(-1),)]
        a = not_equal(upper, lower) if _is_bool(a) else subtract(upper, lower)
    return a


def _edge(value, a, axis):
    """``prepend``/``append`` of ``diff``: a scalar is broadcast to one slice of ``a``."""
    value = asarray(value)
    if np.ndim(value) == 0:
        shape_ = list(np.shape(a))
        shape_[axis] = 1
        return broadcast_to(value, tuple(shape_))
    return value


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ``ary``, with ``to_begin`` and ``to_end`` around."""
    pieces = [ravel(asarray(v)) for v in (to_begin,) if v is not None]
    pieces += [diff(ravel(ary))] + [ravel(asarray(v)) for v in (to_end,) if v is not None]
    return concatenate(pieces)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The derivative of ``f`` along each of ``axis`` (all axes if None) by central
    differences inside and one-sided ones at the two ends; a spacing per axis (one for all,
    or one each) is a scalar step or the 1-D coordinates of the samples."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    f, *spacing = _promote_inexact(f, *varargs)
    ndim = np.ndim(f)
    axes = tuple(range(ndim)) if axis is None else tuple(
        core.canonicalize_axis(a, ndim, 'gradient: axis') for a in np.atleast_1d(axis))
    if not axes:
        return []
    if builtins.min(np.shape(f)[a] for a in axes) < 2:
        raise ValueError('Shape of array too small to calculate a numerical gradient, at least '
                         '2 elements are required.')
    if len(spacing) not in (0, 1, len(axes)):
        raise TypeError(f'Invalid number of spacing arguments {len(spacing)} for {axis=}')
    steps = spacing if len(spacing) == len(axes) else (spacing or [1.0]) * len(axes)
    derivatives = [_gradient_along(f, h, a) for a, h in zip(axes, steps)]
    return derivatives[0] if len(axes) == 1 else derivatives


def _slicer(a, axis):
    """``a[start:limit]`` along ``axis``, Python's slice bounds (negative, None) allowed."""
    n = np.shape(a)[axis]
    return lambda start, limit: lax.slice_in_dim(a, *slice(start, limit).indices(n)[:2],
                                                 axis=axis)


def _gradient_along(f, h, axis):
    """``gradient`` along one axis, with the step ``h`` or the coordinates ``h``: the
    second-order formula for uneven spacing (NumPy's), which is the central difference
    when the spacing is even."""
    f_ = _slicer(f, axis)
    first, last = subtract(f_(1, 2), f_(0, 1)), subtract(f_(-1, None), f_(-2, -1))
    if np.ndim(h) == 0:
        inner = true_divide(multiply(subtract(f_(2, None), f_(None, -2)), .5), h)
        last, first = true_divide(last, h), true_divide(first, h)  # JAX's order
        return concatenate((first, inner, last), axis)
    if np.ndim(h) != 1:
        raise ValueError('Spacing arrays must be 1D arrays or scalars.')
    if len(h) != np.shape(f)[axis]:
        raise ValueError('Spacing arrays must have the same length as the dimension along '
                         'which the gradient is calculated.')
    h_shape = [1] * np.ndim(f)
    h_shape[axis] = len(h)
    h_ = _slicer(reshape(h, h_shape), axis)
    first = true_divide(first, subtract(h_(1, 2), h_(0, 1)))
    last = true_divide(last, subtract(h_(-1, None), h_(-2, -1)))
    dx1, dx2 = subtract(h_(1, -1), h_(0, -2)), subtract(h_(2, None), h_(1, -1))
    dx12 = add(dx1, dx2)
    before = true_divide(-dx2, multiply(dx1, dx12))
    at = true_divide(subtract(dx2, dx1), multiply(dx1, dx2))
    after = true_divide(dx1, multiply(dx2, dx12))
    inner = add(add(multiply(before, f_(0, -2)), multiply(at, f_(1, -1))),
                multiply(after, f_(2, None)))
    return concatenate((first, inner, last), axis)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The mean of ``a`` along ``axis`` weighted by ``weights`` (of ``a``'s shape, or 1-D
    along ``axis``); ``returned`` also gives the sum of the weights."""
    return _average(a, _reductions._static_axes(axis), weights, returned, keepdims)


def _average(a, axis, weights, returned, keepdims):
    a = asarray(a)
    if weights is None:
        out = mean(a, axis, keepdims=keepdims)
        total = full_like(out, size(a) // builtins.max(size(out), 1))
    else:
        a, weights = _promote(_to_float(a), asarray(weights))
        if np.shape(weights) != np.shape(a):
            if axis is None or np.ndim(weights) != 1:
                raise ValueError(f'average: weights of shape {np.shape(weights)} differ from '
                                 f'a of shape {np.shape(a)}: 1-D weights need an int axis')
            axis = core.canonicalize_axis(axis, np.ndim(a), 'average: axis')
            weights = lax.broadcast_in_dim(weights, np.shape(a), (axis,))
        total = sum(weights, axis, keepdims=keepdims)
        out = divide(sum(multiply(a, weights), axis, keepdims=keepdims), total)
    return (out, broadcast_to(total, np.shape(out))) if returned else out


def ptp(a, axis=None, out=None, keepdims=False):
    """The range ``max - min`` along ``axis`` (JAX's jit ``_ptp``)."""
    return _ptp(asarray(a), _reductions._static_axes(axis), out, keepdims)


def _ptp(a, axis=None, out=None, keepdims=False):
    _no_out('ptp', out)
    return lax.sub(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


_QUANTILE_METHODS = ('linear', 'lower', 'higher', 'nearest', 'midpoint', 'inverted_cdf')


def _interpolate(method, low, high, fraction):
    """The quantile between neighbours ``low`` and ``high`` of the sorted data, a
    ``fraction`` of the way from ``low``, by ``method`` (NumPy's names)."""
    if method == 'linear':
        return add(multiply(low, subtract(1., fraction)), multiply(high, fraction))
    if method == 'lower':
        return low
    if method == 'higher':
        return high
    if method == 'nearest':
        return where(less_equal(fraction, .5), low, high)
    return multiply(add(low, high), .5)


def _quantile_weights(name, a, weights, axes, method):
    """``weights`` of the data of ``a``: of ``a``'s shape, or of the reduced axes' shape
    (then broadcast); only ``'inverted_cdf'`` reads them (JAX's errors otherwise)."""
    weights = asarray(weights)
    if dtypes.is_complex(core.get_aval(weights).dtype):
        raise ValueError('Weights cannot be complex types.')
    if method != 'inverted_cdf':
        raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                  "'inverted_cdf' supports weights.")
    if np.shape(weights) == np.shape(a):
        return weights
    if axes is None:
        raise ValueError("Weights shape must match 'a' shape when axis is None.")
    reduced = tuple(np.shape(a)[d] for d in axes)
    if np.shape(weights) != reduced:
        raise ValueError(f'Weights shape {np.shape(weights)} must match reduction axes '
                         f'{reduced}')
    return lax.broadcast_in_dim(weights, np.shape(a), tuple(axes))


def _inverted_cdf(data, weights, q_row, count, skip_nans):
    """The quantiles of each row of sorted ``data`` (NaNs last) by the inverted weighted
    CDF: the first element whose cumulative weight reaches ``q`` times the total. NaN data
    weighs 0; a negative or NaN weight, or NaN data (all of it, with ``skip_nans``), makes
    the row's quantiles NaN."""
    bad_weights = (weights < 0) | isnan(weights)
    nan_data = isnan(data)
    cumulative = cumsum(where(bad_weights | nan_data, 0, weights), -1)
    target = q_row * cumulative[..., -1:]
    below = cumulative[..., None, :] < target[..., None]
    index = sum(below.astype(dtypes.int64), -1)
    index = clip(index, 0, subtract(count, 1).astype(dtypes.int64))
    out = take_along_axis(data, index, -1)
    nan_rows = ~any(~nan_data, -1, keepdims=True) if skip_nans else any(nan_data, -1,
                                                                         keepdims=True)
    return where(any(bad_weights, -1, keepdims=True) | nan_rows, np.nan, out)


def _quantile(name, a, q, axis, method, keepdims, skip_nans, weights=None):
    """Quantiles by sorting: the data of ``axis`` (axes) moved last and sorted (NaNs last,
    ``weights`` moved with them), the two neighbours of position ``q (n - 1)`` read with
    ``take_along_axis``, or by the inverted CDF; ``n`` counts the numbers only when
    ``skip_nans``, else a NaN makes the result NaN."""
    if method not in _QUANTILE_METHODS:
        raise ValueError(f'{name}: method {method!r} is not supported (minijax has '
                         f'{", ".join(_QUANTILE_METHODS)})')
    a, q = _to_float(asarray(a)), asarray(q)
    if dtypes.is_complex(core.get_aval(a).dtype):
        raise ValueError(f'{name}: complex input ({core.get_aval(a).str_short()}) has no '
                         'order, so no quantiles (JAX refuses it too)')
    if weights is not None:
        weights = _quantile_weights(name, a, weights,
                                    None if axis is None else _axes(name, a, axis), method)
        a, weights = _promote_inexact(a, weights)
    q = _cast(q, core.get_aval(a).dtype) if _is_float(q) else _to_float(q)
    axes = _axes(name, a, axis)
    kept = [d for d in range(np.ndim(a)) if d not in axes]
    kept_shape = [np.shape(a)[d] for d in kept]

    def rows(x):
        return reshape(transpose(x, kept + list(axes)), kept_shape + [-1])
    data = where(isnan(rows(a)), np.nan, rows(a))
    if method == 'inverted_cdf':
        weights = ones_like(data) if weights is None else rows(weights)
        data, weights = lax.sort_key_val(data, weights, np.ndim(data) - 1)
    else:
        data = sort(data, axis=-1)
    n = np.shape(data)[-1]
    count = sum(logical_not(isnan(data)), -1, keepdims=True) if skip_nans else n
    q_row = reshape(q, (1,) * len(kept) + (-1,))
    if method == 'inverted_cdf':
        out = _inverted_cdf(data, weights, q_row, count, skip_nans)
    else:
        positions = multiply(q_row, subtract(count, 1))
        low, high = floor(positions), ceil(positions)
        index_shape = tuple(kept_shape) + (np.size(q),)
        read = [take_along_axis(data, broadcast_to(_cast(clip(i, 0, n - 1), dtypes.int64),
                                                   index_shape), -1) for i in (low, high)]
        out = _interpolate(method, *read, subtract(positions, low))
        if not skip_nans:
            out = where(any(isnan(data), -1, keepdims=True), np.nan, out)
    out = moveaxis(out, -1, 0)
    out = reshape(out, np.shape(q) + tuple(kept_shape))
    if keepdims:
        out = lax.expand_dims(out, [np.ndim(q) + d for d in axes])
    return out


def quantile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
             keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``q`` in [0, 1]) of ``a`` along ``axis`` (``weights``, one per
    element of ``a`` or of the reduced axes, with ``method='inverted_cdf'``)."""
    _no_out('quantile', out)
    return _quantile('quantile', a, q, axis, method, keepdims, False, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
                keepdims=False, *, weights=None):
    """``quantile`` of the elements that are not NaN."""
    _no_out('nanquantile', out)
    return _quantile('nanquantile', a, q, axis, method, keepdims, True, weights)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
               keepdims=False, *, weights=None, out_sharding=None):
    """The ``q``-th percentiles (``q`` in [0, 100]): ``quantile(a, q / 100)``, sharded as
    ``out_sharding`` says (computed with the mesh's axes ``Auto``)."""
    def percentiles(a, q, weights):
        return quantile(a, true_divide(asarray(q), 100), axis, out, overwrite_input, method,
                        keepdims, weights=weights)
    return _computed_as(out_sharding, 'jnp.percentile', percentiles, a, q, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
                  keepdims=False, *, weights=None):
    return nanquantile(a, true_divide(asarray(q), 100), axis, out, overwrite_input, method,
                       keepdims, weights=weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value (the mean of the two middle ones for an even count)."""
    return quantile(a, .5, axis, out, overwrite_input, keepdims=keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return nanquantile(a, .5, axis, out, overwrite_input, keepdims=keepdims)


def _inexact_dtype(name, dtype):
    """``cov``'s and ``corrcoef``'s ``dtype``: None, or a float or complex type."""
    if dtype is not None and not dtypes.is_inexact(dtypes.check_supported(dtype)):
        raise ValueError(f'{name}: dtype must be a subclass of float or complex; got '
                         f'dtype={np.dtype(dtype)!r}')


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``
    (and ``y``), NumPy's estimate with frequency and analytic weights (Hermitian: the
    deviations times their conjugates), computed in ``dtype`` if given."""
    _inexact_dtype('cov', dtype)
    X = atleast_2d(_to_float(asarray(m)))
    if not rowvar and np.shape(X)[0] != 1:
        X = transpose(X)
    if y is not None:
        Y = atleast_2d(_to_float(asarray(y)))
        X = concatenate([X, Y if rowvar or np.shape(Y)[0] == 1 else transpose(Y)])
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None
    for extra in (fweights, aweights):
        if extra is not None:
            w = asarray(extra) if w is None else multiply(w, extra)
    if dtype is not None:
        X, w = X.astype(dtype), None if w is None else w.astype(dtype)
    mean_, w_sum = average(X, 1, w, returned=True)
    if w is None:
        fact = np.shape(X)[1] - ddof
    elif ddof == 0:
        fact = w_sum[0]
    elif aweights is None:
        fact = subtract(w_sum[0], ddof)
    else:
        fact = subtract(w_sum[0], ddof * sum(multiply(w, aweights)) / w_sum[0])
    X = subtract(X, expand_dims(mean_, 1))
    X_weighted = X if w is None else multiply(X, w)
    return squeeze(true_divide(matmul(X_weighted, conj(transpose(X))), fact))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients: the covariance over the product of the standard
    deviations, clipped to [-1, 1] (the real and imaginary parts, for complex numbers)."""
    _inexact_dtype('corrcoef', dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return true_divide(c, c)
    stddev = sqrt(diag(c))
    c = true_divide(true_divide(c, expand_dims(stddev, 1)), expand_dims(stddev, 0))
    if dtypes.is_complex(core.get_aval(c).dtype):  # no order: each part is clipped, as in JAX
        return lax.complex(clip(lax.real(c), -1, 1), clip(lax.imag(c), -1, 1))
    return clip(c, -1, 1)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The edges of ``bins`` equal bins over ``range`` (the data's if None; one of zero
    width is widened by a half each way), or ``bins`` itself when it is an array."""
    if isinstance(bins, str):
        raise NotImplementedError('string values for `bins` not implemented.')
    a = _to_float(asarray(a))
    dtype = core.get_aval(a).dtype
    if np.ndim(bins) == 1:
        return asarray(bins, dtype)
    count = operator.index(bins)
    range = asarray([min(a), max(a)] if range is None else range, dtype)  # noqa: A001
    if np.shape(range) != (2,):
        raise ValueError(f'`range` must be either None or a sequence of scalars, got {range}')
    empty = equal(ptp(range), 0)
    low, high = where(empty, range[0] - .5, range[0]), where(empty, range[1] + .5, range[1])
    return linspace(low, high, count + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The number of elements of ``a`` (the sum of their ``weights``) in each bin, and the
    bins' edges; a bin holds its left edge, the last one its right edge too. ``density``
    divides by the total and the bin widths."""
    a = asarray(a)
    if weights is None:
        a = _to_float(a)
        weights = ones_like(a)
    elif np.shape(weights) != np.shape(a):
        raise ValueError('weights should have the same shape as a.')
    else:
        a, weights = (_to_float(v) for v in _promote(a, asarray(weights)))
    edges = histogram_bin_edges(a, bins, range)
    n = np.shape(edges)[0]
    index = where(equal(a, edges[-1]), n - 1, searchsorted(edges, a, side='right'))
    counts = zeros(n, core.get_aval(weights).dtype).at[index].add(weights)[1:]
    if density:
        counts = true_divide(true_divide(counts, diff(edges)), sum(counts))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The counts (sums of ``weights``) of the ``N`` points ``sample[N, D]`` in the bins of
    a ``D``-dimensional grid, and each dimension's edges: one scatter-add over the flat
    bin indices, as JAX counts them."""
    if weights is None:
        sample, = _promote_inexact(sample)
    else:
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError('should have one weight for each sample.')
        sample, weights = _promote_inexact(sample, weights)
    n, d = np.shape(sample)
    if range is not None and (len(range) != d or builtins.any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f'For sample.shape={(n, d)}, range must be a sequence of {d} pairs or '
                         f'Nones; got range={range!r}')
    try:
        bins_per_dimension = list(bins)
    except TypeError:
        bins_per_dimension = d * [bins]
    else:
        if len(bins_per_dimension) != d:
            raise ValueError('should be a bin for each dimension.')
    indices, edges = [], []
    for i in builtins.range(d):
        edge = histogram_bin_edges(sample[:, i], bins_per_dimension[i],
                                   None if range is None else range[i], weights)
        index = searchsorted(edge, sample[:, i], side='right')
        indices.append(where(sample[:, i] == edge[-1], index - 1, index))
        edges.append(edge)
    nbins = tuple(np.shape(e)[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(indices), nbins, mode='clip')
    counts = zeros(math.prod(nbins), dtypes.int64 if weights is None
                   else core.get_aval(weights).dtype)
    hist = reshape(counts.at[flat].add(1 if weights is None else weights), nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = hist.astype(core.get_aval(sample).dtype)
        hist = hist / hist.sum()
        for i, edge in enumerate(edges):
            hist = hist / reshape(diff(edge), tuple(-1 if k == i else 1 for k in builtins.range(d)))
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``histogramdd`` of the points ``(x, y)``: the counts and the edges of each axis."""
    x, y = asarray(x), asarray(y)
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [asarray(bins)] * 2
    hist, edges = histogramdd(transpose(asarray([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin of each ``x`` among the edges ``bins`` (increasing or
    decreasing): the count of edges at or below it (below it if ``right``)."""
    x, bins = asarray(x), asarray(bins)
    if np.ndim(bins) != 1:
        raise ValueError(f'digitize: bins must be a 1-dimensional array; got {bins=}')
    n = np.shape(bins)[0]
    if n == 0:
        return zeros_like(x, dtype=np.int32)
    side = 'left' if right else 'right'
    method = {} if method is None else {'method': method}
    return where(greater_equal(bins[-1], bins[0]), searchsorted(bins, x, side=side, **method),
                 n - searchsorted(bins[::-1], x, side=side, **method))
