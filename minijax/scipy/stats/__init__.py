"""minijax.scipy.stats: ``norm``, the normal distribution."""
from minijax.scipy.stats import norm

__all__ = ['norm']
