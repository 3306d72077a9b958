"""``jax.scipy.stats.gaussian_kde``: a Gaussian kernel density estimate, a pytree (so it
passes through jit and vmap) as in JAX, with the bandwidth fixed when it is built."""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import core, dtypes, random
from minijax import numpy as jnp
from minijax.interpreters.batching import vmap
from minijax.jit import jit
from minijax.numpy import _promote_inexact
from minijax.tree_util import register_pytree_node_class

__all__ = ['gaussian_kde']


@register_pytree_node_class
class gaussian_kde:  # noqa: N801 (SciPy's name)
    """A Gaussian kernel density estimate of ``dataset`` (``[n]`` or ``[d, n]``), the kernel's
    covariance the data's (weighted) times ``factor^2``: Scott's or Silverman's rule, a
    scalar, or a callable of the estimate."""

    __slots__ = ('neff', 'dataset', 'weights', 'covariance', 'inv_cov')

    def __init__(self, dataset, bw_method=None, weights=None):
        from minijax.scipy.linalg import inv  # (linalg is a sibling that imports stats' deps)
        dataset = jnp.atleast_2d(dataset)
        if dtypes.is_complex(core.get_aval(dataset).dtype):
            raise NotImplementedError('gaussian_kde does not support complex data')
        if not dataset.size > 1:
            raise ValueError('`dataset` input should have multiple elements.')
        d, n = dataset.shape
        if weights is not None:
            dataset, weights = _promote_inexact(dataset, weights)
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError('`weights` input should be one-dimensional.')
            if len(weights) != n:
                raise ValueError('`weights` input should be of length n')
        else:
            dataset, = _promote_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self._set(dataset=dataset, weights=weights, neff=1 / jnp.sum(weights ** 2))
        bw_method = 'scott' if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == 'scott':
            factor = jnp.power(self.neff, -1. / (d + 4))
        elif isinstance(bw_method, str) and bw_method == 'silverman':
            factor = jnp.power(self.neff * (d + 2) / 4.0, -1. / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                             "callable.")
        data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False,
                                                 aweights=weights))
        self._set(covariance=data_covariance * factor ** 2,
                  inv_cov=inv(data_covariance) / factor ** 2)

    def _set(self, **fields):
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        kde._set(**dict(zip(cls.__slots__, children)))
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The density at ``points`` (``[d, m]``, or ``[m]`` for one dimension)."""
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset.T, self.weights[:, None], points.T,
                           self.inv_cov)[:, 0]

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """The density (``evaluate``)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log density, by ``logsumexp`` over the kernels."""
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset.T, self.weights[:, None], x.T,
                           self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times a Gaussian of ``mean`` and ``cov``."""
        mean, cov = jnp.atleast_1d(jnp.squeeze(mean)), jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f'mean does not have dimension {self.d}')
        if cov.shape != (self.d, self.d):
            raise ValueError(f'covariance does not have dimension {self.d}')
        chol, norm = _factor(self.covariance + cov, self.d)
        return _kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        """The probability of ``[low, high]`` (one dimension)."""
        from minijax.scipy.special import ndtr
        if self.d != 1:
            raise ValueError('integrate_box_1d() only handles 1D pdfs')
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError('the limits of integration in integrate_box_1d must be scalars')
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (ndtr(high) - ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of two estimates' densities."""
        if other.d != self.d:
            raise ValueError('KDEs are not the same dimensionality')
        chol, norm = _factor(self.covariance + other.covariance, self.d)
        small, large = (self, other) if self.n < other.n else (other, self)
        result = vmap(partial(_kernel_convolve, chol, norm, large.dataset, large.weights),
                      in_axes=1)(small.dataset)
        return jnp.sum(result * small.weights)

    @partial(jit, static_argnames=('shape',))
    def resample(self, key, shape=()):
        """``[d, *shape]`` draws: a data point chosen by weight plus a kernel's noise."""
        index_key, noise_key = random.split(key)
        index = random.choice(index_key, self.n, shape=shape, p=self.weights)
        noise = random.multivariate_normal(noise_key, jnp.zeros(self.d, self.covariance.dtype),
                                           self.covariance, shape=shape,
                                           dtype=self.dataset.dtype).T
        return self.dataset[:, index] + noise

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not in JAX either: use ``integrate_box_1d``."""
        raise NotImplementedError('only 1D box integrations are supported; use '
                                  '`integrate_box_1d`')

    def set_bandwidth(self, bw_method=None):
        """Not in JAX either: the bandwidth is fixed when the estimate is built."""
        raise NotImplementedError('dynamically changing the bandwidth method is not supported')

    def _reshape_points(self, points):
        if dtypes.is_complex(core.get_aval(jnp.asarray(points)).dtype):
            raise NotImplementedError('gaussian_kde does not support complex coordinates')
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f'points have dimension {d}, dataset has dimension {self.d}')
        return points


def _factor(covariance, d):
    """The Cholesky factor of a Gaussian's covariance and its normalization."""
    from minijax.scipy.linalg import cho_factor
    chol = cho_factor(covariance)
    return chol, 1.0 / (jnp.sqrt(2 * np.pi) ** d * jnp.prod(jnp.diag(chol[0])))


def _kernel_convolve(chol, norm, target, weights, mean):
    from minijax.scipy.linalg import cho_solve
    diff = target - mean[:, None]
    arg = 0.5 * jnp.sum(diff * cho_solve(chol, diff), axis=0)
    return norm * jnp.sum(jnp.exp(-arg) * weights)


@partial(jit, static_argnums=0)
def _kernel_sum(in_log, points, values, xi, precision):
    """Per row of ``xi``, the weighted sum (or logsumexp) of the Gaussian kernels centred on
    ``points``, in coordinates whitened by the precision's Cholesky factor."""
    from minijax.scipy.linalg import cholesky
    from minijax.scipy.special import logsumexp
    points, values, xi, precision = _promote_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError('points and xi must have same trailing dim')
    if precision.shape != (d, d):
        raise ValueError('precision matrix must match data dims')
    whitening = cholesky(precision, lower=True)
    points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
        return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)
    reduce = logsumexp if in_log else jnp.sum
    return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),
                                 axis=0))(xi)
