"""The Poisson distribution with mean ``mu``, as ``jax.scipy.stats.poisson`` (the pmf; its
cdf needs ``gammaincc``, which minijax does not have)."""
from __future__ import annotations

import numpy as np

from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact, gammaln, xlogy

__all__ = ['logpmf', 'pmf']


def logpmf(k, mu, loc=0):
    """``x log(mu) - log(x!) - mu`` for ``x = k - loc``; -inf off the non-negative
    integers."""
    k, mu, loc = _promote_inexact(k, mu, loc)
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return mnp.where(mnp.logical_or(x < 0, mnp.round(k) != k), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return mnp.exp(logpmf(k, mu, loc))
