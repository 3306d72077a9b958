"""The beta-binomial distribution (``n`` trials whose success probability is beta(a, b)), as
``jax.scipy.stats.betabinom``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.jit import jit as _jit
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpmf', 'pmf']


@_jit
def logpmf(k, n, a, b, loc=0):
    """``-log(n + 1) - log B(n - y + 1, y + 1) + log B(y + a, n - y + b) - log B(a, b)`` for
    ``y = floor(k) - loc``; -inf off the support, NaN for negative ``n`` or non-positive
    ``a``, ``b``."""
    k, n, a, b, loc = _promote_inexact(k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    combiln = -(lax.log1p(n) + special.betaln(n - y + 1, y + 1))
    log_probs = combiln + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    log_probs = mnp.where((y == 0) & (n == 0), 0., log_probs)
    outside = (y < -loc) | (y > n) | (y + a <= 0)
    log_probs = mnp.where(outside, -np.inf, log_probs)
    return mnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    return lax.exp(logpmf(k, n, a, b, loc))
