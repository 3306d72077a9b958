"""``jax.scipy.signal``'s N-dimensional ``convolve`` and ``correlate`` and their 2-D forms:
direct, as one ``lax.conv_general_dilated`` with the smaller operand flipped, or by FFT
(``fftconvolve``), JAX's methods, so JAX's bits; the spectral analysis (``stft``, ``welch``,
...) is in ``_spectral``.
"""

import numpy as np

from minijax import core, lax
from minijax import numpy as jnp
from minijax.interpreters import batching
from minijax.scipy._spectral import csd, detrend, istft, stft, welch  # noqa: F401
from minijax.scipy.special import _promote_inexact

__all__ = ['convolve', 'convolve2d', 'correlate', 'correlate2d', 'csd', 'detrend',
           'fftconvolve', 'istft', 'stft', 'welch']


def _fftconvolve_one(in1, in2, mode):
    """The convolution of two arrays of one rank by FFTs of the full output's size (real
    FFTs for real operands), then the part ``mode`` keeps, centred."""
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == 'valid':
        no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
        swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if swap:
            in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape)):
        conv = in1 * in2
    else:
        complex_ = jnp.iscomplexobj(in1)
        forward = jnp.fft.fftn if complex_ else jnp.fft.rfftn
        inverse = jnp.fft.ifftn if complex_ else jnp.fft.irfftn
        conv = inverse(forward(in1, full_shape) * forward(in2, full_shape), full_shape)
    out_shape = {'full': full_shape, 'same': in1.shape,
                 'valid': tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape))}[mode]
    starts = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return lax.dynamic_slice(conv, starts, out_shape)


def fftconvolve(in1, in2, mode='full', axes=None):
    """The convolution of ``in1`` and ``in2`` by FFT, over ``axes`` (all by default; the
    others are batch axes, of equal sizes)."""
    in1, in2 = _promote_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError('in1 and in2 should have the same dimensionality')
    if mode not in ('same', 'full', 'valid'):
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    convolve_ = lambda a, b: _fftconvolve_one(a, b, mode)  # noqa: E731
    if axes is None:
        return convolve_(in1, in2)
    axes = (axes,) if np.ndim(axes) == 0 else tuple(axes)
    axes = tuple(core.canonicalize_axis(a, in1.ndim, 'fftconvolve: axes') for a in axes)
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(f'mapped axes must have same shape; got in1.shape={in1.shape} '
                         f'in2.shape={in2.shape} axes={axes}')
    for axis in mapped:
        convolve_ = batching.vmap(convolve_, in_axes=axis, out_axes=axis)
    return convolve_(in1, in2)


def _padding(mode, shape, shape_o):
    """Per axis, the zeros around the larger operand for ``mode``: none (``valid``), the
    kernel's extent less one on each side (``full``), or centred on the original ``in1``
    (``same``, whose length is that of the first argument as given)."""
    if mode == 'valid':
        return [(0, 0) for _ in shape]
    if mode == 'same':
        return [(s - 1 - (s_o - 1) // 2, s - s_o + (s_o - 1) // 2)
                for s, s_o in zip(shape, shape_o)]
    return [(s - 1, s - 1) for s in shape]


def convolve(in1, in2, mode='full', method='auto', precision=None):
    """The N-dimensional convolution of ``in1`` and ``in2`` (``full``, ``same`` or
    ``valid``); one operand must be at least as large as the other along every axis."""
    if method == 'fft':
        return fftconvolve(in1, in2, mode=mode)
    if method not in ('auto', 'direct'):
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
    if mode not in ('full', 'same', 'valid'):
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    in1, in2 = _promote_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError('in1 and in2 must have the same number of dimensions')
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f'zero-size arrays not supported in convolutions, got shapes '
                         f'{in1.shape} and {in2.shape}.')
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError('One input must be smaller than the other in every dimension.')
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    padding = _padding(mode, in2.shape, shape_o)
    result = lax.conv_general_dilated(in1[None, None], jnp.flip(in2)[None, None],
                                      (1,) * in1.ndim, padding, precision=precision)
    return result[0, 0]


def correlate(in1, in2, mode='full', method='auto', precision=None):
    """The cross-correlation: ``convolve`` with ``in2`` reversed and conjugated."""
    return convolve(in1, jnp.flip(jnp.conj(jnp.asarray(in2))), mode, precision=precision,
                    method=method)


def _check_2d(name, in1, in2, boundary, fillvalue):
    """What the 2-D forms support: JAX's, zero padding only."""
    if boundary != 'fill' or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f'{name}() only supports 2-dimensional inputs.')


def convolve2d(in1, in2, mode='full', boundary='fill', fillvalue=0, precision=None):
    """``convolve`` of two matrices, padded with zeros."""
    _check_2d('convolve2d', in1, in2, boundary, fillvalue)
    return convolve(in1, in2, mode, precision=precision)


def correlate2d(in1, in2, mode='full', boundary='fill', fillvalue=0, precision=None):
    """The cross-correlation of two matrices, padded with zeros, as SciPy lines it up: ``in1``
    reversed, convolved with ``in2`` and reversed back; but when ``in1`` is the smaller
    operand (in ``full``, or strictly smaller in ``valid``), ``in2`` reversed convolved
    with ``in1`` (conjugated back in ``full``)."""
    _check_2d('correlate2d', in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    smaller = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if (mode == 'full' and smaller) or (mode == 'valid' and smaller and in1.shape != in2.shape):
        out = convolve(jnp.flip(in2), jnp.conj(in1), mode, precision=precision)
        return jnp.conj(out) if mode == 'full' else out
    return jnp.flip(convolve(jnp.flip(in1), jnp.conj(in2), mode, precision=precision))
