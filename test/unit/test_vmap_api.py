"""The vmap API against jax.vmap: in_axes and out_axes as ints, None, tuples, lists and pytree
prefixes, nested vmap, unmapped outputs, and bad axes. (Each primitive's vmap rule is tested
in ``test_rules.py``.)"""
import jax
import numpy as np
import pytest
from testlib import F32, F64, assert_close, random_array

import minijax
from minijax import lax as mlax


def _f_pytree(p, s):
    """A function of a dict and a scalar, returning a pytree."""
    y = mlax.mul(p['w'], p['x'])
    return {'y': mlax.add(y, s), 'z': (mlax.sin(p['x']),)}


def _j_pytree(p, s):
    y = p['w'] * p['x']
    return {'y': y + s, 'z': (jax.numpy.sin(p['x']),)}


@pytest.mark.parametrize('in_axes', [
    0,
    (0, None),
    ({'w': 0, 'x': 1}, None),
    ({'w': None, 'x': 1}, 0),
    ({'w': 1, 'x': None}, None),
    [{'w': 0, 'x': 0}, 0],
    (-1, None),
])
def test_vmap_in_axes_forms(in_axes, rng):
    """in_axes as int, None, tuple, list and per-argument pytree prefix; negative axes."""
    n = 3
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes, in_axes)
    p_axes = axes[0] if isinstance(axes[0], dict) else {'w': axes[0], 'x': axes[0]}

    def arg(shape, ax):
        if ax is None:
            return random_array(rng, shape, F64)
        ax = ax % (len(shape) + 1)
        return random_array(rng, (*shape[:ax], n, *shape[ax:]), F64)

    p = {'w': arg((4,), p_axes['w']), 'x': arg((4,), p_axes['x'])}
    s = arg((), axes[1]) if axes[1] is not None else np.float64(1.5)
    if isinstance(in_axes, list):
        jax_axes = tuple(in_axes)
    else:
        jax_axes = in_axes
    out = minijax.vmap(_f_pytree, in_axes)(p, s)
    ref = jax.vmap(_j_pytree, jax_axes)(p, s)
    assert out.keys() == ref.keys() and isinstance(out['z'], tuple)
    assert_close(out['y'], ref['y'])
    assert_close(out['z'][0], ref['z'][0])


@pytest.mark.parametrize('out_axes', [0, 1, -1, {'y': 1, 'z': (0,)}, {'y': 0, 'z': None}])
def test_vmap_out_axes_forms(out_axes, rng):
    p = {'w': random_array(rng, (3, 4), F64), 'x': random_array(rng, (4,), F64)}
    in_axes = ({'w': 0, 'x': None}, None)
    out = minijax.vmap(_f_pytree, in_axes, out_axes)(p, 2.0)
    ref = jax.vmap(_j_pytree, in_axes, out_axes)(p, 2.0)
    assert_close(out['y'], ref['y'])
    assert_close(out['z'][0], ref['z'][0])


@pytest.mark.parametrize('out_axes', [0, None])
def test_vmap_leaf_out_axes_never_rebuild_the_output_type(out_axes):
    """A pytree class whose constructor checks its leaves (the custom-pytrees page's
    ``MyTree``, calling ``jnp.asarray``): with one axis for every output, vmap, as JAX's,
    builds no stand-in of the output type to spread the axis over."""
    results = []
    for api in (jax, minijax):
        class MyTree:
            def __init__(self, a):
                self.a = api.numpy.asarray(a)
        api.tree_util.register_pytree_node(MyTree, lambda t: ((t.a,), None),
                                           lambda _, children: MyTree(*children))
        size = {0: {}, None: {'axis_size': 2}}[out_axes]
        out = api.vmap(lambda t: t, out_axes, out_axes, **size)(MyTree(np.arange(5.)))
        results.append((type(out).__name__, np.asarray(out.a)))
    assert results[0][0] == results[1][0]
    assert_close(results[1][1], results[0][1])


def test_vmap_seed_style_tuple_in_axes():
    out = minijax.vmap(lambda s: 1. + s, (0,))(np.arange(3.))
    assert_close(out, np.array([1., 2., 3.]))


def test_vmap_of_vmap(rng):
    x = random_array(rng, (2, 3, 4), F32)
    y = random_array(rng, (3, 2), F32)
    f = lambda a, b: mlax.reduce_sum(mlax.mul(mlax.sin(a), b))  # noqa: E731
    g = lambda a, b: jax.numpy.sum(jax.numpy.sin(a) * b)  # noqa: E731
    out = minijax.vmap(minijax.vmap(f, (0, 1)), (2, None))(x, y)
    ref = jax.vmap(jax.vmap(g, (0, 1)), (2, None))(x, y)
    assert_close(out, ref)


def test_vmap_unmapped_output_is_broadcast(rng):
    """An output that does not depend on the mapped input still gets the batch axis."""
    c = random_array(rng, (3,), F64)
    x = random_array(rng, (5, 3), F64)
    out = minijax.vmap(lambda x: (mlax.sin(x), mlax.cos(c)), in_axes=(0,), out_axes=1)(x)
    ref = jax.vmap(lambda x: (jax.numpy.sin(x), jax.numpy.cos(c)), in_axes=(0,), out_axes=1)(x)
    assert_close(out[0], ref[0])
    assert_close(out[1], ref[1])


@pytest.mark.parametrize('in_axes,args', [
    ((0, 0), (np.zeros(3), np.zeros(4))),       # inconsistent sizes
    ((0,), (np.zeros(3), np.zeros(3))),         # wrong number of entries
    ((2,), (np.zeros(3),)),                     # axis out of range
    ((None,), (np.zeros(3),)),                  # nothing mapped
])
def test_vmap_bad_in_axes(in_axes, args):
    with pytest.raises((ValueError, TypeError)):
        minijax.vmap(lambda *xs: xs[0], in_axes)(*args)


@pytest.mark.parametrize('f,out_axes,arg', [
    (lambda x: mlax.reduce_sum(x), 1, np.ones((3, 2))),   # a scalar per example: rank 1
    (lambda x: x, 2, np.ones((3, 2))),
    (lambda x: x, -3, np.ones((3, 2))),
])
def test_vmap_out_axes_out_of_range(f, out_axes, arg):
    """JAX rejects these too; minijax must not wrap the axis around silently."""
    with pytest.raises(ValueError):
        jax.vmap(lambda x: x.sum() if np.ndim(f(np.ones(2))) == 0 else x,
                 out_axes=out_axes)(arg)
    with pytest.raises(ValueError, match='out_axes'):
        minijax.vmap(f, out_axes=out_axes)(arg)
