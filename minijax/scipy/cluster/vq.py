"""``jax.scipy.cluster.vq.vq``: each observation's nearest code in a code book."""

from minijax import numpy as mnp
from minijax.interpreters import batching
from minijax.numpy import _promote_inexact

__all__ = ['vq']


def vq(obs, code_book, check_finite=True):
    """``(code, dist)``: the index of each observation's nearest code (rows of 2-d arrays,
    elements of 1-d ones) and its Euclidean distance; ``check_finite`` is ignored, as in
    JAX."""
    del check_finite
    obs, code_book = _promote_inexact(obs, code_book)
    if obs.ndim != code_book.ndim:
        raise ValueError('Observation and code_book should have the same rank')
    if obs.ndim == 1:
        obs, code_book = obs[..., None], code_book[..., None]
    if obs.ndim != 2:
        raise ValueError('ndim different than 1 or 2 are not supported')
    dist = batching.vmap(lambda ob: mnp.linalg.norm(ob[None] - code_book, axis=-1))(obs)
    code = mnp.argmin(dist, axis=-1)
    return code, mnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]
