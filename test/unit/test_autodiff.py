"""Reverse mode (linearize, vjp, grad) against JAX, finite differences and the seed's values."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax as mj
from minijax import lax
from minijax.interpreters.partial_eval import dce_closed_jaxpr
from minijax.ir.jaxpr import eval_closed_jaxpr

jax.config.update('jax_enable_x64', True)

rng = np.random.default_rng(0)


def positive(*shape):
    return rng.uniform(0.5, 2.0, shape)


def normal(*shape):
    return rng.normal(size=shape)


# (name, minijax function, jax function, argument makers): every differentiable primitive.
PRIMITIVES = [
    ('sin', lax.sin, jnp.sin, [lambda: normal(3)]),
    ('cos', lax.cos, jnp.cos, [lambda: normal(3)]),
    ('exp', lax.exp, jnp.exp, [lambda: normal(3)]),
    ('log', lax.log, jnp.log, [lambda: positive(3)]),
    ('tanh', lax.tanh, jnp.tanh, [lambda: normal(3)]),
    ('logistic', lax.logistic, jax.nn.sigmoid, [lambda: normal(3)]),
    ('sqrt', lax.sqrt, jnp.sqrt, [lambda: positive(3)]),
    ('rsqrt', lax.rsqrt, jax.lax.rsqrt, [lambda: positive(3)]),
    ('abs', lax.abs, jnp.abs, [lambda: positive(3) * np.array([1., -1., 1.])]),
    ('neg', lax.neg, jnp.negative, [lambda: normal(3)]),
    ('add', lax.add, jnp.add, [lambda: normal(3), lambda: normal(3)]),
    ('sub', lax.sub, jnp.subtract, [lambda: normal(3), lambda: normal(3)]),
    ('mul', lax.mul, jnp.multiply, [lambda: normal(3), lambda: normal(3)]),
    ('div', lax.div, jnp.divide, [lambda: normal(3), lambda: positive(3)]),
    ('mul_scalar', lax.mul, jnp.multiply, [lambda: normal(3), lambda: normal()]),
    ('add_scalar', lax.add, jnp.add, [lambda: normal(), lambda: normal(2, 3)]),
    ('reduce_sum', lambda x: lax.reduce_sum(x, 1), lambda x: jnp.sum(x, 1),
     [lambda: normal(2, 3)]),
    ('broadcast', lambda x: lax.broadcast(x, (2, 4)), lambda x: jax.lax.broadcast(x, (2, 4)),
     [lambda: normal(3)]),
    ('transpose', lambda x: lax.transpose(x, (1, 0)), jnp.transpose, [lambda: normal(2, 3)]),
    ('convert_element_type', lambda x: lax.convert_element_type(x, np.float32),
     lambda x: x.astype(jnp.float32), [lambda: normal(3)]),
]


@pytest.mark.parametrize('name,f,jf,makers', PRIMITIVES, ids=[p[0] for p in PRIMITIVES])
def test_vjp_matches_jax(name, f, jf, makers):
    args = [m() for m in makers]
    out, f_vjp = mj.vjp(f, *args)
    j_out, j_vjp = jax.vjp(jf, *args)
    ct = normal(*np.shape(j_out)).astype(j_out.dtype)
    np.testing.assert_allclose(out, j_out, rtol=1e-6)
    for mine, theirs in zip(f_vjp(ct), j_vjp(ct)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize('name,f,jf,makers', PRIMITIVES, ids=[p[0] for p in PRIMITIVES])
def test_grad_matches_finite_differences(name, f, jf, makers):
    args = [m() for m in makers]
    weights = normal(*np.shape(f(*args)))

    def scalar_f(*xs):
        return lax.reduce_sum(lax.mul(lax.convert_element_type(f(*xs), np.float64), weights))

    grads = mj.grad(scalar_f, argnums=tuple(range(len(args))))(*args)
    # float32 rounding needs a wider step than float64
    eps, rtol = (1e-3, 1e-3) if name == 'convert_element_type' else (1e-6, 1e-5)
    for i, (x, g) in enumerate(zip(args, grads)):
        x = np.asarray(x, np.float64)
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            dx = np.zeros_like(x)
            dx[idx] = eps
            plus = [*args[:i], x + dx, *args[i + 1:]]
            minus = [*args[:i], x - dx, *args[i + 1:]]
            numeric[idx] = (scalar_f(*plus) - scalar_f(*minus)) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize('name,f,jf,makers', PRIMITIVES, ids=[p[0] for p in PRIMITIVES])
def test_linearize_matches_jax(name, f, jf, makers):
    args = [m() for m in makers]
    tangents = [normal(*np.shape(a)) for a in args]
    out, f_lin = mj.linearize(f, *args)
    j_out, j_tan = jax.jvp(jf, args, tangents)
    np.testing.assert_allclose(out, j_out, rtol=1e-6)
    np.testing.assert_allclose(f_lin(*tangents), j_tan, rtol=1e-6, atol=1e-12)


# ----------------------------------------------------------------------------- seed, Part 4

def test_seed_linearize_sin():
    y, sin_lin = mj.linearize(lax.sin, 3.)
    assert y == 0.1411200080598672
    assert sin_lin(1.) == -0.9899924966004454


def seed_f(x):
    y = lax.sin(x) * 2.
    z = -y + x
    return z


def test_seed_grad():
    assert mj.grad(seed_f)(3.) == 2.979984993200891


def test_seed_linearize_of_jit():
    y, f_lin = mj.linearize(mj.jit(seed_f), 3.)
    np.testing.assert_allclose([y, f_lin(1.)], [2.7177599838802657, 2.979984993200891],
                               rtol=1e-15)


def test_seed_linearize_of_nested_jit():
    @mj.jit
    def g(x, y):
        return lax.cos(x) + y

    @mj.jit
    def f(x):
        y = lax.sin(x) * 2.
        return g(x, y)

    y, f_lin = mj.linearize(f, 3.)
    np.testing.assert_allclose([y, f_lin(1.)], [-0.7077524804807109, -2.121105001260758],
                               rtol=1e-15)


@mj.jit
def seed_g(x):
    return lax.cos(x) * 2.


def seed_f_calls_jit(x):
    return seed_g(x * 2.)


def test_seed_grad_through_jitted_g():
    np.testing.assert_allclose(mj.grad(seed_f_calls_jit)(3.), 1.1176619927957034, rtol=1e-15)


def seed_foo(x):
    @mj.jit
    def bar(y):
        def baz(w):
            q = mj.jit(lambda x: y)(x)
            q = q + mj.jit(lambda: y)()
            q = q + mj.jit(lambda y: w + y)(y)
            q = mj.jit(lambda w: mj.jit(lax.sin)(x) * y)(1.0) + q
            return q
        p, t = mj.jvp(baz, (x + 1.0,), (y,))
        return t + (x * p)
    return bar(x)


@pytest.mark.parametrize('f', [seed_foo, seed_f_calls_jit], ids=['foo', 'f'])
def test_seed_compositionality_stress(f):
    jit, grad, jvp = mj.jit, mj.grad, mj.jvp
    values = [f(3.), jit(f)(3.), jvp(f, (3.,), (5.,))[0], jvp(jit(f), (3.,), (5.,))[0]]
    derivs = [grad(f)(3.), grad(jit(f))(3.), jit(grad(jit(f)))(3.),
              jvp(f, (3.,), (1.,))[1], jvp(jit(f), (3.,), (1.,))[1]]
    hessians = [grad(grad(f))(3.), grad(grad(jit(f)))(3.), grad(jit(grad(f)))(3.),
                jit(grad(grad(f)))(3.), jvp(grad(f), (3.,), (1.,))[1],
                jvp(jit(grad(f)), (3.,), (1.,))[1], jvp(jit(grad(f)), (3.,), (1.,))[1]]
    for group in (values, derivs, hessians):
        np.testing.assert_allclose(group, [group[0]] * len(group), rtol=1e-12)
    # and against JAX's derivative of the same program for f
    if f is seed_f_calls_jit:
        jf = lambda x: jnp.cos(x * 2.) * 2.  # noqa: E731
        np.testing.assert_allclose(derivs[0], jax.grad(jf)(3.), rtol=1e-12)
        np.testing.assert_allclose(hessians[0], jax.grad(jax.grad(jf))(3.), rtol=1e-12)


# ----------------------------------------------------------------------------- composition

def mlp_loss(params, x):
    w1, b1, w2 = params
    h = lax.tanh(lax.add(lax.mul(w1, x), b1))
    return lax.reduce_sum(lax.mul(lax.mul(h, w2), lax.mul(h, w2)))


def jax_mlp_loss(params, x):
    w1, b1, w2 = params
    h = jnp.tanh(w1 * x + b1)
    return jnp.sum((h * w2) ** 2)


@pytest.mark.parametrize('transform', ['plain', 'grad_of_jit', 'jit_of_grad', 'jit_both'])
def test_grad_pytree_params_in_every_jit_order(transform):
    params = (normal(4), normal(4), normal(4))
    x = normal(4)
    g = {'plain': mj.grad(mlp_loss),
         'grad_of_jit': mj.grad(mj.jit(mlp_loss)),
         'jit_of_grad': mj.jit(mj.grad(mlp_loss)),
         'jit_both': mj.jit(mj.grad(mj.jit(mlp_loss)))}[transform]
    mine = g(params, x)
    theirs = jax.grad(jax_mlp_loss)(params, x)
    assert isinstance(mine, tuple) and len(mine) == 3
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_value_and_grad_and_argnums():
    f = lambda x, y: lax.reduce_sum(lax.mul(lax.sin(x), y))  # noqa: E731
    jf = lambda x, y: jnp.sum(jnp.sin(x) * y)  # noqa: E731
    x, y = normal(3), normal(3)
    value, (gx, gy) = mj.value_and_grad(f, argnums=(0, 1))(x, y)
    j_value, (jgx, jgy) = jax.value_and_grad(jf, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(value, j_value, rtol=1e-12)
    np.testing.assert_allclose(gx, jgx, rtol=1e-12)
    np.testing.assert_allclose(gy, jgy, rtol=1e-12)
    np.testing.assert_allclose(mj.grad(f, argnums=1)(x, y), jgy, rtol=1e-12)
    np.testing.assert_allclose(mj.grad(f, argnums=-1)(x, y), jgy, rtol=1e-12)


def test_vjp_pytree_in_and_out():
    def f(inputs):
        return {'s': lax.sin(inputs['a']), 'p': lax.mul(inputs['a'], inputs['b'])}

    def jf(inputs):
        return {'s': jnp.sin(inputs['a']), 'p': inputs['a'] * inputs['b']}

    inputs = {'a': normal(2), 'b': normal(2)}
    ct = {'s': normal(2), 'p': normal(2)}
    out, f_vjp = mj.vjp(f, inputs)
    j_out, j_vjp = jax.vjp(jf, inputs)
    (mine,), (theirs,) = f_vjp(ct), j_vjp(ct)
    for k in ('a', 'b'):
        np.testing.assert_allclose(mine[k], theirs[k], rtol=1e-12)
    np.testing.assert_allclose(out['p'], j_out['p'], rtol=1e-12)


def test_grad_of_python_control_flow_on_known_primals():
    f = lambda x: x * x if x > 0 else 0.  # noqa: E731
    assert mj.grad(f)(3.) == 6.
    assert mj.grad(f)(-3.) == 0.


def test_grad_of_unused_argument_is_zero():
    g = mj.grad(lambda x, y: lax.sin(x), argnums=(0, 1))(1., 2.)
    assert g == (np.cos(1.), 0.)


def test_a_zero_gradient_converts_to_a_contiguous_numpy_array():
    """A symbolic zero instantiated eagerly (a broadcast view of one zero in NumPy) comes
    back as JAX's does: a whole C-contiguous buffer, that NumPy can view as bytes."""
    def f(m):
        return m.vmap(m.grad(lambda x: m.lax.stop_gradient(x) * 2.))
    x = normal(5)
    mine, theirs = np.asarray(f(mj)(x)), np.asarray(f(jax)(x))
    assert mine.flags.c_contiguous == theirs.flags.c_contiguous
    np.testing.assert_array_equal(mine.view(np.uint8), theirs.view(np.uint8))


# ----------------------------------------------------------------------------- symbolic zeros

def test_zero_tangents_stay_symbolic():
    """A constant's tangent is never materialized: no broadcast of zeros in the program."""
    def f(x):
        c = lax.full((3,), 2.0, np.float64)  # a constant: its tangent is zero
        return lax.reduce_sum(lax.mul(lax.sin(x), lax.exp(c)))

    jaxpr = mj.make_jaxpr(mj.grad(f))(normal(3))
    broadcasts = [e for e in jaxpr.eqns if e.primitive is lax.broadcast_in_dim_p]
    # one broadcast builds c, one transposes reduce_sum; no zeros are built
    assert len(broadcasts) == 2
    assert all(e.inputs[0].val != 0 for e in broadcasts if hasattr(e.inputs[0], 'val'))


def test_linear_jaxpr_has_only_tangent_work():
    """linearize stages only the tangent computation: sin runs now, cos*t is staged."""
    y, f_lin = mj.linearize(lambda x: lax.sin(lax.sin(x)), 2.)
    jaxpr = mj.make_jaxpr(f_lin)(1.)
    assert [e.primitive.name for e in jaxpr.eqns] == ['mul', 'mul']


# ----------------------------------------------------------------------------- dead code

def _dead_carry_programs(m, l):
    """Functions of x (written for minijax, ``m = mj``, and for ``jax.lax``) whose loops carry
    a value that never reaches the output: a while loop that cannot be transposed, or a
    partial derivative that is infinite at x = 0. JAX prunes these before transposing."""
    while_loop = lambda x: m.fori_loop(0, np.int32(3), lambda i, v: v * x, x)  # noqa: E731
    return {
        'scan_carry_with_while': lambda x: l.reduce_sum(m.scan(
            lambda c, _: ((c[0] * 2., while_loop(c[1])), c[0]), (x, x), None, length=2)[1],
            (0,)),
        'scan_carry_with_log': lambda x: l.reduce_sum(m.scan(
            lambda c, _: ((c[0] * 2., l.log(c[1])), c[0]), (x, x), None, length=2)[1], (0,)),
        'fori_loop_carry_with_log': lambda x: m.fori_loop(
            0, 2, lambda i, c: (c[0] * 2., l.log(c[1])), (x, x))[0],
        'while_in_scan_of_cond': lambda x: m.scan(lambda c, _: (m.cond(
            c > -1., lambda: (c * 3., while_loop(c)), lambda: (c, c))[0], None),
            x, None, length=2)[0],
    }


@pytest.mark.parametrize('name', list(_dead_carry_programs(mj, lax)))
@pytest.mark.parametrize('order', ['grad', 'jit_grad'])
def test_dead_loop_carries_are_pruned_before_transposing(name, order):
    mine = _dead_carry_programs(mj, lax)[name]
    theirs = _dead_carry_programs(jax.lax, jax.lax)[name]
    grad = mj.grad(mine) if order == 'grad' else mj.jit(mj.grad(mine))
    expected = float(jax.grad(theirs)(0.))
    assert np.isfinite(expected) and float(grad(0.)) == expected


def test_dce_jaxpr_drops_dead_equations_and_loop_carries():
    """Pruning keeps the values of the used outputs and removes the dead loop entirely."""
    def program(m, l):
        def f(x):
            dead = m.while_loop(lambda c: c < 10., lambda c: c * 2., x)
            carry, ys = m.scan(lambda c, _: ((c[0] + 1., l.sin(c[1])), c[0] * c[0]),
                               (x, dead), None, length=3)
            branch = m.cond(x > 0., lambda: (x * 2., dead), lambda: (x, x))
            count = m.while_loop(lambda c: c[0] < 5., lambda c: (c[0] + 1., l.cos(c[1])),
                                 (x, x))
            return ys, carry[1], branch[0], count[0]
        return f

    x = 1.5
    closed = mj.make_jaxpr(program(mj, lax))(x)
    pruned, used_inputs = dce_closed_jaxpr(closed, [True, False, True, True])
    expected = program(jax.lax, jax.lax)(x)
    for mine, theirs in zip(eval_closed_jaxpr(pruned, [x]), [expected[0], *expected[2:]]):
        np.testing.assert_allclose(mine, theirs)
    assert used_inputs == [True]
    scan, loop = [e for e in pruned.eqns if e.primitive.name in ('scan', 'while')]
    assert loop.primitive.name == 'while'  # the dead while is gone; the live one is pruned
    branch, = [e for e in pruned.eqns if e.primitive.name == 'cond']
    assert scan.params['num_carry'] == 1 and len(loop.out_binders) == 1
    assert len(branch.out_binders) == 1 and len(branch.params['branches'][1].eqns) == 1


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize('misuse', [
    lambda m: m.grad(m.numpy.sin)(np.ones(3)),
    lambda m: m.grad(lambda x: m.lax.convert_element_type(x, np.int32))(1.),
    lambda m: m.grad(lambda x: x * 2.)(3),
    lambda m: m.value_and_grad(lambda x, n: x * n, argnums=1)(1., 2),
    lambda m: m.jacrev(lambda x: x * 2.)(np.int32(3)),
    lambda m: m.jacfwd(lambda x: x * 2.)(True)])
def test_grad_errors_are_jaxs(misuse):
    """A non-scalar or integer output, an integer input: JAX's TypeError and text."""
    with pytest.raises(TypeError) as expected:
        misuse(jax)
    with pytest.raises(TypeError) as actual:
        misuse(mj)
    assert str(actual.value) == str(expected.value)


def test_grad_allow_int():
    """``allow_int`` differentiates the float inputs and lets the integer ones through."""
    f = lambda x, n: x ** n  # noqa: E731
    expected = jax.grad(f, argnums=(0, 1), allow_int=True)(2., 3)[0]
    np.testing.assert_allclose(mj.grad(f, argnums=(0, 1), allow_int=True)(2., 3)[0], expected)


@pytest.mark.parametrize('misuse', [
    lambda m: m.vjp(m.numpy.sin, np.ones(3))[1](np.ones(2)),
    lambda m: m.vjp(m.numpy.sin, np.ones(3))[1](np.ones(3, np.float32)),
    lambda m: m.vjp(m.numpy.sin, np.float32(1.))[1](1.),
    lambda m: m.vjp(lambda x: (x, x), 1.)[1](1.),
    lambda m: m.linearize(m.numpy.sin, np.ones(3))[1](np.ones(2)),
    lambda m: m.linearize(m.numpy.sin, np.float32(1.))[1](1.),
    lambda m: m.jvp(m.numpy.sin, (np.ones(3),), (np.ones(2),)),
], ids=['vjp-shape', 'vjp-dtype', 'vjp-python-scalar', 'vjp-structure', 'linearize-shape',
        'linearize-python-scalar', 'jvp-shape'])
def test_tangent_or_cotangent_of_the_wrong_type_is_jaxs_value_error(misuse):
    """A (co)tangent unlike its primal: JAX's ValueError, naming both types."""
    with pytest.raises(ValueError):
        misuse(jax)
    with pytest.raises(ValueError, match=r'float\d\d\[\d?\].*float\d\d\[\d?\]|PyTreeDef'):
        misuse(mj)


@pytest.mark.parametrize('misuse', [
    lambda m: m.jvp(m.numpy.sin, (np.ones(3),), (np.ones(3, np.float32),)),
    lambda m: m.jvp(m.numpy.sin, (np.float32(1.),), (1.,)),
    lambda m: m.jvp(m.numpy.sin, (1.,), (np.float32(1.),)),
    lambda m: m.jvp(m.numpy.sin, (np.ones(3),), ((np.ones(3), np.ones(3)),)),
], ids=['dtype', 'python-scalar-tangent', 'python-scalar-primal', 'structure'])
def test_jvp_tangent_of_another_dtype_or_structure_is_jaxs_type_error(misuse):
    with pytest.raises(TypeError):
        misuse(jax)
    with pytest.raises(TypeError, match=r'jvp: (tangent 0 has dtype|primals .* and tangents)'):
        misuse(mj)


@pytest.mark.parametrize('call', [
    lambda m: m.grad(m.numpy.sin, argnums=2)(1.),
    lambda m: m.grad(lambda a, b: a * b, argnums=1)(1., b=2.),
    lambda m: m.value_and_grad(lambda a, b: a * b, argnums=(0, 2))(1., 2.),
    lambda m: m.grad(m.numpy.sin, argnums=-2)(1.),
], ids=['past-the-end', 'passed-by-keyword', 'value_and_grad-tuple', 'negative'])
def test_grad_argnums_out_of_range(call):
    """JAX's types: too few positional arguments for argnums is a TypeError, an index below
    -len(args) a ValueError."""
    with pytest.raises((TypeError, ValueError)) as expected:
        call(jax)
    with pytest.raises(expected.type, match=r'grad\([<>\w]+\): argnums .* out of range for \d '
                                            'positional arguments'):
        call(mj)


# ----------------------------------------------------------------------------- cost

def test_reverse_mode_flops_within_three_times_the_forward_pass():
    """XLA's FLOP count of jit(grad(loss)) is at most 3x that of jit(loss) for an MLP
    (deterministic counts, not timings; bench/reverse_mode_cost.py records JAX's beside)."""
    dn = (((1,), (0,)), ((), ()))

    def loss(params, x):
        w1, b1, w2, b2 = params
        h = lax.tanh(lax.add(lax.dot_general(x, w1, dn), b1))
        out = lax.add(lax.dot_general(h, w2, dn), b2)
        return lax.reduce_sum(lax.mul(out, out))

    shapes = [(64, 128), (32, 128), (128, 10), (32, 10)]
    params = [normal(*s).astype(np.float32) for s in shapes]
    x = normal(32, 64).astype(np.float32)
    forward = mj.jit(loss).lower(params, x).compile().cost_analysis()['flops']
    backward = mj.jit(mj.grad(loss)).lower(params, x).compile().cost_analysis()['flops']
    assert backward <= 3 * forward


@pytest.mark.parametrize('x', [0., -0., 2., -2., np.nan], ids=str)
def test_abs_derivative_takes_jaxs_value_at_the_kink(x):
    """d|x|/dx at 0 (and -0.) is +1 in JAX: under an L1 penalty a weight at zero moves."""
    expected = float(jax.grad(jnp.abs)(x))
    for grad in (mj.grad(lax.abs), mj.jit(mj.grad(lax.abs))):
        np.testing.assert_array_equal(float(grad(x)), expected)
    np.testing.assert_array_equal(mj.vmap(mj.grad(lax.abs))(np.array([x, x])),
                                  jax.vmap(jax.grad(jnp.abs))(np.array([x, x])))


@pytest.mark.parametrize('jitted', [False, True], ids=['eager', 'jit'])
def test_the_cotangent_of_an_empty_value_is_an_array_of_zeros_as_in_jax(jitted):
    """Not a symbolic zero: it is transposed like any cotangent, so the coefficient it
    meets (1 / (2 sqrt(x)), NaN below 0) makes NaN as in JAX (fuzz seed 60151)."""
    def grad_of(ns, np_):
        g = ns.grad(lambda x: np_.sqrt(x)[3:3].sum() + np_.sum(x))
        return ns.jit(g) if jitted else g
    x = np.array([-1., 4., 0.])
    np.testing.assert_array_equal(grad_of(mj, mj.numpy)(x), grad_of(jax, jnp)(x))


_FLOAT0_USES = {
    'jvp': lambda ns: ns.jvp(lambda x, n: (x * n, n > 1), (2., 3),
                             (1., np.zeros((), ns.dtypes.float0))),
    'linearize': lambda ns: ns.linearize(lambda x, n: (x * n, n), 2., 3)[1](
        1., np.zeros((), ns.dtypes.float0)),
    'vjp': lambda ns: ns.vjp(lambda x, n: (x * n, n), 2., np.arange(3))[1](
        (np.ones(3), np.zeros(3, ns.dtypes.float0))),
    'grad_allow_int': lambda ns: ns.grad(lambda x, n: x * n, (0, 1), allow_int=True)(2., 3),
    'grad_of_a_key': lambda ns: ns.grad(lambda k, x: ns.random.normal(k) * x, (0, 1),
                                        allow_int=True)(ns.random.key(1), 2.),
}


@pytest.mark.parametrize('use', list(_FLOAT0_USES))
def test_integer_and_key_values_have_float0_tangents_as_in_jax(use):
    """float0 is taken as the tangent of an integer, bool or key input. Given for one's
    tangent or cotangent, it is zeros of the value's dtype, float0 for a key only (a
    departure: minijax's transformations carry no float0 values, docs/semantics.md)."""
    mine, theirs = (jax.tree.leaves(_FLOAT0_USES[use](ns)) for ns in (mj, jax))
    assert len(mine) == len(theirs)
    for m, t in zip(mine, theirs):
        m, t = np.asarray(m), np.asarray(t)
        assert m.shape == t.shape
        if t.dtype != jax.dtypes.float0:
            assert m.dtype == t.dtype
            np.testing.assert_allclose(m, t)
        elif m.dtype != mj.dtypes.float0:
            assert not m.any()


def test_the_tangent_of_an_integer_output_under_vmap():
    """jvp inside vmap, with an integer output: its tangent is an array (zeros)."""
    out, tangent = mj.vmap(lambda x: mj.jvp(lambda x: (x > 0, x), (x,), (x,)))(np.ones(3))
    assert not np.asarray(tangent[0]).any() and np.shape(tangent[0]) == (3,)
