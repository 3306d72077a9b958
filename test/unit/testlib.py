"""Helpers shared by the unit tests: comparing against the oracle (JAX) and drawing inputs.

A plain module (not conftest.py), so that tests import it by name.
"""
import os

os.environ.setdefault('JAX_PLATFORMS', 'cpu')

import jax  # noqa: E402
import numpy as np  # noqa: E402

# NumPy dtype semantics for the oracle: float64 stays float64.
jax.config.update('jax_enable_x64', True)

F32, F64, I32, I64, BOOL = (np.dtype(d) for d in ('float32', 'float64', 'int32', 'int64', 'bool'))
FLOATS = (F32, F64)
I8, U8, U32, U64 = (np.dtype(d) for d in ('int8', 'uint8', 'uint32', 'uint64'))
NUMBERS = (F32, F64, I32, I64)
C64, C128 = np.dtype('complex64'), np.dtype('complex128')
COMPLEX = (C64, C128)

#: (rtol, atol) per dtype when comparing against the oracle.
TOLERANCES = {
    np.dtype('float32'): (2e-5, 2e-6),
    np.dtype('float64'): (1e-12, 1e-13),
    np.dtype('complex64'): (2e-5, 2e-6),
    np.dtype('complex128'): (1e-12, 1e-13),
}


def assert_close(actual, expected, dtype=None):
    """``actual`` (minijax) equals ``expected`` (oracle) in value, shape and dtype."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype != jax.dtypes.float0:
        assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    rtol, atol = TOLERANCES.get(np.dtype(dtype or actual.dtype), (0, 0))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def assert_tangent_close(actual, expected, dtype=None):
    """Like ``assert_close``, but JAX's ``float0`` tangent (of a non-float output) means zero."""
    expected = np.asarray(expected)
    if expected.dtype == jax.dtypes.float0:
        actual = np.asarray(actual)
        assert actual.shape == expected.shape
        assert not np.any(actual), f'expected a zero tangent, got {actual}'
    else:
        assert_close(actual, expected, dtype)


def random_array(rng, shape, dtype, domain='any'):
    """A random array. ``domain``: 'any'; 'pos' or 'nonzero' keep it away from zero (log,
    sqrt, div); 'ties' puts it on a coarse grid, so maxima and comparisons meet ties;
    'halves' on a grid of halves, so rounding meets ties; 'specials' puts infinities and NaNs
    among the numbers; 'total_order' draws from the points a total order tells apart (signed
    zeros, signed NaNs, infinities, +-1); 'unit' keeps it inside (-1, 1) and 'above_one' above 1 (the domains of
    asin and atanh, and of acosh), 'prob' inside (0, 1) (betainc's x); 'idx' and 'idx3' are
    indices below 5 and 3."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if domain in ('idx', 'idx3'):
        return rng.integers(0, 5 if domain == 'idx' else 3, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(1 if domain == 'pos' else -9, 10, size=shape)
        if domain == 'nonzero':
            x = np.where(x == 0, 3, x)
        return x.astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):  # both parts drawn from the float domain
        parts = (random_array(rng, shape, np.float64, domain) for _ in 'ri')
        return (next(parts) + 1j * next(parts)).astype(dtype)
    x = rng.uniform(-2, 2, size=shape)
    if domain == 'ties':
        x = np.round(x)
    elif domain == 'unit':
        x = x * 0.45
    elif domain == 'above_one':
        x = np.abs(x) + 1.1
    elif domain == 'prob':
        x = (x + 2.2) / 4.4
    elif domain == 'halves':
        x = np.round(x * 2) / 2
    elif domain == 'total_order':
        x = rng.choice([-np.inf, -1., -0., 0., 1., np.inf, np.nan, -np.nan], shape)
    elif domain == 'specials':
        x = np.where(rng.random(shape) < 0.4, rng.choice([np.inf, -np.inf, np.nan], shape), x)
    elif domain == 'pos':
        x = np.abs(x) + 0.5
    elif domain == 'nonzero':
        x = np.where(np.abs(x) < 0.5, x + 1.5 * np.sign(x + 1e-3), x)
    return x.astype(dtype)


def only_args(f, args, which):
    """``f`` as a function of ``args[i] for i in which``; the other arguments are fixed."""
    def g(*xs):
        full = list(args)
        for i, x in zip(which, xs):
            full[i] = x
        return f(*full)
    return g


def jax_answer(f, *args):
    """JAX's ``f(*args)`` as one jitted program, where running ``f`` eagerly compiles each
    operation it runs (most of a test's time): the NumPy arrays among ``args`` are its
    arguments (so that XLA folds no constants), the others (seeds, sizes, scalars) fixed."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    return jax.jit(only_args(f, args, arrays))(*[args[i] for i in arrays])


def jax_vjp(f, args, rng):
    """JAX's output of ``f`` at ``args``, a random cotangent of that output's type, and the
    cotangents of ``args``: one jitted program, where an eager ``jax.vjp`` compiles each
    operation it runs (most of a test's time)."""
    out_type = jax.eval_shape(f, *args)
    ct = rng.uniform(-1, 1, out_type.shape).astype(out_type.dtype)

    def value_and_cotangents(*xs):
        out, f_vjp = jax.vjp(f, *xs)
        return out, f_vjp(ct)
    out, cts = jax.jit(value_and_cotangents)(*args)
    return out, ct, cts
