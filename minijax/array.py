"""``minijax.Array``: a value living in a device buffer that duck-types a NumPy array.

Results of ``jit`` are Arrays; passing one back into a jitted function hands its buffer over
directly, without a trip through host memory.
"""
from __future__ import annotations

import numpy as np

from minijax import core, runtime
from minijax.core import ConcreteArray, ShapedArray


class Array:
    __array_priority__ = 100
    __slots__ = ('_buffer', '_aval', '_npy')

    def __init__(self, buffer, aval: ShapedArray):
        """``buffer``: a jaxlib device array; ``aval``: its type (jaxlib alone, without
        ``jax``, does not tell a buffer's shape and dtype)."""
        self._buffer = buffer
        self._aval = aval
        self._npy = None

    @property
    def buffer(self):
        return self._buffer

    aval = property(lambda self: self._aval)
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)
    weak_type = property(lambda self: self._aval.weak_type)

    def _value(self) -> np.ndarray:
        if self._npy is None:
            self._npy = np.asarray(self._buffer)
            self._npy.flags.writeable = False
        return self._npy

    def __array__(self, dtype=None, copy=None):
        value = self._value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        return value.copy() if copy else value

    def __repr__(self):
        body = np.array2string(self._value(), separator=', ', prefix='Array(')
        return f'Array({body}, dtype={self.dtype.name})'

    def __str__(self):
        return str(self._value())

    def __float__(self):
        return float(self._value())

    def __int__(self):
        return int(self._value())

    def __bool__(self):
        return bool(self._value())

    def __len__(self):
        return len(self._value())

    def __iter__(self):
        return iter(self._value())

    __hash__ = None

    def item(self):
        return self._value().item()

    def tolist(self):
        return self._value().tolist()


core.aval_handlers[Array] = lambda x: ConcreteArray(x, x.weak_type)


def device_array(x) -> Array:
    """A NumPy value copied to the device as an ``Array``."""
    x = np.asarray(x)
    return Array(runtime.device_put(x), ShapedArray(x.shape, x.dtype))


def to_device(x):
    """The device buffer for a jit argument: an Array's own buffer, or a fresh transfer."""
    if isinstance(x, Array):
        return x.buffer
    return runtime.device_put(np.asarray(x))
