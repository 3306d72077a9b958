"""Shared helpers for minijax's unit tests.

JAX is the oracle (test-only): every number minijax computes is compared against JAX, finite
differences or a value printed in the Autodidax seed, never against minijax itself.
"""
import os
import zlib

os.environ.setdefault('JAX_PLATFORMS', 'cpu')

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

# NumPy dtype semantics for the oracle: float64 stays float64.
jax.config.update('jax_enable_x64', True)

#: (rtol, atol) per dtype when comparing against the oracle.
TOLERANCES = {
    np.dtype('float32'): (2e-5, 2e-6),
    np.dtype('float64'): (1e-12, 1e-13),
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
    """A random array; ``domain='pos'`` keeps it away from zero (log, sqrt, div)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(1 if domain == 'pos' else -9, 10, size=shape)
        if domain == 'nonzero':
            x = np.where(x == 0, 3, x)
        return x.astype(dtype)
    x = rng.uniform(-2, 2, size=shape)
    if domain == 'pos':
        x = np.abs(x) + 0.5
    elif domain == 'nonzero':
        x = np.where(np.abs(x) < 0.5, x + 1.5 * np.sign(x + 1e-3), x)
    return x.astype(dtype)


@pytest.fixture
def rng(request):
    """A random generator seeded from the test's name: reproducible, different per test."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


# ----------------------------------------------------------------------------- primitive table
# One row per way of calling a primitive of minijax.lax, with its JAX counterpart. The jvp,
# vmap and jit tests are parametrized over this table, so a new primitive needs one new row
# (test_every_lax_primitive_has_a_row checks that none is forgotten).

import jax.numpy as jnp  # noqa: E402
from typing import Callable, NamedTuple  # noqa: E402

from minijax import lax as mlax  # noqa: E402

F32, F64, I32, I64, BOOL = (np.dtype(d) for d in ('float32', 'float64', 'int32', 'int64', 'bool'))
FLOATS = (F32, F64)
NUMBERS = (F32, F64, I32, I64)


class PrimCase(NamedTuple):
    id: str
    primitive: str                 # name of the minijax Primitive exercised
    mj: Callable                   # minijax function
    jx: Callable                   # JAX oracle
    shapes: tuple                  # one shape per operand
    dtypes: tuple                  # operand dtypes to test (all operands share one)
    domain: tuple = ()             # per operand: 'any', 'pos' or 'nonzero'

    def args(self, rng, dtype):
        domains = self.domain or ('any',) * len(self.shapes)
        return [random_array(rng, s, dtype, d) for s, d in zip(self.shapes, domains)]


def _unary(name, dtypes=FLOATS, domain='any', jx=None):
    return PrimCase(name, name, getattr(mlax, name), jx or getattr(jax.lax, name),
                    ((3, 4),), dtypes, (domain,))


def _binary(name, jx, dtypes=NUMBERS, domain=('any', 'any')):
    return [PrimCase(f'{name}-{"x".join(map(str, a)) or "s"}-{"x".join(map(str, b)) or "s"}',
                     name, getattr(mlax, name), jx, (a, b), dtypes, domain)
            for a, b in [((3, 4), (3, 4)), ((), (3, 4)), ((3, 4), ())]]


def _convert(src, dst):
    return PrimCase(f'convert-{src.name}-{dst.name}', 'convert_element_type',
                    lambda x: mlax.convert_element_type(x, dst),
                    lambda x: jax.lax.convert_element_type(x, dst), ((3, 4),), (src,))


def _reduce_sum(shape, axis):
    return PrimCase(f'reduce_sum-{"x".join(map(str, shape))}-{axis}', 'reduce_sum',
                    lambda x: mlax.reduce_sum(x, axis),
                    lambda x: jnp.sum(x, axis=axis, dtype=x.dtype), (shape,), (F32, F64, I32))


def _broadcast(shape_in, shape, axes):
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return PrimCase(f'broadcast-{"x".join(map(str, shape_in)) or "s"}-{axes}', 'broadcast',
                    lambda x: mlax.broadcast(x, shape, axes),
                    lambda x: jax.lax.broadcast_in_dim(x, shape, kept), (shape_in,), NUMBERS)


def _transpose(shape, perm):
    return PrimCase(f'transpose-{perm}', 'transpose', lambda x: mlax.transpose(x, perm),
                    lambda x: jax.lax.transpose(x, perm), (shape,), NUMBERS)


PRIMITIVE_CASES = [
    _unary('sin'), _unary('cos'), _unary('exp'), _unary('log', domain='pos'),
    _unary('tanh'), _unary('logistic'), _unary('sqrt', domain='pos'),
    _unary('rsqrt', domain='pos'),
    _unary('neg', NUMBERS), _unary('abs', NUMBERS, 'nonzero'), _unary('sign', NUMBERS),
    *_binary('add', jax.lax.add), *_binary('sub', jax.lax.sub), *_binary('mul', jax.lax.mul),
    *_binary('div', jax.lax.div, domain=('any', 'nonzero')),
    *_binary('greater', jax.lax.gt), *_binary('less', jax.lax.lt),
    _convert(F32, F64), _convert(F64, F32), _convert(F64, I32), _convert(I32, F64),
    _convert(I64, I32), _convert(F32, BOOL),
    _reduce_sum((2, 3, 4), None), _reduce_sum((2, 3, 4), 1), _reduce_sum((2, 3, 4), (0, 2)),
    _broadcast((3,), (2, 3, 4), (0, 2)), _broadcast((), (2, 3), (0, 1)),
    _broadcast((2, 3), (2, 3, 5), (2,)),
    _transpose((2, 3, 4), (2, 0, 1)), _transpose((3, 4), (1, 0)),
]


def case_params(cases=PRIMITIVE_CASES, dtypes=None):
    """pytest params ``(case, dtype)`` for every case and each of its dtypes (in ``dtypes``)."""
    return [pytest.param(c, d, id=f'{c.id}-{d.name}')
            for c in cases for d in c.dtypes if dtypes is None or d in dtypes]
