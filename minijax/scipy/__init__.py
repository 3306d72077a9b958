"""minijax.scipy: the parts of ``jax.scipy`` that programs use most, on minijax.numpy.

``linalg``: SciPy's decompositions and solvers on the LAPACK kernels of ``lax.linalg``, and its
special matrices (``_matrices``).
``special``: gammaln, digamma, betaln, erfinv, ndtri, log_ndtr, xlogy, gamma, zeta, erfcx,
expi, expn, sici... (JAX's expansions; the rational approximations' tables in ``_cephes``).
``stats``: every distribution of ``jax.scipy.stats`` (norm, gamma, beta, chi2, truncnorm,
binom, poisson, dirichlet, multinomial...), one module each; the summaries mode, rankdata,
sem, and gaussian_kde.
``signal``: convolve and correlate (direct or by FFT), detrend, stft/istft, csd, welch.
``fft``: the type-2 DCT and its inverse. ``integrate``: trapezoid. ``ndimage``:
map_coordinates (orders 0 and 1). ``optimize``: minimize by BFGS. ``sparse.linalg``: the
Krylov solvers cg, bicgstab and gmres. ``cluster.vq``: vq. ``interpolate``:
RegularGridInterpolator. ``spatial.transform``: Rotation and Slerp.
"""
from minijax.scipy import (cluster, fft, integrate, interpolate, linalg, ndimage, optimize,
                           signal, sparse, spatial, special, stats)

__all__ = ['cluster', 'fft', 'integrate', 'interpolate', 'linalg', 'ndimage', 'optimize',
           'signal', 'sparse', 'spatial', 'special', 'stats']
