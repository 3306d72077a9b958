"""``jax.scipy.integrate``: the trapezoidal rule, which is ``jnp.trapezoid``, as in JAX."""
from minijax.numpy import trapezoid

__all__ = ['trapezoid']
