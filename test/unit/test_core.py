"""The core: avals, primitives and bind, the interpreter stack, escaped tracers."""
import jax
import numpy as np
import pytest

import minijax
from minijax import core, lax
from minijax.core import ConcreteArray, Primitive, ShapedArray

jax.config.update('jax_enable_x64', True)


# ----------------------------------------------------------------------------- avals

@pytest.mark.parametrize('make', [
    lambda: ShapedArray((2, 3), np.float32),
    lambda: ShapedArray([2, 3], 'float32'),
    lambda: ShapedArray((), np.int64, weak_type=True),
    lambda: ConcreteArray(np.arange(3.)),
    lambda: ConcreteArray(np.array(2.5), weak_type=True),
])
def test_avals_hashable_and_equal_by_value(make):
    a, b = make(), make()
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    assert {a: 1}[b] == 1


@pytest.mark.parametrize('a,b', [
    (ShapedArray((2, 3), np.float32), ShapedArray((3, 2), np.float32)),
    (ShapedArray((2, 3), np.float32), ShapedArray((2, 3), np.float64)),
    (ShapedArray((), np.float32), ShapedArray((), np.float32, weak_type=True)),
    (ConcreteArray(np.arange(3.)), ConcreteArray(np.arange(3.) + 1)),
    (ConcreteArray(np.arange(3.)), ShapedArray((3,), np.float64)),
])
def test_avals_differ(a, b):
    assert a != b


def test_shaped_array_fields():
    a = ShapedArray((2, 3), np.float32)
    assert (a.shape, a.dtype, a.ndim, a.size) == ((2, 3), np.float32, 2, 6)
    assert a.str_short() == 'float32[2,3]'
    assert core.raise_to_shaped(ConcreteArray(np.ones((2, 3), np.float32))) == a


@pytest.mark.parametrize('value,expected', [
    (3.0, ShapedArray((), np.float64, weak_type=True)),
    (3, ShapedArray((), np.int64, weak_type=True)),
    (True, ShapedArray((), np.bool_)),
    (np.float32(3), ShapedArray((), np.float32)),
    (np.ones((2,), np.int32), ShapedArray((2,), np.int32)),
    (minijax.ShapeDtypeStruct((4, 1), np.float32), ShapedArray((4, 1), np.float32)),
])
def test_get_aval(value, expected):
    assert core.raise_to_shaped(core.get_aval(value)) == expected


@pytest.mark.parametrize('value', ['a string', object(), np.ones(2, np.clongdouble), [1.0]])
def test_get_aval_rejects_non_arrays(value):
    with pytest.raises(TypeError):
        core.get_aval(value)


# ----------------------------------------------------------------------------- primitives

def _double_primitive():
    """A user primitive defined from scratch: impl, abstract eval, jvp and batching rules."""
    p = Primitive('double')
    p.def_impl(lambda x: np.multiply(x, 2))
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    p.def_jvp(lambda primals, tangents: (p.bind(*primals), p.bind(*tangents)))
    p.def_batching(lambda vals, dims: (p.bind(*vals), dims[0]))
    return p


def test_user_primitive_bind_in_every_interpreter():
    p = _double_primitive()
    assert np.asarray(p.bind(np.float64(3.0))) == 6.0
    y, t = minijax.jvp(lambda x: p.bind(x), (3.0,), (1.5,))
    assert (float(y), float(t)) == (6.0, 3.0)
    np.testing.assert_array_equal(minijax.vmap(p.bind)(np.arange(3.)), [0., 2., 4.])
    jaxpr = minijax.make_jaxpr(lambda x: p.bind(x))(1.0)
    assert [e.primitive for e in jaxpr.jaxpr.eqns] == [p]
    assert 'double a' in str(jaxpr)


@pytest.mark.parametrize('transform,rule', [
    (lambda f: minijax.jvp(f, (1.0,), (1.0,)), 'jvp'),
    (lambda f: minijax.vmap(f)(np.ones(3)), 'vmap'),
    (lambda f: minijax.make_jaxpr(f)(1.0), 'abstract_eval'),
    (lambda f: f(1.0), 'impl'),
])
def test_missing_rule_names_primitive_and_rule(transform, rule):
    p = Primitive('no_rules_here')
    with pytest.raises(NotImplementedError, match=f"'no_rules_here' has no {rule} rule"):
        transform(lambda x: p.bind(x))


def test_multiple_results_primitive():
    p = Primitive('split2', multiple_results=True)
    p.def_impl(lambda x: [np.sin(x), np.cos(x)])
    p.def_abstract_eval(lambda x: [x, x])
    a, b = p.bind(np.float64(3.0))
    assert (float(a), float(b)) == (np.sin(3.0), np.cos(3.0))
    jaxpr = minijax.make_jaxpr(lambda x: p.bind(x))(1.0)
    assert len(jaxpr.jaxpr.eqns[0].out_binders) == 2 and len(jaxpr.jaxpr.outs) == 2


# ----------------------------------------------------------------------------- the trace stack

def test_trace_stack_levels_during_nested_transforms():
    seen = []

    def f(x):
        seen.append([(m.level, m.trace_type.__name__) for m in core.trace_stack])
        return lax.sin(x)

    base = len(core.trace_stack)
    minijax.jvp(lambda x: minijax.vmap(f)(x), (np.ones(2),), (np.ones(2),))
    assert [name for _, name in seen[0]][base:] == ['JVPTrace', 'BatchTrace']
    assert [lvl for lvl, _ in seen[0]] == list(range(len(seen[0])))
    assert seen[0][0][1] == 'EvalTrace'
    assert len(core.trace_stack) == base  # popped again


def test_trace_stack_popped_after_error():
    base = len(core.trace_stack)
    with pytest.raises(ZeroDivisionError):
        minijax.jvp(lambda x: 1 / 0, (1.0,), (1.0,))
    assert len(core.trace_stack) == base
    assert core.dynamic_trace is None


def _loss(x):
    return lax.reduce_sum(lax.sin(x) * 2., (0,))


#: Each builds its function anew, so that no cache of a jit or a trace answers it.
TRANSFORMATIONS = {
    'jit lower': lambda x: minijax.jit(lambda y: _loss(y)).lower(x).as_text(),
    'make_jaxpr': lambda x: minijax.make_jaxpr(lambda y: _loss(y))(x),
    'jvp': lambda x: minijax.jvp(lambda y: _loss(y), (x,), (x,)),
    'vmap': lambda x: minijax.vmap(lambda y: _loss(y))(np.stack([x, x])),
    'linearize': lambda x: minijax.linearize(lambda y: _loss(y), x)[1](x),
    'grad of jit': lambda x: minijax.grad(minijax.jit(lambda y: _loss(y)))(x),
    'jit of grad': lambda x: minijax.jit(minijax.grad(lambda y: _loss(y)))(x),
    'grad of scan': lambda x: minijax.grad(
        lambda y: lax.scan(lambda c, v: (c * v, c), 1., y)[0])(x),
    'cond': lambda x: lax.cond(True, lambda y: _loss(y), lambda y: -_loss(y), x),
}


@pytest.mark.parametrize('name', list(TRANSFORMATIONS))
def test_transformations_leave_no_reference_cycles(name):
    """What a transformation built (its tracers, the jaxpr it staged) is freed by reference
    counting once dropped. A cycle (a main trace and its Trace refer to each other; the
    jaxpr builder, the main's data, holds tracers of that Trace) kept a whole jaxpr alive
    until a full garbage collection."""
    import gc
    run, x = TRANSFORMATIONS[name], np.arange(1., 4.)
    run(x)  # the first run may fill caches that stay
    gc.collect()
    gc.disable()
    try:
        run(x)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_find_top_trace_picks_highest_level():
    tracers = []

    def inner(y):
        tracers.append(y)
        top = core.find_top_trace([tracers[0], y, 1.0])
        tracers.append(top)
        return y

    def outer(x):
        tracers.append(x)
        return minijax.vmap(inner)(x)

    minijax.jvp(outer, (np.ones(2),), (np.ones(2),))
    x, y, top = tracers[0], tracers[1], tracers[2]
    assert top.main is y._trace.main and y._trace.main.level > x._trace.main.level


def test_full_raise_lifts_lower_level_tracers():
    """A JVP tracer of the outer transformation is lifted into the inner vmap trace."""
    def outer(x):
        def inner(y):
            return lax.mul(x, y)  # x: outer (jvp) tracer, y: inner (vmap) tracer
        return minijax.vmap(inner)(np.arange(3.))

    y, t = minijax.jvp(outer, (2.0,), (1.0,))
    np.testing.assert_allclose(y, [0., 2., 4.])
    np.testing.assert_allclose(t, [0., 1., 2.])


def test_omnistaging_stages_constant_computation():
    """With the dynamic trace, mul(2., 2.) is staged, not folded (seed, Part 2)."""
    jaxpr = minijax.make_jaxpr(lambda: lax.mul(2., 2.))()
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ['mul']


def test_concrete_values_allow_python_control_flow_under_jvp():
    def f(x):
        return 2. * x if x > 0. else x
    assert float(minijax.jvp(f, (3.,), (1.,))[1]) == 2.0
    assert float(minijax.jvp(f, (-3.,), (1.,))[1]) == 1.0


def test_python_control_flow_on_abstract_value_is_an_error():
    def f(x):
        return x if x > 0. else -x
    with pytest.raises(TypeError, match='truth value|traced'):
        minijax.make_jaxpr(f)(1.0)


# ----------------------------------------------------------------------------- tracer reprs

#: ``print(x)`` of an argument under each transformation (``api`` is jax or minijax;
#: ``show`` records the repr of its argument and returns it). A fresh function each time:
#: JAX reuses a trace of a function it has seen, and would not print again.
TRACER_REPR_PROGRAMS = {
    'jit, weak type': lambda api, show: api.jit(lambda x: show(x))(1.),
    'jit, float32 array': lambda api, show: api.jit(lambda x: show(x))(
        np.ones((2, 3), np.float32)),
    'jvp': lambda api, show: api.jvp(lambda x: show(x), (np.ones(2),), (np.ones(2),)),
    'grad': lambda api, show: api.grad(lambda x: show(x))(np.float32(1.)),
    'vmap, batch axis 1': lambda api, show: api.vmap(lambda x: show(x), 1)(np.ones((3, 2))),
    'jit of grad': lambda api, show: api.jit(api.grad(lambda x: show(x)))(1.),
    'hessian: grad of jvp of vmap': lambda api, show: api.hessian(lambda x: show(x) ** 3)(1.),
}


@pytest.mark.parametrize('name', list(TRACER_REPR_PROGRAMS))
def test_tracer_repr_as_jax(name):
    shown = {}
    for api in (jax, minijax):
        seen = shown[api.__name__] = []
        TRACER_REPR_PROGRAMS[name](api, lambda x: seen.append(repr(x)) or x)
    assert shown['minijax'] == shown['jax']
