"""The bad-input promise, one row per misuse: a standard exception (or a minijax error) raised
at trace time, whose message names the offending argument, axis, shape, dtype or primitive.

Each row is ``(id, misuse, exception type, regex the message must match)``. Where JAX raises
for the same misuse, the exception type follows JAX's (the independent answer); the wording
is minijax's own.
"""
import functools
import os
import tempfile

import numpy as np
import pytest

import minijax
from minijax import lax, nn, numpy as mnp
from minijax.core import ConcretizationTypeError
from minijax.lowering import register_lowering
from minijax.lowering.module import LoweringError
from minijax.lowering.ops import broadcast_in_dim as hlo_broadcast_in_dim
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

X = np.ones((2, 3), np.float32)
SUPPORTED = (r'supported: float16, bfloat16, float32, float64, int8, int16, int32, int64, '
             r'uint8, uint16, uint32, uint64, bool')


def _rank2(name):
    return rf'{name} 5 is out of bounds for an array of rank 2'


# ----------------------------------------------------------------------------- user primitives

def _user_primitive(*, abstract_eval=None, lowering=None, jvp=None, batching=None):
    """A fresh ``multiply_add`` (as in examples/multiply_add.py) with one rule replaced by a
    faulty one; the other rules are correct."""
    p = minijax.Primitive('multiply_add')
    p.def_impl(lambda x, y, z: x * y + z)
    p.def_abstract_eval(abstract_eval or (lambda x, y, z: minijax.ShapedArray(x.shape, x.dtype)))
    register_lowering(p, lowering or (
        lambda ctx, x, y, z: hlo.AddOp(hlo.MulOp(x, y).result, z).result))
    p.def_jvp(jvp or (lambda primals, tangents: (p.bind(*primals), tangents[2])))
    p.def_batching(batching or (lambda vals, dims: (p.bind(*vals), dims[0])))
    return p


def _jit_user(**rules):
    p = _user_primitive(**rules)
    return lambda: minijax.jit(lambda x: p.bind(x, x, x))(np.ones(3, np.float32))


def _jvp_user(**rules):
    p = _user_primitive(**rules)
    x = np.ones(3, np.float32)
    return lambda: minijax.jvp(lambda x: p.bind(x, x, x), (x,), (x,))


def _vmap_user(**rules):
    p = _user_primitive(**rules)
    return lambda: minijax.vmap(lambda x: p.bind(x, x, x))(np.ones((2, 3), np.float32))


def _to_f64(ctx, x, y, z):
    out = hlo.AddOp(hlo.MulOp(x, y).result, z).result
    return hlo.ConvertOp(ir.RankedTensorType.get([3], ir.F64Type.get()), out).result


def _to_2x3(ctx, x, y, z):
    out = hlo.AddOp(hlo.MulOp(x, y).result, z).result
    return hlo_broadcast_in_dim(out, minijax.ShapedArray((2, 3), np.float32), (1,))


# ----------------------------------------------------------------------------- helpers

def _deep_list(depth):
    return functools.reduce(lambda tree, _: [tree], range(depth), 1.0)


def _jit_with_dump_dir_that_is_a_file():
    with tempfile.NamedTemporaryFile() as f:
        old = os.environ.get('MINIJAX_DUMP_DIR')
        os.environ['MINIJAX_DUMP_DIR'] = f.name
        try:
            minijax.jit(lambda x: x * 3. + 2.)(np.ones(7, np.float32))
        finally:
            if old is None:
                del os.environ['MINIJAX_DUMP_DIR']
            else:
                os.environ['MINIJAX_DUMP_DIR'] = old


def _fori_traced_bound(body):
    return lambda: minijax.jit(lambda n: minijax.fori_loop(0, n, body, 0.))(3)


ROWS = [
    # --- grad of an integer input (JAX's TypeError and text)
    ('grad_int_scalar', lambda: minijax.grad(lambda a: a * 2.)(3),
     TypeError, r'grad requires real- or complex-valued inputs .*but got int64.*allow_int'),
    ('grad_int_array', lambda: minijax.grad(lambda a: mnp.sum(a * 2.))(np.ones(3, np.int32)),
     TypeError, r'but got int32'),
    ('value_and_grad_bool_in_tree', lambda: minijax.value_and_grad(
        lambda t: t[0] * 2., argnums=0)((1.0, True)),
     TypeError, r'requires real- or complex-valued .*but got bool'),
    ('grad_second_argnum_int', lambda: minijax.grad(lambda a, n: a * n, argnums=1)(1.0, 2),
     TypeError, r'requires real- or complex-valued .*but got int64'),
    # --- argnums
    ('argnums_float', lambda: minijax.grad(lambda a: a, argnums=0.0)(1.0),
     TypeError, r'argnums must be an int or a tuple of ints, got 0\.0'),
    ('argnums_str', lambda: minijax.grad(lambda a: a, argnums='a')(1.0),
     TypeError, r"argnums must be an int or a tuple of ints, got 'a'"),
    ('argnums_duplicate', lambda: minijax.grad(lambda a, b: a * b, argnums=(0, 0))(1.0, 2.0),
     ValueError, r'argnums \(0, 0\) names an argument more than once'),
    # --- axes out of range wrap around no more: one normalizer, naming the axis and the rank
    ('lax_reduce_sum_axis', lambda: lax.reduce_sum(X, 5), ValueError, _rank2('reduce_sum: axis')),
    ('lax_reduce_max_axis', lambda: lax.reduce_max(X, (0, 5)), ValueError,
     _rank2('reduce_max: axis')),
    ('lax_reduce_min_axis', lambda: lax.reduce_min(X, -3), ValueError,
     r'reduce_min: axis -3 is out of bounds for an array of rank 2'),
    ('lax_reduce_sum_float_axis', lambda: lax.reduce_sum(X, 1.0), TypeError,
     r'reduce_sum: axis must be an integer, got 1\.0'),
    ('lax_argmax_axis', lambda: lax.argmax(X, 5), ValueError, _rank2('argmax: axis')),
    ('lax_argmin_axis', lambda: lax.argmin(X, -3, np.int32), ValueError, 'argmin: axis -3'),
    ('lax_reduce_sum_bool', lambda: lax.reduce_sum(X > 0, (0,)), TypeError,
     r'reduce_sum needs a numeric operand, got bool\[2,3\]'),
    ('lax_argmax_empty_axis', lambda: lax.argmax(np.ones((2, 0)), 1, np.int32), ValueError,
     r'argmax: axis 1 is out of range or empty for float64\[2,0\]'),
    ('lax_argmin_complex', lambda: lax.argmin(X + 1j, 0, np.int32), TypeError,
     r'argmin: complex numbers have no order, got complex64\[2,3\]'),
    ('lax_expand_dims_axis', lambda: lax.expand_dims(X, (5,)), ValueError,
     r'expand_dims: axis 5 is out of bounds for an array of rank 3'),
    ('lax_squeeze_axis', lambda: lax.squeeze(np.ones((1, 2)), (5,)), ValueError,
     _rank2('squeeze: axis')),
    ('lax_slice_in_dim_axis', lambda: lax.slice_in_dim(X, 0, 1, axis=5), ValueError,
     _rank2('slice_in_dim: axis')),
    ('lax_concatenate_dimension', lambda: lax.concatenate([X, X], 5), TypeError,
     _rank2('concatenate: dimension')),
    ('lax_iota_dimension', lambda: lax.iota(np.int32, (2, 3), 5), ValueError,
     _rank2('iota: dimension')),
    ('mnp_expand_dims_axis', lambda: mnp.expand_dims(X, 5), ValueError,
     r'expand_dims: axis 5 is out of bounds for an array of rank 3'),
    ('mnp_transpose_axis', lambda: mnp.transpose(X, (0, 5)), ValueError,
     _rank2('transpose: axis')),
    ('mnp_transpose_not_permutation', lambda: mnp.transpose(X, (0, 0)), ValueError,
     r'transpose: axes \(0, 0\) are not a permutation'),
    ('mnp_swapaxes_axis', lambda: mnp.swapaxes(X, 0, 5), ValueError,
     _rank2('swapaxes: axis2')),
    ('mnp_sum_float_axis', lambda: mnp.sum(X, 1.5), TypeError,
     r'sum: axis must be an integer, got 1\.5 of type float'),
    ('mnp_sum_repeated_axis', lambda: mnp.sum(X, (1, -1)), ValueError,
     r'sum: axis \(1, -1\) repeats an axis'),
    ('mnp_mean_axis', lambda: mnp.mean(X, 5), ValueError, _rank2('mean: axis')),
    ('mnp_argmax_axis', lambda: mnp.argmax(X, 5), ValueError, _rank2('argmax: axis')),
    ('mnp_squeeze_axis', lambda: mnp.squeeze(X, 5), ValueError, _rank2('squeeze: axis')),
    ('mnp_concatenate_axis', lambda: mnp.concatenate([X, X], 5), ValueError,
     _rank2('concatenate: axis')),
    ('mnp_stack_axis', lambda: mnp.stack([X, X], 5), ValueError,
     r'stack: axis 5 is out of bounds for an array of rank 3'),
    ('nn_softmax_axis', lambda: nn.softmax(X, 5), ValueError, _rank2('max: axis')),
    # --- vmap in_axes / out_axes
    ('vmap_in_axes_float', lambda: minijax.vmap(lambda a: a, in_axes=0.5)(X),
     TypeError, r'vmap: in_axes must be an integer, got 0\.5'),
    ('vmap_in_axes_str', lambda: minijax.vmap(lambda a: a, in_axes='a')(X),
     TypeError, r"vmap: in_axes must be an integer, got 'a'"),
    ('vmap_in_axes_range', lambda: minijax.vmap(lambda a: a, in_axes=3)(X),
     ValueError, r'vmap: in_axes 3 is out of bounds for an array of rank 2'),
    ('vmap_out_axes_str', lambda: minijax.vmap(lambda a: a, out_axes='a')(X),
     TypeError, r"vmap: out_axes must be an integer, got 'a'"),
    ('vmap_out_axes_float', lambda: minijax.vmap(lambda a: a, out_axes=1.0)(X),
     TypeError, r'vmap: out_axes must be an integer, got 1\.0'),
    # --- Python conversions of traced values
    ('int_of_tracer', lambda: minijax.jit(lambda a: int(a))(1.0), ConcretizationTypeError,
     r'int\(\) was called on a traced value .*float64\[\].*astype'),
    ('float_of_tracer', lambda: minijax.jit(lambda a: float(a))(1), ConcretizationTypeError,
     r'float\(\) was called on a traced value .*int64\[\]'),
    ('complex_of_tracer', lambda: minijax.vmap(lambda a: complex(a))(np.ones(2)),
     ConcretizationTypeError, r'complex\(\) was called on a traced value .*BatchTracer'),
    ('index_with_tracer', lambda: minijax.jit(lambda i: [1., 2.][i])(0),
     minijax.errors.TracerIntegerConversionError,
     r'index\(\) was called on a traced value .*int64\[\]'),
    # --- control flow
    ('cond_branch_not_callable', lambda: minijax.cond(True, 1, lambda: 2.),
     TypeError, r'cond: true_fun must be callable, got 1 of type int'),
    ('switch_branch_not_callable', lambda: minijax.switch(0, [lambda: 1., 3]),
     TypeError, r'switch: branch 1 must be callable, got 3'),
    ('while_loop_body_not_callable', lambda: minijax.while_loop(lambda v: v < 3., None, 0.),
     TypeError, r'while_loop: body_fun must be callable, got None'),
    ('scan_f_not_callable', lambda: minijax.scan('f', 0., np.ones(3)),
     TypeError, r"scan: f must be callable, got 'f'"),
    ('fori_loop_body_not_callable', lambda: minijax.fori_loop(0, 3, 0., 0.),
     TypeError, r'fori_loop: body_fun must be callable'),
    ('fori_loop_body_dtype', lambda: minijax.fori_loop(0, 3, lambda i, v: i, 0.),
     TypeError, r'fori_loop: body_fun must return the types of init_val.*float64\[\].*int64'),
    ('fori_loop_body_dtype_traced_bounds', _fori_traced_bound(lambda i, v: i),
     TypeError, r'fori_loop: body_fun must return the types of init_val'),
    ('fori_loop_body_structure', lambda: minijax.fori_loop(0, 3, lambda i, v: (v, v), 0.),
     TypeError, r'fori_loop: body_fun must return a value shaped like init_val'),
    ('scan_negative_length', lambda: minijax.scan(lambda c, _: (c, None), 0., None, length=-1),
     ValueError, r'scan: length must be a non-negative integer, got -1'),
    ('scan_float_length', lambda: minijax.scan(lambda c, _: (c, None), 0., None, length=2.5),
     ValueError, r'scan: length must be a non-negative integer, got 2\.5'),
    # --- slicing
    ('dynamic_slice_float_start', lambda: lax.dynamic_slice(np.ones(4), (1.5,), (2,)),
     TypeError, r'dynamic_slice: start index 0 has dtype float64; start indices must be int'),
    ('dynamic_slice_traced_float_start', lambda: minijax.jit(
        lambda i: lax.dynamic_slice(np.ones((4, 4)), (0, i), (2, 2)))(1.0),
     TypeError, r'dynamic_slice: start index 1 has dtype float64'),
    ('dynamic_update_slice_float_start',
     lambda: lax.dynamic_update_slice(np.ones(4), np.ones(2), (np.float32(1),)),
     TypeError, r'dynamic_update_slice: start index 0 has dtype float32'),
    # --- concatenate / stack of nothing
    ('mnp_concatenate_empty', lambda: mnp.concatenate([]), ValueError,
     r'concatenate needs at least one array'),
    ('mnp_stack_empty', lambda: mnp.stack([]), ValueError, r'stack needs at least one array'),
    ('lax_concatenate_empty', lambda: lax.concatenate([], 0), ValueError,
     r'concatenate needs at least one operand'),
    # --- dot_general dimension numbers
    ('dot_general_two_entries', lambda: lax.dot_general(X, X, ((0,), (0,))), TypeError,
     r'dot_general: dimension_numbers must be \(\(lhs_contracting, rhs_contracting\), '
     r'\(lhs_batch, rhs_batch\)\).*got \(\(0,\), \(0,\)\)'),
    ('dot_general_int', lambda: lax.dot_general(X, X, 5), TypeError,
     r'dot_general: dimension_numbers must be .* got 5'),
    ('dot_general_float_axis', lambda: lax.dot_general(X, X, (((0.5,), (0,)), ((), ()))),
     TypeError, r'dot_general: dimension_numbers must be'),
    # --- lax static parameters: checked, never truncated or cropped away (JAX's types)
    ('lax_integer_pow_float', lambda: lax.integer_pow(X, 1.5), TypeError,
     r'integer_pow: y must be a static integer, got 1\.5 of type float'),
    ('lax_conv_padding_removes_more', lambda: lax.conv(
        np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), ((-3, -2),)), ValueError,
     r'conv_general_dilated: cannot convolve float64\[1,1,4\] with float64\[1,1,2\]: '
     r'padding=\(\(-3, -2\),\) removes more than the spatial axes \(4,\)'),
    ('lax_conv_zero_stride_same', lambda: lax.conv(
        np.ones((1, 1, 4)), np.ones((1, 1, 2)), (0,), 'SAME'), ValueError,
     r'conv_general_dilated: .*window_strides=\(0,\) must be positive'),
    ('lax_conv_float_stride', lambda: lax.conv(
        np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1.5,), 'VALID'), TypeError,
     r'conv_general_dilated: window_strides must be a sequence of integers, got \(1\.5,\)'),
    *((f'lax_{name}_float_parameter', misuse, TypeError,
       rf'{name}: {what} must be (an integer|a sequence of integers), got .*\d\.5')
      for name, what, misuse in [
          ('slice', 'start_indices', lambda: lax.slice(X, (0.5, 0), (2, 3))),
          ('slice', 'strides', lambda: lax.slice(X, (0, 0), (2, 3), (1.5, 1))),
          ('slice_in_dim', 'start_index', lambda: lax.slice_in_dim(X, 0.5, 2)),
          ('dynamic_slice', 'slice_sizes', lambda: lax.dynamic_slice(X, (0, 0), (1.5, 2))),
          ('broadcast_in_dim', 'broadcast_dimensions',
           lambda: lax.broadcast_in_dim(np.ones(3), (2, 3), (1.5,))),
          ('transpose', 'permutation', lambda: lax.transpose(X, (1.5, 0))),
          ('pad', 'padding_config', lambda: lax.pad(X, 0., ((0.5, 0, 0), (0, 0, 0)))),
          ('sort', 'num_keys', lambda: lax.sort((X, X), num_keys=1.5)),
          ('top_k', 'k', lambda: lax.top_k(np.ones(5), 1.5)),
          ('GatherDimensionNumbers', 'offset_dims', lambda: lax.gather(
              np.ones(5), np.zeros((1, 1), np.int32), lax.GatherDimensionNumbers(
                  offset_dims=(1.5,), collapsed_slice_dims=(), start_index_map=(0,)), (2,)))]),
    ('lax_rev_dimension', lambda: lax.rev(X, (5,)), TypeError, _rank2('rev: dimensions')),
    ('lax_gather_float_indices', lambda: lax.gather(
        np.ones(5), np.zeros((1, 1)), lax.GatherDimensionNumbers(
            offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,)), (2,)), ValueError,
     r'gather: indices must be an integer array .*indices float64\[1,1\]'),
    ('lax_bitcast_complex', lambda: lax.bitcast_convert_type(X + 1j, np.float32), TypeError,
     r'bitcast_convert_type does not support bool or complex values .*complex64\[2,3\]'),
    ('lax_square_bool', lambda: lax.square(X > 0), TypeError, r'integer_pow: bool\[2,3\]'),
    ('lax_dynamic_slice_index_count', lambda: lax.dynamic_slice(X, (0,), (1,)), ValueError,
     r'dynamic_slice: needs 2 int32 scalar start indices for float32\[2,3\], got \(int32\[\]\)'),
    ('lax_dynamic_slice_vector_index', lambda: lax.dynamic_slice(
        X, (np.zeros(2, np.int32), 0), (1, 1)), TypeError,
     r'dynamic_slice: start index 0 has shape \(2,\); start indices must be integer scalars'),
    ('lax_pad_config_too_short', lambda: lax.pad(X, np.float32(0), ((0, 0, 0),)), ValueError,
     r'pad: padding_config \(\(0, 0, 0\),\) does not fit float32\[2,3\]'),
    ('lax_pad_negative_interior', lambda: lax.pad(X, np.float32(0), ((0, 0, -1), (0, 0, 0))),
     ValueError, r'pad: padding_config .* does not fit float32\[2,3\]: .*interior >= 0'),
    ('lax_pad_removes_more', lambda: lax.pad(X, np.float32(0), ((-3, 0, 0), (0, 0, 0))),
     ValueError, r'leaving no axis negative'),
    ('lax_pad_vector_value', lambda: lax.pad(X, np.zeros(2, np.float32), ((0, 0, 0),) * 2),
     ValueError, r'pad: padding value float32\[2\] must be a scalar'),
    ('lax_select_n_no_cases', lambda: lax.select_n(np.bool_(True)), ValueError,
     r'select_n needs at least one case'),
    ('lax_top_k_of_a_scalar', lambda: lax.top_k(np.float64(1), 1), ValueError,
     r'top_k: operand must have at least one dimension .*float64\[\]'),
    ('lax_reduce_window_vector_init', lambda: lax.reduce_window(
        X, np.zeros(2), lax.add, (1, 1), (1, 1), 'VALID'), TypeError,
     r'reduce_window: init_value must be a scalar, got float64\[2\]'),
    ('lax_reduce_window_zero_stride_same', lambda: lax.reduce_window(
        X, 0., lax.add, (1, 1), (0, 1), 'SAME'), TypeError,
     r'reduce_window_sum: .*window_strides=\(0, 1\).*one positive entry per axis'),
    # --- negative sizes (JAX: TypeError) and arange's step
    ('mnp_full_negative', lambda: mnp.full((-1, 2), 0.), TypeError,
     r'full: shape \(-1, 2\) has a negative dimension'),
    ('mnp_zeros_negative', lambda: mnp.zeros(-3), TypeError,
     r'shape \(-3,\) has a negative dimension'),
    ('lax_full_negative', lambda: lax.full((-1,), 0., np.float32), TypeError,
     r'shape \(-1,\) has a negative dimension'),
    ('lax_reshape_negative', lambda: lax.reshape(X, (-6, -1)), TypeError,
     r'reshape: shape \(-6, -1\) has a negative dimension'),
    ('lax_broadcast_in_dim_negative', lambda: lax.broadcast_in_dim(np.float32(1), (-1,), ()),
     TypeError, r'broadcast_in_dim: shape \(-1,\) has a negative dimension'),
    ('lax_iota_negative', lambda: lax.iota(np.int32, -3), TypeError,
     r'iota: shape \(-3,\) has a negative dimension'),
    ('shape_dtype_struct_negative', lambda: minijax.ShapeDtypeStruct((-1, 2), np.float32),
     TypeError, r'ShapeDtypeStruct: shape \(-1, 2\) has a negative dimension'),
    ('shape_dtype_struct_float_dim', lambda: minijax.ShapeDtypeStruct((2.5,), np.float32),
     TypeError, r'ShapeDtypeStruct: shape must be a sequence of integers, got \(2\.5,\)'),
    ('arange_step_zero', lambda: mnp.arange(0, 5, 0), ValueError,
     r'arange: step must not be zero'),
    # --- lax operand dtypes (JAX's TypeError)
    *((f'lax_{name}_of_bool', lambda fn=fn: fn(np.array([True, False])), TypeError,
       rf'{name} needs a number \(integer, floating-point or complex\) operand, got bool\[2\]')
      for name, fn in [('sign', lax.sign), ('neg', lax.neg)]),
    *((f'lax_{name}_of_bools', lambda fn=fn: fn(np.array([True]), np.array([True])), TypeError,
       rf'{name} needs .*number.* operands, got bool\[1\]')
      for name, fn in [('sub', lax.sub), ('div', lax.div)]),
    ('lax_rem_of_complex', lambda: minijax.jit(lax.rem)(X + 1j, X + 1j), TypeError,
     r'rem needs integer or floating-point operands, got complex64\[2,3\]'),
    *((f'lax_abs_of_{t.__name__}', lambda t=t: lax.abs(np.ones(2, t)), TypeError,
       rf'abs needs a signed number .* operand, got {t.__name__}\[2\]')
      for t in (np.uint8, np.bool_)),
    # --- unsupported dtypes: a TypeError naming the dtype and the supported ones
    ('jit_complex256_scalar', lambda: minijax.jit(lambda a: a)(np.clongdouble(1)), TypeError,
     rf'argument 0 scalar of type clongdouble has dtype complex256.*{SUPPORTED}'),
    ('eager_complex256_scalar', lambda: lax.sin(np.clongdouble(1)), TypeError,
     rf'complex256.*{SUPPORTED}'),
    ('vjp_complex256_scalar', lambda: minijax.vjp(lambda a: a, np.clongdouble(1)), TypeError,
     rf'vjp: primal 0: .*complex256.*{SUPPORTED}'),
    ('full_complex256', lambda: lax.full((2,), 1., np.clongdouble), TypeError,
     rf'full has dtype complex256.*{SUPPORTED}'),
    ('jit_big_endian', lambda: minijax.jit(lambda a: a)(np.arange(3, dtype='>f8')), TypeError,
     r"argument 0 array of shape \(3,\) has dtype >f8, float64 in the byte order this machine "
     r"does not use.*x\.astype\('float64'\)"),
    ('eager_big_endian', lambda: mnp.sin(np.arange(3, dtype='>i4')), TypeError,
     r'has dtype >i4, int32 in the byte order'),
    # --- pytrees
    ('dict_keys_of_mixed_types', lambda: minijax.jit(lambda d: d)({1: 1., 'a': 2.}),
     ValueError, r"sorting pytree dictionary keys.*\[1, 'a'\].*int.*str"),
    ('deep_pytree_flatten', lambda: minijax.tree_util.tree_flatten(_deep_list(5000)),
     ValueError, r'pytree is nested too deeply'),
    ('deep_pytree_jit', lambda: minijax.jit(lambda t: t)(_deep_list(5000)),
     ValueError, r'pytree is nested too deeply'),
    # --- environment
    ('dump_dir_is_a_file', _jit_with_dump_dir_that_is_a_file, NotADirectoryError,
     r'MINIJAX_DUMP_DIR=.* is a file, not a directory'),
    # --- user-defined primitives whose rules misbehave: named primitive and rule kind
    ('lowering_two_values', _jit_user(lowering=lambda ctx, x, y, z: [x, y]), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned 2 values, expected 1"),
    ('lowering_returns_none', _jit_user(lowering=lambda ctx, x, y, z: None), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned a NoneType"),
    ('lowering_returns_array', _jit_user(lowering=lambda ctx, x, y, z: np.ones(3)),
     LoweringError, r"primitive 'multiply_add': the lowering rule returned a ndarray"),
    ('lowering_changes_dtype', _jit_user(lowering=_to_f64), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned tensor<3xf64>, "
     r'the abstract eval says float32\[3\]'),
    ('lowering_changes_shape', _jit_user(lowering=_to_2x3), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned tensor<2x3xf32>, "
     r'the abstract eval says float32\[3\]'),
    ('abstract_eval_tuple', _jit_user(
        abstract_eval=lambda x, y, z: (minijax.ShapedArray(x.shape, x.dtype),)), TypeError,
     r"primitive 'multiply_add': the abstract eval rule returned a tuple of 1 values, "
     r'expected one result'),
    ('abstract_eval_not_an_aval', _jit_user(abstract_eval=lambda x, y, z: x.shape), TypeError,
     r"primitive 'multiply_add': the abstract eval rule returned a tuple of 1 values"),
    ('abstract_eval_returns_shape', _jit_user(abstract_eval=lambda x, y, z: 'f32[3]'),
     TypeError, r"primitive 'multiply_add': the abstract eval rule returned a str, "
     r'expected a ShapedArray'),
    ('jvp_rule_not_a_pair', _jvp_user(jvp=lambda primals, tangents: primals[0]), TypeError,
     r"primitive 'multiply_add': the jvp rule must return a pair \(primal_out, tangent_out\)"),
    ('jvp_rule_lists', _jvp_user(jvp=lambda primals, tangents: ([primals[0]], [tangents[0]])),
     TypeError, r"primitive 'multiply_add': the jvp rule returned a list of 1 values, "
     r'expected one result'),
    ('vmap_rule_not_a_pair', _vmap_user(batching=lambda vals, dims: vals[0]), TypeError,
     r"primitive 'multiply_add': the vmap rule must return a pair"),
    ('vmap_rule_two_outputs', _vmap_user(batching=lambda vals, dims: (vals[:2], 0)),
     TypeError, r"primitive 'multiply_add': the vmap rule returned a list of 2 values"),
    # ------------------------------------------------------------- functions and outputs
    *((f'{name}_of_a_non_callable', make, TypeError, rf'{name}: f(un)? must be callable, got 3 '
       'of type int') for name, make in [
          ('jit', lambda: minijax.jit(3)),
          ('grad', lambda: minijax.grad(3)),
          ('value_and_grad', lambda: minijax.value_and_grad(3)),
          ('vjp', lambda: minijax.vjp(3, 1.)),
          ('linearize', lambda: minijax.linearize(3, 1.)),
          ('jvp', lambda: minijax.jvp(3, (1.,), (1.,))),
          ('vmap', lambda: minijax.vmap(3)),
          ('make_jaxpr', lambda: minijax.make_jaxpr(3))]),
    *((f'{name}_of_a_function_returning_a_string', make, TypeError,
       r'output 1 of the transformed function .* is a value of type str') for name, make in [
          ('jit', lambda: minijax.jit(lambda a: (a, 'x'))(1.)),
          ('vmap', lambda: minijax.vmap(lambda a: (a, 'x'))(np.ones(2))),
          ('jvp', lambda: minijax.jvp(lambda a: (a, 'x'), (1.,), (1.,))),
          ('linearize', lambda: minijax.linearize(lambda a: (a, 'x'), 1.)),
          ('make_jaxpr', lambda: minijax.make_jaxpr(lambda a: (a, 'x'))(1.))]),
]


@pytest.mark.parametrize('misuse,error,pattern', [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_bad_input(misuse, error, pattern):
    with pytest.raises(error, match=pattern):
        misuse()

