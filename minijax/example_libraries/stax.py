"""Stax: neural-network layers as ``(init_fun, apply_fun)`` pairs, as JAX's example library
has them.

``init_fun(rng, input_shape)`` returns ``(output_shape, params)``; ``apply_fun(params, inputs,
**kwargs)`` returns the outputs (``rng=`` reaches the layers that draw, e.g. ``Dropout``).
Combinators (``serial``, ``parallel``, ``shape_dependent``) build a layer from layers. The draws
are JAX's: the same key gives JAX's parameters bit for bit.
"""
import functools
import math

from minijax import lax
from minijax import numpy as jnp
from minijax import random
from minijax.nn import (elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax,
                        softplus, standardize)
from minijax.nn.initializers import glorot_normal, normal, ones, zeros

__all__ = [
    'AvgPool', 'BatchNorm', 'Conv', 'Conv1DTranspose', 'ConvTranspose', 'Dense', 'Dropout',
    'Elu', 'Exp', 'FanInConcat', 'FanInSum', 'FanOut', 'Flatten', 'Gelu', 'GeneralConv',
    'GeneralConvTranspose', 'Identity', 'LeakyRelu', 'LogSoftmax', 'MaxPool', 'Relu', 'Selu',
    'Sigmoid', 'Softmax', 'Softplus', 'SumPool', 'Tanh', 'elementwise', 'elu', 'gelu', 'glorot',
    'glorot_normal', 'leaky_relu', 'log_softmax', 'logsoftmax', 'normal', 'ones', 'parallel',
    'randn', 'relu', 'selu', 'serial', 'shape_dependent', 'sigmoid', 'softmax', 'softplus',
    'standardize', 'zeros']

# JAX's older names for the initializers and log_softmax.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def _no_params(rng, input_shape):
    return input_shape, ()


# Layers with parameters.

def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):  # noqa: N802, N803 (JAX's names)
    """A fully-connected layer: ``inputs @ W + b``."""
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        params = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return tuple(input_shape[:-1]) + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params  # noqa: N806
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _conv_layer(shape_rule, apply_conv):
    """A convolution-like layer constructor: ``shape_rule`` gives the output shape and
    ``apply_conv(inputs, W, strides, padding, dimension_numbers)`` the convolution."""
    def layer(dimension_numbers, out_chan, filter_shape, strides=None, padding='VALID',
              W_init=None, b_init=normal(1e-6)):  # noqa: N803 (JAX's name)
        lhs_spec, rhs_spec, out_spec = dimension_numbers
        strides = strides or (1,) * len(filter_shape)
        W_init = W_init or glorot_normal(rhs_spec.index('I'), rhs_spec.index('O'))  # noqa: N806

        def init_fun(rng, input_shape):
            spatial = iter(filter_shape)
            kernel_shape = [out_chan if c == 'O' else input_shape[lhs_spec.index('C')]
                            if c == 'I' else next(spatial) for c in rhs_spec]
            output_shape = shape_rule(input_shape, kernel_shape, strides, padding,
                                      dimension_numbers)
            bias_shape = [out_chan if c == 'C' else 1 for c in out_spec]
            k1, k2 = random.split(rng)
            return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

        def apply_fun(params, inputs, **kwargs):
            W, b = params  # noqa: N806
            return apply_conv(inputs, W, strides, padding, dimension_numbers) + b
        return init_fun, apply_fun
    return layer


def _conv(inputs, W, strides, padding, dimension_numbers):  # noqa: N803
    one = (1,) * len(strides)
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers)


def _conv_transpose(inputs, W, strides, padding, dimension_numbers):  # noqa: N803
    return lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)


GeneralConv = _conv_layer(lax.conv_general_shape_tuple, _conv)
GeneralConv.__name__ = GeneralConv.__qualname__ = 'GeneralConv'
GeneralConv.__doc__ = 'A convolution layer with the given dimension numbers.'
Conv = functools.partial(GeneralConv, ('NHWC', 'HWIO', 'NHWC'))

GeneralConvTranspose = _conv_layer(lax.conv_transpose_shape_tuple, _conv_transpose)
GeneralConvTranspose.__name__ = GeneralConvTranspose.__qualname__ = 'GeneralConvTranspose'
GeneralConvTranspose.__doc__ = 'A transposed-convolution layer with the given dimension numbers.'
Conv1DTranspose = functools.partial(GeneralConvTranspose, ('NHC', 'HIO', 'NHC'))
ConvTranspose = functools.partial(GeneralConvTranspose, ('NHWC', 'HWIO', 'NHWC'))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,  # noqa: N802
              beta_init=zeros, gamma_init=ones):
    """Batch normalization over ``axis``, with a learned shift (``center``) and scale
    (``scale``) per remaining position."""
    axis = (axis,) if jnp.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        # Index with None on the normalized axes to broadcast the per-position parameters.
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[expand] * z
        if center:
            z = z + beta[expand]
        return z
    return init_fun, apply_fun


# Elementwise layers.

def elementwise(fun, **fun_kwargs):
    """A layer applying ``fun(inputs, **fun_kwargs)``."""
    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return _no_params, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


# Pooling layers.

def _non_spatial_axes(spec, ndim):
    return (0, ndim - 1) if spec is None else (spec.index('N'), spec.index('C'))


def _window_means(outputs, inputs, dims, strides, padding, spec):
    """Divides window sums by the number of (unpadded) elements in each window."""
    batch_axes = _non_spatial_axes(spec, inputs.ndim)
    spatial = tuple(d for i, d in enumerate(inputs.shape) if i not in batch_axes)
    counts = lax.reduce_window(jnp.ones(spatial, inputs.dtype), 0., lax.add, dims, strides,
                               padding)
    for i in sorted(batch_axes):
        counts = jnp.expand_dims(counts, i)
    return outputs / counts


def _pooling_layer(name, reducer, init_val, average=False):
    def layer(window_shape, strides=None, padding='VALID', spec=None):
        spatial_window = tuple(window_shape)
        spatial_strides = tuple(strides or (1,) * len(window_shape))
        dims, steps = spatial_window, spatial_strides
        for i in sorted(_non_spatial_axes(spec, len(window_shape) + 2)):
            dims, steps = dims[:i] + (1,) + dims[i:], steps[:i] + (1,) + steps[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, dims, steps, padding)
            ones_ = (1,) * len(dims)
            return lax.reduce_window_shape_tuple(input_shape, dims, steps, pads, ones_,
                                                 ones_), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, dims, steps, padding)
            if average:
                out = _window_means(out, inputs, spatial_window, spatial_strides, padding,
                                    spec)
            return out
        return init_fun, apply_fun
    layer.__name__ = layer.__qualname__ = name
    layer.__doc__ = f'A {name} layer over the spatial axes (all but N and C of ``spec``).'
    return layer


MaxPool = _pooling_layer('MaxPool', lax.max, -jnp.inf)
SumPool = _pooling_layer('SumPool', lax.add, 0.)
AvgPool = _pooling_layer('AvgPool', lax.add, 0., average=True)


# Shape and routing layers: JAX exposes the parameterless ones as layers, not constructors.

def _flatten_init(rng, input_shape):
    return (input_shape[0], math.prod(input_shape[1:])), ()


Flatten = (_flatten_init, lambda params, inputs, **kwargs: jnp.reshape(
    inputs, (inputs.shape[0], -1)))
Identity = (_no_params, lambda params, inputs, **kwargs: inputs)
FanInSum = (lambda rng, input_shape: (input_shape[0], ()),
            lambda params, inputs, **kwargs: sum(inputs))


def FanOut(num):  # noqa: N802
    """A layer giving ``num`` copies of its input."""
    return (lambda rng, input_shape: ([input_shape] * num, ()),
            lambda params, inputs, **kwargs: [inputs] * num)


def FanInConcat(axis=-1):  # noqa: N802
    """A layer concatenating its inputs along ``axis``."""
    def init_fun(rng, input_shape):
        first = tuple(input_shape[0])
        ax = axis % len(first)
        size = sum(shape[ax] for shape in input_shape)
        return first[:ax] + (size,) + first[ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode='train'):  # noqa: N802
    """Dropout in ``mode='train'``: keeps each input with probability ``rate`` (JAX's
    meaning of the word) and scales it by ``1 / rate``; any other mode is the identity."""
    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get('rng')
        if rng is None:
            raise ValueError(
                'Dropout layer requires apply_fun to be called with a PRNG key argument: '
                'call it as apply_fun(params, inputs, rng=key), with key from '
                'minijax.random.key.')
        if mode != 'train':
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)
    return _no_params, apply_fun


# Combinators.

def _layer_rngs(kwargs, n):
    rng = kwargs.pop('rng', None)
    return random.split(rng, n) if rng is not None else (None,) * n


def serial(*layers):
    """The layers one after the other: each one's output is the next one's input."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        for fun, param, rng in zip(apply_funs, params, _layer_rngs(kwargs, len(layers))):
            inputs = fun(param, inputs, rng=rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """The layers side by side: the i-th takes the i-th of a sequence of inputs (often after
    ``FanOut``, and followed by ``FanInSum`` or ``FanInConcat``)."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        return zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_rngs(kwargs, len(layers))
        return [f(p, x, rng=r, **kwargs)
                for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by ``make_layer(input_shape)`` once the input shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
