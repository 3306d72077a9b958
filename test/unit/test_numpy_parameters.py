"""The parameters of ``jax.numpy`` (and ``jnp.linalg``, ``jnp.fft``, ``jax.nn``,
``jax.scipy.special.logsumexp``, ``jax.ops``) that minijax takes as JAX 0.10.2 does:
``device=``, ``copy=``/``order=``, ``dtype=``, ``out=``, ``retstep``/``axis`` of ``linspace``,
``mean``/``correction`` of ``var``, ``promote_integers``, ``wrap_negative_indices``,
``total_repeat_length``, ``precision``/``preferred_element_type``, ``optimize``, quantile
``weights``, ``hermitian``, ``method``, ``subset_by_index`` and ``where=``; each row's value
(dtype, shape, weak type) against JAX's under x64, eagerly on small inputs, and the
exception JAX raises for a bad value. (``out_sharding=`` is in test_sharding_types.)

A row is a function of a namespace ``ns`` (minijax's or JAX's: ``ns.jnp``, ``ns.jax``) and
of its inputs, so one lambda states the call for both.
"""
import types

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as mjnp

MJ = types.SimpleNamespace(jax=minijax, jnp=mjnp, lax=minijax.lax)
JX = types.SimpleNamespace(jax=jax, jnp=jjnp, lax=jax.lax)

RNG = np.random.default_rng(32)
X = RNG.normal(size=(3, 4))                       # floats
H = X[:, :3] + X[:, :3].T                         # symmetric 3x3
I8 = RNG.integers(-100, 100, (3, 4)).astype(np.int8)
W = RNG.integers(0, 4, (3, 4)).astype(float)      # quantile weights
XN = np.where(X > 1, np.nan, X)                   # with NaNs
MASK = RNG.random((3, 4)) > .4
MASK[1] = False                                   # a row of nothing


def _device(ns):
    return ns.jax.devices()[0]


#: name -> program of ``ns``
VALUES = {
    # device=: the result placed on the device, its value unchanged
    **{f'{name}_device': program for name, program in {
        'arange': lambda ns: ns.jnp.arange(5, device=_device(ns)),
        'array': lambda ns: ns.jnp.array([1., 2.], device=_device(ns)),
        'asarray': lambda ns: ns.jnp.asarray(X, device=_device(ns)),
        'astype': lambda ns: ns.jnp.astype(X, np.int32, device=_device(ns)),
        'empty': lambda ns: ns.jnp.empty((2,), int, device=_device(ns)),
        'empty_like': lambda ns: ns.jnp.empty_like(prototype=X, device=_device(ns)),
        'eye': lambda ns: ns.jnp.eye(3, k=1, device=_device(ns)),
        'full': lambda ns: ns.jnp.full((2,), 3, device=_device(ns)),
        'full_like': lambda ns: ns.jnp.full_like(I8, 7., device=_device(ns)),
        'ones': lambda ns: ns.jnp.ones(3, device=_device(ns)),
        'ones_like': lambda ns: ns.jnp.ones_like(X, shape=(2,), device=_device(ns)),
        'zeros': lambda ns: ns.jnp.zeros(3, np.int8, device=_device(ns)),
        'zeros_like': lambda ns: ns.jnp.zeros_like(X, device=_device(ns)),
        'linspace': lambda ns: ns.jnp.linspace(0, 1, 5, device=_device(ns)),
        'fftfreq': lambda ns: ns.jnp.fft.fftfreq(5, device=_device(ns)),
        'rfftfreq': lambda ns: ns.jnp.fft.rfftfreq(6, .5, device=_device(ns)),
    }.items()},
    # copy=, order=, names JAX's callers pass by keyword
    'array_ndmin_no_copy': lambda ns: ns.jnp.array([1, 2], copy=False, ndmin=2, order=None),
    'asarray_copy': lambda ns: ns.jnp.asarray([1., 2.], copy=True, order='K'),
    'astype_copy': lambda ns: ns.jnp.astype(X, None, copy=True),
    'astype_complex_to_bool': lambda ns: ns.jnp.astype(np.array([1j, 0, 2]), bool),
    'copy_order': lambda ns: ns.jnp.copy(X, order='K'),
    'ravel_f': lambda ns: ns.jnp.ravel(X, 'F'),
    'reshape_f': lambda ns: ns.jnp.reshape(X, (2, 6), order='F'),
    'angle_deg': lambda ns: ns.jnp.angle(z=np.array([1 + 1j, -2j]), deg=True),
    'angle_int': lambda ns: ns.jnp.angle(3),
    'broadcast_to_array': lambda ns: ns.jnp.broadcast_to(array=X[0], shape=(2, 4)),
    'size_axis': lambda ns: ns.jnp.size(X, -1),
    'size_axes': lambda ns: ns.jnp.size(np.ones((2, 3, 4)), (0, 2)),
    # dtype=
    'concatenate_dtype': lambda ns: ns.jnp.concatenate([X, I8], dtype=np.float32),
    'concatenate_none_dtype': lambda ns: ns.jnp.concatenate([I8, I8], None, dtype=np.int16),
    'stack_dtype': lambda ns: ns.jnp.stack([X, X], 1, dtype=np.int32),
    'hstack_dtype': lambda ns: ns.jnp.hstack([I8, I8], dtype=np.float64),
    'vstack_dtype': lambda ns: ns.jnp.vstack([X, X], np.complex64),
    'argsort_dtype': lambda ns: ns.jnp.argsort(X, axis=0, dtype=np.int16),
    'argsort_descending_dtype': lambda ns: ns.jnp.argsort(X, descending=True, dtype=np.uint8),
    'cov_dtype': lambda ns: ns.jnp.cov(X, fweights=np.array([1, 2, 1, 3]), dtype=np.float32),
    'corrcoef_dtype': lambda ns: ns.jnp.corrcoef(X, dtype=np.complex128),
    'ravel_multi_index_dtype': lambda ns: ns.jnp.ravel_multi_index(
        (np.array([1, 0]), np.array([2, 1])), (2, 3), dtype=np.int8),
    # linspace
    'linspace_retstep': lambda ns: ns.jnp.linspace(0, 1, 5, retstep=True),
    'linspace_one_retstep': lambda ns: ns.jnp.linspace(0, 2, 1, endpoint=False, retstep=True),
    'linspace_empty_retstep': lambda ns: ns.jnp.linspace(0., 1, 0, retstep=True),
    'linspace_axis': lambda ns: ns.jnp.linspace(np.array([0., 1.]), 3, 4, axis=-1,
                                                retstep=True),
    # var, std, nanvar, nanstd
    'var_mean': lambda ns: ns.jnp.var(X, axis=1, mean=X.mean(1, keepdims=True) + 1),
    'var_correction': lambda ns: ns.jnp.var(X, axis=0, correction=.5, keepdims=True),
    'std_correction': lambda ns: ns.jnp.std(X, correction=1),
    'std_mean_where': lambda ns: ns.jnp.std(X, 1, mean=np.full((3, 1), .5), where=X > -1),
    'nanvar_mean': lambda ns: ns.jnp.nanvar(XN, axis=1, mean=np.ones((3, 1))),
    'nanstd_mean': lambda ns: ns.jnp.nanstd(XN, ddof=1, mean=np.ones((1, 1))),
    # sum, prod
    'sum_int8_unpromoted': lambda ns: ns.jnp.sum(I8, promote_integers=False),
    'sum_bool_unpromoted': lambda ns: ns.jnp.sum(MASK, 0, promote_integers=False),
    'prod_uint8_unpromoted': lambda ns: ns.jnp.prod(I8.astype(np.uint8), 1,
                                                    promote_integers=False),
    'sum_uint8_promoted': lambda ns: ns.jnp.sum(I8.astype(np.uint8), promote_integers=True),
    # take_along_axis, repeat
    'take_along_axis_no_wrap': lambda ns: ns.jnp.take_along_axis(
        X, np.array([[-1, 0], [1, -3], [2, 3]]), axis=1, wrap_negative_indices=False),
    'take_along_axis_wrap_promised': lambda ns: ns.jnp.take_along_axis(
        X, np.array([[-1, 0], [1, -3], [2, 3]]), 1, mode='promise_in_bounds',
        wrap_negative_indices=True),
    'repeat_array': lambda ns: ns.jnp.repeat(X, np.array([1, 0, 2, 1]), axis=1),
    'repeat_total_longer': lambda ns: ns.jnp.repeat(X, np.array([1, 0, 2]), axis=0,
                                                    total_repeat_length=5),
    'repeat_total_shorter': lambda ns: ns.jnp.repeat(X, 2, total_repeat_length=7),
    'repeat_scalar_total': lambda ns: ns.jnp.repeat(np.float32(3), 2, total_repeat_length=3),
    'repeat_zero_total': lambda ns: ns.jnp.repeat(X, np.array([0, 0, 0]), axis=0),
    # precision, preferred_element_type, einsum's optimize and _dot_general
    'dot_preferred': lambda ns: ns.jnp.dot(X, X.T, precision='highest',
                                           preferred_element_type=np.float32),
    'dot_int8_preferred': lambda ns: ns.jnp.dot(I8, I8.T, preferred_element_type=np.int32),
    'dot_scalar_preferred': lambda ns: ns.jnp.dot(3, 4., preferred_element_type=np.float32),
    'matmul_preferred': lambda ns: ns.jnp.matmul(
        I8, I8.T, precision=ns.lax.Precision.HIGHEST, preferred_element_type=np.float64),
    'inner_preferred': lambda ns: ns.jnp.inner(X, X, preferred_element_type=np.float32),
    'inner_scalar_preferred': lambda ns: ns.jnp.inner(np.int8(100), I8,
                                                      preferred_element_type=np.int32),
    'vdot_preferred': lambda ns: ns.jnp.vdot(X, X, preferred_element_type=np.float32),
    'vecdot_preferred': lambda ns: ns.jnp.vecdot(X, X, axis=0,
                                                 preferred_element_type=np.float32),
    'tensordot_preferred': lambda ns: ns.jnp.tensordot(X, X.T, 1, precision='high',
                                                       preferred_element_type=np.float32),
    'einsum_optimal': lambda ns: ns.jnp.einsum('ij,jk,kl->il', X, X.T, X),
    'einsum_unoptimized': lambda ns: ns.jnp.einsum('ij,jk,kl->il', X, X.T, X, optimize=False),
    'einsum_path': lambda ns: ns.jnp.einsum('ij,jk,kl->il', X, X.T, X, optimize=[(1, 2), (0, 1)]),
    'einsum_preferred': lambda ns: ns.jnp.einsum('ij,kj->ik', I8, I8, optimize='greedy',
                                                 preferred_element_type=np.int32),
    'einsum_one_operand_preferred': lambda ns: ns.jnp.einsum('ij->i', I8,
                                                             preferred_element_type=np.int32),
    'einsum_dot_general': lambda ns: ns.jnp.einsum('ij,kj->ik', X, X,
                                                   _dot_general=ns.lax.dot_general),
    # weights of the quantiles
    'quantile_weights': lambda ns: ns.jnp.quantile(X, .5, weights=W, method='inverted_cdf'),
    'quantile_axis_weights': lambda ns: ns.jnp.quantile(
        X, np.array([.1, .5, 1.]), axis=1, weights=W[0], method='inverted_cdf', keepdims=True),
    'quantile_inverted_cdf': lambda ns: ns.jnp.quantile(X, .3, axis=0, method='inverted_cdf'),
    'quantile_nan_weights': lambda ns: ns.jnp.quantile(XN, .5, axis=1, weights=W,
                                                       method='inverted_cdf'),
    'quantile_negative_weight': lambda ns: ns.jnp.quantile(X, .5, axis=1, weights=W - 1,
                                                           method='inverted_cdf'),
    'nanquantile_weights': lambda ns: ns.jnp.nanquantile(
        XN, np.array([0., .5]), axis=1, weights=W, method='inverted_cdf'),
    'percentile_weights': lambda ns: ns.jnp.percentile(X, 50, axis=1, weights=W[0],
                                                       method='inverted_cdf'),
    'nanpercentile_weights': lambda ns: ns.jnp.nanpercentile(XN, 40, axis=1, weights=W[0],
                                                             method='inverted_cdf'),
    # linalg
    'svd_hermitian_values': lambda ns: ns.jnp.linalg.svd(H, hermitian=True, compute_uv=False),
    'svd_hermitian_product': lambda ns: (lambda u, s, vh: (s, u @ (s[:, None] * vh)))(
        *ns.jnp.linalg.svd(H, hermitian=True)),
    'svd_subset_whole': lambda ns: ns.jnp.linalg.svd(X, False, subset_by_index=(0, 3))[1],
    'matrix_rank_hermitian': lambda ns: ns.jnp.linalg.matrix_rank(
        np.outer(X[0, :3], X[0, :3]), hermitian=True),
    'slogdet_qr': lambda ns: ns.jnp.linalg.slogdet(X[:, :3], method='qr'),
    'slogdet_qr_2x2': lambda ns: ns.jnp.linalg.slogdet(X[:2, :2], method='qr'),
    'slogdet_lu': lambda ns: ns.jnp.linalg.slogdet(X[:, :3], method='lu'),
    # where=
    'softmax_where': lambda ns: ns.jax.nn.softmax(X, where=MASK),
    'log_softmax_where': lambda ns: ns.jax.nn.log_softmax(X, axis=0, where=MASK),
    'logsumexp_where': lambda ns: ns.jax.nn.logsumexp(X, axis=1, where=MASK),
    'special_logsumexp_where': lambda ns: ns.jax.scipy.special.logsumexp(
        X, b=X, where=MASK, return_sign=True),
    'softmax_where_grad': lambda ns: ns.jax.grad(
        lambda x: (ns.jax.nn.softmax(x, where=MASK) * x).sum())(X),
    'initializers_ones': lambda ns: ns.jax.nn.initializers.ones(None, (2, 3), out_sharding=None),
}


def _leaves(ns, out):
    return ns.jax.tree_util.tree_leaves(out)


@pytest.mark.parametrize('name', sorted(VALUES))
def test_parameter_values(name):
    mine, theirs = VALUES[name](MJ), VALUES[name](JX)
    mine, theirs = _leaves(MJ, mine), _leaves(JX, theirs)
    assert len(mine) == len(theirs)
    for m, t in zip(mine, theirs):
        assert_close(m, t)
        assert getattr(m, 'weak_type', False) == getattr(t, 'weak_type', False)


def test_device_placement():
    """The result is on the device asked for (a Device, or a Sharding of one)."""
    device = minijax.devices()[-1]
    sharding = minijax.sharding.SingleDeviceSharding(device)
    for out in (mjnp.zeros(3, device=device), mjnp.arange(3, device=sharding),
                mjnp.eye(2, device=device), mjnp.fft.fftfreq(4, device=sharding)):
        assert [d.id for d in out.devices()] == [device.id]


#: name -> (program of ``ns``): JAX's exception class for a bad value
ERRORS = {
    'array_order': lambda ns: ns.jnp.array([1], order='C'),
    'asarray_order': lambda ns: ns.jnp.asarray([1], order='F'),
    'copy_order': lambda ns: ns.jnp.copy(X, order='F'),
    'ravel_order_k': lambda ns: ns.jnp.ravel(X, 'K'),
    'reshape_order_a': lambda ns: ns.jnp.reshape(ns.jnp.asarray(X), 12, order='A'),
    'reshape_order_bad': lambda ns: ns.jnp.reshape(ns.jnp.asarray(X), 12, order='Q'),
    'device_and_out_sharding': lambda ns: ns.jnp.zeros(2, device=_device(ns),
                                                       out_sharding=ns.jax.P()),
    'size_repeated_axis': lambda ns: ns.jnp.size(X, (0, 0)),
    'stack_out': lambda ns: ns.jnp.stack([X], out=X),
    'take_out': lambda ns: ns.jnp.take(X, 1, out=X),
    'outer_out': lambda ns: ns.jnp.outer(X, X, out=X),
    'isposinf_out': lambda ns: ns.jnp.isposinf(X, out=X),
    'isneginf_out': lambda ns: ns.jnp.isneginf(X, X),
    'sum_out': lambda ns: ns.jnp.sum(X, out=X),
    'einsum_out': lambda ns: ns.jnp.einsum('ij->i', X, out=X),
    'var_ddof_and_correction': lambda ns: ns.jnp.var(X, ddof=1, correction=1),
    'std_ddof_and_correction': lambda ns: ns.jnp.std(X, ddof=1, correction=0),
    'cov_integer_dtype': lambda ns: ns.jnp.cov(X, dtype=int),
    'corrcoef_bool_dtype': lambda ns: ns.jnp.corrcoef(X, dtype=bool),
    'ravel_multi_index_narrow': lambda ns: ns.jnp.ravel_multi_index(
        (np.array([1]), np.array([2])), (200, 3), dtype=np.int8),
    'ravel_multi_index_float': lambda ns: ns.jnp.ravel_multi_index(
        (np.array([1]), np.array([2])), (2, 3), dtype=np.float32),
    'repeat_traced': lambda ns: ns.jax.jit(lambda r: ns.jnp.repeat(X, r, axis=1))(
        np.array([1, 2, 3, 1])),
    'repeat_scalar_array': lambda ns: ns.jnp.repeat(np.float32(3), np.array([1, 2])),
    'quantile_weights_linear': lambda ns: ns.jnp.quantile(X, .5, weights=W),
    'quantile_weights_shape': lambda ns: ns.jnp.quantile(X, .5, weights=W[0],
                                                         method='inverted_cdf'),
    'quantile_weights_axes': lambda ns: ns.jnp.quantile(X, .5, axis=1, weights=np.ones(3),
                                                        method='inverted_cdf'),
    'quantile_complex_weights': lambda ns: ns.jnp.quantile(X, .5, weights=W + 1j,
                                                           method='inverted_cdf'),
    'slogdet_method': lambda ns: ns.jnp.linalg.slogdet(X[:, :3], method='cholesky'),
    'slogdet_qr_complex': lambda ns: ns.jnp.linalg.slogdet(X[:, :3] + 1j, method='qr'),
    'dot_preferred_bad': lambda ns: ns.jnp.dot(X, X.T, preferred_element_type='x'),
}


def _raised(thunk):
    try:
        thunk()
    except Exception as error:  # noqa: BLE001 (its class is what is compared)
        return error
    return None


@pytest.mark.parametrize('name', sorted(ERRORS))
def test_parameter_errors(name):
    theirs = _raised(lambda: ERRORS[name](JX))
    assert theirs is not None
    mine = _raised(lambda: ERRORS[name](MJ))
    # (by name: minijax has its own ConcretizationTypeError)
    assert type(theirs).__name__ in [c.__name__ for c in type(mine).__mro__], (mine, theirs)
