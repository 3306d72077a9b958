"""Shardings: how an array's elements lie on devices (``jax.sharding.Sharding`` and the two
kinds minijax makes, ``NamedSharding`` over a mesh and ``SingleDeviceSharding``).

A ``NamedSharding`` pairs a mesh with a ``PartitionSpec``: dimension ``d`` of an array is cut
into as many blocks as the product of the sizes of the axes ``spec[d]`` names, and the device
at a position of the mesh holds the block its coordinates on those axes select (the first axis
named is the major one); it holds the same block as every device differing only on the other
axes (a replica).
"""
from __future__ import annotations

import math

from minijax import distributed
from minijax.sharding.mesh import AbstractMesh, AxisType, Mesh
from minijax.sharding.partition_spec import UNCONSTRAINED, PartitionSpec, spec_axes


class IndivisibleError(ValueError):
    """An array's dimension does not split evenly into the blocks a sharding asks for."""


class DuplicateSpecError(Exception):
    """A ``PartitionSpec`` uses a mesh axis for two dimensions (JAX's exception)."""

    def __init__(self, message, mesh, pspec):
        super().__init__(message)
        self.message, self.mesh, self.pspec = message, mesh, pspec

    def __str__(self):
        return self.message


class Sharding:
    """The interface every sharding offers (``jax.sharding.Sharding``): the devices, which
    part of an array of a given shape each one holds, and the shape of those parts."""

    device_set = property(lambda self: _abstract('device_set'))
    is_fully_replicated = property(lambda self: _abstract('is_fully_replicated'))
    memory_kind = property(lambda self: _abstract('memory_kind'))

    def devices_indices_map(self, global_shape) -> dict:
        _abstract('devices_indices_map')

    def with_memory_kind(self, kind):
        _abstract('with_memory_kind')

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process holds every shard (always, unless several processes run the
        program: ``minijax.distributed``)."""
        return all(map(distributed.is_local, self.device_set))

    addressable_devices = property(
        lambda self: set(filter(distributed.is_local, self.device_set)))
    has_addressable_devices = property(lambda self: bool(self.addressable_devices))

    def addressable_devices_indices_map(self, global_shape) -> dict:
        """``devices_indices_map`` for this process's devices."""
        return {d: index for d, index in self.devices_indices_map(global_shape).items()
                if distributed.is_local(d)}

    def shard_shape(self, global_shape) -> tuple:
        """The shape of the part each device holds."""
        _abstract('shard_shape')

    def is_equivalent_to(self, other: 'Sharding', ndim: int) -> bool:
        """Whether both lay an array of rank ``ndim`` out on the same devices the same way."""
        shape = (self.num_devices * other.num_devices,) * ndim  # every tiling divides it
        try:
            return (self._device_assignment == other._device_assignment
                    and self.memory_kind == other.memory_kind
                    and self.devices_indices_map(shape) == other.devices_indices_map(shape))
        except (ValueError, NotImplementedError):
            return False


def _abstract(name):
    raise NotImplementedError(f'Sharding subclasses must implement {name}')


class SingleDeviceSharding(Sharding):
    """All of an array on one device (``jax.sharding.SingleDeviceSharding``)."""

    def __init__(self, device, *, memory_kind: str | None = None):
        self._device = device
        self._memory_kind = memory_kind

    device_set = property(lambda self: {self._device})
    memory_kind = property(lambda self: self._memory_kind or 'device')
    is_fully_replicated = True
    num_devices = 1
    _device_assignment = property(lambda self: (self._device,))

    def with_memory_kind(self, kind: str) -> 'SingleDeviceSharding':
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def devices_indices_map(self, global_shape) -> dict:
        return {self._device: (slice(None),) * len(global_shape)}

    def shard_shape(self, global_shape) -> tuple:
        return tuple(global_shape)

    def check_compatible_aval(self, shape) -> None:
        return

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and self._device == other._device \
            and self.memory_kind == other.memory_kind

    def __hash__(self):
        return hash((self._device, self.memory_kind))

    def __repr__(self):
        return f'SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})'

    def __reduce__(self):
        return _single_device_sharding, (self._device, self._memory_kind)


def _single_device_sharding(device, memory_kind):
    return SingleDeviceSharding(device, memory_kind=memory_kind)


def make_single_device_sharding(device, *, memory_kind=None) -> SingleDeviceSharding:
    return SingleDeviceSharding(device, memory_kind=memory_kind)


class NamedSharding(Sharding):
    """An array laid out over a mesh as a ``PartitionSpec`` says
    (``jax.sharding.NamedSharding``); the spec is checked against the mesh when made, and
    against an array's rank when applied to one."""

    def __init__(self, mesh: Mesh | AbstractMesh, spec: PartitionSpec, *,
                 memory_kind: str | None = None):
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f'NamedSharding: mesh must be a jax.sharding.Mesh or AbstractMesh, '
                            f'got {type(mesh).__name__}')
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f'NamedSharding: spec must be a PartitionSpec, got {spec!r} of type '
                            f'{type(spec).__name__}')
        self.mesh = mesh
        self.spec = spec
        self._memory_kind = memory_kind
        check_pspec(mesh, spec)

    @property
    def memory_kind(self) -> str | None:
        """The memory the array lives in: the device's own (JAX's 'device') unless said;
        an abstract mesh has no memory (None)."""
        if self._memory_kind is None and isinstance(self.mesh, Mesh):
            return 'device'
        return self._memory_kind

    def __repr__(self):
        memory = '' if self.memory_kind is None else f', memory_kind={self.memory_kind}'
        return f'NamedSharding(mesh={self.mesh}, spec={self.spec}{memory})'

    def __eq__(self, other):
        return isinstance(other, NamedSharding) and self.spec == other.spec and \
            self.memory_kind == other.memory_kind and self.mesh == other.mesh

    def __hash__(self):
        return hash((self.mesh, self.memory_kind, self.spec))

    def __reduce__(self):
        return _named_sharding, (self.mesh, self.spec, self._memory_kind)

    def _concrete_mesh(self, what) -> Mesh:
        if isinstance(self.mesh, AbstractMesh):
            raise ValueError(f'{what} is not implemented for `jax.sharding.AbstractMesh`.')
        return self.mesh

    @property
    def device_set(self) -> set:
        return set(self._concrete_mesh('device_set').devices.flat)

    @property
    def _device_assignment(self) -> tuple:
        return tuple(self._concrete_mesh('_device_assignment').devices.flat)

    num_devices = property(lambda self: self.mesh.size)

    @property
    def is_fully_replicated(self) -> bool:
        if self.mesh.size == 1:
            return True
        if self.spec.unreduced:
            return False
        return math.prod(self.mesh.shape[a] for a in spec_axes(self.spec)) == 1

    @property
    def replicated_axes(self) -> frozenset:
        used = set(spec_axes(self.spec)) | self.spec.unreduced | self.spec.reduced
        return frozenset(self.mesh.axis_names) - used

    def with_memory_kind(self, kind: str) -> 'NamedSharding':
        return self.update(memory_kind=kind)

    def update(self, **kwargs) -> 'NamedSharding':
        spec = kwargs.pop('spec', self.spec)
        return NamedSharding(kwargs.pop('mesh', self.mesh),
                             spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec),
                             memory_kind=kwargs.pop('memory_kind', self._memory_kind))

    def check_compatible_aval(self, shape) -> None:
        """A spec longer than the array's rank is an error (JAX's, at trace time)."""
        if len(shape) < len(self.spec):
            extra = ' For scalars the PartitionSpec should be P()' if not shape else ''
            raise ValueError(f'Sharding {self} is only valid for values of rank at least '
                             f'{len(self.spec)}, but was applied to a value of rank '
                             f'{len(shape)}.{extra}')

    def check_divisible(self, shape) -> None:
        """The rank and each split dimension's size fit the spec: JAX's check of a value
        given this sharding (``device_put``), with its message: the type's on a mesh with
        ``Explicit`` axes (where the sharding is part of the type), ``shard_shape``'s else."""
        self.check_compatible_aval(shape)
        if not self.mesh.explicit_axes:  # not in the value's type: the sharding's own check
            self.shard_shape(shape)
            return
        for dim, (size, parts) in enumerate(zip(shape, self.tiling(len(shape)))):
            if size % parts:
                spec = NamedSharding(self.mesh.abstract_mesh, self.spec)
                entry = _entry_axes(self.spec.partitions[dim])
                raise ValueError(f'Sharding spec {entry!r} implies that array '
                                 f'axis {dim} is partitioned {parts} times, but does not evenly '
                                 f'divide the dimension size {size}. Got shape: {tuple(shape)} '
                                 f'and sharding {spec}')

    def tiling(self, ndim: int) -> list[int]:
        """How many blocks each of ``ndim`` dimensions is cut into."""
        entries = list(self.spec.partitions) + [None] * (ndim - len(self.spec))
        return [math.prod(self.mesh.shape[a] for a in _entry_axes(e)) for e in entries]

    def shard_shape(self, global_shape) -> tuple:
        """The shape of each device's block (every block has the same shape: an uneven
        split is JAX's ``IndivisibleError``)."""
        global_shape = tuple(global_shape)
        self.check_compatible_aval(global_shape)
        tiling = self.tiling(len(global_shape))
        for dim, (size, parts) in enumerate(zip(global_shape, tiling)):
            if size % parts:
                raise IndivisibleError(
                    f'Sharding {self} implies that array axis {dim} is partitioned {parts} '
                    f'times, but the dimension size is {size} (full shape: {global_shape}, '
                    f'per-dimension tiling factors: {tiling} should evenly divide the shape)')
        return tuple(size // parts for size, parts in zip(global_shape, tiling))

    def devices_indices_map(self, global_shape) -> dict:
        """Each device's block of an array of ``global_shape``, as a tuple of slices."""
        if self.spec.unreduced:
            raise NotImplementedError("device_indices_map doesn't work with unreduced.")
        block = self.shard_shape(global_shape)
        mesh = self._concrete_mesh('devices_indices_map')
        indices = {}
        for position, device in zip(_positions(mesh.axis_sizes), mesh.devices.flat):
            coordinate = dict(zip(mesh.axis_names, position))
            index = []
            for d, entry in enumerate(list(self.spec.partitions) +
                                      [None] * (len(block) - len(self.spec))):
                axes = _entry_axes(entry)
                if not axes or math.prod(mesh.shape[a] for a in axes) == 1:
                    index.append(slice(None))
                    continue
                number = 0
                for a in axes:  # the first axis named is the major one
                    number = number * mesh.shape[a] + coordinate[a]
                index.append(slice(number * block[d], (number + 1) * block[d]))
            indices[device] = tuple(index)
        return indices

    def replica_ids(self, global_shape) -> dict:
        """Each device's number among the devices holding the same block (0 for the first,
        in the mesh's order), as ``Shard.replica_id``."""
        seen: dict = {}
        ids = {}
        for device, index in self.devices_indices_map(global_shape).items():
            key = tuple((s.start, s.stop) for s in index)
            ids[device] = seen.get(key, 0)
            seen[key] = ids[device] + 1
        return ids


def _named_sharding(mesh, spec, memory_kind):
    return NamedSharding(mesh, spec, memory_kind=memory_kind)


def _entry_axes(entry) -> tuple:
    if entry is None or entry is UNCONSTRAINED:
        return ()
    return entry if isinstance(entry, tuple) else (entry,)


def _positions(sizes):
    """Every position in a grid of ``sizes``, in row-major order."""
    positions = [()]
    for size in sizes:
        positions = [p + (i,) for p in positions for i in range(size)]
    return positions


def _show_axes(axes) -> str:
    return ', '.join(sorted(f'`{a}`' for a in axes))


def check_pspec(mesh, spec: PartitionSpec) -> None:
    """JAX's checks of a spec against a mesh: no axis used twice, every axis in the mesh,
    ``UNCONSTRAINED`` only with an ``Auto`` axis, the sets on ``Explicit`` axes only."""
    counts: dict = {}
    for axis in spec_axes(spec):
        counts[axis] = counts.get(axis, 0) + 1
    twice = [a for a, n in counts.items() if n > 1]
    if twice:
        raise DuplicateSpecError(
            f'A single NamedSharding spec specification can map every mesh axis to at most one '
            f'positional dimension, but {spec} has duplicate entries for {_show_axes(twice)}',
            mesh, spec)
    for axis in counts:
        if axis not in mesh.axis_names:
            raise ValueError(f'Resource axis: {axis} of {spec} is not found in mesh: '
                             f'{tuple(mesh.axis_names)}.')
    if AxisType.Auto not in mesh.axis_types and UNCONSTRAINED in spec.partitions:
        raise ValueError(f'{spec} cannot contain `P.UNCONSTRAINED` when no mesh axis_types '
                         f'are `Auto`. Got mesh axis_types: {mesh.axis_types}')
    for name, axes in (('Unreduced', spec.unreduced), ('Reduced', spec.reduced)):
        for axis in axes:
            if axis not in mesh.axis_names:
                raise ValueError(f'{name} axes {axis} is not found in '
                                 f'mesh.axis_names={mesh.axis_names}. Got pspec={spec}')
            if mesh._name_to_type[axis] is not AxisType.Explicit:
                raise ValueError(f'{name} axes can only refer to mesh axes that is of type '
                                 f'`Explicit`. Got {name.lower()} axes: {axes} and mesh: {mesh}')
