"""Windowed reductions: reduce_window_sum, reduce_window_max and reduce_window_min (one
``stablehlo.reduce_window`` each, with an add, max or min body), which give sum, average and
max pooling; and the window geometry that ``convolution`` shares with them.

The geometry, per axis, as XLA defines it: the operand is *dilated* (``base_dilation - 1``
holes between neighbours), then *padded* (``padding = (low, high)``; negative crops), holes
and padding holding the reduction's identity. A window of ``window_dimensions`` elements,
each ``window_dilation`` apart, slides over the result ``window_strides`` at a time; each
output element reduces one window. The NumPy impls visit the window one *offset* at a time:
the elements at one offset of every window form a strided slice of the padded operand, so a
window reduction is a reduction over ``prod(window_dimensions)`` slices.
"""
from __future__ import annotations

import itertools
import operator

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import add, convert_element_type, div, eq, mul
from minijax.lax.elementwise import max as lax_max, max_p, min as lax_min, min_p
from minijax.lax.slicing import slice as lax_slice
from minijax.lax.static import static_ints
from minijax.lax.structural import full, pad, pad_p
from minijax.lowering import register_lowering
from minijax.lowering.ops import choose, full_like_aval
from minijax.lowering.ops import reduce_window as hlo_reduce_window

# ----------------------------------------------------------------------------- window geometry


def dilate_shape(shape, dilation):
    """The size of each axis with ``dilation - 1`` holes between neighbouring elements."""
    return tuple(0 if n == 0 else 1 + d * (n - 1) for n, d in zip(shape, dilation))


def window_output_shape(shape, window_dimensions, window_strides, padding, base_dilation,
                        window_dilation):
    """How many positions the window takes along each axis: the windows that fit whole."""
    padded = [n + lo + hi for n, (lo, hi) in zip(dilate_shape(shape, base_dilation), padding)]
    spans = dilate_shape(window_dimensions, window_dilation)
    return tuple(0 if p < w else (p - w) // s + 1
                 for p, w, s in zip(padded, spans, window_strides))


def padding_pairs(padding, fn, error):
    """Explicit ``padding`` as a tuple of (low, high) int pairs, or ``error`` (JAX's
    exception class for ``fn``) naming it."""
    try:
        pairs = tuple(tuple(operator.index(v) for v in pair) for pair in padding)
    except TypeError:
        pairs = None
    if pairs is None or any(len(pair) != 2 for pair in pairs):
        raise error(f"{fn}: padding must be 'SAME', 'SAME_LOWER', 'VALID' or a sequence of "
                    f'(low, high) integer pairs, got {padding!r}')
    return pairs


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """``padding`` as (low, high) pairs: 'VALID' pads nothing; 'SAME' pads so that the output
    has ``ceil(in / stride)`` positions, the odd element going high ('SAME_LOWER': low).
    The strides must be positive (checked by the caller)."""
    if not isinstance(padding, str):
        return padding
    kind = padding.upper()
    if kind == 'VALID':
        return ((0, 0),) * len(in_shape)
    if kind not in ('SAME', 'SAME_LOWER'):
        raise ValueError(f"padding must be 'SAME', 'SAME_LOWER', 'VALID' or (low, high) pairs, "
                         f'got {padding!r}')
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-n // s) - 1) * s + w - n, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == 'SAME' else (large, small))
    return tuple(pads)


def transpose_padding(in_shape, window_dimensions, window_strides, out_shape, padding,
                      base_dilation, window_dilation):
    """The padding that turns a windowed op into its transpose (for reduce_window_sum and
    the lhs of a convolution).

    Output position ``o`` read the padded, dilated input at ``o * stride + k * window_dilation``
    (window offset ``k``). So the cotangent, spread out to ``stride - 1`` holes between
    elements, must be padded low by ``span - 1 - low`` for a window sliding over it, now with
    stride ``base_dilation``, to meet at input element ``i`` exactly the outputs that read it
    (``span`` is the dilated window's extent); the high padding makes one position per input
    element."""
    spans = dilate_shape(window_dimensions, window_dilation)
    inputs = dilate_shape(in_shape, base_dilation)
    outputs = dilate_shape(out_shape, window_strides)
    pads = []
    for span, n_in, n_out, (lo, _) in zip(spans, inputs, outputs, padding):
        before = span - 1 - lo
        pads.append((before, n_in + span - 1 - n_out - before))
    return tuple(pads)


def window_offset_slice(offset, out_shape, window_strides, window_dilation):
    """(starts, limits, strides) of the slice of the padded operand that holds the element at
    window offset ``offset`` of every window."""
    starts = [k * d for k, d in zip(offset, window_dilation)]
    limits = [start + (o - 1) * s + 1 if o else start
              for start, o, s in zip(starts, out_shape, window_strides)]
    return starts, limits, list(window_strides)


def window_offsets(window_dimensions):
    """Every offset inside a window, in row-major order."""
    return itertools.product(*[range(w) for w in window_dimensions])


def dilate_and_pad(x, fill, base_dilation, padding):
    """NumPy: ``x`` dilated and padded (both with ``fill``) as a window sees it."""
    config = tuple((lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation))
    return core.impl_rules[pad_p](x, np.asarray(fill, x.dtype), padding_config=config)


def check_window_params(name, operand, *, window_dimensions, window_strides, padding,
                        base_dilation, window_dilation):
    """A TypeError (JAX's) naming ``name`` and the operand unless each parameter has one
    positive entry (one pair, for padding) per axis; ``padding`` None is not checked yet."""
    rank = len(operand.shape)
    positive = [window_dimensions, window_strides, base_dilation, window_dilation]
    if any(len(p) != rank for p in positive) or any(v < 1 for p in positive for v in p):
        raise TypeError(f'{name}: window_dimensions={window_dimensions}, window_strides='
                        f'{window_strides}, base_dilation={base_dilation} and window_dilation='
                        f'{window_dilation} must each have one positive entry per axis of '
                        f'{operand.str_short()}')
    if padding is not None and len(padding) != rank:
        raise TypeError(f'{name}: padding={padding} must have one (low, high) pair per axis '
                        f'of {operand.str_short()}')


# ----------------------------------------------------------------------------- the primitives

def _reduce_window_primitive(name, np_combine, body, identity, eager_on_xla=False):
    """Define the window reduction ``name``, combining with ``np_combine`` (NumPy) and
    ``body(a, b, dtype)`` (StableHLO) from ``identity(dtype)``; the caller adds its
    derivatives. ``eager_on_xla`` for sums, as in ``reduction_primitive``."""
    prim = Primitive(name, eager_on_xla=eager_on_xla)

    @dtypes.accumulates_in_float32
    def impl(x, **params):
        x = np.asarray(x)
        out_shape = window_output_shape(x.shape, **params)
        padded = dilate_and_pad(x, identity(x.dtype), params['base_dilation'], params['padding'])
        out = np.full(out_shape, identity(x.dtype), x.dtype)
        for offset in window_offsets(params['window_dimensions']):
            starts, limits, strides = window_offset_slice(
                offset, out_shape, params['window_strides'], params['window_dilation'])
            out = np_combine(out, padded[tuple(map(slice, starts, limits, strides))])
        return out.astype(x.dtype)

    def abstract_eval(x, **params):
        check_window_params(name, x, **params)
        return ShapedArray(window_output_shape(x.shape, **params), x.dtype, x.weak_type)

    def batching(vals, dims, **params):
        """The batch axis is one more axis with a window of one element."""
        (x,), (bdim,) = vals, dims
        unit = {'window_dimensions': 1, 'window_strides': 1, 'padding': (0, 0),
                'base_dilation': 1, 'window_dilation': 1}
        params = {k: (*v[:bdim], unit[k], *v[bdim:]) for k, v in params.items()}
        return prim.bind(x, **params), bdim

    def lowering(ctx, x, **params):
        """A ``reduce_window`` from the identity, filled in as JAX writes it."""
        dtype = ctx.avals_in[0].dtype
        init = full_like_aval(identity(dtype), ShapedArray((), dtype))
        return hlo_reduce_window(ctx, x, init, lambda a, b: body(a, b, dtype),
                                 **params)

    prim.def_impl(impl)
    prim.def_abstract_eval(abstract_eval)
    prim.def_batching(batching)
    register_lowering(prim, lowering)
    return prim


def _add(a, b):
    return a + b


def _chooser(primitive, direction):
    """``lax.max`` or ``lax.min`` (NumPy and StableHLO) as a window's combiner: complex
    numbers in JAX's order, real parts first."""
    return (core.impl_rules[primitive],
            lambda a, b, dtype: choose(a, b, direction, dtype))


reduce_window_sum_p = _reduce_window_primitive(
    'reduce_window_sum', _add, lambda a, b, dtype: hlo.AddOp(a, b).result,
    lambda dtype: 0, eager_on_xla=True)
# A complex NaN wins or loses by its place in XLA's order of comparisons: XLA runs complex
# windows eagerly.
reduce_window_max_p = _reduce_window_primitive(
    'reduce_window_max', *_chooser(max_p, 'GT'), dtypes.lowest,
    eager_on_xla=dtypes.complex_operand)
reduce_window_min_p = _reduce_window_primitive(
    'reduce_window_min', *_chooser(min_p, 'LT'), dtypes.highest,
    eager_on_xla=dtypes.complex_operand)

# ----------------------------------------------------------------------------- derivatives


def _reduce_window_sum_transpose(ct, x, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    """Each input element gets the sum of the cotangents of the windows that held it: spread
    the cotangent out by the strides, pad it (``transpose_padding``) and sum windows again,
    stepping by the base dilation."""
    rank = len(window_dimensions)
    ct_shape = core.get_aval(ct).shape
    pads = transpose_padding(x.aval.shape, window_dimensions, window_strides, ct_shape,
                             padding, base_dilation, window_dilation)
    spread = pad(ct, np.zeros((), core.get_aval(ct).dtype),
                 [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides)])
    return [reduce_window_sum_p.bind(spread, window_dimensions=window_dimensions,
                                     window_strides=base_dilation, padding=((0, 0),) * rank,
                                     base_dilation=(1,) * rank, window_dilation=window_dilation)]


ad.defjvp_linear(reduce_window_sum_p)
reduce_window_sum_p.def_transpose(_reduce_window_sum_transpose)


def _reduce_window_chooser_jvp(prim, identity):
    """The tangent of a window max (min) is the mean of the tangents at the places of the
    window that attain it, as for ``reduce_max``. Written window offset by window offset
    with slices, so the tangent is linear in ``t`` through ops that already transpose (XLA
    would use select_and_scatter); it matches JAX except at ties, where JAX picks one."""
    def partial(t, x, **params):
        ans = prim.bind(x, **params)
        x_aval, t_dtype = core.get_aval(x), core.get_aval(t).dtype
        out_shape = core.get_aval(ans).shape
        if 0 in out_shape:  # no window: no offset to slice, nothing to choose
            return full(out_shape, 0, t_dtype)
        config = [(lo, hi, d - 1) for (lo, hi), d in zip(params['padding'],
                                                          params['base_dilation'])]
        x_padded = pad(x, np.asarray(identity(x_aval.dtype), x_aval.dtype), config)
        t_padded = pad(t, np.zeros((), t_dtype), config)
        hits, total = full(out_shape, 0, t_dtype), full(out_shape, 0, t_dtype)
        for offset in window_offsets(params['window_dimensions']):
            bounds = window_offset_slice(offset, out_shape, params['window_strides'],
                                         params['window_dilation'])
            hit = convert_element_type(eq(lax_slice(x_padded, *bounds), ans), t_dtype)
            hits = add(hits, hit)
            total = add(total, mul(hit, lax_slice(t_padded, *bounds)))
        return div(total, hits)
    ad.defjvp(prim, partial)


_reduce_window_chooser_jvp(reduce_window_max_p, dtypes.lowest)
_reduce_window_chooser_jvp(reduce_window_min_p, dtypes.highest)

# ----------------------------------------------------------------------------- lax.reduce_window

#: The computations ``reduce_window`` knows: the primitive and the identity the init value
#: must be.
_MONOIDS = {add: (reduce_window_sum_p, lambda dtype: 0),
            lax_max: (reduce_window_max_p, dtypes.lowest),
            lax_min: (reduce_window_min_p, dtypes.highest)}


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding='VALID', base_dilation=None, window_dilation=None):
    """Reduce each window of ``operand`` with ``computation`` (``lax.add``, ``lax.max`` or
    ``lax.min``) starting from ``init_value``, which must be that computation's identity
    (0, -inf or the lowest integer, +inf or the highest). ``padding`` is 'VALID', 'SAME',
    'SAME_LOWER' or one (low, high) pair per axis."""
    rank = np.ndim(operand)
    dtype = core.get_aval(operand).dtype
    name = getattr(computation, '__name__', repr(computation))
    if computation not in _MONOIDS:
        raise NotImplementedError(f'reduce_window: computation {name} is not supported (only '
                                  'lax.add, lax.max and lax.min)')
    prim, identity = _MONOIDS[computation]
    _check_init_value(init_value, dtype)
    if not _is_identity(init_value, identity(dtype)):
        raise NotImplementedError(f'reduce_window: init_value {init_value!r} must be the '
                                  f'identity of {name} for {dtype}, {identity(dtype)}')
    window = {what: static_ints((1,) * rank if values is None else values, 'reduce_window', what)
              for what, values in [('window_dimensions', window_dimensions),
                                   ('window_strides', window_strides),
                                   ('base_dilation', base_dilation),
                                   ('window_dilation', window_dilation)]}
    check_window_params(prim.name, core.get_aval(operand), padding=None, **window)
    if not isinstance(padding, str):
        padding = padding_pairs(padding, 'reduce_window', TypeError)
    padding = padtype_to_pads(np.shape(operand), dilate_shape(window['window_dimensions'],
                                                              window['window_dilation']),
                              window['window_strides'], padding)
    return prim.bind(operand, padding=padding, **window)


def _check_init_value(init_value, dtype):
    """JAX's TypeError unless ``init_value`` is a scalar (an array of identities would
    otherwise pass as the identity)."""
    aval = core.get_aval(init_value)
    if aval.ndim:
        raise TypeError(f'reduce_window: init_value must be a scalar, got {aval.str_short()} '
                        f'for an operand of dtype {dtype}')


def _is_identity(init_value, identity):
    """Whether ``init_value`` is a concrete value equal to ``identity`` (a traced one is not
    known to be)."""
    if isinstance(init_value, core.Tracer):
        return False
    return bool(np.all(np.asarray(init_value) == identity))
