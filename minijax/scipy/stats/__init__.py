"""minijax.scipy.stats: the distributions of ``jax.scipy.stats``, each a module of functions
(``norm.logpdf(x, loc, scale)``...) computed with JAX's formulas; the summaries ``mode``,
``rankdata``, ``sem`` and the ``gaussian_kde`` estimator."""
from minijax.scipy.stats import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet,
                                 expon, gamma, gennorm, geom, gumbel_l, gumbel_r, laplace,
                                 logistic, multinomial, multivariate_normal, nbinom, norm,
                                 pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)
from minijax.scipy.stats._core import mode, rankdata, sem
from minijax.scipy.stats._kde import gaussian_kde

__all__ = ['gaussian_kde', 'mode', 'rankdata', 'sem', 'bernoulli', 'beta', 'betabinom',
           'binom', 'cauchy', 'chi2', 'dirichlet', 'expon', 'gamma', 'gennorm', 'geom',
           'gumbel_l', 'gumbel_r', 'laplace', 'logistic', 'multinomial', 'multivariate_normal',
           'nbinom', 'norm', 'pareto', 'poisson', 't', 'truncnorm', 'uniform', 'vonmises',
           'wrapcauchy']
