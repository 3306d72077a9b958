"""``jnp.linalg``: linear algebra on the decompositions of ``minijax.lax.linalg``."""

__all__ = []
