"""The gamma distribution with shape ``a``, as ``jax.scipy.stats.gamma`` (the density; its
cdf needs ``gammainc``, which minijax does not have)."""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact, gammaln, xlogy

__all__ = ['logpdf', 'pdf']


def logpdf(x, a, loc=0, scale=1):
    """``(a - 1) log y - y - log Gamma(a) - log(scale)`` for ``y = (x - loc) / scale >= 0``,
    -inf below."""
    x, a, loc, scale = _promote_inexact(x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = np.array(1, x.dtype)
    y = mnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(xlogy(lax.sub(a, one), y), y)
    return mnp.where(ok, lax.sub(log_linear_term, lax.add(gammaln(a), lax.log(scale))),
                     -np.inf)


def pdf(x, a, loc=0, scale=1):
    return lax.exp(logpdf(x, a, loc, scale))
