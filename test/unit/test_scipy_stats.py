"""``scipy.stats``' distributions against JAX (x64), eagerly: one row of the table per family
(its functions, each at seeded points and parameters), gradients for some continuous ones,
JAX's errors for the multivariate ones' bad shapes. JAX's answers are jitted, one program
per row (``testlib.jax_answer``)."""
import jax
import jax.scipy.stats as jst
import numpy as np
import pytest
from testlib import assert_close, jax_answer

import minijax
import minijax.scipy.stats as mst

CDFS = ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf')


def _points(rng, low, high, n=6):
    return rng.uniform(low, high, n)


def _counts(rng, high, n=6):
    return rng.integers(-1, high, n).astype(float)


#: family -> (its functions, ``rng -> args`` for each of them).
DISTRIBUTIONS = {
    'beta': (CDFS, lambda r: (_points(r, -.2, 1.2), r.uniform(.5, 3, 6), 2.5)),
    'beta-loc-scale': (CDFS[2:], lambda r: (_points(r, 0, 5), 2., 3., 1., 3.)),
    'gamma': (CDFS, lambda r: (_points(r, -1, 8), r.uniform(.5, 4, 6))),
    'gamma-loc-scale': (CDFS[2:], lambda r: (_points(r, -1, 8), 2.5, -.5, 2.)),
    'chi2': (CDFS, lambda r: (_points(r, .1, 9), r.uniform(1, 6, 6))),
    'chi2-loc-scale': (CDFS, lambda r: (_points(r, -2, 9), 3., -1., 1.5)),
    'poisson': (('cdf', 'logpmf'), lambda r: (_counts(r, 8), r.uniform(.5, 5, 6))),
    'poisson-entropy': (('entropy',), lambda r: (np.array([0., .3, 4., 9.5, 25., 150.]),)),
    'binom': (('logpmf', 'pmf'), lambda r: (_counts(r, 8), 6., r.uniform(.1, .9, 6))),
    'betabinom': (('logpmf', 'pmf'), lambda r: (_counts(r, 8), 6., 1.5, r.uniform(.5, 3, 6))),
    'nbinom': (('logpmf', 'pmf'), lambda r: (_counts(r, 8), 3., r.uniform(.1, .9, 6))),
    'geom': (('logpmf', 'pmf'), lambda r: (_counts(r, 8), r.uniform(.1, .9, 6))),
    'gennorm': (('logpdf', 'pdf', 'cdf'), lambda r: (_points(r, -3, 3), r.uniform(.5, 3, 6))),
    'gumbel_l': (CDFS, lambda r: (_points(r, -4, 3), .5, 1.5)),
    'gumbel_r': (CDFS, lambda r: (_points(r, -3, 4), .5, 1.5)),
    'gumbel_l-ppf': (('ppf',), lambda r: (_points(r, 0, 1), .5, 1.5)),
    'gumbel_r-ppf': (('ppf',), lambda r: (_points(r, 0, 1), .5, 1.5)),
    'pareto': (CDFS, lambda r: (_points(r, .5, 6), r.uniform(.5, 3, 6), -.5, 1.5)),
    'pareto-ppf': (('ppf',), lambda r: (np.array([-.1, 0, .3, .7, 1, 1.1]), 2., 1., 2.)),
    # the middle, both tails and both sides of the switch to the survival side, in one call
    'truncnorm': (CDFS, lambda r: (np.r_[_points(r, -3, 3), _points(r, -9, 9)],
                                   np.r_[-1., -1, -1, -1, -9, 5, 3, -8, 2, -.5, -2, 1],
                                   np.r_[r.uniform(.5, 4, 4), -7, 9, 4, -6, 9, .5, 3, 2],
                                   .2, 1.3)),
    'vonmises': (('logpdf', 'pdf'), lambda r: (_points(r, -4, 4), r.uniform(-1, 30, 6))),
    'wrapcauchy': (('logpdf', 'pdf'), lambda r: (_points(r, -1, 7), r.uniform(-.2, 1, 6))),
    'dirichlet': (('logpdf', 'pdf'), lambda r: (r.dirichlet([1., 2, 3], 4).T, r.uniform(.5, 3, 3))),
    'dirichlet-dropped': (('logpdf',), lambda r: (r.dirichlet([1., 2, 3], 4).T[:2],
                                                  np.array([1., 2, 3]))),
    'multinomial': (('logpmf', 'pmf'), lambda r: (np.array([1, 3, 2]), 6, r.dirichlet([1.] * 3))),
    'multinomial-off': (('logpmf',), lambda r: (np.array([1, 3, 2]), 5, r.dirichlet([1.] * 3))),
}


@pytest.mark.parametrize('row', DISTRIBUTIONS)
def test_distribution_against_jax(row, rng):
    family = row.split('-')[0]
    names, make_args = DISTRIBUTIONS[row]
    args = make_args(rng)
    theirs = jax_answer(lambda *a: [getattr(getattr(jst, family), name)(*a) for name in names],
                        *args)
    for name, expected in zip(names, theirs, strict=True):
        assert_close(getattr(getattr(mst, family), name)(*args), expected)


#: (family, function, differentiated argument's index, args).
GRADIENTS = [('gamma', 'cdf', 0, (np.array([.5, 2., 6.]), 2.5)),
             ('beta', 'sf', 0, (np.array([.1, .5, .8]), 2., 3.)),
             ('chi2', 'logpdf', 1, (np.array([.5, 2., 6.]), np.array([1.5, 3., 4.]))),
             ('truncnorm', 'logpdf', 0, (np.array([-.5, .2, 1.]), -1., 2.)),
             ('gumbel_l', 'logsf', 0, (np.array([-2., 0., 1.]), .3, 1.2)),
             ('pareto', 'logpdf', 1, (np.array([1.5, 2., 6.]), np.array([.5, 2., 3.]))),
             ('vonmises', 'logpdf', 1, (np.array([-1., .5, 2.]), np.array([.5, 2., 40.])))]


@pytest.mark.parametrize('family, name, argnum, args', GRADIENTS,
                         ids=[f'{f}.{n}' for f, n, *_ in GRADIENTS])
def test_gradient_against_jax(family, name, argnum, args):
    def gradient(stats, grad):
        function = getattr(getattr(stats, family), name)
        return lambda *args: grad(lambda *a: function(*a).sum(), argnum)(*args)
    assert_close(gradient(mst, minijax.grad)(*args), jax_answer(gradient(jst, jax.grad), *args))


BAD_INPUTS = {
    'dirichlet-alpha-2d': lambda st: st.dirichlet.logpdf(np.full(3, 1 / 3), np.ones((3, 1))),
    'dirichlet-x-length': lambda st: st.dirichlet.logpdf(np.full(5, .2), np.ones(3)),
    'multinomial-float-counts': lambda st: st.multinomial.logpmf(np.ones(3), 3., np.ones(3) / 3),
}


@pytest.mark.parametrize('case', BAD_INPUTS)
def test_bad_input_raises_jaxs_error(case):
    with pytest.raises(Exception) as theirs:
        BAD_INPUTS[case](jst)
    with pytest.raises(type(theirs.value)) as mine:
        BAD_INPUTS[case](mst)
    assert str(mine.value) == str(theirs.value)
