"""Neural-network functions, as ``jax.nn`` defines them, on ``minijax.numpy``.

Each is written in the numerically stable form JAX uses: ``softplus`` never overflows,
``softmax`` and ``log_softmax`` subtract the maximum first (held constant to
differentiation: it cancels). Where JAX fixes a derivative at a kink with ``custom_jvp``,
minijax does the same: ``relu``'s derivative at 0 is 0, and ``softplus``' is
``sigmoid(x)`` everywhere.
"""

import math

import numpy as np

from minijax import core, custom_derivatives, lax, unsupported
from minijax import numpy as mnp
from minijax.numpy import _to_float  # jnp's promotion of integer inputs to floats
from minijax.scipy.special import logsumexp

__all__ = ['celu', 'dot_product_attention', 'elu', 'gelu', 'glu', 'hard_sigmoid', 'hard_silu',
           'hard_swish', 'hard_tanh', 'identity', 'leaky_relu', 'log1mexp', 'log_sigmoid',
           'log_softmax', 'logmeanexp', 'logsumexp', 'mish', 'one_hot', 'relu', 'relu6', 'selu',
           'sigmoid', 'silu', 'soft_sign', 'softmax', 'softplus', 'sparse_plus',
           'sparse_sigmoid', 'squareplus', 'standardize', 'swish', 'tanh']


def _float(x):
    return _to_float(mnp.asarray(x))


@custom_derivatives.custom_jvp
def relu(x):
    """``max(x, 0)``; its derivative is 0 at 0 (a custom JVP, as in JAX)."""
    return mnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: mnp.where(mnp.greater(x, 0), g, 0.))


def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    return lax.logistic(_float(x))


@custom_derivatives.custom_jvp
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


def _shifted(x, axis, where):
    """``x`` minus its maximum along ``axis`` (kept), the maximum held constant; with
    ``where``, of the elements it keeps, the others -inf."""
    x = _float(x)
    if where is None:
        return mnp.subtract(x, lax.stop_gradient(mnp.max(x, axis, keepdims=True)))
    x_max = mnp.max(x, axis, keepdims=True, where=where, initial=-np.inf)
    return mnp.subtract(mnp.where(where, x, -np.inf), lax.stop_gradient(x_max))


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (an int or a tuple): non-negative, summing
    to 1 (over the elements ``where`` keeps; the others are 0)."""
    unnormalized = mnp.exp(_shifted(x, axis, where))
    out = mnp.divide(unnormalized, mnp.sum(unnormalized, axis, keepdims=True, where=where))
    return out if where is None else mnp.where(where, out, 0)


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``: the log of ``softmax``, without its underflow
    (over the elements ``where`` keeps; the others are -inf)."""
    shifted = _shifted(x, axis, where)
    out = mnp.subtract(shifted, mnp.log(mnp.sum(mnp.exp(shifted), axis, keepdims=True,
                                                where=where)))
    return out if where is None else mnp.where(where, out, -np.inf)


def one_hot(x, num_classes, *, dtype=np.float64, axis=-1):
    """``x``'s entries as one-hot vectors of length ``num_classes`` along a new axis
    ``axis``: 1 where the class index matches, else 0 (all zeros for an index out of range).
    """
    x = mnp.asarray(x)
    num_classes = core.static_int(num_classes, 'one_hot: num_classes')
    axis = core.canonicalize_axis(axis, x.ndim + 1, 'one_hot: axis')
    classes_shape = [1] * x.ndim
    classes_shape.insert(axis, num_classes)
    classes = lax.broadcasted_iota(x.dtype, tuple(classes_shape), axis)
    return mnp.astype(mnp.equal(lax.expand_dims(x, (axis,)), classes), dtype)


@custom_derivatives.custom_jvp
def relu6(x):
    """``min(max(x, 0), 6)``; its derivative is 0 at both kinks (a custom JVP, as in JAX)."""
    return mnp.minimum(mnp.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x: mnp.where(mnp.logical_and(mnp.greater(x, 0), mnp.less(x, 6)),
                                          g, 0.))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return mnp.divide(relu6(mnp.add(x, 3.)), 6.)


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (also called ``hard_swish``)."""
    return mnp.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def elu(x, alpha=1.0):
    """``x`` where ``x > 0``, else ``alpha (exp(x) - 1)`` (computed on ``min(x, 0)``, so the
    branch not taken cannot overflow)."""
    x = _float(x)
    positive = mnp.greater(x, 0)
    return mnp.where(positive, x, mnp.multiply(alpha, mnp.expm1(mnp.where(positive, 0., x))))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha expm1(min(x, 0) / alpha)``: elu, continuously differentiable."""
    x = _float(x)
    return mnp.add(mnp.maximum(x, 0.),
                   mnp.multiply(alpha, mnp.expm1(mnp.divide(mnp.minimum(x, 0.), alpha))))


def selu(x):
    """The scaled elu of self-normalizing networks (fixed ``alpha`` and scale)."""
    return mnp.multiply(1.0507009873554804934193349852946,
                        elu(x, 1.6732632423543772848170429916717))


def glu(x, axis=-1):
    """The gated linear unit: the first half of ``x`` along ``axis`` times the sigmoid of the
    second."""
    x = mnp.asarray(x)
    if x.shape[core.canonicalize_axis(axis, x.ndim, 'glu: axis')] % 2:
        raise ValueError(f'glu: axis {axis} has odd size {x.shape[axis]}: it must split in two')
    value, gate = mnp.split(x, 2, axis)
    return mnp.multiply(value, sigmoid(gate))


def mish(x):
    """``x tanh(softplus(x))``."""
    x = _float(x)
    return mnp.multiply(x, mnp.tanh(softplus(x)))


def squareplus(x, b=4):
    """``(x + sqrt(x^2 + b)) / 2``: a smooth relu made of algebraic operations."""
    x = _float(x)
    return mnp.divide(mnp.add(x, mnp.sqrt(mnp.add(mnp.square(x), b))), 2)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm='fast'):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``. The ``'fast'`` variance
    is ``E[x^2] - E[x]^2`` (clipped at 0), the ``'stable'`` one ``E[(x - E[x])^2]``."""
    if where is not None:
        raise NotImplementedError('standardize: where= is not supported by minijax')
    x = _float(x)
    axis = core.canonicalize_axes(axis, x.ndim, 'standardize: axis')
    if mean is None:
        mean = mnp.mean(x, axis, keepdims=True)
    if variance is None:
        if algorithm == 'stable':
            variance = mnp.mean(mnp.square(mnp.subtract(x, mean)), axis, keepdims=True)
        elif algorithm == 'fast':
            variance = mnp.clip(mnp.subtract(mnp.mean(mnp.square(x), axis, keepdims=True),
                                             mnp.square(mean)), 0)
        else:
            raise ValueError(f"standardize: unknown algorithm {algorithm!r} (expected 'fast' "
                             "or 'stable')")
    return mnp.multiply(mnp.subtract(x, mean), lax.rsqrt(mnp.add(variance, epsilon)))


@custom_derivatives.custom_jvp
def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x > 0``, accurate for small and large ``x`` (through
    ``expm1`` below log 2, ``log1p`` above); its derivative is ``1 / expm1(x)``."""
    x = _float(x)
    return mnp.where(mnp.less(x, math.log(2)), mnp.log(mnp.negative(mnp.expm1(mnp.negative(x)))),
                     mnp.log1p(mnp.negative(mnp.exp(mnp.negative(x)))))


log1mexp.defjvps(lambda g, ans, x: mnp.divide(g, mnp.expm1(x)))


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``log(mean(exp(x)))`` along ``axis``: ``logsumexp`` minus the log of the count."""
    if where is not None:
        raise NotImplementedError('logmeanexp: where= is not supported by minijax')
    x = _float(x)
    count = mnp.size(x) // max(mnp.size(mnp.sum(x, axis)), 1)
    return mnp.subtract(logsumexp(x, axis, keepdims=keepdims), math.log(count))


def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)^2 / 4`` between: a softplus with compact
    support (Martins et al., sparsemax's activation)."""
    x = _float(x)
    return mnp.where(x <= -1.0, 0.0, mnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x):
    """``clip((x + 1) / 2, 0, 1)``: the derivative of ``sparse_plus``."""
    return 0.5 * mnp.clip(_float(x) + 1.0, 0.0, 2.0)


def identity(x):
    """``x`` itself."""
    return mnp.asarray(x)
from minijax.nn import initializers  # noqa: E402  (jax.nn.initializers)
from minijax.nn.attention import dot_product_attention  # noqa: E402

__getattr__ = unsupported.missing_name('jax.nn')
