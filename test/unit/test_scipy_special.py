"""``minijax.scipy.special`` against ``jax.scipy.special`` (x64): each function's values under
jit over its intervals and edges (one program per function), its gradient where JAX
differentiates it, and JAX's errors for bad input."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as mnp
import minijax.scipy.special as ms

JS = jax.scipy.special
EDGES = np.array([0., -0., 1e-3, 0.5, 1., 2., 3.3, 6.3, 70., 1e10, np.inf, -np.inf, np.nan])


def _wide(rng):
    """Both signs over several magnitudes, and the edges."""
    return np.concatenate([rng.uniform(-30, 30, 24), rng.uniform(-3, 3, 12), EDGES, -EDGES])


def _positive(rng):
    return np.concatenate([rng.uniform(0, 30, 20), rng.uniform(0, 2, 10), np.abs(EDGES)])


def _pair(rng, low=-4, high=6):
    return rng.uniform(low, high, (3, 5)), rng.uniform(0.1, 3, (3, 5))


def _complex(rng):
    return (rng.normal(size=12) * 4 + 1j * rng.normal(size=12) * 4).astype(np.complex128)


#: name -> (arguments from the seeded rng, static keyword arguments)
VALUE_CASES = {
    'gammasgn': (lambda r: [np.array([-2., -1.5, -.5, -0., 0., 1.5, np.inf, -np.inf, np.nan])],
                 {}),
    'gamma': (lambda r: [_wide(r) / 5], {}),
    'loggamma': (lambda r: [_wide(r)], {}),
    'factorial': (lambda r: [np.concatenate([np.arange(-2., 25.), r.uniform(0, 10, 5)])], {}),
    'comb': (lambda r: [7., np.arange(-1., 9.)], {}),
    'comb-repetition': (lambda r: [np.arange(0., 6.), 3.], {'repetition': True}),
    'beta': (lambda r: list(_pair(r)), {}),
    'poch': (lambda r: list(_pair(r))[::-1], {}),
    'polygamma': (lambda r: [np.arange(4)[:, None], r.uniform(0.1, 5, (1, 5))], {}),
    'zeta': (lambda r: [r.uniform(1.1, 6, 8), r.uniform(0.1, 4, 8)], {}),
    'boxcox': (lambda r: [r.uniform(0.1, 4, (2, 4)), np.array([0., -1.5, .5, 2.])], {}),
    'boxcox1p': (lambda r: [r.uniform(-.9, 4, (2, 4)), np.array([0., -1.5, .5, 2.])], {}),
    'rel_entr': (lambda r: [np.array([0., 0., 1., -1., 2., 3.]),
                            np.array([0., 1., 0., 1., -1., .5])], {}),
    'kl_div': (lambda r: list(_pair(r, -1, 3)), {}),
    'erfcx': (lambda r: [_wide(r)], {}),
    'erfcx-complex': (lambda r: [_complex(r)], {}),
    'wofz': (lambda r: [_complex(r)], {}),
    'dawsn': (lambda r: [_wide(r)], {}),
    'expi': (lambda r: [_wide(r)], {}),
    'exp1': (lambda r: [_positive(r)], {}),
    'expn': (lambda r: [np.array([0, 1, 2, 3, 5, 6000, -1, 2]),
                        np.array([.5, 2., 0., 1.5, .3, 2., 1., -1.])], {}),
    'sici': (lambda r: [_wide(r)], {}),
    'spence': (lambda r: [_positive(r)], {}),
    'bessel_jn': (lambda r: [r.uniform(0.1, 20, (3, 4))], {'v': 3}),
    'bessel_jn-n_iter': (lambda r: [r.uniform(0.1, 20, 5)], {'v': 0, 'n_iter': 30}),
}


def _name(case):
    return case.split('-')[0]


@pytest.mark.parametrize('case', VALUE_CASES)
def test_values_against_jax(case, rng):
    make, kwargs = VALUE_CASES[case]
    args = make(rng)
    mine = minijax.jit(lambda *a: getattr(ms, _name(case))(*a, **kwargs))(*args)
    theirs = jax.jit(lambda *a: getattr(JS, _name(case))(*a, **kwargs))(*args)
    for m, t in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs)):
        assert_close(m, t)


def test_eager_values_and_bernoulli(rng):
    """A function called eagerly (op by op), and ``bernoulli``'s numbers (static n)."""
    x, y = _pair(rng, 0.5, 4)
    assert_close(ms.kl_div(x, y), JS.kl_div(x, y))
    for n in (0, 2, 30):
        assert_close(minijax.jit(ms.bernoulli, static_argnums=0)(n),
                     jax.jit(JS.bernoulli, static_argnums=0)(n))


#: name -> (argument makers, which arguments are differentiated)
GRAD_CASES = {
    'gamma': (lambda r: [r.uniform(0.3, 4, 6)], (0,)),
    'beta': (lambda r: [r.uniform(0.3, 4, 6), r.uniform(0.3, 4, 6)], (0, 1)),
    'poch': (lambda r: [r.uniform(0.3, 4, 6), r.uniform(0.3, 4, 6)], (0, 1)),
    'zeta': (lambda r: [r.uniform(1.5, 5, 6), r.uniform(0.3, 4, 6)], (0, 1)),
    'boxcox': (lambda r: [r.uniform(0.3, 4, 6), r.uniform(-1, 2, 6)], (0, 1)),
    'kl_div': (lambda r: [r.uniform(0.3, 4, 6), r.uniform(0.3, 4, 6)], (0, 1)),
    'erfcx': (lambda r: [r.uniform(-3, 30, 6)], (0,)),
    'dawsn': (lambda r: [r.uniform(-8, 8, 6)], (0,)),
    'expi': (lambda r: [r.uniform(-5, 80, 6)], (0,)),
    'exp1': (lambda r: [r.uniform(0.1, 5, 6)], (0,)),
    'spence': (lambda r: [r.uniform(0.1, 5, 6)], (0,)),
}


@pytest.mark.parametrize('name', GRAD_CASES)
def test_grads_against_jax(name, rng):
    make, argnums = GRAD_CASES[name]
    args = make(rng)

    def loss(ns, f):
        return lambda *a: ns.sum(f(*a))
    assert_close(minijax.jit(minijax.grad(loss(mnp, getattr(ms, name)), argnums))(*args),
                 jax.jit(jax.grad(loss(jnp, getattr(JS, name)), argnums))(*args))


#: the functions of several outputs or a static argument, as losses of x
LOSSES = [lambda s, x: s.sici(x)[0], lambda s, x: s.sici(x)[1], lambda s, x: s.expn(3, x),
          lambda s, x: s.bessel_jn(x, v=2)]


def test_grads_of_sici_expn_and_wofz(rng):
    x = rng.uniform(0.2, 12, 6)
    for f in LOSSES:
        assert_close(minijax.jit(minijax.grad(lambda x: mnp.sum(f(ms, x))))(x),
                     jax.jit(jax.grad(lambda x: jnp.sum(f(JS, x))))(x))
    z = _complex(rng)[:4]
    tangent = np.ones_like(z)
    assert_close(minijax.jit(lambda z: minijax.jvp(ms.wofz, (z,), (tangent,))[1])(z),
                 jax.jit(lambda z: jax.jvp(JS.wofz, (z,), (tangent,))[1])(z))


#: (call, exception type JAX raises)
BAD_INPUTS = {
    'gammasgn-complex': (lambda s: s.gammasgn(1j), ValueError),
    'beta-complex': (lambda s: s.beta(1j, 1.), ValueError),
    'rel_entr-complex': (lambda s: s.rel_entr(1j, 1.), ValueError),
    'kl_div-complex': (lambda s: s.kl_div(1j, 1.), ValueError),
    'dawsn-complex': (lambda s: s.dawsn(1j), ValueError),
    'expi-complex': (lambda s: s.expi(1j), ValueError),
    'exp1-complex': (lambda s: s.exp1(1j), ValueError),
    'expn-complex': (lambda s: s.expn(1, 1j), ValueError),
    'sici-complex': (lambda s: s.sici(1j), ValueError),
    'polygamma-float-n': (lambda s: s.polygamma(1., 2.), ValueError),
    'zeta-riemann': (lambda s: s.zeta(2.), NotImplementedError),
    'factorial-exact': (lambda s: s.factorial(3, exact=True), NotImplementedError),
    'spence-int': (lambda s: s.spence(np.arange(3)), TypeError),
    'bernoulli-negative': (lambda s: s.bernoulli(-1), ValueError),
    'bessel_jn-complex': (lambda s: s.bessel_jn(np.ones(2) * 1j, v=1), ValueError),
}


@pytest.mark.parametrize('case', BAD_INPUTS)
def test_bad_input_raises_jax_exception_type(case):
    call, error = BAD_INPUTS[case]
    with pytest.raises(error):
        call(JS)
    with pytest.raises(error):
        call(ms)
