"""The examples run, and their numbers agree with independent answers."""
import contextlib
import importlib.util
import io
import pathlib
import re
import shlex
import subprocess
import sys
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax

jax.config.update('jax_enable_x64', True)
REPO = pathlib.Path(__file__).parents[2]
EXAMPLES = REPO / 'examples'
#: What makes an example a minijax program rather than a JAX one: its imports.
JAX_IMPORTS = {'import minijax as jax\n': 'import jax\n',
               'import minijax.numpy as jnp\n': 'import jax.numpy as jnp\n',
               'from minijax import lax\n': 'from jax import lax\n'}


def load(name):
    spec = importlib.util.spec_from_file_location(f'example_{name}', EXAMPLES / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_on_jax(name):
    """The example with its minijax imports changed to JAX's: the same program on JAX."""
    path = EXAMPLES / f'{name}.py'
    source = path.read_text().replace('  # noqa: E402\n', '\n')  # (imports after os.environ)
    for mine, theirs in JAX_IMPORTS.items():
        assert mine in source
        source = source.replace(mine, theirs)
    module = types.ModuleType(f'example_{name}_on_jax')
    exec(compile(source, str(path), 'exec'), module.__dict__)
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


def test_cnn_loss_falls_and_the_same_program_on_jax_gives_the_same_losses():
    losses = load('cnn').main(steps=30, verbose=False)
    assert losses[-1] < 0.8 * losses[0]
    assert all(later < earlier for earlier, later in zip(losses, losses[1:]))
    np.testing.assert_allclose(losses, load_on_jax('cnn').main(steps=30, verbose=False),
                               rtol=1e-5)


def test_shard_map_mlp_trains_and_the_same_program_on_jax_gives_the_same_losses():
    """Data- and tensor-parallel training on a 2x2 mesh (4 devices, as conftest.py asks):
    the loss falls, and JAX running the same program computes the same losses."""
    losses = load('shard_map_mlp').main(steps=30, verbose=False)
    assert losses[-1] < 0.1 * losses[0]
    np.testing.assert_allclose(losses, load_on_jax('shard_map_mlp').main(steps=30,
                                                                         verbose=False),
                               rtol=1e-9)


CNN_DOC = (REPO / 'docs' / 'cnn.md').read_text()


def test_cnn_doc_shows_what_the_example_prints():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        load('cnn').main()
    assert f'```sh\npython examples/cnn.py\n```\n\n```text\n{out.getvalue()}```' in CNN_DOC


def test_cnn_doc_command_runs_and_prints_the_lines_shown_in_order():
    """Each line of the doc's StableHLO excerpt (but ``...``) is a line of what its
    ``minijax lower`` command prints, in the same order."""
    (command,) = re.findall(r'^minijax lower examples/cnn\.py:.*$', CNN_DOC, re.M)
    excerpt = CNN_DOC.split('```mlir\n', 1)[1].split('```', 1)[0].splitlines()
    program, *args = shlex.split(command)
    result = subprocess.run([pathlib.Path(sys.executable).parent / program, *args], cwd=REPO,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    printed = iter(result.stdout.splitlines())
    for line in excerpt:
        if line.strip() != '...':
            assert line in printed, line
