"""Global Arrays from the data each process has (``jax.make_array_from_callback``,
``jax.make_array_from_process_local_data``, ``jax.make_array_from_single_device_arrays``).

When several processes run one program (``minijax.distributed``), a global array is never
whole anywhere: each process holds the blocks on its own devices, and passes an Array made
of them to the program, which runs over every process's devices. These functions make that
Array from the blocks a process has; in a run of one process, the whole array.
"""
from __future__ import annotations

import collections
from collections.abc import Sequence

import numpy as np

from minijax import core, runtime, tree_util
from minijax.array import Array, device_put, physical_value
from minijax.core import ShapedArray
from minijax.errors import UnexpectedTracerError
from minijax.sharding import NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding
from minijax.sharding.mesh import get_concrete_mesh


def make_array_from_callback(shape, sharding, data_callback, dtype=None) -> Array:
    """An Array of ``shape`` laid out as ``sharding``, whose block on each of this process's
    devices is ``data_callback(index)``, ``index`` being the block's slices of the global
    value (called once when every device holds the whole value)."""
    if not isinstance(sharding, Sharding):
        raise TypeError('sharding should be an instance of `jax.sharding`. '
                        f'Got {sharding} of type {type(sharding)}')
    shape = tuple(shape)
    indices = sharding.addressable_devices_indices_map(shape)

    def block(index):
        value = data_callback(index)
        if isinstance(value, core.Tracer):
            raise UnexpectedTracerError('jax.make_array_from_callback cannot be called within '
                                        'a traced context.')
        return physical_value(value)

    if sharding.is_fully_replicated:
        whole = block((slice(None),) * len(shape)) if indices else None
        values = [whole] * len(indices)
    else:
        values = [block(index) for index in indices.values()]
    dtype = _checked_dtype(values, dtype, 'make_array_from_callback')
    _check_blocks(values, shape, dtype, sharding)
    if isinstance(sharding, SingleDeviceSharding) and values:
        device, = indices
        return device_put(values[0], device)
    blocks = [runtime.device_put(v, on) for v, on in zip(values, indices)]
    return Array(runtime.assemble(shape, dtype, sharding, blocks), ShapedArray(shape, dtype),
                 sharding=sharding)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> Array:
    """An Array of ``shape`` laid out as ``sharding`` from this process's blocks: one Array
    per device of this process that ``sharding`` uses, on that device (``device_put``), in
    any order."""
    if not isinstance(arrays, (list, tuple)):
        raise TypeError('jax.make_array_from_single_device_arrays `arrays` argument must be a '
                        f'list or tuple, but got {type(arrays)}.')
    for a in arrays:
        if isinstance(a, core.Tracer):
            raise ValueError('jax.make_array_from_single_device_arrays requires a list of '
                             f'concrete arrays as input, but got types {set(map(type, arrays))}')
        if not isinstance(a, Array):
            raise TypeError(f'Unsupported type for elements in `arrays`: {type(a)}')
    dtype = _checked_dtype(arrays, dtype, 'make_array_from_single_device_arrays')
    shape = tuple(shape)
    on = {_device_of(a).id: a for a in arrays}
    here = sharding.addressable_devices_indices_map(shape)
    if len(arrays) != len(here):
        raise ValueError(f'Expected {len(here)} per-device arrays (this is how many devices are '
                         f'addressable by the sharding), but got {len(arrays)}')
    if len(on) != len(arrays):
        raise ValueError('When making an array from single-device arrays, the input arrays '
                         'must be from distinct devices, but got device IDs '
                         f'{[_device_of(a).id for a in arrays]}')
    missing, extra = {d.id for d in here} - set(on), set(on) - {d.id for d in here}
    if missing or extra:
        raise ValueError('Addressable devices and per-device arrays devices do not match.'
                         + (f' Sharding contains devices {missing} that are not present in '
                            'per-device arrays.' if missing else '')
                         + (f' Per-device arrays contain devices {extra} that are not present '
                            'in the sharding.' if extra else ''))
    _check_blocks(arrays, shape, dtype, sharding)
    if isinstance(sharding, SingleDeviceSharding):
        return device_put(arrays[0], sharding)
    blocks = [_single_buffer(on[d.id], d) for d in here]
    return Array(runtime.assemble(shape, dtype, sharding, blocks), ShapedArray(shape, dtype),
                 sharding=sharding)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """The global Array (or a pytree of them) whose blocks on this process's devices come
    from ``local_data``, this process's part of it: along a dimension where ``local_data`` is
    smaller than ``global_shape``, this process's blocks in order; along the others, the
    whole dimension. ``global_shape`` (None: inferred, each process holding its own part)
    and ``sharding`` (a Sharding or a PartitionSpec over the mesh ``set_mesh`` installed)
    may be pytree prefixes of ``local_data``."""
    leaves, treedef = tree_util.tree_flatten(local_data)
    shapes = tree_util.broadcast_prefix(global_shape, local_data,
                                        is_leaf=lambda x: x is None or isinstance(x, tuple),
                                        name='global_shape')
    if runtime.process_count() == 1:
        for shape, data in zip(shapes, leaves):
            if shape is not None and tuple(shape) != np.shape(data):
                raise ValueError(
                    'When calling `make_array_from_process_local_data` on a single process, '
                    'global_shape should be None or equal to local_data.shape.Got '
                    f'global_shape={shape} and local_data.shape={np.shape(data)}.')
        return device_put(local_data, sharding)
    shardings = [_as_sharding(s) for s in tree_util.broadcast_prefix(
        sharding, local_data, is_leaf=lambda s: isinstance(s, (Sharding, PartitionSpec)),
        name='sharding')]
    return treedef.unflatten(_from_process_local_data(physical_value(data), s, shape)
                             for data, s, shape in zip(leaves, shardings, shapes))


def _from_process_local_data(local, sharding, global_shape) -> Array:
    """One global Array from this process's ``local`` part."""
    if global_shape is None:
        global_shape = _global_shape(sharding, local.shape)
        if None in global_shape:
            raise ValueError('Unable to compute global_shape due to non-uniform sharding. '
                             'Specify global shape directly. Partially computed '
                             f'global_shape={global_shape}.')
    elif None in global_shape:
        raise ValueError(f'global_shape={global_shape} has Nones. This is not supported.')
    global_shape = tuple(global_shape)
    whole = [n == g for n, g in zip(local.shape, global_shape)]
    for dim, (n, g) in enumerate(zip(local.shape, global_shape)):
        if n != g and n != (held := _held_size(sharding, dim, global_shape)):
            raise ValueError('Invalid host data, each dimension should match either global or '
                             f'process shape. In dimension {dim}, the process data has {n} '
                             f'elements. Process addresses {held} elements and '
                             f'global_shape={global_shape}.')
    here = list(sharding.addressable_devices_indices_map(global_shape).values())
    block = sharding.shard_shape(global_shape)
    starts = [sorted({index[d].start or 0 for index in here}) for d in range(len(block))]

    def local_block(index):
        """The slices of ``local`` holding the global block ``index``: this process's
        blocks lie in ``local`` in the order of their starts."""
        return local[tuple(s if whole[d] else
                           slice(starts[d].index(s.start or 0) * block[d],
                                 (starts[d].index(s.start or 0) + 1) * block[d])
                           for d, s in enumerate(index))]

    return make_array_from_callback(global_shape, sharding, local_block)


def _global_shape(sharding, local_shape) -> tuple:
    """The global shape given this process's part of ``local_shape``, from how the
    processes' blocks tile each dimension (None where they do not tile it evenly: processes
    holding different numbers of blocks, or overlapping ones)."""
    if sharding.is_fully_addressable or sharding.is_fully_replicated:
        return tuple(local_shape)
    probe = sharding.devices_indices_map((sharding.num_devices,) * len(local_shape))
    shape = []
    for dim, size in enumerate(local_shape):
        per_process = collections.defaultdict(set)
        for device, index in probe.items():
            per_process[device.process_index].add((index[dim].start, index[dim].stop))
        distinct = {frozenset(s) for s in per_process.values()}
        uniform = len({len(s) for s in per_process.values()}) == 1 and \
            sum(map(len, distinct)) == len(set().union(*per_process.values()))
        shape.append(size * len(distinct) if uniform else None)
    return tuple(shape)


def _held_size(sharding, dim, global_shape) -> int:
    """How many indices of dimension ``dim`` this process's blocks hold."""
    here = sharding.addressable_devices_indices_map(global_shape).values()
    return sharding.shard_shape(global_shape)[dim] * \
        len({(index[dim].start, index[dim].stop) for index in here})


def _as_sharding(s):
    if isinstance(s, PartitionSpec):
        mesh = get_concrete_mesh()
        if mesh.empty:
            raise ValueError('Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed '
                             'to make_array_from_process_local_data')
        return NamedSharding(mesh, s)
    return s


def _device_of(a: Array):
    """The device an Array lies on (an ordinary one: this process's first)."""
    device, = a.devices()
    return device


def _single_buffer(a: Array, device):
    """``a``'s buffer on ``device``: its own, or (an ordinary Array, whose buffer belongs to
    the single-device client) its value copied there."""
    if a._sharding is None:
        return runtime.device_put(physical_value(a), device)
    return runtime.shards(a._buffer)[0]


def _checked_dtype(values: Sequence, dtype, name: str) -> np.dtype:
    """The blocks' dtype, or ``dtype``, which must match it (JAX's checks)."""
    if dtype is None:
        if not values:
            raise ValueError('If the Array has no addressable shards, `dtype` must be provided '
                             f'via the `dtype` argument to `jax.{name}`.')
        return np.dtype(values[0].dtype)
    dtype = np.dtype(dtype)
    if values and values[0].dtype != dtype:
        raise ValueError(f'If `dtype` is provided to `jax.{name}`, it must match the dtype of '
                         f'the addressable shards. Got dtype={dtype} and shard '
                         f'dtype={values[0].dtype}`.')
    return dtype


def _check_blocks(values, shape, dtype, sharding) -> None:
    """Every block has the dtype and the shape ``sharding`` gives a block of ``shape``."""
    expected = sharding.shard_shape(shape)
    aval = ShapedArray(shape, dtype)
    for v in values:
        if v.dtype != dtype:
            raise ValueError('Input buffers to `Array` must have matching dtypes. '
                             f'Got {v.dtype}, expected {dtype} for buffer: {v}')
        if tuple(v.shape) != expected:
            raise ValueError(f"Expected shard shape {expected} doesn't match the single device "
                             f'array shape {tuple(v.shape)}. Shape of Array is '
                             f'{aval.str_short()} with sharding {sharding}')
