"""The Laplace distribution (``exp(-|x - loc| / scale) / 2 scale``), as
``jax.scipy.stats.laplace``."""

import numpy as np

from minijax import lax
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logpdf', 'pdf']


def logpdf(x, loc=0, scale=1):
    """``-|x - loc| / scale - log(2 scale)``."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(np.array(2, x.dtype), scale))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``exp(d) / 2`` for ``d = (x - loc) / scale <= 0``, ``1 - exp(-d) / 2`` above."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    half, one = np.array(.5, x.dtype), np.array(1, x.dtype)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select_n(lax.le(diff, np.array(0, x.dtype)),
                        lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))),
                        lax.mul(half, lax.exp(diff)))
