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
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, tree_util
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import move_batch_axis, not_mapped, vmap
from minijax.ir.jaxpr import ClosedJaxpr, jaxpr_as_fun
from minijax.lax.bitwise import bitwise_or
from minijax.lax.elementwise import add, ge_p, le_p, select
from minijax.lax.elementwise import max as lax_max, max_p, min as lax_min, min_p
from minijax.lax.reductions import (
    computation_jaxpr, flatten_operands_and_inits, is_identity, trace_computation)
from minijax.lax.slicing import slice as lax_slice
from minijax.lax.static import static_ints
from minijax.lax.structural import pad, pad_p
from minijax.lowering import (append_block, lower_closed_jaxpr, lower_fun, register_lowering,
                              tensor_type)
from minijax.lowering.ops import choose, full_like_aval
from minijax.lowering.ops import reduce_window as hlo_reduce_window, reduce_windows

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

def _window_params(params):
    """The window geometry among a primitive's parameters."""
    return {k: params[k] for k in ('window_dimensions', 'window_strides', 'padding',
                                   'base_dilation', 'window_dilation')}


def fold_windows(operands, inits, combine, *, window_dimensions, window_strides, padding,
                 base_dilation, window_dilation):
    """NumPy: the windows of ``operands`` (dilated and padded with their ``inits``), each
    folded from the inits one window offset at a time, in row-major order, by
    ``combine(accumulated, elements) -> accumulated`` (lists, one array per operand)."""
    out_shape = window_output_shape(operands[0].shape, window_dimensions, window_strides,
                                    padding, base_dilation, window_dilation)
    padded = [dilate_and_pad(x, i, base_dilation, padding) for x, i in zip(operands, inits)]
    accs = [np.full(out_shape, i, x.dtype) for x, i in zip(operands, inits)]
    for offset in window_offsets(window_dimensions):
        starts, limits, strides = window_offset_slice(offset, out_shape, window_strides,
                                                      window_dilation)
        window = tuple(map(slice, starts, limits, strides))
        accs = combine(accs, [x[window] for x in padded])
    return accs


def _reduce_window_primitive(name, np_combine, body, identity, eager_on_xla=False):
    """Define the window reduction ``name``, combining with ``np_combine`` (NumPy) and
    ``body(a, b, dtype)`` (StableHLO) from ``identity(dtype)``; the caller adds its
    derivatives. ``eager_on_xla`` for sums, as in ``reduction_primitive``."""
    prim = Primitive(name, eager_on_xla=eager_on_xla)

    @dtypes.accumulates_in_float32
    def impl(x, **params):
        x = np.asarray(x)
        [out] = fold_windows([x], [identity(x.dtype)],
                             lambda accs, elems: [np_combine(accs[0], elems[0])], **params)
        return out.astype(x.dtype)

    def abstract_eval(x, **params):
        check_window_params(name, x, **params)
        return ShapedArray(window_output_shape(x.shape, **params), x.dtype, x.weak_type)

    def batching(vals, dims, **params):
        """The batch axis is one more axis with a window of one element."""
        (x,), (bdim,) = vals, dims
        return prim.bind(x, **_unit_window_axis(params, bdim)), bdim

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


def _unit_window_axis(params, axis=0):
    """The window parameters with one more axis at ``axis``: a window of one element."""
    unit = {'window_dimensions': 1, 'window_strides': 1, 'padding': (0, 0),
            'base_dilation': 1, 'window_dilation': 1}
    return {k: (*v[:axis], unit[k], *v[axis:]) if k in unit else v for k, v in params.items()}


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

# ----------------------------------------------------------------------------- reduce_window_p

#: The window reduction of any computation, held as a jaxpr (and its constants), of any
#: number of operands: ``stablehlo.reduce_window`` with that body.
reduce_window_p = Primitive('reduce_window', multiple_results=True, eager_on_xla=True)


def _split_operands(args):
    """(operands, init values): a general window reduction's arguments, half and half."""
    return args[:len(args) // 2], args[len(args) // 2:]


def _reduce_window_abstract_eval(*avals, jaxpr, consts, **window):
    operands, inits = _split_operands(avals)
    if any(o.dtype != i.dtype for o, i in zip(operands, inits)):  # (JAX's texts)
        raise TypeError('reduce_window got inconsistent dtypes for operands and init_values: '
                        f'got operand dtypes {[o.dtype for o in operands]} and init_value '
                        f'dtypes {[i.dtype for i in inits]}.')
    if any(i.shape for i in inits):
        raise TypeError('reduce_window expected init_values to be scalars but init_values have '
                        f'shapes {[i.shape for i in inits]}.')
    if len({o.shape for o in operands}) > 1:
        raise ValueError(f'reduce_window: the operands must have one shape, got '
                         f'{[o.str_short() for o in operands]}')
    check_window_params('reduce_window', operands[0], **window)
    if [(a.shape, a.dtype) for a in jaxpr.out_avals] != [((), i.dtype) for i in inits]:
        raise ValueError(f'reduce_window: the computation returns '
                         f'{[a.str_short() for a in jaxpr.out_avals]}, expected one scalar per '
                         f"operand of the initial values' types {[i.str_short() for i in inits]}")
    shape = window_output_shape(operands[0].shape, **window)
    return [ShapedArray(shape, o.dtype) for o in operands]


def _reduce_window_impl(*args, jaxpr, consts, **window):
    """Each window folded by the computation, vectorized over the windows."""
    operands, inits = _split_operands([np.asarray(a) for a in args])
    fold = vmap(jaxpr_as_fun(ClosedJaxpr(jaxpr, list(consts))))

    def combine(accs, elems):
        if not accs[0].size:
            return accs
        outs = fold(*(x.reshape(-1) for x in (*accs, *elems)))
        return [np.asarray(o).reshape(accs[0].shape) for o in outs]
    return fold_windows(operands, inits, combine, **window)


def _bind_reduce_window(operands, inits, closed, window):
    return reduce_window_p.bind(*operands, *inits, jaxpr=closed.jaxpr,
                                consts=tuple(closed.consts), **window)


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, **window):
    """JAX's rule: one window reduction of the primals and the tangents together, whose
    computation is the JVP of the original one."""
    operands, inits = _split_operands(primals)
    t_operands, t_inits = _split_operands(tangents)
    if any(not isinstance(t, ad.Zero) for t in t_inits):
        raise TypeError('reduce_window jvp does not support non-zero init_value_tangent.')
    n = len(operands)
    jvp_closed, _ = ad.jvp_jaxpr(ClosedJaxpr(jaxpr, list(consts)), (True,) * (2 * n),
                                 (True,) * n)

    def computation(left, right):
        return jaxpr_as_fun(jvp_closed)(*left[:n], *right[:n], *left[n:], *right[n:])
    flat_inits = [*inits, *map(ad.instantiate, t_inits)]
    closed, _ = trace_computation(
        computation, tuple(core.raise_to_shaped(core.get_aval(x)) for x in flat_inits),
        tree_util.tree_structure(flat_inits))
    outs = _bind_reduce_window([*operands, *map(ad.instantiate, t_operands)], flat_inits,
                               closed, window)
    return outs[:n], outs[n:]


def _reduce_window_batching(vals, dims, *, jaxpr, consts, **window):
    """The batch axis moved to the front of each operand, with a window of one element."""
    operands, inits = _split_operands(vals)
    operand_dims, init_dims = _split_operands(dims)
    if any(d is not not_mapped for d in init_dims):
        raise NotImplementedError('reduce_window batching is not implemented for initial '
                                  'values')  # (JAX's text)
    size = next(core.get_aval(x).shape[d] for x, d in zip(operands, operand_dims)
                if d is not not_mapped)
    operands = [move_batch_axis(size, d, 0, x) for x, d in zip(operands, operand_dims)]
    outs = reduce_window_p.bind(*operands, *inits, jaxpr=jaxpr, consts=consts,
                                **_unit_window_axis(window))
    return outs, [0] * len(outs)


def _reduce_window_lowering(ctx, *args, jaxpr, consts, **window):
    """``stablehlo.reduce_window`` whose body is the computation's jaxpr."""
    operands, inits = _split_operands(args)
    closed = ClosedJaxpr(jaxpr, list(consts))
    return reduce_windows(ctx, operands, inits,
                          lambda *xs: lower_closed_jaxpr(ctx.module_context, closed, list(xs)),
                          **window)


reduce_window_p.def_impl(_reduce_window_impl)
reduce_window_p.def_abstract_eval(_reduce_window_abstract_eval)
reduce_window_p.def_jvp(_reduce_window_jvp, symbolic_zeros=True)
reduce_window_p.def_batching(_reduce_window_batching)
register_lowering(reduce_window_p, _reduce_window_lowering)

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

#: The comparison that picks a window's maximum (``ge``) or minimum (``le``), with the
#: value that loses to everything.
_SELECT_IDENTITY = {ge_p: dtypes.lowest, le_p: dtypes.highest}


def _reduce_window_chooser_jvp(prim, select_prim):
    """As JAX: the tangent of a window max (min) is the tangent at the place in the window
    that ``select_prim`` picks (``select_and_gather_add``); its transpose scatters the
    cotangent there (``select_and_scatter_add``)."""
    ad.defjvp(prim, lambda t, x, **params: select_and_gather_add_p.bind(
        t, x, select_prim=select_prim, **params))


# ----------------------------------------------------------------------------- select_and_gather_add

#: The tangents at the places ``select_prim`` (``ge`` for a max, ``le`` for a min) picks in
#: each window of the operand: ``reduce_window_max``'s tangent.
select_and_gather_add_p = Primitive('select_and_gather_add', eager_on_xla=True)


def _check_select_prim(name, select_prim):
    if select_prim not in _SELECT_IDENTITY:
        raise TypeError(f'{name}: select_prim must be lax.ge_p or lax.le_p, got {select_prim}')


def _select_and_gather_add_abstract_eval(tangents, operand, *, select_prim, **window):
    if tangents.shape != operand.shape:  # (JAX's text)
        raise TypeError('select_and_gather_add tangents and operand shapes must match, got '
                        f'{tangents.shape} and {operand.shape}.')
    if tangents.dtype != operand.dtype or not dtypes.is_float(operand.dtype):
        raise TypeError(f'select_and_gather_add: tangents and operand must have one float '
                        f'dtype, got {tangents.str_short()} and {operand.str_short()}')
    _check_select_prim('select_and_gather_add', select_prim)
    check_window_params('select_and_gather_add', operand, **window)
    return ShapedArray(window_output_shape(operand.shape, **window), tangents.dtype,
                       tangents.weak_type and operand.weak_type)


def _pick(select_prim):
    """NumPy: the fold of (value, tangent) pairs that keeps the accumulated pair where
    ``select_prim`` holds of it and the element, as the lowering's body does."""
    keep = core.impl_rules[select_prim]

    def combine(accs, elems):
        which = keep(accs[0], elems[0])
        return [np.where(which, a, e) for a, e in zip(accs, elems)]
    return combine


def _select_and_gather_add_impl(tangents, operand, *, select_prim, **window):
    operand, tangents = np.asarray(operand), np.asarray(tangents)
    inits = [np.array(-np.inf if select_prim is ge_p else np.inf, operand.dtype),
             np.zeros((), operand.dtype)]
    return fold_windows([operand, tangents], inits, _pick(select_prim), **window)[1]


def _select_and_gather_add_jvp(primals, tangents, **params):
    """Linear in the tangents; the operand only chooses (its tangent does not count)."""
    out = select_and_gather_add_p.bind(*primals, **params)
    if isinstance(tangents[0], ad.Zero):
        return out, ad.Zero(core.get_aval(out))
    return out, select_and_gather_add_p.bind(tangents[0], primals[1], **params)


def _select_and_gather_add_transpose(ct, tangents, operand, *, select_prim, window_dimensions,
                                     window_strides, padding, base_dilation, window_dilation):
    """Scatter the cotangent to the places picked: ``select_and_scatter_add`` (on the
    operand with its base dilation written out as holes that never win)."""
    if any(d != 1 for d in window_dilation):  # (JAX's text)
        raise NotImplementedError('VJP not implemented for select_and_gather (MaxPool) with '
                                  f'window dilation, got window_dilation={window_dilation}.')
    if isinstance(ct, ad.Zero):
        return [ad.Zero(tangents.aval), None]
    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        dtype = core.get_aval(operand).dtype
        operand = pad(operand, np.asarray(_SELECT_IDENTITY[select_prim](dtype), dtype),
                      tuple((0, 0, d - 1) for d in base_dilation))
    out = select_and_scatter_add_p.bind(ct, operand, select_prim=select_prim,
                                        window_dimensions=window_dimensions,
                                        window_strides=window_strides, padding=padding)
    if dilated:
        shape = core.get_aval(out).shape
        out = lax_slice(out, (0,) * len(shape), shape, base_dilation)
    return [out, None]


def _batched_at_front(vals, dims):
    """The operands with the batch axis at the front of each (broadcast if unmapped)."""
    size = next(core.get_aval(x).shape[d] for x, d in zip(vals, dims) if d is not not_mapped)
    return [move_batch_axis(size, d, 0, x) for x, d in zip(vals, dims)]


def _window_batching(prim):
    """A window primitive of two operands batched at the front, with a unit window there."""
    def batching(vals, dims, **params):
        return prim.bind(*_batched_at_front(vals, dims), **_unit_window_axis(params)), 0
    return batching


def _select_and_gather_add_lowering(tangents, operand, *, select_prim, **window):
    """JAX's formulation: one ``reduce_window`` over (value, tangent) pairs from (-inf, 0)
    (``le``: +inf), keeping the pair whose value ``select_prim`` picks."""
    def reducer(x, y):
        which = select_prim.bind(x[0], y[0])
        return select(which, x[0], y[0]), select(which, x[1], y[1])
    dtype = core.get_aval(operand).dtype
    inits = (np.array(-np.inf if select_prim is ge_p else np.inf, dtype), np.array(0, dtype))
    return reduce_window((operand, tangents), inits, reducer, **window)[1]


select_and_gather_add_p.def_impl(_select_and_gather_add_impl)
select_and_gather_add_p.def_abstract_eval(_select_and_gather_add_abstract_eval)
select_and_gather_add_p.def_jvp(_select_and_gather_add_jvp, symbolic_zeros=True)
select_and_gather_add_p.def_transpose(_select_and_gather_add_transpose)
select_and_gather_add_p.def_batching(_window_batching(select_and_gather_add_p))
register_lowering(select_and_gather_add_p, lower_fun(_select_and_gather_add_lowering))

# ----------------------------------------------------------------------------- select_and_scatter_add

#: Each window's ``source`` value added at the place of the window of ``operand`` that
#: ``select_prim`` picks: the transpose of ``select_and_gather_add`` (max pooling's VJP).
select_and_scatter_add_p = Primitive('select_and_scatter_add', eager_on_xla=True)


def _check_scatter_source(name, source, operand, window):
    """JAX's TypeError unless ``source`` has one element per window of ``operand``."""
    check_window_params(name, operand, base_dilation=(1,) * operand.ndim,
                        window_dilation=(1,) * operand.ndim, **window)
    shape = window_output_shape(operand.shape, base_dilation=(1,) * operand.ndim,
                                window_dilation=(1,) * operand.ndim, **window)
    if source.shape != shape or source.dtype != operand.dtype:
        raise TypeError(f'{name}: source must have one element of the operand\'s dtype per '
                        f'window, {ShapedArray(shape, operand.dtype).str_short()}, got '
                        f'{source.str_short()} for operand {operand.str_short()}')


def _select_and_scatter_add_abstract_eval(source, operand, *, select_prim, **window):
    _check_select_prim('select_and_scatter_add', select_prim)
    _check_scatter_source('select_and_scatter_add', source, operand, window)
    return ShapedArray(operand.shape, source.dtype, source.weak_type and operand.weak_type)


def _select_and_scatter_add_impl(source, operand, *, select_prim, window_dimensions,
                                 window_strides, padding):
    """As the lowering: the operand padded with the value that never wins, the padding
    sliced off the result."""
    source, operand = np.asarray(source), np.asarray(operand)
    rank = operand.ndim
    identity = _SELECT_IDENTITY[select_prim](operand.dtype)
    padded = dilate_and_pad(operand, identity, (1,) * rank, padding)
    out = scatter_to_selected(padded, source, np.zeros((), source.dtype),
                              core.impl_rules[select_prim],
                              np.logical_or if source.dtype == np.bool_ else np.add,
                              window_dimensions=window_dimensions, window_strides=window_strides,
                              padding=((0, 0),) * rank)
    return out[tuple(slice(lo, lo + n) for (lo, _), n in zip(padding, operand.shape))]


def scatter_to_selected(operand, source, init, keep, combine, *, window_dimensions,
                        window_strides, padding):
    """NumPy ``select_and_scatter``: from ``init`` everywhere, each source element combined
    (``combine(current, value)``) into the place of its window of ``operand`` that a fold
    with ``keep(accumulated, element)`` picks, window offsets in row-major order; padding is
    never picked."""
    rank = operand.ndim
    places = np.arange(operand.size).reshape(operand.shape)
    _, picked = fold_windows([operand, places], [np.zeros((), operand.dtype), -1],
                             _pick_place(keep), window_dimensions=window_dimensions,
                             window_strides=window_strides, padding=padding,
                             base_dilation=(1,) * rank, window_dilation=(1,) * rank)
    out = np.full(operand.size, init, init.dtype)
    for place, value in zip(picked.reshape(-1), source.reshape(-1)):
        if place >= 0:
            out[place] = combine(out[place], value)
    return out.reshape(operand.shape)


def _pick_place(keep):
    """NumPy: the fold of (value, place) pairs keeping the accumulated pair where
    ``keep(accumulated, element)`` holds; a place -1 (padding, or none yet) never wins."""
    def combine(accs, elems):
        which = (accs[1] >= 0) & keep(accs[0], elems[0]) | (elems[1] < 0)
        return [np.where(which, a, e) for a, e in zip(accs, elems)]
    return combine


def _select_and_scatter_add_jvp(primals, tangents, **params):
    """Linear in the source; the operand only chooses."""
    out = select_and_scatter_add_p.bind(*primals, **params)
    if isinstance(tangents[0], ad.Zero):
        return out, ad.Zero(core.get_aval(out))
    return out, select_and_scatter_add_p.bind(tangents[0], primals[1], **params)


def _select_and_scatter_add_transpose(ct, source, operand, *, select_prim, **window):
    if isinstance(ct, ad.Zero):
        return [ad.Zero(source.aval), None]
    ones = (1,) * len(window['window_dimensions'])
    return [select_and_gather_add_p.bind(ct, operand, select_prim=select_prim,
                                         base_dilation=ones, window_dilation=ones, **window),
            None]


def _select_and_scatter_add_lowering(source, operand, *, select_prim, window_dimensions,
                                     window_strides, padding):
    """As JAX lowers it on the CPU: the operand padded explicitly with the value that never
    wins, a ``select_and_scatter`` without padding, and the padding sliced off again."""
    aval = core.get_aval(source)
    identity = np.asarray(_SELECT_IDENTITY[select_prim](aval.dtype), aval.dtype)
    rank = len(padding)
    padded = pad(operand, identity, [(lo, hi, 0) for lo, hi in padding])
    out = _select_and_scatter(padded, select_prim.bind, window_dimensions, window_strides,
                              ((0, 0),) * rank, source, np.zeros((), aval.dtype),
                              bitwise_or if aval.dtype == np.bool_ else add)
    shape = core.get_aval(operand).shape
    return lax_slice(out, [lo for lo, _ in padding],
                     [lo + n for (lo, _), n in zip(padding, shape)])


select_and_scatter_add_p.def_impl(_select_and_scatter_add_impl)
select_and_scatter_add_p.def_abstract_eval(_select_and_scatter_add_abstract_eval)
select_and_scatter_add_p.def_jvp(_select_and_scatter_add_jvp, symbolic_zeros=True)
select_and_scatter_add_p.def_transpose(_select_and_scatter_add_transpose)
select_and_scatter_add_p.def_batching(_window_batching(select_and_scatter_add_p))
register_lowering(select_and_scatter_add_p, lower_fun(_select_and_scatter_add_lowering))

_reduce_window_chooser_jvp(reduce_window_max_p, ge_p)
_reduce_window_chooser_jvp(reduce_window_min_p, le_p)

# ----------------------------------------------------------------------------- select_and_scatter

#: ``stablehlo.select_and_scatter``: from ``init_value``, each ``source`` element combined
#: by the scatter jaxpr into the place of its window of ``operand`` the select jaxpr picks.
#: JAX differentiates and batches it not (nor does minijax).
select_and_scatter_p = Primitive('select_and_scatter', eager_on_xla=True)


def _select_and_scatter_abstract_eval(operand, source, init_value, *, select_jaxpr,
                                      select_consts, scatter_jaxpr, scatter_consts, **window):
    _check_scatter_source('select_and_scatter', source, operand, window)
    scalar = ShapedArray((), operand.dtype)
    if init_value.shape or init_value.dtype != operand.dtype:
        raise TypeError(f'select_and_scatter: init_value must be a scalar '
                        f'{scalar.str_short()}, got {init_value.str_short()}')
    for name, jaxpr, out in [('select', select_jaxpr, ((), np.dtype(bool))),
                             ('scatter', scatter_jaxpr, ((), operand.dtype))]:
        if [(a.shape, a.dtype) for a in jaxpr.out_avals] != [out]:
            raise TypeError(f'select_and_scatter: the {name} computation must return one '
                            f'{ShapedArray(*out).str_short()}, got '
                            f'{[a.str_short() for a in jaxpr.out_avals]}')
    return ShapedArray(operand.shape, operand.dtype)


def _scalar_fn(jaxpr, consts):
    """A jaxpr of scalars as a NumPy function of two scalars."""
    fn = jaxpr_as_fun(ClosedJaxpr(jaxpr, list(consts)))
    return lambda a, b: np.asarray(fn(a, b)[0])


def _select_and_scatter_impl(operand, source, init_value, *, select_jaxpr, select_consts,
                             scatter_jaxpr, scatter_consts, **window):
    operand, source = np.asarray(operand), np.asarray(source)
    keep = np.vectorize(_scalar_fn(select_jaxpr, select_consts), otypes=[bool])
    return scatter_to_selected(operand, source, np.asarray(init_value), keep,
                               _scalar_fn(scatter_jaxpr, scatter_consts), **window)


def _select_and_scatter_lowering(ctx, operand, source, init_value, *, select_jaxpr,
                                 select_consts, scatter_jaxpr, scatter_consts,
                                 window_dimensions, window_strides, padding):
    op = hlo.SelectAndScatterOp(
        tensor_type(ctx.avals_out[0]), operand, source, init_value,
        window_dimensions=list(window_dimensions), window_strides=list(window_strides),
        padding=ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2)))
    scalar = tensor_type(ShapedArray((), ctx.avals_in[0].dtype))
    for region, jaxpr, consts in [(op.select, select_jaxpr, select_consts),
                                  (op.scatter, scatter_jaxpr, scatter_consts)]:
        block = append_block(ctx, region, scalar, scalar)
        with ir.InsertionPoint(block):
            hlo.ReturnOp(lower_closed_jaxpr(ctx.module_context,
                                            ClosedJaxpr(jaxpr, list(consts)),
                                            list(block.arguments)))
    return op.result


select_and_scatter_p.def_impl(_select_and_scatter_impl)
select_and_scatter_p.def_abstract_eval(_select_and_scatter_abstract_eval)
register_lowering(select_and_scatter_p, _select_and_scatter_lowering)


def _select_and_scatter(operand, select, window_dimensions, window_strides, padding, source,
                        init_value, scatter):
    """``select_and_scatter_p`` with ``select`` and ``scatter`` (functions of two scalars)
    traced to jaxprs, as JAX's ``_select_and_scatter`` binds it."""
    scalar = (core.raise_to_shaped(core.get_aval(init_value)),)
    tree = tree_util.tree_structure(0)
    select_closed, _ = trace_computation(select, scalar, tree)
    scatter_closed, _ = trace_computation(scatter, scalar, tree)
    return select_and_scatter_p.bind(
        operand, source, init_value, select_jaxpr=select_closed.jaxpr,
        select_consts=tuple(select_closed.consts), scatter_jaxpr=scatter_closed.jaxpr,
        scatter_consts=tuple(scatter_closed.consts), window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides), padding=tuple(padding))

# ----------------------------------------------------------------------------- lax.reduce_window

#: The computations with a window reduction of their own: the primitive and the identity the
#: init value must be.
_MONOIDS = {add: (reduce_window_sum_p, lambda dtype: 0),
            lax_max: (reduce_window_max_p, dtypes.lowest),
            lax_min: (reduce_window_min_p, dtypes.highest)}


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding='VALID', base_dilation=None, window_dilation=None):
    """Reduce each window of ``operand`` (an array or a pytree of arrays of one shape) with
    ``computation`` (a function of two such pytrees of scalars) starting from ``init_value``
    (scalars, the same pytree). ``padding`` is 'VALID', 'SAME', 'SAME_LOWER' or one (low,
    high) pair per axis. As in JAX, ``lax.add``, ``lax.max`` or ``lax.min`` from its
    identity binds its own primitive (``reduce_window_sum``, ...); any other computation
    binds ``reduce_window`` holding it as a jaxpr."""
    flat_operands, flat_inits, tree = flatten_operands_and_inits(operand, init_value)
    if not flat_operands:
        raise ValueError('reduce_window must have at least one operand.')
    rank = np.ndim(flat_operands[0])
    window = {what: static_ints((1,) * rank if values is None else values, 'reduce_window', what)
              for what, values in [('window_dimensions', window_dimensions),
                                   ('window_strides', window_strides),
                                   ('base_dilation', base_dilation),
                                   ('window_dilation', window_dilation)]}
    prim = _monoid_window_reducer(computation, flat_inits)
    check_window_params(prim.name if prim else 'reduce_window', core.get_aval(flat_operands[0]),
                        padding=None, **window)
    for init in flat_inits:
        _check_init_value(init, core.get_aval(flat_operands[0]).dtype)
    if not isinstance(padding, str):
        padding = padding_pairs(padding, 'reduce_window', TypeError)
    window['padding'] = padtype_to_pads(
        np.shape(flat_operands[0]),
        dilate_shape(window['window_dimensions'], window['window_dilation']),
        window['window_strides'], padding)
    if prim is not None:
        return prim.bind(flat_operands[0], **window)
    closed, out_tree = computation_jaxpr(
        computation, tuple(core.raise_to_shaped(core.get_aval(x)) for x in flat_inits),
        tree)
    if out_tree != tree:
        raise ValueError('reduce_window output must have the same tree structure as the '
                         f'operands {tree} vs. {out_tree}')
    return tree_util.tree_unflatten(out_tree, _bind_reduce_window(flat_operands, flat_inits,
                                                                  closed, window))


def _monoid_window_reducer(computation, inits):
    """The window reduction primitive of ``computation`` from ``inits``, if they form a
    monoid JAX recognizes (one concrete scalar init, the identity in its own dtype)."""
    try:
        prim, identity = _MONOIDS[computation]
    except (KeyError, TypeError):
        return None
    return prim if is_identity(inits, identity) else None


def _check_init_value(init_value, dtype):
    """JAX's TypeError unless ``init_value`` is a scalar."""
    aval = core.get_aval(init_value)
    if aval.ndim:
        raise TypeError(f'reduce_window: init_value must be a scalar, got {aval.str_short()} '
                        f'for an operand of dtype {dtype}')
