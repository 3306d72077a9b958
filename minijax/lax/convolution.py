"""``conv_general_dilated``: the convolution primitive (``stablehlo.convolution``), and its
wrappers ``conv`` and ``conv_with_general_padding``.

A convolution slides a kernel window over the spatial axes of ``lhs`` exactly as
``reduce_window`` does (``minijax.lax.windowed``: strides, padding, ``lhs_dilation`` for the
base and ``rhs_dilation`` for the window), and at each position contracts the window with
the kernel over the input features. ``dimension_numbers`` say where each role sits:
``lhs_spec = (batch, feature, *spatial)``, ``rhs_spec = (out_feature, in_feature,
*spatial)``, ``out_spec = (batch, feature, *spatial)``, each an axis index, or strings such
as ``('NHWC', 'HWIO', 'NHWC')``. Groups split contiguous blocks of axes, the group index
outer (as StableHLO's ``split``): with ``feature_group_count = G`` the input features and the
kernel's output features form G blocks, block g of the output reading only block g of the
input; with ``batch_group_count = B`` it is the batch that forms B blocks, each feeding one
block of output features (the weight gradient of a grouped convolution).

The transposes are convolutions too: the lhs cotangent convolves the output cotangent with
the spatially flipped kernel, strides and lhs dilation trading places; the rhs cotangent
convolves ``lhs`` with the output cotangent as the kernel, the batch axis now contracted.
"""
from __future__ import annotations

import operator
from typing import NamedTuple, Union

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.complex_numbers import complex, imag, real
from minijax.lax.elementwise import add, sub
from minijax.lax.precision import canonicalize_precision
from minijax.lax.static import default_options_only, static_ints
from minijax.lax.structural import full, reshape, rev
from minijax.lax.windowed import (
    dilate_and_pad, dilate_shape, padding_pairs, padtype_to_pads, transpose_padding,
    window_offset_slice, window_offsets, window_output_shape)
from minijax.lowering import lower_fun, register_lowering, tensor_type
from minijax.lowering.ops import precision_config


class ConvDimensionNumbers(NamedTuple):
    """Where the roles sit: ``lhs_spec = (batch, feature, *spatial)``, ``rhs_spec =
    (out_feature, in_feature, *spatial)``, ``out_spec = (batch, feature, *spatial)``."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


#: What ``dimension_numbers`` may be: layout names (``('NHWC', 'HWIO', 'NHWC')``), the axis
#: numbers themselves, or None (``NCHW``, ``OIHW``, ``NCHW``).
ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]

conv_general_dilated_p = Primitive('conv_general_dilated', eager_on_xla=True)

# ----------------------------------------------------------------------------- the public API


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, three strings, or three sequences of axes) as a
    ``ConvDimensionNumbers``. None means ``('NC...', 'OI...', 'NC...')``; with strings, the
    spatial axes are matched by letter, in the order the kernel's string lists them."""
    rank = len(lhs_shape)
    if len(rhs_shape) != rank or rank < 2:
        raise TypeError(f'conv_general_dilated: lhs shape {tuple(lhs_shape)} and rhs shape '
                        f'{tuple(rhs_shape)} need one rank, at least 2')
    if dimension_numbers is None:
        return ConvDimensionNumbers(*[tuple(range(rank))] * 3)
    if len(dimension_numbers) != 3:
        raise TypeError('conv_general_dilated: dimension_numbers must be (lhs_spec, rhs_spec, '
                        f'out_spec), got {dimension_numbers!r}')
    if all(isinstance(spec, str) for spec in dimension_numbers):
        return _from_strings(*dimension_numbers, rank)
    try:
        specs = [tuple(operator.index(a) for a in spec) for spec in dimension_numbers]
    except TypeError:
        raise TypeError('conv_general_dilated: dimension_numbers must be three strings or '
                        f'three sequences of axes, got {dimension_numbers!r}') from None
    return ConvDimensionNumbers(*specs)


def _from_strings(lhs, rhs, out, rank):
    spatial = [c for c in rhs if c not in 'OI']
    ok = (all(len(s) == rank for s in (lhs, rhs, out))
          and sorted(rhs) == sorted('OI' + ''.join(spatial))
          and all(sorted(s) == sorted('NC' + ''.join(spatial)) for s in (lhs, out)))
    if not ok:
        raise TypeError(f'conv_general_dilated: dimension_numbers {(lhs, rhs, out)} must name '
                        f"the same spatial axes, with N and C in lhs and out and O and I in rhs, "
                        f'one letter per axis of the rank-{rank} operands')
    return ConvDimensionNumbers(*[tuple(s.index(c) for c in roles + ''.join(spatial))
                                  for s, roles in ((lhs, 'NC'), (rhs, 'OI'), (out, 'NC'))])


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """The general convolution, as ``jax.lax.conv_general_dilated``. ``padding`` is 'VALID',
    'SAME', 'SAME_LOWER' or a (low, high) pair per spatial axis; ``precision`` (a
    ``lax.Precision``) is written on the op, which only the accelerators heed."""
    default_options_only('conv_general_dilated', out_sharding=out_sharding)
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    numbers = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    _check_preferred_element_type(lhs, preferred_element_type)
    n_spatial = len(lhs_shape) - 2
    window_strides, lhs_dilation, rhs_dilation, (feature_group_count, batch_group_count) = (
        static_ints((1,) * n_spatial if values is None else values, 'conv_general_dilated',
                    what, integral_floats=True)
        for what, values in [('window_strides', window_strides), ('lhs_dilation', lhs_dilation),
                             ('rhs_dilation', rhs_dilation),
                             ('group counts', (feature_group_count, batch_group_count))])
    if isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError(f'conv_general_dilated: padding {padding!r} is not defined with '
                         f'lhs_dilation={lhs_dilation}: give (low, high) pairs')
    if not isinstance(padding, str):
        padding = padding_pairs(padding, 'conv_general_dilated', ValueError)
    elif _padding_computable(numbers, lhs_shape, window_strides, rhs_dilation):
        kernel = dilate_shape([rhs_shape[a] for a in numbers.rhs_spec[2:]], rhs_dilation)
        padding = padtype_to_pads([lhs_shape[a] for a in numbers.lhs_spec[2:]], kernel,
                                  window_strides, padding)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=numbers,
        feature_group_count=feature_group_count, batch_group_count=batch_group_count,
        precision=canonicalize_precision(precision))


def _padding_computable(numbers, lhs_shape, window_strides, rhs_dilation):
    """Whether the specs are permutations and the strides and dilations fit, so that string
    padding can be worked out (the abstract eval reports the error otherwise)."""
    n_spatial = len(lhs_shape) - 2
    return (all(sorted(spec) == list(range(len(lhs_shape))) for spec in numbers)
            and all(len(p) == n_spatial and min(p, default=1) > 0
                    for p in (window_strides, rhs_dilation)))


def _check_preferred_element_type(lhs, preferred_element_type):
    dtype = core.get_aval(lhs).dtype
    if preferred_element_type is None:
        return
    if np.dtype(preferred_element_type).itemsize < dtype.itemsize:
        raise TypeError(f'conv_general_dilated: preferred_element_type '
                        f'{np.dtype(preferred_element_type)} is narrower than the operand dtype '
                        f'{dtype}')
    if np.dtype(preferred_element_type) != dtype:
        raise NotImplementedError(f'conv_general_dilated: preferred_element_type '
                                  f'{np.dtype(preferred_element_type)} differs from the operand '
                                  f'dtype {dtype}; minijax accumulates in the operand dtype')


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in the NC.../OI... layout, without dilation or groups."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in the NC.../OI... layout, without groups."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                precision=precision,
                                preferred_element_type=preferred_element_type)

# ----------------------------------------------------------------------------- impl, abstract eval


def _in_roles(shape, spec):
    """``shape`` reordered as ``spec`` lists the roles: (batch, feature, *spatial) or
    (out_feature, in_feature, *spatial)."""
    return tuple(shape[a] for a in spec)


def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision):
    _check_conv(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    (batch, _, *spatial), (out_features, _, *kernel) = (_in_roles(lhs.shape, lhs_spec),
                                                        _in_roles(rhs.shape, rhs_spec))
    roles = (batch // batch_group_count, out_features,
             *window_output_shape(spatial, kernel, window_strides, padding, lhs_dilation,
                                  rhs_dilation))
    shape = [0] * lhs.ndim
    for axis, size in zip(out_spec, roles):
        shape[axis] = size
    return ShapedArray(shape, lhs.dtype, lhs.weak_type and rhs.weak_type)


def _check_conv(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count):
    """An error naming the operands and the offending parameters unless they fit: JAX's
    TypeError for the types, ranks and dilations, its ValueError for the sizes, strides and
    groups (a few of which JAX leaves to the StableHLO verifier)."""
    def fail(why, error=ValueError):
        raise error(f'conv_general_dilated: cannot convolve {lhs.str_short()} with '
                    f'{rhs.str_short()}: {why}')

    if lhs.dtype != rhs.dtype:
        fail('the operands need one dtype', TypeError)
    if lhs.ndim != rhs.ndim or any(sorted(s) != list(range(lhs.ndim)) for s in dimension_numbers):
        fail(f'dimension_numbers {tuple(dimension_numbers)} must each permute the axes',
             TypeError)
    n_spatial = lhs.ndim - 2
    for name, value in dict(window_strides=window_strides, lhs_dilation=lhs_dilation,
                            rhs_dilation=rhs_dilation).items():
        if len(value) != n_spatial:
            fail(f'{name}={value} needs one entry per spatial axis ({n_spatial})')
        if min(value, default=1) < 1:
            fail(f'{name}={value} must be positive',
                 ValueError if name == 'window_strides' else TypeError)
    if len(padding) != n_spatial:
        fail(f'padding={padding} needs one (low, high) pair per spatial axis ({n_spatial})',
             TypeError)
    _check_groups(fail, lhs, rhs, dimension_numbers, feature_group_count, batch_group_count)
    spatial = _in_roles(lhs.shape, dimension_numbers.lhs_spec)[2:]
    if any(n + lo + hi < 0 for n, (lo, hi) in zip(dilate_shape(spatial, lhs_dilation), padding)):
        fail(f'padding={padding} removes more than the spatial axes {spatial} (dilated by '
             f'lhs_dilation={lhs_dilation}) hold')


def _check_groups(fail, lhs, rhs, dimension_numbers, feature_group_count, batch_group_count):
    """The group counts: positive, one of them 1, dividing the features or the batch."""
    groups = (feature_group_count, batch_group_count)
    if min(groups) < 1 or max(groups) > 1 and min(groups) > 1:
        fail(f'feature_group_count={feature_group_count} and batch_group_count='
             f'{batch_group_count} must be positive, one of them 1')
    batch, features = _in_roles(lhs.shape, dimension_numbers.lhs_spec)[:2]
    out_features, in_features = _in_roles(rhs.shape, dimension_numbers.rhs_spec)[:2]
    if (features != in_features * feature_group_count or batch % batch_group_count
            or out_features % (feature_group_count * batch_group_count)):
        fail(f'{features} input features, batch {batch}, kernel {out_features} out x '
             f'{in_features} in features do not divide into feature_group_count='
             f'{feature_group_count}, batch_group_count={batch_group_count}')


def _complex_conv(lhs, rhs, **params):
    """A complex convolution as three real ones (Gauss's trick), as JAX computes it on the
    CPU, so its rounding and its NaNs are JAX's: for lhs = a + bi and rhs = c + di, with
    k1 = (a + b) * c, k2 = a * (d - c), k3 = b * (c + d) (``*`` the convolution), the real
    part ac - bd is k1 - k3 and the imaginary part ad + bc is k1 + k2."""
    a, b, c, d = real(lhs), imag(lhs), real(rhs), imag(rhs)
    k1 = conv_general_dilated_p.bind(add(a, b), c, **params)
    k2 = conv_general_dilated_p.bind(a, sub(d, c), **params)
    k3 = conv_general_dilated_p.bind(b, add(c, d), **params)
    return complex(sub(k1, k3), add(k1, k2))


def _conv_impl(lhs, rhs, **params):
    if dtypes.is_complex(np.result_type(lhs)):
        return np.asarray(_complex_conv(lhs, rhs, **params))
    return _real_conv_impl(lhs, rhs, **params)


@dtypes.accumulates_in_float32
def _real_conv_impl(lhs, rhs, **params):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out = _conv_sum(lhs, rhs, **params)
    if out.dtype == np.float32 and not np.isfinite(out).all():
        # XLA fuses each multiply into its add, so a product is never rounded to inf on its
        # own: summed in float64, inf - inf appears only where it does in XLA.
        out = _conv_sum(lhs.astype(np.float64), rhs.astype(np.float64), **params)
    return out.astype(lhs.dtype)


def _conv_sum(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
              dimension_numbers, feature_group_count, batch_group_count, precision):
    """In the (batch, feature, *spatial) layout: pad and dilate lhs, then add up, one kernel
    window offset at a time, the strided slice of lhs at that offset contracted with the
    kernel's (out, in) matrix there. A position of padding or dilation adds nothing, as in
    XLA (not 0 * w, which is NaN for an infinite weight). Any ``precision`` is the CPU's
    full one."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs, rhs = np.transpose(lhs, lhs_spec), np.transpose(rhs, rhs_spec)
    dilation, pads = (1, 1, *lhs_dilation), ((0, 0), (0, 0), *padding)
    padded = dilate_and_pad(lhs, 0, dilation, pads)
    real = dilate_and_pad(np.ones((1, 1, *lhs.shape[2:]), bool), False, dilation, pads)
    kernel = rhs.shape[2:]
    spatial = window_output_shape(lhs.shape[2:], kernel, window_strides, padding, lhs_dilation,
                                  rhs_dilation)
    out = np.zeros((lhs.shape[0] // batch_group_count, rhs.shape[0], *spatial), lhs.dtype)
    for offset in window_offsets(kernel):
        starts, limits, strides = window_offset_slice(offset, spatial, window_strides,
                                                      rhs_dilation)
        at = (slice(None), slice(None), *map(slice, starts, limits, strides))
        out += np.where(real[at], _grouped_contraction(
            padded[at], rhs[(slice(None), slice(None), *offset)], feature_group_count,
            batch_group_count), 0)
    return np.transpose(out, np.argsort(out_spec))


def _grouped_contraction(window, weights, feature_groups, batch_groups):
    """``window`` (batch, in_features, *spatial) contracted with ``weights`` (out_features,
    in_features per group): block g of the output features reads block g of the input
    features (feature groups) or of the batch (batch groups); one of the counts is 1."""
    batch, features, *spatial = window.shape
    out_features = weights.shape[0]
    window = window.reshape(batch_groups, batch // batch_groups, feature_groups,
                            features // feature_groups, *spatial)
    weights = weights.reshape(batch_groups, feature_groups,
                              out_features // (batch_groups * feature_groups), -1)
    out = np.einsum('bngc...,bgoc->nbgo...', window, weights)
    return out.reshape(batch // batch_groups, out_features, *spatial)

# ----------------------------------------------------------------------------- transposes


def _split_axis(x, axis, outer):
    """Axis ``axis`` of size n as two axes, (outer, n // outer)."""
    shape = core.get_aval(x).shape
    return reshape(x, (*shape[:axis], outer, shape[axis] // outer, *shape[axis + 1:]))


def _merge_axis(x, src, dst):
    """Axis ``src`` merged into axis ``dst`` (counted without ``src``) as its outer part:
    one reshape whose ``dimensions`` bring ``src`` before ``dst``, as JAX writes it."""
    shape = core.get_aval(x).shape
    perm = [d for d in range(len(shape)) if d != src]
    perm.insert(dst, src)
    new_shape = [shape[d] for d in perm if d != src]
    new_shape[dst] *= shape[src]
    return reshape(x, new_shape, perm)


def _swap_roles(spec):
    """The spec with its first two roles exchanged (batch <-> feature, out <-> in)."""
    return (spec[1], spec[0], *spec[2:])


def _spatial(shape, spec):
    return _in_roles(shape, spec)[2:]


def _conv_transpose_lhs(ct, rhs, lhs_shape, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision):
    """lhs's cotangent: input element i received, through kernel offset k, the output at
    ``(i - k) / stride``: a convolution of the cotangent, spread out by the strides, with the
    flipped kernel, its in and out features swapped (each group's block of out features
    moved into the in features), stepping by ``lhs_dilation``. Batch groups become feature
    groups there, and are moved back from the features into the batch at the end."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    groups = feature_group_count * batch_group_count
    if groups > 1:
        rhs = _merge_axis(_split_axis(rhs, rhs_spec[0], groups), rhs_spec[0], rhs_spec[1])
    pads = transpose_padding(_spatial(lhs_shape, lhs_spec),
                             _spatial(core.get_aval(rhs).shape, rhs_spec), window_strides,
                             _spatial(core.get_aval(ct).shape, out_spec), padding,
                             lhs_dilation, rhs_dilation)
    out = conv_general_dilated_p.bind(
        ct, rev(rhs, rhs_spec[2:]), window_strides=lhs_dilation, padding=pads,
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
        dimension_numbers=ConvDimensionNumbers(out_spec, _swap_roles(rhs_spec), lhs_spec),
        feature_group_count=groups, batch_group_count=1, precision=precision)
    if batch_group_count > 1:
        out = _merge_axis(_split_axis(out, lhs_spec[1], batch_group_count), lhs_spec[1],
                          lhs_spec[0])
    return out


def _rhs_transpose_padding(lhs_spatial, kernel, window_strides, ct_spatial, padding,
                           lhs_dilation, rhs_dilation):
    """Kernel offset k met lhs at ``k * rhs_dilation + o * stride`` for each output ``o``: the
    same low padding, and a high one making the window (the cotangent, dilated by the strides)
    take exactly one position per kernel element when it steps by ``rhs_dilation``."""
    spans = dilate_shape(kernel, rhs_dilation)
    inputs = dilate_shape(lhs_spatial, lhs_dilation)
    outputs = dilate_shape(ct_spatial, window_strides)
    return tuple((lo, n_out - n_in + span - 1 - lo)
                 for (lo, _), span, n_in, n_out in zip(padding, spans, inputs, outputs))


def _conv_transpose_rhs(ct, lhs, rhs_shape, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision):
    """rhs's cotangent: a convolution of lhs (its features now the batch, its batch now the
    contracted features) with the cotangent as the kernel, whose window positions are the
    outputs; the window steps by the strides and slides by ``rhs_dilation``. Feature and
    batch groups trade places."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pads = _rhs_transpose_padding(_spatial(core.get_aval(lhs).shape, lhs_spec),
                                  _spatial(rhs_shape, rhs_spec), window_strides,
                                  _spatial(core.get_aval(ct).shape, out_spec), padding,
                                  lhs_dilation, rhs_dilation)
    numbers = ConvDimensionNumbers(_swap_roles(lhs_spec), _swap_roles(out_spec),
                                   _swap_roles(rhs_spec))
    return conv_general_dilated_p.bind(
        lhs, ct, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides, dimension_numbers=numbers,
        feature_group_count=batch_group_count, batch_group_count=feature_group_count,
        precision=precision)


def _conv_transpose(ct, lhs, rhs, **params):
    if is_undefined_primal(lhs) and is_undefined_primal(rhs):
        raise TypeError('conv_general_dilated is not linear in both operands at once')
    if core.get_aval(ct).size == 0:  # no output element: as a sum over no window, zeros
        undefined = lhs if is_undefined_primal(lhs) else rhs
        zeros = full(undefined.aval.shape, 0, undefined.aval.dtype)
        return [zeros, None] if undefined is lhs else [None, zeros]
    if is_undefined_primal(lhs):
        return [_conv_transpose_lhs(ct, rhs, lhs.aval.shape, **params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs.aval.shape, **params)]

# ----------------------------------------------------------------------------- vmap


def _regroup(x, bdim, axis, groups):
    """The vmap axis ``bdim`` folded into axis ``axis`` (counted without it), whose
    ``groups`` blocks stay outermost: the axis becomes (groups, batch, size // groups)."""
    x = _split_axis(x, axis + (bdim <= axis), groups)
    x = _merge_axis(x, bdim + (axis < bdim), axis + 1)
    return _merge_axis(x, axis, axis)


def _conv_batching(vals, dims, *, dimension_numbers, feature_group_count, batch_group_count,
                   **params):
    """JAX's rule, case by case: fold the examples into the convolution. A batched lhs alone
    brings more batch elements (inside each batch group); a batched kernel alone more output
    features (inside each group); both batched, each example is a group of its own (a
    feature group, or a batch group if there are batch groups already). An empty batch is
    zeros, which no reshape of it could give."""
    (lhs, rhs), (lhs_dim, rhs_dim) = vals, dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    size = core.get_aval(lhs if lhs_dim is not not_mapped else rhs).shape[
        lhs_dim if lhs_dim is not not_mapped else rhs_dim]

    def conv_(lhs, rhs, feature_groups=feature_group_count, batch_groups=batch_group_count):
        return conv_general_dilated_p.bind(
            lhs, rhs, dimension_numbers=dimension_numbers, feature_group_count=feature_groups,
            batch_group_count=batch_groups, **params)

    if size == 0:
        avals = [_unbatched(x, d) for x, d in zip(vals, dims)]
        out = _conv_abstract_eval(*avals, dimension_numbers=dimension_numbers,
                                  feature_group_count=feature_group_count,
                                  batch_group_count=batch_group_count, **params)
        return full((0, *out.shape), 0, out.dtype), 0
    if rhs_dim is not_mapped:
        if batch_group_count == 1:
            lhs = _merge_axis(lhs, lhs_dim, lhs_spec[0])
        else:
            lhs = _regroup(lhs, lhs_dim, lhs_spec[0], batch_group_count)
        return _split_axis(conv_(lhs, rhs), out_spec[0], size), out_spec[0]
    if lhs_dim is not_mapped:
        groups = max(feature_group_count, batch_group_count)
        if groups == 1:
            out = conv_(lhs, _merge_axis(rhs, rhs_dim, rhs_spec[0]))
            return _split_axis(out, out_spec[1], size), out_spec[1]
        out = conv_(lhs, _regroup(rhs, rhs_dim, rhs_spec[0], groups))
        out = _split_axis(_split_axis(out, out_spec[1], groups), out_spec[1] + 1, size)
        return _merge_axis(out, out_spec[1], out_spec[1] + 1), out_spec[1]
    if batch_group_count == 1:
        lhs = _merge_axis(lhs, lhs_dim, lhs_spec[1])
        out = conv_(lhs, _merge_axis(rhs, rhs_dim, rhs_spec[0]),
                    feature_groups=feature_group_count * size)
    else:
        lhs = _merge_axis(lhs, lhs_dim, lhs_spec[0])
        out = conv_(lhs, _merge_axis(rhs, rhs_dim, rhs_spec[0]),
                    batch_groups=batch_group_count * size)
    return _split_axis(out, out_spec[1], size), out_spec[1]


def _unbatched(x, dim):
    aval = core.get_aval(x)
    return aval if dim is not_mapped else aval.update(
        shape=aval.shape[:dim] + aval.shape[dim + 1:])


# ----------------------------------------------------------------------------- lowering


def _conv_lowering(ctx, lhs, rhs, **params):
    if dtypes.is_complex(ctx.avals_in[0].dtype):
        return lower_fun(_complex_conv)(ctx, lhs, rhs, **params)
    return _real_conv_lowering(ctx, lhs, rhs, **params)


def _real_conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    numbers = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0], kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]))
    pads = ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2))
    return hlo.ConvolutionOp(
        tensor_type(ctx.avals_out[0]), lhs, rhs, numbers, feature_group_count,
        batch_group_count, window_strides=list(window_strides), padding=pads,
        lhs_dilation=list(lhs_dilation), rhs_dilation=list(rhs_dilation),
        window_reversal=[False] * len(window_strides),  # written out, as JAX writes them
        precision_config=precision_config(precision)).result


conv_general_dilated_p.def_impl(_conv_impl)
conv_general_dilated_p.def_abstract_eval(_conv_abstract_eval)
ad.defjvp(conv_general_dilated_p,
          lambda t, lhs, rhs, **params: conv_general_dilated_p.bind(t, rhs, **params),
          lambda t, lhs, rhs, **params: conv_general_dilated_p.bind(lhs, t, **params))
conv_general_dilated_p.def_transpose(_conv_transpose)
conv_general_dilated_p.def_batching(_conv_batching)
register_lowering(conv_general_dilated_p, _conv_lowering)
