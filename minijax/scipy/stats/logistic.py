"""The logistic distribution, as ``jax.scipy.stats.logistic``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'isf', 'logpdf', 'pdf', 'ppf', 'sf']


def logpdf(x, loc=0, scale=1):
    """``-2 logaddexp(z / 2, -z / 2) - log(scale)`` for ``z = (x - loc) / scale``."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    two = np.array(2, x.dtype)
    half_z = lax.div(z, two)
    return lax.sub(lax.mul(lax.neg(two), mnp.logaddexp(half_z, lax.neg(half_z))),
                   lax.log(scale))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return special.expit(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return special.expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def ppf(x, loc=0, scale=1):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return lax.add(lax.mul(special.logit(x), scale), loc)


def isf(x, loc=0, scale=1):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return lax.add(lax.mul(lax.neg(special.logit(x)), scale), loc)
