"""The multinomial distribution (counts ``x`` of ``n`` draws over the categories of ``p``,
the last axis), as ``jax.scipy.stats.multinomial``."""

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpmf', 'pmf']


def logpmf(x, n, p):
    """``log n! + sum (x_i log p_i - log x_i!)`` where the counts sum to ``n``, -inf
    elsewhere; ``x`` and ``n`` must be integers."""
    p, = _promote_inexact(p)
    x, n = mnp.asarray(x), mnp.asarray(n)
    if not dtypes.issubdtype(mnp.result_type(x, n), np.integer):
        raise ValueError(f'x and n must be of integer type; got x.dtype={x.dtype}, '
                         f'n.dtype={n.dtype}')
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    log_probs = special.gammaln(n + 1) + mnp.sum(special.xlogy(x, p) - special.gammaln(x + 1),
                                                 axis=-1)
    return mnp.where(mnp.sum(x) == n, log_probs, -np.inf)


def pmf(x, n, p):
    return lax.exp(logpmf(x, n, p))
