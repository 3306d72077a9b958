"""The spherical harmonics ``sph_harm_y``, as JAX computes them: every normalized associated
Legendre function up to a static degree ``n_max`` at ``cos(theta)`` by three recurrences (one
loop over the distance from the diagonal), then the ones asked for gathered and turned by
``exp(i m phi)``.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as jnp
from minijax.control_flow import fori_loop
from minijax.errors import ConcretizationTypeError
from minijax.jit import jit

__all__ = ['sph_harm_y']


def _recurrence_coefficients(l_max, dtype):
    """For the step ``i`` of the loop, ``(d0[i], d1[i])`` of shape ``(l_max + 1,) * 2``
    [order m, degree l]: the coefficients of ``x P_{l-1}^m`` and ``P_{l-2}^m`` in
    ``P_l^m``, set only where ``l = m + i`` (the entries that step computes)."""
    m, l = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype), jnp.arange(l_max + 1, dtype=dtype),
                        indexing='ij')
    l2, m2 = l * l, m * m
    d0 = jnp.sqrt((4.0 * l2 - 1.0) / (l2 - m2))
    d1 = jnp.sqrt(((2.0 * l + 1.0) * ((l - 1.0) * (l - 1.0) - m2))
                  / ((2.0 * l - 3.0) * (l2 - m2)))
    step = np.arange(l_max + 1)
    on_step = (step[:, None, None] + step[None, :, None]
               == step[None, None, :]).astype(dtype)  # [i, m, l]: l == m + i
    above = [np.triu(np.ones((l_max + 1, l_max + 1), bool), k) for k in (1, 2)]
    return (jnp.where(above[0], d0, 0.)[None] * on_step,
            jnp.where(above[1], d1, 0.)[None] * on_step)


@partial(jit, static_argnums=0)
def _normalized_legendre(l_max, x):
    """``P[m, l, k]``: the associated Legendre function of order m and degree l at
    ``x[k]``, normalized so the spherical harmonics are orthonormal (0 where ``m > l``): the
    diagonal ``l = m`` by a product, ``l = m + 1`` from it, the rest by the three-term
    recurrence in ``l``."""
    dtype = core.get_aval(x).dtype
    p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=dtype)
    start = 0.5 / jnp.sqrt(np.pi)
    f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / jnp.arange(1, l_max + 1, dtype=dtype)))
    f_b = jnp.sqrt(2.0 * jnp.arange(l_max, dtype=dtype) + 3.0)
    p = p.at[0, 0].set(start)
    sines = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    diagonal = np.arange(l_max + 1)
    p = p.at[diagonal[1:], diagonal[1:]].set(start * (f_a[:, None] * sines))
    p = p.at[diagonal[:-1], diagonal[:-1] + 1].set(
        (f_b[:, None] * x[None, :]) * p[diagonal[:-1], diagonal[:-1]])
    d0, d1 = _recurrence_coefficients(l_max, dtype)

    def step(i, p):
        return p + (d0[i][..., None] * (jnp.roll(p, 1, axis=1) * x)
                    - d1[i][..., None] * jnp.roll(p, 2, axis=1))
    p = p.astype(dtypes.result_type(p, x, d0))
    return fori_loop(2, l_max + 1, step, p) if l_max > 1 else p


@partial(jit, static_argnums=4)
def _sph_harm(n, m, theta, phi, n_max):
    legendre = _normalized_legendre(n_max, jnp.cos(theta))
    value = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode='clip')
    angle = abs(m) * phi
    turn = lax.complex(jnp.cos(angle), jnp.sin(angle))
    harmonics = lax.complex(value * jnp.real(turn), value * jnp.imag(turn))
    sign = (-1.0) ** abs(m)   # a strong float: float32 angles give complex128 results
    return jnp.where(m < 0, sign * jnp.conjugate(harmonics), harmonics)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics ``Y_n^m(theta, phi)`` (colatitude ``theta``, longitude
    ``phi``) for 1-D ``n`` and ``m``, ``|m| <= n``: the ``k``-th from ``theta[k]`` (clipped to
    its last). ``n_max`` (``max(n)`` by default, so it must be static) bounds the degree:
    a larger ``n`` is computed as ``n_max``. ``diff_n`` is not supported, as in JAX."""
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    if isinstance(n_max, core.Tracer) and not isinstance(n_max.aval, core.ConcreteArray):
        raise ConcretizationTypeError(n_max, int, (
            'The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically '
            'specified to use `sph_harm` within JAX transformations.'))
    n_max = int(n_max)
    if n_max < 0:  # (JAX's IndexError comes from indexing its empty table)
        raise IndexError(f'sph_harm_y: n_max must be >= 0 (a degree), got {n_max}')
    return _sph_harm(n, m, theta, phi, n_max)
