"""``dot_general``: the one contraction primitive (matmul, batched matmul, dot, outer, ...).

``dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``. The
result's axes are the batch axes (in the order given), then the free axes of ``lhs``, then
the free axes of ``rhs`` (each in increasing order), as in XLA and StableHLO.

Its parameters are JAX's: ``precision`` (None, a pair of ``lax.Precision``, or a dot
algorithm: see ``minijax.lax.precision``) is written on the StableHLO op;
``preferred_element_type`` (None or a dtype) is the result's dtype. The operands may have two
dtypes: the result takes the more precise one, in XLA's order (see ``_result_dtype``), and
the lowering converts both to it, as JAX lowers for the CPU.
"""
from __future__ import annotations

import operator
import string
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.elementwise import convert_element_type
from minijax.lax.precision import ON_CPU, algorithm_types, canonicalize_precision
from minijax.lax.structural import transpose
from minijax.lowering import register_lowering, tensor_type
from minijax.lowering.ops import dot_algorithm, precision_config
from minijax.sharding import rules as sharding_rules

dot_general_p = Primitive('dot_general', eager_on_xla=True)

#: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``, each a sequence of axes.
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
    """Contract ``lhs`` and ``rhs`` over the contracting axes, batched over the batch axes.
    ``preferred_element_type`` is the result's dtype (an int8 product may be float32, a
    float64 one float32); ``precision`` a ``lax.Precision`` (or a pair of them, or a name),
    which only the accelerators heed."""
    return dot_general_p.bind(
        lhs, rhs, dimension_numbers=_dimension_numbers(dimension_numbers),
        precision=canonicalize_precision(precision),
        preferred_element_type=None if preferred_element_type is None
        else dtypes.check_supported(preferred_element_type),
        **sharding_rules.sharding_param('out_sharding', out_sharding, 'dot_general'))


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
    """``dot_general``; without ``dimension_numbers``, the plain vector/matrix product
    (``lhs``'s last axis against ``rhs``'s first), as ``jax.lax.dot``."""
    if dimension_numbers is None:
        lhs_shape, rhs_shape = core.get_aval(lhs).shape, core.get_aval(rhs).shape
        if not (1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2
                and lhs_shape[-1] == rhs_shape[0]):
            raise ValueError(
                'jax.lax.dot: dimension_numbers must be specified when not performing simple'
                ' un-batched matrix-matrix, matrix-vector, or vector-vector products;'
                f' got lhs_shape={lhs_shape} rhs_shape={rhs_shape}')
        dimension_numbers = (((len(lhs_shape) - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                       out_sharding=out_sharding)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the leading (batch) axes of two arrays of equal rank >= 2."""
    lhs_ndim, rhs_ndim = len(core.get_aval(lhs).shape), len(core.get_aval(rhs).shape)
    if min(lhs_ndim, rhs_ndim) < 2:
        raise ValueError(f'Arguments to batch_matmul must be at least 2D, got {lhs_ndim}, '
                         f'{rhs_ndim}')
    if lhs_ndim != rhs_ndim:
        raise ValueError(f'Arguments to batch_matmul must have same ndim, got {lhs_ndim}, '
                         f'{rhs_ndim}')
    batch = tuple(range(lhs_ndim - 2))
    return dot_general(lhs, rhs, (((lhs_ndim - 1,), (rhs_ndim - 2,)), (batch, batch)),
                       precision)


def _dimension_numbers(numbers):
    """``numbers`` as four tuples of ints, or a TypeError showing the expected form."""
    try:
        (lc, rc), (lb, rb) = numbers
        return tuple(tuple(tuple(operator.index(a) for a in axes) for axes in pair)
                     for pair in ((lc, rc), (lb, rb)))
    except (TypeError, ValueError):
        raise TypeError('dot_general: dimension_numbers must be ((lhs_contracting, '
                        'rhs_contracting), (lhs_batch, rhs_batch)), each a sequence of axes, '
                        f'got {numbers!r}') from None


def _free_axes(ndim, contracting, batch):
    return [a for a in range(ndim) if a not in contracting and a not in batch]


def _bit_width(dtype):
    return 1 if dtype == dtypes.bool_ else np.dtype(dtype).itemsize * 8


def _precision_rank(dtype):
    """XLA's order of element types for a contraction of two (its ``HigherPrecisionType``):
    complex above real, then by exponent range, significand, bit width; signed above
    unsigned."""
    part = dtypes.real_part_dtype(dtype)
    floating = dtypes.is_float(part)
    return (dtypes.is_complex(dtype), dtypes.finfo(part).maxexp if floating else -1,
            dtypes.finfo(part).nmant if floating else -1, _bit_width(part),
            dtypes.kind(part) != 'u')


def _result_dtype(lhs_dtype, rhs_dtype, preferred_element_type):
    """The more precise operand dtype (the two must differ in rank if they differ), or
    ``preferred_element_type``: no narrower than that for integers, as XLA requires."""
    if _precision_rank(lhs_dtype) == _precision_rank(rhs_dtype) and lhs_dtype != rhs_dtype:
        raise TypeError(f'lax.dot_general argument type error: {np.dtype(lhs_dtype).name}, '
                        f'{np.dtype(rhs_dtype).name}')  # (JAX's text)
    dtype = max(lhs_dtype, rhs_dtype, key=_precision_rank)
    if preferred_element_type is None or preferred_element_type == dtype:
        return np.dtype(dtype)
    if not dtypes.is_float(dtype) and _bit_width(preferred_element_type) < _bit_width(dtype):
        raise TypeError('`preferred_element_type` must not be narrower than the original type, '
                        f'got preferred_element_type of {np.dtype(preferred_element_type).name} '
                        f'for result type of {np.dtype(dtype).name}.')  # (JAX's text)
    return np.dtype(preferred_element_type)


def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers

    def axes_ok(axes, ndim):
        return all(0 <= a < ndim for a in axes) and len(set(axes)) == len(axes)

    ok = (len(lc) == len(rc) and len(lb) == len(rb)
          and axes_ok(lc + lb, lhs.ndim) and axes_ok(rc + rb, rhs.ndim)
          and all(lhs.shape[a] == rhs.shape[b] for a, b in zip(lc + lb, rc + rb)))
    if not ok:
        raise TypeError(f'dot_general: cannot contract {lhs.str_short()} with '
                        f'{rhs.str_short()} over dimension_numbers={dimension_numbers}')
    shape = ([lhs.shape[a] for a in lb] + [lhs.shape[a] for a in _free_axes(lhs.ndim, lc, lb)]
             + [rhs.shape[a] for a in _free_axes(rhs.ndim, rc, rb)])
    dtype = _result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding=None):
    """Operands of two dtypes are converted to the result's first (as the lowering does);
    one dtype is contracted in the wider of it and the result's, then rounded. A dot
    algorithm converts the operands to its types and rounds the sum to its own first."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = _result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    types = algorithm_types(precision, lhs.dtype, rhs.dtype, out_dtype)
    if types is not None:
        lhs_dtype, rhs_dtype, accumulation = types
        out = _dot_general_impl(lhs.astype(lhs_dtype), rhs.astype(rhs_dtype),
                                dimension_numbers=dimension_numbers, precision=None,
                                preferred_element_type=accumulation)
        return out.astype(out_dtype)
    compute = out_dtype if lhs.dtype != rhs.dtype else dtypes.promote(
        (lhs.dtype, False), (out_dtype, False))[0]
    out = _contract(lhs.astype(compute), rhs.astype(compute),
                    dimension_numbers=dimension_numbers)
    return np.asarray(out).astype(out_dtype)


@dtypes.accumulates_in_float32
def _contract(lhs, rhs, *, dimension_numbers):
    """Result axes in StableHLO's order: batch, lhs free, rhs free."""
    (lc, rc), (lb, rb) = dimension_numbers
    if not lc:
        return _outer_product(lhs, rhs, lb, rb)
    letters = iter(string.ascii_letters)
    lhs_sub = [next(letters) for _ in range(lhs.ndim)]
    rhs_sub = [next(letters) for _ in range(rhs.ndim)]
    for a, b in zip(lc + lb, rc + rb):
        rhs_sub[b] = lhs_sub[a]
    out_sub = ([lhs_sub[a] for a in lb] + [lhs_sub[a] for a in _free_axes(lhs.ndim, lc, lb)]
               + [rhs_sub[a] for a in _free_axes(rhs.ndim, rc, rb)])
    spec = f'{"".join(lhs_sub)},{"".join(rhs_sub)}->{"".join(out_sub)}'
    out = np.einsum(spec, lhs, rhs)
    if lhs.dtype == np.float32 and not np.isfinite(out).all():
        # XLA fuses each multiply into its add, so a product is never rounded to inf on its
        # own: summed in float64, inf - inf appears only where it does in XLA.
        out = np.einsum(spec, lhs, rhs, dtype=np.float64)
    if any(lhs.shape[a] == 0 for a in lc):
        out = np.zeros_like(out)  # an empty sum is 0; NumPy's einsum can leave it unwritten
    return np.asarray(out, lhs.dtype)


def _outer_product(lhs, rhs, lb, rb):
    """A dot_general with nothing to sum is a broadcast multiply, so a -0. product stays -0.
    as in XLA (einsum adds each product to +0.)."""
    lf, rf = _free_axes(lhs.ndim, (), lb), _free_axes(rhs.ndim, (), rb)
    lhs, rhs = lhs.transpose([*lb, *lf]), rhs.transpose([*rb, *rf])
    lhs = lhs.reshape(lhs.shape + (1,) * len(rf))
    rhs = rhs.reshape(rhs.shape[:len(rb)] + (1,) * len(lf) + rhs.shape[len(rb):])
    return lhs * rhs


def _operand_cotangent(ct, other, x_aval, x_axes, other_axes, x_is_lhs, params):
    """The cotangent of one operand ``x``: contract ``ct`` with the ``other`` operand over the
    other's free axes (batching over the batch axes), put the axes in ``x``'s order, and
    convert to ``x``'s dtype (a ``preferred_element_type`` may differ), as JAX does."""
    (x_c, x_b), (other_c, other_b) = x_axes, other_axes
    other_ndim = core.get_aval(other).ndim
    n_batch = len(x_b)
    x_free, other_free = _free_axes(x_aval.ndim, x_c, x_b), _free_axes(other_ndim, other_c,
                                                                        other_b)
    # Axes of ct: batch, lhs free, rhs free.
    start = n_batch + len(x_free) if x_is_lhs else n_batch
    other_free_in_ct = range(start, start + len(other_free))
    # Axes of out: batch, x's free axes, then other's contracting axes in increasing order.
    out_to_x = [*x_b, *x_free, *(x_c[other_c.index(a)] for a in sorted(other_c))]
    params = {k: v for k, v in params.items() if k != 'out_sharding'}
    if core.sharding_in_types():  # (as JAX: the cotangent is sharded as x is, replicated
        spec = sharding_rules.spec_of(x_aval)  # if x is unsharded over the mesh in context)
        mesh = sharding_rules.mesh_or_current(x_aval)
        if not mesh.empty:
            params['out_sharding'] = sharding_rules.sharded(mesh, [spec[a] for a in out_to_x],
                                                            x_aval)
    out = dot_general_p.bind(ct, other, dimension_numbers=(
        (tuple(other_free_in_ct), tuple(other_free)), (tuple(range(n_batch)), other_b)),
        **params)
    out = transpose(out, np.argsort(out_to_x))
    if core.get_aval(out).dtype != x_aval.dtype:
        out = convert_element_type(out, x_aval.dtype)
    return out


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, **params):
    (lc, rc), (lb, rb) = dimension_numbers
    if is_undefined_primal(lhs) and is_undefined_primal(rhs):
        raise TypeError('dot_general is not linear in both operands at once')
    if is_undefined_primal(lhs):
        return [_operand_cotangent(ct, rhs, lhs.aval, (lc, lb), (rc, rb), True, params), None]
    return [None, _operand_cotangent(ct, lhs, rhs.aval, (rc, rb), (lc, lb), False, params)]


def _dot_general_batching(vals, dims, *, dimension_numbers, **params):
    """No transposes, as JAX batches it: both batched, the two batch axes become the first
    pair of batch dimensions (the result's axis 0); one batched, its batch axis is one more
    free axis of that operand, where the result's free axes keep their order."""
    params.pop('out_sharding', None)  # (the batched result's sharding is the rule's)
    (lhs, rhs), (lhs_dim, rhs_dim) = vals, dims
    (lc, rc), (lb, rb) = dimension_numbers

    def bump(axes, bdim):  # the operand's axes past its batch axis move one up
        return tuple(a + (a >= bdim) for a in axes)

    if lhs_dim is not not_mapped and rhs_dim is not not_mapped:
        numbers = ((bump(lc, lhs_dim), bump(rc, rhs_dim)),
                   ((lhs_dim, *bump(lb, lhs_dim)), (rhs_dim, *bump(rb, rhs_dim))))
        out_dim = 0
    elif lhs_dim is not not_mapped:
        free = _free_axes(core.get_aval(lhs).ndim - 1, lc, lb)
        numbers = ((bump(lc, lhs_dim), rc), (bump(lb, lhs_dim), rb))
        out_dim = len(lb) + sum(a < lhs_dim for a in free)
    else:
        free = _free_axes(core.get_aval(rhs).ndim - 1, rc, rb)
        numbers = ((lc, bump(rc, rhs_dim)), (lb, bump(rb, rhs_dim)))
        out_dim = core.get_aval(lhs).ndim - len(lc) + sum(a < rhs_dim for a in free)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=numbers, **params), out_dim


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision,
                          preferred_element_type, out_sharding=None):
    """Operands of two dtypes are converted to the result's, as JAX lowers for CPUs; a dot
    algorithm converts them to the types it takes and sums in its accumulation type."""
    (lc, rc), (lb, rb) = dimension_numbers
    (lhs_aval, rhs_aval), (out_aval,) = ctx.avals_in, ctx.avals_out
    types = algorithm_types(precision, lhs_aval.dtype, rhs_aval.dtype, out_aval.dtype)
    if types is None:  # two dtypes: both converted (one maybe to its own), as JAX does
        mixed = lhs_aval.dtype != rhs_aval.dtype
        converted_to = [out_aval.dtype if mixed else None] * 2
        accumulation, algorithm = out_aval.dtype, {}
    else:  # only where the algorithm's type is not the operand's
        converted_to = [t if t != a.dtype else None for t, a in zip(types, ctx.avals_in)]
        accumulation = types[2]
        algorithm = {'algorithm': dot_algorithm(*ON_CPU[precision].written)}
    lhs, rhs = (x if dtype is None else
                hlo.ConvertOp(tensor_type(aval.update(dtype=dtype)), x).result
                for x, aval, dtype in zip((lhs, rhs), ctx.avals_in, converted_to))
    numbers = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb), rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc), rhs_contracting_dimensions=list(rc))
    out = hlo.DotGeneralOp(tensor_type(out_aval.update(dtype=accumulation)), lhs, rhs, numbers,
                           precision_config=precision_config(precision), **algorithm).result
    if accumulation != out_aval.dtype:
        out = hlo.ConvertOp(tensor_type(out_aval), out).result
    return out


def _tangent_through(position):
    """The tangent term of operand ``position``: the product with that operand's tangent."""
    def term(t, lhs, rhs, **params):
        operands = [lhs, rhs]
        operands[position] = t
        return dot_general_p.bind(*operands, **params)
    return term


dot_general_p.def_impl(_dot_general_impl)
dot_general_p.def_abstract_eval(_dot_general_abstract_eval)
ad.defjvp(dot_general_p, _tangent_through(0), _tangent_through(1))
dot_general_p.def_transpose(_dot_general_transpose)
dot_general_p.def_batching(_dot_general_batching)
register_lowering(dot_general_p, _dot_general_lowering)
