"""``minijax.sharding`` against ``jax.sharding`` on 4 CPU devices (conftest sets the count):
meshes, partition specs, shardings and the mesh in context, each program written once as
``program(ns)`` and run with ``ns`` bound to minijax and to JAX, compared by their reprs and
values; the errors of bad specs are JAX's."""
import re
import types

import jax
import jax.sharding as jsharding
import numpy as np
import pytest

import minijax
import minijax.sharding as msharding

MJ = types.SimpleNamespace(jax=minijax, s=msharding, P=minijax.P)
JX = types.SimpleNamespace(jax=jax, s=jsharding, P=jsharding.PartitionSpec)


def both(program):
    mine, theirs = program(MJ), program(JX)
    assert mine == theirs
    return mine


def test_jax_sharding_names_are_all_there():
    public = {n for n in dir(jsharding) if not n.startswith('_')}
    later = {'auto_axes', 'explicit_axes', 'reshard'}  # bind primitives: see lax.sharding
    assert public - later <= set(dir(msharding))


def _meshes(ns):
    m = ns.jax.make_mesh((2, 2), ('x', 'y'))
    auto = ns.jax.make_mesh((4,), ('i',), axis_types=(ns.s.AxisType.Auto,))
    am = m.abstract_mesh
    return [repr(m), str(m), m.axis_names, m.axis_sizes, dict(m.shape), m.size,
            m.device_ids.tolist(), repr(m.axis_types), m.empty, repr(am), am.shape_tuple, am.size,
            m == ns.jax.make_mesh((2, 2), ('x', 'y')), am == m.abstract_mesh,
            hash(am) == hash(ns.jax.make_mesh((2, 2), ('x', 'y')).abstract_mesh),
            repr(auto), str(auto.devices), repr(ns.s.Mesh(ns.jax.devices()[:2], 'k')),
            repr(ns.s.AbstractMesh((2, 3), ('a', 'b'))), repr(list(ns.s.AxisType)),
            repr(ns.s.AbstractMesh((2,), ('a',)).update(axis_types=ns.s.AxisType.Explicit)),
            repr(ns.s.ManualAxisType(varying={'x'}))]


def test_meshes():
    both(_meshes)


def _devices_and_shards(ns):
    device = ns.s.AbstractDevice('cpu', None, 'cpu')
    mesh = ns.jax.make_mesh((2, 2), ('x', 'y'))
    x = ns.jax.device_put(np.arange(8.).reshape(4, 2), ns.s.NamedSharding(mesh, ns.P('x')))
    shards = x.addressable_shards
    return [repr(device), device == ns.s.AbstractDevice('cpu', None, 'cpu'),
            repr(mesh.abstract_mesh.abstract_device), all(isinstance(s, ns.jax.Shard)
                                                          for s in shards),
            [(s.device.id, s.index, s.replica_id, s.data.tolist()) for s in shards]]


def test_abstract_devices_and_shards():
    both(_devices_and_shards)


def _specs(ns):
    P = ns.P
    return [repr(P('x', None, ('x', 'y'))), P(('x',)) == P('x'), P('x') == ('x',),
            repr(P(['a', 'b'])), repr(P('x', unreduced={'y'})), repr(P(reduced={'x'})),
            repr(P('x', reduced={'y'})), repr(P('x', None) + P('y')), repr(P('x') + (None,)),
            repr((None,) + P('x')), P('x', 'y').index('y'), len(P('x', None)),
            P() == P(None), repr(P(P.UNCONSTRAINED)), hash(P('x', 'y')) == hash(P('x', 'y'))]


def test_partition_specs():
    both(_specs)


def _shardings(ns):
    P, s = ns.P, ns.s
    m = ns.jax.make_mesh((2, 2), ('x', 'y'))
    out = []
    for spec in (P('x'), P(('y', 'x')), P('y', 'x'), P(None, 'y'), P()):
        named = s.NamedSharding(m, spec)
        out += [repr(named), named.shard_shape((8, 4)), named.num_devices,
                named.is_fully_replicated, named.memory_kind,
                sorted(d.id for d in named.device_set),
                [(d.id, index) for d, index in named.devices_indices_map((8, 4)).items()],
                named == s.NamedSharding(m, spec), hash(named) == hash(s.NamedSharding(m, spec))]
    single = s.SingleDeviceSharding(ns.jax.devices()[1])
    out += [repr(single), single.num_devices,
            [(d.id, i) for d, i in single.devices_indices_map((2, 3)).items()],
            repr(s.make_single_device_sharding(ns.jax.devices()[0])),
            repr(s.NamedSharding(m.abstract_mesh, P('x'))),
            s.NamedSharding(m, P('x')).is_equivalent_to(s.NamedSharding(m, P('x', None)), 2),
            s.NamedSharding(m, P('x')).is_equivalent_to(s.NamedSharding(m, P('y')), 2)]
    return out


def test_named_shardings():
    both(_shardings)


def _context(ns):
    s = ns.s
    m = ns.jax.make_mesh((2, 2), ('x', 'y'))
    seen = [repr(s.get_abstract_mesh()), repr(s.get_mesh())]
    with ns.jax.set_mesh(m):
        seen += [repr(s.get_abstract_mesh()), repr(s.get_mesh())]
        with s.use_abstract_mesh(s.AbstractMesh((4,), ('z',))):
            seen += [repr(s.get_abstract_mesh()), repr(s.get_mesh())]
    seen += [repr(s.get_abstract_mesh())]
    ns.jax.set_mesh(m)
    seen += [repr(s.get_mesh())]
    ns.jax.set_mesh(None)
    return seen + [repr(s.get_mesh())]


def test_mesh_in_context():
    both(_context)


def _error(ns, make):
    try:
        make(ns)
    except Exception as err:  # noqa: BLE001 (the error is what is compared)
        # (the classes' modules differ: jax._src.mesh.Mesh, minijax.sharding.mesh.Mesh)
        return type(err).__name__, re.sub(r"<class '[\w.]+\.(\w+)'>", r'\1', str(err))
    return None


BAD = {
    'unknown axis': lambda ns: ns.s.NamedSharding(_mesh(ns), ns.P('z')),
    'axis used twice': lambda ns: ns.s.NamedSharding(_mesh(ns), ns.P('x', ('y', 'x'))),
    'indivisible': lambda ns: ns.s.NamedSharding(_mesh(ns), ns.P('x')).shard_shape((7, 4)),
    'spec longer than rank': lambda ns: ns.s.NamedSharding(
        _mesh(ns), ns.P('x', 'y')).check_compatible_aval((8,)),
    'scalar': lambda ns: ns.s.NamedSharding(_mesh(ns), ns.P('x')).check_compatible_aval(()),
    'unreduced partitioned': lambda ns: ns.P('x', unreduced={'x'}),
    'unreduced on auto axis': lambda ns: ns.s.NamedSharding(
        ns.jax.make_mesh((4,), ('i',), axis_types=(ns.s.AxisType.Auto,)),
        ns.P(unreduced={'i'})),
    'too few devices': lambda ns: ns.jax.make_mesh((4, 4), ('x', 'y')),
    'names and devices': lambda ns: ns.s.Mesh(ns.jax.devices(), ('x', 'y')),
    'axis types': lambda ns: ns.s.AbstractMesh((2,), ('a',), ('Auto',)),
    'abstract devices': lambda ns: ns.s.AbstractMesh((2,), ('a',)).devices,
    'unconstrained, explicit': lambda ns: ns.s.NamedSharding(_mesh(ns), ns.P(ns.P.UNCONSTRAINED)),
    'abstract device set': lambda ns: ns.s.NamedSharding(_mesh(ns).abstract_mesh,
                                                         ns.P('x')).device_set,
    'set_mesh of a non-mesh': lambda ns: ns.jax.set_mesh(_mesh(ns).abstract_mesh),
    'use_abstract_mesh resizes': lambda ns: _resize(ns),
}


def _mesh(ns):
    return ns.jax.make_mesh((2, 2), ('x', 'y'))


def _resize(ns):
    with ns.jax.set_mesh(_mesh(ns)), ns.s.use_abstract_mesh(ns.s.AbstractMesh((2,), ('a',))):
        pass


@pytest.mark.parametrize('name', BAD)
def test_bad_input_is_jax_error(name):
    assert both(lambda ns: _error(ns, BAD[name])) is not None


def test_set_mesh_is_refused_inside_jit():
    m = minijax.make_mesh((2,), ('x',))
    theirs = _error(JX, lambda ns: jax.jit(lambda x: jax.set_mesh(jax.make_mesh((2,), ('x',))))(1.))
    with pytest.raises(ValueError) as mine:
        minijax.jit(lambda x: minijax.set_mesh(m))(1.)
    assert (type(mine.value).__name__, str(mine.value)) == theirs
