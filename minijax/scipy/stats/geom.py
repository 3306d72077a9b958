"""The geometric distribution (trials up to the first success of probability ``p``), as
``jax.scipy.stats.geom``."""

import numpy as np

from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpmf', 'pmf']


def logpmf(k, p, loc=0):
    """``(x - 1) log(1 - p) + log p`` for ``x = k - loc``; -inf for ``x <= 0``."""
    k, p, loc = _promote_inexact(k, p, loc)
    x = k - loc
    return mnp.where(x <= 0, -np.inf, special.xlog1py(x - 1, -p) + mnp.log(p))


def pmf(k, p, loc=0):
    return mnp.exp(logpmf(k, p, loc))
