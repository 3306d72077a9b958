"""``scaled_dot``: ``dot_general`` of operands scaled block by block along the contracting axes.

``scaled_dot(lhs, rhs, lhs_scale=s, rhs_scale=t)`` is ``(lhs * s) @ (rhs * t)``, where a
scale has its operand's shape but for the contracting axes, which it divides into blocks of
``size // scale size`` positions (at least 2: the *subchannel*), one scale a block. As in
JAX the operands and the scales are rounded to bfloat16 before they are multiplied, and the
result is ``preferred_element_type`` (bfloat16 by default). JAX made the op for float8
operands with ``float8_e8m0fnu`` scales (powers of two); minijax has no float8 dtypes, so it
takes scales of the dtypes it has, and a scale left out (JAX then makes ``float8_e8m0fnu``
ones) is a ``NotImplementedError``.

The primitive lowers as JAX lowers it: to ``stablehlo.composite "xla.scaled_dot"``, whose
decomposition (``_decomposition``: the scales repeated over their blocks, then the products
and one ``dot_general``, in JAX's op order) a compiler that knows the op may replace. Calls of
one type and parameters share one decomposition function, as in JAX. Like JAX's, it has no
derivative (it "currently isn't differentiable"); it batches as JAX batches it, every
operand's batch axis moved to the front and made a new batch axis of the dot.
"""
from __future__ import annotations

import functools
import operator
import weakref

import numpy as np

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters.batching import axis_size_of, move_batch_axis
from minijax.lax.dot_general import _dot_general_impl, dot_general
from minijax.lax.elementwise import convert_element_type, mul
from minijax.lax.structural import broadcast_in_dim, expand_dims, reshape
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lowering import lower_fun, register_lowering

scaled_dot_p = Primitive('scaled_dot', eager_on_xla=True)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """``(lhs * lhs_scale) @ (rhs * rhs_scale)`` in bfloat16, as ``dot_general`` with
    ``dimension_numbers`` (by default the last axis of lhs and the one before the last of rhs
    are contracted, the others before them batched) giving ``preferred_element_type``
    (bfloat16 by default). Each scale has its operand's shape but along the contracting
    axes, where one scale covers a block of (at least 2) consecutive positions."""
    if dimension_numbers is None:
        n = core.get_aval(lhs).ndim
        if n < 2:
            raise TypeError('scaled_dot does not support 0-rank and 1-rank operands.')
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    dimension_numbers = tuple(tuple(tuple(map(operator.index, axes)) for axes in pair)
                              for pair in dimension_numbers)
    for name, scale in (('lhs_scale', lhs_scale), ('rhs_scale', rhs_scale)):
        _check_scale(name, scale)
    return scaled_dot_p.bind(
        lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dimension_numbers,
        preferred_element_type=dtypes.check_supported(
            dtypes.bfloat16 if preferred_element_type is None else preferred_element_type,
            'scaled_dot preferred_element_type'))


def _check_scale(name, scale):
    """Refuse what JAX would make or take as a ``float8_e8m0fnu`` scale."""
    dtype = getattr(scale, 'dtype', None)
    if scale is None or (dtype is not None and np.dtype(dtype).name.startswith('float8')):
        got = 'was left out' if scale is None else f'has dtype {np.dtype(dtype).name}'
        raise NotImplementedError(
            f'scaled_dot: {name} {got}; JAX makes or takes float8_e8m0fnu scales (a missing '
            'one becomes float8_e8m0fnu ones), and minijax has no float8 dtypes: pass the '
            'scale explicitly, in a dtype minijax has (float32, bfloat16, float16, ...)')


# ----------------------------------------------------------------------------- abstract eval

def _check_axes(lhs, rhs, dimension_numbers):
    """Axes past an operand's rank (JAX's IndexError) or negative (which JAX never takes
    for a contracting or batch axis) are refused first, naming the primitive."""
    for side, aval, axes in (('lhs', lhs, dimension_numbers[0][0] + dimension_numbers[1][0]),
                             ('rhs', rhs, dimension_numbers[0][1] + dimension_numbers[1][1])):
        for axis in axes:
            if axis >= aval.ndim:
                raise IndexError(f'scaled_dot: {side} axis {axis} of dimension_numbers '
                                 f'{dimension_numbers} is out of range for {side} of rank '
                                 f'{aval.ndim}')
            if axis < 0:
                raise TypeError(f'scaled_dot: dimension_numbers {dimension_numbers} has a '
                                f'negative {side} axis {axis}')


def _check_scale_shape(side, operand, scale, contracting):
    for i, size in enumerate(operand.shape):
        if i not in contracting:
            if scale.shape[i] != size:
                raise TypeError(f'scaled_dot: {side} dim {i} of size {size} does not match '
                                f'scale dim size {scale.shape[i]}.')  # (JAX's texts, named)
        elif size % scale.shape[i]:
            raise TypeError(f'scaled_dot: {side} contracting dim {i} of size {size} must be '
                            f"divisible by its scale's dim size {scale.shape[i]}.")
        elif size // scale.shape[i] < 2:
            raise TypeError(f'scaled_dot: The ratio of {side} contracting dim {i} to its '
                            f"scale's dim size ({size // scale.shape[i]}) must be at least 2.")


def _scaled_dot_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                              preferred_element_type):
    """JAX's checks, in its order and with its texts (naming the primitive); then
    ``dot_general``'s shape."""
    (lc, rc), (lb, rb) = dimension_numbers
    if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) != 1:
        raise TypeError(f'scaled_dot: All input tensors must have the same rank. Got lhs rank: '
                        f'{lhs.ndim} rhs rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} '
                        f'rhs_scale rank: {rhs_scale.ndim}.')
    for what, lhs_axes, rhs_axes in (('batch', lb, rb), ('contracting', lc, rc)):
        if len(lhs_axes) != len(rhs_axes):
            raise TypeError(f'scaled_dot: LHS and RHS must have the same number of {what} '
                            f'dimensions, got {len(lhs_axes)} and {len(rhs_axes)}.')
    _check_axes(lhs, rhs, dimension_numbers)
    for i, j in zip(lb, rb):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) != 1:
            raise TypeError('scaled_dot: All input tensors must have the same batch dimension '
                            f'size for batch dims ({i}, {j}).')
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(f'scaled_dot: LHS contracting dim {i} of size {lhs.shape[i]} does '
                            f'not match RHS contracting dim {j} of size {rhs.shape[j]}.')
    _check_scale_shape('LHS', lhs, lhs_scale, lc)
    _check_scale_shape('RHS', rhs, rhs_scale, rc)
    shape = ([lhs.shape[i] for i in lb]
             + [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
             + [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb])
    return ShapedArray(shape, dtypes.bfloat16 if preferred_element_type is None
                       else preferred_element_type)


# ----------------------------------------------------------------------------- the decomposition

def _repeat_over_blocks(scale, operand_shape, contracting):
    """Each scale repeated over its block of the operand's contracting axes: a new axis of
    the block's size after it, broadcast, then merged (JAX's ops)."""
    for i in contracting:
        shape = list(core.get_aval(scale).shape)
        if shape[i] != operand_shape[i]:
            scale = expand_dims(scale, (i + 1,))
            scale = broadcast_in_dim(scale, shape[:i + 1] + [operand_shape[i] // shape[i]]
                                     + shape[i + 1:], range(len(shape) + 1))
            scale = reshape(scale, shape[:i] + [operand_shape[i]] + shape[i + 1:])
    return scale


def _decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
    """What ``stablehlo.composite "xla.scaled_dot"`` stands for, in JAX's op order."""
    (lc, rc), _ = dimension_numbers
    scaled = []
    for x, scale, contracting in ((lhs, lhs_scale, lc), (rhs, rhs_scale, rc)):
        scale = _repeat_over_blocks(scale, core.get_aval(x).shape, contracting)
        x = convert_element_type(x, dtypes.bfloat16)  # (of a complex x, its real part)
        scaled.append(mul(x, convert_element_type(scale, dtypes.bfloat16)))
    return dot_general(*scaled, dimension_numbers,
                       preferred_element_type=preferred_element_type)


#: module being lowered -> (operand types, parameters) -> the decomposition traced for them
_TRACED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _composite(traced, lhs, rhs, lhs_scale, rhs_scale, **params):
    """``composite_p`` of the decomposition, traced once per module for these types and
    parameters (at the frames of the first call): one jaxpr, so one function for every such
    call, as JAX's lowering caches it."""
    from minijax.control_flow.composite import bind_composite  # (a layer above lax)
    args = (lhs, rhs, lhs_scale, rhs_scale)
    key = (tuple(core.get_aval(x) for x in args), tuple(params.items()))
    if key not in traced:
        traced[key], _ = trace_to_jaxpr(lambda *xs: [_decomposition(*xs, **params)],
                                        list(key[0]))
    out, = bind_composite(traced[key], args, 'xla.scaled_dot', 0, params)
    return out


def _scaled_dot_lowering(ctx, *args, **params):
    traced = _TRACED.setdefault(ctx.module_context, {})
    return lower_fun(functools.partial(_composite, traced))(ctx, *args, **params)


# ----------------------------------------------------------------------------- impl, vmap

def _scaled_dot_impl(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                     preferred_element_type):
    """NumPy's decomposition (eager calls run the lowering on XLA)."""
    (lc, rc), _ = dimension_numbers

    def scaled(x, scale, contracting):
        x, scale = np.asarray(x), np.asarray(scale)
        for i in contracting:
            scale = np.repeat(scale, x.shape[i] // scale.shape[i], axis=i)
        if dtypes.is_complex(x.dtype):
            x = np.real(x)
        return x.astype(dtypes.bfloat16) * scale.astype(dtypes.bfloat16)
    return _dot_general_impl(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc),
                             dimension_numbers=dimension_numbers, precision=None,
                             preferred_element_type=preferred_element_type)


def _scaled_dot_batching(vals, dims, *, dimension_numbers, preferred_element_type):
    """JAX's rule: every operand's batch axis at the front (an unbatched one broadcast), a
    new leading batch axis of the dot, the result's axis 0."""
    size = axis_size_of(vals, dims)
    vals = [move_batch_axis(size, d, 0, x) for x, d in zip(vals, dims)]
    (lc, rc), (lb, rb) = dimension_numbers

    def shifted(axes):
        return tuple(a + 1 for a in axes)
    batched = ((shifted(lc), shifted(rc)), ((0, *shifted(lb)), (0, *shifted(rb))))
    return scaled_dot_p.bind(*vals, dimension_numbers=batched,
                             preferred_element_type=preferred_element_type), 0


scaled_dot_p.def_impl(_scaled_dot_impl)
scaled_dot_p.def_abstract_eval(_scaled_dot_abstract_eval)
scaled_dot_p.def_batching(_scaled_dot_batching)
register_lowering(scaled_dot_p, _scaled_dot_lowering)


def scaled_dot_decomposition(eqn):
    """The decomposition of a ``scaled_dot`` equation as a function of its operands: what
    XLA compiles on the CPU (``minijax.flops`` counts its operations)."""
    return functools.partial(_decomposition, **eqn.params)
