"""The gamma distribution with shape ``a``, as ``jax.scipy.stats.gamma``: the density, and the
cdf and survival function through the regularized incomplete gamma functions (``chi2`` is
this family with shape ``df / 2`` and twice the scale)."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'sf']


def logpdf(x, a, loc=0, scale=1):
    """``(a - 1) log y - y - log Gamma(a) - log(scale)`` for ``y = (x - loc) / scale >= 0``,
    -inf below."""
    x, a, loc, scale = _promote_inexact(x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = np.array(1, x.dtype)
    y = mnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(special.xlogy(lax.sub(a, one), y), y)
    return mnp.where(ok, lax.sub(log_linear_term, lax.add(special.gammaln(a), lax.log(scale))),
                     -np.inf)


def pdf(x, a, loc=0, scale=1):
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """``P(a, y)`` for ``y = (x - loc) / scale`` clamped at 0."""
    x, a, loc, scale = _promote_inexact(x, a, loc, scale)
    return special.gammainc(a, lax.clamp(np.array(0, x.dtype), lax.div(lax.sub(x, loc), scale),
                                         np.array(np.inf, x.dtype)))


def logcdf(x, a, loc=0, scale=1):
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """``Q(a, y)``; 1 below ``loc``."""
    x, a, loc, scale = _promote_inexact(x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return mnp.where(lax.lt(y, np.array(0, y.dtype)), 1, special.gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    return lax.log(sf(x, a, loc, scale))
