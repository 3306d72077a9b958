"""The everyday ``jax.numpy`` surface, against ``jax.numpy`` (x64): eager results are Arrays,
the functions and methods JAX programs use (values eagerly and under jit, and gradients),
indexing with traced integers, arrays built from traced scalars, and the errors.

Each row is a function of a module ``m`` (``minijax.numpy`` or ``jax.numpy``) and the kinds
of its inputs, so one lambda states the call for both.
"""
import weakref
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import F32, F64, I32, I64, assert_close, jax_answer, jax_vjp

import minijax
import minijax.numpy as mnp

# ----------------------------------------------------------------------------- inputs

_SPECIAL = np.array([0., -0., 1.5, -2.5, np.inf, -np.inf, np.nan, 1e300, -1e-300, 0.5])


def _input(rng, kind, shape):
    """An input of ``kind``: 'u' uniform in (-2, 2); 'pos' in (.5, 2.5); 'small' near 0
    (log1p, expm1); 'halves' a grid of halves and quarters (rounding ties); 'i' and 'i32'
    integers in [-9, 9]; 'nz' nonzero integers; 'b' booleans; 'special' zeros, infinities,
    NaN and extremes."""
    if kind == 'special':
        return _SPECIAL
    if kind == 'b':
        return rng.random(shape) > .5
    if kind in ('i', 'i32', 'nz'):
        x = rng.integers(-9, 10, shape)
        x = np.where(x == 0, 3, x) if kind == 'nz' else x
        return x.astype(I32 if kind == 'i32' else I64)
    if kind == 'halves':
        return rng.integers(-12, 13, shape) / 4.
    if kind == 'small':
        return rng.uniform(-1, 1, shape) * 10. ** rng.integers(-12, 1, shape)
    x = rng.uniform(-2, 2, shape)
    return np.abs(x) + .5 if kind == 'pos' else x


class Case(NamedTuple):
    id: str
    fn: Callable                 # fn(m, *args) with m the numpy module
    args: tuple                  # (kind, shape) per argument
    differentiable: bool = True


def _c(id, fn, *args, grad=True):
    return Case(id, fn, tuple(args), grad)


U3, U34, U234 = ('u', (3,)), ('u', (3, 4)), ('u', (2, 3, 4))
P34 = ('pos', (3, 4))

CASES = [
    # elementwise math without a primitive of its own
    _c('tan', lambda m, x: m.tan(x), U34),
    _c('sinh-cosh', lambda m, x: m.sinh(x) + m.cosh(x), U34),
    _c('sinh-small', lambda m, x: m.sinh(x), ('small', (20,))),
    _c('log1p-expm1', lambda m, x: m.log1p(x) + m.expm1(x), P34),
    _c('log1p-expm1-small', lambda m, x: m.log1p(x) + m.expm1(x), ('small', (20,))),
    _c('exp2-log2-log10', lambda m, x: m.exp2(x) + m.log2(x) + m.log10(x), P34),
    _c('square-abs', lambda m, x: m.square(x) + m.abs(x) + m.absolute(-x), U34),
    _c('deg2rad', lambda m, x: m.deg2rad(x) + m.rad2deg(x), U3),
    # an inexact base keeps its type against integer exponents: 2.0 ** n is a strong float
    _c('power-integer-exponent', lambda m, x, n: m.power(2.0, n) * x.astype(m.float32),
       U34, ('i', (4,)), grad=False),
    _c('power-integer-exponents', lambda m, x, n: m.power(x, n) + x ** n, U34, ('i', (4,)),
       grad=False),
    _c('power-integer-exponent-grad', lambda m, x: m.power(x, m.arange(4)) * 2.0 ** m.arange(4),
       U34),
    _c('radians-conjugate', lambda m, x: m.radians(x) + m.conjugate(x), U3),
    _c('greater_equal', lambda m, x, y: m.greater_equal(x, y), U34, ('u', (4,)), grad=False),
    _c('broadcast_arrays', lambda m, x, y: sum(m.broadcast_arrays(x, y, 1.)), ('u', (3, 1)),
       ('u', (4,))),
    _c('maximum-minimum', lambda m, x, y: m.maximum(x, y) - m.minimum(x, 0.), U34, U34),
    _c('clip', lambda m, x: m.clip(x, -1., 1.) + m.clip(x, max=.5) + x.clip(0), U34),
    _c('rounding', lambda m, x: m.stack([m.floor(x), m.ceil(x), m.round(x), m.trunc(x),
                                         m.rint(x), m.around(x)]),
       ('halves', (25,)), grad=False),
    _c('rounding-special', lambda m, x: m.stack([m.floor(x), m.ceil(x), m.round(x),
                                                 m.trunc(x)]), ('special', ()), grad=False),
    _c('round-decimals', lambda m, x: m.round(x, 2) + x.round(1), U34, grad=False),
    _c('round-rint-complex', lambda m, x, y: m.stack([m.round(x + 1j * y), m.rint(x - 1j * y),
                                                      m.round(x + 1j * y, 1)]),
       ('halves', ()), ('halves', ()), grad=False),  # each part rounded
    _c('rint-int', lambda m, x: m.rint(x), ('i32', (5,)), grad=False),  # float64, as JAX's
    _c('rounding-int', lambda m, x: m.floor(x) + m.round(x) + m.ceil(x), ('i32', (5,)),
       grad=False),
    _c('predicates', lambda m, x: m.stack([m.isnan(x), m.isinf(x), m.isfinite(x)]),
       ('special', ()), grad=False),
    _c('mod-floordiv-float', lambda m, x, y: m.stack([x % y, x // y, m.remainder(x, 2.5),
                                                      m.floor_divide(x, -1.5), 7. % y]),
       U34, P34, grad=False),
    _c('mod-grad', lambda m, x: x % 1.5, ('pos', (6,))),
    _c('mod-floordiv-int', lambda m, x, y: m.stack([x % y, x // y, m.mod(x, 4), -7 // y]),
       ('i', (4, 5)), ('nz', (4, 5)), grad=False),
    _c('logical', lambda m, x, y: m.stack([m.logical_and(x, y), m.logical_or(x, y),
                                           m.logical_xor(x, y), m.logical_not(x), x & y,
                                           x | y, x ^ y, ~x]), ('b', (6,)), ('b', (6,)),
       grad=False),
    _c('logical-numbers', lambda m, x: m.logical_and(x, x > 0) + m.logical_not(x), U3,
       grad=False),
    _c('invert-int', lambda m, x: ~x, ('i', (6,)), grad=False),
    _c('bitwise_invert', lambda m, x: m.bitwise_invert(x), ('i32', (6,)), grad=False),
    _c('isclose', lambda m, x, y: m.stack([m.isclose(x, y), m.isclose(x, x + 1e-9),
                                           m.isclose(y, y, equal_nan=True)]),
       ('u', (10,)), ('special', ()), grad=False),
    _c('isclose-int-complex', lambda m, x: m.stack([
        m.isclose(x * 100_000, x * 100_000 + 1), m.isclose(x, x + 1), m.isclose(x > 0, x < 0),
        m.isclose(x * (1 + 1j), x * (1 + 1j) + 1e-9j), m.isclose(x * 1j, x * 1j + 1e-3)]),
       ('nz', (6,)), grad=False),
    _c('allclose', lambda m, x: m.stack([m.allclose(x, x + 1e-9), m.allclose(x, x + 1e-3),
                                         m.array_equal(x, x)]), U34, grad=False),
    # reductions
    _c('prod', lambda m, x: m.prod(x) + m.prod(x, 1).sum() + m.prod(x, (0, 2),
                                                                     keepdims=True).sum(), U234),
    _c('prod-odd', lambda m, x: m.prod(x, 0) + x.prod(-1), ('u', (7, 7))),
    _c('prod-int', lambda m, x: m.prod(x, 0), ('i32', (3, 4)), grad=False),
    _c('var-std', lambda m, x: m.var(x) + m.std(x, 1).sum() + m.var(x, (0, 2), ddof=1).sum()
       + x.std(keepdims=True).sum() + x.var(-1).sum(), U234),
    _c('var-int', lambda m, x: m.var(x, 0) + m.std(x, 1).sum(), ('i32', (3, 4)), grad=False),
    _c('any-all', lambda m, x: m.stack([m.any(x > 1), m.all(x > -3), (x > 0).any(),
                                        (x > 0).all()]), U34, grad=False),
    _c('any-all-axis', lambda m, x: m.any(x, 0) ^ m.all(x > 0, axis=1, keepdims=True),
       ('i', (3, 4)), grad=False),
    _c('amax-amin', lambda m, x: m.amax(x, 1) - m.amin(x, axis=1, keepdims=True).sum(), U34),
    _c('lexsort', lambda m, x, y: m.lexsort((x, y)) + m.lexsort(m.stack([y, x])),
       ('i', (9,)), ('i', (9,)), grad=False),
    _c('argmin', lambda m, x: m.argmin(x) + m.argmin(x, 1).sum() + x.argmin(0).sum()
       + x.argmax(), U34, grad=False),
    _c('sum-keepdims-dtype', lambda m, x: m.sum(x, 1, keepdims=True) + m.sum(x, dtype=m.float64),
       ('i32', (3, 4)), grad=False),
    _c('cumsum-cumprod', lambda m, x: m.cumsum(x) .sum() + m.cumsum(x, 1) + m.cumprod(x, 0)
       + x.cumsum(-1), ('u', (5, 6))),
    _c('cumsum-int', lambda m, x: m.cumsum(x, 0), ('i32', (9, 2)), grad=False),
    _c('count_nonzero', lambda m, x: m.count_nonzero(x) + m.count_nonzero(x, 0).sum(),
       ('i', (4, 5)), grad=False),
    # linear algebra
    _c('vdot-inner-outer', lambda m, x, y: m.vdot(x, y) + m.inner(x, y).sum()
       + m.outer(x, y).sum(), U34, U34),
    _c('inner-vec', lambda m, x, y: m.inner(x, y), U3, U3),
    _c('vecdot', lambda m, x, y: m.vecdot(x, y) + m.vecdot(x, x, axis=0).sum(),
       ('u', (2, 3, 4)), ('u', (3, 4))),  # once inner's outer product of the other axes
    _c('vdot-vecdot-complex', lambda m, x, y: m.vdot(x + 1j * y, y - 2j * x)
       + m.vecdot(x + 1j * y, y - 2j * x).sum(), U34, U34, grad=False),  # x1 conjugated
    _c('tensordot', lambda m, x, y: m.tensordot(x, y, 1).sum() + m.tensordot(x, y.T, 2)
       + m.tensordot(x, y, ((1,), (0,))).sum(), U34, ('u', (4, 3))),
    _c('tensordot-pair', lambda m, x, y: m.tensordot(x, y, axes=([1, 0], [0, 1])), U234,
       ('u', (3, 2, 5))),
    *[_c(f'einsum-{spec}', lambda m, *xs, spec=spec: m.einsum(spec, *xs), *shapes)
      for spec, shapes in [
          ('ij,jk->ik', (U34, ('u', (4, 5)))), ('ij,ij->', (U34, U34)), ('i,i', (U3, U3)),
          ('ij->ji', (U34,)), ('ii', (('u', (4, 4)),)), ('ii->i', (('u', (4, 4)),)),
          ('ij->i', (U34,)), ('bij,bjk->bik', (U234, ('u', (2, 4, 5)))),
          ('...ij,...jk->...ik', (U234, ('u', (2, 4, 3)))), ('ij,j->i', (U34, ('u', (4,)))),
          ('i,j->ij', (U3, ('u', (4,)))), ('ij,jk,kl->il', (U34, ('u', (4, 5)), ('u', (5, 2)))),
          ('ji,jk', (U34, ('u', (3, 2)))), ('bi,bi->b', (U34, U34))]],
    _c('trace-diag', lambda m, x: m.trace(x) + m.trace(x, 1) + m.diag(x).sum()
       + m.diag(x, -1).sum() + m.diagonal(x, 2).sum(), ('u', (4, 5))),
    _c('diag-vector', lambda m, v: m.diag(v) + m.diag(v[1:], 1) + m.diag(v[:-1], -1), U3),
    _c('diagonal-batched', lambda m, x: m.diagonal(x, 0, 1, 2) + x.diagonal(axis1=2, axis2=1),
       ('u', (2, 3, 3))),
    _c('tril-triu', lambda m, x: m.tril(x) + m.triu(x, 1) + m.tril(x, -1) + m.triu(x, -2),
       ('u', (2, 4, 5))),
    _c('eye-identity', lambda m, x: x @ m.eye(4) + m.eye(3, 4, k=1) + m.identity(3) @ x
       + m.eye(3, 4, -1, dtype=m.float64) + m.tri(3, 4), U34),
    _c('norm', lambda m, x: m.stack([m.linalg.norm(x), m.linalg.norm(x, 'fro'),
                                     m.linalg.norm(x, 1), m.linalg.norm(x, np.inf),
                                     m.linalg.norm(x, -1), m.linalg.norm(x[0]),
                                     m.linalg.norm(x[0], 1), m.linalg.norm(x[0], 3),
                                     m.linalg.norm(x[0], -np.inf), m.linalg.norm(x[0], 0)]),
       U34),
    _c('norm-axis', lambda m, x: m.linalg.norm(x, axis=1).sum() + m.linalg.norm(x, 2, -1).sum()
       + m.linalg.norm(x, axis=(0, 1), keepdims=True).sum(), U234),
    _c('norm-complex', lambda m, x, y: m.stack([
        m.linalg.norm(x + 1j * y), m.linalg.norm(x + 1j * y, 'fro'), m.linalg.norm(x + 1j * y, 1),
        m.linalg.norm(x[0] + 1j * y[0]), m.linalg.norm(x[0] + 1j * y[0], 0),
        m.linalg.norm(x[0] + 1j * y[0], 3)]), U34, U34, grad=False),  # real: |x|, not x
    # shapes
    _c('vstack-hstack', lambda m, x, y: m.vstack([x, y, x]).sum(0) + m.hstack([x, y])[:3]
       + m.column_stack([x, y]).sum(1), U3, U3),
    _c('stack-2d', lambda m, x, y: m.vstack([x, y]).T @ m.vstack([x, y]) + m.hstack([x, y]).sum(),
       U34, U34),
    _c('tile', lambda m, x: m.tile(x, 2).sum() + m.tile(x, (2, 1, 3)).sum(0), U34),
    _c('repeat', lambda m, x: m.repeat(x, 2).sum() + m.repeat(x, 3, axis=1).sum(1)
       + x.repeat(2, 0).sum(), U34),
    _c('flip', lambda m, x: m.flip(x) + m.flip(x, 1) + m.flip(x, (0, 2)) + m.flip(x, -1),
       ('u', (3, 5, 7))),
    _c('fliplr-flipud', lambda m, x: m.fliplr(x) * m.flipud(x), ('u', (6, 6))),
    _c('roll', lambda m, x: m.roll(x, 2) + m.roll(x, -1, 1) + m.roll(x, 7, 0)
       + m.roll(x, (1, 2), (0, 1)), ('u', (3, 5))),
    _c('meshgrid', lambda m, x, y: sum(a.sum() for a in m.meshgrid(x, y))
       + m.meshgrid(x, y)[0] * m.meshgrid(x, y, indexing='ij')[1].T, U3, ('u', (4,))),
    _c('ravel-flatten', lambda m, x: m.ravel(x) + x.ravel() * x.flatten(), U234),
    _c('moveaxis', lambda m, x: m.moveaxis(x, 0, -1) + m.moveaxis(x, (0, 1), (2, 0)).transpose(
        1, 2, 0), ('u', (3, 3, 3))),
    _c('split', lambda m, x: sum(a.sum() * (i + 1) for i, a in enumerate(
        m.split(x, 2, 1) + m.split(x, [1, 3]))), ('u', (4, 6))),
    _c('pad', lambda m, x: m.pad(x, 1).sum(0) + m.pad(x, ((0, 2), (1, 0)), constant_values=2.)
       .sum(), U34),
    _c('atleast', lambda m, x: m.atleast_2d(x) + m.atleast_1d(x[0]), U3),
    _c('take', lambda m, x: m.take(x, np.array([2, 0, -1, 2])) + m.take(x, np.array([1, 0, 2,
                                                                                     1]), 0)[:, 0],
       U34),
    _c('transpose-methods', lambda m, x, y: x.transpose(1, 0) @ y + x.transpose() @ y
       + x.T.dot(y) + x.swapaxes(0, 1) @ y, U34, ('u', (3, 2))),
    _c('squeeze-method', lambda m, x: x.squeeze() + x.squeeze(1).sum(), ('u', (3, 1, 1))),
    # the methods of JAX's Array that are not jnp functions of the same name (traced too)
    _c('mT-ptp', lambda m, x: x.mT.sum(0) + x.ptp(1) + x.ptp(axis=0, keepdims=True).sum(), U34),
    _c('divmod', lambda m, x, y: m.stack([*divmod(x, y), *divmod(2.5, y)]), U34, P34,
       grad=False),
    _c('search-choose-partition', lambda m, x: m.concatenate([
        m.sort(x).searchsorted(x, side='right'), x.argpartition(3), m.partition(x, -2),
        (x % 3).choose([x, -x, 7], mode='wrap'), x.choose([x, 7], mode='clip')]),
       ('i', (8,)), grad=False),
    _c('partition-axis', lambda m, x: m.stack([x.argpartition(1, 0),
                                               m.partition(x.astype(m.uint8), 2, axis=0)]),
       ('i', (5, 3)), grad=False),
    _c('view-byteswap', lambda m, x: m.concatenate([
        x.view(m.int32).ravel(), x.byteswap().view(m.int64).ravel(), (x > 0).view(m.int8)
        .ravel(), (x + 1j * x).view(m.int64).ravel(), x.view(m.complex128).imag.view(m.int64)
        .ravel()]), U34, grad=False),
    # creation, mixed with traced values
    _c('creation-like', lambda m, x: m.full_like(x, 2.) + m.ones_like(x) + m.zeros_like(x)
       + m.empty_like(x) * 0 + m.full(x.shape, 3.), U34),
    _c('constants', lambda m, x: x * m.pi + m.e + m.where(x > 0, m.inf, -m.inf) * 0
       + x[m.newaxis, :, None].sum(), U3, grad=False),
    _c('dtype-objects', lambda m, x: m.float32(x) * m.asarray(2, m.float32)
       + x.astype(m.float32) + m.zeros(3, m.float32), U3),
    _c('dtype-objects-int', lambda m, x: m.int32(x) + m.int64(3) + m.arange(3, dtype=m.int32),
       ('i', (3,)), grad=False),
    # arrays of traced scalars, traced and integer-array indices
    _c('array-of-traced', lambda m, x: m.array([x[0], 1., x[2] * 2]) + m.asarray([[x[1]], [0.]])
       .sum(), U3),
    _c('stack-of-traced', lambda m, x: m.stack([x[0], x[1]]) + m.array([[x[0], x[1]],
                                                                        [x[2], 0.]])[1], U3),
    _c('integer-array-index', lambda m, x: x[np.array([2, 0, -1])] + x[:, np.array([1, 1, 0])]
       .T, ('u', (3, 3))),
    _c('where-mask', lambda m, x: m.where(x > 0, x, 0.) + m.where(m.isnan(x), 0., 1.), U34),
    # polynomials (coefficients highest power first), bins, derivatives of samples
    _c('polynomials', lambda m, p, q: m.concatenate([
        m.polyadd(p, q), m.polysub(q, p), m.polymul(p, q), m.polyder(q), m.poly(p),
        m.polyint(q, 2, k=p[:2]), m.vander(p).ravel()]), U3, ('u', (5,))),
    _c('polynomials-int-digitize', lambda m, x, y: m.concatenate([
        m.vander(x, 3, increasing=True).ravel(), x ** m.abs(y), m.polyder(x, 2), m.polyint(x),
        m.digitize(x, np.array([-1., 0., .5])), m.digitize(y, np.array([5, 0, -1]), True)]),
       ('i', (6,)), ('i32', (6,)), grad=False),
    _c('polyfit', lambda m, x, y: m.concatenate([r.ravel() for r in (
        *m.polyfit(x, y, 2, full=True), *m.polyfit(x, y[:, 0], 1, w=x * x + .5, cov=True))]),
       ('u', (8,)), ('u', (8, 2)), grad=False),
    _c('gradient', lambda m, f, h: m.stack([
        *m.gradient(f), *m.gradient(f, m.cumsum(h), 2., axis=(0, -1))]), U34, ('pos', (3,)),
       grad=False),
]


def _ids(cases):
    return [pytest.param(c, id=c.id) for c in cases]


def _args(rng, case):
    return [_input(rng, kind, shape) for kind, shape in case.args]


@pytest.mark.parametrize('case', _ids(CASES))
def test_eager_and_jit(case, rng):
    """Eagerly (an Array out) and under jit, against one JAX answer."""
    args = _args(rng, case)
    expected = jax.jit(lambda *a: case.fn(jnp, *a))(*args)
    out = case.fn(mnp, *(mnp.asarray(a) for a in args))
    assert isinstance(out, minijax.Array), type(out)
    assert_close(out, expected)
    assert_close(minijax.jit(lambda *a: case.fn(mnp, *a))(*args), expected)


@pytest.mark.parametrize('case', _ids([c for c in CASES if c.differentiable]))
def test_vjp(case, rng):
    args = _args(rng, case)
    out, f_vjp = minijax.vjp(lambda *a: case.fn(mnp, *a), *args)
    expected_out, ct, expected_cts = jax_vjp(lambda *a: case.fn(jnp, *a), args, rng)
    assert_close(out, expected_out)
    for got, expected in zip(f_vjp(ct), expected_cts, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-9, atol=1e-12)


#: where= (a mask) and initial= of the reductions and their methods: (function of the numpy
#: module and an input, input kind)
WHERE_REDUCTIONS = {
    'float': (lambda m, x: (lambda w: m.stack([
        m.sum(x, 1, where=w, initial=2.), x.max(1, where=w, initial=0.), m.mean(x, 1, where=w),
        x.std(1, ddof=1, where=w), m.nanvar(x, 1, where=w)]))(x > -1.), U34),
    'int': (lambda m, x: m.stack([
        m.sum(x, 0, where=x > 0), m.min(x, 0, where=x < 5, initial=99), x.any(0, where=x < 5),
        m.prod(x, 0, where=x != 0, initial=1), m.mean(x, 0, where=x > 0)]), ('i32', (3, 4))),
    'nan': (lambda m, x: m.stack([
        m.nansum(x, where=x < 1.), m.nanstd(x, where=x < 1.), m.nanmin(x * m.nan, initial=1.),
        m.nanmax(x, where=x < 1., initial=-5.)]), ('special', ())),
}


@pytest.mark.parametrize('name', WHERE_REDUCTIONS)
def test_reductions_with_where_and_initial(name, rng):
    fn, (kind, shape) = WHERE_REDUCTIONS[name]
    x = _input(rng, kind, shape)
    expected = jax.jit(lambda x: fn(jnp, x))(x)
    assert_close(fn(mnp, mnp.asarray(x)), expected)
    assert_close(minijax.jit(lambda x: fn(mnp, x))(x), expected)
    if kind == 'u':
        assert_close(minijax.grad(lambda x: fn(mnp, x).sum())(x),
                     jax.jit(jax.grad(lambda x: fn(jnp, x).sum()))(x))


# ----------------------------------------------------------------------------- eager Arrays

def test_eager_results_are_arrays_with_jax_semantics():
    x = mnp.zeros(3).at[1].set(2.)
    y = jnp.zeros(3).at[1].set(2.)
    assert isinstance(x, minijax.Array) and isinstance(x, mnp.ndarray)
    x += 1
    y += 1
    assert repr(x) == repr(y)
    assert repr(mnp.float32(2)) == repr(jnp.float32(2))
    assert [repr(r) for r in mnp.arange(6.).reshape(2, 3)] == [
        repr(r) for r in jnp.arange(6.).reshape(2, 3)]
    assert x.block_until_ready() is x
    assert x.tolist() == y.tolist() and x[1].item() == y[1].item()
    assert f'{x[1]:.2f}' == f'{y[1]:.2f}' and str(x) == str(y)
    assert np.asarray(x).dtype == F64 and not np.asarray(x).flags.writeable
    assert range(10)[mnp.argmax(x)] == 1
    assert x.shape == (3,) and x.ndim == 1 and x.size == 3 and x.dtype == mnp.float64


@pytest.mark.parametrize('copy', ['copy', 'deepcopy', 'pickle'])
def test_arrays_pickle_and_copy_as_jax_arrays_do(copy):
    """Real programs deep-copy and pickle parameters: the value, dtype and weak type come
    back, key arrays too."""
    import copy as copy_module
    import pickle
    again = {'copy': copy_module.copy, 'deepcopy': copy_module.deepcopy,
             'pickle': lambda v: pickle.loads(pickle.dumps(v))}[copy]
    for lib in (mnp, jnp):
        values = [lib.arange(3.) * 2, lib.asarray(2.), lib.ones(2, lib.bfloat16),
                  lib.array([[1, 2]], lib.int8)]
        restored = [again(v) for v in values]
        assert [(v.tolist(), v.dtype, v.weak_type) for v in restored] == \
               [(v.tolist(), v.dtype, v.weak_type) for v in values]
    key = again(minijax.random.split(minijax.random.key(3)))
    assert minijax.random.key_data(key).tolist() == \
        jax.random.key_data(jax.random.split(jax.random.key(3))).tolist()
    assert minijax.random.normal(key[1]).item() == jax.random.normal(
        jax.random.split(jax.random.key(3))[1]).item()


def _device_surface(lib, jit, x):
    """What JAX's device-array attributes and Python's protocols say of ``x``, comparable
    across the libraries (``lib`` the numpy module, ``jit`` its jit)."""
    shard, = x.addressable_shards
    return dict(
        device=str(x.device), sharding=repr(x.sharding), platform=x.platform(),
        flags=(x.committed, x.is_fully_addressable, x.is_fully_replicated, x.is_ready(),
               x.is_deleted()),
        size=x.on_device_size_in_bytes(), devices=[str(d) for d in x.sharding.device_set],
        indices=list(x.sharding.devices_indices_map(x.shape).values()),
        shard=(shard.index, shard.replica_id, shard.data.tolist(), len(x.global_shards)),
        data=x.addressable_data(0).tolist(), bytes=(x.tobytes(), x.tobytes('F')),
        dlpack=(tuple(x.__dlpack_device__()), np.from_dlpack(x).tolist(),
                np.from_dlpack(x).ctypes.data == x.unsafe_buffer_pointer()),
        scalars=(complex(x[0, 1]), complex(lib.int32(3)), x[1, 2] in x[1], 100 in x[1]),
        moved=[x.to_device(x.device).tolist(), x.to_device(x.sharding).tolist(),
               jit(lambda a: a.to_device(x.device) * 2)(x).tolist()],
        weak=weakref.ref(x)() is x)


def test_arrays_have_jax_device_array_surface():
    """One CPU device: the answers of JAX's device arrays there, for a jit result (its
    memory is what DLPack and the buffer pointer show) and an eager array."""
    for make in (lambda lib: lib.arange(6.).reshape(2, 3) * 2,
                 lambda lib: lib.array([[1, 2, 3], [4, 5, 6]], lib.int8)):
        x = minijax.jit(lambda: make(mnp))()
        assert _device_surface(mnp, minijax.jit, x) == \
            _device_surface(jnp, jax.jit, jax.jit(lambda: make(jnp))())
    assert _device_surface(mnp, minijax.jit, make(mnp))['scalars'] == \
        _device_surface(jnp, jax.jit, make(jnp))['scalars']
    with pytest.raises(AttributeError, match='minijax has no layouts API'):
        x.format  # noqa: B018


def test_deleted_arrays_raise_jax_error():
    errors = []
    for lib, jit in ((mnp, minijax.jit), (jnp, jax.jit)):
        x, y = lib.ones((2, 3)), jit(lambda: lib.ones(3))()
        x.delete(), y.delete()
        assert x.is_deleted() and y.is_deleted() and x.shape == (2, 3)
        for use in (repr, lambda a: a + 1, np.asarray, jit(lambda a: a), lambda a: a.device):
            for a in (x, y):
                with pytest.raises(RuntimeError) as error:
                    use(a)
                errors.append(str(error.value))
    assert errors[:len(errors) // 2] == errors[len(errors) // 2:]


@pytest.mark.parametrize('fn,error,message', [
    pytest.param(lambda m: m.ones(2).flat, NotImplementedError,
                 r'do not implement the arr.flat property', id='flat'),
    pytest.param(lambda m: complex(m.ones(2)), TypeError,
                 r'Only scalar arrays .* got arr.ndim=1', id='complex'),
    pytest.param(lambda m: m.ones((2, 2)) in m.ones((2, 2)), ValueError,
                 'must be one-dimensional', id='contains'),
    pytest.param(lambda m: m.ones(3).mT, ValueError,
                 'at least two-dimensional for matrix_transpose', id='mT'),
    pytest.param(lambda m: m.ones(3).view(m.complex128), ValueError, 'must be a divisor',
                 id='view'),
    pytest.param(lambda m: m.choose(m.array([0, 3]), [1, 2]), ValueError,
                 'invalid entry in choice array', id='choose'),
    pytest.param(lambda m: m.asarray(None), ValueError, 'None is not a valid value for '
                 'jnp.array', id='asarray-None'),
    pytest.param(lambda m: m.array([1., [None]]), ValueError, 'None is not a valid value',
                 id='array-None-in-list'),
    pytest.param(lambda m: m.ones(2).__array_namespace__(api_version='2023.12'), ValueError,
                 r"api_version='2023.12' is not available; available versions are: "
                 r"\['2024.12'\]", id='array_namespace'),
])
def test_array_method_errors_as_jax(fn, error, message):
    for lib in (mnp, jnp):
        with pytest.raises(error, match=message):
            fn(lib)


def test_array_namespace_is_jnp_as_in_jax():
    """The array API's entry point (the jax.numpy page's example), on Arrays and tracers."""
    def f(x):
        xp = x.__array_namespace__()
        return xp.sin(x) ** 2 + xp.cos(x) ** 2
    x = np.arange(5.)
    assert mnp.ones(2).__array_namespace__() is mnp
    assert mnp.ones(2).__array_namespace__(api_version='2024.12') is mnp
    for g in (f, minijax.jit(f), minijax.vmap(f)):
        assert_close(g(mnp.asarray(x)), jax.jit(f)(jnp.asarray(x)))


def test_array_namespace_info_is_jaxs():
    """``jnp.__array_namespace_info__()``, what an array-API library asks of the namespace
    (the jax.numpy page lists it among jnp's functions)."""
    mine, theirs = mnp.__array_namespace_info__(), jnp.__array_namespace_info__()
    assert mnp.__array_api_version__ == jnp.__array_api_version__
    assert mine.capabilities() == theirs.capabilities()
    assert mine.default_device() is theirs.default_device() is None
    assert list(map(str, mine.devices())) == list(map(str, theirs.devices()))
    assert mine.default_dtypes() == theirs.default_dtypes()
    for kind in [None, 'bool', 'integral', 'numeric', ('bool', 'real floating'),
                 'complex floating', 'signed integer', 'unsigned integer']:
        assert mine.dtypes(kind=kind) == theirs.dtypes(kind=kind)


def test_eager_results_do_not_alias_numpy_arguments():
    a = np.arange(6.)
    out = mnp.reshape(a, (6,)), mnp.reshape(a, (2, 3)), mnp.asarray(a), mnp.broadcast_to(a, (6,))
    a[0] = 100.
    assert all(np.asarray(o).ravel()[0] == 0. for o in out)


NUMPY_FUNCTIONS_OF_ARRAYS = {
    'round': lambda x: np.round(x, 1), 'around': np.around, 'sum': np.sum,
    'mean-axis': lambda x: np.mean(x, 0), 'max-initial': lambda x: np.max(x, initial=3.),
    'sum-where': lambda x: np.sum(x, where=x > 1), 'std': np.std, 'argmax': np.argmax,
    'transpose': np.transpose, 'reshape': lambda x: np.reshape(x, (3, 2)), 'cumsum': np.cumsum,
    'any': np.any, 'clip': lambda x: np.clip(x, 1, 2), 'concatenate': lambda x: np.concatenate(
        [x, x]), 'where': lambda x: np.where(x > 1, x, 0), 'sin': np.sin, 'norm': np.linalg.norm,
    'shape': np.shape, 'median': np.median,
}


@pytest.mark.parametrize('name', NUMPY_FUNCTIONS_OF_ARRAYS)
def test_numpy_functions_of_arrays_do_what_they_do_on_jax_arrays(name):
    """NumPy calls an Array's method where it has one (``np.round(x)`` is an Array), and
    otherwise computes on its values (``np.concatenate``: an ndarray), as for JAX's arrays."""
    fn = NUMPY_FUNCTIONS_OF_ARRAYS[name]
    out, expected = fn(mnp.arange(6.).reshape(2, 3)), fn(jnp.arange(6.).reshape(2, 3))
    assert isinstance(out, minijax.Array) == isinstance(expected, jax.Array), type(out)
    assert_close(out, expected)


def test_lax_eager_results_compose_with_arrays():
    x = mnp.ones(3)
    out = minijax.lax.add(x, x) + x
    assert isinstance(out, minijax.Array)
    assert_close(out, jnp.full(3, 3.))


@pytest.mark.parametrize('name', ['float_', 'int_'])
def test_default_scalar_types_are_jaxs(name):
    assert np.dtype(getattr(mnp, name)) == np.dtype(getattr(jnp, name))
    assert_close(getattr(mnp, name)(2.5), getattr(jnp, name)(2.5))


def test_abstract_scalar_types_are_jaxs():
    for dtype in (I32, np.uint8, F32, np.bool_):
        assert ([mnp.issubdtype(dtype, mnp.signedinteger),
                 mnp.issubdtype(dtype, mnp.unsignedinteger)] ==
                [jnp.issubdtype(dtype, jnp.signedinteger),
                 jnp.issubdtype(dtype, jnp.unsignedinteger)])


@pytest.mark.parametrize('dtype', [F32, F64, I32, I64])
def test_dtype_objects_compare_and_convert_like_jax(dtype):
    name = np.dtype(dtype).name
    m_type, j_type = getattr(mnp, name), getattr(jnp, name)
    assert np.dtype(m_type) == np.dtype(j_type) and mnp.ones(2, dtype).dtype == m_type
    assert_close(m_type(3), j_type(3))
    assert_close(minijax.jit(lambda x: m_type(x))(2.7), jax.jit(lambda x: j_type(x))(2.7))


def test_poly_of_a_matrix_is_its_characteristic_polynomial():
    a = np.arange(9.).reshape(3, 3) ** 1.5
    assert_close(mnp.poly(a), jnp.poly(a))


def test_constants_match_jax():
    for name in ('pi', 'e', 'inf', 'euler_gamma'):
        assert getattr(mnp, name) == getattr(jnp, name)
    assert np.isnan(mnp.nan) and mnp.newaxis is jnp.newaxis is None


# ----------------------------------------------------------------------------- traced indices

def _index_programs(m, lax_module, vmap, fori_loop):
    def in_loop(x):
        x = m.asarray(x)
        return fori_loop(0, 3, lambda i, acc: acc + x[i] * x[-i - 1], 0.)

    def update_loop(x):
        x = m.asarray(x)
        return fori_loop(0, 4, lambda i, acc: acc.at[i].set(acc[i - 1] + x[i]), m.zeros(4))

    def vmapped(x, i):
        return vmap(lambda x, i: x[i] + x.at[i].add(10.)[i, 0], (0, 0))(x, i)

    return {'fori-getitem': (in_loop, ('u', (3,))), 'fori-at-set': (update_loop, ('u', (4,))),
            'vmap-index': (vmapped, ('u', (5, 3, 4)), ('idx', (5,)))}


@pytest.mark.parametrize('name', ['fori-getitem', 'fori-at-set', 'vmap-index'])
def test_traced_integer_indices(name, rng):
    mine = _index_programs(mnp, minijax.lax, minijax.vmap, minijax.fori_loop)[name]
    theirs = _index_programs(jnp, jax.lax, jax.vmap, jax.lax.fori_loop)[name]
    args = [rng.integers(-3, 3, shape) if kind == 'idx' else _input(rng, kind, shape)
            for kind, shape in mine[1:]]
    expected = jax_answer(theirs[0], *args)
    assert_close(mine[0](*args), expected)
    assert_close(minijax.jit(mine[0])(*args), expected)


@pytest.mark.parametrize('i', [0, 2, -1, -4])
def test_jit_traced_index_and_update_match_jax(i, rng):
    x = rng.uniform(size=(4, 3))

    def f(m, x, i):
        return x[i] * 2 + x[1, i % 3] + x.at[i].set(7.).sum(0) + x.at[i, 1:].add(x[0, :2])[i]

    assert_close(minijax.jit(lambda x, i: f(mnp, x, i))(x, i),
                 jax.jit(lambda x, i: f(jnp, x, i))(x, i))
    grad = minijax.grad(lambda x, i: f(mnp, x, i).sum())(x, i)
    assert_close(grad, jax_answer(jax.grad(lambda x, i: f(jnp, x, i).sum()), x, i))


@pytest.mark.parametrize('i', [4, 9, -5, -9])
def test_out_of_bounds_indices_as_jax(i, rng):
    """Out of bounds, a read clamps into the axis and an update is dropped, as JAX's gathers
    and scatters do: with a static index, a traced one (jit) and a batched one (vmap)."""
    x = rng.uniform(size=(4, 3))

    def f(m, x, i):
        x = m.asarray(x)
        return x[i] * 2 + x.at[i].set(7.).sum(0) + x.at[i, 1:].add(1.)[0]

    assert_close(f(mnp, x, i), jax_answer(lambda x, i: f(jnp, x, i), x, i))
    assert_close(minijax.jit(lambda x, i: f(mnp, x, i))(x, i),
                 jax.jit(lambda x, i: f(jnp, x, i))(x, i))
    batch = np.array([i, 1, -i])
    assert_close(minijax.vmap(lambda i: f(mnp, x, i))(batch),
                 jax_answer(jax.vmap(lambda i: f(jnp, x, i)), batch))


def test_jit_traced_roll_matches_jax(rng):
    x = rng.uniform(size=7)
    for shift in (3, -2, 9):
        assert_close(minijax.jit(mnp.roll)(x, shift), jax.jit(jnp.roll)(x, shift))


# ----------------------------------------------------------------------------- data-dependent shapes

#: fn(m, x) with a concrete x: the result's shape comes from the values, eagerly, as in JAX.
DATA_DEPENDENT = {
    'nonzero-where-argwhere': lambda m, x: (m.nonzero(x), m.where(x > 0), m.argwhere(x),
                                            m.flatnonzero(x)),
    'mask-get-and-set': lambda m, x: (x[x > 0], x[:, m.array([True, False, True, False])],
                                      x.at[x < 0].set(0.)),
    'unique': lambda m, x: m.unique(m.round(x), return_index=True, return_inverse=True,
                                    return_counts=True),
    'unique-axis-compress-extract': lambda m, x: (
        m.unique(m.round(x[:, :2]), axis=0), m.compress(x[0] > 0, x, axis=1),
        m.extract(x > 0, x)),
}


def _assert_leaves_close(got, expected):
    got, expected = jax.tree.leaves(got), jax.tree.leaves(expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_close(g, e)


@pytest.mark.parametrize('name', DATA_DEPENDENT)
def test_data_dependent_shapes_eagerly(name):
    x = np.array([[0., 1.5, -2., 0.], [3., 0., 1.5, -1.], [0., 1.5, -2., 0.]])
    got = DATA_DEPENDENT[name](mnp, mnp.asarray(x))
    assert all(isinstance(g, minijax.Array) for g in jax.tree.leaves(got))
    _assert_leaves_close(got, DATA_DEPENDENT[name](jnp, jnp.asarray(x)))


def test_data_dependent_shapes_with_size_under_jit_and_vmap():
    """With size= (and fill_value=) the shape is static: jit and vmap trace it."""
    def fn(m, x):
        return (m.nonzero(x, size=5, fill_value=-1),
                m.unique(x, size=4, fill_value=9., return_counts=True),
                m.extract(x > 0, x, size=2))
    x = np.array([0., 2., 0., 2., -1., 3.])
    _assert_leaves_close(minijax.jit(lambda x: fn(mnp, x))(x), jax.jit(lambda x: fn(jnp, x))(x))
    xs = np.stack([x, -x])
    _assert_leaves_close(minijax.vmap(lambda x: fn(mnp, x)[0])(xs),
                         jax_answer(jax.vmap(lambda x: fn(jnp, x)[0]), xs))


def test_grad_through_a_concrete_mask():
    """Under grad of a concrete value the mask is concrete (as in JAX): x[mask] gathers."""
    def loss(m):
        return lambda x: m.sum(x[x > 0.] ** 2) + m.sum(x.at[x < 0.].set(1.) * x)
    x = np.array([-1., 2., 0.5, -3.])
    assert_close(minijax.grad(loss(mnp))(x), jax.grad(loss(jnp))(x))


@pytest.mark.parametrize('fn,error,message', [
    (lambda x: mnp.nonzero(x), minijax.core.ConcretizationTypeError,
     r'jnp.nonzero.*float64\[3\]|bool\[3\].*size argument of jnp.nonzero'),
    (lambda x: mnp.unique(x), minijax.core.ConcretizationTypeError, 'size argument of jnp.unique'),
    (lambda x: x[x > 0], IndexError, r'boolean indices must be concrete; got bool\[3\]'),
], ids=['nonzero', 'unique', 'mask'])
def test_data_dependent_shapes_need_size_under_jit(fn, error, message):
    with pytest.raises(error, match=message):
        minijax.jit(fn)(np.arange(3.))
    with pytest.raises(error, match=message):
        minijax.vmap(fn)(np.ones((2, 3)))


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize('thunk,error,message', [
    (lambda: mnp.ones(3) << 1, TypeError, r'shift_left needs integer operands.*float64'),
    (lambda: mnp.ones(3) & 1, TypeError, 'and needs boolean or integer operands'),
    (lambda: ~mnp.ones(3), TypeError, 'boolean or integer'),
    (lambda: mnp.where(mnp.ones(3) > 0, 1.), TypeError, 'both x and y, or neither'),  # JAX's
    (lambda: mnp.linalg.norm(np.ones((2, 2)), 3), ValueError, "ord=3 is not a matrix norm"),
    (lambda: mnp.ones((2, 3))[mnp.ones(3) > 0], IndexError, r'index 0 has shape \(3,\)'),
    (lambda: mnp.ones(3)[1.], TypeError, 'int, slice'),
    (lambda: minijax.jit(lambda r: mnp.repeat(mnp.ones(3), r))(np.array([1, 2, 3])),
     minijax.errors.ConcretizationTypeError, 'total_repeat_length'),
    (lambda: mnp.sum(mnp.ones(3), out=mnp.ones(())), NotImplementedError, 'not supported'),
])
def test_errors_name_the_problem(thunk, error, message):
    with pytest.raises(error, match=message):
        thunk()
