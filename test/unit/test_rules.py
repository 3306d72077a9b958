"""Every rule of every primitive of minijax.lax, against JAX or finite differences.

Each test is named after the rule it exercises and parametrized over
``primitive_cases.PRIMITIVE_CASES``, so its id names the primitive and the case:
``test_impl[sin-f32]``, ``test_abstract_eval[...]``, ``test_lowering[...]``,
``test_jvp[sin-f64]``, ``test_transpose[reduce_sum-...]``, ``test_vmap[dot_general-...]``.
A deleted or wrong rule fails the tests that name it (``pytest -k "jvp and sin"``).
``test_check_rules[<primitive>]`` runs ``minijax.testing.check_rules`` on each built-in, and
the guard tests at the end check that no primitive misses a rule, a case or a lit test.
"""
import fnmatch
import functools
import itertools
import pathlib
import re
import subprocess
import sys

import jax
from jax._src.lax import lax as jax_lax_internals  # (its reduction jaxprs' cache)
import numpy as np
import pytest
from primitive_cases import PRIMITIVE_CASES, SHORT_NAMES
from testlib import (F32, F64, FLOATS, I32, I64, NUMBERS, assert_close, assert_tangent_close,
                     only_args, random_array)

import minijax
from minijax import core, isolation, lax as mlax
from minijax.control_flow import composite_p, linear_solve_p, platform_index_p
from minijax.control_flow.cond import cond_p
from minijax.control_flow.scan import scan_p
from minijax.control_flow.while_loop import while_p
from minijax.ir.jaxpr import Jaxpr, eval_jaxpr
from minijax.jit import xla_call_p
from minijax.pmap import xla_pmap_p
from minijax.shard_map import shard_map_p
from minijax.testing import NOT_NEEDED, NOT_PER_EXAMPLE, RULE_CHECKS, check_rule, check_rules

LAX_PRIMITIVES = [v for v in vars(mlax).values() if isinstance(v, core.Primitive)]
#: Collectives run only where pmap or vmap(axis_name=...) binds their axis, so they have no
#: row in PRIMITIVE_CASES (single-device programs): test_pmap.py checks them against JAX
#: (test_collectives_beyond_cpu.py the ones XLA's CPU backend does not run).
COLLECTIVES = {'psum', 'pmax', 'pmin', 'axis_index', 'all_gather', 'psum_scatter', 'ppermute',
               'all_to_all', 'ragged_all_to_all'}
#: Primitives whose parameters name a mesh: test_sharded_jit.py checks them against JAX (their
#: values, rules and module text, over 4 CPU devices).
MESH_PRIMITIVES = {'sharding_constraint', 'device_put'}
SINGLE_DEVICE_PRIMITIVES = [p for p in LAX_PRIMITIVES
                            if p.name not in COLLECTIVES | MESH_PRIMITIVES]
B = 3  # batch size of the vmap tests


def params(cases, dtypes=None):
    """pytest params ``(case, dtype)`` for every case and each of its dtypes (in ``dtypes``),
    with ids ``<primitive>-<case>-<dtype>``."""
    return [pytest.param(c, d, id=f'{c.id}-{SHORT_NAMES[d]}')
            for c in cases for d in c.dtypes if dtypes is None or d in dtypes]


def _output_dtype(case, dtype):
    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype or dtype) for a in case.operands]
    return jax.eval_shape(case.jx, *shapes).dtype


def _float_output(case):
    return np.issubdtype(_output_dtype(case, case.dtypes[0]), np.floating)


# int64 only where a row asks for it specifically: elsewhere it behaves as int32.
VALUE_PARAMS = [p for p in params(PRIMITIVE_CASES)
                if p.values[1] != I64 or p.values[0].dtypes != NUMBERS]
_NOT_DIFFERENTIABLE = {p.name for p, kind in NOT_NEEDED if kind == 'jvp'}
DIFF_CASES = [c for c in PRIMITIVE_CASES if c.diff_args and set(c.dtypes) & set(FLOATS)
              and c.primitive not in _NOT_DIFFERENTIABLE]


def _first_of_each_kind(value_params):
    """Per case, the first dtype of each kind (float, signed, unsigned, bool, bfloat16):
    lowering rules choose ops and attributes by kind, while ``test_impl`` checks every dtype's
    values."""
    chosen = {}
    for p in value_params:
        case, dtype = p.values
        chosen.setdefault((case.id, np.dtype(dtype).kind), p)
    return list(chosen.values())


LOWERING_PARAMS = _first_of_each_kind(VALUE_PARAMS)


def _first_dtype_of_each(params_):
    """Per case, its first param: for the tests of batching through differentiation, whose
    rules move axes and never look at the dtype (``test_jvp`` checks every float dtype)."""
    chosen = {}
    for p in params_:
        chosen.setdefault(p.values[0].id, p)
    return list(chosen.values())


# ----------------------------------------------------------------------------- impl, abstract eval

@pytest.mark.rule('impl', 'lowering')
@pytest.mark.parametrize('case,dtype', VALUE_PARAMS)
def test_impl(case, dtype, rng):
    """Eager values: the impl's, or the lowering's for a primitive run eagerly on XLA
    (``eager_on_xla``); a course grade counts the test for the rule that ran."""
    args = case.args(rng, dtype)
    assert_close(case.mj(*args), case.jx(*args))


def _eager_on_xla(case):
    return next(p for p in LAX_PRIMITIVES if p.name == case.primitive).eager_on_xla


@pytest.mark.rule('impl')
@pytest.mark.parametrize('case,dtype', [p for p in VALUE_PARAMS if _eager_on_xla(p.values[0])])
def test_impl_of_a_primitive_eager_on_xla(case, dtype, rng, eager_on_numpy):
    """The NumPy impl of a primitive that eager evaluation runs on XLA, as
    ``MINIJAX_EAGER=numpy`` runs it: the ground truth of ``check_rules``, and a course task
    of its own (``impl:tanh``). It may round differently from XLA, within the tolerance."""
    args = case.args(rng, dtype)
    assert_close(case.mj(*args), case.jx(*args))


@pytest.mark.rule('abstract_eval')
@pytest.mark.parametrize('case,dtype', params(PRIMITIVE_CASES))
def test_abstract_eval(case, dtype, rng):
    """The traced output type (shape, dtype, weak type) is JAX's."""
    args = case.args(rng, dtype)
    (out_aval,) = minijax.make_jaxpr(case.mj)(*args).out_avals
    expected = jax.eval_shape(case.jx, *args)
    assert (out_aval.shape, out_aval.dtype, out_aval.weak_type) == (
        expected.shape, expected.dtype, expected.weak_type)


@pytest.mark.parametrize('make', [
    lambda m: m.broadcast_in_dim(2., (2, 3), ()),
    lambda m: m.select_n(True, 1., 2.),
    lambda m: m.reshape(2., (1, 1)),
], ids=['broadcast_in_dim', 'select_n', 'reshape'])
def test_abstract_eval_keeps_weak_type(make):
    """A Python scalar stays weakly typed through structural primitives, as in JAX."""
    (out_aval,) = minijax.make_jaxpr(lambda: make(mlax))().out_avals
    expected = jax.eval_shape(lambda: make(jax.lax))
    assert (out_aval.shape, out_aval.dtype, out_aval.weak_type) == (
        expected.shape, expected.dtype, expected.weak_type)


@pytest.mark.parametrize('thunk,message', [
    (lambda: mlax.max(np.ones(3, np.float32), np.ones(4, np.float32)),
     r'max got incompatible shapes for broadcasting: \(3,\), \(4,\)\.'),  # (JAX's text)
    (lambda: mlax.add(np.ones((3, 1)), np.ones(3)),
     r'add: arrays must have the same number of dimensions, got \{1, 2\}'),
    (lambda: mlax.pow(np.ones(3, np.int32), np.ones(3, np.int32)), r'floating.*int32\[3\]'),
    (lambda: mlax.reshape(np.ones((2, 3)), (4, 2)), r'float64\[2,3\].*\(4, 2\)'),
    (lambda: mlax.broadcast_in_dim(np.ones(3), (4, 2), (1,)), r'float64\[3\]'),
    (lambda: mlax.concatenate([np.ones((2, 3)), np.ones((2, 4))], 0), r'\[2,3\].*\[2,4\]'),
    (lambda: mlax.dot_general(np.ones((2, 3)), np.ones((4, 2)), (((1,), (0,)), ((), ()))),
     r'float64\[2,3\] with float64\[4,2\]'),
    (lambda: mlax.select_n(np.ones(3) > 0, np.ones(3), np.ones(3, np.float32)), 'share one'),
    (lambda: mlax.slice(np.ones((2, 3)), (0, 0), (3, 3)), r'float64\[2,3\]'),
    (lambda: mlax.pad(np.ones(3), np.float32(0), [(1, 1, 0)]), 'padding value float32'),
    (lambda: mlax.integer_pow(np.ones(3, np.int32), -1), r'int32\[3\]'),
], ids=['max', 'add-ranks', 'pow', 'reshape', 'broadcast_in_dim', 'concatenate', 'dot_general', 'select_n',
        'slice', 'pad', 'integer_pow'])
def test_abstract_eval_errors_name_the_types(thunk, message):
    with pytest.raises(TypeError, match=message):
        thunk()


@pytest.mark.parametrize('dtype', [F32, I32], ids=['f32', 'i32'])
def test_impl_dynamic_slice_wraps_negative_starts_then_clamps_like_jax(dtype, rng):
    """A negative start counts from the end once (as in Python and jax.lax), then the window
    is clamped into range (StableHLO's semantics), eagerly and under jit."""
    x = rng.integers(0, 9, (6,)).astype(dtype)
    update = np.array([7, 8], dtype)
    cases = [(lambda m: lambda x, i: m.dynamic_slice(x, (i,), (3,))),
             (lambda m: lambda x, i: m.dynamic_update_slice(x, update, (i,)))]
    for make in cases:
        mine, theirs = make(mlax), make(jax.lax)
        for i in (-9, -2, 0, 2, 5, 9):
            expected = theirs(x, np.int32(i))
            assert_close(mine(x, np.int32(i)), expected)
            assert_close(mine(x, i), expected)
            assert_close(minijax.jit(mine)(x, np.int32(i)), expected)


@pytest.mark.parametrize('index_dtype', ['uint32', 'int64', 'uint64'])
def test_dynamic_slice_start_beyond_int32_clamps_like_jax(index_dtype):
    """A start index int32 cannot hold is past the end (or before the start), as in JAX;
    before, it wrapped around on the way to int32 (uint32 4294967292 was -4)."""
    x = np.arange(12, dtype=np.float32)
    update = np.array([7., 8.], np.float32)
    cases = [(lambda m: lambda x, i: m.dynamic_slice(x, (i,), (3,))),
             (lambda m: lambda x, i: m.dynamic_update_slice(x, update, (i,)))]
    bounds = np.iinfo(index_dtype)
    for make in cases:
        mine, theirs = make(mlax), make(jax.lax)
        for i in (bounds.max - 3, bounds.min, 2 ** 32 + 1 if bounds.bits == 64 else 5):
            i = np.asarray(i, index_dtype)
            expected = theirs(x, i)
            assert_close(mine(x, i), expected)
            assert_close(minijax.jit(mine)(x, i), expected)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_dynamic_update_slice_of_a_narrow_float_scalar(dtype):
    """A 0-d bfloat16 update of a 0-d operand, eagerly (before: TypeError, NumPy's bfloat16
    array took the update, a minijax Array, as no number)."""
    x, update = np.asarray(1.5, dtype), minijax.numpy.asarray(np.asarray(-2.25, dtype))
    assert_close(mlax.dynamic_update_slice(x, update, ()),
                 jax.lax.dynamic_update_slice(x, np.asarray(update), ()))


# ----------------------------------------------------------------------------- lowering

@pytest.mark.rule('lowering')
@pytest.mark.parametrize('case,dtype', LOWERING_PARAMS)
def test_lowering(case, dtype, rng):
    """jit: the primitive's lowering, compiled by XLA."""
    args = case.args(rng, dtype)
    out = minijax.jit(case.mj)(*args)
    assert isinstance(out, minijax.Array)
    assert_close(out, case.jx(*args))


#: Rows whose IR differs from JAX's on purpose (``fnmatch`` patterns of test ids): why.
#: docs/semantics.md says each; nothing else may differ.
IR_DEPARTURES = {
    'div-*-[iu]*': 'an integer division selects the quotient of a zero divisor (-1) and of '
                   'INT_MIN / -1 (INT_MIN) where JAX emits a bare stablehlo.divide, which '
                   'traps (SIGFPE) on the CPU inside a loop (docs/semantics.md)',
    'rem-*-[iu]*': 'an integer remainder selects x rem 0 (x) and INT_MIN rem -1 (0) where JAX '
                   'emits a bare stablehlo.remainder, which traps on the CPU',
    'mulhi-*': 'mulhi lowers to a product in twice the width (by 32-bit halves for 64 bits), '
               'as JAX lowers it for jaxlibs without chlo.mulhi: XLA in jaxlib 0.10.2 fails '
               'to compile chlo.mulhi inside most fusions (JAX\'s jit fails with '
               '"Unsupported elementwise operation mulhi")',
    'clz-i*': 'clz of a signed integer counts its bits read as unsigned: XLA\'s constant '
              'folder counts a negative constant as negative (docs/semantics.md)',
    'scatter*-drop-*': 'a scatter window that may fit in part is first moved wholly outside '
                       'when it does not fit: the reference interpreter writes the part that '
                       'fits, XLA drops the window (both executors give XLA\'s answer)',
    'regularized_incomplete_beta-*': 'the parity and half of the continued fraction\'s index '
                                     'are an integer rem and div, which select safe divisors, '
                                     'where JAX calls jnp.remainder and jnp.floor_divide '
                                     '(outlined functions with a bare remainder and divide) '
                                     '(docs/semantics.md)',
}
#: Rows whose locations depend on what was traced before: minijax keeps a jit's trace (lax.fft
#: is one), JAX a reduction's computation, each with the frames of the call that first
#: traced it. With ``debug_info`` they are compared as a new process lowers them, those
#: caches cleared.
FRESH = ('fft-*', 'cumprod-*', 'cumlogsumexp-*', 'select_and_scatter_add-*')
#: The case table's functions are lambdas on different lines for minijax and JAX.
_CASE_TABLE_POSITION = re.compile(r'("[^"]*primitive_cases\.py"):\d+:\d+( to \d*:\d+)?')


def _module_text(jit, fn, args, debug_info):
    """The module of ``fn`` jitted, under one name (``@jit_op``) for minijax and for JAX,
    lowered from this one line (its locations name the same frames)."""
    def op(*args):
        return fn(*args)
    text = jit(op).lower(*args).as_text(debug_info=debug_info)
    return _CASE_TABLE_POSITION.sub(r'\1', text)


@pytest.mark.rule('lowering')
@pytest.mark.parametrize('debug_info', [False, True], ids=['text', 'debug_info'])
@pytest.mark.parametrize('case,dtype', LOWERING_PARAMS)
def test_lowering_emits_jaxs_ir(case, dtype, debug_info, rng):
    """The module's text is JAX's, byte for byte (with ``debug_info``: its locations too),
    but where ``IR_DEPARTURES`` says why not; a listed row that matches fails too, to be
    taken off the list."""
    args = case.args(rng, dtype)
    row = f'{case.id}-{SHORT_NAMES[dtype]}'
    if debug_info and any(fnmatch.fnmatchcase(row, pattern) for pattern in FRESH):
        jax_lax_internals._reduction_jaxpr.cache_clear()
        sys.modules['minijax.lax.fft']._staged_fft.cache_clear()  # (lax.fft's jit, traces)
    ours, theirs = [_module_text(jit, fn, args, debug_info)  # (one line: the same callers)
                    for jit, fn in ((minijax.jit, case.mj), (jax.jit, case.jx))]
    departure = next((why for pattern, why in IR_DEPARTURES.items()
                      if fnmatch.fnmatchcase(row, pattern)), None)
    if departure is None:
        assert ours == theirs
    else:
        assert ours != theirs, f'listed as differing ({departure}), yet JAX\'s IR'


# ----------------------------------------------------------------------------- jvp

@pytest.mark.rule('jvp')
@pytest.mark.parametrize('case,dtype', params(DIFF_CASES, FLOATS))
def test_jvp(case, dtype, rng):
    args = case.args(rng, dtype)
    which = case.diff_args
    primals = tuple(args[i] for i in which)
    tangents = tuple(random_array(rng, np.shape(p), dtype) for p in primals)
    out, tan = minijax.jvp(only_args(case.mj, args, which), primals, tangents)
    out_ref, tan_ref = jax.jvp(only_args(case.jx, args, which), primals, tangents)
    assert_close(out, out_ref)
    assert_tangent_close(tan, tan_ref, dtype)


@pytest.mark.rule('jvp')
@pytest.mark.parametrize('case,dtype', params(
    [c for c in DIFF_CASES if len(c.diff_args) >= 2], FLOATS))
@pytest.mark.parametrize('k', [0, 1])
def test_jvp_one_operand(case, dtype, k, rng):
    """Differentiating with respect to one operand only: the others have zero tangents."""
    args = case.args(rng, dtype)
    which = [case.diff_args[k]]
    t = random_array(rng, np.shape(args[which[0]]), dtype)
    out, tan = minijax.jvp(only_args(case.mj, args, which), (args[which[0]],), (t,))
    out_ref, tan_ref = jax.jvp(only_args(case.jx, args, which), (args[which[0]],), (t,))
    assert_close(out, out_ref)
    assert_tangent_close(tan, tan_ref, dtype)


#: Rows whose function is not smooth at the drawn points (steps, ties, index outputs).
NOT_SMOOTH = {'convert_element_type', 'sign', 'eq', 'ne', 'ge', 'le', 'gt', 'lt', 'eq_to',
              'le_to', 'lt_to',
              'argmax', 'argmin', 'floor', 'ceil', 'round', 'is_finite',
              'reduce_precision'}  # (a step function JAX differentiates as the identity)


@pytest.mark.rule('jvp')
@pytest.mark.parametrize('case,dtype', params(
    [c for c in DIFF_CASES if F64 in c.dtypes and c.primitive not in NOT_SMOOTH
     and 'ties' not in c.name and _output_dtype(c, F64) == F64], (F64,)))
def test_jvp_finite_differences(case, dtype, rng):
    """A second, independent oracle: central differences in float64 (of the rows whose
    output is float64 too), all operands moving."""
    args = case.args(rng, dtype)
    which = case.diff_args
    f = only_args(case.mj, args, which)
    primals = [args[i] for i in which]
    tangents = [random_array(rng, np.shape(p), dtype) for p in primals]
    eps = 1e-6
    plus = f(*[p + eps * t for p, t in zip(primals, tangents)])
    minus = f(*[p - eps * t for p, t in zip(primals, tangents)])
    fd = (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
    _, tan = minijax.jvp(f, tuple(primals), tuple(tangents))
    np.testing.assert_allclose(np.asarray(tan), fd, rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------- transpose

#: Primitives JAX differentiates forward only: its linearization fails (ValueError), as
#: minijax's does (``test_reduce_window_has_no_reverse_mode_as_in_jax``).
FORWARD_ONLY = {'reduce_window'}


def _transpose_params():
    """Each differentiable row with a float output, in float64 (or its one float dtype)."""
    return [pytest.param(c, d, id=f'{c.id}-{SHORT_NAMES[d]}') for c in DIFF_CASES
            for d in [F64 if F64 in c.dtypes else next(d for d in c.dtypes if d in FLOATS)]
            if _float_output(c) and c.primitive not in FORWARD_ONLY]


def test_reduce_window_has_no_reverse_mode_as_in_jax():
    """reduce_window's JVP is one window reduction of primals and tangents together, which
    partial evaluation cannot split: linearizing it fails in JAX and in minijax alike."""
    x = np.ones((4, 5))
    for module, grad in ((jax, jax.grad), (minijax, minijax.grad)):
        def loss(x):
            return module.lax.reduce_window(x, 1., module.lax.mul, (2, 2), (1, 1),
                                            'VALID').sum()
        with pytest.raises(ValueError, match='Linearization failed'):
            grad(loss)(x)


#: Rows JAX differentiates forward but does not transpose (``fnmatch`` patterns of row ids):
#: minijax's vjp raises JAX's NotImplementedError too.
NOT_TRANSPOSED = dict.fromkeys(
    ['ragged_dot_general-contracting*', 'ragged_dot_general-ragged-batch*'],
    'JAX transposes ragged_dot_general only where the ragged axis is a free axis of lhs')


@pytest.mark.rule('jvp', 'transpose')
@pytest.mark.parametrize('case,dtype', _transpose_params())
def test_transpose(case, dtype, rng):
    """vjp runs jvp, partial evaluation, then transposes the linear program: for a linear
    primitive that is its own transpose rule. Cotangents keep their operand's dtype."""
    args = case.args(rng, dtype)
    which = case.diff_args
    primals = [args[i] for i in which]
    if any(fnmatch.fnmatchcase(case.id, pattern) for pattern in NOT_TRANSPOSED):
        for vjp, fn in ((minijax.vjp, case.mj), (jax.vjp, case.jx)):
            out, f_vjp = vjp(only_args(fn, args, which), *primals)
            with pytest.raises(NotImplementedError, match='Unimplemented grad_[xy]_dims'):
                f_vjp(np.ones(np.shape(out), np.asarray(out).dtype))
        return
    out, f_vjp = minijax.vjp(only_args(case.mj, args, which), *primals)
    expected_out, jax_vjp = jax.vjp(only_args(case.jx, args, which), *primals)
    assert_close(out, expected_out)
    ct = random_array(rng, np.shape(expected_out), np.asarray(expected_out).dtype)
    for got, expected in zip(f_vjp(ct), jax_vjp(ct), strict=True):
        assert_close(got, expected)


# ----------------------------------------------------------------------------- vmap

def _axis_choices(case, i):
    """Batch axes to try for operand ``i``: front, middle, end, unbatched."""
    ndim = len(case.operands[i].shape)
    return sorted({0, min(1, ndim), ndim}) + [None]


#: Primitives that, as in JAX, have no batching rule (``NOT_NEEDED``): no vmap rows.
_NOT_BATCHED = {p.name for p, kind in NOT_NEEDED if kind == 'vmap'}


def _vmap_params():
    result = []
    for case in PRIMITIVE_CASES:
        if case.primitive in _NOT_BATCHED:
            continue
        n = len(case.operands)
        choices = [_axis_choices(case, i) for i in range(n)]
        combos = [axes for axes in itertools.product(*choices)
                  if not all(a is None for a in axes)]
        if len(combos) > 8:  # many operands: all batched alike, and each one alone
            combos = [tuple(c[k] for c in choices) for k in (0, -2)]
            combos += [tuple(c[-2] if i == j else None for j, c in enumerate(choices))
                       for i in range(n)]
        # batching rules move axes and never look at the dtype: one dtype per case (the
        # values in every dtype are test_impl's)
        dtype = ([d for d in case.dtypes if d in FLOATS] or case.dtypes)[0]
        for axes in combos:
            result.append(pytest.param(case, dtype, axes,
                                       id=f'{case.id}-{SHORT_NAMES[dtype]}-{axes}'))
    return result


VMAP_PARAMS = _vmap_params()


def _batched_args(case, dtype, axes, rng, size=2):
    shapes = [a.shape if ax is None else (*a.shape[:ax], size, *a.shape[ax:])
              for a, ax in zip(case.operands, axes)]
    return case.args(rng, dtype, shapes)


def per_example(f, in_axes, size):
    """The vmap oracle for the big tables: JAX applied to one example at a time, stacked.

    This is vmap's definition, and it reuses the JAX kernels ``test_impl`` compiled for the
    unbatched shapes, which keeps the suite fast. ``jax.vmap`` itself is the oracle of
    ``test_vmap_matches_jax_vmap``.
    """
    def batched(*args):
        outs = [f(*[a if ax is None else np.take(a, i, axis=ax)
                    for a, ax in zip(args, in_axes)]) for i in range(size)]
        if isinstance(outs[0], tuple):
            return tuple(np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0])))
        return np.stack([np.asarray(o) for o in outs])
    return batched


@pytest.mark.rule('vmap')
@pytest.mark.parametrize('case,dtype,axes', [
    p for p in VMAP_PARAMS if p.values[0].primitive not in {q.name for q in NOT_PER_EXAMPLE}])
def test_vmap(case, dtype, axes, rng):
    """One example at a time (but where ``NOT_PER_EXAMPLE`` says why JAX's rule is not:
    ``test_vmap_matches_jax_vmap`` checks those against ``jax.vmap``)."""
    args = _batched_args(case, dtype, axes, rng)
    out = minijax.vmap(case.mj, in_axes=axes)(*args)
    assert_close(out, per_example(case.jx, axes, 2)(*args))


def _one_per_case(params):
    """For each case, its first dtype with the first operand batched away from axis 0."""
    seen = {}
    for p in params:
        case, dtype, axes = p.values
        if dtype == case.dtypes[0] and axes[0] not in (0, None):
            seen.setdefault(case.id, p)
    return list(seen.values())


#: Primitives minijax batches where JAX raises NotImplementedError: why. Batched away from
#: axis 0, their oracle is JAX applied to one example at a time.
VMAP_BEYOND_JAX = {
    'ragged_dot_general': 'JAX batches it only with every operand batched at axis 0; minijax '
                          'moves (or broadcasts) each batch axis there first',
}


@pytest.mark.rule('vmap', 'lowering')
@pytest.mark.parametrize('case,dtype,axes', _one_per_case(VMAP_PARAMS))
def test_vmap_matches_jax_vmap(case, dtype, axes, rng):
    """Every case once, batched away from axis 0, against ``jax.vmap`` itself under jit
    (the lowering of the batched primitives; ``test_vmap`` runs every case eagerly)."""
    args = _batched_args(case, dtype, axes, rng, size=B)
    if case.primitive in VMAP_BEYOND_JAX:
        with pytest.raises(NotImplementedError):
            jax.vmap(case.jx, in_axes=axes)(*args)
        expected = per_example(case.jx, axes, B)(*args)
    else:
        expected = jax.vmap(case.jx, in_axes=axes)(*args)
    assert_close(minijax.jit(minijax.vmap(case.mj, in_axes=axes))(*args), expected)


#: Primitives whose equations lack parameters JAX's have (so the comparison leaves those
#: out of both texts): minijax's gather and scatter primitives have one semantics each (XLA's
#: clamped gather, a scatter dropping what does not fit) and no ``mode``, ``fill_value``,
#: ``update_jaxpr`` or ``update_consts``; the functions build the modes on top
#: (lax/gather.py), so even unbatched these equations print without them. A batched
#: ``dynamic_slice`` is such a gather, as in JAX.
_MODES_BUILT_ON_TOP = {'gather', 'scatter', 'scatter-add', 'scatter-sub', 'scatter-mul',
                       'scatter-min', 'scatter-max', 'dynamic_slice'}
_MODE_PARAMS = re.compile(r'^ +(fill_value|mode|update_consts|update_jaxpr)=.*\n', re.M)

#: Cases whose batched jaxpr is not JAX's: why.
VMAP_JAXPR_DEPARTURES = {
    'dynamic_update_slice': "batched as JAX batches it, as a vmapped scatter in mode CLIP, "
                            "which minijax's scatter function writes as a clamp of the indices "
                            "before the scatter (JAX clamps them in the lowering)",
}


def _jaxpr_text(jaxpr, case):
    """The jaxpr as it prints, but for what is left out of the comparison (above) and the
    module of an ``accuracy`` parameter's ``Tolerance`` class (minijax.lax.accuracy)."""
    text = re.sub(r'<[\w.]+\.Tolerance object', '<Tolerance object', str(jaxpr))
    return _MODE_PARAMS.sub('', text) if case.primitive in _MODES_BUILT_ON_TOP else text


#: Rows (case id, batch axes) where ``jax.vmap`` itself fails: why.
JAX_CANNOT_BATCH = {
    ('bitcast_convert_type-int32-float64', (2,)):
        "JAX's rule fails with an IndexError for a bitcast to a wider dtype batched along "
        'the last axis, the one the bitcast drops',
}


def _jax_batches(param):
    case, _, axes = param.values
    return case.primitive not in VMAP_BEYOND_JAX and (case.id, axes) not in JAX_CANNOT_BATCH


@pytest.mark.rule('vmap')
@pytest.mark.parametrize('case,dtype,axes', [p for p in VMAP_PARAMS if _jax_batches(p)])
def test_vmap_jaxpr_is_jaxs(case, dtype, axes, rng):
    """Every row, each batch-axis choice: ``make_jaxpr(vmap(f))`` prints what JAX prints
    (the batching rules emit JAX's equations, with JAX's parameters: ``np.int64`` axes where
    JAX's rules compute them with NumPy), but for ``VMAP_JAXPR_DEPARTURES``. Tracing only."""
    args = _batched_args(case, dtype, axes, rng)
    mine = _jaxpr_text(minijax.make_jaxpr(minijax.vmap(case.mj, in_axes=axes))(*args), case)
    theirs = _jaxpr_text(jax.make_jaxpr(jax.vmap(case.jx, in_axes=axes))(*args), case)
    if case.primitive in VMAP_JAXPR_DEPARTURES:
        assert mine != theirs, f'{case.primitive} is JAX\'s now: drop its departure'
    else:
        assert mine == theirs


#: Batched programs whose module is checked against JAX's: ``name -> (f(lax), in_axes,
#: operand shapes and dtypes)``, one per kind of batching rule the jaxpr test compares
#: (the module follows the jaxpr, and where a jaxpr departs, a gather's mode, the module
#: need not: XLA's gather clamps in both).
VMAP_MODULES = {
    'dot_general': (lambda lax: lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
                    (2, 1), [((3, 4, 2), F32), ((4, 2, 5), F32)]),
    'conv_general_dilated': (lambda lax: lambda a, b: lax.conv_general_dilated(
        a, b, (1, 1), 'VALID', feature_group_count=2), (1, 1),
        [((2, 3, 4, 5, 5), F32), ((4, 3, 2, 3, 3), F32)]),
    'reduce_max': (lambda lax: lambda a: lax.reduce_max(a, (0, 2)), (1,), [((2, 3, 4, 5), F32)]),
    'select_n': (lambda lax: lax.select_n, (1, 1, 1),
                 [((3, 2, 4), np.bool_), ((3, 2, 4), F32), ((3, 2, 4), F32)]),
    'clamp': (lambda lax: lax.clamp, (None, 1, None), [((), F32), ((3, 2, 4), F32), ((), F32)]),
    'pad': (lambda lax: lambda x, v: lax.pad(x, v, ((1, 2, 1), (0, -1, 0))), (1, 0),
            [((3, 2, 4), F32), ((2,), F32)]),
    'transpose': (lambda lax: lambda x: lax.transpose(x, (2, 0, 1)), (1,), [((2, 2, 3, 4), F32)]),
    'dynamic_slice': (lambda lax: lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)),
                      (2, 0, 0), [((5, 6, 2), F32), ((2,), I32), ((2,), I32)]),
    'gather': (lambda lax: lambda x, i: lax.gather(
        x, i, lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 6), mode='promise_in_bounds'),
        (2, 2), [((5, 6, 2), F32), ((4, 1, 2), I32)]),
    'scatter-add': (lambda lax: lambda x, i, u: lax.scatter_add(
        x, i, u, lax.ScatterDimensionNumbers((1,), (0,), (0,))), (2, 2, 2),
        [((5, 6, 2), F32), ((4, 1, 2), I32), ((4, 6, 2), F32)]),
    'sort': (lambda lax: lambda k, v: lax.sort((k, v), num_keys=1)[1], (2, None),
             [((3, 4, 2), F32), ((3, 4), F32)]),
    'fft': (lambda lax: lambda x: lax.fft(x, 'fft', (8,)), (1,), [((3, 2, 8), np.complex64)]),
    'rng_bit_generator': (lambda lax: lambda k: lax.rng_bit_generator(k, (2, 3))[1], (1,),
                          [((4, 2), np.uint32)]),
}


@pytest.mark.rule('vmap', 'lowering')
@pytest.mark.parametrize('name', VMAP_MODULES)
def test_vmap_module_is_jaxs(name, rng):
    """``jit(vmap(f)).lower(...).as_text()`` is JAX's text (lowering only, no compile)."""
    make, in_axes, operands = VMAP_MODULES[name]
    args = [random_array(rng, shape, dtype) for shape, dtype in operands]
    lowered = minijax.jit(minijax.vmap(make(mlax), in_axes)).lower(*args)
    assert lowered.as_text() == jax.jit(jax.vmap(make(jax.lax), in_axes)).lower(*args).as_text()


def _out_rank(case):
    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype or case.dtypes[0]) for a in case.operands]
    return np.ndim(jax.eval_shape(case.jx, *shapes))


#: One case of each kind of batching rule: where the batch axis comes out of the rule is
#: checked for every case by ``test_vmap`` (which moves it to 0); moving it on to ``out_axes``
#: is vmap's own code, the same for every primitive.
OUT_AXES_PRIMITIVES = ('sin', 'add', 'transpose', 'reduce_sum', 'dot_general', 'concatenate',
                       'conv_general_dilated', 'cumsum', 'sort', 'gather', 'scatter-add')


def _first_case_of_each(primitives):
    firsts = {}
    for c in PRIMITIVE_CASES:
        if c.primitive in primitives and c.operands and c.operands[0].shape:
            firsts.setdefault(c.primitive, c)
    assert set(firsts) == set(primitives), set(primitives) - set(firsts)
    return firsts.values()


@pytest.mark.rule('vmap')
@pytest.mark.parametrize('case,dtype,out_axes', [
    pytest.param(c, c.dtypes[0], out_axes, id=f'{c.id}-{SHORT_NAMES[c.dtypes[0]]}-{out_axes}')
    for c in _first_case_of_each(OUT_AXES_PRIMITIVES)
    for out_axes in sorted({1, -1, _out_rank(c)}) if -1 <= out_axes <= _out_rank(c)])
def test_vmap_out_axes(case, dtype, out_axes, rng):
    axes = (1,) + (None,) * (len(case.operands) - 1)
    args = _batched_args(case, dtype, axes, rng)
    out = minijax.vmap(case.mj, in_axes=axes, out_axes=out_axes)(*args)
    assert_close(out, jax.vmap(case.jx, in_axes=axes, out_axes=out_axes)(*args))


@pytest.mark.rule('jvp', 'vmap')
@pytest.mark.parametrize('case,dtype', _first_dtype_of_each(params(DIFF_CASES, FLOATS)))
def test_vmap_of_jvp(case, dtype, rng):
    """Batched tangents (a Jacobian-vector product per row), as jacfwd uses: the vmap rules
    of the primitives the jvp rule emits."""
    args = case.args(rng, dtype)
    which = case.diff_args
    primals = tuple(args[i] for i in which)
    tangents = [random_array(rng, (B, *np.shape(p)), dtype) for p in primals]
    mj_f, jx_f = only_args(case.mj, args, which), only_args(case.jx, args, which)
    mj = minijax.vmap(lambda *ts: minijax.jvp(mj_f, primals, ts)[1])(*tangents)
    ref = per_example(lambda *ts: jax.jvp(jx_f, primals, ts)[1], (0,) * len(tangents), B)(
        *tangents)
    assert_tangent_close(mj, ref, dtype)


@pytest.mark.rule('jvp', 'vmap')
@pytest.mark.parametrize('case,dtype', _first_dtype_of_each(params(DIFF_CASES, FLOATS)))
def test_jvp_of_vmap(case, dtype, rng):
    axes = tuple(_axis_choices(case, i)[0] for i in range(len(case.operands)))
    args = _batched_args(case, dtype, axes, rng, size=B)
    which = case.diff_args
    primals = tuple(args[i] for i in which)
    tangents = tuple(random_array(rng, np.shape(p), dtype) for p in primals)
    out, tan = minijax.jvp(only_args(minijax.vmap(case.mj, axes), args, which), primals, tangents)

    def jvp_one(*args_and_tangents):
        xs, ts = args_and_tangents[:len(args)], args_and_tangents[len(args):]
        return jax.jvp(only_args(case.jx, xs, which), tuple(xs[i] for i in which), tuple(ts))

    out_ref, tan_ref = per_example(jvp_one, axes + tuple(axes[i] for i in which), B)(
        *args, *tangents)
    assert_close(out, out_ref)
    assert_tangent_close(tan, tan_ref, dtype)


@pytest.mark.parametrize('in_axes', [(None, 0), (0, 0), (1, 0)], ids=str)
def test_vmap_slicing_at_batched_start_indices(in_axes, rng):
    """A window per example (XLA would gather): checked against jax.vmap, with jvp too."""
    x = rng.normal(size=(B, 5, 6)) if in_axes[0] is not None else rng.normal(size=(5, 6))
    if in_axes[0] == 1:
        x = np.moveaxis(x, 0, 1)
    starts = np.array([0, 2, 3], np.int32)
    update = rng.normal(size=(2, 6))

    def pick(f):
        return lambda x, i: f(x, (i, np.int32(1)), (2, 3))

    def put(f):
        return lambda x, i: f(x, update, (i, np.int32(0)))

    for mine, theirs in [(pick(mlax.dynamic_slice), pick(jax.lax.dynamic_slice)),
                         (put(mlax.dynamic_update_slice), put(jax.lax.dynamic_update_slice))]:
        assert_close(minijax.vmap(mine, in_axes)(x, starts), jax.vmap(theirs, in_axes)(x, starts))
        assert_close(minijax.jit(minijax.vmap(mine, in_axes))(x, starts),
                     jax.vmap(theirs, in_axes)(x, starts))
        t = rng.normal(size=x.shape)
        mine_jvp = minijax.vmap(lambda x, t, i: minijax.jvp(lambda x: mine(x, i), (x,), (t,))[1],
                                (in_axes[0], in_axes[0], 0))(x, t, starts)
        theirs_jvp = jax.vmap(lambda x, t, i: jax.jvp(lambda x: theirs(x, i), (x,), (t,))[1],
                              (in_axes[0], in_axes[0], 0))(x, t, starts)
        assert_close(mine_jvp, theirs_jvp)


# ----------------------------------------------------------------------------- check_rules

@functools.cache
def _representative(primitive):
    """``(args, params)`` of the first equation of ``primitive`` in the jaxpr of its first
    row (float64 where the row allows), or in a jit it calls (``lax.fft`` is one): the
    operands are what the row's function gives it."""
    case = next((c for c in PRIMITIVE_CASES if c.primitive == primitive.name), None)
    assert case, (f"primitive '{primitive}' has no row in PRIMITIVE_CASES: add one to "
                  'test/unit/primitive_cases.py')
    dtype = F64 if F64 in case.dtypes else case.dtypes[0]
    args = case.args(np.random.default_rng(0), dtype)
    found = _first_equation(primitive, minijax.make_jaxpr(case.mj)(*args), args)
    return found or (args, {})  # (no equation: stage lifts its operand; the row's operands)


def _first_equation(primitive, closed, args):
    """``(operands, params)`` of the first equation of ``primitive`` in ``closed`` applied
    to ``args``, looking into the jits it calls; None if there is none."""
    jaxpr = closed.jaxpr
    for k, eqn in enumerate(jaxpr.eqns):
        if eqn.primitive is primitive or eqn.primitive.name == 'xla_call':
            up_to_it = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.eqns[:k], eqn.inputs)
            operands = eval_jaxpr(up_to_it, closed.consts, args)
            if eqn.primitive is primitive:
                return operands, eqn.params
            found = _first_equation(primitive, eqn.params['jaxpr'], operands)
            if found:
                return found
    return None


@pytest.mark.parametrize('primitive,kind', [
    pytest.param(p, kind, id=f'{p}-{kind}', marks=pytest.mark.rule(kind))
    for p in SINGLE_DEVICE_PRIMITIVES for kind, (tables, _, needed) in RULE_CHECKS.items()
    if needed or any(p in core.rule_tables[t] for t in tables)])
def test_check_rules(primitive, kind):
    """check_rules, one rule at a time (``check_rule``), so that a course task's grade runs
    its own."""
    args, params = _representative(primitive)
    check_rule(kind, primitive, *args, **params)


def test_check_rules_fails_naming_a_missing_rule(monkeypatch, rng):
    """A deleted rule is a failure, not a rule less to check (JAX: tanh has a jvp)."""
    x = rng.normal(size=(2, 3))
    assert jax.jvp(jax.lax.tanh, (x,), (x,))[1].shape == x.shape
    monkeypatch.delitem(core.rule_tables['jvp'], mlax.tanh_p)
    with pytest.raises(AssertionError,
                       match=r"primitive 'tanh' has no jvp rule .*tanh_p\.def_jvp"):
        check_rules(mlax.tanh_p, x)


def test_check_rules_passes_a_rule_declared_not_needed(monkeypatch):
    prim = _multiply_add()
    monkeypatch.delitem(core.rule_tables['vmap'], prim)
    with pytest.raises(AssertionError, match="primitive 'multiply_add' has no vmap rule"):
        check_rules(prim, *_multiply_add_args())
    monkeypatch.setitem(NOT_NEEDED, (prim, 'vmap'), 'it is never batched')
    check_rules(prim, *_multiply_add_args())


@pytest.mark.filterwarnings('ignore:invalid value:RuntimeWarning')
@pytest.mark.parametrize('primitive, bad', [(mlax.sqrt_p, -1.), (mlax.sin_p, np.inf),
                                            (mlax.tanh_p, np.nan)], ids=str)
def test_check_rules_takes_a_nan_tangent_where_finite_differences_give_nan(primitive, bad, rng):
    """Where the value and the tangent are NaN (as JAX's are), the two NaNs agree."""
    x = np.append(rng.normal(size=3) ** 2, bad)
    jax_fn = getattr(jax.lax, primitive.name)
    assert np.isnan(jax.jvp(jax_fn, (x,), (np.ones_like(x),))[1][-1])
    check_rules(primitive, x)


# ----------------------------------------------------------------------------- guards

def test_every_lax_primitive_has_a_case():
    """A primitive added to minijax.lax without a row in the table would go untested."""
    untested = ({p.name for p in SINGLE_DEVICE_PRIMITIVES}
                - {c.primitive for c in PRIMITIVE_CASES})
    assert not untested, (f'primitives without a row in PRIMITIVE_CASES: {sorted(untested)}: '
                          'add rows (the call and its JAX oracle) to test/unit/primitive_cases.py')


HIGHER_ORDER = [cond_p, while_p, scan_p, xla_call_p, xla_pmap_p, shard_map_p]
#: The other primitives of control flow: whole jaxprs are their operands' functions, so they
#: have no row in the case table (test_solvers.py checks them against JAX). Partial evaluation
#: stages each whole, as JAX does.
SOLVERS = [linear_solve_p, composite_p, platform_index_p]
#: Primitives with a transpose rule: linear in (some of) their operands.
LINEAR = {'add', 'add_any', 'sub', 'neg', 'mul', 'div', 'convert_element_type', 'select_n', 'reduce_sum',
          'broadcast_in_dim', 'transpose', 'reshape', 'squeeze', 'concatenate', 'pad', 'slice',
          'dynamic_slice', 'dynamic_update_slice', 'dot_general', 'cond', 'while', 'scan',
          'xla_call', 'sort', 'cumsum', 'rev', 'conv_general_dilated', 'reduce_window_sum',
          'gather', 'scatter-add', 'scatter-mul', 'xla_pmap', 'shard_map', 'psum', 'all_gather',
          'psum_scatter', 'ppermute', 'all_to_all', 'real', 'imag', 'conj', 'complex', 'fft',
          'split', 'unstack', 'stack', 'tile', 'optimization_barrier', 'reduce_precision',
          'copy', 'stage', 'dce_sink', 'scatter-sub', 'custom_linear_solve',
          'ragged_dot_general', 'select_and_gather_add', 'select_and_scatter_add',
          'sharding_constraint', 'device_put', 'ragged_all_to_all'}
#: The lit test of each higher-order primitive (and of one that needs a mesh), under test/lit/.
LIT_FILES = {'cond': 'control_flow/cond.py', 'while': 'control_flow/while_loop.py',
             'scan': 'control_flow/scan.py', 'xla_call': 'jit/jit_of_jit.py',
             'xla_pmap': 'pmap/pmap.py', 'shard_map': 'shard_map/collectives.py',
             'sharding_constraint': 'sharding/jit-over-a-mesh.py',
             'device_put': 'sharding_types/device-put-traced.py'}
LIT = pathlib.Path(__file__).parents[1] / 'lit'
#: Where a built-in's rule of each kind goes, beyond the ``def_*`` call the table names.
WHERE_RULES_GO = {'flops': 'minijax/flops.py: add it to the list of its cost class '
                           '(_ELEMENTWISE, _TRANSCENDENTAL, _DATA_MOVEMENT, _REDUCTIONS) or '
                           'give it a rule of its own there'}


def _needed_rules(primitive):
    kinds = ['impl', 'abstract_eval', 'jvp', 'vmap', 'lowering', 'flops']
    if primitive.name in LINEAR:
        kinds.append('transpose')
    if primitive in HIGHER_ORDER:  # partial evaluation looks inside their jaxprs
        kinds += ['partial_eval', 'partial_eval_jaxpr', 'dce']
    return [k for k in kinds if (primitive, k) not in NOT_NEEDED]


def _missing_rule(primitive, kind):
    """The guard's message for a rule ``primitive`` lacks: how to define it, and where."""
    where = WHERE_RULES_GO.get(kind, 'beside its definition, in the file under minijax/ that '
                                     'defines it')
    return f'{core.rule_tables[kind].missing(primitive)}, in {where}'


def _has_rule(primitive, kind):
    if kind == 'jvp':
        return any(primitive in core.rule_tables[k] for k in ('jvp', 'symbolic_zero_jvp'))
    return primitive in core.rule_tables[kind]


@pytest.mark.parametrize('primitive', LAX_PRIMITIVES + HIGHER_ORDER + SOLVERS, ids=str)
def test_primitive_has_every_rule_it_needs(primitive):
    missing = [_missing_rule(primitive, k) for k in _needed_rules(primitive)
               if not _has_rule(primitive, k)]
    assert not missing, '; '.join(missing)
    assert (primitive.name in LINEAR) == _has_rule(primitive, 'transpose'), (
        f"primitive '{primitive}' is {'' if primitive.name in LINEAR else 'not '}in LINEAR but "
        f"{'has no' if primitive.name in LINEAR else 'has a'} transpose rule: list it in "
        'LINEAR (test/unit/test_rules.py) exactly when it has one')


def _lit_test_of(primitive):
    """What a lit test of ``primitive`` says: ``lax.<name>`` or ``<name>_p`` in its code, or the
    name in a comment (not in a CHECK line, where any op's location may hold the word). The
    Python name of ``scatter-add`` is ``scatter_add``."""
    name = primitive.name.replace('-', '_')
    return re.compile(rf'\blax\.{name}\b|\b{name}_p\b|^#(?!.*CHECK).*\b{name}\b', re.M)


@pytest.mark.parametrize('primitive', LAX_PRIMITIVES + HIGHER_ORDER + SOLVERS, ids=str)
def test_primitive_has_a_lit_test(primitive):
    if primitive.name in LIT_FILES:
        assert (LIT / LIT_FILES[primitive.name]).is_file(), (
            f"primitive '{primitive}': its lit test test/lit/{LIT_FILES[primitive.name]} is "
            'gone: restore it, or point LIT_FILES (test/unit/test_rules.py) at the new one')
    else:
        files = [*(LIT / 'primitives').glob('*.py'), *(LIT / 'pmap').glob('*.py')]
        assert any(_lit_test_of(primitive).search(f.read_text()) for f in files), (
            f"primitive '{primitive}' has no lit test: write test/lit/primitives/"
            f'{primitive}.py (a RUN line, then code that prints the lowering of lax.'
            f'{primitive}) and fill its CHECK lines with minijax update-checks '
            f'test/lit/primitives/{primitive}.py')


def test_guards_name_what_is_missing_and_the_file_to_edit(monkeypatch):
    """A new primitive (here one with every rule but flops, no case row and no lit test)
    fails each guard with a message naming it, what it lacks and where that goes."""
    prim = _multiply_add()
    monkeypatch.setattr(sys.modules[__name__], 'SINGLE_DEVICE_PRIMITIVES', [prim])
    guards = [(test_every_lax_primitive_has_a_case, r"\['multiply_add'\].*primitive_cases\.py"),
              (lambda: _representative(prim), r"'multiply_add'.*primitive_cases\.py"),
              (lambda: test_primitive_has_every_rule_it_needs(prim),
               r"'multiply_add' has no flops rule.*minijax/flops\.py"),
              (lambda: test_primitive_has_a_lit_test(prim),
               r"'multiply_add'.*test/lit/primitives/multiply_add\.py.*update-checks")]
    for guard, message in guards:
        with pytest.raises(AssertionError, match=message):
            guard()
    monkeypatch.setitem(NOT_NEEDED, (prim, 'flops'), 'a test primitive')
    with pytest.raises(AssertionError, match=r"'multiply_add' is not in LINEAR.*test_rules\.py"):
        test_primitive_has_every_rule_it_needs(prim)
    monkeypatch.setitem(LIT_FILES, 'multiply_add', 'control_flow/gone.py')
    with pytest.raises(AssertionError, match=r"'multiply_add'.*test/lit/control_flow/gone\.py"):
        test_primitive_has_a_lit_test(prim)


# ----------------------------------------------------------------------------- check_rules finds mistakes

def _multiply_add(mistake=None):
    """A user primitive ``multiply_add(x, y, z) = x * y + z`` with every rule, as
    docs/add_a_primitive.md builds one; ``mistake`` plants an error in one rule."""
    from minijax.lowering import register_lowering, stablehlo
    prim = minijax.Primitive('multiply_add')
    prim.def_impl(lambda x, y, z: np.asarray(x) * y + z)

    @prim.def_abstract_eval
    def abstract_eval(x, y, z):
        shape = x.shape[1:] if mistake == 'abstract_eval-shape' else x.shape
        dtype = np.float32 if mistake == 'abstract_eval-dtype' else x.dtype
        return minijax.ShapedArray(shape, dtype)

    @prim.def_jvp
    def jvp(primals, tangents):
        (x, y, z), (xt, yt, zt) = primals, tangents
        tangent = prim.bind(xt, y, prim.bind(x, yt, zt))
        return prim.bind(x, y, z), mlax.neg(tangent) if mistake == 'jvp-sign' else tangent

    @prim.def_transpose
    def transpose(ct, x, y, z):
        zeros = mlax.full(ct.shape, 0, ct.dtype)
        ct_z = mlax.neg(ct) if mistake == 'transpose-sign' else ct
        if minijax.is_undefined_primal(x):
            return [prim.bind(ct, y, zeros), None, ct_z]
        return [None, prim.bind(x, ct, zeros), ct_z]

    @prim.def_batching
    def batching(args, dims):
        size = next(np.shape(a)[d] for a, d in zip(args, dims) if d is not None)
        args = [mlax.broadcast(a, (size,)) if d is None
                else mlax.transpose(a, (d, *(i for i in range(np.ndim(a)) if i != d)))
                for a, d in zip(args, dims)]
        out_dim = next(d for d in dims if d is not None) if mistake == 'vmap-axis' else 0
        return prim.bind(*args), out_dim

    def lowering(ctx, x, y, z):
        add = stablehlo.SubtractOp if mistake == 'lowering-op' else stablehlo.AddOp
        return [add(stablehlo.MulOp(x, y).result, z).result]

    register_lowering(prim, lowering)
    return prim


def _multiply_add_args():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((2, 3)) for _ in range(3)]


def test_check_rules_passes_a_correct_user_primitive():
    check_rules(_multiply_add(), *_multiply_add_args())


#: A student's script, as pasted from docs/add_a_primitive.md: no ``__main__`` guard.
_CHECK_RULES_SCRIPT = """
import numpy as np
import minijax
from minijax.lowering import register_lowering, stablehlo
from minijax.testing import check_rules

print('the script runs')
double_p = minijax.Primitive('double')
double_p.def_impl(lambda x: 2 * np.asarray(x))
double_p.def_abstract_eval(lambda x: minijax.ShapedArray(x.shape, x.dtype))
double_p.def_jvp(lambda primals, tangents: (double_p.bind(*primals), {tangent}))
double_p.def_batching(lambda args, dims: (double_p.bind(*args), dims[0]))
register_lowering(double_p, lambda ctx, x: [stablehlo.AddOp(x, x).result])
check_rules(double_p, np.arange(6.).reshape(2, 3))
print('every rule agrees')
"""
_RUN_SCRIPT = {'file': lambda path: ([str(path)], None),
               'stdin': lambda path: (['-'], path.read_text()),
               '-c': lambda path: (['-c', path.read_text()], None)}


@pytest.mark.parametrize('how', list(_RUN_SCRIPT))
@pytest.mark.parametrize('tangent, expected_out, status', [
    ('double_p.bind(*tangents)', 'the script runs\nevery rule agrees\n', 0),
    ('tangents[0]', 'the script runs\n', 1),
], ids=['correct', 'wrong-jvp'])
def test_check_rules_from_a_plain_script(tmp_path, how, tangent, expected_out, status):
    """A script without a main guard (a file, standard input, ``python -c``) runs once, its
    reference interpreter included, and a wrong rule is named."""
    path = tmp_path / 'double.py'
    path.write_text(_CHECK_RULES_SCRIPT.format(tangent=tangent))
    args, stdin = _RUN_SCRIPT[how](path)
    done = subprocess.run([sys.executable, *args], input=stdin, capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert (done.stdout, done.returncode) == (expected_out, status), done.stderr[-2000:]
    if status:
        assert "AssertionError: primitive 'double': jvp rule is wrong" in done.stderr


def test_check_rules_reports_a_failed_isolation_as_such(monkeypatch):
    """When the reference interpreter's child process cannot be had, that is said, and no
    rule is blamed."""
    monkeypatch.setattr(isolation, '_servers', {})
    monkeypatch.setattr(sys, 'executable', str(pathlib.Path('/nonexistent/python')))
    with pytest.raises(isolation.IsolationError, match='cannot start the fork server'):
        check_rules(_multiply_add(), *_multiply_add_args())


@pytest.mark.parametrize('mistake', ['abstract_eval-shape', 'abstract_eval-dtype', 'jvp-sign',
                                     'transpose-sign', 'vmap-axis', 'lowering-op'])
def test_check_rules_names_a_wrong_rule(mistake):
    kind = mistake.split('-')[0]
    with pytest.raises(AssertionError, match=rf"primitive 'multiply_add': {kind} rule"):
        check_rules(_multiply_add(mistake), *_multiply_add_args())
