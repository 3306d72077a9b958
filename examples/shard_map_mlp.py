"""Data- and tensor-parallel training of the MLP with ``shard_map`` on a 2x2 mesh of CPU devices.

The mesh has a ``'batch'`` axis (data parallelism: each row of devices gets half the batch)
and a ``'model'`` axis (tensor parallelism: each column holds half the hidden units). The
first layer is split by columns, so each device computes its own hidden units with no
communication; the second is split by rows, so each device's product is a partial sum that
``lax.psum`` over ``'model'`` completes (Megatron's MLP). The loss is averaged over
``'batch'`` with ``lax.pmean``. ``grad`` goes through ``shard_map``: the gradient of a weight
every ``'batch'`` device uses is summed over them by the transpose of the cast that made
it vary. ``python examples/shard_map_mlp.py`` prints the loss as it falls and the module
of one step (``--print-module``).

The same program runs on JAX with ``import jax`` for ``import minijax as jax`` (and
likewise for numpy and lax); test_examples.py checks that it gives JAX's losses.
"""
import os
import sys

os.environ.setdefault('MINIJAX_NUM_CPU_DEVICES', '4')  # before minijax makes its CPU client

import numpy as np  # noqa: E402

import minijax as jax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import lax  # noqa: E402

P = jax.sharding.PartitionSpec
mesh = jax.make_mesh((2, 2), ('batch', 'model'), (jax.sharding.AxisType.Auto,) * 2)

#: How each parameter is split: the first layer's columns and the second layer's rows over
#: 'model'; the output bias is replicated.
PARAM_SPECS = [(P(None, 'model'), P('model')), (P('model', None), P())]


def local_loss(params, x, y):
    """One device's part: its rows of the batch, its hidden units."""
    (w1, b1), (w2, b2) = params
    hidden = jnp.tanh(x @ w1 + b1)               # this device's hidden units
    out = lax.psum(hidden @ w2, 'model') + b2    # partial sums over the hidden units
    return lax.pmean(jnp.mean((out - y) ** 2), 'batch')


loss = jax.shard_map(local_loss, mesh=mesh, in_specs=(PARAM_SPECS, P('batch'), P('batch')),
                     out_specs=P())


@jax.jit
def train_step(params, x, y, learning_rate):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return [(w - learning_rate * gw, b - learning_rate * gb)
            for (w, b), (gw, gb) in zip(params, grads)], value


def init_params(rng, sizes):
    """[(w, b)] per layer, with weights scaled by 1/sqrt(fan-in)."""
    return [(rng.normal(size=(m, n)) / np.sqrt(m), np.zeros(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def main(steps=100, learning_rate=0.1, seed=0, verbose=True):
    rng = np.random.default_rng(seed)
    sizes = [8, 32, 1]
    x = rng.normal(size=(256, 8))
    (w1, b1), (w2, b2) = init_params(rng, sizes)
    y = np.tanh(x @ w1 + b1) @ w2 + b2  # a teacher network's outputs
    params = init_params(rng, sizes)
    losses = []
    for step in range(steps):
        params, value = train_step(params, x, y, learning_rate)
        losses.append(float(value))
        if verbose and step % 25 == 0:
            print(f'step {step:4d}  loss {losses[-1]:.5f}')
    if verbose:
        print(f'final     loss {losses[-1]:.5f}')
    return losses


if __name__ == '__main__':
    if '--print-module' in sys.argv:
        rng = np.random.default_rng(0)
        print(train_step.lower(init_params(rng, [8, 32, 1]), np.ones((256, 8)),
                               np.ones((256, 1)), 0.1).as_text())
    else:
        main()
