"""minijax.scipy.spatial: ``transform``, the 3-d rotations of ``jax.scipy.spatial``."""
from minijax.scipy.spatial import transform

__all__ = ['transform']
