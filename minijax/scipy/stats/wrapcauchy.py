"""The wrapped Cauchy distribution on [0, 2 pi] with shape ``c``, as
``jax.scipy.stats.wrapcauchy``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact

__all__ = ['logpdf', 'pdf']


def logpdf(x, c):
    """``log(1 - c^2) - log(2 pi) - log(1 + c^2 - 2 c cos x)`` on [0, 2 pi], -inf off it;
    NaN for ``c`` outside (0, 1)."""
    x, c = _promote_inexact(x, c)
    value = (mnp.log(1 - c * c) - mnp.log(2 * np.pi)
             - mnp.log(1 + c * c - 2 * c * mnp.cos(x)))
    value = mnp.where((x >= 0) & (x <= 2 * np.pi), value, -np.inf)
    return mnp.where((c > 0) & (c < 1), value, np.nan)


def pdf(x, c):
    return lax.exp(logpdf(x, c))
