"""The normal distribution with mean ``loc`` and standard deviation ``scale``, as
``jax.scipy.stats.norm``."""
from __future__ import annotations

import numpy as np

from minijax import numpy as mnp
from minijax.numpy import _to_float  # jnp's promotion of integer inputs to floats
from minijax.scipy.special import ndtr

__all__ = ['cdf', 'logpdf', 'pdf']


def _floats(*args):
    """The operands promoted together to one float dtype (a Python number takes the
    arrays' dtype), as JAX promotes them."""
    dtype = mnp.result_type(*args)
    return [_to_float(mnp.asarray(a, dtype)) for a in args]


def logpdf(x, loc=0, scale=1):
    """``-(log(2 pi scale^2) + ((x - loc) / scale)^2) / 2``."""
    x, loc, scale = _floats(x, loc, scale)
    variance = mnp.multiply(scale, scale)
    log_normalizer = mnp.log(mnp.multiply(2 * np.pi, variance))
    quadratic = mnp.divide(mnp.power(mnp.subtract(x, loc), 2), variance)
    return mnp.divide(mnp.add(log_normalizer, quadratic), -2.)


def pdf(x, loc=0, scale=1):
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``ndtr((x - loc) / scale)``: the probability of a value at most ``x``."""
    x, loc, scale = _floats(x, loc, scale)
    return ndtr(mnp.divide(mnp.subtract(x, loc), scale))
