"""``jax.scipy.linalg``'s functions built on the Schur form (``lax.linalg.schur``, LAPACK's
``gees``): ``schur``, ``rsf2csf`` (real Schur form to complex by Givens rotations),
``sqrtm`` (the triangular square root, column by column) and ``funm`` (Parlett's recurrence,
Golub and Van Loan's Algorithm 11.1.1), each as JAX writes it."""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.control_flow import cond, fori_loop
from minijax.jit import jit
from minijax.lax import linalg as lax_linalg

__all__ = ['funm', 'rsf2csf', 'schur', 'sqrtm']


def _complex_dtype(dtype):
    return dtype if dtypes.is_complex(dtype) else dtypes.COMPLEX_OF[dtype]


@partial(jit, static_argnames=('output',))
def _schur(a, output):
    if output == 'complex':
        a = a.astype(_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def schur(a, output='real'):
    """``(T, Z)`` with ``a = Z T Z^H``: ``T`` quasi-upper triangular (``output='real'``) or
    upper triangular (``'complex'``), ``Z`` unitary."""
    if output not in ('real', 'complex'):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got "
                         f"output={output!r}.")
    return _schur(jnp.asarray(a), output)


def _rsf2csf_matrix(t, z):
    """Each 2x2 block below the diagonal of ``t`` (a complex pair) zeroed by a Givens rotation
    from its eigenvalues, applied to ``t``'s rows and columns and to ``z``'s columns."""
    dtype = _complex_dtype(jnp.result_type(t, z))
    t, z = t.astype(dtype), z.astype(dtype)
    eps = np.finfo(dtype).eps
    n = t.shape[0]
    if n == 1:
        return t, z

    def rotate(m, t, z):
        mu = jnp.linalg.eigvals(lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))) - t[m, m]
        r = jnp.linalg.norm(jnp.array([mu[0], t[m, m - 1]])).astype(t.dtype)
        c, s = mu[0] / r, t[m, m - 1] / r
        g = jnp.array([[c.conj(), s], [-s, c]], dtype=t.dtype)
        rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        right = jnp.arange(n) >= m - 1
        t = lax.dynamic_update_slice_in_dim(
            t, jnp.where(~right, rows, g @ jnp.where(right, rows, 0)), m - 1, axis=0)
        columns = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        above = jnp.arange(n)[:, np.newaxis] < m + 1
        t = lax.dynamic_update_slice_in_dim(
            t, jnp.where(~above, columns, jnp.where(above, columns, 0) @ g.conj().T), m - 1,
            axis=1)
        z_columns = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        return t, lax.dynamic_update_slice_in_dim(z, z_columns @ g.conj().T, m - 1, axis=1)

    def step(i, tz):
        m = n - i
        t, z = tz
        t, z = cond(jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m])),
                    rotate, lambda m, t, z: (t, z), m, t, z)
        return t.at[m, m - 1].set(0.0), z

    return fori_loop(1, n, step, (t, z))


def _check_square(name, x):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"Input '{name}' must be square.")


@partial(jit, static_argnames=('check_finite',))
def rsf2csf(T, Z, check_finite=True):  # noqa: N803 (SciPy's names)
    """The complex Schur form ``(T, Z)`` from the real one."""
    t, z = jnp.asarray(T), jnp.asarray(Z)
    _check_square('T', t)
    _check_square('Z', z)
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f'Input array shapes must match: Z: {z.shape} vs. T: {t.shape}')
    return jnp.vectorize(_rsf2csf_matrix, signature='(n,n),(n,n)->(n,n),(n,n)')(t, z)


def _sqrtm_triangular(t):
    """The upper triangular ``u`` with ``u @ u == t``, a column at a time from the
    diagonal up: ``u[i, j] = (t[i, j] - sum_k u[i, k] u[k, j]) / (u[i, i] + u[j, j])``."""
    diag = jnp.sqrt(jnp.diag(t))
    n = diag.size

    def row(l_, data):
        j, u = data
        i = j - 1 - l_
        s = fori_loop(i + 1, j, lambda k, val: val + u[i, k] * u[k, j], 0.0)
        value = jnp.where(t[i, j] == s, 0.0, (t[i, j] - s) / (diag[i] + diag[j]))
        return j, u.at[i, j].set(value)

    return fori_loop(0, n, lambda j, u: fori_loop(0, j, row, (j, u))[1], jnp.diag(diag))


@jit
def _sqrtm(a):
    t, z = schur(a, output='complex')
    highest = lax.Precision.HIGHEST
    return lax.dot(lax.dot(z, _sqrtm_triangular(t), precision=highest), jnp.conj(z.T),
                   precision=highest)


def sqrtm(A, blocksize=1):  # noqa: N803 (SciPy's name)
    """The principal square root of a matrix, from its complex Schur form (complex)."""
    if blocksize > 1:
        raise NotImplementedError('Blocked version is not implemented yet.')
    return _sqrtm(A)


@jit
def _parlett(f, t):
    """The strictly upper part of ``f(t)`` from its diagonal, superdiagonal by superdiagonal
    (Golub and Van Loan, Algorithm 11.1.1), and the smallest divisor met."""
    n = t.shape[0]

    def entry(i, state):
        p, f, minden = state
        j = i + p
        s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
        between = (jnp.arange(n) >= i) & (jnp.arange(n) < j - 1)
        s = s + (jnp.where(between, t[i - 1], 0) @ jnp.where(between, f[:, j - 1], 0)
                 - jnp.where(between, f[i - 1], 0) @ jnp.where(between, t[:, j - 1], 0))
        den = t[j - 1, j - 1] - t[i - 1, i - 1]
        f = f.at[i - 1, j - 1].set(jnp.where(den != 0, s / den, s))
        return p, f, jnp.minimum(minden, jnp.abs(den))

    def diagonal(p, state):
        _, f, minden = fori_loop(1, n - p + 1, entry, (p, *state))
        return f, minden

    return fori_loop(1, n, diagonal, (f, jnp.abs(t[0, 0])))


def funm(A, func, disp=True):  # noqa: N803 (SciPy's name)
    """``func`` of a square matrix (``func`` elementwise on its eigenvalues), by Parlett's
    recurrence on the complex Schur form; with ``disp=False`` also an error estimate."""
    a = jnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError('expected square array_like input')
    t, z = rsf2csf(*schur(a))
    f = jnp.diag(func(jnp.diag(t))).astype(t.dtype.char)
    f, minden = _parlett(f, t)
    f = z @ f @ z.conj().T
    if disp:
        return f
    tol = np.finfo(np.float32 if f.dtype.char.lower() == 'f' else np.float64).eps
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(jnp.any(jnp.isinf(f)), np.inf, jnp.minimum(1, jnp.maximum(
        tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1))))
    return f, err
