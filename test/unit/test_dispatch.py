"""The jitted call's fast path (a signature seen before skips flattening and tracing) gives
what the full path gives, as JAX does, for every kind of argument it accepts."""
import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import runtime

jax.config.update('jax_enable_x64', True)


#: A pytree of outputs and a single one (the fast path wraps each its own way).
FUNCTIONS = {'pytree out': lambda np_: lambda x, y: (np_.sin(x) * y, {'sum': x + y}),
             'one out': lambda np_: lambda x, y: x * y - 1}


def _arguments(np_):
    """(x, y) pairs of every kind: Arrays strong and weak (one held on the host as a
    transposed view), ndarrays (strided, reversed and read-only, 0-d), Python and NumPy
    scalars."""
    v = np.arange(6.).reshape(2, 3)
    frozen = v[::-1].copy()[::-1]
    frozen.flags.writeable = False
    return [(np_.asarray(v), 2.), (v[:, ::2], 3), (np_.asarray(1.5), True),
            (np.float32(0.5), np_.float32(2)), (np_.ones(3, np_.int32), np.int32(7)),
            (2., np_.asarray(2.)), (frozen, np.array(2.5)),
            (np_.transpose(np_.asarray(v)), False)]


@pytest.mark.parametrize('name', FUNCTIONS)
def test_repeated_calls_give_jaxs_values_and_types(name):
    """Call 0 traces, calls 1 and 2 take the fast path: all three print what JAX prints."""
    ours, theirs = minijax.jit(FUNCTIONS[name](mnp)), jax.jit(FUNCTIONS[name](jnp))
    for _ in range(3):
        for a, b in zip(_arguments(mnp), _arguments(jnp)):
            assert repr(ours(*a)) == repr(theirs(*b))


Out = collections.namedtuple('Out', 'y n')


def _layer(np_):
    def layer(params, x, n, *, scale):
        return Out({'y': np_.tanh(x @ params['w'] + params['b']) * scale},
                   [x.sum() * n, None])
    return layer


def test_pytree_keyword_and_static_arguments_give_jaxs_on_every_call():
    """The fast path keys a call on the arguments' structure and static values as well:
    a dict, an OrderedDict in another order (a node only minijax's registry holds), a
    static value and a keyword each select their own program, with outputs rebuilt as
    they were (a namedtuple holding a dict and a list with None)."""
    ours = minijax.jit(_layer(mnp), static_argnums=2)
    theirs = jax.jit(_layer(jnp), static_argnums=2)
    w, b, x = np.eye(3)[::-1], np.arange(3.), np.ones((2, 3))
    for _ in range(3):
        for params in ({'w': w, 'b': b}, collections.OrderedDict(b=mnp.asarray(b), w=w)):
            for n, scale in ((2, 1.5), (3, np.float32(2))):
                assert repr(ours(params, x, n, scale=scale)) == \
                    repr(theirs({'w': w, 'b': b}, x, n, scale=scale))


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


def _static_and_scalar_calls(jax_, jnp_):
    """Calls of jits with static values (by position, by keyword, left at the default) and
    scalars (NumPy ones of each sign of zero, bfloat16), each made three times, so that
    the later ones take the fast path: what each returns."""
    power = jax_.jit(lambda a, n=2: a ** n, static_argnums=1)
    power_kw = jax_.jit(lambda a, n=2: a ** n, static_argnames='n')
    scale = jax_.jit(lambda a, s: a * s)
    x = jnp_.asarray(np.array([1.5, -2., 3.]))
    calls = [lambda: power(x, 3), lambda: power(x, 3.), lambda: power(x, True),
             lambda: power(x), lambda: power_kw(x, n=3), lambda: power_kw(x, n=2.),
             lambda: power_kw(x)]
    calls += [lambda s=s: scale(x, s) for s in
              (np.float32(-0.), np.float32(0.), np.float64(-0.), np.float64(0.), -0., 0.,
               jnp_.bfloat16(-0.), jnp_.bfloat16(0.), np.int8(0), np.float16(2.5))]
    return [repr(call()) for _ in range(3) for call in calls]


def test_static_values_and_scalars_give_jaxs_on_every_call():
    """The fast path keys positional arrays with static values without flattening them,
    and keeps the device buffer of a NumPy scalar as of a Python one (by type and value,
    a zero by its sign): each call gives what JAX gives."""
    assert _static_and_scalar_calls(minijax, mnp) == _static_and_scalar_calls(jax, jnp)


def _compiled_pytree_calls(jax_):
    """A Compiled of pytree arguments called with them again (the fast path), then with
    other structures: the values, or the error's type and text."""
    compiled = jax_.jit(lambda d, z: d['a'] * d['b'] + z).lower(
        {'a': np.ones(3), 'b': np.ones(3)}, 1.).compile()
    good = ({'a': np.arange(3.), 'b': np.ones(3)}, 2.)
    calls = [(good, {}), (good, {}), (({'a': np.ones(3), 'c': np.ones(3)}, 2.), {}),
             (([np.ones(3), np.ones(3)], 2.), {}), ((good[0],), {'z': 2.}),
             ((*good, 3.), {}), (good, {})]
    seen = []
    for args, kwargs in calls:
        try:
            seen.append(np.asarray(compiled(*args, **kwargs)).tolist())
        except TypeError as err:
            seen.append(str(err))
    return seen


def test_a_compiled_function_called_with_another_structure_raises_jaxs_error():
    """``Compiled`` compares the call's pytree structure with the compiled one, as JAX
    does, naming each difference (it took a dict of other keys, or a list, whose leaves
    had the compiled types); a call of the compiled structure takes the fast path."""
    assert _compiled_pytree_calls(minijax) == _compiled_pytree_calls(jax)
