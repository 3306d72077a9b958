"""Train a two-layer MLP on synthetic regression data with ``jit(value_and_grad(loss))``.

The data come from a random "teacher" network; the student starts elsewhere and learns to
match it by plain gradient descent. ``python examples/mlp.py`` prints the loss as it falls.
"""
import numpy as np

import minijax
import minijax.numpy as mnp


def init_params(rng, sizes):
    """[(w, b)] per layer, with weights scaled by 1/sqrt(fan-in)."""
    return [(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
    (w1, b1), (w2, b2) = params
    hidden = mnp.tanh(x @ w1 + b1)
    return hidden @ w2 + b2


def loss(params, x, y):
    return mnp.mean((predict(params, x) - y) ** 2)


@minijax.jit
def train_step(params, x, y, learning_rate):
    value, grads = minijax.value_and_grad(loss)(params, x, y)
    new_params = [(w - learning_rate * gw, b - learning_rate * gb)
                  for (w, b), (gw, gb) in zip(params, grads)]
    return new_params, value


def main(steps=300, learning_rate=0.1, seed=0, verbose=True):
    rng = np.random.default_rng(seed)
    sizes = [8, 32, 1]
    x = rng.normal(size=(256, 8)).astype(np.float32)
    teacher = init_params(rng, sizes)
    y = np.asarray(predict(teacher, x))
    params = init_params(rng, sizes)
    losses = []
    for step in range(steps):
        params, value = train_step(params, x, y, np.float32(learning_rate))
        losses.append(float(value))
        if verbose and step % 50 == 0:
            print(f'step {step:4d}  loss {losses[-1]:.5f}')
    if verbose:
        print(f'final     loss {losses[-1]:.5f}')
    return losses


if __name__ == '__main__':
    main()
