"""minijax.scipy: the parts of ``jax.scipy`` that programs use most, on minijax.numpy.

``linalg``: SciPy's decompositions and solvers on the LAPACK kernels of ``lax.linalg``.
``special``: gammaln, digamma, betaln, erfinv, ndtri, log_ndtr, xlogy... (JAX's expansions).
``stats``: norm, multivariate_normal, uniform, expon, laplace, logistic, cauchy, t, gamma,
beta, bernoulli, poisson (densities; cdfs where they need no incomplete gamma or beta).
``signal``: convolve and correlate, direct.
"""
from minijax.scipy import linalg, signal, special, stats

__all__ = ['linalg', 'signal', 'special', 'stats']
