"""Sharding in types: the sharding a ``ShapedArray`` carries, and how a type prints it.

Under a mesh whose axes are ``Explicit`` (``make_mesh``'s default), an array's type says how
it is sharded, as JAX 0.10.2's does: ``f32[8@X,4@Y]`` is split over mesh axis ``X`` on its
first dimension and ``Y`` on its second, ``f32[8,16]{U:X}`` is unreduced over ``X``. A type
holds a ``NamedSharding`` over an ``AbstractMesh``, its spec one entry per dimension and
naming only the mesh's ``Explicit`` axes (the compiler decides the ``Auto`` ones). A type
without a mesh holds no sharding at all (``ShapedArray._sharding is None``): ordinary
programs never build one.
"""
from __future__ import annotations

import functools

from minijax.sharding.mesh import EMPTY_ABSTRACT_MESH, AxisType
from minijax.sharding.named_sharding import NamedSharding
from minijax.sharding.partition_spec import UNCONSTRAINED, PartitionSpec


#: Whether a type has ever had a sharding (``core.sharding_in_types`` reads it).
seen = False


@functools.cache
def unsharded(ndim: int) -> NamedSharding:
    """The sharding of an unsharded type of rank ``ndim``: the empty mesh's, one ``None``
    entry per dimension (``typeof(np.ones(3)).sharding``), made once per rank."""
    return NamedSharding(EMPTY_ABSTRACT_MESH, PartitionSpec(*[None] * ndim))


@functools.lru_cache(maxsize=4096)
def type_sharding(sharding, shape: tuple) -> NamedSharding | None:
    """``sharding`` as a type of ``shape`` holds it: over the abstract mesh, with one entry
    per dimension, ``Auto`` and ``Manual`` axes left out (they are not part of a type); None
    for the empty mesh's. A spec longer than the rank is JAX's error."""
    if not isinstance(sharding, NamedSharding):  # (one device's: no mesh)
        return None
    mesh = sharding.mesh.abstract_mesh
    if mesh.empty:
        return None
    sharding.check_compatible_aval(shape)
    spec = sharding.spec
    if not mesh.are_all_axes_explicit:
        spec = explicit_only(spec, mesh)
    entries = [None if p is UNCONSTRAINED else p for p in spec.partitions]
    entries += [None] * (len(shape) - len(entries))
    spec = spec.update(partitions=entries)
    global seen
    seen = True
    if mesh is sharding.mesh and spec == sharding.spec and sharding.memory_kind is None:
        return sharding
    return NamedSharding(mesh, spec)


def explicit_only(spec: PartitionSpec, mesh) -> PartitionSpec:
    """``spec`` without the axes a type cannot name (JAX's modify_spec_for_auto_manual)."""
    kinds = mesh._name_to_type

    def keep(entry):
        if entry is None or entry is UNCONSTRAINED:
            return None
        names = tuple(a for a in (entry if isinstance(entry, tuple) else (entry,))
                      if kinds[a] is AxisType.Explicit)
        return None if not names else names[0] if len(names) == 1 else names
    return PartitionSpec(*map(keep, spec.partitions),
                         unreduced={a for a in spec.unreduced if kinds[a] is AxisType.Explicit},
                         reduced={a for a in spec.reduced if kinds[a] is AxisType.Explicit})


def type_text(shape: tuple, spec: PartitionSpec, mesh) -> str:
    """``[8@X,4@(X,Y)]{U:Z}``: each dimension with the mesh axes it is split over, then the
    axes the value is unreduced (``U``) or reduced (``R``) over, in the mesh's order."""
    dims = ','.join(str(d) if p is None else
                    f'{d}@({",".join(p)})' if isinstance(p, tuple) else f'{d}@{p}'
                    for d, p in zip(shape, spec.partitions))
    sets = [f'{letter}:{_axes(mesh, axes)}' for letter, axes in
            (('U', spec.unreduced), ('R', spec.reduced)) if axes]
    return f'[{dims}]' + (f'{{{", ".join(sets)}}}' if sets else '')


def _axes(mesh, axes) -> str:
    names = [a for a in mesh.axis_names if a in axes]
    return names[0] if len(names) == 1 else f'({",".join(names)})'
