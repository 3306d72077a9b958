"""``jax_debug_nans`` / ``jax_debug_infs``: the same programs raise JAX's FloatingPointError,
naming the same primitive (eagerly, and under ``jit`` after running the function again op by
op), or return JAX's values where nothing is checked or nothing is invalid."""
import numpy as np
import pytest

import jax
import minijax

import testlib  # noqa: F401  (JAX with x64, as minijax computes)


def _programs(jx):
    """(name, flag, function, argument): each run with ``flag`` on."""
    jnp = jx.numpy
    return [
        ('log_of_negative', 'nans', jnp.log, -1.),
        ('log_of_zero_nans_only', 'nans', jnp.log, 0.),
        ('log_of_zero', 'infs', jnp.log, 0.),
        ('sqrt_of_array', 'nans', jnp.sqrt, np.array([1., -1.])),
        ('integer_log', 'nans', jnp.log, np.array([1, 2])),
        ('clean', 'nans', jnp.sin, 1.),
        ('jit_names_the_primitive', 'nans', jx.jit(lambda x: jnp.log(x) * 2), -1.),
        ('jit_infs', 'infs', jx.jit(lambda x: jnp.log(x) * 2), 0.),
        ('jit_clean', 'nans', jx.jit(lambda x: jnp.log(x) * 2), 1.),
        ('jit_nan_literal', 'nans', jx.jit(lambda x: x * jnp.nan), 1.),
        ('grad_of_sqrt_nans_only', 'nans', jx.grad(jnp.sqrt), 0.),
        ('grad_of_jit', 'nans', jx.grad(lambda x: jx.jit(jnp.log)(x)), -1.),
        ('vmap', 'nans', jx.vmap(jnp.log), np.array([1., -1.])),
        ('while_loop', 'nans', lambda x: jx.lax.while_loop(
            lambda c: c[0] < 2, lambda c: (c[0] + 1, jnp.log(c[1])), (0, x)), -1.),
    ]


def _outcome(jx, flag, f, x):
    try:
        with getattr(jx, f'debug_{flag}')(True):
            return 'value', np.asarray(f(x)).tolist()
    except Exception as err:  # noqa: BLE001 (the point is which one)
        return type(err).__name__, str(err)


@pytest.mark.parametrize('which', [p[0] for p in _programs(jax)])
def test_special_values_raise_what_jax_raises(which):
    (_, flag, theirs, x), = [p for p in _programs(jax) if p[0] == which]
    (_, _, ours, _), = [p for p in _programs(minijax) if p[0] == which]
    assert _outcome(minijax, flag, ours, x) == _outcome(jax, flag, theirs, x)


def test_flags_through_config_and_off_again():
    """config.update turns the checks on and off; off, a NaN is a value (JAX's too). (Caches
    cleared first: JAX's de-optimized rerun of ``jit(log)`` misses the NaN when an earlier
    test in the process ran ``jnp.log`` on the same type, and says so instead.)"""
    for jx in (jax, minijax):
        jx.clear_caches()
        jx.config.update('jax_debug_nans', True)
        try:
            with pytest.raises(FloatingPointError, match=r'invalid value \(nan\) encountered '
                                                         r'in log'):
                jx.jit(jx.numpy.log)(-1.)
        finally:
            jx.config.update('jax_debug_nans', False)
        assert np.isnan(jx.jit(jx.numpy.log)(-1.)) and np.isnan(jx.numpy.log(-1.))
        assert not jx.config.jax_debug_nans and not jx.debug_nans.value
