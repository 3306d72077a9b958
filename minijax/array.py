"""``minijax.Array``: an array value, on the host or in a device buffer, that duck-types NumPy.

Results of ``jit`` are Arrays holding device buffers; passing one back into a jitted function
hands its buffer over directly, without a trip through host memory. Results of eager
``minijax.numpy`` calls are Arrays holding the NumPy value the primitives' implementations
computed: it is frozen (Arrays are immutable) and copied to the device only when a compiled
program first needs it, so eager code pays no transfer per operation.
"""
from __future__ import annotations

import math
import numpy as np

from minijax import core, distributed, dtypes, runtime, tree_util
from minijax.core import ConcreteArray, ShapedArray
from minijax.sharding import NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding
from minijax.sharding.mesh import get_concrete_mesh


class Array:
    __array_priority__ = 100
    __slots__ = ('_buffer', '_aval', '_npy', '_sharding', '__weakref__')

    def __init__(self, buffer, aval: ShapedArray, value: np.ndarray | None = None,
                 sharding=None):
        """``buffer``: a jaxlib device array, or None while the value lives only on the host
        as ``value`` (a read-only NumPy array); ``aval``: its type (jaxlib alone, without
        ``jax``, does not tell a buffer's shape and dtype). ``sharding``: None for a value on
        the default device; else how the buffer, a jaxlib array over the devices of the
        multi-device client, lies on them (a ``NamedSharding``, or a ``SingleDeviceSharding``
        committing it to one device): a sharded Array, whose shape is the global shape."""
        self._buffer = buffer
        # (over a mesh, its type says how it is sharded, unless a program typed it already:
        # jax.typeof(x).sharding)
        self._aval = aval if sharding is None or aval._sharding is not None or \
            not isinstance(sharding, NamedSharding) else aval.update(sharding=sharding)
        self._npy = value
        self._sharding = sharding

    @property
    def buffer(self):
        if self._buffer is None:
            self._check_if_deleted()
            self._buffer = runtime.device_put(self._npy)
        return self._buffer

    aval = property(lambda self: self._aval)
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)
    weak_type = property(lambda self: self._aval.weak_type)
    nbytes = property(lambda self: self._aval.size * self._aval.dtype.itemsize)

    def devices(self) -> set:
        """The devices holding the value: the default device until it is placed elsewhere."""
        self._check_if_deleted()
        if self._sharding is not None:
            return set(self._sharding.device_set)
        if runtime.process_count() > 1:  # device() stands for this process's first device
            return {runtime.local_devices()[0]}
        return runtime.buffer_devices(self._buffer) if self._buffer is not None else \
            {runtime.device()}

    def new_reference(self) -> 'Array':
        """Another Array object with this (immutable, so shared) value: ``Array.clone``."""
        self._check_if_deleted()
        return Array(self._buffer, self._aval, self._npy, self._sharding)

    clone = new_reference

    def _value(self) -> np.ndarray:
        if self._buffer is not None or self._npy is None:  # (a buffer may have been donated)
            self._check_if_deleted()
        if self._npy is None:
            if self._sharding is not None:  # gathered from its shards
                if not self._holds_whole_value():
                    raise RuntimeError(
                        'Fetching value for `jax.Array` that spans non-addressable (non process '
                        'local) devices is not possible. Use `.addressable_shards` to inspect '
                        'the addressable (process local) shards.')
                physical = core.physical_aval(self._aval)
                self._npy = runtime.gather(self._buffer, self._sharding, physical.shape,
                                           physical.dtype)
                return self._npy
            self._npy = runtime.to_host(self._buffer)
            self._npy.flags.writeable = False
        return self._npy

    def __array__(self, dtype=None, copy=None):
        if dtypes.is_key(self.dtype):
            raise TypeError('JAX array with PRNGKey dtype cannot be converted to a NumPy array. '
                            'Use jax.random.key_data(arr) if you wish to extract the underlying '
                            'integer array.')
        value = self._value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        return value.copy() if copy else value

    def __array_function__(self, func, types, args, kwargs):
        """A NumPy function called on Arrays does what it does on JAX's arrays (which do not
        define this method): NumPy's own code, which calls the Array's method where there is
        one (``np.round(x)`` is ``x.round()``, an Array) and otherwise computes on the
        values (``np.concatenate``, an ndarray). Inside an eager impl rule, which computes
        with NumPy, every NumPy function sees the values: the methods would bind the
        primitives again."""
        if not core.in_impl_rule.depth:
            return func._implementation(*args, **kwargs)
        if func in _SHAPE_QUERIES and len(args) == 1 and not kwargs:
            return getattr(args[0], _SHAPE_QUERIES[func])  # a key array's, not its words'
        return func(*_numpy_values(args), **_numpy_values(kwargs))

    def __repr__(self):
        """JAX's layout, quirks included: an empty array shows its shape, and a dtype that
        does not fit on the last line is pushed right by the prefix's width, not wrapped."""
        if dtypes.is_key(self.dtype):
            return f'Array({self.shape}, dtype={self.dtype}) overlaying:\n{self._value()}'
        prefix = 'Array('
        dtype = f'dtype={self.dtype.name}' + (', weak_type=True' if self.weak_type else '')
        if self._unreduced():  # (its devices hold parts of a sum: no one value to show)
            return f'{prefix}shape={self.shape}, {dtype}, sharding={self._sharding})'
        if not self._readable():
            return f'{prefix}shape={self.shape}, {dtype})'
        width = np.get_printoptions()['linewidth']
        if self.size == 0:
            body = f'[], shape={self.shape}'
        else:
            body = np.array2string(self._value(), prefix=prefix, suffix=',', separator=', ',
                                   max_line_width=width)
        last_line = len(body) - body.rfind('\n') + 1
        sep = ' ' * len(prefix) if last_line + len(dtype) + 2 > width else ' '
        return f'{prefix}{body},{sep}{dtype})'

    def __str__(self):
        """The values; a key array shows its words, as its ``repr`` (JAX's ``str``)."""
        return repr(self) if dtypes.is_key(self.dtype) or not self._readable() else \
            str(self._value())

    def __format__(self, format_spec):
        if dtypes.is_key(self.dtype) or not self._readable():
            return format(str(self), format_spec)
        return format(self._value(), format_spec)

    def _python_scalar(self, convert):
        """``int(x)``, ``float(x)``, ``complex(x)``: of a 0-d array only, as in JAX (NumPy
        still converts any one-element array)."""
        if self.ndim:
            raise TypeError('Only scalar arrays can be converted to Python scalars; got '
                            f'arr.ndim={self.ndim}')
        return convert(self._value())

    def __float__(self):
        return self._python_scalar(float)

    def __int__(self):
        return self._python_scalar(int)

    def __complex__(self):
        return self._python_scalar(complex)

    def __index__(self):
        return self._value().__index__()

    def __bool__(self):
        return bool(self._value())

    def __len__(self):
        if not self.shape:
            raise TypeError('len() of a scalar (0-d) array')
        return self.shape[0]

    def __iter__(self):
        """The rows, each an Array (as in JAX), sliced on the host."""
        if not self.shape:
            raise TypeError('iteration over a scalar (0-d) array')
        rows = (np.asarray(row) for row in self._value())
        return map(key_array if dtypes.is_key(self.dtype) else host_array, rows)

    __hash__ = None

    def item(self, *args):
        return self._value().item(*args)

    def tolist(self):
        return self._value().tolist()

    def tobytes(self, order='C') -> bytes:
        return self._value().tobytes(order)

    def block_until_ready(self):
        """Wait for the value to be computed: a program's results are handed back as soon as
        it is dispatched, while XLA's threads still run it."""
        self._check_if_deleted()
        if self._buffer is not None:
            runtime.block_until_ready([self._buffer])
        return self

    def copy_to_host_async(self):
        """Start reading the value to the host (here: read it, the copy is quick)."""
        self._value()

    # -- JAX's device-array surface. An ordinary array lives whole on the default device: it
    # -- is one shard, fully replicated, not committed. A sharded one (``device_put`` with a
    # -- sharding, a result of a program over a mesh) is committed to its sharding's devices.

    @property
    def device(self):
        """The device holding the value; of a value on several devices, its sharding (as
        JAX answers)."""
        devices = self.devices()
        if len(devices) > 1:
            return self._sharding
        device, = devices
        return device

    @property
    def sharding(self):
        return self._sharding if self._sharding is not None else \
            SingleDeviceSharding(self.device)

    committed = property(lambda self: self._sharding is not None)
    is_fully_addressable = property(lambda self: self.sharding.is_fully_addressable)

    def _readable(self) -> bool:
        """Whether printing shows the values (JAX's test: other processes may hold parts;
        an unreduced array's devices hold terms of a sum, which JAX does not add up)."""
        return self._sharding is None or not self._unreduced() and (
            self._sharding.is_fully_addressable or self._sharding.is_fully_replicated)

    def _unreduced(self) -> bool:
        return isinstance(self._sharding, NamedSharding) and bool(self._sharding.spec.unreduced)

    def _holds_whole_value(self) -> bool:
        """Whether this process's shards make up the whole value: always, unless several
        processes run the program and some blocks lie only on the others' devices."""
        if self._sharding is None or self._sharding.is_fully_addressable:
            return True
        blocks = self._sharding.devices_indices_map(self.shape).values()
        here = self._sharding.addressable_devices_indices_map(self.shape).values()
        return {_block(i) for i in blocks} == {_block(i) for i in here}
    is_fully_replicated = property(lambda self: self.sharding.is_fully_replicated)

    def platform(self) -> str:
        return runtime.default_backend()

    def is_ready(self) -> bool:
        """Whether the value is computed (a value on the host is)."""
        self._check_if_deleted()
        return self._buffer is None or self._buffer.is_ready()

    @property
    def addressable_shards(self) -> list:
        """The shards of the value, one per device of this process: the block ``index``
        selects, as an Array on that device (of an ordinary array, the whole array)."""
        self._check_if_deleted()
        if self._sharding is None:
            return [Shard(self.device, self.sharding, self.shape, self)]
        devices = [d for d in self._sharding._device_assignment if distributed.is_local(d)]
        block = ShapedArray(self._sharding.shard_shape(self.shape), self.dtype, self.weak_type)
        return [Shard(device, self._sharding, self.shape,
                      Array(data, block, sharding=SingleDeviceSharding(device)))
                for device, data in zip(devices, runtime.shards(self._buffer))]

    global_shards = addressable_shards

    def addressable_data(self, index):
        """Shard ``index``'s data (of an ordinary array, the whole array: JAX too ignores
        the index of a fully replicated array)."""
        self._check_if_deleted()
        return self if self._sharding is None else self.addressable_shards[index].data

    def on_device_size_in_bytes(self) -> int:
        self._check_if_deleted()
        physical = core.physical_aval(self._aval)
        if self._sharding is not None:  # every device's block
            shape = self._sharding.shard_shape(physical.shape)
            return math.prod(shape) * physical.dtype.itemsize * self._sharding.num_devices
        return physical.size * physical.dtype.itemsize

    def unsafe_buffer_pointer(self) -> int:
        """The address of the device buffer (which this call makes if the value is on the
        host)."""
        return runtime.buffer_pointer(self.buffer)

    @property
    def format(self):
        raise AttributeError('Array.format: minijax has no layouts API; its arrays have XLA\'s '
                             'default (row-major) layout on its one CPU device')

    def __dlpack__(self, **kwargs):
        """The value as a DLPack capsule (``np.from_dlpack(x)``): NumPy's export of the
        host value, read-only as the Array is."""
        return self.__array__().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple:
        return _DLPACK_CPU, 0

    def delete(self):
        """Drop the value (the buffer is freed once no other Array shares it); using the
        array afterwards raises JAX's error."""
        self._buffer = self._npy = self._sharding = None

    def is_deleted(self) -> bool:
        """Deleted, or its buffer donated to a program (``jit(donate_argnums=...)``), which
        took it over even where a host copy of the value is still at hand."""
        buffer = self._buffer
        return self._npy is None if buffer is None else buffer.is_deleted()

    def _check_if_deleted(self):
        if self.is_deleted():
            raise RuntimeError(f'Array has been deleted with shape={self._aval.str_short()}.')

    def __reduce__(self):
        """Pickled, and copied by ``copy.copy`` and ``copy.deepcopy``, as JAX's arrays are:
        rebuilt from the host value (a key array's words) and the weak type."""
        words = np.array(self._value())
        if dtypes.is_key(self.dtype):
            return key_array, (words,)
        return host_array, (words, self.weak_type)


#: DLPack's code of the CPU as a device type (``kDLCPU``)
_DLPACK_CPU = 1


def _block(index) -> tuple:
    """A block's slices as a hashable key."""
    return tuple((s.start, s.stop) for s in index)


class Shard:
    """One piece of an Array on one device (``x.addressable_shards``): ``data`` is the part
    ``index`` selects, ``replica_id`` numbers the copies of that part. Both are worked out
    when asked, as JAX's are: an unreduced array's shards have data but no index (JAX's
    ``NotImplementedError``)."""
    __slots__ = ('device', 'data', '_sharding', '_global_shape')

    def __init__(self, device, sharding, global_shape: tuple, data: Array):
        self.device, self.data = device, data
        self._sharding, self._global_shape = sharding, tuple(global_shape)

    @property
    def index(self) -> tuple:
        if isinstance(self._sharding, SingleDeviceSharding):
            return (slice(None),) * len(self._global_shape)
        return self._sharding.devices_indices_map(self._global_shape)[self.device]

    @property
    def replica_id(self) -> int:
        if not hasattr(self._sharding, 'replica_ids'):  # (one device)
            return 0
        return self._sharding.replica_ids(self._global_shape)[self.device]

    def __repr__(self):
        return (f'Shard(device={self.device!r}, index={self.index}, '
                f'replica_id={self.replica_id}, data={self.data})')


#: NumPy functions that read only an array's type: answered from the aval, so that a key
#: array's shape is its keys' (NumPy's value of it would be the words, one axis more).
_SHAPE_QUERIES = {np.shape: 'shape', np.ndim: 'ndim', np.size: 'size'}


def _numpy_values(tree):
    if isinstance(tree, Array):
        return tree._value()
    if isinstance(tree, (list, tuple)):
        return type(tree)(_numpy_values(x) for x in tree)
    if isinstance(tree, dict):
        return {k: _numpy_values(v) for k, v in tree.items()}
    return tree


def _array_aval(x):
    """A key array's type has no value: keys are never Python control flow's concern."""
    return x.aval if dtypes.is_key(x.dtype) else \
        ConcreteArray(x, x.weak_type, x._aval._sharding)


core.aval_handlers[Array] = _array_aval


def _array_type(x: Array) -> ShapedArray:
    """An Array's type, as ``core.shaped_aval`` gives it (a sharded one only where types
    have shardings, which is what shaped_aval keeps)."""
    aval = x._aval
    return aval if type(aval) is ShapedArray else core.raise_to_shaped(aval)


core.typed_values[Array] = _array_type


def eager_result(value, aval, args):
    """An eager NumPy result (of a primitive, or of an API function) as an Array: a copy
    where it may alias a caller's writable NumPy operand, which the caller could still
    change; ``aval`` (or None) tells its weak type."""
    if not isinstance(value, (np.ndarray, np.generic)):
        return value
    value = np.asarray(value)
    if value.flags.writeable and any(isinstance(a, np.ndarray) and a.flags.writeable
                                     and np.may_share_memory(value, a) for a in args):
        value = value.copy()
    return host_array(value, aval is not None and aval.weak_type)


core.eager_result = eager_result


def typed_host_result(value, aval: ShapedArray):
    """``eager_result`` of a primitive none of whose operands is a writable ndarray (so
    ``value`` aliases none), typed ``aval`` where ``value`` has its shape and dtype: the
    eager fast path's, which makes no type of its own."""
    if type(value) is not np.ndarray or not value.flags.c_contiguous:
        return eager_result(value, aval, ())
    value.flags.writeable = False
    if value.shape != aval.shape or value.dtype != aval.dtype:
        aval = ShapedArray(value.shape, value.dtype, aval.weak_type)
    return Array(None, aval, value)


def host_array(value: np.ndarray, weak_type=False) -> Array:
    """An Array holding ``value`` (which it freezes and keeps: the caller gives it away); a
    strided view (a NumPy impl's ``broadcast_to``) is copied whole, as JAX's buffers are."""
    if not value.flags.c_contiguous:
        value = value.copy()
    value.flags.writeable = False
    return Array(None, ShapedArray(value.shape, value.dtype, weak_type), value)


def key_array(words: np.ndarray) -> Array:
    """The key array whose physical value is ``words``, ``uint32[..., 2]`` (frozen, kept)."""
    words.flags.writeable = False
    return Array(None, ShapedArray(words.shape[:-1], dtypes.key_fry), words)


def physical_value(x) -> np.ndarray:
    """``x`` as a NumPy array of its physical type: a key array's words."""
    return x._value() if isinstance(x, Array) else np.asarray(x)


def scalar(value, dtype, weak_type=False):
    """``value`` as a scalar of ``dtype``: a Python scalar where one has exactly that type
    (weakly typed float64 or int64: it stays a literal when traced), a NumPy scalar where
    strongly typed, else a weakly typed 0-d Array. A Python int within int64's range is
    converted as JAX converts it, from int64, wrapping around (``-2`` as uint8 is 254),
    where NumPy refuses it."""
    value = np.asarray(value).astype(dtype) if type(value) is int and \
        value in dtypes.INT64_RANGE else np.asarray(value, dtype)
    if not weak_type:
        return value
    python = value.item()
    if dtypes.PYTHON_SCALARS.get(type(python)) == (value.dtype, True):
        return python
    return host_array(value, weak_type=True)


def device_array(x, weak_type=False) -> Array:
    """A copy of the NumPy value ``x`` as an Array (moved to the device when first needed)."""
    return host_array(np.array(x, copy=True), weak_type)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """``x`` (a pytree) with its arrays as Arrays placed as ``device`` says
    (``jax.device_put``): None or the default device, an ordinary Array; another device, an
    Array committed to it; a ``NamedSharding`` (or a ``PartitionSpec`` over the mesh
    ``set_mesh`` installed), an Array split over the mesh's devices. ``device`` may be a
    pytree prefix of ``x``, one placement per subtree. Traced values stay as they are
    (with a sharding, they are constrained to it). ``src``, ``donate`` and ``may_alias``
    change nothing here: minijax never aliases or donates."""
    leaves, treedef = tree_util.tree_flatten(x)
    if _is_placement(device):
        placements = [device] * len(leaves)
    else:
        placements = tree_util.broadcast_prefix(device, x, is_leaf=_is_placement,
                                                name='device_put device')
    for placement in placements:
        if not _is_placement(placement):
            raise ValueError('`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, '
                             '`jax.Device`, `Format`, `jax.memory.Space` or a pytree of these '
                             f'values. Received invalid value: {placement}')
    if any(isinstance(v, core.Tracer) for v in leaves):  # (one device_put equation)
        from minijax.lax.device_put import device_put_traced  # (a layer above: a primitive)
        return treedef.unflatten(device_put_traced(leaves, placements, src, donate,
                                                   may_alias))
    return treedef.unflatten(_put(v, d) for v, d in zip(leaves, placements))


def _is_device(x) -> bool:
    return hasattr(x, 'platform') and hasattr(x, 'id')


def _is_placement(x) -> bool:
    return x is None or isinstance(x, (Sharding, PartitionSpec)) or _is_device(x)


def _put(v, placement):
    """One leaf placed: see ``device_put``."""
    if isinstance(placement, PartitionSpec):
        mesh = get_concrete_mesh()
        if mesh.empty:
            raise ValueError('Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed '
                             'to device_put')
        placement = NamedSharding(mesh, placement)
    if isinstance(placement, SingleDeviceSharding):
        placement, = placement.device_set
    if placement is None or runtime.is_default_device(placement):
        return v if isinstance(v, Array) else device_array(v, core.get_aval(v).weak_type)
    if isinstance(v, Array) and v._sharding == placement:
        return v
    aval = core.get_aval(v)
    value = physical_value(v)
    if not isinstance(placement, NamedSharding):  # a device
        placement = SingleDeviceSharding(placement)
    else:
        placement.check_divisible(value.shape)
        if placement.spec.unreduced:
            return _put_unreduced(v, placement)
    return Array(runtime.shard(value, placement),
                 ShapedArray(aval.shape, aval.dtype, aval.weak_type), sharding=placement)


def _put_unreduced(v, placement: NamedSharding) -> Array:
    """``v`` as the terms of a sum over the unreduced axes, as JAX makes it: a program
    returning its argument with ``placement`` as its result's sharding, XLA's partitioner
    choosing how to split the value into terms (each device a block, zeros elsewhere).
    A value not laid out over the mesh goes in replicated, as JAX passes an argument whose
    type names no sharding."""
    from minijax.jit import jit  # (a layer above: a compiled program)
    given = v._sharding if isinstance(v, Array) and isinstance(v._sharding, NamedSharding) \
        else NamedSharding(placement.mesh, PartitionSpec())
    out = jit(_same, in_shardings=given, out_shardings=placement)(v)
    return Array(out._buffer, out.aval.update(sharding=placement), sharding=placement)


def _same(x):
    return x


def device_get(x):
    """``x`` (a pytree) with its Arrays as NumPy arrays (``jax.device_get``)."""
    return tree_util.tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)


def copy_to_host_async(x):
    """``x``, having started the host copy of every Array in it (``jax.copy_to_host_async``):
    a leaf without the method is left alone."""
    for leaf in tree_util.tree_leaves(x):
        copy = getattr(leaf, 'copy_to_host_async', None)
        if copy is not None:
            copy()
    return x


def block_until_ready(x):
    """``x`` once every Array in it is computed (``jax.block_until_ready``), waiting for all
    their buffers at once; a leaf with a ``block_until_ready`` method of its own has it
    called, any other leaf is left alone."""
    buffers = []
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf._check_if_deleted()
            if leaf._buffer is not None:
                buffers.append(leaf._buffer)
        elif hasattr(leaf, 'block_until_ready'):
            leaf.block_until_ready()
    runtime.block_until_ready(buffers)
    return x


def release_host_views(args, positions) -> None:
    """Let go of the NumPy views that the Arrays at ``positions`` keep of their buffers,
    which a program is about to take (donated): PJRT does not take a buffer that is still
    read through a view, and JAX keeps no such view either (it caches a host copy only)."""
    for i in positions:
        x = args[i]
        if type(x) is Array and x._buffer is not None and x._npy is not None \
                and isinstance(x._npy.base, memoryview):
            x._npy = None


def to_device(x):
    """The device buffer for a jit argument: an Array's own buffer, or a fresh transfer (for
    a token, the empty bool array PJRT takes in its place, as JAX passes it)."""
    if isinstance(x, Array):
        x._check_if_deleted()
        return x.buffer
    if isinstance(x, core.Token):
        return runtime.device_put(np.zeros(0, bool))
    return runtime.device_put(np.asarray(x))


def scalar_buffer(x):
    """The device buffer of a Python or NumPy scalar operand, transferred once and kept:
    ``x * 2.0`` in a loop, eager or jitted, moves 2.0 to the device once, not per op. Keyed
    by type too (``1 == 1.0 == True == np.float32(1)``) and, for a zero, by sign
    (``-0.0 == 0.0``). NaN (no key) and complex numbers (``complex(1, -0.0) == 1``) are
    transferred each time."""
    if x != x or isinstance(x, _COMPLEX_SCALARS):
        return to_device(x)
    key = (type(x), x, math.copysign(1., x)) if not x else (type(x), x)
    buffer = _scalar_buffers.get(key)
    if buffer is None:
        if len(_scalar_buffers) >= MAX_SCALAR_BUFFERS:  # (a long run over ever new values)
            _scalar_buffers.clear()
        buffer = _scalar_buffers[key] = to_device(x)
    return buffer


def clear_scalar_buffers() -> None:
    """Forget the kept scalar buffers (``jax.clear_caches``)."""
    _scalar_buffers.clear()


#: scalar (type, value) -> its device buffer (``scalar_buffer``), at most this many.
_scalar_buffers: dict = {}
_COMPLEX_SCALARS = (complex, np.complexfloating)
MAX_SCALAR_BUFFERS = 4096


def from_device(buffer, aval):
    """A result buffer as a value: an Array, or for a token (whose buffer holds nothing)
    a ``core.Token``, as JAX returns one."""
    return core.Token() if aval is core.abstract_token else Array(buffer, aval)
