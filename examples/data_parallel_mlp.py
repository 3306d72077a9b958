"""One data-parallel training step of the MLP over 4 CPU devices: ``pmap`` + ``pmean``.

Each device gets a quarter of the batch and the same parameters, computes the gradient of
its shard's loss, and the devices average their gradients with ``lax.pmean`` (an XLA
all-reduce) before each applies the same update: with equal shards, exactly the step a
single device takes on the whole batch. ``python examples/data_parallel_mlp.py`` prints the
loss as it falls.
"""
import os

os.environ.setdefault('MINIJAX_NUM_CPU_DEVICES', '4')  # before minijax makes its CPU client

import numpy as np  # noqa: E402

import minijax  # noqa: E402
import minijax.numpy as mnp  # noqa: E402
from minijax import lax  # noqa: E402

DEVICES = 4


def init_params(rng, sizes):
    """[(w, b)] per layer, with weights scaled by 1/sqrt(fan-in)."""
    return [(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]


def loss(params, x, y):
    (w1, b1), (w2, b2) = params
    return mnp.mean((mnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)


def device_step(params, x, y, learning_rate):
    """What each device runs on its shard: the averaged gradient is the same everywhere."""
    value, grads = minijax.value_and_grad(loss)(params, x, y)
    grads, value = lax.pmean((grads, value), axis_name='batch')
    return [(w - learning_rate * gw, b - learning_rate * gb)
            for (w, b), (gw, gb) in zip(params, grads)], value


#: Parameters and the learning rate go to every device (in_axes None); the batch is split
#: (axis 0); every device ends with the same parameters, so device 0's are returned.
train_step = minijax.pmap(device_step, axis_name='batch', in_axes=(None, 0, 0, None),
                          out_axes=None)


def shard(batch):
    """(n, ...) -> (DEVICES, n // DEVICES, ...): one shard per device."""
    return batch.reshape(DEVICES, -1, *batch.shape[1:])


def main(steps=100, learning_rate=0.1, seed=0, verbose=True):
    rng = np.random.default_rng(seed)
    sizes = [8, 32, 1]
    x = rng.normal(size=(256, 8)).astype(np.float32)
    teacher = init_params(rng, sizes)
    (w1, b1), (w2, b2) = teacher
    y = np.tanh(x @ w1 + b1) @ w2 + b2
    params = init_params(rng, sizes)
    losses = []
    for step in range(steps):
        params, value = train_step(params, shard(x), shard(y), np.float32(learning_rate))
        losses.append(float(value))
        if verbose and step % 25 == 0:
            print(f'step {step:4d}  loss {losses[-1]:.5f}')
    if verbose:
        print(f'final     loss {losses[-1]:.5f}')
    return losses


if __name__ == '__main__':
    main()
