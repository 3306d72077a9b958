"""``jax.lax``'s shape arithmetic (broadcast shapes, paddings, the output shapes of windows
and convolutions) and the conveniences JAX writes with reshapes, broadcasts and slices:
``broadcast_to_rank``, ``broadcast_like``, ``collapse``, ``index_in_dim``,
``shape_as_value``. No primitives of
their own: their jaxprs are JAX's.
"""
from __future__ import annotations

import math

import numpy as np

from minijax import core, dtypes
from minijax.lax import windowed
from minijax.lax.conv_variants import conv_transpose_padding
from minijax.lax.convolution import conv_dimension_numbers
from minijax.lax.slicing import slice_in_dim
from minijax.lax.static import static_int
from minijax.lax.structural import broadcast, broadcast_in_dim, full, reshape, squeeze


def dtype(x):
    """The dtype of a value, or a type's (Python's ``float`` is float64, as minijax
    computes)."""
    if isinstance(x, (type, np.dtype, str)):
        return dtypes.check_supported(x, 'dtype')
    return np.dtype(core.get_aval(x).dtype)


def broadcast_shapes(*shapes):
    """The shape NumPy's broadcasting gives arrays of ``shapes``."""
    return tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))


def broadcast_to_rank(x, rank):
    """``x`` with leading axes of size 1 up to rank ``rank``."""
    ndim = np.ndim(x)
    return x if ndim == rank else broadcast(x, (1,) * (rank - ndim))


def broadcast_like(arr, like_arr):
    """``arr`` broadcast as NumPy would to the shape of ``like_arr``."""
    shape, like = np.shape(arr), np.shape(like_arr)
    return broadcast_in_dim(arr, like, tuple(range(len(like) - len(shape), len(like))))


def collapse(operand, start_dimension, stop_dimension=None):
    """``operand`` with its axes ``start_dimension:stop_dimension`` merged into one."""
    shape = np.shape(operand)
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f'Invalid dimension range passed to collapse: {shape}'
                         f'[{start_dimension}:{stop_dimension}]')
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def index_in_dim(operand, index, axis=0, keepdims=True):
    """The slice at the static ``index`` (negative: from the end) along ``axis``; without
    ``keepdims`` that axis is dropped."""
    shape = np.shape(operand)
    index, axis = static_int(index, 'index_in_dim', 'index'), core.canonicalize_axis(
        axis, len(shape), 'index_in_dim: axis')
    position = index + shape[axis] if index < 0 else index
    if not 0 <= position < shape[axis]:
        raise IndexError(f'index {index} is out of bounds for axis {axis} with size '
                         f'{shape[axis]}')
    out = slice_in_dim(operand, position, position + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))

# ----------------------------------------------------------------------------- window shapes


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """'VALID', 'SAME' or 'SAME_LOWER' as a list of (low, high) pairs per spatial axis."""
    return list(windowed.padtype_to_pads(in_shape, window_shape, window_strides, padding))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The shape of a ``reduce_window``'s result."""
    ones = (1,) * len(operand_shape)
    return windowed.window_output_shape(operand_shape, window_dimensions, window_strides,
                                        padding, base_dilation or ones, window_dilation or ones)


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The shape of a convolution's result, operands in the canonical order (batch and
    feature axes first)."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    padded = np.add(lhs_shape[2:], np.sum(np.reshape(pads, (-1, 2)), axis=1))
    spatial = np.maximum(0, np.floor_divide(np.subtract(padded, rhs_shape[2:]), strides) + 1)
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + tuple(spatial)


def conv_general_permutations(dimension_numbers):
    """The axis permutations taking each operand and the result from the layouts named by
    three strings (``('NHWC', 'HWIO', 'NHWC')``) to the canonical order."""
    lhs, rhs, out = dimension_numbers
    return tuple(conv_dimension_numbers(range(len(lhs)), range(len(lhs)), dimension_numbers))


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The shape of ``conv_general_dilated``'s result, in the layout ``dimension_numbers``
    names for it."""
    lhs_perm, rhs_perm, out_perm = conv_dimension_numbers(lhs_shape, rhs_shape,
                                                          dimension_numbers)
    canonical = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                                 window_strides, padding)
    return tuple(np.take(canonical, np.argsort(out_perm)))


def shape_as_value(shape):
    """``shape`` as a 1-d array of the narrowest signed integer type JAX gives it (int32
    unless a dimension needs int64): a NumPy array, or an empty Array for ``()``."""
    dims = tuple(static_int(d, 'shape_as_value', 'a dimension') for d in shape)
    dtype = dtypes.int32 if all(d <= np.iinfo(np.int32).max for d in dims) else dtypes.int64
    return full((0,), 0, dtype) if not dims else np.asarray(dims, dtype)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The shape of ``conv_transpose``'s result (without kernel dilation), in the layout
    ``dimension_numbers`` names for it: ``padding`` is the forward convolution's string or
    the transposed convolution's (low, high) pairs."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_canonical, rhs_canonical = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_canonical[2:], window_strides)]
    spatial = [(n - 1) * s - k + 2 + int(np.sum(pads)) for n, k, s, pads in
               zip(lhs_canonical[2:], rhs_canonical[2:], window_strides, padding)]
    canonical = (lhs_canonical[0], rhs_canonical[0], *spatial)
    return tuple(int(d) for d in np.take(canonical, np.argsort(out_perm)))
