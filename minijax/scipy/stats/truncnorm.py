"""The normal distribution truncated to ``[a, b]`` (in standard units), as
``jax.scipy.stats.truncnorm``: every function works with log masses of the standard normal,
taken in whichever tail keeps them accurate."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.jit import jit as _jit
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact
from minijax.scipy.stats import norm

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'sf']


def _log_diff(x, y):
    """``log(exp(x) - exp(y))``."""
    return special.logsumexp(mnp.array([x, y]), b=mnp.array([mnp.ones_like(x), -mnp.ones_like(y)]),
                             axis=0)


def _log_gauss_mass(a, b):
    """``log(Phi(b) - Phi(a))``: as a difference of log cdfs in a tail (reflected into the
    left one), as ``log1p`` of the two tails' masses across the middle."""
    a, b = mnp.broadcast_arrays(mnp.asarray(a), mnp.asarray(b))
    left, right = b <= 0, a > 0
    mass_tail = _log_diff(special.log_ndtr(mnp.where(right, -a, b)),
                          special.log_ndtr(mnp.where(right, -b, a)))
    mass_central = mnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return mnp.where(left | right, mass_tail, mass_central)


@_jit
def logpdf(x, a, b, loc=0, scale=1):
    """The normal's log density less the log mass of [a, b]; -inf outside, NaN for
    ``a >= b``."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    value = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    y = (x - loc) / scale
    value = mnp.where((y < a) | (y > b), -np.inf, value)
    return mnp.where(a >= b, np.nan, value)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))


@_jit
def logcdf(x, a, b, loc=0, scale=1):
    """``log mass[a, y] - log mass[a, b]``, through the survival side where the cdf is near
    1; 0 above ``b``, -inf below ``a``, NaN for ``a >= b``."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    x, a, b = mnp.broadcast_arrays(x, a, b)
    y = (x - loc) / scale
    log_mass = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, y) - log_mass
    log_sf = _log_gauss_mass(y, b) - log_mass
    log_cdf = mnp.select([y >= b, y <= a, log_cdf > -0.1, y > a],
                         [0, -np.inf, mnp.log1p(-mnp.exp(log_sf)), log_cdf])
    return mnp.where(a >= b, np.nan, log_cdf)


@_jit
def cdf(x, a, b, loc=0, scale=1):
    return lax.exp(logcdf(x, a, b, loc, scale))


@_jit
def logsf(x, a, b, loc=0, scale=1):
    """The log cdf of the reflected distribution at ``-x``."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@_jit
def sf(x, a, b, loc=0, scale=1):
    return lax.exp(logsf(x, a, b, loc, scale))
