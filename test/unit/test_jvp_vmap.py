"""The eval, jvp and vmap rules of every primitive of minijax.lax, against JAX.

Parametrized over ``conftest.PRIMITIVE_CASES`` (one row per way of calling a primitive), in
float32 and float64 (and integer dtypes where the primitive takes them).
"""
import itertools

import jax
import numpy as np
import pytest
from conftest import (F32, F64, FLOATS, PRIMITIVE_CASES, assert_close, assert_tangent_close,
                      only_args,
                      case_params, random_array)

import minijax
from minijax import lax as mlax
from minijax.core import Primitive


def test_every_lax_primitive_has_a_row():
    """A primitive added to minijax.lax without a row in the table would go untested."""
    prims = {v.name for v in vars(mlax).values() if isinstance(v, Primitive)}
    tested = {c.primitive for c in PRIMITIVE_CASES}
    assert prims - tested == set(), f'primitives without tests: {sorted(prims - tested)}'


# ----------------------------------------------------------------------------- eval

# int64 only where it is the operand dtype of interest (conversions): it behaves as int32.
@pytest.mark.parametrize('case,dtype', [p for p in case_params() if p.values[1] != np.int64
                                        or p.values[1] == p.values[0].dtypes[0]])
def test_eval(case, dtype, rng):
    args = case.args(rng, dtype)
    assert_close(case.mj(*args), case.jx(*args))


# ----------------------------------------------------------------------------- jvp


DIFF_CASES = [c for c in PRIMITIVE_CASES if c.diff_args]


@pytest.mark.parametrize('case,dtype', case_params(DIFF_CASES, dtypes=FLOATS))
def test_jvp(case, dtype, rng):
    args = case.args(rng, dtype)
    which = case.diff_args
    primals = tuple(args[i] for i in which)
    tangents = tuple(random_array(rng, np.shape(p), dtype) for p in primals)
    out, tan = minijax.jvp(only_args(case.mj, args, which), primals, tangents)
    out_ref, tan_ref = jax.jvp(only_args(case.jx, args, which), primals, tangents)
    assert_close(out, out_ref)
    assert_tangent_close(tan, tan_ref, dtype)


@pytest.mark.parametrize('case,dtype', case_params(
    [c for c in DIFF_CASES if len(c.diff_args) >= 2], dtypes=FLOATS))
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


@pytest.mark.parametrize('case,dtype', case_params(
    [c for c in DIFF_CASES if F64 in c.dtypes and c.primitive not in (
        'convert_element_type', 'sign', 'eq', 'ne', 'ge', 'le', 'greater', 'less', 'argmax',
        'argmin')], dtypes=(F64,)))
def test_jvp_matches_finite_differences(case, dtype, rng):
    """A second, independent oracle: central differences in float64, all operands moving."""
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


# ----------------------------------------------------------------------------- vmap

def _axis_choices(case, i):
    """Batch axes to try for operand ``i``: front, middle, end, unbatched (a scalar index
    operand: batched or not)."""
    if case.domain and case.domain[i] == 'idx':
        return [0, None]
    ndim = len(case.shapes[i])
    return sorted({0, min(1, ndim), ndim}) + [None]


def _vmap_params():
    params = []
    for case in PRIMITIVE_CASES:
        choices = [_axis_choices(case, i) for i in range(len(case.shapes))]
        combos = [axes for axes in itertools.product(*choices)
                  if not all(a is None for a in axes)]
        if len(combos) > 8:  # many operands: all batched alike, and each one alone
            n = len(case.shapes)
            combos = [tuple(c[k] if len(c) > 1 else None for c in choices) for k in (0, -2)]
            combos += [tuple(c[-2] if i == j else None for j, c in enumerate(choices))
                       for i in range(n) if len(choices[i]) > 1]
        for axes in combos:
            for dtype in [d for d in case.dtypes if d in FLOATS] or case.dtypes[:1]:
                params.append(pytest.param(case, dtype, axes,
                                           id=f'{case.id}-{dtype.name}-{axes}'))
    return params


def _batched_args(case, dtype, axes, rng, size=2):
    shapes = [s if a is None else (*s[:a], size, *s[a:]) for s, a in zip(case.shapes, axes)]
    return case.args(rng, dtype, shapes)


def per_example(f, in_axes, size):
    """The vmap oracle for the big tables: JAX applied to one example at a time, stacked.

    This is vmap's definition, and it reuses the JAX kernels ``test_eval`` compiled for the
    unbatched shapes, which keeps the suite fast. ``jax.vmap`` itself is the oracle of the
    API tests below and of ``test_vmap_matches_jax_vmap``.
    """
    def batched(*args):
        outs = [f(*[a if ax is None else np.take(a, i, axis=ax)
                    for a, ax in zip(args, in_axes)]) for i in range(size)]
        if isinstance(outs[0], tuple):
            return tuple(np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0])))
        return np.stack([np.asarray(o) for o in outs])
    return batched


@pytest.mark.parametrize('case,dtype,axes', _vmap_params())
def test_vmap(case, dtype, axes, rng):
    args = _batched_args(case, dtype, axes, rng)
    out = minijax.vmap(case.mj, in_axes=axes)(*args)
    assert_close(out, per_example(case.jx, axes, 2)(*args))


def _one_per_case(params):
    seen = {}
    for p in params:
        case, dtype, axes = p.values
        if dtype == case.dtypes[0] and axes[0] not in (0, None):
            seen.setdefault(case.id, p)
    return list(seen.values())


@pytest.mark.parametrize('case,dtype,axes', _one_per_case(_vmap_params()))
def test_vmap_matches_jax_vmap(case, dtype, axes, rng):
    """Every primitive once, batched away from axis 0, against ``jax.vmap`` itself."""
    args = _batched_args(case, dtype, axes, rng)
    out = minijax.vmap(case.mj, in_axes=axes)(*args)
    assert_close(out, jax.vmap(case.jx, in_axes=axes)(*args))


def _out_rank(case):
    shapes = [jax.ShapeDtypeStruct(s, case.arg_dtype(i, case.dtypes[0]))
              for i, s in enumerate(case.shapes)]
    return np.ndim(jax.eval_shape(case.jx, *shapes))


@pytest.mark.parametrize('case,dtype,out_axes', [
    pytest.param(c, c.dtypes[0], out_axes, id=f'{c.id}-{out_axes}')
    for c in PRIMITIVE_CASES if c.shapes and c.shapes[0]
    for out_axes in sorted({1, -1, _out_rank(c)}) if -1 <= out_axes <= _out_rank(c)])
def test_vmap_out_axes(case, dtype, out_axes, rng):
    axes = (1,) + (None,) * (len(case.shapes) - 1)
    args = _batched_args(case, dtype, axes, rng)
    out = minijax.vmap(case.mj, in_axes=axes, out_axes=out_axes)(*args)
    assert_close(out, jax.vmap(case.jx, in_axes=axes, out_axes=out_axes)(*args))


@pytest.mark.parametrize('case,dtype', case_params(DIFF_CASES, dtypes=FLOATS))
def test_vmap_of_jvp(case, dtype, rng):
    """Batched tangents (a Jacobian-vector product per row), as jacfwd uses."""
    args = case.args(rng, dtype)
    which = case.diff_args
    primals = tuple(args[i] for i in which)
    tangents = [random_array(rng, (3, *np.shape(p)), dtype) for p in primals]
    mj_f, jx_f = only_args(case.mj, args, which), only_args(case.jx, args, which)
    mj = minijax.vmap(lambda *ts: minijax.jvp(mj_f, primals, ts)[1])(*tangents)
    ref = per_example(lambda *ts: jax.jvp(jx_f, primals, ts)[1], (0,) * len(tangents), 3)(
        *tangents)
    assert_tangent_close(mj, ref, dtype)


@pytest.mark.parametrize('case,dtype', case_params(DIFF_CASES, dtypes=FLOATS))
def test_jvp_of_vmap(case, dtype, rng):
    axes = tuple(_axis_choices(case, i)[0] for i in range(len(case.shapes)))
    args = _batched_args(case, dtype, axes, rng, size=3)
    which = case.diff_args
    primals = tuple(args[i] for i in which)
    tangents = tuple(random_array(rng, np.shape(p), dtype) for p in primals)
    out, tan = minijax.jvp(only_args(minijax.vmap(case.mj, axes), args, which), primals, tangents)

    def jvp_one(*args_and_tangents):
        xs, ts = args_and_tangents[:len(args)], args_and_tangents[len(args):]
        return jax.jvp(only_args(case.jx, xs, which), tuple(xs[i] for i in which), tuple(ts))

    out_ref, tan_ref = per_example(jvp_one, axes + tuple(axes[i] for i in which), 3)(
        *args, *tangents)
    assert_close(out, out_ref)
    assert_tangent_close(tan, tan_ref, dtype)


# ----------------------------------------------------------------------------- vmap API

def _f_pytree(p, s):
    """A function of a dict and a scalar, returning a pytree."""
    y = mlax.mul(p['w'], p['x'])
    return {'y': mlax.add(y, s), 'z': (mlax.sin(p['x']),)}


def _j_pytree(p, s):
    y = p['w'] * p['x']
    return {'y': y + s, 'z': (jax.numpy.sin(p['x']),)}


@pytest.mark.parametrize('in_axes', [
    0,
    (0, None),
    ({'w': 0, 'x': 1}, None),
    ({'w': None, 'x': 1}, 0),
    ({'w': 1, 'x': None}, None),
    [{'w': 0, 'x': 0}, 0],
    (-1, None),
])
def test_vmap_in_axes_forms(in_axes, rng):
    """in_axes as int, None, tuple, list and per-argument pytree prefix; negative axes."""
    n = 3
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes, in_axes)
    p_axes = axes[0] if isinstance(axes[0], dict) else {'w': axes[0], 'x': axes[0]}

    def arg(shape, ax):
        if ax is None:
            return random_array(rng, shape, F64)
        ax = ax % (len(shape) + 1)
        return random_array(rng, (*shape[:ax], n, *shape[ax:]), F64)

    p = {'w': arg((4,), p_axes['w']), 'x': arg((4,), p_axes['x'])}
    s = arg((), axes[1]) if axes[1] is not None else np.float64(1.5)
    if isinstance(in_axes, list):
        jax_axes = tuple(in_axes)
    else:
        jax_axes = in_axes
    out = minijax.vmap(_f_pytree, in_axes)(p, s)
    ref = jax.vmap(_j_pytree, jax_axes)(p, s)
    assert out.keys() == ref.keys() and isinstance(out['z'], tuple)
    assert_close(out['y'], ref['y'])
    assert_close(out['z'][0], ref['z'][0])


@pytest.mark.parametrize('out_axes', [0, 1, -1, {'y': 1, 'z': (0,)}, {'y': 0, 'z': None}])
def test_vmap_out_axes_forms(out_axes, rng):
    p = {'w': random_array(rng, (3, 4), F64), 'x': random_array(rng, (4,), F64)}
    in_axes = ({'w': 0, 'x': None}, None)
    out = minijax.vmap(_f_pytree, in_axes, out_axes)(p, 2.0)
    ref = jax.vmap(_j_pytree, in_axes, out_axes)(p, 2.0)
    assert_close(out['y'], ref['y'])
    assert_close(out['z'][0], ref['z'][0])


def test_vmap_seed_style_tuple_in_axes():
    out = minijax.vmap(lambda s: 1. + s, (0,))(np.arange(3.))
    assert_close(out, np.array([1., 2., 3.]))


def test_vmap_of_vmap(rng):
    x = random_array(rng, (2, 3, 4), F32)
    y = random_array(rng, (3, 2), F32)
    f = lambda a, b: mlax.reduce_sum(mlax.mul(mlax.sin(a), b))  # noqa: E731
    g = lambda a, b: jax.numpy.sum(jax.numpy.sin(a) * b)  # noqa: E731
    out = minijax.vmap(minijax.vmap(f, (0, 1)), (2, None))(x, y)
    ref = jax.vmap(jax.vmap(g, (0, 1)), (2, None))(x, y)
    assert_close(out, ref)


def test_vmap_unmapped_output_is_broadcast(rng):
    """An output that does not depend on the mapped input still gets the batch axis."""
    c = random_array(rng, (3,), F64)
    x = random_array(rng, (5, 3), F64)
    out = minijax.vmap(lambda x: (mlax.sin(x), mlax.cos(c)), in_axes=(0,), out_axes=1)(x)
    ref = jax.vmap(lambda x: (jax.numpy.sin(x), jax.numpy.cos(c)), in_axes=(0,), out_axes=1)(x)
    assert_close(out[0], ref[0])
    assert_close(out[1], ref[1])


@pytest.mark.parametrize('in_axes,args', [
    ((0, 0), (np.zeros(3), np.zeros(4))),       # inconsistent sizes
    ((0,), (np.zeros(3), np.zeros(3))),         # wrong number of entries
    ((2,), (np.zeros(3),)),                     # axis out of range
    ((None,), (np.zeros(3),)),                  # nothing mapped
])
def test_vmap_bad_in_axes(in_axes, args):
    with pytest.raises((ValueError, TypeError)):
        minijax.vmap(lambda *xs: xs[0], in_axes)(*args)


@pytest.mark.parametrize('f,out_axes,arg', [
    (lambda x: mlax.reduce_sum(x), 1, np.ones((3, 2))),   # a scalar per example: rank 1
    (lambda x: x, 2, np.ones((3, 2))),
    (lambda x: x, -3, np.ones((3, 2))),
])
def test_vmap_out_axes_out_of_range(f, out_axes, arg):
    """JAX rejects these too; minijax must not wrap the axis around silently."""
    with pytest.raises(ValueError):
        jax.vmap(lambda x: x.sum() if np.ndim(f(np.ones(2))) == 0 else x,
                 out_axes=out_axes)(arg)
    with pytest.raises(ValueError, match='out_axes'):
        minijax.vmap(f, out_axes=out_axes)(arg)
