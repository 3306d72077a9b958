"""minijax.scipy.cluster: ``vq``, the vector quantization of ``jax.scipy.cluster``."""
from minijax.scipy.cluster import vq

__all__ = ['vq']
