"""minijax.image against jax.image: every method, up and down, with and without antialiasing,
scale_and_translate, and the gradient of a resize (each side in one jitted program); JAX's
errors for bad input."""
import jax
import numpy as np
import pytest

import minijax
from testlib import assert_close

jax.config.update('jax_enable_x64', True)

METHODS = ['nearest', 'linear', 'cubic', 'lanczos3', 'lanczos5', 'cubic-pytorch', 'area']


def _program(lib, x):
    image = lib.image

    def all_resizes(x):
        out = [image.resize(x, shape, method, antialias)
               for method in METHODS for antialias in (True, False)
               for shape in [(2, 9, 11, 3), (2, 3, 4, 3)]]
        out.append(image.resize(x.astype(np.float32), (2, 8, 5, 3), image.ResizeMethod.LINEAR))
        out += [image.scale_and_translate(x, (2, 6, 9, 3), (1, 2), np.array([1.3, 1.2]),
                                          np.array([0.5, -1.]), method, antialias)
                for method, antialias in [('lanczos3', True), ('cubic-pytorch', False),
                                          (image.ResizeMethod.AREA, True)]]
        return out

    def loss(x):   # the float64 resizes: the float32 one would round the gradient
        return sum(lib.numpy.sum(lib.numpy.sin(o)) for o in all_resizes(x)
                   if o.dtype == np.float64)
    return lib.jit(lambda x: (all_resizes(x), lib.grad(loss)(x)))(x)


def test_resize_and_scale_and_translate_are_jaxs(rng):
    x = rng.standard_normal((2, 5, 7, 3))
    mine, theirs = _program(minijax, x), _program(jax, x)
    mine_leaves, their_leaves = jax.tree.leaves(mine), jax.tree.leaves(theirs)
    assert len(mine_leaves) == len(their_leaves)
    for m, t in zip(mine_leaves, their_leaves):
        assert_close(m, t)


def test_resize_eagerly_of_integers_is_jaxs():
    image = np.arange(20).reshape(4, 5)
    assert_close(minijax.image.resize(image, (6, 3), 'bilinear'),
                 jax.image.resize(image, (6, 3), 'bilinear'))
    assert_close(minijax.image.resize(image, (6, 3), 'nearest'),
                 jax.image.resize(image, (6, 3), 'nearest'))
    assert [minijax.image.ResizeMethod.from_string(s).name for s in ['trilinear', 'bicubic']] \
        == [jax.image.ResizeMethod.from_string(s).name for s in ['trilinear', 'bicubic']]


BAD = {
    'rank': lambda image: image.resize(np.ones((2, 3)), (4,), 'linear'),
    'method': lambda image: image.resize(np.ones((2, 3)), (4, 4), 'bogus'),
    'nearest-scale': lambda image: image.scale_and_translate(
        np.ones((2, 3)), (4, 4), (0,), np.array([2.]), np.array([0.]), 'nearest'),
    'sat-rank': lambda image: image.scale_and_translate(
        np.ones((2, 3)), (4,), (0,), np.array([2.]), np.array([0.]), 'linear'),
}


@pytest.mark.parametrize('name', BAD)
def test_bad_input_raises_jaxs_error(name):
    with pytest.raises(Exception) as theirs:
        BAD[name](jax.image)
    with pytest.raises(type(theirs.value), match=str(theirs.value)[:25]):
        BAD[name](minijax.image)
