"""``jax.ops``: segment reductions, ``out[segment_ids[i]] (op)= data[i]``.

Each is a scatter into an array that starts at the reduction's identity, so an empty
segment holds the identity (0 for sums, -inf or the lowest integer for max, ...) and an id
outside ``[0, num_segments)`` is dropped, as in JAX.
"""
from minijax import core, dtypes
from minijax import numpy as jnp


#: segment reduction -> (its ``.at[]`` update, the identity for a dtype)
_SEGMENT_UPDATES = {
    'segment_sum': ('add', lambda dtype: 0),
    'segment_prod': ('multiply', lambda dtype: 1),
    'segment_max': ('max', dtypes.lowest),
    'segment_min': ('min', dtypes.highest),
}


def _num_segments(name, segment_ids, num_segments):
    """The number of rows of the result, a static int as in JAX: ``num_segments``, or one more
    than the largest of concrete ``segment_ids``."""
    if num_segments is None:
        num_segments = jnp.max(segment_ids, initial=-1) + 1
    num_segments = core.static_int(num_segments, f'{name}: num_segments')
    if num_segments < 0:
        raise ValueError(f'{name}: num_segments must be non-negative, got {num_segments}')
    return num_segments


def _segment_reduce(name, data, segment_ids, num_segments, mode):
    update, identity = _SEGMENT_UPDATES[name]
    data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
    out = jnp.full((num_segments, *data.shape[1:]), identity(data.dtype), data.dtype)
    return getattr(out.at[segment_ids], update)(data, mode=mode or 'drop')


def _segment_function(name):
    def reduce_segments(data, segment_ids, num_segments=None, indices_are_sorted=False,
                        unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
        num_segments = _num_segments(name, jnp.asarray(segment_ids), num_segments)
        return jnp._computed_as(out_sharding, name, lambda d, i: _segment_reduce(
            name, d, i, num_segments, mode), data, segment_ids)
    reduce_segments.__name__ = reduce_segments.__qualname__ = name
    reduce_segments.__doc__ = (f'``{name}``: ``data`` reduced per segment, over its leading '
                               f'axis, into ``num_segments`` rows (sharded as '
                               f'``out_sharding`` says).')
    return reduce_segments


segment_sum = _segment_function('segment_sum')
segment_prod = _segment_function('segment_prod')
segment_max = _segment_function('segment_max')
segment_min = _segment_function('segment_min')
