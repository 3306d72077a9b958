"""pmap and the collectives on 4 CPU devices, against JAX on 4 CPU devices (conftest.py asks
both for 4 before their clients start). pmap compiles are slow: each case compiles one
program per library and checks many things with it."""
import importlib.util
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import jax_answer

import minijax as mj
import minijax.numpy as mnp
from minijax import lax as mlax

jax.config.update('jax_enable_x64', True)
N = 4
X = np.random.default_rng(0).normal(size=(N, N, 2))  # (devices, per-device (N, 2))


def collectives(lax):
    """Every collective, once, on a per-device (N, 2) value: the same program for both."""
    def f(x):
        return (lax.psum(x, 'i'), lax.pmean(x, 'i'), lax.pmax(x, 'i'), lax.pmin(x, 'i'),
                lax.axis_index('i'), lax.all_gather(x, 'i', axis=1),
                lax.all_gather(x, 'i', tiled=True), lax.psum_scatter(x, 'i'),
                lax.psum_scatter(x, 'i', scatter_dimension=0, tiled=True),
                lax.ppermute(x, 'i', [(0, 1), (1, 2), (2, 3)]), lax.all_to_all(x, 'i', 0, 1),
                lax.pshuffle(x, 'i', [2, 0, 3, 1]), lax.pswapaxes(x, 'i', 0))
    return f


@pytest.fixture(scope='module')
def jax_collectives():
    return jax.pmap(collectives(jax.lax), 'i')(X)


def _assert_all_close(mine, theirs):
    assert len(mine) == len(theirs)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert np.shape(a) == np.shape(b), k
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, err_msg=str(k))


def test_collectives_under_pmap_are_jaxs(jax_collectives):
    assert mj.device_count() == N == jax.device_count()
    assert [d.id for d in mj.devices()] == [d.id for d in jax.devices()] == list(range(N))
    mine = mj.pmap(collectives(mlax), 'i')(X)
    _assert_all_close(mine, jax_collectives)
    # pmap's results (from the replicated programs' client) feed single-device programs
    combine = lambda a, b, c: a * b + c  # noqa: E731
    ours = mj.jit(combine)(mine[0], mine[1], mj.device_put(X, mj.devices()[0]))
    theirs = combine(*map(np.asarray, jax_collectives[:2]), X)  # JAX refuses mixed devices
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_collectives_under_vmap_with_an_axis_name_are_what_pmap_gives(jax_collectives):
    """The batching rules over the vmapped axis compute what XLA's collectives do."""
    _assert_all_close(mj.vmap(collectives(mlax), axis_name='i')(X), jax_collectives)


def _linear_collectives(lax, pmap, np_):
    """A scalar loss through pmap, using each differentiable collective and an input that
    every device shares (in_axes None), so its cotangent sums over devices."""
    def device(x, w):
        y = np_.sin(x) * lax.psum(x * w, 'i') + lax.ppermute(x, 'i', [(0, 1), (1, 0)])
        z = lax.all_gather(y, 'i').sum(0) + lax.all_to_all(y * w, 'i', 0, 0)
        return np_.tanh(lax.psum_scatter(z, 'i')) * lax.pmean(w, 'i')
    return lambda x, w: np_.sum(pmap(device, 'i', in_axes=(0, None))(x, w) ** 2)


def test_grad_of_pmap_through_the_collectives_is_jaxs():
    w = np.linspace(0.5, 1.5, 2)
    mine = mj.value_and_grad(_linear_collectives(mlax, mj.pmap, mnp), (0, 1))(X, w)
    theirs = jax.value_and_grad(_linear_collectives(jax.lax, jax.pmap, jnp), (0, 1))(X, w)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    _assert_all_close(mine[1], theirs[1])


def test_vmap_and_jvp_of_pmap_are_jaxs():
    def f(pmap, lax, np_):
        return pmap(lambda v: np_.cos(v) * lax.psum(v, 'i'), 'i')
    xs = np.stack([X[:, :, 0], X[:, :, 1]])  # (2, N, N): vmap over 2, pmap over N
    np.testing.assert_allclose(mj.vmap(f(mj.pmap, mlax, mnp))(xs),
                               jax.vmap(f(jax.pmap, jax.lax, jnp))(xs), rtol=1e-12)
    _assert_all_close(mj.jvp(f(mj.pmap, mlax, mnp), (X[:, 0],), (X[:, 1],)),
                      jax.jvp(f(jax.pmap, jax.lax, jnp), (X[:, 0],), (X[:, 1],)))


@pytest.mark.filterwarnings('ignore:Some donated buffers were not usable')  # JAX's, on CPU
def test_donate_argnums_is_accepted_as_jax_accepts_it():
    f = lambda v, w: v * w  # noqa: E731
    np.testing.assert_array_equal(mj.pmap(f, donate_argnums=(0, 1))(X[:, 0], X[:, 1]),
                                  jax.pmap(f, donate_argnums=(0, 1))(X[:, 0], X[:, 1]))


def test_seed_004_func13_gives_the_seeds_numbers():
    def func13(arr, extra):
        def inner(x):
            return (x + extra + mnp.ones(1)) / mlax.psum(x, axis_name='rows')
        return mj.pmap(inner, axis_name='rows')(arr)

    np.testing.assert_array_equal(func13(mnp.ones((1, 3)), 5.), np.full((1, 3), 7.))
    text = str(mj.make_jaxpr(func13)(mnp.ones((1, 3)), 5.))
    assert 'xla_pmap[' in text and 'axis_name=rows' in text and 'axis_size=1' in text
    assert "psum[axes=('rows',) axis_index_groups=None]" in text  # as JAX prints it


def test_seed_004_func13_constant_is_an_operand_as_the_seed_prints():
    """The seed's ``{ lambda c ; a b. xla_pmap[...] c b a }``: the body's constant (a NumPy
    array here; the seed's JAX made ``jnp.ones(1)`` one) is a constvar of the outer jaxpr,
    passed first and broadcast, then the free variable, then the mapped argument."""
    def func13(arr, extra):
        def inner(x):
            return (x + extra + np.ones(1)) / mlax.psum(x, axis_name='rows')
        return mj.pmap(inner, axis_name='rows')(arr)

    jaxpr = mj.make_jaxpr(func13)(mnp.ones((1, 3)), 5.).jaxpr
    (eqn,) = jaxpr.eqns
    (const,), (arr, extra) = jaxpr.constvars, jaxpr.invars
    assert eqn.inputs == [const, extra, arr]
    assert eqn.params['mapped_invars'] == (False, False, True)
    assert not eqn.params['call_jaxpr'].consts
    np.testing.assert_array_equal(func13(mnp.ones((1, 3)), 5.), np.full((1, 3), 7.))


def _load_example(name):
    path = pathlib.Path(__file__).parents[2] / 'examples' / f'{name}.py'
    spec = importlib.util.spec_from_file_location(f'example_{name}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_data_parallel_mlp_step_is_the_single_device_step():
    """pmap over 4 shards + pmean of the gradients = JAX's step on the whole batch."""
    example = _load_example('data_parallel_mlp')
    rng = np.random.default_rng(3)
    params = example.init_params(rng, [8, 16, 1])
    x, y = rng.normal(size=(32, 8)), rng.normal(size=(32, 1))

    def jax_loss(params, x, y):
        (w1, b1), (w2, b2) = params
        return jnp.mean((jnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)

    value, grads = jax.jit(jax.value_and_grad(jax_loss))(params, x, y)
    expected = [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)]
    new_params, mine = example.train_step(params, example.shard(x), example.shard(y), 0.1)
    np.testing.assert_allclose(mine, value, rtol=1e-5)
    for a, b in zip(jax.tree_util.tree_leaves(new_params), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('call, error, message', [
    (lambda: mj.pmap(lambda v: v)(np.ones((5, 2))), ValueError,
     'axis has size 5 but only 4 devices'),
    (lambda: mj.pmap(lambda v, w: v, in_axes=(0, 1))(np.ones((2, 3)), np.ones((2, 3))),
     ValueError, r'different sizes \[2, 3\]'),
    (lambda: mj.make_jaxpr(lambda v: mlax.psum(v, 'rows'))(1.), NameError,
     'unbound axis name: rows'),
    (lambda: mj.pmap(lambda v: mlax.psum(v, 'j'), 'i')(np.ones(2)), NameError,
     'unbound axis name: j'),
    (lambda: mj.jit(mj.pmap(lambda v: v, 'i'))(np.ones(2)), NotImplementedError,
     'inside jit'),
    (lambda: mj.pmap(lambda v: mlax.ppermute(v, 'i', [(0, 1), (1, 1)]), 'i')(np.ones(2)),
     ValueError, 'distinct targets'),
])
def test_bad_pmaps_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_axis_size_must_be_the_mapped_size_as_in_jax():
    double = lambda x: x * 2  # noqa: E731
    x = X[:2, 0]
    np.testing.assert_array_equal(mj.pmap(double, axis_size=2)(x),
                                  jax.pmap(double, axis_size=2)(x))
    with pytest.raises(ValueError) as theirs:
        jax.pmap(double, axis_size=3)(x)
    with pytest.raises(ValueError) as mine:
        mj.pmap(double, axis_size=3)(x)
    assert str(mine.value) == str(theirs.value)


GROUPS = [[0, 2], [1, 3]]


def grouped(lax, groups=GROUPS):
    """Every reduction over the groups of the axis ``i``."""
    return lambda x: (lax.psum(x, 'i', axis_index_groups=groups),
                      lax.pmax(x, 'i', axis_index_groups=groups),
                      lax.pmin(x, 'i', axis_index_groups=groups),
                      lax.pmean(x, 'i', axis_index_groups=groups))


def test_axis_index_groups_under_pmap_are_jaxs():
    x = X[:, 0]
    for mine, theirs in zip(mj.pmap(grouped(mlax), 'i')(x), jax.pmap(grouped(jax.lax), 'i')(x)):
        np.testing.assert_array_equal(mine, theirs)
    uneven = [[0], [1, 2, 3]]  # (groups of unequal sizes: XLA takes them, JAX passes them)
    np.testing.assert_array_equal(
        mj.pmap(lambda v: mlax.psum(v, 'i', axis_index_groups=uneven), 'i')(x),
        jax.pmap(lambda v: jax.lax.psum(v, 'i', axis_index_groups=uneven), 'i')(x))

    def loss(lib, lax):
        return lambda v: (lib.pmap(lambda w: lax.psum(w, 'i', axis_index_groups=GROUPS) * w,
                                   'i')(v) ** 2).sum()
    np.testing.assert_allclose(mj.grad(loss(mj, mlax))(x), jax.grad(loss(jax, jax.lax))(x))


@pytest.mark.parametrize('groups', [GROUPS, [[0], [1, 2, 3]]], ids=['even', 'uneven'])
def test_axis_index_groups_in_shard_map_lower_as_jaxs(groups):
    x = X[:, 0]
    programs = [lib.jit(lib.shard_map(grouped(lib.lax, groups), mesh=lib.make_mesh(
        (N,), ('i',), axis_types=(lib.sharding.AxisType.Auto,)), in_specs=lib.P('i'),
        out_specs=lib.P('i'), check_vma=False)) for lib in (mj, jax)]
    assert programs[0].lower(x).as_text() == programs[1].lower(x).as_text()
    assert str(mj.make_jaxpr(programs[0])(x)) == str(jax.make_jaxpr(programs[1])(x))
    for mine, theirs in zip(programs[0](x), programs[1](x)):
        np.testing.assert_array_equal(mine, theirs)


def exchanged(lax, groups=GROUPS):
    """Every data-moving collective over the groups of the axis ``i`` (each group of 2)."""
    return lambda x: (lax.all_gather(x, 'i', axis_index_groups=groups),
                      lax.all_gather(x, 'i', axis_index_groups=groups, axis=1, tiled=True),
                      lax.psum_scatter(x, 'i', axis_index_groups=groups),
                      lax.psum_scatter(x, 'i', scatter_dimension=1, axis_index_groups=groups,
                                       tiled=True),
                      lax.all_to_all(x, 'i', 0, 1, axis_index_groups=groups),
                      lax.all_to_all(x, 'i', 1, 0, axis_index_groups=groups, tiled=True),
                      lax.pswapaxes(x, 'i', 0, axis_index_groups=groups))


@pytest.mark.parametrize('groups', [GROUPS, [[3, 0], [2, 1]]], ids=['strided', 'reordered'])
def test_axis_index_groups_of_gathers_and_exchanges_are_jaxs(groups):
    """all_gather, psum_scatter and all_to_all within groups: JAX's values under pmap and
    their gradients (each transposes to another over the same groups), and in a shard_map
    JAX's jaxpr and module (replica_groups of the groups)."""
    x = X[:, :2]  # (each device's a 2x2 block: split and gathered within groups of 2)
    for mine, theirs in zip(mj.pmap(exchanged(mlax, groups), 'i')(x),
                            jax.pmap(exchanged(jax.lax, groups), 'i')(x)):
        np.testing.assert_array_equal(mine, theirs)

    def loss(lib, lax):  # (not the untiled all_to_all's: JAX 0.10.2 fails to transpose it)
        return lambda v: sum((out ** 2).sum() for k, out in enumerate(lib.pmap(
            exchanged(lax, groups), 'i')(v)) if k != 4)
    np.testing.assert_allclose(mj.grad(loss(mj, mlax))(x),
                               jax_answer(jax.grad(loss(jax, jax.lax)), x))
    programs = [lib.jit(lib.shard_map(exchanged(lib.lax, groups), mesh=lib.make_mesh(
        (N,), ('i',), axis_types=(lib.sharding.AxisType.Auto,)), in_specs=lib.P('i'),
        out_specs=lib.P('i'), check_vma=False)) for lib in (mj, jax)]
    flat = x.reshape(N * 2, 2)
    assert str(mj.make_jaxpr(programs[0])(flat)) == str(jax.make_jaxpr(programs[1])(flat))
    assert programs[0].lower(flat).as_text() == programs[1].lower(flat).as_text()


def test_axis_index_groups_errors_are_jaxs():
    x = X[:, 0]
    for lib in (jax, mj):  # (vmap does not take them, in JAX either)
        with pytest.raises(NotImplementedError, match='not supported in vmap'):
            lib.vmap(grouped(lib.lax), axis_name='i')(x)
        with pytest.raises(ValueError, match='cover all indices exactly once'):
            lib.pmap(grouped(lib.lax, [[0, 1], [1, 2]]), 'i')(x)
        with pytest.raises(NotImplementedError):  # (check_vma's psum_invariant has none)
            lib.shard_map(grouped(lib.lax), mesh=lib.make_mesh(
                (N,), ('i',), axis_types=(lib.sharding.AxisType.Auto,)),
                in_specs=lib.P('i'), out_specs=lib.P('i'))(x)
    with pytest.raises(ValueError, match='cover all indices exactly once'):  # (JAX: XLA's
        mj.pmap(grouped(mlax, [[0, 1, 2]]), 'i')(x)  # verifier fails, an internal error)
