"""``jax.scipy.interpolate.RegularGridInterpolator``: linear or nearest interpolation on a
rectilinear grid (SciPy's class as JAX restricts it: no ``bounds_error``, a pytree so it
passes through ``jit``)."""

import itertools

import numpy as np

from minijax import numpy as mnp
from minijax.numpy import _promote_inexact
from minijax import tree_util

__all__ = ['RegularGridInterpolator']

_METHODS = ('linear', 'nearest')


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f'method {method!r} is not defined')


def _as_points(xi, ndim):
    """The sample points as an array whose last axis holds the coordinates: from a tuple of
    coordinate arrays (broadcast), or an array (a 1-d one is a list of points)."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        coordinates = mnp.broadcast_arrays(*xi)
        return mnp.stack([c.astype(float) for c in coordinates], axis=-1)
    xi = mnp.asarray(xi)
    return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolates ``values`` given at the grid ``points`` (one increasing array per
    axis; ``values`` may have trailing axes of its own); points outside the grid get
    ``fill_value`` (None: extrapolated)."""

    def __init__(self, points, values, method='linear', bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        self.method, self.bounds_error = method, bounds_error
        if bounds_error:
            raise NotImplementedError('`bounds_error` takes no effect under JIT')
        if len(points) > mnp.ndim(values):
            raise ValueError(f'there are {len(points)} point arrays, but values has '
                             f'{mnp.ndim(values)} dimensions')
        values, = _promote_inexact(values)
        if fill_value is not None:
            fill_value = mnp.asarray(fill_value)
            if not mnp.can_cast(fill_value.dtype, values.dtype, casting='same_kind'):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 'with values')
        self.fill_value = fill_value
        self.grid = tuple(mnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        """The interpolated values at ``xi`` (points' coordinates on its last axis), shaped
        ``xi.shape[:-1]`` plus ``values``' trailing axes."""
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _as_points(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f'the requested sample points xi have dimension {xi.shape[1]}, '
                             f'but this RegularGridInterpolator has dimension {ndim}')
        points = xi.reshape(-1, ndim)
        cells, fractions, outside = self._locate(points)
        if method == 'linear':
            result = self._linear(cells, fractions)
        else:
            result = self.values[tuple(mnp.where(f <= .5, i, i + 1)
                                       for i, f in zip(cells, fractions))]
        if self.fill_value is not None:
            outside = outside.reshape(outside.shape + (1,) * (result.ndim - 1))
            result = mnp.where(outside, self.fill_value, result)
        return result.reshape(xi.shape[:-1] + self.values.shape[ndim:])

    def _locate(self, points):
        """Per axis, each point's grid cell (its lower index, clamped to the grid) and its
        fractional position in the cell; whether each point is off the grid."""
        cells, fractions = [], []
        outside = mnp.zeros(points.shape[:1], bool)
        for x, g in zip(points.T, self.grid):
            i = mnp.clip(mnp.searchsorted(g, x) - 1, 0, g.size - 2)
            cells.append(i)
            fractions.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return cells, fractions, outside

    def _linear(self, cells, fractions):
        """The sum over the cell's corners of the corner's value times its weight (the
        product over axes of the fraction toward it)."""
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        total = 0.
        for corner in itertools.product((0, 1), repeat=len(cells)):
            weight = 1.
            for upper, f in zip(corner, fractions):
                weight = weight * (f if upper else 1 - f)
            index = tuple(i + upper for i, upper in zip(cells, corner))
            total = total + self.values[index] * weight[trailing]
        return total


tree_util.register_pytree_node(
    RegularGridInterpolator,
    lambda self: ((self.grid, self.values, self.fill_value), (self.method, self.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]))
