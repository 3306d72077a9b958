"""More of ``jnp``'s ways to make arrays: from functions and host data (``fromfunction``,
``frombuffer``, ``load``...), the window functions of signal processing, diagonal and
triangle helpers, and NumPy's index tricks (``mgrid``, ``ogrid``, ``r_``, ``c_``, ``ix_``).
Host data goes through NumPy, as in JAX; the functions JAX refuses as impure
(``fromfile``, ``fromiter``) are refused with its error.
"""
from __future__ import annotations

import builtins

import numpy as np

from minijax import core, dtypes, lax
from minijax.interpreters.batching import vmap
from minijax.numpy import (_concrete_or_error, _promote, abs, arange, array, asarray,
                           concatenate, cos, diag_indices, expand_dims, linspace, meshgrid,
                           nonzero, ones, ravel, sqrt, stack, transpose, tril_indices,
                           triu_indices, zeros)
from minijax.numpy._elementwise import i0

__all__ = ['bartlett', 'blackman', 'diag_indices_from', 'diagflat', 'fill_diagonal',
           'from_dlpack', 'frombuffer', 'fromfile', 'fromfunction', 'fromiter', 'fromstring',
           'hamming', 'hanning', 'ix_', 'kaiser', 'load', 'mask_indices', 'tril_indices_from',
           'triu_indices_from']

# ----------------------------------------------------------------------------- from data


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` of the index arrays of ``shape``, mapped with ``vmap`` one axis at a
    time (so ``function`` sees scalars' batches, as in JAX)."""
    shape = core.canonicalize_shape(shape, 'shape argument of jnp.fromfunction()')
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """The bytes of ``buffer`` read as ``dtype`` (NumPy's ``frombuffer``)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """The numbers in the text ``string`` separated by ``sep``."""
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def _impure(name, what):
    def refused(*args, **kwargs):
        raise NotImplementedError(
            f'jnp.{name}() is not implemented because it may be non-pure and thus unsafe for '
            'use with JIT and other JAX transformations. Consider using '
            f'jnp.asarray(np.{name}(...)) instead, although care should be taken if '
            f'np.{name} is used within a jax transformations because of its potential '
            f'side-effect of consuming the {what} object; for more information see '
            'https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions')
    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f'Refused, as in JAX: reading a {what} is a side effect.'
    return refused


fromfile = _impure('fromfile', 'file')
fromiter = _impure('fromiter', 'iterable')


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array of the DLPack tensor ``x`` (a NumPy array, an Array, a torch tensor...)."""
    return asarray(np.from_dlpack(x, copy=copy))


def load(file, *args, **kwargs):
    """``np.load``, an array as an Array (bfloat16, saved by NumPy as two-byte voids,
    recovered)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == 'V2':
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except TypeError:  # a dtype minijax does not have: NumPy's array, as JAX
            pass
    return out


# ----------------------------------------------------------------------------- windows

def _window(name, formula):
    """A window of ``M`` points: 1s for ``M <= 1``, else ``formula(n, M)`` at the float64
    ``n = 0..M-1``."""
    def window(M):  # noqa: N803 (NumPy's name)
        M = _concrete_or_error(int, M, f'M argument of jnp.{name}')  # noqa: N806
        if M <= 1:
            return lax.full((M,), 1, dtypes.float64)
        return formula(lax.iota(dtypes.float64, M), M)
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f'The {name.capitalize()} window of ``M`` points.'
    return window


bartlett = _window('bartlett', lambda n, M: 1 - abs(2 * n + 1 - M) / (M - 1))
blackman = _window('blackman', lambda n, M: 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1))
                   + 0.08 * cos(4 * np.pi * n / (M - 1)))
hamming = _window('hamming', lambda n, M: 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1)))
hanning = _window('hanning', lambda n, M: 0.5 * (1 - cos(2 * np.pi * n / (M - 1))))


def kaiser(M, beta):  # noqa: N803
    """The Kaiser window of ``M`` points and shape ``beta``, ``i0(beta sqrt(1 - t^2)) /
    i0(beta)``."""
    M = _concrete_or_error(int, M, 'M argument of jnp.kaiser')  # noqa: N806
    if M <= 1:
        return lax.full((M,), 1, dtypes.float64)
    n, alpha = lax.iota(dtypes.float64, M), 0.5 * (M - 1)
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)


# ----------------------------------------------------------------------------- diagonals

def diagflat(v, k=0):
    """The 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    v = ravel(v)
    n = np.shape(v)[0] + builtins.abs(k)
    i = arange(0, n - builtins.abs(k))
    flat = i + k + i * n if k >= 0 else i + (i - k) * n
    return zeros(n * n, core.get_aval(v).dtype).at[flat].set(v).reshape(n, n)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with its main diagonal (all axes equal) set to ``val`` (repeated as needed);
    JAX's arrays are immutable, so ``inplace=False`` is required."""
    if inplace:
        raise NotImplementedError('JAX arrays are immutable, must use inplace=False')
    if wrap:
        raise NotImplementedError('wrap=True is not implemented, must use wrap=False')
    a, val = asarray(a), asarray(val)
    if np.ndim(a) < 2:
        raise ValueError('array must be at least 2-d')
    if np.ndim(a) > 2 and len(set(np.shape(a))) != 1:
        raise ValueError('All dimensions of input must be of equal length')
    n = builtins.min(np.shape(a))
    if np.ndim(val):
        val = ravel(val)
        val = concatenate([val] * -(-n // np.shape(val)[0]))[:n]
    return a.at[diag_indices(n, np.ndim(a))].set(val)


def diag_indices_from(arr):
    """The indices of the main diagonal of ``arr``, whose axes must be of one length."""
    shape_ = np.shape(arr)
    if len(shape_) < 2:
        raise ValueError('input array must be at least 2-d')
    if len(set(shape_)) != 1:
        raise ValueError('All dimensions of input must be of equal length')
    return diag_indices(shape_[0], ndim=len(shape_))


def _triangle_from(name, indices):
    def from_arr(arr, k=0):
        shape_ = np.shape(arr)
        if len(shape_) != 2:
            raise ValueError('Only 2-D inputs are accepted')
        return indices(shape_[0], k=k, m=shape_[1])
    from_arr.__name__ = from_arr.__qualname__ = name
    from_arr.__doc__ = f'``{indices.__name__}`` of the shape of the 2-D ``arr``.'
    return from_arr


tril_indices_from = _triangle_from('tril_indices_from', tril_indices)
triu_indices_from = _triangle_from('triu_indices_from', triu_indices)


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices where ``mask_func(ones((n, n)), k)`` is nonzero (``size`` under jit)."""
    return nonzero(mask_func(ones((n, n)), k), size=size)


def ix_(*args):
    """An open mesh of the 1-D index arrays: the ``i``-th spans axis ``i``."""
    args = [asarray(a) for a in args]
    out = []
    for i, a in enumerate(args):
        if np.ndim(a) != 1:
            raise ValueError(f'Arguments to jax.numpy.ix_ must be 1-dimensional, got shape '
                             f'{np.shape(a)}')
        if core.get_aval(a).dtype == np.bool_:
            raise NotImplementedError('Boolean arguments to jax.numpy.ix_ are not implemented')
        shape_ = [1] * len(args)
        shape_[i] = np.shape(a)[0]
        out.append(lax.full(shape_, 0, dtypes.int64) if np.size(a) == 0 else
                   lax.broadcast_in_dim(a, tuple(shape_), (i,)))
    return tuple(out)


# ----------------------------------------------------------------------------- index tricks

def _grid_of_slice(s, name):
    """A slice as a 1-D grid: ``arange``, or ``linspace`` (end included) of ``|step|``
    points for an imaginary step."""
    start = _concrete_or_error(None, s.start, f'slice start of jnp.{name}') or 0
    stop = _concrete_or_error(None, s.stop, f'slice stop of jnp.{name}')
    step = _concrete_or_error(None, s.step, f'slice step of jnp.{name}') or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(builtins.abs(step)))
    return arange(start, stop, step)


class _Grid:
    """``mgrid`` (``sparse=False``) and ``ogrid``: the grids of slices, ``meshgrid``'d."""

    def __init__(self, name, sparse):
        self.name, self.sparse = name, sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_of_slice(key, self.name)
        grids = _promote(*(_grid_of_slice(k, self.name) for k in key))
        out = meshgrid(*grids, indexing='ij', sparse=self.sparse)
        if self.sparse:
            return out
        return stack(out, 0) if out else arange(0)


mgrid, ogrid = _Grid('mgrid', sparse=False), _Grid('ogrid', sparse=True)


class _AxisConcat:
    """``r_`` and ``c_``: slices, scalars and arrays joined along an axis, with NumPy's
    string directives (``'r'``, ``'c'``, ``'axis,ndmin,trans1d'``) first."""

    def __init__(self, name, axis, ndmin, trans1d):
        self.name, self.params = name, (axis, ndmin, trans1d)

    def __len__(self):
        return 0

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        params = [*self.params, -1]
        if isinstance(key[0], str):
            directive, key = key[0], key[1:]
            if directive in ('r', 'c'):
                params[-1] = 'rc'.index(directive)
            else:
                vec = directive.split(',')
                vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
                try:
                    params = list(map(int, vec))
                except ValueError as error:
                    raise ValueError(f'could not understand directive {directive!r}') from error
        axis, ndmin, trans1d, matrix = params
        out = []
        for item in key:
            if isinstance(item, slice):
                item, item_ndim = _grid_of_slice(item, self.name), 0
            elif isinstance(item, str):
                raise ValueError('string directive must be placed at the beginning')
            else:
                item = array(item, copy=False)
                item_ndim = np.ndim(item)
            item = array(item, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                lshifts = ndmin - builtins.abs(ndmin + trans1d + 1) % ndmin
                order = tuple(range(ndmin))
                item = transpose(item, order[lshifts:] + order[:lshifts])
            out.append(item)
        result = concatenate(tuple(out), axis=axis)
        return expand_dims(result, matrix) if matrix != -1 and np.ndim(result) == 1 else result


r_ = _AxisConcat('r_', axis=0, ndmin=1, trans1d=-1)
c_ = _AxisConcat('c_', axis=-1, ndmin=2, trans1d=0)
