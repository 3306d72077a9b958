"""The von Mises distribution on the circle (concentration ``kappa``), as
``jax.scipy.stats.vonmises``."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy.special import _promote_inexact

__all__ = ['logpdf', 'pdf']


def logpdf(x, kappa):
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))`` (the scaled Bessel function keeps a large
    ``kappa`` finite); NaN for a non-positive ``kappa``."""
    x, kappa = _promote_inexact(x, kappa)
    value = kappa * (mnp.cos(x) - 1) - mnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return mnp.where(kappa > 0, value, np.nan)


def pdf(x, kappa):
    return lax.exp(logpdf(x, kappa))
