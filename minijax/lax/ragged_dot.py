"""``ragged_dot_general``: a ``dot_general`` whose lhs is split into groups along one axis.

``group_sizes`` (integers, ``[..., g]``) cuts the lhs *ragged* axis into ``g`` consecutive
groups (positions past their sum belong to none). What a group does depends on the kind of
axis that is ragged, JAX's three modes:

- a free axis of lhs (``RAGGED_NONCONTRACTING``): rhs has a *group* axis of size ``g``, and
  the rows of group ``j`` are multiplied by rhs's slice ``j`` (a mixture of experts);
- a contracting axis (``RAGGED_CONTRACTING``): each group is contracted on its own, and the
  result has a new leading axis of size ``g``;
- a batch axis (``RAGGED_BATCH``): the groups only label the batch; the result is
  ``dot_general``'s.

``group_sizes`` of shape ``[g]`` is shared by the lhs axes that come before the ragged one
among the batch axes, then the axes of its kind; otherwise it has those axes, ``[b..., x...,
g]``. On the CPU JAX lowers the primitive to a dense expansion (each group masked out of the
ragged operand along a new leading axis, then one ``dot_general``), and so does minijax, with
the same lax operations in the same order (``_expansion``). The NumPy impl does the same
masking.

Differentiation is JAX's: the primitive is linear in lhs and in rhs (not in the integer
``group_sizes``), and its transpose is another ``ragged_dot_general`` in the first mode only
(JAX's ``NotImplementedError`` otherwise). Batching is JAX's where JAX batches (every operand
at axis 0); where JAX raises ``NotImplementedError`` (an operand batched elsewhere or not at
all), minijax moves or broadcasts each operand's batch axis to 0 first.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import operator

import numpy as np

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import axis_size_of, move_batch_axis, not_mapped, vmap
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.bitwise import bitwise_and
from minijax.lax.cumulative import cumsum
from minijax.lax.dot_general import _dot_general_impl, _result_dtype, dot_general
from minijax.lax.elementwise import add, convert_element_type, full_like, le, lt, select
from minijax.lax.precision import canonicalize_precision
from minijax.lax.slicing import slice as slice_
from minijax.lax.static import default_options_only
from minijax.lax.structural import broadcast, broadcast_in_dim, broadcasted_iota, concatenate
from minijax.lax.structural import transpose
from minijax.lowering import lower_fun, register_lowering

ragged_dot_general_p = Primitive('ragged_dot_general', eager_on_xla=True)


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """The dimension numbers of ``ragged_dot_general``, JAX's: ``dot_dimension_numbers``
    (``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``), the lhs ragged axis
    (a sequence of one) and the rhs group axes (one in the first mode, none otherwise)."""
    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: tuple
    rhs_group_dimensions: tuple

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        def ints(axes):
            return tuple(map(operator.index, axes))
        object.__setattr__(self, 'dot_dimension_numbers',
                           tuple(tuple(map(ints, pair)) for pair in dot_dimension_numbers))
        object.__setattr__(self, 'lhs_ragged_dimensions', ints(lhs_ragged_dimensions))
        object.__setattr__(self, 'rhs_group_dimensions', ints(rhs_group_dimensions))


#: ``ragged_dot``'s: lhs ``[m, k]`` ragged along m, rhs ``[g, k, n]`` grouped along g.
_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """``lhs [m, k]`` times ``rhs [g, k, n]``, the rows of group ``j`` (``group_sizes[j]``
    consecutive rows) by ``rhs[j]``: ``[m, n]``. Rows past the groups are zero."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type,
                              group_offset, out_sharding)


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """``dot_general`` with lhs cut into groups along its ragged axis (see the module's
    docstring for the three modes); ``precision`` and ``preferred_element_type`` are
    ``dot_general``'s."""
    default_options_only('ragged_dot_general', out_sharding=out_sharding)
    if group_offset is not None:
        raise NotImplementedError('Unimplemented group_offset support.')  # (JAX's text)
    if not isinstance(ragged_dot_dimension_numbers, RaggedDotDimensionNumbers):
        raise TypeError('ragged_dot_general: ragged_dot_dimension_numbers must be a '
                        f'RaggedDotDimensionNumbers, got {ragged_dot_dimension_numbers!r}')
    return ragged_dot_general_p.bind(
        lhs, rhs, group_sizes, ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
        precision=canonicalize_precision(precision),
        preferred_element_type=None if preferred_element_type is None
        else dtypes.check_supported(preferred_element_type))


class RaggedDotMode(enum.Enum):
    """What kind of lhs axis is ragged (JAX's names, which its errors show)."""
    RAGGED_NONCONTRACTING = 1  # [b,m,k], [g,b,k,n], [b,g] -> [b,m,n]
    RAGGED_CONTRACTING = 2     # [b,m,k], [b,k,n],   [b,g] -> [g,b,m,n]
    RAGGED_BATCH = 3           # [b,m,k], [b,k,n],   [g]   -> [b,m,n]


def _remaining(n, *taken):
    return [a for a in range(n) if not any(a in axes for axes in taken)]


def _mode_and_dim(lhs_ndim, numbers):
    """The mode and the lhs ragged axis."""
    ragged, = numbers.lhs_ragged_dimensions
    (lc, _), (lb, _) = numbers.dot_dimension_numbers
    if ragged in _remaining(lhs_ndim, lc, lb):
        return RaggedDotMode.RAGGED_NONCONTRACTING, ragged
    if ragged in lc:
        return RaggedDotMode.RAGGED_CONTRACTING, ragged
    return RaggedDotMode.RAGGED_BATCH, ragged


def _prefix_dims(mode, ndim, ragged, batch, contract):
    """The axes ``group_sizes`` has besides the groups: the batch axes, then those of the
    ragged axis's kind before it (batch axes alone in the batch mode, up to it)."""
    batch, contract = list(batch), list(contract)
    if mode is RaggedDotMode.RAGGED_NONCONTRACTING:
        free = _remaining(ndim, contract, batch)
        return batch + free[:free.index(ragged)]
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        return batch + contract[:contract.index(ragged)]
    return batch[:batch.index(ragged)]


# ----------------------------------------------------------------------------- abstract eval

def _check_in_range(axis, ndim, what, operand):
    if not 0 <= axis < ndim:
        raise TypeError(f'ragged_dot_general requires {what} numbers to be nonnegative and less '
                        f'than the number of axes of the {operand} value, got {axis} for '
                        f'{operand} of rank {ndim}.')  # (JAX's text)


def _ragged_dot_general_abstract_eval(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers,
                                      precision, preferred_element_type):
    """JAX's checks, in its order and with its texts (each naming the primitive); then
    dot_general's shape (without the rhs group axis), with the groups first in the
    contracting mode."""
    numbers = ragged_dot_dimension_numbers
    if len(numbers.lhs_ragged_dimensions) != 1:
        raise TypeError('ragged_dot_general expects exactly one lhs ragged dimension.')
    _check_in_range(numbers.lhs_ragged_dimensions[0], lhs.ndim, 'lhs ragged dimension', 'lhs')
    mode, ragged = _mode_and_dim(lhs.ndim, numbers)
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    if group_sizes.ndim == 0:
        raise TypeError('ragged_dot_general: expected rank of group_sizes to be >=1.')
    if group_sizes.ndim != 1:
        expected = tuple(lhs.shape[a] for a in _prefix_dims(mode, lhs.ndim, ragged, lb, lc))
        expected += (group_sizes.shape[-1],)
        if group_sizes.shape != expected:
            raise TypeError(f'ragged_dot_general: expected group_sizes to have shape '
                            f'{expected}, got {group_sizes.shape}.')
    num_groups = group_sizes.shape[-1]
    group = numbers.rhs_group_dimensions
    if mode is not RaggedDotMode.RAGGED_NONCONTRACTING:
        if group:
            raise TypeError('ragged_dot_general requires zero group dimensions in the rhs when '
                            'lhs ragged dimension is contracting or batch.')
    else:
        if len(group) != 1:
            raise TypeError('ragged_dot_general requires exactly one rhs group dimension when '
                            'lhs ragged dimension is noncontracting.')
        _check_in_range(group[0], rhs.ndim, 'rhs group dimension', 'rhs')
        if group[0] in rb or group[0] in rc:
            raise TypeError('ragged_dot_general requires rhs group dimension numbers to be '
                            'distinct from contracting and batch dimensions.')
        if rhs.shape[group[0]] != num_groups:
            raise TypeError(f'ragged_dot_general: expected rhs group dimension size to be '
                            f'{num_groups}, got {rhs.shape[group[0]]}.')
    _check_dot_dimensions(lhs, rhs, lc, rc, lb, rb)
    shape = ([lhs.shape[a] for a in lb] + [lhs.shape[a] for a in _remaining(lhs.ndim, lc, lb)]
             + [rhs.shape[a] for a in _remaining(rhs.ndim, rc, rb, group)])
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        shape = [num_groups] + shape
    if not dtypes.is_integer(group_sizes.dtype):
        raise TypeError('ragged_dot_general requires that group_sizes.dtype is subtype of '
                        'np.integer.')
    dtype = _result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type and group_sizes.weak_type)


def _check_dot_dimensions(lhs, rhs, lc, rc, lb, rb):
    """dot_general's conditions on the contracting and batch axes, with JAX's texts."""
    for what, l_axes, r_axes in (('contracting', lc, rc), ('batch', lb, rb)):
        if len(l_axes) != len(r_axes):
            raise TypeError(f'ragged_dot_general: dot_general requires equal numbers of lhs and '
                            f'rhs {what} dimensions, got lhs_{what}={l_axes} and '
                            f'rhs_{what}={r_axes}.')
        for axes, aval, side in ((l_axes, lhs, 'lhs'), (r_axes, rhs, 'rhs')):
            if not all(0 <= a < aval.ndim for a in axes) or len(set(axes)) != len(axes):
                raise TypeError(f'ragged_dot_general: dot_general requires {what} dimension '
                                'numbers to be distinct, nonnegative and less than the number '
                                f'of axes of the {side} value, got {side}_{what} of {axes} for '
                                f'{side} of rank {aval.ndim}')
        l_shape, r_shape = (tuple(lhs.shape[a] for a in l_axes),
                            tuple(rhs.shape[a] for a in r_axes))
        if l_shape != r_shape:
            raise TypeError(f'ragged_dot_general: dot_general requires {what} dimensions to '
                            f'have the same shape, got {l_shape} and {r_shape}.')


# ----------------------------------------------------------------------------- the expansion

def _ragged_to_dense(x, group_sizes, *, dim):
    """``x`` repeated along a new leading group axis, each copy zero outside its group's
    positions along ``dim`` (``group_sizes`` of shape ``[g]``)."""
    shape = core.get_aval(group_sizes).shape + core.get_aval(x).shape
    x = broadcast_in_dim(x, shape, range(1, len(shape)))
    positions = broadcasted_iota(core.get_aval(group_sizes).dtype, shape, dim + 1)
    ends = cumsum(group_sizes)
    g = shape[0]
    starts = concatenate([slice_(full_like(group_sizes, 0), (0,), (1,)),
                          slice_(ends, (0,), (g - 1,))], 0)
    ends = broadcast_in_dim(ends, shape, (0,))
    starts = broadcast_in_dim(starts, shape, (0,))
    mask = bitwise_and(le(starts, positions), lt(positions, ends))
    return select(mask, x, full_like(x, 0))


def _batched_ragged_to_dense(dim, *x_axes):
    """``_ragged_to_dense`` mapped over ``x``'s axes ``x_axes`` and ``group_sizes``'s leading
    ones (one vmap per axis, as JAX writes it)."""
    if not x_axes:
        return functools.partial(_ragged_to_dense, dim=dim)
    x_axis, *rest = x_axes

    def before(d):
        return d - 1 if d >= x_axis else d
    return vmap(_batched_ragged_to_dense(before(dim), *map(before, rest)),
                in_axes=(x_axis, 0))


def _expand(x, dim, group_sizes, *axes):
    """``x`` with its ragged axis ``dim`` expanded into a leading group axis; ``axes`` are
    the axes of ``x`` that ``group_sizes``'s leading axes follow."""
    expanded = _batched_ragged_to_dense(dim, *axes)(x, group_sizes)
    placed = [a + 1 for a in axes] + [0] + [a + 1 for a in _remaining(np.ndim(x), axes)]
    return transpose(expanded, tuple(np.argsort(placed)))


def _expansion(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, precision,
               preferred_element_type):
    """The primitive in lax operations, as JAX lowers it on the CPU: the ragged operand(s)
    expanded along a group axis, then one ``dot_general`` that contracts (or batches) it."""
    numbers = ragged_dot_dimension_numbers
    mode, ragged = _mode_and_dim(np.ndim(lhs), numbers)
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    prefix = _prefix_dims(mode, np.ndim(lhs), ragged, lb, lc)

    def dot(x, y, dimension_numbers):
        return dot_general(x, y, dimension_numbers, precision, preferred_element_type)

    def shifted(axes):
        return tuple(a + 1 for a in axes)

    if np.ndim(group_sizes) == 1 and prefix:
        group_sizes = broadcast(group_sizes, [np.shape(lhs)[a] for a in prefix])
    if mode is RaggedDotMode.RAGGED_NONCONTRACTING:
        group, = numbers.rhs_group_dimensions
        return dot(_expand(lhs, ragged, group_sizes, *prefix), rhs,
                   ((shifted(lc) + (0,), rc + (group,)), (shifted(lb), rb)))
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        rhs_ragged = rc[lc.index(ragged)]
        rhs_prefix = _prefix_dims(mode, np.ndim(rhs), rhs_ragged, rb, rc)
        return dot(_expand(lhs, ragged, group_sizes, *prefix),
                   _expand(rhs, rhs_ragged, group_sizes, *rhs_prefix),
                   ((shifted(lc), shifted(rc)), ((0,) + shifted(lb), (0,) + shifted(rb))))
    return dot(lhs, rhs, numbers.dot_dimension_numbers)


# ----------------------------------------------------------------------------- impl

def _dense_groups(x, group_sizes, dim, axes):
    """NumPy's ``_expand``: ``x`` along a new leading group axis, zero outside each group's
    positions along ``dim``; ``group_sizes`` is ``[*x's axes ``axes``, g]``."""
    ends = np.cumsum(group_sizes, axis=-1, dtype=group_sizes.dtype)
    starts = ends - group_sizes
    # [g, *axes] with the axes in x's order, then size 1 at x's other axes
    order = np.argsort(axes)
    keep = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]

    def placed(bounds):
        bounds = np.moveaxis(bounds, -1, 0).transpose([0, *(1 + order)])
        return bounds.reshape([bounds.shape[0], *keep])
    position = np.arange(x.shape[dim]).reshape([1] + [-1 if a == dim else 1
                                                      for a in range(x.ndim)])
    mask = (placed(starts) <= position) & (position < placed(ends))
    return np.where(mask, x[None], np.zeros((), x.dtype))


def _ragged_dot_general_impl(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers,
                             precision, preferred_element_type):
    lhs, rhs, group_sizes = map(np.asarray, (lhs, rhs, group_sizes))
    numbers = ragged_dot_dimension_numbers
    mode, ragged = _mode_and_dim(lhs.ndim, numbers)
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    prefix = _prefix_dims(mode, lhs.ndim, ragged, lb, lc)
    if group_sizes.ndim == 1:
        group_sizes = np.broadcast_to(group_sizes, [lhs.shape[a] for a in prefix]
                                      + [group_sizes.shape[0]])

    def dot(x, y, dimension_numbers):
        return _dot_general_impl(x, y, dimension_numbers=dimension_numbers,
                                 precision=precision,
                                 preferred_element_type=preferred_element_type)

    def shifted(axes):
        return tuple(a + 1 for a in axes)

    if mode is RaggedDotMode.RAGGED_NONCONTRACTING:
        group, = numbers.rhs_group_dimensions
        return dot(_dense_groups(lhs, group_sizes, ragged, prefix), rhs,
                   ((shifted(lc) + (0,), rc + (group,)), (shifted(lb), rb)))
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        rhs_ragged = rc[lc.index(ragged)]
        rhs_prefix = _prefix_dims(mode, rhs.ndim, rhs_ragged, rb, rc)
        return dot(_dense_groups(lhs, group_sizes, ragged, prefix),
                   _dense_groups(rhs, group_sizes, rhs_ragged, rhs_prefix),
                   ((shifted(lc), shifted(rc)), ((0,) + shifted(lb), (0,) + shifted(rb))))
    return dot(lhs, rhs, numbers.dot_dimension_numbers)


# ----------------------------------------------------------------------------- jvp, transpose

def _ragged_dot_general_jvp(primals, tangents, **params):
    """The product rule, as JAX writes it: a zero tangent is a zero array added."""
    lhs, rhs, group_sizes = primals
    d_lhs, d_rhs, _ = tangents
    out = ragged_dot_general_p.bind(lhs, rhs, group_sizes, **params)
    d_out_lhs = (full_like(out, 0) if isinstance(d_lhs, ad.Zero)
                 else ragged_dot_general_p.bind(d_lhs, rhs, group_sizes, **params))
    d_out_rhs = (full_like(out, 0) if isinstance(d_rhs, ad.Zero)
                 else ragged_dot_general_p.bind(lhs, d_rhs, group_sizes, **params))
    return out, add(d_out_lhs, d_out_rhs)


def _ranges_like(*lists):
    start = 0
    for axes in lists:
        yield list(range(start, start + len(axes)))
        start += len(axes)


def _ragged_dot_general_transpose(ct, lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers,
                                  precision, preferred_element_type):
    """In the first mode, the cotangent of lhs is a ragged_dot_general of the first mode
    (``ct`` ragged like lhs, times rhs) and that of rhs one of the second (lhs and ``ct``
    contracted group by group over lhs's free axes), each transposed into its operand's axis
    order, as JAX writes them. JAX transposes no other mode."""
    numbers = ragged_dot_dimension_numbers
    (x_contract, y_contract), (x_batch, y_batch) = numbers.dot_dimension_numbers
    x_ndim = lhs.aval.ndim if is_undefined_primal(lhs) else np.ndim(lhs)
    y_ndim = rhs.aval.ndim if is_undefined_primal(rhs) else np.ndim(rhs)
    x_kept = _remaining(x_ndim, x_contract, x_batch)
    y_group = list(numbers.rhs_group_dimensions)
    y_kept = _remaining(y_ndim, y_contract, y_batch, y_group)
    mode, ragged = _mode_and_dim(x_ndim, numbers)
    params = dict(precision=precision, preferred_element_type=preferred_element_type)

    def grad(x, y, aval, which):
        if mode is not RaggedDotMode.RAGGED_NONCONTRACTING:
            raise NotImplementedError(f'Unimplemented grad_{which}_dims for ragged dot general '
                                      f'in mode {mode.name}.')  # (JAX's text)
        ans_batch, ans_x, ans_y = _ranges_like(x_batch, x_kept, y_kept)
        if which == 'x':
            dims = RaggedDotDimensionNumbers(
                ((ans_y, y_kept), (ans_batch, y_batch)),
                [len(x_batch) + x_kept.index(ragged)], y_group)
            unsorted = (list(x_batch) + x_kept
                        + list(np.take(x_contract, np.argsort(y_contract)).astype(int)))
        else:
            dims = RaggedDotDimensionNumbers(((x_kept, ans_x), (x_batch, ans_batch)),
                                             [ragged], [])
            unsorted = (y_group + list(y_batch)
                        + list(np.take(y_contract, np.argsort(x_contract)).astype(int)) + y_kept)
        out = ragged_dot_general_p.bind(x, y, group_sizes, ragged_dot_dimension_numbers=dims,
                                        **params)
        out = transpose(out, tuple(int(a) for a in np.argsort(unsorted)))
        if core.get_aval(out).dtype != aval.dtype:
            out = convert_element_type(out, aval.dtype)
        return out

    ct_lhs = None if is_undefined_primal(rhs) else grad(ct, rhs, getattr(lhs, 'aval', None), 'x')
    ct_rhs = None if is_undefined_primal(lhs) else grad(lhs, ct, getattr(rhs, 'aval', None), 'y')
    return [ct_lhs, ct_rhs, None]


# ----------------------------------------------------------------------------- vmap

def _ragged_dot_general_batching(vals, dims, *, ragged_dot_dimension_numbers, **params):
    """Every operand batched at axis 0 (JAX batches only that case; minijax first moves or
    broadcasts each batch axis there): a new leading batch axis of lhs and rhs, and a leading
    axis of ``group_sizes``, which then has every axis it may be broadcast along."""
    lhs, rhs, group_sizes = vals
    size = axis_size_of(vals, dims)
    numbers = ragged_dot_dimension_numbers
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    mode, ragged = _mode_and_dim(np.ndim(lhs) - (dims[0] is not not_mapped), numbers)
    prefix = _prefix_dims(mode, np.ndim(lhs) - (dims[0] is not not_mapped), ragged, lb, lc)
    lhs, rhs = (move_batch_axis(size, d, 0, x) for x, d in zip((lhs, rhs), dims))
    gs_ndim = np.ndim(group_sizes) - (dims[2] is not not_mapped)
    if dims[2] is not not_mapped or gs_ndim > 1:
        group_sizes = move_batch_axis(size, dims[2], 0, group_sizes)
        if gs_ndim == 1 and prefix:
            shape = core.get_aval(group_sizes).shape
            group_sizes = broadcast_in_dim(
                group_sizes, (size, *(core.get_aval(lhs).shape[a + 1] for a in prefix),
                              shape[-1]), (0, len(prefix) + 1))

    def shifted(axes):
        return tuple(a + 1 for a in axes)

    batched = RaggedDotDimensionNumbers(
        ((shifted(lc), shifted(rc)), ((0, *shifted(lb)), (0, *shifted(rb)))),
        shifted(numbers.lhs_ragged_dimensions), shifted(numbers.rhs_group_dimensions))
    out = ragged_dot_general_p.bind(lhs, rhs, group_sizes, ragged_dot_dimension_numbers=batched,
                                    **params)
    return out, int(mode is RaggedDotMode.RAGGED_CONTRACTING)


ragged_dot_general_p.def_impl(_ragged_dot_general_impl)
ragged_dot_general_p.def_abstract_eval(_ragged_dot_general_abstract_eval)
ragged_dot_general_p.def_jvp(_ragged_dot_general_jvp, symbolic_zeros=True)
ragged_dot_general_p.def_transpose(_ragged_dot_general_transpose)
ragged_dot_general_p.def_batching(_ragged_dot_general_batching)
register_lowering(ragged_dot_general_p, lower_fun(_expansion))


def ragged_dot_general_expansion(eqn):
    """The expansion of a ``ragged_dot_general`` equation as a function of its operands: what
    XLA compiles (``minijax.flops`` counts its operations)."""
    return functools.partial(_expansion, **eqn.params)
