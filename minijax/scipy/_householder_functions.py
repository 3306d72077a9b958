"""``jax.scipy.linalg``'s functions on Householder reflectors: ``hessenberg`` (LAPACK's
``gehrd``, then ``orgqr`` for ``Q``) and ``qr_multiply`` (``geqrf``, or ``geqp3`` with column
pivoting, then ``ormqr``, which applies ``Q`` without forming it), each as JAX writes it, so
JAX's bits."""
from __future__ import annotations

from functools import partial

from minijax import core
from minijax import numpy as jnp
from minijax.jit import jit
from minijax.lax import linalg as lax_linalg
from minijax.lax.householder import geqp3, geqrf

__all__ = ['hessenberg', 'qr_multiply']


@partial(jit, static_argnames=('calc_q', 'check_finite', 'overwrite_a'))
def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """``H`` (zero below the first subdiagonal) with ``a = Q H Q^H``, and with ``calc_q``
    the unitary ``Q`` too: the reflectors of ``gehrd`` act on rows and columns 1 to n-1,
    so ``Q`` is their product bordered by a one in the corner."""
    del overwrite_a, check_finite
    n = a.shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    q = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    batch = packed.shape[:-2]
    dtype = packed.dtype
    q = jnp.block([[jnp.ones(batch + (1, 1), dtype=dtype),
                    jnp.zeros(batch + (1, n - 1), dtype=dtype)],
                   [jnp.zeros(batch + (n - 1, 1), dtype=dtype), q]])
    return h, q


def qr_multiply(a, c, mode='right', pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """``(Q c, R)`` (``mode='left'``, ``c`` ``[..., k, p]``) or ``(c Q, R)`` (``'right'``,
    ``c`` ``[..., p, m]``, the result's first ``k`` columns), ``Q R`` the QR decomposition of
    ``a`` ``[..., m, n]`` and ``k = min(m, n)``, ``conj(Q)`` with ``conjugate``; a vector
    ``c`` is a column (left) or a row (right), and the result a vector again. ``Q`` is never
    formed: LAPACK's ``ormqr`` applies its reflectors. With ``pivoting``, the QR
    decomposition of ``a[..., P]`` (LAPACK's ``geqp3``) and ``P`` as a third result."""
    del overwrite_a, overwrite_c
    a, c = jnp._promote_inexact(a, c)
    if mode not in ('right', 'left'):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    if a.ndim < 2:
        raise ValueError(f'qr_multiply: a must have shape [..., m, n], got '
                         f'{core.get_aval(a).str_short()}')
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == 'left' else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == 'left' and c.shape[-2] != k:
        raise ValueError(f'Array shapes are not compatible for Q @ c operation: a has shape '
                         f'{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} '
                         f'rows (expected {k}).')
    if mode == 'right' and c.shape[-1] != m:
        raise ValueError(f'Array shapes are not compatible for c @ Q operation: a has shape '
                         f'{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} '
                         f'columns (expected {m}).')
    batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    if pivoting:
        r, p, taus = geqp3(a)
        p = p - 1  # (LAPACK counts columns from 1)
    else:
        r, taus = geqrf(a)
    if m > n and mode == 'left':  # (Q's other m - k columns meet zero rows of c)
        zeros = jnp.zeros(c.shape[:-2] + (m - k,) + c.shape[-1:], dtype=c.dtype)
        c = jnp.concatenate([c, zeros], axis=-2)
    if conjugate:  # conj(Q) c = (c^T Q^H)^T: transposes, and LAPACK's Q^H, not a conj
        c = c.swapaxes(-1, -2)
    left = (mode == 'left') != conjugate
    product = lax_linalg.ormqr(r, taus, c, left=left, transpose=conjugate)
    if conjugate:
        product = product.swapaxes(-1, -2)
    if mode == 'right':
        product = product[..., :k]
    if vector:
        product = product.ravel()
    r = jnp.triu(r[..., :k, :])
    return (product, r, p) if pivoting else (product, r)
