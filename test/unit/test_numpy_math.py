"""The math, statistics and index functions of ``minijax.numpy``, ``minijax.lax`` and
``minijax.nn`` added for JAX programs (issue 11), against JAX (x64): values eagerly and under
jit, and gradients where the function is differentiable.

Each row is a function of a module ``m`` (``minijax.numpy`` or ``jax.numpy``; ``minijax.lax``
or ``jax.lax``; ``minijax.nn`` or ``jax.nn``) and the kinds of its inputs.
"""
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close, jax_vjp

import minijax
import minijax.numpy as mnp
from minijax import lax as mlax
from minijax import nn as mnn

MODULES = {'np': (mnp, jnp), 'lax': (mlax, jax.lax), 'nn': (mnn, jax.nn)}


def _input(rng, kind, shape):
    """'u' uniform in (-2, 2); 'pos' in (.5, 2.5); 'unit' in (-.9, .9); 'gt1' in (1.1, 4);
    'big' spanning many magnitudes (both signs); 'nan' uniform with NaNs; 'allnan' a row of
    NaNs among numbers; 'inf' infinities, NaN and zeros; 'i' integers in [-9, 9]; 'idx'
    integers in [0, 5]; 'b' booleans; 'sorted' increasing."""
    if kind == 'i':
        return rng.integers(-9, 10, shape)
    if kind == 'idx':
        return rng.integers(0, 6, shape)
    if kind == 'b':
        return rng.random(shape) > .5
    if kind == 'inf':
        return np.array([np.inf, -np.inf, np.nan, 0., -0., 1.5, -2.])
    x = rng.uniform(-2, 2, shape)
    if kind == 'pos':
        return np.abs(x) + .5
    if kind == 'unit':
        return x * .45
    if kind == 'gt1':
        return np.abs(x) * 1.45 + 1.1
    if kind == 'big':
        return x * 10. ** rng.integers(-8, 9, shape)
    if kind == 'sorted':
        return np.sort(x)
    if kind in ('nan', 'allnan'):
        x = np.where(rng.random(shape) < .3, np.nan, x)
        if kind == 'allnan':
            x[0] = np.nan
        return x
    return x


class Case(NamedTuple):
    id: str
    module: str
    fn: Callable            # fn(m, *args)
    args: tuple             # (kind, shape) per argument
    differentiable: bool


def _c(id, fn, *args, grad=True, module='np'):
    return Case(id, module, fn, tuple(args), grad)


U, U34, P34 = ('u', (7,)), ('u', (3, 4)), ('pos', (3, 4))
N34 = ('nan', (3, 4))

CASES = [
    # lax: the new primitives and the compositions
    *[_c(f'lax-{name}', lambda m, x, name=name: getattr(m, name)(x), (kind, (3, 4)),
         module='lax')
      for name, kind in [('tan', 'u'), ('expm1', 'u'), ('cbrt', 'pos'), ('asin', 'unit'),
                         ('acos', 'unit'), ('atan', 'u'), ('asinh', 'u'), ('acosh', 'gt1'),
                         ('atanh', 'unit'), ('sinh', 'u'), ('cosh', 'u'), ('square', 'u'),
                         ('reciprocal', 'pos'), ('exp2', 'u'), ('cbrt', 'big'),
                         ('asinh', 'big'), ('sinh', 'big')]],
    _c('lax-cbrt-negative', lambda m, x: m.cbrt(-x), P34, module='lax'),
    _c('lax-acosh-big', lambda m, x: m.acosh(m.abs(x) + 1.5), ('big', (3, 4)), module='lax'),
    _c('lax-atan2', lambda m, x, y: m.atan2(x, y), U34, U34, module='lax'),
    _c('lax-edges', lambda m, x: m.add(m.add(m.asinh(x), m.atan(x)), m.add(m.sinh(x), m.cosh(x))),
       ('inf', ()), grad=False, module='lax'),
    _c('lax-acos-atanh-edges', lambda m: m.add(m.acos(np.array([-1., 1., 0.])),
                                               m.atanh(np.array([-1., 1., 0.]))),
       grad=False, module='lax'),
    # jnp elementwise
    *[_c(name, lambda m, x, name=name: getattr(m, name)(x), (kind, (3, 4)))
      for name, kind in [('arcsin', 'unit'), ('arccos', 'unit'), ('arctan', 'u'),
                         ('arcsinh', 'u'), ('arccosh', 'gt1'), ('arctanh', 'unit'),
                         ('asin', 'unit'), ('acos', 'unit'), ('atan', 'u'), ('asinh', 'u'),
                         ('acosh', 'gt1'), ('atanh', 'unit'), ('cbrt', 'u'), ('expm1', 'u'),
                         ('tan', 'u'), ('reciprocal', 'pos'), ('fabs', 'u'), ('sinc', 'u'),
                         ('sinh', 'u'), ('cosh', 'u')]],
    _c('int-to-float', lambda m, x: m.arcsinh(x) + m.cbrt(x) + m.reciprocal(x + 10)
       + m.arctan(x), ('i', (5,)), grad=False),
    *[_c(name, lambda m, x, y, name=name: getattr(m, name)(x, y), U34, ('u', (4,)))
      for name in ('arctan2', 'atan2', 'hypot', 'logaddexp', 'logaddexp2', 'copysign', 'fmax',
                   'fmin', 'float_power', 'pow')],
    _c('float_power-pos', lambda m, x, y: m.float_power(x, y), P34, U34),
    _c('binary-special', lambda m, x: m.stack([m.hypot(x, 1.), m.logaddexp(x, x),
                                               m.logaddexp2(x, -x), m.fmax(x, 0.),
                                               m.fmin(0., x), m.copysign(2., x),
                                               m.heaviside(x, .5)]), ('inf', ()), grad=False),
    _c('hypot-big', lambda m, x, y: m.hypot(x * 1e300, y * 1e300), U34, U34, grad=False),
    _c('logaddexp-tie', lambda m, x: m.logaddexp(x, x), U34),
    _c('heaviside', lambda m, x: m.heaviside(m.round(x), .5), U34, grad=False),
    _c('ldexp', lambda m, x, n: m.ldexp(x, n), U34, ('i', (3, 4))),
    _c('predicates', lambda m, x: m.stack([m.signbit(x), m.isposinf(x), m.isneginf(x)]),
       ('inf', ()), grad=False),
    _c('predicates-int', lambda m, x: m.stack([m.signbit(x), m.isposinf(x), m.isneginf(x)]),
       ('i', (5,)), grad=False),
    _c('nan_to_num', lambda m, x: m.nan_to_num(x) + m.nan_to_num(x, nan=1., posinf=2.,
                                                              neginf=-3.), ('inf', ()),
       grad=False),
    _c('sinc-zero', lambda m, x: m.sinc(x * 0.) + m.sinc(x), U34),
    # NaN-aware reductions
    *[_c(f'{name}-{axis}', lambda m, x, name=name, axis=axis: getattr(m, name)(x, axis), N34,
         grad=name not in ('nanargmax', 'nanargmin'))
      for name in ('nansum', 'nanprod', 'nanmax', 'nanmin', 'nanmean', 'nanvar', 'nanstd',
                   'nanargmax', 'nanargmin', 'nancumsum', 'nancumprod')
      for axis in (None, 1)],
    *[_c(f'{name}-allnan', lambda m, x, name=name: getattr(m, name)(x, 1, keepdims=True),
         ('allnan', (3, 4)), grad=False)
      for name in ('nanmax', 'nanmin', 'nanmean', 'nanargmax', 'nanargmin')],
    _c('nanvar-ddof', lambda m, x: m.nanvar(x, 0, ddof=1) + m.nanstd(x, 1, ddof=3).sum(), N34),
    _c('nan-reductions-int', lambda m, x: m.nansum(x) + m.nanmax(x) + m.nanargmin(x),
       ('i', (3, 4)), grad=False),
    _c('cumulative_sum', lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True)
       + m.cumulative_prod(x, axis=1, include_initial=True), U34),
    _c('cumulative-1d', lambda m, x: m.cumulative_sum(x) * m.cumulative_prod(x), U),
    # statistics
    _c('diff', lambda m, x: m.diff(x, 2, axis=0, prepend=1., append=x[:1]), ('u', (4, 3))),
    _c('diff-bool', lambda m, x: m.diff(x), ('b', (6,)), grad=False),
    _c('ediff1d', lambda m, x: m.ediff1d(x, to_end=m.array([7., 8.]), to_begin=-1.), U34),
    _c('average', lambda m, x, w: m.stack(m.average(x, 1, w[0], returned=True)), U34,
       ('pos', (3, 4))),
    _c('average-1d-weights', lambda m, x, w: m.average(x, 0, w, keepdims=True), U34,
       ('pos', (3,))),
    _c('average-plain', lambda m, x: m.average(x) + m.average(x, (0, 1)), U34),
    _c('ptp', lambda m, x: m.ptp(x, 1) + m.ptp(x), U34),
    _c('median', lambda m, x: m.median(x, 1) + m.median(x), ('u', (3, 5))),
    _c('median-even', lambda m, x: m.median(x, 0, keepdims=True), U34),
    *[_c(f'quantile-{method}', lambda m, x, method=method: m.quantile(
        x, m.array([0., .3, .5, .99, 1.]), 1, method=method), ('u', (3, 6)),
        grad=method in ('linear', 'midpoint'))
      for method in ('linear', 'lower', 'higher', 'nearest', 'midpoint')],
    _c('quantile-axes', lambda m, x: m.quantile(x, .25, (0, 2), keepdims=True),
       ('u', (3, 4, 5))),
    _c('percentile', lambda m, x: m.percentile(x, 30.) + m.percentile(x, m.array([10, 90]),
                                                                     0).sum(), U34),
    _c('quantile-nan', lambda m, x: m.quantile(x, .5, 1), N34, grad=False),
    _c('nanmedian', lambda m, x: m.nanmedian(x, 1), N34),
    _c('nanquantile', lambda m, x: m.nanquantile(x, m.array([.1, .7]), 1)
       + m.nanpercentile(x, 40., 1), ('allnan', (3, 4)), grad=False),
    _c('cov', lambda m, x: m.cov(x), ('u', (3, 5))),
    _c('cov-options', lambda m, x, y: m.cov(x, y, rowvar=False, bias=True), ('u', (5, 2)),
       ('u', (5, 1))),
    _c('cov-weights', lambda m, x, f, a: m.cov(x, fweights=f, aweights=a, ddof=2), ('u', (3, 5)),
       ('idx', (5,)), ('pos', (5,))),
    _c('corrcoef', lambda m, x: m.corrcoef(x), ('u', (3, 5))),
    _c('corrcoef-pair', lambda m, x, y: m.corrcoef(x, y), ('u', (6,)), ('u', (6,))),
    _c('cov-corrcoef-complex', lambda m, x, y: m.stack([m.cov(x + 1j * y),
                                                         m.corrcoef(x + 1j * y)]),
       ('u', (3, 5)), ('u', (3, 5)), grad=False),  # Hermitian: deviations times conjugates
    # arrays
    _c('kron', lambda m, x, y: m.kron(x, y), ('u', (2, 3)), ('u', (3,))),
    _c('cross', lambda m, x, y: m.cross(x, y), ('u', (4, 3)), ('u', (4, 3))),
    _c('cross-2-3', lambda m, x, y: m.cross(x, y, axisa=0, axisc=0), ('u', (2, 4)),
       ('u', (4, 3))),
    _c('cross-2d', lambda m, x, y: m.cross(x, y), ('u', (4, 2)), ('u', (2,))),
    _c('polyval', lambda m, p, x: m.polyval(p, x), ('u', (4,)), U34),
    _c('interp', lambda m, x, xp, fp: m.interp(x * 1.5, xp, fp), U34, ('sorted', (6,)),
       ('u', (6,))),
    _c('interp-left-right', lambda m, x, xp, fp: m.interp(x * 2, xp, fp, left=-5., right=5.),
       U34, ('sorted', (6,)), ('u', (6,))),
    _c('interp-period', lambda m, x, xp, fp: m.interp(x * 4, xp, fp, period=3.), U34,
       ('u', (6,)), ('u', (6,))),
    _c('trapezoid', lambda m, y, x: m.trapezoid(y, x) + m.trapezoid(y, dx=.5, axis=0).sum(),
       U34, ('sorted', (4,))),
    _c('searchsorted', lambda m, a, v: m.stack([m.searchsorted(a, v), m.searchsorted(
        a, v, side='right')]), ('sorted', (6,)), ('u', (3, 4)), grad=False),
    _c('searchsorted-ties-nan', lambda m, v: m.stack([m.searchsorted(
        m.array([0., 1., 1., 2., np.nan]), v, side) for side in ('left', 'right')]),
       ('inf', ()), grad=False),
    _c('searchsorted-sorter', lambda m, a, v: m.searchsorted(a, v, sorter=m.argsort(a)),
       ('u', (6,)), U34, grad=False),
    _c('select', lambda m, x: m.select([x < -1, x < 0, x > 1.5], [x, x * 2, m.sin(x)], -9.),
       U34),
    _c('piecewise', lambda m, x: m.piecewise(x, [x < 0, x > 1], [m.sin, 2., m.cos]), U34),
    _c('piecewise-no-default', lambda m, x: m.piecewise(x, [x < 0, x >= 0],
                                                        [lambda v: -v, lambda v: v * v]), U34),
    *[_c(f'rot90-{k}', lambda m, x, k=k: m.rot90(x, k, (2, 0)), ('u', (2, 3, 4)))
      for k in (0, 1, 2, 3, -1)],
    _c('unstack', lambda m, x: m.stack(m.unstack(x, axis=1), -1), ('u', (2, 3, 4))),
    _c('matrix_transpose', lambda m, x: m.matrix_transpose(x) + m.permute_dims(x, (0, 2, 1)),
       ('u', (2, 3, 3))),
    _c('concat', lambda m, x, y: m.concat([x, y], axis=1), U34, ('u', (3, 2))),
    _c('isin', lambda m, x, t: m.stack([m.isin(x, t), m.isin(x, t, invert=True)]),
       ('idx', (3, 4)), ('idx', (2, 2)), grad=False),
    # index arrays and creation
    _c('geomspace-logspace', lambda m: m.concatenate([m.geomspace(1., 1000., 7), m.logspace(
        0., 3., 5), m.logspace(1, 2, 4, base=2., endpoint=False)]), grad=False),
    _c('geomspace-axis', lambda m: m.geomspace(m.array([1., 2.]), m.array([8., 32.]), 4,
                                               axis=1), grad=False),
    _c('tri-indices', lambda m: m.concatenate([*m.tril_indices(4), *m.triu_indices(3, 1, 5),
                                               *m.tril_indices(3, -1), *m.diag_indices(3, 3)]),
       grad=False),
    _c('tril-indices-use', lambda m, x: x[m.tril_indices(4, -1)] + x[m.triu_indices(4, 1)],
       ('u', (4, 4))),
    _c('indices', lambda m: m.concatenate([m.indices((2, 3)).ravel(), *[
        i.ravel() for i in m.indices((2, 3), sparse=True)]]), grad=False),
    _c('unravel_index', lambda m, i: m.stack(m.unravel_index(i - 20, (3, 4))),
       ('idx', (9,)), grad=False),
    _c('unravel_index-range', lambda m: m.stack(m.unravel_index(m.arange(-15, 15), (2, 3, 2))),
       grad=False),
    *[_c(f'ravel_multi_index-{mode}-{order}', lambda m, i, j, mode=mode, order=order:
         m.ravel_multi_index((i - 1, j), (4, 5), mode=mode, order=order), ('idx', (6,)),
         ('idx', (6,)), grad=False)
      for mode in ('clip', 'wrap') for order in ('C', 'F')],
    # nn
    *[_c(f'nn-{name}', lambda m, x, name=name: getattr(m, name)(x * 4), U34, module='nn')
      for name in ('elu', 'celu', 'selu', 'relu6', 'hard_sigmoid', 'hard_silu', 'hard_swish',
                   'mish', 'squareplus', 'identity')],
    _c('nn-kinks', lambda m, x: m.relu6(x * 0.) + m.relu6(x * 0. + 6.)
       + m.hard_sigmoid(x * 0. - 3.), U34, module='nn'),
    _c('nn-elu-alpha', lambda m, x: m.elu(x, .5) + m.celu(x, 2.) + m.squareplus(x, 1.), U34,
       module='nn'),
    _c('nn-glu', lambda m, x: m.glu(x) + m.glu(x, axis=0).sum(), ('u', (4, 6)), module='nn'),
    _c('nn-standardize', lambda m, x: m.standardize(x) + m.standardize(x, 0, algorithm='stable'),
       ('u', (4, 4)), module='nn'),
    _c('nn-log1mexp', lambda m, x: m.log1mexp(x) + m.log1mexp(x * 20.) + m.log1mexp(x * 1e-6),
       P34, module='nn'),
    _c('nn-logmeanexp', lambda m, x: m.logmeanexp(x) + m.logmeanexp(x, 1).sum()
       + m.logmeanexp(x, 0, keepdims=True).sum(), U34, module='nn'),
]


def _ids(cases):
    return [pytest.param(c, id=c.id) for c in cases]


def _args(rng, case):
    return [_input(rng, kind, shape) for kind, shape in case.args]


@pytest.mark.parametrize('case', _ids(CASES))
def test_eager_and_jit(case, rng):
    """Eagerly (an Array out) and under jit, against one JAX answer."""
    ours, theirs = MODULES[case.module]
    args = _args(rng, case)
    expected = jax.jit(lambda *a: case.fn(theirs, *a))(*args)
    out = case.fn(ours, *(mnp.asarray(a) for a in args))
    assert isinstance(out, minijax.Array), type(out)
    assert_close(out, expected)
    assert_close(minijax.jit(lambda *a: case.fn(ours, *a))(*args), expected)


@pytest.mark.parametrize('case', _ids([c for c in CASES if c.differentiable]))
def test_vjp(case, rng):
    ours, theirs = MODULES[case.module]
    args = _args(rng, case)
    floats = [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == 'f']

    def only_floats(module, f):
        def g(*xs):
            full = list(args)
            for i, x in zip(floats, xs):
                full[i] = x
            return f(module, *full)
        return g

    primals = [args[i] for i in floats]
    out, f_vjp = minijax.vjp(only_floats(ours, case.fn), *primals)
    expected, ct, expected_cts = jax_vjp(only_floats(theirs, case.fn), primals, rng)
    assert_close(out, expected)
    for got, want in zip(f_vjp(ct), expected_cts, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- the rest

@pytest.mark.parametrize('a,b', [('float32', 'int64'), (int, float), ('int8', 'uint8'),
                                 ('bfloat16', 'float16'), (bool, 'int32')])
def test_promote_types_and_can_cast_match_jax(a, b):
    assert mnp.promote_types(a, b) == jnp.promote_types(a, b)
    assert mnp.can_cast(a, b) == jnp.can_cast(a, b)
    assert mnp.can_cast(b, a, 'same_kind') == jnp.can_cast(b, a, 'same_kind')


@pytest.mark.parametrize('value', [1, 1., np.float32(2), 'a', [1], np.ones(2), np.ones(())])
def test_isscalar_and_iscomplexobj_match_jax(value):
    assert mnp.isscalar(value) == jnp.isscalar(value)
    assert mnp.isscalar(mnp.asarray(np.ones(()))) and not mnp.isscalar(mnp.ones(2))
    assert mnp.iscomplexobj(value) is False


def test_searchsorted_compares_all_at_once_not_in_a_loop():
    def equations(n):
        jaxpr = minijax.make_jaxpr(lambda a, v: mnp.searchsorted(a, v))(np.arange(n * 1.),
                                                                         np.ones(3))
        return len(jaxpr.jaxpr.eqns)
    assert equations(5) == equations(500)


@pytest.mark.parametrize('thunk,error,message', [
    (lambda: mnp.quantile(mnp.arange(4.), .5, method='weibull'), ValueError,
     "method 'weibull'"),
    (lambda: mnp.cumulative_sum(mnp.ones((2, 2))), ValueError, 'axis is required'),
    (lambda: mnp.ldexp(1., 2.), ValueError, 'x2 an integer or bool array'),
    (lambda: mnp.ravel_multi_index((np.array([5]),), (3,)), ValueError, 'out of bounds'),
    (lambda: minijax.jit(lambda i: mnp.ravel_multi_index((i,), (3,)))(np.array([1])),
     ValueError, "mode='raise' needs concrete"),
    (lambda: mnp.cross(mnp.ones(4), mnp.ones(3)), ValueError, '2 or 3 components'),
    (lambda: mnp.select([True], [1., 2.]), ValueError, '1 conditions for 2 choices'),
    (lambda: mnp.matrix_transpose(mnp.ones(3)), ValueError, 'at least two-dimensional'),
    (lambda: mnn.glu(mnp.ones(3)), ValueError, 'odd size'),
])
def test_errors_name_the_problem(thunk, error, message):
    with pytest.raises(error, match=message.replace('(', r'\(').replace("'", "'")):
        thunk()
