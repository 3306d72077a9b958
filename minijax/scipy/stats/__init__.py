"""minijax.scipy.stats: the distributions of ``jax.scipy.stats`` that programs use most, each
a module of functions (``norm.logpdf(x, loc, scale)``...) written as JAX writes them; the
summaries ``mode``, ``rankdata``, ``sem`` and the ``gaussian_kde`` estimator."""
from minijax.scipy.stats import (bernoulli, beta, cauchy, expon, gamma, laplace, logistic,
                                 multivariate_normal, norm, poisson, t, uniform)
from minijax.scipy.stats._core import mode, rankdata, sem
from minijax.scipy.stats._kde import gaussian_kde

__all__ = ['gaussian_kde', 'mode', 'rankdata', 'sem', 'bernoulli', 'beta', 'cauchy', 'expon',
           'gamma', 'laplace', 'logistic', 'multivariate_normal', 'norm', 'poisson', 't',
           'uniform']
