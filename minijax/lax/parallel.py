"""Collectives: operations across the members of a named axis (``pmap``'s devices, the
devices along a ``shard_map`` mesh axis, or the examples of a ``vmap(..., axis_name=...)``).

Under ``pmap`` a collective lowers to a StableHLO collective over the replicas of the axis
(``stablehlo.all_reduce`` with ``replica_groups``, ``all_gather``, ``reduce_scatter``,
``collective_permute``, ``all_to_all``, ``replica_id``): XLA runs one replica per device and
moves the data. Inside a ``shard_map`` body (a manual computation) it names its device groups
by their positions in the mesh, with a channel and ``use_global_device_ids`` (partitions, not
replicas), over one mesh axis or a tuple of them; ``axis_index`` comes from
``partition_id``. Under ``vmap`` the members are the examples of one array, so each
collective has a batching rule over its own axis (``batching.collective_vmap_rules``) that
computes the same thing with ordinary ops: ``psum`` becomes a ``reduce_sum`` over the batch
axis. ``pvary`` and ``psum_invariant`` are the casts of ``shard_map``'s varying axes
(``minijax/vma.py``).

A collective names its axis (``axis_name``); one nothing binds is a ``NameError``, as in
JAX. ``axis_index_groups`` splits one axis into groups, each reducing (``psum``, ``pmax``,
``pmin``, ``pmean``), gathering, scattering or exchanging (``all_gather``, ``psum_scatter``,
``all_to_all``) on its own, under ``pmap`` and ``shard_map`` as in JAX (``vmap`` refuses
them, as JAX's does). The collectives XLA's CPU backend does not run are
``collectives_beyond_cpu.py``'s.
"""
from __future__ import annotations

import contextlib
import itertools
import math
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, tree_util
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching, jvp as ad
from minijax.interpreters.batching import move_batch_axis, moveaxis, not_mapped
from minijax.lax import elementwise
from minijax.lax.elementwise import add, mul
from minijax.lax.reductions import reduce_max, reduce_min, reduce_sum
from minijax.lax.structural import (concatenate, expand_dims, full, iota, reshape,
                                    squeeze, transpose)
from minijax.lax.slicing import slice_in_dim
from minijax.lax.static import static_ints
from minijax.sharding import NamedSharding, PartitionSpec
from minijax.lowering import (LoweringRuleContext, append_block, constant, lower_fun,
                              register_lowering, tensor_type)

__all__ = ['all_gather', 'all_gather_p', 'all_to_all', 'all_to_all_p', 'axis_index',
           'axis_index_p', 'axis_size', 'pcast', 'pmax', 'pmax_p', 'pmean', 'pmin', 'pmin_p',
           'ppermute', 'ppermute_p', 'psum', 'psum_invariant_p', 'psum_p', 'psum_scatter',
           'psum_scatter_p', 'pvary_p']


# ----------------------------------------------------------------------------- shared parts

def axis_names_of(axis_name) -> tuple:
    """A collective's axes: one name, or a tuple of them (mesh axes, under ``shard_map``)."""
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _axis_size(axis_name, what='axis_size') -> int:
    return math.prod(core.axis_frame(n, what)[0] for n in axis_names_of(axis_name))


def axis_size(axis_name) -> int:
    """The size of the named axis in scope, or the product of the sizes of a tuple of them
    (``NameError`` if none binds one)."""
    return _axis_size(axis_name)


def _bind(prim, *operands, **params):
    """Bind a collective; under ``vmap(..., axis_name=...)`` go straight to that vmap's trace,
    so that an operand it does not batch (a constant) still meets the named axis."""
    names = axis_names_of(params['axis_name'])
    mains = [core.axis_frame(n, prim.name)[1] for n in names]
    if len(names) > 1 and any(main is not None for main in mains):
        raise NotImplementedError(f'{prim.name}: a tuple of axis names that includes a vmapped '
                                  'axis is not supported by minijax')
    main = mains[0]
    if main is None or any(isinstance(x, core.Tracer) and x._trace.main.level > main.level
                           for x in operands):
        return prim.bind(*operands, **params)
    trace = main.trace
    out = trace.process_primitive(prim, [core.full_raise(trace, x) for x in operands], params)
    return core.full_lower(out)


def _evaluated_outside_its_axis(*args, axis_name, **params):
    raise NameError(f'unbound axis name: {axis_name}: a collective runs only inside the '
                    'pmap, shard_map or vmap(..., axis_name=...) that binds its axis')


def _collective(name, abstract_eval, collective_vmap):
    """A collective primitive with the rules they all share in form: an impl that refuses to
    run outside the axis, an abstract eval that checks the axis is bound, and the vmap rule
    over its own axis, if it has one (the vmap rule over another axis is registered beside
    it)."""
    prim = Primitive(name)
    prim.def_impl(_evaluated_outside_its_axis)

    def checked_abstract_eval(*avals, axis_name, **params):
        _axis_size(axis_name, name)
        return abstract_eval(*avals, **params)

    prim.def_abstract_eval(checked_abstract_eval)
    if collective_vmap is not None:
        batching.collective_vmap_rules[prim] = collective_vmap
    return prim


# ----------------------------------------------------------------------------- device groups

class ManualMesh(NamedTuple):
    """The mesh of the manual computation (``shard_map`` body) being lowered: its axes' names
    and sizes in mesh order. Its devices are numbered in row-major mesh order, and a
    collective over some of its axes names them by those numbers (``use_global_device_ids``)."""
    axis_names: tuple
    axis_sizes: tuple


#: The manual computations being lowered, innermost last (``shard_map``'s lowering pushes).
manual_meshes: list[ManualMesh] = []


@contextlib.contextmanager
def lowering_manual_computation(mesh: ManualMesh):
    manual_meshes.append(mesh)
    try:
        yield
    finally:
        manual_meshes.pop()


def mesh_axis_groups(axis_sizes, axes) -> np.ndarray:
    """The device groups of a collective over the mesh axes at positions ``axes``: a row per
    group, each the devices that differ only along those axes, as JAX numbers them."""
    iota = np.arange(math.prod(axis_sizes)).reshape(axis_sizes)
    moved = np.moveaxis(iota, axes, np.arange(len(axes)))
    return moved.reshape(math.prod(np.take(axis_sizes, axes)), -1).T


def _device_groups(ctx_name, axis_name) -> tuple[np.ndarray, bool]:
    """``(groups, spmd)``: the device groups of a collective and whether they are the
    partitions of a manual computation (else the replicas of a ``pmap``). Only ``pmap`` and
    ``shard_map`` bind an axis at lowering time; a vmapped one has been batched away."""
    names = axis_names_of(axis_name)
    if manual_meshes and all(n in manual_meshes[-1].axis_names for n in names):
        mesh = manual_meshes[-1]
        return mesh_axis_groups(mesh.axis_sizes, [mesh.axis_names.index(n) for n in names]), \
            True
    size, main = core.axis_frame(names[0], ctx_name)
    if main is not None or len(names) > 1:
        raise NotImplementedError(
            f'{ctx_name} over the vmapped axis {axis_name!r} inside a jit, cond or loop nested '
            'in that vmap: minijax batches collectives only where vmap sees them directly')
    return np.arange(size, dtype=np.int64).reshape(1, size), False


def _group_rows(ctx_name, axis_name, axis_index_groups=None
                ) -> tuple[ir.DenseIntElementsAttr, bool]:
    """``(replica_groups, spmd)``: a collective's device groups as the attribute, and
    whether they are a manual computation's partitions. ``axis_index_groups`` splits each
    group by the members' indices along the axis."""
    groups, spmd = _device_groups(ctx_name, axis_name)
    if axis_index_groups is not None:  # (groups of unequal sizes padded with -1, as JAX's)
        split = [[row[i] for i in group] for row in groups for group in axis_index_groups]
        groups = np.array(list(itertools.zip_longest(*split, fillvalue=-1))).T
    return ir.DenseIntElementsAttr.get(np.ascontiguousarray(groups, dtype=np.int64)), spmd


def _replica_groups(ctx_name, axis_name, axis_index_groups=None
                    ) -> tuple[ir.DenseIntElementsAttr, dict]:
    """The ``replica_groups`` attribute of a collective and the attributes a manual
    computation adds (as JAX writes them): ``channel_handle`` and ``use_global_device_ids``,
    which make XLA read the groups as partitions, not replicas."""
    groups, spmd = _group_rows(ctx_name, axis_name, axis_index_groups)
    return groups, _spmd_attributes(spmd)


def _spmd_attributes(spmd: bool, global_ids: bool = True) -> dict:
    if not spmd:
        return {}
    extra = {'channel_handle': hlo.ChannelHandle.get(COLLECTIVE_CHANNEL_ID,
                                                     DEVICE_TO_DEVICE_TYPE)}
    if global_ids:
        extra['use_global_device_ids'] = ir.BoolAttr.get(True)
    return extra


#: JAX's channel of every collective in a manual computation, and its type
COLLECTIVE_CHANNEL_ID, DEVICE_TO_DEVICE_TYPE = 1, 1


def _scalar_region(ctx, op, combine):
    """Fill ``op``'s reduction region: ``(a, b) -> combine(a, b)`` on scalars, lowered as
    JAX lowers the reducer (a traced function of the lax op), located as JAX locates it:
    over the operand's mesh, if its type names one (constrained where that mesh is partly
    manual)."""
    operand = ctx.avals_in[0]
    aval = ShapedArray((), operand.dtype, sharding=None if operand._sharding is None else
                       NamedSharding(operand._sharding.mesh, PartitionSpec()))
    scalar = tensor_type(aval)
    block = append_block(ctx, op.regions[0], scalar, scalar)
    rule_ctx = LoweringRuleContext(ctx.module_context, [aval, aval], [aval], ctx.primitive)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([lower_fun(combine)(rule_ctx, *block.arguments)])


def _other_axis_moving_front(prim, shifted_params):
    """vmap over another axis for a collective with axis parameters: batch axis to the front,
    each named axis parameter one further."""
    def rule(vals, dims, **params):
        (x,), (d,) = vals, dims
        new = {k: (v + 1 if k in shifted_params else v) for k, v in params.items()}
        return prim.bind(moveaxis(x, d, 0), **new), 0
    return rule


def _same_dim(prim):
    def rule(vals, dims, **params):
        return prim.bind(vals[0], **params), dims[0]
    return rule


# ----------------------------------------------------------------------------- psum, pmax, pmin

#: name -> (reduction over a vmapped batch axis, value of an unbatched operand, StableHLO op)
_REDUCERS = {
    'psum': (reduce_sum, lambda x, n: mul(x, full(np.shape(x), n, core.get_aval(x).dtype)),
             add),
    'pmax': (reduce_max, lambda x, n: x, elementwise.max),
    'pmin': (reduce_min, lambda x, n: x, elementwise.min),
}


def _all_reduce_primitive(name):
    reduce_batch, unbatched, body_op = _REDUCERS[name]

    def collective_vmap(size, vals, dims, *, axis_name, axis_index_groups):
        (x,), (d,) = vals, dims
        return (unbatched(x, size) if d is not_mapped else reduce_batch(x, (d,))), not_mapped

    prim = _collective(name, lambda x, *, axis_index_groups: x, collective_vmap)
    prim.def_batching(_same_dim(prim))

    def lowering(ctx, x, *, axis_name, axis_index_groups):
        groups, extra = _replica_groups(name, axis_name, axis_index_groups)
        op = hlo.AllReduceOp([x.type], [x], groups, **extra)
        _scalar_region(ctx, op, body_op)
        return op.results[0]

    register_lowering(prim, lowering)
    return prim


psum_p = _all_reduce_primitive('psum')
pmax_p = _all_reduce_primitive('pmax')
pmin_p = _all_reduce_primitive('pmin')
ad.defjvp_linear(psum_p)
psum_p.def_transpose(lambda ct, x, **params: [psum_p.bind(ct, **params)])


def _not_differentiable(prim):
    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented "
                                  '(nor in JAX)')
    prim.def_jvp(rule)


_not_differentiable(pmax_p)
_not_differentiable(pmin_p)


def _reducing(prim, x, axis_name, axis_index_groups):
    groups = _index_groups(prim.name, axis_name, axis_index_groups)
    return tree_util.tree_map(
        lambda v: _bind(prim, v, axis_name=axis_name, axis_index_groups=groups), x)


def _group_size(what, axis_name, groups) -> int:
    """The members a collective spans: the axis's, or one group's (JAX's _axis_size)."""
    return _axis_size(axis_name, what) if groups is None else len(groups[0])


def _index_groups(what, axis_name, axis_index_groups) -> tuple | None:
    """``axis_index_groups`` as a tuple of tuples (a parameter prints and hashes so),
    checked: groups that cover the axis's indices once each (where JAX leaves a missing one
    to XLA's verifier), over one axis that ``pmap`` or ``shard_map`` binds (``vmap`` does not
    take them, as in JAX)."""
    if axis_index_groups is None:
        return None
    groups = tuple(tuple(int(i) for i in group) for group in axis_index_groups)
    names = axis_names_of(axis_name)
    size, main = core.axis_frame(names[0], what)
    if main is not None:
        raise NotImplementedError('axis_index_groups not supported in vmap collectives. '
                                  'Please open a feature request!')
    if len(names) != 1:
        raise NotImplementedError(f'{what}: axis_index_groups over a tuple of axes '
                                  f'{axis_name!r}: one axis takes them (as in JAX)')
    if sorted(i for g in groups for i in g) != list(range(size)):
        raise ValueError('axis_index_groups must cover all indices exactly once')
    return groups


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` (a pytree) over the members of the axis ``axis_name``."""
    return _reducing(psum_p, x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    return _reducing(pmax_p, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    return _reducing(pmin_p, x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """``psum(x) / n`` over the ``n`` members of the axis (of each group), as JAX defines
    it."""
    n = _axis_size(axis_name, 'pmean') if axis_index_groups is None else \
        len(axis_index_groups[0])
    return tree_util.tree_map(lambda s: s / n, psum(x, axis_name,
                                                   axis_index_groups=axis_index_groups))


# ------------------------------------------------------------------------ pvary, psum_invariant

#: Whether the shard_map bodies being traced track their values' varying manual axes
#: (``check_vma``), innermost last: ``pcast`` casts only where they do, as in JAX.
vma_checked: list[bool] = []


def _manual_axes_abstract_eval(x, *, axes):
    for name in axes:
        core.axis_frame(name, 'pvary')
    return x


def _manual_axes_primitive(name):
    """A primitive on the varying axes of a value inside ``shard_map`` (``axes``, mesh axis
    names): the value is unchanged (``pvary``) or summed over those axes
    (``psum_invariant``)."""
    prim = Primitive(name)
    prim.def_impl(lambda x, *, axes: _evaluated_outside_its_axis(x, axis_name=axes))
    prim.def_abstract_eval(_manual_axes_abstract_eval)
    prim.def_batching(_same_dim(prim))
    ad.defjvp_linear(prim)
    return prim


pvary_p = _manual_axes_primitive('pvary')
psum_invariant_p = _manual_axes_primitive('psum_invariant')
pvary_p.def_transpose(lambda ct, x, *, axes: [psum_invariant_p.bind(ct, axes=axes)])
psum_invariant_p.def_transpose(lambda ct, x, *, axes: [pvary_p.bind(ct, axes=axes)])
register_lowering(pvary_p, lambda ctx, x, *, axes: x)


def _psum_invariant_lowering(ctx, x, *, axes):
    groups, extra = _replica_groups('psum', axes)
    op = hlo.AllReduceOp([x.type], [x], groups, **extra)
    _scalar_region(ctx, op, add)
    return op.results[0]


register_lowering(psum_invariant_p, _psum_invariant_lowering)


def pcast(x, axis_name, *, to):
    """Cast ``x`` (a pytree) to vary along the mesh axes ``axis_name`` inside ``shard_map``
    (``to='varying'``): the value is unchanged; in reverse mode its cotangent is summed over
    those axes. A no-op where the varying axes are not tracked (``check_vma=False``)."""
    if to != 'varying':
        raise NotImplementedError(f"pcast: to={to!r} is not supported by minijax (only "
                                  "'varying')")
    axes = axis_names_of(axis_name)
    for name in axes:
        core.axis_frame(name, 'pcast')
    if not vma_checked or not vma_checked[-1]:
        return x
    return tree_util.tree_map(lambda v: pvary_p.bind(v, axes=axes), x)


# ----------------------------------------------------------------------------- axis_index

def _axis_index_vmap(size, vals, dims, *, axis_name):
    return iota(np.dtype(np.int32), size), 0


axis_index_p = _collective('axis_index', lambda: ShapedArray((), np.dtype(np.int32)),
                           _axis_index_vmap)
ad.defjvp_zero(axis_index_p)


def axis_index(axis_name):
    """This member's index along the axis ``axis_name`` (an int32 scalar)."""
    return _bind(axis_index_p, axis_name=axis_name)


def _axis_index_lowering(ctx, *, axis_name):
    """Under ``pmap`` the replica's number; in a manual computation the partition's
    coordinate along the axis, ``partition_id / (the sizes of the later axes) % size``."""
    groups, spmd = _device_groups('axis_index', axis_name)
    if not spmd:
        return hlo.ConvertOp(tensor_type(ctx.avals_out[0]), hlo.ReplicaIdOp().result).result
    mesh = manual_meshes[-1]
    at = mesh.axis_names.index(axis_name)
    div, mod = (constant(np.array(n, np.uint32)) for n in
                (math.prod(mesh.axis_sizes[at + 1:]), mesh.axis_sizes[at]))
    index = hlo.RemOp(hlo.DivOp(hlo.PartitionIdOp().result, div).result, mod).result
    return hlo.ConvertOp(tensor_type(ctx.avals_out[0]), index).result


register_lowering(axis_index_p, _axis_index_lowering)


# ----------------------------------------------------------------------------- all_gather

def _gathered_shape(shape, axis, size, tiled):
    if tiled:
        return (*shape[:axis], shape[axis] * size, *shape[axis + 1:])
    return (*shape[:axis], size, *shape[axis:])


def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_index_groups, axis_size,
                              tiled):
    if not 0 <= all_gather_dimension <= x.ndim - tiled:
        raise ValueError(f'all_gather: axis {all_gather_dimension} is out of range for '
                         f'{x.str_short()}')
    return x.update(shape=_gathered_shape(x.shape, all_gather_dimension, axis_size, tiled))


def _all_gather_collective_vmap(size, vals, dims, *, axis_name, all_gather_dimension,
                                axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    stacked = moveaxis(move_batch_axis(size, d, 0, x), 0, all_gather_dimension)
    if tiled:
        shape = core.get_aval(stacked).shape
        stacked = reshape(stacked, _gathered_shape(
            shape[:all_gather_dimension] + shape[all_gather_dimension + 1:],
            all_gather_dimension, size, True))
    return stacked, not_mapped


all_gather_p = _collective('all_gather', _all_gather_abstract_eval,
                           _all_gather_collective_vmap)
all_gather_p.def_batching(_other_axis_moving_front(all_gather_p, {'all_gather_dimension'}))
ad.defjvp_linear(all_gather_p)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to='varying'):
    """Every member's ``x`` stacked along a new axis ``axis`` (concatenated if ``tiled``);
    with ``axis_index_groups``, every member of its group's. ``to`` is JAX's type of the
    result under ``shard_map``: minijax's is 'varying'."""
    if to != 'varying':
        raise NotImplementedError(f"all_gather: to={to!r} is not supported by minijax: its "
                                  "result varies along the axis (to='varying')")
    groups = _index_groups('all_gather', axis_name, axis_index_groups)
    return _bind(all_gather_p, x, axis_name=axis_name, all_gather_dimension=axis,
                 axis_index_groups=groups,
                 axis_size=_group_size('all_gather', axis_name, groups), tiled=tiled)


def _all_gather_lowering(ctx, x, *, axis_name, all_gather_dimension, axis_index_groups,
                         axis_size, tiled):
    aval = ctx.avals_in[0]
    groups, extra = _replica_groups('all_gather', axis_name, axis_index_groups)
    if not tiled:  # a size-1 axis to gather along (JAX: a broadcast, in a manual computation)
        expanded = tensor_type(aval.update(shape=_gathered_shape(
            aval.shape, all_gather_dimension, 1, False)))
        x = hlo.BroadcastInDimOp(expanded, x, [d for d in range(aval.ndim + 1)
                                               if d != all_gather_dimension]).result \
            if extra else hlo.ReshapeOp(expanded, x).result
    return hlo.AllGatherOp([tensor_type(ctx.avals_out[0])], [x], all_gather_dimension,
                           groups, **extra).results[0]


register_lowering(all_gather_p, _all_gather_lowering)


# ----------------------------------------------------------------------------- psum_scatter

def _scattered_shape(shape, dim, size, tiled):
    if tiled:
        return (*shape[:dim], shape[dim] // size, *shape[dim + 1:])
    return (*shape[:dim], *shape[dim + 1:])


def _psum_scatter_abstract_eval(x, *, scatter_dimension, axis_index_groups, axis_size,
                                tiled):
    dim = scatter_dimension
    if not 0 <= dim < x.ndim or (x.shape[dim] % axis_size if tiled
                                 else x.shape[dim] != axis_size):
        raise ValueError(f'psum_scatter: dimension {dim} of {x.str_short()} must be '
                         f'{"a multiple of" if tiled else "equal to"} the axis size {axis_size}')
    return x.update(shape=_scattered_shape(x.shape, dim, axis_size, tiled))


def _psum_scatter_collective_vmap(size, vals, dims, *, axis_name, scatter_dimension,
                                  axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    total = _REDUCERS['psum'][1](x, size) if d is not_mapped else reduce_sum(x, (d,))
    if tiled:  # split the scattered dimension into (member, block): the member is the batch
        shape = core.get_aval(total).shape
        dim = scatter_dimension
        total = reshape(total, (*shape[:dim], size, shape[dim] // size, *shape[dim + 1:]))
    return total, scatter_dimension


psum_scatter_p = _collective('psum_scatter', _psum_scatter_abstract_eval,
                             _psum_scatter_collective_vmap)
psum_scatter_p.def_batching(_other_axis_moving_front(psum_scatter_p, {'scatter_dimension'}))
ad.defjvp_linear(psum_scatter_p)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """``psum(x)`` split along ``scatter_dimension``: member ``i`` keeps block ``i`` (with
    ``axis_index_groups``, its group's sum, by its position in the group)."""
    groups = _index_groups('psum_scatter', axis_name, axis_index_groups)
    return _bind(psum_scatter_p, x, axis_name=axis_name, scatter_dimension=scatter_dimension,
                 axis_index_groups=groups,
                 axis_size=_group_size('psum_scatter', axis_name, groups), tiled=tiled)


def _psum_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_index_groups,
                           axis_size, tiled):
    aval = ctx.avals_in[0]
    block = aval.update(shape=_scattered_shape(aval.shape, scatter_dimension, axis_size, True))
    groups, extra = _replica_groups('psum_scatter', axis_name, axis_index_groups)
    op = hlo.ReduceScatterOp(tensor_type(block), x, scatter_dimension, groups, **extra)
    _scalar_region(ctx, op, add)
    out = op.result
    return out if tiled else hlo.ReshapeOp(tensor_type(ctx.avals_out[0]), out).result


register_lowering(psum_scatter_p, _psum_scatter_lowering)

all_gather_p.def_transpose(lambda ct, x, *, all_gather_dimension, **params: [
    psum_scatter_p.bind(ct, scatter_dimension=all_gather_dimension, **params)])
psum_scatter_p.def_transpose(lambda ct, x, *, scatter_dimension, **params: [
    all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, **params)])


# ----------------------------------------------------------------------------- ppermute

def _ppermute_abstract_eval(x, *, perm):
    return x


def _ppermute_collective_vmap(size, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    x = move_batch_axis(size, d, 0, x)
    source_of = {dst: src for src, dst in perm}
    zeros = full((1, *core.get_aval(x).shape[1:]), 0, core.get_aval(x).dtype)
    rows = [slice_in_dim(x, source_of[i], source_of[i] + 1) if i in source_of else zeros
            for i in range(size)]
    return concatenate(rows, 0), 0


ppermute_p = _collective('ppermute', _ppermute_abstract_eval, _ppermute_collective_vmap)
ppermute_p.def_batching(_same_dim(ppermute_p))
ad.defjvp_linear(ppermute_p)
ppermute_p.def_transpose(lambda ct, x, *, axis_name, perm: [ppermute_p.bind(
    ct, axis_name=axis_name, perm=tuple((dst, src) for src, dst in perm))])


def ppermute(x, axis_name, perm):
    """Send member ``src``'s ``x`` to member ``dst`` for each ``(src, dst)`` of ``perm``; a
    member no pair sends to receives zeros."""
    perm = tuple(static_ints(pair, 'ppermute', 'perm') for pair in perm)
    size = _axis_size(axis_name, 'ppermute')
    sources, targets = [s for s, _ in perm], [d for _, d in perm]
    if len(set(sources)) < len(perm) or len(set(targets)) < len(perm) or \
            not all(0 <= i < size for i in sources + targets):
        raise ValueError(f'ppermute: perm {perm} must pair distinct sources with distinct '
                         f'targets, each in range({size}) (the size of axis {axis_name!r})')
    return _bind(ppermute_p, x, axis_name=axis_name, perm=perm)


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    """Each device group (one under ``pmap``) permuted alike: pair ``(src, dst)`` becomes the
    devices at those positions of every group."""
    groups, spmd = _device_groups('ppermute', axis_name)
    pairs = np.array([[group[src], group[dst]] for group in np.sort(groups, axis=1)
                      for src, dst in perm], dtype=np.int64).reshape(-1, 2)
    return hlo.CollectivePermuteOp(x, ir.DenseIntElementsAttr.get(pairs), results=[x.type],
                                   **_spmd_attributes(spmd, global_ids=False)).result


register_lowering(ppermute_p, _ppermute_lowering)


def pshuffle(x, axis_name, perm):
    """``ppermute`` with the permutation as a list: member ``i`` receives member
    ``perm[i]``'s ``x``."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f'`perm` does not represent a permutation: {perm}')
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ----------------------------------------------------------------------------- all_to_all

def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the mapped axis ``axis_name`` with ``axis`` of ``x`` (whose size is the mapped
    axis's): an ``all_to_all`` splitting and stacking along ``axis``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def _exchanged_shape(shape, split_axis, concat_axis, size):
    out = list(shape)
    out[split_axis] //= size
    out[concat_axis] *= size
    return tuple(out)


def _all_to_all_abstract_eval(x, *, split_axis, concat_axis, axis_index_groups, axis_size,
                              tiled):
    if not (0 <= split_axis < x.ndim and 0 <= concat_axis < x.ndim) or \
            x.shape[split_axis] % axis_size:
        raise ValueError(f'all_to_all: split_axis {split_axis} of {x.str_short()} must be '
                         f'divisible by the axis size {axis_size}, and concat_axis '
                         f'{concat_axis} must be below {x.ndim}')
    return x.update(shape=_exchanged_shape(x.shape, split_axis, concat_axis, axis_size))


def _all_to_all_collective_vmap(size, vals, dims, *, axis_name, split_axis, concat_axis,
                                axis_index_groups, axis_size, tiled):
    """Member ``i`` gets block ``i`` (along ``split_axis``) of every member ``j``,
    concatenated along ``concat_axis`` in ``j``'s order: with the members stacked, the split
    axis is cut into (member, block), the member goes to the front and the stacking axis
    joins the concatenation axis."""
    (x,), (d,) = vals, dims
    x = move_batch_axis(size, d, 0, x)
    shape = core.get_aval(x).shape[1:]
    s, c = split_axis, concat_axis
    x = reshape(x, (size, *shape[:s], size, shape[s] // size, *shape[s + 1:]))
    labels = ['j', *(('d', k) for k in range(s)), 'i', *(('d', k) for k in range(s, len(shape)))]
    target = ['i']
    for k in range(len(shape)):
        target += ['j', ('d', k)] if k == c else [('d', k)]
    x = transpose(x, tuple(labels.index(label) for label in target))
    return reshape(x, (size, *_exchanged_shape(shape, s, c, size))), 0


all_to_all_p = _collective('all_to_all', _all_to_all_abstract_eval,
                           _all_to_all_collective_vmap)
all_to_all_p.def_batching(_other_axis_moving_front(all_to_all_p, {'split_axis', 'concat_axis'}))
ad.defjvp_linear(all_to_all_p)
all_to_all_p.def_transpose(lambda ct, x, *, split_axis, concat_axis, **params: [
    all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)])


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Member ``i`` receives block ``i`` (along ``split_axis``) of every member ``j``. Tiled,
    the blocks are concatenated along ``concat_axis``; else ``split_axis`` has the axis size
    and the blocks are stacked along a new axis ``concat_axis`` (the primitive is the tiled
    exchange with a size-1 axis added before and removed after, as JAX writes it). With
    ``axis_index_groups``, the members of each group exchange among themselves."""
    groups = _index_groups('all_to_all', axis_name, axis_index_groups)
    size = _group_size('all_to_all', axis_name, groups)

    def bind(leaf):
        aval = core.get_aval(leaf)
        split, concat = (core.canonicalize_axis(a, aval.ndim, f'all_to_all: {what}')
                         for a, what in ((split_axis, 'split_axis'),
                                         (concat_axis, 'concat_axis')))
        if tiled and aval.shape[split] % size:
            raise ValueError(f'The size of all_to_all split_axis ({aval.shape[split]}) has to '
                             f'be divisible by the size of the named axis {axis_name} ({size})')
        if not tiled and aval.shape[split] != size:
            raise ValueError('all_to_all requires the size of the mapped axis axis_name to '
                             'equal x.shape[split_axis], but they are '
                             f'{size} and {aval.shape[split]} respectively.')
        if not tiled and split != concat:
            concat += split < concat  # (concat_axis counts the axes without split_axis)
            leaf = expand_dims(leaf, (concat,))
            split += concat <= split
        out = _bind(all_to_all_p, leaf, axis_name=axis_name, split_axis=split,
                    concat_axis=concat, axis_index_groups=groups, axis_size=size, tiled=tiled)
        return squeeze(out, (split,)) if not tiled and split != concat else out
    return tree_util.tree_map(bind, x)


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                         axis_size, tiled):
    groups, spmd = _group_rows('all_to_all', axis_name, axis_index_groups)
    if axis_size == 1:
        return x
    op = hlo.AllToAllOp([x], split_axis, concat_axis, axis_size, groups,
                        results=[tensor_type(ctx.avals_out[0])],
                        **_spmd_attributes(spmd, global_ids=False))
    return op.results[0]


register_lowering(all_to_all_p, _all_to_all_lowering)
