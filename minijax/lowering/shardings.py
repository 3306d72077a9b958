"""Shardy annotations: a ``NamedSharding`` as ``#sdy.sharding<...>``, the constraint op, and
the pass that gathers the meshes into one ``sdy.mesh @mesh``.

As JAX does, each annotation names its mesh inline (``#sdy.sharding<mesh<["x"=4]>, ...>``)
while the module is built; ``lift_meshes`` then replaces the inline meshes with one
``sdy.mesh @mesh`` symbol (Shardy's ``sdy-lift-inlined-meshes`` pass, which also writes the
``stablehlo.mesh`` attribute JAX's modules show). XLA's partitioner reads these annotations
to split the program over the mesh's devices.
"""
from __future__ import annotations

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import sdy

from minijax.sharding.mesh import AxisType
from minijax.sharding.partition_spec import UNCONSTRAINED


def sdy_sharding(sharding, ndim: int, open_auto_dims: bool = False) -> ir.Attribute:
    """``#sdy.sharding<mesh<...>, [{"x"}, {}]>``: for each dimension the axes it is split
    over (closed: the partitioner may not split it further), ``{?}`` for an unconstrained
    one; a ``SingleDeviceSharding`` has the empty mesh (``@empty_mesh`` once lifted).
    ``open_auto_dims`` (JAX's ``modify_wrt_axis_types``, for the constraints that sharding
    in types adds): on a mesh with an ``Auto`` axis every dimension is open, and the
    ``Explicit`` axes the spec does not use are listed as replicated."""
    if not hasattr(sharding, 'mesh'):  # one device (a committed SingleDeviceSharding)
        return sdy.TensorShardingAttr.get(
            sdy.MeshAttr.get([], []), [sdy.DimensionShardingAttr.get([], is_closed=True)] * ndim,
            replicated_axes=[], unreduced_axes=[])
    mesh, spec = sharding.mesh, sharding.spec
    dims = []
    for d in range(ndim):
        entry = spec.partitions[d] if d < len(spec.partitions) else None
        is_open = entry is UNCONSTRAINED
        axes = () if entry is None or is_open else \
            entry if isinstance(entry, tuple) else (entry,)
        dims.append((axes, is_open))
    replicated = []
    if open_auto_dims and AxisType.Auto in mesh.axis_types:
        dims = [(axes, True) for axes, _ in dims]
        replicated = [n for n in mesh.axis_names if n in sharding.replicated_axes
                      and mesh._name_to_type[n] is AxisType.Explicit]
    mesh_attr = sdy.MeshAttr.get([sdy.MeshAxisAttr.get(n, s) for n, s in mesh.shape_tuple], [])
    return sdy.TensorShardingAttr.get(
        mesh_attr,
        [sdy.DimensionShardingAttr.get([sdy.AxisRefAttr.get(a) for a in axes],
                                       is_closed=not is_open) for axes, is_open in dims],
        replicated_axes=[sdy.AxisRefAttr.get(a) for a in replicated],
        unreduced_axes=[sdy.AxisRefAttr.get(a) for a in mesh.axis_names
                        if a in sharding.spec.unreduced])


def sharding_constraint(ctx, value: ir.Value, sharding, ndim: int,
                        open_auto_dims: bool = False) -> ir.Value:
    """``sdy.sharding_constraint`` of ``value``: from here on, it is laid out as
    ``sharding`` says (``with_sharding_constraint``; the hook sharding in types uses after
    an op whose result type carries a sharding, with ``open_auto_dims``)."""
    ctx.module_context.uses_shardy = True
    return sdy.ShardingConstraintOp(value, sdy_sharding(sharding, ndim, open_auto_dims)).result


def constrain_all(module_ctx, values, shardings, avals) -> list:
    """Each value constrained to its ``NamedSharding`` (left as it is for None or a
    single-device sharding): a nested ``jit``'s arguments and results."""
    out = []
    for value, sharding, aval in zip(values, shardings, avals, strict=True):
        if hasattr(sharding, 'mesh'):
            module_ctx.uses_shardy = True
            ndim = ir.RankedTensorType(value.type).rank  # (a key array's words: one more)
            value = sdy.ShardingConstraintOp(value, sdy_sharding(sharding, ndim)).result
        out.append(value)
    return out


def lift_meshes(module: ir.Module) -> None:
    """Replace the meshes written inline in the annotations by one ``sdy.mesh @mesh``."""
    passmanager.PassManager.parse('builtin.module(sdy-lift-inlined-meshes)').run(
        module.operation)


def constrain_to_type(ctx, value: ir.Value, aval) -> ir.Value:
    """``value`` constrained to the sharding its type carries, as JAX lowers an op whose
    result type is sharded over ``Explicit`` axes (``mlir.lower_with_sharding_in_types``):
    unchanged when the type names no mesh or one of only ``Auto`` or only ``Manual``
    axes. (The hook for sharding in types: an aval without a ``sharding`` is unchanged.)"""
    if getattr(aval, '_sharding', None) is None:  # (an unsharded type: the empty mesh's)
        return value
    sharding = getattr(aval, 'sharding', None)
    mesh = getattr(sharding, 'mesh', None)
    if mesh is None or mesh.empty or mesh.are_all_axes_auto or mesh.are_all_axes_manual:
        return value
    return sharding_constraint(ctx, value, sharding, ir.RankedTensorType(value.type).rank,
                               open_auto_dims=True)


def per_device_placement(op, device_ids) -> None:
    """Annotate ``op`` (a host callback) as JAX places one in a partitioned program:
    ``device_ids=[0]`` runs it once, on that device, on whole values (a maximal sharding);
    ``device_ids=[]`` runs it on every device of a manual computation, on its blocks
    (replicated over the empty mesh). One sharding per result (a token has rank 0), one
    for an op with none."""
    ranks = [r.type.rank if isinstance(r.type, ir.RankedTensorType) else 0
             for r in op.results] or [0]
    mesh = sdy.MeshAttr.get([], list(device_ids))
    op.attributes['sdy.sharding'] = sdy.TensorShardingPerValueAttr.get([
        sdy.TensorShardingAttr.get(
            mesh, [] if device_ids else
            [sdy.DimensionShardingAttr.get([], is_closed=True)] * rank,
            replicated_axes=[], unreduced_axes=[]) for rank in ranks])
