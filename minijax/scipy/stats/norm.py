"""The normal distribution with mean ``loc`` and standard deviation ``scale``, as
``jax.scipy.stats.norm``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'isf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'ppf', 'sf']


def logpdf(x, loc=0, scale=1):
    """``-(log(2 pi scale^2) + ((x - loc) / scale)^2) / 2``."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    variance = mnp.multiply(scale, scale)
    log_normalizer = mnp.log(mnp.multiply(2 * np.pi, variance))
    quadratic = mnp.divide(mnp.power(mnp.subtract(x, loc), 2), variance)
    return mnp.divide(mnp.add(log_normalizer, quadratic), -2.)


def pdf(x, loc=0, scale=1):
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``ndtr((x - loc) / scale)``: the probability of a value at most ``x``."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    return special.ndtr(mnp.divide(mnp.subtract(x, loc), scale))


def logcdf(x, loc=0, scale=1):
    """``log_ndtr((x - loc) / scale)``, accurate far into the lower tail."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    return special.log_ndtr(mnp.divide(mnp.subtract(x, loc), scale))


def sf(x, loc=0, scale=1):
    """``1 - cdf``, as the cdf of the mirrored point (no cancellation)."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    """``log(sf)``, as the logcdf of the mirrored point."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
    """The quantile function, ``ndtri(q) * scale + loc``."""
    return mnp.asarray(special.ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
    """The quantile of the survival function, ``ppf(1 - q)``."""
    return ppf(lax.sub(np.array(1, mnp.asarray(q).dtype), q), loc, scale)
