"""``minijax.distributed``: one program run by several processes (``jax.distributed``).

Each process calls ``initialize`` before its first computation. Process 0 starts jaxlib's
coordination service (a gRPC server on the coordinator's port); every process, 0 included,
connects a client to it, which registers the process, sends heartbeats and keeps a
key-value store the processes share. The CPU client made afterwards
(``runtime.replica_client``) is built from that client: it exchanges the processes' device
lists through the store, so ``devices()`` holds every process's devices and
``local_devices()`` this process's, and its collectives cross processes over gloo TCP
connections, which the processes also find through the store. That is what
``jax.distributed.initialize`` does on CPU.

A process that dies is noticed by the service when its heartbeats stop
(``heartbeat_timeout_seconds``): jaxlib then ends every other process with an error
message naming the task. A coordinator that cannot be reached is a ``RuntimeError`` after
``initialization_timeout`` seconds (JAX's process ends in jaxlib there too: minijax looks
for the coordinator first, so the error is Python's and names the address).
"""

import atexit
import os
import socket
import time
from collections.abc import Sequence

from jaxlib import _jax, xla_client as xc

from minijax import unsupported

__all__ = ['initialize', 'is_initialized', 'shutdown']

# dir() lists JAX's names only. The module keeps the process's state (``global_state``), the
# environment variables it reads and ``cpu_client``, which ``minijax.runtime`` and the
# shardings read (JAX keeps its counterparts in ``jax._src.distributed``).
__dir__ = unsupported.public_dir(globals())

#: The environment variables ``initialize`` reads for arguments left out (JAX reads the same
#: ones without the ``MINI`` prefix).
ADDRESS_VARIABLE = 'MINIJAX_COORDINATOR_ADDRESS'
LOCAL_DEVICE_IDS_VARIABLE = 'MINIJAX_LOCAL_DEVICE_IDS'
BIND_ADDRESS_VARIABLE = 'MINIJAX_COORDINATOR_BIND_ADDRESS'


class State:
    """This process's place in the run: its number, how many there are, the service (process
    0 only) and the client of the coordination service."""
    process_id: int = 0
    num_processes: int = 1
    service = None
    client = None
    coordinator_address: str | None = None
    local_device_ids: list[int] | None = None
    partition_index: int | None = None


global_state = State()


def initialize(coordinator_address: str | None = None,
               num_processes: int | None = None,
               process_id: int | None = None,
               local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None,
               initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100,
               shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None,
               slice_index: int | None = None,
               partition_index: int | None = None):
    """Join this process to the run of ``num_processes`` processes coordinated by process 0
    at ``coordinator_address`` (``'host:port'``), as process ``process_id``. Call it in
    every process before any computation, ``devices()`` or ``device_put``.

    minijax detects no cluster (Slurm, Open MPI, TPU): the address, the number of processes
    and the process id are given, or the address is read from
    ``$MINIJAX_COORDINATOR_ADDRESS``. ``local_device_ids`` (or
    ``$MINIJAX_LOCAL_DEVICE_IDS``) and ``partition_index`` are checked and kept, and change
    nothing on CPU, as in JAX: each process has ``minijax_num_cpu_devices`` devices.

    ``initialization_timeout``: how long to wait for the coordinator and for every process
    to join; ``heartbeat_timeout_seconds``: how long a silent process counts as alive;
    ``shutdown_timeout_seconds``: how long ``shutdown`` waits for the other processes.
    """
    from minijax import runtime
    if runtime.backends_are_initialized():
        raise RuntimeError('minijax.distributed.initialize() must be called before any minijax '
                           'calls that might initialise the XLA backend. This includes any '
                           'computation, but also calls to minijax.devices, '
                           'minijax.device_put, and others.')
    if cluster_detection_method not in (None, 'deactivate'):
        raise ValueError(f'cluster_detection_method={cluster_detection_method!r}: minijax '
                         'detects no cluster; pass coordinator_address, num_processes and '
                         'process_id')
    if partition_index is None:
        partition_index = slice_index
    coordinator_address = coordinator_address or os.environ.get(ADDRESS_VARIABLE)
    local_device_ids = _device_ids(local_device_ids)
    _check_arguments(coordinator_address, num_processes, process_id)
    if global_state.client is not None or global_state.service is not None:
        raise RuntimeError('distributed.initialize should only be called once.')
    host, port = _split_address(coordinator_address)
    bind_address = (coordinator_bind_address or os.environ.get(BIND_ADDRESS_VARIABLE)
                    or f'[::]:{port}')
    state = global_state
    if process_id == 0:
        state.service = _jax.get_distributed_runtime_service(
            bind_address, num_processes, heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds)
    else:
        _wait_for_coordinator(host, port, coordinator_address, process_id,
                              initialization_timeout)
    client = _jax.get_distributed_runtime_client(
        coordinator_address, process_id, init_timeout=initialization_timeout,
        heartbeat_timeout=heartbeat_timeout_seconds, shutdown_timeout=shutdown_timeout_seconds,
        use_compression=True)
    client.connect()  # waits until every process has connected
    state.client, state.process_id, state.num_processes = client, process_id, num_processes
    state.coordinator_address, state.local_device_ids = coordinator_address, local_device_ids
    state.partition_index = partition_index
    atexit.register(shutdown)


def is_initialized() -> bool:
    """Whether ``initialize`` ran (and ``shutdown`` did not)."""
    return global_state.client is not None


def shutdown():
    """Leave the run: wait (up to ``shutdown_timeout_seconds``) for every process to leave
    too, then stop the client and, in process 0, the service. Does nothing when not
    initialized; runs by itself when the process exits."""
    state = global_state
    if state.client is not None:
        state.client.shutdown()
        state.client = None
    if state.service is not None:
        state.service.shutdown()
        state.service = None


def is_local(device) -> bool:
    """Whether ``device`` is one of this process's (every device is, in a run of one; the
    single-device client's is, in any run)."""
    return device.process_index == device.client.process_index()


#: How long (minutes) a client waits for its own devices' description, and for every
#: process's, when it is made (JAX's defaults, ``jax_cpu_get_*_topology_timeout_minutes``):
#: a process that joined the run but never makes its client ends the others' wait.
LOCAL_TOPOLOGY_TIMEOUT_MINUTES, GLOBAL_TOPOLOGY_TIMEOUT_MINUTES = 2, 5


def cpu_client(num_devices: int):
    """The CPU client of a process of the run, with ``num_devices`` devices of its own: its
    ``devices()`` are every process's, and its collectives cross processes over gloo TCP."""
    state = global_state
    collectives = _jax.make_gloo_tcp_collectives(distributed_client=state.client)
    return xc.make_cpu_client(
        distributed_client=state.client, node_id=state.process_id,
        num_nodes=state.num_processes, collectives=collectives, num_devices=num_devices,
        get_local_topology_timeout_minutes=LOCAL_TOPOLOGY_TIMEOUT_MINUTES,
        get_global_topology_timeout_minutes=GLOBAL_TOPOLOGY_TIMEOUT_MINUTES)


def _check_arguments(coordinator_address, num_processes, process_id) -> None:
    """JAX's checks of the three arguments that say who is where, with its errors."""
    if coordinator_address is None:
        raise ValueError('coordinator_address should be defined.')
    if num_processes is None:
        raise ValueError('Number of processes must be defined.')
    if process_id is None:
        raise ValueError('The process id of the current process must be defined.')
    if not isinstance(process_id, int):
        raise TypeError('process_id must be a nonnegative int. '
                        f'Got process_id={process_id} of type {type(process_id)}.')
    if not isinstance(num_processes, int):
        raise TypeError('num_processes must be a positive int. '
                        f'Got num_processes={num_processes} of type {type(num_processes)}.')
    if not 0 <= process_id < num_processes:
        raise ValueError('process_id and num_processes must be nonnegative, with process_id < '
                         f'num_processes. Got process_id={process_id}, '
                         f'num_processes={num_processes}.')


def _device_ids(ids) -> list[int] | None:
    if ids is None and (variable := os.environ.get(LOCAL_DEVICE_IDS_VARIABLE)):
        ids = [int(i) for i in variable.split(',')]
    if isinstance(ids, int):
        ids = [ids]
    if ids is not None and not all(isinstance(i, int) and i >= 0 for i in ids):
        raise TypeError(f'local_device_ids must be nonnegative ints, got {ids!r}')
    return None if ids is None else list(ids)


def _split_address(address: str) -> tuple[str, int]:
    """('host', port) of ``'host:port'`` or ``'[ipv6]:port'``."""
    host, _, port = address.rpartition(':')
    if not host or not port.isdigit():
        raise ValueError(f"coordinator_address must be 'host:port', got {address!r}")
    return host.strip('[]'), int(port)


def _wait_for_coordinator(host, port, address, process_id, timeout):
    """Return once something listens at the coordinator's address; raise after ``timeout``
    seconds (jaxlib's client, asked to connect to nothing, ends the process instead)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError as err:
            if time.monotonic() >= deadline:
                raise RuntimeError(
                    f'minijax.distributed.initialize: process {process_id} found no '
                    f'coordinator at {address} within initialization_timeout={timeout} s '
                    f'({err.strerror or err}); start process 0 with the same '
                    'coordinator_address') from None
            time.sleep(0.1)
