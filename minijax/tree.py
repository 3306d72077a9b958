"""``minijax.tree``: JAX's short names for the pytree utilities of ``minijax.tree_util``.

``tree.map(f, t)`` is ``tree_util.tree_map(f, t)``, and so on: the same functions, so the two
spellings never disagree.
"""
import dataclasses

from minijax import tree_util

__all__ = ['all', 'broadcast', 'flatten', 'flatten_with_path', 'leaves', 'leaves_with_path',
           'map', 'map_with_path', 'reduce', 'reduce_associative', 'static', 'structure',
           'transpose', 'unflatten']

all = tree_util.tree_all  # noqa: A001  (JAX's name, shadowing the builtin here only)
broadcast = tree_util.tree_broadcast
flatten = tree_util.tree_flatten
flatten_with_path = tree_util.tree_flatten_with_path
leaves = tree_util.tree_leaves
leaves_with_path = tree_util.tree_leaves_with_path
map = tree_util.tree_map  # noqa: A001
map_with_path = tree_util.tree_map_with_path
reduce = tree_util.tree_reduce
reduce_associative = tree_util.tree_reduce_associative
structure = tree_util.tree_structure
transpose = tree_util.tree_transpose
unflatten = tree_util.tree_unflatten


def static(**kwargs):
    """A dataclass field ``register_dataclass`` keeps as aux data (static), not a child:
    ``dataclasses.field`` with ``metadata={'static': True}``."""
    metadata = {'static': True, **(kwargs.pop('metadata', None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
