"""The programs test_distributed.py runs in several processes, one per process:

    python distributed_programs.py PROGRAMS PORT PROCESS_ID NUM_PROCESSES OUT [OPTIONS]

Each joins the run (``minijax.distributed.initialize`` at localhost:PORT, with the timeouts
in the JSON OPTIONS), runs each of the comma-separated PROGRAMS and saves what it returns (a
dict of arrays) to ``OUT/PROGRAM-PROCESS_ID.npz``, which the test compares with JAX's
answer. Only minijax and NumPy are imported here: JAX is the test's oracle, in the test's
own process.
"""
import json
import os
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parents[2]))  # this checkout's minijax

import minijax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402

PROGRAMS = {}


def program(f):
    PROGRAMS[f.__name__] = f
    return f


def error(f) -> str:
    """``f()``'s exception, as 'Type: message'."""
    try:
        f()
    except Exception as err:
        return f'{type(err).__name__}: {err}'
    raise AssertionError('no error')


@program
def topology(options):
    """Who is where: this process's number, the global and local devices, and a plain
    ``jit`` on this process's data (the single-device client: no other process takes part)."""
    pid = minijax.process_index()
    local = minijax.local_devices()
    return dict(
        process_index=pid, process_count=minijax.process_count(),
        device_ids=[d.id for d in minijax.devices()],
        device_processes=[d.process_index for d in minijax.devices()],
        local_device_ids=[d.id for d in local],
        local_device_processes=[d.process_index for d in local],
        device_count=minijax.device_count(), local_device_count=minijax.local_device_count(),
        other_local_ids=[d.id for d in minijax.local_devices(process_index=1 - pid)],
        is_initialized=minijax.distributed.is_initialized(),
        jit=minijax.jit(lambda x: jnp.sin(x) * (pid + 1))(np.arange(4.)),
        pmap=error(lambda: minijax.pmap(jnp.sin)(np.ones(2))),
        ordinary_is_addressable=jnp.ones(3).is_fully_addressable,
        ordinary_device=jnp.ones(3).device.id,
        unknown_process=error(lambda: minijax.local_devices(process_index=2)))


def inputs():
    """The global inputs every process (and JAX, the oracle) starts from."""
    rng = np.random.default_rng(31)
    return rng.normal(size=(8, 4)), rng.normal(size=(4, 3))


def layer(jnp, x, w):
    """The program of the sharded ``jit``, for minijax and for JAX."""
    return jnp.tanh(x @ w)


def loss(jnp, x, w):
    """A loss of the layer's output, whose gradient in ``w`` sums over every device's rows."""
    return jnp.sum(layer(jnp, x, w) ** 2)


def shards(name, a) -> dict:
    """This process's blocks of ``a``: where each starts, and its value."""
    here = a.addressable_shards
    return {f'{name}_starts': [[s.start or 0 for s in shard.index] for shard in here],
            f'{name}_devices': [shard.device.id for shard in here],
            f'{name}_blocks': [np.asarray(shard.data) for shard in here]}


@program
def sharded_jit(options):
    """A ``jit`` over the four devices of both processes: the rows of ``x`` split over them
    (each process gives its four rows), ``w`` replicated (made from a callback); the
    gradient in ``w`` of a loss over every row, and an eager computation on ``x``."""
    from minijax.sharding import NamedSharding, PartitionSpec as P
    pid = minijax.process_index()
    x, w = inputs()
    mesh = minijax.make_mesh((4,), ('x',))
    rows = NamedSharding(mesh, P('x'))
    xs = minijax.make_array_from_process_local_data(rows, x[4 * pid:4 * pid + 4])
    ws = minijax.make_array_from_callback(w.shape, NamedSharding(mesh, P()), lambda i: w[i])
    y = minijax.jit(lambda x, w: layer(jnp, x, w), out_shardings=rows)(xs, ws)
    total = minijax.jit(lambda y: y.sum(), out_shardings=NamedSharding(mesh, P()))(y)
    grad = minijax.jit(minijax.grad(lambda w, x: loss(jnp, x, w)))(ws, xs)
    return dict(**shards('x', xs), **shards('y', y), total=np.asarray(total),
                grad=np.asarray(grad), eager=np.asarray((2 * xs + 1).sum()),
                y_repr=repr(y), local_device_ids=[d.id for d in minijax.local_devices()])


def column_sums(jax, x, w):
    """The program of the ``shard_map``, for minijax and for JAX: each device's rows through
    the layer, summed over the device's rows and then (``psum``) over every device; and the
    rows scaled by the device's index on the mesh."""
    def body(xb, w):
        total = jax.lax.psum(jax.numpy.sum(layer(jax.numpy, xb, w), axis=0), 'x')
        return total, xb * jax.lax.axis_index('x')
    from_mesh = jax.sharding.PartitionSpec
    return jax.shard_map(body, in_specs=(from_mesh('x'), from_mesh()),
                         out_specs=(from_mesh(), from_mesh('x')))


@program
def shard_map_psum(options):
    """A jitted ``shard_map`` over the four devices of both processes, its ``psum`` crossing
    processes (gloo)."""
    from minijax.sharding import NamedSharding, PartitionSpec as P
    pid = minijax.process_index()
    x, w = inputs()
    mesh = minijax.make_mesh((4,), ('x',))
    xs = minijax.make_array_from_process_local_data(NamedSharding(mesh, P('x')),
                                                    x[4 * pid:4 * pid + 4])
    here = NamedSharding(mesh, P()).addressable_devices_indices_map(w.shape)
    ws = minijax.make_array_from_single_device_arrays(
        w.shape, NamedSharding(mesh, P()), [minijax.device_put(w, d) for d in here])
    with minijax.set_mesh(mesh):
        total, scaled = minijax.jit(column_sums(minijax, x, w))(xs, ws)
    return dict(total=np.asarray(total), **shards('scaled', scaled))


#: (mesh shape, spec): the layouts ``process_local_data`` builds arrays with.
LAYOUTS = {'rows': ((4,), ('x',)), 'grid': ((2, 2), ('a', 'b')), 'swapped': ((2, 2), ('b', 'a')),
           'replicated': ((4,), ())}


@program
def process_local_data(options):
    """Global arrays from each process's part of ``x`` under several layouts: the part is
    the rows (columns) its devices hold, found from the JAX-computed blocks the test passes
    in; plus the whole ``x`` with ``global_shape`` equal to its shape, and the errors."""
    from minijax.sharding import NamedSharding, PartitionSpec as P
    x, _ = inputs()
    out = {}
    for name, (shape, spec) in LAYOUTS.items():
        mesh = minijax.make_mesh(shape, ('a', 'b') if len(shape) == 2 else ('x',))
        sharding = NamedSharding(mesh, P(*spec))
        rows, cols = options['parts'][str(minijax.process_index())][name]
        a = minijax.make_array_from_process_local_data(sharding, x[rows[0]:rows[1],
                                                                    cols[0]:cols[1]])
        out.update(shards(name, a))
        out[f'{name}_shape'] = a.shape
    mesh = minijax.make_mesh((4,), ('x',))
    rows = NamedSharding(mesh, P('x'))
    whole = minijax.make_array_from_process_local_data(rows, x, x.shape)
    out.update(shards('whole', whole))
    put = minijax.device_put(x, rows)
    out.update(shards('put', put))
    out['errors'] = [
        error(lambda: minijax.make_array_from_process_local_data(rows, x[:3], x.shape)),
        error(lambda: minijax.make_array_from_process_local_data(rows, x[:3])),
        error(lambda: minijax.jit(lambda v: v * 2, in_shardings=rows)(x)),
        error(lambda: np.asarray(put)),
        error(lambda: minijax.make_array_from_process_local_data(rows, x[:4], (None, 4))),
        error(lambda: minijax.jit(lambda v: v, in_shardings=NamedSharding(mesh, P()))(put)),
    ]
    out['replicated_value'] = np.asarray(minijax.make_array_from_process_local_data(
        NamedSharding(mesh, P()), x))
    return out


@program
def dies(options):
    """Process 1 dies without a word; process 0 then needs it (to build the devices'
    topology) and must end within the heartbeat timeout instead of waiting."""
    if minijax.process_index() == 1:
        os._exit(17)
    time.sleep(0.5)
    return dict(device_ids=[d.id for d in minijax.devices()])


def main(names, port, process_id, num_processes, out, options='{}'):
    options = json.loads(options)
    minijax.distributed.initialize(f'localhost:{port}', int(num_processes), int(process_id),
                                   **options.get('initialize', {}))
    for name in names.split(','):
        np.savez(pathlib.Path(out) / f'{name}-{process_id}.npz', **PROGRAMS[name](options))
    minijax.distributed.shutdown()


if __name__ == '__main__':
    main(*sys.argv[1:])
