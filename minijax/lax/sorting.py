"""Sorting: the multi-operand ``sort`` primitive (``stablehlo.sort``) and ``sort_key_val``
built on it; ``top_k`` (``chlo.top_k``).

``sort`` orders all its operands along ``dimension`` by the first ``num_keys`` of them,
lexicographically (the first key primary), and returns every operand permuted the same way.
Floats are ordered as JAX orders them: -inf < ... < -0. == +0. < ... < inf < NaN, every NaN
equal to every other, and -0. equal to +0. (so a stable sort keeps zeros in their input order).
The comparator region of the lowering makes that a total order by first mapping -0. to +0. and
every NaN to one positive NaN, then comparing with ``TOTALORDER``.

Differentiation. The permutation depends only on the keys, so for fixed keys ``sort`` is a
linear function of its other operands: sorting the tangents as extra non-key operands beside
the (primal) keys is their JVP, and that one primitive is its own tangent program. Its
transpose undoes the permutation, by sorting the cotangents by the permutation itself
(``_unsort``). JAX instead sorts an iota beside the keys and gathers the tangents with it; the
result is the same. The JVP sorts stably even when ``is_stable=False``, so that the primal
outputs and the tangents are permuted identically on ties.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching, jvp as ad
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.bitwise import bitwise_and, bitwise_or
from minijax.lax.complex_numbers import imag, real
from minijax.lax.elementwise import eq, eq_to_p, lt_to_p, ne, select_n, total_order_key
from minijax.lax.gather import GatherDimensionNumbers, gather
from minijax.lax.static import static_int
from minijax.lax.structural import broadcasted_iota, reshape
from minijax.lowering import append_block, lower_fun, register_lowering, tensor_type

sort_p = Primitive('sort', multiple_results=True)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """``operand`` (an array, or a tuple of arrays of one shape) sorted along ``dimension``,
    by the first ``num_keys`` arrays (lexicographically); a tuple gives a tuple back."""
    if not isinstance(operand, (tuple, list)):
        if num_keys != 1:
            raise ValueError(f'sort: num_keys={num_keys} must be 1 for a single operand')
        return sort((operand,), dimension, is_stable, num_keys)[0]
    if not operand:
        raise TypeError('sort: needs at least one operand')
    num_keys = static_int(num_keys, 'sort', 'num_keys')
    if not 1 <= num_keys <= len(operand):
        raise ValueError(f'sort: num_keys={num_keys} must be between 1 and the number of '
                         f'operands, {len(operand)}')
    dimension = core.canonicalize_axis(dimension, np.ndim(operand[0]), 'sort: dimension')
    return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                             num_keys=num_keys))


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """``values`` permuted as sorting ``keys`` along ``dimension`` permutes them: (keys, values)."""
    return sort((keys, values), dimension, is_stable, num_keys=1)


def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    shapes = {x.shape for x in operands}
    if len(shapes) != 1:
        raise TypeError('sort: operands must share one shape, got '
                        + ', '.join(x.str_short() for x in operands))
    if not 0 <= dimension < operands[0].ndim:
        raise TypeError(f'sort: dimension {dimension} is out of range for '
                        f'{operands[0].str_short()}')
    if not 1 <= num_keys <= len(operands):
        raise TypeError(f'sort: num_keys={num_keys} for {len(operands)} operands')
    return [ShapedArray(x.shape, x.dtype, x.weak_type) for x in operands]


# ----------------------------------------------------------------------------- impl

def _lexsort_keys(key):
    """``key`` as NumPy lexsort keys, least significant first: a float sorts by whether it is
    a NaN (NaNs last), then by value (where -0. == +0.); a complex number by its real part,
    then its imaginary part, each a float (NumPy puts any number with a NaN part last)."""
    if dtypes.is_complex(key.dtype):
        return _lexsort_keys(key.imag) + _lexsort_keys(key.real)
    if not dtypes.is_float(key.dtype):
        return [key]
    is_nan = np.isnan(key)
    return [np.where(is_nan, 0, key), is_nan]


def sort_order(keys, axis):
    """The stable sorting permutation of ``keys`` (NumPy arrays) along the last ``axis``."""
    lexsort_keys = [k for key in reversed(keys) for k in _lexsort_keys(key)]
    return np.lexsort(lexsort_keys, axis=axis)


def _sort_impl(*operands, dimension, is_stable, num_keys):
    # A stable sort is a correct unstable one, so is_stable does not matter here.
    operands = [np.moveaxis(np.asarray(x), dimension, -1) for x in operands]
    order = sort_order(operands[:num_keys], -1)
    return [np.moveaxis(np.take_along_axis(x, order, -1), -1, dimension) for x in operands]


# ----------------------------------------------------------------------------- jvp, transpose

def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    params = dict(dimension=dimension, is_stable=True)
    outs = sort_p.bind(*primals, num_keys=num_keys, **params)
    nonzero = ad.drop_zeros(tangents)
    if not nonzero:
        return outs, [ad.Zero(core.get_aval(o)) for o in outs]
    sorted_tangents = sort_p.bind(*primals[:num_keys], *nonzero, num_keys=num_keys,
                                  **params)[num_keys:]
    return outs, ad.fill_zeros(sorted_tangents, ad.nonzero_flags(tangents), outs)


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    keys, values = operands[:num_keys], operands[num_keys:]
    if any(is_undefined_primal(k) for k in keys):
        raise ValueError('sort: only its non-key operands can be transposed (sort is not '
                         'linear in its keys)')
    linear = [i for i, v in enumerate(values)
              if is_undefined_primal(v) and not isinstance(cts[num_keys + i], ad.Zero)]
    cts_in = [None] * len(operands)
    if linear:
        unsorted = _unsort(keys, [cts[num_keys + i] for i in linear], dimension, num_keys)
        for i, ct in zip(linear, unsorted):
            cts_in[num_keys + i] = ct
    return cts_in


def _unsort(keys, sorted_values, dimension, num_keys):
    """The arrays whose stable sort by ``keys`` gives ``sorted_values``: sorting an iota by the
    keys gives the permutation, and sorting by the permutation inverts it."""
    shape = core.get_aval(keys[0]).shape
    index_dtype = dtypes.int32 if shape[dimension] < 2 ** 31 else dtypes.int64
    positions = broadcasted_iota(index_dtype, shape, dimension)
    permutation = sort_p.bind(*keys, positions, dimension=dimension, is_stable=True,
                              num_keys=num_keys)[-1]
    return sort_p.bind(permutation, *sorted_values, dimension=dimension, is_stable=True,
                       num_keys=1)[1:]


# ----------------------------------------------------------------------------- vmap

def _sort_batching(vals, dims, *, dimension, is_stable, num_keys):
    """Every operand gets the batch axis of the first batched one (the others are moved or
    broadcast there); the sorted dimension shifts past it when it comes after it."""
    size = batching.axis_size_of(vals, dims)
    bdim = next(d for d in dims if d is not batching.not_mapped)
    vals = [batching.move_batch_axis(size, d, bdim, x) for x, d in zip(vals, dims)]
    outs = sort_p.bind(*vals, dimension=dimension + (bdim <= dimension), is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [bdim] * len(outs)


# ----------------------------------------------------------------------------- lowering

def _canonical_float(x):
    """``x`` with -0. made +0. and every NaN one positive NaN: the key the comparator
    compares, so that a total-order compare treats those as equal (JAX's ops, in its order)."""
    dtype = core.get_aval(x).dtype
    zero = np.zeros((), dtype)
    unsigned_zero = select_n(eq(x, zero), x, zero)
    return select_n(ne(x, x), unsigned_zero, np.full((), np.nan, dtype))


def _keys(x):
    """What ``x`` sorts by: a complex number by its real part, then its imaginary part (XLA
    compares no complex numbers itself), floats canonical."""
    dtype = core.get_aval(x).dtype
    if dtypes.is_complex(dtype):
        return [_canonical_float(real(x)), _canonical_float(imag(x))]
    return [_canonical_float(x)] if dtypes.is_float(dtype) else [x]


def _lexicographic_less(*operands, num_keys):
    """The comparator of the operands' scalar pairs (x0, y0, x1, y1, ...): x < y by the first
    ``num_keys`` operands, the first primary, in lax ops; built from the last key up as
    ``lt_k or (eq_k and rest)``, as JAX builds it."""
    x_keys, y_keys = [], []
    for x, y in zip(operands[0:2 * num_keys:2], operands[1:2 * num_keys:2]):
        x_keys += _keys(x)
        y_keys += _keys(y)
    less = None
    for x, y in reversed(list(zip(x_keys, y_keys))):
        lt = lt_to_p.bind(x, y)
        less = lt if less is None else bitwise_or(lt, bitwise_and(eq_to_p.bind(x, y), less))
    return less


def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    op = hlo.SortOp([tensor_type(a) for a in ctx.avals_out], list(operands),
                    dimension=dimension, is_stable=is_stable)
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in for _ in range(2)]
    block = append_block(ctx, op.comparator, *map(tensor_type, scalars))
    comparator = dataclasses.replace(ctx, avals_in=scalars,
                                     avals_out=[ShapedArray((), dtypes.bool_)])
    with ir.InsertionPoint(block):
        hlo.ReturnOp([lower_fun(_lexicographic_less)(comparator, *block.arguments,
                                                     num_keys=num_keys)])
    return list(op.results)


sort_p.def_impl(_sort_impl)
sort_p.def_abstract_eval(_sort_abstract_eval)
sort_p.def_jvp(_sort_jvp, symbolic_zeros=True)
sort_p.def_transpose(_sort_transpose)
sort_p.def_batching(_sort_batching)
register_lowering(sort_p, _sort_lowering)


def sort_flops(size):
    """XLA's cost analysis counts ``n * ceil(log2 n)`` for a sort of ``n`` elements in all."""
    return size * math.ceil(math.log2(size)) if size > 1 else 0


# ----------------------------------------------------------------------------- top_k

top_k_p = Primitive('top_k', multiple_results=True)


def top_k(operand, k, *, axis=-1):
    """The ``k`` largest entries of ``operand`` along ``axis``, largest first, and their
    indices (int32). Floats are ordered totally, as XLA orders them: NaN above inf, +0.
    above -0., a negative NaN below -inf; equal entries come in index order."""
    aval = core.get_aval(operand)
    if aval.ndim == 0 or dtypes.is_complex(aval.dtype):
        raise ValueError(f'top_k: operand must have at least one dimension and an order (no '
                         f'complex numbers), got {aval.str_short()}')
    axis = core.canonicalize_axis(axis, aval.ndim, 'top_k: axis')
    k = static_int(k, 'top_k', 'k')
    if not 0 <= k <= aval.shape[axis]:
        raise ValueError(f'top_k: k={k} must be between 0 and the size {aval.shape[axis]} of '
                         f'axis {axis}')
    return top_k_p.bind(operand, k=k, axis=axis)  # a list, as JAX's


def _top_k_abstract_eval(operand, *, k, axis):
    if not 0 <= axis < operand.ndim or not 0 <= k <= operand.shape[axis]:
        raise TypeError(f'top_k: k={k} along axis {axis} of {operand.str_short()}')
    shape = operand.shape[:axis] + (k,) + operand.shape[axis + 1:]
    return [ShapedArray(shape, operand.dtype, operand.weak_type),
            ShapedArray(shape, dtypes.int32)]


def _descending_key(x):
    """A key whose ascending order is ``x``'s descending total order: its total-order key
    complemented."""
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    return ~total_order_key(x)


def _top_k_impl(operand, *, k, axis):
    operand = np.moveaxis(np.asarray(operand), axis, -1)
    order = np.argsort(_descending_key(operand), axis=-1, kind='stable')[..., :k]
    values = np.take_along_axis(operand, order, -1)
    return [np.moveaxis(values, -1, axis), np.moveaxis(order.astype(np.int32), -1, axis)]


def _top_k_jvp(primals, tangents, *, k, axis):
    """The tangent's entries at the chosen indices, gathered one per output position."""
    values, indices = top_k_p.bind(*primals, k=k, axis=axis)
    tangent, = tangents
    if isinstance(tangent, ad.Zero):
        return [values, indices], [ad.Zero(core.get_aval(values)), ad.Zero(core.get_aval(indices))]
    shape = core.get_aval(indices).shape
    batch = tuple(d for d in range(len(shape)) if d != axis)
    dnums = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,), operand_batching_dims=batch,
                                   start_indices_batching_dims=batch)
    picked = gather(tangent, reshape(indices, shape + (1,)), dnums, (1,) * len(shape))
    return [values, indices], [picked, ad.Zero(core.get_aval(indices))]


def _top_k_batching(vals, dims, *, k, axis):
    operand, = vals
    bdim, = dims
    return top_k_p.bind(operand, k=k, axis=axis + (bdim <= axis)), [bdim, bdim]


def _top_k_lowering(ctx, operand, *, k, axis):
    """``chlo.top_k`` works along the last axis: another axis is swapped there and back."""
    ndim = ctx.avals_in[0].ndim
    swap = list(range(ndim))
    swap[axis], swap[-1] = swap[-1], swap[axis]
    if axis != ndim - 1:
        operand = hlo.transpose(operand, swap)
    results = list(chlo.TopKOp(operand, k).results)
    if axis != ndim - 1:
        results = [hlo.transpose(r, swap) for r in results]
    return results


top_k_p.def_impl(_top_k_impl)
top_k_p.def_abstract_eval(_top_k_abstract_eval)
top_k_p.def_jvp(_top_k_jvp, symbolic_zeros=True)
top_k_p.def_batching(_top_k_batching)
register_lowering(top_k_p, _top_k_lowering)
