"""Rules at their edges: the cases that subtly wrong rules slipped past (``bench/mutants.py``
plants such mistakes: a forgotten sign, a permutation used as its own inverse, a dropped
weak type, a while loop run as a do-while, ...).

Each case is one program written once against an ``api`` namespace and run twice, by minijax
and by JAX (the oracle). Test ids name the rule and the primitive,
``test_<rule>[<primitive>-<case>]``, so a failure points at the rule to fix.
"""
from types import SimpleNamespace

import jax
import numpy as np
import pytest

import minijax
from minijax.interpreters.partial_eval import dce_closed_jaxpr
from minijax.interpreters.transpose import UndefinedPrimal, backward_pass, instantiate_cts
from minijax.ir.jaxpr import Jaxpr

from testlib import assert_close


def _minijax_linear_transpose(f, *primals):
    """minijax has no public ``linear_transpose``: transpose ``f``'s jaxpr directly (the
    only way to reach the transpose rule of a primitive that no jvp rule emits, like sub)."""
    closed = minijax.make_jaxpr(f)(*primals)
    avals = [v.aval for v in closed.jaxpr.invars]

    def f_transpose(ct):
        undefined = [UndefinedPrimal(a) for a in avals]
        return instantiate_cts(backward_pass(closed.jaxpr, closed.consts, undefined, [ct]),
                               avals)
    return f_transpose


MINIJAX = SimpleNamespace(
    lax=minijax.lax, jit=minijax.jit, jvp=minijax.jvp, vmap=minijax.vmap, grad=minijax.grad,
    linearize=minijax.linearize, make_jaxpr=minijax.make_jaxpr,
    while_loop=minijax.while_loop, scan=minijax.scan, cond=minijax.cond,
    linear_transpose=_minijax_linear_transpose)
JAX = SimpleNamespace(
    lax=jax.lax, jit=jax.jit, jvp=jax.jvp, vmap=jax.vmap, grad=jax.grad,
    linearize=jax.linearize, make_jaxpr=jax.make_jaxpr,
    while_loop=jax.lax.while_loop, scan=jax.lax.scan, cond=jax.lax.cond,
    linear_transpose=jax.linear_transpose)


def assert_same_leaves(actual, expected):
    actual, expected = jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected)
    assert len(actual) == len(expected), (actual, expected)
    for a, e in zip(actual, expected):
        assert_close(a, e)


def check_against_jax(program):
    """``program(api)`` gives the same values, shapes and dtypes run by minijax and by JAX."""
    assert_same_leaves(program(MINIJAX), program(JAX))


def _cases(table):
    return pytest.mark.parametrize('case', table.values(), ids=list(table))


# ----------------------------------------------------------------------------- transpose

CT3 = np.array([0.5, -2., 1.25])
LHS = np.arange(24.).reshape(4, 2, 3)  # contracted on axis 0: its cotangent comes back by
RHS = np.arange(20.).reshape(4, 5)     # the 3-cycle (1 2 0), which is not its own inverse


def _transpose_of(f, primals, ct):
    return lambda api: api.linear_transpose(f(api), *primals)(ct)


TRANSPOSE_CASES = {
    'sub-same_shape': _transpose_of(lambda api: api.lax.sub,
                                    [np.arange(3.), np.array([4., -1., 2.5])], CT3),
    'sub-scalar_rhs': _transpose_of(lambda api: api.lax.sub, [np.arange(3.), np.float64(2.)],
                                    CT3),
    'convert_element_type-float32_to_float64': _transpose_of(
        lambda api: lambda x: api.lax.convert_element_type(x, np.float64),
        [np.arange(3., dtype=np.float32)], CT3),
    'convert_element_type-grad_keeps_dtype': lambda api: api.grad(
        lambda x: api.lax.convert_element_type(x, np.float64)[1])(
            np.array([0.5, -1.5], np.float32)),
    'dot_general-three_cycle': _transpose_of(
        lambda api: lambda lhs: api.lax.dot_general(lhs, RHS, (((0,), (0,)), ((), ()))),
        [LHS], np.arange(30.).reshape(2, 3, 5)),
    'transpose-three_cycle': _transpose_of(
        lambda api: lambda x: api.lax.transpose(x, (1, 2, 0)), [np.arange(24.).reshape(2, 3, 4)],
        np.arange(24.).reshape(3, 4, 2)),
    'cond-grad': lambda api: api.grad(
        lambda x: api.cond(x > 0, lambda x: x * x, lambda x: -x, x))(np.float64(1.5)),
    'scan-grad': lambda api: api.grad(lambda x: api.scan(
        lambda c, y: (c * y, c), x, np.array([1., 2., 3.]))[0])(np.float64(0.5)),
}


@_cases(TRANSPOSE_CASES)
def test_transpose(case):
    check_against_jax(case)


# ----------------------------------------------------------------------------- jvp

def _while_scaled_by_trips(api, x):
    """The carry's initial tangent is zero; the body makes it depend on ``x``."""
    return api.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x),
                          (0, np.float64(1.)))[1]


JVP_CASES = {
    'pow-zero_base': lambda api: api.jvp(
        api.lax.pow, (np.array([0., 0., 2.]), np.array([2., 0.5, 3.])),
        (np.array([1., 0., 1.]), np.array([1., 1., 1.]))),
    # d rem(x, y)/dy = -trunc(x / y): infinite, not NaN, for an infinite x (fuzz seed 180862)
    'rem-infinite_dividend': lambda api: api.jvp(
        api.lax.rem, (np.array([np.inf, -np.inf, 5.5, 7.]), np.array([2., 2., -2., 0.])),
        (np.ones(4), np.ones(4))),
    # an integer operand's tangent is no array of its dtype (fuzz seed 206798)
    'optimization_barrier-int_operand': lambda api: api.jvp(
        lambda x: (lambda a, b: (a, api.lax.cummax(b, 0)))(
            *api.lax.optimization_barrier((x * 2., (x > 0).astype(np.int32)))),
        (np.array([1., -2.]),), (np.array([.5, 1.]),))[0],
    'while-zero_init_tangent': lambda api: api.jvp(
        lambda x: _while_scaled_by_trips(api, x), (np.float64(1.5),), (np.float64(1.),)),
}


@_cases(JVP_CASES)
def test_jvp(case):
    check_against_jax(case)


# ----------------------------------------------------------------------------- abstract eval

ABSTRACT_EVAL_CASES = {  # (function, arguments): Python scalars are weakly typed in both
    'select_n-weak_type': (lambda api: lambda: api.lax.select_n(True, 2., 3.), ()),
    'broadcast_in_dim-weak_type': (lambda api: lambda: api.lax.broadcast_in_dim(2., (3,), ()),
                                   ()),
    'log-float64': (lambda api: api.lax.log, (np.array([0.5, 2.]),)),
}


@_cases(ABSTRACT_EVAL_CASES)
def test_abstract_eval(case):
    """The traced output type (shape, dtype, weak type) is JAX's; so is the value."""
    make_f, args = case
    avals = [api.make_jaxpr(make_f(api))(*args).out_avals[0] for api in (MINIJAX, JAX)]
    assert [(a.shape, a.dtype, a.weak_type) for a in avals] == [
        (a.shape, a.dtype, a.weak_type) for a in avals[::-1]], avals
    check_against_jax(lambda api: api.jit(make_f(api))(*args))


# ----------------------------------------------------------------------------- flops

FLOPS_CASES = {
    'dot_general-matmul': (lambda x, w: minijax.lax.dot_general(x, w, (((1,), (0,)), ((), ()))),
                           (np.ones((4, 5)), np.ones((5, 3)))),
}


@_cases(FLOPS_CASES)
def test_flops(case):
    """minijax.flops counts what XLA's cost analysis counts."""
    f, args = case
    xla = minijax.jit(f).lower(*args).compile().cost_analysis()['flops']
    assert minijax.flops(f)(*args) == xla


# ----------------------------------------------------------------------------- impl

def _count_up(api, init, bound):
    return api.while_loop(lambda c: c[0] < bound, lambda c: (c[0] + 1, c[1] * 2.), init)


IMPL_CASES = {  # eager evaluation (each primitive's impl)
    'while-false_at_start': lambda api: _count_up(api, (5, np.float64(1.)), 3),
    'while-one_trip': lambda api: _count_up(api, (2, np.float64(1.)), 3),
    # a negative int8 start on an axis longer than int8 holds: the axis size is added in int8
    'dynamic_slice-int8_start_on_a_long_axis': lambda api: api.jit(
        lambda x, i: api.lax.dynamic_slice(x, (i,), (3,)))(np.arange(300.), np.int8(-2)),
}


@_cases(IMPL_CASES)
def test_impl(case):
    check_against_jax(case)


# ----------------------------------------------------------------------------- vmap

VMAP_CASES = {
    'while-different_trip_counts': lambda api: api.vmap(
        lambda bound: _count_up(api, (0, np.float64(1.)), bound))(np.array([0, 3, 1, 2])),
    'cond-batched_predicate': lambda api: api.vmap(lambda x: api.cond(
        x > 0, lambda x: x * 2., lambda x: x - 1., x))(np.array([-1., 2., 0.5])),
    'dynamic_slice-int8_starts_on_a_long_axis': lambda api: api.vmap(
        lambda i: api.lax.dynamic_slice(np.arange(300.), (i,), (3,)))(
            np.array([-2, 5, -100], np.int8)),
    'scan-batched_xs': lambda api: api.vmap(lambda xs: api.scan(
        lambda c, x: (c + x, c * x), np.float64(0.), xs))(np.arange(6.).reshape(2, 3)),
}


@_cases(VMAP_CASES)
def test_vmap(case):
    check_against_jax(case)


# ----------------------------------------------------------------------------- partial eval

def _scan_carry_made_unknown(api, x):
    """The init carry is a known constant; multiplying by ``x`` makes the carry's tangent
    unknown in the loop, so the staged scan reads the known init (a forwarded operand)."""
    def body(c, xs):
        return c * x + xs, c
    carry, ys = api.scan(body, np.float64(1.), np.array([0.5, -1., 2.]))
    return carry + ys[2]


def _while_half_known(api, x):
    """The counter is known, the product is not: the loop splits in two."""
    return api.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]


def _linearized_under_jit(f, x, t):
    """linearize splits jit's body with partial_eval_jaxpr (grad would too, but its
    transposition reads a missing residual as a linear input and may not notice)."""
    def program(api):
        out, f_lin = api.linearize(api.jit(lambda x: f(api, x)), x)
        return out, f_lin(t)
    return program


def _linearized(f, x, t):
    """Eager linearize: each primitive is split by its partial_eval rule as it is traced."""
    def program(api):
        out, f_lin = api.linearize(lambda x: f(api, x), x)
        return out, f_lin(t)
    return program


def _cond_on_sign(api, x):
    return api.cond(x > 0, lambda x: api.lax.sin(x) * x, lambda x: -x, x)


PARTIAL_EVAL_CASES = {
    'cond-linearize': _linearized(_cond_on_sign, np.float64(1.5), np.float64(2.)),
}


@_cases(PARTIAL_EVAL_CASES)
def test_partial_eval(case):
    check_against_jax(case)


PARTIAL_EVAL_JAXPR_CASES = {
    'xla_call-nested_jit': _linearized_under_jit(
        lambda api, x: api.jit(lambda y: api.lax.sin(y) * y)(x), np.float64(0.5),
        np.float64(2.)),
    'scan-forwarded_init': _linearized_under_jit(_scan_carry_made_unknown, np.float64(0.75),
                                                 np.float64(2.)),
    'while-known_counter': _linearized_under_jit(_while_half_known, np.float64(1.5),
                                                 np.float64(2.)),
}


@_cases(PARTIAL_EVAL_JAXPR_CASES)
def test_partial_eval_jaxpr(case):
    check_against_jax(case)


# A pruned higher-order equation keeps only what its used outputs need: the expected body is
# read off the program (cos feeds only the unused output), not computed by minijax.
DCE_CASES = {
    'cond-unused_output': lambda x: minijax.cond(
        x > 0., lambda x: (minijax.lax.sin(x), minijax.lax.cos(x)), lambda x: (x, x), x),
    'xla_call-unused_output': minijax.jit(
        lambda x: (minijax.lax.sin(x), minijax.lax.cos(x))),
}


@pytest.mark.parametrize('case', DCE_CASES)
def test_dce(case):
    closed = minijax.make_jaxpr(DCE_CASES[case])(1.)
    pruned, _ = dce_closed_jaxpr(closed, [True, False])
    eqn, = pruned.eqns[-1:]
    bodies = eqn.params.get('branches') or (eqn.params['jaxpr'],)
    assert len(eqn.out_binders) == 1
    for body in bodies:
        assert len(body.out_avals) == 1
        assert 'cos' not in [e.primitive.name for e in body.eqns]


def test_transpose_refuses_a_residual_bound_nowhere():
    """A linear jaxpr that reads a variable no equation binds (a partial-eval rule that
    dropped a residual) is an error, not a silent extra linear input."""
    closed = minijax.make_jaxpr(lambda x, r: minijax.lax.mul(x, r))(1., 2.)
    jaxpr = closed.jaxpr
    broken = Jaxpr(jaxpr.constvars, jaxpr.invars[:1], jaxpr.eqns, jaxpr.outs)
    with pytest.raises(RuntimeError, match='bound nowhere'):
        backward_pass(broken, closed.consts, [UndefinedPrimal(jaxpr.invars[0].aval)],
                      [np.float64(1.)])
