"""``jax.flatten_util``: a pytree of arrays as one flat vector, and the way back.

Optimizers and solvers written for vectors (``scipy.optimize``-style code, Newton steps,
L-BFGS) use it on parameter pytrees: ``flat, unravel = ravel_pytree(params)``.
"""
import math

import numpy as np

from minijax import numpy as jnp
from minijax import tree_util


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves raveled and concatenated in tree order, in their
    promoted dtype, and the function that splits a vector of that length back into the tree.
    As in JAX, leaves of one dtype give an ``unravel`` that keeps the vector's dtype (an
    optimizer may step in another precision); leaves of several dtypes, one that takes only
    the promoted dtype and gives each leaf back its own. A tree with no leaves gives an empty
    float32."""
    leaves, treedef = tree_util.tree_flatten(pytree)
    if not leaves:
        return jnp.zeros((0,), jnp.float32), lambda flat: tree_util.tree_unflatten(treedef, [])
    leaves = [jnp.asarray(leaf) for leaf in leaves]
    shapes = [leaf.shape for leaf in leaves]
    leaf_dtypes = [leaf.dtype for leaf in leaves]
    flat_dtype = jnp.result_type(*leaves)
    mixed = any(dtype != flat_dtype for dtype in leaf_dtypes)
    flat = jnp.concatenate([jnp.ravel(leaf).astype(flat_dtype) for leaf in leaves])
    split_points = np.cumsum([math.prod(shape) for shape in shapes])[:-1]

    def unravel(flat_vector):
        if mixed and jnp.result_type(flat_vector) != flat_dtype:
            raise TypeError(f'unravel function given array of dtype '
                            f'{jnp.result_type(flat_vector)}, but expected dtype {flat_dtype}')
        if np.shape(flat_vector) != np.shape(flat):
            raise ValueError(f'unravel function given an array of shape '
                             f'{np.shape(flat_vector)}, but expected shape {np.shape(flat)}')
        chunks = [chunk.reshape(shape) for chunk, shape in
                  zip(jnp.split(flat_vector, split_points), shapes)]
        if mixed:
            chunks = [chunk.astype(dtype) for chunk, dtype in zip(chunks, leaf_dtypes)]
        return tree_util.tree_unflatten(treedef, chunks)
    return flat, unravel
