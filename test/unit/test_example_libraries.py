"""minijax.example_libraries (stax, optimizers) against jax.example_libraries: the same
programs, imports changed, give JAX's parameters (same keys, same draws) and JAX's training
trajectory step for step; bad input raises JAX's exception types. Each side traces one jitted
program per test where it can (compiles dominate)."""
import jax
import jax.numpy as jjnp
import jax.random as jr
import numpy as np
import pytest
from jax.example_libraries import optimizers as jopt
from jax.example_libraries import stax as jstax

import minijax
import minijax.numpy as mjnp
import minijax.random as mr
from minijax.example_libraries import optimizers as mopt
from minijax.example_libraries import stax as mstax

jax.config.update('jax_enable_x64', True)

LIBS = {'jax': (jax, jjnp, jr, jstax, jopt), 'minijax': (minijax, mjnp, mr, mstax, mopt)}


def assert_trees_close(mine, theirs, rtol=1e-12):
    mine_leaves, mine_def = jax.tree.flatten(mine)
    their_leaves, their_def = jax.tree.flatten(theirs)
    assert len(mine_leaves) == len(their_leaves), (mine_def, their_def)
    for a, b in zip(mine_leaves, their_leaves):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-14)


def convnet(stax):
    """Every layer stax has, once: convolutions, pooling, normalization, routing."""
    return stax.serial(
        stax.Conv(4, (3, 3), padding='SAME'), stax.BatchNorm(), stax.Relu,
        stax.MaxPool((2, 2), strides=(2, 2)),
        stax.FanOut(3),
        stax.parallel(stax.AvgPool((2, 2), padding='SAME'),
                      stax.serial(stax.SumPool((2, 2), padding='SAME'), stax.Tanh),
                      stax.GeneralConv(('NHWC', 'OIHW', 'NHWC'), 4, (1, 1))),
        stax.FanInConcat(-1),
        stax.ConvTranspose(3, (2, 2), strides=(2, 2)), stax.Elu, stax.Gelu,
        stax.shape_dependent(lambda shape: stax.Dense(shape[-1])),
        stax.FanOut(2), stax.parallel(stax.Selu, stax.LeakyRelu), stax.FanInSum,
        stax.BatchNorm(axis=(0, 3), center=False), stax.Softplus, stax.Sigmoid,
        stax.Dropout(0.75), stax.Flatten, stax.Identity,
        stax.Dense(5, stax.glorot(), stax.randn()), stax.Exp, stax.Softmax, stax.LogSoftmax)


def conv1d(stax):
    return stax.serial(stax.Conv1DTranspose(2, (3,), strides=(2,), padding='SAME'),
                       stax.GeneralConvTranspose(('NHC', 'HIO', 'NHC'), 3, (2,)),
                       stax.MaxPool((2,), spec='NWC'), stax.AvgPool((3,), (1,), spec='NWC'),
                       stax.BatchNorm(axis=0, scale=False), stax.Flatten,
                       stax.Dense(2), stax.LogSoftmax)


def _init_and_apply(name, net, input_shape, x):
    _, _, random, stax, _ = LIBS[name]
    init, apply = net(stax)
    out_shape, params = init(random.PRNGKey(11), input_shape)
    out = apply(params, x, rng=random.PRNGKey(3))
    return tuple(out_shape), params, out


@pytest.mark.parametrize('net, input_shape', [(convnet, (2, 8, 8, 3)), (conv1d, (3, 6, 2))],
                         ids=['convnet', 'conv1d'])
def test_stax_init_and_apply_are_jaxs(net, input_shape, rng):
    x = rng.standard_normal(input_shape)
    mine = _init_and_apply('minijax', net, input_shape, x)
    theirs = _init_and_apply('jax', net, input_shape, x)
    assert mine[0] == theirs[0]
    assert_trees_close(mine[1], theirs[1], rtol=0)   # the same draws, bit for bit
    assert_trees_close(mine[2], theirs[2], rtol=1e-10)


SCHEDULES = {
    'constant': lambda o: o.constant(0.1),
    'exponential_decay': lambda o: o.exponential_decay(0.1, 2, 0.5),
    'inverse_time_decay': lambda o: o.inverse_time_decay(0.1, 2, 0.5),
    'inverse_time_decay-staircase': lambda o: o.inverse_time_decay(0.1, 2, 0.5, True),
    'polynomial_decay': lambda o: o.polynomial_decay(0.1, 2, 0.01, 2.0),
    'piecewise_constant': lambda o: o.piecewise_constant([1, 2], [0.1, 0.05, 0.01]),
}

OPTIMIZERS = {
    'sgd': lambda o: o.sgd(0.1),
    'momentum': lambda o: o.momentum(o.exponential_decay(0.1, 2, 0.5), 0.9),
    'nesterov': lambda o: o.nesterov(0.05, mass=0.8),
    'adagrad': lambda o: o.adagrad(0.1),
    'rmsprop': lambda o: o.rmsprop(0.01, gamma=0.8),
    'rmsprop_momentum': lambda o: o.rmsprop_momentum(o.inverse_time_decay(0.01, 1, 1.)),
    'adam': lambda o: o.adam(0.01),
    'adamax': lambda o: o.adamax(0.02, b1=0.8),
    'sm3': lambda o: o.sm3(o.piecewise_constant([1], [0.1, 0.05])),
}


def _train(name, x, labels, steps=3):
    """An MLP trained by every optimizer at once, one jitted step for all."""
    lib, jnp, random, stax, optimizers = LIBS[name]
    init, apply = stax.serial(stax.Dense(8), stax.Relu, stax.Dense(3), stax.LogSoftmax)
    _, params = init(random.PRNGKey(0), x.shape)
    opts = {k: make(optimizers) for k, make in OPTIMIZERS.items()}

    def loss(params):
        return -jnp.mean(jnp.sum(apply(params, x) * labels, axis=-1))

    @lib.jit
    def step(i, states, params):   # sm3's get_params reshapes to its state: outside jit
        out = {}
        for k, (_, update, _) in opts.items():
            grads = lib.grad(loss)(params[k])
            out[k] = update(i, optimizers.clip_grads(grads, 10.), states[k])
        schedules = [make(optimizers)(i) for make in SCHEDULES.values()]
        return out, schedules

    states = {k: init_fn(params) for k, (init_fn, _, _) in opts.items()}
    history = []
    for i in range(steps):
        params = {k: opts[k].params_fn(s) for k, s in states.items()}
        states, schedules = step(i, states, params)
        history.append(({k: opts[k].params_fn(s) for k, s in states.items()}, schedules))
    norms = [optimizers.l2_norm(p) for p in history[-1][0].values()]
    return history, norms


def test_optimizers_train_as_jaxs_step_for_step(rng):
    x = rng.standard_normal((6, 4))
    labels = np.eye(3)[rng.integers(0, 3, 6)]
    mine, theirs = _train('minijax', x, labels), _train('jax', x, labels)
    for step, (mine_step, their_step) in enumerate(zip(mine[0], theirs[0])):
        for k in OPTIMIZERS:
            assert_trees_close(mine_step[0][k], their_step[0][k], rtol=1e-10)
        assert_trees_close(mine_step[1], their_step[1])
    assert_trees_close(mine[1], theirs[1], rtol=1e-10)


def test_optimizer_state_packs_and_unpacks_as_jaxs():
    params = {'w': np.ones((2, 3)), 'b': [np.zeros(3), np.float64(2.)]}
    results = {}
    for name, (lib, _, _, _, optimizers) in LIBS.items():
        init, update, get_params = optimizers.sm3(0.1)
        state = init(params)
        marked = optimizers.unpack_optimizer_state(state)
        repacked = optimizers.pack_optimizer_state(marked)
        assert repacked.tree_def == state.tree_def
        results[name] = (get_params(repacked), repacked.packed_state,
                         len(lib.tree.leaves(state)))
        assert isinstance(lib.tree.leaves(marked, is_leaf=lambda x: isinstance(
            x, optimizers.JoinPoint))[0], optimizers.JoinPoint)
    assert_trees_close(results['minijax'][:2], results['jax'][:2])
    assert results['minijax'][2] == results['jax'][2]


def _errors(optimizers, stax, random):
    init, update, _ = optimizers.sgd(0.1)
    return {
        'grad tree': lambda: update(0, [1.], init((1.,))),
        'schedule': lambda: optimizers.make_schedule(np.ones(2)),
        'boundaries': lambda: optimizers.piecewise_constant([[1]], [[0.1, 0.2]]),
        'values length': lambda: optimizers.piecewise_constant([1, 2], [0.1, 0.2]),
        'dropout rng': lambda: stax.Dropout(0.5)[1]((), np.ones(2)),
    }


def test_bad_input_raises_jaxs_exceptions():
    mine, theirs = _errors(mopt, mstax, mr), _errors(jopt, jstax, jr)
    for what in theirs:
        with pytest.raises(Exception) as their_error:
            theirs[what]()
        with pytest.raises(type(their_error.value)):
            mine[what]()


def _helpers(optimizers, stax):
    """The list helpers the optimizers module exports, and stax's log-softmax function."""
    def error(thunk):
        try:
            thunk()
        except ValueError as raised:
            return str(raised)
    return [optimizers.safe_map(lambda a, b: a * b, [1, 2], (3, 4)),
            optimizers.safe_zip([1, 2], 'ab'), optimizers.unzip2([(1, 'a'), (2, 'b')]),
            error(lambda: optimizers.safe_map(print, [1, 2], [1])),
            error(lambda: optimizers.safe_map(print, [1], [1], [1, 2])),
            error(lambda: optimizers.safe_zip([1, 2], [1, 2], [1])),
            np.asarray(stax.logsoftmax(np.array([[0., 1., 5.], [2., 2., -1.]])))]


def test_helpers_are_jaxs():
    mine, theirs = _helpers(mopt, mstax), _helpers(jopt, jstax)
    assert mine[:-1] == theirs[:-1]
    assert_trees_close(mine[-1], theirs[-1])
