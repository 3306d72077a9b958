"""minijax.scipy.stats: the distributions of ``jax.scipy.stats`` that programs use most, each
a module of functions (``norm.logpdf(x, loc, scale)``...) written as JAX writes them."""
from minijax.scipy.stats import (bernoulli, beta, cauchy, expon, gamma, laplace, logistic,
                                 multivariate_normal, norm, poisson, t, uniform)

__all__ = ['bernoulli', 'beta', 'cauchy', 'expon', 'gamma', 'laplace', 'logistic',
           'multivariate_normal', 'norm', 'poisson', 't', 'uniform']
