"""``jax.scipy.linalg.eigh_tridiagonal``: the eigenvalues (and eigenvectors) of a real
symmetric (or complex Hermitian) tridiagonal matrix, as JAX computes them.

The eigenvalues come from bisection, all at once: the Sturm sequence of ``T - x I`` counts
the eigenvalues below ``x`` (the sign changes of its LDL^T pivots), so each wanted
eigenvalue's interval, starting from the Gershgorin bounds widened a little, halves until it
is narrower than the tolerance or the mantissa's bits are used up. The eigenvectors come
from inverse iteration (LAPACK's ``stein``): random unit vectors solved against
``T - lambda_i I`` with ``tridiagonal_solve(perturb_singular=True)`` (the shift is an
eigenvalue, so the system is singular to working precision), renormalized, with the vectors
of clusters of close eigenvalues orthonormalized by a QR decomposition after each step,
until the norms grow by less than 10% or after 5 steps. The starting vectors are
``random.normal(key)``, ``key(42)`` by default, as in JAX: JAX's bits.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import dtypes, lax, random
from minijax import numpy as jnp
from minijax.control_flow import fori_loop, while_loop
from minijax.jit import jit
from minijax.lax import linalg as lax_linalg

__all__ = ['eigh_tridiagonal']

#: The Sturm recurrence runs this many steps per loop trip (the rest peeled off first).
_UNROLL = 16


def _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues of the tridiagonal matrix lie below each ``x``: the negative
    pivots of ``T - x I``, a pivot that would be (nearly) zero moved to ``-pivmin``."""
    n = alpha.shape[0]
    zeros, ones = jnp.zeros(x.shape, dtype=np.int32), jnp.ones(x.shape, dtype=np.int32)
    q = alpha[0] - x
    count = jnp.where(q < 0, ones, zeros)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i, q, count):
        q = alpha[i] - beta_sq[i - 1] / q - x
        count = jnp.where(q <= pivmin, count + 1, count)
        return jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q), count

    def steps(length):
        def run(state):
            start, q, count = state
            for j in range(length):
                q, count = step(start + j, q, count)
            return start + length, q, count
        return run
    state = steps((n - 1) % _UNROLL)((1, q, count))
    _, _, count = while_loop(lambda state: jnp.less(state[0], n), steps(_UNROLL), state)
    return count


def _clusters(eigvals):
    """Where runs of eigenvalues closer than ``sqrt(eps) |T|`` start and end (eigenvalues
    ascending), at most ``k // 2 + 1`` of them, and how many there are."""
    k = eigvals.shape[0]
    gap = eigvals[1:] - eigvals[:-1]
    t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
    close = gap < jnp.sqrt(np.finfo(eigvals.dtype).eps) * t_norm
    left_close = jnp.pad(close, (1, 0), constant_values=False)
    right_close = jnp.pad(close, (0, 1), constant_values=False)
    starts_here = jnp.logical_and(jnp.logical_not(left_close), right_close)
    ends_here = jnp.logical_and(left_close, jnp.logical_not(right_close))
    most = k // 2 + 1
    return (jnp.nonzero(starts_here, size=most)[0], jnp.nonzero(ends_here, size=most)[0] + 1,
            jnp.sum(starts_here))


def _orthonormalize_clusters(vectors, starts, ends, count):
    """Each cluster's rows of ``vectors`` replaced by an orthonormal basis of their span (a
    QR decomposition of the rows, moved to the top of a ``k``-row block and masked)."""
    k, n = vectors.shape
    rows = jnp.arange(k)

    def one(i, vectors):
        start, end = starts[i], ends[i]
        block = lax.dynamic_slice(jnp.pad(vectors, ((0, k), (0, 0))), (start, 0), (k, n))
        mask = (rows < end - start).astype(vectors.dtype)
        q, _ = jnp.linalg.qr((block * mask[:, None]).T)
        placed = lax.dynamic_update_slice(jnp.zeros((2 * k, n), dtype=vectors.dtype),
                                          q.T * mask[:, None], (start, 0))[:k, :]
        inside = (rows >= start) & (rows < end)
        return jnp.where(inside[:, None], placed, vectors)
    return fori_loop(0, count, one, vectors)


def _eigenvectors(alpha, beta, eigvals, key):
    """Inverse iteration for every eigenvalue at once (one batched tridiagonal solve per
    step), LAPACK ``stein``'s stopping rule."""
    n, k = alpha.shape[0], eigvals.shape[0]
    dl, du = jnp.pad(jnp.conj(beta), (1, 0)), jnp.pad(beta, (0, 1))
    starts, ends, count = _clusters(eigvals)
    solve_dtype = np.result_type(alpha.dtype, beta.dtype)
    v = random.normal(key, (k, n), dtype=np.finfo(solve_dtype).dtype).astype(solve_dtype)
    v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(solve_dtype)
    shifted = alpha[None, :] - eigvals[:, None]
    dl_rows, du_rows = (jnp.broadcast_to(x[None, :], (k, n)) for x in (dl, du))

    def step(state):
        i, v, norms, _ = state
        v_new = jnp.squeeze(lax_linalg.tridiagonal_solve(
            dl_rows.astype(solve_dtype), shifted.astype(solve_dtype),
            du_rows.astype(solve_dtype), v[:, :, None].astype(solve_dtype),
            perturb_singular=True), axis=-1)
        new_norms = jnp.linalg.norm(v_new, axis=-1, keepdims=True)
        v_new = v_new / new_norms.astype(v_new.dtype)
        v_new = _orthonormalize_clusters(v_new, starts, ends, count)
        return i + 1, v_new, jnp.squeeze(new_norms, axis=-1), norms

    def growing(state):
        i, _, norms, old_norms = state
        return jnp.logical_and(i < 5, jnp.any(norms >= 1.1 * old_norms))
    _, v, _, _ = while_loop(growing, step, (0, v, jnp.ones(k, dtype=eigvals.dtype),
                                            jnp.zeros(k, dtype=eigvals.dtype)))
    return v


@partial(jit, static_argnames=('eigvals_only', 'select', 'select_range'))
def eigh_tridiagonal(d, e, *, eigvals_only=False, select='a', select_range=None, tol=None,
                     key=None):
    """The eigenvalues ``w`` (ascending) of the tridiagonal matrix with diagonal ``d``
    (``[n]``) and off-diagonal ``e`` (``[n - 1]``), all of them (``select='a'``) or those of
    indices ``select_range[0]`` to ``select_range[1]`` (``'i'``), to absolute tolerance
    ``tol`` (at least ``eps |T|``); and unless ``eigvals_only`` the eigenvectors, the
    columns of ``v``, by inverse iteration from ``random.normal(key)``."""
    if not eigvals_only and key is None:
        key = random.key(42)
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    supported = (np.float32, np.float64, np.complex64, np.complex128)
    if alpha.dtype != beta.dtype:
        raise TypeError(f'diagonal and off-diagonal values must have same dtype, got '
                        f'{alpha.dtype} and {beta.dtype}')
    if alpha.dtype not in supported:
        raise TypeError(f'Only float32 and float64 inputs are supported as inputs to '
                        f'jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and '
                        f'{beta.dtype}')
    n = alpha.shape[0]
    if n <= 1:
        real = jnp.real(alpha)
        return real if eigvals_only else (real, jnp.eye(n, dtype=alpha.dtype))
    if dtypes.is_complex(alpha.dtype):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
    # Gershgorin: every eigenvalue within a row's off-diagonal sum of its diagonal entry.
    row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]],
                               axis=0)
    highest, lowest = jnp.amax(alpha + row_sums), jnp.amin(alpha - row_sums)
    t_norm = jnp.maximum(jnp.abs(lowest), jnp.abs(highest))
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))  # (the smallest pivot allowed)
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1  # (each step halves: the mantissa's bits, and one)
    if select == 'a':
        targets = jnp.arange(n, dtype=np.int32)
    elif select == 'i':
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError('Got empty index range in select_range.')
        targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == 'v':
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented (by "
                                  'JAX either: it needs a shape known only at run time)')
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1  # (the Gershgorin interval widened a little)
    slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    shape = np.shape(targets)
    lower = jnp.broadcast_to(lowest - slack - 2 * fudge * pivmin, shape=shape)
    upper = jnp.broadcast_to(highest + slack + fudge * pivmin, shape=shape)
    mid = 0.5 * (upper + lower)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def wide(state):
        i, lower, _, upper = state
        return jnp.logical_and(jnp.less(i, max_it), jnp.less(abs_tol, jnp.amax(upper - lower)))

    def halve(state):
        i, lower, mid, upper = state
        counts = _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= targets, mid, lower)
        upper = jnp.where(counts > targets, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper
    _, _, mid, _ = while_loop(wide, halve, (0, lower, mid, upper))
    if eigvals_only:
        return mid
    return mid, _eigenvectors(alpha, beta, mid, key).T
