"""``jax.scipy.signal``'s spectral analysis: ``detrend``, the short-time Fourier transform
(``stft``, ``istft``) and the averaged periodograms (``csd``, ``welch``), written as JAX
writes them: segments cut by a vmapped ``dynamic_slice``, one batched FFT, overlap-add by
reshapes.

Windows other than 'hann' come from ``scipy.signal.get_window`` (as in JAX, SciPy must then
be installed), or are given as an array.
"""
from __future__ import annotations

import math
import operator
import warnings
from functools import partial

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as jnp
from minijax.interpreters.batching import vmap
from minijax.numpy import _promote_inexact
from minijax.numpy import fft as jnp_fft
from minijax.numpy import linalg

__all__ = ['csd', 'detrend', 'istft', 'stft', 'welch']


def detrend(data, axis=-1, type='linear', bp=0, overwrite_data=None):  # noqa: A002
    """``data`` less its mean (``type='constant'``) or less its least-squares line on each
    piece between the breakpoints ``bp``."""
    if overwrite_data is not None:
        raise NotImplementedError('overwrite_data argument not implemented.')
    if type not in ('constant', 'linear'):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data, = _promote_inexact(jnp.asarray(data))
    if type == 'constant':
        return data - data.mean(axis, keepdims=True)
    n = data.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError('Breakpoints must be non-negative and less than length of data along '
                         'given axis.')
    data = jnp.moveaxis(data, axis, 0)
    shape = data.shape
    data = data.reshape(n, -1)
    for start, stop in zip(breaks[:-1], breaks[1:]):
        points = stop - start
        design = jnp.vstack([jnp.ones(points, dtype=data.dtype),
                             jnp.arange(1, points + 1, dtype=data.dtype)
                             / points.astype(data.dtype)]).T
        piece = slice(start, stop)
        coef, *_ = linalg.lstsq(design, data[piece])
        data = data.at[piece].add(-lax.dot(design, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(data.reshape(shape), 0, axis)


def _hann(n):
    return jnp.array([1.0]) if n == 1 else jnp.sin(jnp.linspace(0, np.pi, n,
                                                                endpoint=False)) ** 2


def _named_window(window, n):
    if isinstance(window, str) and window == 'hann':
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f'scipy must be available to use window={window!r}') from err
    return get_window(window, n)


def _window(window, nperseg, input_length, dtype):
    """``(window, nperseg)``: a named window of ``nperseg`` samples (at most the input's), or
    an array checked against it."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f'nperseg={n} is greater than input_length={input_length}, using '
                          f'nperseg={input_length}')
            n = input_length
        return jnp.array(_named_window(window, n), dtype=dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError('window must be 1-D')
    if input_length < win.size:
        raise ValueError('window is longer than input signal')
    if n != win.size:
        raise ValueError('value specified for nperseg is different from length of window')
    return win, n


def _segment_spectra(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    """The FFTs of the windowed, detrended segments of ``x``'s last axis: ``[..., segments,
    frequencies]``."""
    if x.dtype.kind == 'i':
        x = x.astype(win.dtype)
    *batch, length = x.shape
    if nperseg == 1 and noverlap == 0:
        segments = x[..., np.newaxis]
    else:
        starts = jnp.arange(length - nperseg + 1, step=nperseg - noverlap)
        segments = vmap(lambda s: lax.dynamic_slice_in_dim(x, s, nperseg, axis=-1),
                        out_axes=-2)(starts)
    segments = detrend_func(segments)
    if jnp.iscomplexobj(win):
        segments = segments.astype(dtypes.COMPLEX_OF.get(segments.dtype, segments.dtype))
    segments = win.reshape((1,) * len(batch) + (1, nperseg)) * segments
    if sides == 'twosided':
        return jnp_fft.fft(segments, n=nfft)
    return jnp_fft.rfft(segments.real, n=nfft)


def _odd_extension(x, n, axis=-1):
    """``x`` extended by ``n`` samples at each end, reflected through the end points."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f'The extension length n ({n}) is too big. It must not exceed '
                         f'x.shape[axis]-1, which is {x.shape[axis] - 1}.')
    left, right = lax.slice_in_dim(x, 0, 1, axis=axis), lax.slice_in_dim(x, -1, None, axis=axis)
    left_ext = jnp.flip(lax.slice_in_dim(x, 1, n + 1, axis=axis), axis=axis)
    right_ext = jnp.flip(lax.slice_in_dim(x, -(n + 1), -1, axis=axis), axis=axis)
    return jnp.concatenate((2 * left - left_ext, x, 2 * right - right_ext), axis=axis)


def _even_extension(x, n, axis=-1):
    """``x`` extended by ``n`` samples at each end, mirrored about the end points
    (``jnp.pad``'s 'reflect')."""
    if n < 1:
        return x
    left = jnp.flip(lax.slice_in_dim(x, 1, n + 1, axis=axis), axis=axis)
    right = jnp.flip(lax.slice_in_dim(x, -(n + 1), -1, axis=axis), axis=axis)
    return jnp.concatenate((left, x, right), axis=axis)


def _edge_extension(x, n, axis=-1):
    """``x`` extended by ``n`` copies of each end sample (``jnp.pad``'s 'edge')."""
    left, right = lax.slice_in_dim(x, 0, 1, axis=axis), lax.slice_in_dim(x, -1, None, axis=axis)
    return jnp.concatenate((jnp.repeat(left, n, axis=axis), x,
                            jnp.repeat(right, n, axis=axis)), axis=axis)


def _zeros_extension(x, n, axis=-1):
    widths = [(0, 0)] * x.ndim
    widths[axis] = (n, n)
    return jnp.pad(x, widths)


#: stft's ``boundary`` -> how the signal is extended by half a segment at each end
_BOUNDARIES = {'even': _even_extension, 'odd': _odd_extension, 'constant': _edge_extension,
               'zeros': _zeros_extension, None: lambda x, *args, **kwargs: x}


def _static_int(value, what):
    return core.static_int(value, what)


def _pad_end(x, extra):
    return jnp.concatenate((x, jnp.zeros((*x.shape[:-1], extra), x.dtype)), -1)


def _detrend_function(detrend_type, axis):
    if isinstance(detrend_type, str):
        return partial(detrend, type=detrend_type, axis=-1)
    if callable(detrend_type):
        if axis == -1:
            return detrend_type
        return lambda d: jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
    if not detrend_type:
        return lambda d: d
    raise ValueError(f'Unsupported detrend type: {detrend_type}')


def _spectral(x, y, fs=1.0, window='hann', nperseg=None, noverlap=None, nfft=None,
              detrend_type='constant', return_onesided=True, scaling='density', axis=-1,
              mode='psd', boundary=None, padded=False):
    """``(frequencies, times, result)``: the STFT of ``x`` (``mode='stft'``), or the
    periodograms of ``x`` (or the cross spectra of ``x`` and ``y``) per segment."""
    if mode not in ('psd', 'stft'):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f'{list(_BOUNDARIES)}')
    axis = operator.index(axis)
    if y is None:
        x, = _promote_inexact(x)
        axis = core.canonicalize_axis(axis, x.ndim, 'axis')
        outer = x.shape[:axis] + x.shape[axis + 1:]
    else:
        if mode != 'psd':
            raise ValueError("two-argument mode is available only when mode=='psd'")
        x, y = _promote_inexact(x, y)
        if x.ndim != y.ndim:
            raise ValueError(f'two-arguments must have the same rank ({x.ndim} vs {y.ndim}).')
        axis = core.canonicalize_axis(axis, x.ndim, 'axis')
        try:
            outer = jnp.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                         y.shape[:axis] + y.shape[axis + 1:])
        except ValueError as err:
            raise ValueError('x and y cannot be broadcast together.') from err
    result_dtype = dtypes.COMPLEX_OF.get(x.dtype, x.dtype)
    freq_dtype = dtypes.COMPLEX_PARTS[result_dtype]
    if nperseg is not None:
        nperseg = _static_int(nperseg, 'nperseg of windowed-FFT')
        if nperseg < 1:
            raise ValueError('nperseg must be a positive integer')
    win, nperseg = _window(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else _static_int(noverlap, 'noverlap')
    nfft = nperseg if nfft is None else _static_int(nfft, 'nfft of windowed-FFT')
    if x.size == 0 or (y is not None and y.size == 0):
        shape = x.shape if y is None else (
            outer[:axis] + (min(x.shape[axis], y.shape[axis]),) + outer[axis:])
        return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
                jnp.zeros(shape, result_dtype))
    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        if y.ndim > 1:
            y = jnp.moveaxis(y, axis, -1)
        if x.shape[-1] < y.shape[-1]:
            x = _pad_end(x, y.shape[-1] - x.shape[-1])
        elif y.shape[-1] < x.shape[-1]:
            y = _pad_end(y, x.shape[-1] - y.shape[-1])
    if nfft < nperseg:
        raise ValueError('nfft must be greater than or equal to nperseg.')
    if noverlap >= nperseg:
        raise ValueError('noverlap must be less than nperseg.')
    step = nperseg - noverlap
    signals = [x] if y is None else [x, y]
    if boundary is not None:
        signals = [_BOUNDARIES[boundary](s, nperseg // 2, axis=-1) for s in signals]
    if padded:
        extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
        signals = [_pad_end(s, extra) for s in signals]
    detrend_func = _detrend_function(detrend_type, axis)
    if scaling == 'density':
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == 'spectrum':
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f'Unknown scaling: {scaling}')
    if mode == 'stft':
        scale = jnp.sqrt(scale)
    scale = jnp.asarray(scale).astype(dtypes.COMPLEX_OF.get(jnp.asarray(scale).dtype,
                                                            jnp.asarray(scale).dtype))
    sides = 'onesided' if return_onesided else 'twosided'
    if return_onesided and any(jnp.iscomplexobj(s) for s in signals):
        sides = 'twosided'
        warnings.warn('Input data is complex, switching to return_onesided=False')
    frequencies = (jnp_fft.fftfreq if sides == 'twosided' else jnp_fft.rfftfreq)(
        nfft, 1 / fs, dtype=freq_dtype)
    spectra = [_segment_spectra(s, win, detrend_func, nperseg, noverlap, nfft, sides)
               for s in signals]
    if y is not None:
        result = jnp.conjugate(spectra[0]) * spectra[1]
    elif mode == 'psd':
        result = jnp.conjugate(spectra[0]) * spectra[0]
    else:
        result = spectra[0]
    result = result * scale
    if sides == 'onesided' and mode == 'psd':
        result = result.at[..., 1:None if nfft % 2 else -1].mul(2)
    length = signals[0].shape[-1]
    time = jnp.arange(nperseg / 2, length - nperseg / 2 + 1, nperseg - noverlap,
                      dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != 'stft':
        result = result.real
    return frequencies, time, jnp.moveaxis(result, -1, axis)


def stft(x, fs=1.0, window='hann', nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary='zeros', padded=True, axis=-1):
    """``(f, t, Zxx)``: the short-time Fourier transform of ``x`` along ``axis``."""
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     scaling='spectrum', axis=axis, mode='stft', boundary=boundary,
                     padded=padded)


def _median_bias(n):
    ii_2 = jnp.arange(2., n, 2)
    return 1 + jnp.sum(1. / (ii_2 + 1) - 1. / ii_2)


def csd(x, y, fs=1.0, window='hann', nperseg=None, noverlap=None, nfft=None,
        detrend='constant', return_onesided=True, scaling='density', axis=-1, average='mean'):
    """``(f, Pxy)``: the cross power spectral density of ``x`` and ``y`` (Welch's method:
    the segments' cross spectra, averaged by mean or median)."""
    frequencies, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                                    return_onesided, scaling, axis, mode='psd')
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == 'median':
                bias = _median_bias(pxy.shape[-1]).astype(pxy.dtype)
                if jnp.iscomplexobj(pxy):
                    pxy = (jnp.median(jnp.real(pxy), axis=-1)
                           + 1j * jnp.median(jnp.imag(pxy), axis=-1))
                else:
                    pxy = jnp.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == 'mean':
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return frequencies, pxy


def welch(x, fs=1.0, window='hann', nperseg=None, noverlap=None, nfft=None,
          detrend='constant', return_onesided=True, scaling='density', axis=-1,
          average='mean'):
    """``(f, Pxx)``: the power spectral density of ``x`` by Welch's method."""
    frequencies, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                           nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                           scaling=scaling, axis=axis, average=average)
    return frequencies, pxx.real


def _overlap_and_add(x, step):
    """The frames ``[..., frames, length]`` summed at offsets of ``step``: each frame cut into
    ``step``-long pieces, the pieces shifted by reshapes and summed."""
    if x.ndim < 2:
        raise ValueError('Input must have (..., frames, frame_length) shape.')
    *batch, frames, length = x.shape
    flat = math.prod(batch)
    x = x.reshape((flat, frames, length))
    output_size = step * (frames - 1) + length
    pieces = 1 + (length - 1) // step
    x = jnp.pad(x, ((0, 0), (0, 0), (0, pieces * step - length)))
    x = x.reshape((flat, frames, pieces, step)).transpose((0, 2, 1, 3))
    x = jnp.pad(x, ((0, 0), (0, 0), (0, frames), (0, 0)))
    shrunken = x.shape[2] - 1
    x = x.reshape((flat, -1))[:, :pieces * shrunken * step]
    x = x.reshape((flat, pieces, shrunken * step)).sum(axis=1)[:, :output_size]
    return x.reshape(tuple(batch) + (-1,))


def istft(Zxx, fs=1.0, window='hann', nperseg=None, noverlap=None, nfft=None,  # noqa: N803
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """``(t, x)``: the signal whose ``stft`` is ``Zxx``, by inverse FFTs and weighted
    overlap-add."""
    z = jnp.asarray(Zxx)
    if z.ndim < 2:
        raise ValueError('Input stft must be at least 2d!')
    freq_axis = core.canonicalize_axis(freq_axis, z.ndim, 'freq_axis')
    time_axis = core.canonicalize_axis(time_axis, z.ndim, 'time_axis')
    if freq_axis == time_axis:
        raise ValueError('Must specify differing time and frequency axes!')
    z = jnp.asarray(z, dtype=dtypes.COMPLEX_OF.get(z.dtype, z.dtype))
    n_default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    nperseg = _static_int(nperseg or n_default, 'nperseg: segment length of STFT')
    if nperseg < 1:
        raise ValueError('nperseg must be a positive integer')
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft_int = _static_int(nfft, 'nfft of STFT')
    if nfft_int < nperseg:
        raise ValueError(f'FFT length ({nfft_int}) must be longer than nperseg ({nperseg}).')
    noverlap = _static_int(noverlap or nperseg // 2, 'noverlap of STFT')
    if noverlap >= nperseg:
        raise ValueError('noverlap must be less than nperseg.')
    if time_axis != z.ndim - 1 or freq_axis != z.ndim - 2:
        outer = tuple(i for i in range(z.ndim) if i not in {time_axis, freq_axis})
        z = jnp.transpose(z, outer + (freq_axis, time_axis))
    inverse = jnp_fft.irfft if input_onesided else jnp_fft.ifft
    segments = inverse(z, axis=-2, n=nfft)[..., :nperseg, :]
    if isinstance(window, (str, tuple)):
        win = jnp.array(_named_window(window, nperseg)).astype(segments.dtype)
    else:
        win = jnp.asarray(window)
        if len(win.shape) != 1:
            raise ValueError('window must be 1-D')
        if win.shape[0] != nperseg:
            raise ValueError(f'window must have length of {nperseg}')
    segments = segments * win.sum()  # (the 'spectrum' scaling)
    win = lax.expand_dims(win, (*range(segments.ndim - 2), -1))
    x = _overlap_and_add((segments * win).swapaxes(-2, -1), nperseg - noverlap)
    norm = _overlap_and_add(jnp.repeat(win * win, segments.shape[-1], axis=-1)
                            .swapaxes(-2, -1), nperseg - noverlap)
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[..., nperseg // 2:-(nperseg // 2)]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != z.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    time = jnp.arange(x.shape[0], dtype=dtypes.COMPLEX_PARTS.get(x.dtype, x.dtype)) / fs
    return time, x
