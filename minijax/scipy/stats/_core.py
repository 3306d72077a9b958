"""``jax.scipy.stats``' summaries of samples: ``mode``, ``rankdata`` and ``sem``, written as JAX
writes them (sorting and ``unique`` with a static size, so they trace under jit)."""
from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import numpy as np

from minijax import core, lax
from minijax import numpy as jnp
from minijax.control_flow import cond
from minijax.interpreters.batching import vmap
from minijax.jit import jit
from minijax.numpy import _promote_inexact

__all__ = ['ModeResult', 'mode', 'rankdata', 'sem']


class ModeResult(NamedTuple):
    mode: object
    count: object


def _check_nan_policy(name, nan_policy):
    """JAX's: only 'propagate' (a jitted function cannot look for NaNs first)."""
    if nan_policy not in ('propagate', 'omit', 'raise'):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == 'omit':
        raise NotImplementedError(f'Logic for `nan_policy` of {nan_policy} is not implemented')
    if nan_policy == 'raise':
        raise NotImplementedError(f'In order to best JIT compile `{name}`, we cannot know '
                                  f'whether `x` contains nans. Please check if nans exist in '
                                  f'`x` outside of the `{name}` function.')


def _mode_of_column(x):
    """The most frequent value of a vector (the smallest of those tied) and its count."""
    if x.size == 0:
        return jnp.array(np.nan, np.float64), jnp.array(0, np.float64)
    values, counts = jnp.unique(x, return_counts=True, size=x.size)
    return values[jnp.argmax(counts)], counts.max()


@partial(jit, static_argnames=('axis', 'nan_policy', 'keepdims'))
def mode(a, axis=0, nan_policy='propagate', keepdims=False):
    """``ModeResult(mode, count)``: the most frequent value along ``axis`` (all axes for
    None) and how often it occurs."""
    x = jnp.atleast_1d(a)
    _check_nan_policy('mode', nan_policy)
    if axis is not None:
        axis = core.canonicalize_axis(axis, x.ndim, 'mode: axis')
    if axis is None:
        shape = (1,) * x.ndim if keepdims else ()
        axis, x = 0, x.ravel()
    else:
        shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape) if keepdims
                      or i != axis)
    x = jnp.moveaxis(x, axis, 0)
    values, counts = vmap(_mode_of_column, in_axes=1)(
        x.reshape(x.shape[0], math.prod(x.shape[1:])))
    return ModeResult(values.reshape(shape), counts.reshape(shape))


def _ranks(a, method):
    """The ranks of a vector (1-based), ties resolved by ``method``."""
    ordered, order = lax.sort_key_val(a, jnp.arange(a.size))
    inverse = jnp.empty_like(order).at[order].set(jnp.arange(order.size, dtype=order.dtype))
    if method == 'ordinal':
        return (inverse + 1).astype(np.float64)
    new = jnp.concatenate([jnp.array([True]), ordered[1:] != ordered[:-1]])
    dense = new.cumsum()[inverse]
    if method == 'dense':
        return dense.astype(np.float64)
    count = jnp.nonzero(new, size=ordered.size + 1, fill_value=new.size)[0].astype(np.float64)
    if method == 'max':
        return count[dense]
    if method == 'min':
        return count[dense - 1] + 1
    return .5 * (count[dense] + count[dense - 1] + 1)


@partial(jit, static_argnames=('method', 'axis', 'nan_policy'))
def rankdata(a, method='average', *, axis=None, nan_policy='propagate'):
    """The ranks of ``a``'s elements (1-based; ties by ``method``: average, min, max, dense,
    ordinal), over the flattened array or along ``axis``; all NaN if any is NaN."""
    _check_nan_policy('rankdata', nan_policy)
    if method not in ('average', 'min', 'max', 'dense', 'ordinal'):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(partial(rankdata, method=method), axis, a)
    a = jnp.ravel(a)
    return cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, np.nan, np.float64),
                lambda a: _ranks(a, method), a)


# ddof is static here (JAX traces it): minijax's jnp.std needs it to count the elements
@partial(jit, static_argnames=('axis', 'ddof', 'nan_policy', 'keepdims'))
def sem(a, axis=0, ddof=1, nan_policy='propagate', *, keepdims=False):
    """The standard error of the mean along ``axis``: ``std(ddof) / sqrt(n)``; NaNs dropped
    for ``nan_policy='omit'``."""
    b, = _promote_inexact(a)
    if nan_policy == 'propagate':
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == 'omit':
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return (jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
                / jnp.sqrt(count).astype(b.dtype))
    raise ValueError(f'{nan_policy} is not supported')
