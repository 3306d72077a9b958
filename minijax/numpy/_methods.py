"""The operators and methods of Arrays and traced values (``x + y``, ``x.sum()``, ``x.T``):
each is the ``jnp`` function of the same meaning, installed on both classes by ``install``,
or, where ``jnp`` has none (``x.view``, ``element in x``), a function here."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import core, dtypes, lax
from minijax.array import device_put
from minijax.numpy import _indexing
from minijax.numpy._array_api import array_namespace


def _immutable(self, *args):
    """JAX's words, which a ported program prints."""
    raise TypeError('JAX arrays are immutable and do not support in-place item assignment. '
                    'Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: '
                    'https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html')


def _shape_args(args):
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` alike."""
    return args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args


def _round_method(self, ndigits=None):
    return jnp.round(self, ndigits or 0)


def _contains(self, element):
    """``element in x``: as JAX, only a scalar in a 1-D array (NumPy's other cases are
    surprising), as a boolean array (its truth value needs ``x`` concrete)."""
    if element is None or isinstance(element, str):
        raise TypeError(f'Array.__contains__: unsupported operand type {type(element)}.')
    if not core.is_valid_value(element):
        raise TypeError('Array.__contains__ requires ndarray or scalar arguments, got '
                        f'{type(element)} at position 0.')
    if np.ndim(self) != 1:
        raise ValueError('Array.__contains__: search array must be one-dimensional, got '
                         f'arr.shape={np.shape(self)}.')
    if np.ndim(element) != 0:
        raise ValueError('Array.__contains__: query value must be a scalar, got '
                         f'query.shape={np.shape(element)}')
    return jnp.any(jnp.equal(self, element))


def _view(self, dtype=None, type=None):  # noqa: A002 (NumPy's names)
    """The bits of ``x`` read as ``dtype`` (``ndarray.view``): the last axis grows or
    shrinks by the ratio of the item sizes. ``lax.bitcast_convert_type`` reads no bool or
    complex: a bool is read as a byte, a complex as its two parts side by side."""
    if type is not None:
        raise NotImplementedError('`type` argument of array.view() is not supported.')
    if dtype is None:
        return self
    dtype, old = jnp._as_dtype(dtype), np.dtype(self.dtype)
    if np.ndim(self) == 0:
        if dtype.itemsize != old.itemsize:
            raise ValueError('view() of a 0d array is only supported if the itemsize is '
                             'unchanged.')
        return jnp.squeeze(_view(jnp.expand_dims(self, 0), dtype), 0)
    if (self.shape[-1] * old.itemsize) % dtype.itemsize:
        raise ValueError('When changing to a larger dtype, its size must be a divisor of the '
                         'total size in bytes of the last axis of the array.')
    if dtype == old:
        return self
    if old == dtypes.bool_:
        return _view(jnp.astype(self, np.uint8), dtype)
    if dtypes.is_complex(old):
        parts = jnp.stack([jnp.real(self), jnp.imag(self)], -1)
        return _view(jnp.reshape(parts, (*self.shape[:-1], -1)), dtype)
    if dtype == dtypes.bool_:
        return jnp.not_equal(_view(self, np.uint8), 0)
    if dtypes.is_complex(dtype):
        parts = _view(self, dtypes.real_part_dtype(dtype))
        return lax.complex(parts[..., 0::2], parts[..., 1::2])
    return _bitcast_last_axis(self, dtype)


def _bitcast_last_axis(x, dtype):
    """``lax.bitcast_convert_type`` with the pieces of wider elements along the last axis,
    not a new one."""
    old_size, new_size = np.dtype(x.dtype).itemsize, dtype.itemsize
    if old_size < new_size:
        x = jnp.reshape(x, (*x.shape[:-1], -1, new_size // old_size))
    out = lax.bitcast_convert_type(x, dtype)
    return jnp.reshape(out, (*out.shape[:-2], -1)) if old_size > new_size else out


def _byteswap(self):
    """``x`` with the bytes of each element in reverse order (of each part, for complex)."""
    if jnp._is_complex(self):
        return lax.complex(_byteswap(jnp.real(self)), _byteswap(jnp.imag(self)))
    if np.dtype(self.dtype).itemsize == 1:
        return jnp.copy(self)
    as_bytes = lax.bitcast_convert_type(self, np.uint8)
    return lax.bitcast_convert_type(lax.rev(as_bytes, (np.ndim(self),)), self.dtype)


def _to_device(self, device, *, stream=None):
    """``x`` placed on ``device``, a device or a sharding (``jax.device_put``)."""
    if stream is not None:
        raise NotImplementedError('stream argument of array.to_device()')
    return device_put(self, device)


def _astype(self, dtype, copy=False, device=None):
    """``x.astype``: ``jnp.astype``, whose arguments a method may also name."""
    return jnp.astype(self, dtype, copy=copy, device=device)


def _no_flat(self):
    raise NotImplementedError('JAX Arrays do not implement the arr.flat property: consider '
                              'arr.flatten() instead.')


#: method name -> the ``jnp`` function it is (its first argument the array)
_METHODS = {
    'sum': 'sum', 'prod': 'prod', 'max': 'max', 'min': 'min', 'mean': 'mean', 'var': 'var',
    'std': 'std', 'any': 'any', 'all': 'all', 'argmax': 'argmax', 'argmin': 'argmin',
    'cumsum': 'cumsum', 'cumprod': 'cumprod', 'ravel': 'ravel',
    'flatten': 'ravel', 'clip': 'clip', 'round': 'round', 'squeeze': 'squeeze',
    'swapaxes': 'swapaxes', 'dot': 'dot', 'conj': 'conj', 'conjugate': 'conj',
    'copy': 'copy', 'diagonal': 'diagonal', 'trace': 'trace', 'take': 'take',
    'repeat': 'repeat', 'nonzero': 'nonzero', 'sort': 'sort', 'argsort': 'argsort',
    'argpartition': 'argpartition', 'searchsorted': 'searchsorted', 'ptp': 'ptp',
    'choose': 'choose',
}
#: method name -> its function here, where ``jnp`` has none of the same meaning
_OWN_METHODS = {'view': _view, 'byteswap': _byteswap, 'to_device': _to_device,
                'astype': _astype, '__contains__': _contains, '__round__': _round_method,
                '__setitem__': _immutable, '__array_namespace__': array_namespace}
#: operator -> (the ``jnp`` function, whether it also has a reflected form)
_OPERATORS = {
    'add': ('add', True), 'sub': ('subtract', True), 'mul': ('multiply', True),
    'truediv': ('true_divide', True), 'floordiv': ('floor_divide', True),
    'mod': ('remainder', True), 'pow': ('power', True), 'matmul': ('matmul', True),
    'and': ('bitwise_and', True), 'or': ('bitwise_or', True), 'xor': ('bitwise_xor', True),
    'lshift': ('left_shift', True), 'rshift': ('right_shift', True),
    'gt': ('greater', False), 'lt': ('less', False), 'ge': ('greater_equal', False),
    'le': ('less_equal', False), 'eq': ('equal', False), 'ne': ('not_equal', False),
    'divmod': ('divmod', True),
}


def install(cls):
    """Give ``cls`` (traced values and Arrays) NumPy's operators and array methods, each
    calling the ``jnp`` function with the same meaning."""
    def binary(name, reflected=False):
        fn = getattr(jnp, name)

        def op(self, other):
            if not core.is_valid_value(other):
                return NotImplemented
            return fn(other, self) if reflected else fn(self, other)
        return op

    for dunder, (name, has_reflected) in _OPERATORS.items():
        setattr(cls, f'__{dunder}__', binary(name))
        if has_reflected:
            setattr(cls, f'__r{dunder}__', binary(name, reflected=True))
    for method, name in _METHODS.items():
        setattr(cls, method, getattr(jnp, name))
    for method, fn in _OWN_METHODS.items():
        setattr(cls, method, fn)
    cls.__neg__ = jnp.negative
    cls.__pos__ = jnp.positive
    cls.__abs__ = jnp.abs
    cls.__invert__ = jnp.invert
    cls.__getitem__ = _indexing.getitem
    cls.at = property(_indexing.index_update_helper)
    cls.T = property(jnp.transpose)
    cls.mT = property(jnp.matrix_transpose)
    cls.flat = property(_no_flat)
    cls.real = property(jnp.real)
    cls.imag = property(jnp.imag)
    cls.reshape = lambda self, *shape, order='C': jnp.reshape(self, _shape_args(shape), order)
    cls.compress = lambda self, condition, axis=None, **kwargs: jnp.compress(condition, self,
                                                                            axis, **kwargs)
    cls.itemsize = property(lambda self: np.dtype(self.dtype).itemsize)
    cls.transpose = lambda self, *axes: jnp.transpose(self, _shape_args(axes) if axes else None)
