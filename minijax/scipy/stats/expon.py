"""The exponential distribution (rate ``1/scale``, starting at ``loc``), as
``jax.scipy.stats.expon``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'ppf', 'sf']


def logpdf(x, loc=0, scale=1):
    """``-(x - loc) / scale - log(scale)`` on ``[loc, inf)``, -inf below."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    log_probs = lax.neg(lax.add(lax.div(lax.sub(x, loc), scale), lax.log(scale)))
    return mnp.where(lax.less(x, loc), -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """``-(x - loc) / scale`` on ``[loc, inf)``, 0 below."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return mnp.where(lax.less(x, loc), mnp.zeros_like(neg_scaled_x), neg_scaled_x)


def sf(x, loc=0, scale=1):
    return lax.exp(logsf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``-expm1(-(x - loc) / scale)`` on ``[loc, inf)``, 0 below."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return mnp.where(lax.less(x, loc), mnp.zeros_like(neg_scaled_x),
                     lax.neg(lax.expm1(neg_scaled_x)))


def logcdf(x, loc=0, scale=1):
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def ppf(q, loc=0, scale=1):
    """``loc - scale log1p(-q)``; NaN outside [0, 1]."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return mnp.where(mnp.isnan(q) | (q < 0) | (q > 1), np.nan,
                     lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
