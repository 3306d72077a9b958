"""The programs test_distributed.py runs in several processes, one per process:

    python distributed_programs.py PROGRAM PORT PROCESS_ID NUM_PROCESSES OUT [OPTIONS]

Each joins the run (``minijax.distributed.initialize`` at localhost:PORT, with the timeouts
in the JSON OPTIONS), runs ``PROGRAM`` and saves what it returns (a dict of arrays) to
``OUT/PROCESS_ID.npz``, which the test compares with JAX's answer. Only minijax and NumPy are
imported here: JAX is the test's oracle, in the test's own process.
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
        jit=minijax.jit(lambda x: jnp.sin(x) * (pid + 1))(np.arange(4.)))


@program
def dies(options):
    """Process 1 dies without a word; process 0 then needs it (to build the devices'
    topology) and must end within the heartbeat timeout instead of waiting."""
    if minijax.process_index() == 1:
        os._exit(17)
    time.sleep(0.5)
    return dict(device_ids=[d.id for d in minijax.devices()])


def main(name, port, process_id, num_processes, out, options='{}'):
    options = json.loads(options)
    minijax.distributed.initialize(f'localhost:{port}', int(num_processes), int(process_id),
                                   **options.get('initialize', {}))
    result = PROGRAMS[name](options)
    np.savez(pathlib.Path(out) / f'{process_id}.npz', **result)
    minijax.distributed.shutdown()


if __name__ == '__main__':
    main(*sys.argv[1:])
