"""The multivariate normal distribution, as ``jax.scipy.stats.multivariate_normal``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.interpreters import batching
from minijax.lax import linalg
from minijax.scipy.special import _promote_inexact

__all__ = ['logpdf', 'pdf']


def _whiten(chol, y):
    """``L^-1 y`` for each vector of ``y`` (..., n), one triangular solve per vector (as
    JAX vectorizes it) against the broadcast factor."""
    n = y.shape[-1]
    batch = np.broadcast_shapes(chol.shape[:-2], y.shape[:-1])
    chol = mnp.reshape(mnp.broadcast_to(chol, (*batch, n, n)), (-1, n, n))
    rows = mnp.reshape(mnp.broadcast_to(y, (*batch, n)), (-1, 1, n))
    solve = batching.vmap(lambda a, b: linalg.triangular_solve(a, b, lower=True, transpose_a=True))
    return mnp.reshape(solve(chol, rows), (*batch, n))


def logpdf(x, mean, cov, allow_singular=None):
    """``-|L^-1 (x - mean)|^2 / 2 - n log(2 pi) / 2 - log det L`` for ``cov = L L^T``; a
    scalar ``cov`` is ``cov * I``, and a scalar ``mean`` is the one-dimensional case."""
    if allow_singular is not None:
        raise NotImplementedError('allow_singular argument of multivariate_normal.logpdf')
    x, mean, cov = _promote_inexact(x, mean, cov)
    if not mean.shape:
        return (-1 / 2 * mnp.square(x - mean) / cov
                - 1 / 2 * (mnp.log(2 * np.pi) + mnp.log(cov)))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return (-1 / 2 * mnp.einsum('...i,...i->...', y, y) / cov
                - n / 2 * (mnp.log(2 * np.pi) + mnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError(f'multivariate_normal.logpdf got incompatible shapes: mean '
                         f'{mean.shape}, cov {cov.shape}')
    chol = linalg.cholesky(cov)
    y = _whiten(chol, x - mean)
    return (-1 / 2 * mnp.einsum('...i,...i->...', y, y) - n / 2 * mnp.log(2 * np.pi)
            - mnp.log(mnp.diagonal(chol, axis1=-1, axis2=-2)).sum(-1))


def pdf(x, mean, cov):
    return lax.exp(logpdf(x, mean, cov))
