"""Reductions over axes: reduce_sum, reduce_prod, reduce_max, reduce_min (``stablehlo.reduce``
with an add, multiply, max or min body), the bitwise reduce_and, reduce_or and reduce_xor,
and argmax/argmin (a ``stablehlo.reduce`` over (value, index) pairs).

``reduction_primitive`` defines the parts the three share: abstract eval, batching, lowering.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, tree_util
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import move_batch_axis, not_mapped, vmap
from minijax.ir.jaxpr import jaxpr_as_fun
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lax.bitwise import bitwise_and, bitwise_or
from minijax.lax.elementwise import (
    add, convert_element_type, div, eq, gt, lt, max_p, min_p, mul, ne, select)
from minijax.lax.slicing import slice_in_dim
from minijax.lax.static import default_options_only
from minijax.lax.structural import (
    broadcast_in_dim, broadcasted_iota, full, pad, reshape, squeeze)
from minijax.lowering import (append_block, lower_closed_jaxpr, lower_fun, register_lowering,
                              tensor_type)
from minijax.lowering import ops


def _reduced_shape(shape, axes):
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _check_axes(name, x, axes):
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise TypeError(f'{name}: axes {axes} out of range for {x.str_short()}')


def _batched_axes(axes, bdim):
    """The reduced axes of the batched operand, and where the batch axis ends up.

    Computed with NumPy, as JAX's reducer batching rule does, so the axes are ``np.int64``
    and the jaxpr prints as JAX's (``axes=(np.int64(2),)``)."""
    new_axes = tuple(np.where(np.less(axes, bdim), axes, np.add(axes, 1)))
    return new_axes, bdim - sum(a < bdim for a in new_axes)


def reduction_primitive(name, impl, body, identity, eager_on_xla=False, logical=False,
                        numeric=False):
    """Define ``name`` reducing with ``impl`` (NumPy) and ``body(a, b, dtype)`` (StableHLO
    values), starting from ``identity(dtype)``; the caller adds the differentiation rules.
    ``eager_on_xla`` for a sum, whose rounding depends on the order XLA picks (see
    ``Primitive``); ``logical`` for the bitwise reductions, which take booleans and integers
    only; ``numeric`` for a sum, which takes no booleans (JAX's TypeError)."""
    prim = Primitive(name, eager_on_xla=eager_on_xla)

    def abstract_eval(x, *, axes):
        _check_axes(name, x, axes)
        if logical and dtypes.kind(x.dtype) not in 'biu':
            raise TypeError('logical reduction requires operand dtype bool or int, got '
                            f'{x.dtype.name}.')  # (JAX's text)
        if numeric and x.dtype == dtypes.bool_:
            raise TypeError(f'{name} needs a numeric operand, got {x.str_short()} (convert '
                            'booleans to a number first)')
        return ShapedArray(_reduced_shape(x.shape, axes), x.dtype, x.weak_type)

    def batching(vals, dims, *, axes):
        (x,), (bdim,) = vals, dims
        new_axes, out_bdim = _batched_axes(axes, bdim)
        return prim.bind(x, axes=new_axes), out_bdim

    def lowering(ctx, x, *, axes):
        if not axes:  # the spec lets a reduce add its init value (+0. to -0.); XLA does not
            return x
        dtype = ctx.avals_in[0].dtype
        return ops.reduce(ctx, x, np.asarray(identity(dtype), dtype), axes,
                          lambda a, b: body(a, b, dtype))

    def eager(x, *, axes):
        x = np.asarray(x)
        return impl(x, axis=axes) if axes else x.copy()  # reducing no axis keeps -0. as XLA

    prim.def_impl(eager)
    prim.def_abstract_eval(abstract_eval)
    prim.def_batching(batching)
    register_lowering(prim, lowering)
    return prim


@dtypes.accumulates_in_float32
def _sum(x, axis):
    return np.sum(x, axis, dtype=x.dtype)


@dtypes.accumulates_in_float32
def _product(x, axis):
    return np.prod(x, axis, dtype=x.dtype)


def _chooser_reduction(np_reduce, identity, zero_winner, chooser):
    """``np_reduce`` (np.max or np.min) as XLA reduces: an empty reduction gives
    ``identity(dtype)``, and since -0. orders below +0., a zero result is ``zero_winner``
    (0. for max, -0. for min) whenever one of the reduced zeros is. Complex numbers fold
    with the primitive's ``chooser`` (JAX's order of them)."""
    def impl(x, axis):
        if dtypes.is_complex(x.dtype):
            count = math.prod(x.shape[a] for a in axis)  # not -1: x may be empty
            rows = np.moveaxis(x, axis, range(len(axis))).reshape(count, *_reduced_shape(
                x.shape, axis))
            return functools.reduce(chooser, rows, np.full(rows.shape[1:], identity(x.dtype),
                                                           x.dtype))
        out = np_reduce(x, axis, initial=identity(x.dtype))
        if not dtypes.is_float(x.dtype):
            return out
        winner_present = np.any((x == 0) & (np.signbit(x) == np.signbit(zero_winner)), axis)
        zero = np.where(winner_present, zero_winner, -zero_winner)
        return np.where(out == 0, zero, out).astype(x.dtype)
    return impl


def _all_ones(dtype):
    return ~np.zeros((), dtype)


def _zero(dtype):
    return np.zeros((), dtype)


def _one(dtype):
    return np.ones((), dtype)


def _of_real_part(bound):
    """``bound`` (``dtypes.lowest`` or ``highest``) for complex dtypes too: their real part's
    (-inf + 0j), the identity of JAX's complex max and min, which order lexicographically."""
    return lambda dtype: bound(dtypes.real_part_dtype(dtype))


#: The identities of max and min (``cummax`` and ``cummin`` share them).
lowest, highest = _of_real_part(dtypes.lowest), _of_real_part(dtypes.highest)
reduce_sum_p = reduction_primitive('reduce_sum', _sum, lambda a, b, _: hlo.AddOp(a, b).result,
                                   _zero, eager_on_xla=True, numeric=True)
reduce_prod_p = reduction_primitive('reduce_prod', _product,
                                    lambda a, b, _: hlo.MulOp(a, b).result, _one,
                                    eager_on_xla=True, numeric=True)
reduce_max_p = reduction_primitive(
    'reduce_max', _chooser_reduction(np.max, lowest, 0., core.impl_rules[max_p]),
    lambda a, b, dtype: ops.choose(a, b, 'GT', dtype), lowest)
reduce_min_p = reduction_primitive(
    'reduce_min', _chooser_reduction(np.min, highest, -0., core.impl_rules[min_p]),
    lambda a, b, dtype: ops.choose(a, b, 'LT', dtype), highest)


def _bitwise_reduction(name, ufunc, body_op, identity):
    """The primitive and function ``reduce_and``/``reduce_or``/``reduce_xor``: bitwise on
    integers, logical on booleans (``jnp.all`` and ``jnp.any``, as in JAX), lowered to a
    ``stablehlo.reduce`` with an ``and``/``or``/``xor`` body."""
    prim = reduction_primitive(name, lambda x, axis: ufunc.reduce(x, axis=axis),
                               lambda a, b, _: body_op(a, b).result,
                               identity, logical=True)
    ad.defjvp_zero(prim)

    def reduce(operand, axes):
        return prim.bind(operand, axes=_axes(name, operand, axes))
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = (f'Bitwise {ufunc.__name__[8:]} of ``operand`` over ``axes``; logical '
                      'for booleans.')
    return prim, reduce


reduce_and_p, reduce_and = _bitwise_reduction('reduce_and', np.bitwise_and, hlo.AndOp,
                                              _all_ones)
reduce_or_p, reduce_or = _bitwise_reduction('reduce_or', np.bitwise_or, hlo.OrOp, _zero)
reduce_xor_p, reduce_xor = _bitwise_reduction('reduce_xor', np.bitwise_xor, hlo.XorOp, _zero)


def _axes(name, operand, axes):
    """``axes`` (a sequence of ints; minijax takes an int too) as the primitive's tuple."""
    return core.canonicalize_axes(axes, np.ndim(operand), f'{name}: axis')


def reduce_sum(operand, axes=None, *, out_sharding=None, axis=None):
    """Sum of ``operand`` over ``axes`` (every axis when None). ``axis`` is the seed's name
    for ``axes`` (Autodidax's ``reduce_sum(x, axis=0)``)."""
    default_options_only('reduce_sum', out_sharding=out_sharding)
    return reduce_sum_p.bind(operand, axes=_axes('reduce_sum', operand,
                                                 axis if axes is None else axes))


def reduce_prod(operand, axes):
    """Product of ``operand`` over ``axes``."""
    return reduce_prod_p.bind(operand, axes=_axes('reduce_prod', operand, axes))


def reduce_max(operand, axes):
    """Maximum of ``operand`` over ``axes``."""
    return reduce_max_p.bind(operand, axes=_axes('reduce_max', operand, axes))


def reduce_min(operand, axes):
    """Minimum of ``operand`` over ``axes``."""
    return reduce_min_p.bind(operand, axes=_axes('reduce_min', operand, axes))


def _monoid_reducers():
    """``lax.reduce``'s computations with a reduction primitive of their own: (reducer, its
    identity, whether it takes booleans and integers only), as JAX picks them."""
    from minijax.lax.bitwise import bitwise_and, bitwise_or, bitwise_xor
    from minijax.lax.elementwise import max, min  # noqa: A004 (lax names)
    return {add: (reduce_sum, _zero, False), mul: (reduce_prod, _one, False),
            max: (reduce_max, lowest, False), min: (reduce_min, highest, False),
            bitwise_and: (reduce_and, _all_ones, True), bitwise_or: (reduce_or, _zero, True),
            bitwise_xor: (reduce_xor, _zero, True)}


def _monoid_reducer(computation, inits):
    """The reduction primitive's function for ``computation`` from ``inits``, if they form
    a monoid JAX recognizes (one concrete scalar init, the identity in its own dtype)."""
    try:
        reducer, identity, intlike_only = _monoid_reducers()[computation]
    except (KeyError, TypeError):  # (not a lax function; or unhashable)
        return None
    if intlike_only and dtypes.kind(core.get_aval(inits[0]).dtype) not in 'biu':
        return None
    return reducer if is_identity(inits, identity) else None


def is_identity(inits, identity) -> bool:
    """Whether ``inits`` is one concrete scalar, ``identity(its dtype)``: a monoid's start,
    as JAX recognizes one (lax.reduce, lax.reduce_window)."""
    if len(inits) != 1 or isinstance(inits[0], core.Tracer) or np.shape(inits[0]):
        return False
    return bool(np.equal(np.asarray(inits[0]), identity(core.get_aval(inits[0]).dtype)))


def flatten_operands_and_inits(operands, init_values):
    """The leaves of ``operands`` and ``init_values`` and their one tree, or JAX's
    ValueError when the trees or the counts differ (lax.reduce, lax.reduce_window)."""
    flat_operands, operand_tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if operand_tree != init_tree:  # (JAX's texts)
        raise ValueError('Operands must have the same tree structure as init_values: '
                         f'{operand_tree} vs. {init_tree}')
    if len(flat_operands) != len(flat_inits):
        raise ValueError('Must have same total number of operands as init_values:  '
                         f'{len(flat_operands)} vs. {len(flat_inits)}')
    return flat_operands, flat_inits, operand_tree


def reduce(operands, init_values, computation, dimensions,  # noqa: A001 (lax.reduce)
           out_sharding=None):
    """``operands`` (a pytree of arrays of one shape) reduced over ``dimensions`` with
    ``computation``, a function of two such pytrees of scalars, starting from
    ``init_values`` (scalars, the same pytree). As in JAX, a monoid (``lax.add`` from 0,
    ``lax.mul`` from 1, ``max``, ``min``, the bitwise ones from their identity, one operand)
    binds its reduction primitive (``reduce_sum``, ...); any other binds ``reduce``, which
    holds ``computation`` traced to a jaxpr (``stablehlo.reduce`` with that body)."""
    default_options_only('reduce', out_sharding=out_sharding)
    flat_operands, flat_inits, init_tree = flatten_operands_and_inits(operands, init_values)
    reducer = _monoid_reducer(computation, flat_inits)
    if reducer is not None:
        out = reducer(flat_operands[0], tuple(dimensions))
        weak = core.get_aval(flat_operands[0]).weak_type and \
            core.get_aval(flat_inits[0]).weak_type
        if core.get_aval(out).weak_type != weak:
            out = convert_element_type(out, core.get_aval(out).dtype, weak_type=weak)
        return out
    closed, out_tree = computation_jaxpr(
        computation, tuple(core.raise_to_shaped(core.get_aval(x)) for x in flat_inits),
        init_tree)
    out = reduce_p.bind(*flat_operands, *flat_inits, computation=computation, jaxpr=closed,
                        dimensions=tuple(dimensions))
    return tree_util.tree_unflatten(out_tree, out)


def trace_computation(computation, flat_avals, tree):
    """``computation(xs, ys)`` (``xs`` and ``ys`` two pytrees ``tree`` of scalars of
    ``flat_avals``) traced to a closed jaxpr taking ``xs`` then ``ys`` flat, and its output
    tree."""
    avals = tree_util.tree_unflatten(tree, flat_avals)
    in_avals, in_tree = tree_util.tree_flatten((avals, avals))
    out_trees = []

    def flat(*args):
        xs, ys = tree_util.tree_unflatten(in_tree, args)
        outs, out_tree = tree_util.tree_flatten(computation(xs, ys))
        out_trees.append(out_tree)
        return outs

    closed, closed_over = trace_to_jaxpr(flat, in_avals)
    if closed_over:
        raise NotImplementedError("Reduction computations can't close over Tracers. Please "
                                  'open an issue at https://github.com/jax-ml/jax.')
    return closed, out_trees[0]


@functools.lru_cache(maxsize=256)
def _cached_trace(computation, flat_avals, tree, where):
    return trace_computation(computation, flat_avals, tree)


computation_jaxpr_cache_clear = _cached_trace.cache_clear


def computation_jaxpr(computation, flat_avals, tree):
    """``trace_computation`` once per computation, types and place in the user's code (a
    loop traces it once; its equations are located where it is called), as JAX caches it:
    eager evaluation compiles each use once."""
    try:
        hash(computation)
    except TypeError:
        return trace_computation(computation, flat_avals, tree)
    where = tuple(core.user_frames(core.user_source_info()))
    return _cached_trace(computation, flat_avals, tree, where)


# reduce_sum is linear: its transpose broadcasts the cotangent back over the summed axes.
ad.defjvp_linear(reduce_sum_p)
reduce_sum_p.def_transpose(lambda ct, x, *, axes: [
    _unreduce(ct, x.aval.shape, axes, x.aval._sharding)])  # (sharded as x, as JAX)


def _unreduce(x, shape, axes, sharding=None):
    """``x``, a reduction over ``axes`` of an array of ``shape``, broadcast back to it."""
    return broadcast_in_dim(x, shape, [d for d in range(len(shape)) if d not in axes],
                            out_sharding=sharding)


def _reduce_chooser_jvp(prim):
    """The tangent of a max/min is the mean of the tangents at the places that attain it."""
    def partial(t, x, *, axes):
        shape = core.get_aval(x).shape
        ans = prim.bind(x, axes=axes)
        attains = convert_element_type(eq(x, _unreduce(ans, shape, axes)), core.get_aval(t).dtype)
        return div(reduce_sum_p.bind(mul(t, attains), axes=axes),
                   reduce_sum_p.bind(attains, axes=axes))
    ad.defjvp(prim, partial)


_reduce_chooser_jvp(reduce_max_p)
_reduce_chooser_jvp(reduce_min_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
    """JAX's rule: the reduced axes flattened to the front, then halved until one row is
    left, multiplying the halves pairwise with the product rule (an odd row count pads the
    second half with a 1 of zero tangent). A zero factor needs no division."""
    (x,), (t,) = primals, tangents
    shape = core.get_aval(x).shape
    kept = [d for d in range(len(shape)) if d not in axes]
    kept_shape = tuple(shape[d] for d in kept)
    n = math.prod(shape[a] for a in axes)
    x, t = (reshape(v, (n, *kept_shape), (*axes, *kept)) for v in (x, t))
    while n > 1:
        half = (n + 1) // 2
        (x1, x2), (t1, t2) = ((slice_in_dim(v, 0, half), slice_in_dim(v, half, n))
                              for v in (x, t))
        if n % 2:
            config = [(0, 1, 0)] + [(0, 0, 0)] * len(kept)
            x2, t2 = pad(x2, _one(x2.dtype), config), pad(t2, _zero(t2.dtype), config)
        x, t, n = mul(x1, x2), add(mul(t1, x2), mul(x1, t2)), half
    if n == 0:
        dtype = core.get_aval(x).dtype
        return full(kept_shape, _one(dtype)), full(kept_shape, _zero(dtype))
    return reshape(x, kept_shape), reshape(t, kept_shape)


reduce_prod_p.def_jvp(_reduce_prod_jvp)

# ----------------------------------------------------------------------------- reduce: any computation

reduce_p = Primitive('reduce', multiple_results=True, eager_on_xla=True)


def _split_operands(args):
    """(operands, init values): a general reduction's arguments, half and half."""
    return args[:len(args) // 2], args[len(args) // 2:]


def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    operands, inits = _split_operands(avals)
    if any(a.shape for a in inits):
        raise ValueError(f'reduce found non-scalar initial value: {[a.shape for a in inits]}')
    if [a.dtype for a in operands] != [a.dtype for a in inits]:
        raise TypeError('reduce operand dtypes should match corresponding initial value dtypes, '
                        f'got operands={list(operands)} and initial_values={list(inits)}')
    if len({a.shape for a in operands}) > 1:
        raise ValueError(f'reduce: the operands must have one shape, got '
                         f'{[a.str_short() for a in operands]}')
    shape = operands[0].shape
    if any(not 0 <= d < len(shape) for d in dimensions):
        raise IndexError(f'reduce: dimensions {dimensions} out of range for '
                         f'{operands[0].str_short()}')  # (JAX's class: its np.delete's)
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f'reduce: dimensions {dimensions} repeat an axis')
    out_types = [(a.shape, a.dtype) for a in jaxpr.out_avals]
    if out_types != [((), a.dtype) for a in inits]:
        raise ValueError(f'reduce: the computation returns '
                         f'{[a.str_short() for a in jaxpr.out_avals]}, expected one scalar per '
                         f'operand of the initial values\' types {[a.str_short() for a in inits]}')
    return [ShapedArray(_reduced_shape(shape, dimensions), o.dtype, o.weak_type and i.weak_type)
            for o, i in zip(operands, inits)]


def _reduce_impl(*args, computation, jaxpr, dimensions):
    """The operands folded in order along the reduced axes (flattened, row-major), starting
    from the initial values, with the computation vectorized over the kept axes."""
    operands, inits = _split_operands([np.asarray(a) for a in args])
    shape = operands[0].shape
    kept_shape = _reduced_shape(shape, dimensions)
    rows = [np.moveaxis(x, dimensions, range(len(dimensions))).reshape(-1, *kept_shape)
            for x in operands]
    acc = [np.broadcast_to(i, kept_shape) for i in inits]
    if 0 not in kept_shape:
        fold = jaxpr_as_fun(jaxpr)
        for _ in kept_shape:
            fold = vmap(fold)
        for k in range(rows[0].shape[0]):
            acc = [np.asarray(a) for a in fold(*acc, *(r[k] for r in rows))]
    return [np.array(a, i.dtype) for a, i in zip(acc, inits)]


def _reduce_batching(vals, dims, *, computation, jaxpr, dimensions):
    """The batch axis moved to the front of each operand; batched initial values are not
    supported, as in JAX."""
    operands, inits = _split_operands(vals)
    operand_dims, init_dims = _split_operands(dims)
    if any(d is not not_mapped for d in init_dims):
        raise NotImplementedError('reduce: batching the initial values is not implemented '
                                  '(as in JAX)')
    size = next(core.get_aval(x).shape[d] for x, d in zip(operands, operand_dims)
                if d is not not_mapped)
    operands = [move_batch_axis(size, d, 0, x) for x, d in zip(operands, operand_dims)]
    out = reduce_p.bind(*operands, *inits, computation=computation, jaxpr=jaxpr,
                        dimensions=tuple(d + 1 for d in dimensions))
    return out, [0] * len(out)


def _permuted_reshape(x, shape, perm):
    """``reshape(x, shape, perm)``, nothing when that is ``x`` itself (as JAX's reshape)."""
    aval = core.get_aval(x)
    if aval.shape and aval.shape == tuple(shape) and tuple(perm) == tuple(range(aval.ndim)):
        return x
    return reshape(x, shape, perm)


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    """JAX's rule: the reduced axes flattened to the front, then halved until one row is left,
    the halves combined by the computation (vectorized over the rows), differentiated as
    written; an odd row count pads the second half with the initial values."""
    operands, inits = _split_operands(primals)
    t_operands, t_inits = _split_operands(tangents)
    if any(not isinstance(t, ad.Zero) for t in t_inits):
        raise NotImplementedError('Gradient of general lax.reduce with non-zero tangents for '
                                  'initial values to reduction not implemented')
    shape = core.get_aval(operands[0]).shape
    kept = [d for d in range(len(shape)) if d not in dimensions]
    kept_shape = tuple(shape[d] for d in kept)
    new_shape = (math.prod(shape[d] for d in dimensions), *kept_shape)
    perm = (*dimensions, *kept)
    operands = [_permuted_reshape(x, new_shape, perm) for x in operands]
    t_operands = [t if isinstance(t, ad.Zero) else _permuted_reshape(t, new_shape, perm)
                  for t in t_operands]
    t_operands = [ad.Zero(core.get_aval(x)) if isinstance(t, ad.Zero) else t
                  for x, t in zip(operands, t_operands)]
    reducer = jaxpr_as_fun(jaxpr)
    for _ in range(len(kept) + 1):
        reducer = vmap(reducer)

    def reduce_tree(*xs):
        while core.get_aval(xs[0]).shape[0] > 1:
            n = core.get_aval(xs[0]).shape[0]
            half = (n + 1) // 2
            firsts = [slice_in_dim(x, 0, half) for x in xs]
            seconds = [slice_in_dim(x, half, None) for x in xs]
            if n - half != half:
                config = [(0, 1, 0)] + [(0, 0, 0)] * len(kept)
                seconds = [pad(x, i, config) for x, i in zip(seconds, inits)]
            xs = reducer(*firsts, *seconds)
        if core.get_aval(xs[0]).shape[0] == 0:
            return [full(kept_shape, i) for i in inits]
        return [squeeze(x, (0,)) for x in xs]
    return ad.jvp_flat(reduce_tree, operands, t_operands, name='')


def _reduce_lowering(ctx, *args, computation, jaxpr, dimensions):
    """``stablehlo.reduce`` whose body is the computation's jaxpr."""
    operands, inits = _split_operands(args)
    init_avals = _split_operands(ctx.avals_in)[1]
    op = hlo.ReduceOp([tensor_type(a) for a in ctx.avals_out], operands, inits,
                      list(dimensions))
    scalar_types = [tensor_type(a) for a in init_avals]
    block = append_block(ctx, op.regions[0], *scalar_types, *scalar_types)
    with ir.InsertionPoint(block):
        hlo.ReturnOp(lower_closed_jaxpr(ctx.module_context, jaxpr, list(block.arguments)))
    return list(op.results)


reduce_p.def_impl(_reduce_impl)
reduce_p.def_abstract_eval(_reduce_abstract_eval)
reduce_p.def_jvp(_reduce_jvp, symbolic_zeros=True)
reduce_p.def_batching(_reduce_batching)
register_lowering(reduce_p, _reduce_lowering)

# ----------------------------------------------------------------------------- argmax, argmin


def _arg_chooser_primitive(name, np_impl, direction):
    """argmax (``direction='GT'``) or argmin (``'LT'``): the first index of the extreme value,
    a NaN counting as the extreme (so the first NaN, as in NumPy and JAX)."""
    prim = Primitive(name)

    def abstract_eval(x, *, axis, index_dtype):
        if not 0 <= axis < x.ndim or x.shape[axis] == 0:
            raise ValueError(f'{name}: axis {axis} is out of range or empty for '
                             f'{x.str_short()}')
        if dtypes.is_complex(x.dtype):
            raise TypeError(f'{name}: complex numbers have no order, got {x.str_short()}')
        if not dtypes.is_integer(index_dtype):
            raise TypeError(f'{name}: index_dtype must be an integer dtype, got '
                            f'{np.dtype(index_dtype).name}')
        return ShapedArray(_reduced_shape(x.shape, (axis,)), index_dtype)

    def batching(vals, dims, *, axis, index_dtype):
        (x,), (bdim,) = vals, dims
        (new_axis,), out_bdim = _batched_axes((axis,), bdim)
        return prim.bind(x, axis=new_axis, index_dtype=index_dtype), out_bdim

    pick = _picker(gt if direction == 'GT' else lt)

    def lowering(x, *, axis, index_dtype):
        """JAX's: a reduce of the values and their positions along ``axis``."""
        aval = core.get_aval(x)
        identity = (dtypes.lowest if direction == 'GT' else dtypes.highest)(aval.dtype)
        positions = broadcasted_iota(index_dtype, aval.shape, axis,
                                     out_sharding=aval._sharding)  # (sharded as x)
        return reduce((x, positions), (np.asarray(identity, aval.dtype),
                                       np.zeros((), index_dtype)), pick, (axis,))[1]

    def impl(x, *, axis, index_dtype):
        """The lowering's answer: the smallest *index_dtype* position among the extreme
        values, where a narrow type wraps (uint8 counts 0 ... 255, 0, ...)."""
        x = np.asarray(x)
        first = np.expand_dims(np_impl(x, axis), axis)
        extreme = np.take_along_axis(x, first, axis)
        ties = (x == extreme) | (np.isnan(x) & np.isnan(extreme)) if dtypes.is_inexact(
            x.dtype) else x == extreme
        positions = np.arange(x.shape[axis]).astype(index_dtype).reshape(
            [-1 if d == axis else 1 for d in range(x.ndim)])
        return np.min(np.where(ties, positions, dtypes.highest(index_dtype)), axis)

    prim.def_impl(impl)
    prim.def_abstract_eval(abstract_eval)
    ad.defjvp_zero(prim)
    prim.def_batching(batching)
    register_lowering(prim, lower_fun(lowering), inline=False)  # (JAX's: a function of its own)
    return prim


def _picker(better):
    """The reduction body of argmax (``better`` is ``gt``) or argmin (``lt``), JAX's: ``a``'s
    value wins when it is ``better`` or NaN, and its position too when the values are equal
    and it is the smaller one. (Of two NaNs the first wins: XLA's CPU reduces in order.)"""
    def pick(a, b):
        (a_value, a_position), (b_value, b_position) = a, b
        a_value_wins = bitwise_or(better(a_value, b_value), ne(a_value, a_value))
        a_position_wins = bitwise_or(a_value_wins, bitwise_and(eq(a_value, b_value),
                                                               lt(a_position, b_position)))
        return (select(a_value_wins, a_value, b_value),
                select(a_position_wins, a_position, b_position))
    return pick


argmax_p = _arg_chooser_primitive('argmax', np.argmax, 'GT')
argmin_p = _arg_chooser_primitive('argmin', np.argmin, 'LT')


def argmax(operand, axis, index_dtype):
    """Index of the largest element of ``operand`` along ``axis`` (the first, on ties)."""
    return argmax_p.bind(operand, index_dtype=dtypes.check_supported(index_dtype),
                         axis=core.canonicalize_axis(axis, np.ndim(operand), 'argmax: axis'))


def argmin(operand, axis, index_dtype):
    """Index of the smallest element of ``operand`` along ``axis`` (the first, on ties)."""
    return argmin_p.bind(operand, index_dtype=dtypes.check_supported(index_dtype),
                         axis=core.canonicalize_axis(axis, np.ndim(operand), 'argmin: axis'))
