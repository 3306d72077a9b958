"""The negative binomial distribution (failures before the ``n``-th success of probability
``p``), as ``jax.scipy.stats.nbinom``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpmf', 'pmf']


def logpmf(k, n, p, loc=0):
    """``log Gamma(y + n) - log Gamma(n) - log y! + n log p + y log(1 - p)`` for
    ``y = k - loc``; -inf below ``loc``."""
    k, n, p, loc = _promote_inexact(k, n, p, loc)
    y = lax.sub(k, loc)
    comb_term = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + 1)
    log_probs = comb_term + special.xlogy(n, p) + special.xlogy(y, 1 - p)
    return mnp.where(k < loc, -np.inf, log_probs)


def pmf(k, n, p, loc=0):
    return lax.exp(logpmf(k, n, p, loc))
