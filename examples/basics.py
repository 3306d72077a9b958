"""Small functions to try the minijax command on (see README.md).

    minijax lower examples/basics.py:f --arg f32[3]
    minijax run examples/basics.py:f --arg 'f32[3]=[0, 1, 2]'
"""
from minijax import lax


def f(x):
    """sin(x) * 2 + x, elementwise."""
    return lax.sin(x) * 2. + x


def norm(v):
    """The Euclidean length of a vector: sqrt(sum(v * v))."""
    return lax.sqrt(lax.reduce_sum(v * v))


def softplus_sum(x, y):
    """log(1 + exp(x + y)) summed over the rows of a matrix: two arguments, one output."""
    return lax.reduce_sum(lax.log(1. + lax.exp(x + y)), axis=0)


def count_positive(x):
    """How many elements are > 0, as an int32 (comparisons give bool arrays)."""
    return lax.reduce_sum(lax.convert_element_type(lax.greater(x, 0.), 'int32'))


def affine(pair):
    """A tuple argument: (x, w) -> w^T x, via transpose and broadcast."""
    x, w = pair
    return lax.reduce_sum(lax.transpose(w, (1, 0)) * lax.broadcast(x, (3,)), axis=1)
