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
    if domain in ('idx', 'idx3'):
        return rng.integers(0, 5 if domain == 'idx' else 3, size=shape).astype(dtype)
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


def _seeded_by_test_id(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def rng(request):
    """A random generator seeded from the test's name: reproducible, different per test."""
    return _seeded_by_test_id(request)


@pytest.fixture(autouse=True)
def _reseed_module_rng(request):
    """A test module whose input makers draw from a module-level ``rng`` gets it reseeded
    from the test's id before each test, so a test sees the same inputs whichever tests ran
    before it (``-k``, ``-n``)."""
    if isinstance(getattr(request.module, 'rng', None), np.random.Generator):
        request.module.rng = _seeded_by_test_id(request)


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
    dtypes: tuple                  # dtypes to test (operands without a fixed dtype take it)
    domain: tuple = ()             # per operand: 'any', 'pos', 'nonzero' or 'idx'
    arg_dtypes: tuple = ()         # per operand: a fixed dtype (indices, predicates) or None

    def arg_dtype(self, i, dtype):
        return (self.arg_dtypes[i] if self.arg_dtypes else None) or dtype

    @property
    def diff_args(self):
        """Operands that take the test dtype: the ones differentiated (when it is a float)."""
        return [i for i in range(len(self.shapes)) if self.arg_dtype(i, None) is None]

    def args(self, rng, dtype, shapes=None):
        domains = self.domain or ('any',) * len(self.shapes)
        return [random_array(rng, s, self.arg_dtype(i, dtype), d)
                for i, (s, d) in enumerate(zip(shapes or self.shapes, domains))]


def _name(shape):
    return 'x'.join(map(str, shape)) or 's'


def _unary(name, dtypes=FLOATS, domain='any', jx=None):
    return PrimCase(name, name, getattr(mlax, name), jx or getattr(jax.lax, name),
                    ((3, 4),), dtypes, (domain,))


def _binary(name, jx, dtypes=NUMBERS, domain=('any', 'any')):
    # The scalar-operand variants exercise the implicit broadcast, which does not depend on
    # the dtype: one float and one int dtype suffice there.
    return [PrimCase(f'{name}-{_name(a)}-{_name(b)}', name, getattr(mlax, name), jx, (a, b),
                     dts, domain)
            for (a, b), dts in [(((3, 4), (3, 4)), dtypes),
                                (((), (3, 4)), dtypes[:1] + dtypes[2:3]),
                                (((3, 4), ()), dtypes[:1] + dtypes[2:3])]]


def _convert(src, dst):
    return PrimCase(f'convert-{src.name}-{dst.name}', 'convert_element_type',
                    lambda x: mlax.convert_element_type(x, dst),
                    lambda x: jax.lax.convert_element_type(x, dst), ((3, 4),), (src,))


def _reduction(name, jnp_fn, shape, axis, dtypes=(F32, F64, I32)):
    return PrimCase(f'{name}-{_name(shape)}-{axis}', name,
                    lambda x: getattr(mlax, name)(x, axis),
                    lambda x: jnp_fn(x, axis=axis).astype(x.dtype), (shape,), dtypes)


def _static(name, primitive, mj, jx, shapes, dtypes=NUMBERS, **kw):
    return PrimCase(name, primitive, mj, jx, shapes, dtypes, **kw)


def _broadcast(shape_in, shape, axes):
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return _static(f'broadcast-{_name(shape_in)}-{axes}', 'broadcast_in_dim',
                   lambda x: mlax.broadcast(x, shape, axes),
                   lambda x: jax.lax.broadcast_in_dim(x, shape, kept), (shape_in,))


def _broadcast_in_dim(shape_in, shape, dims):
    return _static(f'broadcast_in_dim-{_name(shape_in)}-{_name(shape)}-{dims}',
                   'broadcast_in_dim', lambda x: mlax.broadcast_in_dim(x, shape, dims),
                   lambda x: jax.lax.broadcast_in_dim(x, shape, dims), (shape_in,))


def _transpose(shape, perm):
    return _static(f'transpose-{perm}', 'transpose', lambda x: mlax.transpose(x, perm),
                   lambda x: jax.lax.transpose(x, perm), (shape,))


def _dot(lhs, rhs, dims):
    return _static(f'dot_general-{_name(lhs)}-{_name(rhs)}', 'dot_general',
                   lambda x, y: mlax.dot_general(x, y, dims),
                   lambda x, y: jax.lax.dot_general(x, y, dims), (lhs, rhs), (F32, F64, I32))


def _comparisons():
    return [c for name, jx in [('greater', jax.lax.gt), ('less', jax.lax.lt), ('eq', jax.lax.eq),
                               ('ne', jax.lax.ne), ('ge', jax.lax.ge), ('le', jax.lax.le)]
            for c in _binary(name, jx)]


I32_ = I32  # a fixed operand dtype (indices)

PRIMITIVE_CASES = [
    _unary('sin'), _unary('cos'), _unary('exp'), _unary('log', domain='pos'),
    _unary('tanh'), _unary('logistic'), _unary('sqrt', domain='pos'),
    _unary('rsqrt', domain='pos'),
    _unary('neg', NUMBERS), _unary('abs', NUMBERS, 'nonzero'), _unary('sign', NUMBERS),
    *_binary('add', jax.lax.add), *_binary('sub', jax.lax.sub), *_binary('mul', jax.lax.mul),
    *_binary('div', jax.lax.div, domain=('any', 'nonzero')),
    *_binary('max', jax.lax.max), *_binary('min', jax.lax.min),
    *_binary('pow', jax.lax.pow, FLOATS, domain=('pos', 'any')),
    *_comparisons(),
    *[_static(f'integer_pow-{y}', 'integer_pow', lambda x, y=y: mlax.integer_pow(x, y),
              lambda x, y=y: jax.lax.integer_pow(x, y), ((3, 4),), dt, domain=(dom,))
      for y, dt, dom in [(0, NUMBERS, 'any'), (1, NUMBERS, 'any'), (3, NUMBERS, 'any'),
                         (-2, FLOATS, 'nonzero')]],
    _convert(F32, F64), _convert(F64, F32), _convert(F64, I32), _convert(I32, F64),
    _convert(I64, I32), _convert(F32, BOOL),
    _static('select_n-bool', 'select_n', mlax.select_n, jax.lax.select_n,
            ((3, 4), (3, 4), (3, 4)), arg_dtypes=(BOOL, None, None)),
    _static('select_n-scalar-pred', 'select_n', mlax.select_n, jax.lax.select_n,
            ((), (3, 4), (3, 4)), arg_dtypes=(BOOL, None, None)),
    _static('select_n-int3', 'select_n', mlax.select_n, jax.lax.select_n,
            ((3, 4),) * 4, domain=('idx3', 'any', 'any', 'any'),
            arg_dtypes=(I32_, None, None, None)),
    *[_reduction(name, fn, (2, 3, 4), axis)
      for name, fn in [('reduce_sum', jnp.sum), ('reduce_max', jnp.max), ('reduce_min', jnp.min)]
      for axis in [None, 1, (0, 2)]],
    *[_static(f'{name}-{axis}', name, lambda x, n=name, a=axis: getattr(mlax, n)(x, a, I32),
              lambda x, n=name, a=axis: getattr(jax.lax, n)(x, a, I32), ((3, 4, 5),), (F32, F64, I32))
      for name in ('argmax', 'argmin') for axis in (0, 2)],
    _broadcast((3,), (2, 3, 4), (0, 2)), _broadcast((), (2, 3), (0, 1)),
    _broadcast((2, 3), (2, 3, 5), (2,)),
    _broadcast_in_dim((3,), (2, 3, 4), (1,)), _broadcast_in_dim((1, 3), (4, 3), (0, 1)),
    _transpose((2, 3, 4), (2, 0, 1)), _transpose((3, 4), (1, 0)),
    _static('reshape-6x4', 'reshape', lambda x: mlax.reshape(x, (6, 4)),
            lambda x: jax.lax.reshape(x, (6, 4)), ((2, 3, 4),)),
    _static('reshape-12', 'reshape', lambda x: mlax.reshape(x, (12,)),
            lambda x: jax.lax.reshape(x, (12,)), ((3, 4),)),
    _static('concatenate', 'concatenate', lambda x, y: mlax.concatenate([x, y], 1),
            lambda x, y: jax.lax.concatenate([x, y], 1), ((2, 3), (2, 4))),
    _static('pad', 'pad', lambda x, v: mlax.pad(x, v, ((1, 2, 1), (0, -1, 0))),
            lambda x, v: jax.lax.pad(x, v, ((1, 2, 1), (0, -1, 0))), ((3, 4), ())),
    _static('iota', 'iota', lambda: mlax.iota(I32, (3, 4), 1),
            lambda: jax.lax.broadcasted_iota(I32, (3, 4), 1), (), (I32,)),
    _static('slice', 'slice', lambda x: mlax.slice(x, (0, 1), (3, 4), (2, 1)),
            lambda x: jax.lax.slice(x, (0, 1), (3, 4), (2, 1)), ((4, 5),)),
    _static('dynamic_slice', 'dynamic_slice',
            lambda x, i, j: mlax.dynamic_slice(x, (i, j), (2, 3)),
            lambda x, i, j: jax.lax.dynamic_slice(x, (i, j), (2, 3)), ((5, 6), (), ()),
            domain=('any', 'idx', 'idx'), arg_dtypes=(None, I32_, I32_)),
    _static('dynamic_update_slice', 'dynamic_update_slice',
            lambda x, u, i, j: mlax.dynamic_update_slice(x, u, (i, j)),
            lambda x, u, i, j: jax.lax.dynamic_update_slice(x, u, (i, j)),
            ((5, 6), (2, 3), (), ()), domain=('any', 'any', 'idx', 'idx'),
            arg_dtypes=(None, None, I32_, I32_)),
    _dot((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    _dot((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    _dot((4, 3), (5, 4), (((0,), (1,)), ((), ()))),
]


def case_params(cases=PRIMITIVE_CASES, dtypes=None):
    """pytest params ``(case, dtype)`` for every case and each of its dtypes (in ``dtypes``)."""
    return [pytest.param(c, d, id=f'{c.id}-{d.name}')
            for c in cases for d in c.dtypes if dtypes is None or d in dtypes]


def only_args(f, args, which):
    """``f`` as a function of ``args[i] for i in which``; the other arguments are fixed."""
    def g(*xs):
        full = list(args)
        for i, x in zip(which, xs):
            full[i] = x
        return f(*full)
    return g
