"""The uniform distribution on ``[loc, loc + scale]``, as ``jax.scipy.stats.uniform``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logpdf', 'pdf', 'ppf']


def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` inside the interval, -inf outside."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    outside = mnp.logical_or(lax.greater(x, lax.add(loc, scale)), lax.less(x, loc))
    return mnp.where(outside, -np.inf, lax.neg(lax.log(scale)))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """0 below, ``(x - loc) / scale`` inside, 1 above."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    zero, one = mnp.array(0, x.dtype), mnp.array(1, x.dtype)
    end = lax.add(loc, scale)
    conditions = [lax.less(x, loc), lax.greater(x, end), lax.ge(x, loc) & lax.le(x, end)]
    return mnp.select(conditions, [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
    """``loc + scale q``; NaN outside [0, 1]."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return mnp.where(mnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))
