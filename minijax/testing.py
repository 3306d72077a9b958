"""``check_rules``: test every rule of a primitive against an independent answer.

A student who adds a primitive runs ``check_rules(my_p, *example_args, **params)``. Each rule
the primitive has (its entry in ``minijax.core.rule_tables``) is checked against something
that does not use that rule:

==============  ==================================================================
rule            checked against
==============  ==================================================================
abstract_eval   the shape and dtype of what the impl computes
jvp             central finite differences of the impl, in float64
transpose       the jvp, by the dot-product identity <ct, J t> = <J^T ct, t>
vmap            the impl applied to one example at a time, stacked
lowering        the impl, run by XLA (``jit``) and by the StableHLO reference interpreter
                (XLA alone for a custom call, such as the LAPACK kernels of lax.linalg)
==============  ==================================================================

The impl itself is the ground truth here (the test suite checks the built-in impls against
JAX). A wrong rule raises ``AssertionError`` naming the primitive, the rule kind and what
differed; so does a rule the primitive lacks but needs (every one above but transpose, which
only a linear primitive has; ``NOT_NEEDED`` lists the exceptions). Inputs derived from the
example (tangents, cotangents, batches) are seeded, so a failure repeats.
``check_rule(kind, primitive, *args, **params)`` checks one rule alone (a course task's check:
docs/teaching.md).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from minijax import core, dtypes, lax
from minijax.autodiff import vjp
from minijax.control_flow import platform_index_p
from minijax.isolation import IsolationError
from minijax.interpreters.batching import vmap
from minijax.interpreters.jvp import jvp
from minijax.jit import jit
from minijax.reference_interpreter import run_module

#: (rtol, atol) when two executions of one computation are compared.
TOLERANCES = {np.dtype('float32'): (1e-5, 1e-6), np.dtype('float64'): (1e-10, 1e-12),
              np.dtype('complex64'): (1e-5, 1e-6), np.dtype('complex128'): (1e-10, 1e-12)}
BATCH_SIZE = 3


def check_rules(primitive: core.Primitive, *args, **params) -> None:
    """Check each rule ``primitive`` has on the example ``primitive.bind(*args, **params)``,
    then fail naming the rules it needs but lacks (``NOT_NEEDED`` lists those it may lack)."""
    missing = [m for kind in RULE_CHECKS if (m := _check(kind, primitive, args, params))]
    if missing:
        raise AssertionError('; '.join(missing) + _WHY_NEEDED)


def check_rule(kind: str, primitive: core.Primitive, *args, **params) -> None:
    """Check one rule of ``primitive`` (``'jvp'``, ...: a key of ``RULE_CHECKS``) as
    ``check_rules`` does: the check of one course task (``minijax course grade``)."""
    missing = _check(kind, primitive, args, params)
    if missing:
        raise AssertionError(missing + _WHY_NEEDED)


_WHY_NEEDED = (': every primitive needs one, unless minijax.testing.NOT_NEEDED says why it '
               'does without')


def _check(kind, primitive, args, params) -> str | None:
    """Run the check of ``primitive``'s ``kind`` rule; if it lacks one it needs, what the
    missing-rule error says."""
    if primitive not in core.impl_rules:  # the ground truth of every check
        raise AssertionError(core.impl_rules.missing(primitive))
    tables, check, needed = RULE_CHECKS[kind]
    if any(primitive in core.rule_tables[table] for table in tables):
        _run_check(primitive, kind, check, [_value(a) for a in args], params)
    elif needed and (primitive, kind) not in NOT_NEEDED:
        return core.rule_tables[kind].missing(primitive)
    return None


def _run_check(primitive, kind, check, args, params):
    """Run one check; an exception inside the rule becomes the failure of that rule (not
    one of the isolation of the reference interpreter: no rule ran)."""
    try:
        check(primitive, args, params)
    except (AssertionError, IsolationError):
        raise
    except Exception as e:
        raise AssertionError(f"primitive '{primitive}': {kind} rule raised "
                             f'{type(e).__name__}: {e}') from e


def _fail(primitive, kind, what):
    raise AssertionError(f"primitive '{primitive}': {kind} rule is wrong: {what}")


def _assert_close(primitive, kind, what, actual, expected, dtype=None):
    """``actual`` equals ``expected`` in shape, dtype and value (within the dtype's rounding)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        _fail(primitive, kind, f'{what}: got {actual.dtype}{list(actual.shape)}, '
                               f'expected {expected.dtype}{list(expected.shape)}')
    rtol, atol = TOLERANCES.get(np.dtype(dtype or expected.dtype), (0, 0))
    if not _agree(actual, expected, rtol, atol):
        _fail(primitive, kind, f'{what}: got\n{actual}\nexpected\n{expected}')


def _agree(actual, expected, rtol, atol) -> bool:
    """Every comparison of check_rules: equal within the tolerances, where a NaN or an
    infinity agrees with the same one in the same place (a rule is not wrong for computing
    the NaN the impl computes)."""
    return bool(np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True))


# ----------------------------------------------------------------------------- helpers

def _impl(primitive, params):
    """The primitive's impl rule as a function of its operands: the ground truth."""
    def f(*args):
        out = core.impl_rules[primitive](*args, **params)
        return [_value(o) for o in out] if primitive.multiple_results else [_value(out)]
    return f


def _value(out):
    """An output as an array, or as the token it is (a token has no value to compare)."""
    return out if isinstance(out, core.Token) else np.asarray(out)


def _bind(primitive, params):
    """The primitive as a traceable function returning a list of outputs."""
    def f(*args):
        out = primitive.bind(*args, **params)
        return list(out) if primitive.multiple_results else [out]
    return f


def _moving_positions(primitive, args):
    """The operands the checks move along a tangent: the float and complex ones, but those
    ``HELD_CONSTANT`` names."""
    return [i for i, a in enumerate(args)
            if dtypes.is_inexact(a.dtype) and (primitive, i) not in HELD_CONSTANT]


def _with(args, positions, values):
    """``args`` with ``args[i]`` replaced by ``values[k]`` for the k-th position ``i``."""
    full = list(args)
    for i, v in zip(positions, values):
        full[i] = v
    return full


def _along_random_tangents(primitive, args, seed):
    """The moving operands (positions and values) and a seeded random tangent for each; the
    generator is returned to draw cotangents from."""
    rng = np.random.default_rng(seed)
    which = _moving_positions(primitive, args)
    primals = [args[i] for i in which]
    return which, primals, [_random_like(rng, p) for p in primals], rng


def _random_like(rng, x):
    dtype = np.asarray(x).dtype
    if dtypes.is_complex(dtype):
        return (rng.standard_normal(np.shape(x)) + 1j * rng.standard_normal(np.shape(x))
                ).astype(dtype)
    return rng.standard_normal(np.shape(x)).astype(dtype)


def _inner(xs, ys):
    """The real pairing ``Re(sum(x * y))``, without conjugation: the one under which JAX's
    transposes (which never conjugate) are adjoints, for complex values too."""
    return sum(float(np.real(np.sum(np.asarray(x, np.complex128) * np.asarray(y, np.complex128))))
               for x, y in zip(xs, ys))


# ----------------------------------------------------------------------------- the checks

def check_abstract_eval(primitive, args, params):
    """The abstract eval's output types are those of the impl's outputs."""
    avals = [core.get_aval(a) for a in args]
    out_avals = core.abstract_eval_rules[primitive](*avals, **params)
    out_avals = out_avals if primitive.multiple_results else [out_avals]
    outs = _impl(primitive, params)(*args)
    if len(out_avals) != len(outs):
        _fail(primitive, 'abstract_eval', f'{len(out_avals)} outputs, the impl gives {len(outs)}')
    for k, (aval, out) in enumerate(zip(out_avals, outs)):
        if (aval is core.abstract_token) != isinstance(out, core.Token):
            _fail(primitive, 'abstract_eval', f'output {k} is {aval.str_short()}, the impl '
                                              f'gives a {type(out).__name__}')
        if aval is core.abstract_token:
            continue
        if tuple(aval.shape) != out.shape or np.dtype(aval.dtype) != out.dtype:
            _fail(primitive, 'abstract_eval',
                  f'output {k} is {aval.str_short()}, the impl gives {out.dtype}{list(out.shape)}')


def check_jvp(primitive, args, params, eps=1e-6):
    """The jvp's tangent is the central difference (f(x + eps t) - f(x - eps t)) / 2 eps,
    in float64, with every float operand moving (but those ``HELD_CONSTANT``); a non-float
    output has a zero tangent."""
    args = [a.astype(np.float64) if dtypes.is_float(a.dtype)
            else a.astype(np.complex128) if dtypes.is_complex(a.dtype) else a for a in args]
    which, primals, tangents, _ = _along_random_tangents(primitive, args, seed=0)
    if not which:
        return
    _, tangents_out = jvp(lambda *xs: _bind(primitive, params)(*_with(args, which, xs)),
                          tuple(primals), tuple(tangents))
    f = lambda *xs: _impl(primitive, params)(*_with(args, which, xs))  # noqa: E731
    plus = f(*[p + eps * t for p, t in zip(primals, tangents)])
    minus = f(*[p - eps * t for p, t in zip(primals, tangents)])
    for k, (tan, hi, lo) in enumerate(zip(tangents_out, plus, minus)):
        tan = np.asarray(tan)
        if not dtypes.is_inexact(hi.dtype):
            if np.any(tan):
                _fail(primitive, 'jvp', f'output {k} is not a float but has the tangent {tan}')
            continue
        if primitive in STRAIGHT_THROUGH:
            expected, source = _impl(primitive, params)(*tangents)[k], 'the primitive gives'
        else:
            expected, source = (hi - lo) / (2 * eps), 'finite differences give'
        if tan.shape != expected.shape or not _agree(tan, expected, rtol=1e-5, atol=1e-5):
            _fail(primitive, 'jvp', f'tangent of output {k}: got\n{tan}\n{source}\n{expected}')


def check_transpose(primitive, args, params):
    """<ct, J t> (J t from the jvp) equals <J^T ct, t> (J^T ct from vjp, which transposes
    the jvp's linear program); each cotangent has its operand's shape and dtype."""
    which, primals, tangents, rng = _along_random_tangents(primitive, args, seed=1)
    if not which:
        return
    f = lambda *xs: _bind(primitive, params)(*_with(args, which, xs))  # noqa: E731
    outs, tangents_out = jvp(f, tuple(primals), tuple(tangents))
    cts_out = [_random_like(rng, o) for o in outs]
    _, f_vjp = vjp(f, *primals)
    cts_in = f_vjp(cts_out)
    for i, ct, p in zip(which, cts_in, primals):
        ct = np.asarray(ct)
        if ct.shape != p.shape or ct.dtype != p.dtype:
            _fail(primitive, 'transpose', f'cotangent of operand {i} is '
                                          f'{ct.dtype}{list(ct.shape)}, the operand is '
                                          f'{p.dtype}{list(p.shape)}')
    if primitive in STRAIGHT_THROUGH:  # not linear: its transpose is itself, as its jvp
        for k, (ct, expected) in enumerate(zip(cts_in, _impl(primitive, params)(*cts_out))):
            _assert_close(primitive, 'transpose', f'cotangent of operand {k}', ct, expected)
        return
    forward, backward = _inner(cts_out, tangents_out), _inner(cts_in, tangents)
    rtol = 1e-4 if any(p.dtype in (np.float32, np.complex64) for p in primals) else 1e-9
    if not _agree(forward, backward, rtol=rtol, atol=rtol):
        _fail(primitive, 'transpose', f'<ct, J t> = {forward} (jvp) but <J^T ct, t> = '
                                      f'{backward} (transpose)')


def _examples(args, size):
    """``size`` examples of ``args``: the k-th has each operand's elements rolled by k (so
    the examples differ, and their values stay in the operands' domain)."""
    return [[np.roll(a.ravel(), k).reshape(a.shape) for a in args] for k in range(size)]


def _batch_axes(primitive, args):
    """in_axes to try: every operand at 0; every operand at its last axis; the first operand
    alone, at axis 1 if it has one (the others unbatched). ``UNBATCHED`` operands never are."""
    last = tuple(np.ndim(a) for a in args)
    first_alone = (min(1, np.ndim(args[0])),) + (None,) * (len(args) - 1)
    return [tuple(None if (primitive, i) in UNBATCHED else axis for i, axis in enumerate(axes))
            for axes in [(0,) * len(args), last, first_alone]]


def check_vmap(primitive, args, params):
    """vmap gives what applying the impl to one example at a time and stacking gives."""
    if not args or primitive in NOT_PER_EXAMPLE:
        return
    for in_axes in _batch_axes(primitive, args):
        # An unbatched operand is the same in every example: the first example's.
        examples = [[x if axis is not None else first
                     for x, first, axis in zip(ex, args, in_axes)]
                    for ex in _examples(args, BATCH_SIZE)]
        expected = [np.stack(outs) for outs in zip(*[_impl(primitive, params)(*ex)
                                                      for ex in examples])]
        batched = [a if axis is None else np.stack([ex[i] for ex in examples], axis)
                   for i, (a, axis) in enumerate(zip(examples[0], in_axes))]
        got = vmap(_bind(primitive, params), in_axes)(*batched)
        for k, (g, e) in enumerate(zip(got, expected)):
            _assert_close(primitive, 'vmap', f'output {k} with in_axes={in_axes}', g, e)


def check_lowering(primitive, args, params):
    """The lowered module, compiled by XLA and run by the reference interpreter, computes
    what the impl computes."""
    f = _bind(primitive, params)
    expected = _impl(primitive, params)(*args)
    if primitive in RANDOM or any(isinstance(e, core.Token) for e in expected):
        # values that are no function of the operands (random numbers, tokens): types only
        for k, (g, e) in enumerate(zip(jit(f)(*args), expected)):
            if _type(g) != _type(e):
                _fail(primitive, 'lowering', f'output {k} under jit (XLA) is {_type(g)}, the '
                                             f'impl gives {_type(e)}')
        return
    for k, (g, e) in enumerate(zip(jit(f)(*args), expected)):
        _assert_close(primitive, 'lowering', f'output {k} under jit (XLA)', g, e)
    module = jit(f).lower(*args).compiler_ir()
    if _custom_call_targets(module) or primitive in XLA_ONLY:
        return  # a kernel outside StableHLO (LAPACK, for lax.linalg): XLA alone runs it
    if any(dtypes.is_complex(a.dtype) for a in [*args, *expected]):
        return  # the reference interpreter aborts on complex values: XLA alone runs it
    for k, (g, e) in enumerate(zip(run_module(module, args), expected)):
        _assert_close(primitive, 'lowering', f'output {k} in the reference interpreter', g, e)


def _type(value) -> str:
    return 'Tok' if isinstance(value, core.Token) else f'{value.dtype}{list(np.shape(value))}'


def _custom_call_targets(module) -> list[str]:
    """The kernels the module calls with ``stablehlo.custom_call``: code outside StableHLO,
    which the reference interpreter cannot run, so such a lowering is checked under XLA."""
    targets = []

    def visit(op):
        if op.name == 'stablehlo.custom_call':
            targets.append(ir.StringAttr(op.attributes['call_target_name']).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return targets


#: The rules checked, in the order the checks run (a rule after the rules its check relies
#: on): kind -> (the tables that may hold it, its check, whether every primitive needs it).
#: Only a primitive linear in some operand has a transpose rule.
RULE_CHECKS = {
    'abstract_eval': (('abstract_eval',), check_abstract_eval, True),
    'jvp': (('jvp', 'symbolic_zero_jvp'), check_jvp, True),
    'transpose': (('transpose',), check_transpose, False),
    'vmap': (('vmap',), check_vmap, True),
    'lowering': (('lowering',), check_lowering, True),
}

#: (primitive, kind) -> why the primitive does without that rule, which it would otherwise
#: need: ``check_rules`` and the guard test of the built-ins (test_rules.py) take any other
#: missing rule for a mistake. A primitive of your own adds its entries here.
NOT_NEEDED = {
    (lax.iota_p, 'jvp'): 'it has no operands to differentiate',
    (lax.iota_p, 'vmap'): 'it has no operands to batch',
    (lax.empty_p, 'jvp'): 'it has no operands to differentiate',
    (lax.empty_p, 'vmap'): 'it has no operands to batch',
    (lax.axis_index_p, 'vmap'): 'it has no operands to batch; vmap(axis_name=...) maps its '
                                'own axis',
    (platform_index_p, 'jvp'): 'it has no operands to differentiate',
    (platform_index_p, 'vmap'): 'it has no operands to batch',
    **dict.fromkeys([(lax.zeta_p, 'jvp'), (lax.nextafter_p, 'jvp'),
                     (lax.select_and_scatter_p, 'jvp'), (lax.rng_uniform_p, 'jvp'),
                     (lax.igamma_grad_a_p, 'jvp'), (lax.scaled_dot_p, 'jvp')],
                    'JAX does not differentiate it either (NotImplementedError, as there)'),
    (lax.linalg.schur_p, 'jvp'): 'JAX does not differentiate the Schur decomposition either',
    **dict.fromkeys([(lax.linalg.hessenberg_p, 'jvp'), (lax.linalg.tridiagonal_p, 'jvp'),
                     (lax.householder.geqrf_p, 'jvp'), (lax.householder.geqp3_p, 'jvp'),
                     (lax.linalg.householder_product_p, 'jvp'), (lax.linalg.ormqr_p, 'jvp'),
                     (lax.linalg.symmetric_product_p, 'jvp'),
                     (lax.linalg.cholesky_update_p, 'jvp')],
                    'JAX does not differentiate it either (NotImplementedError, as there)'),
    (lax.linalg.lu_pivots_to_permutation_p, 'jvp'): 'its operand and result are integers, '
                                                    'whose tangents are symbolic zeros (JAX '
                                                    'has no rule either)',
    (lax.linalg.cholesky_update_p, 'vmap'): 'JAX does not batch it either '
                                            '(NotImplementedError, as there)',
    (lax.select_and_scatter_p, 'vmap'): 'JAX does not batch it either (NotImplementedError, '
                                        'as there); select_and_scatter_add batches itself',
    (lax.rng_uniform_p, 'vmap'): 'JAX does not batch it either (NotImplementedError, as there)',
    (lax.rng_bit_generator_p, 'jvp'): 'its key is an unsigned integer array, whose tangent is '
                                      'always a symbolic zero (JAX has no rule either)',
    (lax.create_token_p, 'jvp'): 'it has no operands to differentiate',
    (lax.create_token_p, 'vmap'): 'it has no operands to batch',
    (lax.after_all_p, 'jvp'): 'its operands are tokens, which have no tangents',
    (lax.after_all_p, 'vmap'): 'its operands are tokens, which are never batched (JAX has no '
                               'rule either)',
}

#: primitive -> why its batching rule is not "one example at a time": check_vmap leaves it
#: to the tests against JAX's vmap.
NOT_PER_EXAMPLE = {
    lax.rng_bit_generator_p: "JAX's rule draws every example's bits from the first example's "
                             'key, in one draw of the batched shape',
}

#: primitive -> why the reference interpreter cannot run its lowering: XLA alone runs it.
XLA_ONLY = {lax.rng_bit_generator_p: 'the interpreter does not implement '
                                     'stablehlo.rng_bit_generator'}

#: primitive -> why its values are no function of its operands: check_lowering compares the
#: types of its outputs only.
RANDOM = {lax.rng_uniform_p: "XLA draws from its own state, anew at each call"}

#: primitive -> why its derivative is the primitive itself, applied to the tangent (and to
#: the cotangent), where finite differences see a step: the jvp and transpose checks
#: compare with that.
STRAIGHT_THROUGH = {
    lax.reduce_precision_p: 'JAX differentiates the rounding as if it were the identity, '
                            'rounding the tangent as well',
}

#: (primitive, operand position) -> why the jvp and transpose checks hold that float operand
#: constant: its derivative is refused, as JAX refuses it.
HELD_CONSTANT = {
    **dict.fromkeys([(lax.reduce_p, 1), (lax.reduce_window_p, 1)],
                    'the initial value: JAX refuses a derivative in it (NotImplementedError, '
                    'TypeError)'),
    (lax.polygamma_p, 0): "the order m: JAX does not differentiate polygamma in it (ValueError)",
    **dict.fromkeys([(lax.regularized_incomplete_beta_p, 0),
                     (lax.regularized_incomplete_beta_p, 1)],
                    'a and b: JAX does not differentiate betainc in them (ValueError)'),
}

#: (primitive, operand position) -> why the vmap check keeps that operand unbatched: batching
#: it is refused, as JAX refuses it.
UNBATCHED = {
    **dict.fromkeys([(lax.reduce_p, 1), (lax.reduce_window_p, 1)],
                    'the initial value: JAX does not batch it (NotImplementedError)'),
}
