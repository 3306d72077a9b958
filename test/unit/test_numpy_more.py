"""The rest of ``jax.numpy`` and ``jax.numpy.linalg`` (issue 32), against JAX (x64): each
function's values eagerly and under jit, its gradients and its batching where JAX
differentiates and batches it; the ufunc objects and their methods; the set operations with
``size=`` under jit; and the errors JAX raises.

Each row is a function of a module ``m`` (``minijax.numpy`` or ``jax.numpy``) and the kinds
of its inputs, so one lambda states the call for both.
"""
import io
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close, jax_answer, jax_vjp

import minijax
import minijax.numpy as mnp


def _input(rng, kind, shape):
    """'u' uniform in (-2, 2); 'pos' in (.5, 2.5); 'i' integers in [-9, 9]; 'nz' nonzero
    ones; 'small' small non-negative ones; 'u8' bytes; 'b' booleans; 'c' complex; 'phase'
    a random walk of angles (unwrap); 'special' zeros, subnormals, infinities, NaN."""
    if kind == 'b':
        return rng.random(shape) > .5
    if kind in ('i', 'nz'):
        x = rng.integers(-9, 10, shape)
        return np.where(x == 0, 3, x) if kind == 'nz' else x
    if kind == 'small':
        return rng.integers(0, 5, shape)
    if kind == 'u8':
        return rng.integers(0, 256, shape).astype(np.uint8)
    if kind == 'c':
        return rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
    if kind == 'phase':
        return np.cumsum(rng.uniform(-4, 4, shape), -1)
    if kind == 'special':
        return np.array([0., -0., 1.5, -2.5, 5e-324, -1e-310, np.inf, -np.inf, np.nan, 1e300])
    x = rng.uniform(-2, 2, shape)
    return np.abs(x) + .5 if kind == 'pos' else x


class Case(NamedTuple):
    id: str
    fn: Callable                 # fn(m, *args) with m the numpy module
    args: tuple                  # (kind, shape) per argument
    grad: bool                   # JAX differentiates it: compare cotangents
    jit: bool                    # traceable without concrete values
    vmap: bool                   # batch the first argument's leading axis


def _c(id, fn, *args, grad=False, jit=True, vmap=False):
    return Case(id, fn, tuple(args), grad, jit, vmap)


U3, U4, U34, U234, U44 = (('u', s) for s in ((3,), (4,), (3, 4), (2, 3, 4), (4, 4)))
I6, I34 = ('i', (6,)), ('i', (3, 4))

CASES = [
    # elementwise
    _c('gcd-lcm', lambda m, x, y: m.stack([m.gcd(x, y), m.lcm(x, y), m.gcd(x, 0)]),
       ('i', (4, 5)), ('i', (4, 5)), vmap=True),
    _c('frexp', lambda m, x: m.frexp(x), ('special', ()), vmap=True),
    _c('frexp-grad', lambda m, x: m.frexp(x)[0] * 3, U34, grad=True, vmap=True),
    _c('frexp-f32', lambda m, x: m.frexp(x.astype(m.float32)), U34),
    _c('modf', lambda m, x: m.modf(x * 3), U34, grad=True, vmap=True),
    _c('nextafter-spacing', lambda m, x, y: m.stack([m.nextafter(x, y), m.spacing(x)]),
       U34, U34, vmap=True),
    _c('spacing-special', lambda m, x: m.spacing(x), ('special', ())),
    _c('spacing-f32', lambda m, x: m.spacing(x.astype(m.float32)), U34),
    _c('i0', lambda m, x: m.i0(x * 3) + m.i0(m.zeros(2))[0], U34, grad=True, vmap=True),
    _c('i0-at-zero-grad', lambda m, x: m.i0(x * 0.), U3, grad=True),
    _c('shifts', lambda m, x, y: m.stack([m.bitwise_left_shift(x, abs(y) % 5),
                                          m.bitwise_right_shift(x, abs(y) % 5)]), I6, I6),
    _c('unwrap', lambda m, x: m.unwrap(x) + m.unwrap(x, discont=4., period=5.), ('phase', (3, 9)),
       grad=True, vmap=True),
    _c('unwrap-axis-int', lambda m, x: m.unwrap(x * 3, axis=0, period=10), ('i', (7, 2))),
    _c('sort-complex', lambda m, x: m.sort_complex(x) + m.sort_complex(m.round(x)), ('c', (7,))),
    _c('sort-complex-real', lambda m, x: m.sort_complex(x), I6),
    _c('packbits', lambda m, x: (m.packbits(x), m.packbits(x, axis=1, bitorder='little'),
                                 m.packbits(x > 0, 0)), ('i', (3, 11))),
    _c('unpackbits', lambda m, x: (m.unpackbits(x), m.unpackbits(x, axis=0, count=5),
                                   m.unpackbits(x, 1, count=20, bitorder='little'),
                                   m.unpackbits(x, 1, count=-3)), ('u8', (2, 3))),
    _c('matvec-vecmat', lambda m, a, v: m.stack([m.matvec(a, v), m.vecmat(v, a.mT)]),
       ('u', (2, 3, 4)), U4, grad=True),
    _c('vecmat-complex', lambda m, a, v: m.vecmat(v * 1j + v, a), ('u', (4, 3)), U4),
    _c('array-equiv', lambda m, x: m.stack([m.array_equiv(x, x[:1]), m.array_equiv(x, x),
                                            m.array_equiv(x, x[0, :2]),
                                            m.array_equiv(x[:1], x[:1] + 0 * x)]), I34),
    # windows
    *[_c(f'window-{name}', lambda m, name=name: m.stack([getattr(m, name)(n)[:1].sum()
                                                         for n in (0, 1)] + [
        getattr(m, name)(9).sum(), getattr(m, name)(10)[3]]))
      for name in ('bartlett', 'blackman', 'hamming', 'hanning')],
    _c('kaiser', lambda m, b: m.concatenate([m.kaiser(9, b), m.kaiser(1, b), m.kaiser(6, 2.)]),
       ('pos', ()), grad=True),
    # creation
    _c('fromfunction', lambda m: m.fromfunction(lambda i, j: i * 10 + j, (3, 4))
       + m.fromfunction(lambda i, j: i - j, (3, 4), dtype=m.int32)),
    _c('diagflat', lambda m, x: (m.diagflat(x), m.diagflat(x, 2), m.diagflat(x, -1)),
       ('u', (2, 2)), grad=True, vmap=True),
    _c('fill-diagonal', lambda m, a, v: (m.fill_diagonal(a, v, inplace=False),
                                         m.fill_diagonal(a, 7., inplace=False),
                                         m.fill_diagonal(a[:2], v[:3], inplace=False),
                                         m.fill_diagonal(m.zeros((3, 3, 3)), 2., inplace=False)),
       ('u', (4, 5)), ('u', (2,)), grad=True),
    _c('indices-from', lambda m, a: (*m.diag_indices_from(a[:, :3]), *m.tril_indices_from(a),
                                     *m.triu_indices_from(a, 1), *m.tril_indices_from(a, -1)),
       U34),
    _c('mask-indices', lambda m: m.mask_indices(4, m.triu, 1) + m.mask_indices(3, m.tril),
       jit=False),
    _c('mask-indices-sized', lambda m: m.mask_indices(4, m.triu, 1, size=8)),
    _c('ix', lambda m, x, i: x[m.ix_(i % 3, i % 4)] + m.ix_(i, i)[0].sum(), U34, ('i', (5,)),
       grad=True),
    _c('mgrid-ogrid', lambda m: (m.mgrid[0:4, 1:5:2], m.mgrid[-1:1:5j], m.mgrid[0:2, 0.:1:3j],
                                 *m.ogrid[0:3, 2:6], m.ogrid[1:3])),
    _c('r-c', lambda m, x, y: (m.r_[x, 0, y, 1:3], m.r_['0,2', x, y], m.r_['-1,2,0', x, y],
                               m.r_['r', x, y], m.r_['c', x, y], m.c_[x, y], m.c_[x, 1:4],
                               m.r_[x, y, -1:1:4j], m.c_['0,2,1', x, y]), U3, U3, grad=True),
    # editing
    _c('append', lambda m, x, y: (m.append(x, y), m.append(x, y[:1], axis=0),
                                  m.append(x, 1.)), U34, U34, grad=True),
    _c('insert', lambda m, x, v: (m.insert(x, 2, v[0]),
                                  m.insert(x, m.array([0, 2, 2]), v[0, :3], axis=1),
                                  m.insert(x, slice(0, 4, 2), v[:2], axis=0),
                                  m.insert(x, -1, v[:1], axis=0)),
       U34, U34, grad=True),
    _c('delete', lambda m, x: (m.delete(x, 1), m.delete(x, 2, axis=1), m.delete(x, -1, 0),
                               m.delete(x, slice(0, 3, 2), axis=1),
                               m.delete(x, m.array([0, 2]), axis=1, assume_unique_indices=True)),
       U34, grad=True),
    _c('delete-concrete', lambda m, x: (m.delete(x, m.array([3, 1, 1])),
                                        m.delete(x, m.array([True, False, True]), axis=0)),
       U34, jit=False),
    _c('put', lambda m, a, v: (m.put(a, m.array([0, 5, 5, 20]), v[:2], inplace=False),
                               m.put(a, m.array([-1, 13]), v[:2], mode='clip', inplace=False),
                               m.put(a, m.array([-1, 13]), v[:2], mode='wrap', inplace=False)),
       U34, U4, grad=True),
    _c('put-along-axis', lambda m, a, v: (
        m.put_along_axis(a, m.argsort(a, 1)[:, :2], v[:3, None], 1, inplace=False),
        m.put_along_axis(a, m.array([[2, 0, 1, 2]]), 0., 0, inplace=False),
        m.put_along_axis(a[0], m.array([1, 3]), v[:2], None, inplace=False)), U34, U4,
       grad=True),
    _c('place', lambda m, a, v: m.place(a, a > 0, v[:3], inplace=False), U34, U4, grad=True),
    _c('resize', lambda m, x: (m.resize(x, (5, 3)), m.resize(x, 4), m.resize(x, (2, 0)),
                               m.resize(x[:0], (2, 2))), U34, grad=True),
    _c('trim-zeros', lambda m, x: (m.trim_zeros(x), m.trim_zeros(x, 'f'), m.trim_zeros(x, 'B'),
                                   m.trim_zeros(m.zeros(3)), m.trim_zeros(m.diag(x), axis=0)),
       ('small', (9,)), jit=False),
    _c('array-split', lambda m, x: (*m.array_split(x, 3), *m.array_split(x, [1, 3], axis=1),
                                    *m.array_split(x, 5, axis=1)), U34, grad=True),
    _c('hvd-split', lambda m, x: (*m.hsplit(x, 3), *m.vsplit(x, [1]), *m.dsplit(x, [1, 3]),
                                  *m.hsplit(x[0, 0], 2)), U234, grad=True),
    _c('dstack-atleast-3d', lambda m, x, y: (m.dstack([x, y]), m.dstack([x[0], y[0]]),
                                             m.dstack([x[0, 0], 1.], dtype=m.float32),
                                             m.dstack(x), m.vsplit(x[0], 2)[1],
                                             *m.atleast_3d(x, x[0], x[0, 0]), m.atleast_3d(x)),
       U34, U34, grad=True),
    _c('block', lambda m, a, b: (m.block([[a, b], [b, a]]), m.block([a, b]),
                                 m.block([[a[0]], [b[0]]]), m.block(a), m.block([[[a]], [[b]]])),
       U34, U34, grad=True),
    _c('rollaxis', lambda m, x: (m.rollaxis(x, 2), m.rollaxis(x, 0, 3), m.rollaxis(x, -1, 1),
                                 m.rollaxis(x, 1, -1)), U234, grad=True, vmap=True),
    _c('apply-along-axis', lambda m, x: (m.apply_along_axis(lambda v: v.sum() * v[0], 1, x),
                                         m.apply_along_axis(lambda v: v[::-1] * 2, 0, x),
                                         m.apply_along_axis(m.diag, -1, x),
                                         m.apply_along_axis(lambda v, p: v ** p, 2, x, p=2)),
       U234, grad=True),
    _c('apply-over-axes', lambda m, x: (m.apply_over_axes(m.sum, x, [0, 2]),
                                        m.apply_over_axes(lambda a, k: a.max(k, keepdims=True),
                                                          x, (1,))), U234, grad=True),
    # sets
    _c('union1d', lambda m, x, y: m.union1d(x, y), ('i', (7,)), ('i', (5, 2)), jit=False),
    _c('intersect1d', lambda m, x, y: (m.intersect1d(x, y),
                                       *m.intersect1d(x, y, return_indices=True),
                                       *m.intersect1d(m.unique(x), m.unique(y), True, True)),
       ('i', (9,)), ('i', (8,)), jit=False),
    _c('setdiff-setxor', lambda m, x, y: (m.setdiff1d(x, y), m.setxor1d(x, y),
                                          m.setdiff1d(m.unique(x), y, assume_unique=True),
                                          m.setxor1d(m.unique(x), m.unique(y), True)),
       ('i', (9,)), ('i', (8,)), jit=False),
    _c('sets-sized', lambda m, x, y: (
        m.union1d(x, y, size=12), *m.intersect1d(x, y, return_indices=True, size=5),
        *m.intersect1d(m.arange(4), m.arange(2, 9), True, True, size=3, fill_value=0),
        m.setdiff1d(x, y, size=7), m.setdiff1d(m.arange(5), y, assume_unique=True, size=6),
        m.setxor1d(x, y, size=10, fill_value=100),
        m.setxor1d(m.arange(4), m.arange(2, 9), assume_unique=True, size=9)),
       ('i', (9,)), ('i', (8,))),
    _c('sets-sized-fill', lambda m, x, y: (
        m.union1d(x, y, size=3, fill_value=-1), m.intersect1d(x, y, size=6),
        m.setdiff1d(x, y, size=2, fill_value=0), m.setxor1d(x, y, size=10)),
       ('i', (9,)), ('i', (8,))),
    _c('unique-array-api', lambda m, x: (*m.unique_all(x), *m.unique_counts(x),
                                         *m.unique_inverse(x), m.unique_values(x)),
       ('i', (3, 5)), jit=False),
    _c('unique-array-api-sized', lambda m, x: (*m.unique_all(x, size=12, fill_value=0),
                                               *m.unique_counts(x, size=4),
                                               m.unique_values(x, size=20)), ('i', (3, 5))),
    # statistics, polynomials, einsum
    _c('histogramdd', lambda m, s, w: (*m.histogram2d(s[:, 0], s[:, 1]),
                                       *m.histogram2d(s[:, 0], s[:, 1], bins=(3, 4), weights=w,
                                                      density=True),
                                       *m.histogram2d(s[:, 0], s[:, 1], bins=[-1, 0, 2],
                                                      range=[(-2, 2), (-1, 1)]),
                                       m.histogramdd(s, 4)[0], *m.histogramdd(s, [2, 3, 4])[1],
                                       m.histogramdd(s, 3, weights=w, density=True)[0]),
       ('u', (30, 3)), ('pos', (30,))),
    _c('histogram2d-grad', lambda m, s, w: m.histogram2d(s[:, 0], s[:, 1], 3, weights=w,
                                                         range=[(-2, 2), (-2, 2)])[0],
       ('u', (30, 2)), ('pos', (30,)), grad=True),
    _c('polydiv', lambda m, u, v: m.polydiv(u, v) + m.polydiv(u, v[:1]) + m.polydiv(u[:2], v),
       ('u', (6,)), ('pos', (3,)), grad=True),
    _c('polydiv-trim', lambda m, u: m.polydiv(m.polymul(u, m.array([1., 2.])),
                                              m.array([1., 2.]), trim_leading_zeros=True),
       ('u', (4,)), jit=False),
]


def _ids(cases):
    return [pytest.param(c, id=c.id) for c in cases]


def _args(rng, case):
    return [_input(rng, kind, shape) for kind, shape in case.args]


def _assert_tree_close(got, expected):
    got_leaves, got_tree = jax.tree.flatten(got, is_leaf=lambda x: x is None)
    want_leaves, want_tree = jax.tree.flatten(expected, is_leaf=lambda x: x is None)
    assert len(got_leaves) == len(want_leaves), (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves):
        assert_close(g, w)


@pytest.mark.parametrize('case', _ids(CASES))
def test_eager_and_jit(case, rng):
    """Eagerly (Arrays out) and under jit, against one JAX answer."""
    args = _args(rng, case)
    oracle = jax.jit(lambda *a: case.fn(jnp, *a)) if case.jit else lambda *a: case.fn(jnp, *a)
    expected = oracle(*map(jnp.asarray, args))  # (one compile, where JAX can trace it)
    out = case.fn(mnp, *map(mnp.asarray, args))
    assert all(isinstance(o, minijax.Array) for o in jax.tree.leaves(out)), out
    _assert_tree_close(out, expected)
    if case.jit:
        _assert_tree_close(minijax.jit(lambda *a: case.fn(mnp, *a))(*args), expected)


def _summed(fn, m):
    """``fn``'s outputs (a tree) as one scalar, for a vjp."""
    def total(*args):
        leaves = [leaf for leaf in jax.tree.leaves(fn(m, *args))
                  if m.issubdtype(leaf.dtype, m.inexact)]
        return sum((leaf * (k + 1.)).sum() for k, leaf in enumerate(leaves))
    return total


@pytest.mark.parametrize('case', _ids([c for c in CASES if c.grad]))
def test_vjp(case, rng):
    args = [a for a in _args(rng, case)]
    float_args = [k for k, a in enumerate(args) if np.issubdtype(np.asarray(a).dtype, np.floating)]

    def on(m):
        total = _summed(case.fn, m)
        return lambda *fs: total(*[fs[float_args.index(k)] if k in float_args else a
                                   for k, a in enumerate(args)])
    floats = [args[k] for k in float_args]
    out, f_vjp = minijax.vjp(on(mnp), *floats)
    expected_out, ct, expected_cts = jax_vjp(on(jnp), floats, rng)
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected_out), rtol=1e-12)
    for got, want in zip(f_vjp(ct), expected_cts, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize('case', _ids([c for c in CASES if c.vmap]))
def test_vmap(case, rng):
    """Batched over a new leading axis of the first argument (two draws of it; the other
    arguments are shared)."""
    args = _args(rng, case)
    args[0] = np.stack([args[0], _args(rng, case)[0]])
    in_axes = (0,) + (None,) * (len(args) - 1)
    expected = jax.jit(jax.vmap(lambda *a: case.fn(jnp, *a), in_axes))(*map(jnp.asarray, args))
    _assert_tree_close(minijax.vmap(lambda *a: case.fn(mnp, *a), in_axes)(*args), expected)


# ----------------------------------------------------------------------------- ufuncs

UFUNC_CASES = {
    'outer': lambda m, x, y: (m.add.outer(x, y), m.multiply.outer(x[0], y), m.maximum.outer(
        x, y[0]), m.subtract.outer(x[0], 2.)),
    'reduce': lambda m, x, y: (m.add.reduce(x), m.multiply.reduce(x, 1), m.maximum.reduce(
        x, None), m.minimum.reduce(x, 1, keepdims=True), m.add.reduce(x, 0, where=x > 0),
        m.subtract.reduce(x, 1), m.logaddexp.reduce(x, 0), m.add.reduce(x, 1, initial=2.),
        m.maximum.reduce(x, 0, initial=0., where=x < 1), m.subtract.reduce(x, None,
                                                                           keepdims=True)),
    'accumulate': lambda m, x, y: (m.add.accumulate(x), m.multiply.accumulate(x, 1),
                                   m.maximum.accumulate(x, 1), m.subtract.accumulate(x, 0),
                                   m.logaddexp.accumulate(x, 1, dtype=m.float32)),
    'at': lambda m, x, y: (m.add.at(x, (m.array([0, 0, 2]),), y[:3], inplace=False),
                           m.multiply.at(x, m.array([1, 1]), 2., inplace=False),
                           m.subtract.at(x, (0, 1), 5., inplace=False),
                           m.maximum.at(x, (m.array([0, 1, 1]), m.array([2, 2, 2])), y[0, :3],
                                        inplace=False),
                           m.logaddexp.at(x, 1, y[1], inplace=False)),
    'reduceat': lambda m, x, y: (m.add.reduceat(x, m.array([0, 2]), axis=1),
                                 m.maximum.reduceat(x, m.array([0, 1]))),
    'frompyfunc': lambda m, x, y: (
        m.frompyfunc(lambda a, b: a * b + 1, 2, 1)(x, y),
        m.frompyfunc(lambda a, b: a * b + 1, 2, 1).outer(x[0], y[0]),
        m.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0).reduce(x, 1),
        m.frompyfunc(lambda a, b: a * b + 1, 2, 1).accumulate(x, 0),
        m.frompyfunc(lambda a, b: a * b + 1, 2, 1).at(x, (m.array([0, 0]),), 2.,
                                                    inplace=False),
        m.frompyfunc(lambda a, b: a * b + 1, 2, 1).reduceat(x, m.array([0, 1, 3]), axis=1)),
    'bitwise-logical': lambda m, x, y: (
        m.bitwise_or.reduce(m.abs(x * 5).astype(int), 1),
        m.bitwise_and.reduce(m.abs(x * 5).astype(int)),
        m.bitwise_xor.accumulate(m.abs(x * 5).astype(int), 1),
        m.logical_and.reduce(x > 0), m.logical_or.reduce(x > 0, 1), m.logical_xor.reduce(x > 0),
        m.logical_and.reduce(x > 0, 1, initial=False), m.logical_or.reduce(x > 0, initial=True)),
}


@pytest.mark.parametrize('name', UFUNC_CASES)
def test_ufunc_methods(name, rng):
    x, y = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    fn = UFUNC_CASES[name]
    expected = jax.jit(lambda a, b: fn(jnp, a, b))(x, y)
    _assert_tree_close(fn(mnp, mnp.asarray(x), mnp.asarray(y)), expected)
    _assert_tree_close(minijax.jit(lambda a, b: fn(mnp, a, b))(x, y), expected)


def test_ufunc_methods_grad(rng):
    x = rng.uniform(-2, 2, (3, 4))

    def loss(m):
        return lambda a: (m.add.outer(a[0], a[1]).sum() + m.multiply.reduce(a, 1).sum()
                          + m.maximum.accumulate(a, 1).sum() + m.logaddexp.reduce(a, 0).sum()
                          + m.frompyfunc(lambda u, v: u * v, 2, 1).accumulate(a, 1).sum())
    assert_close(minijax.grad(loss(mnp))(x), jax_answer(jax.grad(loss(jnp)), x))


def test_ufunc_objects_as_jax():
    for name in ('add', 'multiply', 'maximum', 'logical_and', 'bitwise_or', 'subtract',
                 'negative', 'logaddexp'):
        mine, theirs = getattr(mnp, name), getattr(jnp, name)
        assert isinstance(mine, mnp.ufunc) and repr(mine) == repr(theirs).replace('jnp', 'jnp')
        assert (mine.nin, mine.nout, mine.nargs, mine.identity, mine.__name__) == (
            theirs.nin, theirs.nout, theirs.nargs, theirs.identity, theirs.__name__)
    assert mnp.add(mnp.ones(2), 1).dtype == np.float64 and mnp.add == mnp.add


@pytest.mark.parametrize('fn,error,message', [
    pytest.param(lambda m: m.add.at(m.ones(3), 0, 1.), NotImplementedError,
                 'cannot operate inplace',
                 id='at-inplace'),
    pytest.param(lambda m: m.negative.reduce(m.ones(3)), ValueError, 'binary ufuncs',
                 id='reduce-unary'),
    pytest.param(lambda m: m.subtract.reduce(m.ones(3), where=m.ones(3) > 0), ValueError,
                 'does not have an identity', id='reduce-where'),
    pytest.param(lambda m: m.add(m.ones(3), 1, out=m.ones(3)), NotImplementedError, 'out',
                 id='out'),
    pytest.param(lambda m: m.subtract.reduce(m.ones(0)), ValueError, 'no identity',
                 id='reduce-empty'),
])
def test_ufunc_errors_as_jax(fn, error, message):
    for lib in (mnp, jnp):
        with pytest.raises(error, match=message):
            fn(lib)


# ----------------------------------------------------------------------------- vectorize

VECTORIZE_CASES = {
    'scalar': (lambda m: m.vectorize(lambda a, b: a * b + 1.), ((3, 1), (4,))),
    'signature': (lambda m: m.vectorize(lambda a, b: a @ b, signature='(n,m),(m)->(n)'),
                  ((2, 3, 4), (4,))),
    'two-outputs': (lambda m: m.vectorize(lambda a: (a.sum(), a * 2), signature='(n)->(),(n)'),
                    ((2, 3, 4),)),
    'excluded': (lambda m: m.vectorize(lambda a, p: a ** p, excluded={1}), ((3, 2), 2)),
    'keyword': (lambda m: m.vectorize(lambda a, scale=1.: a.mean() * scale,
                                      signature='(n)->()'), ((3, 5),)),
}


@pytest.mark.parametrize('name', VECTORIZE_CASES)
def test_vectorize(name, rng):
    make, shapes = VECTORIZE_CASES[name]
    args = [rng.uniform(-2, 2, s) if isinstance(s, tuple) else s for s in shapes]
    expected = make(jnp)(*args)
    _assert_tree_close(make(mnp)(*args), expected)
    arrays = [k for k, a in enumerate(args) if isinstance(a, np.ndarray)]

    def jitted(*xs):
        full = list(args)
        for k, x in zip(arrays, xs):
            full[k] = x
        return make(mnp)(*full)
    _assert_tree_close(minijax.jit(jitted)(*[args[k] for k in arrays]), expected)
    if name == 'keyword':
        _assert_tree_close(make(mnp)(args[0], scale=3.), make(jnp)(args[0], scale=3.))


def test_vectorize_grad(rng):
    x = rng.uniform(-2, 2, (3, 4))

    def loss(m):
        f = m.vectorize(lambda v: m.sin(v).sum() * v[0], signature='(n)->()')
        return lambda a: f(a).sum()
    assert_close(minijax.grad(loss(mnp))(x), jax.grad(loss(jnp))(x))


def test_vectorize_signature_errors():
    for lib in (mnp, jnp):
        with pytest.raises(ValueError, match='not a valid gufunc signature'):
            lib.vectorize(lambda a: a, signature='(n->()')(lib.ones(3))
        with pytest.raises(ValueError, match='inconsistent size for core dimension'):
            lib.vectorize(lambda a, b: a @ b, signature='(n),(n)->()')(lib.ones(3), lib.ones(4))


# ----------------------------------------------------------------------- sets under jit and vmap

def test_sets_with_size_under_vmap(rng):
    x, y = rng.integers(0, 6, (3, 7)), rng.integers(0, 6, (3, 5))

    def fn(m):
        return lambda a, b: (m.union1d(a, b, size=8, fill_value=-1), m.intersect1d(a, b, size=4),
                             m.setdiff1d(a, b, size=4), m.setxor1d(a, b, size=6),
                             m.unique_values(a, size=5))
    _assert_tree_close(minijax.jit(minijax.vmap(fn(mnp)))(x, y), jax.jit(jax.vmap(fn(jnp)))(x, y))


def test_sets_need_size_under_jit():
    for fn in (lambda a: mnp.union1d(a, a), lambda a: mnp.intersect1d(a, a),
               lambda a: mnp.setdiff1d(a, a), lambda a: mnp.unique_values(a)):
        with pytest.raises(minijax.errors.ConcretizationTypeError):
            minijax.jit(fn)(np.arange(3))


# ----------------------------------------------------------------------------- names and data

def test_scalar_types_and_numpy_names_as_jax():
    for name in ('bool', 'double', 'single', 'cdouble', 'csingle', 'uint'):
        assert np.dtype(getattr(mnp, name)) == np.dtype(getattr(jnp, name)), name
        assert_close(getattr(mnp, name)(2), getattr(jnp, name)(2))
    for name in ('character', 'flexible', 'object_', 'ComplexWarning', 'iterable', 's_',
                 'index_exp', 'get_printoptions', 'set_printoptions', 'array_repr'):
        assert getattr(mnp, name) is getattr(np, name, None) or name in (
            'ComplexWarning', 'get_printoptions', 'set_printoptions', 'array_repr'), name
    assert mnp.ComplexWarning is jnp.ComplexWarning
    assert mnp.s_[1:3, ::2] == jnp.s_[1:3, ::2] and mnp.index_exp[2] == jnp.index_exp[2]
    assert mnp.iterable(mnp.ones(2)) and not mnp.iterable(3)
    assert mnp.isdtype(mnp.float32, 'real floating') and mnp.isrealobj(mnp.ones(2))
    assert not mnp.isrealobj(mnp.ones(2) * 1j)
    for dtype in (np.int8, np.uint32, np.float16, np.complex64, np.bool_):
        for kind in ('bool', 'signed integer', 'unsigned integer', 'integral', 'real floating',
                     'complex floating', 'numeric', np.float16, ('bool', np.int8)):
            assert mnp.isdtype(dtype, kind) == jnp.isdtype(dtype, kind), (dtype, kind)
    with pytest.raises(ValueError, match='Unrecognized kind'):
        mnp.isdtype(np.int8, 'integer')


def test_printing_as_jax():
    x = mnp.arange(3.) / 3
    with mnp.printoptions(precision=2):
        assert str(x) == '[0.   0.33 0.67]' and mnp.get_printoptions()['precision'] == 2
    assert mnp.array_str(x) == jnp.array_str(jnp.arange(3.) / 3)


def test_host_data_round_trips():
    raw = np.arange(6, dtype=np.int32)
    assert_close(mnp.frombuffer(raw.tobytes(), np.int32, count=4, offset=4),
                 jnp.frombuffer(raw.tobytes(), jnp.int32, count=4, offset=4))
    assert_close(mnp.fromstring('1 2 3.5', sep=' '), jnp.fromstring('1 2 3.5', sep=' '))
    assert_close(mnp.from_dlpack(np.arange(3.)), jnp.from_dlpack(np.arange(3.)))
    assert_close(mnp.from_dlpack(mnp.arange(3)), jnp.arange(3))
    buffer = io.BytesIO()
    mnp.save(buffer, mnp.arange(4.).astype(mnp.bfloat16))
    buffer.seek(0)
    loaded = mnp.load(buffer)
    assert isinstance(loaded, minijax.Array) and loaded.dtype == mnp.bfloat16
    for name in ('fromfile', 'fromiter'):
        for lib in (mnp, jnp):
            with pytest.raises(NotImplementedError, match='non-pure'):
                getattr(lib, name)(iter([1]))


def test_einsum_path_as_jax():
    a, b, c, d = (np.ones(s) for s in ((2, 30), (30, 40), (40, 3), (3, 5)))
    for operands, spec in (((a, b, c), 'ij,jk,kl->il'), ((a, b, c, d), 'ij,jk,kl,lm->im'),
                           ((b, b.T), 'ij,jk')):
        for optimize in ('auto', True, False, 'greedy', 'optimal'):
            assert (mnp.einsum_path(spec, *operands, optimize=optimize)[0]
                    == jnp.einsum_path(spec, *operands, optimize=optimize)[0])


@pytest.mark.parametrize('fn,error,message', [
    pytest.param(lambda m: m.put(m.ones(3), 0, 1.), ValueError, 'in-place', id='put'),
    pytest.param(lambda m: m.place(m.ones(3), m.ones(3) > 0, 1.), ValueError, 'in-place',
                 id='place'),
    pytest.param(lambda m: m.fill_diagonal(m.ones((2, 2)), 1.), NotImplementedError,
                 'immutable', id='fill_diagonal'),
    pytest.param(lambda m: m.put(m.ones(3), 0, 1., mode='raise', inplace=False),
                 NotImplementedError, 'raise', id='put-raise'),
    pytest.param(lambda m: m.gcd(m.ones(2), 2), ValueError, 'must be integers', id='gcd'),
    pytest.param(lambda m: m.frexp(m.ones(2) * 1j), TypeError, 'complex', id='frexp'),
    pytest.param(lambda m: m.block((m.ones(2),)), ValueError, 'does not allow tuples',
                 id='block'),
    pytest.param(lambda m: m.block([[m.ones(2)], m.ones(2)]), ValueError, 'depths',
                 id='block-depths'),
    pytest.param(lambda m: m.hsplit(m.ones((2, 3)), 2), ValueError, 'equal division',
                 id='hsplit'),
    pytest.param(lambda m: m.insert(m.ones(3), m.ones((2, 2), int), 1.), ValueError,
                 'one-dimensional', id='insert'),
    pytest.param(lambda m: m.delete(m.ones(3), m.array([0.5])), ValueError, 'integer or bool',
                 id='delete'),
    pytest.param(lambda m: m.ix_(m.ones((2, 2))), ValueError, '1-dimensional', id='ix_'),
    pytest.param(lambda m: m.r_['x', m.ones(2)], ValueError, 'could not understand', id='r_'),
    pytest.param(lambda m: m.unpackbits(m.ones(2, int)), TypeError, 'unsigned byte',
                 id='unpackbits'),
    pytest.param(lambda m: m.resize(m.ones(2), (-1, 2)), ValueError, 'non-negative',
                 id='resize'),
    pytest.param(lambda m: m.rollaxis(m.ones((2, 3)), 0, 4), ValueError, 'start', id='rollaxis'),
    pytest.param(lambda m: m.linalg.outer(m.ones((2, 2)), m.ones(2)), ValueError,
                 'one-dimensional', id='linalg-outer'),
    pytest.param(lambda m: m.linalg.cross(m.ones(2), m.ones(2)), ValueError, '3-dimensional',
                 id='linalg-cross'),
    pytest.param(lambda m: m.linalg.matrix_transpose(m.ones(2)), ValueError, 'at least 2',
                 id='linalg-matrix_transpose'),
    pytest.param(lambda m: m.linalg.vector_norm(m.ones(2), ord='inf'), ValueError,
                 'Invalid order', id='vector_norm'),
])
def test_errors_as_jax(fn, error, message):
    for lib in (mnp, jnp):
        with pytest.raises(error, match=message):
            fn(lib)


# ------------------------------------------------------------------- jnp.linalg's array API names

LINALG_CASES = [
    _c('linalg-cross', lambda m, x, y: m.linalg.cross(x, y) + m.linalg.cross(x.T, y.T, axis=0).T,
       ('u', (4, 3)), ('u', (4, 3)), grad=True, vmap=True),
    _c('linalg-diagonal-trace', lambda m, x: (m.linalg.diagonal(x), m.linalg.diagonal(x, offset=1),
                                              m.linalg.trace(x), m.linalg.trace(x, offset=-1),
                                              m.linalg.trace(x, dtype=m.float32)), U234,
       grad=True, vmap=True),
    _c('linalg-matmul-tensordot', lambda m, x, y: (
        m.linalg.matmul(x, y.mT), m.linalg.tensordot(x, y.transpose(1, 2, 0), axes=2),
        m.linalg.tensordot(x[0], y[0], axes=([1], [1])),
        m.linalg.matmul(x[0].astype(m.int32), y[0].T.astype(m.int32),
                        preferred_element_type=m.float64)), U234, U234, grad=True, vmap=True),
    _c('linalg-vecdot-outer', lambda m, x, y: (m.linalg.vecdot(x, y), m.linalg.vecdot(x, y, axis=0),
                                               m.linalg.outer(x[0], y[1])), U34, U34, grad=True,
       vmap=True),
    _c('linalg-norms', lambda m, x: (
        m.linalg.matrix_norm(x), m.linalg.matrix_norm(x, ord=1, keepdims=True),
        m.linalg.matrix_norm(x, ord=np.inf), m.linalg.vector_norm(x),
        m.linalg.vector_norm(x, axis=1), m.linalg.vector_norm(x, axis=(0, 2), keepdims=True),
        m.linalg.vector_norm(x, ord=1), m.linalg.vector_norm(x, ord=np.inf, axis=-1),
        m.linalg.vector_norm(x, ord=-np.inf, axis=0), m.linalg.vector_norm(x, ord=0),
        m.linalg.vector_norm(x, ord=3, axis=1), m.linalg.vector_norm(x * 1j + x, axis=2)),
       U234, grad=True, vmap=True),
    _c('linalg-eig', lambda m, a: (*m.linalg.eig(a), m.linalg.eigvals(a),
                                   m.linalg.eig(a[:2, :2])), U44, vmap=True),
    _c('linalg-eigvals-grad', lambda m, a: (m.linalg.eigvals(a).real,
                                            m.linalg.eigvals(a).imag ** 2),
       U44, grad=True, vmap=True),
    _c('roots', lambda m, p: (m.roots(p), m.roots(m.concatenate([m.zeros(2), p])),
                              m.roots(p[:1]), m.poly(m.outer(p[:3], p[1:4]) + m.eye(3))),
       ('u', (5,)), jit=False),
    _c('roots-traced', lambda m, p: (
        m.roots(p, strip_zeros=False).real,
        m.roots(m.concatenate([m.zeros(1), p]), strip_zeros=False).imag), ('u', (5,)),
       grad=True),
    _c('linalg-matrix-transpose', lambda m, x: m.linalg.matrix_transpose(x), U234, grad=True,
       vmap=True),
]


@pytest.mark.parametrize('case', _ids(LINALG_CASES))
def test_linalg_eager_and_jit(case, rng):
    test_eager_and_jit(case, rng)


@pytest.mark.parametrize('case', _ids([c for c in LINALG_CASES if c.grad]))
def test_linalg_vjp(case, rng):
    test_vjp(case, rng)


@pytest.mark.parametrize('case', _ids([c for c in LINALG_CASES if c.vmap]))
def test_linalg_vmap(case, rng):
    test_vmap(case, rng)
