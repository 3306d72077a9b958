"""The beta distribution, as ``jax.scipy.stats.beta``: the density, and the cdf and survival
function through the regularized incomplete beta function."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'sf']


def logpdf(x, a, b, loc=0, scale=1):
    """``(a - 1) log y + (b - 1) log(1 - y) - log B(a, b) - log(scale)`` on the support,
    -inf outside, NaN for non-positive ``a``, ``b`` or ``scale``."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    one, zero = np.array(1, x.dtype), np.array(0, x.dtype)
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(special.xlogy(lax.sub(a, one), y),
                              special.xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(lax.neg(special.betaln(a, b)), log_linear_term), lax.log(scale))
    outside = mnp.logical_or(lax.greater(x, lax.add(loc, scale)), lax.less(x, loc))
    result = mnp.where(outside, -np.inf, log_probs)
    invalid = mnp.logical_or(mnp.logical_or(lax.le(a, zero), lax.le(b, zero)),
                             lax.le(scale, zero))
    return mnp.where(invalid, np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    """``(x - loc) / scale`` clamped to the support [0, 1]."""
    return lax.clamp(np.array(0, x.dtype), lax.div(lax.sub(x, loc), scale),
                     np.array(1, x.dtype))


def cdf(x, a, b, loc=0, scale=1):
    """``I_y(a, b)``, the regularized incomplete beta function at the clamped ``y``."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    return special.betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """``I_{1-y}(b, a)``: the upper tail without cancelling against 1."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    return special.betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    return lax.log(sf(x, a, b, loc, scale))
