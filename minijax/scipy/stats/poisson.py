"""The Poisson distribution with mean ``mu``, as ``jax.scipy.stats.poisson``: the pmf, the cdf
through the upper incomplete gamma function, and the entropy."""

import numpy as np

from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact

__all__ = ['cdf', 'entropy', 'logpmf', 'pmf']


def logpmf(k, mu, loc=0):
    """``x log(mu) - log(x!) - mu`` for ``x = k - loc``; -inf off the non-negative
    integers."""
    k, mu, loc = _promote_inexact(k, mu, loc)
    x = k - loc
    log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return mnp.where(mnp.logical_or(x < 0, mnp.round(k) != k), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return mnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """``Q(floor(k - loc) + 1, mu)``; 0 below ``loc``."""
    k, mu, loc = _promote_inexact(k, mu, loc)
    x = k - loc
    return mnp.where(x < 0, mnp.zeros_like(x), special.gammaincc(mnp.floor(1 + x), mu))


def _summed_entropy(mu, terms, bound):
    """``-sum p log p`` over the first ``terms`` counts, those from ``bound(mu)`` on left
    out (a static count, so the sum traces under jit)."""
    k = mnp.arange(terms, dtype=mu.dtype)[:, None]
    probs = mnp.where(k < mnp.ceil(bound(mu)), pmf(k, mu[None]), 0)
    return mnp.sum(special.entr(probs), axis=0)


def entropy(mu, loc=0):
    """The Shannon entropy, as JAX computes it: summed over the counts that carry the mass
    for ``mu`` below 100 (35 or 250 of them), ``log(2 pi e mu) / 2 - 1 / (12 mu)`` above;
    ``loc`` only broadcasts."""
    mu, loc = _promote_inexact(mu, loc)
    flat = mnp.ravel(mu)
    result = mnp.where(
        flat == 0, mnp.zeros_like(flat), mnp.where(
            flat < 10, _summed_entropy(flat, 35, lambda m: m + 20), mnp.where(
                flat < 100, _summed_entropy(flat, 250, lambda m: m + 10 * mnp.sqrt(m) + 20),
                .5 * mnp.log(2 * np.pi * np.e * flat) - 1 / (12 * flat))))
    return mnp.broadcast_to(result.reshape(mu.shape), mnp.broadcast_shapes(mu.shape, loc.shape))
