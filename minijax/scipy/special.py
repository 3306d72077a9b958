"""Special functions, as ``jax.scipy.special`` defines them.

``erf`` and ``erfc`` are primitives (``minijax.lax.special``); the others are written on
them and on ``minijax.numpy``, in the numerically stable forms JAX uses.
"""
from __future__ import annotations

import math

import numpy as np

from minijax import core, lax
from minijax import numpy as mnp
from minijax.numpy import _to_float  # jnp's promotion of integer inputs to floats

__all__ = ['erf', 'erfc', 'expit', 'logit', 'logsumexp', 'ndtr']


def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return lax.erf(_to_float(mnp.asarray(x)))


def erfc(x):
    """``1 - erf(x)``, accurate where ``erf(x)`` is close to 1."""
    return lax.erfc(_to_float(mnp.asarray(x)))


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return lax.logistic(_to_float(mnp.asarray(x)))


def logit(x):
    """The inverse of ``expit``: ``log(x / (1 - x))``."""
    x = _to_float(mnp.asarray(x))
    return lax.log(lax.div(x, lax.sub(1., x)))


def ndtr(x):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2``.

    Where ``erf`` is near -1 or 1, the complement ``erfc`` keeps the tail's relative
    accuracy (``ndtr(-30)`` is 4.9e-198, not 0), as JAX computes it."""
    z = lax.mul(_to_float(mnp.asarray(x)), math.sqrt(.5))
    w = lax.abs(z)
    tails = mnp.where(mnp.greater(z, 0.), lax.sub(2., lax.erfc(z)), lax.erfc(w))
    return lax.mul(.5, mnp.where(mnp.less(w, math.sqrt(.5)), lax.add(1., lax.erf(z)), tails))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a)))`` over ``axis``, without overflow.

    The maximum is subtracted first (and held constant to differentiation: it cancels, so
    the gradient is ``softmax``); an all ``-inf`` or infinite slice shifts by 0 instead.
    With ``b``, terms where ``b == 0`` drop out; a negative sum gives NaN unless
    ``return_sign``, which returns ``(log|sum|, sign(sum))``.
    """
    a = _to_float(mnp.asarray(a))
    if b is not None:
        b = _to_float(mnp.asarray(b))
        shape = mnp.broadcast_shapes(np.shape(a), np.shape(b))
        a, b = mnp.broadcast_to(a, shape), mnp.broadcast_to(b, shape)
        a = mnp.where(mnp.not_equal(b, 0), a, -np.inf)
    shift = mnp.max(a, axis, keepdims=True)
    shift = lax.stop_gradient(mnp.where(mnp.less(mnp.abs(shift), np.inf), shift, 0.))
    terms = mnp.exp(mnp.subtract(a, shift))
    if b is not None:
        terms = mnp.multiply(terms, b)
    total = mnp.sum(terms, axis, keepdims=True)
    sign = lax.sign(total)
    out = mnp.add(mnp.log(mnp.abs(total)), shift)
    if not keepdims:
        axes = core.canonicalize_axes(axis, np.ndim(a), 'logsumexp: axis')
        out, sign = lax.squeeze(out, axes), lax.squeeze(sign, axes)
    if return_sign:
        return out, sign
    return out if b is None else mnp.where(mnp.less(sign, 0), np.nan, out)
