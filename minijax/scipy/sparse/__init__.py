"""minijax.scipy.sparse: ``linalg``, the iterative solvers of ``jax.scipy.sparse``."""
from minijax.scipy.sparse import linalg

__all__ = ['linalg']
