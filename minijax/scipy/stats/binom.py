"""The binomial distribution (``n`` trials, success probability ``p``), as
``jax.scipy.stats.binom``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpmf', 'pmf']


def logpmf(k, n, p, loc=0):
    """``log C(n, y) + y log p + (n - y) log(1 - p)`` for ``y = k - loc`` in [0, n]; 0 where
    the outcome is certain, -inf outside."""
    k, n, p, loc = _promote_inexact(k, n, p, loc)
    y = lax.sub(k, loc)
    comb_term = special.gammaln(n + 1) - (special.gammaln(y + 1) + special.gammaln(n - y + 1))
    log_linear_term = special.xlogy(y, p) + special.xlog1py(n - y, -p)
    certain = ((y == 0) & (n == 0)) | (log_linear_term == 0)
    log_probs = mnp.where(certain, 0., comb_term + log_linear_term)
    return mnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
    return lax.exp(logpmf(k, n, p, loc))
