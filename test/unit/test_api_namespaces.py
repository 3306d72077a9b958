"""The JAX namespaces programs import: ``lax`` control flow and ``stop_gradient``,
``minijax.nn``, ``minijax.scipy.special``, ``minijax.scipy.stats.norm``, ``custom_jvp``,
``custom_vjp`` and ``checkpoint``, each against JAX (x64): values, derivatives, vmap and jit.

Most programs are written once as ``program(jax)`` and run with ``jax`` bound to minijax and
to JAX, so both sides run the same source, as a ported program does.
"""
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close, jax_answer

import minijax
import minijax.numpy as mnp
from minijax.lax.gradients import stop_gradient_p

MJ = types.SimpleNamespace(jax=minijax, jnp=mnp, lax=minijax.lax)
JX = types.SimpleNamespace(jax=jax, jnp=jnp, lax=jax.lax)


def both(program, *args):
    """``program(ns, *args)`` for minijax and for JAX, compared leaf by leaf: minijax's as
    the program runs (eagerly, but for the jit it applies itself), JAX's as one jitted
    program (``testlib.jax_answer``)."""
    mine, theirs = program(MJ, *args), jax_answer(lambda *a: program(JX, *a), *args)
    mine_leaves, theirs_leaves = jax.tree.leaves(mine), jax.tree.leaves(theirs)
    assert len(mine_leaves) == len(theirs_leaves)
    for m, t in zip(mine_leaves, theirs_leaves):
        assert_close(m, t)


def normal(seed, *shape):
    return np.random.default_rng(seed).normal(size=shape)


# ----------------------------------------------------------------------------- reachable names

def test_namespaces_after_import_minijax():
    """``import minijax as jax`` then ``jax.nn``, ``jax.numpy``, ``jax.lax``, ``jax.scipy``."""
    import minijax as mj
    for name in ['relu', 'sigmoid', 'softplus', 'gelu', 'softmax', 'log_softmax', 'one_hot',
                 'logsumexp', 'silu', 'swish', 'tanh']:
        assert callable(getattr(mj.nn, name)), name
    assert callable(mj.numpy.exp) and callable(mj.lax.cond) and callable(mj.lax.map)
    for name in ['logsumexp', 'expit', 'logit', 'erf', 'erfc', 'ndtr']:
        assert callable(getattr(mj.scipy.special, name)), name
    for name in ['pdf', 'logpdf', 'cdf']:
        assert callable(getattr(mj.scipy.stats.norm, name)), name
    for name in ['custom_jvp', 'custom_vjp', 'checkpoint', 'remat']:
        assert name in mj.__all__ and callable(getattr(mj, name))


def test_lax_control_flow_is_imported_lazily_but_importable_by_name():
    from minijax.lax import cond, fori_loop, scan, switch, while_loop  # noqa: F401
    assert {'cond', 'map', 'scan', 'stop_gradient'} <= set(dir(minijax.lax))
    with pytest.raises(AttributeError, match="no attribute 'no_such_op'"):
        minijax.lax.no_such_op  # noqa: B018


# ----------------------------------------------------------------------------- lax control flow

def _control_flow(ns, x):
    lax = ns.lax
    c = lax.cond(x[0] > 0, lambda v: v * 2., lambda v: -v, x)
    s = lax.switch(2, [lambda v: v, lambda v: v + 1., lambda v: ns.jnp.sin(v)], x)
    w = lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1]
    f = lax.fori_loop(0, 4, lambda i, v: v + i * v, x)
    carry, ys = lax.scan(lambda c, r: (c + r, c * r), ns.jnp.zeros(3), ns.jnp.stack([x, 2 * x]))
    m = lax.map(lambda r: ns.jnp.sum(r * r), ns.jnp.stack([x, x + 1.]))
    return c, s, w, f, carry, ys, m


def test_lax_control_flow_against_jax():
    both(_control_flow, normal(0, 3))


def test_lax_map_over_a_pytree_with_grad_and_jit():
    def program(ns, xs):
        def loss(xs):
            out = ns.lax.map(lambda p: p['a'] * ns.jnp.sin(p['b']), {'a': xs, 'b': 2 * xs})
            return ns.jnp.sum(out)
        return ns.jax.jit(loss)(xs), ns.jax.grad(loss)(xs)
    both(program, normal(1, 4, 2))


def test_lax_map_batch_size_is_refused_naming_it():
    with pytest.raises(NotImplementedError, match='batch_size'):
        minijax.lax.map(lambda x: x, np.ones(4), batch_size=2)


# ----------------------------------------------------------------------------- stop_gradient

def _stop_gradient_loss(ns, x):
    return ns.jnp.sum(ns.lax.stop_gradient(x * x) * ns.jnp.sin(x))


@pytest.mark.parametrize('transform', ['grad', 'jit_grad', 'jvp', 'vmap', 'vmap_grad', 'hessian'])
def test_stop_gradient_against_jax(transform):
    def program(ns, x):
        f = lambda x: _stop_gradient_loss(ns, x)  # noqa: E731
        return {
            'grad': lambda: ns.jax.grad(f)(x),
            'jit_grad': lambda: ns.jax.jit(ns.jax.grad(f))(x),
            'jvp': lambda: ns.jax.jvp(f, (x,), (ns.jnp.ones_like(x),)),
            'vmap': lambda: ns.jax.vmap(ns.lax.stop_gradient)(ns.jnp.stack([x, 2 * x])),
            'vmap_grad': lambda: ns.jax.vmap(ns.jax.grad(f))(ns.jnp.stack([x, 2 * x])),
            'hessian': lambda: ns.jax.grad(lambda x: ns.jnp.sum(ns.jax.grad(f)(x)))(x),
        }[transform]()
    both(program, normal(2, 3))


def test_stop_gradient_is_a_primitive_that_jit_lowers_to_nothing():
    jaxpr = minijax.make_jaxpr(minijax.lax.stop_gradient)(np.ones(3))
    assert [e.primitive for e in jaxpr.jaxpr.eqns] == [stop_gradient_p]
    text = minijax.jit(minijax.lax.stop_gradient).lower(np.ones(3)).as_text()
    assert 'return %arg0' in text and 'stablehlo.' not in text


def test_stop_gradient_of_a_pytree_stops_integers_too():
    """JAX 0.10.2 binds stop_gradient on every leaf but keys, integers included."""
    tree = {'w': np.arange(3.), 'n': np.arange(3, dtype=np.int32)}
    mine, theirs = minijax.lax.stop_gradient(tree), jax.lax.stop_gradient(tree)
    for k in tree:
        assert_close(mine[k], theirs[k])
    assert (str(minijax.make_jaxpr(minijax.lax.stop_gradient)(np.int32(3)))
            == str(jax.make_jaxpr(jax.lax.stop_gradient)(np.int32(3))))


# ----------------------------------------------------------------------------- nn

#: (function name, keyword arguments): each checked for values, gradients, jit and vmap.
NN_CASES = [('relu', {}), ('sigmoid', {}), ('softplus', {}), ('log_sigmoid', {}),
            ('silu', {}), ('swish', {}), ('gelu', {}), ('gelu', {'approximate': False}),
            ('leaky_relu', {}), ('leaky_relu', {'negative_slope': 0.2}), ('soft_sign', {}),
            ('hard_tanh', {}), ('tanh', {}), ('softmax', {}), ('softmax', {'axis': 0}),
            ('softmax', {'axis': (0, 1)}), ('log_softmax', {}), ('log_softmax', {'axis': 0}),
            ('logsumexp', {}), ('logsumexp', {'axis': 1, 'keepdims': True})]
NN_IDS = [f'{name}-{"-".join(f"{k}={v}" for k, v in kw.items())}' for name, kw in NN_CASES]


def _nn_program(name, kwargs, transform):
    def program(ns, x):
        f = lambda x: getattr(ns.jax.nn, name)(x, **kwargs)  # noqa: E731
        loss = lambda x: ns.jnp.sum(ns.jnp.sin(f(x)))  # noqa: E731
        return {'value': lambda: f(x), 'grad': lambda: ns.jax.grad(loss)(x),
                'vmap': lambda: ns.jax.vmap(f)(ns.jnp.stack([x, 2 * x])),
                'jit_grad': lambda: ns.jax.jit(ns.jax.grad(loss))(x)}[transform]()
    return program


@pytest.mark.parametrize('transform', ['value', 'grad', 'vmap', 'jit_grad'])
@pytest.mark.parametrize('name,kwargs', NN_CASES, ids=NN_IDS)
def test_nn_against_jax(name, kwargs, transform):
    x = 3 * normal(3, 4, 5)
    x[0, :3] = [0., -1., 1.]  # the kinks of relu, leaky_relu and hard_tanh
    both(_nn_program(name, kwargs, transform), x)


def test_nn_float32_stays_float32():
    x = normal(4, 6).astype(np.float32)
    for name in ['relu', 'sigmoid', 'softplus', 'gelu', 'softmax', 'log_softmax']:
        assert_close(getattr(minijax.nn, name)(x), getattr(jax.nn, name)(x))


def test_softplus_is_stable_at_the_extremes():
    """No overflow at +-800, full precision of the tiny value at -40, sigmoid gradients."""
    x = np.array([-800., -40., -1e-3, 0., 1e-3, 40., 800.])
    both(lambda ns, x: (ns.jax.nn.softplus(x), ns.jax.vmap(ns.jax.grad(ns.jax.nn.softplus))(x),
                        ns.jax.nn.log_sigmoid(x)), x)


def test_relu_derivative_at_zero_is_zero():
    both(lambda ns, x: ns.jax.vmap(ns.jax.grad(ns.jax.nn.relu))(x), np.array([-1., 0., -0., 2.]))


def test_softmax_of_large_and_infinite_inputs():
    x = np.array([[1000., 0., -1000.], [-np.inf, 0., 1.]])
    both(lambda ns, x: (ns.jax.nn.softmax(x), ns.jax.nn.log_softmax(x),
                        ns.jax.nn.logsumexp(x, axis=1)), x)


@pytest.mark.parametrize('axis', [-1, 0, 1])
@pytest.mark.parametrize('dtype', [None, np.float32, np.int32])
def test_one_hot_against_jax(axis, dtype):
    labels = np.array([[0, 2, 4], [1, 3, 9]])  # 9 is out of range: a row of zeros
    kwargs = {} if dtype is None else {'dtype': dtype}
    both(lambda ns, x: ns.jax.nn.one_hot(x, 5, axis=axis, **kwargs), labels)
    both(lambda ns, x: ns.jax.jit(lambda x: ns.jax.nn.one_hot(x, 5, axis=axis))(x), labels)


# ----------------------------------------------------------------------------- scipy.special

SPECIAL_CASES = [('erf', 3), ('erfc', 3), ('expit', 3), ('logit', 'unit'), ('ndtr', 3)]


def _special_input(scale):
    rng = np.random.default_rng(5)
    return rng.uniform(0.01, 0.99, (4, 5)) if scale == 'unit' else scale * rng.normal(size=(4, 5))


@pytest.mark.parametrize('transform', ['value', 'grad', 'vmap', 'jit_grad'])
@pytest.mark.parametrize('name,scale', SPECIAL_CASES, ids=[n for n, _ in SPECIAL_CASES])
def test_special_against_jax(name, scale, transform):
    def program(ns, x):
        f = getattr(ns.jax.scipy.special, name)
        loss = lambda x: ns.jnp.sum(f(x) * x)  # noqa: E731
        return {'value': lambda: f(x), 'grad': lambda: ns.jax.grad(loss)(x),
                'vmap': lambda: ns.jax.vmap(f)(x),
                'jit_grad': lambda: ns.jax.jit(ns.jax.grad(loss))(x)}[transform]()
    both(program, _special_input(scale))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('name', ['erf', 'erfc', 'ndtr'])
def test_erf_family_over_its_whole_range(name, dtype):
    """Both ranges of the expansion, the far tail (erfc underflows near 27), infinities, NaN
    and signed zeros, under jit (the expansion) and eagerly (the C library)."""
    x = np.concatenate([np.linspace(-30, 30, 2001), [np.inf, -np.inf, np.nan, 0., -0., 1e-300,
                                                     -0.5, 0.5, 1., -1., 8., -8.]]).astype(dtype)
    both(lambda ns, x: getattr(ns.jax.scipy.special, name)(x), x)
    both(lambda ns, x: ns.jax.jit(getattr(ns.jax.scipy.special, name))(x), x)


@pytest.mark.parametrize('kwargs', [{}, {'axis': 0}, {'axis': (0, 1), 'keepdims': True},
                                    {'axis': 1, 'b': 'weights'},
                                    {'axis': 1, 'b': 'signed', 'return_sign': True},
                                    {'b': 'signed'}],
                         ids=['all', 'axis0', 'keepdims', 'b', 'return_sign', 'negative-sum'])
def test_logsumexp_against_jax(kwargs):
    b = {'weights': np.abs(normal(6, 3, 4)), 'signed': normal(7, 3, 4)}.get(kwargs.get('b'))
    kwargs = {**kwargs, 'b': b} if 'b' in kwargs else kwargs

    def program(ns, x):
        f = lambda x: ns.jax.scipy.special.logsumexp(x, **kwargs)  # noqa: E731
        loss = lambda x: ns.jnp.sum(jax.tree.leaves(f(x))[0])  # noqa: E731
        return f(x), ns.jax.jit(f)(x), ns.jax.grad(loss)(x)
    both(program, normal(8, 3, 4))


def test_logsumexp_drops_terms_where_b_is_zero():
    x, b = np.array([[np.inf, 1.], [2., 3.]]), np.array([[0., 1.], [1., 0.]])
    both(lambda ns, x: ns.jax.scipy.special.logsumexp(x, axis=1, b=b), x)


# ----------------------------------------------------------------------------- scipy.stats.norm

@pytest.mark.parametrize('name', ['pdf', 'logpdf', 'cdf'])
def test_norm_against_jax(name):
    def program(ns, x, loc, scale):
        f = getattr(ns.jax.scipy.stats.norm, name)
        loss = lambda x, loc, scale: ns.jnp.sum(f(x, loc, scale))  # noqa: E731
        return (f(x), f(x, loc, scale), ns.jax.jit(f)(x, loc, scale),
                ns.jax.grad(loss, argnums=(0, 1, 2))(x, loc, scale),
                ns.jax.vmap(f, (0, None, None))(x, 0.5, 2.))
    both(program, normal(9, 6), normal(10, 6), np.abs(normal(11, 6)) + 0.5)


def test_norm_keeps_float32_with_python_number_parameters():
    x = normal(12, 5).astype(np.float32)
    for name in ['pdf', 'logpdf', 'cdf']:
        assert_close(getattr(minijax.scipy.stats.norm, name)(x, 1, 2.),
                     getattr(jax.scipy.stats.norm, name)(x, 1, 2.))


# ----------------------------------------------------------------------------- special and stats

#: The points (arguments of the compiled program, so that XLA folds no constants).
POINTS = {'gamma': np.array([-3.7, -2., -.5, 1e-8, .3, 1., 2.5, 7.9, 30., 1e12, np.inf,
                             np.nan]),
          'unit': np.array([0., 1e-20, .01, .3, .5, .9, .999, 1.]),
          'line': np.array([-30., -3., -.2, 0., 1., 2.5, 9.]),
          'counts': np.array([-1., 0., 1., 2.5, 7.]),
          'cov': np.array([[2., .5, .1], [.5, 1., .2], [.1, .2, 3.]]),
          'grad': np.array([.3, 1.7, 6., 12.])}
_F32 = np.float32
#: JAX's special functions (Lanczos, Giles and Cephes expansions), distributions and
#: signal's convolutions, each row in float64 and, where the constants differ, float32; all in one
#: compiled program.
SPECIAL_AND_STATS = {
    'gammaln-digamma': lambda sp, st, sg, p: (sp.gammaln(p['gamma']), sp.digamma(p['gamma']),
                                              sp.gammaln(p['gamma'].astype(_F32)),
                                              sp.digamma(p['gamma'].astype(_F32))),
    'erfinv-ndtri': lambda sp, st, sg, p: (sp.erfinv(2 * p['unit'] - 1), sp.ndtri(p['unit']),
                                           sp.erfinv(p['unit'].astype(_F32))),
    'log_ndtr': lambda sp, st, sg, p: sp.log_ndtr(p['line']),
    'xlogy-entr': lambda sp, st, sg, p: (sp.xlogy(p['counts'], p['unit'][:5]),
                                         sp.xlog1py(p['counts'], -p['unit'][:5]),
                                         sp.entr(p['counts'])),
    'betaln-multigammaln': lambda sp, st, sg, p: (
        sp.betaln(p['unit'][3:7] + .1, p['line'][3:] + 9), sp.multigammaln(p['grad'], 3)),
    'softmax': lambda sp, st, sg, p: (sp.softmax(p['cov']), sp.log_softmax(p['cov'], axis=0)),
    'gammainc-betainc': lambda sp, st, sg, p: (
        sp.gammainc(p['gamma'], p['gamma'][::-1]), sp.gammaincc(p['gamma'], p['gamma'][::-1]),
        sp.gammainc(p['grad'].astype(_F32), 2), sp.betainc(2.5, .5, p['unit']),
        sp.betainc(p['grad'], p['grad'][::-1], p['unit'][2:6].astype(_F32))),
    'bessel': lambda sp, st, sg, p: (sp.i0(p['line']), sp.i0e(p['line']), sp.i1(p['line']),
                                     sp.i1e(p['gamma']), sp.i0e(p['gamma'].astype(_F32)),
                                     sp.i1(p['line'].astype(_F32))),
    'norm': lambda sp, st, sg, p: (st.norm.logcdf(p['line']), st.norm.sf(p['line']),
                                   st.norm.ppf(p['unit']), st.norm.isf(p['unit'])),
    'continuous': lambda sp, st, sg, p: tuple(
        getattr(getattr(st, d), f)(p['line'], .5, 2.) for d, f in [
            ('expon', 'logpdf'), ('expon', 'cdf'), ('uniform', 'logpdf'), ('uniform', 'cdf'),
            ('laplace', 'logpdf'), ('laplace', 'cdf'), ('logistic', 'logpdf'),
            ('logistic', 'sf'), ('cauchy', 'logpdf'), ('cauchy', 'isf')]),
    'shaped': lambda sp, st, sg, p: (
        st.gamma.logpdf(p['line'], 2.5, -1., 2.), st.t.logpdf(p['line'], p['grad'][1] + 1.8),
        st.beta.logpdf(p['unit'], p['grad'][0] + .2, p['grad'][2] - 3),
        st.poisson.logpmf(p['counts'], 2.5), st.bernoulli.logpmf(p['counts'], .3),
        st.bernoulli.cdf(p['counts'], .3)),
    'multivariate_normal': lambda sp, st, sg, p: (
        st.multivariate_normal.logpdf(p['cov'][:2], p['grad'][:3], p['cov']),
        st.multivariate_normal.logpdf(p['grad'][:3], 0., 2.)),
    'signal': lambda sp, st, sg, p: (sg.convolve(p['cov'], p['cov'][:2, :2], 'same'),
                                     sg.correlate(p['line'], p['counts'][:3])),
    'signal-2d': lambda sp, st, sg, p: tuple(
        f(a, b, mode) for f in (sg.convolve2d, sg.correlate2d)
        for a, b in ((p['cov'], p['cov'][:2, 1:]), (p['cov'][1:], p['cov']))
        for mode in ('full', 'same', 'valid')),
}
#: Derivatives through each function's own rule (digamma for gammaln...).
SPECIAL_GRADS = {
    'gammaln': lambda sp, x: sp.gammaln(x), 'erfinv': lambda sp, x: sp.erfinv(x / 13),
    'log_ndtr': lambda sp, x: sp.log_ndtr(-3 * x), 'xlogy': lambda sp, x: sp.xlogy(x, x + 1),
    'entr': lambda sp, x: sp.entr(x), 'betaln': lambda sp, x: sp.betaln(x, 2 * x),
    'gammainc': lambda sp, x: sp.gammainc(x, 8 / x),
    'gammaincc': lambda sp, x: sp.gammaincc(x, x + 1),
    'betainc': lambda sp, x: sp.betainc(2., 3., x / 13),
    'i0': lambda sp, x: sp.i0(x), 'i1e': lambda sp, x: sp.i1e(x - 3),
}


def test_special_and_stats_are_jaxs_bit_for_bit():
    def program(ns, p):
        sp, st, sg = ns.scipy.special, ns.scipy.stats, ns.scipy.signal
        values = {name: row(sp, st, sg, p) for name, row in SPECIAL_AND_STATS.items()}
        grads = {name: ns.vmap(ns.grad(lambda v, f=f: f(sp, v)))(p['grad'])
                 for name, f in SPECIAL_GRADS.items()}
        return values, grads
    mine = minijax.jit(lambda p: program(minijax, p))(POINTS)
    theirs = jax.jit(lambda p: program(jax, p))(POINTS)
    paths, theirs_leaves = zip(*jax.tree_util.tree_leaves_with_path(theirs))
    for path, m, t in zip(paths, jax.tree.leaves(mine), theirs_leaves):
        m, t = np.asarray(m), np.asarray(t)
        assert m.dtype == t.dtype and m.shape == t.shape, path
        np.testing.assert_array_equal(m, t, err_msg=str(path))


def test_errors_are_jaxs_classes_and_minijax_raises_them():
    for name in ['ConcretizationTypeError', 'TracerBoolConversionError',
                 'TracerArrayConversionError', 'TracerIntegerConversionError',
                 'UnexpectedTracerError', 'NonConcreteBooleanIndexError', 'KeyReuseError',
                 'JAXIndexError']:
        mine, theirs = getattr(minijax.errors, name), getattr(jax.errors, name)
        assert [b.__name__ for b in mine.__mro__ if b.__module__ == 'builtins'] == \
            [b.__name__ for b in theirs.__mro__ if b.__module__ == 'builtins'], name
        for base in ('ConcretizationTypeError', 'JAXIndexError'):
            assert issubclass(mine, getattr(minijax.errors, base)) == issubclass(
                theirs, getattr(jax.errors, base)), (name, base)
    raising = [(lambda x: 1 if x > 0 else 0, minijax.errors.TracerBoolConversionError),
               (lambda x: [1, 2][x], minijax.errors.TracerIntegerConversionError),
               (lambda x: x[x > 0], minijax.errors.NonConcreteBooleanIndexError)]
    for f, error in raising:
        with pytest.raises(error):
            minijax.jit(f)(np.arange(2))
    assert sorted(vars(minijax.checkpoint_policies).keys() & vars(jax.checkpoint_policies)
                  .keys()) == sorted(vars(jax.checkpoint_policies))


# ----------------------------------------------------------------------------- custom_jvp

def _clipped_sin(ns):
    """sin with a deliberately different JVP (2 cos), so the rule visibly takes effect."""
    @ns.jax.custom_jvp
    def f(x, y):
        return ns.jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), 2. * ns.jnp.cos(x) * y * tx + ns.jnp.sin(x) * ty
    return f


def _with_defjvps(ns):
    @ns.jax.custom_jvp
    def f(x, y):
        return x * ns.jnp.exp(y)

    f.defjvps(lambda tx, ans, x, y: 3. * tx * ns.jnp.exp(y), None)
    return f


def _with_nondiff(ns):
    from functools import partial

    @partial(ns.jax.custom_jvp, nondiff_argnums=(0,))
    def f(power, x):
        return x ** power

    @f.defjvp
    def f_jvp(power, primals, tangents):
        (x,), (t,) = primals, tangents
        return f(power, x), 10. * t  # a constant slope: the rule, not the true derivative
    return lambda x, y: f(3, x) * y


CUSTOM_JVP = {'defjvp': _clipped_sin, 'defjvps': _with_defjvps, 'nondiff': _with_nondiff}
TRANSFORMS = ['value', 'jvp', 'grad', 'jit', 'jit_grad', 'grad_jit', 'vmap', 'vmap_grad',
              'grad_vmap', 'hessian']


def _transformed(ns, f, transform, x, y):
    loss = lambda x, y: ns.jnp.sum(f(x, y))  # noqa: E731
    return {
        'value': lambda: f(x, y),
        'jvp': lambda: ns.jax.jvp(f, (x, y), (ns.jnp.ones_like(x), 0.5 * ns.jnp.ones_like(y))),
        'grad': lambda: ns.jax.grad(loss, (0, 1))(x, y),
        'jit': lambda: ns.jax.jit(f)(x, y),
        'jit_grad': lambda: ns.jax.jit(ns.jax.grad(loss, (0, 1)))(x, y),
        'grad_jit': lambda: ns.jax.grad(ns.jax.jit(loss), (0, 1))(x, y),
        'vmap': lambda: ns.jax.vmap(f, (0, None))(ns.jnp.stack([x, 2 * x]), y),
        'vmap_grad': lambda: ns.jax.vmap(ns.jax.grad(loss), (0, None))(
            ns.jnp.stack([x, 2 * x]), y),
        'grad_vmap': lambda: ns.jax.grad(lambda x, y: ns.jnp.sum(ns.jax.vmap(f, (0, None))(
            x, y)), (0, 1))(ns.jnp.stack([x, 2 * x]), y),
        'hessian': lambda: ns.jax.grad(lambda x: ns.jnp.sum(ns.jax.grad(loss)(x, y)))(x),
    }[transform]()


@pytest.mark.parametrize('transform', TRANSFORMS)
@pytest.mark.parametrize('kind', list(CUSTOM_JVP))
def test_custom_jvp_against_jax(kind, transform):
    if kind == 'defjvps' and transform == 'hessian':
        return  # exp's second derivative through the rule: covered by the other kinds
    both(lambda ns, x, y: _transformed(ns, CUSTOM_JVP[kind](ns), transform, x, y),
         normal(13, 3), normal(14, 3))


def test_custom_jvp_is_one_equation_holding_the_primal_jaxpr():
    f = _clipped_sin(MJ)
    eqns = minijax.make_jaxpr(f)(1., 2.).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ['custom_jvp_call']
    assert str(eqns[0].params['jvp']) == 'f_jvp'
    assert 'custom_jvp' not in minijax.jit(f).lower(1., 2.).as_text()


@pytest.mark.parametrize('kind', ['custom_jvp', 'custom_vjp'])
def test_custom_function_outside_transformations_is_called_as_python_calls_it(kind):
    """No transformation running: JAX runs the function itself, once, without its rules, and
    returns what it returns (Python arithmetic on a Python float stays a float), as the
    custom-derivatives notebook prints."""
    results = []
    for api in (jax, minijax):
        calls = []

        def f(x, n):
            calls.append('f')
            return {'a': x ** 2, 'b': api.numpy.sin(x) * n}
        custom = getattr(api, kind)(f, nondiff_argnums=(1,))
        if kind == 'custom_jvp':
            custom.defjvp(lambda n, p, t: (calls.append('jvp'), (custom(p[0], n), t))[1])
        else:
            custom.defvjp(lambda x, n: (calls.append('fwd'), (custom(x, n), x))[1],
                          lambda n, x, g: (g['b'],))
        out = custom(2., 3)
        results.append((calls, out['a'], type(out['a']), float(out['b'])))
    assert results[0] == results[1]


def _branching_custom_jvp(api):
    """The custom-derivatives notebook's function that branches on its argument in Python,
    in itself and in its rule."""
    @api.custom_jvp
    def f(x):
        return api.numpy.sin(x) if x > 0 else api.numpy.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(x), (2 * x_dot if x > 0 else 3 * x_dot)
    return f


@pytest.mark.parametrize('x', [1., -1.])
def test_custom_jvp_rule_sees_values_under_grad_as_in_jax(x):
    """Under an eager ``jvp`` or ``grad``, JAX calls the rule on the primals, without tracing
    the function, so both may branch on the values."""
    assert_close(minijax.grad(_branching_custom_jvp(minijax))(x),
                 jax.grad(_branching_custom_jvp(jax))(x))
    assert_close(minijax.jvp(_branching_custom_jvp(minijax), (x,), (1.,)),
                 jax.jvp(_branching_custom_jvp(jax), (x,), (1.,)))


def _logged_custom_functions(api, log):
    """The notebook's logging ``custom_jvp`` and ``custom_vjp`` versions of ``sin``."""
    def f(x):
        log.append('f')
        return api.numpy.sin(x)

    def f_jvp(primals, tangents):
        log.append('jvp')
        return jvp_f(primals[0]), api.numpy.cos(primals[0]) * tangents[0]

    def f_fwd(x):
        log.append('fwd')
        return vjp_f(x), api.numpy.cos(x)

    def f_bwd(cos_x, g):
        log.append('bwd')
        return (cos_x * g,)
    jvp_f, vjp_f = api.custom_jvp(f), api.custom_vjp(f)
    jvp_f.defjvp(f_jvp)
    vjp_f.defvjp(f_fwd, f_bwd)
    return jvp_f, vjp_f


@pytest.mark.parametrize('transform', ['call', 'jvp', 'grad', 'vjp', 'grad-grad'])
def test_custom_rules_are_called_as_jax_calls_them(transform):
    """Which of the function and its rules run, in which order, under each transformation:
    the notebook prints it (the function is not traced first)."""
    logs = []
    for api in (jax, minijax):
        log = []
        for f in _logged_custom_functions(api, log):
            if transform == 'jvp' and isinstance(f, api.custom_vjp):
                continue
            {'call': lambda: f(3.), 'jvp': lambda: api.jvp(f, (3.,), (1.,)),
             'grad': lambda: api.grad(f)(3.), 'vjp': lambda: api.vjp(f, 3.)[1](1.),
             'grad-grad': lambda: api.grad(api.grad(f))(3.)}[transform]()
            log.append('|')
        logs.append(log)
    assert logs[0] == logs[1]


def test_custom_jvp_refuses_a_tangent_of_a_closed_over_value():
    def outer(y):
        f = minijax.custom_jvp(lambda x: x * y)
        f.defjvp(lambda primals, tangents: (f(*primals), tangents[0] * y))
        return f(2.)
    with pytest.raises(TypeError, match='closed-over value'):
        minijax.grad(outer)(3.)
    assert_close(minijax.jit(outer)(3.), 6.)  # closing over a value not differentiated: fine


def test_custom_jvp_without_a_rule_and_with_a_mistyped_rule():
    f = minijax.custom_jvp(lambda x: x * 2.)
    with pytest.raises(AttributeError, match='No JVP defined'):
        f(1.)
    f.defjvp(lambda primals, tangents: (primals[0] * 2., np.ones(3)))
    with pytest.raises(TypeError, match='tangent output'):
        minijax.jvp(f, (1.,), (1.,))


# ----------------------------------------------------------------------------- custom_vjp

def _clipped_gradient(ns):
    """A function whose backward pass clips the cotangent and passes a pytree of residuals."""
    @ns.jax.custom_vjp
    def f(x, y):
        return ns.jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), {'cos': ns.jnp.cos(x), 'pair': (ns.jnp.sin(x), y)}

    def f_bwd(res, g):
        sin_x, y = res['pair']
        clipped = ns.jnp.minimum(ns.jnp.maximum(g, -0.5), 0.5)
        return clipped * res['cos'] * y, sin_x * g
    f.defvjp(f_fwd, f_bwd)
    return f


def _vjp_with_nondiff(ns):
    from functools import partial

    @partial(ns.jax.custom_vjp, nondiff_argnums=(2,))
    def f(x, y, scale):
        return x * y * scale

    f.defvjp(lambda x, y, scale: (f(x, y, scale), (x, y)),
             lambda scale, res, g: (res[1] * g * scale * 2., None))  # y's cotangent: zero
    return lambda x, y: f(x, y, 3.)


CUSTOM_VJP = {'defvjp': _clipped_gradient, 'nondiff': _vjp_with_nondiff}


@pytest.mark.parametrize('transform', [t for t in TRANSFORMS if t != 'jvp'])
@pytest.mark.parametrize('kind', list(CUSTOM_VJP))
def test_custom_vjp_against_jax(kind, transform):
    both(lambda ns, x, y: _transformed(ns, CUSTOM_VJP[kind](ns), transform, x, y),
         2 * normal(15, 3), normal(16, 3))


@pytest.mark.parametrize('how', ['jvp', 'jit_jvp', 'linearize'])
def test_custom_vjp_refuses_forward_mode_as_jax_does(how):
    f = _clipped_gradient(MJ)
    run = {'jvp': lambda: minijax.jvp(f, (1., 2.), (1., 1.)),
           'jit_jvp': lambda: minijax.jit(lambda x: minijax.jvp(f, (x, 2.), (1., 1.)))(1.),
           'linearize': lambda: minijax.linearize(f, 1., 2.)[1](1., 1.)}[how]
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        'custom_vjp function'):
        run()
    g = _clipped_gradient(JX)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(g, (1., 2.), (1., 1.))


def _vjp_product(ns):
    f = ns.jax.custom_vjp(lambda x, y: x * y)
    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g * res[1], 3. * g * res[0]))
    return f


def _zero_tangent_array(ns, kind, x):
    """A value whose tangent a rule builds as an array of zeros rather than a symbolic zero."""
    if kind == 'integer_pow':
        return ns.lax.integer_pow(x, 0)
    flat = ns.jax.custom_jvp(lambda x: x * 0. + 1.)
    flat.defjvp(lambda primals, tangents: (flat(*primals), ns.jnp.zeros_like(primals[0])))
    return flat(x)


_BODIES = {
    'cond': lambda ns, f, v: ns.lax.cond(True, lambda v: f(v, v), lambda v: v, v),
    'scan': lambda ns, f, v: ns.lax.scan(lambda c, _: (f(c, c), None), v, None, length=2)[0],
    'fori_loop': lambda ns, f, v: ns.lax.fori_loop(0, 2, lambda i, c: f(c, c), v),
    'jit': lambda ns, f, v: ns.jax.jit(lambda v: f(v, v))(v)}


@pytest.mark.parametrize('zero', ['integer_pow', 'custom_jvp'])
@pytest.mark.parametrize('body', list(_BODIES))
def test_custom_vjp_in_a_body_under_grad_when_a_rule_built_a_zero_tangent(body, zero):
    """A tangent that is an array of zeros is no tangent under ``grad``: the custom_vjp
    function in the body is evaluated forward only, and its backward rule is never asked to
    run forward (it failed with "can't apply forward-mode autodiff": fuzz seed 41574)."""
    def grad_of(ns, x):
        f = _vjp_product(ns)
        return ns.jax.grad(lambda x: ns.jnp.sum(
            _BODIES[body](ns, f, _zero_tangent_array(ns, zero, x)) * x))(x)
    both(grad_of, normal(17, 3))


def test_custom_vjp_bwd_must_return_one_cotangent_per_argument():
    f = minijax.custom_vjp(lambda x, y: x * y)
    f.defvjp(lambda x, y: (x * y, None), lambda res, g: (g,))
    with pytest.raises(TypeError, match='one cotangent per differentiable argument'):
        minijax.grad(f)(1., 2.)


@pytest.mark.parametrize('wrong', [lambda g: g.sum(), lambda g: g[:2], lambda g: g[None]],
                         ids=['scalar', 'shorter', 'broadcastable'])
@pytest.mark.parametrize('jitted', [False, True], ids=['eager', 'jit'])
def test_custom_vjp_bwd_cotangent_of_the_wrong_shape_is_jaxs_error(wrong, jitted):
    """Not broadcast into the gradient: JAX's ValueError, naming both types."""
    def grad_of(ns):
        f = ns.jax.custom_vjp(lambda x: x * 2.)
        f.defvjp(lambda x: (f(x), None), lambda res, g: (wrong(g),))
        grad = ns.jax.grad(lambda x: ns.jnp.sum(f(x)))
        return ns.jax.jit(grad) if jitted else grad
    with pytest.raises(ValueError):
        grad_of(JX)(np.ones(3))
    with pytest.raises(ValueError, match=r'custom_vjp <lambda>: bwd returned a cotangent of '
                                         r'type float64\[.*\] for .* of type float64\[3\]'):
        grad_of(MJ)(np.ones(3))


# ----------------------------------------------------------------------------- checkpoint

@pytest.mark.parametrize('form', ['decorator', 'with_policy', 'remat'])
def test_checkpoint_keeps_values_and_gradients(form):
    def program(ns, x):
        def layer(x):
            return ns.jnp.sin(ns.jnp.tanh(x) * x)
        wrapped = {'decorator': lambda: ns.jax.checkpoint(layer),
                   'with_policy': lambda: ns.jax.checkpoint(layer, prevent_cse=False),
                   'remat': lambda: ns.jax.remat(layer)}[form]()
        loss = lambda x: ns.jnp.sum(wrapped(wrapped(x)))  # noqa: E731
        return wrapped(x), ns.jax.grad(loss)(x), ns.jax.jit(ns.jax.grad(loss))(x)
    both(program, normal(17, 4))


# ----------------------------------------------------------------------------- flops

@pytest.mark.parametrize('f', [minijax.lax.erf, minijax.lax.erfc, minijax.nn.relu,
                               minijax.nn.soft_sign, _clipped_gradient(MJ)],
                         ids=['erf', 'erfc', 'relu-custom_jvp', 'soft_sign-jit', 'custom_vjp'])
def test_flops_count_what_xla_counts(f):
    """erf's expansion, the primal jaxprs of custom_jvp/custom_vjp calls and nested jits
    (jax.nn's) are what XLA compiles, so minijax.flops counts what XLA's cost analysis
    counts."""
    args = [np.ones((4, 5))] * (2 if isinstance(f, minijax.custom_vjp) else 1)
    xla = minijax.jit(f).lower(*args).compile().cost_analysis().get('flops', 0.)  # (none: 0)
    assert minijax.flops(f)(*args) == xla
    assert minijax.flops(minijax.lax.stop_gradient)(args[0]) == 0


def test_devices_device_put_and_block_until_ready_as_jax():
    tree = {'w': np.arange(3.), 'b': (np.float32(2.), np.ones((2, 2), np.int32))}
    mine, theirs = minijax.device_put(tree), jax.device_put(tree)
    assert jax.tree_util.tree_structure(mine) == jax.tree_util.tree_structure(theirs)
    for a, b in zip(jax.tree_util.tree_leaves(mine), jax.tree_util.tree_leaves(theirs)):
        assert isinstance(a, minijax.Array) and a.dtype == b.dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert minijax.block_until_ready(mine) is mine
    assert [str(d) for d in minijax.devices()] == [str(d) for d in jax.devices()]


@pytest.mark.parametrize('wait', ['method', 'function'])
def test_block_until_ready_waits_for_the_program(wait):
    """A jitted call returns while XLA's threads still run the program (as JAX's does), so
    ``block_until_ready`` must wait: jaxlib's own buffer says whether the value is there.
    (It returned at once, so timing ``f(x).block_until_ready()`` measured the dispatch.)"""
    slow = minijax.jit(lambda a: (a @ a @ a @ a @ a, a.sum()))
    a = minijax.device_put(np.full((700, 700), 1e-3))
    slow(a)  # (compiled)
    out = slow(a)
    if wait == 'method':
        out[0].block_until_ready()
    else:
        assert minijax.block_until_ready(out) is out
    assert all(x.buffer.is_ready() and x.is_ready() for x in out[:1 if wait == 'method' else 2])
    out[0].delete()
    with pytest.raises(RuntimeError, match='deleted'):
        out[0].block_until_ready()


# ----------------------------------------------------------------------------- ported programs
# Names tutorial programs use that minijax lacked, each run as the ported program runs it.

def _lax_conveniences(ns, x):
    lax, jnp = ns.lax, ns.jnp
    return (lax.select(x > 0, x, -x), lax.dot(x, x.T), lax.dot(x[0], x[0]),
            lax.batch_matmul(jnp.stack([x, x]), jnp.stack([x.T, x.T])),
            lax.dynamic_slice_in_dim(x, 1, 2, axis=1), lax.dynamic_index_in_dim(x, -1, 0),
            lax.dynamic_index_in_dim(x, 2, 1, keepdims=False),
            lax.dynamic_update_slice_in_dim(x, jnp.zeros((3, 2)), 1, 1),
            lax.dynamic_update_index_in_dim(x, jnp.ones(4), 1, 0),
            ns.jax.jit(lambda x, i: lax.dynamic_index_in_dim(x, i, 1, False))(x, 3),
            lax.reduce(x, 0., lax.add, (0,)), lax.reduce(x, -jnp.inf, lax.max, (0, 1)),
            lax.reduce(x, jnp.inf, lax.min, (1,)), lax.full((2,), 3.0), lax.full((), np.int32(2)),
            lax.reduce(x > 0, True, lax.bitwise_and, (1,)),
            lax.reduce(jnp.arange(6).reshape(2, 3), 0, lax.bitwise_xor, (0,)),
            *[select(np.array([[2, 0, 1, 1]] * 3, dtype), x, -x, 2 * x)
              for select in (lax.select_n, ns.jax.jit(lax.select_n))
              for dtype in (np.int64, np.uint8)],
            ns.jax.grad(lambda x: lax.reduce(x * x, 0., lax.add, (0, 1)))(x))


def _at_apply_and_unroll(ns, x):
    jnp, lax = ns.jnp, ns.lax
    x = jnp.asarray(x)
    _, ys = lax.scan(lambda c, v: (c * v, c), 1.0, x[0], unroll=2)
    return (x.at[1:, ::2].apply(jnp.sin), x.at[jnp.array([0, 5]), 1].apply(jnp.exp, mode='drop'),
            ns.jax.jit(lambda x: x.at[-1].apply(lambda v: v * 10))(x), ys)


def _segments_and_raveling(ns, x):
    ids = np.array([2, 0, 5])  # segment 1 is empty; id 5 is out of range: dropped
    ops = ns.jax.ops
    flat, unravel = ns.ravel_pytree({'w': x, 'b': (np.arange(3, dtype=np.int32), 2.5)})
    one_dtype, unravel_any_dtype = ns.ravel_pytree([x, x[0]])  # keeps the vector's dtype
    return (ops.segment_sum(x, ids, 3), ops.segment_max(x[:, 0], ids, num_segments=4),
            ops.segment_min(x, ids, 3), ops.segment_prod(x[:, 1], ids, 3),
            ns.jax.jit(lambda x: ops.segment_sum(x, ids, num_segments=3))(x),
            flat, unravel(flat * 2), unravel_any_dtype(one_dtype.astype(np.float32)))


def _initializers(ns, key_seed):
    """Every draw in one jit (one compile each side: eager draws would compile op by op)."""
    ini = ns.jax.nn.initializers
    inits = [ini.glorot_normal(), ini.he_uniform(), ini.constant(3.0),
             ini.variance_scaling(0.5, 'fan_geo_avg', 'normal', in_axis=0, out_axis=(1, 2)),
             ini.orthogonal(), ini.orthogonal(2.0, column_axis=0), ini.delta_orthogonal(0.5),
             ini.glorot_uniform(), ini.xavier_normal(), ini.kaiming_normal(),
             ini.kaiming_uniform(), ini.lecun_normal()]
    assert all(isinstance(init, ini.Initializer) for init in inits)
    draw = ns.jax.jit(lambda key: [init(key, (3, 2, 4)) for init in inits]
                      + [ini.zeros(key, (2,), np.float32)])
    return draw(ns.jax.random.PRNGKey(key_seed))


def _einsum_sublists(ns, x):
    return (ns.jnp.einsum(x, [0, 1], x, [2, 1], [0, 2]), ns.jnp.einsum(x, [0, 1], x, [0, 1]),
            ns.jnp.einsum(x, [Ellipsis, 1], [Ellipsis]))


@pytest.mark.parametrize('program', [_lax_conveniences, _at_apply_and_unroll,
                                     _segments_and_raveling, _einsum_sublists])
def test_ported_program_names_against_jax(program):
    from jax.flatten_util import ravel_pytree

    from minijax.flatten_util import ravel_pytree as mj_ravel_pytree
    x = normal(7, 3, 4)
    mine = program(types.SimpleNamespace(**vars(MJ), ravel_pytree=mj_ravel_pytree), x)
    theirs = jax_answer(lambda x: program(
        types.SimpleNamespace(**vars(JX), ravel_pytree=ravel_pytree), x), x)
    for m, t in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs), strict=True):
        assert_close(m, t)


def test_nn_initializers_draw_jax_weights():
    both(_initializers, 3)


def test_all_leaves_and_traced_slice_bounds_as_jax():
    cases = [[mnp.ones(2), 3.0], [[1]], [None], [(1, 2)]]
    assert [minijax.tree_util.all_leaves(c) for c in cases] == \
        [jax.tree_util.all_leaves(c) for c in cases]
    for index in [lambda i: np.s_[:i], lambda i: np.s_[1, i::2]]:
        errors = []
        for ns in (minijax, jax):
            with pytest.raises(IndexError) as info:
                ns.jit(lambda x, i: x[index(i)])(np.ones((2, 5)), 1)
            errors.append(str(info.value).split(' Got ')[0] + str(info.value)[-14:])
        assert errors[0] == errors[1]


# ----------------------------------------------------------------------------- jax.dtypes

DTYPE_QUERIES = {
    'result_type_weak': lambda d, np_: d.result_type(2, 3.0, return_weak_type_flag=True),
    'result_type_mixed': lambda d, np_: d.result_type(np.int8, 1, np.uint8),
    'result_type_array': lambda d, np_: d.result_type(np_.ones(2, 'float32'), 2.0, 'int16'),
    'result_type_bf16': lambda d, np_: d.result_type(np_.bfloat16, np.float16,
                                                      return_weak_type_flag=True),
    'canonicalize': lambda d, np_: [d.canonicalize_dtype(t) for t in
                                    (np.float64, 'int32', np.uint8, bool)],
    'itemsize_bits': lambda d, np_: [d.itemsize_bits(t) for t in
                                     (np.int8, 'bool', np_.bfloat16, np.complex128)],
    'iinfo': lambda d, np_: [d.iinfo(t) for t in (np.int8, np.uint64)],
    'scalar_type_of': lambda d, np_: [d.scalar_type_of(x) for x in (
        np.bool_(1), 1j, np.uint8(1), np.float32(2), np_.arange(3), np_.bfloat16(1))],
}


@pytest.mark.parametrize('query', DTYPE_QUERIES)
def test_dtypes_queries_match_jax(query):
    mine = DTYPE_QUERIES[query](minijax.dtypes, mnp)
    theirs = DTYPE_QUERIES[query](jax.dtypes, jnp)
    assert repr(mine) == repr(theirs)


@pytest.mark.parametrize('query', [
    lambda d: d.result_type(), lambda d: d.scalar_type_of('abc'),
    lambda d: d.canonicalize_dtype(d.result_type(
        (minijax if d is minijax.dtypes else jax).random.key(0)))],
    ids=['no_arguments', 'a_string', 'a_key_dtype'])
def test_dtypes_refuse_as_jax(query):
    with pytest.raises(Exception) as theirs:
        query(jax.dtypes)
    with pytest.raises(type(theirs.value)):
        query(minijax.dtypes)
    assert issubclass(minijax.dtypes.TypePromotionError, ValueError)


def test_typing_annotations_accept_what_jax_typing_does():
    """``minijax.typing`` names the same kinds of values as ``jax.typing``."""
    import typing
    mine, theirs = typing.get_args(minijax.typing.ArrayLike), typing.get_args(jax.typing.ArrayLike)
    assert [t.__name__ for t in mine[1:]] == [t.__name__ for t in theirs[1:]]
    assert mine[0] is minijax.Array and isinstance(mnp.ones(2), mine[0])
    assert len(typing.get_args(minijax.typing.DTypeLike)) == \
        len(typing.get_args(jax.typing.DTypeLike))


STATES = ['debug_infs', 'debug_nans', 'default_device', 'default_matmul_precision',
          'enable_x64', 'explain_cache_misses', 'log_compiles', 'numpy_rank_promotion']


@pytest.mark.parametrize('name', STATES)
def test_config_states_read_and_set_as_jax(name):
    """``jax.<flag>``: ``.value`` is JAX's default (x64 on), and ``with jax.<flag>(v)`` sets
    it within the block only; minijax refuses a value it does not support, saying why."""
    mine, theirs = getattr(minijax, name), getattr(jax, name)
    assert mine.value == theirs.value
    value = {'explain_cache_misses': True, 'log_compiles': True}.get(name, theirs.value)
    with mine(value), theirs(value):
        assert mine.value == theirs.value == value
    assert mine.value == theirs.value


def test_a_config_state_refuses_what_minijax_does_not_do():
    with pytest.raises(NotImplementedError, match='does not check that PRNG keys are used once'):
        with minijax.debug_key_reuse(True):
            pass
    assert minijax.debug_key_reuse.value is False


def test_checkify_imports_and_each_name_says_why_it_is_unsupported():
    """``from jax.experimental import checkify`` (the checkify guide's import) succeeds, and
    each of JAX's checkify names is an error giving the reason and the alternatives."""
    import jax.experimental.checkify as theirs

    from minijax.experimental import checkify
    from minijax.unsupported import UNSUPPORTED
    names = [n for n in dir(theirs) if not n.startswith('_')]
    assert sorted(UNSUPPORTED['jax.experimental.checkify']) == names
    for name in names:
        with pytest.raises(AttributeError, match='jax_debug_nans'):
            getattr(checkify, name)
