"""``jax.scipy.fft``: the type-2 discrete cosine transform and its inverse, by one FFT of the
interleaved input (Makhoul, "A Fast Cosine Transform in One and Two Dimensions", 1980), as
JAX computes them; two axes at a time for the N-dimensional forward transform."""

import math
import operator

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as jnp
from minijax.numpy import _promote_inexact
from minijax.numpy import fft as jnp_fft

__all__ = ['dct', 'dctn', 'idct', 'idctn']


def _w4(n, k):
    """``exp(-i pi k / 2n)``, the twiddle factors, complex of ``k``'s precision (``n`` is a
    Python int, weakly typed)."""
    dtype = k.dtype if dtypes.is_complex(k.dtype) else dtypes.COMPLEX_OF[k.dtype]
    return jnp.exp(-.5j * np.pi * k.astype(dtype) / n)


def _other_axes(x, axis):
    return [a for a in range(x.ndim) if a != axis]


def _interleave(x, axis):
    """The even entries, then the odd ones reversed."""
    return lax.concatenate([lax.slice_in_dim(x, None, None, 2, axis),
                            lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))], axis)


def _deinterleave(x, axis):
    """``_interleave``'s inverse."""
    half = math.ceil(x.shape[axis] / 2)
    index = [slice(None)] * x.ndim

    def at(s):
        index[axis] = s
        return tuple(index)
    out = jnp.zeros(x.shape, dtype=x.dtype).at[at(slice(None, None, 2))].set(
        x[at(slice(None, half))])
    return out.at[at(slice(1, None, 2))].set(lax.rev(x[at(slice(half, None))], (axis,)))


def _ortho(out, axis):
    """Divides by ``sqrt(4n)`` the first term and ``sqrt(2n)`` the rest."""
    factor = lax.concatenate([lax.full((1,), 4, out.dtype),
                              lax.full((out.shape[axis] - 1,), 2, out.dtype)], 0)
    factor = lax.expand_dims(factor, _other_axes(out, axis))
    return out / lax.sqrt(factor * out.shape[axis])


def _check(name, type, norm):  # noqa: A002 (SciPy's name)
    if type != 2:
        raise NotImplementedError('Only DCT type 2 is implemented.')
    if norm is not None and norm not in ('backward', 'ortho'):
        raise ValueError(f'jax.scipy.fft.{name}: norm={norm!r} is not implemented')


def _pad_to(x, sizes):
    """``x`` padded with zeros at the end of the axes in ``sizes`` (axis -> length)."""
    return lax.pad(x, jnp.array(0, x.dtype),
                   [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)])


def _complex_parts(transform, x, **kwargs):
    return lax.complex(transform(x.real, **kwargs), transform(x.imag, **kwargs))


def dct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002 (SciPy's name)
    """The type-2 DCT along ``axis`` (zero-padded to ``n``); ``norm='ortho'`` makes it
    orthonormal."""
    x = jnp.asarray(x)
    _check('dct', type, norm)
    if dtypes.is_complex(x.dtype):
        return _complex_parts(dct, x, type=type, n=n, axis=axis, norm=norm)
    axis = core.canonicalize_axis(axis, x.ndim, 'dct: axis')
    if n is not None:
        x = _pad_to(x, {axis: n})
    size = x.shape[axis]
    spectrum = jnp_fft.fft(_interleave(x, axis), axis=axis)
    k = lax.expand_dims(jnp.arange(size, dtype=spectrum.real.dtype), _other_axes(x, axis))
    out = 2 * (spectrum * _w4(size, k)).real
    return _ortho(out, axis) if norm == 'ortho' else out


def _dct2(x, axes, norm):
    """The DCT over two axes from one 2-D FFT."""
    axis1, axis2 = (core.canonicalize_axis(a, x.ndim) for a in axes)
    n1, n2 = x.shape[axis1], x.shape[axis2]
    spectrum = jnp_fft.fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    k1 = lax.expand_dims(jnp.arange(n1, dtype=spectrum.dtype), _other_axes(x, axis1))
    k2 = lax.expand_dims(jnp.arange(n2, dtype=spectrum.dtype), _other_axes(x, axis2))
    mirrored = jnp.roll(jnp.flip(spectrum, axis=axis2), shift=1, axis=axis2)
    out = 2 * (_w4(n1, k1) * (_w4(n2, k2) * spectrum + _w4(n2, -k2) * mirrored)).real
    return _ortho(_ortho(out, axis1), axis2) if norm == 'ortho' else out


def _shape_and_axes(x, s, axes):
    """SciPy's ``s`` (a list, or one length) and ``axes`` (the last ``len(s)`` by default)."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f's must have at most x.ndim ({x.ndim}) elements, got {len(s)}')
    if axes is None:
        return s, tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(
            range(x.ndim))
    return s, tuple(core.canonicalize_axis(a, x.ndim, 'axes') for a in axes)


def dctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002 (SciPy's name)
    """The type-2 DCT over ``axes`` (all by default), two at a time."""
    x = jnp.asarray(x)
    _check('dctn', type, norm)
    if dtypes.is_complex(x.dtype):
        return _complex_parts(dctn, x, type=type, s=s, norm=norm, axes=axes)
    s, axes = _shape_and_axes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        x = _pad_to(x, dict(zip(axes, s)))
    if len(axes) == 2:
        return _dct2(x, axes, norm)
    for block in [axes[i:i + 2] for i in range(0, len(axes), 2)]:
        x = dctn(x, axes=block, norm=norm)
    return x


def idct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002 (SciPy's name)
    """The inverse of ``dct`` (the type-3 DCT, scaled) along ``axis``."""
    x = jnp.asarray(x)
    _check('idct', type, norm)
    if dtypes.is_complex(x.dtype):
        return _complex_parts(idct, x, type=type, n=n, axis=axis, norm=norm)
    axis = core.canonicalize_axis(axis, x.ndim, 'idct: axis')
    if n is not None:
        x = _pad_to(x, {axis: n})
    size = x.shape[axis]
    x, = _promote_inexact(x)
    if norm is None or norm == 'backward':
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    k = lax.expand_dims(jnp.arange(size, dtype=x.dtype), _other_axes(x, axis))
    w4 = _w4(size, k)
    x = x.astype(w4.dtype) / w4 * 2 * size
    return _deinterleave(jnp_fft.ifft(x, axis=axis).real, axis)


def idctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002 (SciPy's name)
    """The inverse of ``dctn``: ``idct`` along each of ``axes``."""
    x = jnp.asarray(x)
    _check('idctn', type, norm)
    if dtypes.is_complex(x.dtype):
        return _complex_parts(idctn, x, type=type, s=s, norm=norm, axes=axes)
    s, axes = _shape_and_axes(x, s, axes)
    if len(axes) == 1:
        return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        x = _pad_to(x, dict(zip(axes, s)))
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x
