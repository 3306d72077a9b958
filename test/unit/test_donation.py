"""Buffer donation (``jit(donate_argnums=..., donate_argnames=...)``) against JAX 0.10.2: the
module's aliasing attributes byte for byte, the warning about donations no output can use,
``donated_invars`` in jaxprs under the transformations, ``args_info``, and what happens to
a donated Array once the call has run (deleted, its errors), each program written once as
``program(ns)`` and run with ``ns`` bound to minijax and to JAX."""
import types
import warnings
import zlib

import jax
import jax.numpy as jnp
import jax.sharding as jsharding
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
import minijax.sharding as msharding

MJ = types.SimpleNamespace(jax=minijax, jnp=mnp, s=msharding, P=minijax.P)
JX = types.SimpleNamespace(jax=jax, jnp=jnp, s=jsharding, P=jsharding.PartitionSpec)


def _two_of_three(ns):
    return ns.jax.jit(lambda a, b: (a * 2, b.sum(), a.reshape(-1)[:2]), donate_argnums=(0, 1))


def _by_name(ns):
    return ns.jax.jit(lambda d: ns.jax.tree.map(lambda v: v + 1, d), donate_argnames='d')


def _same_size_other_dtype(ns):  # (a donor: no output of its type, one of its size)
    return ns.jax.jit(lambda a, b: (a.astype(np.float32), b), donate_argnums=0)


def _static_and_donated(ns):
    return ns.jax.jit(lambda n, a, b: (a * n, b - a), static_argnums=0, donate_argnums=(1, 2))


def _keyword_donated(ns):
    return ns.jax.jit(lambda a, *, b: (a + b, b * 2), donate_argnames='b')


def _two_outputs_one_input(ns):
    return ns.jax.jit(lambda a: (a + 1, a - 1), donate_argnums=0)


def _weak_typed(ns):  # (a Python float: a weak f64[] argument, aliased to a strong result)
    return ns.jax.jit(lambda s, a: (a * s, ns.jnp.float64(s) + 1), donate_argnums=(0, 1))


def _ordered_effect(ns):  # (the token goes first: the alias counts it)
    def f(a):
        ns.jax.experimental.io_callback(lambda: None, None, ordered=True)
        return a * 3
    return ns.jax.jit(f, donate_argnums=0)


X, Y = np.ones((2, 3)), np.arange(6.)
#: name -> (the jitted function of a namespace, its arguments)
PROGRAMS = {
    'two_of_three': (_two_of_three, (X, Y)),
    'by_name': (_by_name, ({'a': np.ones(2), 'b': np.ones(3, np.int32)},)),
    'same_size_other_dtype': (_same_size_other_dtype, (np.ones(4), np.ones(3))),
    'static_and_donated': (_static_and_donated, (3., X, X)),
    'keyword_donated': (_keyword_donated, (X,), {'b': X}),
    'two_outputs_one_input': (_two_outputs_one_input, (Y,)),
    'weak_typed': (_weak_typed, (1.5, Y)),
    'ordered_effect': (_ordered_effect, (Y,)),
}


#: Programs whose @main signature alone is compared: with the 4 devices of the test process,
#: JAX places a callback on a maximal sharding of its own (test_callbacks compares the rest).
SIGNATURE_ONLY = {'ordered_effect'}


def _main_signature(text):
    return next(line for line in text.splitlines() if 'func.func public @main' in line)


def _lowered(ns, name):
    make, args, *kwargs = PROGRAMS[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        lowered = make(ns).lower(*args, **(kwargs[0] if kwargs else {}))
    return lowered, [str(w.message) for w in caught if w.category is UserWarning]


@pytest.mark.parametrize('name', PROGRAMS)
def test_donated_arguments_lower_to_jaxs_module(name):
    """The aliasing attributes (``tf.aliasing_output``, ``jax.buffer_donor``), the warning
    naming the donations no output can use, and ``args_info``: JAX's."""
    (mine, mine_warned), (theirs, their_warned) = _lowered(MJ, name), _lowered(JX, name)
    if name in SIGNATURE_ONLY:
        assert _main_signature(mine.as_text()) == _main_signature(theirs.as_text())
    else:
        assert mine.as_text() == theirs.as_text()
    assert mine_warned == their_warned
    assert repr(mine.args_info) == repr(theirs.args_info)
    assert repr(mine.compile().args_info) == repr(theirs.compile().args_info)


def _mesh(ns):
    return ns.jax.make_mesh((2, 2), ('x', 'y'), axis_types=(ns.s.AxisType.Auto,) * 2)


def test_donation_over_a_mesh_lowers_as_jax():
    """Over a mesh, an output XLA lays out (no sharding given) leaves its donated argument a
    donor; one given a sharding is aliased."""
    def lowered(ns):
        split = ns.s.NamedSharding(_mesh(ns), ns.P('x', 'y'))
        f = ns.jax.jit(lambda a, b: (a * 2, b + 1), in_shardings=(split, split),
                       out_shardings=(split, None), donate_argnums=(0, 1))
        return f.lower(np.ones((4, 4)), np.ones((4, 4))).as_text()
    assert lowered(MJ) == lowered(JX)


def _jaxprs(ns):
    f = ns.jax.jit(lambda a, b: (a * a).sum() + (b * a).sum(), donate_argnums=(0, 1))
    # (vmap: no reductions or broadcasts, whose batched axes JAX prints as np.int64)
    g = ns.jax.jit(lambda a, b: a * b + a, donate_argnums=(0, 1))
    x = np.ones(3)
    return [str(ns.jax.make_jaxpr(f)(x, x)),
            str(ns.jax.make_jaxpr(lambda a: f(a, a.reshape(-1)))(x)),
            str(ns.jax.make_jaxpr(ns.jax.grad(f))(x, x)),
            str(ns.jax.make_jaxpr(ns.jax.grad(f, argnums=1))(x, x)),
            str(ns.jax.make_jaxpr(lambda a, t: ns.jax.jvp(f, (a, a), (t, t)))(x, x)),
            str(ns.jax.make_jaxpr(lambda a, t: ns.jax.jvp(lambda u: f(u, a), (a,), (t,)))(x, x)),
            str(ns.jax.make_jaxpr(ns.jax.vmap(g))(np.ones((2, 3)), np.ones((2, 3))))]


def test_donated_invars_in_jaxprs_as_jax():
    """A donating jit's equation shows ``donated_invars``, carried by jvp (a tangent is
    donated with its primal), vmap and partial evaluation (the residuals are not), and
    dropped by the transpose, as JAX's."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)  # (no output of the inputs' type)
        assert _jaxprs(MJ) == _jaxprs(JX)


def _after_donation(ns, source):
    """Whether a donated argument is deleted after the call, and what using it then raises:
    again in the same jit (its fast path), in a fresh jit, eagerly, read on the host."""
    f = ns.jax.jit(lambda a: a * 2, donate_argnums=0)
    f(ns.jax.device_put(np.ones(5)))  # (compiled: the call below takes the fast path)
    x = source(ns)
    out = np.asarray(f(x))
    uses = [f, ns.jax.jit(lambda a: a + 1), ns.jnp.sin, lambda a: a + 1, np.asarray, repr,
            lambda a: a.shape]
    errors = []
    for use in uses:
        try:
            use(x)
            errors.append(None)
        except Exception as err:  # noqa: BLE001  (the type and text are compared)
            errors.append((type(err).__name__, str(err).split(':')[0]))
    return out.tolist(), x.is_deleted(), errors


SOURCES = {
    'device_put': lambda ns: ns.jax.device_put(np.arange(5.)),
    'eager_result': lambda ns: ns.jnp.arange(5.) * 3,
    'jit_result': lambda ns: ns.jax.jit(lambda a: a - 1)(np.arange(5.)),
    'read_on_the_host_first': lambda ns: _read(ns.jax.jit(lambda a: a - 1)(np.arange(5.))),
}


def _read(x):
    np.asarray(x)  # (a view of the buffer, not kept by the caller)
    return x


@pytest.mark.parametrize('source', SOURCES)
def test_a_donated_array_is_deleted_as_in_jax(source):
    assert _after_donation(MJ, SOURCES[source]) == _after_donation(JX, SOURCES[source])


def _numpy_and_views(ns):
    """A NumPy argument is copied, never written; an Array whose host view the caller still
    holds is not taken (PJRT copies it)."""
    f = ns.jax.jit(lambda a: a * 2, donate_argnums=0)
    host = np.arange(6.)
    first = f(host)
    view = np.asarray(first)
    second = f(first)
    return (host.tolist(), np.asarray(second).tolist(), first.is_deleted(), view.tolist())


def test_numpy_arguments_and_held_views_stay_as_in_jax():
    assert _numpy_and_views(MJ) == _numpy_and_views(JX)


def test_a_training_loop_donates_its_parameters(request):
    """The common use: the parameters go in donated, come back updated; values as JAX's."""
    rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
    w0, xs = rng.normal(size=(4, 3)), rng.normal(size=(8, 4))

    def train(ns):
        def step(w, x):
            return w - 0.1 * ns.jax.grad(lambda v: ns.jnp.sum(ns.jnp.tanh(x @ v) ** 2))(w)
        step = ns.jax.jit(step, donate_argnums=0)
        w = ns.jax.device_put(w0)
        for _ in range(3):
            old, w = w, step(w, xs)
            assert old.is_deleted()
        return np.asarray(w)
    np.testing.assert_allclose(train(MJ), train(JX), rtol=1e-12)
