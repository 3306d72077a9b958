"""``minijax.scipy.special`` against ``jax.scipy.special`` (x64): each function's values under
jit over its intervals and edges (one program per function), in float32 under vmap, its
gradient where JAX differentiates it, and JAX's errors for bad input."""
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


def _hyp1f1_grid(rng, dtype=np.float64):
    """a, b over zeros, integers (negative too) and fractions; x over both signs, past the
    switch to the asymptotic expansion at |x| = 100, infinities and NaN."""
    parameters = np.array([0., 1., -1., 2., -2.5, .5, 3.2, 10.])
    x = np.concatenate([EDGES[:10], -EDGES[:10], [150., -150., np.inf, -np.inf, np.nan],
                        rng.uniform(-5, 5, 6)])
    return [g.astype(dtype) for g in np.meshgrid(parameters, parameters, x, indexing='ij')]


def _hyp2f1_grid(rng, dtype=np.float64):
    """a, b, c over zeros, negative integers (terminating series, poles of c) and fractions,
    so c - a - b is an integer or not; x on both sides of 0.9 and 1, at 1, NaN and -inf."""
    parameters = np.array([0., 1., -1., 2., -3., .5, 3.2, 1.5, -.5])
    x = np.array([0., .3, -.4, .95, .999, 1., 1.5, -3., rng.uniform(.9, 1), np.nan, -np.inf])
    return [g.astype(dtype) for g in np.meshgrid(parameters, parameters, parameters, x,
                                                 indexing='ij')]


def _fresnel_points(rng):
    """``_wide`` and the switches of Cephes' intervals: x^2 = 2.5625 and x = 36974."""
    return np.concatenate([_wide(rng), [1.6, 1.6007, -1.6007, 36974., 36975., 1e5]])


def _owens_t_pairs(rng):
    """h and a over both signs, |a| on both sides of 1 and at 1, h = 0, a h on both sides of
    0.67 (two forms beyond |a| = 1), infinities and NaN."""
    h = np.concatenate([rng.uniform(-5, 5, 16), [0., 0., 1., 2., .3, .3, 3., -2., np.nan, 1.,
                                                 np.inf, 1., 0., 40.]])
    a = np.concatenate([rng.uniform(-5, 5, 16), [.5, 3., 1., -1., 2., 2.5, 2., .1, 1., np.nan,
                                                 1., np.inf, -np.inf, .5]])
    return h, a


def _float16(x):
    """``x`` in float16, the values beyond its range as infinities of their sign."""
    return np.where(np.abs(x) < 6e4, x, np.copysign(np.inf, x)).astype(np.float16)


#: every (degree, order) up to degree 6 once: the colatitude through the poles and the
#: equator, the longitude over a turn
SPH_N = np.repeat(np.arange(7), 2 * np.arange(7) + 1)
SPH_M = np.concatenate([np.arange(-k, k + 1) for k in range(7)])


def _sph_angles(rng):
    theta = rng.uniform(0, np.pi, SPH_N.size)
    theta[:4] = [0., np.pi, np.pi / 2, 1e-8]
    return [SPH_N, SPH_M, theta, rng.uniform(0, 2 * np.pi, SPH_N.size)]


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
    'fresnel': (lambda r: [_fresnel_points(r)], {}),
    'fresnel-float16': (lambda r: [_float16(_fresnel_points(r))], {}),
    'owens_t': (lambda r: list(_owens_t_pairs(r)), {}),
    'owens_t-int': (lambda r: [np.arange(-2, 3), 2], {}),
    'hyp1f1': (lambda r: _hyp1f1_grid(r), {}),
    'hyp2f1': (lambda r: _hyp2f1_grid(r), {}),
    'sph_harm_y': (lambda r: _sph_angles(r), {'n_max': 6}),
    'sph_harm_y-clipped': (lambda r: _sph_angles(r), {'n_max': 3}),
    'sph_harm_y-one_theta': (lambda r: [SPH_N, SPH_M, np.array([.7]), 1.2], {'n_max': 6}),
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


def _unbatched(args, i):
    """``args`` with the ``i``-th one's leading axis dropped (vmap's in_axes None)."""
    return [a[0] if j == i else a for j, a in enumerate(args)]


def _sph_angles_batch(rng):
    """Two sets of float32 angles stacked, for the same degrees and orders."""
    first, second = _sph_angles(rng), _sph_angles(rng)
    return [SPH_N, SPH_M] + [np.stack(pair).astype(np.float32)
                             for pair in zip(first[2:], second[2:])]


#: name -> (float32 arguments from the seeded rng, vmap's in_axes, static keyword arguments)
VMAP_CASES = {
    'fresnel': (lambda r: [_fresnel_points(r).astype(np.float32).reshape(2, -1)], 0, {}),
    'owens_t': (lambda r: [_owens_t_pairs(r)[0].astype(np.float32).reshape(2, -1),
                           np.float32(.7)], (0, None), {}),
    'hyp1f1': (lambda r: _unbatched(_hyp1f1_grid(r, np.float32), 1), (0, None, 0), {}),
    'hyp2f1': (lambda r: _unbatched(_hyp2f1_grid(r, np.float32), 2), (0, 0, None, 0), {}),
    'sph_harm_y': (_sph_angles_batch, (None, None, 0, 0), {'n_max': 6}),
}


@pytest.mark.parametrize('name', VMAP_CASES)
def test_float32_values_under_vmap(name, rng):
    """float32 (its own coefficients in ``fresnel``; float64 inside ``owens_t`` and the
    ``sph_harm_y`` sign, so their results are float64 and complex128 as in JAX), batched."""
    make, in_axes, kwargs = VMAP_CASES[name]
    args = make(rng)
    mine = minijax.jit(minijax.vmap(lambda *a: getattr(ms, name)(*a, **kwargs), in_axes))(*args)
    theirs = jax.jit(jax.vmap(lambda *a: getattr(JS, name)(*a, **kwargs), in_axes))(*args)
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
    'owens_t': (lambda r: [r.uniform(-3, 3, 6), r.uniform(-3, 3, 6)], (0, 1)),
    'hyp1f1': (lambda r: [r.uniform(0.2, 3, 6), r.uniform(0.5, 4, 6), r.uniform(-3, 3, 6)],
               (0, 1, 2)),
    'hyp2f1': (lambda r: [r.uniform(0.2, 3, 6), r.uniform(0.5, 4, 6), r.uniform(2, 5, 6),
                          r.uniform(-.8, .8, 6)], (0, 1, 2, 3)),
}


@pytest.mark.parametrize('name', GRAD_CASES)
def test_grads_against_jax(name, rng):
    make, argnums = GRAD_CASES[name]
    args = make(rng)

    def loss(ns, f):
        return lambda *a: ns.sum(f(*a))
    assert_close(minijax.jit(minijax.grad(loss(mnp, getattr(ms, name)), argnums))(*args),
                 jax.jit(jax.grad(loss(jnp, getattr(JS, name)), argnums))(*args))


#: the functions of several outputs, a static argument or a complex value, as losses of x
LOSSES = [lambda s, x: s.sici(x)[0], lambda s, x: s.sici(x)[1], lambda s, x: s.expn(3, x),
          lambda s, x: s.bessel_jn(x, v=2), lambda s, x: s.fresnel(x)[0] + 2 * s.fresnel(x)[1],
          lambda s, x: _real_and_imaginary(s.sph_harm_y(SPH_N[:6], SPH_M[:6], x, x[::-1],
                                                        n_max=2))]


def _real_and_imaginary(z):
    return z.real + 2 * z.imag


def test_grads_of_several_outputs_and_complex_functions(rng):
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
    'fresnel-complex': (lambda s: s.fresnel(1j), NotImplementedError),
    'hyp1f1-complex': (lambda s: s.hyp1f1(1., 2., 1j), ValueError),
    'hyp2f1-complex': (lambda s: s.hyp2f1(1., 1., 2., .5j), TypeError),
    'owens_t-shapes': (lambda s: s.owens_t(np.ones(2), np.ones(3)), TypeError),
    'sph_harm_y-diff_n': (lambda s: s.sph_harm_y(SPH_N, SPH_M, .3, .2, diff_n=1),
                          NotImplementedError),
    'sph_harm_y-scalar_n': (lambda s: s.sph_harm_y(1, 0, .3, .2), TypeError),
    'sph_harm_y-negative_n_max': (lambda s: s.sph_harm_y(SPH_N, SPH_M, .3, .2, n_max=-1),
                                  IndexError),
}


@pytest.mark.parametrize('case', BAD_INPUTS)
def test_bad_input_raises_jax_exception_type(case):
    call, error = BAD_INPUTS[case]
    with pytest.raises(error):
        call(JS)
    with pytest.raises(error):
        call(ms)
