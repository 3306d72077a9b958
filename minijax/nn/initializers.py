"""``jax.nn.initializers``: functions ``init(key, shape, dtype)`` that draw starting weights.

Each builder (``normal(stddev)``, ``glorot_uniform()``, ...) returns an ``init``; the
variance-scaling family sizes its spread by the layer's fan-in and fan-out, so activations
keep their scale through deep stacks. Draws use ``minijax.random`` as JAX's use
``jax.random``, so a key gives JAX's weights. Real float dtypes only.
"""
import math
import typing

import numpy as np

from minijax import core, dtypes, random
from minijax import numpy as jnp


@typing.runtime_checkable
class Initializer(typing.Protocol):
    """What every initializer is: a function of a key, a shape and a dtype."""

    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError

#: Standard deviation of a standard normal truncated to (-2, 2).
_TRUNCATED_NORMAL_STDDEV = .87962566103423978


def _float_dtype(dtype):
    return dtypes.float64 if dtype is None else dtype


def zeros(key, shape, dtype=None, out_sharding=None):
    """All zeros (the key is unused), sharded as ``out_sharding`` says."""
    return jnp.zeros(shape, _float_dtype(dtype), out_sharding=out_sharding)


def ones(key, shape, dtype=None, out_sharding=None):
    """All ones (the key is unused), sharded as ``out_sharding`` says."""
    return jnp.ones(shape, _float_dtype(dtype), out_sharding=out_sharding)


def constant(value, dtype=None):
    """An init filling every weight with ``value``."""
    def init(key, shape, dtype=dtype):
        return jnp.full(shape, value, _float_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    """An init drawing uniformly from ``[0, scale)``."""
    def init(key, shape, dtype=dtype):
        dtype = _float_dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None):
    """An init drawing from a normal of mean 0 and ``stddev``."""
    def init(key, shape, dtype=dtype):
        dtype = _float_dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An init drawing a standard normal truncated to ``(lower, upper)``, times ``stddev``."""
    def init(key, shape, dtype=dtype):
        dtype = _float_dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)
    return init


def _axes_size(shape, axes, what):
    """The product of ``shape``'s sizes along ``axes`` (an int or a sequence of ints)."""
    axes = core.canonicalize_axes(axes, len(shape), f'variance_scaling: {what}')
    return math.prod(shape[a] for a in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out): the in and out sizes, each times the receptive field (the axes
    that are neither in, out nor batch: a convolution's kernel window)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional"
                         " weights tensor with default in_axis. Must be at least 2D or specify"
                         " in_axis explicitly.")
    in_size, out_size = _axes_size(shape, in_axis, 'in_axis'), _axes_size(shape, out_axis,
                                                                          'out_axis')
    receptive_field = (math.prod(shape) / in_size / out_size
                       / _axes_size(shape, batch_axis, 'batch_axis'))
    return in_size * receptive_field, out_size * receptive_field


#: variance_scaling's mode -> the fan it divides the scale by
_FAN_OF_MODE = {
    'fan_in': lambda fan_in, fan_out: fan_in,
    'fan_out': lambda fan_in, fan_out: fan_out,
    'fan_avg': lambda fan_in, fan_out: (fan_in + fan_out) / 2,
    'fan_geo_avg': lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5,
}


def _draw_scaled(distribution, key, shape, dtype, variance):
    """A draw of ``distribution`` with variance ``variance``."""
    if distribution == 'truncated_normal':
        stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_NORMAL_STDDEV, dtype)
        return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
    if distribution == 'normal':
        return random.normal(key, shape, dtype) * jnp.sqrt(variance)
    if distribution == 'uniform':
        return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
    raise ValueError(f'invalid distribution for variance scaling initializer: {distribution}')


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """An init whose draws have variance ``scale / fan`` (``mode`` picks the fan), from a
    ``'truncated_normal'``, ``'normal'`` or ``'uniform'`` distribution."""
    def init(key, shape, dtype=dtype):
        shape = core.canonicalize_shape(shape, 'variance_scaling: shape')
        dtype = _float_dtype(dtype)
        fans = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode not in _FAN_OF_MODE:
            raise ValueError(f'invalid mode for variance scaling initializer: {mode}')
        variance = jnp.array(scale / _FAN_OF_MODE[mode](*fans), dtype=dtype)
        return _draw_scaled(distribution, key, shape, dtype, variance)
    return init


def _variance_scaling_preset(name, scale, mode, distribution):
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f'``variance_scaling({scale}, {mode!r}, {distribution!r})``.'
    return builder


glorot_uniform = xavier_uniform = _variance_scaling_preset(
    'glorot_uniform', 1.0, 'fan_avg', 'uniform')
glorot_normal = xavier_normal = _variance_scaling_preset(
    'glorot_normal', 1.0, 'fan_avg', 'truncated_normal')
lecun_uniform = _variance_scaling_preset('lecun_uniform', 1.0, 'fan_in', 'uniform')
lecun_normal = _variance_scaling_preset('lecun_normal', 1.0, 'fan_in', 'truncated_normal')
he_uniform = kaiming_uniform = _variance_scaling_preset('he_uniform', 2.0, 'fan_in', 'uniform')
he_normal = kaiming_normal = _variance_scaling_preset(
    'he_normal', 2.0, 'fan_in', 'truncated_normal')


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An init drawing a uniformly random matrix with orthonormal columns (or rows, if
    there are more columns than rows), times ``scale``: the axes other than ``column_axis``
    are the rows."""
    def init(key, shape, dtype=dtype):
        dtype = _float_dtype(dtype)
        shape = core.canonicalize_shape(shape, 'orthogonal: shape')
        if len(shape) < 2:
            raise ValueError('orthogonal initializer requires at least a 2D shape')
        if 0 in shape:
            return jnp.zeros(shape, dtype)
        n_cols = shape[column_axis]
        q = random.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return jnp.array(scale, dtype) * jnp.moveaxis(q, -1, column_axis)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An init for 1-3D convolution kernels ``(*spatial, in, out)``: zero but at the
    spatial centre, which holds an orthogonal ``in x out`` matrix (Xiao et al. 2018: deep
    plain CNNs keep their signal)."""
    def init(key, shape, dtype=dtype):
        dtype = _float_dtype(dtype)
        shape = core.canonicalize_shape(shape, 'delta_orthogonal: shape')
        if len(shape) not in (3, 4, 5):
            raise ValueError('Delta orthogonal initializer requires a 3D, 4D or 5D shape.')
        if shape[-1] < shape[-2]:
            raise ValueError('`fan_in` must be less or equal than `fan_out`. ')
        matrix = orthogonal(scale, column_axis, dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype).at[centre].set(matrix)
    return init
