"""``minijax.random``'s samplers stage JAX's jaxprs: over the sampler tables of
``test_random`` (and a row per sampler of its own), the text ``make_jaxpr`` prints is JAX's,
nested jits (names, arguments) and equations alike. Tracing only: nothing is compiled.

The rows that still differ are listed in ``DIFFERING``, each with its reason; a test checks
that each listed row really differs, so that the list shrinks as samplers are brought to
JAX's form.
"""
import jax
import jax.random as jr
import numpy as np
import pytest

import minijax
import minijax.random as mr

import test_random  # noqa: F401  (also: JAX with x64, as minijax computes)

#: One row per sampler, at small shapes and default parameters.
EACH = {
    'uniform': lambda r, k: r.uniform(k, (3,)),
    'uniform-scalar': lambda r, k: r.uniform(k),
    'normal': lambda r, k: r.normal(k, (3,)),
    'randint': lambda r, k: r.randint(k, (3,), 0, 10),
    'bernoulli': lambda r, k: r.bernoulli(k, 0.3, (3,)),
    'bernoulli-high': lambda r, k: r.bernoulli(k, 0.3, (3,), mode='high'),
    'permutation': lambda r, k: r.permutation(k, 5),
    'exponential': lambda r, k: r.exponential(k, (3,)),
    'laplace': lambda r, k: r.laplace(k, (3,)),
    'logistic': lambda r, k: r.logistic(k, (3,)),
    'cauchy': lambda r, k: r.cauchy(k, (3,)),
    'gumbel': lambda r, k: r.gumbel(k, (3,)),
    'categorical': lambda r, k: r.categorical(k, np.zeros(4)),
    'categorical-no-replace': lambda r, k: r.categorical(k, np.zeros((2, 4)), shape=(3, 2),
                                                         replace=False),
    'choice': lambda r, k: r.choice(k, 5, (2,)),
    'truncated_normal': lambda r, k: r.truncated_normal(k, -1., 1., (3,)),
    'split': lambda r, k: r.split(k),
    'fold_in': lambda r, k: r.fold_in(k, 3),
    'bits': lambda r, k: r.bits(k, (3,)),
    'rademacher': lambda r, k: r.rademacher(k, (3,)),
    'maxwell': lambda r, k: r.maxwell(k, (3,)),
    'pareto': lambda r, k: r.pareto(k, 2., (3,)),
    'beta': lambda r, k: r.beta(k, 2., 3., (3,)),
    'ball': lambda r, k: r.ball(k, 3),
    'orthogonal': lambda r, k: r.orthogonal(k, 3),
    'rayleigh': lambda r, k: r.rayleigh(k, 1., (3,)),
    'wald': lambda r, k: r.wald(k, 1., (3,)),
    'geometric': lambda r, k: r.geometric(k, 0.5, (3,)),
    'lognormal': lambda r, k: r.lognormal(k, 1., (3,)),
    'triangular': lambda r, k: r.triangular(k, 0., 0.5, 1., (3,)),
    'weibull_min': lambda r, k: r.weibull_min(k, 1., 1., (3,)),
    'double_sided_maxwell': lambda r, k: r.double_sided_maxwell(k, 0., 1., (3,)),
    'chisquare': lambda r, k: r.chisquare(k, 2., (3,)),
    'f': lambda r, k: r.f(k, 2., 3., (3,)),
    't': lambda r, k: r.t(k, 2., (3,)),
    'poisson': lambda r, k: r.poisson(k, 2., (3,)),
    'gamma': lambda r, k: r.gamma(k, 2., (3,)),
    'loggamma': lambda r, k: r.loggamma(k, 2., (3,)),
    'dirichlet': lambda r, k: r.dirichlet(k, np.ones(3)),
    'multivariate_normal': lambda r, k: r.multivariate_normal(k, np.zeros(2), np.eye(2)),
    'generalized_normal': lambda r, k: r.generalized_normal(k, 2., (3,)),
    'binomial': lambda r, k: r.binomial(k, 5., 0.3, (3,)),
    'multinomial': lambda r, k: r.multinomial(k, 5., np.array([.6, .4])),
    'shuffle-axis': lambda r, k: r.permutation(k, np.arange(6.).reshape(2, 3), axis=1),
}

ROWS = {**{f'each:{name}': row for name, row in EACH.items()},
        **{f'samplers:{name}': row for name, row in test_random.SAMPLERS.items()},
        **{f'distributions:{name}': row for name, row in test_random.DISTRIBUTIONS.items()},
        **{f'derived:{name}': row for name, row in test_random.DERIVED.items()}}

_TAKE = "jnp.take is not yet JAX's jit _take (minijax.numpy's gather)"
_CONSTS = ("a while body's closed-over values: minijax puts its constants (the Stirling "
           "table) before the outer tracers, JAX orders them by first use")
_LINALG = "jnp.linalg.qr and diagonal are not yet JAX's jits"
_EINSUM = "jnp.einsum contracts in another order (dot_general's operands and a transpose)"

DIFFERING = {
    'each:ball': "jnp.power with a traced integer exponent: JAX's pow keeps it an integer, "
                 "minijax's converts it to a float",
    'each:orthogonal': _LINALG,
    'each:binomial': _CONSTS,
    'each:multinomial': _CONSTS,
    'each:shuffle-axis': _TAKE,
    'samplers:bernoulli-p-array': "lax.convert_element_type of a NumPy constant to its own "
                                  "dtype stages an equation; JAX's folds it away",
    'samplers:permutation-axis1': _TAKE,
    'samplers:choice-array-axis1': _TAKE,
    'samplers:choice-p': "jnp.searchsorted is not yet JAX's (its scan method's while loop)",
    'distributions:multivariate_normal': _EINSUM,
    'derived:orthogonal': _LINALG,
    'derived:orthogonal-wide': _LINALG,
    'derived:binomial': _CONSTS,
    'derived:multinomial': _CONSTS,
}


def _texts(row):
    """(minijax's jaxpr text, JAX's), traced from a raw key."""
    return (str(minijax.make_jaxpr(lambda k: row(mr, k))(mr.PRNGKey(0))),
            str(jax.make_jaxpr(lambda k: row(jr, k))(jr.PRNGKey(0))))


@pytest.mark.parametrize('name', [name for name in ROWS if name not in DIFFERING])
def test_jaxpr_is_jaxs(name):
    mine, theirs = _texts(ROWS[name])
    assert mine == theirs


@pytest.mark.parametrize('name', sorted(DIFFERING))
def test_listed_rows_still_differ(name):
    """A row listed in ``DIFFERING`` that now stages JAX's jaxpr must leave the list."""
    assert name in ROWS, f'{name} is no longer a row of the tables'
    mine, theirs = _texts(ROWS[name])
    assert mine != theirs, f"{name} now stages JAX's jaxpr: remove it from DIFFERING"
