"""Random programs agree with JAX on every leg: eager minijax, mj.jit (XLA), the StableHLO
reference interpreter on the same module, grad (and finite differences) and vmap.

The programs and the checks live in random_programs.py (shared with bench/fuzz.py, which runs
thousands); CI runs a fixed seed set. A failure message holds the program's listing and the
command that re-runs it alone.
"""
import functools

import numpy as np
import pytest

import minijax as mj
from minijax import custom_derivatives, dtypes, lax, prng
from random_programs import (JAX, KNOWN_BUGS, MINIJAX, Aval, Mismatch, Oracle, Program, Step,
                             _all_steps, as_function, check, describe, generate)

#: The fixed seeds CI runs (bench/fuzz.py runs thousands more): the first 12, and those that
#: reach the primitives, dtypes and step kinds the first miss (a greedy cover of the seeds
#: below 3000: add the seed that reaches the most not yet reached, until none is left).
#: ``test_ci_programs_use_every_primitive_and_control_flow`` and
#: ``test_ci_programs_use_every_dtype`` say when to look again.
#: Seeds of past fuzz failures are not kept: a seed names another program once the generator
#: learns a new primitive, so they had stopped reproducing what they once found.
CI_SEEDS = (*range(12), 599, 1392, 2193, 70, 246, 547, 2053, 450, 1225, 1265, 417, 792, 1094,
            1419, 2729, 313, 423, 955, 51, 103, 111, 182, 285, 817)


@pytest.mark.parametrize('seed', CI_SEEDS)
def test_random_program_agrees_with_jax(seed):
    failures = check(seed)
    assert not failures, '\n'.join(
        [describe(generate(seed).program), f'(re-run: python bench/fuzz.py --only {seed})']
        + [f'{f.cls}: {f.message}' for f in failures])


def test_jax_programs_divide_integers_by_zero_without_crashing_xla():
    """XLA dies of SIGFPE folding ``(x - x) / (x - x)`` under jax.jit (before: the fuzzer
    died with it). The oracle's JAX program hides the operands from XLA's folder and gets
    XLA's run-time answer, -1, jitted and op by op (its excuses on a mismatch)."""
    ints = Aval((2,), 'int32')
    program = Program((ints,), (Step('binary', (0, 0), {'name': 'sub'}, (ints,)),
                                Step('binary', (1, 1), {'name': 'div', 'safe_divisor': False},
                                     (ints,))), (2,))
    oracle = Oracle(as_function(program, JAX), [np.arange(2, dtype=np.int32)])
    oracle.check([np.full(2, -1, np.int32)], 'x / 0', None)
    with pytest.raises(Mismatch, match='x / 0 output 0: got'):
        oracle.check([np.zeros(2, np.int32)], 'x / 0', None)


def _primitives(jaxpr):
    """Names of the primitives of ``jaxpr`` and of its sub-jaxprs."""
    for eqn in jaxpr.eqns:
        yield eqn.primitive.name
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple) else (value,):
                inner = getattr(sub, 'jaxpr', sub)
                if hasattr(inner, 'eqns'):
                    yield from _primitives(inner)


#: Collectives need an axis bound by pmap or vmap(axis_name=...), which a random
#: single-device program has not: test_pmap.py checks them against JAX instead. custom_lin
#: appears only inside autodiff (the grad legs go through it). stage lifts its operand into
#: the trace: it adds no equation to find (the fuzzer draws it all the same). rng_uniform
#: draws from XLA's state, so no two runs agree; tokens (create_token, after_all) hold no
#: value to compare; rng_bit_generator needs a uint32[4] or uint64[2] key, which the
#: fuzzer's operands are not (test_rules checks it against JAX, bits and vmap).
NOT_GENERATED = {'psum', 'pmax', 'pmin', 'axis_index', 'all_gather', 'psum_scatter',
                 'ppermute', 'all_to_all', 'custom_lin', 'stage', 'rng_uniform', 'create_token',
                 'after_all', 'rng_bit_generator',
                 # not drawn yet: lax.reduce and lax.reduce_window with a computation of their
                 # own (a sampler drawing the computation), select_and_scatter (no public
                 # function binds it; select_and_scatter_add, max pooling's VJP, lowers to it)
                 'reduce', 'reduce_window', 'select_and_scatter',
                 # scales of a subchannel shape (the operand's, but for contracting axes a
                 # divisor of at most half their size), which the generator does not draw
                 'scaled_dot',
                 # max pooling's derivatives: not in a program's jaxpr, but in the JVP and
                 # VJP the fuzzer checks of each program with a reduce_window_max or _min
                 'select_and_gather_add', 'select_and_scatter_add',
                 # the nonsymmetric eigendecomposition: its eigenvectors have no derivative
                 # (the fuzzer differentiates every program); test_numpy_more.py checks it
                 'eig',
                 # a sharding constraint names a mesh of several devices, which a random
                 # single-device program has none of: test_sharded_jit.py checks it
                 'sharding_constraint',
                 # random.clone's primitive, the identity on keys (a marker for JAX's
                 # key-reuse checker): test_random.py checks its jaxpr, values and vmap
                 'random_clone',
                 # the real Schur form: like eig, it has no derivative (JAX's has none);
                 # test_linalg.py checks its rules and test_scipy_matrices.py its values
                 'schur',
                 # the Householder reductions and products, and the two lax-formula
                 # products: no derivatives either (JAX's have none); cholesky_update does
                 # not batch. test_linalg.py checks their rules, test_linalg_dtypes.py and
                 # test_linalg.py their values and text against JAX
                 'hessenberg', 'tridiagonal', 'householder_product', 'ormqr',
                 'symmetric_product', 'cholesky_update',
                 # not drawn yet (a sampler in s_linalg would re-pick CI_SEEDS): its rules
                 # in test_linalg.py, its values, grads and vmap against JAX's in
                 # test_linalg_dtypes.py and test_linalg.py
                 'tridiagonal_solve',
                 # a call with a user's transpose (custom_derivatives.linear_call):
                 # test_jax_surface.py checks its values, transpose and jaxpr
                 'linear_call',
                 # a traced device_put names devices or a sharding, which a random
                 # single-device program has none of: test_sharded_jit.py checks it
                 'device_put',
                 # a collective over a mesh axis, as psum, which XLA:CPU does not run (as
                 # JAX's): test_collectives_beyond_cpu.py checks its text and errors
                 'ragged_all_to_all'}

#: Where the primitives the fuzzer must reach are defined.
PRIMITIVE_MODULES = (lax, lax.linalg, prng, custom_derivatives)

_HOW_TO_FIX = ('teach test/unit/random_programs.py to draw it (a sampler in SAMPLERS, its '
               'dtypes in ACCEPTS), then re-pick CI_SEEDS in test/unit/test_random_programs.py '
               '(a greedy cover, as its comment says)')


@functools.cache
def _ci_coverage():
    """The primitives (in sub-jaxprs too) and the dtypes of the CI seeds' programs."""
    primitives, dtype_names = set(), set()
    for seed in CI_SEEDS:
        program = generate(seed).program
        args = [np.zeros(a.shape, a.dtype) for a in program.inputs]
        primitives |= set(_primitives(mj.make_jaxpr(as_function(program, MINIJAX))(*args).jaxpr))
        dtype_names |= {a.dtype for a in program.inputs}
        dtype_names |= {a.dtype for step in _all_steps(program) for a in step.outs}
    return primitives, dtype_names


def test_ci_programs_use_every_primitive_and_control_flow():
    """The CI seed set reaches every primitive of minijax.lax, lax.linalg, the PRNG and the
    custom rules, and cond, while, scan and nested jit: a new primitive without a generator
    entry fails here."""
    wanted = {p.name for module in PRIMITIVE_MODULES for p in vars(module).values()
              if isinstance(p, mj.Primitive)}
    wanted -= NOT_GENERATED
    wanted |= {'cond', 'while', 'scan', 'xla_call'}
    missing = wanted - _ci_coverage()[0]
    assert not missing, f'never generated: {sorted(missing)}: {_HOW_TO_FIX}'


def test_ci_programs_use_every_dtype():
    """The CI seed set computes in every dtype minijax supports."""
    missing = {d.name for d in dtypes.SUPPORTED} - _ci_coverage()[1]
    assert not missing, f'never generated: dtypes {sorted(missing)}: {_HOW_TO_FIX}'


def test_known_bug_exclusions_are_named():
    """Each exclusion says what it keeps out, so that the lead can delete it when fixed."""
    assert all(isinstance(why, str) and why for why in KNOWN_BUGS.values())
