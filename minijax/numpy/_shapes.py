"""``jnp``'s shape functions: ``reshape``, ``transpose`` and ``moveaxis``, ``expand_dims`` and
``squeeze``, joining (``concatenate``, ``stack``...) and cutting (``split``, ``unstack``),
``tile``, ``repeat``, ``flip`` and ``rot90``, ``roll``, ``meshgrid`` and ``pad``: each moves or
copies elements without computing on them, on ``lax``'s structural primitives (``reshape``,
``transpose``, ``broadcast_in_dim``, ``concatenate``, ``slice``, ``rev``, ``pad``). Written on
the functions of ``minijax.numpy``, which imports them back first: the other topic modules use
them.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

import minijax.numpy as jnp  # (for take and cumsum, of topics loaded after this one)
from minijax import core, dtypes, lax
from minijax.array import Array
from minijax.numpy import (_axes, _computed_as, _concrete_or_error, _no_out, _promote,
                           _shape_str, _static_int, asarray, broadcast_to, full, size, zeros)

__all__ = ['atleast_1d', 'atleast_2d', 'column_stack', 'concat', 'concatenate', 'expand_dims',
           'flip', 'fliplr', 'flipud', 'hstack', 'matrix_transpose', 'meshgrid', 'moveaxis',
           'pad', 'permute_dims', 'ravel', 'repeat', 'reshape', 'roll', 'rot90',
           'split', 'squeeze', 'stack', 'swapaxes', 'tile', 'transpose', 'unstack', 'vstack']


def reshape(a, shape=None, order='C', *, out_sharding=None, **kwargs):
    """``a`` with a new shape; one entry may be -1 (inferred); ``order='F'`` reads and writes
    the elements with the first axis fastest. (JAX's old ``newshape=`` keyword is
    accepted.)"""
    shape = kwargs.pop('newshape', shape)
    if kwargs:
        raise TypeError(f'reshape: unsupported arguments {sorted(kwargs)}')
    if order == 'F':
        if out_sharding is not None:
            raise NotImplementedError("reshape: minijax takes out_sharding with order='C' only")
        shape = shape if np.iterable(shape) else (shape,)
        return transpose(reshape(transpose(a), tuple(shape)[::-1]))
    if order == 'A':
        raise NotImplementedError('np.reshape order=A is not implemented.')
    if order != 'C':
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")
    dims = shape if np.iterable(shape) else (shape,)
    shape = tuple(_static_int(d, f'reshape: each entry of shape {shape!r}') for d in dims)
    size_ = size(a)
    if shape.count(-1) == 1:
        known = math.prod([d for d in shape if d != -1])
        if known and size_ % known == 0:
            shape = tuple(size_ // known if d == -1 else d for d in shape)
    if shape.count(-1) or math.prod(shape) != size_:
        # JAX's classes: NumPy's reshape refuses a NumPy array, lax's shape rule the rest.
        error = ValueError if isinstance(a, (np.ndarray, np.generic)) else TypeError
        raise error(f'cannot reshape an array of shape {_shape_str(np.shape(a))} into '
                         f'shape {_shape_str(shape)}')
    if shape == np.shape(a) and out_sharding is None:
        return a
    return lax.reshape(a, shape, out_sharding=out_sharding)


def ravel(a, order='C', *, out_sharding=None):
    """``a`` flattened, in ``order`` (``'C'`` or ``'F'``), sharded as ``out_sharding``."""
    if order == 'K':
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (size(a),), order, out_sharding=out_sharding)


def transpose(a, axes=None):
    """Permute the axes (reverse them if ``axes`` is None)."""
    ndim_ = np.ndim(a)
    if axes is None:
        return lax.transpose(a, tuple(reversed(range(ndim_))))
    perm = [core.canonicalize_axis(x, ndim_, 'transpose: axis') for x in axes]
    if sorted(perm) != list(range(ndim_)):
        raise TypeError(f'transpose: axes {tuple(axes)} are not a permutation of the '
                        f'{ndim_} axes of the array')  # JAX's class
    return lax.transpose(a, perm)


def swapaxes(a, axis1, axis2):
    ndim_ = np.ndim(a)
    axis1 = core.canonicalize_axis(axis1, ndim_, 'swapaxes: axis1')
    axis2 = core.canonicalize_axis(axis2, ndim_, 'swapaxes: axis2')
    perm = list(range(ndim_))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, perm)


def matrix_transpose(x, /):
    """``x`` with its last two axes swapped."""
    if np.ndim(x) < 2:
        raise ValueError('x must be at least two-dimensional for matrix_transpose; got '
                         f'ndim={np.ndim(x)}')
    return swapaxes(x, -1, -2)


def permute_dims(a, /, axes):
    return transpose(a, axes)


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to positions ``destination``."""
    ndim_ = np.ndim(a)
    source = _axis_list('moveaxis: source', source, ndim_)
    destination = _axis_list('moveaxis: destination', destination, ndim_)
    if len(source) != len(destination):
        raise ValueError('moveaxis: source and destination need the same number of axes')
    return _moveaxis(a, tuple(source), tuple(destination))


def _moveaxis(a, source, destination):
    perm = [i for i in range(np.ndim(a)) if i not in source]
    for dst, src in sorted(zip(destination, source)):
        perm.insert(dst, src)
    return lax.transpose(a, perm)


def _axis_list(what, axes, ndim_):
    axes = axes if np.iterable(axes) else (axes,)
    return [core.canonicalize_axis(x, ndim_, what) for x in axes]


def expand_dims(a, axis):
    return lax.expand_dims(a, axis)


def squeeze(a, axis=None):
    shape_ = np.shape(a)
    if axis is None:
        return lax.squeeze(a, [i for i, d in enumerate(shape_) if d == 1])
    return lax.squeeze(a, _axes('squeeze', a, axis))


def _at_least(ndim, arys):
    """Each of ``arys`` with size-1 axes in front up to ``ndim`` axes (a new axis is a
    ``broadcast_in_dim``, as in JAX); one array alone is returned alone."""
    out = []
    for a in arys:
        shape_ = np.shape(a)
        lead = ndim - len(shape_)
        out.append(lax.broadcast_in_dim(a, (1,) * lead + shape_, range(lead, ndim))
                   if lead > 0 else asarray(a))
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _at_least(1, arys)


def atleast_2d(*arys):
    return _at_least(2, arys)


def concatenate(arrays, axis=0, dtype=None):
    """``arrays`` (promoted to one dtype, or converted to ``dtype``) joined along ``axis``
    (flattened first if None)."""
    if _is_array(arrays):
        return _concatenate_array(arrays, axis, dtype)
    arrays = _nonempty('concatenate', arrays)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    arrays = _promote_or_convert(arrays, dtype, 'concatenate')
    ndim_ = np.ndim(arrays[0])
    axis = core.canonicalize_axis(axis, ndim_, 'concatenate: axis')
    shapes = [np.shape(a) for a in arrays]
    if builtins.any(len(s) != ndim_ for s in shapes):
        raise TypeError(f'concatenate: arrays of different ranks, shapes '
                        f'{" and ".join(map(_shape_str, shapes))}')  # JAX's class
    if builtins.any(s[:axis] + s[axis + 1:] != shapes[0][:axis]
                    + shapes[0][axis + 1:] for s in shapes):
        raise TypeError(f'concatenate along axis {axis}: shapes '
                        f'{" and ".join(map(_shape_str, shapes))} do not fit')  # JAX's class
    return lax.concatenate(arrays, axis)


def _is_array(x):
    """Whether ``x`` is one array (which JAX joins by a reshape), not a sequence of them."""
    return isinstance(x, (np.ndarray, Array, core.Tracer))


def _concatenate_array(arr, axis, dtype):
    """The rows of ``arr`` joined along ``axis`` (of a row), as JAX joins them: one reshape
    with the leading axis moved next to ``axis``."""
    arr = asarray(arr, dtype)
    shape_ = np.shape(arr)
    if not shape_ or shape_[0] == 0:
        raise ValueError('Need at least one array to concatenate.')
    if axis is None:
        return lax.reshape(arr, (np.size(arr),))
    if len(shape_) == 1:
        raise ValueError('Zero-dimensional arrays cannot be concatenated.')
    axis = core.canonicalize_axis(axis, len(shape_) - 1, 'concatenate: axis')
    new_shape = (*shape_[1:axis + 1], shape_[0] * shape_[axis + 1], *shape_[axis + 2:])
    return lax.reshape(arr, new_shape, (*range(1, axis + 1), 0, *range(axis + 1, len(shape_))))


def concat(arrays, /, *, axis=0):
    return concatenate(arrays, axis)


def _promote_or_convert(arrays, dtype, name):
    """``arrays`` promoted to their common dtype, or each converted to ``dtype``."""
    if dtype is None:
        return _promote(*(asarray(a) for a in arrays))
    dtype = dtypes.check_supported(dtype, f'{name}: dtype')
    return [asarray(a, dtype) for a in arrays]


def stack(arrays, axis=0, out=None, dtype=None):
    """``arrays`` (of one shape; promoted, or converted to ``dtype``) joined along a new
    axis ``axis``."""
    _no_out('stack', out)
    if _is_array(arrays):  # JAX's: the rows, each with a new axis, joined
        if not np.shape(arrays) or np.shape(arrays)[0] == 0:
            raise ValueError('stack needs at least one array, got an empty sequence')
        axis = core.canonicalize_axis(axis, np.ndim(arrays), 'stack: axis')
        return concatenate(expand_dims(arrays, axis + 1), axis, dtype)
    arrays = _nonempty('stack', arrays)
    arrays = _promote_or_convert(arrays, dtype, 'stack')
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError('stack needs arrays of one shape, got shapes '
                         f'{" and ".join(map(_shape_str, sorted(shapes)))}')
    axis = core.canonicalize_axis(axis, len(shapes.pop()) + 1, 'stack: axis')
    return lax.stack(arrays, axis)


def vstack(tup, dtype=None):
    """Arrays joined along the first axis (1-D ones as rows)."""
    return concatenate([atleast_2d(a) for a in _nonempty('vstack', tup)], 0, dtype)


def hstack(tup, dtype=None):
    """Arrays joined along the second axis (the first for 1-D ones)."""
    arrays = [atleast_1d(a) for a in _nonempty('hstack', tup)]
    return concatenate(arrays, 0 if np.ndim(arrays[0]) == 1 else 1, dtype)


def column_stack(tup):
    """1-D arrays as columns (and 2-D ones as they are) joined along the second axis."""
    return concatenate([reshape(a, (-1, 1)) if np.ndim(a) < 2 else a
                        for a in _nonempty('column_stack', tup)], 1)


def _nonempty(name, arrays):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f'{name} needs at least one array, got an empty sequence')
    return arrays


def split(ary, indices_or_sections, axis=0):
    """``ary`` cut along ``axis`` into equal sections, or at the given indices."""
    axis = core.canonicalize_axis(axis, np.ndim(ary), 'split: axis')
    n = np.shape(ary)[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        if n % indices_or_sections:
            raise ValueError(f'split: an axis of size {n} does not divide into '
                             f'{indices_or_sections} equal sections')
        step = n // indices_or_sections
        cuts = list(range(step, n, step))[:indices_or_sections - 1]
    else:
        cuts = [int(i) for i in indices_or_sections]
    bounds = [0] + [builtins.min(builtins.max(c % n if c < 0 else c, 0), n) for c in cuts] + [n]
    return _pieces(asarray(ary), bounds, axis)


def _pieces(ary, bounds, axis):
    """``ary[bounds[i]:bounds[i + 1]]`` along ``axis``: one ``split``, as JAX stages it (its
    sizes NumPy integers, as JAX's jaxprs print them), when the bounds ascend; slices
    otherwise (NumPy's pieces for indices out of order, where JAX fails)."""
    if builtins.all(lo <= hi for lo, hi in zip(bounds, bounds[1:])):
        sizes = tuple(np.int64(hi - lo) for lo, hi in zip(bounds, bounds[1:]))
        return list(lax.split_p.bind(ary, sizes=sizes, axis=axis))
    return [lax.slice_in_dim(ary, lo, builtins.max(lo, hi), axis=axis)
            for lo, hi in zip(bounds, bounds[1:])]


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    axis = core.canonicalize_axis(axis, np.ndim(x), 'unstack: axis')
    return tuple(lax.squeeze(lax.slice_in_dim(x, i, i + 1, axis=axis), [axis])
                 for i in range(np.shape(x)[axis]))


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis (leading axes of size 1 added where
    ``reps`` is longer): one ``lax.tile``, as JAX stages it."""
    A = asarray(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = tuple(_static_int(r, 'tile: reps') for r in reps)
    if builtins.any(r < 0 for r in reps):  # (JAX fails in its MLIR verifier)
        raise TypeError(f'tile: reps {reps} has a negative dimension')
    reps = (1,) * (np.ndim(A) - len(reps)) + reps
    if len(reps) > np.ndim(A):
        A = lax.expand_dims(A, tuple(range(len(reps) - np.ndim(A))))
    return lax.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (flattened if None):
    ``repeats`` is an int or one per element, static unless ``total_repeat_length`` gives the
    result's length (too long, the last element repeats; too short, the end is cut). The
    result is sharded as ``out_sharding`` (computed with the mesh's axes ``Auto``)."""
    if axis is None:
        a, axis = ravel(a), 0
    if total_repeat_length is None:  # repeats are static
        return _computed_as(out_sharding, 'repeat', lambda x: _repeat(x, repeats, axis, None), a)
    return _computed_as(out_sharding, 'repeat',
                        lambda x, r: _repeat(x, r, axis, total_repeat_length), a, repeats)


def _repeat(a, repeats, axis, total_repeat_length):
    a = asarray(a)
    axis = core.canonicalize_axis(axis, builtins.max(np.ndim(a), 1), 'repeat: axis')
    if total_repeat_length is None:
        repeats = _concrete_or_error(
            np.asarray, repeats, 'When jit-compiling jnp.repeat, the total number of repeats '
            'must be static. To fix this, either specify a static value for `repeats`, or pass '
            'a static value to `total_repeat_length`.')
        if not np.ndim(repeats) and np.ndim(a):  # a new axis broadcast, merged into axis
            sizes = list(np.shape(a))
            out = lax.broadcast_in_dim(a, sizes[:axis + 1] + [int(repeats)] + sizes[axis + 1:],
                                       [i for i in range(len(sizes) + 1) if i != axis + 1])
            return lax.reshape(out, sizes[:axis] + [sizes[axis] * int(repeats)]
                               + sizes[axis + 1:])
        repeats = np.ravel(repeats)
        if np.ndim(a):
            repeats = np.broadcast_to(repeats, (np.shape(a)[axis],))
        total_repeat_length = int(np.sum(repeats))
    else:
        repeats = ravel(repeats)
        if np.ndim(a):
            repeats = broadcast_to(repeats, (np.shape(a)[axis],))
    if not np.ndim(a):
        if np.shape(repeats) != (1,):
            raise ValueError('`repeat` with a scalar parameter `a` is only implemented for '
                             'scalar values of the parameter `repeats`.')
        return full((total_repeat_length,), a)
    if total_repeat_length == 0 or np.shape(a)[axis] == 0:
        return lax.slice_in_dim(a, 0, 0, axis=axis) if total_repeat_length == 0 else a
    # the index of each output element's source: 1 where a block starts, summed
    starts = jnp.cumsum(concatenate([zeros(1, np.int64), asarray(repeats)[:-1]]))
    marks = zeros(total_repeat_length, np.int32).at[starts].add(1)
    return jnp.take(a, jnp.cumsum(marks) - 1, axis=axis)
def flip(m, axis=None):
    """``m`` with the order of the elements along ``axis`` (all axes if None) reversed."""
    return _flip(m, tuple(axis) if isinstance(axis, list) else axis)


def _flip(m, axis):
    return lax.rev(m, tuple(_axes('flip', m, axis)))


def fliplr(m):
    return _flip(m, 1)


def flipud(m):
    return _flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by ``k`` quarter turns from the first of ``axes`` towards the second."""
    ndim_ = np.ndim(m)
    first, second = (core.canonicalize_axis(a, ndim_, 'rot90: axes') for a in axes)
    if first == second:
        raise ValueError(f'rot90: the axes {tuple(axes)} must differ')
    k %= 4
    if k == 0:
        return asarray(m)
    if k == 2:
        return flip(flip(m, first), second)
    perm = list(range(ndim_))
    perm[first], perm[second] = perm[second], perm[first]
    return transpose(flip(m, second), perm) if k == 1 else flip(transpose(m, perm), second)


def roll(a, shift, axis=None):
    """``a`` shifted by ``shift`` along ``axis`` (the flattened array if None), wrapping
    around: JAX's jit ``_roll_static`` for shifts that are indices, its ``_roll_dynamic``
    for traced ones."""
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), np.shape(a))
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        raise ValueError(f'roll: {len(shifts)} shifts for {len(axes)} axes')
    axes = tuple(core.canonicalize_axis(ax, np.ndim(a), 'roll: axis') for ax in axes)
    try:
        shifts = tuple(operator.index(s) for s in shifts)
    except TypeError:
        return _roll_dynamic(a, asarray(shift), axes)
    return _roll_static(a, shifts, axes)


def _roll_static(a, shift, axis):
    """Each axis cut where its new start lies, its two pieces swapped."""
    for s, ax in zip(shift, axis):
        n = np.shape(a)[ax]
        if n:
            i = (-s) % n
            a = lax.concatenate([lax.slice_in_dim(a, i, n, axis=ax),
                                 lax.slice_in_dim(a, 0, i, axis=ax)], ax)
    return a


def _roll_dynamic(a, shift, axis):
    """A window of ``a`` concatenated with itself, at a start the program computes."""
    shift = broadcast_to(shift, (len(axis),))
    for k, ax in enumerate(axis):  # (the shifts as JAX iterates them: index_in_dim)
        n = np.array(np.shape(a)[ax], np.int32)
        s = lax.convert_element_type(lax.index_in_dim(shift, k, keepdims=False), np.int32)
        s = jnp.remainder(s, lax.max(n, np.int32(1)))
        a = lax.dynamic_slice_in_dim(lax.concatenate([a, a], ax), n - s, np.shape(a)[ax], ax)
    return a


def meshgrid(*xi, copy=True, sparse=False, indexing='xy'):
    """Coordinate arrays from the 1-D coordinate vectors ``xi`` (``'xy'``: the first two
    axes swapped, as for images; ``'ij'``: matrix indexing)."""
    if indexing not in ('xy', 'ij'):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xi = [ravel(asarray(x)) for x in xi]
    dims = list(range(len(xi)))
    if indexing == 'xy' and len(xi) >= 2:
        dims[0], dims[1] = 1, 0
    shape_ = [0] * len(xi)
    for x, d in zip(xi, dims):
        shape_[d] = np.shape(x)[0]
    if sparse:
        return [reshape(x, [n if i == d else 1 for i, n in enumerate(shape_)])
                for x, d in zip(xi, dims)]
    return [lax.broadcast_in_dim(x, shape_, (d,)) for x, d in zip(xi, dims)]


def _pad_widths(shape, pad_width):
    """``pad_width`` as one (before, after) pair of non-negative ints per axis of ``shape``;
    JAX refuses floats (TypeError) and negative widths (ValueError: ``pad`` never crops)."""
    widths = np.asarray(pad_width)
    if widths.size and not np.issubdtype(widths.dtype, np.integer):
        raise TypeError(f'pad: pad_width must be integers, got {pad_width!r}')
    try:
        widths = np.broadcast_to(widths.astype(np.int64), (len(shape), 2))
    except ValueError:
        raise ValueError(f'pad: pad_width {pad_width!r} does not give a (before, after) pair '
                         f'for each axis of an array of shape {_shape_str(shape)}') from None
    if (widths < 0).any():
        raise ValueError(f'pad: pad_width must not be negative, got {pad_width!r}')
    return widths


def pad(array, pad_width, mode='constant', constant_values=0):
    """``array`` padded with ``constant_values`` (mode 'constant' only); ``pad_width`` is
    an int, a (before, after) pair, or one pair per axis. JAX's jit ``_pad``: the widths
    static (pairs of NumPy ints, as JAX's), the value traced."""
    if mode != 'constant':
        raise NotImplementedError(f"pad: mode {mode!r} is not supported (only 'constant')")
    widths = _pad_widths(np.shape(array), pad_width)
    return _pad(array, tuple(map(tuple, widths)), constant_values)


def _pad(array, pad_width, constant_values):
    aval = core.get_aval(array)
    fill = lax.convert_element_type(constant_values, aval.dtype, weak_type=aval.weak_type)
    return lax.pad(array, fill, [(lo, hi, 0) for lo, hi in pad_width])
