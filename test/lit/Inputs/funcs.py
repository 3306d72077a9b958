"""Functions the lit tests of the minijax command lower and run (not a test itself)."""
from minijax import jit, lax


def f(x):
    return lax.sin(x) * 2. + x


def affine(pair):
    x, w = pair
    return lax.reduce_sum(lax.transpose(w, (1, 0)) * lax.broadcast(x, (3,)), axis=1)


@jit
def already_jitted(x, y):
    return lax.greater(x, y), lax.sub(x, y)


def fails(x):
    raise ValueError('this function always fails')


def mismatched(x, y):
    return lax.add(x, y)


def sharded_sum(x):
    """Lowered over a mesh by test/lit/sharding/cli-mesh.test."""
    return lax.reduce_sum(lax.sin(x), axes=(0,))
