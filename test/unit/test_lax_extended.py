"""The extended primitive set of minijax.lax against JAX: values (eager and under jit), jvp,
vmap (over several batch axes, some arguments unbatched) and vjp.

One row of ``CASES`` per way of calling a primitive. Arguments listed in ``static`` (indices,
selectors) are not differentiated and never batched unless the row says so.
"""
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import (F32, F64, FLOATS, I32, I64, assert_close, assert_tangent_close,
                      only_args)

import minijax
from minijax import lax as mlax
from minijax.core import Primitive

B = 3  # batch size for the vmap tests


class Case(NamedTuple):
    id: str
    primitive: str
    mj: Callable
    jx: Callable
    make: Callable                  # make(rng, dtype) -> list of arguments
    static: tuple = ()              # argument positions not differentiated
    vmap_static: tuple | None = None  # positions never batched (default: ``static``)
    dtypes: tuple = FLOATS

    def diff(self, args):
        return [i for i in range(len(args)) if i not in self.static]

    def unbatched(self):
        return self.static if self.vmap_static is None else self.vmap_static


def _normal(rng, shape, dtype, pos=False):
    x = rng.uniform(-2, 2, size=shape)
    return (np.abs(x) + .5 if pos else x).astype(dtype)


def _with_ties(rng, shape, dtype):
    """Values on a coarse grid, so maxima, minima and comparisons meet ties."""
    return np.round(rng.uniform(-2, 2, size=shape)).astype(dtype)


def arrays(*shapes, pos=False):
    return lambda rng, dtype: [_normal(rng, s, dtype, pos) for s in shapes]


def tied(*shapes):
    return lambda rng, dtype: [_with_ties(rng, s, dtype) for s in shapes]


def _shape_id(*shapes):
    return '-'.join('x'.join(map(str, s)) or 's' for s in shapes)


def binary(name, jx, make_fn=arrays):
    return [Case(f'{name}-{_shape_id(a, b)}', name, getattr(mlax, name), jx, make_fn(a, b))
            for a, b in [((3, 4), (3, 4)), ((), (3, 4)), ((3, 4), ())]]


def _select_args(which_shape, n, which_dtype):
    def make(rng, dtype):
        which = (rng.random(which_shape) > .5 if which_dtype == np.bool_
                 else rng.integers(0, n, which_shape).astype(np.int32))
        return [np.asarray(which), *(_normal(rng, (3, 4), dtype) for _ in range(n))]
    return make


def _pad_args(shape):
    return lambda rng, dtype: [_normal(rng, shape, dtype), _normal(rng, (), dtype)]


def _indexed(shape, indices, *more_shapes):
    return lambda rng, dtype: [_normal(rng, shape, dtype),
                               *(_normal(rng, s, dtype) for s in more_shapes),
                               *(np.int32(i) for i in indices)]


def _dot(lhs, rhs, dims):
    return Case(f'dot_general-{_shape_id(lhs, rhs)}-{dims}', 'dot_general',
                lambda x, y: mlax.dot_general(x, y, dims),
                lambda x, y: jax.lax.dot_general(x, y, dims), arrays(lhs, rhs))


def _iota_times(x):
    return x * mlax.convert_element_type(mlax.iota(np.int32, (3, 4), 1), x.dtype)


CASES = [
    *binary('max', jax.lax.max), *binary('min', jax.lax.min),
    Case('max-ties', 'max', mlax.max, jax.lax.max, tied((3, 4), (3, 4))),
    Case('min-ties', 'min', mlax.min, jax.lax.min, tied((3, 4), (3, 4))),
    *binary('pow', jax.lax.pow, lambda *s: arrays(*s, pos=True)),
    *[Case(f'integer_pow-{y}', 'integer_pow', lambda x, y=y: mlax.integer_pow(x, y),
           lambda x, y=y: jax.lax.integer_pow(x, y), arrays((3, 4), pos=True))
      for y in (0, 1, 2, 3, 5, -2)],
    *[Case(f'{name}-ties-{_shape_id(*s)}', name, getattr(mlax, name), jx, tied(*s))
      for name, jx in [('eq', jax.lax.eq), ('ne', jax.lax.ne), ('ge', jax.lax.ge),
                       ('le', jax.lax.le)]
      for s in [((3, 4), (3, 4)), ((), (3, 4))]],
    Case('select_n-bool', 'select_n', mlax.select_n, jax.lax.select_n,
         _select_args((3, 4), 2, np.bool_), static=(0,), vmap_static=()),
    Case('select_n-bool-scalar', 'select_n', mlax.select_n, jax.lax.select_n,
         _select_args((), 2, np.bool_), static=(0,), vmap_static=()),
    Case('select_n-int3', 'select_n', mlax.select_n, jax.lax.select_n,
         _select_args((3, 4), 3, np.int32), static=(0,), vmap_static=()),
    Case('broadcast_in_dim-new-axes', 'broadcast_in_dim',
         lambda x: mlax.broadcast_in_dim(x, (2, 3, 4), (1,)),
         lambda x: jax.lax.broadcast_in_dim(x, (2, 3, 4), (1,)), arrays((3,))),
    Case('broadcast_in_dim-grow', 'broadcast_in_dim',
         lambda x: mlax.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
         lambda x: jax.lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), arrays((1, 4))),
    Case('broadcast_in_dim-scalar', 'broadcast_in_dim',
         lambda x: mlax.broadcast_in_dim(x, (2, 3), ()),
         lambda x: jax.lax.broadcast_in_dim(x, (2, 3), ()), arrays(())),
    Case('reshape', 'reshape', lambda x: mlax.reshape(x, (4, 6)),
         lambda x: jax.lax.reshape(x, (4, 6)), arrays((2, 3, 4))),
    Case('reshape-squeeze', 'reshape', lambda x: mlax.squeeze(x, (1,)),
         lambda x: jax.lax.squeeze(x, (1,)), arrays((3, 1, 4))),
    Case('reshape-expand_dims', 'reshape', lambda x: mlax.expand_dims(x, (0, 2)),
         lambda x: jax.lax.expand_dims(x, (0, 2)), arrays((3, 4))),
    Case('concatenate-2', 'concatenate', lambda x, y: mlax.concatenate([x, y], 1),
         lambda x, y: jax.lax.concatenate([x, y], 1), arrays((3, 2), (3, 4))),
    Case('concatenate-3', 'concatenate', lambda x, y, z: mlax.concatenate([x, y, z], 0),
         lambda x, y, z: jax.lax.concatenate([x, y, z], 0), arrays((1, 4), (3, 4), (2, 4))),
    Case('pad', 'pad', lambda x, v: mlax.pad(x, v, [(1, 2, 0), (0, 1, 2)]),
         lambda x, v: jax.lax.pad(x, v, [(1, 2, 0), (0, 1, 2)]), _pad_args((3, 4))),
    Case('pad-negative', 'pad', lambda x, v: mlax.pad(x, v, [(-1, 2, 1), (2, -3, 0)]),
         lambda x, v: jax.lax.pad(x, v, [(-1, 2, 1), (2, -3, 0)]), _pad_args((3, 4))),
    Case('iota', 'iota', _iota_times,
         lambda x: x * jax.lax.broadcasted_iota(x.dtype, (3, 4), 1), arrays((3, 4))),
    Case('slice', 'slice', lambda x: mlax.slice(x, (1, 0), (4, 6)),
         lambda x: jax.lax.slice(x, (1, 0), (4, 6)), arrays((5, 6))),
    Case('slice-strided', 'slice', lambda x: mlax.slice(x, (1, 0), (5, 6), (2, 4)),
         lambda x: jax.lax.slice(x, (1, 0), (5, 6), (2, 4)), arrays((5, 6))),
    *[Case(f'dynamic_slice-{idx}', 'dynamic_slice',
           lambda x, i, j: mlax.dynamic_slice(x, (i, j), (2, 3)),
           lambda x, i, j: jax.lax.dynamic_slice(x, (i, j), (2, 3)),
           _indexed((5, 6), idx), static=(1, 2)) for idx in [(1, 2), (4, 5), (0, 9)]],
    *[Case(f'dynamic_update_slice-{idx}', 'dynamic_update_slice',
           lambda x, u, i, j: mlax.dynamic_update_slice(x, u, (i, j)),
           lambda x, u, i, j: jax.lax.dynamic_update_slice(x, u, (i, j)),
           _indexed((5, 6), idx, (2, 3)), static=(2, 3)) for idx in [(1, 2), (4, 5)]],
    *[Case(f'{name}-{axes}', name, lambda x, f=getattr(mlax, name), a=axes: f(x, a),
           lambda x, f=jx, a=axes: f(x, axis=a), tied((2, 3, 4)))
      for name, jx in [('reduce_max', jnp.max), ('reduce_min', jnp.min)]
      for axes in [1, (0, 2), None]],
    *[Case(f'{name}-{axis}', name, lambda x, f=getattr(mlax, name), a=axis: f(x, a, np.int32),
           lambda x, f=jx, a=axis: f(x, a, np.int32), tied((3, 4, 2)))
      for name, jx in [('argmax', jax.lax.argmax), ('argmin', jax.lax.argmin)]
      for axis in [0, 1]],
    _dot((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    _dot((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    _dot((4, 2, 3), (3, 5, 2), (((2,), (0,)), ((1,), (2,)))),
    _dot((3, 4, 2), (4, 2), (((1, 2), (0, 1)), ((), ()))),
    _dot((4,), (4,), (((0,), (0,)), ((), ()))),
    _dot((3,), (4,), (((), ()), ((), ()))),
]

# Integer (and bool) operands: values only.
INT_CASES = [
    Case('max-int', 'max', mlax.max, jax.lax.max, tied((3, 4), (3, 4)), dtypes=(I32, I64)),
    Case('integer_pow-int', 'integer_pow', lambda x: mlax.integer_pow(x, 3),
         lambda x: jax.lax.integer_pow(x, 3), tied((3, 4)), dtypes=(I32, I64)),
    Case('eq-bool', 'eq', mlax.eq, jax.lax.eq,
         lambda rng, dtype: [rng.random((3, 4)) > .5, rng.random((3, 4)) > .5], dtypes=(I32,)),
    Case('reduce_max-int', 'reduce_max', lambda x: mlax.reduce_max(x, 1),
         lambda x: jnp.max(x, 1), tied((3, 4)), dtypes=(I32, I64)),
    Case('reduce_min-bool', 'reduce_min', lambda x: mlax.reduce_min(x, 0),
         lambda x: jnp.min(x, 0), lambda rng, dtype: [rng.random((3, 4)) > .3], dtypes=(I32,)),
    Case('argmax-int', 'argmax', lambda x: mlax.argmax(x, 1), lambda x: jnp.argmax(x, 1),
         tied((3, 4)), dtypes=(I32, I64)),
    Case('dot_general-int', 'dot_general', lambda x, y: mlax.dot_general(x, y, (((1,), (0,)),
                                                                             ((), ()))),
         lambda x, y: jax.lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
         tied((3, 4), (4, 2)), dtypes=(I32, I64)),
    Case('iota-int', 'iota', lambda: mlax.iota(np.int64, (2, 3), 0),
         lambda: jax.lax.broadcasted_iota(np.int64, (2, 3), 0), lambda rng, dtype: [],
         dtypes=(I64,)),
]


def params(cases, dtypes=None, where=lambda case: True):
    return [pytest.param(c, d, id=f'{c.id}-{np.dtype(d).name}')
            for c in cases for d in c.dtypes if (dtypes is None or d in dtypes) and where(c)]


def _float_output(case):
    return case.primitive not in {'eq', 'ne', 'ge', 'le', 'argmax', 'argmin'}


def test_every_new_primitive_has_a_case():
    names = {'max', 'min', 'pow', 'integer_pow', 'eq', 'ne', 'ge', 'le', 'select_n',
             'broadcast_in_dim', 'reshape', 'concatenate', 'slice', 'dynamic_slice',
             'dynamic_update_slice', 'pad', 'iota', 'reduce_max', 'reduce_min', 'argmax',
             'argmin', 'dot_general'}
    assert names <= {v.name for v in vars(mlax).values() if isinstance(v, Primitive)}
    assert names == {c.primitive for c in CASES}


# ----------------------------------------------------------------------------- values

@pytest.mark.parametrize('case,dtype', params(CASES + INT_CASES))
def test_eval(case, dtype, rng):
    args = case.make(rng, dtype)
    assert_close(case.mj(*args), case.jx(*args))


@pytest.mark.parametrize('case,dtype', params(CASES + INT_CASES))
def test_jit(case, dtype, rng):
    args = case.make(rng, dtype)
    assert_close(minijax.jit(case.mj)(*args), case.jx(*args))


# ----------------------------------------------------------------------------- jvp, vjp

def _closed_over_static(case, args):
    """``case.mj`` and ``case.jx`` as functions of the differentiated arguments only."""
    diff = case.diff(args)
    return only_args(case.mj, args, diff), only_args(case.jx, args, diff), [args[i] for i in diff]


@pytest.mark.parametrize('case,dtype', params(CASES, dtypes=FLOATS))
def test_jvp(case, dtype, rng):
    args = case.make(rng, dtype)
    mj, jx, primals = _closed_over_static(case, args)
    tangents = [_normal(rng, np.shape(p), dtype) for p in primals]
    out, tan = minijax.jvp(mj, primals, tangents)
    expected_out, expected_tan = jax.jvp(jx, primals, tangents)
    assert_close(out, expected_out)
    assert_tangent_close(tan, expected_tan, dtype)


@pytest.mark.parametrize('case,dtype', params(CASES, dtypes=(F64,), where=_float_output))
def test_vjp(case, dtype, rng):
    args = case.make(rng, dtype)
    mj, jx, primals = _closed_over_static(case, args)
    out, f_vjp = minijax.vjp(mj, *primals)
    expected_out, jax_vjp = jax.vjp(jx, *primals)
    assert_close(out, expected_out)
    ct = _normal(rng, np.shape(expected_out), dtype)
    for got, expected in zip(f_vjp(ct), jax_vjp(ct), strict=True):
        assert_close(got, expected)


# ----------------------------------------------------------------------------- vmap

def _axis_variants(case, args):
    """in_axes to try: all at 0, all at the end, and the first argument unbatched (or at 1)."""
    batchable = [i for i in range(len(args)) if i not in case.unbatched()]
    variants = []
    for choose in (lambda i, nd: 0, lambda i, nd: nd,
                   lambda i, nd: (None if len(batchable) > 1 else min(1, nd))
                   if i == batchable[0] else 0):
        variants.append(tuple(choose(i, np.ndim(a)) if i in batchable else None
                              for i, a in enumerate(args)))
    return variants


def _vmap_params():
    rng = np.random.default_rng(0)
    out = []
    for case, dtype in ((p.values[0], p.values[1]) for p in params(CASES, dtypes=(F32,))):
        args = case.make(rng, dtype)
        for axes in _axis_variants(case, args):
            out.append(pytest.param(case, axes, id=f'{case.id}-{axes}'))
    return out


def _batched(case, rng, dtype, axes):
    samples = [case.make(rng, dtype) for _ in range(B)]
    return [samples[0][i] if a is None else np.stack([s[i] for s in samples], a)
            for i, a in enumerate(axes)]


@pytest.mark.parametrize('case,axes', _vmap_params())
def test_vmap(case, axes, rng):
    args = _batched(case, rng, F32, axes)
    expected = jax.vmap(case.jx, axes)(*args)
    assert_close(minijax.vmap(case.mj, axes)(*args), expected)
    assert_close(minijax.jit(minijax.vmap(case.mj, axes))(*args), expected)


@pytest.mark.parametrize('case', [pytest.param(c, id=c.id) for c in CASES if c.id in {
    'max-ties', 'pow-3x4-3x4', 'select_n-bool', 'pad', 'dynamic_update_slice-(1, 2)',
    'reduce_max-1', 'dot_general-2x3x4-2x4x5-(((2,), (1,)), ((0,), (0,)))'}])
def test_vmap_of_jvp(case, rng):
    """Batching the rules that the jvp rules emit."""
    args = case.make(rng, F64)
    mj, jx, primals = _closed_over_static(case, args)
    tangents = [_normal(rng, (B, *np.shape(p)), F64) for p in primals]
    got = minijax.vmap(lambda *t: minijax.jvp(mj, primals, t)[1], 0)(*tangents)
    expected = jax.vmap(lambda *t: jax.jvp(jx, tuple(primals), t)[1], 0)(*tangents)
    assert_close(got, expected)


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize('thunk,message', [
    (lambda: mlax.max(np.ones(3, np.float32), np.ones(4, np.float32)),
     r'float32\[3\] and float32\[4\]'),
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
    (lambda: mlax.argmax(np.ones((2, 0)), 1), 'empty'),
])
def test_abstract_eval_errors_name_the_types(thunk, message):
    with pytest.raises(TypeError, match=message):
        thunk()


@pytest.mark.parametrize('in_axes', [(None, 0), (0, 0), (1, 0)], ids=str)
def test_vmap_of_slicing_at_batched_start_indices(in_axes, rng):
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


@pytest.mark.parametrize('dtype', [F32, I32])
def test_dynamic_slice_wraps_negative_starts_then_clamps_like_jax(dtype, rng):
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
