"""Convolution (``conv_general_dilated``) and windowed reductions (``reduce_window``) beyond
the rows of ``primitive_cases``: every layout, padding, dilation and group option against
``jax.lax`` for values, jvp, vjp of both operands and vmap over every pair of batch axes;
pooling gradients; FLOPS against XLA's cost analysis; and errors on bad input.
"""
import re

import jax
import numpy as np
import pytest
from testlib import assert_close, jax_answer

import minijax
from minijax import lax as mlax

#: (lhs shape, rhs shape, parameters): a convolution of each kind.
CONVS = {
    'nchw-valid': ((2, 3, 6, 5), (4, 3, 3, 2), dict(window_strides=(1, 1), padding='VALID')),
    'same-strided-leftover': ((2, 3, 7, 6), (4, 3, 3, 2),
                              dict(window_strides=(2, 3), padding='SAME')),
    'same-lower': ((1, 2, 6, 5), (2, 2, 2, 3), dict(window_strides=(1, 2), padding='SAME_LOWER')),
    'dilations-cropping-layouts': ((2, 6, 5, 4), (3, 4, 2, 2), dict(
        window_strides=(2, 2), padding=((1, 2), (0, -1)), lhs_dilation=(2, 1),
        rhs_dilation=(1, 2), dimension_numbers=('NHWC', 'OIHW', 'NCWH'))),
    'feature-groups-hwio': ((2, 5, 6, 4), (3, 2, 2, 6), dict(
        window_strides=(1, 2), padding=((1, 0), (2, 1)), rhs_dilation=(2, 1),
        dimension_numbers=('NHWC', 'HWIO', 'NHWC'), feature_group_count=2)),
    'batch-groups': ((4, 3, 6), (6, 3, 3), dict(window_strides=(2,), padding=((1, 1),),
                                                  batch_group_count=2)),
    'feature-groups-lhs-dilated': ((4, 6, 5), (6, 3, 2), dict(
        window_strides=(1,), padding=((1, 2),), lhs_dilation=(3,), feature_group_count=2)),
    'tuple-dimension-numbers': ((2, 5, 4), (3, 4, 2), dict(
        window_strides=(2,), padding='VALID',
        dimension_numbers=jax.lax.ConvDimensionNumbers((0, 2, 1), (2, 1, 0), (0, 2, 1)))),
}
TOL = dict(rtol=1e-10, atol=1e-10)


def _conv_fns(params):
    return (lambda x, y: mlax.conv_general_dilated(x, y, **params),
            lambda x, y: jax.lax.conv_general_dilated(x, y, **params))


@pytest.fixture(params=list(CONVS), ids=list(CONVS))
def conv_case(request, rng):
    lhs_shape, rhs_shape, params = CONVS[request.param]
    return rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape), params


def test_conv_values_eager_and_jit(conv_case):
    lhs, rhs, params = conv_case
    mine, theirs = _conv_fns(params)
    expected = theirs(lhs, rhs)
    np.testing.assert_allclose(mine(lhs, rhs), expected, **TOL)
    np.testing.assert_allclose(minijax.jit(mine)(lhs, rhs), expected, **TOL)


def test_conv_jvp_and_vjp_of_both_operands(conv_case, rng):
    lhs, rhs, params = conv_case
    mine, theirs = _conv_fns(params)
    tangents = (rng.standard_normal(lhs.shape), rng.standard_normal(rhs.shape))
    np.testing.assert_allclose(minijax.jvp(mine, (lhs, rhs), tangents)[1],
                               jax.jvp(theirs, (lhs, rhs), tangents)[1], **TOL)
    out, theirs_vjp = jax.vjp(theirs, lhs, rhs)
    ct = rng.standard_normal(out.shape)
    _, mine_vjp = minijax.vjp(mine, lhs, rhs)
    for got, expected in zip(mine_vjp(ct), theirs_vjp(ct), strict=True):
        np.testing.assert_allclose(got, expected, **TOL)
    jitted = minijax.jit(lambda x, y, ct: minijax.vjp(mine, x, y)[1](ct))(lhs, rhs, ct)
    for got, expected in zip(jitted, theirs_vjp(ct), strict=True):
        np.testing.assert_allclose(got, expected, **TOL)


@pytest.mark.parametrize('in_axes', [(0, None), (None, 1), (2, 1)], ids=str)
def test_conv_vmap_folds_examples_into_the_convolution(conv_case, in_axes, rng):
    lhs, rhs, params = conv_case
    mine, theirs = _conv_fns(params)
    lhs, rhs = [x if axis is None else rng.standard_normal((*x.shape[:axis], 3, *x.shape[axis:]))
                for x, axis in zip((lhs, rhs), in_axes)]
    expected = jax.vmap(theirs, in_axes)(lhs, rhs)
    np.testing.assert_allclose(minijax.vmap(mine, in_axes)(lhs, rhs), expected, **TOL)
    np.testing.assert_allclose(minijax.jit(minijax.vmap(mine, in_axes))(lhs, rhs), expected,
                               **TOL)


def test_conv_eqn_holds_one_convolution_per_batched_call(rng):
    """vmap folds the examples in: the batched jaxpr has one convolution, no loop."""
    lhs, rhs, params = CONVS['feature-groups-hwio']
    mine, _ = _conv_fns(params)
    jaxpr = minijax.make_jaxpr(minijax.vmap(mine, (0, 3)))(
        np.ones((3, *lhs)), np.ones((*rhs[:3], 3, rhs[3])))
    names = [eqn.primitive.name for eqn in jaxpr.jaxpr.eqns]
    assert names.count('conv_general_dilated') == 1


@pytest.mark.parametrize('specs', [('NCHW', 'OIHW', 'NCHW'), ('NHWC', 'HWIO', 'NHWC'),
                                   ('NHWC', 'OIWH', 'NCWH'), ('CHWN', 'IWHO', 'WHNC')])
def test_conv_dimension_numbers_from_strings_are_jax_s(specs):
    assert tuple(mlax.conv_dimension_numbers((1,) * 4, (1,) * 4, specs)) == tuple(
        jax.lax.conv_dimension_numbers((1,) * 4, (1,) * 4, specs))


def test_conv_and_conv_with_general_padding_wrappers(rng):
    lhs, rhs = rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((4, 3, 3, 2))
    assert_close(mlax.conv(lhs, rhs, (2, 1), 'SAME'), jax.lax.conv(lhs, rhs, (2, 1), 'SAME'))
    args = ((1, 2), ((1, 0), (2, 2)), (2, 1), (1, 2))
    assert_close(mlax.conv_with_general_padding(lhs, rhs, *args),
                 jax.lax.conv_with_general_padding(lhs, rhs, *args))


def test_conv_float32(rng):
    lhs = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    params = dict(window_strides=(1, 1), padding='SAME',
                  dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
    mine, theirs = _conv_fns(params)
    assert_close(minijax.jit(mine)(lhs, rhs), theirs(lhs, rhs))
    assert_close(minijax.grad(lambda w: mlax.reduce_sum(mine(lhs, w)))(rhs),
                 jax.grad(lambda w: theirs(lhs, w).sum())(rhs))


@pytest.mark.parametrize('name', list(CONVS))
def test_complex_conv_has_jax_s_bits(name, rng):
    """JAX computes a complex convolution as three real ones (Gauss's trick): the same
    rounding eager and jitted, and an infinity gives JAX's NaN parts (inf + nanj)."""
    lhs_shape, rhs_shape, params = CONVS[name]
    lhs, rhs = ((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(
        np.complex64) for shape in (lhs_shape, rhs_shape))
    lhs.flat[0] = np.inf
    mine, theirs = _conv_fns(params)
    expected = jax.jit(theirs)(lhs, rhs)
    np.testing.assert_array_equal(mine(lhs, rhs), expected)
    np.testing.assert_array_equal(minijax.jit(mine)(lhs, rhs), expected)


@pytest.mark.parametrize('name', list(CONVS))
def test_conv_flops_are_xla_s(name):
    """XLA counts 2 per multiply-add that meets the operand (not padding or a hole)."""
    lhs_shape, rhs_shape, params = CONVS[name]
    mine, _ = _conv_fns(params)
    args = [np.ones(lhs_shape, np.float32), np.ones(rhs_shape, np.float32)]
    assert minijax.flops(mine)(*args) == minijax.jit(mine).lower(*args).compile(
        ).cost_analysis()['flops']


def test_conv_errors_name_the_operands():
    with pytest.raises(ValueError, match=r'float64\[2,3,5,5\].*float64\[4,2,3,3\]'):
        mlax.conv(np.ones((2, 3, 5, 5)), np.ones((4, 2, 3, 3)), (1, 1), 'VALID')
    with pytest.raises(ValueError, match='window_strides'):
        mlax.conv(np.ones((2, 3, 5, 5)), np.ones((4, 3, 3, 3)), (1,), 'VALID')
    with pytest.raises(TypeError, match='dimension_numbers'):
        mlax.conv_general_dilated(np.ones((2, 3, 5, 5)), np.ones((4, 3, 3, 3)), (1, 1),
                                  'VALID', dimension_numbers=('NCHW', 'OIHW', 'NCXW'))
    with pytest.raises(ValueError, match="padding 'SAME'.*lhs_dilation"):
        mlax.conv_general_dilated(np.ones((2, 3, 5, 5)), np.ones((4, 3, 3, 3)), (1, 1),
                                  'SAME', lhs_dilation=(2, 2))
    with pytest.raises(ValueError, match='padding must be'):
        mlax.conv(np.ones((2, 3, 5, 5)), np.ones((4, 3, 3, 3)), (1, 1), 'FULL')

_LHS, _RHS, _X = np.ones((2, 3, 5, 5)), np.ones((4, 3, 3, 3)), np.ones((4, 6))

#: Misuses of conv_general_dilated and reduce_window, as functions of the lax module.
BAD_CALLS = {
    'conv_features_mismatch': lambda L: L.conv(_LHS, np.ones((4, 2, 3, 3)), (1, 1), 'VALID'),
    'conv_strides_length': lambda L: L.conv(_LHS, _RHS, (1,), 'VALID'),
    'conv_zero_stride_same': lambda L: L.conv(_LHS, _RHS, (0, 1), 'SAME'),
    'conv_negative_stride': lambda L: L.conv(_LHS, _RHS, (-1, 1), 'VALID'),
    'conv_float_stride': lambda L: L.conv(_LHS, _RHS, (1.5, 1), 'VALID'),
    'conv_float_padding': lambda L: L.conv(_LHS, _RHS, (1, 1), ((0.5, 0), (0, 0))),
    'conv_padding_triples': lambda L: L.conv(_LHS, _RHS, (1, 1), ((0, 0, 0), (0, 0))),
    'conv_padding_length': lambda L: L.conv(_LHS, _RHS, (1, 1), ((0, 0),)),
    'conv_padding_removes_more': lambda L: L.conv(_LHS, _RHS, (1, 1), ((-3, -3), (0, 0))),
    'conv_zero_rhs_dilation': lambda L: L.conv_general_dilated(
        _LHS, _RHS, (1, 1), 'VALID', rhs_dilation=(0, 1)),
    'conv_float_rhs_dilation': lambda L: L.conv_general_dilated(
        _LHS, _RHS, (1, 1), 'VALID', rhs_dilation=(1.5, 1)),
    'conv_rhs_dilation_length': lambda L: L.conv_general_dilated(
        _LHS, _RHS, (1, 1), 'VALID', rhs_dilation=(1,)),
    'conv_zero_groups': lambda L: L.conv_general_dilated(
        _LHS, _RHS, (1, 1), 'VALID', feature_group_count=0),
    'conv_groups_do_not_divide': lambda L: L.conv_general_dilated(
        _LHS, _RHS, (1, 1), 'VALID', batch_group_count=3),
    'conv_both_groups': lambda L: L.conv_general_dilated(
        np.ones((2, 6, 5, 5)), _RHS, (1, 1), 'VALID', feature_group_count=2,
        batch_group_count=2),
    'conv_narrower_preferred_type': lambda L: L.conv(
        _LHS, _RHS, (1, 1), 'VALID', preferred_element_type=np.float32),
    'reduce_window_vector_init': lambda L: L.reduce_window(
        _X, np.zeros(2), L.add, (2, 2), (1, 1), 'VALID'),
    'reduce_window_zero_stride_same': lambda L: L.reduce_window(
        _X, 0., L.add, (2, 2), (0, 1), 'SAME'),
    'reduce_window_float_stride': lambda L: L.reduce_window(
        _X, 0., L.add, (2, 2), (1.5, 1), 'VALID'),
    'reduce_window_float_window': lambda L: L.reduce_window(
        _X, 0., L.add, (2.5, 2), (1, 1), 'VALID'),
    'reduce_window_float_padding': lambda L: L.reduce_window(
        _X, 0., L.add, (2, 2), (1, 1), ((0.5, 0), (0, 0))),
    'reduce_window_zero_dilation': lambda L: L.reduce_window(
        _X, 0., L.add, (2, 2), (1, 1), 'VALID', None, (0, 1)),
}


@pytest.mark.parametrize('name', list(BAD_CALLS))
def test_bad_calls_raise_jax_s_exception_type(name):
    """At trace time, with JAX's exception class (a few of JAX's come from the StableHLO
    verifier: a ValueError there too), and a message naming the function."""
    with pytest.raises(Exception) as theirs:
        BAD_CALLS[name](jax.lax)
    with pytest.raises(Exception) as mine:
        minijax.make_jaxpr(lambda: BAD_CALLS[name](mlax))()
    assert type(mine.value) is type(theirs.value), (mine.value, theirs.value)
    assert re.search('conv_general_dilated|reduce_window', str(mine.value)), mine.value

# ----------------------------------------------------------------------------- reduce_window


#: (window_dimensions, window_strides, padding, base_dilation, window_dilation)
WINDOWS = {
    'pool-2x2': ((2, 2), (2, 2), 'VALID', None, None),
    'same-3x3': ((3, 3), (1, 1), 'SAME', None, None),
    'padded-strided': ((2, 3), (2, 1), ((1, 2), (0, 1)), None, None),
    'dilated': ((2, 3), (2, 1), ((1, 2), (0, 1)), (2, 1), (1, 2)),
}
REDUCERS = {'sum': (mlax.add, jax.lax.add, 0.), 'max': (mlax.max, jax.lax.max, -np.inf),
            'min': (mlax.min, jax.lax.min, np.inf)}


def _window_fns(reducer, window):
    mine, theirs, init = REDUCERS[reducer]
    return (lambda x: mlax.reduce_window(x, init, mine, *window),
            lambda x: jax.lax.reduce_window(x, init, theirs, *window))


@pytest.mark.parametrize('window', list(WINDOWS))
@pytest.mark.parametrize('reducer', list(REDUCERS))
def test_reduce_window_values_jvp_vjp_vmap(reducer, window, rng):
    mine, theirs = _window_fns(reducer, WINDOWS[window])
    x, t = rng.standard_normal((6, 7)), rng.standard_normal((6, 7))
    expected = theirs(x)
    np.testing.assert_allclose(mine(x), expected, **TOL)
    np.testing.assert_allclose(minijax.jit(mine)(x), expected, **TOL)
    np.testing.assert_allclose(minijax.jvp(mine, (x,), (t,))[1], jax.jvp(theirs, (x,), (t,))[1],
                               **TOL)
    ct = rng.standard_normal(expected.shape)
    if reducer != 'sum' and WINDOWS[window][4]:
        # JAX has no vjp of a dilated max window (select_and_gather_add's transpose), nor
        # does minijax, which differentiates it as JAX does
        for vjp, fn in ((minijax.vjp, mine), (jax.vjp, theirs)):
            with pytest.raises(NotImplementedError, match='window dilation'):
                vjp(fn, x)[1](ct)
    else:
        np.testing.assert_allclose(minijax.vjp(mine, x)[1](ct)[0], jax.vjp(theirs, x)[1](ct)[0],
                                   **TOL)
    xs = rng.standard_normal((6, 3, 7))
    np.testing.assert_allclose(minijax.vmap(mine, 1)(xs), jax.vmap(theirs, 1)(xs), **TOL)


#: name -> (function of a lax namespace, operand shapes): programs whose window op has an
#: empty output (the window larger than the operand, or an empty operand).
EMPTY_OUTPUTS = {
    'conv-kernel-larger': (lambda L: lambda x, y: L.conv_general_dilated(
        x, y, (1, 1), 'VALID'), [(1, 2, 3, 3), (4, 2, 4, 2)]),
    'conv-strided-dilated': (lambda L: lambda x, y: L.conv_general_dilated(
        x, y, (2, 1), ((0, -1), (1, 0)), (1, 2), (2, 1)), [(2, 2, 2, 3), (3, 2, 2, 2)]),
    'conv-empty-batch': (lambda L: lambda x, y: L.conv_general_dilated(
        x, y, (1, 1), 'SAME'), [(0, 2, 3, 3), (4, 2, 2, 2)]),
    'max-window-larger': (lambda L: lambda x: L.reduce_window(
        x, -np.inf, L.max, (4, 2), (1, 1), 'VALID'), [(3, 3)]),
    'min-dilated-empty-operand': (lambda L: lambda x: L.reduce_window(
        x, np.inf, L.min, (3, 4), (1, 1), ((1, 0), (1, 0)), (2, 2)), [(0, 0)]),
    'sum-window-larger': (lambda L: lambda x: L.reduce_window(
        x, 0., L.add, (2, 4), (2, 1), ((0, 0), (1, 0))), [(1, 2)]),
}


@pytest.mark.parametrize('name', list(EMPTY_OUTPUTS))
def test_grad_of_an_empty_window_output_is_zero(name, rng):
    """The output holds nothing, so every operand's cotangent is zero, as in JAX: no
    tangent of a window that does not exist, no degenerate convolution transposed."""
    make, shapes = EMPTY_OUTPUTS[name]
    args = [rng.standard_normal(s) for s in shapes]
    argnums = tuple(range(len(args)))

    def loss(L):
        return lambda *xs: L.reduce_sum(make(L)(*xs) ** 2, tuple(range(len(shapes[0]))))
    expected = jax.grad(loss(jax.lax), argnums)(*args)
    for grad in (minijax.grad, lambda f, a: minijax.jit(minijax.grad(f, a))):
        for got, want in zip(grad(loss(mlax), argnums)(*args), expected, strict=True):
            np.testing.assert_array_equal(got, want)


def test_max_pool_training_gradient_matches_jax(rng):
    """A conv, relu and 2x2 max pool in NHWC, as a CNN uses them: grads of both weights."""
    x = rng.standard_normal((2, 8, 8, 3))
    w = rng.standard_normal((3, 3, 3, 4))

    def loss(lax, w):
        y = lax.conv_general_dilated(x, w, (1, 1), 'SAME',
                                     dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
        y = lax.max(y, 0. * y)
        pooled = lax.reduce_window(y, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')
        return lax.reduce_sum(pooled * pooled, None) if lax is mlax else (pooled ** 2).sum()

    np.testing.assert_allclose(minijax.jit(minijax.grad(lambda w: loss(mlax, w)))(w),
                               jax_answer(jax.grad(lambda w: loss(jax.lax, w)), w), **TOL)


def test_average_pool_is_a_window_sum_over_the_count(rng):
    x = rng.standard_normal((1, 5, 5, 2))
    window = ((1, 3, 3, 1), (1, 2, 2, 1), 'SAME')
    sums = mlax.reduce_window(x, 0., mlax.add, *window)
    counts = mlax.reduce_window(np.ones_like(x), 0., mlax.add, *window)
    expected = (jax.lax.reduce_window(x, 0., jax.lax.add, *window)
                / jax.lax.reduce_window(np.ones_like(x), 0., jax.lax.add, *window))
    np.testing.assert_allclose(sums / counts, expected, **TOL)


def test_reduce_window_on_integers(rng):
    x = rng.integers(-50, 50, (5, 6)).astype(np.int32)
    for mine, theirs, init in [(mlax.max, jax.lax.max, np.iinfo(np.int32).min),
                               (mlax.min, jax.lax.min, np.iinfo(np.int32).max),
                               (mlax.add, jax.lax.add, 0)]:
        window = ((2, 3), (1, 2), 'SAME')
        expected = jax.lax.reduce_window(x, np.int32(init), theirs, *window)
        assert_close(mlax.reduce_window(x, np.int32(init), mine, *window), expected)
        assert_close(minijax.jit(lambda x: mlax.reduce_window(x, np.int32(init), mine,
                                                              *window))(x), expected)


@pytest.mark.parametrize('window', list(WINDOWS))
@pytest.mark.parametrize('reducer', list(REDUCERS))
def test_reduce_window_flops_are_xla_s(reducer, window):
    mine, _ = _window_fns(reducer, WINDOWS[window])
    x = np.ones((6, 7), np.float32)
    assert minijax.flops(mine)(x) == minijax.jit(mine).lower(x).compile().cost_analysis()[
        'flops']


def test_reduce_window_errors():
    x = np.ones((4, 4))
    # a computation or start value without a primitive of its own binds reduce_window, as JAX
    for mine, theirs in [(mlax.mul, jax.lax.mul), (mlax.add, jax.lax.add)]:
        assert_close(mlax.reduce_window(x, 1., mine, (2, 2), (1, 1), 'VALID'),
                     jax.lax.reduce_window(x, 1., theirs, (2, 2), (1, 1), 'VALID'))
    with pytest.raises(TypeError, match=r'reduce_window_max.*float64\[4,4\]'):
        mlax.reduce_window(x, -np.inf, mlax.max, (2,), (1,), ((0, 0),))


# ----------------------------------------------------------------------------- conv variants

#: name -> (operand shapes, the call with ``L`` as the lax module): conv_transpose,
#: conv_general_dilated_patches and conv_general_dilated_local, written with
#: conv_general_dilated as JAX writes them.
CONV_VARIANTS = {
    'transpose-same-strided': ([(2, 5, 6, 3), (3, 2, 3, 4)],
                               lambda L, x, k: L.conv_transpose(x, k, (2, 1), 'SAME')),
    'transpose-valid-dilated-kernel-flipped': (
        [(2, 5, 6, 3), (3, 2, 4, 3)],
        lambda L, x, k: L.conv_transpose(x, k, (2, 3), 'VALID', rhs_dilation=(1, 2),
                                         transpose_kernel=True)),
    'transpose-pairs-consistent': (
        [(2, 5, 6, 3), (3, 2, 3, 4)],
        lambda L, x, k: L.conv_transpose(x, k, (2, 2), ((1, 0), (2, 1)),
                                         use_consistent_padding=True)),
    'transpose-pairs-nwc': ([(2, 7, 3), (3, 3, 5)], lambda L, x, k: L.conv_transpose(
        x, k, (2,), ((1, 2),), dimension_numbers=('NWC', 'WIO', 'NWC'))),
    'patches-nchw': ([(2, 3, 5, 6)], lambda L, x: L.conv_general_dilated_patches(
        x, (2, 3), (1, 2), 'SAME')),
    'patches-layouts-precision': ([(2, 3, 5, 6)], lambda L, x: L.conv_general_dilated_patches(
        x, (2, 3), (2, 1), ((1, 0), (0, 2)), dimension_numbers=('NCHW', 'OIWH', 'CNHW'),
        precision=L.Precision.HIGHEST)),
    'local-nchw': ([(2, 3, 5, 6), (4, 18, 4, 4)], lambda L, x, w: L.conv_general_dilated_local(
        x, w, (1, 1), 'VALID', (2, 3))),
    'local-hwio-precision-pair': (
        [(2, 3, 5, 6), (4, 4, 18, 4)], lambda L, x, w: L.conv_general_dilated_local(
            x, w, (1, 1), 'VALID', (2, 3), dimension_numbers=('NCHW', 'HWIO', 'NHWC'),
            precision=(L.Precision.HIGHEST, L.Precision.DEFAULT))),
}


@pytest.mark.parametrize('name', CONV_VARIANTS)
def test_conv_variants_are_jax_s(name, rng):
    """Values, gradients, jaxpr and module text of each variant are JAX's."""
    shapes, call = CONV_VARIANTS[name]
    args = [rng.normal(size=s) for s in shapes]
    mj_fn, jax_fn = (lambda *xs: call(mlax, *xs)), (lambda *xs: call(jax.lax, *xs))
    positions = tuple(range(len(args)))
    loss = lambda f: lambda *xs: (f(*xs) ** 2).sum()  # noqa: E731
    expected, expected_grads = jax_answer(
        lambda *xs: (jax_fn(*xs), jax.grad(loss(jax_fn), positions)(*xs)), *args)
    assert_close(mj_fn(*args), expected)
    for got, expected in zip(minijax.grad(loss(mj_fn), positions)(*args), expected_grads,
                             strict=True):
        assert_close(got, expected)
    assert str(minijax.make_jaxpr(mj_fn)(*args)) == str(jax.make_jaxpr(jax_fn)(*args))
    assert (minijax.jit(mj_fn).lower(*args).as_text()
            == jax.jit(jax_fn).lower(*args).as_text())


@pytest.mark.parametrize('args', [
    ((2, 5, 6, 3), (3, 2, 3, 4), (2, 1), 'SAME', ('NHWC', 'HWIO', 'NHWC')),
    ((2, 5, 6, 3), (3, 2, 3, 4), (2, 2), 'VALID', ('NHWC', 'HWIO', 'NHWC')),
    ((2, 3, 5, 6), (4, 3, 2, 3), (1, 2), ((1, 1), (0, 2)), ('NCHW', 'OIHW', 'NCHW'))])
def test_conv_transpose_shape_tuple_is_jax_s(args):
    assert mlax.conv_transpose_shape_tuple(*args) == jax.lax.conv_transpose_shape_tuple(*args)


def test_conv_variants_refuse_what_jax_refuses():
    x, k = np.ones((2, 5, 6, 3)), np.ones((3, 2, 3, 4))
    with pytest.raises(ValueError, match='Invalid padding mode: FULL'):
        mlax.conv_transpose(x, k, (1, 1), 'FULL', use_consistent_padding=True)
    with pytest.raises(ValueError, match='No 4\\+ dimensional dimension_number defaults'):
        mlax.conv_transpose(np.ones((1,) * 6), np.ones((1,) * 6), (1,) * 4, 'SAME')
    with pytest.raises(ValueError, match='Unsupported precision for conv_general_dilated_local'):
        mlax.conv_general_dilated_local(np.ones((2, 3, 5, 6)), np.ones((4, 18, 4, 4)), (1, 1),
                                        'VALID', (2, 3), precision=mlax.DotAlgorithmPreset.DEFAULT)
