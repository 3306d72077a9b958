"""The jitted call's fast path (a signature seen before skips flattening and tracing) gives
what the full path gives, as JAX does, for every kind of argument it accepts."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import runtime

jax.config.update('jax_enable_x64', True)


def _f(np_):
    return lambda x, y: (np_.sin(x) * y, {'sum': x + y})


def _arguments(np_):
    """(x, y) pairs of every kind: Arrays strong and weak, ndarrays (one not contiguous),
    Python and NumPy scalars."""
    v = np.arange(6.).reshape(2, 3)
    return [(np_.asarray(v), 2.), (v[:, ::2], 3), (np_.asarray(1.5), True),
            (np.float32(0.5), np_.float32(2)), (np_.ones(3, np_.int32), np.int32(7)),
            (2., np_.asarray(2.))]


@pytest.mark.parametrize('call', range(3))
def test_repeated_calls_give_jaxs_values_and_types(call):
    """Call 0 traces, calls 1 and 2 take the fast path: all three print what JAX prints."""
    ours, theirs = minijax.jit(_f(mnp)), jax.jit(_f(jnp))
    for _ in range(call + 1):
        results = [(repr(ours(*a)), repr(theirs(*b)))
                   for a, b in zip(_arguments(mnp), _arguments(jnp))]
    for mine, jaxs in results:
        assert mine == jaxs


def test_a_seen_signature_is_not_traced_again_and_a_new_one_is():
    f = minijax.jit(lambda x: x * 2)
    traces = runtime.counters['trace']
    for x in (np.ones(3), np.ones(3), np.zeros(3), np.ones(3, np.float32), 1., 2., 1):
        f(x)
    assert runtime.counters['trace'] - traces == 4  # f64[3], f32[3], weak f64[], weak i64[]


def test_transformations_of_a_jitted_function_still_trace_through_it():
    f = minijax.jit(lambda x: mnp.sin(x) * x)
    x = np.linspace(0., 1., 4)
    f(x)
    f(x)  # now cached on the fast path
    g = jax.jit(lambda x: jnp.sin(x) * x)
    np.testing.assert_array_equal(minijax.vmap(minijax.grad(f))(x), jax.vmap(jax.grad(g))(x))


@pytest.mark.parametrize('use', ['jit', 'asarray', 'add'])
def test_an_int_too_large_for_int64_is_an_overflow_error_as_in_jax(use):
    call = {'jit': lambda np_, jit: jit(lambda v: v * 2)(2 ** 70),
            'asarray': lambda np_, jit: np_.asarray(2 ** 70),
            'add': lambda np_, jit: np_.ones(3) + 2 ** 70}[use]
    with pytest.raises(OverflowError):
        call(jnp, jax.jit)
    with pytest.raises(OverflowError, match='1180591620717411303424 too large'):
        call(mnp, minijax.jit)
