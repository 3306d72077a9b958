"""minijax.numpy and minijax.nn against jax.numpy: values (eager and under jit), derivatives,
broadcasting, type promotion with weak Python scalars, indexing, ``.at`` updates and errors.

Each row is a function of a module ``m`` (``minijax.numpy`` or ``jax.numpy``), so one
lambda states the call for both.
"""
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import F32, F64, I32, I64, BOOL, assert_close, jax_answer, jax_vjp

import minijax
import minijax.nn as mnn
import minijax.numpy as mnp


class Case(NamedTuple):
    id: str
    fn: Callable                 # fn(m, *args) with m the numpy module
    shapes: tuple
    dtype: np.dtype = F32
    differentiable: bool = True
    pos: bool = False


def _args(rng, case):
    def one(shape):
        if case.dtype == BOOL:
            return rng.random(shape) > .5
        if np.issubdtype(case.dtype, np.integer):
            return rng.integers(-5, 6, shape).astype(case.dtype)
        x = rng.uniform(-2, 2, shape)
        return (np.abs(x) + .5 if case.pos else x).astype(case.dtype)
    return [one(s) for s in case.shapes]


def _nn(m):
    return mnn if m is mnp else jax.nn


CASES = [
    # broadcasting elementwise arithmetic
    Case('add-broadcast', lambda m, x, y: m.add(x, y), ((3, 1), (4,))),
    Case('sub-rank', lambda m, x, y: x - y, ((2, 3, 4), (3, 1))),
    Case('mul-scalar', lambda m, x: x * 2, ((3,),)),
    Case('rmul-float', lambda m, x: 2.5 * x, ((3,),)),
    Case('div-broadcast', lambda m, x, y: x / y, ((3, 4), (4,)), pos=True),
    Case('pow-int', lambda m, x: x ** 3, ((3, 4),)),
    Case('pow-float', lambda m, x, y: x ** y, ((3, 4), (4,)), pos=True),
    Case('rpow', lambda m, x: 2. ** x, ((3,),)),
    Case('maximum', lambda m, x, y: m.maximum(x, y), ((3, 4), (3, 1))),
    Case('minimum', lambda m, x: m.minimum(x, 0.), ((3, 4),)),
    Case('neg-abs', lambda m, x: abs(-x), ((3,),)),
    Case('math', lambda m, x: m.exp(x) + m.log(x) + m.tanh(x) + m.sqrt(x) + m.sin(x)
         + m.cos(x), ((3, 4),), pos=True),
    Case('sign', lambda m, x: m.sign(x) * x, ((5,),)),
    Case('compare', lambda m, x, y: m.where(x >= y, x, y) + m.where(x == y, y, 0.)
         + m.where(x != y, 2., x) + m.where(x <= 0.5, x, 0.), ((3, 4), (4,))),
    Case('where-broadcast', lambda m, c, x: m.where(c > 0, x, -1.), ((3, 1), (4,))),
    # reductions
    *[Case(f'{name}-{axis}-{keepdims}',
           lambda m, x, name=name, axis=axis, k=keepdims: getattr(m, name)(x, axis=axis,
                                                                           keepdims=k),
           ((2, 3, 4),)) for name in ('sum', 'max', 'min', 'mean')
      for axis, keepdims in [(None, False), (1, True), ((0, 2), False), (-1, False)]],
    Case('method-sum', lambda m, x: x.sum(0) + x.mean() + x.max(1).sum() + x.min(), ((3, 4),)),
    Case('argmax', lambda m, x: m.argmax(x, axis=1), ((3, 4),), differentiable=False),
    Case('argmax-flat', lambda m, x: m.argmax(x), ((3, 4),), differentiable=False),
    Case('argmax-keepdims', lambda m, x: m.argmax(x, 0, keepdims=True), ((3, 4),),
         differentiable=False),
    Case('sum-int', lambda m, x: m.sum(x, 0), ((3, 4),), I32, differentiable=False),
    Case('sum-bool', lambda m, x: m.sum(x), ((3, 4),), BOOL, differentiable=False),
    Case('mean-int', lambda m, x: m.mean(x, 1), ((3, 4),), I32, differentiable=False),
    # linear algebra
    Case('matmul', lambda m, x, y: x @ y, ((3, 4), (4, 5))),
    Case('matmul-vec', lambda m, x, y: m.matmul(x, y), ((3, 4), (4,))),
    Case('vec-matmul', lambda m, x, y: x @ y, ((4,), (4, 5))),
    Case('matmul-batched', lambda m, x, y: m.matmul(x, y), ((2, 1, 3, 4), (5, 4, 2))),
    Case('dot', lambda m, x, y: m.dot(x, y), ((2, 3, 4), (4, 5))),
    Case('dot-vec', lambda m, x, y: m.dot(x, y), ((4,), (4,))),
    Case('dot-matvec', lambda m, x, y: m.dot(x, y), ((3, 4), (4,))),
    Case('dot-scalar', lambda m, x, y: m.dot(x, y), ((), (4,))),
    Case('matmul-int', lambda m, x, y: x @ y, ((3, 4), (4, 2)), I64, differentiable=False),
    # shapes
    Case('reshape', lambda m, x: m.reshape(x, (4, -1)), ((2, 3, 4),)),
    Case('reshape-method', lambda m, x: x.reshape(6, 4) + x.reshape((6, 4)), ((2, 3, 4),)),
    Case('transpose', lambda m, x: m.transpose(x) + 0 * x.T, ((2, 3, 4),)),
    Case('transpose-axes', lambda m, x: m.transpose(x, (1, 2, 0)), ((2, 3, 4),)),
    Case('swapaxes', lambda m, x: m.swapaxes(x, 0, -1), ((2, 3, 4),)),
    Case('expand_dims', lambda m, x: m.expand_dims(x, (0, -1)), ((2, 3),)),
    Case('squeeze', lambda m, x: m.squeeze(x) + m.squeeze(x, 1).sum(), ((3, 1, 1),)),
    Case('broadcast_to', lambda m, x: m.broadcast_to(x, (2, 3, 4)), ((3, 1),)),
    Case('concatenate', lambda m, x, y: m.concatenate([x, y], axis=-1), ((2, 3), (2, 1))),
    Case('stack', lambda m, x, y: m.stack([x, y], axis=1), ((2, 3), (2, 3))),
    Case('astype', lambda m, x: x.astype(m.float64) * 2, ((3,),)),
    # creation, mixed with traced values
    Case('creation', lambda m, x: x + m.zeros((3,), m.float32) + m.ones(3, m.float32)
         + m.full((3,), 2.5, m.float32) + m.zeros_like(x) + m.ones_like(x), ((3,),)),
    Case('arange', lambda m, x: x * m.arange(4) + m.arange(1, 9, 2, dtype=m.float32)
         + m.arange(0., 2., .5, dtype=m.float32), ((4,),)),
    Case('linspace', lambda m, x: x * m.linspace(0., 1., 4, dtype=m.float32), ((4,),)),
    Case('full-like-traced', lambda m, x: m.full((2, 3), x[0]), ((3,),)),
    Case('full-of-a-row', lambda m, x: x + m.full((2, 3), np.arange(3), m.float32), ((3,),)),
    # indexing and functional updates
    Case('getitem-int', lambda m, x: x[1] + x[-1], ((3, 4),)),
    Case('getitem-slices', lambda m, x: x[:, 1:3], ((3, 4),)),
    Case('getitem-ellipsis-none', lambda m, x: x[..., None], ((3, 4),)),
    Case('getitem-strided', lambda m, x: x[1:, ::2], ((3, 5),)),
    Case('getitem-mixed', lambda m, x: x[0, None, 1:, -1], ((2, 3, 4),)),
    Case('at-set', lambda m, x: x.at[1].set(0.), ((3, 4),)),
    Case('at-set-slice', lambda m, x, v: x.at[:, 1:3].set(v), ((3, 4), (3, 2))),
    Case('at-add-strided', lambda m, x, v: x.at[::2, 1].add(v), ((5, 3), (3,))),
    Case('at-add-broadcast', lambda m, x: x.at[1:].add(1), ((3, 4),)),
    # nn
    Case('logsumexp', lambda m, x: (mnn.logsumexp(x) if m is mnp
                                    else jax.scipy.special.logsumexp(x)), ((3, 4),)),
    Case('logsumexp-axis', lambda m, x: (mnn.logsumexp(x, 1, keepdims=True) if m is mnp
                                         else jax.scipy.special.logsumexp(x, 1, keepdims=True)),
         ((3, 4),)),
    Case('softmax', lambda m, x: _nn(m).softmax(x), ((3, 4),)),
    Case('softmax-axis0', lambda m, x: _nn(m).softmax(x, axis=0), ((3, 4),)),
]


def _ids(cases):
    return [pytest.param(c, id=c.id) for c in cases]


@pytest.mark.parametrize('case', _ids(CASES))
def test_eval_and_jit(case, rng):
    """Eagerly and under jit, against one JAX answer."""
    args = _args(rng, case)
    expected = jax.jit(lambda *a: case.fn(jnp, *a))(*args)
    assert_close(case.fn(mnp, *(mnp.asarray(a) for a in args)), expected)
    assert_close(minijax.jit(lambda *a: case.fn(mnp, *a))(*args), expected)


@pytest.mark.parametrize('case', _ids([c for c in CASES if c.differentiable]))
def test_jvp(case, rng):
    args = _args(rng, case)
    tangents = [rng.uniform(-1, 1, np.shape(a)).astype(case.dtype) for a in args]
    out, tan = minijax.jvp(lambda *a: case.fn(mnp, *a), args, tangents)
    expected_out, expected_tan = jax.jit(lambda xs, ts: jax.jvp(
        lambda *a: case.fn(jnp, *a), xs, ts))(tuple(args), tuple(tangents))
    assert_close(out, expected_out)
    assert_close(tan, expected_tan)


@pytest.mark.parametrize('case', _ids([c for c in CASES if c.differentiable]))
def test_vjp(case, rng):
    args = [a.astype(F64) for a in _args(rng, case)]
    out, f_vjp = minijax.vjp(lambda *a: case.fn(mnp, *a), *args)
    _, ct, expected_cts = jax_vjp(lambda *a: case.fn(jnp, *a), args, rng)
    for got, expected in zip(f_vjp(ct), expected_cts, strict=True):
        assert_close(got, expected)


def test_vmap_of_indexing_and_updates(rng):
    x = rng.uniform(size=(4, 3, 5))

    def f(m, x):
        return x.at[1:, ::2].set(x[0, :2]) + x[:, -1:] @ m.ones((1, 3))

    assert_close(minijax.vmap(lambda x: f(mnp, x), 2)(x),
                 jax_answer(jax.vmap(lambda x: f(jnp, x), 2), x))


# ----------------------------------------------------------------------------- promotion

_WEAK = {'py-int': 2, 'py-float': 2.5, 'py-bool': True}


@pytest.mark.parametrize('a', [F32, F64, I32, I64, BOOL, 'py-int', 'py-float'])
@pytest.mark.parametrize('b', [F32, F64, I32, I64, BOOL, 'py-int', 'py-float', 'py-bool'])
def test_type_promotion_matches_jax(a, b):
    def value(kind):
        return _WEAK[kind] if isinstance(kind, str) else np.ones(3, kind)
    expected = np.asarray(jnp.add(value(a), value(b)))
    results = [mnp.add(value(a), value(b))]
    if np.ndim(expected):
        results.append(minijax.jit(mnp.add)(value(a), value(b)))
    for got in results:
        assert np.asarray(got).dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(got), expected)


#: Ways a Python int meets an array of a narrower integer dtype, each of (numpy, lax, x).
_INT_MEETS_NARROWER = {
    'add': lambda np_, lax, x: np_.add(x, -2), 'radd': lambda np_, lax, x: -2 + x,
    'subtract': lambda np_, lax, x: np_.subtract(300, x),
    'maximum': lambda np_, lax, x: np_.maximum(x, -2),
    'multiply': lambda np_, lax, x: x * 2 ** 40, 'equal': lambda np_, lax, x: x == 254,
    'greater': lambda np_, lax, x: np_.greater(x, 300), 'bitwise_and': lambda np_, lax, x: x & -1,
    'full': lambda np_, lax, x: np_.full(3, -2, x.dtype),
    'full_like': lambda np_, lax, x: np_.full_like(x, 300),
    'lax.full': lambda np_, lax, x: lax.full((2,), -2, x.dtype),
    'at.set': lambda np_, lax, x: x.at[0].set(-2),
    'at.add': lambda np_, lax, x: x.at[1].add(300),
}


@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'uint32', 'uint64', 'int16'])
@pytest.mark.parametrize('name', _INT_MEETS_NARROWER)
def test_a_python_int_meeting_a_narrower_integer_dtype_wraps_around_as_in_jax(name, dtype):
    """A Python int (within int64's range) converted to an array's integer dtype by
    promotion, a fill or an update wraps around from int64, as JAX's conversion does (NumPy
    refuses ``np.asarray(-2, np.uint8)``, and so did minijax), eagerly and traced."""
    x = np.arange(3, dtype=dtype)
    case = _INT_MEETS_NARROWER[name]
    expected = np.asarray(case(jnp, jax.lax, jnp.asarray(x)))
    for run in (lambda: case(mnp, minijax.lax, mnp.asarray(x)),
                lambda: minijax.jit(lambda v: case(mnp, minijax.lax, v))(x)):
        got = np.asarray(run())
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize('dtype', [BOOL, I32, I64, F32])
def test_true_divide_and_mean_give_floats_like_jax(dtype):
    x = np.ones((2, 3), dtype)
    assert_close(mnp.true_divide(x, x), jnp.true_divide(x, x))
    assert_close(mnp.mean(x), jnp.mean(x))
    assert_close(mnp.exp(x), jnp.exp(x))


def _same_answer_or_error(call_minijax, call_jax):
    """Both calls give one value and dtype, or raise one exception type."""
    try:
        expected = call_jax()
    except Exception as error:  # noqa: BLE001 (the oracle's type is the expectation)
        with pytest.raises(type(error)):
            call_minijax()
        return
    got = call_minijax()
    assert_close(got, expected)
    assert getattr(got, 'weak_type', False) == getattr(expected, 'weak_type', False)


@pytest.mark.parametrize('name', ['sum', 'prod', 'nansum', 'nanprod', 'trace', 'cumsum',
                                  'cumprod', 'nancumsum', 'nancumprod', 'cumulative_sum',
                                  'cumulative_prod', 'mean', 'nanmean'])
@pytest.mark.parametrize('dtype', ['bool', 'int8', 'uint16', 'uint32', 'float16'])
@pytest.mark.parametrize('out_dtype', [None, 'int8', 'float32', 'bool'])
def test_accumulating_reductions_take_jax_dtypes(name, dtype, out_dtype, rng):
    """Narrow integers (and booleans) accumulate as JAX's do: ``sum`` of int8 100s is the
    int64 300, not the int8 44; ``cumsum`` keeps them, ``cumulative_sum`` widens them."""
    x = rng.integers(0, 120, (3, 3)).astype(dtype)
    kwargs = {'axis': 0} if name.startswith('cumulative') else {}
    if out_dtype is not None:
        kwargs['dtype'] = out_dtype
    _same_answer_or_error(lambda: getattr(mnp, name)(x, **kwargs),
                          lambda: getattr(jnp, name)(x, **kwargs))


@pytest.mark.parametrize('name', ['var', 'std', 'nanvar', 'nanstd'])
@pytest.mark.parametrize('dtype', [np.complex64, np.complex128, I32, F32])
@pytest.mark.parametrize('out_dtype', [None, 'complex128', 'float32', 'int8'])
def test_variances_are_real_means_of_squared_moduli(name, dtype, out_dtype, rng):
    """The variance of complex values is the real ``mean(|x - mean(x)|**2)`` (a real
    ``dtype`` for them is refused, as in JAX); an integer ``dtype`` is JAX's too."""
    x = rng.normal(size=(3, 4)) * 5
    x = (x + 1j * rng.normal(size=(3, 4)) if np.dtype(dtype).kind == 'c' else x).astype(dtype)
    kwargs = {} if out_dtype is None else {'dtype': out_dtype}
    _same_answer_or_error(lambda: getattr(mnp, name)(x, axis=1, **kwargs),
                          lambda: getattr(jnp, name)(x, axis=1, **kwargs))


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize('thunk,error,message', [
    (lambda: mnp.add(np.ones((3, 2)), np.ones(4)), ValueError, r'\[\(3, 2\), \(4,\)\]'),
    (lambda: minijax.jit(lambda x, y: x * y)(np.ones((2, 3)), np.ones((3, 2))), TypeError,
     r'mul got incompatible shapes for broadcasting: \(2, 3\), \(3, 2\)'),
    (lambda: mnp.matmul(np.ones((2, 3)), np.ones((2, 3))), TypeError, r'\(3,\) and \(2,\)'),
    (lambda: mnp.dot(np.ones(3), np.ones(4)), TypeError, r'\(3,\) and \(4,\)'),
    (lambda: mnp.broadcast_to(np.ones(3), (2, 4)), ValueError, r'\(3,\).*\(2, 4\)'),
    (lambda: mnp.reshape(np.ones((2, 3)), (4, -1)), ValueError, r'\(2, 3\).*\(4, -1\)'),
    (lambda: mnp.concatenate([np.ones((2, 3)), np.ones((3, 2))]), TypeError,
     r'\(2, 3\) and \(3, 2\)'),
    (lambda: mnp.asarray(np.ones(3, np.clongdouble)), TypeError, 'complex256'),
    (lambda: mnp.zeros(3, np.clongdouble), TypeError, 'complex256'),
    (lambda: mnp.bitwise_and(np.ones(3, np.float32), 1), TypeError, r'and.*float32\[3\]'),
    (lambda: minijax.jit(lambda x: x[0, 0])(np.ones(3)), IndexError, 'too many'),
    (lambda: minijax.jit(lambda x, i: x[i])(np.ones(3), 1.), TypeError, 'integers'),
])
def test_errors_name_shapes_and_dtypes(thunk, error, message):
    with pytest.raises(error, match=message):
        thunk()


def test_tracer_iteration_uses_static_indexing():
    out = minijax.jit(lambda x: [row.sum() for row in x])(np.arange(6.).reshape(3, 2))
    np.testing.assert_array_equal(np.asarray(out), [1., 5., 9.])


def test_jit_of_at_set_lowers_to_pad_and_select():
    text = minijax.jit(lambda x: x.at[1].set(0.)).lower(np.ones((3, 2))).as_text()
    assert 'stablehlo.pad' in text and 'stablehlo.select' in text
