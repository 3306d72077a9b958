"""Neural-network functions, as ``jax.nn`` defines them, on ``minijax.numpy``.

Each is written in the numerically stable form JAX uses: ``softplus`` never overflows,
``softmax`` and ``log_softmax`` subtract the maximum first (held constant to
differentiation: it cancels). Where JAX fixes a derivative at a kink with ``custom_jvp``,
minijax does the same: ``relu``'s derivative at 0 is 0, and ``softplus``' is
``sigmoid(x)`` everywhere.
"""
from __future__ import annotations

import math

import numpy as np

from minijax import core, lax
from minijax import numpy as mnp
from minijax.custom_derivatives import custom_jvp
from minijax.numpy import _to_float  # jnp's promotion of integer inputs to floats
from minijax.scipy.special import logsumexp

__all__ = ['gelu', 'hard_tanh', 'leaky_relu', 'log_sigmoid', 'log_softmax', 'logsumexp',
           'one_hot', 'relu', 'sigmoid', 'silu', 'soft_sign', 'softmax', 'softplus', 'swish',
           'tanh']


def _float(x):
    return _to_float(mnp.asarray(x))


@custom_jvp
def relu(x):
    """``max(x, 0)``; its derivative is 0 at 0 (a custom JVP, as in JAX)."""
    return mnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: mnp.where(mnp.greater(x, 0), g, 0.))


def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    return lax.logistic(_float(x))


@custom_jvp
def softplus(x):
    """``log(1 + exp(x))`` as ``logaddexp(x, 0) = max(x, 0) + log1p(exp(-|x|))``: no overflow,
    and full precision where it is tiny. Its derivative is ``sigmoid(x)``."""
    x = _float(x)
    return mnp.add(mnp.maximum(x, 0.), lax.log1p(mnp.exp(mnp.negative(mnp.abs(x)))))


softplus.defjvps(lambda g, ans, x: mnp.multiply(g, sigmoid(x)))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return mnp.negative(softplus(mnp.negative(_float(x))))


def silu(x):
    """``x * sigmoid(x)`` (also called ``swish``)."""
    x = _float(x)
    return mnp.multiply(x, sigmoid(x))


swish = silu


def gelu(x, approximate=True):
    """The Gaussian error linear unit ``x * Phi(x)``: with ``approximate`` (JAX's default),
    Phi is the tanh approximation; otherwise the exact normal CDF, through ``erf``."""
    x = _float(x)
    if approximate:
        inner = mnp.multiply(math.sqrt(2 / math.pi), mnp.add(x, mnp.multiply(0.044715, x ** 3)))
        return mnp.multiply(x, mnp.multiply(0.5, mnp.add(1., mnp.tanh(inner))))
    return mnp.divide(mnp.multiply(x, mnp.add(lax.erf(mnp.divide(x, math.sqrt(2))), 1.)), 2.)


def leaky_relu(x, negative_slope=1e-2):
    """``x`` where ``x >= 0``, else ``negative_slope * x``."""
    x = _float(x)
    return mnp.where(mnp.greater_equal(x, 0), x, mnp.multiply(negative_slope, x))


def soft_sign(x):
    """``x / (|x| + 1)``."""
    x = _float(x)
    return mnp.divide(x, mnp.add(mnp.abs(x), 1.))


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    x = _float(x)
    return mnp.where(mnp.greater(x, 1), 1., mnp.where(mnp.less(x, -1), -1., x))


def tanh(x):
    """The hyperbolic tangent (``jax.nn.tanh`` is ``jnp.tanh``)."""
    return mnp.tanh(x)


def _shifted(x, axis):
    """``x`` minus its maximum along ``axis`` (kept), the maximum held constant."""
    x = _float(x)
    return mnp.subtract(x, lax.stop_gradient(mnp.max(x, axis, keepdims=True)))


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (an int or a tuple): non-negative, summing
    to 1."""
    unnormalized = mnp.exp(_shifted(x, axis))
    return mnp.divide(unnormalized, mnp.sum(unnormalized, axis, keepdims=True))


def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis``: the log of ``softmax``, without its underflow."""
    shifted = _shifted(x, axis)
    return mnp.subtract(shifted, mnp.log(mnp.sum(mnp.exp(shifted), axis, keepdims=True)))


def one_hot(x, num_classes, *, dtype=np.float64, axis=-1):
    """``x``'s entries as one-hot vectors of length ``num_classes`` along a new axis
    ``axis``: 1 where the class index matches, else 0 (all zeros for an index out of range).
    """
    x = mnp.asarray(x)
    num_classes = int(num_classes)  # static, as in JAX: a traced value cannot be a shape
    axis = core.canonicalize_axis(axis, x.ndim + 1, 'one_hot: axis')
    classes_shape = [1] * x.ndim
    classes_shape.insert(axis, num_classes)
    classes = lax.iota(x.dtype, tuple(classes_shape), axis)
    return mnp.astype(mnp.equal(lax.expand_dims(x, (axis,)), classes), dtype)
