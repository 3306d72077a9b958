"""float16 and bfloat16 against JAX: ``finfo``, rounding, comparisons, reductions (which JAX
and XLA's CPU backend accumulate in float32), casts and ``jnp.array``, eagerly, under ``jit``
and ``vmap``; ``erf``/``erf_inv``-based functions (which XLA expands in float32), the
random floats, and modules run by the StableHLO reference interpreter."""
import jax
import jax.numpy as jjnp
import ml_dtypes
import numpy as np
import pytest
from testlib import assert_close  # noqa: F401 (enables x64 for the oracle)

import minijax
import minijax.numpy as jnp
import minijax.random as mrandom
from minijax import lax
from minijax.reference_interpreter import InterpreterError, run_module

NARROW = ('float16', 'bfloat16')
#: (rtol, atol) where XLA's association or fused precision may differ from NumPy's by an ulp
ULPS = {'float16': (2e-3, 2e-3), 'bfloat16': (1.6e-2, 1.6e-2)}
TRANSFORMS = {'eager': (lambda f: f, lambda f: f), 'jit': (minijax.jit, jax.jit),
              'vmap': (minijax.vmap, jax.vmap)}


def check(mine, theirs, *args, dtype, exact=False, transform='eager'):
    """``mine(*args)`` equals ``theirs(*args)`` in dtype and shape, and in value exactly or
    to a couple of ulps of ``dtype``."""
    wrap_mine, wrap_theirs = TRANSFORMS[transform]
    got, want = np.asarray(wrap_mine(mine)(*args)), np.asarray(wrap_theirs(theirs)(*args))
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    rtol, atol = (0, 0) if exact else ULPS[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                               atol=atol, equal_nan=True)


def values(dtype, rng, shape=(4, 6)):
    """Normal values with ties at halves, a signed zero, big integral values and NaN/inf."""
    x = rng.normal(size=shape) * 3
    x.flat[:10] = [0.5, 1.5, -2.5, -0.5, -0., 300.5, 2.0 ** 12 + 2, np.inf, -np.inf, np.nan]
    return x.astype(jjnp.dtype(dtype))


@pytest.mark.parametrize('dtype', NARROW)
def test_finfo_knows_the_narrow_floats(dtype):
    mine, theirs = jnp.finfo(getattr(jnp, dtype)), jjnp.finfo(getattr(jjnp, dtype))
    for field in ('bits', 'eps', 'max', 'min', 'tiny', 'nmant', 'nexp', 'smallest_subnormal'):
        assert getattr(mine, field) == getattr(theirs, field), field


@pytest.mark.parametrize('transform', TRANSFORMS)
@pytest.mark.parametrize('name', ['floor', 'ceil', 'round', 'trunc', 'rint', 'sign', 'abs',
                                  'isnan', 'isfinite'])
@pytest.mark.parametrize('dtype', NARROW)
def test_rounding_and_sign_are_exact(dtype, name, transform, rng):
    check(getattr(jnp, name), getattr(jjnp, name), values(dtype, rng), dtype=dtype, exact=True,
          transform=transform)


@pytest.mark.parametrize('transform', TRANSFORMS)
@pytest.mark.parametrize('name', ['greater', 'less_equal', 'equal', 'not_equal', 'maximum',
                                  'minimum', 'add', 'multiply', 'divide', 'floor_divide'])
@pytest.mark.parametrize('dtype', NARROW)
def test_comparisons_and_arithmetic_are_exact(dtype, name, transform, rng):
    x, y = values(dtype, rng), values(dtype, rng)[::-1]
    check(getattr(jnp, name), getattr(jjnp, name), x, y, dtype=dtype, exact=True,
          transform=transform)


REDUCTIONS = {
    'sum': lambda np_: lambda x: np_.sum(x, axis=-1),
    'mean': lambda np_: lambda x: np_.mean(x, axis=-1),
    'var': lambda np_: lambda x: np_.var(x, axis=-1),
    'std': lambda np_: lambda x: np_.std(x, axis=-1),
    'prod': lambda np_: lambda x: np_.prod(x[..., :8], axis=-1),
    'max': lambda np_: lambda x: np_.max(x, axis=-1),
    'cumsum': lambda np_: lambda x: np_.cumsum(x, axis=-1)[..., -1],
    'matmul': lambda np_: lambda x: np_.matmul(x, np_.transpose(x)),
}


@pytest.mark.parametrize('transform', TRANSFORMS)
@pytest.mark.parametrize('name', REDUCTIONS)
@pytest.mark.parametrize('dtype', NARROW)
def test_reductions_accumulate_in_float32_as_jax_does(dtype, name, transform, rng):
    """A running sum in bfloat16 stops at 256 (256 + 1 rounds to 256): 4096 ones must add
    up to 4096, and normal values to JAX's sums within an ulp or two."""
    mine, theirs = REDUCTIONS[name](jnp), REDUCTIONS[name](jjnp)
    ones = np.full((3, 4096), 1, jjnp.dtype(dtype))
    check(mine, theirs, ones, dtype=dtype, exact=name not in ('matmul',), transform=transform)
    x = rng.normal(1., 0.5, size=(3, 512)).astype(jjnp.dtype(dtype))
    check(mine, theirs, x, dtype=dtype, transform=transform)


@pytest.mark.parametrize('dtype', NARROW)
def test_jnp_sum_computes_in_float32_as_jax_does(dtype):
    """jnp.sum, mean and var of a narrow float trace to a float32 computation, as JAX's."""
    x = np.ones(3, jjnp.dtype(dtype))
    for name in ('sum', 'mean', 'var'):
        jaxpr = str(minijax.make_jaxpr(getattr(jnp, name))(x))
        assert 'reduce_sum' in jaxpr and 'f32[3]' in jaxpr, (name, jaxpr)
    narrow = str(minijax.make_jaxpr(lambda x: jnp.sum(x, dtype=x.dtype))(x))
    assert 'float32' not in narrow and 'f32[' not in narrow


@pytest.mark.parametrize('dtype', NARROW)
def test_lax_accumulating_primitives_run_eagerly_as_xla_does(dtype):
    """The NumPy implementations of sums, dot products, convolutions and window and running
    reductions of narrow floats accumulate in float32, as XLA's CPU backend."""
    x = np.ones((2, 4096), jjnp.dtype(dtype))
    ops = {
        'reduce_sum': (lambda a: lax.reduce_sum(a, (1,)),
                       lambda a: jax.lax.reduce(a, np.array(0, a.dtype), jax.lax.add, (1,))),
        'dot_general': (lambda a: lax.dot_general(a, a, (((1,), (1,)), ((0,), (0,)))),
                        lambda a: jax.lax.dot_general(a, a, (((1,), (1,)), ((0,), (0,))))),
        'conv': (lambda a: lax.conv_general_dilated(a[:, None], a[:1, None], (1,), 'VALID'),
                 lambda a: jax.lax.conv_general_dilated(a[:, None], a[:1, None], (1,),
                                                        'VALID')),
        'reduce_window': (
            lambda a: lax.reduce_window(a, np.array(0, a.dtype), lax.add, (1, 4096), (1, 1),
                                        'VALID'),
            lambda a: jax.lax.reduce_window(a, np.array(0, a.dtype), jax.lax.add, (1, 4096),
                                            (1, 1), 'VALID')),
        'cumsum': (lambda a: lax.cumsum(a, 1)[:, -1], lambda a: jax.lax.cumsum(a, 1)[:, -1]),
    }
    for name, (mine, theirs) in ops.items():
        check(mine, jax.jit(theirs), x, dtype=dtype, exact=True)


@pytest.mark.parametrize('transform', TRANSFORMS)
@pytest.mark.parametrize('dtype', NARROW)
def test_casts_and_array_constructors_are_exact(dtype, transform, rng):
    x = values(dtype, rng)
    x[2] *= np.array(100, x.dtype)  # out of range of the small integer types
    for other in ('float32', 'float64', 'int8', 'uint8', 'int32', 'uint32', 'bool', *NARROW):
        check(lambda a: jnp.asarray(a).astype(other), lambda a: jjnp.asarray(a).astype(other),
              x, dtype=dtype, exact=True, transform=transform)
        wide = (rng.normal(size=(3, 5)) * 300).astype(other)
        check(lambda a: jnp.asarray(a).astype(dtype), lambda a: jjnp.asarray(a).astype(dtype),
              wide, dtype=dtype, exact=True, transform=transform)
    check(lambda a: jnp.array(a, dtype=getattr(jnp, dtype)) * 2.5 + 1,
          lambda a: jjnp.array(a, dtype=getattr(jjnp, dtype)) * 2.5 + 1,
          rng.normal(size=(3, 5)), dtype=dtype, exact=True, transform=transform)


@pytest.mark.parametrize('transform', ['eager', 'jit'])
@pytest.mark.parametrize('dtype', NARROW)
def test_erf_of_narrow_floats_is_xlas_float32_expansion(dtype, transform):
    """XLA expands erf for float16 in float32; in float16 the coefficients overflow (NaN)."""
    x = np.linspace(-4, 4, 801).astype(jjnp.dtype(dtype))
    for mine, theirs in ((lax.erf, jax.lax.erf), (lax.erfc, jax.lax.erfc)):
        check(mine, theirs, x, dtype=dtype, exact=True, transform=transform)


@pytest.mark.parametrize('name', ['uniform', 'normal', 'truncated_normal'])
@pytest.mark.parametrize('dtype', NARROW)
def test_random_narrow_floats_are_jaxs_bit_for_bit(dtype, name):
    args = (-1.5, 2.) if name == 'truncated_normal' else ()
    check(lambda key: getattr(mrandom, name)(key, *args, (2000,), getattr(jnp, dtype)),
          lambda key: getattr(jax.random, name)(key, *args, (2000,), getattr(jjnp, dtype)),
          np.array([0, 3], np.uint32), dtype=dtype, exact=True)


@pytest.mark.parametrize('dtype', NARROW)
def test_truncated_normal_clamps_into_the_open_interval(dtype):
    """Draws that round onto a bound are clamped to the next float inside it (the clamp
    stepped outside before)."""
    out = np.asarray(mrandom.truncated_normal(mrandom.PRNGKey(3), -1.5, 2., (2000,),
                                              getattr(jnp, dtype)))
    lowest = np.nextafter(np.array(-1.5, out.dtype), np.array(0, out.dtype))
    assert out.min() == lowest


def test_reference_interpreter_runs_float16_modules_as_jax(rng):
    x = rng.normal(size=(3, 5)).astype(np.float16)
    functions = {
        'erf': (lax.erf, jax.lax.erf),
        'sum': (lambda a: jnp.sum(a * 2, axis=1), lambda a: jjnp.sum(a * 2, axis=1)),
        'dot': (lambda a: a @ a.T, lambda a: a @ a.T),
        'floor': (jnp.floor, jjnp.floor),
    }
    for mine, theirs in functions.values():
        got = run_module(minijax.jit(mine).lower(x).compiler_ir(), [x])[0]
        check(lambda a: got, jax.jit(theirs), x, dtype='float16')


def test_reference_interpreter_refuses_bfloat16_arguments_clearly():
    x = np.ones(3, ml_dtypes.bfloat16)
    with pytest.raises(InterpreterError, match=r'argument 0 has type tensor<3xbf16>.*no .*bf16'):
        run_module(minijax.jit(jnp.sin).lower(x).compiler_ir(), [x])
