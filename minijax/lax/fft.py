"""``fft(x, fft_type, fft_lengths)``: discrete Fourier transforms over the trailing axes of
``x``, one per entry of ``fft_lengths`` (JAX's ``lax.fft``, StableHLO's ``fft``; XLA
transforms 1 to 3 axes at a time, ``jnp.fft`` splits longer ones).

There are four kinds (``FftType``):
- FFT and IFFT are complex to complex. IFFT divides by the number of points.
- RFFT takes real points to the ``n // 2 + 1`` non-negative frequencies of the last axis.
- IRFFT goes back from those frequencies to ``n`` real points. It reads the spectrum as
  Hermitian on the last axis, so it ignores the imaginary part of the zero frequency (and
  of the ``n // 2`` one when ``n`` is even).

Every kind is linear, so the JVP transforms the tangent. The transposes follow JAX's
convention, which never conjugates (see ``complex_numbers``):
- FFT and IFFT are their own transposes, because the DFT matrix is symmetric.
- RFFT's transpose zero-pads the cotangent to ``n`` points on the last axis, takes an FFT
  and keeps the real part (its input was real).
- IRFFT's transpose is ``conj(w * rfft(ct)) / N``. Here ``N`` is the product of
  ``fft_lengths``, and ``w`` is 2 on the frequencies whose mirror image IRFFT added and 1
  on the others.
"""
from __future__ import annotations

import enum
import functools
import math
import operator

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching, jvp as ad
from minijax.lax.complex_numbers import conj, real
from minijax.lax.elementwise import convert_element_type, mul
from minijax.lax.structural import broadcast_in_dim, full, pad
from minijax.lowering import register_lowering


class FftType(enum.IntEnum):
    """Which transform ``fft`` computes (JAX's ``lax.FftType``, with its values)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


fft_p = Primitive('fft', eager_on_xla=True)  # XLA decides its rounding: JAX's bits

#: The most axes XLA transforms in one ``fft`` op.
MAX_AXES = 3


def fft(x, fft_type: FftType | str, fft_lengths):
    """The ``fft_type`` transform of ``x`` over its last ``len(fft_lengths)`` axes, whose
    sizes are ``fft_lengths``; for IRFFT, ``fft_lengths`` are the output's sizes. ``x`` is
    first converted as JAX converts it, dropping a weak type: to a complex dtype for FFT,
    IFFT and IRFFT, to a float dtype for RFFT, which refuses complex input. An integer
    becomes float32 or complex64, unless it has 64 bits. Staged as a nested ``jit`` named
    ``fft``, as JAX stages it."""
    kind = _fft_type(fft_type)
    try:
        lengths = tuple(operator.index(n) for n in fft_lengths)
    except TypeError:
        raise TypeError(f'fft: fft_lengths must be a sequence of integers, got '
                        f'{fft_lengths!r}') from None
    return _staged_fft()(x, kind, lengths)


@functools.cache
def _staged_fft():
    """The transform under ``jit``, built on first use (``minijax.jit`` is a layer above)."""
    from minijax.jit import jit

    def fft(x, kind, lengths):  # (the name JAX's jaxprs and modules show)
        dtype = core.get_aval(x).dtype
        inexact = dtypes.FLOAT_OF.get(dtype, dtype)
        if kind is FftType.RFFT:
            if dtypes.is_complex(dtype):
                raise ValueError('fft: RFFT takes real input, got a complex operand of dtype '
                                 f'{dtype.name} (use FFT)')
            x = convert_element_type(x, inexact)
        else:
            x = convert_element_type(x, dtypes.COMPLEX_OF.get(inexact, inexact))
        return fft_p.bind(x, fft_type=kind, fft_lengths=lengths) if lengths else x
    return jit(fft, static_argnums=(1, 2))


def _fft_type(fft_type) -> FftType:
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str) and fft_type.upper() in FftType.__members__:
        return FftType[fft_type.upper()]
    raise ValueError(f"fft: unknown FFT type {fft_type!r}: one of lax.FftType or 'fft', "
                     "'ifft', 'rfft', 'irfft'")


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    d = len(fft_lengths)
    if not 1 <= d <= MAX_AXES:
        raise ValueError(f'fft: XLA transforms 1 to {MAX_AXES} axes at a time, got '
                         f'fft_lengths={fft_lengths}')
    if d > x.ndim:
        raise ValueError(f'fft: fft_lengths={fft_lengths} has more entries than the operand '
                         f'{x.str_short()} has axes')
    if min(fft_lengths) < 0:
        raise ValueError(f'fft: fft_lengths must not be negative, got {fft_lengths}')
    trailing = x.shape[-d:]
    if fft_type is FftType.RFFT:
        if x.dtype not in (dtypes.float32, dtypes.float64):
            raise ValueError(f'fft: RFFT takes a float32 or float64 operand, got {x.str_short()}')
        if fft_lengths[-1] == 0:
            raise ValueError(f'fft: RFFT of 0 points has no frequencies, got '
                             f'fft_lengths={fft_lengths}')
        expected = fft_lengths
        shape = x.shape[:-1] + (fft_lengths[-1] // 2 + 1,)
        dtype = dtypes.COMPLEX_OF[x.dtype]
    else:
        if not dtypes.is_complex(x.dtype):
            raise ValueError(f'fft: {fft_type.name} takes a complex64 or complex128 operand, '
                             f'got {x.str_short()}')
        if fft_type is FftType.IRFFT:
            expected = fft_lengths[:-1] + (_irfft_input_size(fft_lengths[-1], trailing[-1]),)
            shape, dtype = x.shape[:-d] + fft_lengths, dtypes.real_part_dtype(x.dtype)
        else:
            expected, shape, dtype = fft_lengths, x.shape, x.dtype
    if trailing != expected:
        raise ValueError(f'fft: {fft_type.name} with fft_lengths={fft_lengths} needs the '
                         f'operand\'s last axes to have sizes {expected}, got {x.str_short()}')
    return ShapedArray(shape, dtype)


def _irfft_input_size(n, size):
    """The last axis IRFFT takes to ``n`` points: the ``n // 2 + 1`` frequencies; to no
    points (``jnp.fft.irfft`` of one frequency asks for ``2 * (1 - 1)``) StableHLO also takes
    no frequencies, so 0 and 1 both fit."""
    return size if n == 0 and size in (0, 1) else n // 2 + 1


#: NumPy's transforms (pocketfft), which keep single precision: the reference (eager runs
#: go to XLA, see ``Primitive.eager_on_xla``; ``MINIJAX_EAGER=numpy`` runs these).
_NUMPY_FFTS = {FftType.FFT: np.fft.fftn, FftType.IFFT: np.fft.ifftn,
               FftType.RFFT: np.fft.rfftn, FftType.IRFFT: np.fft.irfftn}


def _fft_impl(x, *, fft_type, fft_lengths):
    x = np.asarray(x)
    if 0 in fft_lengths:  # NumPy refuses a transform to no points; there are no values
        out = _fft_abstract_eval(ShapedArray(x.shape, x.dtype), fft_type=fft_type,
                                 fft_lengths=fft_lengths)
        return np.zeros(out.shape, out.dtype)
    axes = tuple(range(-len(fft_lengths), 0))
    return _NUMPY_FFTS[fft_type](x, s=fft_lengths, axes=axes)


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    if 0 in fft_lengths:  # no output values: nothing flows back
        return [full(x.aval.shape, 0, x.aval.dtype)]
    if fft_type is FftType.RFFT:
        n = fft_lengths[-1]
        zero = np.zeros((), core.get_aval(ct).dtype)
        padding = [(0, 0, 0)] * (core.get_aval(ct).ndim - 1) + [(0, n - (n // 2 + 1), 0)]
        padded = pad(ct, zero, padding)
        return [real(fft_p.bind(padded, fft_type=FftType.FFT, fft_lengths=fft_lengths))]
    if fft_type is FftType.IRFFT:
        spectrum = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
        aval = core.get_aval(spectrum)
        weights = np.full(aval.shape[-1], 2 / math.prod(fft_lengths), aval.dtype)
        weights[0] /= 2  # the zero frequency has no mirror image, nor has n / 2 for an even n
        if fft_lengths[-1] % 2 == 0:
            weights[-1] /= 2
        weights = broadcast_in_dim(weights, aval.shape, (aval.ndim - 1,))
        return [conj(mul(spectrum, weights))]
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]


def _fft_batching(vals, dims, *, fft_type, fft_lengths):
    """The transformed axes are the trailing ones: the batch axis goes in front of them. As
    JAX's rule, it calls the function, which stages a nested ``jit`` named ``fft``."""
    (x,), (d,) = vals, dims
    return fft(batching.moveaxis(x, d, 0), fft_type, fft_lengths), 0


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
    return hlo.FftOp(x, hlo.FftTypeAttr.get(fft_type.name), list(fft_lengths)).result


def fft_flops(eqn):
    """As XLA's cost analysis counts: 8 flops (the 4 multiply-adds of a complex product) per
    element of the operand, times ``floor(log2(n))`` for each transformed length ``n``."""
    steps = math.prod(max(int(n).bit_length() - 1, 0) for n in eqn.params['fft_lengths'])
    return 8 * math.prod(eqn.inputs[0].aval.shape) * steps


fft_p.def_impl(_fft_impl)
fft_p.def_abstract_eval(_fft_abstract_eval)
ad.defjvp_linear(fft_p)
fft_p.def_transpose(_fft_transpose)
fft_p.def_batching(_fft_batching)
register_lowering(fft_p, _fft_lowering)
