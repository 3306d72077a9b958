"""Neural-network functions, as ``jax.nn`` defines them, on ``minijax.numpy``.

Each is written in the numerically stable form JAX uses: ``softplus`` never overflows,
``softmax`` and ``log_softmax`` subtract the maximum first (held constant to
differentiation: it cancels). Where JAX fixes a derivative at a kink with ``custom_jvp``,
minijax does the same: ``relu``'s derivative at 0 is 0. And each stages JAX's equations:
the functions JAX wraps in a ``jit`` (``relu``, ``elu``, ``log_softmax``...) are ``jit``s
of the same name here too, with the same static arguments.
"""

import functools

import numpy as np

from minijax import core, custom_derivatives, lax, unsupported
from minijax.jit import jit as _api_jit
from minijax import numpy as mnp
from minijax.numpy import _to_float  # jnp's promotion of integer inputs to floats
from minijax.numpy._reductions import _static_axes  # (an axis list as a jit's static tuple)
from minijax.scipy.special import logsumexp

__all__ = ['celu', 'dot_product_attention', 'elu', 'gelu', 'glu', 'hard_sigmoid', 'hard_silu',
           'hard_swish', 'hard_tanh', 'identity', 'leaky_relu', 'log1mexp', 'log_sigmoid',
           'log_softmax', 'logmeanexp', 'logsumexp', 'mish', 'one_hot', 'relu', 'relu6', 'selu',
           'sigmoid', 'silu', 'soft_sign', 'softmax', 'softplus', 'sparse_plus',
           'sparse_sigmoid', 'squareplus', 'standardize', 'swish', 'tanh']


def _float(x):
    return _to_float(mnp.asarray(x))


def _jit(fn=None, *, static_argnames=(), name=None):
    """``fn`` as a ``jit`` of its name (or ``name``), as JAX stages it: traced, a nested
    ``jit`` in the jaxpr; eagerly, compiled, so that its results are JAX's to the last bit."""
    if fn is None:
        return functools.partial(_jit, static_argnames=static_argnames, name=name)
    if name is not None:
        fn.__name__ = fn.__qualname__ = name
    return functools.wraps(fn)(_api_jit(fn, static_argnames=static_argnames))


@_jit
def identity(x):
    """``x`` itself."""
    return mnp.asarray(x)


@custom_derivatives.custom_jvp
@_jit
def relu(x):
    """``max(x, 0)``; its derivative is 0 at 0 (a custom JVP, as in JAX)."""
    return mnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@_jit
def squareplus(x, b=4):
    """``(x + sqrt(x^2 + b)) / 2``: a smooth relu made of algebraic operations."""
    x, b = mnp.asarray(x), mnp.asarray(b)
    return (x + mnp.sqrt(mnp.square(x) + b)) / 2


@_jit
def softplus(x):
    """``log(1 + exp(x))`` as ``logaddexp(x, 0)``: no overflow, and full precision where it
    is tiny."""
    return mnp.logaddexp(x, 0)


@_jit
def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)^2 / 4`` between: a softplus with compact
    support (Martins et al., sparsemax's activation)."""
    x = mnp.asarray(x)
    return mnp.where(x <= -1.0, 0.0, mnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@_jit
def soft_sign(x):
    """``x / (|x| + 1)``."""
    x = mnp.asarray(x)
    return x / (mnp.abs(x) + 1)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (JAX's inline ``jit``: one ``logistic``)."""
    return lax.logistic(_float(x))


@_jit
def sparse_sigmoid(x):
    """``clip((x + 1) / 2, 0, 1)``: the derivative of ``sparse_plus``."""
    return 0.5 * mnp.clip(mnp.asarray(x) + 1.0, 0.0, 2.0)


@_jit
def silu(x):
    """``x * sigmoid(x)`` (also called ``swish``)."""
    x = mnp.asarray(x)
    return x * sigmoid(x)


swish = silu


@_jit
def mish(x):
    """``x tanh(softplus(x))``."""
    x = mnp.asarray(x)
    return x * mnp.tanh(softplus(x))


@_jit
def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return -softplus(-mnp.asarray(x))


@_jit
def elu(x, alpha=1.0):
    """``x`` where ``x > 0``, else ``alpha (exp(x) - 1)`` (computed on ``min(x, 0)``, so the
    branch not taken cannot overflow)."""
    x = mnp.asarray(x)
    return mnp.where(x > 0, x, alpha * mnp.expm1(mnp.where(x > 0, 0., x)))


@_jit
def leaky_relu(x, negative_slope=1e-2):
    """``x`` where ``x >= 0``, else ``negative_slope * x``."""
    x = mnp.asarray(x)
    return mnp.where(x >= 0, x, negative_slope * x)


@_jit
def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    x = mnp.asarray(x)
    return mnp.where(x > 1, 1, mnp.where(x < -1, -1, x))


@_jit
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha expm1(min(x, 0) / alpha)``: elu, continuously differentiable."""
    return mnp.maximum(x, 0.0) + alpha * mnp.expm1(mnp.minimum(x, 0.0) / alpha)


@_jit
def selu(x):
    """The scaled elu of self-normalizing networks (fixed ``alpha`` and scale)."""
    return 1.0507009873554804934193349852946 * elu(x, 1.6732632423543772848170429916717)


def gelu(x, approximate=True):
    """The Gaussian error linear unit ``x * Phi(x)``: with ``approximate`` (JAX's default),
    Phi is the tanh approximation; otherwise the exact normal CDF, through ``erfc``."""
    x = _float(x)
    dtype = core.get_aval(x).dtype
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dtype)
        cdf = 0.5 * (1.0 + mnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(dtype)
    return mnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=dtype)


@_jit(static_argnames=('axis',))
def glu(x, axis=-1):
    """The gated linear unit: the first half of ``x`` along ``axis`` times the sigmoid of the
    second."""
    x = mnp.asarray(x)
    if x.shape[core.canonicalize_axis(axis, x.ndim, 'glu: axis')] % 2:
        raise ValueError(f'glu: axis {axis} has odd size {x.shape[axis]}: it must split in two')
    value, gate = mnp.split(x, 2, axis)
    return value * sigmoid(gate)


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``log(mean(exp(x)))`` along ``axis``: ``logsumexp`` minus the log of the count."""
    return _logmeanexp(x, _static_axes(axis), where, keepdims)


@_jit(static_argnames=('axis', 'keepdims'), name='logmeanexp')
def _logmeanexp(x, axis, where, keepdims):
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    axes = core.canonicalize_axes(axis, np.ndim(x), 'logmeanexp: axis')
    count = mnp._reductions._normalizer(x, axes, keepdims, where, core.get_aval(lse).dtype)
    return lse - mnp.log(count)


def _softmax_terms(x, axis, where):
    """``x`` (where ``where`` keeps it, else -inf) less its maximum along ``axis`` (kept),
    the maximum held constant to differentiation."""
    x = mnp.asarray(x)
    x_max = mnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else mnp.where(where, x, -np.inf)
    return x_safe - lax.stop_gradient(x_max)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (an int or a tuple): non-negative, summing
    to 1 (over the elements ``where`` keeps; the others are 0)."""
    unnormalized = mnp.exp(_softmax_terms(x, axis, where))
    result = unnormalized / mnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else mnp.where(where, result, 0)


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``: the log of ``softmax``, without its underflow
    (over the elements ``where`` keeps; the others are -inf)."""
    return _log_softmax(x, _static_axes(axis), where)


@_jit(static_argnames=('axis',), name='log_softmax')
def _log_softmax(x, axis, where):
    shifted = _softmax_terms(x, axis, where)
    result = shifted - mnp.log(mnp.sum(mnp.exp(shifted), axis, where=where, keepdims=True))
    return result if where is None else mnp.where(where, result, -np.inf)


@_jit(static_argnames=('axis', 'algorithm'))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm='fast'):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (over the elements ``where``
    keeps). The ``'fast'`` variance is ``E[x^2] - E[x]^2`` (clipped at 0), the ``'stable'``
    one ``E[(x - E[x])^2]``."""
    core.canonicalize_axes(axis, np.ndim(x), 'standardize: axis')
    if mean is None:
        mean = mnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == 'stable':
            variance = mnp.mean(mnp.square(mnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == 'fast':
            variance = mnp.clip(mnp.mean(mnp.square(x), axis, keepdims=True, where=where)
                                - mnp.square(mean), 0)
        else:
            raise ValueError(f"standardize: unknown algorithm {algorithm!r} (expected 'fast' "
                             "or 'stable')")
    return mnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """``x``'s entries as one-hot vectors of length ``num_classes`` along a new axis
    ``axis``: 1 where the class index matches, else 0 (all zeros for an index out of range).
    ``dtype`` is the default float's by default."""
    x = mnp.asarray(x)
    num_classes = core.static_int(num_classes, 'one_hot: num_classes')
    dtype = np.float64 if dtype is None else dtype
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


@_jit(static_argnames=('num_classes', 'dtype', 'axis'), name='_one_hot')
def _one_hot(x, num_classes, *, dtype, axis):
    position = core.canonicalize_axis(axis, x.ndim + 1, 'one_hot: axis')
    classes_shape = [1] * x.ndim
    classes_shape.insert(position, num_classes)
    classes = lax.broadcasted_iota(x.dtype, tuple(classes_shape), position)
    return mnp.astype(mnp.equal(lax.expand_dims(x, (position,)), classes), dtype)


@custom_derivatives.custom_jvp
@_jit
def relu6(x):
    """``min(max(x, 0), 6)``; its derivative is 0 at both kinks (a custom JVP, as in JAX)."""
    return mnp.minimum(mnp.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@_jit
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return relu6(x + 3.) / 6.


@_jit
def hard_silu(x):
    """``x * hard_sigmoid(x)`` (also called ``hard_swish``)."""
    x = mnp.asarray(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def tanh(x):
    """The hyperbolic tangent (``jax.nn.tanh`` is ``jnp.tanh``)."""
    return mnp.tanh(x)


@custom_derivatives.custom_jvp
@_jit
def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x > 0``, accurate for small and large ``x`` (through
    ``expm1`` below log 2, ``log1p`` above); its derivative is ``1 / expm1(x)``."""
    x = mnp.asarray(x)
    return mnp.where(x < mnp.log(2.0), mnp.log(-mnp.expm1(-x)), mnp.log1p(-mnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / mnp.expm1(x))


from minijax.nn import initializers  # noqa: E402  (jax.nn.initializers)
from minijax.nn.attention import dot_product_attention  # noqa: E402

__getattr__ = unsupported.missing_name('jax.nn')
