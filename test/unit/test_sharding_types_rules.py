"""The sharding-in-types rules of ``lax.linalg``'s decompositions, ``fft``,
``rng_bit_generator`` and the callbacks against JAX 0.10.2, on a 2x4 mesh of ``Explicit``
axes: the programs of ``sharding_rules_programs.py`` run in a fresh process of 8 CPU
devices per library; their results' types and values, or their errors (a sharded matrix
dimension: JAX's ShardingTypeError and text), and their jaxprs and modules must be JAX's."""
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent

#: Jaxprs not compared: the callbacks' print their Python functions; minijax's eigh, eig,
#: svd and qr bind fewer parameters (not the ones JAX's CPU lowering ignores: algorithm,
#: subset_by_index, implementation, pivoting, use_magma); its lu binds a primitive of two
#: results (JAX's has three, the permutation made by its lowering) and then
#: lu_pivots_to_permutation_p.
NO_JAXPR = {'pure_callback', 'pure_callback_then_op', 'io_callback', 'debug_callback',
            'io_callback_ordered', 'debug_print_ordered',
            'callback_in_shard_map', 'lu_batch', 'eigh_batch', 'eigh_two_batch_dims',
            'eig_batch', 'eig_values_only', 'svd_batch', 'svd_values_only', 'qr_batch',
            'qr_reduced'}
#: Modules not compared: minijax makes lu's permutation with a loop of its own.
NO_MODULE = {'lu_batch', 'lu_pivots_to_permutation'}
#: Errors compared by type: JAX's text shows an object's address.
ERROR_TYPE_ONLY = {'debug_print_ordered'}


def _start(lib, out):
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent), JAX_PLATFORMS='cpu')
    env.pop('XLA_FLAGS', None)
    env.pop('MINIJAX_NUM_CPU_DEVICES', None)
    return subprocess.Popen([sys.executable, str(HERE / 'sharding_rules_programs.py'), lib,
                             out], env=env, stderr=subprocess.DEVNULL)


@pytest.fixture(scope='module')
def results(tmp_path_factory):
    """(minijax's, JAX's) results, by program name."""
    tmp = tmp_path_factory.mktemp('sharding_rules')
    runs = {lib: (_start(lib, str(tmp / lib)), tmp / lib) for lib in ('jax', 'minijax')}
    out = {}
    for lib, (proc, path) in runs.items():
        assert proc.wait(timeout=600) == 0, lib
        out[lib] = pickle.loads(path.read_bytes())
    assert out['minijax'].keys() == out['jax'].keys()
    return out['minijax'], out['jax']


def _same_values(mine, theirs) -> bool:
    return len(mine) == len(theirs) and all(
        a.shape == b.shape and a.dtype == b.dtype
        and np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True)
        for a, b in zip(mine, theirs))


def _differ(results, check) -> list:
    mine, theirs = results
    return [name for name in theirs if not check(name, mine[name], theirs[name])]


def _types_and_values(name, mine, theirs) -> bool:
    if 'unsharded' in theirs:  # JAX traces it (its rule gives the types), fails to lower
        return (theirs['error'][0] == 'ShardingTypeError'
                and mine['types'] == mine['traced'] == theirs['traced']
                and _same_values(mine['values'], theirs['unsharded']))
    if 'error' in theirs:
        return 'error' in mine and (mine['error'] == theirs['error'] or name in ERROR_TYPE_ONLY
                                    and mine['error'][0] == theirs['error'][0])
    return 'error' not in mine and mine['types'] == theirs['types'] and \
        _same_values(mine['values'], theirs['values'])


def test_types_values_and_errors_are_jaxs(results):
    assert _differ(results, _types_and_values) == []


def test_jaxprs_are_jaxs(results):
    assert _differ(results, lambda name, mine, theirs: name in NO_JAXPR or
                   mine.get('jaxpr') == theirs.get('jaxpr')) == []


def test_modules_are_jaxs(results):
    assert _differ(results, lambda name, mine, theirs: name in NO_MODULE or
                   'unsharded' in theirs or mine.get('module') == theirs.get('module')) == []


def test_a_matrix_dimension_sharded_is_jaxs_error(results):
    """(The table's errors are compared above; this says which they are.)"""
    mine, _ = results
    assert mine['cholesky_p_matrix_sharded']['error'] == (
        'ShardingTypeError', "Input 0 to cholesky must be unsharded on non-batch dimensions, "
        "but got P(None, 'X', None).")
    assert mine['triangular_solve_b_contracting']['error'][0] == 'ShardingTypeError'
