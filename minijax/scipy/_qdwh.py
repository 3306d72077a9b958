"""``jax.lax.linalg.qdwh``: the polar decomposition ``x = u h`` by the QR-based dynamically
weighted Halley iteration (Nakatsukasa, Bai and Gygi, 2010), as JAX runs it: the weights of
each step computed in Python from the lower bound ``l`` on the singular values, QR-based steps
while the weight ``c`` is large, Cholesky-based ones after, until ``u`` stops moving.

It lives at the numpy layer (it is written with ``jnp``); ``minijax.lax.linalg.qdwh`` calls it.
"""
from __future__ import annotations

import numpy as np

from minijax import core, lax
from minijax import numpy as jnp
from minijax.control_flow import fori_loop, while_loop
from minijax.jit import jit
from minijax.lax import linalg as lax_linalg

#: Steps with a weight ``c`` above this use QR (stable for large ``c``), the rest Cholesky.
_CHOLESKY_CUTOFF = 100


def _mask(x, dims, alternative=0):
    """``x`` where each index is below ``dims`` (None: any), ``alternative`` elsewhere."""
    mask = None
    for i, d in enumerate(dims):
        if d is not None:
            below = lax.broadcasted_iota(np.int32, x.shape, i) < d
            mask = below if mask is None else mask & below
    return x if mask is None else jnp.where(mask, x, alternative)


def _concat_at(a, b, m):
    """``b`` stacked under the first ``m`` rows of ``a`` (``a`` padded to its full size)."""
    padded = lax.pad(a, jnp.array(0, a.dtype), [(0, b.shape[0], 0), (0, 0, 0)])
    return lax.dynamic_update_slice_in_dim(padded, b, m, 0)


def _qr_step(u, m, n, params):
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    rows, cols = u.shape
    q, _ = lax_linalg.qr(_concat_at(sqrt_c * u, jnp.eye(cols, dtype=u.dtype), m),
                         full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (rows, cols)), (m, n))
    q2 = _mask(lax.dynamic_slice_in_dim(q, m, cols, axis=0), (n, n)).T.conj()
    return e * u + a_minus_e_by_sqrt_c * (q1 @ q2)


def _cholesky_step(u, m, n, params):
    a_minus_e, c, e = params
    cols = u.shape[1]
    x = c * (u.T.conj() @ u) + jnp.eye(cols, dtype=u.dtype)
    x = _mask(x, (n, n), jnp.eye(cols, dtype=x.dtype))  # (padding stays positive definite)
    y = lax_linalg.cholesky(x, symmetrize_input=False)
    z = lax_linalg.triangular_solve(y, u.T, left_side=True, lower=True, conjugate_a=True).conj()
    z = lax_linalg.triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=True).T.conj()
    return e * u + a_minus_e * z


def _weights(eps, max_iterations):
    """The ``(a, b, c)`` of each planned step (as the QR or Cholesky step's parameters),
    from the bound ``l`` on the smallest singular value, which each step raises."""
    qr_params, cholesky_params = [], []
    bound, tol_l, k = eps, 10.0 * eps / 2.0, 0
    while bound + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = bound * bound
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        bound = bound * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > _CHOLESKY_CUTOFF:
            qr_params.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            cholesky_params.append((a - e, c, e))
    return qr_params, cholesky_params


def _qdwh(x, m, n, max_iterations, eps):
    eps = float(np.finfo(x.dtype).eps) if eps is None else eps
    one_norm, inf_norm = jnp.linalg.norm(x, ord=1), jnp.linalg.norm(x, ord=np.inf)
    alpha_inverse = jnp.where(one_norm == 0, 1, lax.rsqrt(one_norm) * lax.rsqrt(inf_norm))
    u = x * alpha_inverse.astype(x.dtype)
    tol_norm = jnp.cbrt(10.0 * eps / 2.0)
    qr_params, cholesky_params = _weights(eps, max_iterations)

    def step(update, test_convergence):
        def body(k, state, params):
            u_prev = state[0]
            u = update(u_prev, m, n, params)
            return u, (jnp.linalg.norm(u - u_prev) > tol_norm if test_convergence else True)
        return body

    def run(u, params, update, test_convergence):
        if not params:
            return u, True
        table = jnp.array(params).astype(x.dtype)
        body = step(update, test_convergence)
        return fori_loop(0, len(params), lambda k, s: body(
            k, s, lax.dynamic_index_in_dim(table, k, keepdims=False)), (u, True))

    u, _ = run(u, qr_params, _qr_step, False)
    u, not_converged = run(u, cholesky_params, _cholesky_step, True)
    last = step(_cholesky_step, True)
    fixed = (3 - 1 / 3, 3, 1 / 3)  # (a - e, c, e) of the limit weights a = c = 3, b = 1

    def more(state):
        k, u, not_converged = state
        u, not_converged = last(k, (u, not_converged), fixed)
        return k + 1, u, not_converged

    iterations, u, not_converged = while_loop(
        lambda s: jnp.logical_and(s[2], s[0] < max_iterations), more,
        (len(qr_params) + len(cholesky_params), u, not_converged))
    u = 1.5 * u - 0.5 * u @ (u.T.conj() @ u)
    h = u.T.conj() @ x
    return u, (h + h.T.conj()) / 2, iterations, jnp.logical_not(not_converged)


def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """``(u, h, num_iters, is_converged)``: the polar decomposition of ``x`` (``M >= N``; the
    first ``dynamic_shape`` rows and columns if given), ``u`` with orthonormal columns,
    ``h`` Hermitian positive semidefinite."""
    max_iterations = 10 if max_iterations is None else core.static_int(
        max_iterations, 'qdwh: max_iterations')
    return _qdwh_jit(x, is_hermitian=bool(is_hermitian), max_iterations=max_iterations,
                     eps=eps, dynamic_shape=dynamic_shape)


def _qdwh_unjitted(x, *, is_hermitian, max_iterations, eps, dynamic_shape):
    rows, cols = x.shape
    if rows < cols:
        raise ValueError('The input matrix of shape M x N must have M >= N.')
    if dynamic_shape is not None:
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    else:
        m, n = rows, cols
    return _qdwh(x, m, n, max_iterations, eps)


_qdwh_jit = jit(_qdwh_unjitted, static_argnames=('is_hermitian', 'max_iterations', 'eps'))
