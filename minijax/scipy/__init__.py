"""minijax.scipy: the parts of ``jax.scipy`` that programs use most, on minijax.numpy.

``linalg``: SciPy's decompositions and solvers on the LAPACK kernels of ``lax.linalg``, and its
special matrices (``_matrices``).
``special``: gammaln, digamma, betaln, erfinv, ndtri, log_ndtr, xlogy, gamma, zeta, erfcx,
expi, expn, sici... (JAX's expansions; the rational approximations' tables in ``_cephes``).
``stats``: norm, multivariate_normal, uniform, expon, laplace, logistic, cauchy, t, gamma,
beta, bernoulli, poisson (densities; cdfs where they need no incomplete gamma or beta); the
summaries mode, rankdata, sem, and gaussian_kde.
``signal``: convolve and correlate (direct or by FFT), detrend, stft/istft, csd, welch.
``fft``: the type-2 DCT and its inverse. ``integrate``: trapezoid. ``ndimage``:
map_coordinates (orders 0 and 1). ``optimize``: minimize by BFGS.
"""
from minijax.scipy import fft, integrate, linalg, ndimage, optimize, signal, special, stats

__all__ = ['fft', 'integrate', 'linalg', 'ndimage', 'optimize', 'signal', 'special', 'stats']
