"""The chi-square distribution with ``df`` degrees of freedom, as ``jax.scipy.stats.chi2``:
the gamma distribution with shape ``df / 2`` and twice the scale. One departure from JAX,
toward SciPy: at ``x = loc`` with ``df = 2`` the log density is ``log(1 / (2 scale))``
(gamma's ``xlogy``), where JAX's ``0 * log(0)`` gives NaN."""

import numpy as np

from minijax import lax
from minijax.scipy.special import _promote_inexact
from minijax.scipy.stats import gamma

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'sf']


def _as_gamma(function):
    """``chi2``'s ``function`` from ``gamma``'s of the same name."""
    def chi2_function(x, df, loc=0, scale=1):
        x, df, loc, scale = _promote_inexact(x, df, loc, scale)
        two = np.array(2, x.dtype)
        return function(x, lax.div(df, two), loc, lax.mul(scale, two))
    chi2_function.__name__ = chi2_function.__qualname__ = function.__name__
    chi2_function.__doc__ = f"``gamma.{function.__name__}(x, df / 2, loc, 2 scale)``."
    return chi2_function


logpdf, pdf, cdf, logcdf, sf, logsf = map(_as_gamma, (
    gamma.logpdf, gamma.pdf, gamma.cdf, gamma.logcdf, gamma.sf, gamma.logsf))
