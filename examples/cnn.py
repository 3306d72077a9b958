"""A small convolutional network on synthetic 8x8 images, written as a JAX program.

An image of class 0 holds a bright horizontal bar, one of class 1 a vertical bar, at a random
row or column, under Gaussian noise. The network: a 3x3 convolution (1 -> 4 channels,
'SAME' padding) and a ReLU, 2x2 max pooling, 2x2 average pooling, and a dense layer to two
logits; the loss is the mean cross-entropy of ``log_softmax``. The parameters come from
``jax.random``; training is gradient descent on ``jit(value_and_grad(loss))``.

Only the imports say minijax: with ``import jax``, ``import jax.numpy as jnp`` and ``from jax
import lax`` the same file runs on JAX and prints the same losses (test/unit/test_examples.py
checks). ``python examples/cnn.py`` prints the loss as it falls; docs/cnn.md walks through the
program and its StableHLO.
"""
import minijax as jax
import minijax.numpy as jnp
from minijax import lax

SIZE, CHANNELS, CLASSES = 8, 4, 2
LEARNING_RATE = 0.5


def make_images(key, n):
    """``n`` noisy images in NCHW layout, ``(n, 1, 8, 8)``, and their labels."""
    label_key, position_key, noise_key = jax.random.split(key, 3)
    labels = jax.random.bernoulli(label_key, 0.5, (n,)).astype(jnp.int32)
    positions = jax.random.randint(position_key, (n,), 0, SIZE)
    bar = (jnp.arange(SIZE) == positions[:, None]).astype(jnp.float32)  # (n, 8): one 1
    horizontal = jnp.broadcast_to(bar[:, :, None], (n, SIZE, SIZE))  # row `position` lit
    vertical = jnp.broadcast_to(bar[:, None, :], (n, SIZE, SIZE))    # column `position` lit
    images = jnp.where(labels[:, None, None] == 1, vertical, horizontal)
    noise = 0.3 * jax.random.normal(noise_key, (n, SIZE, SIZE), jnp.float32)
    return (images + noise)[:, None], labels


def init_params(key):
    """He-initialised weights, zero biases: ``(conv_w, conv_b, dense_w, dense_b)``."""
    conv_key, dense_key = jax.random.split(key)
    features = CHANNELS * (SIZE // 4) ** 2
    conv_w = jax.random.normal(conv_key, (CHANNELS, 1, 3, 3), jnp.float32) * jnp.sqrt(2 / 9)
    dense_w = jax.random.normal(dense_key, (features, CLASSES), jnp.float32) / jnp.sqrt(features)
    return (conv_w, jnp.zeros(CHANNELS, jnp.float32), dense_w, jnp.zeros(CLASSES, jnp.float32))


def max_pool(x, window=2):
    """The maximum of each ``window x window`` patch of an NCHW batch (stride ``window``)."""
    shape = (1, 1, window, window)
    return lax.reduce_window(x, -jnp.inf, lax.max, shape, shape, 'VALID')


def avg_pool(x, window=2):
    """The mean of each ``window x window`` patch of an NCHW batch (stride ``window``)."""
    shape = (1, 1, window, window)
    return lax.reduce_window(x, 0., lax.add, shape, shape, 'VALID') / window ** 2


def predict(params, images):
    """The logits, ``(n, 2)``, of a batch of images ``(n, 1, 8, 8)``."""
    conv_w, conv_b, dense_w, dense_b = params
    x = lax.conv_general_dilated(images, conv_w, window_strides=(1, 1), padding='SAME',
                                 dimension_numbers=('NCHW', 'OIHW', 'NCHW'))
    x = jax.nn.relu(x + conv_b[None, :, None, None])  # (n, 4, 8, 8)
    x = avg_pool(max_pool(x))                         # (n, 4, 2, 2)
    return x.reshape(x.shape[0], -1) @ dense_w + dense_b


def loss(params, images, labels):
    """The mean cross-entropy of the predicted class probabilities."""
    log_probs = jax.nn.log_softmax(predict(params, images))
    targets = jax.nn.one_hot(labels, CLASSES, dtype=log_probs.dtype)
    return -jnp.mean(jnp.sum(targets * log_probs, axis=1))


loss_and_grad = jax.jit(jax.value_and_grad(loss))


def main(steps=40, seed=0, verbose=True):
    """Train for ``steps`` steps on 64 images; return the loss before each step."""
    data_key, params_key = jax.random.split(jax.random.PRNGKey(seed))
    images, labels = make_images(data_key, 64)
    params = init_params(params_key)
    losses = []
    for step in range(steps):
        value, grads = loss_and_grad(params, images, labels)
        params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
        losses.append(float(value))
        if verbose and step % 5 == 0:
            print(f'step {step:3d}  loss {value:.4f}')
    if verbose:
        print(f'final loss {losses[-1]:.4f}')
    return losses


if __name__ == '__main__':
    main()
