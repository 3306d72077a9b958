"""The narrow, unsigned and half-precision dtypes, JAX's type-promotion lattice, the bitwise
and integer primitives at their edges, and the operators ``% // & | ^ ~ << >>``: each against
JAX (x64 on), eagerly and under jit.

The rule-by-rule tests of the primitives are rows of ``primitive_cases.py``; this file pins
the values C leaves undefined (shifts by the bit width or more, ``INT_MIN % -1``, integer
division by zero, float -> int conversion out of range), which XLA defines.
"""
import itertools
import operator

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as mnp
from minijax import dtypes, lax as mlax
from minijax.reference_interpreter import run_module
from minijax.tools import specs

SIGNED = [np.dtype(d) for d in ('int8', 'int16', 'int32', 'int64')]
UNSIGNED = [np.dtype(d) for d in ('uint8', 'uint16', 'uint32', 'uint64')]
INTEGERS = SIGNED + UNSIGNED
HALF = [np.dtype('float16'), np.dtype(ml_dtypes.bfloat16)]
IDS = str


def edge_operands(dtype):
    """Dividends and divisors / shift amounts that reach every edge C leaves undefined."""
    info, bits = np.iinfo(dtype), np.iinfo(dtype).bits
    x = [5, -5, 0, info.max, info.min, info.min, 7, 1, -7, 100, 3, 9]
    y = [0, 0, 0, 3, 0, -1, info.max, bits, bits - 1, bits + 1, 2 * bits, -3]
    if info.min == 0:  # no negatives: wrap them as NumPy would
        x, y = ([v % (info.max + 1) for v in vs] for vs in (x, y))
    return np.array(x, dtype), np.array(y, dtype)


def eager_and_jit(f, *args):
    """``f`` on minijax Arrays eagerly and under jit (both must agree with the oracle)."""
    arrays = [a if isinstance(a, (int, float)) else mnp.asarray(a) for a in args]
    return f(*arrays), minijax.jit(f)(*arrays)


def check_against(expected, f, *args):
    for got in eager_and_jit(f, *args):
        assert_close(got, expected)

# ----------------------------------------------------------------------------- dtypes


@pytest.mark.parametrize('dtype', INTEGERS + HALF, ids=IDS)
def test_arithmetic_and_comparisons_in_every_dtype(dtype):
    x = np.array([1, 2, 100, 7], dtype)
    y = np.array([3, 2, 100, 9], dtype)
    for name, fn in [('add', jax.lax.add), ('mul', jax.lax.mul), ('sub', jax.lax.sub),
                     ('max', jax.lax.max), ('lt', jax.lax.lt), ('ge', jax.lax.ge)]:
        check_against(fn(x, y), getattr(mlax, name), x, y)


@pytest.mark.parametrize('dtype', UNSIGNED, ids=IDS)
def test_unsigned_values_above_the_signed_range_compare_unsigned(dtype):
    """The top bit set: a signed comparison would call these negative."""
    big = np.array([np.iinfo(dtype).max, 1], dtype)
    small = np.array([1, np.iinfo(dtype).max], dtype)
    check_against(jax.lax.gt(big, small), mlax.greater, big, small)
    module = minijax.jit(mlax.greater).lower(big, small).compiler_ir()
    assert 'UNSIGNED' in str(module)
    np.testing.assert_array_equal(run_module(module, [big, small])[0], [True, False])


@pytest.mark.parametrize('src,dst', [
    *itertools.product([np.float64, np.float32, np.float16, ml_dtypes.bfloat16],
                       INTEGERS),
    *itertools.product(INTEGERS, INTEGERS[::3] + [np.float32, np.bool_]),
], ids=IDS)
def test_convert_element_type_gives_xla_answers(src, dst):
    """Float -> int truncates and saturates (NaN is 0, negatives to unsigned are 0); int ->
    int wraps."""
    if dtypes.is_float(src):
        with np.errstate(over='ignore'):
            x = np.array([-1.5, -0.7, 3e9, 5e9, np.nan, -np.inf, np.inf, 255.7, 256., -129.,
                          127.9, 9.3e18, -9.3e18, 1.8e19]).astype(src)
    else:
        x = edge_operands(src)[0]
    check_against(jax.lax.convert_element_type(x, dst),
                  lambda v: mlax.convert_element_type(v, dst), x)


LATTICE_DTYPES = [np.dtype(d) for d in dtypes.SUPPORTED]


@pytest.mark.parametrize('a,b', list(itertools.combinations_with_replacement(
    [(d, False) for d in LATTICE_DTYPES] + [(dtypes.int64, True), (dtypes.float64, True)], 2)),
    ids=IDS)
def test_promotion_follows_jax_lattice(a, b):
    """Every pair of dtypes, strong and weak (Python scalars), promotes as in JAX."""
    shapes = [jax.ShapeDtypeStruct((), d, weak_type=w) for d, w in (a, b)]
    expected = jax.eval_shape(jnp.add, *shapes)
    assert dtypes.promote(a, b) == (expected.dtype, expected.weak_type)
    values = [1 if w and d == dtypes.int64 else 1. if w else np.ones((), d) for d, w in (a, b)]
    assert mnp.result_type(*values) == jnp.result_type(*values)


@pytest.mark.parametrize('x,y', [
    (np.array([1, 2], np.int8), np.array([3, 250], np.uint8)),
    (np.array([1, 2], np.uint64), np.array([3, 4], np.int64)),
    (np.array([1, 2], np.int32), np.array([3, 4], np.float16)),
    (np.array([1, 2], np.uint32), np.array([3, 4], np.int32)),
    (np.array([1, 2], np.float16), np.array([3, 4], ml_dtypes.bfloat16)),
    (np.array([200, 2], np.uint8), 3),
    (np.array([1, 2], np.uint16), 2.5),
], ids=['i8+u8', 'u64+i64', 'i32+f16', 'u32+i32', 'f16+bf16', 'u8+int', 'u16+float'])
def test_mixed_operands_promote_as_in_jax(x, y):
    check_against(jnp.asarray(x) + y, operator.add, x, y)


@pytest.mark.parametrize('spec,dtype', [('u32[3]', 'uint32'), ('ui8[2]', 'uint8'),
                                        ('u64[]', 'uint64'), ('i8[2,2]', 'int8'),
                                        ('i16[1]', 'int16'), ('f16[2]', 'float16'),
                                        ('bf16[2]', 'bfloat16'), ('uint16[4]', 'uint16')])
def test_cli_specs_name_the_new_dtypes(spec, dtype):
    parsed = specs.parse_spec(spec)
    assert parsed.dtype == np.dtype(getattr(ml_dtypes, dtype, dtype))
    assert specs.parse_spec(specs.format_spec(parsed)).dtype == parsed.dtype


def test_cli_value_out_of_range_for_unsigned():
    np.testing.assert_array_equal(specs.parse_value('u32[2]=[1, 4294967295]'),
                                  np.array([1, 4294967295], np.uint32))
    with pytest.raises(Exception, match='out of range'):
        specs.parse_value('u32[1]=[-1]')

# ----------------------------------------------------------------------------- lax primitives


BINARY = ['bitwise_and', 'bitwise_or', 'bitwise_xor', 'shift_left', 'shift_right_logical',
          'shift_right_arithmetic', 'rem', 'div']


@pytest.mark.parametrize('name', BINARY)
@pytest.mark.parametrize('dtype', INTEGERS, ids=IDS)
def test_binary_integer_primitives_at_the_edges(name, dtype):
    """Shifts by the width or more (and by "negative" amounts, read unsigned), INT_MIN % -1,
    INT_MIN / -1, x / 0 and x % 0; both operand orders."""
    x, y = edge_operands(dtype)
    for a, b in [(x, y), (y, x)]:
        check_against(getattr(jax.lax, name)(a, b), getattr(mlax, name), a, b)


@pytest.mark.parametrize('name', ['bitwise_not', 'population_count', 'clz'])
@pytest.mark.parametrize('dtype', INTEGERS, ids=IDS)
def test_unary_integer_primitives_at_the_edges(name, dtype):
    """Also of constants, which XLA folds at compile time (its folder once counted the
    leading zeros of a negative int32 as -32)."""
    for x in edge_operands(dtype):
        check_against(getattr(jax.lax, name)(x), getattr(mlax, name), x)
        check_against(getattr(jax.lax, name)(x), lambda: getattr(mlax, name)(x))


@pytest.mark.parametrize('name', ['bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_not'])
def test_logical_primitives_on_booleans(name):
    x, y = np.array([True, False, True, False]), np.array([True, True, False, False])
    args = (x,) if name == 'bitwise_not' else (x, y)
    check_against(getattr(jax.lax, name)(*args), getattr(mlax, name), *args)


@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16], ids=IDS)
def test_rem_of_floats_has_the_sign_of_the_dividend(dtype):
    x = np.array([5.5, -5.5, 1., 0., np.inf, 3., -0., 7.25, -3.], dtype)
    y = np.array([2., 2., 0., 0., 2., np.inf, 3., -2., -np.inf], dtype)
    check_against(jax.lax.rem(x, y), mlax.rem, x, y)


def test_rem_derivatives_match_jax(rng):
    x, y = rng.uniform(-5, 5, (2, 7))
    t, s = rng.normal(size=(2, 7))
    expected = jax.jvp(jax.lax.rem, (x, y), (t, s))
    assert_close(minijax.jvp(mlax.rem, (x, y), (t, s))[1], expected[1])
    assert_close(minijax.grad(lambda a, b: mlax.rem(a, b).sum(), (0, 1))(x, y)[1],
                 jax.grad(lambda a, b: jax.lax.rem(a, b).sum(), (0, 1))(x, y)[1])


@pytest.mark.parametrize('name', ['bitwise_and', 'shift_left', 'population_count'])
def test_integer_primitives_have_zero_tangents(name):
    """Not differentiable: under jvp of a function of floats the integer part has tangent 0."""
    def f(x, m):
        ints = m.convert_element_type(x, np.int32)
        args = (ints,) if name == 'population_count' else (ints, ints)
        return m.convert_element_type(getattr(m, name)(*args), np.float64) * x

    x, t = np.array([1., 2., 3.]), np.array([1., 1., 1.])
    assert_close(minijax.jvp(lambda v: f(v, mlax), (x,), (t,))[1],
                 jax.jvp(lambda v: f(v, jax.lax), (x,), (t,))[1])


@pytest.mark.parametrize('thunk,message', [
    (lambda: mlax.bitwise_and(np.ones(2), np.ones(2)), r'and needs boolean or integer.*float64'),
    (lambda: mlax.shift_left(np.ones(2, bool), np.ones(2, bool)), r'shift_left.*integer.*bool'),
    (lambda: mlax.clz(np.ones(2, np.float32)), r'clz needs integer.*float32\[2\]'),
    (lambda: mlax.bitwise_or(np.ones(2, np.int32), np.ones(2, np.uint32)),
     r'lax.or requires arguments to have the same dtypes, got int32, uint32'),
], ids=['and-float', 'shift-bool', 'clz-float', 'or-mixed'])
def test_bad_operands_are_type_errors_naming_the_dtype(thunk, message):
    with pytest.raises(TypeError, match=message):
        thunk()


def _batched(example, axis):
    """A batch of 4 examples of shape (3,) along ``axis`` (None: one unbatched example)."""
    return example[0] if axis is None else np.moveaxis(example, 0, axis)


@pytest.mark.parametrize('in_axes', [(0, 0), (1, None), (None, 1), (1, 0)], ids=IDS)
def test_vmap_of_shifts_and_rem(in_axes, rng):
    x = _batched(rng.integers(-100, 100, (4, 3)).astype(np.int32), in_axes[0])
    y = _batched(rng.integers(-3, 40, (4, 3)).astype(np.int32), in_axes[1])
    for name in ['shift_right_arithmetic', 'shift_left', 'rem']:
        expected = jax.vmap(getattr(jax.lax, name), in_axes)(x, y)
        assert_close(minijax.vmap(getattr(mlax, name), in_axes)(x, y), expected)
        assert_close(minijax.jit(minijax.vmap(getattr(mlax, name), in_axes))(x, y), expected)

# ----------------------------------------------------------------------------- operators


OPERATORS = [operator.mod, operator.floordiv, operator.and_, operator.or_, operator.xor,
             operator.lshift, operator.rshift]


@pytest.mark.parametrize('op', OPERATORS, ids=lambda op: op.__name__)
@pytest.mark.parametrize('dtype', [np.int8, np.int64, np.uint8, np.uint32], ids=IDS)
def test_integer_operators_on_arrays_and_tracers(op, dtype):
    """``x // 0``, ``x % 0``, ``INT_MIN // -1``: JAX's answers, in both orders and with a
    Python int on either side."""
    x, y = edge_operands(dtype)
    for a, b in [(x, y), (y, x)]:
        check_against(op(jnp.asarray(a), jnp.asarray(b)), op, a, b)
    check_against(op(jnp.asarray(x), 3), lambda v: op(v, 3), x)
    check_against(op(3, jnp.asarray(x)), lambda v: op(3, v), x)


@pytest.mark.parametrize('op', [operator.mod, operator.floordiv], ids=lambda op: op.__name__)
@pytest.mark.parametrize('dtype', [np.float32, np.float64], ids=IDS)
def test_float_floor_division_and_modulo_as_python(op, dtype):
    """Python's float_divmod, as JAX computes it: ``1. // .1`` is 9 and ``-1. % inf`` inf."""
    x = np.array([5.5, -5.5, 1., 0., np.inf, 3., -0., 7.25, 1., -1., 3.], dtype)
    y = np.array([2., 2., 0., 0., 2., np.inf, 3., -2., .1, np.inf, -np.inf], dtype)
    for a, b in [(x, y), (y, x)]:
        check_against(op(jnp.asarray(a), jnp.asarray(b)), op, a, b)


def test_invert_and_logical_operators():
    for x in [np.array([0, 5, -7], np.int16), np.array([0, 5, 255], np.uint8),
              np.array([True, False])]:
        check_against(~jnp.asarray(x), operator.invert, x)
    b, c = np.array([True, False, True]), np.array([False, False, True])
    for op in [operator.and_, operator.or_, operator.xor]:
        check_against(op(jnp.asarray(b), jnp.asarray(c)), op, b, c)


@pytest.mark.parametrize('name', ['remainder', 'mod', 'fmod', 'floor_divide', 'bitwise_and',
                                  'bitwise_or', 'bitwise_xor', 'left_shift', 'right_shift'])
@pytest.mark.parametrize('dtype', [np.int32, np.uint32], ids=IDS)
def test_numpy_functions(name, dtype):
    x, y = edge_operands(dtype)
    check_against(getattr(jnp, name)(x, y), getattr(mnp, name), x, y)


@pytest.mark.parametrize('name', ['bitwise_not', 'invert', 'bitwise_count'])
@pytest.mark.parametrize('dtype', [np.int8, np.int64, np.uint16], ids=IDS)
def test_numpy_unary_functions(name, dtype):
    x = edge_operands(dtype)[0]
    check_against(getattr(jnp, name)(x), getattr(mnp, name), x)


def test_divmod_and_grad_of_modulo(rng):
    x, y = rng.uniform(-5, 5, (2, 6))
    check_against(jnp.stack(jnp.divmod(x, y)), lambda a, b: mnp.stack(mnp.divmod(a, b)), x, y)
    assert_close(minijax.grad(lambda a: (a % 1.5).sum())(x),
                 jax.grad(lambda a: (a % 1.5).sum())(x))
