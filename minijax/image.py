"""``jax.image``: resizing and scaling images (any number of axes) by JAX's separable
kernels.

Each resized axis is a matrix product with a weight matrix whose column ``j`` holds the
kernel (triangle, Keys cubic, Lanczos, area...) centred on output sample ``j``'s position in
the input, stretched by the downscaling factor when ``antialias``, and normalized to sum to
1; the products are one ``einsum``. ``'nearest'`` gathers instead. The same arithmetic as
JAX's, so the same values. ``precision`` is accepted for JAX's signature: on the CPU, where
minijax runs, every dot is computed at full precision anyway.
"""

import enum
import math

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as mnp
from minijax.jit import jit as _jit

__all__ = ['ResizeMethod', 'resize', 'scale_and_translate']


class ResizeMethod(enum.Enum):
    """The interpolation methods, as JAX numbers them."""
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        """The method a name stands for (``'bilinear'`` is ``LINEAR``, ...)."""
        for method, names in _NAMES.items():
            if s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {
    ResizeMethod.NEAREST: ('nearest',),
    ResizeMethod.LINEAR: ('linear', 'bilinear', 'trilinear', 'triangle'),
    ResizeMethod.LANCZOS3: ('lanczos3',),
    ResizeMethod.LANCZOS5: ('lanczos5',),
    ResizeMethod.CUBIC: ('cubic', 'bicubic', 'tricubic'),
    ResizeMethod.CUBIC_PYTORCH: ('cubic-pytorch', 'bicubic-pytorch'),
    ResizeMethod.AREA: ('area',),
}


def _lanczos(radius, x):
    y = radius * mnp.sin(np.pi * x) * mnp.sin(np.pi * x / radius)
    out = mnp.where(x > 1e-3, mnp.divide(y, mnp.where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
    return mnp.where(x > radius, 0.0, out)


def _cubic(a):
    """The cubic convolution kernel with parameter ``a`` (Keys: -0.5; OpenCV and PyTorch:
    -0.75), written as JAX writes each."""
    def keys(x):
        out = (1.5 * x - 2.5) * x * x + 1.0
        out = mnp.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
        return mnp.where(x >= 2.0, 0.0, out)

    def opencv(x):
        out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        out = mnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
        return mnp.where(x >= 2.0, 0.0, out)
    return keys if a == -0.5 else opencv


def _triangle(x):
    return mnp.maximum(0, 1 - mnp.abs(x))


_AREA = object()   # the area kernel: overlaps of intervals, not a function of distance

#: method -> (kernel radius, kernel)
_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, lambda x: _lanczos(3.0, x)),
    ResizeMethod.LANCZOS5: (5, lambda x: _lanczos(5.0, x)),
    ResizeMethod.CUBIC: (2, _cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalized(weights):
    """Columns scaled to sum to 1; a column summing to about 0 is all 0."""
    total = mnp.sum(weights, axis=0, keepdims=True)
    return mnp.where(mnp.abs(total) > 1000. * float(np.finfo(np.float32).eps),
                     mnp.divide(weights, mnp.where(total != 0, total, 1)), 0)


def _weights(input_size, output_size, scale, translation, kernel, antialias, edge_padding,
             radius):
    """The ``(input_size, output_size)`` matrix taking an axis to its resampled self."""
    dtype = mnp.result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = mnp.maximum(inv_scale, 1.0) if antialias else 1.0
    sample_f = (mnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale \
        - translation * inv_scale - 0.5
    k = 0
    if edge_padding:
        k = radius
        if antialias:
            # The padding sets a shape: a traced scale is a ConcretizationTypeError, as in JAX.
            k = math.ceil(radius * max(1.0 / float(scale), 1.0))
    expanded = mnp.arange(-k, input_size + k, dtype=dtype)
    if kernel is _AREA:
        left_out = mnp.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right_out = left_out + inv_scale
        left_in = mnp.arange(input_size, dtype=dtype)
        right_in = left_in + 1.0
        weights = mnp.maximum(0.0, mnp.minimum(right_out[None, :], right_in[:, None])
                              - mnp.maximum(left_out[None, :], left_in[:, None]))
    else:
        weights = kernel(mnp.abs(sample_f[None, :] - expanded[:, None]) / kernel_scale)
    if edge_padding:
        # Taps beyond the edges fold onto the edge samples (PyTorch's clamping).
        clamped = mnp.clip(expanded.astype(mnp.int32), 0, input_size - 1)
        columns = lax.broadcast_in_dim(mnp.arange(output_size),
                                       (expanded.shape[0], output_size), (1,))
        folded = mnp.zeros((input_size, output_size), dtype=dtype)
        return _normalized(folded.at[clamped[:, None], columns].add(weights))
    weights = _normalized(weights)
    inside = mnp.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return mnp.where(inside[None, :], weights, 0)


def _scale_and_translate(x, output_shape, spatial_dims, scale, translation, kernel, antialias,
                         edge_padding=False, radius=None):
    if not spatial_dims:
        return x
    ndim = len(output_shape)
    operands, out_indices = [], list(range(ndim))
    for i, d in enumerate(spatial_dims):
        d = core.canonicalize_axis(d, x.ndim, 'scale_and_translate: spatial_dims')
        w = _weights(x.shape[d], output_shape[d], scale[i], translation[i], kernel, antialias,
                     edge_padding, radius).astype(x.dtype)
        operands += [w, [d, ndim + i]]
        out_indices[d] = ndim + i
    return mnp.einsum(x, list(range(ndim)), *operands, out_indices)


def _method(method):
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _check_rank(shape, image):
    if len(shape) != image.ndim:
        raise ValueError(f'shape must have length equal to the number of dimensions of x;  '
                         f'{shape} vs {image.shape}')


def _inexact(x):
    x = mnp.asarray(x)
    return x if dtypes.is_float(x.dtype) or dtypes.is_complex(x.dtype) else \
        x.astype(dtypes.float64)


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=lax.Precision.HIGHEST):
    """``image`` resampled to ``shape`` along ``spatial_dims``: output sample ``j`` of an
    axis is the kernel-weighted input around ``(j + 0.5 - translation) / scale - 0.5``."""
    shape = core.canonicalize_shape(shape, 'scale_and_translate: shape')
    _check_rank(shape, image)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError('Nearest neighbor resampling is not currently supported for '
                         'scale_and_translate.')
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    image = _inexact(image)
    common = mnp.result_type(scale, translation)
    common = common if dtypes.is_float(common) else dtypes.float64
    scale, translation = mnp.asarray(scale, common), mnp.asarray(translation, common)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel,
                                antialias, edge_padding, radius)


def _resize_nearest(x, output_shape):
    for d, (m, n) in enumerate(zip(x.shape, output_shape)):
        if m != n:
            offsets = (mnp.arange(n, dtype=np.float32) + 0.5) * m / n
            index = [slice(None)] * x.ndim
            index[d] = mnp.floor(offsets.astype(np.float32)).astype(np.int32)
            x = x[tuple(index)]
    return x


@_jit(static_argnums=(1, 2, 3, 4))
def _resize(image, shape, method, antialias, precision):
    _check_rank(shape, image)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image = _inexact(image)
    spatial_dims = tuple(i for i in range(len(shape)) if image.shape[i] != shape[i])
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.0] * len(spatial_dims),
                                kernel, antialias, edge_padding, radius)


def resize(image, shape, method, antialias=True, precision=lax.Precision.HIGHEST):
    """``image`` resized to ``shape`` (every axis whose size changes): ``'nearest'``,
    ``'linear'``, ``'cubic'``, ``'lanczos3'``, ``'lanczos5'``, ``'cubic-pytorch'`` or
    ``'area'`` (or a ``ResizeMethod``); ``antialias`` widens the kernel when shrinking."""
    return _resize(image, core.canonicalize_shape(shape, 'resize: shape'), method, antialias,
                   precision)
