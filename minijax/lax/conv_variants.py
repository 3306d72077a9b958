"""The convolutions JAX writes with ``conv_general_dilated``: ``conv_transpose`` (a
fractionally strided convolution, the layer that upsamples), ``conv_general_dilated_patches``
(each window's elements laid out along the feature axis) and ``conv_general_dilated_local``
(a kernel of its own at each output position: patches, then a batched contraction). No
primitives of their own: they are written as JAX writes them, so their jaxprs and modules
are JAX's.
"""
from __future__ import annotations

import math

import numpy as np

from minijax import core, dtypes
from minijax.lax.convolution import conv_dimension_numbers, conv_general_dilated
from minijax.lax.dot_general import dot_general
from minijax.lax.elementwise import add, convert_element_type, eq
from minijax.lax.precision import Precision, canonicalize_precision
from minijax.lax.static import static_ints
from minijax.lax.structural import broadcast_in_dim, broadcasted_iota, reshape, rev, transpose
from minijax.lax.windowed import dilate_shape

#: The layouts conv_transpose assumes by rank (TensorFlow's: channels last).
_CHANNELS_LAST = {2: ('NC', 'IO', 'NC'), 3: ('NHC', 'HIO', 'NHC'),
                  4: ('NHWC', 'HWIO', 'NHWC'), 5: ('NHWDC', 'HWDIO', 'NHWDC')}


def conv_transpose_padding(kernel, stride, padding):
    """(low, high) padding of one spatial axis of a transposed convolution whose (dilated)
    kernel has size ``kernel``, given the padding of the forward convolution it reverses:
    'SAME', 'VALID' or its (low, high) pair."""
    if padding == 'SAME':
        total = kernel + stride - 2
        low = kernel - 1 if stride > kernel - 1 else -(-total // 2)
    elif padding == 'VALID':
        total = kernel + stride - 2 + max(kernel - stride, 0)
        low = kernel - 1
    elif isinstance(padding, tuple):
        low, high = (kernel - p - 1 for p in padding)
        total = low + high
    else:
        raise ValueError(f'Invalid padding mode: {padding}')  # (JAX's text)
    return low, total - low


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """The transpose of a strided convolution, computed directly: ``lhs`` dilated by
    ``strides`` and convolved with ``rhs``. String padding (and, with
    ``use_consistent_padding``, pairs too) names the forward convolution's padding, so the
    result has the shape the forward convolution's input had; other pairs pad the dilated
    input. ``transpose_kernel`` flips the kernel and swaps its feature axes (Keras'
    Conv2DTranspose)."""
    ndim = np.ndim(lhs)
    if np.ndim(rhs) != ndim or ndim < 2:
        raise ValueError(f'conv_transpose: lhs shape {np.shape(lhs)} and rhs shape '
                         f'{np.shape(rhs)} need one rank, at least 2')
    if dimension_numbers is None:
        if ndim not in _CHANNELS_LAST:
            raise ValueError('No 4+ dimensional dimension_number defaults.')  # (JAX's text)
        dimension_numbers = _CHANNELS_LAST[ndim]
    numbers = conv_dimension_numbers(np.shape(lhs), np.shape(rhs), dimension_numbers)
    strides = static_ints(strides, 'conv_transpose', 'strides')
    rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else rhs_dilation
    if use_consistent_padding or (isinstance(padding, str) and padding in ('SAME', 'VALID')):
        kernel = dilate_shape([np.shape(rhs)[a] for a in numbers.rhs_spec[2:]], rhs_dilation)
        forward = [padding] * len(strides) if isinstance(padding, str) else padding
        padding = tuple(conv_transpose_padding(k, s, tuple(p) if isinstance(p, list) else p)
                        for k, s, p in zip(kernel, strides, forward))
    if transpose_kernel:
        for axis in numbers.rhs_spec[2:]:  # (one reversal per axis, as JAX flips them)
            rhs = rev(rhs, (axis,))
        axes = list(range(ndim))
        out_feature, in_feature = numbers.rhs_spec[:2]
        axes[out_feature], axes[in_feature] = in_feature, out_feature
        rhs = transpose(rhs, axes)
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), padding, strides, rhs_dilation,
                                numbers, precision=precision,
                                preferred_element_type=preferred_element_type)


def _moveaxes(x, source, destination):
    """``x`` with its axes ``source`` moved to ``destination`` (the others keep their
    order), as one transpose."""
    ndim = np.ndim(x)
    source = [a % ndim for a in source]
    perm = [a for a in range(ndim) if a not in source]
    for dst, src in sorted(zip((a % ndim for a in destination), source)):
        perm.insert(dst, src)
    return transpose(x, perm)


def _identity_matrix(dtype, n):
    """JAX's ``lax._eye``: the identity as a comparison of iotas (the row's shifted by an
    offset of 0, an ``add`` that lax.linalg's identity, written as JAX's linalg writes it,
    has not), converted."""
    ones = eq(add(broadcasted_iota(dtypes.int32, (n, n), 0), np.int32(0)),
              broadcasted_iota(dtypes.int32, (n, n), 1))
    return convert_element_type(ones, dtype)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches of ``lhs`` a convolution with a kernel of spatial shape ``filter_shape``
    would see, each flattened along the output's feature axis (features first, then the
    window's axes in the kernel layout's order): a grouped convolution with a one-hot kernel,
    as JAX computes it."""
    filter_shape = static_ints(filter_shape, 'conv_general_dilated_patches', 'filter_shape')
    lhs_shape = np.shape(lhs)
    numbers = conv_dimension_numbers(lhs_shape, (1, 1) + filter_shape, dimension_numbers)
    window = math.prod(filter_shape)
    channels = lhs_shape[numbers.lhs_spec[1]]
    one_hot = broadcast_in_dim(_identity_matrix(core.get_aval(lhs).dtype, window),
                               (channels, window, window), (1, 2))
    kernel = _moveaxes(reshape(one_hot, (channels * window, 1, *filter_shape)), (0, 1),
                       numbers.rhs_spec[:2])
    return conv_general_dilated(
        lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation, numbers,
        feature_group_count=channels,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """A convolution whose kernel differs at each output position (a locally connected
    layer): ``rhs``'s spatial axes are the output's, its input-feature axis holds a patch
    (features, then the window's axes). The patches of ``lhs``, contracted with ``rhs``
    position by position."""
    levels = canonicalize_precision(precision)
    if levels is not None and not (isinstance(levels, tuple) and len(levels) == 2):
        raise ValueError(f'Unsupported precision for conv_general_dilated_local: {precision}')
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation,
        dimension_numbers, None if levels is None else levels[0])
    _, rhs_spec, out_spec = conv_dimension_numbers(
        np.shape(lhs), (1, 1) + tuple(filter_shape), dimension_numbers)
    out_spatial, rhs_spatial = out_spec[2:], rhs_spec[2:]
    rhs_batch = [rhs_spatial[i] for i in sorted(range(len(rhs_spatial)),
                                                key=lambda k: out_spatial[k])]
    numbers = (([out_spec[1]], [rhs_spec[1]]), (sorted(out_spatial), rhs_batch))
    out = dot_general(patches, rhs, numbers, precision=precision)
    return _moveaxes(out, (-2, -1), out_spec[:2])
