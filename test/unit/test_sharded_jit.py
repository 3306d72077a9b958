"""Programs over a mesh against JAX 0.10.2 on 4 CPU devices (conftest sets the count): sharded
Arrays (``device_put``, their shards), ``jit`` with sharded arguments and
``in_shardings``/``out_shardings``, ``with_sharding_constraint``, eager ops on sharded arrays,
gradients through sharded programs, and the module text (with and without debug info), each
program written once as ``program(ns)`` and run with ``ns`` bound to minijax and to JAX.

The meshes have ``Auto`` axes: with JAX 0.10.2's default ``Explicit`` axes, sharding in types
adds constraints after ops (issue 31's sharding-in-types work)."""
import types
import zlib

import jax
import jax.numpy as jnp
import jax.sharding as jsharding
import numpy as np
import pytest
from jaxlib import xla_client as xc
from testlib import assert_close

import minijax
import minijax.numpy as mnp
import minijax.sharding as msharding

MJ = types.SimpleNamespace(jax=minijax, jnp=mnp, lax=minijax.lax, s=msharding, P=minijax.P)
JX = types.SimpleNamespace(jax=jax, jnp=jnp, lax=jax.lax, s=jsharding,
                           P=jsharding.PartitionSpec)


def mesh(ns, shape=(2, 2), names=('x', 'y')):
    return ns.jax.make_mesh(shape, names, axis_types=(ns.s.AxisType.Auto,) * len(shape))


def named(ns, *spec, shape=(2, 2), names=('x', 'y')):
    return ns.s.NamedSharding(mesh(ns, shape, names), ns.P(*spec))


def data(request, *shape, dtype=np.float32):
    rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
    return rng.normal(size=shape).astype(dtype)


def _specs(out):
    """The output's leaves' shardings, comparable across the libraries (reprs)."""
    return [repr(leaf.sharding) for leaf in jax.tree.leaves(out)]


def both(program, *args):
    """Run ``program(ns, *args)`` both ways; compare values and output shardings."""
    mine, theirs = program(MJ, *args), program(JX, *args)
    for m, t in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs), strict=True):
        assert_close(np.asarray(m), np.asarray(t))
    assert _specs(mine) == _specs(theirs)
    return mine, theirs


# ----------------------------------------------------------------------------- sharded arrays

def _shards(ns, x):
    arr = ns.jax.device_put(x, named(ns, 'x', 'y'))
    return ([(s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist())
             for s in arr.addressable_shards],
            sorted(d.id for d in arr.devices()), arr.committed, arr.is_fully_replicated,
            repr(arr.sharding), str(arr), repr(arr), arr.on_device_size_in_bytes(),
            repr(arr.addressable_shards[1].data.sharding))


def test_sharded_array_surface(request):
    x = data(request, 4, 6)
    assert _shards(MJ, x) == _shards(JX, x)


def _replicated_shards(ns, x):
    arr = ns.jax.device_put(x, named(ns, None, 'y'))
    return [(s.device.id, s.index, s.replica_id) for s in arr.addressable_shards]


def test_replicas_are_numbered(request):
    x = data(request, 4, 6)
    assert _replicated_shards(MJ, x) == _replicated_shards(JX, x)


def test_device_put_forms(request):
    x, y = data(request, 8), data(request, 4, 2)

    def program(ns):
        on_device = ns.jax.device_put(x, ns.jax.devices()[3])
        pair = ns.jax.device_put((x, y), (named(ns, ('x', 'y')), named(ns, None, 'x')))
        with ns.jax.set_mesh(mesh(ns)):
            by_spec = ns.jax.device_put(y, ns.P('y'))
        return [on_device, *pair, by_spec]
    mine, _ = both(program)
    assert mine[0].committed and mine[0].devices() == {minijax.devices()[3]}


def _partial_sums(ns, x):
    """Arrays unreduced over 'y' (each device holds a term of the sum over 'y': XLA's
    split; a program's partial sums) and one reduced over it (replicated), on an Explicit
    mesh: their shardings, types, printing, shards, and the errors of what needs one value
    or an index."""
    with ns.jax.set_mesh(ns.jax.make_mesh((2, 2), ('x', 'y'))):
        whole = ns.jax.device_put(ns.jnp.asarray(x), ns.P('x', 'y'))
        out = []
        for y in (ns.jax.device_put(whole, ns.P('x', None, unreduced={'y'})),
                  ns.jax.device_put(ns.jnp.asarray(x), ns.P(None, None, unreduced={'x', 'y'})),
                  ns.jax.device_put(whole, ns.P('x', None, reduced={'y'})),
                  ns.jax.jit(lambda a: ns.jnp.dot(a, a.T, out_sharding=ns.P(
                      'x', None, unreduced={'y'})))(whole)):
            out += [repr(y.sharding), str(ns.jax.typeof(y)), repr(y), str(y), f'{y}',
                    y.is_fully_replicated, y.sharding.is_fully_replicated,
                    [(s.device.id, np.asarray(s.data).tolist()) for s in y.addressable_shards],
                    *[(_error(ns, f) or ('none',))[0] for f in (  # (the error's class)
                        lambda ns: np.asarray(y), lambda ns: y.addressable_shards[0].index,
                        lambda ns: y.addressable_shards[0].replica_id)],
                    ns.jax.device_put(y, y.sharding) is y,
                    str(ns.jax.typeof(ns.jax.jit(lambda a: a)(y))),
                    np.asarray(ns.jax.reshard(y, ns.P('x', None))).tolist()]
        return out


def test_unreduced_and_reduced_arrays_are_jaxs(request):
    x = data(request, 4, 6)
    assert _partial_sums(MJ, x) == _partial_sums(JX, x)


def _explicit_results(ns, x):
    """A program's results on an Explicit mesh lie as their types say, and their shardings
    have the types' specs (``P('x', None)``, not the layout's ``P('x')``)."""
    with ns.jax.set_mesh(ns.jax.make_mesh((2, 2), ('x', 'y'))):
        w = ns.jax.device_put(ns.jnp.asarray(x), ns.P('x', 'y'))
        return [repr(f(w).sharding) for f in (
            ns.jax.jit(lambda a: ns.jnp.dot(a, a.T, out_sharding=ns.P('x', None))),
            ns.jax.jit(lambda a: a.sum(1)), ns.jax.jit(lambda a: ns.jax.reshard(a, ns.P())),
            ns.jax.jit(lambda a: ns.jax.reshard(a, ns.P(None, 'x'))),
            ns.jax.jit(lambda a: a, out_shardings=ns.P('x', None)))]


def test_results_on_an_explicit_mesh_have_their_types_specs(request):
    x = data(request, 4, 4)
    assert _explicit_results(MJ, x) == _explicit_results(JX, x)


def _traced_placements(ns, x):
    """A nested jit's ``ctx_mesh`` and a traced ``device_put`` (its equation, its lowering:
    none on CPU), under an Explicit and an Auto mesh; its gradient and batching."""
    explicit = ns.jax.make_mesh((2, 2), ('x', 'y'))
    auto = mesh(ns)
    out = [str(ns.jax.make_jaxpr(lambda a: ns.jax.jit(ns.jnp.sin)(a))(x))]
    with ns.jax.set_mesh(explicit):
        w = ns.jax.device_put(x, ns.P('x', 'y'))
        for f in (lambda a: ns.jax.jit(ns.jnp.sin)(a) * 2,
                  lambda a: ns.jax.device_put(a, ns.P('x', None)),
                  lambda a: ns.jax.device_put((a * 2, a), (ns.s.NamedSharding(
                      explicit, ns.P(None, 'y')), None)),
                  lambda a: ns.lax.device_put_p.bind(  # (the primitive, bound as JAX's)
                      a, devices=(ns.s.NamedSharding(explicit, ns.P('y', None)),),
                      srcs=(None,), copy_semantics=(xc.ArrayCopySemantics.ALWAYS_COPY,))):
            out += [str(ns.jax.make_jaxpr(f)(w)), ns.jax.jit(f).lower(w).as_text()]
        grad = ns.jax.grad(lambda a: ns.jax.device_put(a, ns.P('x', None)).sum())
        out += [str(ns.jax.make_jaxpr(grad)(w)), np.asarray(ns.jax.jit(grad)(w)).tolist()]
    with ns.jax.set_mesh(auto):
        f = lambda a: ns.jax.device_put(ns.jnp.sin(a), ns.P('x', None))  # noqa: E731
        out += [str(ns.jax.make_jaxpr(lambda a: ns.jax.jit(ns.jnp.sin)(a))(x)),
                str(ns.jax.make_jaxpr(f)(x)), ns.jax.jit(f).lower(x).as_text(),
                np.asarray(ns.jax.jit(ns.jax.vmap(f))(np.stack([x, x]))).tolist()]
    return out


def test_traced_device_put_and_ctx_mesh_are_jaxs(request):
    x = data(request, 4, 4)
    assert _traced_placements(MJ, x) == _traced_placements(JX, x)


def _error(ns, make):
    try:
        make(ns)
    except Exception as err:  # noqa: BLE001 (the error is what is compared)
        return type(err).__name__, str(err)
    return None


@pytest.mark.parametrize('name', ['indivisible', 'no mesh for a spec', 'rank'])
def test_device_put_errors_are_jax(name):
    make = {'indivisible': lambda ns: ns.jax.device_put(np.ones((4, 3)), named(ns, None, 'y')),
            'no mesh for a spec': lambda ns: ns.jax.device_put(np.ones(4), ns.P('x')),
            'rank': lambda ns: ns.jax.lax.with_sharding_constraint(np.ones(3),
                                                                   named(ns, 'x', 'y'))}[name]
    assert _error(MJ, make) == _error(JX, make) is not None


# ----------------------------------------------------------------------------- jit over a mesh

PROGRAMS = {
    'elementwise': lambda ns, x: ns.jax.jit(lambda a: ns.jnp.sin(a) * 2 + 1)(
        ns.jax.device_put(x, named(ns, 'x', 'y'))),
    'sum over a sharded axis': lambda ns, x: ns.jax.jit(lambda a: a.sum(0))(
        ns.jax.device_put(x, named(ns, 'x', 'y'))),
    'full sum, 1-d mesh': lambda ns, x: ns.jax.jit(lambda a: (a * a).sum())(
        ns.jax.device_put(x, named(ns, 'i', shape=(4,), names=('i',)))),
    'in and out shardings': lambda ns, x: ns.jax.jit(
        lambda a, b: a @ b, in_shardings=(named(ns, 'x', None), named(ns)),
        out_shardings=named(ns, None, 'y'))(x, x.T),
    'sharded and host arguments': lambda ns, x: ns.jax.jit(lambda a, b: a * b - b)(
        ns.jax.device_put(x, named(ns, 'x')), x),
    'constraint': lambda ns, x: ns.jax.jit(lambda a: ns.lax.with_sharding_constraint(
        ns.jnp.cos(a), named(ns, None, 'y')) * 3)(ns.jax.device_put(x, named(ns, 'x', 'y'))),
    'a constraint on host arguments': lambda ns, x: ns.jax.jit(
        lambda a: ns.lax.with_sharding_constraint(a * 2, named(ns, 'y', 'x')) + 1)(x),
    'a pytree out': lambda ns, x: ns.jax.jit(
        lambda a: {'s': a.sum(1), 't': a.T}, out_shardings={'s': named(ns, 'x'),
                                                             't': named(ns, 'y', 'x')})(x),
    'eager ops keep the sharding': lambda ns, x: [
        f(ns.jax.device_put(x, named(ns, 'x', 'y')))
        for f in (ns.jnp.sin, lambda a: a * 2, lambda a: a + a, lambda a: ns.jnp.exp(a).T)],
    'committed to another device': lambda ns, x: [
        f(ns.jax.device_put(x, ns.jax.devices()[2]))
        for f in (ns.jnp.sin, ns.jax.jit(lambda a: a @ x.T), ns.jax.grad(lambda a: (a * a).sum()))],
    'spec with a set mesh': lambda ns, x: _with_mesh(ns, lambda: ns.jax.jit(
        lambda a: a * 2, in_shardings=ns.P('x'), out_shardings=ns.P(None, 'y'))(x)),
}


def _with_mesh(ns, run):
    with ns.jax.set_mesh(mesh(ns)):
        return run()


@pytest.mark.parametrize('name', PROGRAMS)
def test_values_and_shardings_against_jax(name, request):
    both(PROGRAMS[name], data(request, 4, 4))


GRADS = {
    'grad of a function constraining host arguments': lambda ns, x: ns.jax.jit(ns.jax.grad(
        lambda a: (ns.lax.with_sharding_constraint(ns.jnp.sin(a), named(ns, 'x')) ** 2).sum()))(x),
    'eager grad through a jit with a constraint': lambda ns, x: ns.jax.grad(ns.jax.jit(
        lambda a: (ns.lax.with_sharding_constraint(a * a, named(ns, None, 'x')) ** 3).sum()))(x),
    'grad of a jitted function of a sharded array': lambda ns, x: ns.jax.grad(
        ns.jax.jit(lambda a: (ns.jnp.sin(a) ** 2).sum()))(
        ns.jax.device_put(x, named(ns, 'x', 'y'))),
    'jit of grad': lambda ns, x: ns.jax.jit(ns.jax.grad(
        lambda a: (ns.jnp.tanh(a) @ a.T).sum()))(ns.jax.device_put(x, named(ns, 'x'))),
    'grad through a constraint': lambda ns, x: ns.jax.jit(ns.jax.grad(
        lambda a: (ns.lax.with_sharding_constraint(a * a, named(ns, None, 'y')) ** 3).sum()))(
        ns.jax.device_put(x, named(ns, 'x', 'y'))),
    'vmap of a constraint': lambda ns, x: ns.jax.jit(ns.jax.vmap(
        lambda r: ns.lax.with_sharding_constraint(r * 2, named(ns, 'y'))))(
        ns.jax.device_put(x, named(ns, 'x'))),
    'value_and_grad with in_shardings': lambda ns, x: ns.jax.jit(
        ns.jax.value_and_grad(lambda a: ns.jnp.log1p(a * a).sum()),
        in_shardings=named(ns, 'x', 'y'))(x),
}


@pytest.mark.parametrize('name', GRADS)
def test_grads_against_jax(name, request):
    both(GRADS[name], data(request, 4, 4, dtype=np.float64))


# ----------------------------------------------------------------------------- module text

def _texts(ns, x, debug_info):
    sharded = ns.jax.device_put(x, named(ns, 'x', 'y'))
    line = ns.jax.jit(lambda a, b: ns.jnp.sin(a).sum(0) + b[0])
    pinned = ns.jax.jit(lambda a, b: a @ b, in_shardings=(named(ns, 'x', None), named(ns)), out_shardings=named(ns, 'x'))  # noqa: E501 (one line: both sides' locations)
    constrained = ns.jax.jit(lambda a: ns.lax.with_sharding_constraint(a * 2, named(ns, ns.P.UNCONSTRAINED, 'y')) + 1)  # noqa: E501
    on_a_device = ns.jax.device_put(x, ns.jax.devices()[2])
    return [line.lower(sharded, x).as_text(debug_info=debug_info),
            line.lower(on_a_device, x).as_text(debug_info=debug_info),
            pinned.lower(x, x.T).as_text(debug_info=debug_info),
            constrained.lower(sharded).as_text(debug_info=debug_info),
            pinned.lower(x, x.T).as_text(dialect='hlo'),
            ns.jax.jit(lambda a: ns.lax.with_sharding_constraint(a, named(ns, 'x'))).lower(x).as_text(debug_info=debug_info)]  # noqa: E501


@pytest.mark.parametrize('debug_info', [False, True])
def test_module_text_is_jax(debug_info, request):
    x = data(request, 4, 4)
    mine, theirs = [_texts(ns, x, debug_info) for ns in (MJ, JX)]  # (one line: one location)
    for m, t in zip(mine, theirs):
        assert m == t


def test_jaxpr_of_a_constraint_is_jax(request):
    x = data(request, 4, 4)

    def program(ns):
        return str(ns.jax.make_jaxpr(lambda a: ns.lax.with_sharding_constraint(
            a, named(ns, ns.P.UNCONSTRAINED, 'y')))(x))
    assert program(MJ) == program(JX)


def test_partitioned_program_has_the_all_reduce(request):
    x = minijax.device_put(data(request, 8, 4), named(MJ, 'x', 'y'))
    text = minijax.jit(lambda a: a.sum(0)).lower(x).compile().as_text()
    assert 'all-reduce' in text and 'f32[4,2]' in text  # each device's block of [8,4]


def test_incompatible_devices_are_an_error():
    a = minijax.device_put(np.ones(4), minijax.devices()[1])
    b = minijax.device_put(np.ones(4), named(MJ, ('x', 'y')))
    with pytest.raises(ValueError, match='incompatible devices'):
        minijax.jit(lambda u, v: u + v)(a, b)


def test_an_ordinary_jit_stays_on_the_default_device(request):
    x = data(request, 4)
    out = minijax.jit(lambda a: a * 2)(x)
    assert not out.committed and out.devices() == {minijax.runtime.device()}


# ----------------------------------------------------------------------------- visualization

class _Device:
    """A device of a mesh larger than this machine's, as JAX's drawing tests make them."""

    def __init__(self, i):
        self.id, self.platform = i, 'cpu'


def _dummy_mesh(shape, names):
    devices = np.empty(int(np.prod(shape)), dtype=object)
    devices[:] = [_Device(i) for i in range(devices.size)]
    return msharding.Mesh(devices.reshape(shape), names)


#: JAX's own tests' drawings (tests/debugging_primitives_test.py, jax-v0.10.2):
#: (mesh shape, spec, array shape, scale) -> what visualize_sharding prints.
DRAWINGS = {
    ((1,), ('x',), (5,), 1.): """\
┌───────┐
│ CPU 0 │
└───────┘
""",
    ((1,), ('x',), (5,), 8.): """\
┌──────────────────────────────────────┐
│                CPU 0                 │
└──────────────────────────────────────┘
""",
    ((8, 4), ('x', 'y'), (8, 8), 1.): """\
┌───────┬───────┬───────┬───────┐
│ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │
├───────┼───────┼───────┼───────┤
│ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │
├───────┼───────┼───────┼───────┤
│ CPU 8 │ CPU 9 │CPU 10 │CPU 11 │
├───────┼───────┼───────┼───────┤
│CPU 12 │CPU 13 │CPU 14 │CPU 15 │
├───────┼───────┼───────┼───────┤
│CPU 16 │CPU 17 │CPU 18 │CPU 19 │
├───────┼───────┼───────┼───────┤
│CPU 20 │CPU 21 │CPU 22 │CPU 23 │
├───────┼───────┼───────┼───────┤
│CPU 24 │CPU 25 │CPU 26 │CPU 27 │
├───────┼───────┼───────┼───────┤
│CPU 28 │CPU 29 │CPU 30 │CPU 31 │
└───────┴───────┴───────┴───────┘
""",
    ((8, 4), ('x', None), (8, 8), 1.): """\
┌───────────────────────┐
│      CPU 0,1,2,3      │
├───────────────────────┤
│      CPU 4,5,6,7      │
├───────────────────────┤
│     CPU 8,9,10,11     │
├───────────────────────┤
│    CPU 12,13,14,15    │
├───────────────────────┤
│    CPU 16,17,18,19    │
├───────────────────────┤
│    CPU 20,21,22,23    │
├───────────────────────┤
│    CPU 24,25,26,27    │
├───────────────────────┤
│    CPU 28,29,30,31    │
└───────────────────────┘
""",
    ((4, 2), (None, 'y'), (8, 8), 1.): """\
┌───────────┬───────────┐
│           │           │
│           │           │
│           │           │
│           │           │
│CPU 0,2,4,6│CPU 1,3,5,7│
│           │           │
│           │           │
│           │           │
│           │           │
└───────────┴───────────┘
""",
    ((8, 4), ('x', None), (128, 10000), 1.): """\
┌──────────────────────────────────────────────────────────────────────────────┐
│                                 CPU 0,1,2,3                                  │
├──────────────────────────────────────────────────────────────────────────────┤
│                                 CPU 4,5,6,7                                  │
├──────────────────────────────────────────────────────────────────────────────┤
│                                CPU 8,9,10,11                                 │
├──────────────────────────────────────────────────────────────────────────────┤
│                               CPU 12,13,14,15                                │
├──────────────────────────────────────────────────────────────────────────────┤
│                               CPU 16,17,18,19                                │
├──────────────────────────────────────────────────────────────────────────────┤
│                               CPU 20,21,22,23                                │
├──────────────────────────────────────────────────────────────────────────────┤
│                               CPU 24,25,26,27                                │
├──────────────────────────────────────────────────────────────────────────────┤
│                               CPU 28,29,30,31                                │
└──────────────────────────────────────────────────────────────────────────────┘
""",
}


@pytest.mark.parametrize('case', DRAWINGS)
def test_visualize_sharding_draws_as_jax(case, capsys):
    mesh_shape, spec, shape, scale = case
    names = ('x', 'y')[:len(mesh_shape)]
    sharding = msharding.NamedSharding(_dummy_mesh(mesh_shape, names), minijax.P(*spec))
    minijax.debug.visualize_sharding(shape, sharding, scale=scale)
    assert capsys.readouterr().out == DRAWINGS[case]


def test_visualize_array_sharding_of_an_array(capsys):
    x = minijax.device_put(np.zeros((8, 8)), named(MJ, None, 'y'))
    minijax.debug.visualize_array_sharding(x)
    minijax.debug.visualize_sharding(x.shape, x.sharding)
    drawn = capsys.readouterr().out
    assert drawn[:len(drawn) // 2] == drawn[len(drawn) // 2:]
    assert 'CPU 0,2' in drawn and 'CPU 1,3' in drawn


# ----------------------------------------------------------------------------- JAX's tutorial

def _tutorial(ns):
    """The array part of JAX's "Distributed arrays and automatic parallelization" (its
    docs/parallel.md) on a 2x2 mesh of JAX 0.10.2's default Explicit axes: what it prints."""
    jax, jnp = ns.jax, ns.jnp
    shown = []
    with jax.set_mesh(jax.make_mesh((2, 2), ('X', 'Y'))):
        x = jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P('X', 'Y'))
        shown.append(x.sharding)
        shown += [(s.device, s.data) for s in x.addressable_shards]
        for spec in (jax.P('Y', 'X'), jax.P('X', None), jax.P(('X', 'Y'))):
            y = jax.device_put(x, spec)
            shown += [y.sharding, *[(s.device, s.data) for s in y.addressable_shards]]
        z = jax.device_put(x, jax.NamedSharding(jax.make_mesh((4,), ('A',)), jax.P('A', None)))
        shown.append(z.sharding)
        shown.append('all-reduce(' in jax.jit(lambda a: a.sum(0)).lower(x).compile().as_text())
        shown += [jnp.sin(x).T.sharding, jax.jit(lambda a: jnp.sin(a).T)(x).sharding]
    return str(shown)


def test_jax_tutorial_arrays():
    assert _tutorial(MJ) == _tutorial(JX)


@pytest.mark.parametrize('spec', [(), ('x',), ('y',), (None, 'x'), ('y', 'x'), (('x', 'y'),),
                                  (('y', 'x'),), (None, ('y', 'x')), ('z',), (('z', 'y'), 'x')])
def test_hlo_sharding_is_jax(spec):
    """The HloSharding the runtime gives XLA for a NamedSharding (size-one axes dropped), and
    the spec read back from it, as JAX's (its _to_xla_hlo_sharding: the oracle's internals)."""
    names = ('x', 'y', 'z')
    theirs = jsharding.NamedSharding(jax.make_mesh((2, 2, 1), names), jax.P(*spec))
    mesh = minijax.make_mesh((2, 2, 1), names)
    hlo = minijax.runtime.hlo_sharding(msharding.NamedSharding(mesh, minijax.P(*spec)), 2)
    assert str(hlo) == str(theirs._to_xla_hlo_sharding(2))
    back = minijax.runtime.named_sharding_from_hlo(hlo, mesh, 2)
    assert minijax.runtime.hlo_sharding(back, 2) == hlo


def _lowered_for_a_type(ns):
    struct = ns.jax.ShapeDtypeStruct((8, 4), np.float32, sharding=named(ns, 'x'))
    return repr(struct), ns.jax.jit(lambda a: a * 2).lower(struct).as_text()


def test_lower_for_a_sharded_shape_dtype_struct():
    assert _lowered_for_a_type(MJ) == _lowered_for_a_type(JX)


# ----------------------------------------------------------------------------- under transformations

def _pinned(ns, f=lambda ns, a: ns.jnp.sin(a) * a):
    s = named(ns, 'x', shape=(4,), names=('x',))
    return ns.jax.jit(lambda a: f(ns, a), in_shardings=s, out_shardings=s)


def _linear(ns, a):
    """(whose derivative's jaxpr is JAX's: minijax orders some JVP products' operands
    otherwise)"""
    return a * 3.0


TRANSFORMED = {
    'jaxpr': lambda ns, x: str(ns.jax.make_jaxpr(_pinned(ns))(x)),
    'jaxpr of grad': lambda ns, x: str(ns.jax.make_jaxpr(
        ns.jax.grad(lambda a: _pinned(ns, _linear)(a).sum()))(x)),
    'shardings of a split call (residuals unspecified)': lambda ns, x: [
        line.strip() for line in str(ns.jax.make_jaxpr(lambda a: ns.jax.linearize(
            _pinned(ns, lambda ns, b: ns.jnp.sin(b)), a)[1](a))(x)).splitlines()
        if 'shardings=' in line],
    'jaxpr of vmap (the batch dimension not split)': lambda ns, x: str(ns.jax.make_jaxpr(
        ns.jax.vmap(_pinned(ns)))(np.stack([x, x]))),
    'jaxpr of jvp': lambda ns, x: str(ns.jax.make_jaxpr(
        lambda a: ns.jax.jvp(_pinned(ns, _linear), (a,), (a,)))(x)),
}


@pytest.mark.parametrize('name', TRANSFORMED)
def test_given_shardings_under_transformations_are_jax(name, request):
    x = data(request, 8)
    assert TRANSFORMED[name](MJ, x) == TRANSFORMED[name](JX, x)


def _nested_values(ns, x):
    inner = _pinned(ns)
    return [ns.jax.grad(lambda a: inner(a).sum())(x), ns.jax.vmap(inner)(np.stack([x, x])),
            ns.jax.jit(lambda a: inner(a) + 1)(x),
            ns.jax.jit(ns.jax.grad(lambda a: (inner(a) ** 2).sum()))(x)]


def test_given_shardings_under_transformations_values(request):
    both(_nested_values, data(request, 8, dtype=np.float64))


def test_nested_jit_with_shardings_constrains_its_function(request):
    """JAX's module but for the private function's name (minijax writes @_lambda_ where
    JAX quotes @"<lambda>")."""
    x = data(request, 8)

    def program(ns):
        return ns.jax.jit(lambda a: _pinned(ns)(a) * 2).lower(x).as_text()
    assert program(MJ).replace('@_lambda_', '@"<lambda>"') == program(JX)


def _compiled_shardings(ns, x):
    sharded = ns.jax.device_put(x, named(ns, 'x', 'y'))
    chosen = ns.jax.jit(lambda a, b: (a * b, b.sum(0))).lower(sharded, x).compile()
    given = ns.jax.jit(lambda a: {'t': a.T}, in_shardings=named(ns, 'y'),
                       out_shardings={'t': named(ns, None, 'x')}).lower(x).compile()
    plain = ns.jax.jit(lambda a: a + 1).lower(x).compile()
    return [repr(c.input_shardings) + repr(c.output_shardings)
            for c in (chosen, given, plain)]


def test_compiled_input_and_output_shardings(request):
    x = data(request, 4, 4)
    mine, theirs = _compiled_shardings(MJ, x), _compiled_shardings(JX, x)
    assert mine == theirs


def _sharded_keys(ns):
    keys = ns.jax.device_put(ns.jax.random.split(ns.jax.random.key(0), 8),
                             named(ns, ('x', 'y')))
    draw = ns.jax.jit(ns.jax.vmap(lambda k: ns.jax.random.uniform(k, (3,))))
    return (keys.sharding, ns.jax.random.key_data(keys), draw(keys),
            draw.lower(keys).as_text().split('\n')[2])  # (@main's line: the key's sharding)


def test_sharded_key_arrays():
    """A key array splits over the mesh like its keys; its module's argument is the words,
    one dimension more, not split (JAX's)."""
    mine, theirs = _sharded_keys(MJ), _sharded_keys(JX)
    assert repr(mine[0]) == repr(theirs[0]) and mine[3] == theirs[3]
    for m, t in zip(mine[1:3], theirs[1:3]):
        assert_close(np.asarray(m), np.asarray(t))
    assert repr(mine[2].sharding) == repr(theirs[2].sharding)
