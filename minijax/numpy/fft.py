"""``jnp.fft``: NumPy's discrete Fourier transforms, on ``lax.fft``.

Every transform goes through ``_transform``. It moves the transformed axes to the end,
crops or zero-pads them to the lengths asked for (``n``, ``s``) and calls ``lax.fft``, staged
as a nested ``jit`` as JAX stages it. XLA takes at most 3 axes at a time, so longer
transforms are done in groups. Then it scales the result for ``norm`` and moves the axes
back.

``norm`` is NumPy's:
- ``"backward"`` (the default) leaves the forward transforms unscaled and divides the
  inverse ones by the number of points.
- ``"ortho"`` divides both by its square root.
- ``"forward"`` divides the forward transforms only.

``hfft`` and ``ihfft`` are ``irfft`` and ``rfft`` of a conjugated signal, as in NumPy.
"""

import math
import operator

from minijax import core, lax
from minijax import numpy as jnp
from minijax.lax.fft import MAX_AXES as _MAX_AXES

__all__ = ['fft', 'fft2', 'fftfreq', 'fftn', 'fftshift', 'hfft', 'ifft', 'ifft2', 'ifftn',
           'ifftshift', 'ihfft', 'irfft', 'irfft2', 'irfftn', 'rfft', 'rfft2', 'rfftfreq', 'rfftn']

_NORMS = (None, 'backward', 'ortho', 'forward')

def _transform(name, kind, a, s, axes, norm):
    """The ``kind`` transform of ``a`` over ``axes`` (all of them, or the last ``len(s)``,
    by default), each cropped or zero-padded to its entry of ``s``. For IRFFT, ``s`` gives
    the output's lengths: the input's last axis gets ``s[-1] // 2 + 1`` points."""
    if norm not in _NORMS:
        raise ValueError(f'jnp.fft.{name}: norm must be "backward", "ortho" or "forward", '
                         f'got {norm!r}')
    a = jnp.asarray(a)
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n < 1 for n in s):
            raise ValueError(f'jnp.fft.{name}: the lengths s={s} must be positive')
        if axes is not None and len(s) != len(axes):
            raise ValueError(f'jnp.fft.{name}: s={s} and axes={tuple(axes)} have different '
                             'lengths')
    if axes is None:
        axes = range(a.ndim) if s is None else range(a.ndim - len(s), a.ndim)
    axes = tuple(core.canonicalize_axis(ax, a.ndim, f'jnp.fft.{name}: axis') for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f'jnp.fft.{name}: the axes {axes} repeat an axis')
    last = tuple(range(a.ndim - len(axes), a.ndim))
    x = jnp.moveaxis(a, axes, last)
    if s is None:
        s = tuple(x.shape[ax] for ax in last)
        if kind is lax.FftType.IRFFT and s:
            s = s[:-1] + (2 * (s[-1] - 1),)
    x = _fit(x, s[:-1] + (s[-1] // 2 + 1,) if kind is lax.FftType.IRFFT else s)
    out = _fft_in_groups(x, kind, s)
    if norm in ('ortho', 'forward'):
        out = out * _norm_scale(name, norm, s, out.dtype)
    return jnp.moveaxis(out, last, axes)


def _fit(x, lengths):
    """``x`` with its last ``len(lengths)`` axes cropped or zero-padded to ``lengths``."""
    shape = x.shape[:x.ndim - len(lengths)] + tuple(lengths)
    if any(m > n for m, n in zip(x.shape, shape)):
        x = x[tuple(slice(n) for n in shape)]
    if x.shape != shape:
        x = jnp.pad(x, [(0, n - m) for n, m in zip(shape, x.shape)])
    return x


def _fft_in_groups(x, kind, lengths):
    """``lax.fft`` over the trailing ``len(lengths)`` axes, at most ``MAX_AXES`` at a time. The
    last group gets ``kind``; the others get complex transforms in the same direction. A
    forward transform does the last group first, because RFFT makes the values complex; an
    inverse one does it last, because IRFFT makes them real."""
    if len(lengths) <= _MAX_AXES:
        return lax.fft(x, kind, lengths)
    outer = len(lengths) - _MAX_AXES
    forward = kind in (lax.FftType.FFT, lax.FftType.RFFT)
    direction = lax.FftType.FFT if forward else lax.FftType.IFFT
    where = tuple(range(x.ndim - len(lengths), x.ndim - _MAX_AXES))
    end = tuple(range(x.ndim - outer, x.ndim))

    def outer_axes(y):
        y = _fft_in_groups(jnp.moveaxis(y, where, end), direction, lengths[:outer])
        return jnp.moveaxis(y, end, where)

    if forward:
        return outer_axes(lax.fft(x, kind, lengths[outer:]))
    return lax.fft(outer_axes(x), kind, lengths[outer:])


def _norm_scale(name, norm, lengths, dtype):
    """What ``norm`` multiplies the result by (an inverse transform, named ``i...``, is
    already divided by the number of points)."""
    points = jnp.asarray(math.prod(lengths), dtype)
    scale = jnp.sqrt(points) if norm == 'ortho' else points
    return scale if name.startswith('i') else 1 / scale


def _one_axis(name, kind, a, n, axis, norm):
    if isinstance(axis, (list, tuple)):
        raise ValueError(f'jnp.fft.{name} transforms one axis, got axis={axis!r}: use '
                         f'jnp.fft.{name}n')
    if n is not None and operator.index(n) < 1:
        raise ValueError(f'jnp.fft.{name}: n must be positive, got {n}')
    return _transform(name, kind, a, None if n is None else (n,), (axis,), norm)


def _two_axes(name, kind, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f'jnp.fft.{name} transforms two axes, got axes={tuple(axes)}: use '
                         f'jnp.fft.{name[:-1]}n')
    return _transform(name, kind, a, s, axes, norm)


def fft(a, n=None, axis=-1, norm=None):
    """The discrete Fourier transform of ``a`` along ``axis`` (``n`` points)."""
    return _one_axis('fft', lax.FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of ``fft``."""
    return _one_axis('ifft', lax.FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The ``n // 2 + 1`` non-negative frequencies of the transform of real ``a``."""
    return _one_axis('rfft', lax.FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The ``n`` real points (``2 * (m - 1)`` by default) whose ``rfft`` is ``a``."""
    return _one_axis('irfft', lax.FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The transform of a signal with Hermitian symmetry, given by its first half ``a``: a
    real spectrum of ``n`` points (``2 * (m - 1)`` by default)."""
    a = jnp.asarray(a)
    points = n  # the default, 0 for one frequency, is irfft's: not an explicit n=0
    if isinstance(axis, int) and n is None:
        points = 2 * (a.shape[core.canonicalize_axis(axis, a.ndim)] - 1)
    return _one_axis('hfft', lax.FftType.IRFFT, jnp.conj(a), n, axis, norm) * points


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of ``hfft``: the first half of the Hermitian spectrum of real ``a``."""
    a = jnp.asarray(a)
    if isinstance(axis, int) and n is None:
        n = a.shape[core.canonicalize_axis(axis, a.ndim)]
    return jnp.conj(_one_axis('ihfft', lax.FftType.RFFT, a, n, axis, norm)) * (1 / n)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """``fftn`` over two axes (the last two by default)."""
    return _two_axes('fft2', lax.FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of ``fft2``."""
    return _two_axes('ifft2', lax.FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """``rfftn`` over two axes (the last two by default)."""
    return _two_axes('rfft2', lax.FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of ``rfft2``."""
    return _two_axes('irfft2', lax.FftType.IRFFT, a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    """The discrete Fourier transform over ``axes`` (all by default)."""
    return _transform('fftn', lax.FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """The inverse of ``fftn``."""
    return _transform('ifftn', lax.FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """``fftn`` of real ``a``, keeping the non-negative frequencies of the last axis."""
    return _transform('rfftn', lax.FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of ``rfftn``: real output of lengths ``s``."""
    return _transform('irfftn', lax.FftType.IRFFT, a, s, axes, norm)


def _sample_count(name, n, d):
    """``n`` as an int; JAX refuses a sequence for ``n`` or ``d``."""
    if isinstance(n, (list, tuple)) or isinstance(d, (list, tuple)):
        raise ValueError(f'jnp.fft.{name}: n must be an int and d a scalar, got n={n!r}, '
                         f'd={d!r}')
    return operator.index(n)


def _per_span(k, n, d, dtype):
    """The frequencies ``k`` in cycles per unit: the ``n`` samples span ``n * d`` units."""
    dtype = dtype or jnp.float64  # minijax's default float
    return jnp.asarray(k, dtype) / jnp.asarray(d * n, dtype)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The frequencies of ``fft``'s outputs for ``n`` samples ``d`` apart: ``0, 1, ..., -2,
    -1`` cycles per ``n * d`` (on ``device``)."""
    n = _sample_count('fftfreq', n, d)
    k = jnp.concatenate([jnp.arange(0, (n - 1) // 2 + 1), jnp.arange(-(n // 2), 0)])
    return jnp._placed(_per_span(k, n, d, dtype), device)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The frequencies of ``rfft``'s outputs for ``n`` samples ``d`` apart: ``0, 1, ...,
    n // 2`` cycles per ``n * d`` (on ``device``)."""
    n = _sample_count('rfftfreq', n, d)
    return jnp._placed(_per_span(jnp.arange(0, n // 2 + 1), n, d, dtype), device)


def _shift(x, axes, sign):
    x = jnp.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    shift = ([sign * (x.shape[ax] // 2) for ax in axes] if isinstance(axes, (list, tuple))
             else sign * (x.shape[axes] // 2))
    return jnp.roll(x, shift, axes)


def fftshift(x, axes=None):
    """``x`` rolled so that the zero frequency is in the middle of each of ``axes``."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift``."""
    return _shift(x, axes, -1)
