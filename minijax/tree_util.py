"""Pytrees: nested tuples, lists, dicts, None and registered user types, flattened to leaves.

Transformations work on flat lists of arrays; pytrees let users pass structured values. A
``PyTreeDef`` records the structure so outputs can be rebuilt. The names and contracts are
JAX's: ``register_pytree_node(ty, flatten, unflatten)`` with ``flatten(x) -> (children,
aux_data)`` and ``unflatten(aux_data, children) -> x``. (Autodidax's ``to_iterable`` returns
the pair the other way round, ``(aux_data, children)``; flattening such a node raises a
ValueError that says so.) Key paths name where a leaf sits: ``['a'][0].x``.
"""

import collections
import dataclasses
import difflib
import functools
import sys
import textwrap
from typing import Any, Callable, Hashable, NamedTuple, TypeVar

from minijax import unsupported

__all__ = ['DictKey', 'FlattenedIndexKey', 'GetAttrKey', 'KeyEntry', 'KeyPath', 'Partial',
           'PyTreeDef', 'SequenceKey', 'all_leaves', 'default_registry', 'flatten_one_level',
           'flatten_one_level_with_keys', 'is_tree_node', 'keystr', 'register_dataclass',
           'register_pytree_node', 'register_pytree_node_class', 'register_pytree_with_keys',
           'register_pytree_with_keys_class', 'register_static', 'tree_all', 'tree_broadcast',
           'tree_flatten', 'tree_flatten_with_path', 'tree_leaves', 'tree_leaves_with_path',
           'tree_map', 'tree_map_with_path', 'tree_reduce', 'tree_reduce_associative',
           'tree_structure', 'tree_transpose', 'tree_unflatten', 'treedef_children',
           'treedef_is_leaf', 'treedef_tuple']

# dir() lists JAX's names only. The module keeps the flattening helpers the transformations
# build on (``flatten_fun``, ``broadcast_prefix``, ``tuple_treedef``...), which other modules
# import from here (JAX keeps its counterparts in ``jax._src.tree_util`` and ``api_util``).
__dir__ = unsupported.public_dir(globals())


# ----------------------------------------------------------------------------- key paths

#: The type of one step of a key path (a ``SequenceKey``, ``DictKey``, ...) and of a path.
KeyEntry = TypeVar('KeyEntry', bound=Any)
KeyPath = tuple[KeyEntry, ...]


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The ``idx``-th element of a tuple or list: ``[0]``."""
    idx: int

    def __str__(self):
        return f'[{self.idx!r}]'


@dataclasses.dataclass(frozen=True)
class DictKey:
    """The value at ``key`` of a dict: ``['a']``."""
    key: Hashable

    def __str__(self):
        return f'[{self.key!r}]'


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The attribute ``name`` of a NamedTuple or dataclass: ``.x``."""
    name: str

    def __str__(self):
        return f'.{self.name}'


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """The ``key``-th child of a custom node registered without keys."""
    key: int

    def __str__(self):
        return f'[<flat index {self.key}>]'


def keystr(keys, *, simple=False, separator=''):
    """A key path as text: ``['a'][0].x``, or with ``simple=True`` just the keys (``a/0/x``)."""
    return separator.join(map(_simple_keystr if simple else str, keys))


def _simple_keystr(key):
    for field in ('idx', 'key', 'name'):
        if hasattr(key, field):
            return str(getattr(key, field))
    return str(key)


# ----------------------------------------------------------------------------- the registry


class NodeType(NamedTuple):
    """How one Python type is taken apart into children and put back together."""
    ty: type
    flatten: Callable[[Any], tuple[list, Hashable]]       # x -> (children, aux_data)
    unflatten: Callable[[Hashable, list], Any]            # (aux_data, children) -> x
    flatten_with_keys: Callable[[Any], tuple[list, Hashable]]  # x -> ([(key, child)], aux)
    show: Callable[['NodeType', Hashable, list], str]     # the node in a PyTreeDef's repr

    @property
    def name(self):
        return 'None' if self.ty is type(None) else self.ty.__name__


node_types: dict[type, NodeType] = {}


def _show_custom(node_type, aux, children):
    return f'CustomNode({node_type.name}[{aux}], [{", ".join(children)}])'


def _add_node(ty, flatten, unflatten, flatten_with_keys, show=_show_custom):
    if ty in node_types:
        raise ValueError(f'Duplicate custom PyTreeDef type registration for {ty}.')
    node_types[ty] = NodeType(ty, flatten, unflatten, flatten_with_keys, show)


def _keyed(flatten, make_keys):
    """``flatten_with_keys`` from ``flatten`` and ``make_keys(aux, num_children) -> keys``."""
    def flatten_with_keys(x):
        children, aux = flatten(x)
        return list(zip(make_keys(aux, len(children)), children)), aux
    return flatten_with_keys


def _flat_index_keys(aux, n):
    return map(FlattenedIndexKey, range(n))


def _checked(flatten, ty, what='children'):
    """Wrap a user's flatten function to insist on JAX's ``(children, aux_data)`` order.

    Children that are not iterable, or a string, mean Autodidax's order, ``(aux_data,
    children)``; JAX would flatten a string's characters, minijax refuses.
    """
    def checked_flatten(x):
        out = flatten(x)
        if not (isinstance(out, tuple) and len(out) == 2 and _iterable(out[0])) or \
                isinstance(out[0], str):  # a label as children: surely the pair swapped
            raise ValueError(
                f'The flatten function for the custom pytree node {ty.__name__} should return '
                f'a ({what}, aux_data) tuple where {what!r} is iterable, got {out!r}. minijax '
                'follows JAX\'s order; Autodidax\'s to_iterable returns (aux_data, children): '
                'swap the pair.')
        return list(out[0]), out[1]
    return checked_flatten


def _iterable(x):
    try:
        iter(x)
    except TypeError:
        return False
    return True


def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
    """Make ``nodetype`` a pytree node (exactly that type: subclasses stay leaves).

    ``flatten_func(x) -> (children, aux_data)`` and ``unflatten_func(aux_data, children) ->
    x``; ``aux_data`` is part of the tree's structure, compared with ``==`` (a dict or list
    will do; an array will not).
    Without ``flatten_with_keys_func`` the children's keys are ``FlattenedIndexKey``s.
    """
    flatten = _checked(flatten_func, nodetype)
    if flatten_with_keys_func is None:
        flatten_with_keys = _keyed(flatten, _flat_index_keys)
    else:
        flatten_with_keys = _checked(flatten_with_keys_func, nodetype, 'key_children')
    _add_node(nodetype, flatten, unflatten_func, flatten_with_keys)


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Like ``register_pytree_node``, with ``flatten_with_keys(x) -> ([(key, child)], aux)``."""
    if flatten_func is None:
        def flatten_func(x):
            key_children, aux = flatten_with_keys(x)
            return [child for _, child in key_children], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
    """Class decorator: ``x.tree_flatten()`` and ``cls.tree_unflatten(aux, children)``."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls):
    """Class decorator: as ``register_pytree_node_class``, plus ``x.tree_flatten_with_keys()``."""
    flatten = (lambda x: x.tree_flatten()) if hasattr(cls, 'tree_flatten') else None
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
                              flatten)
    return cls


def register_static(cls):
    """Make instances of ``cls`` nodes without children: the whole instance is the node's
    aux data, so ``jit`` treats it as static (it must be hashable). A class decorator."""
    _add_node(cls, lambda x: ((), x), lambda x, _: x, lambda x: ((), x))
    return cls


def is_tree_node(typ) -> bool:
    """Whether values of type ``typ`` are pytree nodes (``None``'s type is one: a node
    without children), not leaves."""
    if not isinstance(typ, type):
        raise TypeError(f'is_tree_node: expected a type, got {typ!r}')
    return typ in node_types or (issubclass(typ, tuple) and hasattr(typ, '_fields'))


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Make a dataclass a pytree node: ``data_fields`` are children, ``meta_fields`` aux data.

    Without field lists, a dataclass's fields are data unless marked
    ``field(metadata=dict(static=True))``. Usable as a decorator, as in JAX.
    """
    data_fields, meta_fields = _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)

    def flatten(x):
        return [getattr(x, f) for f in data_fields], tuple(getattr(x, f) for f in meta_fields)

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

    _add_node(nodetype, flatten, unflatten,
              _keyed(flatten, lambda aux, n: map(GetAttrKey, data_fields)))
    return nodetype


def _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields):
    """The (data, meta) field names, checked to cover the constructor's arguments."""
    if (data_fields is None) != (meta_fields is None):
        raise TypeError('register_dataclass: data_fields and meta_fields must both be specified '
                        f'when either is specified. Got {data_fields=} {meta_fields=}.')
    is_dataclass = dataclasses.is_dataclass(nodetype)
    if data_fields is None:
        if not is_dataclass:
            raise TypeError('register_dataclass: data_fields and meta_fields are required when '
                            f'nodetype is not a dataclass. Got {nodetype=}.')
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in drop_fields]
        data_fields = [f.name for f in fields if not f.metadata.get('static', False)]
        meta_fields = [f.name for f in fields if f.metadata.get('static', False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(f'data_fields and meta_fields must not overlap. Overlapping fields: '
                         f'{overlap}.')
    if is_dataclass:
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = {*data_fields, *meta_fields}
        if init != given:
            raise ValueError('data_fields and meta_fields must include all dataclass fields with '
                             f'``init=True`` and only them. Missing fields: {init - given or None}'
                             f'; unexpected fields: {given - init or None}.')
    return data_fields, meta_fields


# ----------------------------------------------------------------------------- built-in nodes


def _sorted_keys(d):
    """A dict's keys in sorted order: the structure must not depend on insertion order."""
    try:
        return tuple(sorted(d))
    except TypeError:
        raise ValueError('Comparator raised exception while sorting pytree dictionary keys: '
                         f'the keys {list(d)!r} of types {sorted({type(k).__name__ for k in d})} '
                         'are not sortable against each other.') from None


def _sequence_node(ty, brackets):
    def flatten(xs):
        return list(xs), None

    def show(node_type, aux, children):
        comma = ',' if ty is tuple and len(children) == 1 else ''
        return f'{brackets[0]}{", ".join(children)}{comma}{brackets[1]}'

    _add_node(ty, flatten, lambda _, xs: ty(xs),
              _keyed(flatten, lambda aux, n: map(SequenceKey, range(n))), show)


def _flatten_dict(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], keys


def _show_dict(node_type, keys, children):
    return '{' + ', '.join(f'{k!r}: {c}' for k, c in zip(keys, children)) + '}'


def _flatten_ordered_dict(d):
    return list(d.values()), tuple(d)


def _flatten_defaultdict(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], (d.default_factory, keys)


def _dict_keys(aux, n):
    return map(DictKey, aux)


_sequence_node(tuple, '()')
_sequence_node(list, '[]')
_add_node(dict, _flatten_dict, lambda keys, vals: dict(zip(keys, vals)),
          _keyed(_flatten_dict, _dict_keys), _show_dict)
_add_node(collections.OrderedDict, _flatten_ordered_dict,
          lambda keys, vals: collections.OrderedDict(zip(keys, vals)),
          _keyed(_flatten_ordered_dict, _dict_keys))
_add_node(collections.defaultdict, _flatten_defaultdict,
          lambda aux, vals: collections.defaultdict(aux[0], zip(aux[1], vals)),
          _keyed(_flatten_defaultdict, lambda aux, n: map(DictKey, aux[1])))
_add_node(type(None), lambda _: ([], None), lambda _, __: None,
          lambda _: ([], None), lambda node_type, aux, children: 'None')


@functools.cache
def _namedtuple_node(ty):
    """Every NamedTuple class is a node without registration, its fields keyed by name."""
    def flatten(x):
        return list(x), None

    def show(node_type, aux, children):
        return f'CustomNode(namedtuple[{ty.__name__}], [{", ".join(children)}])'

    return NodeType(ty, flatten, lambda _, xs: ty(*xs),
                    _keyed(flatten, lambda aux, n: map(GetAttrKey, ty._fields)), show)


def node_type_of(x) -> NodeType | None:
    """``x``'s node type, or None for a leaf. Lookup is by exact type, as in JAX."""
    ty = type(x)
    node_type = node_types.get(ty)
    if node_type is None and issubclass(ty, tuple) and hasattr(ty, '_fields'):
        return _namedtuple_node(ty)
    return node_type


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: its bound arguments are the children.

    So a function with captured arrays can cross a ``jit`` boundary as an argument or result.
    """


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


# ----------------------------------------------------------------------------- PyTreeDef


class PyTreeDef:
    """The structure of a pytree: a node type, its aux data and the children's structures.

    A leaf has ``node_type`` None. Two treedefs are equal when their node types, aux data
    (compared with ``==``) and children agree. They hash, so they can key the ``jit`` cache;
    the hash leaves the aux data out, as JAX's does, so aux data need not be hashable (a
    dict or a list, as in the Sharp Bits' ``jit`` of a method).
    """
    __slots__ = ('node_type', 'node_metadata', 'child_treedefs', 'num_leaves', 'num_nodes')

    def __init__(self, node_type: NodeType | None, node_metadata: Hashable,
                 child_treedefs: tuple['PyTreeDef', ...]):
        self.node_type, self.node_metadata = node_type, node_metadata
        self.child_treedefs = child_treedefs
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in child_treedefs)
        self.num_nodes = 1 + sum(c.num_nodes for c in child_treedefs)

    def _type(self):
        """A node type is known by its Python type."""
        return self.node_type and self.node_type.ty

    def __eq__(self, other):
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return (self._type() == other._type() and self.child_treedefs == other.child_treedefs
                and _same_metadata(self.node_metadata, other.node_metadata))

    def __hash__(self):
        return hash((self._type(), self.child_treedefs))

    def __repr__(self):
        return f'PyTreeDef({self._show()})'

    def _show(self):
        if self.node_type is None:
            return '*'
        children = [c._show() for c in self.child_treedefs]
        return self.node_type.show(self.node_type, self.node_metadata, children)

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree):
        return flatten_up_to(self, tree)

    def children(self):
        return list(self.child_treedefs)

    def compose(self, inner):
        """This structure with every leaf replaced by the structure ``inner``."""
        if self.node_type is None:
            return inner
        return PyTreeDef(self.node_type, self.node_metadata,
                         tuple(c.compose(inner) for c in self.child_treedefs))

    def node_data(self):
        """``(type, aux_data)`` of the root node, None for a leaf."""
        return None if self.node_type is None else (self.node_type.ty, self.node_metadata)


def _same_metadata(a, b) -> bool:
    """``a == b`` for two nodes' aux data, where an ``==`` that fails or does not give a
    truth value (a NumPy array's) is JAX's ValueError."""
    try:
        return a is b or bool(a == b)
    except Exception as err:
        raise ValueError(
            f'Exception raised while checking equality of metadata fields of pytree: {err}. '
            'Make sure that metadata fields are hashable and have simple equality semantics '
            '(arrays cannot be metadata).') from err


LEAF = PyTreeDef(None, None, ())


def tuple_treedef(*children: PyTreeDef) -> PyTreeDef:
    """The structure of a tuple whose elements have the structures ``children``."""
    return PyTreeDef(node_types[tuple], None, tuple(children))


def treedef_tuple(treedefs) -> PyTreeDef:
    """``tuple_treedef`` of an iterable of structures (JAX's name)."""
    return tuple_treedef(*treedefs)


def treedef_children(treedef):
    return treedef.children()


def treedef_is_leaf(treedef):
    """True for a leaf and for a node without children (``None``, ``()``), as in JAX."""
    return treedef.num_nodes == 1


# ----------------------------------------------------------------------------- flatten, unflatten


def tree_flatten(tree, is_leaf=None) -> tuple[list, PyTreeDef]:
    """The leaves of ``tree`` left to right (dicts by sorted key) and its structure.

    ``is_leaf(x)`` True stops the descent at ``x``: it becomes a leaf even if it is a node.
    """
    stop = None if is_leaf is None else (lambda path, x: is_leaf(x))
    return _flatten(tree, stop, None)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Like ``tree_flatten``, each leaf paired with its key path: ``[(path, leaf)], treedef``."""
    stop = is_leaf
    if is_leaf is not None and not is_leaf_takes_path:
        stop = lambda path, x: is_leaf(x)  # noqa: E731
    return _flatten(tree, stop, ())


def _flatten(tree, stop, path):
    leaves: list = []
    try:
        treedef = _walk(tree, stop, path, leaves)
    except RecursionError:
        raise ValueError('pytree is nested too deeply to flatten (deeper than Python\'s '
                         f'recursion limit, {sys.getrecursionlimit()}): is it self-referencing, '
                         'or could it be a flat list of arrays instead?') from None
    return leaves, treedef


def _walk(x, stop, path, leaves) -> PyTreeDef:
    """Append ``x``'s leaves (with their paths unless ``path`` is None); return its structure."""
    node_type = None if stop is not None and stop(path, x) else node_type_of(x)
    if node_type is None:
        leaves.append(x if path is None else (path, x))
        return LEAF
    if path is None:
        children, aux = node_type.flatten(x)
        subtrees = [_walk(c, stop, None, leaves) for c in children]
    else:
        key_children, aux = node_type.flatten_with_keys(x)
        subtrees = [_walk(c, stop, (*path, k), leaves) for k, c in key_children]
    return PyTreeDef(node_type, aux, tuple(subtrees))


def tree_unflatten(treedef: PyTreeDef, leaves) -> Any:
    """Rebuild a pytree of structure ``treedef`` from exactly ``treedef.num_leaves`` leaves."""
    leaves = list(leaves)
    if len(leaves) > treedef.num_leaves:
        raise ValueError(f'Too many leaves for PyTreeDef; expected {treedef.num_leaves}.')
    if len(leaves) < treedef.num_leaves:
        raise ValueError(f'Too few leaves for PyTreeDef; expected {treedef.num_leaves}, '
                         f'got {len(leaves)}')
    return _build(treedef, iter(leaves))


def _build(treedef, leaves):
    if treedef.node_type is None:
        return next(leaves)
    children = [_build(t, leaves) for t in treedef.child_treedefs]
    return treedef.node_type.unflatten(treedef.node_metadata, children)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def all_leaves(iterable, is_leaf=None):
    """Whether every element of ``iterable`` is a leaf: flattening them gives them back,
    the same objects (None is an empty node, not a leaf)."""
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(leaves, items))


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def flatten_one_level(tree) -> tuple[tuple, Hashable]:
    """The children of the node ``tree`` and its aux data, one level down only."""
    children, aux = _node_of(tree).flatten(tree)
    return tuple(children), aux


def flatten_one_level_with_keys(tree) -> tuple[tuple, Hashable]:
    """``flatten_one_level``, each child paired with its key."""
    key_children, aux = _node_of(tree).flatten_with_keys(tree)
    return tuple(map(tuple, key_children)), aux


def _node_of(tree) -> NodeType:
    node_type = node_type_of(tree)
    if node_type is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return node_type


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


class PyTreeRegistry:
    """JAX's registry object (``jax.tree_util.default_registry``): the methods a library
    calls on it, over minijax's one registry of node types."""

    def flatten(self, tree, leaf_predicate=None):
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree, leaf_predicate=None):
        return tree_flatten_with_path(tree, leaf_predicate)

    def flatten_one_level(self, tree):
        """``(children, aux)`` of a node, None for a leaf."""
        node_type = node_type_of(tree)
        return None if node_type is None else node_type.flatten(tree)

    def flatten_one_level_with_keys(self, tree):
        return None if node_type_of(tree) is None else flatten_one_level_with_keys(tree)

    def is_node(self, typ) -> bool:
        return is_tree_node(typ)

    def register_node(self, type, to_iterable, from_iterable,  # noqa: A002 (JAX's name)
                      to_iterable_with_keys=None):
        register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

    def register_dataclass_node(self, type, data_fields, meta_fields, /):  # noqa: A002
        register_dataclass(type, data_fields, meta_fields)


default_registry = PyTreeRegistry()


# ----------------------------------------------------------------------------- prefixes


def flatten_up_to(treedef: PyTreeDef, tree) -> list:
    """Flatten ``tree`` only as deep as ``treedef`` goes; deeper subtrees become leaves."""
    out: list = []
    _flatten_up_to(treedef, tree, out)
    return out


def _flatten_up_to(treedef, tree, out):
    if treedef.node_type is None:
        out.append(tree)
        return
    if node_type_of(tree) is not treedef.node_type:
        raise ValueError(f'Expected {treedef.node_type.name}, got {tree!r}.')
    children, aux = treedef.node_type.flatten(tree)
    if len(children) != len(treedef.child_treedefs) or aux != treedef.node_metadata:
        raise ValueError(f'{treedef.node_type.name} node mismatch: expected the structure '
                         f'{treedef}, got {tree_structure(tree)}.')
    for child_def, child in zip(treedef.child_treedefs, children):
        _flatten_up_to(child_def, child, out)


def _subtrees_of(name, prefix_tree, treedef, full_tree, is_leaf):
    """``treedef.flatten_up_to(full_tree)``; on a mismatch, JAX's explanation of where."""
    try:
        return flatten_up_to(treedef, full_tree)
    except ValueError as e:
        explanation = _prefix_error(name, (), prefix_tree, full_tree, is_leaf)
        if explanation is None:
            raise
        raise ValueError(explanation) from e


def _prefix_error(name, path, prefix, full, is_leaf):
    """The first place where ``prefix`` is not a prefix of ``full``, explained, or None."""
    if (is_leaf is not None and is_leaf(prefix)) or node_type_of(prefix) is None:
        return None  # a leaf is a prefix of anything
    where = f'{name}{keystr(path)}'
    if type(prefix) is not type(full):
        return _mismatch('different types', where, name, f'has a subtree of type\n    '
                         f'{type(prefix)}\nbut at the same key path the full pytree has a '
                         f'subtree of different type\n    {type(full)}.')
    node_type = node_type_of(prefix)
    prefix_children, prefix_aux = node_type.flatten_with_keys(prefix)
    full_children, full_aux = node_type.flatten_with_keys(full)
    if len(prefix_children) != len(full_children):
        return _count_mismatch(where, name, prefix, prefix_children, full_children)
    if prefix_aux != full_aux:
        diff = textwrap.indent('\n'.join(difflib.ndiff(str(prefix_aux).splitlines(),
                                                       str(full_aux).splitlines())), '    ')
        return _mismatch('different pytree metadata', where, name, f'has a subtree of type\n'
                         f'    {type(prefix)}\nwith metadata\n    {prefix_aux}\nbut at the same '
                         'key path the full pytree has a subtree of the same type but with '
                         f'metadata\n    {full_aux}\nso the diff in the metadata at these '
                         f'pytree nodes is\n{diff}')
    for (key, p), (_, f) in zip(prefix_children, full_children):
        if (error := _prefix_error(name, (*path, key), p, f, is_leaf)) is not None:
            return error
    return None


def _count_mismatch(where, name, prefix, prefix_children, full_children):
    """Sequences differ in length; other nodes in their children's keys."""
    if isinstance(prefix, (list, tuple)):
        kind = type(prefix).__name__
        return _mismatch(f'different lengths of {kind}', where, name,
                         f'has a subtree of type {kind} of length {len(prefix_children)}, but '
                         'the full pytree has a subtree of the same type but of length '
                         f'{len(full_children)}.')
    prefix_keys = [_simple_keystr(k) for k, _ in prefix_children]
    full_keys = [_simple_keystr(k) for k, _ in full_children]
    only_one = [k for k in prefix_keys if k not in full_keys] + \
               [k for k in full_keys if k not in prefix_keys]
    return _mismatch('different numbers of pytree children', where, name,
                     f'has a subtree of type\n    {type(prefix)}\nwith {len(prefix_keys)} '
                     f'child keys\n    {" ".join(prefix_keys)}\nbut at the same key path the '
                     f'full pytree has a subtree of the same type but with {len(full_keys)} '
                     f'child keys\n    {" ".join(full_keys)}\nso the symmetric difference on '
                     f'key sets is\n    {" ".join(only_one)}')


def equality_errors(tree1, tree2, is_leaf=None):
    """How two pytrees of different structures differ, as JAX explains it: for each branch,
    the first place they part (key path, what ``tree1`` has there, what ``tree2`` has, why
    they differ)."""
    yield from _equality_errors((), tree1, tree2, is_leaf)


def _equality_errors(path, t1, t2, is_leaf):
    if all((is_leaf is not None and is_leaf(t)) or node_type_of(t) is None for t in (t1, t2)):
        return  # two leaves: no difference of structure
    if type(t1) is not type(t2):
        yield path, str(type(t1)), str(type(t2)), 'their Python types differ'
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f'{type(t1).__name__} of length {len(t1)}',
               f'{type(t2).__name__} of length {len(t2)}', 'the lengths do not match')
        return
    (children1, meta1), (children2, meta2) = map(flatten_one_level_with_keys, (t1, t2))
    if len(children1) != len(children2):
        keys1, keys2 = ({k for k, _ in c} for c in (children1, children2))
        try:  # (keys that hold a key: a dict's, a custom node's flat index)
            diff = ' '.join(repr(k.key) for k in keys1 ^ keys2)
        except AttributeError:
            diff = ''
        yield (path, *(f'{type(t1)} with {len(c)} child{"ren" if len(c) > 1 else ""}'
                       for c in (children1, children2)),
               'the numbers of children do not match'
               + (diff and f', with the symmetric difference of key sets: {{{diff}}}'))
        return
    if meta1 != meta2:
        yield (path, f'{type(t1)} with pytree metadata {meta1}',
               f'{type(t2)} with pytree metadata {meta2}',
               'the pytree node metadata does not match')
        return
    for (key, c1), (_, c2) in zip(children1, children2):
        yield from _equality_errors((*path, key), c1, c2, is_leaf)


def _mismatch(what, where, name, details):
    return (f'pytree structure error: {what} at key path\n    {where}\n'
            f'At that key path, the prefix pytree {name} {details}')


def broadcast_prefix(prefix_tree, full_tree, is_leaf=lambda x: x is None, name='prefix'):
    """One entry of ``prefix_tree`` per leaf of ``full_tree``.

    ``prefix_tree`` is a prefix of ``full_tree`` (``vmap``'s ``in_axes``): each of its leaves
    stands for every leaf of the matching subtree.
    """
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    subtrees = _subtrees_of(name, prefix_tree, prefix_def, full_tree, is_leaf)
    return [p for p, sub in zip(prefix_leaves, subtrees) for _ in tree_leaves(sub)]


# ----------------------------------------------------------------------------- maps and folds


def tree_map(f, tree, *rest, is_leaf=None):
    """``f`` applied leafwise; each of ``rest`` has ``tree``'s structure (or a deeper one)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_subtrees_of('tree_map tree', tree, treedef, r, is_leaf) for r in rest]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """``f(path, leaf, *others)`` applied leafwise, ``path`` the leaf's key path."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    prefix_is_leaf = None if is_leaf_takes_path else is_leaf
    others = [_subtrees_of('tree_map_with_path tree', tree, treedef, r, prefix_is_leaf)
              for r in rest]
    return treedef.unflatten(f(path, x, *xs) for (path, x), *xs in zip(path_leaves, *others))


_NO_INITIALIZER = object()


def tree_reduce(function, tree, initializer=_NO_INITIALIZER, is_leaf=None):
    """``functools.reduce(function, leaves[, initializer])``."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


class _Unspecified:
    def __repr__(self):
        return '<unspecified>'


def tree_reduce_associative(operation, tree, *, identity=_Unspecified(), is_leaf=None):
    """Reduce the leaves by an associative ``operation`` as a balanced tree of calls (left
    half, right half), so the calls nest log2(n) deep; ``identity`` is the answer for no
    leaves."""
    def halves(leaves):
        if len(leaves) == 1:
            return leaves[0]
        middle = len(leaves) // 2
        return operation(halves(leaves[:middle]), halves(leaves[middle:]))

    leaves = tree_leaves(tree, is_leaf)
    if leaves:
        return halves(leaves)
    if isinstance(identity, _Unspecified):
        raise TypeError('Must specify identity for parallel reduction of empty sequence.')
    return identity


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``full_tree``'s structure, each leaf the ``prefix_tree`` leaf standing for the
    subtree it is in."""
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_unflatten(tree_structure(full_tree), leaves)


def tree_all(tree, *, is_leaf=None):
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """An outer tree of inner trees becomes an inner tree of outer trees.

    ``inner_treedef`` None means: the structure of the first inner tree.
    """
    leaves, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(flatten_up_to(outer_treedef, pytree_to_transpose)[0])
    inner, outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner * outer:
        raise TypeError(f'Mismatch\n{treedef}\n != \n{outer_treedef.compose(inner_treedef)}')
    rows = [leaves[i * inner:(i + 1) * inner] for i in range(outer)]
    return inner_treedef.unflatten(outer_treedef.unflatten(column) for column in zip(*rows))


# ----------------------------------------------------------------------------- functions


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
