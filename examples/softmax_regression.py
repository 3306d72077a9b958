"""Softmax regression (multinomial logistic regression) on three Gaussian blobs.

The loss is the mean cross-entropy, written with ``minijax.nn.logsumexp`` so that it stays
finite for confident predictions; training is ``jit(value_and_grad)`` with gradient descent.
``python examples/softmax_regression.py`` prints the loss and the training accuracy.
"""
import numpy as np

import minijax
import minijax.numpy as mnp
from minijax import nn


def make_blobs(rng, per_class=100, classes=3, dims=2):
    centers = rng.normal(scale=4., size=(classes, dims))
    x = np.concatenate([c + rng.normal(size=(per_class, dims)) for c in centers])
    labels = np.repeat(np.arange(classes), per_class)
    return x.astype(np.float32), labels


def logits(params, x):
    w, b = params
    return x @ w + b


def cross_entropy(params, x, one_hot):
    z = logits(params, x)
    log_probs = z - nn.logsumexp(z, axis=1, keepdims=True)
    return -mnp.mean(mnp.sum(one_hot * log_probs, axis=1))


@minijax.jit
def train_step(params, x, one_hot):
    value, (gw, gb) = minijax.value_and_grad(cross_entropy)(params, x, one_hot)
    w, b = params
    return (w - 0.1 * gw, b - 0.1 * gb), value


@minijax.jit
def accuracy(params, x, labels):
    return mnp.mean(mnp.argmax(logits(params, x), axis=1) == labels)


def main(steps=200, seed=0, verbose=True):
    rng = np.random.default_rng(seed)
    x, labels = make_blobs(rng)
    one_hot = np.eye(3, dtype=np.float32)[labels]
    params = (np.zeros((2, 3), np.float32), np.zeros(3, np.float32))
    losses = []
    for step in range(steps):
        params, value = train_step(params, x, one_hot)
        losses.append(float(value))
    acc = float(accuracy(params, x, labels))
    if verbose:
        print(f'loss {losses[0]:.4f} -> {losses[-1]:.4f}, training accuracy {acc:.3f}')
    return losses, acc


if __name__ == '__main__':
    main()
