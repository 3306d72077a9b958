"""SciPy's special matrices (``jax.scipy.linalg.toeplitz``, ``hilbert``, ``pascal``, ...), built
from index grids as JAX builds them.

The constructors that take vectors batch over leading axes (``jnp.vectorize``, as in JAX);
those that take a size ``n`` need it static. ``toeplitz`` and ``hankel`` gather the entries by
index (JAX takes patches of a convolution at the highest precision: the same values, moved
exactly).
"""
from __future__ import annotations

import math
import operator

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as jnp
from minijax.numpy import _promote, _promote_inexact

__all__ = ['block_diag', 'circulant', 'companion', 'convolution_matrix', 'dft', 'fiedler',
           'fiedler_companion', 'hadamard', 'hankel', 'helmert', 'hilbert', 'invhilbert',
           'invpascal', 'leslie', 'pascal', 'toeplitz']


def block_diag(*arrs):
    """The arrays (of at most two axes) placed along the diagonal of a matrix of zeros."""
    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    arrs = _promote(*arrs)
    for i, a in enumerate(arrs):
        if np.ndim(a) > 2:
            raise ValueError(f'Arguments to jax.scipy.linalg.block_diag must have at most 2 '
                             f'dimensions, got {core.get_aval(a).str_short()} at argument {i}.')
    blocks = [jnp.atleast_2d(a) for a in arrs]
    total = sum(b.shape[1] for b in blocks)
    rows, column = [], 0
    for b in blocks:
        rows.append(jnp.pad(b, ((0, 0), (column, total - column - b.shape[1]))))
        column += b.shape[1]
    return jnp.concatenate(rows, axis=0)


def _circulant(c):
    n = c.shape[0]
    return c[(jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n]


def circulant(c):
    """The circulant matrix whose first column is ``c``: column ``j`` is ``c`` rolled by ``j``."""
    return jnp.vectorize(_circulant, signature='(n)->(n,n)')(jnp.atleast_1d(jnp.asarray(c)))


def _toeplitz(c, r):
    """``T[i, j] = c[i - j]`` below the diagonal and ``r[j - i]`` above it, one gather from
    ``c`` reversed followed by ``r[1:]``."""
    m, n = c.shape[0], r.shape[0]
    if m == 0 or n == 0:
        return jnp.empty((m, n), dtype=jnp.promote_types(c.dtype, r.dtype))
    elements = jnp.concatenate((c[::-1], r[1:]))
    return elements[(m - 1) - jnp.arange(m)[:, None] + jnp.arange(n)[None, :]]


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``r[0]`` is ignored;
    without ``r``, the Hermitian one, ``r = conj(c)``)."""
    c = jnp.asarray(c)
    r = jnp.conjugate(c) if r is None else jnp.asarray(r)
    return jnp.vectorize(_toeplitz, signature='(m),(n)->(m,n)')(jnp.atleast_1d(c),
                                                                jnp.atleast_1d(r))


def _hankel(c, r):
    m, n = c.shape[0], r.shape[0]
    if m == 0 or n == 0:
        return jnp.empty((m, n), dtype=jnp.result_type(c, r))
    return jnp.concatenate((c, r[1:]))[jnp.arange(m)[:, None] + jnp.arange(n)[None, :]]


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (zeros without it):
    ``H[i, j] = concatenate(c, r[1:])[i + j]``."""
    c = jnp.asarray(c)
    r = jnp.zeros_like(c) if r is None else jnp.asarray(r)
    for name, v in (('c', c), ('r', r)):
        if v.ndim == 0:
            raise ValueError(f'hankel: {name} must be at least 1-dimensional, got a scalar.')
    if c.ndim < r.ndim:
        c = lax.expand_dims(c, range(r.ndim - c.ndim))
    elif r.ndim < c.ndim:
        r = lax.expand_dims(r, range(c.ndim - r.ndim))
    return jnp.vectorize(_hankel, signature='(m),(n)->(m,n)')(c, r)


def _companion(a):
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return jnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest first): its
    eigenvalues are the polynomial's roots."""
    a, = _promote_inexact(a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(f'The length of `a` along the last axis must be at least 2; got '
                         f'shape {a.shape}.')
    return jnp.vectorize(_companion, signature='(n)->(m,m)')(a)


def _fiedler_companion(a):
    """The pentadiagonal companion matrix of Fiedler (2003), laid out by masks on an index
    grid: ``-a[1]`` and 1 in the first column, then ``-a[k]`` and 1 alternating beside the
    diagonal."""
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty((0, 0), dtype=a.dtype)
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    one, zero = jnp.array(1, dtype=a.dtype), jnp.array(0, dtype=a.dtype)
    conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even,
                  (j == i + 2) & even, (j == i - 1) & even & (i >= 2),
                  (j == i - 2) & odd & (i >= 3)]
    choices = [-a[1], one, -a[jnp.minimum(i + 2, n)], one, -a[jnp.minimum(i + 1, n)], one]
    return jnp.select(conditions, choices, default=zero)


def fiedler_companion(a):
    """Fiedler's companion matrix of the polynomial with coefficients ``a`` (highest first)."""
    a, = _promote_inexact(a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(f"fiedler_companion requires the last axis of 'a' to have nonzero "
                         f'length, but got an array of shape {a.shape}.')
    return jnp.vectorize(_fiedler_companion, signature='(n)->(m,m)')(a)


def fiedler(a):
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``."""
    a = jnp.atleast_1d(jnp.asarray(a))
    return jnp.abs(a[..., None] - a[..., None, :])


def _leslie(f, s):
    f, s = _promote(f, s)
    return jnp.diag(s, k=-1).at[0].set(f)


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` in the first row, survival rates ``s`` below the
    diagonal."""
    f, s = jnp.atleast_1d(jnp.asarray(f)), jnp.atleast_1d(jnp.asarray(s))
    if f.shape[-1] < 2:
        raise ValueError(f'The length of f along the last axis must be at least 2; got shape '
                         f'{f.shape}.')
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(f'Incorrect lengths for f and s. The length of s along the last axis '
                         f'must be one less than the length of f; got f shape {f.shape} and '
                         f's shape {s.shape}.')
    return jnp.vectorize(_leslie, signature='(n),(m)->(n,n)')(f, s)


def convolution_matrix(a, n, mode='full'):
    """The Toeplitz matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for ``v`` of length
    ``n``."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f'n must be a positive integer; got {n}.')
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError('convolution_matrix: a must be at least 1-dimensional, got a scalar.')
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f'len(a) must be at least 1; got shape {a.shape}.')
    if mode not in ('full', 'valid', 'same'):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    widths = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    length = m + n - 1
    trim = min(n, m) - 1
    start, end = {'full': (0, 0), 'valid': (trim, trim),
                  'same': (trim // 2, trim - trim // 2)}[mode]
    column = lax.slice_in_dim(jnp.pad(a, widths), start, length - end, axis=-1)
    row = lax.slice_in_dim(jnp.pad(jnp.flip(a, axis=-1), widths), length - n - start,
                           length - start, axis=-1)
    return toeplitz(column, row)


def _size(n, name):
    return core.static_int(n, f'{name}: n')


def dft(n, scale=None, *, dtype=None):
    """The ``n x n`` discrete Fourier transform matrix ``exp(-2 pi i j k / n)``, divided by
    ``sqrt(n)`` or ``n`` for ``scale`` 'sqrtn' or 'n'."""
    if scale is not None and scale not in ('sqrtn', 'n'):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = np.complex128  # (minijax is always x64)
    elif not dtypes.is_complex(np.dtype(dtype)):
        raise ValueError(f'dtype must be a complex floating-point type; got {np.dtype(dtype)}.')
    n = _size(n, 'dft')
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == 'sqrtn':
        return omegas / jnp.sqrt(n)
    return omegas / n if scale == 'n' else omegas


def hadamard(n, dtype=int):
    """The ``n x n`` Sylvester Hadamard matrix of +1 and -1 (``n`` a power of 2)."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f'n must be a positive power of 2; got {n}.')
    h = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = jnp.block([[h, h], [h, -h]])
    return h


def helmert(n, full=False):
    """The Helmert matrix: ``n - 1`` orthonormal contrasts (and the constant row first if
    ``full``)."""
    n = _size(n, 'helmert')
    if n < 1:
        raise ValueError(f'n must be a positive integer; got {n}.')
    i, j = jnp.arange(n - 1)[:, None], jnp.arange(n)[None, :]
    k = (i + 1).astype(np.float64)
    denominator = jnp.sqrt(k * (k + 1))
    h = jnp.where(j <= i, 1.0 / denominator,
                  jnp.where(j == i + 1, -k / denominator, jnp.zeros_like(denominator)))
    if full:
        h = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype), h], axis=0)
    return h


def hilbert(n):
    """The Hilbert matrix ``1 / (i + j + 1)``."""
    a = lax.broadcasted_iota(np.float64, (_size(n, 'hilbert'), 1), 0)
    return 1 / (a + a.T + 1)


def _comb(n, k):
    from minijax.scipy.special import comb
    return comb(n, k)


def invhilbert(n):
    """The inverse of the Hilbert matrix, by its closed form in binomial coefficients."""
    n = _size(n, 'invhilbert')
    a = jnp.arange(n, dtype=np.float64)
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * _comb(n + i, n - j - 1) * _comb(n + j, n - i - 1)
            * _comb(s, i) ** 2)


def _binomial(n, k):
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def _pascal_kind(kind):
    kind = 'symmetric' if kind is None else kind
    if kind not in ('symmetric', 'lower', 'upper'):
        raise ValueError(f"Expected kind to be one of: ['symmetric', 'lower', 'upper']; got "
                         f'{kind}')
    return kind


def _triangle_or_product(lower, kind, product):
    if kind == 'lower':
        return lower
    return lower.T if kind == 'upper' else product(lower)


def pascal(n, kind=None):
    """Pascal's matrix of binomial coefficients: lower ``C(i, j)``, its transpose, or their
    product (symmetric, the default). float32, as in JAX."""
    kind = _pascal_kind(kind)
    a = jnp.arange(_size(n, 'pascal'), dtype=np.float32)
    return _triangle_or_product(_binomial(a[:, None], a[None, :]), kind,
                                lambda low: jnp.dot(low, low.T))


def invpascal(n, kind=None):
    """The inverse of ``pascal(n, kind)``: ``(-1)^(i-j) C(i, j)`` for the lower one."""
    kind = _pascal_kind(kind)
    a = jnp.arange(_size(n, 'invpascal'), dtype=np.float64)
    i, j = a[:, None], a[None, :]
    return _triangle_or_product((-1.0) ** (i - j) * _binomial(i, j), kind,
                                lambda low: jnp.dot(low.T, low))
