"""The generalized normal distribution with shape ``beta`` (1: Laplace, 2: normal with
variance 1/2), as ``jax.scipy.stats.gennorm``."""

from minijax import lax
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'logpdf', 'pdf']


def logpdf(x, beta):
    """``log(beta / 2) - log Gamma(1 / beta) - |x|^beta``."""
    x, beta = _promote_inexact(x, beta)
    return lax.log(.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
    """``(1 + sign(x) P(1 / beta, |x|^beta)) / 2``."""
    x, beta = _promote_inexact(x, beta)
    return .5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
    return lax.exp(logpdf(x, beta))
