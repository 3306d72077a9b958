"""Nothing is kept per call: a jitted call or an eager op run thousands of times leaves no
allocation behind once garbage is collected (``tracemalloc`` counts them), so a long
training loop's memory stays flat, as JAX's does. (bench/speed.py measures the loop's RSS
beside JAX's.)"""
import gc
import tracemalloc

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp

CALLS = 2000


def _allocations_kept(run) -> int:
    """How many more blocks are allocated after ``CALLS`` runs of ``run`` than before."""
    run()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(CALLS):
            run()
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    ignored = [tracemalloc.Filter(False, tracemalloc.__file__)]  # (the first snapshot)
    return sum(max(0, d.count_diff) for d in after.filter_traces(ignored).compare_to(
        before.filter_traces(ignored), 'filename'))


def _training_step():
    params = [mnp.asarray(np.full((4, 3), .1)), mnp.asarray(np.zeros(3))]
    x = mnp.asarray(np.ones((2, 4)))

    @minijax.jit
    def step(params, x):
        grads = minijax.grad(lambda p: mnp.sum(mnp.tanh(x @ p[0] + p[1]) ** 2))(params)
        return [p - .01 * g for p, g in zip(params, grads)]

    def run():
        params[:] = step(params, x)
    return run


def _eager_op():
    x = [mnp.exp(mnp.asarray(np.ones(5)))]

    def run():
        x[0] = mnp.tanh(x[0]) * 1.0
    return run


@pytest.fixture
def without_jaxs_gc_callback():
    """JAX (the oracle, imported in this process) frees what XLA's threads release at each
    garbage collection too: its callback is taken out, so that minijax's own is tested."""
    jaxs = [cb for cb in gc.callbacks if cb.__module__.startswith('jax')]
    for cb in jaxs:
        gc.callbacks.remove(cb)
    yield
    gc.callbacks.extend(jaxs)


@pytest.mark.parametrize('make', [_training_step, _eager_op], ids=['jit', 'eager'])
def test_calls_keep_nothing(make, without_jaxs_gc_callback):
    """(Each execution's record of the Python stack is released by an XLA thread, and
    jaxlib keeps it until a garbage collection asks: ``runtime.collect_released_references``.)"""
    assert _allocations_kept(make()) < CALLS // 20
