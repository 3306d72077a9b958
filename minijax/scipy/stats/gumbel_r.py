"""The right-skewed Gumbel distribution (of maxima), as ``jax.scipy.stats.gumbel_r``; NaN
for a non-positive ``scale``. ``gumbel_l`` is its mirror image."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'ppf', 'sf']


def _checked(log_of_z):
    """The function of ``(x, loc, scale)`` computing ``log_of_z(z, scale)`` at
    ``z = (x - loc) / scale``, NaN for a non-positive scale."""
    def function(x, loc=0, scale=1):
        x, loc, scale = _promote_inexact(x, loc, scale)
        value = log_of_z(lax.div(lax.sub(x, loc), scale), scale)
        return mnp.where(scale > 0, value, np.nan)
    function.__name__ = function.__qualname__ = log_of_z.__name__
    function.__doc__ = log_of_z.__doc__
    return function


@_checked
def logpdf(z, scale):
    """``-log(scale) - z - exp(-z)``."""
    return special.xlogy(-1, scale) - (z + lax.exp(-z))


@_checked
def logcdf(z, scale):
    """``-exp(-z)``."""
    return -lax.exp(-z)


@_checked
def sf(z, scale):
    """``1 - exp(-exp(-z))``, through ``expm1`` (accurate in the upper tail)."""
    return -lax.expm1(-lax.exp(-z))


@_checked
def logsf(z, scale):
    """``log(1 - exp(-exp(-z)))``."""
    from minijax.nn import log1mexp  # minijax.nn imports minijax.scipy
    return log1mexp(lax.exp(-z))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc - scale log(-log p)``; NaN outside (0, 1)."""
    p, loc, scale = _promote_inexact(p, loc, scale)
    return mnp.where((p > 0) & (p < 1), loc - scale * lax.log(special.xlogy(-1, p)), np.nan)
