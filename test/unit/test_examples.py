"""The examples run, and their numbers agree with independent answers."""
import importlib.util
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax

jax.config.update('jax_enable_x64', True)
EXAMPLES = pathlib.Path(__file__).parents[2] / 'examples'


def load(name):
    spec = importlib.util.spec_from_file_location(f'example_{name}', EXAMPLES / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_loss_falls_and_its_gradient_is_jaxs():
    mlp = load('mlp')
    losses = mlp.main(steps=150, verbose=False)
    assert losses[-1] < 0.1 * losses[0]
    rng = np.random.default_rng(1)
    params = mlp.init_params(rng, [8, 32, 1])
    x = rng.normal(size=(16, 8)).astype(np.float32)
    y = rng.normal(size=(16, 1)).astype(np.float32)

    def jax_loss(params, x, y):
        (w1, b1), (w2, b2) = params
        return jnp.mean((jnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)

    mine = minijax.grad(mlp.loss)(params, x, y)
    theirs = jax.grad(jax_loss)(params, x, y)
    for a, b in zip(jax.tree_util.tree_leaves(mine), jax.tree_util.tree_leaves(theirs)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def test_newton_finds_the_roots_numpy_finds():
    root, square_roots = load('newton').main(verbose=False)
    real_root = [r.real for r in np.roots([1., 0., -2., -5.]) if abs(r.imag) < 1e-12][0]
    assert root == pytest.approx(real_root, abs=1e-12)
    np.testing.assert_allclose(square_roots, np.sqrt([2., 9., 10.]), rtol=1e-12)


def test_softmax_regression_learns_and_its_loss_is_jaxs():
    example = load('softmax_regression')
    losses, accuracy = example.main(verbose=False)
    assert losses[-1] < 0.5 * losses[0] and accuracy > 0.8
    rng = np.random.default_rng(2)
    x, labels = example.make_blobs(rng, per_class=5)
    one_hot = np.eye(3, dtype=np.float32)[labels]
    params = (rng.normal(size=(2, 3)).astype(np.float32), np.zeros(3, np.float32))

    def jax_loss(params, x, one_hot):
        w, b = params
        return -jnp.mean(jnp.sum(one_hot * jax.nn.log_softmax(x @ w + b), axis=1))

    np.testing.assert_allclose(example.cross_entropy(params, x, one_hot),
                               jax_loss(params, x, one_hot), rtol=1e-5)
    for a, b in zip(minijax.grad(example.cross_entropy)(params, x, one_hot),
                    jax.grad(jax_loss)(params, x, one_hot)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_multiply_add_example_runs(capsys):
    load('multiply_add').main()
    assert 'grad:          4.0' in capsys.readouterr().out
