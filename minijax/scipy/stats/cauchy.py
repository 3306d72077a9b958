"""The Cauchy distribution, as ``jax.scipy.stats.cauchy``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'isf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'ppf', 'sf']


def logpdf(x, loc=0, scale=1):
    """``-log(pi scale) - log1p(z^2)`` for ``z = (x - loc) / scale``."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    normalizer = lax.log(lax.mul(np.array(np.pi, x.dtype), scale))
    return lax.neg(lax.add(normalizer, lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``1/2 + atan(z) / pi``."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    one_over_pi = lax.div(np.array(1., x.dtype), np.array(np.pi, x.dtype))
    return lax.add(np.array(.5, x.dtype), lax.mul(one_over_pi, mnp.arctan(z)))


def logcdf(x, loc=0, scale=1):
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return logcdf(-x, -loc, scale)


def _quantile(q, loc, scale, sign):
    """``loc + scale tan(sign (pi q - pi/2))``: ``ppf`` (sign 1) and ``isf`` (sign -1)."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    pi_q, half_pi = lax.mul(np.array(np.pi, q.dtype), q), np.array(np.pi / 2, q.dtype)
    angle = lax.sub(pi_q, half_pi) if sign > 0 else lax.sub(half_pi, pi_q)
    return lax.add(lax.mul(lax.tan(angle), scale), loc)


def ppf(q, loc=0, scale=1):
    return _quantile(q, loc, scale, 1)


def isf(q, loc=0, scale=1):
    return _quantile(q, loc, scale, -1)
