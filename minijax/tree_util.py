"""Pytrees: nested tuples, lists, dicts and registered user types, flattened to leaves.

Transformations work on flat lists of arrays; pytrees let users pass structured values. A
``PyTreeDef`` records the structure so outputs can be rebuilt.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Hashable, NamedTuple


class NodeType(NamedTuple):
    name: str
    to_iterable: Callable[[Any], tuple[Hashable, list]]
    from_iterable: Callable[[Hashable, list], Any]


node_types: dict[type, NodeType] = {}


def register_pytree_node(ty, to_iterable, from_iterable):
    """Make ``ty`` a pytree node.

    ``to_iterable(x) -> (aux_data, children)`` and ``from_iterable(aux_data, children) -> x``;
    ``aux_data`` must be hashable, since it is part of the tree's structure.
    """
    node_types[ty] = NodeType(ty.__name__, to_iterable, from_iterable)


register_pytree_node(tuple, lambda t: (None, list(t)), lambda _, xs: tuple(xs))
register_pytree_node(list, lambda xs: (None, list(xs)), lambda _, xs: list(xs))
def _sorted_keys(d):
    """A dict's keys in sorted order: the structure must not depend on insertion order."""
    try:
        return tuple(sorted(d))
    except TypeError:
        raise TypeError(f'pytree dict keys must be sortable against each other, got keys '
                        f'{list(d)!r} of types {sorted({type(k).__name__ for k in d})}') from None


def _dict_to_iterable(d):
    keys = _sorted_keys(d)
    return keys, [d[k] for k in keys]


register_pytree_node(dict, _dict_to_iterable, lambda keys, vals: dict(zip(keys, vals)))
register_pytree_node(type(None), lambda _: (None, []), lambda _, __: None)


class PyTreeDef(NamedTuple):
    node_type: NodeType | None   # None marks a leaf
    node_metadata: Hashable
    child_treedefs: tuple['PyTreeDef', ...]

    @property
    def num_leaves(self):
        if self.node_type is None:
            return 1
        return sum(child.num_leaves for child in self.child_treedefs)

    def __repr__(self):
        if self.node_type is None:
            return '*'
        children = ', '.join(map(repr, self.child_treedefs))
        return f'PyTreeDef({self.node_type.name}[{children}])'


LEAF = PyTreeDef(None, None, ())


def tuple_treedef(*children: PyTreeDef) -> PyTreeDef:
    """The structure of a tuple whose elements have the structures ``children``."""
    return PyTreeDef(node_types[tuple], None, tuple(children))


def tree_flatten(x) -> tuple[list, PyTreeDef]:
    leaves: list = []
    try:
        treedef = _flatten(x, leaves)
    except RecursionError:
        raise ValueError('pytree is nested too deeply to flatten (deeper than Python\'s '
                         f'recursion limit, {sys.getrecursionlimit()}): is it self-referencing, '
                         'or could it be a flat list of arrays instead?') from None
    return leaves, treedef


def _flatten(x, leaves) -> PyTreeDef:
    node_type = node_types.get(type(x))
    if node_type is None:
        leaves.append(x)
        return LEAF
    metadata, children = node_type.to_iterable(x)
    return PyTreeDef(node_type, metadata, tuple(_flatten(c, leaves) for c in children))


def tree_unflatten(treedef: PyTreeDef, leaves) -> Any:
    it = iter(leaves)
    out = _unflatten(treedef, it)
    if next(it, _SENTINEL) is not _SENTINEL:
        raise ValueError(f'too many leaves for {treedef}')
    return out


_SENTINEL = object()


def _unflatten(treedef, leaves):
    if treedef.node_type is None:
        return next(leaves)
    children = [_unflatten(t, leaves) for t in treedef.child_treedefs]
    return treedef.node_type.from_iterable(treedef.node_metadata, children)


def tree_leaves(x):
    return tree_flatten(x)[0]


def tree_structure(x):
    return tree_flatten(x)[1]


def tree_map(f, tree, *rest):
    leaves, treedef = tree_flatten(tree)
    all_leaves = [leaves] + [flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(*all_leaves)])


def flatten_up_to(treedef: PyTreeDef, tree) -> list:
    """Flatten ``tree`` only as deep as ``treedef`` goes; deeper subtrees become leaves."""
    out: list = []
    _flatten_up_to(treedef, tree, out)
    return out


def _flatten_up_to(treedef, tree, out):
    if treedef.node_type is None:
        out.append(tree)
        return
    node_type = node_types.get(type(tree))
    if node_type is not treedef.node_type:
        raise ValueError(f'tree structure mismatch: expected {treedef.node_type.name}, '
                         f'got {type(tree).__name__}')
    metadata, children = node_type.to_iterable(tree)
    if metadata != treedef.node_metadata or len(children) != len(treedef.child_treedefs):
        raise ValueError(f'tree structure mismatch: {treedef} vs {tree_structure(tree)}')
    for child_def, child in zip(treedef.child_treedefs, children):
        _flatten_up_to(child_def, child, out)


def broadcast_prefix(prefix_tree, full_tree, is_leaf=lambda x: x is None) -> list:
    """One entry of ``prefix_tree`` per leaf of ``full_tree``.

    ``prefix_tree`` is a prefix of ``full_tree`` (``vmap``'s ``in_axes``): each of its leaves
    stands for every leaf of the matching subtree.
    """
    out: list = []
    full_def = tree_structure(full_tree)
    _broadcast_prefix(prefix_tree, full_tree, full_def, out, is_leaf)
    return out


def _broadcast_prefix(prefix, full, full_def, out, is_leaf):
    node_type = node_types.get(type(prefix))
    if node_type is None or is_leaf(prefix):
        out.extend([prefix] * full_def.num_leaves)
        return
    if full_def.node_type is not node_type:
        raise ValueError(f'{prefix!r} is not a prefix of the arguments: expected a '
                         f'{full_def.node_type.name if full_def.node_type else "leaf"} there')
    metadata, children = node_type.to_iterable(prefix)
    if metadata != full_def.node_metadata or len(children) != len(full_def.child_treedefs):
        raise ValueError(f'{prefix!r} does not match the structure {full_def}')
    _, full_children = full_def.node_type.to_iterable(full)
    for p, f, d in zip(children, full_children, full_def.child_treedefs):
        _broadcast_prefix(p, f, d, out, is_leaf)


def flatten_fun(f, in_tree):
    """Wrap ``f`` to take and return flat lists; the output tree is known once it has run."""
    store = _Store()

    def flat_fun(*args_flat):
        pytree_args = tree_unflatten(in_tree, args_flat)
        out = f(*pytree_args)
        out_flat, out_tree = tree_flatten(out)
        store.set(out_tree)
        return out_flat

    return flat_fun, store


class _Store:
    """A write-once cell: ``flatten_fun`` reports the output tree through it."""
    _EMPTY = object()

    def __init__(self):
        self.val = self._EMPTY

    def set(self, val):
        self.val = val

    def __call__(self):
        if self.val is self._EMPTY:
            raise RuntimeError('the function has not run yet, its output tree is unknown')
        return self.val
