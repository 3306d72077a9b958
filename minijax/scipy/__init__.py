"""minijax.scipy: the parts of ``jax.scipy`` that programs use most, on minijax.numpy.

``special``: logsumexp, expit, logit, erf, erfc, ndtr. ``stats.norm``: the normal
distribution's pdf, logpdf and cdf.
"""
from minijax.scipy import special, stats

__all__ = ['special', 'stats']
