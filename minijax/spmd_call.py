"""Running a program over a mesh: where a jitted call's arguments and results lie.

A ``jit`` whose arguments are sharded Arrays (``device_put`` with a ``NamedSharding``, or the
results of such a program), or that was given ``in_shardings``/``out_shardings``, runs on the
devices of their mesh: its module carries the shardings (``sdy.sharding``), XLA's partitioner
makes one program per device, and each device gets its block of every argument. What is not
given (an unsharded argument, a result without ``out_shardings``) XLA lays out as it sees fit,
and the executable tells how. A program constraining a value to a mesh
(``with_sharding_constraint``) runs over that mesh too. A program whose shardings name no mesh,
only one device (an Array ``device_put`` on a device other than the first), runs there
unpartitioned.
"""
from __future__ import annotations

import weakref
from typing import NamedTuple

from minijax import core, runtime, tree_util
from minijax.array import Array, physical_value
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr
from minijax.sharding import Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding
from minijax.sharding.mesh import AbstractMesh, get_concrete_mesh


class Placement(NamedTuple):
    """Where a program runs and how its arguments and results lie: the hashable part of a
    compiled program's cache key."""
    devices: tuple        # the devices it runs on (the mesh's, in its order)
    mesh: object          # the Mesh, or None: one device, nothing partitioned
    in_shardings: tuple   # per flat argument: a Sharding, or None (XLA chooses)
    out_shardings: tuple  # per result: a Sharding, or None (XLA chooses)

    @property
    def num_partitions(self) -> int:
        return len(self.devices)


def is_sharded(x) -> bool:
    """Whether ``x`` is an Array placed by a sharding (not an ordinary one)."""
    return type(x) is Array and x._sharding is not None


def own_sharding(x):
    """The sharding an argument brings: a sharded Array's, or a ``ShapeDtypeStruct``'s
    (``jit(f).lower(ShapeDtypeStruct(..., sharding=...))``); else None."""
    if is_sharded(x):
        return x._sharding
    return x.sharding if type(x) is core.ShapeDtypeStruct else None


def as_sharding(what: str, s):
    """A sharding given to ``jit`` (``what``: in_shardings or out_shardings): a
    ``Sharding``, a ``PartitionSpec`` over the mesh ``set_mesh`` installed, or None (XLA
    chooses); JAX's errors else."""
    if s is None or isinstance(s, Sharding):
        return s
    if isinstance(s, PartitionSpec):
        mesh = get_concrete_mesh()
        if mesh.empty:
            raise RuntimeError(
                f'jit requires a non-empty mesh in context if you are passing '
                f'`PartitionSpec`s to {what}. You can define a context mesh via '
                f'`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to {what} and then '
                'the mesh context manager is not required.')
        return NamedSharding(mesh, s)
    raise TypeError(f'{what} leaf specifications are expected to be PartitionSpec instances '
                    f'or None, but got {s}')


def flat_shardings(what: str, prefix, tree) -> list:
    """One sharding (or None) per leaf of ``tree``, from ``prefix`` (one sharding for
    everything, or a pytree prefix of ``tree``)."""
    if prefix is None or isinstance(prefix, (Sharding, PartitionSpec)):
        return [as_sharding(what, prefix)] * len(tree_util.tree_leaves(tree))
    leaves = tree_util.broadcast_prefix(
        prefix, tree, is_leaf=lambda s: s is None or isinstance(s, (Sharding, PartitionSpec)),
        name=what)
    return [as_sharding(what, s) for s in leaves]


_meshes_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jaxpr_meshes(closed) -> tuple:
    """The concrete meshes the equations of ``closed`` name in their parameters (a
    ``with_sharding_constraint``'s sharding, in nested jaxprs too), once per jaxpr: a
    program constraining a value to a mesh runs over that mesh, as in JAX."""
    found = _meshes_of.get(closed)
    if found is None:
        meshes: dict = {}
        _collect_meshes(closed.jaxpr, meshes)
        found = _meshes_of[closed] = tuple(meshes)
    return found


def _collect_meshes(jaxpr, meshes: dict) -> None:
    for eqn in jaxpr.eqns:
        for value in eqn.params.values():
            for v in value if isinstance(value, (tuple, list)) else (value,):
                mesh = v.mesh if isinstance(v, NamedSharding) else v
                if isinstance(mesh, AbstractMesh) and not mesh.empty:  # (shard_map's, when
                    mesh = get_concrete_mesh()                # set_mesh gave it: that one)
                if isinstance(mesh, Mesh) and not mesh.empty:  # (not a context_mesh unset)
                    meshes.setdefault(mesh)
                elif isinstance(v, ClosedJaxpr):
                    _collect_meshes(v.jaxpr, meshes)
                elif isinstance(v, Jaxpr):
                    _collect_meshes(v, meshes)


def placement(what: str, args, in_shardings=(), out_shardings=(), closed=None
              ) -> Placement | None:
    """The placement of a call of ``args`` (flat), with the shardings given (flat, or empty
    for none): a sharded argument's own sharding where none is given, and the mesh the
    program's constraints name (``closed``, its jaxpr). None when nothing is placed: the
    program runs on the default device, as every ordinary program does."""
    ins = list(in_shardings) or [None] * len(args)
    for i, x in enumerate(args):
        if ins[i] is None:
            ins[i] = own_sharding(x)
    placed = [s for s in (*ins, *out_shardings) if s is not None]
    inner = jaxpr_meshes(closed) if closed is not None else ()
    placed += [NamedSharding(m, PartitionSpec()) for m in inner]  # (stand for their meshes)
    if not placed:  # over the mesh in context (set_mesh), if any, as JAX
        mesh = get_concrete_mesh()
        return None if mesh.empty else \
            Placement(tuple(mesh.devices.flat), mesh, tuple(ins), tuple(out_shardings))
    devices = placed[0]._device_assignment
    meshes = {s.mesh.abstract_mesh for s in placed if isinstance(s, NamedSharding)}
    for s in placed:
        if s._device_assignment != devices:
            raise ValueError(f'{what}: received incompatible devices for the jitted '
                             f'computation: {_ids(placed[0])} and {_ids(s)}; every sharded '
                             'argument and sharding must be on the same devices')
    if len(meshes) > 1:
        shown = ', '.join(map(str, meshes))
        raise ValueError(f'{what}: the shardings use different meshes ({shown}): minijax '
                         'lowers a program over one mesh')
    mesh = next(s.mesh for s in placed if isinstance(s, NamedSharding)) if meshes else None
    return Placement(devices, mesh, tuple(ins), tuple(out_shardings))


def _ids(sharding) -> list:
    return [d.id for d in sharding._device_assignment]


def shardings(exe: runtime.SpmdExecutable, place: Placement, in_avals, out_avals) -> tuple:
    """(per argument, per result) the sharding: the one given, or the one XLA chose."""
    outs = place.out_shardings or (None,) * len(out_avals)
    return ([s if s is not None else _chosen(hlo, place, a) for s, hlo, a in
             zip(place.in_shardings, exe.in_shardings, in_avals)],
            [s if s is not None else _chosen(hlo, place, a)
             for s, hlo, a in zip(outs, exe.out_shardings, out_avals)])


def run(exe: runtime.SpmdExecutable, place: Placement, args, out_avals) -> list[Array]:
    """Run ``exe`` on ``args``: each argument goes to the devices as the executable lays it
    out (a sharded Array already laid out so hands its buffer over), each result becomes a
    sharded Array with the sharding given or the one XLA chose."""
    ins, outs = shardings(exe, place, map(core.get_aval, args), out_avals)
    buffers = [_argument(x, s) for x, s in zip(args, ins)]
    return [Array(_on_its_device(b, s, place), a, sharding=s)
            for b, a, s in zip(exe(buffers), out_avals, outs)]


def _on_its_device(buffer, sharding, place: Placement):
    """A result's buffer as its Array holds it: one device's, for a result laid out on one
    device of a program over a mesh (a host callback's: XLA's maximal sharding)."""
    if place.mesh is None or not isinstance(sharding, SingleDeviceSharding):
        return buffer
    return runtime.shards(buffer)[place.devices.index(sharding._device)]


def _chosen(hlo, place: Placement, aval):
    """The sharding XLA chose, as JAX reports it: over the program's mesh, with the spec of
    the value's type where the type says how it lies (an Explicit mesh: ``P('x', None)``,
    not the ``P('x')`` read back from the layout)."""
    if place.mesh is None:
        return SingleDeviceSharding(place.devices[0])
    if hlo.is_maximal() and not hlo.is_replicated():  # (on one device: a host callback's
        # result, JAX's GSPMDSharding; a replicated layout is "maximal" too, on no device)
        return SingleDeviceSharding(place.devices[hlo.tile_assignment_devices()[0]])
    ndim = core.physical_aval(aval).ndim
    typed = getattr(aval, '_sharding', None)
    if typed is not None and typed.mesh.are_all_axes_explicit and \
            typed.mesh == place.mesh.abstract_mesh:
        sharding = NamedSharding(place.mesh, typed.spec)
        if runtime.hlo_sharding(sharding, ndim) == hlo:
            return sharding
    return runtime.named_sharding_from_hlo(hlo, place.mesh, ndim)


def _argument(x, sharding):
    """The jaxlib array over the program's devices holding argument ``x`` laid out as
    ``sharding``: a sharded Array's own buffer when it already lies so, else its value
    split anew (an ordinary value, or an Array laid out otherwise)."""
    if is_sharded(x) and x._sharding == sharding:
        return x._buffer
    if runtime.process_count() > 1:
        _check_splittable_here(x, sharding)
    value = physical_value(x)
    if isinstance(sharding, NamedSharding):
        sharding.check_divisible(value.shape)
    return runtime.shard(value, sharding)


def _check_splittable_here(x, sharding):
    """When several processes run the program (``minijax.distributed``), each splits an
    argument's value itself: a NumPy value that may differ between processes (JAX's error),
    or a sharded Array whose other blocks lie in other processes, cannot be."""
    if not isinstance(x, Array) and not sharding.is_fully_replicated:
        raise ValueError(
            'Passing non-trivial shardings for numpy inputs is not allowed. To fix this error, '
            'either specify a replicated sharding explicitly or use '
            '`jax.make_array_from_process_local_data(...)` to convert your host local numpy '
            'inputs to a jax.Array which you can pass to jit. If the numpy input is the same '
            'on each process, then you can use `jax.make_array_from_callback(...) to create '
            'a `jax.Array` which you can pass to jit. Got arg type: '
            f'{core.get_aval(x).str_short()}')
    if is_sharded(x) and not x._holds_whole_value():
        raise ValueError(
            f'an argument laid out as {x._sharding} is wanted as {sharding}: minijax lays an '
            'argument out anew through the host, and this process holds only part of it '
            '(other processes hold the rest). Pass it as it lies, or change its layout '
            'inside the jitted function (lax.with_sharding_constraint)')
