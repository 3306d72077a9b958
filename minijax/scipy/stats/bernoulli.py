"""The Bernoulli distribution (1 with probability ``p``), as ``jax.scipy.stats.bernoulli``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logpmf', 'pmf', 'ppf']


def logpmf(k, p, loc=0):
    """``x log p + (1 - x) log(1 - p)`` for ``x = k - loc`` in [0, 1], -inf outside."""
    k, p, loc = _promote_inexact(k, p, loc)
    x = lax.sub(k, loc)
    log_probs = special.xlogy(x, p) + special.xlog1py(lax.sub(np.array(1, k.dtype), x), -p)
    return mnp.where(mnp.logical_or(x < 0, x > 1), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return mnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """0 below 0, ``1 - p`` on [0, 1), 1 from 1; NaN for a ``p`` outside [0, 1]."""
    k, p = _promote_inexact(k, p)
    zero, one = np.array(0, k.dtype), np.array(1, k.dtype)
    conditions = [mnp.isnan(k) | mnp.isnan(p) | (p < zero) | (p > one), k < zero,
                  mnp.logical_and(k >= zero, k < one), k >= one]
    return mnp.select(conditions, [np.nan, zero, one - p, one])


def ppf(q, p):
    """0 up to ``q = 1 - p``, then 1; NaN for arguments outside [0, 1]."""
    q, p = _promote_inexact(q, p)
    zero, one = np.array(0, q.dtype), np.array(1, q.dtype)
    invalid = mnp.isnan(q) | mnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return mnp.where(invalid, np.nan, mnp.where(q <= one - p, zero, one))
