"""The Pareto distribution with shape ``b`` (support from ``loc + scale`` up), as
``jax.scipy.stats.pareto``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'ppf', 'sf']


def _scaled(x, b, loc, scale):
    """The promoted arguments, ``y = (x - loc) / scale`` and whether ``x`` is below the
    support."""
    x, b, loc, scale = _promote_inexact(x, b, loc, scale)
    return x, b, loc, scale, lax.div(lax.sub(x, loc), scale), lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
    """``-log(scale / b) - (b + 1) log y``; -inf below the support."""
    x, b, loc, scale, y, below = _scaled(x, b, loc, scale)
    log_probs = -(lax.log(lax.div(scale, b)) + (b + 1) * lax.log(y))
    return mnp.where(below, -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """``1 - y^-b``; 0 below the support."""
    x, b, loc, scale, y, below = _scaled(x, b, loc, scale)
    return mnp.where(below, mnp.zeros_like(y), 1 - lax.pow(y, -b))


def logcdf(x, b, loc=0, scale=1):
    """``log1p(-y^-b)``; -inf below the support."""
    x, b, loc, scale, y, below = _scaled(x, b, loc, scale)
    return mnp.where(below, -np.inf, lax.log1p(-lax.pow(y, -b)))


def logsf(x, b, loc=0, scale=1):
    """``-b log y``; 0 below the support."""
    x, b, loc, scale, y, below = _scaled(x, b, loc, scale)
    return mnp.where(below, mnp.zeros_like(y), -(b * lax.log(y)))


def sf(x, b, loc=0, scale=1):
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """``loc + scale (1 - q)^(-1/b)``; NaN outside [0, 1]."""
    q, b, loc, scale = _promote_inexact(q, b, loc, scale)
    value = loc + scale * lax.pow(1 - q, -(1 / b))
    return mnp.where(mnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
