"""Eager op by op: the fast path (an op's program and result types kept per primitive,
parameters and operand types) gives what JAX gives, bits, dtypes and weak types, on the
first call and on every later one, wherever the operands live (host values, results of ops
run on XLA, Python and NumPy scalars)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import dispatch, runtime

jax.config.update('jax_enable_x64', True)


def _chain(np_, x):
    for _ in range(3):
        x = np_.tanh(x)
        x = x * 1.0001
        x = np_.sin(x)
        x = x + 0.5
    return x


#: name -> function of (the numpy module, its lax, an operand): each mixes ops that run on
#: XLA (exp, tanh, sin: rounding XLA decides) with elementwise ones whose operands then
#: live on the device only.
CASES = {
    'chain': lambda np_, lax, x: _chain(np_, x),
    'signed zeros': lambda np_, lax, x: (np_.exp(x) * -0.0, np_.exp(x) * 0.0, -0.0 * np_.exp(x),
                                         np_.exp(x) * complex(1, 0.), np_.exp(x) * complex(1, -0.)),
    'nan and inf': lambda np_, lax, x: (np_.exp(x) + np.nan, np_.exp(x) * np.inf),
    'ints and bools as scalars': lambda np_, lax, x: (np_.exp(x) + 1, np_.exp(x) * True,
                                                      np_.exp(x) - 2 ** 40),
    'comparison and select': lambda np_, lax, x: np_.where(np_.exp(x) > 1.5, x, -np_.exp(x)),
    'device and host operands': lambda np_, lax, x: (np_.exp(x) + x, x * np_.exp(x)),
    'conversion': lambda np_, lax, x: (np_.exp(x).astype(np.float32) * 1.1,
                                       np_.exp(x).astype(np.int32) + 3),
    'lax': lambda np_, lax, x: (lax.add(lax.exp(x), 1.0), lax.mul(lax.exp(x), lax.exp(x)),
                                lax.max(lax.exp(x), x), lax.neg(lax.exp(x))),
    'float32': lambda np_, lax, x: np_.exp(np_.asarray(x, np.float32)) * 1.5 + 0.25,
    'weak scalar': lambda np_, lax, x: np_.exp(np_.asarray(2.0)) * 3 + 1.5,
    'ints on the device': lambda np_, lax, x: np_.cumsum(np_.asarray([1, 2, 3])) * 2 + 1,
    'bools on the device': lambda np_, lax, x: (np_.exp(x) > 1.2) & (x < 0.5) | False,
    # functions JAX compiles whole (inline jits), on host and device operands
    'reductions': lambda np_, lax, x: (np_.sum(np_.exp(x)), np_.max(x, initial=0.5),
                                       np_.argmax(np_.exp(x)), np_.any(x > 0.5),
                                       np_.prod(x, where=x > 0)),
    'products': lambda np_, lax, x: (np_.exp(x) @ x, np_.outer(x, np_.exp(x)),
                                     np_.dot(x, 2 * x), np_.inner(x, x)),
    'stop_gradient': lambda np_, lax, x: lax.stop_gradient(np_.exp(x)) - x,
}


def _leaves(out):
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize('name', CASES)
def test_eager_ops_give_jaxs_bits_and_types_on_every_call(name):
    x = np.linspace(-1., 1., 7)
    theirs = _leaves(CASES[name](jnp, jax.lax, jnp.asarray(x)))
    for _ in range(3):  # the first call makes the entries, the others find them
        for operand in (x, mnp.asarray(x)):
            ours = _leaves(CASES[name](mnp, minijax.lax, operand))
            for a, b in zip(ours, theirs, strict=True):
                assert repr(a) == repr(b)
                assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_a_chain_of_eager_ops_compiles_once():
    x = mnp.asarray(np.linspace(0., 1., 5))
    _chain(mnp, x)
    before = runtime.counters['eager_compile']
    for _ in range(3):
        _chain(mnp, x)
    assert runtime.counters['eager_compile'] == before


def test_a_value_on_the_device_stays_there(monkeypatch):
    """Eager ops on values that programs left on the device copy none of them to the host:
    ``stop_gradient`` (whose NumPy impl is the identity) gives its operand as it is, and a
    softmax reads no value back."""
    x = mnp.exp(mnp.asarray(np.linspace(-1., 1., 7)))
    theirs = jax.nn.softmax(jnp.exp(jnp.linspace(-1., 1., 7)))
    minijax.nn.softmax(x)  # (makes the entries)

    def no_host_copy(buffer):
        raise AssertionError('a device value was copied to the host')
    monkeypatch.setattr(runtime, 'to_host', no_host_copy)
    assert minijax.lax.stop_gradient(x) is x
    mine = minijax.nn.softmax(x)
    monkeypatch.undo()
    assert np.asarray(mine).tobytes() == np.asarray(theirs).tobytes()


def test_a_jitted_call_moves_a_python_scalar_to_the_device_once(monkeypatch):
    """``f(x, 2.0)`` called again and again transfers 2.0 once, as an eager ``x * 2.0``
    does; not a donated one, which the program takes."""
    f = minijax.jit(lambda x, y: x * y)
    x = mnp.exp(mnp.asarray(np.ones(3)))
    f(x, 2.0)
    f(x, 2.0)
    transfers = []
    transfer = runtime.HostTransfer.__call__
    monkeypatch.setattr(runtime.HostTransfer, '__call__',
                        lambda self, value: transfers.append(value) or transfer(self, value))
    for _ in range(3):
        assert repr(f(x, 2.0)) == repr(jnp.exp(jnp.ones(3)) * 2.0)
    assert transfers == []
    g = minijax.jit(lambda y: y * 3.0, donate_argnums=0)
    for _ in range(3):
        assert repr(g(2.0)) == repr(jnp.asarray(2.0) * 3.0)


def test_a_deleted_array_is_refused_on_every_call_as_in_jax():
    for np_ in (mnp, jnp):
        for _ in range(2):
            x = np_.exp(np_.asarray(np.ones(3)))
            x.delete()
            with pytest.raises(RuntimeError, match='Array has been deleted'):
                np_.exp(x)
            with pytest.raises(RuntimeError, match='Array has been deleted'):
                x + 1.0


def test_clear_caches_drops_the_eager_entries():
    """After ``clear_caches`` no eager entry or executable is left, and the next op is
    made again, with JAX's value."""
    x = mnp.exp(mnp.asarray(np.ones(2)))
    x * 3.0
    assert dispatch._entries and dispatch._executable.cache_info().currsize
    minijax.clear_caches()
    assert not dispatch._entries and dispatch._executable.cache_info().currsize == 0
    assert repr(x * 3.0) == repr(jnp.exp(jnp.ones(2)) * 3.0)
    assert dispatch._entries




def test_a_process_that_used_shardings_keeps_the_fast_path():
    """Once a sharded array has been made, unsharded eager ops still run from their entries
    (outside a mesh), and a result typed over a mesh still runs there, as in JAX."""
    def sharded_zeros(lib):
        mesh = lib.make_mesh((2,), ('x',), axis_types=(lib.sharding.AxisType.Explicit,))
        with lib.set_mesh(mesh):
            return lib.numpy.zeros(4, out_sharding=lib.sharding.PartitionSpec('x')) + 1.0
    mine, theirs = sharded_zeros(minijax), sharded_zeros(jax)
    assert str(mine.sharding) == str(theirs.sharding) and repr(mine) == repr(theirs)
    minijax.clear_caches()
    assert repr(mnp.exp(mnp.asarray(np.ones(2))) * 3.0) == repr(jnp.exp(jnp.ones(2)) * 3.0)
    assert dispatch._entries


def test_a_token_is_made_eagerly_after_shardings_were_used():
    """A primitive giving a token runs on the general path, which reads its results'
    shardings once any type had one: a token has none (it has no layout)."""
    mesh = minijax.make_mesh((2,), ('x',), axis_types=(minijax.sharding.AxisType.Explicit,))
    with minijax.set_mesh(mesh):
        mnp.zeros(4, out_sharding=minijax.sharding.PartitionSpec('x'))
    token = minijax.lax.after_all(minijax.lax.create_token())
    assert type(token).__name__ == type(jax.lax.after_all(jax.lax.create_token())).__name__
