"""Bad input gives clear errors; weak typing follows JAX and NumPy 2."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax
from minijax import core, lax
from minijax.core import Primitive, ShapedArray
from minijax.ir import Lit


# ----------------------------------------------------------------------------- bad arguments

ENTRY_POINTS = {
    'jit': lambda f, *args: minijax.jit(f)(*args),
    'jit.lower': lambda f, *args: minijax.jit(f).lower(*args),
    'make_jaxpr': lambda f, *args: minijax.make_jaxpr(f)(*args),
}


@pytest.mark.parametrize('entry', ENTRY_POINTS)
@pytest.mark.parametrize('args,position,type_name', [
    ((1.0, 'hello'), '1', 'str'),
    ((object(),), '0', 'object'),
    ((np.ones(2), np.ones(2, np.clongdouble)), '1', 'complex256'),
    ((1.0, {'a': 1.0, 'b': 'x'}), '1', 'str'),
])
def test_bad_argument_type_names_the_argument(entry, args, position, type_name):
    with pytest.raises(TypeError) as err:
        ENTRY_POINTS[entry](lambda *xs: xs[0], *args)
    message = str(err.value)
    assert f'argument {position}' in message and type_name in message


# ----------------------------------------------------------------------------- binary primitives

def _tangent_like(x):
    """A tangent for ``x``: ``x`` itself, or float0 zeros for an integer."""
    if np.issubdtype(np.result_type(x), np.integer):
        return np.zeros(np.shape(x), minijax.dtypes.float0)
    return x


@pytest.mark.parametrize('x,y', [
    (np.ones(3, np.float32), np.ones(4, np.float32)),
    (np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)),
    (np.ones(3, np.float32), np.ones(3, np.float64)),
    (np.ones(3, np.int32), np.ones(3, np.float32)),
    (np.ones(3, np.float32), np.float64(1.0)),   # a NumPy scalar is strongly typed
])
@pytest.mark.parametrize('op', [lax.add, lax.sub, lax.mul, lax.div, lax.greater, lax.less])
@pytest.mark.parametrize('where', ['make_jaxpr', 'jit', 'eval', 'jvp', 'vmap'])
def test_mismatched_binary_operands(x, y, op, where):
    run = {
        'make_jaxpr': lambda: minijax.make_jaxpr(op)(x, y),
        'jit': lambda: minijax.jit(op)(x, y),
        'eval': lambda: op(x, y),
        'jvp': lambda: minijax.jvp(op, (x, y), tuple(map(_tangent_like, (x, y)))),
        'vmap': lambda: minijax.vmap(lambda z: op(x, y), (0,))(np.ones(2)),
    }
    counts_before = dict(minijax.runtime.counters)
    with pytest.raises(TypeError) as err:
        run[where]()
    named = ([str(np.shape(v)) for v in (x, y)]  # JAX's texts: the shapes, or the dtypes
             if np.result_type(x) == np.result_type(y) else [np.result_type(v).name
                                                             for v in (x, y)])
    assert named[0] in str(err.value) and named[1] in str(err.value), str(err.value)
    if where == 'jit':  # caught while tracing: nothing was lowered or compiled
        assert minijax.runtime.counters['lower'] == counts_before.get('lower', 0)
        for made in ('compile', 'compilation_cache_hit'):
            assert minijax.runtime.counters[made] == counts_before.get(made, 0)


# ----------------------------------------------------------------------------- lowering

def test_primitive_without_lowering_rule():
    p = Primitive('frobnicate')
    p.def_impl(lambda x: x)
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    np.testing.assert_array_equal(p.bind(np.ones(2)), np.ones(2))  # eval is fine
    with pytest.raises(NotImplementedError, match='frobnicate'):
        minijax.jit(lambda x: p.bind(x))(np.ones(2))
    with pytest.raises(NotImplementedError, match='frobnicate'):
        minijax.jit(lambda x: p.bind(x)).lower(np.ones(2))


# ----------------------------------------------------------------------------- escaped tracers

@pytest.mark.parametrize('transform', [
    lambda f: minijax.jvp(f, (1.0,), (1.0,)),
    lambda f: minijax.vmap(f)(np.ones(3)),
    lambda f: minijax.make_jaxpr(f)(1.0),
    lambda f: minijax.jit(f)(1.0),
])
@pytest.mark.parametrize('later', [
    lambda t: t * 2.,
    lambda t: lax.sin(t),
    lambda t: lax.mul(np.float64(2.0), t),
    lambda t: minijax.jit(lambda y: lax.add(y, t))(1.0),
    lambda t: minijax.jvp(lambda y: lax.add(y, t), (1.0,), (1.0,)),
    lambda t: minijax.make_jaxpr(lambda y: lax.mul(t, y))(1.0),
])
def test_escaped_tracer_used_later(transform, later):
    leaked = []
    transform(lambda x: leaked.append(x) or x)
    with pytest.raises(Exception, match='escaped') as err:
        later(leaked[0])
    assert isinstance(err.value, core.UnexpectedTracerError)


# ----------------------------------------------------------------------------- weak typing

WEAK_FLOAT_OPS = [lambda x: x * 2., lambda x: 2. * x, lambda x: x / 2., lambda x: x - 1.,
                  lambda x: 1. + x, lambda x: x > 0.5]
WEAK_INT_OPS = [lambda x: x + 1, lambda x: 3 * x, lambda x: x - 2, lambda x: x < 1]
WEAK_CASES = (
    [(f, x) for f in WEAK_FLOAT_OPS + WEAK_INT_OPS
     for x in (np.ones(3, np.float32), np.float32(1.5), np.ones(2, np.float64))]
    + [(f, np.ones(3, np.int32)) for f in WEAK_INT_OPS])


@pytest.mark.parametrize('fn,x', WEAK_CASES)
def test_weak_python_scalars_take_the_array_dtype(fn, x):
    """``x * 2.`` keeps float32 x float32 (as in JAX and NumPy 2): the scalar is a literal of
    x's dtype, no conversion is staged, and the result dtype is JAX's."""
    ref = jax.eval_shape(fn, jnp.asarray(x))
    for out in (fn(x), minijax.jit(fn)(x)):
        assert np.asarray(out).dtype == ref.dtype and np.shape(out) == ref.shape
    jaxpr = minijax.make_jaxpr(fn)(x)
    assert jaxpr.out_avals[0].dtype == ref.dtype
    assert 'convert_element_type' not in [e.primitive.name for e in jaxpr.eqns]
    lit, = [a for e in jaxpr.eqns for a in e.inputs if isinstance(a, Lit)]
    assert lit.aval.dtype == x.dtype


@pytest.mark.parametrize('arg,dtype', [(2.0, np.float64), (2, np.int64), (True, np.bool_)])
def test_python_scalar_arguments_follow_numpy(arg, dtype):
    """A Python float argument is float64, an int int64 (NumPy's defaults)."""
    jaxpr = minijax.make_jaxpr(lambda x: x)(arg)
    assert jaxpr.jaxpr.invars[0].aval.dtype == dtype
    assert minijax.jit(lambda x: x)(arg).dtype == dtype
    assert np.asarray(minijax.vmap(lambda x, y: y, (0, None))(np.ones(2), arg)).dtype == dtype


def test_weak_scalar_keeps_float32_through_jvp_and_vmap():
    x = np.ones(3, np.float32)
    y, t = minijax.jvp(lambda x: lax.sin(x) * 2. + 1., (x,), (x,))
    assert np.asarray(y).dtype == np.float32 and np.asarray(t).dtype == np.float32
    assert np.asarray(minijax.vmap(lambda s: s * 2.)(x)).dtype == np.float32
    assert minijax.jit(lambda x: x * 2.)(x).dtype == jnp.float32
