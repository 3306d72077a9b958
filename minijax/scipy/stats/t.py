"""Student's t distribution with ``df`` degrees of freedom, as ``jax.scipy.stats.t``."""

import numpy as np

from minijax import lax
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['logpdf', 'pdf']


def logpdf(x, df, loc=0, scale=1):
    """``-(log Gamma(df/2) + log(pi df scale^2) / 2 - log Gamma((df + 1)/2)) - (df + 1)/2
    log1p(z^2 / df)`` for ``z = (x - loc) / scale``."""
    x, df, loc, scale = _promote_inexact(x, df, loc, scale)
    two = np.array(2, x.dtype)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    half_df_plus_half = lax.add(half_df, np.array(.5, x.dtype))
    scale_term = lax.mul(lax.mul(scale, scale), np.array(np.pi, x.dtype))
    normalizer = lax.sub(lax.add(special.gammaln(half_df), lax.div(lax.log(lax.mul(scale_term, df)),
                                                          two)),
                         special.gammaln(half_df_plus_half))
    quadratic = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(normalizer, lax.mul(half_df_plus_half, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    return lax.exp(logpdf(x, df, loc, scale))
