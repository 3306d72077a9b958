"""The NumPy-flavoured API (``import minijax.numpy as mnp``), written on top of ``minijax.lax``.

``lax`` primitives are strict: one dtype, equal shapes (or a scalar). This module adds what
NumPy users expect: broadcasting (rank promotion through ``broadcast_in_dim``), type promotion
(``bool < int32 < int64 < float32 < float64``; a Python scalar is *weakly typed* and takes the
other operand's dtype unless it is of a higher kind), static indexing and ``x.at[i].set(v)``.
The arithmetic operators of traced values and Arrays dispatch here.
"""
from __future__ import annotations

import builtins

import numpy as np

from minijax import core, dtypes, lax
from minijax.array import Array, device_array
from minijax.core import Tracer

float32, float64 = np.float32, np.float64
int32, int64 = np.int32, np.int64
bool_ = np.bool_

# ----------------------------------------------------------------------------- type promotion

_ORDER = (dtypes.bool_, dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)
_KIND_RANK = {'b': 0, 'i': 1, 'f': 2}
_TO_FLOAT = {dtypes.bool_: dtypes.float32, dtypes.int32: dtypes.float32,
             dtypes.int64: dtypes.float64}


def result_type(*args):
    """The dtype ``args`` promote to. Weakly typed values (Python scalars) count only when they
    are of a higher kind (bool < int < float) than every strongly typed one."""
    avals = [core.get_aval(a) for a in args]
    strong = [a.dtype for a in avals if not a.weak_type]
    weak = [a.dtype for a in avals if a.weak_type]
    dtype = builtins.max(strong, key=_ORDER.index) if strong else None
    for w in weak:
        if dtype is None or _KIND_RANK[w.kind] > _KIND_RANK[dtype.kind]:
            dtype = w
    return dtype


def _cast(x, dtype):
    aval = core.get_aval(x)
    if aval.dtype == dtype:
        return x
    if type(x) in dtypes.PYTHON_SCALARS:
        return np.asarray(x, dtype)
    return lax.convert_element_type(x, dtype)


def _promote(*args):
    dtype = result_type(*args)
    return [_cast(x, dtype) for x in args]


def _to_float(x):
    dtype = core.get_aval(x).dtype
    return x if dtypes.is_float(dtype) else lax.convert_element_type(x, _TO_FLOAT[dtype])


# ----------------------------------------------------------------------------- broadcasting

def _shape_str(shape):
    return f'({", ".join(map(str, shape))}{"," if len(shape) == 1 else ""})'


def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes``; a ValueError names the shapes that do not fit."""
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            raise ValueError('shapes ' + ' and '.join(_shape_str(s) for s in shapes)
                             + ' cannot be broadcast together')
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` by NumPy's rules (new axes on the left, size 1 grows)."""
    shape = tuple(int(d) for d in shape)
    x_shape = np.shape(x)
    if len(x_shape) > len(shape) or broadcast_shapes(x_shape, shape) != shape:
        raise ValueError(f'cannot broadcast an array of shape {_shape_str(x_shape)} to shape '
                         f'{_shape_str(shape)}')
    if x_shape == shape:
        return x
    lead = len(shape) - len(x_shape)
    return lax.broadcast_in_dim(x, shape, range(lead, len(shape)))


def _broadcast(*args, scalars_too=False):
    """Broadcast ``args`` to one shape; rank-0 operands stay scalars (lax ops take them)
    unless ``scalars_too``."""
    shape = broadcast_shapes(*(np.shape(a) for a in args))
    return [a if np.ndim(a) == 0 and not scalars_too else broadcast_to(a, shape) for a in args]


# ----------------------------------------------------------------------------- elementwise

def _binary(lax_fn, name, doc, to_float=False):
    def fn(x, y):
        x, y = _broadcast(*_promote(x, y))
        if to_float:
            x, y = _to_float(x), _to_float(y)
        return lax_fn(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


add = _binary(lax.add, 'add', 'x + y, broadcast and promoted.')
subtract = _binary(lax.sub, 'subtract', 'x - y, broadcast and promoted.')
multiply = _binary(lax.mul, 'multiply', 'x * y, broadcast and promoted.')
true_divide = divide = _binary(lax.div, 'true_divide', 'x / y (float, even for integers).',
                               to_float=True)
maximum = _binary(lax.max, 'maximum', 'Elementwise maximum, broadcast and promoted.')
minimum = _binary(lax.min, 'minimum', 'Elementwise minimum, broadcast and promoted.')
equal = _binary(lax.eq, 'equal', 'x == y.')
not_equal = _binary(lax.ne, 'not_equal', 'x != y.')
greater = _binary(lax.greater, 'greater', 'x > y.')
greater_equal = _binary(lax.ge, 'greater_equal', 'x >= y.')
less = _binary(lax.less, 'less', 'x < y.')
less_equal = _binary(lax.le, 'less_equal', 'x <= y.')
_power = _binary(lax.pow, 'power', 'x ** y.')


def power(x, y):
    """``x ** y``; a Python int exponent becomes ``integer_pow`` (multiplications), as in JAX."""
    if type(y) is int and not isinstance(x, (int, float)):
        return lax.integer_pow(x, y)
    return _power(x, y)


def _unary(lax_fn, name, to_float=True):
    def fn(x):
        return lax_fn(_to_float(x) if to_float else x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f'Elementwise {name}.'
    return fn


sin, cos, exp, log = (_unary(f, n) for f, n in [(lax.sin, 'sin'), (lax.cos, 'cos'),
                                                (lax.exp, 'exp'), (lax.log, 'log')])
tanh, sqrt = _unary(lax.tanh, 'tanh'), _unary(lax.sqrt, 'sqrt')
abs = _unary(lax.abs, 'abs', to_float=False)  # noqa: A001
absolute = abs
sign = _unary(lax.sign, 'sign', to_float=False)
negative = _unary(lax.neg, 'negative', to_float=False)


def where(condition, x, y):
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast together)."""
    if core.get_aval(condition).dtype != dtypes.bool_:
        condition = not_equal(condition, 0)
    x, y = _promote(x, y)
    condition, x, y = _broadcast(condition, x, y, scalars_too=True)
    return lax.select_n(condition, y, x)


def asarray(x, dtype=None):
    """``x`` as a minijax value of ``dtype``: a traced value stays traced, anything else
    becomes a device ``Array`` (so it has ``.at`` and minijax's operators)."""
    if isinstance(x, (Tracer, Array)):
        return x if dtype is None else _cast(x, dtypes.check_supported(dtype))
    x = np.asarray(x, dtype)
    dtypes.check_supported(x.dtype, f'asarray of shape {x.shape}')
    return device_array(x)


array = asarray


def astype(x, dtype):
    return lax.convert_element_type(x, dtype)


# ----------------------------------------------------------------------------- reductions

def _axes(name, x, axis):
    return core.canonicalize_axes(axis, np.ndim(x), f'{name}: axis')


def _keep(out, axes, keepdims):
    return lax.expand_dims(out, axes) if keepdims else out


def sum(x, axis=None, keepdims=False):  # noqa: A001
    """Sum over ``axis``; booleans and int32 are summed as int64, as in NumPy and JAX."""
    if core.get_aval(x).dtype in (dtypes.bool_, dtypes.int32):
        x = lax.convert_element_type(x, dtypes.int64)
    axes = _axes('sum', x, axis)
    return _keep(lax.reduce_sum(x, axes), axes, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    axes = _axes('max', x, axis)
    return _keep(lax.reduce_max(x, axes), axes, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    axes = _axes('min', x, axis)
    return _keep(lax.reduce_min(x, axes), axes, keepdims)


def mean(x, axis=None, keepdims=False):
    axes = _axes('mean', x, axis)
    x = _to_float(x)
    count = int(np.prod([np.shape(x)[a] for a in axes], dtype=np.int64))
    return _keep(lax.div(lax.reduce_sum(x, axes), float(count)), axes, keepdims)


def _arg_reduce(lax_fn, x, axis, keepdims):
    if axis is None:
        out = lax_fn(reshape(x, (-1,)), 0, dtypes.int64)
        return reshape(out, (1,) * np.ndim(x)) if keepdims else out
    axis = core.canonicalize_axis(axis, np.ndim(x), f'{lax_fn.__name__}: axis')
    return _keep(lax_fn(x, axis, dtypes.int64), (axis,), keepdims)


def argmax(x, axis=None, keepdims=False):
    """Index of the first maximum along ``axis`` (of the flattened array if ``None``)."""
    return _arg_reduce(lax.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """Index of the first minimum along ``axis`` (of the flattened array if ``None``)."""
    return _arg_reduce(lax.argmin, x, axis, keepdims)


# ----------------------------------------------------------------------------- linear algebra

def matmul(a, b):
    """NumPy's ``a @ b``: 1-D operands gain (and lose) a unit axis; leading axes broadcast and
    become batch axes of ``dot_general``."""
    a, b = _promote(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not a_shape or not b_shape:
        raise ValueError('matmul needs operands of rank 1 or more, got shapes '
                         f'{_shape_str(a_shape)} and {_shape_str(b_shape)}')
    a2 = expand_dims(a, 0) if len(a_shape) == 1 else a
    b2 = expand_dims(b, 1) if len(b_shape) == 1 else b
    if np.shape(a2)[-1] != np.shape(b2)[-2]:
        raise ValueError(f'matmul: shapes {_shape_str(a_shape)} and {_shape_str(b_shape)} do '
                         'not fit (the last axis of the first must match the second to last '
                         'of the second)')
    batch = broadcast_shapes(np.shape(a2)[:-2], np.shape(b2)[:-2])
    a2 = broadcast_to(a2, batch + np.shape(a2)[-2:])
    b2 = broadcast_to(b2, batch + np.shape(b2)[-2:])
    n = len(batch)
    out = lax.dot_general(a2, b2, (((n + 1,), (n,)), (tuple(range(n)), tuple(range(n)))))
    drop = [ax for ax, one_d in [(-2, len(a_shape) == 1), (-1, len(b_shape) == 1)] if one_d]
    return lax.squeeze(out, drop) if drop else out


def dot(a, b):
    """NumPy's ``dot``: a product with a scalar, an inner product of vectors, or a contraction
    of the last axis of ``a`` with the second to last of ``b`` (the last if ``b`` is 1-D)."""
    a, b = _promote(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not a_shape or not b_shape:
        return multiply(a, b)
    b_axis = 0 if len(b_shape) == 1 else len(b_shape) - 2
    if a_shape[-1] != b_shape[b_axis]:
        raise ValueError(f'dot: shapes {_shape_str(a_shape)} and {_shape_str(b_shape)} are not '
                         'aligned')
    return lax.dot_general(a, b, (((len(a_shape) - 1,), (b_axis,)), ((), ())))


# ----------------------------------------------------------------------------- shapes

def reshape(x, shape):
    """``x`` with a new shape; one entry may be -1 (inferred)."""
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    size = int(np.prod(np.shape(x), dtype=np.int64))
    if shape.count(-1) == 1:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known and size % known == 0:
            shape = tuple(size // known if d == -1 else d for d in shape)
    if shape.count(-1) or int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f'cannot reshape an array of shape {_shape_str(np.shape(x))} into '
                         f'shape {_shape_str(shape)}')
    return x if shape == np.shape(x) else lax.reshape(x, shape)


def transpose(x, axes=None):
    """Permute the axes (reverse them if ``axes`` is None)."""
    ndim = np.ndim(x)
    if axes is None:
        return lax.transpose(x, tuple(reversed(range(ndim))))
    perm = [core.canonicalize_axis(a, ndim, 'transpose: axis') for a in axes]
    if sorted(perm) != list(range(ndim)):
        raise ValueError(f'transpose: axes {tuple(axes)} are not a permutation of the '
                         f'{ndim} axes of the array')
    return lax.transpose(x, perm)


def swapaxes(x, axis1, axis2):
    ndim = np.ndim(x)
    axis1 = core.canonicalize_axis(axis1, ndim, 'swapaxes: axis1')
    axis2 = core.canonicalize_axis(axis2, ndim, 'swapaxes: axis2')
    perm = list(range(ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(x, perm)


def expand_dims(x, axis):
    return lax.expand_dims(x, axis)


def squeeze(x, axis=None):
    shape = np.shape(x)
    if axis is None:
        return lax.squeeze(x, [i for i, d in enumerate(shape) if d == 1])
    axes = _axes('squeeze', x, axis)
    return lax.squeeze(x, axes)


def concatenate(arrays, axis=0):
    """``arrays`` (promoted to one dtype) joined along ``axis``."""
    arrays = _nonempty('concatenate', arrays)
    arrays = _promote(*(asarray(a) for a in arrays))
    ndim = np.ndim(arrays[0])
    axis = core.canonicalize_axis(axis, ndim, 'concatenate: axis')
    shapes = [np.shape(a) for a in arrays]
    if any(len(s) != ndim or s[:axis] + s[axis + 1:] != shapes[0][:axis] + shapes[0][axis + 1:]
           for s in shapes):
        raise ValueError(f'concatenate along axis {axis}: shapes '
                         f'{" and ".join(map(_shape_str, shapes))} do not fit')
    return lax.concatenate(arrays, axis)


def stack(arrays, axis=0):
    """``arrays`` (of one shape) joined along a new axis ``axis``."""
    arrays = _nonempty('stack', arrays)
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError('stack needs arrays of one shape, got shapes '
                         f'{" and ".join(map(_shape_str, sorted(shapes)))}')
    axis = core.canonicalize_axis(axis, len(shapes.pop()) + 1, 'stack: axis')
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def _nonempty(name, arrays):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f'{name} needs at least one array, got an empty sequence')
    return arrays


# ----------------------------------------------------------------------------- creation

def full(shape, fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value`` (a scalar, possibly traced)."""
    shape = core.canonicalize_shape(shape, 'full')
    dtype = dtypes.check_supported(dtype if dtype is not None else
                                   core.get_aval(fill_value).dtype, 'full')
    if isinstance(fill_value, Tracer):
        return broadcast_to(_cast(fill_value, dtype), shape)
    return lax.full(shape, fill_value, dtype)


def zeros(shape, dtype=float64):
    return full(shape, 0, dtype)


def ones(shape, dtype=float64):
    return full(shape, 1, dtype)


def zeros_like(x, dtype=None):
    return full(np.shape(x), 0, dtype or core.get_aval(x).dtype)


def ones_like(x, dtype=None):
    return full(np.shape(x), 1, dtype or core.get_aval(x).dtype)


def full_like(x, fill_value, dtype=None):
    return full(np.shape(x), fill_value, dtype or core.get_aval(x).dtype)


def arange(start, stop=None, step=1, dtype=None):
    """``start, start + step, ...`` below ``stop`` (static bounds), built on ``iota``."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = np.result_type(*(type(v) for v in (start, stop, step)))
    dtype = dtypes.check_supported(dtype, 'arange')
    if step == 0:
        raise ValueError('arange: step must not be zero')
    n = builtins.max(0, int(np.ceil((stop - start) / step)))
    out = lax.iota(dtype, (n,))
    if step != 1:
        out = lax.mul(out, np.asarray(step, dtype))
    if start != 0:
        out = lax.add(out, np.asarray(start, dtype))
    return out


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop``; computed on the host (the
    bounds are static), so it enters a traced program as a constant."""
    out = np.linspace(start, stop, num, endpoint=endpoint)
    return out.astype(dtypes.check_supported(dtype or out.dtype, 'linspace'))


# ----------------------------------------------------------------------------- indexing

def _static_index(shape, idx):
    """Static NumPy basic indexing as a strided slice plus a reshape.

    Returns the ``(start, limit, stride)`` per axis and the result shape (integers drop an
    axis, ``None`` adds one).
    """
    idx = idx if isinstance(idx, tuple) else (idx,)
    for i in idx:
        if isinstance(i, (Tracer, np.ndarray, list)) or (
                i is not None and i is not Ellipsis and not isinstance(i, (int, np.integer,
                                                                           builtins.slice))):
            raise TypeError(f'minijax supports static indexing only (ints, slices, None, ...), '
                            f'got an index of type {type(i).__name__}')
        if isinstance(i, (bool, np.bool_)):
            raise TypeError('boolean indices are not supported')
    used = builtins.sum(1 for i in idx if i is not None and i is not Ellipsis)
    if used > len(shape):
        raise IndexError(f'too many indices ({used}) for an array of shape {_shape_str(shape)}')
    if idx.count(Ellipsis) > 1:
        raise IndexError('an index can only have a single ellipsis')
    fill = (builtins.slice(None),) * (len(shape) - used)
    if Ellipsis in idx:
        at = idx.index(Ellipsis)
        idx = idx[:at] + fill + idx[at + 1:]
    else:
        idx = idx + fill
    window, out_shape, axis = [], [], 0
    for i in idx:
        if i is None:
            out_shape.append(1)
            continue
        n = shape[axis]
        if isinstance(i, builtins.slice):
            start, stop, step = i.indices(n)
            if step < 0:
                raise IndexError('negative slice steps are not supported')
            size = len(range(start, stop, step))
            window.append((start, start + (size - 1) * step + 1 if size else start, step))
            out_shape.append(size)
        else:
            if not -n <= i < n:
                raise IndexError(f'index {i} is out of bounds for axis {axis} with size {n}')
            window.append((int(i) % n, int(i) % n + 1, 1))
        axis += 1
    return window, tuple(out_shape)


def getitem(x, idx):
    """``x[idx]`` for static basic indices."""
    shape = np.shape(x)
    window, out_shape = _static_index(shape, idx)
    starts, limits, strides = zip(*window) if window else ((), (), ())
    if (starts, limits, strides) != ((0,) * len(shape), shape, (1,) * len(shape)):
        x = lax.slice(x, starts, limits, strides)
    return x if np.shape(x) == out_shape else lax.reshape(x, out_shape)


class _IndexUpdateHelper:
    """``x.at``: ``x.at[idx]`` gives an ``_IndexUpdateRef`` with ``set`` and ``add``."""
    __slots__ = ('array',)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    """A functional update of the elements ``x[idx]``: a new array, ``x`` is unchanged.

    The update is padded (with zeros between strided elements) to the shape of ``x``, so
    ``add`` is one ``add`` and ``set`` a ``select_n`` with a padded mask.
    """
    __slots__ = ('array', 'idx')

    def __init__(self, array, idx):
        self.array, self.idx = array, idx

    def _padded(self, values):
        x = self.array
        shape, dtype = np.shape(x), core.get_aval(x).dtype
        window, out_shape = _static_index(shape, self.idx)
        sizes = [len(range(*w)) for w in window]
        values = reshape(broadcast_to(asarray(values, dtype), out_shape), sizes)
        config = [(start, n - limit, stride - 1)
                  for (start, limit, stride), n in zip(window, shape)]
        return config, sizes, lax.pad(values, np.zeros((), dtype), config)

    def set(self, values):
        config, sizes, padded = self._padded(values)
        mask = lax.pad(lax.full(sizes, True, dtypes.bool_), np.array(False), config)
        return lax.select_n(mask, self.array, padded)

    def add(self, values):
        _, _, padded = self._padded(values)
        return lax.add(self.array, padded)


def index_update_helper(x):
    return _IndexUpdateHelper(x)



# ----------------------------------------------------------------------------- operators

def _install_operators(cls):
    """Give ``cls`` (traced values and Arrays) NumPy's operators and a few array methods,
    each calling the function of this module with the same meaning."""
    this = globals()

    def binary(name, reflected=False):
        def op(self, other):
            if not core.is_valid_value(other):
                return NotImplemented
            return this[name](other, self) if reflected else this[name](self, other)
        return op

    for dunder, name in [('add', 'add'), ('sub', 'subtract'), ('mul', 'multiply'),
                         ('truediv', 'true_divide'), ('pow', 'power'), ('matmul', 'matmul')]:
        setattr(cls, f'__{dunder}__', binary(name))
        setattr(cls, f'__r{dunder}__', binary(name, reflected=True))
    for dunder, name in [('gt', 'greater'), ('lt', 'less'), ('ge', 'greater_equal'),
                         ('le', 'less_equal'), ('eq', 'equal'), ('ne', 'not_equal')]:
        setattr(cls, f'__{dunder}__', binary(name))
    cls.__neg__ = negative
    cls.__pos__ = lambda self: self
    cls.__abs__ = abs
    cls.__getitem__ = getitem
    cls.at = property(index_update_helper)
    cls.T = property(transpose)
    cls.reshape = lambda self, *shape: reshape(
        self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)
    cls.astype = astype
    for name in ('sum', 'max', 'min', 'mean', 'argmax'):
        setattr(cls, name, this[name])


_install_operators(Tracer)
_install_operators(Array)
