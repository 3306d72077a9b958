"""The jaxpr IR: printers (JAX's syntax, checked against JAX's text; the Autodidax seed's),
typechecker, constvars, closures, make_jaxpr."""
import jax
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as mjnp
from minijax import lax
from minijax.ir import (ClosedJaxpr, Jaxpr, JaxprEqn, Lit, Var, eval_closed_jaxpr, eval_jaxpr,
                        pp_jaxpr, typecheck_jaxpr)
from minijax.core import ShapedArray

F64S = ShapedArray((), np.float64)
F32_3 = ShapedArray((3,), np.float32)


# ----------------------------------------------------------------------------- JAX's syntax

def _programs(api, jnp, lax):
    """Typical programs of JAX's jaxpr docs and autodiff cookbook, written once for JAX and
    minijax (``api`` is ``jax`` or ``minijax``): each prints something the others do not."""
    x3, m23 = np.ones(3), np.ones((2, 3))

    def f(x):
        return jnp.sin(x) * x
    jit_f = api.jit(f)

    @api.custom_jvp
    def g(x):
        return jnp.sin(x)
    g.defjvps(lambda t, ans, x: jnp.cos(x) * t)

    @api.custom_jvp
    def h(x, y):
        return x * y
    h.defjvps(lambda t, ans, x, y: t * y, lambda t, ans, x, y: x * t)

    def long_name(x):
        return jnp.cos(x)
    long_name.__name__ = 'a_function_whose_name_is_long_enough_to_break_its_equation'
    return {
        'typed literals, several lines': (lambda x: jnp.sin(x) * 2. + x, x3),
        'one line when it fits': (lambda x: x ** 3, 2.),
        'no equations, no inputs': (lambda: lax.mul(2., 2.),),
        'weak type conversion': (lambda i: i * 2.5, 3),
        'astype': (lambda x: x.astype(jnp.float32), x3),
        'dot_general params broken': (lambda a, b: jnp.dot(a, b), m23, x3),
        'matmul': (lambda a, b: a @ b, m23, np.ones((3, 4))),
        'reduce_sum out_sharding': (lambda x: jnp.sum(x, 0), m23),
        'reduce_max': (lambda x: jnp.max(x), m23),
        'any, all: reduce_or, reduce_and': (lambda x: (jnp.any(x), jnp.all(x > 0, 1)), m23),
        'astype to its own dtype: no equation': (lambda p: p.astype(bool), np.ones(3, bool)),
        'broadcast_in_dim': (lambda x: jnp.broadcast_to(x, (2, 3)), x3),
        'argmax axes': (lambda x: jnp.argmax(x, 1), m23),
        'slice strides=None': (lambda x: x[:1].reshape(3), m23),
        'conv_general_dilated': (lambda a, b: lax.conv(a, b, (1, 1), 'VALID'),
                                 np.ones((1, 1, 4, 4)), np.ones((1, 1, 2, 2))),
        'select_n': (lambda p, x: lax.select_n(p, x, -x), np.ones(3, bool), x3),
        'constvar before ;': (lambda x: x + np.arange(3.), x3),
        'transpose, width 81': (lambda x: x.T, m23),
        'operands past column 80': (jnp.fmax, np.ones((2, 1, 3)), np.ones((4, 1))),
        'reshape to its own shape: no equation': (
            lambda x: (lax.reshape(x, (2, 3)), x.reshape(2, 3), lax.reshape(x, (3, 2))), m23),
        'parameters to column 80, an operand past it': (
            lambda x: lax.slice(x, (0, 1), (3, 4), (2, 1)), np.ones((3, 4), np.float32)),
        'operand-less, width 80': (lambda: lax.empty((2, 3), np.float32),),
        'reshape': (lambda x: x.reshape(3, 2), m23),
        'cond branches': (lambda x: lax.cond(x > 0, lambda y: y * 2., lambda y: y, x), 1.),
        'switch': (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda y: y], x), 1, 1.),
        'while': (lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x), 1.),
        'fori_loop, _ binder': (lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x), 1.),
        'jit named like its operands': (jit_f, x3),
        'jit nested': (lambda x: api.jit(jnp.sin)(x) + 1., x3),
        'jit, long name': (api.jit(long_name), x3),
        'shared jaxpr': (lambda x: jit_f(jit_f(x)), x3),
        'vmap of dot': (api.vmap(lambda x: jnp.dot(x, x)), m23),
        'custom_jvp': (g, 1.),
        'custom_jvp defjvps sum: add_any': (lambda x: api.jvp(h, (x, x), (x, x)), 1.),
        'grad sums cotangents: add_any': (api.grad(lambda x: jnp.sum(x * x)), x3),
        'jvp sums tangent terms: add_any, add': (
            lambda x: api.jvp(lambda y: y * y / (y + 1.), (x,), (x,)), 1.),
        'several outputs': (lambda x: (x, x * 2), 1.),
        'static_argnums': (lambda x, n: x * n, 1., 3),
        'binders never wrap': (lambda *xs: xs[0] * 2., *[x3] * 9),
        'array of a list of tracers': (lambda *xs: jnp.sum(jnp.array(xs)), *range(3)),
        'array of nested lists': (lambda x, y: jnp.array([[x, y], [y, 1.]]), 1., 2.),
    }


_JAX_PROGRAMS = _programs(jax, jax.numpy, jax.lax)
_MINIJAX_PROGRAMS = _programs(minijax, mjnp, lax)


@pytest.mark.parametrize('name', list(_JAX_PROGRAMS))
def test_printed_as_jax_prints(name):
    (f, *args), (g, *_) = _JAX_PROGRAMS[name], _MINIJAX_PROGRAMS[name]
    static = (1,) if name == 'static_argnums' else ()
    expected = str(jax.make_jaxpr(f, static_argnums=static)(*args))
    assert str(minijax.make_jaxpr(g, static_argnums=static)(*args)) == expected


def _with_branches(api, np_, lax_):
    """A jaxpr with a nested one printed on a line of its own, and long equations."""
    def f(x):
        y = lax_.cond(x.sum() > 0., lambda a: np_.cos(a), lambda a: a * 2., x)
        return api.lax.convert_element_type(y, np.float32) * 3.
    return f


def test_printed_with_source_info_as_jax_prints():
    """``pretty_print(source_info=True)``: each equation's first line ends with where it was
    traced (file, line, column, function), in one column, as JAX writes it."""
    x = np.ones(3)
    expected = jax.make_jaxpr(_with_branches(jax, jax.numpy, jax.lax))(x)
    ours = minijax.make_jaxpr(_with_branches(minijax, mjnp, lax))(x)
    assert ours.pretty_print(source_info=True) == expected.pretty_print(source_info=True)
    assert ours.pretty_print() == str(ours) == str(expected)


def _walked_as_jax_docs_walk(closed):
    """What a tutorial reads off a jaxpr, with JAX's attribute names only."""
    jaxpr = closed.jaxpr
    return (repr([v.aval for v in jaxpr.constvars]), repr([v.aval for v in jaxpr.invars]),
            repr([x.aval for x in jaxpr.outvars]), repr((closed.in_avals, closed.out_avals)),
            [(e.primitive.name, len(e.invars), str(e.outvars[0].aval), type(e.params))
             for e in jaxpr.eqns],
            [len(x) for x in (closed.consts, closed.constvars, closed.invars, closed.outvars,
                              closed.eqns)])


def test_jaxpr_attributes_named_as_jax():
    def f(x, y):
        return (x * np.arange(3.)).sum(0), y + 1.
    args = np.ones(3), 2.
    assert (_walked_as_jax_docs_walk(minijax.make_jaxpr(f)(*args))
            == _walked_as_jax_docs_walk(jax.make_jaxpr(f)(*args)))


def _lowered_programs(api, jnp):
    """Functions whose ``jit(f).lower(*args).as_text()`` is JAX's, character for character:
    module name and attributes, ``jax.result_info``, dot_general's precision."""
    def dot_plus_one(x, y):
        return jnp.dot(x, y) + 1.

    def pair(x):
        return x, x * 2
    return {'lambda': (lambda x: x * 2., 1.), 'dot_general': (dot_plus_one, np.ones((2, 3)),
                                                              np.ones(3)),
            'tuple result': (pair, 1.), 'reduction': (lambda x: jnp.sin(x).sum(), np.ones(3))}


@pytest.mark.parametrize('name', list(_lowered_programs(jax, jax.numpy)))
def test_lowered_text_as_jax(name):
    (f, *args), (g, *_) = (_lowered_programs(jax, jax.numpy)[name],
                           _lowered_programs(minijax, mjnp)[name])
    assert minijax.jit(g).lower(*args).as_text() == jax.jit(f).lower(*args).as_text()


def test_transformed_function_named_as_jax():
    """``grad(f)`` and ``vmap(f)`` keep ``f``'s name, so ``jit(grad(f))`` is ``@jit_f``."""
    def f(x):
        return x * x
    names = [t(f).__name__ for t in (minijax.grad, minijax.vmap, minijax.jacrev)]
    assert names == [t(f).__name__ for t in (jax.grad, jax.vmap, jax.jacrev)]


def test_names_after_z_as_jax():
    def f(x):
        for _ in range(30):
            x = x * 2.
        return x
    assert str(minijax.make_jaxpr(f)(1.)) == str(jax.make_jaxpr(f)(1.))  # ..., z, ba, bb


def test_shaped_array_arguments_as_jax_shape_dtype_struct():
    def f(x, y):
        return lax.reduce_sum(x * y, 0)
    text = str(minijax.make_jaxpr(f)(ShapedArray((4, 3), np.float32),
                                     minijax.ShapeDtypeStruct((4, 3), np.float32)))
    s = jax.ShapeDtypeStruct((4, 3), np.float32)
    assert text == str(jax.make_jaxpr(lambda x, y: jax.lax.reduce_sum(x * y, (0,)))(s, s))


@pytest.mark.parametrize('static,error', [('a', TypeError), (2, ValueError)])
def test_make_jaxpr_bad_static_argnums(static, error):
    with pytest.raises(error, match='static_argnums'):
        minijax.make_jaxpr(lambda x, n: x * n, static_argnums=static)(1., 3)


def test_make_jaxpr_extra_arguments_must_be_avals():
    with pytest.raises(TypeError, match=r'must be avals \(ShapedArray\)'):
        minijax.make_jaxpr(lambda x: x, F64S, 3.)


# ----------------------------------------------------------------------------- Autodidax syntax

AUTODIDAX = [
    # The seed's printout (Part 2).
    (lambda x: 2. * x, (F64S,),
     '{ lambda a:float64[] .\n'
     '  let b:float64[] = mul 2.0 a\n'
     '  in ( b ) }'),
    # Several equations, several outputs, float32 arrays.
    (lambda x, y: (lax.sin(x), lax.mul(x, y)), (F32_3, F32_3),
     '{ lambda a:float32[3] b:float32[3] .\n'
     '  let c:float32[3] = sin a\n'
     '      d:float32[3] = mul a b\n'
     '  in ( c, d ) }'),
    # No equations: the output is an input.
    (lambda x: x, (ShapedArray((), np.float32),),
     '{ lambda a:float32[] .\n'
     '  let \n'
     '  in ( a ) }'),
    # Several parameters are stacked as in the seed's pp_params (one per line).
    (lambda x: lax.transpose(lax.broadcast(x, (2,)), (1, 0)), (ShapedArray((3,), float),),
     '{ lambda a:float64[3] .\n'
     '  let b:float64[2,3] = broadcast_in_dim [ broadcast_dimensions=(1,)\n'
     '                                          shape=(2, 3) ] a\n'
     '      c:float64[3,2] = transpose [ perm=(1, 0) ] b\n'
     '  in ( c ) }'),
    # A constant array is hoisted to a constvar, printed before ';'.
    (lambda x: lax.add(x, np.arange(3.)), (ShapedArray((3,), float),),
     '{ lambda a:float64[3] ; b:float64[3] .\n'
     '  let c:float64[3] = add b a\n'
     '  in ( c ) }'),
]


@pytest.mark.parametrize('f,avals,text', AUTODIDAX)
def test_autodidax_call_prints_autodidax_syntax(f, avals, text):
    jaxpr, consts, out_tree = minijax.make_jaxpr(f, *avals)
    assert str(jaxpr) == text
    assert consts == [] or len(consts) == 1 and out_tree.num_leaves == len(jaxpr.outs)


def test_autodidax_names_are_the_seeds_permutations():
    def f(x):
        for _ in range(30):
            x = lax.sin(x)
        return x
    text = str(minijax.make_jaxpr(f, F64S)[0])
    names = [line.split(':')[0].strip().removeprefix('let ') for line in text.splitlines()[1:-1]]
    assert names[:3] == ['b', 'c', 'd'] and names[-1] == 'af'  # a..z, then ab, ac, ...


def test_syntax_is_chosen_explicitly():
    closed = minijax.make_jaxpr(lambda: lax.mul(2., 2.))()
    assert pp_jaxpr(closed, syntax='autodidax') == (  # the seed's omnistaging printout
        '{ lambda  .\n'
        '  let a:float64[] = mul 2.0 2.0\n'
        '  in ( a ) }')
    with pytest.raises(ValueError, match="syntax must be one of"):
        pp_jaxpr(closed, syntax='mlir')


def test_typecheck_of_seed_example():
    jaxpr, _, _ = minijax.make_jaxpr(lambda x: 2. * x, F64S)
    assert str(typecheck_jaxpr(jaxpr)) == '(float64[]) -> (float64[])'


# ----------------------------------------------------------------------------- typechecker

def _good_jaxpr():
    a, b, c = Var(F32_3), Var(F32_3), Var(F32_3)
    eqns = [JaxprEqn(lax.sin_p, [a], {}, [b]), JaxprEqn(lax.mul_p, [b, a], {}, [c])]
    return Jaxpr([], [a], eqns, [c, b])


def test_typecheck_accepts_good_jaxpr():
    t = typecheck_jaxpr(_good_jaxpr())
    assert t.in_types == [F32_3] and t.out_types == [F32_3, F32_3]
    assert str(t) == '(float32[3]) -> (float32[3], float32[3])'


def _bad_jaxprs():
    a, b, c = Var(F32_3), Var(F32_3), Var(F32_3)
    d64 = Var(ShapedArray((3,), np.float64))
    sin, mul = lax.sin_p, lax.mul_p
    yield 'unbound input', Jaxpr([], [a], [JaxprEqn(sin, [c], {}, [b])], [b])
    yield 'unbound output', Jaxpr([], [a], [], [c])
    yield 'bound twice', Jaxpr([], [a], [JaxprEqn(sin, [a], {}, [a])], [a])
    yield 'input twice', Jaxpr([], [a, a], [], [a])
    yield 'wrong binder type', Jaxpr([], [a], [JaxprEqn(sin, [a], {}, [d64])], [d64])
    yield 'binder shape', Jaxpr([], [a], [JaxprEqn(sin, [a], {}, [Var(F64S)])], [a])
    yield 'mixed dtypes', Jaxpr([], [a, d64], [JaxprEqn(mul, [a, d64], {}, [b])], [b])
    yield 'use before def', Jaxpr([], [a], [JaxprEqn(sin, [b], {}, [c]),
                                            JaxprEqn(sin, [a], {}, [b])], [c])
    yield 'bad literal', Jaxpr([], [a], [JaxprEqn(mul, [a, Lit(np.float64(2.))], {}, [b])], [b])
    yield 'bad params', Jaxpr([], [a], [JaxprEqn(lax.transpose_p, [a], {'perm': (1, 0)},
                                                 [b])], [b])


@pytest.mark.parametrize('name,jaxpr', list(_bad_jaxprs()), ids=[n for n, _ in _bad_jaxprs()])
def test_typecheck_rejects_bad_jaxpr(name, jaxpr):
    """JAX's class for an ill-typed jaxpr, a TypeError as JAX's is."""
    with pytest.raises(minijax.errors.JaxprTypeError):
        typecheck_jaxpr(jaxpr)
    assert issubclass(minijax.errors.JaxprTypeError, TypeError)
    assert minijax.errors.JaxRuntimeError is jax.errors.JaxRuntimeError  # jaxlib's own class


def test_made_jaxprs_typecheck():
    def f(x, y):
        z = lax.mul(lax.sin(x), y)
        return lax.reduce_sum(lax.transpose(lax.broadcast(z, (4,)), (1, 0)), 1), z > 0.
    closed = minijax.make_jaxpr(f)(np.ones(3, np.float32), np.float32(2))
    t = typecheck_jaxpr(closed.jaxpr)
    assert [a.str_short() for a in t.out_types] == ['float32[3]', 'bool[3]']


# ----------------------------------------------------------------------------- consts, closures

def test_constvars_hoisted_and_exposed():
    c = np.arange(6.).reshape(2, 3)
    closed = minijax.make_jaxpr(lambda x: lax.mul(x, c))(np.ones((2, 3)))
    assert len(closed.jaxpr.constvars) == 1 and len(closed.consts) == 1
    np.testing.assert_array_equal(np.asarray(closed.consts[0]), c)
    assert closed.jaxpr.constvars[0].aval == ShapedArray((2, 3), np.float64)
    assert isinstance(closed, ClosedJaxpr)


def test_same_constant_used_twice_is_one_constvar():
    c = np.arange(3.)
    closed = minijax.make_jaxpr(lambda x: lax.add(lax.mul(x, c), c))(np.ones(3))
    assert len(closed.consts) == 1


def test_scalar_constants_become_literals():
    closed = minijax.make_jaxpr(lambda x: lax.add(lax.mul(x, 3.0), np.float64(1.5)))(1.0)
    assert closed.consts == [] and closed.jaxpr.constvars == []
    lits = [x for e in closed.jaxpr.eqns for x in e.inputs if isinstance(x, Lit)]
    assert sorted(float(lit.val) for lit in lits) == [1.5, 3.0]


@pytest.mark.parametrize('const', [np.arange(3.), 2.5, np.float64(-1.0)])
def test_closures_evaluate_like_jax(const, rng):
    def f(x):
        return lax.sin(lax.mul(x, const))
    x = rng.normal(size=3)
    closed = minijax.make_jaxpr(f)(x)
    out, = eval_closed_jaxpr(closed, [x])
    assert_close(out, jax.numpy.sin(x * const))


def test_closure_over_device_array_is_a_constvar():
    c = minijax.jit(lambda: lax.mul(np.arange(3.), 2.))()
    closed = minijax.make_jaxpr(lambda x: lax.add(x, c))(np.ones(3))
    assert len(closed.consts) == 1
    np.testing.assert_array_equal(eval_closed_jaxpr(closed, [np.ones(3)])[0], [1., 3., 5.])


def test_eval_jaxpr_runs_the_program():
    out = eval_jaxpr(_good_jaxpr(), [], [np.array([1., 2., 3.], np.float32)])
    x = np.array([1., 2., 3.], np.float32)
    assert_close(out[0], jax.numpy.sin(x) * x)
    assert_close(out[1], jax.numpy.sin(x))


# ----------------------------------------------------------------------------- make_jaxpr args

@pytest.mark.parametrize('arg,aval', [
    (np.ones((2, 3), np.float32), 'float32[2,3]'),
    (np.ones(4, np.int32), 'int32[4]'),
    (np.array(True), 'bool[]'),
    (3.0, 'float64[]'),
    (3, 'int64[]'),
    (True, 'bool[]'),
    (np.float32(1.), 'float32[]'),
    (minijax.ShapeDtypeStruct((5, 2), np.float32), 'float32[5,2]'),
    (minijax.ShapeDtypeStruct((), 'int64'), 'int64[]'),
])
def test_make_jaxpr_argument_kinds(arg, aval):
    closed = minijax.make_jaxpr(lambda x: x)(arg)
    assert [v.aval.str_short() for v in closed.jaxpr.invars] == [aval]


def test_make_jaxpr_pytree_arguments_and_outputs():
    closed = minijax.make_jaxpr(lambda d: {'s': lax.add(d['a'], d['b'][0])})(
        {'b': (np.ones(2),), 'a': np.ones(2)})
    assert [v.aval.str_short() for v in closed.jaxpr.invars] == ['float64[2]', 'float64[2]']
    assert str(closed).startswith('{ lambda ; a:f64[2] b:f64[2]. let')


def test_make_jaxpr_shape_dtype_struct_matches_jax():
    def f(x, y):
        return lax.reduce_sum(lax.mul(x, y), 0)
    s = minijax.ShapeDtypeStruct((4, 3), np.float32)
    closed = minijax.make_jaxpr(f)(s, s)
    ref = jax.make_jaxpr(lambda x, y: (x * y).sum(0))(
        jax.ShapeDtypeStruct((4, 3), np.float32), jax.ShapeDtypeStruct((4, 3), np.float32))
    assert [tuple(a.shape) for a in closed.out_avals] == [tuple(ref.out_avals[0].shape)]
    assert [a.dtype for a in closed.out_avals] == [ref.out_avals[0].dtype]


def _shape_dtype_structs(ns):
    S = ns.ShapeDtypeStruct
    s = S((2, 3), np.float32)
    errors = []
    for thunk in (lambda: S((2,), None), lambda: setattr(s, 'shape', (3,)), lambda: len(S((), int))):
        try:
            thunk()
        except Exception as raised:
            errors.append((type(raised).__name__, str(raised)))
    weak = S((2,), np.float32, weak_type=True)
    return [repr(S.like(1.)), repr(S.like(np.ones(2, np.int32))), repr(S.like(ns.numpy.ones(3))),
            repr(S.like(s)), repr(weak), (s.size, s.ndim, len(s)), s == S((2, 3), np.float32),
            hash(s) == hash(S((2, 3), np.float32)), s == weak, errors,
            str(ns.make_jaxpr(lambda x: x * 2)(weak))]


def test_shape_dtype_struct_is_jaxs():
    assert _shape_dtype_structs(minijax) == _shape_dtype_structs(jax)
