"""cond, switch, while_loop, fori_loop and scan against jax.lax, under every transformation."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax as mj
from minijax import lax

jax.config.update('jax_enable_x64', True)

rng = np.random.default_rng(1)

# Each program is written twice, once per library: (minijax version, jax version).


def cond_program(m, l):
    def f(x, y):
        return m.cond(l.reduce_sum(x) > 0.,
                      lambda a, b: (l.sin(a) * b, a),
                      lambda a, b: (a * a, l.cos(b) * a), x, y)
    return f


def switch_program(m, l):
    def f(x, y):
        index = l.convert_element_type(l.reduce_sum(x) * 2., np.int32)
        return m.switch(index, [lambda a: a * y, lambda a: l.sin(a) + y, lambda a: a * a], x)
    return f


#: A NumPy constant the loop body of ``while_program`` and ``consts_program`` close over.
C3 = np.array([0.5, -1.5, 2.])


def while_program(m, l):
    def f(x, y):
        def body(c):
            i, v = c
            return i + 1, v * y + x * C3
        return m.while_loop(lambda c: c[0] < 4, body, (0, x))[1]
    return f


def fori_program(m, l):
    def f(x, y):
        return m.fori_loop(0, 3, lambda i, v: l.sin(v) * y + x, x)
    return f


def scan_program(m, l, reverse=False):
    def f(x, y):
        def body(c, xi):
            new = c * xi + l.sin(c)
            return new, new * y
        return m.scan(body, x, y, reverse=reverse)
    return f


def nested_program(m, l):
    def f(x, y):
        def body(c, xi):
            inner = m.jit(lambda c: m.cond(l.reduce_sum(c) > 0., lambda: c * xi,
                                           lambda: l.sin(c) + xi))
            return inner(c), l.reduce_sum(c)
        return m.scan(body, x, y)
    return f


def consts_program(m, l):
    """Sub-jaxprs closing over NumPy constants, which become operands of the primitives."""
    def f(x, y):
        a = m.cond(l.reduce_sum(x) > 0., lambda: x * C3, lambda: y + C3 * 2.)
        b = m.fori_loop(0, 2, lambda i, v: v * C3 + y, a)
        return m.jit(lambda v: l.sin(v) * C3 + x)(b)
    return f


class _MiniAPI:
    cond, switch, while_loop, fori_loop, scan, jit = (
        mj.cond, mj.switch, mj.while_loop, mj.fori_loop, mj.scan, mj.jit)


class _JaxAPI:
    cond = staticmethod(lambda p, t, f, *ops: jax.lax.cond(p, t, f, *ops))
    switch = staticmethod(jax.lax.switch)
    while_loop = staticmethod(jax.lax.while_loop)
    fori_loop = staticmethod(jax.lax.fori_loop)
    scan = staticmethod(jax.lax.scan)
    jit = staticmethod(jax.jit)


class _MiniLax:
    sin, cos, reduce_sum, convert_element_type, add, mul = (
        lax.sin, lax.cos, lambda x: lax.reduce_sum(x), lax.convert_element_type, lax.add,
        lax.mul)


class _JaxLax:
    sin, cos, reduce_sum, add, mul = jnp.sin, jnp.cos, jnp.sum, jax.lax.add, jax.lax.mul
    convert_element_type = staticmethod(lambda x, d: x.astype(d))


PROGRAMS = {
    'cond': (cond_program, lambda: (rng.normal(size=3), rng.normal(size=3))),
    'switch': (switch_program, lambda: (rng.normal(size=3), rng.normal(size=3))),
    'while': (while_program, lambda: (rng.normal(size=3), rng.uniform(0.5, 1.0, 3))),
    'fori': (fori_program, lambda: (rng.normal(size=3), rng.normal(size=3))),
    'scan': (scan_program, lambda: (rng.normal(size=2), rng.normal(size=(4, 2)))),
    'scan_reverse': (lambda m, l: scan_program(m, l, reverse=True),
                     lambda: (rng.normal(size=2), rng.normal(size=(4, 2)))),
    'nested': (nested_program, lambda: (rng.normal(size=2), rng.normal(size=(3, 2)))),
}
REVERSE_OK = [name for name in PROGRAMS if name != 'while']
#: The primitive each program checks the rules of (course tasks: ``@pytest.mark.rule``).
PROGRAM_PRIMITIVES = {'cond': 'cond', 'switch': 'cond', 'while': 'while', 'scan': 'scan',
                      'scan_reverse': 'scan'}


def programs(name):
    make, args = PROGRAMS[name]
    return make(_MiniAPI, _MiniLax), make(_JaxAPI, _JaxLax), args()


def assert_trees_close(mine, theirs, rtol=1e-10):
    mine_leaves, theirs_leaves = jax.tree_util.tree_leaves(mine), jax.tree_util.tree_leaves(theirs)
    assert len(mine_leaves) == len(theirs_leaves)
    for a, b in zip(mine_leaves, theirs_leaves):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-12)


def scalar_loss(f, reduce):
    """Sum of every output: a scalar to differentiate."""
    def loss(x, y):
        leaves = jax.tree_util.tree_leaves(f(x, y))
        total = reduce(leaves[0])
        for leaf in leaves[1:]:
            total = total + reduce(leaf)
        return total
    return loss


@pytest.mark.rule('impl', 'lowering', primitives=PROGRAM_PRIMITIVES)
@pytest.mark.parametrize('name', list(PROGRAMS))
@pytest.mark.parametrize('jitted', [False, True], ids=['eager', 'jit'])
def test_values(name, jitted):
    f, jf, args = programs(name)
    f = mj.jit(f) if jitted else f
    assert_trees_close(f(*args), jf(*args))


@pytest.mark.rule('jvp', 'impl', 'lowering', primitives=PROGRAM_PRIMITIVES)
@pytest.mark.parametrize('name', list(PROGRAMS))
@pytest.mark.parametrize('jitted', [False, True], ids=['eager', 'jit'])
def test_jvp(name, jitted):
    f, jf, args = programs(name)
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    f = mj.jit(f) if jitted else f
    assert_trees_close(mj.jvp(f, args, tangents), jax.jvp(jf, args, tangents))


@pytest.mark.rule('vmap', 'impl', 'lowering', primitives=PROGRAM_PRIMITIVES)
@pytest.mark.parametrize('name', list(PROGRAMS))
@pytest.mark.parametrize('in_axes', [(0, 0), (0, None), (None, 1)], ids=str)
def test_vmap(name, in_axes):
    f, jf, (x, y) = programs(name)
    batched = [np.stack([a, a * 0.5 - 0.1, -a], axis=ax) if ax is not None else a
               for a, ax in zip((x, y), in_axes)]
    if in_axes[1] == 1 and np.ndim(y) < 1:
        pytest.fail('bad test setup')
    assert_trees_close(mj.vmap(f, in_axes)(*batched), jax.vmap(jf, in_axes)(*batched))
    assert_trees_close(mj.jit(mj.vmap(f, in_axes))(*batched), jax.vmap(jf, in_axes)(*batched))


@pytest.mark.rule('jvp', 'partial_eval', 'partial_eval_jaxpr', 'dce', 'transpose', 'lowering',
                  primitives=PROGRAM_PRIMITIVES)
@pytest.mark.parametrize('name', REVERSE_OK)
@pytest.mark.parametrize('order', ['grad', 'grad_jit', 'jit_grad'])
def test_grad(name, order):
    f, jf, args = programs(name)
    loss, jloss = scalar_loss(f, lax.reduce_sum), scalar_loss(jf, jnp.sum)
    g = {'grad': mj.grad(loss, (0, 1)), 'grad_jit': mj.grad(mj.jit(loss), (0, 1)),
         'jit_grad': mj.jit(mj.grad(loss, (0, 1)))}[order]
    assert_trees_close(g(*args), jax.grad(jloss, (0, 1))(*args), rtol=1e-9)


@pytest.mark.rule('jvp', 'partial_eval', 'partial_eval_jaxpr', 'dce', 'transpose',
                  primitives=PROGRAM_PRIMITIVES)
@pytest.mark.parametrize('name', REVERSE_OK)
def test_linearize_and_vjp(name):
    f, jf, args = programs(name)
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    out, f_lin = mj.linearize(f, *args)
    assert_trees_close(f_lin(*tangents), jax.jvp(jf, args, tangents)[1])
    j_out, j_vjp = jax.vjp(jf, *args)
    ct = jax.tree_util.tree_map(lambda o: rng.normal(size=np.shape(o)), j_out)
    _, f_vjp = mj.vjp(f, *args)
    assert_trees_close(f_vjp(ct), j_vjp(ct))


def test_linearize_of_while_loop_works_but_grad_is_refused():
    f, jf, args = programs('while')
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    _, f_lin = mj.linearize(f, *args)
    assert_trees_close(f_lin(*tangents), jax.jvp(jf, args, tangents)[1])
    with pytest.raises(ValueError):
        jax.grad(lambda x, y: jnp.sum(jf(x, y)))(*args)
    with pytest.raises(ValueError, match='while_loop.*fori_loop'):
        mj.grad(lambda x, y: lax.reduce_sum(f(x, y)))(*args)


@pytest.mark.parametrize('rounding', ['floor', 'ceil', 'trunc', 'rint', 'round'])
@pytest.mark.parametrize('loop', ['while', 'fori_traced_bounds'])
def test_a_loop_carry_with_a_zero_derivative_is_never_differentiated(rounding, loop, rng):
    """Rounding is piecewise constant: JAX's tangent is a symbolic zero (even where the value
    is too large to have a fraction), so a loop carrying only a rounded value is never
    differentiated, and grad goes through a while_loop."""
    def program(api, numpy):
        def f(x, n):
            start = getattr(numpy, rounding)(x)
            if loop == 'while':
                _, out = api.lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5),
                                            (0, start))
            else:
                out = api.lax.fori_loop(0, n, lambda i, c: c * 1.5, start)
            return numpy.sum(out + x * start)
        return f
    x = np.concatenate([rng.normal(size=3) * 4, [2. ** 60, -2. ** 55]])
    mine = mj.jit(mj.grad(program(mj, mj.numpy)))(x, 3)
    assert_trees_close(mine, jax.jit(jax.grad(program(jax, jnp)))(x, 3))


def test_hessian_through_scan():
    f = lambda x: mj.scan(lambda c, xi: (c * lax.sin(xi * c), None), x, np.ones(3))[0]  # noqa
    jf = lambda x: jax.lax.scan(lambda c, xi: (c * jnp.sin(xi * c), None), x, np.ones(3))[0]  # noqa
    np.testing.assert_allclose(mj.grad(mj.grad(f))(0.7), jax.grad(jax.grad(jf))(0.7),
                               rtol=1e-10)


# ----------------------------------------------------------------------------- the seed, Part 5

def test_seed_part5_examples():
    out = mj.cond(True, lambda: 3, lambda: 4)
    assert out == 3
    _, out_tan = mj.jvp(lambda x: mj.cond(True, lambda: x * x, lambda: 0.), (1.,), (1.,))
    assert out_tan == 2.0
    out = mj.vmap(lambda x: mj.cond(True, lambda: x + 1., lambda: 0.))(np.array([1., 2., 3.]))
    np.testing.assert_array_equal(out, [2., 3., 4.])
    out = mj.jit(lambda x: mj.cond(x > 0, lambda: 2, lambda: 3))(1.)
    assert int(out) == 2
    _, f_lin = mj.linearize(lambda x: mj.cond(True, lambda: x, lambda: 0.), 1.)
    assert f_lin(3.14) == 3.14
    _, f_lin = mj.linearize(mj.jit(lambda x: mj.cond(True, lambda: x, lambda: 0.)), 1.)
    np.testing.assert_allclose(f_lin(3.14), 3.14)
    assert mj.grad(lambda x: mj.cond(True, lambda: x * x, lambda: 0.))(1.) == 2.0


def test_batched_predicate_selects_per_example():
    f = lambda x: mj.cond(x > 0, lambda: x * x * x, lambda: lax.sin(x))  # noqa: E731
    xs = np.array([-2., 2., -0.5])
    np.testing.assert_allclose(mj.vmap(f)(xs), np.where(xs > 0, xs ** 3, np.sin(xs)))
    jaxpr = mj.make_jaxpr(mj.vmap(f))(xs)
    assert 'select_n' in str(jaxpr) and 'cond' not in str(jaxpr)


def _sub_jaxpr_constants_program(m, l):
    """Each construct closes over NumPy constants (D3 in two, C3 in all) and over inputs."""
    d3 = np.array([1., 2., 3.])

    def f(x, y):
        add, mul = l.add, l.mul  # lax ops: a constant stays one object, as in JAX
        a = m.cond(l.reduce_sum(x) > 0., lambda: mul(x, C3), lambda: add(add(y, d3), C3))
        b = m.while_loop(lambda c: l.reduce_sum(mul(c, d3)) < 10.,
                         lambda c: add(add(c, C3 * C3), y), a)
        c, _ = m.scan(lambda c, xi: (add(add(mul(c, xi), d3), x), None), b, np.ones((2, 3)))
        d = m.jit(lambda v: add(mul(v, C3), y))(c)
        index = l.convert_element_type(l.reduce_sum(x), np.int32)
        return m.switch(index, [lambda: d, lambda: mul(d, d3)])
    return f


def _structure(jaxpr, operands):
    """What seeds/004 reads off a printed jaxpr: the number of constvars, and each
    equation's primitive, operand count and const counts (in JAX's primitive names)."""
    names = {'xla_call': 'jit'}
    counts = ('num_consts', 'body_nconsts', 'cond_nconsts')
    return len(jaxpr.constvars), [
        (names.get(e.primitive.name, e.primitive.name), len(operands(e)),
         {k: e.params[k] for k in counts if k in e.params}) for e in jaxpr.eqns]


def test_sub_jaxpr_constants_are_operands_as_in_jax():
    """A constant of a branch or loop body is a constvar of the outer jaxpr passed as an
    operand (cond, while's cond_nconsts/body_nconsts, scan's num_consts, jit), and switch
    clamps its index with clamp: the structure jax.make_jaxpr gives, and JAX's values."""
    f, jf = _sub_jaxpr_constants_program(_MiniAPI, _MiniLax), \
        _sub_jaxpr_constants_program(_JaxAPI, _JaxLax)
    x, y = np.array([1., 2., 3.]), np.array([.1, .2, .3])
    mine = _structure(mj.make_jaxpr(f)(x, y).jaxpr, lambda e: e.inputs)
    assert mine == _structure(jax.make_jaxpr(jf)(x, y).jaxpr, lambda e: e.invars)
    assert_trees_close(f(x, y), jf(x, y))


def test_constants_as_operands_under_grad_and_vmap():
    """The hoisted constants are operands every rule sees: zero tangents (jvp), known values
    (partial evaluation), residuals (transpose), unbatched (vmap)."""
    f, jf = consts_program(_MiniAPI, _MiniLax), consts_program(_JaxAPI, _JaxLax)
    x, y = np.array([0.3, -1., 2.]), np.array([[.1, .2, .3], [-.4, .5, .6]])
    loss, jloss = scalar_loss(f, lax.reduce_sum), scalar_loss(jf, jnp.sum)
    assert_trees_close(mj.grad(mj.jit(loss), (0, 1))(x, y[0]),
                       jax.grad(jloss, (0, 1))(x, y[0]), rtol=1e-9)
    assert_trees_close(mj.vmap(f, (None, 0))(x, y), jax.vmap(jf, (None, 0))(x, y))


def test_switch_clamps_the_index():
    f = lambda i: mj.switch(i, [lambda: 10., lambda: 20., lambda: 30.])  # noqa: E731
    assert [float(f(i)) for i in (-5, 0, 1, 2, 7)] == [10., 10., 20., 30., 30.]
    assert [float(mj.jit(f)(i)) for i in (-5, 7)] == [10., 30.]


def test_weak_python_scalar_joins_the_carry_but_not_another_branch():
    """A loop's weak carry takes the body's dtype; a branch's Python scalar does not take
    another branch's (JAX: TypeError)."""
    x = np.float32(2.)
    out = mj.jit(lambda x: mj.while_loop(lambda v: v < 100., lambda v: v * x, 1.))(x)
    assert out.dtype == np.float32 and float(out) == 128.
    for api in (jax, mj):
        with pytest.raises(TypeError):
            api.lax.cond(True, lambda: x, lambda: 0.)
        with pytest.raises(TypeError):
            api.lax.switch(1, [lambda y: y, lambda y: 1], x)
    assert mj.cond(True, lambda: np.float64(2.), lambda: 0.).dtype == np.float64


def test_control_flow_printed_with_sub_jaxprs_indented():
    """The text JAX prints: the branches nested in ``cond``'s parameters."""
    text = str(mj.make_jaxpr(lambda x: mj.cond(x > 0., lambda: x * 2., lambda: x))(1.))
    assert text == str(jax.make_jaxpr(
        lambda x: jax.lax.cond(x > 0., lambda: x * 2., lambda: x))(1.))


# ----------------------------------------------------------------------------- errors

def test_cond_branch_types_must_match():
    with pytest.raises(TypeError, match=r'false branch gives float64\[2\], '
                                        r'the true branch gives float64\[3\]'):
        mj.cond(True, lambda: np.zeros(3), lambda: np.zeros(2))


@pytest.mark.parametrize('pred', [2, 0., np.float32(0.5), np.uint8(0), True],
                         ids=['int', 'zero', 'float32', 'uint8', 'bool'])
@pytest.mark.parametrize('jitted', [False, True], ids=['eager', 'jit'])
def test_cond_predicate_is_a_bool_or_a_real_number(pred, jitted):
    """As in JAX, a number is true when nonzero."""
    def f(api):
        choose = lambda p: api.lax.cond(p, lambda: 1., lambda: 2.)  # noqa: E731
        return api.jit(choose) if jitted else choose
    assert_trees_close(f(mj)(pred), f(jax)(pred))


@pytest.mark.parametrize('pred', [np.ones(2, bool), 1j], ids=['array', 'complex'])
def test_cond_predicate_must_be_a_scalar_bool_or_real_number(pred):
    with pytest.raises(TypeError):
        jax.lax.cond(pred, lambda: 1., lambda: 2.)
    with pytest.raises(TypeError, match=r'scalar bool or real number, got (bool\[2\]|complex)'):
        mj.cond(pred, lambda: 1., lambda: 2.)


def test_while_body_must_preserve_carry_types():
    with pytest.raises(TypeError, match=r'float64\[\].*float64\[2\]'):
        mj.while_loop(lambda v: False, lambda v: np.zeros(2), 1.)


def test_scan_length_mismatch():
    with pytest.raises(ValueError, match=r'\[2, 3\]'):
        mj.scan(lambda c, x: (c, None), 0., (np.zeros(2), np.zeros(3)))


@pytest.mark.parametrize('unroll', [0, 3, True, False])
def test_scan_unroll_is_a_hint_jax_accepts(unroll):
    """Any bool or non-negative int (0 too, as JAX takes it); the results are the same."""
    xs = rng.normal(size=4)
    f = lambda c, x: (c * x + 1., c)  # noqa: E731
    assert_trees_close(mj.scan(f, 1., xs, unroll=unroll), jax.lax.scan(f, 1., xs, unroll=unroll))


# ----------------------------------------------------------------------------- edge cases

def test_zero_length_scan_runs_eagerly_under_jit_and_grad():
    def body(c, x):
        return c + x, c * 2.
    c, xs = np.ones(3), np.ones((0, 3))
    expected = jax.lax.scan(body, c, xs)
    for scan in (lambda *a: mj.scan(body, *a), mj.jit(lambda *a: mj.scan(body, *a))):
        carry, ys = scan(c, xs)
        assert np.shape(ys) == expected[1].shape
        assert_trees_close((carry, ys), expected)
    def loop(m):
        return lambda x: m.fori_loop(0, 0, lambda i, v: v * x, x)
    for grad in (mj.grad(loop(mj)), mj.jit(mj.grad(loop(mj)))):
        assert float(grad(2.)) == float(jax.grad(loop(jax.lax))(2.))


@pytest.mark.parametrize('jitted', [False, True], ids=['eager', 'jit'])
def test_vmap_where_only_the_predicate_or_index_is_batched(jitted):
    wrap = mj.jit if jitted else (lambda f: f)
    p, x = np.array([1., -1., 0.5]), np.array([0.3, 0.7])
    mine = mj.vmap(wrap(lambda p, x: mj.cond(p > 0., lax.sin, lax.cos, x)), (0, None))
    theirs = jax.vmap(lambda p, x: jax.lax.cond(p > 0., jnp.sin, jnp.cos, x), (0, None))
    assert_trees_close(mine(p, x), theirs(p, x))
    index = np.array([0, 2, 1, 5])
    constants = [lambda: 1., lambda: 2., lambda: 3.]
    assert_trees_close(mj.vmap(wrap(lambda i: mj.switch(i, constants)))(index),
                       jax.vmap(lambda i: jax.lax.switch(i, constants))(index))


def _unused_output_programs(m, l):
    """Functions of x whose second, discarded output has an infinite or undefined
    derivative at x = 0, or is a loop that cannot be transposed."""
    loop = lambda x: m.fori_loop(0, np.int32(3), lambda i, v: v * x, x)  # noqa: E731
    return {
        'cond': lambda x: m.cond(x > -1., lambda: (x * 2., l.log(x)), lambda: (x, x))[0],
        'cond_with_while': lambda x: m.cond(x > -1., lambda: (x * 2., loop(x)),
                                            lambda: (x, x))[0],
        'scan_ys': lambda x: m.scan(lambda c, _: (c * 2., l.log(c)), x, None, length=2)[0],
        'scan_ys_while': lambda x: m.scan(lambda c, _: (c * 2., loop(c)), x, None,
                                          length=2)[0],
        'jit': lambda x: m.jit(lambda x: (x * 2., l.log(x)))(x)[0],
        'jit_with_while': lambda x: m.jit(lambda x: (x * 2., loop(x)))(x)[0],
    }


@pytest.mark.parametrize('name', list(_unused_output_programs(_MiniAPI, lax)))
@pytest.mark.parametrize('order', ['grad', 'jit_grad'])
def test_an_unused_output_contributes_no_gradient(name, order):
    """Zero cotangents stay symbolic inside control flow and jit: no ``0 * inf``, and a
    while loop whose result is dropped is never transposed (as in JAX)."""
    mine = _unused_output_programs(_MiniAPI, lax)[name]
    theirs = _unused_output_programs(_JaxAPI, jnp)[name]
    grad = mj.grad(mine) if order == 'grad' else mj.jit(mj.grad(mine))
    expected = float(jax.grad(theirs)(0.))
    assert np.isfinite(expected) and float(grad(0.)) == expected


def test_unused_scan_outputs_do_not_turn_gradients_into_nan():
    def f(m, l):
        return lambda c0, xs: l.reduce_sum(
            m.scan(lambda c, r: (c + r, l.cos(c)), c0, xs)[0])
    c0, xs = np.array([np.inf, 1.]), np.ones((2, 2))
    expected = jax.grad(f(jax.lax, _JaxLax))(c0, xs)
    np.testing.assert_array_equal(mj.grad(f(mj, _MiniLax))(c0, xs), expected)


def _rnn_loss(np_, lax_):
    """A scan whose reverse pass reads the weight (a loop-invariant const) and each x_t."""
    def loss(w, xs):
        def step(h, x):
            h = np_.tanh(h @ w) * x
            return h, np_.sum(h)
        _, ys = lax_.scan(step, np_.ones(3), xs)
        return np_.sum(ys)
    return loss


def test_scan_grad_reads_invariant_consts_and_xs_without_stacking_them_again():
    """Partial evaluation forwards a residual that is a const or an xs slice to the
    transposed scan as that operand: no (length, 3, 3) copy of w, no second copy of xs; the
    forward scan stacks what JAX's stacks (the carry, tanh and 1 - tanh)."""
    w, xs = np.linspace(-1., 1., 9).reshape(3, 3), np.linspace(0.5, 2., 12).reshape(4, 3)

    def stacked(api, jnp_, lax_):
        closed = api.make_jaxpr(api.grad(_rnn_loss(jnp_, lax_), argnums=(0, 1)))(w, xs)
        forward = next(eqn for eqn in closed.jaxpr.eqns if eqn.primitive.name == 'scan')
        return [v.aval.shape for v in forward.outvars]
    ours = stacked(mj, mj.numpy, lax)
    assert (4, 3, 3) not in ours and ours.count((4, 3)) == 3
    assert ours == stacked(jax, jnp, jax.lax)
    theirs = jax.grad(_rnn_loss(jnp, jax.lax), argnums=(0, 1))(w, xs)
    for a, b in zip(mj.jit(mj.grad(_rnn_loss(mj.numpy, lax), argnums=(0, 1)))(w, xs), theirs):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_eager_loops_round_as_jax_compiled_whole():
    """An eager loop runs as one compiled program, as JAX runs it: XLA contracts ``s + dt * v``
    into a fused multiply-add inside the loop, so stepping the body in Python rounds
    differently after a hundred steps."""
    def euler(m, l, s0):
        step = lambda i, s: s + 0.01 * l.mul(s[::-1], np.array([1., -1.]))
        return m.fori_loop(0, 100, step, s0)

    def trajectory(m, l, s0):
        return m.scan(lambda s, _: (s + 0.1 * l.mul(s[::-1], np.array([1., -1.])), s[0]),
                      s0, None, length=10)

    s0 = np.array([1., 0.])
    for program in (euler, trajectory):
        mine, theirs = program(_MiniAPI, _MiniLax, s0), program(_JaxAPI, _JaxLax, s0)
        for a, b in zip(jax.tree_util.tree_leaves(mine), jax.tree_util.tree_leaves(theirs)):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


#: Loops as JAX lowers them: while_loop programs closing over values in ``cond_fun``,
#: ``body_fun`` or both, with a trip count known at run time only, and with an ordered
#: effect, batched (its predicate batched or not, twice); scans forward, reversed, without
#: xs, of length 0, nested, batched (what no batched value reaches left unbatched), passing a
#: carry and an x through unchanged (JAX's scan binds neither), and two in one module (their
#: private functions numbered as MLIR numbers JAX's): (library, its numpy) -> function, and
#: the arguments.
LOOP_TEXT = {
    'while-body-closure': (lambda m, n: lambda x, y: m.lax.while_loop(
        lambda c: c < 10., lambda c: c + y, x), (np.float32(1), np.float32(2))),
    'while-cond-closure': (lambda m, n: lambda x, lim: m.lax.while_loop(
        lambda c: n.sum(c) < lim, lambda c: c * 2. + x, x), (np.ones(3), 50.)),
    'while-both-closures': (lambda m, n: lambda x, lim, y: m.lax.while_loop(
        lambda c: c[1] < lim, lambda c: (c[0] * y, c[1] + 1), (x, 0)),
        (np.ones(3), 4, np.full(3, 2.))),
    'fori-dynamic': (lambda m, n: lambda x, k: m.lax.fori_loop(
        0, k, lambda i, c: c + x * i, x), (np.ones(3), 4)),
    'fori-dynamic-ordered-print': (lambda m, n: lambda x, k: m.lax.fori_loop(
        0, k, lambda i, c: (m.debug.print('{}', i, ordered=True), c * x)[1], x),
        (np.full(2, 1.5), 2)),
    'scan': (lambda m, n: lambda c, xs, w: m.lax.scan(
        lambda c, x: (c * w + x, n.sin(c)), c, xs), (np.ones(2), np.ones((4, 2)), 2.)),
    'scan-reverse': (lambda m, n: lambda c, xs: m.lax.scan(
        lambda c, x: (c + x, c * x), c, xs, reverse=True), (1., np.arange(4.))),
    'scan-no-xs': (lambda m, n: lambda c: m.lax.scan(
        lambda c, _: (c * 2, c), c, None, length=3), (np.ones(2),)),
    'scan-length-0': (lambda m, n: lambda c, xs: m.lax.scan(
        lambda c, x: (c + x, c * x), c, xs), (1., np.zeros(0))),
    'fori-static': (lambda m, n: lambda x, w: m.lax.fori_loop(
        0, 5, lambda i, c: c @ w + x, x), (np.ones((2, 2)), np.eye(2))),
    'fori-nested': (lambda m, n: lambda x, y: m.lax.fori_loop(0, 3, lambda i, c: m.lax.fori_loop(
        0, 2, lambda j, d: d + y * j, c), x), (np.ones(3), np.ones(3))),
    'scan-vmap': (lambda m, n: m.vmap(lambda c, xs: m.lax.scan(
        lambda c, x: (c + x, c * x), c, xs)), (np.ones(3), np.ones((3, 4)))),
    'fori-ordered-print': (lambda m, n: lambda x: m.lax.fori_loop(
        0, 2, lambda i, c: (m.debug.print('{}', c, ordered=True), c * 2.)[1], x), (np.ones(2),)),
    'scan-forwarding': (lambda m, n: lambda c, xs, w: m.lax.scan(
        lambda c, x: ((c[0], c[1] + x), (x, x * c[0])), (w, c), xs),
        (np.ones(2), np.ones((4, 2)), np.full(2, 3.))),
    'while-vmap-batched-predicate': (lambda m, n: m.vmap(lambda x, y: m.lax.while_loop(
        lambda c: c < 10., lambda c: c + y, x), (0, None)), (np.arange(3.), 2.)),
    'while-vmap-unbatched-predicate': (lambda m, n: m.vmap(lambda y, k: m.lax.while_loop(
        lambda c: c[0] < k, lambda c: (c[0] + 1, c[1] * y), (0, y)), (0, None)),
        (np.arange(3.), 4)),
    'while-vmap-of-vmap': (lambda m, n: m.vmap(m.vmap(lambda x, y: m.lax.while_loop(
        lambda c: c < 10., lambda c: c + y, x), (0, None))),
        (np.arange(6.).reshape(2, 3), np.array([1., 2.]))),
    'while-vmap-ordered-print': (lambda m, n: m.vmap(lambda x: m.lax.while_loop(
        lambda c: n.abs(c) < 100., lambda c: (m.debug.print('{}', c, ordered=True), c * 3.)[1],
        x)), (np.array([1., -2.]),)),
    'fori-vmap-unbatched-counter': (lambda m, n: m.vmap(lambda x, y: m.lax.fori_loop(
        0, 3, lambda i, c: c * x, y), (0, None)), (np.ones(2), 1.)),
    'scan-vmap-batched-const-only': (lambda m, n: m.vmap(lambda w, xs: m.lax.scan(
        lambda c, t: (c * w + t, c), 0., xs), (0, None)), (np.ones(2), np.ones(3))),
    'scan-vmap-xs-at-axis-1': (lambda m, n: m.vmap(lambda x, y: m.lax.scan(
        lambda c, t: (c, t * y), 0., x), (1, None)), (np.ones((3, 2)), 2.)),
    'two-scans': (lambda m, n: lambda xs, ys: (
        m.lax.scan(lambda c, x: (c + x, x * c), 0., xs),
        m.lax.scan(lambda c, y: (c + n.sum(y), y * 2), 0., ys)), (np.ones(3), np.ones((3, 2)))),
}


@pytest.mark.parametrize('name', LOOP_TEXT)
def test_loops_lower_to_jaxs_text(name, capfd):
    """The values a loop closes over ride in its carry, before the loop state (after the
    ordered effects' token), as JAX lowers them; a scan's body is a private function its
    loop calls between reading the xs' rows and writing the ys'; and the values are
    JAX's."""
    make, args = LOOP_TEXT[name]
    mine, theirs = mj.jit(make(mj, mj.numpy)), jax.jit(make(jax, jnp))
    assert str(mj.make_jaxpr(mine)(*args)) == str(jax.make_jaxpr(theirs)(*args))
    assert mine.lower(*args).as_text() == theirs.lower(*args).as_text()
    for got, expected in zip(jax.tree.leaves(mine(*args)), jax.tree.leaves(theirs(*args))):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
