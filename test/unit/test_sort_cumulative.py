"""sort, top_k and the cumulative reductions against jax.lax and jax.numpy (x64): the edge
values (NaNs, ties, signed zeros), jvp, vjp and vmap at several batch axes, eagerly and under
jit, the errors, and the flops against XLA's cost analysis.

The per-rule checks over random operands are rows of ``primitive_cases.py``; these are the
cases a random operand does not reach.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close, jax_answer

import minijax
import minijax.numpy as mnp
from minijax import lax as mlax

EDGES = np.array([[3., np.nan, -0., 0., 1., -np.inf, 1., np.inf, -0., np.nan, -2., 0.],
                  [0., -0., 2., 2., np.nan, 5., -1., 2., 0., -0., 7., 1.]])


def _same_bits(actual, expected):
    """Equal values with equal signs of zero, and NaNs (of either sign) in the same places."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)
    if actual.dtype.kind == 'f':
        not_nan = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(actual[not_nan]), np.signbit(expected[not_nan]))


def _both_ways(f):
    """``f`` eagerly and under jit."""
    return [f, minijax.jit(f)]


# ----------------------------------------------------------------------------- sort values

@pytest.mark.parametrize('dimension', [0, 1, -1])
def test_sort_orders_nans_last_and_keeps_zeros_in_input_order(dimension):
    positions = np.broadcast_to(np.arange(12.), EDGES.shape)
    for mine in _both_ways(lambda x, p: mlax.sort((x, p), dimension)):
        for got, expected in zip(mine(EDGES, positions),
                                 jax.lax.sort((EDGES, positions), dimension=dimension)):
            _same_bits(got, expected)


def test_sort_with_two_keys_and_an_unstable_sort_of_integers(rng):
    a = rng.integers(0, 3, (5, 8)).astype(np.int32)
    b = rng.integers(0, 4, (5, 8)).astype(np.uint32)
    c = rng.normal(size=(5, 8))
    for mine in _both_ways(lambda a, b, c: mlax.sort((a, b, c), 1, num_keys=2)):
        for got, expected in zip(mine(a, b, c), jax.lax.sort((a, b, c), 1, num_keys=2)):
            _same_bits(got, expected)
    for mine in _both_ways(lambda a: mlax.sort(a, 0, is_stable=False)):
        _same_bits(mine(a), jax.lax.sort(a, 0, is_stable=False))


def test_sort_of_booleans_and_a_weak_scalar_array():
    x = np.array([True, False, True, False])
    for mine in _both_ways(lambda x: mlax.sort(x)):
        _same_bits(mine(x), jax.lax.sort(x))


# ----------------------------------------------------------------------------- sort derivatives

def test_sort_jvp_and_vjp_permute_the_tangents_of_keys_and_values(rng):
    keys = np.round(rng.normal(size=(3, 6)))  # ties: the stable order decides the tangents
    values = rng.normal(size=(3, 6))

    def f(m):
        return lambda k, v: m.sort((k, v), 1)

    tangents = (rng.normal(size=keys.shape), rng.normal(size=values.shape))
    for mine in [minijax.jvp, lambda f, p, t: minijax.jit(lambda *a: minijax.jvp(f, p, t))()]:
        out, tan = mine(f(mlax), (keys, values), tangents)
        out_ref, tan_ref = jax.jvp(f(jax.lax), (keys, values), tangents)
        for got, expected in zip([*out, *tan], [*out_ref, *tan_ref]):
            assert_close(got, expected)
    cts = (rng.normal(size=keys.shape), rng.normal(size=values.shape))
    _, mine_vjp = minijax.vjp(f(mlax), keys, values)
    _, jax_vjp = jax.vjp(f(jax.lax), keys, values)
    for got, expected in zip(mine_vjp(cts), jax_vjp(cts)):
        assert_close(got, expected)


def test_grad_through_a_sort_by_integer_keys(rng):
    """Integer keys have no tangent; the values' cotangent is unsorted by them."""
    keys = rng.integers(0, 4, (7,)).astype(np.int32)
    values = rng.normal(size=7)
    weights = np.arange(7.)

    def loss(m, mnp_):
        return lambda v: mnp_.sum(m.sort_key_val(keys, v)[1] * weights)

    assert_close(minijax.grad(loss(mlax, mnp))(values), jax.grad(loss(jax.lax, jnp))(values))
    assert_close(minijax.jit(minijax.grad(loss(mlax, mnp)))(values),
                 jax.grad(loss(jax.lax, jnp))(values))


# ----------------------------------------------------------------------------- sort vmap

@pytest.mark.parametrize('in_axes', [(0, 0), (1, None), (2, 1), (None, 0)], ids=str)
def test_vmap_of_sort_moves_the_batch_axis_out_of_the_sorted_dimension(in_axes, rng):
    def arg(axis):
        shape = (3, 5) if axis is None else (3, 5)[:axis] + (4,) + (3, 5)[axis:]
        return np.round(rng.normal(size=shape))

    keys, values = arg(in_axes[0]), arg(in_axes[1])

    def f(m):
        return lambda k, v: m.sort((k, v), 1)

    expected = jax.vmap(f(jax.lax), in_axes)(keys, values)
    for mine in _both_ways(minijax.vmap(f(mlax), in_axes)):
        for got, want in zip(mine(keys, values), expected):
            assert_close(got, want)


# ----------------------------------------------------------------------------- top_k

@pytest.mark.parametrize('k', [0, 3, 12])
def test_top_k_puts_nans_first_then_positive_zero_before_negative(k):
    for mine in _both_ways(lambda x: mlax.top_k(x, k)):
        for got, expected in zip(mine(EDGES), jax.lax.top_k(EDGES, k)):
            _same_bits(got, expected)


def test_top_k_along_an_axis_of_integers_with_ties(rng):
    x = rng.integers(-3, 3, (4, 6, 2)).astype(np.int32)
    expected_values = jax.lax.top_k(x, 4, axis=1)
    for mine in _both_ways(lambda x: mlax.top_k(x, 4, axis=1)):
        values = mine(x)
        assert type(values) is type(expected_values)  # a list: it prints as JAX's does
        for got, expected in zip(values, expected_values):
            _same_bits(got, expected)


def test_top_k_jvp_vjp_and_vmap(rng):
    x = rng.normal(size=(3, 7))
    t = rng.normal(size=x.shape)
    out, tan = minijax.jvp(lambda x: mlax.top_k(x, 3)[0], (x,), (t,))
    out_ref, tan_ref = jax.jvp(lambda x: jax.lax.top_k(x, 3)[0], (x,), (t,))
    assert_close(out, out_ref)
    assert_close(tan, tan_ref)
    ct = rng.normal(size=(3, 3))
    assert_close(minijax.vjp(lambda x: mlax.top_k(x, 3)[0], x)[1](ct)[0],
                 jax.vjp(lambda x: jax.lax.top_k(x, 3)[0], x)[1](ct)[0])
    for got, expected in zip(minijax.vmap(lambda x: mlax.top_k(x, 2), 1)(x),
                             jax.vmap(lambda x: jax.lax.top_k(x, 2), 1)(x)):
        assert_close(got, expected)


# ----------------------------------------------------------------------------- jnp.sort, argsort

@pytest.mark.parametrize('axis', [None, 0, -1])
@pytest.mark.parametrize('descending', [False, True])
@pytest.mark.parametrize('stable', [True, False])
def test_numpy_sort_and_argsort(axis, descending, stable):
    x = EDGES if stable else np.nan_to_num(EDGES, nan=9.)
    kwargs = dict(axis=axis, descending=descending, stable=stable)
    for name in ('sort', 'argsort'):
        expected = getattr(jnp, name)(x, **kwargs)
        for mine in _both_ways(lambda x: getattr(mnp, name)(x, **kwargs)):
            if stable:
                _same_bits(mine(x), expected)
            elif name == 'sort':  # an unstable sort may order tied zeros -0., +0. either way
                assert_close(mine(x), expected)


def test_numpy_cumsum_and_cumprod_are_the_primitives(rng):
    x = rng.normal(size=(3, 4))
    jaxpr = str(minijax.make_jaxpr(lambda x: mnp.cumsum(x, 1) + mnp.cumprod(x, 0))(x))
    assert 'cumsum' in jaxpr and 'cumprod' in jaxpr and 'pad' not in jaxpr
    assert_close(mnp.cumsum(x), jnp.cumsum(x))
    assert_close(minijax.grad(lambda x: mnp.sum(mnp.cumprod(x, 1)))(x),
                 jax.grad(lambda x: jnp.sum(jnp.cumprod(x, 1)))(x))


# ----------------------------------------------------------------------------- cumulative values

CUMULATIVE = ['cumsum', 'cumprod', 'cummax', 'cummin', 'cumlogsumexp']
#: Running zeros of both signs, NaNs, infinities and ties.
CUM_EDGES = np.array([[-0., 0., -0., 2., 2., np.nan, 1.],
                      [0., -0., 0., -1., np.inf, -1., -np.inf],
                      [-np.inf, -np.inf, 3., 3., -0., 0., 5.]])


@pytest.mark.parametrize('name', CUMULATIVE)
@pytest.mark.parametrize('axis,reverse', [(1, False), (1, True), (0, False), (0, True)])
def test_cumulative_edge_values(name, axis, reverse):
    expected = getattr(jax.lax, name)(CUM_EDGES, axis, reverse)
    for mine in _both_ways(lambda x: getattr(mlax, name)(x, axis, reverse)):
        got = mine(CUM_EDGES)
        assert_close(got, expected)
        if name in ('cummax', 'cummin'):
            _same_bits(got, expected)


@pytest.mark.parametrize('name', CUMULATIVE[:4])
def test_cumulative_integers_wrap_like_xla(name):
    x = np.array([[2 ** 30, 3, -7, 2 ** 30], [5, -2 ** 31, 1, 9]], np.int32)
    for mine in _both_ways(lambda x: getattr(mlax, name)(x, 1)):
        _same_bits(mine(x), getattr(jax.lax, name)(x, 1))


def test_cumulative_over_an_empty_axis():
    x = np.zeros((2, 0))
    for name in CUMULATIVE:
        for mine in _both_ways(lambda x: getattr(mlax, name)(x, 1)):
            assert_close(mine(x), getattr(jax.lax, name)(x, 1))


# ----------------------------------------------------------------------------- cumulative derivatives

@pytest.mark.parametrize('name', CUMULATIVE)
@pytest.mark.parametrize('reverse', [False, True])
def test_cumulative_jvp_and_vjp(name, reverse, rng):
    """Ties (a grid of halves, with zeros for cumprod) split the tangents of cummax and
    cummin as JAX's associative scan splits them."""
    x = np.round(rng.normal(size=(4, 7)) * 2) / 2
    t = rng.normal(size=x.shape)
    ct = rng.normal(size=x.shape)

    def f(m):
        return lambda x: getattr(m, name)(x, 1, reverse)

    out_ref, tan_ref, expected = jax_answer(lambda x, t, ct: (
        *jax.jvp(f(jax.lax), (x,), (t,)), jax.vjp(f(jax.lax), x)[1](ct)[0]), x, t, ct)
    out, tan = minijax.jvp(f(mlax), (x,), (t,))
    assert_close(out, out_ref)
    assert_close(tan, tan_ref)
    assert_close(minijax.vjp(f(mlax), x)[1](ct)[0], expected)
    assert_close(minijax.jit(lambda x, ct: minijax.vjp(f(mlax), x)[1](ct)[0])(x, ct), expected)


def test_second_derivative_of_cumprod(rng):
    x = rng.normal(size=5)
    hessian = minijax.jacfwd(minijax.grad(lambda x: mlax.cumprod(x)[-1] + mlax.cumsum(x)[2]))
    expected = jax.jacfwd(jax.grad(lambda x: jax.lax.cumprod(x)[-1] + jax.lax.cumsum(x)[2]))
    assert_close(hessian(x), jax_answer(expected, x))


@pytest.mark.parametrize('name', CUMULATIVE)
@pytest.mark.parametrize('in_axis', [0, 1, 2])
def test_vmap_of_cumulative(name, in_axis, rng):
    x = rng.normal(size=(3, 4, 5))

    def f(m):
        return lambda x: getattr(m, name)(x, 1, True)

    expected = jax.vmap(f(jax.lax), in_axis)(x)
    for mine in _both_ways(minijax.vmap(f(mlax), in_axis)):
        assert_close(mine(x), expected)


def test_associative_scan_of_a_pytree(rng):
    xs = {'a': rng.normal(size=(6, 2)), 'b': rng.normal(size=(6, 2))}

    def fn(x, y):
        return {'a': x['a'] + y['a'], 'b': x['b'] * y['b']}

    both_ways = jax_answer(lambda a, b: [jax.lax.associative_scan(fn, {'a': a, 'b': b},
                                                                  reverse=reverse)
                                         for reverse in (False, True)], xs['a'], xs['b'])
    for reverse, expected in zip((False, True), both_ways):
        got = mlax.associative_scan(fn, xs, reverse=reverse)
        for key in xs:
            assert_close(got[key], expected[key])


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize('thunk,error,message', [
    (lambda: mlax.sort((np.ones(3), np.ones(4))), TypeError, r'float64\[3\], float64\[4\]'),
    (lambda: mlax.sort(np.ones(3), num_keys=2), ValueError, 'num_keys=2'),
    (lambda: mlax.sort((np.ones(3),), num_keys=0), ValueError, 'num_keys=0'),
    (lambda: mlax.sort(np.ones(3), dimension=1), ValueError, 'sort: dimension 1'),
    (lambda: mlax.sort(()), TypeError, 'at least one operand'),
    (lambda: mlax.top_k(np.ones(3), 4), ValueError, 'k=4'),
    (lambda: mlax.top_k(np.float64(1.), 1), ValueError, r'one dimension.*float64\[\]'),
    (lambda: mlax.top_k(np.ones(3) + 1j, 1), ValueError, r'no complex.*complex128\[3\]'),
    (lambda: mlax.cumsum(np.ones(3, bool)), TypeError, r'cumsum needs a numeric.*bool\[3\]'),
    (lambda: mlax.cumlogsumexp(np.ones(3, np.int32)), TypeError, r'floating-point.*int32'),
    (lambda: mlax.cummax(np.ones((2, 3)), 2), ValueError, 'cummax: axis 2'),
    (lambda: mnp.sort(np.ones(3), kind='quicksort'), TypeError, 'kind'),
], ids=['shapes', 'num_keys-single', 'num_keys-zero', 'dimension', 'empty', 'top_k-k',
        'top_k-scalar', 'top_k-complex', 'cumsum-bool', 'cumlogsumexp-int', 'cummax-axis',
        'numpy-kind'])
def test_bad_input_names_the_argument(thunk, error, message):
    with pytest.raises(error, match=message):
        thunk()


def test_transposing_sort_in_its_keys_is_refused():
    from minijax.interpreters.transpose import UndefinedPrimal
    from minijax.core import ShapedArray
    from minijax.interpreters.transpose import transpose_rules
    x = UndefinedPrimal(ShapedArray((3,), np.dtype('float64')))
    with pytest.raises(ValueError, match='non-key operands'):
        transpose_rules[mlax.sort_p]([np.ones(3)], x, dimension=0, is_stable=True, num_keys=1)


# ----------------------------------------------------------------------------- flops

@pytest.mark.parametrize('f', [
    lambda m: lambda x: m.sort((x, x), 1, num_keys=1)[1],
    lambda m: lambda x: m.cumsum(x, 1),
    lambda m: lambda x: m.cummax(x, 0, True),
    lambda m: lambda x: m.cumlogsumexp(x, 1),
], ids=['sort', 'cumsum', 'cummax', 'cumlogsumexp'])
def test_flops_match_xla_cost_analysis(f):
    x = np.ones((5, 16))
    expected = jax.jit(f(jax.lax)).lower(x).compile().cost_analysis()['flops']
    assert minijax.flops(f(mlax))(x) == expected


def test_grad_of_cumlogsumexp_at_infinities_is_jaxs():
    """The derivative of JAX's custom_jvp logaddexp, in the scan of the JVP: +inf replaced
    by 0 in its rule, so NaN where leading -infs meet (-inf - -inf) and 0 for a later -inf,
    as JAX's."""
    x = np.array([-np.inf, -np.inf, 1., 2., -np.inf, 3., np.inf, 1.])
    f = lambda lax_: lambda x: lax_.cumlogsumexp(x).sum()  # noqa: E731
    np.testing.assert_allclose(minijax.grad(f(mlax))(x), jax_answer(jax.grad(f(jax.lax)), x))
