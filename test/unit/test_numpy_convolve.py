"""``jnp.convolve`` and ``jnp.correlate`` (1-D, on ``conv_general_dilated``) against
``jax.numpy``: values for every mode and operand order, dtypes, grads, jit and vmap, and the
errors JAX raises."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as jnp

FUNCTIONS = ('convolve', 'correlate')
MODES = ('full', 'same', 'valid')
#: (len(a), len(v)): a longer, equal, shorter (the operands swap), even and odd kernels
LENGTHS = ((7, 3), (6, 4), (4, 4), (2, 5), (1, 1))


@pytest.mark.parametrize('lengths', LENGTHS, ids=str)
@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('name', FUNCTIONS)
def test_values_and_grads_are_jaxs(name, mode, lengths, rng):
    a, v = (rng.normal(size=n) for n in lengths)
    mine, theirs = getattr(jnp, name), getattr(jjnp, name)
    assert_close(mine(a, v, mode), theirs(a, v, mode))
    assert_close(minijax.jit(mine, static_argnums=2)(a, v, mode), theirs(a, v, mode))
    weights = rng.normal(size=np.shape(theirs(a, v, mode)))
    for argnum in (0, 1):
        assert_close(minijax.grad(lambda a, v: jnp.sum(mine(a, v, mode) * weights), argnum)(a, v),
                     jax.jit(jax.grad(lambda a, v: jjnp.sum(theirs(a, v, mode) * weights),
                                      argnum))(a, v))


@pytest.mark.parametrize('name', FUNCTIONS)
def test_default_mode_and_vmap_are_jaxs(name, rng):
    a, v = rng.normal(size=(3, 6)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    mine, theirs = getattr(jnp, name), getattr(jjnp, name)
    assert_close(mine(a[0], v), theirs(a[0], v))
    assert_close(minijax.vmap(mine, (0, None))(a, v), jax.vmap(theirs, (0, None))(a, v))
    assert_close(minijax.vmap(mine, (None, 1))(v, a.T), jax.vmap(theirs, (None, 1))(v, a.T))


@pytest.mark.parametrize('dtypes', [('int32', 'int32'), ('int8', 'uint8'), ('float16', 'float16'),
                                    ('bfloat16', 'float32'), ('int64', 'float32')], ids=str)
@pytest.mark.parametrize('name', FUNCTIONS)
def test_dtypes_promote_to_a_float_as_in_jax(name, dtypes, rng):
    a = rng.integers(-4, 5, size=5).astype(jjnp.dtype(dtypes[0]))
    v = rng.integers(-4, 5, size=3).astype(jjnp.dtype(dtypes[1]))
    assert_close(getattr(jnp, name)(a, v, 'same'), getattr(jjnp, name)(a, v, 'same'))


@pytest.mark.parametrize('name', FUNCTIONS)
def test_preferred_element_type_keeps_integers_as_in_jax(name):
    a, v = np.arange(5, dtype=np.int32), np.array([1, -2, 3], np.int32)
    assert_close(getattr(jnp, name)(a, v, 'full', preferred_element_type=np.int32),
                 getattr(jjnp, name)(a, v, 'full', preferred_element_type=np.int32))


@pytest.mark.parametrize('name', FUNCTIONS)
@pytest.mark.parametrize('a, v, mode, message', [
    (np.ones((2, 2)), np.ones(2), 'full', r'only supports 1-dimensional inputs, got shapes '
                                         r'\(2, 2\) and \(2,\)'),
    (np.ones(()), np.ones(2), 'full', 'only supports 1-dimensional inputs'),
    (np.ones(0), np.ones(2), 'full', 'inputs cannot be empty'),
    (np.ones(3), np.ones(2), 'bad', r"mode must be one of \['full', 'same', 'valid'\], got 'bad'"),
], ids=['2-d', 'scalar', 'empty', 'mode'])
def test_bad_input_raises_valueerror_as_jax_does(name, a, v, mode, message):
    with pytest.raises(ValueError):
        getattr(jjnp, name)(a, v, mode)
    with pytest.raises(ValueError, match=f'{name}.*{message}'):
        getattr(jnp, name)(a, v, mode)
