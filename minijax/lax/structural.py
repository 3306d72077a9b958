"""Primitives that move, replicate or create data: broadcast_in_dim, transpose, reshape,
concatenate, pad, iota, empty and rev.

All but iota and empty are linear, so each has a transpose rule: the transpose of a data
movement moves the cotangent back (and sums where the forward pass replicated).
"""
from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lax
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import axis_size_of, moveaxis, not_mapped
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.static import (canonical_axes, default_options_only, static_int, static_ints,
                                static_ints_as_given)
from minijax.array import Array, scalar
from minijax.lowering import register_lowering, tensor_type
from minijax.lowering import ops as hlo_ops
from minijax.lowering.ops import broadcast_in_dim as hlo_broadcast_in_dim
from minijax.sharding import rules as sharding_rules


def _shape_str(shape):
    return f'({", ".join(map(str, shape))}{"," if len(shape) == 1 else ""})'


# ----------------------------------------------------------------------------- broadcast_in_dim

broadcast_in_dim_p = Primitive('broadcast_in_dim')


def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
    """``operand`` replicated to ``shape``: operand axis i becomes result axis
    ``broadcast_dimensions[i]`` (and may grow from size 1); the other result axes are new.
    An array or tracer of that shape already is the result, no equation (as in JAX)."""
    sharding = sharding_rules.sharding_param('sharding', out_sharding, 'broadcast_in_dim')
    shape = core.canonicalize_shape(shape, 'broadcast_in_dim')
    static_ints(broadcast_dimensions, 'broadcast_in_dim', 'broadcast_dimensions')
    broadcast_dimensions = tuple(broadcast_dimensions)  # (NumPy's ints kept, as JAX keeps them)
    if (isinstance(operand, (Array, core.Tracer)) and np.shape(operand) == shape
            and broadcast_dimensions == tuple(range(len(shape)))
            and sharding.get('sharding', operand.aval._sharding) == operand.aval._sharding):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=broadcast_dimensions,
                                   **sharding)


def broadcast(operand, sizes, *, out_sharding=None):
    """``operand`` replicated along new leading axes of ``sizes`` (JAX's ``lax.broadcast``;
    Autodidax's ``broadcast(x, shape, axes)`` is ``broadcast_in_dim`` with the other axes)."""
    sizes = core.canonicalize_shape(sizes, 'broadcast')
    ndim = np.ndim(operand)
    return broadcast_in_dim(operand, sizes + np.shape(operand),
                            range(len(sizes), len(sizes) + ndim), out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, sharding=None, weak_type=False):
    """An array of ``shape`` filled with ``fill_value``: a broadcast scalar, not a big constant
    (weakly typed with ``weak_type``, a minijax option, as a Python scalar is). Without
    ``dtype``, the fill value's dtype and weak type."""
    fill_aval = core.get_aval(fill_value)
    if fill_aval.shape:
        raise TypeError(f'full must be called with scalar fill_value, got fill_value.shape '
                        f'{fill_aval.shape}')
    if dtype is None:
        dtype, weak_type = fill_aval.dtype, fill_aval.weak_type
    fill = scalar(fill_value, dtypes.check_supported(dtype, 'full'), weak_type)
    staged = core.staged_constant(fill) if shape == () else None  # no broadcast to (), as JAX
    return broadcast_in_dim(fill, shape, (), out_sharding=sharding) if staged is None else \
        staged


def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions, sharding=None):
    dims = broadcast_dimensions
    ok = (len(dims) == x.ndim and list(dims) == sorted(set(dims))
          and all(0 <= d < len(shape) for d in dims)
          and all(n in (1, shape[d]) for n, d in zip(x.shape, dims)))
    if not ok:
        raise TypeError(f'broadcast_in_dim: operand {x.str_short()} cannot be broadcast to shape '
                        f'{_shape_str(shape)} with broadcast_dimensions={dims}')
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding=None):
    expanded = [1] * len(shape)
    for n, d in zip(np.shape(x), broadcast_dimensions):
        expanded[d] = n
    return np.broadcast_to(np.reshape(x, expanded), shape)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    """Sum over the new axes and over the axes that grew from size 1."""
    dims = broadcast_dimensions
    grown = [d for n, d in zip(x.aval.shape, dims) if n == 1 and shape[d] != 1]
    new = [a for a in range(len(shape)) if a not in dims]
    summed = lax.reduce_sum(ct, new + grown) if new or grown else ct
    return [reshape(summed, x.aval.shape) if grown else summed]


def _broadcast_in_dim_batching(vals, dims, *, shape, broadcast_dimensions, sharding=None):
    (x,), (bdim,) = vals, dims
    x = moveaxis(x, bdim, 0)
    size = core.get_aval(x).shape[0]
    if sharding is not None:  # the batch axis unsharded
        sharding = sharding.update(spec=(None, *sharding.spec.partitions))
    return broadcast_in_dim(x, (size, *shape), (0, *np.add(1, broadcast_dimensions)),
                            out_sharding=sharding), 0


broadcast_in_dim_p.def_impl(_broadcast_in_dim_impl)
broadcast_in_dim_p.def_abstract_eval(_broadcast_in_dim_abstract_eval)
ad.defjvp_linear(broadcast_in_dim_p)
broadcast_in_dim_p.def_transpose(_broadcast_in_dim_transpose)
broadcast_in_dim_p.def_batching(_broadcast_in_dim_batching)
register_lowering(broadcast_in_dim_p, lambda ctx, x, *, shape, broadcast_dimensions, **_:
                  hlo_broadcast_in_dim(x, ctx.avals_out[0], broadcast_dimensions))

# ----------------------------------------------------------------------------- transpose

transpose_p = Primitive('transpose')


def transpose(operand, permutation):
    """Permute the axes of ``operand``: result axis i is operand axis ``permutation[i]``. The
    identity permutation of an Array or a tracer is ``operand`` itself, as in JAX: no equation
    (a ``dot_general``'s transpose often asks for one)."""
    perm = static_ints(permutation, 'transpose', 'permutation')
    if perm == tuple(range(np.ndim(operand))) and isinstance(operand, (Array, core.Tracer)):
        return operand
    return transpose_p.bind(operand, perm=perm)


def _transpose_abstract_eval(x, *, perm):
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f'transpose: perm {perm} is not a permutation of the axes of '
                        f'{x.str_short()}')
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)


def _transpose_batching(vals, dims, *, perm):
    """One transpose that also brings the batch axis to the front."""
    (x,), (bdim,) = vals, dims
    return transpose(x, (bdim, *(p if p < bdim else p + 1 for p in perm))), 0


transpose_p.def_impl(lambda x, *, perm: np.transpose(x, perm))
transpose_p.def_abstract_eval(_transpose_abstract_eval)
ad.defjvp_linear(transpose_p)
transpose_p.def_transpose(lambda ct, x, *, perm: [transpose(ct, np.argsort(perm))])
transpose_p.def_batching(_transpose_batching)
register_lowering(transpose_p, lambda ctx, x, *, perm: hlo.TransposeOp(x, list(perm)).result)

# ----------------------------------------------------------------------------- reshape

reshape_p = Primitive('reshape')


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """The elements of ``operand`` in row-major order, laid out as ``new_sizes``; with
    ``dimensions``, in the order of ``transpose(operand, dimensions)``: one equation, whose
    ``dimensions`` parameter is JAX's (set only when it permutes the axes). An array or
    tracer (not a scalar) that already has that shape and layout is returned as it is, with
    no equation, as JAX does."""
    params = sharding_rules.sharding_param('sharding', out_sharding, 'reshape')
    if dimensions is not None:
        dims = static_ints(dimensions, 'reshape', 'dimensions')
        if sorted(dims) != list(range(np.ndim(operand))):  # (JAX's text)
            raise TypeError('reshape dimensions must be a permutation of operand dimensions, '
                            f'got dimensions {dims} for shape {np.shape(operand)}.')
        if dims != tuple(range(len(dims))):
            params['dimensions'] = dims
    new_sizes = core.canonicalize_shape(new_sizes, 'reshape')
    if (np.shape(operand) and tuple(np.shape(operand)) == new_sizes and not params
            and isinstance(operand, (Array, core.Tracer))):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, **params)


squeeze_p = Primitive('squeeze')


def squeeze(array, dimensions):
    """``array`` without the size-1 axes ``dimensions``; an array (not a NumPy value)
    without any is returned as it is, staging nothing, as in JAX."""
    dims = core.canonicalize_axes(dimensions, np.ndim(array), 'squeeze: axis')
    if not dims and isinstance(array, (Array, core.Tracer)):
        return array
    return squeeze_p.bind(array, dimensions=tuple(sorted(dims)))


def _squeeze_abstract_eval(x, *, dimensions):
    if any(x.shape[d] != 1 for d in dimensions):
        raise ValueError(f'squeeze: axes {list(dimensions)} of shape {_shape_str(x.shape)} are '
                         'not all of size 1')
    return ShapedArray([n for i, n in enumerate(x.shape) if i not in dimensions], x.dtype,
                       x.weak_type)


def _squeeze_batching(vals, dims, *, dimensions):
    """The batch axis moved first, the squeezed axes one further (as JAX batches it)."""
    (x,), (bdim,) = vals, dims
    return squeeze(moveaxis(x, bdim, 0), [d + 1 for d in dimensions]), 0


squeeze_p.def_impl(lambda x, *, dimensions: np.squeeze(np.asarray(x), dimensions))
squeeze_p.def_abstract_eval(_squeeze_abstract_eval)
ad.defjvp_linear(squeeze_p)
squeeze_p.def_transpose(lambda ct, x, *, dimensions: [expand_dims(ct, dimensions)])
squeeze_p.def_batching(_squeeze_batching)
register_lowering(squeeze_p, lambda ctx, x, *, dimensions:
                  hlo.ReshapeOp(tensor_type(ctx.avals_out[0]), x).result)


def expand_dims(array, dimensions):
    """``array`` with new size-1 axes at result positions ``dimensions``: a
    ``broadcast_in_dim``, as JAX writes it."""
    shape = list(core.get_aval(array).shape)
    dimensions = tuple(dimensions) if np.iterable(dimensions) else (dimensions,)
    ndim = len(shape) + len(dimensions)
    new = core.canonicalize_axes(dimensions, ndim, 'expand_dims: axis')
    kept = [d for d in range(ndim) if d not in new]
    for d in new:
        shape.insert(d, 1)
    return broadcast_in_dim(array, shape, kept)


def _reshape_abstract_eval(x, *, new_sizes, dimensions=None, sharding=None):
    if any(d < 0 for d in new_sizes) or math.prod(new_sizes) != x.size:
        raise TypeError(f'reshape: cannot reshape {x.str_short()} ({x.size} elements) to '
                        f'shape {_shape_str(new_sizes)}')
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_batching(vals, dims, *, new_sizes, dimensions=None, sharding=None):
    (x,), (bdim,) = vals, dims
    x = moveaxis(x, bdim, 0)
    if dimensions is not None:
        dimensions = (0, *(d + 1 for d in dimensions))
    return reshape(x, (core.get_aval(x).shape[0], *new_sizes), dimensions), 0


def _reshape_transpose(ct, x, *, new_sizes, dimensions=None, sharding=None):
    if dimensions is None:
        return [reshape(ct, x.aval.shape, out_sharding=x.aval._sharding)]
    permuted = reshape(ct, tuple(x.aval.shape[d] for d in dimensions))
    return [transpose(permuted, np.argsort(dimensions))]


def _reshape_lowering(ctx, x, *, new_sizes, dimensions=None, sharding=None):
    if dimensions is not None:
        x = hlo.TransposeOp(x, list(dimensions)).result
    return hlo.ReshapeOp(tensor_type(ctx.avals_out[0]), x).result


reshape_p.def_impl(lambda x, *, new_sizes, dimensions=None, sharding=None: np.reshape(
    np.asarray(x) if dimensions is None else np.transpose(x, dimensions), new_sizes))
reshape_p.def_abstract_eval(_reshape_abstract_eval)
ad.defjvp_linear(reshape_p)
reshape_p.def_transpose(_reshape_transpose)
reshape_p.def_batching(_reshape_batching)
register_lowering(reshape_p, _reshape_lowering)

# ----------------------------------------------------------------------------- concatenate

concatenate_p = Primitive('concatenate')


def concatenate(operands, dimension):
    """The ``operands`` joined along axis ``dimension`` (their other axes must agree). One
    Array or tracer is itself, as in JAX: no equation."""
    if not operands:
        raise ValueError('concatenate needs at least one operand, got none')
    if len(operands) == 1 and isinstance(operands[0], (Array, core.Tracer)):
        return operands[0]
    (dimension,) = canonical_axes(static_int(dimension, 'concatenate', 'dimension'),
                                  np.ndim(operands[0]), 'concatenate: dimension', TypeError)
    return concatenate_p.bind(*operands, dimension=dimension)


def _concatenate_abstract_eval(*avals, dimension):
    first = avals[0] if avals else None

    def others(a):
        return a.shape[:dimension] + a.shape[dimension + 1:]

    if (first is None or not 0 <= dimension < first.ndim
            or any(a.dtype != first.dtype or a.ndim != first.ndim or others(a) != others(first)
                   for a in avals)):
        raise TypeError(f'concatenate along axis {dimension}: incompatible operands '
                        f'{", ".join(a.str_short() for a in avals)}')
    shape = list(first.shape)
    shape[dimension] = sum(a.shape[dimension] for a in avals)
    return ShapedArray(shape, first.dtype, all(a.weak_type for a in avals))


def _concatenate_transpose(ct, *operands, dimension):
    cts, start = [], 0
    for x in operands:
        size = (x.aval if is_undefined_primal(x) else core.get_aval(x)).shape[dimension]
        if is_undefined_primal(x):
            cts.append(lax.slice_in_dim(ct, start, start + size, axis=dimension))
        else:
            cts.append(None)
        start += size
    return cts


def _concatenate_batching(vals, dims, *, dimension):
    size = axis_size_of(vals, dims)
    moved = [broadcast(x, (size,)) if d is not_mapped else moveaxis(x, d, 0)
             for x, d in zip(vals, dims)]
    return concatenate(moved, dimension + 1), 0


concatenate_p.def_impl(lambda *xs, dimension: np.concatenate(xs, dimension))
concatenate_p.def_abstract_eval(_concatenate_abstract_eval)
ad.defjvp_linear(concatenate_p)
concatenate_p.def_transpose(_concatenate_transpose)
concatenate_p.def_batching(_concatenate_batching)
register_lowering(concatenate_p, lambda ctx, *xs, dimension:
                  hlo_ops.concatenate(list(xs), dimension))

# ----------------------------------------------------------------------------- pad

pad_p = Primitive('pad')


def pad(operand, padding_value, padding_config):
    """``operand`` padded with the scalar ``padding_value``: ``padding_config`` has one
    ``(low, high, interior)`` per axis; negative low/high crop, interior goes between elements."""
    config = tuple(static_ints_as_given(triple, 'pad', 'padding_config')
                   for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


def _padded_size(n, lo, hi, interior):
    return lo + hi + n + max(n - 1, 0) * interior


def _pad_abstract_eval(x, padding_value, *, padding_config):
    """JAX's TypeError for a padding value of another dtype, its ValueError for the shapes."""
    if padding_value.shape or padding_value.dtype != x.dtype:
        raise (ValueError if padding_value.shape else TypeError)(
            f'pad: padding value {padding_value.str_short()} must be a scalar of the dtype of '
            f'the operand {x.str_short()}')
    fits = (len(padding_config) == x.ndim and all(len(c) == 3 for c in padding_config)
            and all(c[2] >= 0 for c in padding_config))
    shape = [_padded_size(n, *c) for n, c in zip(x.shape, padding_config)] if fits else []
    if not fits or any(n < 0 for n in shape):
        raise ValueError(f'pad: padding_config {padding_config} does not fit {x.str_short()}: '
                         'one (low, high, interior >= 0) per axis, leaving no axis negative')
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_impl(x, padding_value, *, padding_config):
    """Pad with the non-negative parts of low/high, then crop the negative ones."""
    x = np.asarray(x)
    grown = [(max(lo, 0), max(hi, 0), interior) for lo, hi, interior in padding_config]
    out = np.full([_padded_size(n, *c) for n, c in zip(x.shape, grown)], padding_value, x.dtype)
    out[tuple(slice(lo, lo + _padded_size(n, 0, 0, interior), interior + 1)
              for n, (lo, _, interior) in zip(x.shape, grown))] = x
    return out[tuple(slice(-min(lo, 0), n + min(hi, 0))
                     for n, (lo, hi, _) in zip(out.shape, padding_config))]


def _pad_transpose(ct, x, padding_value, *, padding_config):
    """The operand's cotangent is ``ct`` with the padding cut away (a strided slice); the
    padding value's is the sum of the rest."""
    def unpadded(ct):
        uncropped = pad(ct, np.zeros((), core.get_aval(ct).dtype),
                        [(-lo, -hi, 0) for lo, hi, _ in padding_config])
        shape = core.get_aval(uncropped).shape
        return lax.slice(uncropped, [0] * len(shape), shape,
                         [interior + 1 for _, _, interior in padding_config])

    ct_x = unpadded(ct) if is_undefined_primal(x) else None
    ct_value = None
    if is_undefined_primal(padding_value):
        inside = unpadded(ct) if ct_x is None else ct_x
        ct_value = lax.sub(lax.reduce_sum(ct), lax.reduce_sum(inside))
    return [ct_x, ct_value]


def _pad_batching(vals, dims, *, padding_config):
    """A batched operand gains an unpadded axis; a batched padding value is selected in with a
    mask of where the operand landed."""
    (x, padding_value), (x_dim, value_dim) = vals, dims
    if x_dim is not_mapped:
        x, x_dim = broadcast(x, (axis_size_of(vals, dims),)), 0
    config = list(padding_config)
    config.insert(x_dim, (0, 0, 0))
    if value_dim is not_mapped:
        return pad(x, padding_value, config), x_dim
    aval = core.get_aval(x)
    padded = pad(x, np.zeros((), aval.dtype), config)
    mask = pad(full(aval.shape, True, dtypes.bool_), np.array(False), config)
    shape = core.get_aval(padded).shape
    values = broadcast_in_dim(padding_value, shape, (x_dim,))
    return lax.select_n(mask, values, padded), x_dim


pad_p.def_impl(_pad_impl)
pad_p.def_abstract_eval(_pad_abstract_eval)
ad.defjvp_linear(pad_p)
pad_p.def_transpose(_pad_transpose)
pad_p.def_batching(_pad_batching)
register_lowering(pad_p, lambda ctx, x, padding_value, *, padding_config: hlo.PadOp(
    x, padding_value, *([c[i] for c in padding_config] for i in range(3))).result)

# ----------------------------------------------------------------------------- iota

iota_p = Primitive('iota')


def iota(dtype, size):
    """``0, 1, ..., size - 1``."""
    return broadcasted_iota(dtype, (static_int(size, 'iota', 'size'),), 0)


def broadcasted_iota(dtype, shape, dimension, *, out_sharding=None):
    """An array of ``shape`` counting 0, 1, 2, ... along axis ``dimension``."""
    shape = core.canonicalize_shape(shape, 'iota')
    return iota_p.bind(dtype=dtypes.check_supported(dtype, 'iota'), shape=shape,
                       dimension=core.canonicalize_axis(dimension, len(shape), 'iota: dimension'),
                       **sharding_rules.sharding_param('sharding', out_sharding, 'iota'))


def _iota_abstract_eval(*, dtype, shape, dimension, sharding=None):
    if not 0 <= dimension < len(shape) or dtype == dtypes.bool_:
        raise TypeError(f'iota: cannot count along axis {dimension} of a {dtype.name} array '
                        f'of shape {_shape_str(shape)}')
    return ShapedArray(shape, dtype)


def _iota_impl(*, dtype, shape, dimension, sharding=None):
    counts = np.arange(shape[dimension], dtype=dtype)
    return np.array(_broadcast_in_dim_impl(counts, shape=shape,
                                           broadcast_dimensions=(dimension,)))


iota_p.def_impl(_iota_impl)
iota_p.def_abstract_eval(_iota_abstract_eval)
# iota has no operands: no transformation ever sees it with a tracer, so it needs no jvp,
# transpose or batching rule.
register_lowering(iota_p, lambda ctx, *, dtype, shape, dimension, sharding=None:
                  hlo.IotaOp(tensor_type(ctx.avals_out[0]), dimension).result)

# ----------------------------------------------------------------------------- empty

empty_p = Primitive('empty')


def empty(shape, dtype, *, out_sharding=None):
    """An array whose values do not matter (XLA is free to leave it uninitialized): zeros,
    as XLA writes it on the CPU. ``dtype`` is kept as given, as JAX prints it."""
    default_options_only('empty', out_sharding=out_sharding)
    dtypes.check_supported(dtype, 'empty')
    return empty_p.bind(shape=core.canonicalize_shape(shape, 'empty'), dtype=dtype,
                        out_sharding=None)


empty_p.def_impl(lambda *, shape, dtype, out_sharding: np.zeros(shape, np.dtype(dtype)))
empty_p.def_abstract_eval(lambda *, shape, dtype, out_sharding:
                          ShapedArray(shape, dtypes.check_supported(dtype)))
# no operands either, as iota: no jvp, transpose or batching rule.
register_lowering(empty_p, lambda ctx, **params: hlo_ops.full_like_aval(0, ctx.avals_out[0]))

# ----------------------------------------------------------------------------- rev

rev_p = Primitive('rev')


def rev(operand, dimensions):
    """``operand`` with the order of its elements reversed along each axis in ``dimensions``
    (the kernel flip in the transpose of a convolution)."""
    axes = canonical_axes(dimensions, np.ndim(operand), 'rev: dimensions', TypeError)
    return rev_p.bind(operand, dimensions=axes)


def _rev_abstract_eval(x, *, dimensions):
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise TypeError(f'rev: dimensions {dimensions} are not distinct axes of {x.str_short()}')
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _rev_batching(vals, dims, *, dimensions):
    (x,), (bdim,) = vals, dims
    return rev(x, tuple(d + (d >= bdim) for d in dimensions)), bdim


rev_p.def_impl(lambda x, *, dimensions: np.flip(np.asarray(x), dimensions).copy())
rev_p.def_abstract_eval(_rev_abstract_eval)
ad.defjvp_linear(rev_p)
rev_p.def_transpose(lambda ct, x, *, dimensions: [rev(ct, dimensions)])
rev_p.def_batching(_rev_batching)
register_lowering(rev_p, lambda ctx, x, *, dimensions:
                  hlo.ReverseOp(x, list(dimensions)).result)
