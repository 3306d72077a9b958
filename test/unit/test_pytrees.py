"""Pytrees against jax.tree_util: structures, leaf order, key paths, treedef equality, errors,
and custom nodes through every transformation."""
import collections
import dataclasses
import functools
from typing import NamedTuple

import jax
import numpy as np
import pytest

import minijax
from minijax import lax, tree_util
from minijax.tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten

jax.config.update('jax_enable_x64', True)


# ----------------------------------------------------------------------------- node types


class Point:
    """A custom node registered with register_pytree_node: label is aux data."""
    def __init__(self, x, y, label='p'):
        self.x, self.y, self.label = x, y, label

    def __eq__(self, other):
        return (type(other) is Point and (self.x, self.y, self.label)
                == (other.x, other.y, other.label))

    def __repr__(self):  # a stable test id, the same in every pytest-xdist worker
        return f'Point({self.x!r}, {self.y!r}, {self.label!r})'


def _flatten_point(p):
    return [p.x, p.y], p.label


def _unflatten_point(label, xs):
    return Point(xs[0], xs[1], label)


register_pytree_node(Point, _flatten_point, _unflatten_point)
jax.tree_util.register_pytree_node(Point, _flatten_point, _unflatten_point)


class Params(NamedTuple):
    w: object
    b: object


class Pair(NamedTuple):
    w: object
    b: object


@dataclasses.dataclass
class Layer:
    weight: object
    bias: object
    act: str = dataclasses.field(default='tanh', metadata=dict(static=True))


tree_util.register_dataclass(Layer)
jax.tree_util.register_dataclass(Layer)


@jax.tree_util.register_pytree_node_class
@tree_util.register_pytree_node_class
class Scaled:
    """A custom node registered with register_pytree_node_class."""
    def __init__(self, value, scale):
        self.value, self.scale = value, scale

    def tree_flatten(self):
        return (self.value,), self.scale

    @classmethod
    def tree_unflatten(cls, scale, children):
        return cls(children[0], scale)

    def __eq__(self, other):
        return type(other) is Scaled and (self.value, self.scale) == (other.value, other.scale)

    def __repr__(self):
        return f'Scaled({self.value!r}, {self.scale!r})'


@jax.tree_util.register_pytree_with_keys_class
@tree_util.register_pytree_with_keys_class
class Named:
    """A custom node whose children have their own keys."""
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten_with_keys(self):
        return ((jax.tree_util.GetAttrKey('a'), self.a),
                (jax.tree_util.GetAttrKey('b'), self.b)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    def __eq__(self, other):
        return type(other) is Named and (self.a, self.b) == (other.a, other.b)

    def __repr__(self):
        return f'Named({self.a!r}, {self.b!r})'


TREES = [
    1.0,
    (1, 2),
    (7,),
    [1, (2, 3), [4]],
    {'b': 1, 'a': 2, 'c': (3, 4)},
    {2: 'two', 1: 'one'},
    {'z': None, 'y': [None, 5]},
    None,
    (),
    [],
    {},
    [None],
    Point(1, [2, 3]),
    {'pts': [Point(1, 2, 'u'), Point(3, 4, 'v')]},
    Params(1, (2, 3)),
    [Params(w={'k': 1}, b=None)],
    Layer(1, [2, 3]),
    Layer(1, 2, act='relu'),
    Scaled((1, 2), 3.0),
    Named(1, [2]),
    collections.OrderedDict([('b', 1), ('a', (2, 3))]),
    collections.defaultdict(list, {'y': 1, 'x': 2}),
]


def _key_tuples(paths):
    """Key paths as comparable text (minijax's and JAX's key classes are distinct types)."""
    return [repr(path) for path in paths]


@pytest.mark.parametrize('tree', TREES, ids=repr)
def test_flatten_matches_jax_and_roundtrips(tree):
    leaves, treedef = tree_flatten(tree)
    ref_leaves, ref_def = jax.tree_util.tree_flatten(tree)
    assert leaves == ref_leaves
    assert repr(treedef) == repr(ref_def)
    assert (treedef.num_leaves, treedef.num_nodes) == (ref_def.num_leaves, ref_def.num_nodes)
    assert tree_unflatten(treedef, leaves) == tree
    assert treedef.unflatten([10 * x for x in leaves]) == \
        jax.tree_util.tree_map(lambda x: 10 * x, tree)
    assert tree_util.treedef_is_leaf(treedef) == jax.tree_util.treedef_is_leaf(ref_def)
    assert list(map(repr, treedef.children())) == list(map(repr, ref_def.children()))


@pytest.mark.parametrize('tree', TREES, ids=repr)
def test_key_paths_match_jax(tree):
    path_leaves, treedef = tree_util.tree_flatten_with_path(tree)
    ref_path_leaves, ref_def = jax.tree_util.tree_flatten_with_path(tree)
    assert [x for _, x in path_leaves] == [x for _, x in ref_path_leaves]
    paths, ref_paths = [p for p, _ in path_leaves], [p for p, _ in ref_path_leaves]
    assert _key_tuples(paths) == _key_tuples(ref_paths)
    for simple, separator in [(False, ''), (True, '/'), (True, '.')]:
        assert ([tree_util.keystr(p, simple=simple, separator=separator) for p in paths]
                == [jax.tree_util.keystr(p, simple=simple, separator=separator)
                    for p in ref_paths])
    assert repr(treedef) == repr(ref_def)
    assert _key_tuples(p for p, _ in minijax.tree.leaves_with_path(tree)) == \
        _key_tuples(p for p, _ in jax.tree.leaves_with_path(tree))


def test_key_entries_print_as_in_jax():
    pairs = [(tree_util.SequenceKey(2), jax.tree_util.SequenceKey(2)),
             (tree_util.DictKey('a'), jax.tree_util.DictKey('a')),
             (tree_util.DictKey(3), jax.tree_util.DictKey(3)),
             (tree_util.GetAttrKey('w'), jax.tree_util.GetAttrKey('w')),
             (tree_util.FlattenedIndexKey(1), jax.tree_util.FlattenedIndexKey(1))]
    for mine, theirs in pairs:
        assert (str(mine), repr(mine)) == (str(theirs), repr(theirs))
        assert mine == type(mine)(*dataclasses.astuple(mine)) and hash(mine) == hash(
            type(mine)(*dataclasses.astuple(mine)))


def test_map_with_path_matches_jax():
    tree = {'a': [1, Params(2, 3)], 'b': Layer(4, None)}
    mine = tree_util.tree_map_with_path(lambda p, x, y: (tree_util.keystr(p), x + y), tree, tree)
    ref = jax.tree_util.tree_map_with_path(lambda p, x, y: (jax.tree_util.keystr(p), x + y),
                                           tree, tree)
    assert mine == ref


def test_dict_keys_sorted_regardless_of_insertion_order():
    l1, d1 = tree_flatten({'b': 1, 'a': 2})
    l2, d2 = tree_flatten({'a': 2, 'b': 1})
    assert l1 == l2 == [2, 1] and d1 == d2
    assert list(tree_unflatten(d1, [5, 6])) == ['a', 'b']


def test_none_is_an_empty_node_not_a_leaf():
    leaves, treedef = tree_flatten([None, 1])
    assert leaves == [1]
    assert tree_unflatten(treedef, [2]) == [None, 2]


# ----------------------------------------------------------------------------- treedef equality


EQUALITY_PAIRS = [
    ((1, 2), (3, 4)),
    ((1, 2), [1, 2]),
    ({'a': 1}, {'b': 1}),
    ({'a': 1, 'b': 2}, {'b': 3, 'a': 4}),
    (Point(1, 2, 'u'), Point(1, 2, 'v')),   # aux data is part of the structure
    (Point(1, 2, 'u'), Point(5, 6, 'u')),
    (Point(1, 2, {'m': 1}), Point(1, 2, {'m': 2})),   # unhashable aux data, by ==
    (Point(1, 2, [1]), Point(3, 4, [1])),
    ((1, (2,)), (1, 2)),
    (Params(1, 2), (1, 2)),
    (Params(1, 2), Pair(1, 2)),             # same fields, different NamedTuple classes
    (Params(1, 2), Params(3, 4)),
    (Layer(1, 2), Layer(1, 2, 'relu')),
    (None, 1),
    (None, ()),
    (({},), ((),)),
    (collections.OrderedDict(a=1), {'a': 1}),
]


@pytest.mark.parametrize('a,b', EQUALITY_PAIRS, ids=repr)
def test_treedef_equality_matches_jax(a, b):
    mine_a, mine_b = tree_util.tree_structure(a), tree_util.tree_structure(b)
    ref_a, ref_b = jax.tree_util.tree_structure(a), jax.tree_util.tree_structure(b)
    assert (mine_a == mine_b) == (ref_a == ref_b)
    assert (mine_a != mine_b) == (ref_a != ref_b)
    if mine_a == mine_b:
        assert hash(mine_a) == hash(mine_b)
    assert mine_a == tree_util.tree_structure(a)


# ----------------------------------------------------------------------------- is_leaf, maps, folds


IS_LEAF_CASES = [
    ([None, 1, (None, 2)], lambda x: x is None),
    ({'a': (1, 2), 'b': [3, (4, 5)]}, lambda x: isinstance(x, tuple)),
    ([Point(1, 2), Params(3, 4)], lambda x: isinstance(x, Point)),
    ((1, [2, 3]), lambda x: isinstance(x, list)),
    ((1, 2), lambda x: isinstance(x, tuple)),   # the root itself
]


@pytest.mark.parametrize('tree,is_leaf', IS_LEAF_CASES,
                         ids=['none', 'tuples', 'point', 'list', 'root'])
def test_is_leaf_matches_jax(tree, is_leaf):
    leaves, treedef = tree_flatten(tree, is_leaf=is_leaf)
    ref_leaves, ref_def = jax.tree_util.tree_flatten(tree, is_leaf=is_leaf)
    assert leaves == ref_leaves and repr(treedef) == repr(ref_def)
    assert tree_map(lambda x: [x], tree, is_leaf=is_leaf) == \
        jax.tree_util.tree_map(lambda x: [x], tree, is_leaf=is_leaf)
    paths = tree_util.tree_leaves_with_path(tree, is_leaf=is_leaf)
    ref_paths = jax.tree_util.tree_leaves_with_path(tree, is_leaf=is_leaf)
    assert _key_tuples(p for p, _ in paths) == _key_tuples(p for p, _ in ref_paths)


def test_is_leaf_takes_path_matches_jax():
    tree = {'a': [1, 2], 'b': (3, [4])}
    def stop(path, x):
        return len(path) == 1
    mine = tree_util.tree_map_with_path(lambda p, x: (len(p), x), tree, is_leaf=stop,
                                        is_leaf_takes_path=True)
    ref = jax.tree_util.tree_map_with_path(lambda p, x: (len(p), x), tree, is_leaf=stop,
                                           is_leaf_takes_path=True)
    assert mine == ref


@pytest.mark.parametrize('trees', [
    ({'a': 1, 'b': (2, 3)}, {'a': 10, 'b': (20, 30)}),
    ((1, 2), ((3, 4), 5)),                  # rest may be deeper than the first tree
    ((1, None), (3, None)),
    ((1, 2), (None, 5)),                     # None is a subtree under a leaf of the first tree
    (Params(1, 2), Params([3], {'k': 4})),
    (Layer(1, 2), Layer(3, 4)),
], ids=repr)
def test_tree_map_multiple_trees_matches_jax(trees):
    assert tree_map(lambda *xs: xs, *trees) == jax.tree_util.tree_map(lambda *xs: xs, *trees)


MISMATCHES = [
    ((1, 2, 3), (1, 2)),
    ((1, 2), [1, 2]),
    ({'a': 1}, {'b': 1}),
    ({'a': 1, 'b': 2}, {'a': 1}),
    (Point(1, 2), (1, 2)),
    (Point(1, 2, 'u'), Point(1, 2, 'v')),
    (Params(1, 2), (1, 2)),
    ((1, (2, 3)), (1, 2)),
    ([1, {'x': (1, 2)}], [1, {'x': (1, 2, 3)}]),
    (collections.OrderedDict(a=1), {'a': 1}),
]


@pytest.mark.parametrize('a,b', MISMATCHES, ids=repr)
def test_tree_map_mismatch_error_words_it_as_jax(a, b):
    """The error names the key path and both subtrees' types, in JAX's words."""
    with pytest.raises(ValueError) as ref:
        jax.tree_util.tree_map(lambda x, y: x, a, b)
    with pytest.raises(ValueError) as mine:
        tree_map(lambda x, y: x, a, b)
    assert str(mine.value) == str(ref.value)
    with pytest.raises(ValueError) as mine_with_path:
        tree_util.tree_map_with_path(lambda p, x, y: x, a, b)
    assert str(mine_with_path.value) == str(mine.value).replace('tree_map tree',
                                                                'tree_map_with_path tree')


def test_unflatten_wrong_number_of_leaves_words_it_as_jax():
    treedef, ref_def = tree_util.tree_structure((1, 2)), jax.tree_util.tree_structure((1, 2))
    for leaves in ([1, 2, 3], [1]):
        with pytest.raises(ValueError) as ref:
            jax.tree_util.tree_unflatten(ref_def, leaves)
        with pytest.raises(ValueError, match=str(ref.value).replace('.', r'\.')):
            tree_unflatten(treedef, leaves)


def test_flatten_up_to_names_both_structures():
    treedef = tree_util.tree_structure((1, {'a': 2}))
    assert treedef.flatten_up_to(([1], {'a': (2, 3)})) == [[1], (2, 3)]
    with pytest.raises(ValueError, match=r"Expected tuple, got \[1, 2\]"):
        treedef.flatten_up_to([1, 2])
    with pytest.raises(ValueError, match=r"expected the structure PyTreeDef\(\{'a': \*\}\), "
                                         r"got PyTreeDef\(\{'b': \*\}\)"):
        treedef.flatten_up_to((1, {'b': 2}))


def test_reduce_all_transpose_match_jax():
    tree = [1, (2, 3), {'a': 4}]
    for mod in (tree_util, jax.tree_util):
        assert mod.tree_reduce(lambda a, b: a + b, tree) == 10
        assert mod.tree_reduce(lambda a, b: a * b, tree, 10) == 240
    for t in ([1, True, (0,)], [1, (2,)], [], None):
        assert tree_util.tree_all(t) == jax.tree_util.tree_all(t)
    outer, inner = [0, 0], (0, 0, 0)
    pytree = [(1, 2, 3), (4, 5, 6)]
    for inner_def in (tree_util.tree_structure(inner), None):
        ref_inner = inner_def and jax.tree_util.tree_structure(inner)
        assert (tree_util.tree_transpose(tree_util.tree_structure(outer), inner_def, pytree)
                == jax.tree_util.tree_transpose(jax.tree_util.tree_structure(outer), ref_inner,
                                                pytree))
    with pytest.raises(TypeError) as ref:
        jax.tree_util.tree_transpose(jax.tree_util.tree_structure(outer),
                                     jax.tree_util.tree_structure((0, 0)), pytree)
    with pytest.raises(TypeError) as mine:
        tree_util.tree_transpose(tree_util.tree_structure(outer),
                                 tree_util.tree_structure((0, 0)), pytree)
    assert str(mine.value) == str(ref.value)


def test_tree_module_aliases_match_jax_tree():
    """``minijax.tree`` after ``import minijax``, with jax.tree's names and answers."""
    tree = {'b': [1, Params(2, 3)], 'a': (4, None)}
    same = [
        ('leaves', (tree,)), ('map', (lambda x, y: x - y, tree, tree)),
        ('reduce', (lambda a, b: a + b, tree)), ('all', (tree,)),
        ('flatten', (tree,)), ('structure', (tree,)), ('flatten_with_path', (tree,)),
        ('leaves_with_path', (tree,)), ('map_with_path', (lambda p, x: len(p) * x, tree)),
    ]
    for name, args in same:
        assert repr(getattr(minijax.tree, name)(*args)) == repr(getattr(jax.tree, name)(*args)), \
            name
    leaves, treedef = minijax.tree.flatten(tree)
    assert minijax.tree.unflatten(treedef, leaves) == tree
    assert minijax.tree.transpose(minijax.tree.structure([0, 0]), None, [(1, 2), (3, 4)]) == \
        jax.tree.transpose(jax.tree.structure([0, 0]), None, [(1, 2), (3, 4)])
    assert minijax.tree_util.tree_map is minijax.tree.map


# ----------------------------------------------------------------------------- registration


class _Seedy:
    def __init__(self, a):
        self.a = a


class _SeedyAval:
    def __init__(self, aval):
        self.aval = aval


class _Aval:
    """Stands for Autodidax's ShapedArray: aux data that is not iterable."""


# Autodidax's order: to_iterable returns (aux_data, children), the reverse of JAX's.
register_pytree_node(_Seedy, lambda s: (None, [s.a]), lambda _, xs: _Seedy(*xs))
register_pytree_node(_SeedyAval, lambda u: (u.aval, ()), lambda aval, _: _SeedyAval(aval))
jax.tree_util.register_pytree_node(_Seedy, lambda s: (None, [s.a]), lambda _, xs: _Seedy(*xs))


class _Labelled:
    def __init__(self, x, label):
        self.x, self.label = x, label


register_pytree_node(_Labelled, lambda p: (p.label, [p.x]), lambda label, xs: _Labelled(*xs))


@pytest.mark.parametrize('tree', [_Seedy(1.0), [_SeedyAval(_Aval())], _Labelled(1.0, 'u')],
                         ids=['none', 'aval', 'label'])
def test_autodidax_order_flatten_is_a_clear_error(tree):
    if type(tree) is _Seedy:   # JAX raises ValueError too
        with pytest.raises(ValueError, match='children'):
            jax.tree_util.tree_flatten(tree)
    with pytest.raises(ValueError, match=r'\(children, aux_data\).*Autodidax.*swap'):
        tree_flatten(tree)
    with pytest.raises(ValueError, match=r'\(children, aux_data\)'):
        minijax.jit(lambda t: 1.0)(tree)


def test_duplicate_registration_is_an_error_as_in_jax():
    for mod in (tree_util, jax.tree_util):
        with pytest.raises(ValueError, match='Duplicate custom PyTreeDef type registration'):
            mod.register_pytree_node(Point, _flatten_point, _unflatten_point)
        with pytest.raises(ValueError, match='Duplicate'):
            mod.register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs))


def test_subclasses_of_registered_types_are_leaves_as_in_jax():
    class MyDict(dict):
        pass

    class MyPoint(Point):
        pass

    tree = [MyDict(a=1), MyPoint(1, 2), Params(1, 2)]
    assert len(tree_util.tree_leaves(tree)) == len(jax.tree_util.tree_leaves(tree)) == 4


@pytest.mark.parametrize('kwargs,error', [
    (dict(data_fields=['a']), TypeError),
    (dict(data_fields=['a'], meta_fields=['a']), ValueError),
    (dict(data_fields=['a'], meta_fields=[]), ValueError),       # field b missing
    (dict(data_fields=['a', 'b', 'c'], meta_fields=[]), ValueError),
], ids=repr)
def test_register_dataclass_checks_fields_as_jax(kwargs, error):
    @dataclasses.dataclass
    class AB:
        a: object
        b: object

    for mod in (tree_util, jax.tree_util):
        with pytest.raises(error):
            mod.register_dataclass(AB, **kwargs)
    with pytest.raises(TypeError, match='not a dataclass'):
        tree_util.register_dataclass(Point)


def test_register_dataclass_with_explicit_fields_and_drop_fields():
    @dataclasses.dataclass
    class Opt:
        lr: float
        step: object
        cache: object = None

    tree_util.register_dataclass(Opt, data_fields=['step'], meta_fields=['lr'],
                                 drop_fields=['cache'])
    jax.tree_util.register_dataclass(Opt, data_fields=['step'], meta_fields=['lr'],
                                     drop_fields=['cache'])
    tree = Opt(0.1, (1, 2), cache='dropped')
    assert tree_util.tree_leaves(tree) == jax.tree_util.tree_leaves(tree) == [1, 2]
    assert tree_map(lambda x: x, tree) == jax.tree_util.tree_map(lambda x: x, tree) == \
        Opt(0.1, (1, 2))


def test_flatten_fun_reports_output_tree():
    _, in_tree = tree_flatten(((1.0, 2.0),))
    flat, out_tree = tree_util.flatten_fun(lambda p: {'s': p[0], 'd': [p[1]]}, in_tree)
    assert flat(1.0, 2.0) == [2.0, 1.0]
    assert tree_unflatten(out_tree(), [5, 6]) == {'d': [5], 's': 6}


# ----------------------------------------------------------------------------- through transforms


def _assert_trees_close(out, ref):
    out_leaves, out_def = tree_flatten(out)
    ref_leaves, ref_def = jax.tree_util.tree_flatten(ref)
    assert repr(out_def) == repr(ref_def)
    for a, b in zip(out_leaves, ref_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)


def test_pytrees_through_jvp_vmap_jit():
    """Point in, dict with a list and None out, through every transformation."""
    def f(p):
        return {'s': lax.add(lax.mul(p.x, p.y), 1.0), 'l': [lax.sin(p.x), None], 'p': p}

    def g(p):
        return {'s': p.x * p.y + 1.0, 'l': [jax.numpy.sin(p.x), None], 'p': p}

    x, y = np.arange(3.), np.linspace(1, 2, 3)
    p, t = Point(x, y, 'q'), Point(np.ones(3), 2 * np.ones(3), 'q')
    checks = [
        (minijax.jvp(f, (p,), (t,)), jax.jvp(g, (p,), (t,))),
        (minijax.vmap(f)(p), jax.vmap(g)(p)),
        (minijax.vmap(f, (Point(0, None, 'q'),))(Point(x, 2.0, 'q')),
         jax.vmap(g, (Point(0, None, 'q'),))(Point(x, 2.0, 'q'))),
        (minijax.jit(f)(p), jax.jit(g)(p)),
    ]
    for out, ref in checks:
        _assert_trees_close(out, ref)


def _loss(np_, lax_, params, x):
    """A tiny model over every kind of node: NamedTuple, dataclass, class node, dict, None."""
    layer, scaled = params['layer'], params['scaled']
    h = lax_.tanh(x * layer.weight + layer.bias) * scaled.value.w + scaled.value.b
    return np_.sum(h * h) * scaled.scale, {'aux': None, 'h': h}


def _params(seed):
    rng = np.random.default_rng(seed)
    return {'layer': Layer(rng.normal(size=3), rng.normal(size=3)),
            'scaled': Scaled(Params(rng.normal(size=3), rng.normal()), 0.5), 'unused': None}


def test_grad_jit_vmap_over_custom_nodes_match_jax():
    params, x = _params(0), np.random.default_rng(1).normal(size=3)
    mine = functools.partial(_loss, minijax.numpy, lax)
    ref = functools.partial(_loss, jax.numpy, jax.lax)
    _assert_trees_close(minijax.grad(lambda p, x: mine(p, x)[0])(params, x),
                        jax.grad(lambda p, x: ref(p, x)[0])(params, x))
    _assert_trees_close(minijax.jit(mine)(params, x), jax.jit(ref)(params, x))
    xs = np.random.default_rng(2).normal(size=(4, 3))
    _assert_trees_close(minijax.vmap(mine, (None, 0))(params, xs),
                        jax.vmap(ref, (None, 0))(params, xs))
    axes = {'layer': Layer(0, None), 'scaled': Scaled(Params(None, None), 0.5), 'unused': None}
    batched = {**params, 'layer': Layer(np.stack([params['layer'].weight] * 4),
                                        params['layer'].bias)}
    _assert_trees_close(minijax.vmap(mine, (axes, 0))(batched, xs),
                        jax.vmap(ref, (axes, 0))(batched, xs))


def test_vmap_in_axes_not_a_prefix_is_a_value_error_naming_the_path():
    params = Params(np.ones(3), np.ones(3))
    with pytest.raises(ValueError):
        jax.vmap(lambda p: p.w, (Pair(0, 0),))(params)
    with pytest.raises(ValueError, match=r'vmap in_axes\[0\]'):
        minijax.vmap(lambda p: p.w, (Pair(0, 0),))(params)


def _loops(cf, np_, init, xs):
    """scan, fori_loop, while_loop and cond carrying NamedTuple/dataclass/OrderedDict/None."""
    def step(carry, x):
        new = Params(carry.w * 0.5 + x, carry.b + np_.sum(x))
        return new, collections.OrderedDict(z=new.b, a=None, y=(new.w,))

    carry, ys = cf.scan(step, init, xs)

    def body(i, c):
        return Layer(c.weight + i * c.bias, c.bias * 0.9, c.act)

    layer = cf.fori_loop(0, 3, body, Layer(carry.w, carry.b + 0 * carry.w, 'relu'))
    counted = cf.while_loop(lambda s: s.value.b < 10.0,
                              lambda s: Scaled(Params(s.value.w * 2, s.value.b + 1.5), s.scale),
                              Scaled(Params(layer.bias, carry.b), 3.0))
    chosen = cf.cond(carry.b > 0, lambda t: t, lambda t: Params(t.w * 2.0, t.b),
                     Params(counted.value.b, None))
    return carry, ys, layer, counted, chosen


def test_control_flow_carries_custom_nodes_match_jax():
    rng = np.random.default_rng(3)
    init, xs = Params(rng.normal(size=2), 0.25), rng.normal(size=(5, 2))
    mine = functools.partial(_loops, minijax, minijax.numpy)
    ref = functools.partial(_loops, jax.lax, jax.numpy)
    _assert_trees_close(mine(init, xs), ref(init, xs))
    _assert_trees_close(minijax.jit(mine)(init, xs), jax.jit(ref)(init, xs))


def test_partial_crosses_jit_as_in_jax():
    def apply(fn, x):
        return fn(x)

    mine = tree_util.Partial(lambda a, x: a * x, np.arange(3.0))
    ref = jax.tree_util.Partial(lambda a, x: a * x, np.arange(3.0))
    assert len(tree_util.tree_leaves(mine)) == len(jax.tree_util.tree_leaves(ref)) == 1
    np.testing.assert_allclose(np.asarray(minijax.jit(apply)(mine, 2.0)),
                               np.asarray(jax.jit(apply)(ref, 2.0)))


class _Multiplier:
    """The Sharp Bits' "Using jit with class methods" class: its aux data is a dict."""
    def __init__(self, x, mul):
        self.x, self.mul = x, mul

    def calc(self, y):
        return self.x * y if self.mul else y


for _register in (register_pytree_node, jax.tree_util.register_pytree_node):
    _register(_Multiplier, lambda m: ((m.x,), {'mul': m.mul}),
              lambda aux, children: _Multiplier(*children, **aux))


def test_jit_takes_nodes_with_unhashable_aux_data_as_jax():
    """aux data is compared with ==, not hashed: each distinct value traces once, as in JAX."""
    traces = {'mine': 0, 'jax': 0}

    def calc(who):
        def f(m, y):
            traces[who] += 1
            return m.calc(y)
        return f

    mine, ref = minijax.jit(calc('mine')), jax.jit(calc('jax'))
    for mul in (True, False, True):
        m, y = _Multiplier(np.arange(3.0), mul), np.full(3, 2.0)
        np.testing.assert_array_equal(np.asarray(mine(m, y)), np.asarray(ref(m, y)))
    assert traces['mine'] == traces['jax'] == 2


def test_jvp_structure_mismatch_is_an_error():
    with pytest.raises(TypeError):
        minijax.jvp(lambda p: p[0], ((1.0, 2.0),), ([1.0, 2.0],))


# ----------------------------------------------------------------------------- one level, broadcast

@pytest.mark.parametrize('call', [
    lambda tu: tu.flatten_one_level({'a': 1, 'b': [2, 3]}),
    lambda tu: tu.flatten_one_level((1, None, [2])),
    lambda tu: tu.flatten_one_level_with_keys({'a': 1, 'b': [2, 3]}),
    lambda tu: tu.flatten_one_level_with_keys([4, (5,)]),
    lambda tu: tu.tree_broadcast([1, {'a': 2}], [(3, 4), {'a': [5, 6]}]),
    lambda tu: tu.tree_broadcast(1, [(3, 4), {'a': [5, 6]}]),
    lambda tu: tu.tree_broadcast((1, 2), ((3, None), [4, 5]), is_leaf=lambda x: x is None),
    lambda tu: [tu.tree_reduce_associative(lambda a, b: f'({a}+{b})', list('abcde'))],
    lambda tu: tu.tree_reduce_associative(lambda a, b: a + b, {'x': 1, 'y': (2, 3)}),
    lambda tu: tu.tree_reduce_associative(lambda a, b: a + b, [], identity=0),
    lambda tu: tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1, {'a': 2}])]),
    lambda tu: [tu.is_tree_node(t) for t in (list, dict, int, type(None), Params, np.ndarray)],
], ids=['one_level_dict', 'one_level_tuple', 'with_keys_dict', 'with_keys_list',
        'broadcast_prefix', 'broadcast_leaf', 'broadcast_is_leaf', 'reduce_assoc_order',
        'reduce_assoc_dict', 'reduce_assoc_identity', 'treedef_tuple', 'is_tree_node'])
def test_tree_util_helpers_match_jax(call):
    assert repr(call(tree_util)) == repr(call(jax.tree_util))


@pytest.mark.parametrize('call', [
    lambda tu: tu.flatten_one_level(1.5),
    lambda tu: tu.tree_reduce_associative(lambda a, b: a + b, []),
    lambda tu: tu.tree_broadcast([1, 2], [1, 2, 3]),
], ids=['flatten_a_leaf', 'reduce_nothing', 'broadcast_not_a_prefix'])
def test_tree_util_helpers_refuse_as_jax(call):
    with pytest.raises(Exception) as theirs:
        call(jax.tree_util)
    with pytest.raises(type(theirs.value)):
        call(tree_util)


def test_register_static_and_tree_static_keep_values_out_of_the_leaves():
    for api in (minijax, jax):
        @api.tree_util.register_static
        class Mode(str):
            pass

        @api.tree_util.register_dataclass
        @dataclasses.dataclass
        class Op:
            x: float
            op: str = api.tree.static(default='add')

        tree = [Mode('fast'), Op(2.0)]
        leaves, treedef = api.tree.flatten(tree)
        assert leaves == [2.0]
        assert api.tree.unflatten(treedef, [5.0]) == [Mode('fast'), Op(5.0)]
        assert api.jit(lambda m, o: o.x * (2 if m == 'fast' else 3))(Mode('fast'), Op(1.5)) == 3
        assert api.tree.broadcast(1, [0, (0,)]) == [1, (1,)]
        assert api.tree.reduce_associative(lambda a, b: a * b, [2, 3, 4]) == 24
