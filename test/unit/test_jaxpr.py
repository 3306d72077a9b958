"""The jaxpr IR: printer (the seed's format), typechecker, constvars, closures, make_jaxpr."""
import jax
import numpy as np
import pytest
from testlib import assert_close

import minijax
from minijax import lax
from minijax.ir import (ClosedJaxpr, Jaxpr, JaxprEqn, Lit, Var, eval_closed_jaxpr, eval_jaxpr,
                        typecheck_jaxpr)
from minijax.core import ShapedArray

F64S = ShapedArray((), np.float64)
F32_3 = ShapedArray((3,), np.float32)


# ----------------------------------------------------------------------------- printer

PRINTED = [
    # The seed's printouts (Part 2).
    (lambda x: 2. * x, (3.,),
     '{ lambda a:float64[] .\n'
     '  let b:float64[] = mul 2.0 a\n'
     '  in ( b ) }'),
    (lambda: lax.mul(2., 2.), (),
     '{ lambda  .\n'
     '  let a:float64[] = mul 2.0 2.0\n'
     '  in ( a ) }'),
    # Several equations, several outputs, float32 arrays.
    (lambda x, y: (lax.sin(x), lax.mul(x, y)), (np.ones(3, np.float32), np.ones(3, np.float32)),
     '{ lambda a:float32[3] b:float32[3] .\n'
     '  let c:float32[3] = sin a\n'
     '      d:float32[3] = mul a b\n'
     '  in ( c, d ) }'),
    # No equations: the output is an input.
    (lambda x: x, (np.float32(1),),
     '{ lambda a:float32[] .\n'
     '  let \n'
     '  in ( a ) }'),
    # A parameter.
    (lambda x: lax.reduce_sum(x, 0), (np.ones((2, 3)),),
     '{ lambda a:float64[2,3] .\n'
     '  let b:float64[3] = reduce_sum [ axes=(0,) ] a\n'
     '  in ( b ) }'),
    # Several parameters are stacked as in the seed's pp_params (one per line).
    (lambda x: lax.transpose(lax.broadcast(x, (2, 3), (0,)), (1, 0)), (np.ones(3),),
     '{ lambda a:float64[3] .\n'
     '  let b:float64[2,3] = broadcast_in_dim [ broadcast_dimensions=(1,)\n'
     '                                          shape=(2, 3) ] a\n'
     '      c:float64[3,2] = transpose [ perm=(1, 0) ] b\n'
     '  in ( c ) }'),
    # A constant array is hoisted to a constvar, printed before ';'.
    (lambda x: lax.add(x, np.arange(3.)), (np.ones(3),),
     '{ lambda a:float64[3] ; b:float64[3] .\n'
     '  let c:float64[3] = add b a\n'
     '  in ( c ) }'),
]


@pytest.mark.parametrize('f,args,text', PRINTED)
def test_printer(f, args, text):
    assert str(minijax.make_jaxpr(f)(*args)) == text


def test_typecheck_of_seed_example():
    jaxpr = minijax.make_jaxpr(lambda x: 2. * x)(3.)
    assert str(typecheck_jaxpr(jaxpr.jaxpr)) == '(float64[]) -> (float64[])'


def test_names_are_deterministic_and_skip_nothing():
    def f(x):
        for _ in range(30):
            x = lax.sin(x)
        return x
    text = str(minijax.make_jaxpr(f)(1.))
    assert text == str(minijax.make_jaxpr(f)(1.))
    names = [line.split(':')[0].strip().removeprefix('let ') for line in text.splitlines()[1:-1]]
    assert names[:3] == ['b', 'c', 'd'] and names[-1] == 'af'  # a..z, then ab, ac, ... (the seed's permutations)


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
    with pytest.raises(TypeError):
        typecheck_jaxpr(jaxpr)


def test_made_jaxprs_typecheck():
    def f(x, y):
        z = lax.mul(lax.sin(x), y)
        return lax.reduce_sum(lax.transpose(lax.broadcast(z, (4, 3), (0,)), (1, 0)), 1), z > 0.
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
    assert str(closed).startswith('{ lambda a:float64[2] b:float64[2] .')


def test_make_jaxpr_shape_dtype_struct_matches_jax():
    def f(x, y):
        return lax.reduce_sum(lax.mul(x, y), 0)
    s = minijax.ShapeDtypeStruct((4, 3), np.float32)
    closed = minijax.make_jaxpr(f)(s, s)
    ref = jax.make_jaxpr(lambda x, y: (x * y).sum(0))(
        jax.ShapeDtypeStruct((4, 3), np.float32), jax.ShapeDtypeStruct((4, 3), np.float32))
    assert [tuple(a.shape) for a in closed.out_avals] == [tuple(ref.out_avals[0].shape)]
    assert [a.dtype for a in closed.out_avals] == [ref.out_avals[0].dtype]
