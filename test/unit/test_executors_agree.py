"""Eager, jit (XLA) and the StableHLO reference interpreter give JAX's answer at edge values
(NaN, signed zeros, infinities, division by zero, overflow, empty reductions), and no executor
takes the process down: what one cannot run is a clean minijax error.
"""
import ast
import os
import signal
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax
from jaxlib.mlir import ir

import minijax
import minijax.numpy as mnp
from minijax import isolation, lax, reference_interpreter, runtime
from minijax.lowering import mlir_context
from minijax.reference_interpreter import InterpreterError, run_module

import testlib  # noqa: F401  (JAX with x64, as minijax computes)

nan, inf = np.nan, np.inf
f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64
FLOAT_EDGES = [nan, inf, -inf, 3e9, -3e9, 1e19, -1e19, 2.7, -2.7, 2147483647., 2147483648.,
               -2147483649., 9.3e18, 0., -0.]


def _int_edges(dtype):
    low = np.iinfo(dtype).min
    return np.array([7, -7, 0, low, low, 5], dtype), np.array([0, 0, 0, -1, 1, -2], dtype)


def _convert(dtype):
    return (lambda x: lax.convert_element_type(x, dtype),
            lambda x: jlax.convert_element_type(x, dtype))


def _same(prim):
    """The minijax and JAX function of the primitive with the same name and signature."""
    return getattr(lax, prim), getattr(jlax, prim)


def _reduce(prim, axes):
    return (lambda x: getattr(lax, prim)(x, axes), lambda x: getattr(jlax, prim)(x, axes))


def _arg(prim, axis, index_dtype=np.int32):
    return (lambda x: getattr(lax, prim)(x, axis, index_dtype),
            lambda x: getattr(jlax, prim)(x, axis, index_dtype))


def _scatter(prim, mode):
    """``prim`` writing a window of 3 updates per index into a vector."""
    def dnums(lax_):
        return lax_.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                            scatter_dims_to_operand_dims=(0,))
    jax_mode = None if mode is None else jlax.GatherScatterMode.from_any(mode)
    return (lambda x, i, u: getattr(lax, prim)(x, i, u, dnums(lax), mode=mode),
            lambda x, i, u: getattr(jlax, prim)(x, i, u, dnums(jlax), mode=jax_mode))


def _pairs(lax_):
    """The dimension numbers of a gather of neighbour pairs from a vector."""
    return lax_.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(),
                                       start_index_map=(0,))


def _windows_at(starts, size=8, dtype=np.int32):
    """An operand of ``size`` elements, one start index per window, and the windows."""
    return [np.zeros(size), np.array(starts, dtype)[:, None],
            np.arange(1., 3 * len(starts) + 1).reshape(-1, 3)]


def _ties_past(n):
    """300 numbers whose extremes sit at n and at 260: n wins, unless the index type wraps
    past 255 and 260 reads as 4."""
    x = np.zeros(300)
    x[[n, 260]] = 1.
    return [x]


#: name -> (minijax function, JAX function, arguments, runs in the reference interpreter?)
CASES = {
    'argmax_first_of_several_nans': (*_arg('argmax', 0), [np.array([1, nan, 3, nan], f32)]),
    'argmin_first_of_several_nans': (*_arg('argmin', 0), [np.array([1, nan, 3, nan], f64)]),
    'argmax_signed_zero_tie': (*_arg('argmax', 0), [np.array([-0., 0., -0.], f32)]),
    'argmin_signed_zero_tie': (*_arg('argmin', 0), [np.array([0., -0., 0.], f32)]),
    'argmax_all_minus_inf': (*_arg('argmax', 0), [np.array([-inf, -inf, -inf], f64)]),
    'argmax_rows_with_nans': (*_arg('argmax', 1), [np.where(
        np.random.default_rng(0).random((6, 40)) < .2, nan,
        np.random.default_rng(1).integers(0, 4, (6, 40))).astype(f32)]),
    'argmin_int_ties': (*_arg('argmin', 0), [np.array([3, 1, 1, -5, -5], i64)]),
    **{f'argmax_{t.__name__}_index_{n}': (*_arg('argmax', 0, t), _ties_past(n))
       for t in (np.int8, np.uint8, np.int16, np.uint32) for n in (2, 10)},
    'argmin_uint8_index_of_rows': (*_arg('argmin', 1, np.uint8), [-np.stack(_ties_past(10) * 2)]),
    'div_int32_by_zero_and_overflow': (*_same('div'), [*_int_edges(i32)], False),
    'div_int64_by_zero_and_overflow': (*_same('div'), [*_int_edges(i64)], False),
    'div_float_by_signed_zero': (*_same('div'), [np.array([1., -1., 0., 1.], f32),
                                                 np.array([0., 0., 0., -0.], f32)]),
    **{f'convert_{s.__name__}_to_{d.__name__}': (*_convert(d), [np.array(FLOAT_EDGES, s)])
       for s in (f32, f64) for d in (i32, i64, np.bool_)},
    'convert_nan_scalar_to_int32': (*_convert(i32), [f32(nan)]),
    'convert_int_to_bool': (*_convert(np.bool_), [np.array([0, 2, -1], i32)]),
    'convert_int64_to_int32_wraps': (*_convert(i32), [np.array([2 ** 40 + 5, -2 ** 33], i64)]),
    'convert_float64_to_float32_overflows': (*_convert(f32), [np.array([1e300, -1e300, 1e-300])]),
    'reduce_max_empty_float': (*_reduce('reduce_max', (0,)), [np.zeros(0, f32)]),
    'reduce_min_empty_float': (*_reduce('reduce_min', (0,)), [np.zeros(0, f64)]),
    'reduce_max_empty_int': (*_reduce('reduce_max', (1,)), [np.zeros((2, 0), i32)]),
    'reduce_min_empty_bool': (*_reduce('reduce_min', (0,)), [np.zeros((0, 3), np.bool_)]),
    'reduce_max_signed_zeros': (*_reduce('reduce_max', (1,)),
                                [np.array([[-0., 0.], [0., -0.], [-0., -0.]], f32)]),
    'reduce_min_signed_zeros': (*_reduce('reduce_min', (1,)),
                                [np.array([[-0., 0.], [0., -0.], [0., 0.]], f32)]),
    # complex numbers order as JAX orders them: real parts, then imaginary parts (not as
    # stablehlo.maximum does on XLA); the interpreter takes no complex arguments
    **{f'{name}_complex_orders_lexicographically': (
        *_reduce(name, (1,)), [np.array([[1 + 2j, 1 - 5j, -3 + 9j], [np.inf - 1j, 2, 2 - 1j],
                                        [np.nan, 1j, -1j]])], False)
       for name in ('reduce_max', 'reduce_min')},
    **{f'{name}_complex_empty': (*_reduce(name, (0,)), [np.zeros((0, 3), np.complex64)], False)
       for name in ('reduce_max', 'reduce_min')},
    'reduce_min_complex_to_empty': (*_reduce('reduce_min', (0,)),
                                    [np.zeros((1, 0), np.complex64)], False),
    **{f'{name}_complex_orders_lexicographically': (
        *_same(name), [np.array([2, 1 + 5j, np.nan, 3 + 1j]), np.array([2 - 1j, 1 + 6j, 1, 3])],
        False) for name in ('max', 'min')},
    **{f'{name}_complex_orders_lexicographically': (
        *_same(name), [np.array([2, 2 - 1j, 1 + 6j, 1, 3 + 1j, 3 + 2j])], False)
       for name in ('cummax', 'cummin', 'sort')},
    'reduce_max_nan': (*_reduce('reduce_max', (0,)), [np.array([1., nan, 3.], f32)]),
    # a window that does not fit is dropped whole, as XLA drops it, or clamped ('clip')
    **{f'{prim}_{mode}_window_past_the_end': (*_scatter(prim, mode), _windows_at([6, -1, 2]))
       for prim in ('scatter', 'scatter_add', 'scatter_max') for mode in (None, 'clip')},
    'gather_fill_int8_indices_into_a_long_operand': (
        *(lambda x, i, lax_=lax_, mode=mode: lax_.gather(x, i, _pairs(lax_), (2,), mode=mode)
          for lax_, mode in [(lax, 'fill'), (jlax, jlax.GatherScatterMode.FILL_OR_DROP)]),
        [np.arange(300.), np.array([[120], [127], [-1]], np.int8)]),
    'scatter_int8_indices_past_the_end': (*_scatter('scatter', None),
                                          _windows_at([127, 0], 129, np.int8)),
    'scatter_uint64_index_past_int64': (*_scatter('scatter_mul', None),
                                        _windows_at([2 ** 63, 1], dtype=np.uint64)),
    'max_nan_and_signed_zeros': (*_same('max'), [np.array([1, nan, -0., 0., -0.], f32),
                                                 np.array([nan, 1, 0., -0., -0.], f32)]),
    'min_nan_and_signed_zeros': (*_same('min'), [np.array([1, nan, -0., 0., 0.], f64),
                                                 np.array([nan, 1, 0., -0., 0.], f64)]),
    'max_int': (*_same('max'), [np.array([3, -9], i32), np.array([-2, 4], i32)]),
    'sign_signed_zeros_and_nan': (*_same('sign'), [np.array([nan, -0., 0., -inf, 2.], f32)]),
    'sign_int_min': (*_same('sign'), [np.array([np.iinfo(i32).min, 0, 5], i32)]),
    **{f'sign_{u.__name__}': (*_same('sign'), [np.array([0, 1, np.iinfo(u).max], u)])
       for u in (np.uint8, np.uint32, np.uint64)},
    **{f'jnp_abs_of_{t.__name__}_is_itself': (mnp.abs, jnp.abs, [np.array([0, 1, 1], t)])
       for t in (np.uint8, np.uint64, np.bool_)},
    'rsqrt_zeros_and_negative': (*_same('rsqrt'), [np.array([0., -0., -1., inf], f32)]),
    'reduce_sum_over_no_axes_keeps_minus_zero': (*_reduce('reduce_sum', ()),
                                                 [np.array([-0., 0., -inf], f64)]),
    **{f'dot_general_of_{a.__name__}_and_{b.__name__}_promotes': (
        lambda x, y: lax.dot_general(x, y, (((1,), (1,)), ((), ()))),
        lambda x, y: jlax.dot_general(x, y, (((1,), (1,)), ((), ()))),
        [np.arange(6).reshape(2, 3).astype(a), np.arange(1, 7).reshape(2, 3).astype(b)])
       for a, b in [(f64, f32), (i32, f64), (np.int8, i32), (np.bool_, f64)]},
    # (the interpreter converts the operands to a narrower result type first: not run there)
    **{f'dot_general_to_preferred_{t.__name__}_from_{x.dtype}': (
        lambda x, t=t: lax.dot_general(x, x, (((1,), (1,)), ((), ())), preferred_element_type=t),
        lambda x, t=t: jlax.dot_general(x, x, (((1,), (1,)), ((), ())), preferred_element_type=t),
        [x], widens) for x, t, widens in [
            (np.linspace(-2, 3, 12).reshape(3, 4).astype(f32), f64, True),
            (np.linspace(-2, 3, 12).reshape(3, 4) / 7, f32, False),
            (np.arange(-6, 6).reshape(3, 4).astype(np.int8), i32, True),
            (np.linspace(-9, 9, 12).reshape(3, 4).astype(f32), i32, False)]},
    # JAX's optional parameters: slice_in_dim's None and negative bounds, reshape's
    # dimensions, full_like's dtype and shape
    **{name: (lambda x, f=f: f(lax, x), lambda x, f=f: f(jlax, x), [np.arange(12.).reshape(3, 4)])
       for name, f in [
           ('slice_in_dim_of_none_bounds', lambda L, x: L.slice_in_dim(x, None, None, 2, 1)),
           ('slice_in_dim_of_negative_bounds', lambda L, x: L.slice_in_dim(x, -3, -1, axis=1)),
           ('reshape_in_the_order_of_dimensions', lambda L, x: L.reshape(x, (2, 6), (1, 0))),
           ('full_like_of_a_dtype_and_shape', lambda L, x: L.full_like(x, 7, i32, (2, 5)))]},
    'outer_product_keeps_minus_zero': (
        lambda x, y: lax.dot_general(x, y, (((), ()), ((), ()))),
        lambda x, y: jlax.dot_general(x, y, (((), ()), ((), ()))),
        [np.array([0., -0., 2.], f32), np.array([-3., 1.], f32)], False),
    'batched_outer_product_keeps_minus_zero': (
        lambda x, y: lax.dot_general(x, y, (((), ()), ((1,), (0,)))),
        lambda x, y: jlax.dot_general(x, y, (((), ()), ((1,), (0,)))),
        [np.array([[0., -0.], [1., 2.]], f64), np.array([[-1., 4.], [1., -0.]], f64)], False),
    'dot_float32_products_overflow_as_in_xla': (
        lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
        lambda x, y: jlax.dot_general(x, y, (((0,), (0,)), ((), ()))),
        [np.array([np.inf, 1e30, -1.], f32), np.array([1., -1e30, 2.], f32)], False),
    'dot_of_empty_vectors_is_zero': (
        lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
        lambda x, y: jlax.dot_general(x, y, (((0,), (0,)), ((), ()))),
        [np.zeros(0, f32), np.zeros(0, f32)], False),
    'bitcast_of_a_scalar_keeps_its_shape': (
        lambda x: lax.bitcast_convert_type(x, np.int32),
        lambda x: jlax.bitcast_convert_type(x, np.int32), [np.float32(-1.5)]),
    **{f'bitcast_of_a_scalar_to_{t.__name__}_adds_an_axis': (
        lambda x, t=t: lax.bitcast_convert_type(x, t),
        lambda x, t=t: jlax.bitcast_convert_type(x, t), [np.float64(-1.5)])
       for t in (np.uint32, np.uint8)},
    'conv_padding_adds_nothing_even_against_inf': (
        lambda x, w: lax.conv_general_dilated(x, w, (1,), 'SAME'),
        lambda x, w: jlax.conv_general_dilated(x, w, (1,), 'SAME'),
        [np.ones((1, 1, 2), f32), np.array([[[np.inf, 1., 2.]]], f32)], False),
    'pow_of_an_integer_exponent': (*_same('pow'), [np.array([2., -2., 0., 3.], f32),
                                                   np.array([3, 2, -1, 0], i64)]),
    'select_n_of_one_case_is_it': (*_same('select_n'), [i32(5), np.array([1., 2.])]),
    'pow_edges': (*_same('pow'), [np.array([0., -0., nan, 1., -1., -2., 0., -inf, -inf], f64),
                                  np.array([-1., -1., 0., nan, inf, 3., 0., -3., 3.], f64)]),
}


def _oracle(jax_fn, args):
    return np.asarray(jax.jit(jax_fn)(*args))


def _check_same(got, expected, executor):
    got = np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (executor, got)
    np.testing.assert_array_equal(got, expected, err_msg=executor)
    if expected.dtype.kind == 'f':  # -0. and 0. compare equal: check the signs too (a
        numbers = ~np.isnan(expected)  # NaN's sign bit is unspecified, as in XLA)
        np.testing.assert_array_equal(np.signbit(got)[numbers], np.signbit(expected)[numbers],
                                      err_msg=executor)


@pytest.mark.parametrize('name', CASES)
def test_eager_jit_and_interpreter_give_jax_answer(name):
    fn, jax_fn, args, *interpreter = CASES[name]
    expected = _oracle(jax_fn, args)
    _check_same(fn(*args), expected, 'eager')
    _check_same(minijax.jit(fn)(*args), expected, 'jit')
    if interpreter != [False]:
        module = minijax.jit(fn).lower(*args).compiler_ir()
        _check_same(run_module(module, args)[0], expected, 'interpreter')


def test_interpreter_reports_a_raw_integer_division_by_zero_instead_of_crashing():
    """A hand-written stablehlo.divide by zero traps (SIGFPE) in the interpreter's child."""
    with mlir_context():
        module = ir.Module.parse(
            'func.func @main(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {\n'
            '%0 = stablehlo.divide %a, %b : tensor<i32>\nreturn %0 : tensor<i32> }\n')
    with pytest.raises(InterpreterError, match='SIGFPE.*division'):
        run_module(module, [i32(7), i32(0)])
    assert run_module(module, [i32(-7), i32(2)])[0] == jlax.div(i32(-7), i32(2))


_DIVIDE_ZERO_BY_ZERO = """
import numpy as np, minijax
from minijax import lax
from minijax.reference_interpreter import run_module
f = lambda x: lax.div(lax.sub(x, x), lax.sub(x, x))
x = np.array([1, 2], np.int32)
print([minijax.jit(f)(x).tolist(), run_module(minijax.jit(f).lower(x).compiler_ir(), [x])[0].tolist()])
"""


def test_minijax_integer_division_never_traps():
    """minijax's lowering of integer div chooses x / 0 and INT_MIN / -1 itself, so neither XLA
    (which folds x - x to 0, then 0 / 0 at compile time: SIGFPE, with jax.jit too) nor the
    interpreter ever divides by them. Run in a child process: before, it killed the process."""
    done = subprocess.run([sys.executable, '-c', _DIVIDE_ZERO_BY_ZERO], capture_output=True,
                          text=True, timeout=120)
    expected = [int(jlax.div(i32(0), i32(0)))] * 2  # JAX op by op: -1
    assert done.returncode == 0, done.stderr[-500:]
    assert ast.literal_eval(done.stdout) == [expected, expected]


def test_interpreter_refuses_zero_size_contraction_of_dot_general():
    a, b = np.ones((2, 0), f32), np.ones((0, 3), f32)
    module = minijax.jit(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))).lower(
        a, b).compiler_ir()
    with pytest.raises(InterpreterError, match='dot_general contracting a zero-size'):
        run_module(module, [a, b])


@pytest.mark.parametrize('dtype', [f32, i32])
def test_interpreter_refuses_a_dot_general_that_narrows_its_sum(dtype):
    """It converts the operands to the result type before multiplying (float64 products
    rounded to float32 one by one, float32 operands truncated to int32), XLA the sum: a
    clean refusal, not another answer."""
    x = np.linspace(-9, 9, 12).reshape(3, 4)
    module = minijax.jit(lambda x: lax.dot(x, x.T, preferred_element_type=dtype)).lower(
        x).compiler_ir()
    with pytest.raises(InterpreterError, match='dot_general to a narrower or other result'):
        run_module(module, [x])


def test_interpreter_runs_a_module_with_a_complex_constant():
    """The bindings cannot read a complex constant's value back; the check for resource
    blobs must not fail on it (before: RuntimeError from the walk; fuzz seed 168314)."""
    def fn(x):
        return lax.convert_element_type(lax.ne(lax.complex(x, x), np.complex128(1e30)), f64)

    x = np.float64(2.)
    module = minijax.jit(fn).lower(x).compiler_ir()
    assert [np.asarray(v) for v in run_module(module, [np.asarray(x)])] == [
        np.asarray(jax.jit(lambda x: jlax.convert_element_type(
            jlax.ne(jlax.complex(x, x), np.complex128(1e30)), jnp.float64))(x))]


def _main(body, result_type='tensor<f32>', extra=''):
    return (f'func.func @main(%a: tensor<f32>) -> {result_type} {{\n{body}\n'
            f'return %0 : {result_type} }}{extra}')


#: .mlir modules the interpreter aborts on (or misreads), and what the error must name.
BAD_MODULES = {
    'custom_call': (_main('%0 = stablehlo.custom_call @foo(%a) : (tensor<f32>) -> tensor<f32>'),
                    'stablehlo.custom_call'),
    'tuple_result': (_main('%0 = stablehlo.tuple %a : tuple<tensor<f32>>',
                           'tuple<tensor<f32>>'), 'tuple'),
    'complex_result': (_main('%0 = stablehlo.complex %a, %a : tensor<complex<f32>>',
                             'tensor<complex<f32>>'), 'complex'),
    'bf16_result': (_main('%0 = stablehlo.convert %a : (tensor<f32>) -> tensor<bf16>',
                          'tensor<bf16>'), 'bf16'),
    'unimplemented_op': (_main('%t = stablehlo.create_token : !stablehlo.token\n'
                               '%0 = stablehlo.add %a, %a : tensor<f32>'),
                         'stablehlo.create_token'),
    'dense_resource': (_main('%0 = stablehlo.constant dense_resource<blob> : tensor<f32>',
                             extra='\n{-#\n dialect_resources: { builtin: { blob: '
                                   '"0x040000000000803F" } }\n#-}'), 'dense_resource'),
    # It runs, but gives a wrong answer: refused before running.
    'odd_irfft': (_main('%c = stablehlo.complex %a, %a : tensor<complex<f32>>\n'
                        '%r = stablehlo.broadcast_in_dim %c, dims = [] : '
                        '(tensor<complex<f32>>) -> tensor<2xcomplex<f32>>\n'
                        '%f = stablehlo.fft %r, type = IRFFT, length = [3] : '
                        '(tensor<2xcomplex<f32>>) -> tensor<3xf32>\n'
                        '%0 = stablehlo.reduce(%f init: %a) applies stablehlo.add across '
                        'dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>'),
                  'IRFFT to an odd number of points'),
    'irfft_to_no_points': (_main('%c = stablehlo.complex %a, %a : tensor<complex<f32>>\n'
                                 '%r = stablehlo.reshape %c : (tensor<complex<f32>>) -> '
                                 'tensor<1xcomplex<f32>>\n'
                                 '%f = stablehlo.fft %r, type = IRFFT, length = [0] : '
                                 '(tensor<1xcomplex<f32>>) -> tensor<0xf32>\n'
                                 '%0 = stablehlo.reduce(%f init: %a) applies stablehlo.add '
                                 'across dimensions = [0] : (tensor<0xf32>, tensor<f32>) -> '
                                 'tensor<f32>'),
                           'IRFFT to no points'),
    # Not in the list of known ops: the forked child dies, the error says so.
    'fft_of_complex': (_main('%c = stablehlo.complex %a, %a : tensor<complex<f32>>\n'
                             '%r = stablehlo.reshape %c : (tensor<complex<f32>>) -> '
                             'tensor<1xcomplex<f32>>\n'
                             '%f = stablehlo.fft %r, type = FFT, length = [1] : '
                             '(tensor<1xcomplex<f32>>) -> tensor<1xcomplex<f32>>\n'
                             '%s = stablehlo.reshape %f : (tensor<1xcomplex<f32>>) -> '
                             'tensor<complex<f32>>\n'
                             '%0 = stablehlo.real %s : (tensor<complex<f32>>) -> tensor<f32>'),
                       'crashed'),
}


@pytest.mark.parametrize('name', BAD_MODULES)
def test_interpreter_raises_a_clean_error_for_what_it_cannot_run(name):
    text, named = BAD_MODULES[name]
    with mlir_context():
        module = ir.Module.parse(text)
    with pytest.raises(InterpreterError, match=named):
        run_module(module, [f32(1.)])


@pytest.mark.parametrize('args, named', [
    ([np.ones(3, f32)], r'provided 1 inputs but function expected 2'),
    ([np.ones(3), np.ones(3)],
     r"argument type at index 0, input type was 'tensor<3xf64>' but entry function expected "
     r"'tensor<3xf32>'"),
])
def test_interpreter_failure_says_what_failed(args, named):
    """The interpreter's ValueError says only 'interpreter failed'; its diagnostics say why."""
    module = minijax.jit(lax.add).lower(np.ones(3, f32), np.ones(3, f32)).compiler_ir()
    with pytest.raises(InterpreterError, match=f'the reference interpreter failed: .*{named}'):
        run_module(module, args)


def test_cli_interpreter_reports_division_by_zero(tmp_path):
    from minijax.cli import main
    path = tmp_path / 'div.mlir'
    path.write_text('func.func @main(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {\n'
                    '%0 = stablehlo.divide %a, %b : tensor<i32>\nreturn %0 : tensor<i32> }\n')
    assert main(['run', str(path), '--arg', 'i32[]=7', '--arg', 'i32[]=0',
                 '--backend', 'interpreter']) == 1


def test_jit_of_a_very_long_chain_is_refused_not_a_segfault():
    """XLA:CPU overflows a compile thread's stack on a fused chain of ~25,000 ops."""
    def chain(x):
        for _ in range(runtime.MAX_CHAIN_LENGTH + 100):
            x = lax.sin(x)
        return x
    lowered = minijax.jit(chain).lower(f32(.5))
    with mlir_context():  # printing, parsing and verifying a deep module are fine
        ir.Module.parse(lowered.as_text()).operation.verify()
    with pytest.raises(runtime.CompileError, match='chain of 10101 dependent ops'):
        lowered.compile()


def _interrupt_self():
    os.kill(os.getpid(), signal.SIGINT)  # in the child: its own pid


def test_interpreter_child_stopped_by_ctrl_c_is_an_interrupt_not_a_crash():
    """Ctrl-C reaches the interpreter's child process with its parent: the parent sees the
    user's interrupt (the CLI then exits 130), not "the interpreter crashed"."""
    with pytest.raises(KeyboardInterrupt):
        reference_interpreter._in_child_process(_interrupt_self)


@pytest.mark.parametrize('fn, args, named', [
    (os._exit, (3,), 'the child process exited with status 3 without a report'),
    (lambda: 0, (), 'cannot send <function <lambda>'),
], ids=['exit without a report', 'not picklable'])
def test_a_failure_of_the_isolation_is_not_taken_for_the_callee(fn, args, named):
    """The interpreter's child could not run the call: an IsolationError, which no caller
    (InterpreterError, check_rules) takes for the interpreter's or a rule's failure."""
    with pytest.raises(isolation.IsolationError, match=named):
        reference_interpreter._in_child_process(fn, *args)


def test_interpreter_scatter_leaves_its_operand_alone():
    """The interpreter scatters into its operand in place; run_module hands it a copy, so a
    function returning both the operand and the scattered array gets both (NumPy's answer)."""
    import minijax.numpy as mnp

    def f(x):
        return x, x.at[np.array([0, 2, 2])].add(10.), mnp.max(x)

    x = np.arange(4.)
    expected = x.copy()
    np.add.at(expected, [0, 2, 2], 10.)
    got = reference_interpreter.run_module(minijax.jit(f).lower(x).compiler_ir(), [x])
    for out, want in zip(got, [np.arange(4.), expected, 3.], strict=True):
        np.testing.assert_array_equal(out, want)
