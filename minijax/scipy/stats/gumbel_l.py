"""The left-skewed Gumbel distribution (of minima), as ``jax.scipy.stats.gumbel_l``: the mirror
image of ``gumbel_r`` (its value at ``x`` is ``gumbel_r``'s at ``-x`` about ``-loc``, the
tails swapped)."""

import numpy as np

from minijax import lax
from minijax import numpy as mnp
from minijax.scipy import special
from minijax.scipy.special import _promote_inexact
from minijax.scipy.stats import gumbel_r

__all__ = ['cdf', 'logcdf', 'logpdf', 'logsf', 'pdf', 'ppf', 'sf']


def _mirrored(name, right):
    """``gumbel_l.name`` from ``gumbel_r``'s ``right`` function at the reflected point."""
    def function(x, loc=0, scale=1):
        x, loc, scale = _promote_inexact(x, loc, scale)
        return right(-x, -loc, scale)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f'``gumbel_r.{right.__name__}(-x, -loc, scale)``.'
    return function


#: gumbel_l's functions and the gumbel_r functions they mirror.
_MIRRORS = {'logpdf': gumbel_r.logpdf, 'pdf': gumbel_r.pdf, 'logcdf': gumbel_r.logsf,
            'cdf': gumbel_r.sf, 'logsf': gumbel_r.logcdf, 'sf': gumbel_r.cdf}
logpdf, pdf, logcdf, cdf, logsf, sf = (_mirrored(name, right) for name, right in _MIRRORS.items())


def ppf(p, loc=0, scale=1):
    """``loc + scale log(-log1p(-p))``; NaN outside (0, 1)."""
    p, loc, scale = _promote_inexact(p, loc, scale)
    return mnp.where((p > 0) & (p < 1), loc + scale * lax.log(special.xlog1py(-1, -p)), np.nan)
