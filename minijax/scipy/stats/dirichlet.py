"""The Dirichlet distribution over the simplex, as ``jax.scipy.stats.dirichlet``: ``x``'s
first axis holds the components (all of them, or all but the last)."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpdf', 'pdf']


def _is_simplex(x):
    """Positive components summing to 1 (within 1e-6), for each point."""
    return mnp.all(x > 0, axis=0) & (abs(mnp.sum(x, axis=0) - 1) < 1e-6)


def logpdf(x, alpha):
    """``sum (alpha_i - 1) log x_i - (sum log Gamma(alpha_i) - log Gamma(sum alpha_i))`` on
    the simplex, -inf off it."""
    x, alpha = _promote_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f'`alpha` must be one-dimensional; got alpha.shape={alpha.shape}')
    if x.ndim == 0 or x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError('`x` must have either the same number of entries as `alpha` or one '
                         f'entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}')
    if x.shape[0] != alpha.shape[0]:
        x = mnp.concatenate([x, 1 - x.sum(0, keepdims=True)], axis=0)
    normalize_term = mnp.sum(special.gammaln(alpha)) - special.gammaln(mnp.sum(alpha))
    alpha = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    log_probs = mnp.sum(special.xlogy(alpha - 1, x), axis=0) - normalize_term
    return mnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x, alpha):
    return lax.exp(logpdf(x, alpha))
