"""``jax.scipy.ndimage.map_coordinates``: an array sampled at fractional coordinates, by
nearest-neighbour (order 0) or multilinear (order 1) interpolation, as JAX computes it: per
axis, the neighbouring indices and their weights; the result, the weighted sum over every
combination of neighbours."""

import functools
import itertools
import operator

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.jit import jit as _jit

__all__ = ['map_coordinates']


def _mirror(index, size):
    """The triangular wave of half-period ``size - 1``: reflection about the edge samples."""
    s = size - 1
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect(index, size):
    """Reflection about the edges between samples (the edge sample repeats)."""
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


#: ``mode`` -> where an index outside ``[0, size)`` reads from
_INDEX_FIXERS = {
    'constant': lambda index, size: index,
    'nearest': lambda index, size: jnp.clip(index, 0, size - 1),
    'wrap': lambda index, size: index % size,
    'mirror': _mirror,
    'reflect': _reflect,
}


def _round_half_away_from_zero(a):
    return a if dtypes.is_integer(a.dtype) else lax.round(a)


def _nearest(coordinate):
    return [(_round_half_away_from_zero(coordinate).astype(np.int32), coordinate.dtype.type(1))]


def _linear(coordinate):
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@functools.partial(_jit, static_argnums=(2, 3, 4))
def _map_coordinates(input, coordinates, order, mode, cval):  # noqa: A002 (SciPy's name)
    input = jnp.asarray(input)  # noqa: A001
    coordinates = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, input.dtype)
    if len(coordinates) != input.ndim:
        raise ValueError(f'coordinates must be a sequence of length input.ndim, but '
                         f'{len(coordinates)} != {input.ndim}')
    fix = _INDEX_FIXERS.get(mode)
    if fix is None:
        raise NotImplementedError(f'jax.scipy.ndimage.map_coordinates does not yet support '
                                  f'mode {mode}. Currently supported modes are '
                                  f'{set(_INDEX_FIXERS)}.')
    if order not in (0, 1):
        raise NotImplementedError('jax.scipy.ndimage.map_coordinates currently requires '
                                  'order<=1')
    neighbours = _nearest if order == 0 else _linear
    per_axis = [[(fix(index, size), (0 <= index) & (index < size) if mode == 'constant'
                  else True, weight) for index, weight in neighbours(coordinate)]
                for coordinate, size in zip(coordinates, input.shape)]
    terms = []
    for combination in itertools.product(*per_axis):
        indices, validities, weights = zip(*combination)
        value = input[indices]
        if not all(valid is True for valid in validities):
            value = jnp.where(functools.reduce(operator.and_, validities), value, cval)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = sum(terms[1:], terms[0])
    if dtypes.is_integer(input.dtype):
        result = _round_half_away_from_zero(result)
    return result.astype(input.dtype)


def map_coordinates(input, coordinates, order, mode='constant', cval=0.0):  # noqa: A002
    """``input`` at ``coordinates`` (one array of positions per axis), interpolated with
    ``order`` 0 or 1; outside the array, per ``mode``: ``cval`` ('constant'), the nearest
    edge, wrapped around, or mirrored ('mirror', 'reflect')."""
    return _map_coordinates(input, coordinates, order, mode, cval)
