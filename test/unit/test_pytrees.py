"""Pytrees: flatten/unflatten of containers and user types, and pytrees through transforms."""
import jax
import numpy as np
import pytest

import minijax
from minijax import lax, tree_util
from minijax.tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten


class Point:
    def __init__(self, x, y, label='p'):
        self.x, self.y, self.label = x, y, label

    def __eq__(self, other):
        return (type(other) is Point and (self.x, self.y, self.label)
                == (other.x, other.y, other.label))

    def __repr__(self):  # a stable test id, the same in every pytest-xdist worker
        return f'Point({self.x!r}, {self.y!r}, {self.label!r})'


register_pytree_node(Point, lambda p: (p.label, [p.x, p.y]),
                     lambda label, xs: Point(xs[0], xs[1], label))
jax.tree_util.register_pytree_node(Point, lambda p: ((p.x, p.y), p.label),
                                   lambda label, xs: Point(xs[0], xs[1], label))

TREES = [
    1.0,
    (1, 2),
    [1, (2, 3), [4]],
    {'b': 1, 'a': 2, 'c': (3, 4)},
    {'z': None, 'y': [None, 5]},
    None,
    (),
    [],
    {},
    Point(1, [2, 3]),
    {'pts': [Point(1, 2, 'u'), Point(3, 4, 'v')]},
]


@pytest.mark.parametrize('tree', TREES, ids=repr)
def test_flatten_matches_jax_and_roundtrips(tree):
    leaves, treedef = tree_flatten(tree)
    assert leaves == jax.tree_util.tree_leaves(tree)
    assert treedef.num_leaves == len(leaves)
    assert tree_unflatten(treedef, leaves) == tree
    rebuilt = tree_unflatten(treedef, [10 * x for x in leaves])
    assert rebuilt == jax.tree_util.tree_map(lambda x: 10 * x, tree)


def test_dict_keys_sorted_regardless_of_insertion_order():
    l1, d1 = tree_flatten({'b': 1, 'a': 2})
    l2, d2 = tree_flatten({'a': 2, 'b': 1})
    assert l1 == l2 == [2, 1] and d1 == d2
    assert list(tree_unflatten(d1, [5, 6])) == ['a', 'b']


def test_none_is_an_empty_node_not_a_leaf():
    leaves, treedef = tree_flatten([None, 1])
    assert leaves == [1]
    assert tree_unflatten(treedef, [2]) == [None, 2]


@pytest.mark.parametrize('a,b', [
    ((1, 2), [1, 2]),
    ({'a': 1}, {'b': 1}),
    (Point(1, 2, 'u'), Point(1, 2, 'v')),   # aux data is part of the structure
    ((1, (2,)), (1, 2)),
])
def test_structures_differ(a, b):
    assert tree_flatten(a)[1] != tree_flatten(b)[1]


def test_unflatten_wrong_number_of_leaves():
    _, treedef = tree_flatten((1, 2))
    with pytest.raises((ValueError, StopIteration, RuntimeError)):
        tree_unflatten(treedef, [1, 2, 3])
    with pytest.raises((ValueError, StopIteration, RuntimeError)):
        tree_unflatten(treedef, [1])


def test_tree_map_multiple_trees():
    out = tree_map(lambda x, y: x + y, {'a': 1, 'b': (2, 3)}, {'a': 10, 'b': (20, 30)})
    assert out == {'a': 11, 'b': (22, 33)}


def test_flatten_fun_reports_output_tree():
    _, in_tree = tree_flatten(((1.0, 2.0),))
    flat, out_tree = tree_util.flatten_fun(lambda p: {'s': p[0], 'd': [p[1]]}, in_tree)
    assert flat(1.0, 2.0) == [2.0, 1.0]
    assert tree_unflatten(out_tree(), [5, 6]) == {'d': [5], 's': 6}


# ----------------------------------------------------------------------------- through transforms


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
        out_leaves, out_def = tree_flatten(out)
        ref_leaves, ref_def = jax.tree_util.tree_flatten(ref)
        assert len(out_leaves) == len(ref_leaves)
        # Same container structure (Point keeps its label).
        assert (tree_unflatten(out_def, [0] * len(out_leaves))
                == jax.tree_util.tree_unflatten(ref_def, [0] * len(ref_leaves)))
        for a, b in zip(out_leaves, ref_leaves):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)


def test_jvp_structure_mismatch_is_an_error():
    with pytest.raises(TypeError):
        minijax.jvp(lambda p: p[0], ((1.0, 2.0),), ([1.0, 2.0],))
