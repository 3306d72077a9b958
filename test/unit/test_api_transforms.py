"""The JAX API surface of the transformations, against JAX (x64): jit's static and keyword
arguments and method binding; has_aux on grad/value_and_grad/vjp/jvp/linearize; jvp and
linearize on pytrees; jacfwd/jacrev/jacobian/hessian (values, dtypes and structures); and
``minijax.test_util.check_grads``."""
from functools import partial

import jax
import jax.numpy as jnp
import jax.test_util
import numpy as np
import pytest
from testlib import F32, F64, assert_close, random_array

import minijax
import minijax.numpy as mnp
from minijax import lax, runtime


def assert_trees_close(actual, expected):
    """Same structure (as JAX flattens both) and leaves close in value, shape and dtype."""
    actual_leaves, actual_tree = jax.tree_util.tree_flatten(actual)
    expected_leaves, expected_tree = jax.tree_util.tree_flatten(expected)
    assert str(actual_tree) == str(expected_tree)
    for a, e in zip(actual_leaves, expected_leaves):
        if isinstance(e, str):  # an aux value that is not an array passes through as it is
            assert a == e
        else:
            assert_close(a, e)


def _traces():
    return runtime.counters['trace']


# ---------------------------------------------------------------------------- jit: static arguments

def power_m(x, n):
    out = x
    for _ in range(n - 1):  # Python control flow on the static value
        out = lax.mul(out, x)
    return out


def power_j(x, n):
    out = x
    for _ in range(n - 1):
        out = out * x
    return out


def test_static_argnums_traces_once_per_value(rng):
    x = random_array(rng, (3,), F64)
    f = minijax.jit(power_m, static_argnums=1)
    ref = jax.jit(power_j, static_argnums=1)
    before = _traces()
    for n in (2, 3, 2, 3):
        assert_close(f(x, n), ref(x, n))
    assert _traces() - before == 2


@pytest.mark.parametrize('config', [dict(static_argnums=1), dict(static_argnames='n'),
                                    dict(static_argnums=-1), dict(static_argnames=('n',))])
@pytest.mark.parametrize('by_keyword', [False, True])
def test_static_argument_passed_either_way(config, by_keyword, rng):
    """A static parameter is static whether passed by position or by name: each of
    static_argnums and static_argnames is completed from the other, as in JAX."""
    x = random_array(rng, (2, 2), F64)
    call = (lambda g: g(x, n=3)) if by_keyword else (lambda g: g(x, 3))
    if by_keyword and config == dict(static_argnums=-1):
        config = dict(static_argnums=1)  # a negative number counts the positional arguments
    assert_close(call(minijax.jit(power_m, **config)), call(jax.jit(power_j, **config)))


def test_static_argument_decorators(rng):
    x = random_array(rng, (3,), F64)

    @partial(minijax.jit, static_argnums=(1,))
    def f(x, n):
        return power_m(x, n)

    @minijax.jit(static_argnames='n')
    def g(x, n):
        return power_m(x, n)

    assert_close(f(x, 4), power_j(x, 4))
    assert_close(g(x, n=4), power_j(x, 4))


@pytest.mark.parametrize('static', [1, 1.0, True])
def test_static_values_that_compare_equal_trace_separately(static):
    """1, 1.0 and True hash alike, but give different dtypes: the key holds the type."""
    f = minijax.jit(lambda x, s: (x, mnp.array(s)), static_argnums=1)
    ref = jax.jit(lambda x, s: (x, jnp.array(s)), static_argnums=1)
    for s in (1, 1.0, True):  # fill the cache with the look-alikes first
        f(np.float64(2.), s)
    assert_trees_close(f(np.float64(2.), static), ref(np.float64(2.), static))


def test_static_callable_argument(rng):
    x = random_array(rng, (4,), F64)
    f = minijax.jit(lambda g, x: g(x), static_argnums=0)
    assert_close(f(lax.sin, x), jnp.sin(x))
    assert_close(f(lax.exp, x), jnp.exp(x))


def test_unhashable_static_argument_is_a_value_error_as_in_jax():
    with pytest.raises(ValueError, match='Non-hashable static arguments'):
        jax.jit(power_j, static_argnums=1)(1., [2])
    with pytest.raises(ValueError, match=r"static argument 1: Non-hashable static arguments "
                                         r"are not supported.*type <class 'list'>"):
        minijax.jit(power_m, static_argnums=1)(1., [2])
    with pytest.raises(ValueError, match=r"static argument 'n': Non-hashable.*ndarray"):
        minijax.jit(power_m, static_argnames='n')(1., n=np.ones(2))


@pytest.mark.parametrize('config,error,pattern', [
    (dict(static_argnums=2), ValueError, r'static_argnums=\(2,\), but power_m only accepts 2 '
                                         r'positional arguments'),
    (dict(static_argnums=-3), ValueError, r'only accepts 2 positional arguments'),
    (dict(static_argnames='m'), ValueError, r"static_argnames \['m'\], which are not "
                                            r'parameters of power_m'),
    (dict(static_argnums='n'), TypeError, r"static_argnums must be an int or a sequence of "
                                          r"ints, got 'n'"),
    (dict(static_argnums=1.0), TypeError, r'static_argnums must be an int'),
])
def test_bad_static_configuration(config, error, pattern):
    with pytest.raises(error):
        jax.jit(power_j, **config)
    with pytest.raises(error, match=pattern):
        minijax.jit(power_m, **config)


def test_static_argnums_of_a_varargs_function_apply_when_passed():
    """Without a signature to check against, a static position past the call's arguments
    is simply not there (as in JAX)."""
    f = minijax.jit(lambda *xs: lax.mul(xs[0], 2.), static_argnums=3)
    assert_close(f(1.5), jax.jit(lambda *xs: xs[0] * 2., static_argnums=3)(1.5))


def test_non_array_argument_names_itself_and_suggests_static():
    with pytest.raises(TypeError):
        jax.jit(power_j)(1., 'a')
    with pytest.raises(TypeError, match=r"jit\(power_m\): argument n value of type str .*"
                                        r'must be marked static with static_argnums'):
        minijax.jit(power_m)(1., n='a')
    with pytest.raises(TypeError, match=r'jit\(power_m\): argument 1 value of type str'):
        minijax.jit(power_m)(1., 'a')


def test_jit_of_the_same_function_with_and_without_static_arguments():
    """jit(f) and jit(f, static_argnums=...) share f's trace cache: their keys differ."""
    def f(x, y):
        return lax.mul(x, y)

    def f_j(x, y):
        return x * y

    traced, static = minijax.jit(f), minijax.jit(f, static_argnums=1)
    assert_close(traced(np.float32(2.), 3.), jax.jit(f_j)(np.float32(2.), 3.))
    assert_close(static(np.float32(2.), 3.), jax.jit(f_j, static_argnums=1)(np.float32(2.), 3.))
    assert_close(traced(np.float32(2.), 4.), np.float32(8.))


# -------------------------------------------------------------------- jit: keywords, methods, lower

def affine_m(x, *, w, b=None):
    out = lax.mul(x, w['scale'])
    return out if b is None else lax.add(out, b)


def affine_j(x, *, w, b=None):
    out = x * w['scale']
    return out if b is None else out + b


def test_keyword_arguments_are_traced_pytrees(rng):
    x, s, b = (random_array(rng, (3,), F64) for _ in range(3))
    f = minijax.jit(affine_m)
    assert_close(f(x, w={'scale': s}), jax.jit(affine_j)(x, w={'scale': s}))
    before = _traces()
    assert_close(f(x, w={'scale': s}, b=b), jax.jit(affine_j)(x, w={'scale': s}, b=b))
    assert_close(f(x, b=b, w={'scale': s + 1.}), affine_j(x, w={'scale': s + 1.}, b=b))
    assert _traces() - before == 1  # a new tree once; keyword order does not matter


def test_lower_with_static_and_keyword_arguments(rng):
    x = random_array(rng, (3,), F32)
    lowered = minijax.jit(power_m, static_argnames='n').lower(x, n=3)
    text = lowered.as_text()
    assert text.count('stablehlo.multiply') == 2 and 'tensor<3xf32>' in text
    assert_close(lowered.compile()(x), jax.jit(power_j, static_argnames='n')(x, n=3))


def test_donate_and_keep_unused_are_accepted(rng):
    """Two donated arguments, one output: one donation is of no use, as JAX warns
    (test_donation.py compares donation itself)."""
    x, y = random_array(rng, (3,), F64), random_array(rng, (3,), F64)
    f = minijax.jit(lambda x, y: lax.add(x, y), donate_argnums=0, donate_argnames='y',
                    keep_unused=True)
    with pytest.warns(UserWarning, match=r'Some donated buffers were not usable: float64\[3\]'):
        assert_close(f(x, y), jax.jit(lambda x, y: x + y, donate_argnums=0)(x, y))
    np.testing.assert_array_equal(x + y, np.asarray(f(x, y)))  # NumPy inputs untouched


class Scaler:
    def __init__(self, k):
        self.k = k

    @partial(minijax.jit, static_argnums=0)
    def scale(self, x):
        return lax.mul(x, self.k)

    @minijax.jit
    def traced_self(self, x):
        return x


class ScalerJ:
    def __init__(self, k):
        self.k = k

    @partial(jax.jit, static_argnums=0)
    def scale(self, x):
        return x * self.k

    @jax.jit
    def traced_self(self, x):
        return x


def test_jit_on_methods_binds_self(rng):
    x = random_array(rng, (3,), F64)
    assert_close(Scaler(2.5).scale(x), ScalerJ(2.5).scale(x))
    assert_close(Scaler(-1.).scale(x), ScalerJ(-1.).scale(x))
    assert isinstance(Scaler.scale, minijax.jit(lambda x: x).__class__)  # unbound: the Jitted
    with pytest.raises(TypeError):
        ScalerJ(1.).traced_self(x)
    with pytest.raises(TypeError, match=r"argument 0 value of type Scaler .*static_argnums"):
        Scaler(1.).traced_self(x)


def test_grad_and_vmap_of_jit_with_static_argument(rng):
    x = random_array(rng, (4,), F64)
    f = minijax.jit(lambda x, n: mnp.sum(power_m(x, n)), static_argnums=1)
    fj = lambda x, n: jnp.sum(power_j(x, n))  # noqa: E731
    assert_close(minijax.grad(f)(x, 3), jax.grad(fj)(x, 3))
    assert_close(minijax.vmap(f, (0, None))(x, 3), jax.vmap(fj, (0, None))(x, 3))


# ----------------------------------------------------------------------------- has_aux

def loss_m(w, x):
    pred = lax.mul(w, x)
    return mnp.sum(lax.mul(pred, pred)), {'pred': pred, 'tag': 'loss'}


def loss_j(w, x):
    pred = w * x
    return jnp.sum(pred * pred), {'pred': pred, 'tag': 'loss'}


def test_grad_and_value_and_grad_has_aux(rng):
    w, x = random_array(rng, (3,), F64), random_array(rng, (3,), F64)
    assert_trees_close(minijax.grad(loss_m, has_aux=True)(w, x),
                       jax.grad(loss_j, has_aux=True)(w, x))
    assert_trees_close(minijax.value_and_grad(loss_m, argnums=(0, 1), has_aux=True)(w, x),
                       jax.value_and_grad(loss_j, argnums=(0, 1), has_aux=True)(w, x))


def test_vjp_jvp_linearize_has_aux(rng):
    w, x, t, c = (random_array(rng, (3,), F64) for _ in range(4))
    f_m = lambda w: (lax.sin(w), lax.mul(w, x))  # noqa: E731
    f_j = lambda w: (jnp.sin(w), w * x)  # noqa: E731
    out, pullback, aux = minijax.vjp(f_m, w, has_aux=True)
    out_j, pullback_j, aux_j = jax.vjp(f_j, w, has_aux=True)
    assert_trees_close((out, pullback(c), aux), (out_j, pullback_j(c), aux_j))
    assert_trees_close(minijax.jvp(f_m, (w,), (t,), has_aux=True),
                       jax.jvp(f_j, (w,), (t,), has_aux=True))
    out, f_lin, aux = minijax.linearize(f_m, w, has_aux=True)
    out_j, f_lin_j, aux_j = jax.linearize(f_j, w, has_aux=True)
    assert_trees_close((out, f_lin(t), aux), (out_j, f_lin_j(t), aux_j))


def test_aux_of_nested_transformations_is_plain_values():
    """grad of a function that itself takes grad with has_aux: each aux leaves its own
    transformation only."""
    def inner_m(x):
        g, aux = minijax.grad(lambda y: (lax.mul(lax.mul(y, y), x), lax.mul(y, 3.)),
                              has_aux=True)(x)
        return lax.add(g, aux)

    def inner_j(x):
        g, aux = jax.grad(lambda y: (y * y * x, y * 3.), has_aux=True)(x)
        return g + aux

    assert_close(minijax.grad(inner_m)(0.7), jax.grad(inner_j)(0.7))
    assert_close(minijax.jit(minijax.grad(inner_m))(0.7), jax.grad(inner_j)(0.7))


@pytest.mark.parametrize('transform', [
    lambda f: minijax.grad(f, has_aux=True)(1.),
    lambda f: minijax.vjp(f, 1., has_aux=True),
    lambda f: minijax.jvp(f, (1.,), (1.,), has_aux=True),
    lambda f: minijax.jacrev(f, has_aux=True)(1.),
])
def test_has_aux_without_a_pair_is_a_type_error(transform):
    with pytest.raises(TypeError):
        jax.grad(lambda x: (x, x, x), has_aux=True)(1.)
    with pytest.raises(TypeError, match=r'has_aux=True\): expected the function to return a '
                                        r'two-element tuple \(output, aux\).*tuple'):
        transform(lambda x: (lax.mul(x, x), x, x))


# ----------------------------------------------------------------------- jvp / linearize on pytrees

def tree_fn_m(p, xs):
    return {'y': lax.mul(lax.sin(p['a']), xs[0]), 'z': (lax.add(p['b'], xs[1]),)}


def tree_fn_j(p, xs):
    return {'y': jnp.sin(p['a']) * xs[0], 'z': (p['b'] + xs[1],)}


def _tree_inputs(rng):
    p = {'a': random_array(rng, (3,), F64), 'b': random_array(rng, (2,), F64)}
    xs = [random_array(rng, (3,), F64), random_array(rng, (2,), F64)]
    return p, xs


def test_jvp_and_linearize_with_pytrees(rng):
    primals, tangents = _tree_inputs(rng), _tree_inputs(rng)
    assert_trees_close(minijax.jvp(tree_fn_m, primals, tangents),
                       jax.jvp(tree_fn_j, primals, tangents))
    out, f_lin = minijax.linearize(tree_fn_m, *primals)
    out_j, f_lin_j = jax.linearize(tree_fn_j, *primals)
    assert_trees_close((out, f_lin(*tangents)), (out_j, f_lin_j(*tangents)))


def test_vjp_with_pytrees_and_grad_keyword_arguments(rng):
    primals = _tree_inputs(rng)
    cotangent = jax.tree_util.tree_map(np.asarray, tree_fn_j(*_tree_inputs(rng)))
    out, pullback = minijax.vjp(tree_fn_m, *primals)
    out_j, pullback_j = jax.vjp(tree_fn_j, *primals)
    assert_trees_close((out, pullback(cotangent)), (out_j, pullback_j(cotangent)))
    scale = random_array(rng, (3,), F64)
    g_m = minijax.grad(lambda p, *, s: mnp.sum(lax.mul(lax.sin(p['a']), s)))
    g_j = jax.grad(lambda p, *, s: jnp.sum(jnp.sin(p['a']) * s))
    assert_trees_close(g_m(primals[0], s=scale), g_j(primals[0], s=scale))


# ----------------------------------------------------------------------------- Jacobians

JACOBIANS = ['jacfwd', 'jacrev', 'jacobian']


@pytest.mark.parametrize('name', JACOBIANS)
@pytest.mark.parametrize('argnums', [0, 1, (0, 1), (1, 0), -1])
def test_jacobian_structure_and_values_of_pytrees(name, argnums, rng):
    primals = _tree_inputs(rng)
    assert_trees_close(getattr(minijax, name)(tree_fn_m, argnums)(*primals),
                       getattr(jax, name)(tree_fn_j, argnums)(*primals))


@pytest.mark.parametrize('name', JACOBIANS)
@pytest.mark.parametrize('dtype', [F32, F64])
def test_jacobian_of_matrix_function(name, dtype, rng):
    a, x = random_array(rng, (2, 3), dtype), random_array(rng, (3, 4), dtype)
    f_m = lambda a, x: lax.tanh(lax.dot_general(a, x, (((1,), (0,)), ((), ()))))  # noqa: E731
    f_j = lambda a, x: jnp.tanh(a @ x)  # noqa: E731
    assert_trees_close(getattr(minijax, name)(f_m, (0, 1))(a, x),
                       getattr(jax, name)(f_j, (0, 1))(a, x))


@pytest.mark.parametrize('name', ['jacfwd', 'jacrev'])
def test_jacobian_dtypes_of_mixed_precision(name):
    """jacfwd's leaves take the output's dtype (they are tangents), jacrev's the input's
    (cotangents), as in JAX."""
    f_m = lambda x, y: (lax.mul(x, 2.), lax.mul(y, 3.))  # noqa: E731
    f_j = lambda x, y: (x * 2., y * 3.)  # noqa: E731
    args = (np.float32(2.), np.float64(3.))
    assert_trees_close(getattr(minijax, name)(f_m, (0, 1))(*args),
                       getattr(jax, name)(f_j, (0, 1))(*args))


@pytest.mark.parametrize('name', JACOBIANS)
def test_jacobian_has_aux(name, rng):
    x = random_array(rng, (3,), F64)
    f_m = lambda x: (lax.sin(x), {'norm': mnp.sum(lax.mul(x, x))})  # noqa: E731
    f_j = lambda x: (jnp.sin(x), {'norm': jnp.sum(x * x)})  # noqa: E731
    assert_trees_close(getattr(minijax, name)(f_m, has_aux=True)(x),
                       getattr(jax, name)(f_j, has_aux=True)(x))


@pytest.mark.parametrize('name', JACOBIANS)
def test_jacobian_composes_with_jit(name, rng):
    x = random_array(rng, (3,), F64)
    jac = getattr(minijax, name)(lambda x: lax.mul(lax.exp(x), x[0]))
    ref = getattr(jax, name)(lambda x: jnp.exp(x) * x[0])(x)
    assert_close(minijax.jit(jac)(x), ref)
    assert_close(getattr(minijax, name)(minijax.jit(lambda x: lax.mul(lax.exp(x), x[0])))(x),
                 ref)


def hess_fn_m(x, y):
    return mnp.sum(lax.mul(lax.mul(x, x), lax.sin(y)))


def hess_fn_j(x, y):
    return jnp.sum(x * x * jnp.sin(y))


@pytest.mark.parametrize('argnums', [0, 1, (0, 1)])
def test_hessian(argnums, rng):
    x, y = random_array(rng, (3,), F64), random_array(rng, (3,), F64)
    assert_trees_close(minijax.hessian(hess_fn_m, argnums)(x, y),
                       jax.hessian(hess_fn_j, argnums)(x, y))


def test_hessian_has_aux_and_dict_input(rng):
    p = {'w': random_array(rng, (2,), F64), 'b': random_array(rng, (), F64)}
    f_m = lambda p: (mnp.sum(lax.exp(lax.mul(p['w'], p['b']))), p['b'])  # noqa: E731
    f_j = lambda p: (jnp.sum(jnp.exp(p['w'] * p['b'])), p['b'])  # noqa: E731
    assert_trees_close(minijax.hessian(f_m, has_aux=True)(p),
                       jax.hessian(f_j, has_aux=True)(p))


@pytest.mark.parametrize('name', JACOBIANS)
def test_jacobian_of_integer_input_is_a_type_error(name):
    with pytest.raises(TypeError):
        getattr(jax, name)(lambda x: x * 2)(2)
    with pytest.raises(TypeError, match=rf'{name if name != "jacobian" else "jacrev"} '
                                        r'requires real.* but got int64'):
        getattr(minijax, name)(lambda x: lax.mul(x, 2))(2)


def test_jacrev_of_integer_output_is_a_type_error():
    f_m = lambda x: lax.convert_element_type(x, np.int64)  # noqa: E731
    with pytest.raises(TypeError):
        jax.jacrev(lambda x: x.astype(np.int64))(2.)
    with pytest.raises(TypeError, match=r'^jacrev requires real-valued outputs .*but got int64. '
                                        r'For differentiation of functions with integer outputs'):
        minijax.jacrev(f_m)(2.)


@pytest.mark.parametrize('name', JACOBIANS + ['hessian'])
def test_jacobian_argnums_out_of_range(name):
    with pytest.raises(ValueError):
        getattr(jax, name)(lambda x: x, argnums=3)(1.)
    with pytest.raises(ValueError, match='argnums 3 out of range for 1 positional arguments'):
        getattr(minijax, name)(lambda x: x, argnums=3)(1.)


# ----------------------------------------------------------------------------- check_grads

def test_test_util_is_reachable_from_the_package():
    assert minijax.test_util.check_grads is not None
    assert minijax.hessian is not None and minijax.jacobian is minijax.jacrev


CHECKED = [  # (minijax function, JAX function, args)
    (lambda x, y: lax.mul(lax.sin(x), y), lambda x, y: jnp.sin(x) * y,
     (np.linspace(-1., 1., 4), 1.5)),
    (lambda p: lax.exp(lax.mul(p['a'], p['b'])), lambda p: jnp.exp(p['a'] * p['b']),
     ({'a': np.linspace(0., 1., 3), 'b': np.float64(0.3)},)),
    (lambda x: mnp.sum(lax.tanh(x)), lambda x: jnp.sum(jnp.tanh(x)),
     (np.linspace(-2., 2., 5).astype(np.float32),)),
]


@pytest.mark.parametrize('case', range(len(CHECKED)))
@pytest.mark.parametrize('modes', [('fwd', 'rev'), ('lin',)])
def test_check_grads_passes_where_jax_does(case, modes):
    f_m, f_j, args = CHECKED[case]
    jax.test_util.check_grads(f_j, args, 2, modes=modes)
    minijax.test_util.check_grads(f_m, args, 2, modes=modes)


def _wrong_derivative_pair():
    """sin with a derivative of 2 cos, in minijax (a primitive) and in JAX (custom_jvp)."""
    p = minijax.Primitive('wrong_sin')
    p.def_impl(np.sin)
    p.def_abstract_eval(lambda x: x)
    p.def_jvp(lambda primals, tangents: (p.bind(*primals),
                                         lax.mul(lax.mul(lax.cos(primals[0]), 2.), tangents[0])))

    @jax.custom_jvp
    def wrong_sin(x):
        return jnp.sin(x)

    wrong_sin.defjvp(lambda primals, tangents: (jnp.sin(primals[0]),
                                                2. * jnp.cos(primals[0]) * tangents[0]))
    return p.bind, wrong_sin


@pytest.mark.parametrize('modes,check', [(('fwd',), 'JVP tangent'),
                                         (('rev',), 'VJP cotangent projection')])
def test_check_grads_catches_a_wrong_derivative(modes, check):
    f_m, f_j = _wrong_derivative_pair()
    x = (np.linspace(0.1, 1., 3),)
    with pytest.raises(AssertionError):
        jax.test_util.check_grads(f_j, x, 1, modes=modes)
    with pytest.raises(AssertionError, match=check):
        minijax.test_util.check_grads(f_m, x, 1, modes=modes)


def test_check_grads_tolerances_and_step():
    """A loose enough tolerance accepts what the default rejects, in both libraries."""
    f_m, f_j = _wrong_derivative_pair()
    x = (np.linspace(0.1, 1., 3),)
    jax.test_util.check_grads(f_j, x, 1, modes=('fwd',), atol=10., rtol=10., eps=1e-3)
    minijax.test_util.check_grads(f_m, x, 1, modes=('fwd',), atol=10., rtol=10., eps=1e-3)


# ---------------------------------------------------------------------------- JAX's other parameters

def test_transformations_take_their_function_as_fun_by_keyword():
    x = np.linspace(0.1, 1.0, 3)
    for name in ('grad', 'value_and_grad', 'jacfwd', 'jacrev', 'jacobian', 'hessian', 'vmap'):
        scalar = name in ('grad', 'value_and_grad', 'hessian')
        mine, theirs = [getattr(lib, name)(fun=lambda v, np_=np_: (
            np_.sin(v) * v).sum() if scalar else np_.sin(v) * v)(x)
            for lib, np_ in ((minijax, mnp), (jax, jnp))]
        assert_trees_close(mine, theirs)
    assert_trees_close(minijax.jvp(fun=mnp.sin, primals=(x,), tangents=(x,)),
                       jax.jvp(fun=jnp.sin, primals=(x,), tangents=(x,)))


@pytest.mark.parametrize('call', [
    lambda L: L.grad(sum, reduce_axes=('i',))(np.ones(2)),
    lambda L: L.value_and_grad(sum, reduce_axes=('i',))(np.ones(2)),
    lambda L: L.vjp(sum, np.ones(2), reduce_axes=('i',)),
], ids=['grad', 'value_and_grad', 'vjp'])
def test_reduce_axes_is_jaxs_deprecation_error(call):
    with pytest.raises(NotImplementedError) as theirs:
        call(jax)
    with pytest.raises(NotImplementedError, match='reduce_axes') as mine:
        call(minijax)
    assert str(mine.value) == str(theirs.value)


def test_jacrev_allow_int_gives_the_float_inputs_jacobian():
    f = lambda x, n: (x ** 2).sum() * n  # noqa: E731
    x = np.linspace(0.5, 1.5, 3)
    mine = minijax.jacrev(f, argnums=(0, 1), allow_int=True)(x, 3)
    theirs = jax.jacrev(f, argnums=(0, 1), allow_int=True)(x, 3)
    assert_close(mine[0], theirs[0])
    assert np.asarray(mine[1]) == np.asarray(theirs[1]) == 0
    with pytest.raises(TypeError):
        minijax.jacrev(f, argnums=(0, 1))(x, 3)


def test_vmap_axis_size_and_sum_match_as_jaxs(rng):
    x = random_array(rng, (3, 2), F64)
    double = lambda v: v * 2  # noqa: E731
    for kwargs, arg in [(dict(in_axes=None, axis_size=4), x[0]),
                        (dict(axis_size=3), x),
                        (dict(out_axes=None, sum_match=True), x)]:
        assert_close(minijax.vmap(double, **kwargs)(arg), jax.vmap(double, **kwargs)(arg))
    for kwargs, arg in [(dict(in_axes=None), x), (dict(axis_size=4), x),
                        (dict(out_axes=None), x)]:
        with pytest.raises(ValueError):
            jax.vmap(double, **kwargs)(arg)
        with pytest.raises(ValueError, match='vmap'):
            minijax.vmap(double, **kwargs)(arg)


def test_vmap_spmd_axis_name_says_minijax_lacks_it():
    with pytest.raises(NotImplementedError, match='spmd_axis_name is not supported by minijax'):
        minijax.vmap(lambda v: v, spmd_axis_name='x')


def test_make_jaxpr_axis_env_and_return_shape_as_jaxs(rng):
    x = random_array(rng, (3,), F64)
    mine, mine_shape = minijax.make_jaxpr(lambda v: lax.psum(v, 'i') * 2, axis_env=[('i', 4)],
                                          return_shape=True)(x)
    theirs, their_shape = jax.make_jaxpr(lambda v: jax.lax.psum(v, 'i') * 2,
                                         axis_env=[('i', 4)], return_shape=True)(x)
    assert str(mine) == str(theirs)
    assert (mine_shape.shape, mine_shape.dtype) == (their_shape.shape, their_shape.dtype)


@pytest.mark.parametrize('name', ['debug_infs', 'debug_nans', 'enable_x64',
                                  'explain_cache_misses', 'log_compiles', 'default_device',
                                  'default_matmul_precision', 'numpy_rank_promotion'])
def test_a_config_state_without_a_value_is_jaxs(name):
    """A boolean state called bare turns on (where minijax can), the others raise JAX's
    TypeError."""
    try:
        with getattr(jax, name)():
            expected = getattr(jax, name).value
    except TypeError as err:
        with pytest.raises(TypeError) as mine:
            getattr(minijax, name)()
        assert str(mine.value) == str(err)
        return
    try:
        with getattr(minijax, name)():
            assert getattr(minijax, name).value == expected
    except NotImplementedError as err:  # (minijax has one value of it: the error says so)
        assert 'minijax' in str(err)


def test_jit_device_backend_and_inline_as_jaxs():
    """JAX's deprecated device/backend (a warning, the result on that device, the same
    module text) and inline (the body's equations in the caller's jaxpr)."""
    x = np.linspace(0.0, 1.0, 3)
    double = lambda v: v * 2  # noqa: E731
    for lib in (jax, minijax):
        with pytest.warns(DeprecationWarning):
            y = lib.jit(double, device=lib.devices()[1])(x)
        assert [d.id for d in y.devices()] == [1]
        with pytest.warns(DeprecationWarning):
            assert_close(lib.jit(double, backend='cpu')(x), x * 2)
    with pytest.warns(DeprecationWarning):
        texts = [lib.jit(double, device=lib.devices()[1]).lower(x).as_text()
                 for lib in (jax, minijax)]
    assert texts[0] == texts[1]
    inline = [str(lib.make_jaxpr(lambda v: lib.jit(lambda w: w * 2 + 1, inline=True)(v) * 3)(x))
              for lib in (jax, minijax)]
    assert inline[0] == inline[1]
    for kwargs in (dict(device=minijax.devices()[0], backend='cpu'),
                   dict(device=minijax.devices()[0], in_shardings=None,
                        out_shardings=minijax.sharding.SingleDeviceSharding(
                            minijax.devices()[0]))):
        with pytest.warns(DeprecationWarning), pytest.raises(ValueError):
            minijax.jit(double, **kwargs)


def test_jit_compiler_options_reach_xla_as_jaxs():
    """XLA's options change what it compiles (no fusion with every HLO pass off), in jit and
    in Lowered.compile; a bad name or value is XLA's error, JAX's type."""
    x = np.linspace(0.0, 1.0, 3)
    off = {'xla_disable_all_hlo_passes': True}
    for lib, np_ in ((jax, jnp), (minijax, mnp)):
        f = lambda v, np_=np_: np_.sin(v) * 2 + 1  # noqa: E731
        assert 'fusion' in lib.jit(f).lower(x).compile().as_text()
        assert 'fusion' not in lib.jit(f, compiler_options=off).lower(x).compile().as_text()
        assert 'fusion' not in lib.jit(f).lower(x).compile(compiler_options=off).as_text()
        assert_close(lib.jit(f, compiler_options=off)(x), np.sin(x) * 2 + 1)
    for bad in ({'no_such_option': 1}, {'xla_cpu_enable_fast_math': 'maybe'}):
        with pytest.raises(jax.errors.JaxRuntimeError) as theirs:
            jax.jit(lambda v: v * 2, compiler_options=bad)(x)
        with pytest.raises(minijax.errors.JaxRuntimeError) as mine:
            minijax.jit(lambda v: v * 2, compiler_options=bad)(x)
        assert str(mine.value) == str(theirs.value)
