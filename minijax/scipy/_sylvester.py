"""``jax.scipy.linalg.solve_sylvester``: ``X`` with ``A X + X B = C``, as JAX solves it.

``method='schur'`` (Bartels and Stewart): the complex Schur forms ``A = U R U^H`` and
``B^H = V S V^H`` turn the equation into ``R Y + Y S^H = F`` with triangular ``R`` and
``S^H``, solved entry by entry from the bottom-right corner (a scan). ``method='eigen'``
diagonalizes ``A`` and ``B`` instead: faster, less accurate for ill-conditioned
eigenvectors. Where some ``|eig(A)_i + eig(B)_j|`` is below ``tol`` the equation has no
unique solution and the answer is NaNs. Batch axes broadcast (``jnp.vectorize``).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import dtypes
from minijax import numpy as jnp
from minijax.control_flow import cond, scan
from minijax.jit import jit
from minijax.scipy._schur_functions import schur

__all__ = ['solve_sylvester']


def _triangular_sylvester(r, s, f):
    """``Y`` with ``r Y + Y s^T = f`` for upper-triangular ``r`` ``[m, m]`` and ``s``
    ``[n, n]``: entry ``(i, j)`` from those below it and right of it, in the order of the
    flattened ``Y`` backwards."""
    r, s, f = jnp._promote_inexact(r, s, f)
    m, n = f.shape

    def step(y_flat, index):
        i, j = index // n, index % n
        y = y_flat.reshape((m, n))
        row_term = jnp.sum(jnp.where(jnp.arange(m) > i, r[i, :] * y[:, j], 0.0))
        col_term = jnp.sum(jnp.where(jnp.arange(n) > j, y[i, :] * s[:, j], 0.0))
        value = (f[i, j] - (row_term + col_term)) / (r[i, i] + s[j, j])
        return y_flat.at[i * n + j].set(value), None
    y_flat, _ = scan(step, jnp.zeros((m * n,), dtype=f.dtype), jnp.arange(m * n - 1, -1, -1))
    return y_flat.reshape((m, n))


@partial(jit, static_argnames=['method'])
def _solve_sylvester_2d(a, b, c, *, method, tol):
    m, n = c.shape[-2:]
    if method == 'schur':
        r, u = schur(a, output='complex')
        s, v = schur(b.conj().T, output='complex')
        f = u.conj().T @ c.astype(r.dtype) @ v
        y = _triangular_sylvester(r, s.conj().T, f)
        x = u @ y @ v.conj().T
    elif method == 'eigen':
        from minijax.scipy.linalg import inv, solve  # (this module's importer)
        ra, ua = jnp.linalg.eig(a)
        rb, ub = jnp.linalg.eig(b)
        f = solve(ua, c.astype(ra.dtype) @ ub)
        y = f / (ra[:, None] + rb[None, :])
        x = ua[:m, :m] @ y[:m, :n] @ inv(ub)[:n, :n]
    else:
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either '
                         '"schur" or "eigen".')
    if not dtypes.is_complex(c.dtype):
        x = x.real
    near_zero = jnp.abs(jnp.linalg.eigvals(a)[:, None] + jnp.linalg.eigvals(b)[None, :]) < tol
    return cond(jnp.any(near_zero), lambda: jnp.zeros_like(x) * np.nan, lambda: x)


@partial(jit, static_argnames=['method'])
def solve_sylvester(A, B, C, *, method='schur', tol=1e-8):  # noqa: N803 (SciPy's names)
    """``X`` ``[..., m, n]`` with ``A X + X B = C`` for ``A`` ``[..., m, m]``, ``B``
    ``[..., n, n]``; NaNs where the equation has no unique solution (to ``tol``)."""
    A, B, C = jnp._promote_inexact(A, B, C)  # noqa: N806
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f'Incompatible shapes for Sylvester equation:\nA: {A.shape}\n'
                         f'B: {B.shape}\nC: {C.shape}')
    return jnp.vectorize(partial(_solve_sylvester_2d, method=method, tol=tol),
                         signature='(m,m),(n,n),(m,n)->(m,n)')(A, B, C)

