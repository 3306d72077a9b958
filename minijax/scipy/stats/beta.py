"""The beta distribution, as ``jax.scipy.stats.beta`` (the density; its cdf needs
``betainc``, which minijax does not have)."""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact, betaln, xlog1py, xlogy

__all__ = ['logpdf', 'pdf']


def logpdf(x, a, b, loc=0, scale=1):
    """``(a - 1) log y + (b - 1) log(1 - y) - log B(a, b) - log(scale)`` on the support,
    -inf outside, NaN for non-positive ``a``, ``b`` or ``scale``."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    one, zero = np.array(1, x.dtype), np.array(0, x.dtype)
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(lax.neg(betaln(a, b)), log_linear_term), lax.log(scale))
    outside = mnp.logical_or(lax.greater(x, lax.add(loc, scale)), lax.less(x, loc))
    result = mnp.where(outside, -np.inf, log_probs)
    invalid = mnp.logical_or(mnp.logical_or(lax.le(a, zero), lax.le(b, zero)),
                             lax.le(scale, zero))
    return mnp.where(invalid, np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))
