"""Meshes: devices laid out on named axes (``jax.sharding.Mesh``), their device-free twin
(``AbstractMesh``), the kind of each axis (``AxisType``), and the mesh in context.

A mesh names the axes a ``PartitionSpec`` shards an array's dimensions over. The abstract mesh
(names, sizes, axis types, no devices) is what tracing sees: ``set_mesh`` installs a concrete
mesh and its abstract mesh, ``use_abstract_mesh`` an abstract one alone, and
``get_abstract_mesh`` reads it (so a traced program knows which axes it may shard over).
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import functools
import math
import operator
import threading
from collections.abc import Sequence

import numpy as np


class AxisType(enum.Enum):
    """How a mesh axis is sharded. ``Auto``: the compiler (Shardy) decides how values are
    sharded over it; ``Explicit``: the sharding is part of each value's type, so JAX's rules
    decide it while tracing; ``Manual``: inside ``shard_map``, the program sees its shard."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


def _axis_types(axis_names, axis_types, name) -> tuple[AxisType, ...]:
    """``axis_types`` checked against the names (``Auto`` for every axis when None)."""
    if axis_types is None:
        axis_types = (AxisType.Auto,) * len(axis_names)
    if not isinstance(axis_types, tuple):
        axis_types = (axis_types,)
    if not all(isinstance(t, AxisType) for t in axis_types):
        raise TypeError(f'axis_types passed to {name} must be of type '
                        f'`jax.sharding.AxisType`. Got {axis_types} of type '
                        f'{tuple(type(t) for t in axis_types)}')
    if len(axis_names) != len(axis_types):
        raise ValueError('Number of axis names should match the number of axis_types. Got '
                         f'axis_names={axis_names} and axis_types={axis_types}')
    return axis_types


class _MeshAxes:
    """What a mesh and an abstract mesh share: the axes, by name, size and type."""
    axis_names: tuple
    axis_sizes: tuple
    axis_types: tuple

    @functools.cached_property
    def shape(self) -> collections.OrderedDict:
        return collections.OrderedDict(self.shape_tuple)

    @functools.cached_property
    def shape_tuple(self) -> tuple:
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def empty(self) -> bool:
        return self.size == 0

    def _axes_of_type(self, kind) -> tuple:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t is kind)

    auto_axes = property(lambda self: self._axes_of_type(AxisType.Auto))
    explicit_axes = property(lambda self: self._axes_of_type(AxisType.Explicit))
    manual_axes = property(lambda self: self._axes_of_type(AxisType.Manual))

    def _all_axes_are(self, kind) -> bool:
        return bool(self.axis_types) and all(t is kind for t in self.axis_types)

    are_all_axes_auto = property(lambda self: self._all_axes_are(AxisType.Auto))
    are_all_axes_explicit = property(lambda self: self._all_axes_are(AxisType.Explicit))
    are_all_axes_manual = property(lambda self: self._all_axes_are(AxisType.Manual))

    @property
    def _name_to_type(self) -> dict:
        return dict(zip(self.axis_names, self.axis_types))

    def _axes_text(self) -> str:
        """``'x': 4, 'y': 2, axis_types=(Explicit, Explicit)``, as JAX's reprs show axes."""
        sizes = ', '.join(f'{n!r}: {s}' for n, s in self.shape_tuple) or '()'
        return f'{sizes}, axis_types={self.axis_types}'


class Mesh(_MeshAxes):
    """Devices arranged in an array whose dimensions are named axes (``jax.sharding.Mesh``).

    ``devices``: an ndarray (or a sequence) of devices, ``axis_names``: one name per
    dimension, ``axis_types``: one ``AxisType`` per axis (``Auto`` for all when None).
    Meshes with the same devices, names and types are equal. ``with mesh:`` is JAX's
    deprecated form of ``set_mesh``; minijax does not offer it (use ``set_mesh``).
    """

    def __init__(self, devices: np.ndarray | Sequence, axis_names, axis_types=None):
        devices = np.array(devices, dtype=object) if not isinstance(devices, np.ndarray) \
            else devices
        axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if any(n is None for n in axis_names):
            raise ValueError(f'Mesh axis names cannot be None. Got: {axis_names}')
        if devices.ndim != len(axis_names):
            raise ValueError('Mesh requires the ndim of its first argument (`devices`) to '
                             'equal the length of its second argument (`axis_names`), but '
                             f'got devices.ndim == {devices.ndim} and len(axis_names) == '
                             f'{len(axis_names)}.')
        self.devices = devices.copy()
        self.devices.flags.writeable = False
        self.axis_names = axis_names
        self.axis_types = _axis_types(axis_names, axis_types, 'Mesh')
        self.size = 0 if not axis_names and devices.flat[0] is None else devices.size

    axis_sizes = property(lambda self: self.devices.shape)

    def _key(self):
        return (tuple(self.devices.flat), self.devices.shape, self.axis_names, self.axis_types)

    def __eq__(self, other):
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    @functools.cached_property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self) -> list:
        """The devices of this process: all of them (minijax runs in one process)."""
        return list(self.devices.flat)

    local_mesh = property(lambda self: self)
    is_multi_process = property(lambda self: False)
    _flat_devices_tuple = property(lambda self: tuple(self.devices.flat))

    @property
    def is_scalar(self) -> bool:
        return self.size == 1 and not self.axis_names

    @functools.cached_property
    def abstract_mesh(self) -> 'AbstractMesh':
        if not self.axis_names:
            return EMPTY_ABSTRACT_MESH
        d = self.devices.flat[0]
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types,
                            abstract_device=AbstractDevice(d.device_kind, None, d.platform))

    def update(self, devices=None, axis_names=None, axis_types=None) -> 'Mesh':
        return Mesh(self.devices if devices is None else devices,
                    self.axis_names if axis_names is None else axis_names,
                    self.axis_types if axis_types is None else axis_types)

    def __str__(self):
        return 'Mesh()' if self.empty else f'Mesh({self._axes_text()})'

    def __repr__(self):
        if self.empty:
            return 'Mesh(axis_sizes=(), axis_names=())'
        return (f'Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names!r}, '
                f'axis_types={self.axis_types})')

    def __reduce__(self):
        return Mesh, (self.devices, self.axis_names, self.axis_types)


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """The kind of device an abstract mesh stands for (``jax.sharding.AbstractDevice``)."""
    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return f'AbstractDevice({self._repr()})'

    def _repr(self):
        return (f'device_kind={self.device_kind}, num_cores={self.num_cores}, '
                f'platform={self.platform}')


class AbstractMesh(_MeshAxes):
    """A mesh's axes without its devices (``jax.sharding.AbstractMesh``): what a traced
    program may know of the mesh it will run on."""

    def __init__(self, axis_sizes: tuple, axis_names: tuple, axis_types=None, *,
                 abstract_device: AbstractDevice | None = None):
        self.axis_sizes = tuple(axis_sizes)
        self.axis_names = tuple(axis_names)
        self.axis_types = _axis_types(self.axis_names, axis_types, 'AbstractMesh')
        self.abstract_device = abstract_device
        self.size = math.prod(self.axis_sizes) if self.axis_sizes else 0

    def _key(self):
        return self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device

    def __eq__(self, other):
        return isinstance(other, AbstractMesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    abstract_mesh = property(lambda self: self)

    def update(self, axis_sizes=None, axis_names=None, axis_types=None, **kwargs):
        return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                            self.axis_names if axis_names is None else axis_names,
                            self.axis_types if axis_types is None else axis_types,
                            abstract_device=kwargs.get('abstract_device',
                                                       self.abstract_device))

    def update_axis_types(self, name_to_type: dict) -> 'AbstractMesh':
        return self.update(axis_types=tuple(name_to_type.get(n, t) for n, t in
                                            zip(self.axis_names, self.axis_types)))

    def __repr__(self):
        device = '' if self.abstract_device is None else f', {self.abstract_device._repr()}'
        return f'AbstractMesh({self._axes_text()}{device})'

    def __reduce__(self):
        return functools.partial(AbstractMesh, abstract_device=self.abstract_device), \
            (self.axis_sizes, self.axis_names, self.axis_types)

    def _no(name):  # noqa: N805 (a property factory, used in the class body)
        def fail(self):
            raise ValueError(f'AbstractMesh does not implement {name}')
        return property(fail)

    devices, device_ids, local_devices = _no('devices'), _no('device_ids'), _no('local_devices')
    local_mesh, is_multi_process = _no('local_mesh'), _no('is_multi_process')
    del _no


EMPTY_ABSTRACT_MESH = AbstractMesh((), ())
EMPTY_MESH = Mesh(np.empty((), dtype=object), ())


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *,
              devices=None) -> Mesh:
    """A mesh of ``axis_shapes`` over the first devices (``jax.make_mesh``); as in JAX
    0.10.2 its axes are ``Explicit`` unless ``axis_types`` says otherwise. On CPU, JAX lays
    the devices out in order (no topology to follow), and so does minijax."""
    if devices is None:
        from minijax import runtime  # the devices come from the runtime, a layer above
        devices = runtime.devices()
    try:
        shape = tuple(operator.index(s) for s in axis_shapes)
    except TypeError:
        raise ValueError('`axis_shapes` passed to `make_mesh` should be a sequence of ints. '
                         f'Got {axis_shapes}') from None
    size = math.prod(shape)
    if size > len(devices):
        raise ValueError(f'Number of devices {len(devices)} must be >= the product of '
                         f'mesh_shape {shape}')
    chosen = np.empty(size, dtype=object)
    chosen[:] = list(devices)[:size]
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(shape)
    return Mesh(chosen.reshape(shape), axis_names, axis_types)


# ----------------------------------------------------------------------------- the mesh in context

class _Context(threading.local):
    """The mesh in context, per thread: the concrete mesh ``set_mesh`` installed and the
    abstract mesh tracing sees."""

    def __init__(self):
        self.mesh = EMPTY_MESH
        self.abstract_mesh = EMPTY_ABSTRACT_MESH


_context = _Context()


def get_abstract_mesh() -> AbstractMesh:
    """The abstract mesh in context (empty when none is set)."""
    return _context.abstract_mesh


def get_concrete_mesh() -> Mesh:
    """The concrete mesh ``set_mesh`` installed (empty when none is), inside ``jit`` too."""
    return _context.mesh


def tracing() -> bool:
    """Whether a trace is under way (``set_mesh`` and ``get_mesh`` are refused inside
    ``jit``). ``minijax.core`` is imported here, not above: it will import this module."""
    from minijax import core
    return core.dynamic_trace is not None or len(core.trace_stack) > 1


def get_mesh() -> Mesh:
    """The concrete mesh ``set_mesh`` installed (``jax.sharding.get_mesh``)."""
    if tracing():
        raise ValueError('`get_mesh` can only be used outside of `jax.jit`. Maybe you want '
                         '`jax.sharding.get_abstract_mesh()`?')
    return _context.mesh


class set_mesh:  # noqa: N801 (JAX's name: a function and a context manager)
    """Install ``mesh`` (and its abstract mesh) as the mesh in context
    (``jax.set_mesh``): for good when called, for the block when used with ``with``.
    ``None`` clears it. Refused inside ``jit``, and for a mesh with ``Manual`` axes."""
    __slots__ = ('_previous',)

    def __init__(self, mesh: Mesh | None):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ValueError(f'Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}')
        if tracing():
            raise ValueError('`set_mesh` can only be used outside of `jax.jit`.')
        if mesh is not None and mesh.manual_axes:
            raise ValueError(f'mesh {mesh} contains manual axes which is not allowed when '
                             'using `jax.set_mesh`. Please use `jax.shard_map` to enter into '
                             '`Manual` mode instead.')
        self._previous = (_context.mesh, _context.abstract_mesh)
        _context.mesh = EMPTY_MESH if mesh is None else mesh
        _context.abstract_mesh = EMPTY_ABSTRACT_MESH if mesh is None else mesh.abstract_mesh

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _context.mesh, _context.abstract_mesh = self._previous


class use_abstract_mesh:  # noqa: N801 (JAX's name)
    """Within the block, ``mesh`` (an ``AbstractMesh``) is the abstract mesh in context
    (``jax.sharding.use_abstract_mesh``); it may not change the mesh's size."""
    __slots__ = ('mesh', '_previous')

    def __init__(self, mesh: AbstractMesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError('Expected mesh of type `jax.sharding.AbstractMesh`. Got type: '
                             f'{type(mesh)}')
        self.mesh = mesh

    def __enter__(self):
        previous = self._previous = _context.abstract_mesh
        if not previous.empty and not self.mesh.empty and previous.size != self.mesh.size:
            raise ValueError(f'use_abstract_mesh cannot change the size of the mesh. Got new '
                             f'mesh: {self.mesh} with size={self.mesh.size} and prev mesh: '
                             f'{previous} with size={previous.size}')
        _context.abstract_mesh = self.mesh

    def __exit__(self, *exc):
        _context.abstract_mesh = self._previous


@contextlib.contextmanager
def use_concrete_mesh(mesh: Mesh):
    """Within the block, ``mesh`` is the concrete mesh in context (not its abstract mesh):
    how ``jit`` compiles for its arguments' mesh."""
    previous, _context.mesh = _context.mesh, mesh
    try:
        yield
    finally:
        _context.mesh = previous


class ManualAxisType:
    """Of a value inside ``shard_map``, the manual axes along which it varies, and those over
    which it is an unreduced or a reduced sum (``jax.sharding.ManualAxisType``)."""
    __slots__ = ('varying', 'unreduced', 'reduced')

    def __init__(self, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        for name, axes in (('unreduced', unreduced), ('reduced', reduced)):
            if varying & axes:
                raise ValueError(f'varying and {name} cannot have common mesh axes. Got '
                                 f'varying={varying} and {name}={axes}')
        for name, axes in (('varying', varying), ('unreduced', unreduced),
                           ('reduced', reduced)):
            object.__setattr__(self, name, frozenset(axes))

    def __setattr__(self, name, value):
        raise AttributeError(f'ManualAxisType is immutable: cannot set {name!r}')

    def _key(self):
        return self.varying, self.unreduced, self.reduced

    def __eq__(self, other):
        return isinstance(other, ManualAxisType) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f'ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, '
                f'reduced={self.reduced})')

    def update(self, **kwargs) -> 'ManualAxisType':
        return ManualAxisType(**{**dict(zip(self.__slots__, self._key())), **kwargs})

    empty = property(lambda self: not (self.varying or self.unreduced or self.reduced))
