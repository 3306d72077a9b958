"""Several processes: ``minijax.distributed`` on localhost, two processes with two CPU devices
each, every process's result checked against JAX's single-process answer on four devices
(this process's; conftest.py gives it four).

The processes run ``distributed_programs.py``; ``run`` starts them on a free port, each with
a deadline, kills them all when one fails or the deadline passes, and returns what each
saved, or its exit status and output.
"""
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import distributed_programs
import numpy as np
import pytest
from testlib import assert_close

PROGRAMS = pathlib.Path(distributed_programs.__file__)
ROOT = PROGRAMS.parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('localhost', 0))
        return s.getsockname()[1]


class Finished:
    """A process of a run: its exit status, its output and what each program saved."""

    def __init__(self, process_id, returncode, output, saved):
        self.process_id, self.returncode, self.output = process_id, returncode, output
        self.saved = saved

    def __repr__(self):
        return f'process {self.process_id} (exit {self.returncode}):\n{self.output}'


def run(programs, tmp_path, num_processes=2, devices=2, deadline=60, processes=None,
        expect_failure=False, options=None, **initialize):
    """Run ``programs`` (comma-separated names), one after the other, in ``num_processes``
    processes (or only those of ``processes``), with ``options`` and ``initialize``'s keyword
    arguments; a list of ``Finished``, process 0 first. Unless ``expect_failure``, every
    process must exit 0 before the deadline, and a failure kills the others at once."""
    port = free_port()
    env = {**os.environ, 'MINIJAX_NUM_CPU_DEVICES': str(devices), 'PYTHONUNBUFFERED': '1'}
    env.pop('XLA_FLAGS', None)
    options = json.dumps({'initialize': initialize, **(options or {})})
    logs, running = {}, {}
    for pid in processes if processes is not None else range(num_processes):
        logs[pid] = open(tmp_path / f'{pid}.log', 'w+')
        running[pid] = subprocess.Popen(
            [sys.executable, str(PROGRAMS), programs, str(port), str(pid), str(num_processes),
             str(tmp_path), options], stdout=logs[pid], stderr=subprocess.STDOUT, env=env,
            cwd=ROOT, start_new_session=True)
    end = time.monotonic() + deadline
    try:
        while any(p.poll() is None for p in running.values()):
            failed = any(p.returncode not in (None, 0) for p in running.values())
            if time.monotonic() > end or (failed and not expect_failure):
                break
            time.sleep(0.05)
    finally:
        for p in running.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    finished = []
    for pid, p in running.items():
        logs[pid].seek(0)
        saved = {path.stem.rsplit('-', 1)[0]: dict(np.load(path))
                 for path in tmp_path.glob(f'*-{pid}.npz')}
        finished.append(Finished(pid, p.returncode, logs[pid].read(), saved))
        logs[pid].close()
    if not expect_failure:
        for f in finished:
            assert f.returncode == 0, f
    return finished


def layouts():
    """JAX's arrays of ``x`` under each layout of ``distributed_programs.LAYOUTS``, and
    the part each process's devices hold: {process id: {layout: (rows, columns)}}."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    x, _ = distributed_programs.inputs()
    expected, parts = {}, {'0': {}, '1': {}}
    for name, (shape, spec) in distributed_programs.LAYOUTS.items():
        mesh = jax.make_mesh(shape, ('a', 'b') if len(shape) == 2 else ('x',))
        sharding = NamedSharding(mesh, P(*spec))
        expected[name] = jax.device_put(x, sharding)
        for pid in parts:
            parts[pid][name] = process_part(sharding, x.shape, int(pid))
    return expected, parts


@pytest.fixture(scope='module')
def two_processes(tmp_path_factory):
    """One run of two processes with two CPU devices each, running the programs the tests
    below check (one start-up for all)."""
    return run('topology,sharded_jit,shard_map_psum,process_local_data',
               tmp_path_factory.mktemp('two_processes'), options={'parts': layouts()[1]})


def test_two_processes_see_four_devices_and_run_their_own_jit(two_processes):
    """Each process numbers itself, sees the four global devices (its two among them) and
    runs a plain ``jit`` on its own data, as JAX's processes do; ``pmap``, which minijax runs
    in one process only, says so."""
    import jax
    for f in two_processes:
        pid, r = f.process_id, f.saved['topology']
        assert r['process_index'] == pid and r['process_count'] == 2
        assert r['device_count'] == 4 and r['local_device_count'] == 2
        assert list(r['device_processes']) == [0, 0, 1, 1]
        assert list(r['local_device_processes']) == [pid, pid]
        ids = list(r['device_ids'])
        assert list(r['local_device_ids']) == ids[2 * pid:2 * pid + 2]
        assert list(r['other_local_ids']) == ids[2 * (1 - pid):2 * (1 - pid) + 2]
        assert r['is_initialized'] and r['ordinary_is_addressable']
        assert str(r['unknown_process']) == 'ValueError: Unknown process_index 2'
        assert r['ordinary_device'] == ids[2 * pid]  # JAX's default device: the first local
        np.testing.assert_array_equal(
            r['jit'], jax.jit(lambda x: jax.numpy.sin(x) * (pid + 1))(np.arange(4.)))
        assert str(r['pmap']) == 'NotImplementedError: pmap sin: minijax runs pmap in one ' \
            'process, and this one is one of 2 (minijax.distributed): use jit over a mesh or ' \
            'shard_map'



def assert_shards_are_jaxs(saved, name, theirs, process_id):
    """The blocks a process saved of ``name`` are JAX's blocks on the same devices (JAX's
    four devices in one process stand for the two processes' two each, in order)."""
    expected = theirs.addressable_shards[2 * process_id:2 * process_id + 2]
    assert [list(s) for s in saved[f'{name}_starts']] == \
        [[i.start or 0 for i in shard.index] for shard in expected]
    for block, shard in zip(saved[f'{name}_blocks'], expected):
        assert_close(block, shard.data)


def test_a_sharded_jit_over_both_processes_is_jaxs(two_processes):
    """Each process gives its rows (``make_array_from_process_local_data``) and the
    replicated weights (``make_array_from_callback``); the ``jit`` runs over the four devices
    of both, and each process's blocks, the replicated sum, the gradient in the weights and
    an eager computation on the rows are JAX's."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    x, w = distributed_programs.inputs()
    mesh = jax.make_mesh((4,), ('x',))
    rows = NamedSharding(mesh, P('x'))
    xs = jax.device_put(x, rows)
    y = jax.jit(lambda x, w: distributed_programs.layer(jax.numpy, x, w),
                out_shardings=rows)(xs, jax.device_put(w, NamedSharding(mesh, P())))
    total = jax.jit(lambda y: y.sum(), out_shardings=NamedSharding(mesh, P()))(y)
    grad = jax.jit(jax.grad(lambda w, x: distributed_programs.loss(jax.numpy, x, w)))(
        jax.device_put(w, NamedSharding(mesh, P())), xs)
    for f in two_processes:
        saved = f.saved['sharded_jit']
        assert_close(saved['grad'], grad)
        assert_close(saved['eager'], (2 * xs + 1).sum())
        assert_shards_are_jaxs(saved, 'x', xs, f.process_id)
        assert_shards_are_jaxs(saved, 'y', y, f.process_id)
        assert list(saved['y_devices']) == list(saved['local_device_ids'])
        assert_close(saved['total'], total)
        assert str(saved['y_repr']) == 'Array(shape=(8, 3), dtype=float64)'


def test_a_shard_map_with_psum_over_both_processes_is_jaxs(two_processes):
    """A jitted ``shard_map`` over the four devices of two processes: its ``psum`` sums
    across processes, and each process's result (the replicated sum, its blocks of the
    sharded output) is JAX's. The weights come from ``make_array_from_single_device_arrays``."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    x, w = distributed_programs.inputs()
    mesh = jax.make_mesh((4,), ('x',))
    with jax.set_mesh(mesh):
        total, scaled = jax.jit(distributed_programs.column_sums(jax, x, w))(
            jax.device_put(x, NamedSharding(mesh, P('x'))), w)
    for f in two_processes:
        assert_close(f.saved['shard_map_psum']['total'], total)
        assert_shards_are_jaxs(f.saved['shard_map_psum'], 'scaled', scaled, f.process_id)


def process_part(sharding, shape, process_id):
    """The (rows, columns) of a 2-d global array that process ``process_id``'s devices (JAX's
    devices 2p and 2p+1 in one process) hold."""
    indices = list(sharding.devices_indices_map(shape).values())[2 * process_id:2 * process_id + 2]
    return [[min(i[d].start or 0 for i in indices), max(i[d].stop or shape[d] for i in indices)]
            for d in range(2)]


def test_global_arrays_from_each_process_part_are_jaxs(two_processes):
    """``make_array_from_process_local_data`` under four layouts (rows, a 2x2 grid, the grid
    with its axes swapped, replicated: each process passes the part its devices hold), with
    ``global_shape`` equal to the data's, ``device_put`` of a host value, and JAX's errors for
    a wrong part, a NumPy argument of a sharded ``jit`` and reading a value other processes
    hold part of (and minijax's for laying such a value out anew)."""
    x, _ = distributed_programs.inputs()
    expected, _ = layouts()
    rows = expected['rows']
    for f in two_processes:
        saved = f.saved['process_local_data']
        for name in [*expected, 'whole', 'put']:
            assert_shards_are_jaxs(saved, name, expected.get(name, rows), f.process_id)
        for name in expected:
            assert tuple(saved[f'{name}_shape']) == x.shape
        assert_close(saved['replicated_value'], x)
        assert list(saved['errors']) == [
            'ValueError: Invalid host data, each dimension should match either global or '
            'process shape. In dimension 0, the process data has 3 elements. Process addresses '
            '4 elements and global_shape=(8, 4).',
            "IndivisibleError: Sharding NamedSharding(mesh=Mesh('x': 4, axis_types=(Explicit,)), "
            "spec=P('x',), memory_kind=device) implies that array axis 0 is partitioned 4 times, "
            'but the dimension size is 6 (full shape: (6, 4), per-dimension tiling factors: '
            '[4, 1] should evenly divide the shape)',
            'ValueError: Passing non-trivial shardings for numpy inputs is not allowed. To fix '
            'this error, either specify a replicated sharding explicitly or use '
            '`jax.make_array_from_process_local_data(...)` to convert your host local numpy '
            'inputs to a jax.Array which you can pass to jit. If the numpy input is the same on '
            'each process, then you can use `jax.make_array_from_callback(...) to create a '
            '`jax.Array` which you can pass to jit. Got arg type: float64[8,4]',
            'RuntimeError: Fetching value for `jax.Array` that spans non-addressable (non '
            'process local) devices is not possible. Use `.addressable_shards` to inspect the '
            'addressable (process local) shards.',
            'ValueError: global_shape=(None, 4) has Nones. This is not supported.',
            "ValueError: an argument laid out as NamedSharding(mesh=Mesh('x': 4, "
            "axis_types=(Explicit,)), spec=P('x',), memory_kind=device) is wanted as "
            "NamedSharding(mesh=Mesh('x': 4, axis_types=(Explicit,)), spec=P(), "
            'memory_kind=device): minijax lays an argument out anew through the host, and this '
            'process holds only part of it (other processes hold the rest). Pass it as it '
            'lies, or change its layout inside the jitted function '
            '(lax.with_sharding_constraint)']


def test_a_process_that_dies_ends_the_others_within_the_heartbeat_timeout(tmp_path):
    """Process 1 exits without leaving the run; process 0, needing it, is ended by the
    coordination service's error (naming the task) within the heartbeat timeout: no hang."""
    start = time.monotonic()
    survivor, dead = run('dies', tmp_path, expect_failure=True, deadline=30,
                         heartbeat_timeout_seconds=2, initialization_timeout=10,
                         shutdown_timeout_seconds=2)
    assert dead.returncode == 17, dead
    assert survivor.returncode not in (None, 0), survivor
    assert 'stopped sending heartbeats' in survivor.output, survivor
    assert time.monotonic() - start < 20


def test_a_coordinator_that_cannot_be_reached_is_an_error_within_the_timeout(tmp_path):
    """Process 1 of 2 with no process 0: a RuntimeError naming the address, after
    ``initialization_timeout`` seconds."""
    start = time.monotonic()
    lone, = run('topology', tmp_path, processes=[1], expect_failure=True, deadline=30,
                initialization_timeout=1)
    assert lone.returncode == 1, lone
    assert 'RuntimeError: minijax.distributed.initialize: process 1 found no coordinator at ' \
           'localhost:' in lone.output, lone
    assert 'within initialization_timeout=1 s' in lone.output
    assert time.monotonic() - start < 15


ATTEMPTS = '''
import json, socket, sys
lib = __import__(sys.argv[1])
initialize = lib.distributed.initialize

def free_port():
    with socket.socket() as s:
        s.bind(('localhost', 0))
        return s.getsockname()[1]

def attempt(*args, **kwargs):
    try:
        initialize(*args, cluster_detection_method='deactivate', **kwargs)
        return 'initialized'
    except Exception as err:
        return [type(err).__name__, str(err)]

seen = [attempt(), attempt('localhost:1'), attempt('localhost:1', 2),
        attempt('localhost:1', 2, '0'), attempt('localhost:1', 2.0, 0),
        attempt('localhost:1', 2, 2), attempt('localhost:1', 2, -1),
        lib.distributed.is_initialized()]
seen += [attempt(f'localhost:{free_port()}', 1, 0), lib.distributed.is_initialized(),
         attempt(f'localhost:{free_port()}', 1, 0)]
lib.distributed.shutdown()
seen += [lib.distributed.is_initialized()]
lib.devices()
seen += [attempt(f'localhost:{free_port()}', 1, 0)]
print(json.dumps(seen))
'''


def attempts(library):
    """What ``library.distributed.initialize`` says to bad arguments, to a second call, and
    to a call after the first computation, in a fresh process."""
    env = {**os.environ, 'JAX_PLATFORMS': 'cpu'}
    done = subprocess.run([sys.executable, '-c', ATTEMPTS, library], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def as_minijax(seen):
    """JAX's answer with its library named minijax."""
    if not isinstance(seen, list):
        return seen
    kind, message = seen
    return [kind, message.replace('jax.', 'minijax.').replace('JAX', 'minijax')]


def test_initialize_errors_are_jaxs():
    """The same error types and messages as JAX (named minijax), and ``is_initialized``."""
    mine, theirs = attempts('minijax'), attempts('jax')
    assert mine == [as_minijax(t) for t in theirs]
    assert mine[7:10] == [False, 'initialized', True] and mine[11] is False


# ----------------------------------------------------------------------------- in one process

def global_arrays(jax):
    """The three functions in one process (four devices): every block is this process's."""
    from_spec, sharded = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    data = np.arange(64.).reshape(8, 8)
    grid = sharded(jax.make_mesh((2, 2), ('x', 'y')), from_spec('x', 'y'))
    rows = sharded(jax.make_mesh((4,), ('x',)), from_spec('x'))
    from_callback = jax.make_array_from_callback(data.shape, grid, lambda i: data[i])
    scalar = jax.make_array_from_callback((), sharded(rows.mesh, from_spec()), lambda i: 3.)
    blocks = [jax.device_put(data[i], d)
              for d, i in rows.addressable_devices_indices_map(data.shape).items()]
    from_blocks = jax.make_array_from_single_device_arrays(data.shape, rows, blocks[::-1])
    local = jax.make_array_from_process_local_data({'a': grid}, {'a': data})['a']
    return [(a, a.sharding, [s.index for s in a.addressable_shards],
             [s.device.id for s in a.addressable_shards], a.addressable_data(0).shape)
            for a in (from_callback, scalar, from_blocks, local)]


def global_array_errors(jax):
    """Bad arguments (on an Auto mesh, whose arrays' types carry no sharding)."""
    from_spec, sharded = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    x = np.arange(8.)
    mesh = jax.make_mesh((4,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
    rows = sharded(mesh, from_spec('x'))
    blocks = [jax.device_put(x[i], d)
              for d, i in rows.addressable_devices_indices_map(x.shape).items()]
    make = jax.make_array_from_single_device_arrays
    calls = [
        lambda: jax.make_array_from_callback((8,), rows, lambda i: x[i][:1]),
        lambda: jax.make_array_from_callback((8,), rows, lambda i: x[i], dtype=np.float32),
        lambda: make((8,), rows, blocks[:3]),
        lambda: make((8,), rows, blocks[:1] * 4),
        lambda: make((8,), rows, [jax.device_put(x[:3], d) for d in jax.devices()]),
        lambda: make((8,), rows, []),
        lambda: make((8,), rows, blocks, dtype=np.float32),
        lambda: make((8,), rows, (x[:2],) * 4),
        lambda: make((8,), rows, (b for b in blocks)),
        lambda: jax.make_array_from_process_local_data(rows, x, (16,)),
        lambda: jax.make_array_from_process_local_data(from_spec('x'), x),
    ]
    seen = []
    for call in calls:
        try:
            call()
            seen.append('no error')
        except Exception as err:
            seen.append(f'{type(err).__name__}: {err}')
    return seen


def test_global_arrays_in_one_process_are_jaxs():
    import jax
    import minijax
    for mine, theirs in zip(global_arrays(minijax), global_arrays(jax), strict=True):
        assert_close(mine[0], theirs[0])
        assert repr(mine[1]) == repr(theirs[1])
        assert mine[2:] == theirs[2:]


def test_global_array_errors_are_jaxs():
    import jax
    import minijax
    assert global_array_errors(minijax) == global_array_errors(jax)
    with pytest.raises(TypeError, match=r"sharding should be an instance of `jax.sharding`. "
                                        r"Got P\('x',\) of type"):
        minijax.make_array_from_callback((8,), minijax.P('x'), lambda i: None)


def test_signatures_are_jaxs():
    """Parameter names, kinds and defaults of the distributed API, as JAX 0.10.2's."""
    import inspect

    import jax
    import minijax

    def parameters(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]
    for name in ['distributed.initialize', 'distributed.shutdown', 'distributed.is_initialized',
                 'make_array_from_callback', 'make_array_from_process_local_data',
                 'make_array_from_single_device_arrays', 'process_index', 'process_count',
                 'devices', 'local_devices', 'device_count', 'local_device_count']:
        mine, theirs = minijax, jax
        for part in name.split('.'):
            mine, theirs = getattr(mine, part), getattr(theirs, part)
        assert parameters(mine) == parameters(theirs), name
    assert minijax.distributed.__all__ == ['initialize', 'is_initialized', 'shutdown']
