"""``jnp``'s products and matrices: ``matmul``, ``dot``, ``tensordot``, ``einsum``, ``kron`` and
``cross``, the sliding ``convolve``/``correlate``, ``diagonal``/``trace``, the triangles and
``eye``, and the norms ``jnp.linalg.norm`` uses; written on the functions of ``minijax.numpy``,
which imports them back.
"""
from __future__ import annotations

import builtins
import operator
import string

import numpy as np

from minijax import core, dtypes, lax
from minijax.numpy import (_axes, _cast, _no_out, _placed, _promote, _shape_str,  # noqa: A004
                           _to_float, abs, asarray, broadcast_shapes, broadcast_to, conj,
                           expand_dims, float64, max, min, moveaxis, multiply, power, ravel,
                           real, reshape, sqrt, stack, subtract, sum, unstack, where,
                           zeros_like)
from minijax.numpy._shapes import _axis_list
from minijax.sharding import rules as sharding_rules

__all__ = ['convolve', 'correlate', 'cross', 'diag', 'diagonal', 'dot', 'einsum', 'einsum_path',
           'eye',
           'identity', 'inner', 'kron', 'matmul', 'outer', 'tensordot', 'trace', 'tri', 'tril',
           'triu', 'vdot', 'vecdot']


def _not_aligned(a_sizes, b_sizes):
    """The TypeError JAX raises (from ``dot_general``) for contracted sizes that differ."""
    return TypeError('dot_general requires contracting dimensions to have the same shape, '
                     f'got {_shape_str(a_sizes)} and {_shape_str(b_sizes)}.')


def _product(a, b, dimension_numbers, out_sharding=None, precision=None,
             preferred_element_type=None, dot_general=lax.dot_general):
    """``lax.dot_general`` (or the given ``dot_general``) asked for ``preferred_element_type``
    or the operands' dtype, as jnp's products ask (it shows in the jaxpr); a requested dtype
    gives a strongly typed result, as in JAX."""
    if preferred_element_type is None:
        return dot_general(a, b, dimension_numbers, precision=precision,
                           preferred_element_type=core.get_aval(a).dtype,
                           out_sharding=out_sharding)
    dtype = dtypes.check_supported(preferred_element_type, 'preferred_element_type')
    out = dot_general(a, b, dimension_numbers, precision=precision,
                      preferred_element_type=dtype, out_sharding=out_sharding)
    return _strong(out)


def _strong(x):
    """``x``, strongly typed (a requested dtype is never weak)."""
    return lax.convert_element_type(x, core.get_aval(x).dtype, weak_type=False) \
        if core.get_aval(x).weak_type else x


def _scalar_product(a, b, preferred_element_type):
    """``a * b``, one of them a scalar: in ``preferred_element_type`` if given."""
    if preferred_element_type is None:
        return multiply(a, b)
    dtype = dtypes.check_supported(preferred_element_type, 'preferred_element_type')
    return _strong(multiply(asarray(a).astype(dtype), asarray(b).astype(dtype)))


def matmul(a, b, /, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``a @ b``, staged as JAX stages it: one ``dot_general`` contracting the last
    axis of ``a`` with the last but one of ``b`` (its last, if 1-D), a 1-D operand taking
    part as it is (no unit axis added and removed: a gradient through ``h @ w`` saves ``h``,
    not ``h[None]``). Leading axes broadcast: equal ones are batch axes; a size-1 axis is
    squeezed away and the other operand's axis becomes a free one; the result's axes are
    then put in NumPy's order (a ``transpose`` where they are not). The ``dot_general`` is of
    ``precision``, in ``preferred_element_type``."""
    a, b = _promote(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not a_shape or not b_shape:
        raise ValueError('matmul needs operands of rank 1 or more, got shapes '
                         f'{_shape_str(a_shape)} and {_shape_str(b_shape)}')
    a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
    b_axis = len(b_shape) - 1 - b_is_mat
    if a_shape[-1] != b_shape[b_axis]:
        raise _not_aligned(a_shape[-1:], b_shape[b_axis:b_axis + 1])
    n = builtins.max(len(a_shape), len(b_shape)) - 2
    a_batch, b_batch = (_padded(_batch_axes(x), n) for x in (a, b))
    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_batch_at, b_batch_at = [], []  # positions of the batch axes in the squeezed operands
    batch, a_free, b_free = [], [], []  # result axes, in the order dot_general gives them
    for i, ((na, sa), (nb, sb)) in enumerate(zip(a_batch, b_batch)):
        if na is None:
            b_free.append(i)
        elif nb is None:
            a_free.append(i)
        elif na == nb == 1 and sa is None and sb is None:
            a_squeeze.append(len(batch) + len(a_free) + len(a_squeeze))
            b_squeeze.append(len(batch) + len(b_free) + len(b_squeeze))
            both_squeeze.append(i)
        elif na == 1 and sa is None:
            b_free.append(i)
            a_squeeze.append(len(batch) + len(a_free) + len(a_squeeze))
        elif nb == 1 and sb is None:
            a_free.append(i)
            b_squeeze.append(len(batch) + len(b_free) + len(b_squeeze))
        elif na == nb and sa == sb:
            a_batch_at.append(len(batch) + len(a_free))
            b_batch_at.append(len(batch) + len(b_free))
            batch.append(i)
        else:
            raise ValueError(f'Incompatible types for matmul arguments: '
                             f'{core.typeof(a)} and {core.typeof(b)}')
    a_free += [n] if a_is_mat else []
    b_free += [n + a_is_mat] if b_is_mat else []
    a = lax.squeeze(a, a_squeeze) if a_squeeze else a
    b = lax.squeeze(b, b_squeeze) if b_squeeze else b
    out = _product(a, b, (((np.ndim(a) - 1,), (np.ndim(b) - 1 - b_is_mat,)),
                          (tuple(a_batch_at), tuple(b_batch_at))), out_sharding, precision,
                   preferred_element_type)
    order = tuple(int(k) for k in np.argsort(batch + a_free + b_free))
    if order != tuple(range(len(order))):
        out = lax.transpose(out, order)
    return expand_dims(out, tuple(both_squeeze)) if both_squeeze else out


def _batch_axes(x) -> list[tuple]:
    """(size, mesh axes) of each leading (batch) axis of ``x`` as ``matmul`` reads it: all
    but the last two of a matrix, none of a vector."""
    aval = core.typeof(x)
    return list(zip(aval.shape, aval.sharding.spec))[:-2] if aval.ndim > 1 else []


def _padded(axes: list, n: int) -> list:
    """``axes`` with ``(None, None)`` in front, ``n`` in all (absent axes broadcast)."""
    return [(None, None)] * (n - len(axes)) + axes


def _contraction(a, b, contracting, precision, preferred_element_type, out_sharding):
    """One ``dot_general`` of ``a`` and ``b`` as they are (no promotion), contracting the
    axes ``contracting``, asked for ``preferred_element_type`` or the dtype the operands
    promote to (the result weakly typed if both are): JAX's ``dot`` and ``tensordot``."""
    avals = core.shaped_aval(a), core.shaped_aval(b)
    if preferred_element_type is None:
        dtype, weak_type = dtypes.promote(*((v.dtype, v.weak_type) for v in avals))
    else:
        dtype = dtypes.check_supported(preferred_element_type, 'preferred_element_type')
        weak_type = False
    out = lax.dot_general(a, b, (contracting, ((), ())), precision=precision,
                          preferred_element_type=dtype, out_sharding=out_sharding)
    return _cast(out, dtype, weak_type)


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: a product with a scalar, an inner product of vectors, or a contraction
    of the last axis of ``a`` with the second to last of ``b`` (the last if ``b`` is 1-D). As
    JAX stages it (``_contraction``)."""
    a, b = asarray(a), asarray(b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    contracting = ((), ())
    if a_shape and b_shape:
        b_axis = 0 if len(b_shape) == 1 else len(b_shape) - 2
        if a_shape[-1] != b_shape[b_axis]:
            raise _not_aligned(a_shape[-1:], b_shape[b_axis:b_axis + 1])
        contracting = ((len(a_shape) - 1,), (b_axis,))
    return _contraction(a, b, contracting, precision, preferred_element_type, out_sharding)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    """The contraction of ``axes`` of ``a`` with those of ``b`` (an int N: the last N of
    ``a`` with the first N of ``b``); the free axes of ``a`` come first, then ``b``'s."""
    a, b = asarray(a), asarray(b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= builtins.min(len(a_shape), len(b_shape)):
            raise TypeError(f'tensordot: axes={axes} does not fit operands of shapes '
                            f'{_shape_str(a_shape)} and {_shape_str(b_shape)}')  # JAX's class
        a_axes, b_axes = range(len(a_shape) - axes, len(a_shape)), range(axes)
    else:
        a_axes, b_axes = ((x,) if isinstance(x, (int, np.integer)) else x for x in axes)
    a_axes = [core.canonicalize_axis(x, len(a_shape), 'tensordot: axis of a') for x in a_axes]
    b_axes = [core.canonicalize_axis(x, len(b_shape), 'tensordot: axis of b') for x in b_axes]
    if [a_shape[x] for x in a_axes] != [b_shape[x] for x in b_axes]:
        raise _not_aligned([a_shape[x] for x in a_axes], [b_shape[x] for x in b_axes])
    return _contraction(a, b, (tuple(a_axes), tuple(b_axes)), precision,
                        preferred_element_type, out_sharding)


def inner(a, b, /, *, precision=None, preferred_element_type=None):
    """The sum over the last axes of ``a`` and ``b`` (a product with a scalar)."""
    if not np.ndim(a) or not np.ndim(b):
        return _scalar_product(a, b, preferred_element_type)
    return tensordot(a, b, ((-1,), (-1,)), precision=precision,
                     preferred_element_type=preferred_element_type)


def vdot(a, b, /, *, precision=None, preferred_element_type=None):
    """The dot product of ``a`` and ``b`` flattened, ``a`` conjugated (as in NumPy and JAX)."""
    return dot(conj(ravel(a)), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The dot products of the vectors along ``axis`` of ``x1`` and ``x2``, their other axes
    broadcast: ``sum(conj(x1) * x2, axis)``, one ``dot_general`` batched over those axes."""
    x1, x2 = (moveaxis(x, axis, -1) for x in _promote(x1, x2))
    (n,), (n2,) = np.shape(x1)[-1:], np.shape(x2)[-1:]
    if n != n2:
        raise ValueError(f'vecdot: x1 and x2 must have one size along axis {axis}, got shapes '
                         f'{_shape_str(np.shape(x1))} and {_shape_str(np.shape(x2))} (axis last)')
    batch = broadcast_shapes(np.shape(x1)[:-1], np.shape(x2)[:-1])
    x1, x2 = (broadcast_to(x, batch + (n,)) for x in (x1, x2))
    k = len(batch)
    return _product(conj(x1), x2, (((k,), (k,)), (tuple(range(k)), tuple(range(k)))),
                    precision=precision, preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """``a[i] * b[j]`` of ``a`` and ``b`` flattened."""
    _no_out('outer', out)
    return multiply(expand_dims(ravel(a), 1), expand_dims(ravel(b), 0))


#: mode -> the (low, high) zeros around the signal for a kernel of length n: every overlap
#: ('full'), as many outputs as the signal has ('same'), or whole overlaps only ('valid').
_SLIDING_PADDING = {
    'full': lambda n: (n - 1, n - 1),
    'same': lambda n: (n // 2, n - n // 2 - 1),
    'valid': lambda n: (0, 0),
}


def kron(a, b):
    """The Kronecker product: each element of ``a`` times the whole of ``b``."""
    a, b = _promote(asarray(a), asarray(b))
    ndim_ = builtins.max(np.ndim(a), np.ndim(b))
    sa = (1,) * (ndim_ - np.ndim(a)) + np.shape(a)
    sb = (1,) * (ndim_ - np.ndim(b)) + np.shape(b)
    a = reshape(a, [d for n in sa for d in (n, 1)])
    b = reshape(b, [d for n in sb for d in (1, n)])
    return reshape(multiply(a, b), [m * n for m, n in zip(sa, sb)])


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (2-vectors have a zero third component; two
    2-vectors give the scalar z component) along ``axisa``/``axisb``."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _promote(moveaxis(a, axisa, -1), moveaxis(b, axisb, -1))
    sizes = np.shape(a)[-1], np.shape(b)[-1]
    if not set(sizes) <= {2, 3}:
        raise ValueError(f'cross: vectors must have 2 or 3 components, got {sizes}')
    (a0, a1, *a2), (b0, b1, *b2) = unstack(a, axis=-1), unstack(b, axis=-1)
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if sizes == (2, 2):
        return z
    a2 = a2[0] if a2 else zeros_like(a0)
    b2 = b2[0] if b2 else zeros_like(b0)
    c = stack([subtract(multiply(a1, b2), multiply(a2, b1)),
               subtract(multiply(a2, b0), multiply(a0, b2)), z], -1)
    return moveaxis(c, -1, axisc)


def _sliding_operands(name, a, v, mode, preferred_element_type):
    """``a`` and ``v`` checked as JAX checks them, promoted (to a float type unless
    ``preferred_element_type`` is given, as NumPy's convolutions are)."""
    if np.ndim(a) != 1 or np.ndim(v) != 1:
        raise ValueError(f'{name}() only supports 1-dimensional inputs, got shapes '
                         f'{_shape_str(np.shape(a))} and {_shape_str(np.shape(v))}')
    if not np.size(a) or not np.size(v):
        raise ValueError(f'{name}: inputs cannot be empty, got shapes '
                         f'{_shape_str(np.shape(a))} and {_shape_str(np.shape(v))}')
    if mode not in _SLIDING_PADDING:
        raise ValueError(f'{name}: mode must be one of {list(_SLIDING_PADDING)}, got {mode!r}')
    a, v = _promote(a, v)
    return (a, v) if preferred_element_type is not None else (_to_float(a), _to_float(v))


def _sliding_dot(signal, kernel, mode, precision, preferred_element_type):
    """``out[i] = sum_k signal[i + k - low] * kernel[k]`` (zero outside ``signal``): one
    ``conv_general_dilated`` over a batch of one with one feature, which computes exactly
    this (a convolution layer correlates; it does not flip its kernel)."""
    (m,), (n,) = np.shape(signal), np.shape(kernel)
    out = lax.conv_general_dilated(lax.reshape(signal, (1, 1, m)), lax.reshape(kernel, (1, 1, n)),
                                   (1,), [_SLIDING_PADDING[mode](n)], precision=precision,
                                   preferred_element_type=preferred_element_type)
    return lax.reshape(out, np.shape(out)[2:])


def convolve(a, v, mode='full', *, precision=None, preferred_element_type=None):
    """The discrete convolution ``sum_k a[k] * v[i - k]`` of 1-D ``a`` and ``v``: the
    longer one slides under the shorter one flipped (so the two commute)."""
    a, v = _sliding_operands('convolve', a, v, mode, preferred_element_type)
    if np.shape(a)[0] < np.shape(v)[0]:
        a, v = v, a
    return _sliding_dot(a, lax.rev(v, (0,)), mode, precision, preferred_element_type)


def correlate(a, v, mode='valid', *, precision=None, preferred_element_type=None):
    """The cross-correlation ``sum_k a[i + k] * v[k]`` of 1-D ``a`` and ``v`` (real dtypes,
    so no conjugate). When ``v`` is the longer one, ``a`` slides under it and the result
    comes out reversed, as NumPy's does."""
    a, v = _sliding_operands('correlate', a, v, mode, preferred_element_type)
    if np.shape(a)[0] >= np.shape(v)[0]:
        return _sliding_dot(a, v, mode, precision, preferred_element_type)
    return lax.rev(_sliding_dot(v, a, mode, precision, preferred_element_type), (0,))


def _einsum_parse(subscripts, ndims):
    """Input and output letters, one per axis; an ellipsis becomes letters not otherwise
    used (its axes aligned from the right); no ``->`` means the letters used once, sorted."""
    subscripts = subscripts.replace(' ', '')
    inputs, arrow, output = subscripts.partition('->')
    inputs = inputs.split(',')
    if len(inputs) != len(ndims):
        raise ValueError(f'einsum: {len(inputs)} operands in {subscripts!r}, got {len(ndims)}')
    spare = [c for c in 'ZYXWVUTSRQPONMLKJIHGFEDCBA' if c not in subscripts]
    ellipsis_ndim = builtins.max((n - len(s.replace('...', '')) for s, n in zip(inputs, ndims)
                                  if '...' in s), default=0)
    ellipsis = ''.join(spare[:ellipsis_ndim])
    inputs = [s.replace('...', ellipsis[ellipsis_ndim - (n - len(s) + 3):] if '...' in s else '')
              for s, n in zip(inputs, ndims)]
    if not arrow:
        letters = ''.join(inputs)
        output = ellipsis + ''.join(sorted(c for c in set(letters) - set(ellipsis)
                                           if letters.count(c) == 1))
    output = output.replace('...', ellipsis)
    for s, n in zip(inputs, ndims):
        if len(s) != n:
            raise ValueError(f'einsum: subscripts {s!r} do not fit an operand of rank {n}')
    return inputs, output


def _einsum_check(subscripts, inputs, output, shapes):
    """JAX's ValueError, naming the subscripts and the operands' shapes, for a spec that
    does not describe these operands: an output letter that no input has or that repeats,
    or one index (letter) for axes of different sizes."""
    def fail(problem):
        shown = ', '.join(map(_shape_str, shapes))
        raise ValueError(f'einsum: {problem} in subscripts {subscripts!r} for operands of '
                         f'shapes {shown}')
    for c in output:
        if c not in ''.join(inputs):
            fail(f'output letter {c!r} is in no input')
        if output.count(c) > 1:
            fail(f'output letter {c!r} is repeated')
    seen = {}  # index -> (its size, the operand where it was first seen)
    for k, (letters, shape) in enumerate(zip(inputs, shapes)):
        for c, n in zip(letters, shape):
            size, first = seen.setdefault(c, (n, k))
            if size != n:
                fail(f'index {c!r} has size {size} in one operand and {n} in another'
                     if first != k else f'index {c!r} has sizes {size} and {n} within operand {k}')


def _einsum_reduce(x, letters, keep):
    """``x`` with repeated letters turned into diagonals and letters not in ``keep``
    summed away."""
    for c in set(letters):
        while letters.count(c) > 1:
            i = letters.index(c)
            j = letters.index(c, i + 1)
            x = diagonal(x, 0, i, j)
            letters = letters[:i] + letters[i + 1:j] + letters[j + 1:] + c
    gone = [i for i, c in enumerate(letters) if c not in keep]
    if gone:
        x = lax.reduce_sum(x, gone)
        letters = ''.join(c for c in letters if c in keep)
    return x, letters


def _einsum_pair(x, xl, y, yl, keep, out_sharding=None, **product):
    """Contract ``x`` and ``y`` with one dot_general: shared letters in ``keep`` are batch
    axes, other shared letters are summed. ``out_sharding``: the einsum's (the last pair's
    result is laid out as the output, its letters in ``keep``); ``product``: the einsum's
    ``precision``, ``preferred_element_type`` and ``dot_general``."""
    shared = [c for c in xl if c in yl]
    for c in shared:
        if np.shape(x)[xl.index(c)] != np.shape(y)[yl.index(c)]:
            raise ValueError(f'einsum: index {c!r} has size {np.shape(x)[xl.index(c)]} in one '
                             f'operand and {np.shape(y)[yl.index(c)]} in another')
    batch = [c for c in shared if c in keep]
    contract = [c for c in shared if c not in keep]
    numbers = ((tuple(xl.index(c) for c in contract), tuple(yl.index(c) for c in contract)),
               (tuple(xl.index(c) for c in batch), tuple(yl.index(c) for c in batch)))
    labels = ''.join(batch) + ''.join(c for c in xl if c not in shared) + ''.join(
        c for c in yl if c not in shared)
    if out_sharding is not None:
        out_sharding = sharding_rules.canonicalize_sharding(out_sharding, 'einsum')
        spec = out_sharding.spec._normalized_spec_for_aval(len(keep)).partitions
        out_sharding = out_sharding.update(spec=[spec[keep.index(c)] for c in labels])
    return _product(x, y, numbers, out_sharding, **product), labels


def einsum_path(subscripts, /, *operands, optimize='auto'):
    """The order in which to contract ``operands`` pairwise (a list of position pairs) and
    a report of its cost: NumPy's search, as ``'auto'`` is opt_einsum's in JAX (the optimal
    order for up to 4 operands, greedy beyond); ``False``: left to right. (minijax's
    ``einsum`` itself contracts left to right.)"""
    if optimize is False:
        return [(0, 1)] * (len(operands) - 1), 'unoptimized: left to right'
    if optimize in (True, 'auto'):
        optimize = 'optimal' if len(operands) <= 4 else 'greedy'
    elif not isinstance(optimize, str):
        optimize = ['einsum_path', *optimize]
    shapes_only = (np.broadcast_to(np.zeros(()), np.shape(x)) for x in operands)  # (traced too)
    path, report = np.einsum_path(subscripts, *shapes_only, optimize=optimize)
    return path[1:], report


def einsum(subscripts, /, *operands, out=None, optimize='auto', precision=None,
           preferred_element_type=None, _dot_general=lax.dot_general, out_sharding=None):
    """Einstein summation, contracting the operands pairwise with ``dot_general`` (or
    ``_dot_general``) in the order ``einsum_path(..., optimize=optimize)`` gives (each
    pair's result goes last, as in NumPy's and opt_einsum's paths); repeated letters within
    one operand take diagonals; ``...`` is supported, without broadcasting of size-1 axes.
    The subscripts are a string, or NumPy's interleaved sublists: ``einsum(a, [0, 1], b,
    [1, 2], [0, 2])``."""
    _no_out('einsum', out)
    if not isinstance(subscripts, str):
        subscripts, operands = _sublists_as_subscripts((subscripts, *operands))
    operands = _promote(*operands)
    inputs, output = _einsum_parse(subscripts, [np.ndim(x) for x in operands])
    _einsum_check(subscripts, inputs, output, [np.shape(x) for x in operands])
    product = dict(precision=precision, preferred_element_type=preferred_element_type,
                   dot_general=_dot_general)
    path = [(0, 1)] * (len(operands) - 1)
    if len(operands) > 2 and optimize is not False:
        path, _ = einsum_path(subscripts, *operands, optimize=optimize)
    terms = list(zip(operands, inputs))
    for step, pair in enumerate(path):
        (x, xl), (y, yl) = (terms[i] for i in pair)
        terms = [t for i, t in enumerate(terms) if i not in pair]
        later = output + ''.join(letters for _, letters in terms)
        x, xl = _einsum_reduce(x, xl, later + yl)
        y, yl = _einsum_reduce(y, yl, later + xl)
        last = step == len(path) - 1
        terms.append(_einsum_pair(x, xl, y, yl, later, out_sharding if last else None,
                                  **product))
    (x, xl), = terms
    x, xl = _einsum_reduce(x, xl, output)
    out = lax.transpose(x, [xl.index(c) for c in output])
    if preferred_element_type is None:
        return out
    return lax.convert_element_type(out, dtypes.check_supported(preferred_element_type),
                                    weak_type=False)


_EINSUM_LETTERS = string.ascii_lowercase + string.ascii_uppercase


def _sublist_letters(sublist):
    """A sublist (axis numbers 0-51 and Ellipsis) as subscript letters, as NumPy numbers
    them: 0-25 are 'a'-'z', 26-51 'A'-'Z'."""
    try:
        return ''.join('...' if i is Ellipsis else _EINSUM_LETTERS[operator.index(i)]
                       for i in sublist)
    except (IndexError, TypeError):
        raise ValueError(f'einsum: a sublist holds axis numbers from 0 to 51 and Ellipsis, '
                         f'got {sublist!r}') from None


def _sublists_as_subscripts(args):
    """``(operand, sublist, operand, sublist, ..., [output sublist])`` as a subscripts
    string and the operands."""
    output = f'->{_sublist_letters(args[-1])}' if len(args) % 2 else ''
    pairs = args[:len(args) - len(args) % 2]
    inputs = ','.join(_sublist_letters(s) for s in pairs[1::2])
    return inputs + output, pairs[0::2]


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``a[..., i, i + offset]`` of the axes ``axis1`` and ``axis2``, as a new
    last axis: the two axes are moved last, cut to the square the diagonal crosses, and
    flattened, so the diagonal is every (n + 1)-th element (a strided slice)."""
    ndim = np.ndim(a)
    axis1 = core.canonicalize_axis(axis1, ndim, 'diagonal: axis1')
    axis2 = core.canonicalize_axis(axis2, ndim, 'diagonal: axis2')
    if axis1 == axis2:
        raise ValueError(f'diagonal: axis1 and axis2 are both {axis1}')
    rest = [i for i in range(ndim) if i not in (axis1, axis2)]
    a = lax.transpose(a, rest + [axis1, axis2])
    rows, cols = np.shape(a)[-2:]
    n = builtins.max(0, builtins.min(rows + builtins.min(offset, 0), cols - builtins.max(offset, 0)))
    row0, col0 = builtins.max(-offset, 0), builtins.max(offset, 0)
    lead = list(np.shape(a)[:-2])
    a = lax.slice(a, [0] * len(lead) + [row0, col0], lead + [row0 + n, col0 + n])
    flat = lax.reshape(a, lead + [n * n])
    return lax.slice_in_dim(flat, 0, n * n, n + 1, axis=len(lead)) if n else flat


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum of the diagonal (in ``dtype``, or as ``sum`` accumulates)."""
    _no_out('trace', out)
    return sum(diagonal(a, offset, axis1, axis2), -1, dtype=dtype)


def _tri(dtype, shape, k):
    """``lax._tri``: ones at and below the ``k``-th diagonal, ``iota_0 + k >= iota_1`` in
    the offset's dtype, converted to ``dtype``."""
    offset = asarray(k)
    index_dtype = core.get_aval(offset).dtype
    mask = lax.ge(lax.add(lax.broadcasted_iota(index_dtype, shape, 0), offset),
                  lax.broadcasted_iota(index_dtype, shape, 1))
    return lax.convert_element_type(mask, dtype)


def _triangle(name, m, k, lower):
    """``m`` (its last two axes: JAX refuses fewer) zeroed above (``lower``) or below the
    ``k``-th diagonal, as JAX selects it."""
    m = asarray(m)
    if np.ndim(m) < 2:
        raise ValueError(f'{name}: the argument must have 2 axes or more, got shape '
                         f'{_shape_str(np.shape(m))}')
    mask = tri(*np.shape(m)[-2:], k=k if lower else k - 1, dtype=bool)
    which = lax.broadcast(mask, np.shape(m)[:-2])
    return lax.select(which, m, zeros_like(m)) if lower else \
        lax.select(which, zeros_like(m), m)


def tril(m, k=0):
    """``m`` (its last two axes) with the elements above the ``k``-th diagonal zeroed."""
    return _triangle('tril', m, k, lower=True)


def triu(m, k=0):
    """``m`` (its last two axes) with the elements below the ``k``-th diagonal zeroed."""
    return _triangle('triu', m, k, lower=False)


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """The (N, M) matrix with ones on the ``k``-th diagonal (on ``device``)."""
    if not isinstance(k, (int, np.integer)):
        raise ValueError(f'eye: k must be a scalar integer, got {k!r}')  # JAX's class
    if N < 0 or (M or 0) < 0:
        raise ValueError(f'eye: negative dimensions are not allowed, got N={N}, M={M}')
    offset = asarray(k)  # (JAX's: the row index plus the offset equals the column's)
    shape = (N, N if M is None else M)
    i = lax.broadcasted_iota(core.get_aval(offset).dtype, shape, 0)
    j = lax.broadcasted_iota(core.get_aval(offset).dtype, shape, 1)
    dtype = dtypes.check_supported(dtype or float64)
    return _placed(lax.convert_element_type(i + offset == j, dtype), device)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """The (N, M) matrix of ones at and below the ``k``-th diagonal."""
    dtype = np.float32 if dtype is None else dtype  # (JAX's default, not the default float)
    return _tri(dtypes.check_supported(dtype), (N, N if M is None else M), k)


def diag(v, k=0):
    """The ``k``-th diagonal of a matrix ``v``, or the matrix with the vector ``v`` on its
    ``k``-th diagonal (JAX's jit ``_diag``)."""
    return _diag(asarray(v), operator.index(k))


def _diag(v, k):
    if np.ndim(v) == 2:
        return diagonal(v, k)
    if np.ndim(v) != 1:
        raise ValueError(f'diag needs a 1-D or 2-D array, got shape {_shape_str(np.shape(v))}')
    zero = np.zeros((), core.get_aval(v).dtype)
    n = np.shape(v)[0] + builtins.abs(k)
    v = lax.pad(v, zero, ((builtins.max(0, -k), builtins.max(0, k), 0),))
    return where(eye(n, k=k, dtype=bool), v[:, None], zero)


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """The vector norm (``axis`` an int, or None for a 1-D ``x``) or matrix norm (two
    axes, or None for a 2-D ``x``) of ``ord``, as ``jnp.linalg.norm`` (JAX's ``jit`` named
    ``norm``, its formulas); the matrix norms 2, -2 and 'nuc' from the singular values."""
    x = _to_float(asarray(x))
    ndim = np.ndim(x)
    if axis is None:
        if ord is None:  # (any rank, as NumPy)
            return sqrt(sum(real(x * conj(x)), keepdims=keepdims))
        axis = tuple(range(ndim))
    _axes('norm', x, axis)  # (checked; sorted, where a matrix norm needs the order given)
    axes = tuple(_axis_list('norm: axis', axis, ndim))
    if len(axes) == 1:
        return _vector_norm(x, 2 if ord is None else ord, axes, keepdims)
    if len(axes) != 2:
        raise ValueError(f'norm: axis {axis} must name one or two axes')
    row, col = axes
    if ord is None or ord in ('f', 'fro'):
        return sqrt(sum(real(x * conj(x)), axis=axes, keepdims=keepdims))
    if ord in _SINGULAR_VALUE_NORMS:
        s = lax.linalg.svd(moveaxis(x, axes, (-2, -1)), compute_uv=False)
        out = _SINGULAR_VALUE_NORMS[ord](s)
        return expand_dims(out, axes) if keepdims else out
    if ord not in (1, -1, np.inf, -np.inf):
        raise ValueError(f"norm: ord={ord!r} is not a matrix norm (use 'fro', 'nuc', 1, -1, "
                         '2, -2, inf or -inf)')
    summed, chosen = (row, col) if ord in (1, -1) else (col, row)
    if not keepdims and chosen > summed:
        chosen -= 1
    sums = sum(abs(x), axis=summed, keepdims=keepdims)
    if ord > 0:
        return max(sums, axis=chosen, keepdims=keepdims, initial=0)
    return min(sums, axis=chosen, keepdims=keepdims)


_norm.__name__ = _norm.__qualname__ = 'norm'  # the name of JAX's jit

#: matrix norm -> its reduction of the singular values (along the last axis)
_SINGULAR_VALUE_NORMS = {2: lambda s: max(s, axis=-1, initial=0),
                         -2: lambda s: min(s, axis=-1), 'nuc': lambda s: sum(s, axis=-1)}


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    """The vector norm ``ord`` over ``axis`` (an axis, a tuple of them, or all of ``x``),
    JAX's formulas (``jnp.linalg.vector_norm``)."""
    if ord is None or ord == 2:
        return sqrt(sum(real(x * conj(x)), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return max(abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return min(abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(x != 0, dtype=dtypes.finfo(core.get_aval(x).dtype).dtype, axis=axis,
                   keepdims=keepdims)
    if ord == 1:
        return sum(abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        hint = {'inf': "Use 'jax.numpy.inf' instead.", '-inf': "Use '-jax.numpy.inf' instead."}
        raise ValueError(f"Invalid order '{ord}' for vector norm.{hint.get(ord, '')}")
    abs_x = abs(x)
    dtype = core.get_aval(abs_x).dtype
    out = sum(abs_x ** np.asarray(ord, dtype), axis=axis, keepdims=keepdims)
    return power(out, np.asarray(1.0 / np.asarray(ord, dtype), dtype))
