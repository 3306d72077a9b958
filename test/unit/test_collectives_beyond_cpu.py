"""``lax.pbroadcast``, ``psend``/``precv`` and ``ragged_all_to_all`` against JAX 0.10.2 on 4
CPU devices (conftest): XLA's CPU backend runs none of them, so what is compared is what JAX
does here: their jaxprs under ``shard_map``, the module of ``ragged_all_to_all``, the error
each gives where JAX's does (its type and text), and ``pbroadcast``'s values under
``vmap(..., axis_name=...)``, where it is an ordinary program."""
import types
import zlib

import jax
import numpy as np
import pytest

import minijax

MJ = types.SimpleNamespace(jax=minijax, lax=minijax.lax, P=minijax.P,
                           Auto=minijax.sharding.AxisType.Auto)
JX = types.SimpleNamespace(jax=jax, lax=jax.lax, P=jax.P, Auto=jax.sharding.AxisType.Auto)
PERM = ((0, 1), (1, 2), (2, 3), (3, 0))


def data(request, *shape):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode())).normal(size=shape)


def _mapped(ns, f, n_args=1):
    mesh = ns.jax.make_mesh((4,), ('i',), axis_types=(ns.Auto,))
    return ns.jax.shard_map(f, mesh=mesh, in_specs=(ns.P('i'),) * n_args,
                            out_specs=ns.P('i'))


def _outcome(make):
    try:
        out = make()
    except Exception as err:  # noqa: BLE001 (the error is what is compared)
        return type(err).__name__, str(err)
    return out if isinstance(out, str) else np.asarray(out).tolist()


def _send_receive(ns):
    def body(v):
        token = ns.lax.psend(v, 'i', PERM)
        return ns.lax.precv(token, ns.jax.ShapeDtypeStruct(v.shape, v.dtype), 'i', PERM)
    return body


PROGRAMS = {
    'pbroadcast_vmap': lambda ns, x: ns.jax.vmap(lambda v: ns.lax.pbroadcast(v, 'i', 2),
                                                 axis_name='i')(x),
    'pbroadcast_vmap_pytree': lambda ns, x: ns.jax.vmap(
        lambda v: ns.lax.pbroadcast({'a': v, 'b': v}, 'i', 1), axis_name='i')(x)['b'],
    'pbroadcast_shard_map_jaxpr': lambda ns, x: str(ns.jax.make_jaxpr(_mapped(
        ns, lambda v: ns.lax.pbroadcast(v, 'i', 1)))(x)),
    'pbroadcast_pmap': lambda ns, x: ns.jax.pmap(lambda v: ns.lax.pbroadcast(v, 'i', 2),
                                                 axis_name='i')(x),
    'pbroadcast_shard_map': lambda ns, x: ns.jax.jit(_mapped(
        ns, lambda v: ns.lax.pbroadcast(v, 'i', 1)))(x),
    'psend_precv_jaxpr': lambda ns, x: str(ns.jax.make_jaxpr(_mapped(ns, _send_receive(ns)))(x)),
    'psend_precv_shard_map': lambda ns, x: ns.jax.jit(_mapped(ns, _send_receive(ns)))(x),
    'psend_precv_pmap': lambda ns, x: ns.jax.pmap(_send_receive(ns), axis_name='i')(x),
    'precv_alone': lambda ns, x: ns.jax.jit(_mapped(ns, lambda v: ns.lax.precv(
        ns.lax.create_token(), ns.jax.ShapeDtypeStruct(v.shape, v.dtype), 'i', PERM)))(x),
    'psend_unbound': lambda ns, x: ns.lax.psend(x, 'i', PERM),
}


@pytest.mark.parametrize('name', sorted(PROGRAMS))
def test_program_is_jaxs(request, name):
    x = data(request, 4, 2)
    mine, theirs = (_outcome(lambda: PROGRAMS[name](ns, x)) for ns in (MJ, JX))
    if name == 'psend_unbound':  # (JAX's text names shard_map; minijax's the axes in scope)
        mine, theirs = mine[0], theirs[0]
    assert mine == theirs


def _ragged_args():
    """Each of 4 members sends one row to each member: row ``j`` of member ``i`` lands at
    row ``i`` of member ``j``."""
    sizes = np.ones(16, np.int32)
    return (np.arange(16.), np.zeros(16), np.tile(np.arange(4, dtype=np.int32), 4), sizes,
            np.repeat(np.arange(4, dtype=np.int32), 4), sizes)


def _ragged(ns, *args, **options):
    return ns.lax.ragged_all_to_all(*args, axis_name='i', **options)


RAGGED = {
    'jaxpr': lambda ns, args: str(ns.jax.make_jaxpr(_mapped(ns, lambda *a: _ragged(ns, *a),
                                                            6))(*args)),
    'module': lambda ns, args: ns.jax.jit(_mapped(ns, lambda *a: _ragged(ns, *a), 6)).lower(
        *args).as_text(),
    'groups_module': lambda ns, args: ns.jax.jit(_mapped(ns, lambda *a: _ragged(
        ns, *a, axis_index_groups=[[0, 1], [2, 3]]), 6)).lower(
        *[a[:8] for a in args[:2]], *[a[:8] % 2 for a in args[2:]]).as_text(),
    'run': lambda ns, args: ns.jax.jit(_mapped(ns, lambda *a: _ragged(ns, *a), 6))(*args),
    'float_offsets': lambda ns, args: ns.jax.make_jaxpr(_mapped(
        ns, lambda *a: _ragged(ns, *a), 6))(*args[:2], args[2] * 1., *args[3:]),
    'matrix_sizes': lambda ns, args: ns.jax.make_jaxpr(_mapped(
        ns, lambda *a: _ragged(ns, *a[:3], a[3].reshape(2, 2), *a[4:]), 6))(*args),
}


@pytest.mark.parametrize('name', sorted(RAGGED))
def test_ragged_all_to_all_is_jaxs(name):
    args = _ragged_args()
    mine, theirs = (_outcome(lambda: RAGGED[name](ns, args)) for ns in (MJ, JX))
    assert mine == theirs


def test_pbroadcast_transposes_to_a_sum_onto_the_source(request):
    """Its gradient is its definition's, ``psum(where(axis_index == source, x, 0))``, taken
    by JAX (whose own transpose rule fails here: ``full_like`` of a non-scalar)."""
    x, w = data(request, 4, 3), data(request, 4, 3)

    def grad(ns, broadcast):
        return np.asarray(ns.jax.vmap(ns.jax.grad(lambda v, u: (broadcast(ns, v) * u).sum()),
                                      axis_name='i')(x, w))

    mine = grad(MJ, lambda ns, v: ns.lax.pbroadcast(v, 'i', 2))
    theirs = grad(JX, lambda ns, v: ns.lax.psum(
        ns.jax.numpy.where(ns.lax.axis_index('i') == 2, v, 0.), 'i'))
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)
