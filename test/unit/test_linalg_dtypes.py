"""Every linear-algebra function over the four dtypes LAPACK takes (float32, float64,
complex64, complex128) against JAX: the values bit for bit (the same kernels), the gradient
of a real-valued loss (JAX's convention for complex inputs: ``df/dx - i df/dy``), a single
matrix and (in double precision) a batch where JAX batches; one compile per case and shape
(values and gradient in one ``jit``). The kernels each case calls are JAX's, named in the
module."""
import re

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
import minijax.scipy.linalg as msl
from minijax import lax as mlax

jax.config.update('jax_enable_x64', True)
DTYPES = ['float32', 'float64', 'complex64', 'complex128']


def _general(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == 'c':
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _hermitian(rng, shape, dtype):
    """Positive definite: ``x x^H + n I``."""
    x = _general(rng, shape, dtype)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _rhs(rng, shape, dtype):
    """A right-hand side ``[..., n, 2]`` for square matrices of ``shape``."""
    return _general(rng, (*shape[:-1], 2), dtype)


def _diagonal(rng, shape, dtype):
    """A diagonal ``[..., n]`` of a tridiagonal matrix of ``shape``."""
    return _general(rng, shape[:-1], dtype)


def _dominant(rng, shape, dtype):
    """A main diagonal that keeps the tridiagonal matrix far from singular."""
    return (_diagonal(rng, shape, dtype) + 4).astype(dtype)


def _reflectors(shape, k):
    """Makers of a householder_product or ormqr call: ``a`` ``[..., n + 1, n]``, ``k``
    scalars, and ``c`` ``[..., 2, n + 1]`` (``Q`` applied on the right)."""
    *batch, _, n = shape
    return [lambda rng, shape, dtype: _general(rng, (*batch, n + 1, n), dtype),
            lambda rng, shape, dtype: _general(rng, (*batch, k), dtype),
            lambda rng, shape, dtype: _general(rng, (*batch, 2, n + 1), dtype)]


#: name -> (function of (lax.linalg, numpy, scipy.linalg) namespaces, shapes, makers of its
#: arguments, the arguments differentiated). Each a kernel or a path of a rule of its own.
CASES = {
    'cholesky': (lambda L, n, s: L.cholesky, [(3, 3), (2, 4, 4)], [_hermitian], (0,)),
    'jnp-cholesky-upper': (lambda L, n, s: lambda x: n.linalg.cholesky(x, upper=True),
                           [(3, 3)], [_hermitian], (0,)),
    'triangular_solve-left-H': (lambda L, n, s: lambda a, b: L.triangular_solve(
        a, b, left_side=True, lower=True, transpose_a=True, conjugate_a=True),
        [(3, 3), (2, 3, 3)], [_hermitian, _rhs], (0, 1)),
    'triangular_solve-right-conj': (lambda L, n, s: lambda a, b: L.triangular_solve(
        a, b, conjugate_a=True), [(3, 3)],
        [_hermitian, lambda rng, shape, dtype: _general(rng, (2, shape[-1]), dtype)], (0, 1)),
    'lu': (lambda L, n, s: lambda x: L.lu(x)[0], [(3, 4), (2, 4, 3)], [_general], (0,)),
    'qr-reduced': (lambda L, n, s: lambda x: L.qr(x, full_matrices=False),
                   [(4, 3), (2, 3, 4)], [_general], (0,)),
    'qr-complete': (lambda L, n, s: L.qr, [(4, 2), (2, 3, 3)], [_general], (0,)),
    'eigh': (lambda L, n, s: L.eigh, [(3, 3), (2, 4, 4)], [_hermitian], (0,)),
    'eigh-upper-unsymmetrized': (lambda L, n, s: lambda x: L.eigh(
        x, lower=False, symmetrize_input=False), [(3, 3)], [_hermitian], ()),  # (grad: see
    # docs/semantics.md: minijax's reads the tangent's upper triangle, JAX's assumes it whole)
    'eig': (lambda L, n, s: L.eig, [(3, 3), (2, 4, 4)], [_general], ()),
    'eigvals': (lambda L, n, s: lambda x: L.eig(x, compute_left_eigenvectors=False,
                                                compute_right_eigenvectors=False),
                [(3, 3), (2, 4, 4)], [_general], (0,)),
    'svd': (lambda L, n, s: lambda x: L.svd(x, full_matrices=False),
            [(3, 4), (2, 4, 3)], [_general], (0,)),
    'svd-complete-values': (lambda L, n, s: lambda x: (L.svd(x), L.svd(x, compute_uv=False)),
                            [(2, 3, 4)], [_general], ()),
    'svd-qr-gesvd': (lambda L, n, s: lambda x: L.svd(x, full_matrices=False,
                                                     algorithm=L.SvdAlgorithm.QR),
                     [(3, 4), (2, 4, 3)], [_general], (0,)),
    'inv': (lambda L, n, s: n.linalg.inv, [(3, 3), (2, 4, 4)], [_general], (0,)),
    'solve': (lambda L, n, s: n.linalg.solve, [(3, 3), (2, 3, 3)], [_general, _rhs], (0, 1)),
    'det': (lambda L, n, s: n.linalg.det, [(2, 2), (3, 3), (2, 4, 4)], [_general], (0,)),
    'slogdet': (lambda L, n, s: n.linalg.slogdet, [(2, 2), (2, 4, 4)], [_general], (0,)),
    'pinv': (lambda L, n, s: n.linalg.pinv, [(3, 4), (2, 4, 3)], [_general], (0,)),
    'lstsq': (lambda L, n, s: lambda a, b: n.linalg.lstsq(a, b)[:2],
              [(4, 3)], [_general, lambda rng, shape, dtype: _general(rng, (4, 2), dtype)],
              (0, 1)),
    'matrix_power': (lambda L, n, s: lambda x: (n.linalg.matrix_power(x, 3),
                                                n.linalg.matrix_power(x, -2)),
                     [(3, 3)], [_general], (0,)),
    'matrix_rank-cond-norm': (lambda L, n, s: lambda x: (
        n.linalg.matrix_rank(x), n.linalg.cond(x), n.linalg.norm(x, 2),
        n.linalg.norm(x, 'nuc'), n.linalg.svd(x, hermitian=True)), [(3, 3)], [_hermitian], ()),
    'scipy-cholesky-cho_solve': (lambda L, n, s: lambda a, b: (
        s.cholesky(a), s.cho_solve(s.cho_factor(a, lower=True), b)),
        [(3, 3)], [_hermitian, _rhs], (1,)),
    'scipy-lu_solve': (lambda L, n, s: lambda a, b: [
        s.lu_solve(s.lu_factor(a), b, trans=t) for t in (0, 1, 2)],
        [(3, 3)], [_general, _rhs], (0, 1)),
    'scipy-solve_triangular': (lambda L, n, s: lambda a, b: [
        s.solve_triangular(a, b, trans=t, lower=True) for t in ('N', 'T', 'C')],
        [(3, 3)], [_general, _rhs], (0, 1)),
    'scipy-lu-expm': (lambda L, n, s: lambda x: (s.lu(x), s.expm(x)), [(3, 3)], [_general],
                      (0,)),
    # The Householder reductions and products: no derivatives (none in JAX either).
    'hessenberg-tridiagonal': (lambda L, n, s: lambda x, h: (
        L.hessenberg(x), L.tridiagonal(h), L.tridiagonal(h, lower=False)),
        [(3, 3), (2, 3, 3)], [_general, _hermitian], ()),
    'householder_product-ormqr': (lambda L, n, s: lambda a, taus, c: (
        L.householder_product(a, taus), L.ormqr(a, taus, c, left=False, transpose=True),
        L.ormqr(a, taus, c.mT)), [(3, 3)], _reflectors((3, 3), 2), ()),
    'tridiagonal_solve': (lambda L, n, s: L.tridiagonal_solve, [(3, 3), (2, 3, 3)],
                          [_diagonal, _dominant, _diagonal, _rhs], (0, 1, 2, 3)),
    'scipy-solve_sylvester': (lambda L, n, s: lambda a, b, c: (
        s.solve_sylvester(a, b, c), s.solve_sylvester(a, b, c, method='eigen')), [(3, 3)],
        [_general, lambda rng, shape, dtype: _general(rng, (2, 2), dtype),
         lambda rng, shape, dtype: _general(rng, (3, 2), dtype)], ()),
    'scipy-hessenberg-qr_multiply': (lambda L, n, s: lambda x, c: (
        s.hessenberg(x, calc_q=True), s.qr_multiply(x, c), s.qr_multiply(x, c, pivoting=True),
        s.qr_multiply(x[:, :2], c[:2], mode='left', conjugate=True)),
        [(3, 3)], [_general, _general], ()),
}


def _loss(np_, fn):
    """A real-valued function of every inexact output: fixed weights on the real and the
    imaginary parts, so every part of every output gets a cotangent."""
    def loss(*args):
        total = 0.
        for i, out in enumerate(jax.tree.leaves(fn(*args))):
            if np_.issubdtype(out.dtype, np_.inexact):
                weights = np_.cos(np_.arange(out.size) + i).reshape(out.shape)
                total = total + np_.sum(np_.real(out) * weights) + np_.sum(
                    np_.imag(out) * np_.sin(np_.arange(out.size) + i).reshape(out.shape))
        return total
    return loss


def _values_and_grad(jit, grad, L, np_, s, name):
    make, _, _, argnums = CASES[name]
    fn = make(L, np_, s)
    if not argnums:
        return jit(fn)
    return jit(lambda *args: (fn(*args), grad(_loss(np_, fn), argnums)(*args)))


def _assert_matches(got, expected, dtype):
    got, expected = jax.tree.leaves(got), jax.tree.leaves(expected)
    assert len(got) == len(expected)
    tol = 1e-4 if dtype in ('float32', 'complex64') else 1e-10
    for g, e in zip(got, expected):
        g, e = np.asarray(g), np.asarray(e)
        assert (g.shape, g.dtype) == (e.shape, e.dtype)
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


#: The dtypes that take each case's first shape only: a batch goes through the same rules
#: and kernel loop whatever the precision, so double precision (real and complex) batches.
_UNBATCHED = ('float32', 'complex64')


#: Cases whose values match JAX's to rounding only: their programs differ from JAX's, so
#: whether the last bits agree depends on the CPU XLA compiles for.
_VALUES_TO_ROUNDING = {
    'scipy-solve_sylvester': "the Bartels-Stewart loop body computes in another order than "
                             "JAX's (complex64 differed in the last bit on an AMD EPYC)",
}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name', CASES)
def test_values_and_grads_match_jax(name, dtype, rng):
    """The values bit for bit (to rounding for ``_VALUES_TO_ROUNDING``); the gradients to
    rounding (JAX's and minijax's programs for them differ in the order of some products)."""
    _, shapes, makers, argnums = CASES[name]
    if dtype in _UNBATCHED:
        shapes = shapes[:1]
    mine = _values_and_grad(minijax.jit, minijax.grad, mlax.linalg, mnp, msl, name)
    theirs = _values_and_grad(jax.jit, jax.grad, jax.lax.linalg, jnp, jsl, name)
    for shape in shapes:
        args = [make(rng, shape, dtype) for make in makers]
        got, expected = mine(*args), theirs(*args)
        values = (lambda t: t[0]) if argnums else (lambda t: t)
        if name in _VALUES_TO_ROUNDING:
            _assert_matches(values(got), values(expected), dtype)
        else:
            for g, e in zip(jax.tree.leaves(values(got)), jax.tree.leaves(values(expected))):
                g, e = np.asarray(g), np.asarray(e)
                assert (g.shape, g.dtype) == (e.shape, e.dtype)
                np.testing.assert_array_equal(g, e)
        if argnums:
            _assert_matches(got[1], expected[1], dtype)


def _kernels(text):
    return re.findall(r'custom_call @(lapack_\w+)\(.*mhlo\.backend_config = (\{[^}]*\})', text)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 3), (2, 3, 3)])
def test_module_text_is_jaxs(dtype, shape, rng):
    """One module over every decomposition, byte for byte JAX's (the custom calls with
    their attributes and Shardy rules, the NaN fills, the triangles); ``lu``'s kernel and
    options too (its permutation is a loop of minijax's own: ``docs/semantics.md``)."""
    def decompositions(L):
        def fn(x, h, tall):
            return (L.cholesky(h), L.triangular_solve(h, x, conjugate_a=True),
                    L.triangular_solve(h, x, left_side=True, transpose_a=True,
                                       conjugate_a=True),
                    L.qr(x), L.qr(tall, full_matrices=False), L.qr(tall), L.eigh(h), L.eig(x),
                    L.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
                    L.svd(x), L.svd(tall, compute_uv=False),
                    L.svd(tall, full_matrices=False, algorithm=L.SvdAlgorithm.QR))
        return fn
    args = (_general(rng, shape, dtype), _hermitian(rng, shape, dtype),
            _general(rng, (*shape[:-2], 4, 3), dtype))
    assert (minijax.jit(decompositions(mlax.linalg)).lower(*args).as_text()
            == jax.jit(decompositions(jax.lax.linalg)).lower(*args).as_text())

    def lu(L):
        return lambda x: L.lu(x)
    assert (_kernels(minijax.jit(lu(mlax.linalg)).lower(args[2]).as_text())
            == _kernels(jax.jit(lu(jax.lax.linalg)).lower(args[2]).as_text()))


@pytest.mark.parametrize('dtype', DTYPES)
def test_householder_module_text_is_jaxs(dtype, rng):
    """The reductions, the products of reflectors and the tridiagonal solves (batched:
    shared factors in the Shardy rules), byte for byte JAX's."""
    def calls(L):
        def fn(x, a, taus, c, dl, d, du, b):
            return (L.hessenberg(x), L.tridiagonal(x, lower=False),
                    L.householder_product(a, taus), L.ormqr(a, taus, c, left=False, transpose=True),
                    L.tridiagonal_solve(dl, d, du, b),
                    L.tridiagonal_solve(dl, d, du, b, perturb_singular=True))
        return fn
    shape = (2, 3, 3)
    makers = [_general, *_reflectors(shape, 2), _diagonal, _dominant, _diagonal, _rhs]
    args = [make(rng, shape, dtype) for make in makers]
    assert (minijax.jit(calls(mlax.linalg)).lower(*args).as_text()
            == jax.jit(calls(jax.lax.linalg)).lower(*args).as_text())


#: The eigenvectors (inverse iteration: most of the compile time) in one real and one
#: complex dtype; the eigenvalues alone (all, and a range of indices) in the other two.
_TRIDIAGONAL_VECTORS = {'float32': True, 'float64': False, 'complex64': False,
                        'complex128': True}


@pytest.mark.parametrize('dtype', DTYPES)
def test_eigh_tridiagonal_matches_jax(dtype, rng):
    """Bisection's eigenvalues bit for bit; the eigenvectors of inverse iteration (a cluster
    of equal eigenvalues among them, orthonormalized) to rounding: they move by ulps with
    XLA's fusion of the program (JAX's own differ by as much between jit and op-by-op)."""
    d = _general(rng, (6,), dtype).real.astype(dtype)
    e = _general(rng, (5,), dtype)
    d[3:], e[3] = 1, 0  # (rows 3..5: the eigenvalue 1 twice, a cluster)
    e[4] = 1e-12
    if _TRIDIAGONAL_VECTORS[dtype]:
        (w, v), (w_jax, v_jax) = msl.eigh_tridiagonal(d, e), jsl.eigh_tridiagonal(d, e)
        np.testing.assert_array_equal(w, w_jax)
        _assert_matches(v, v_jax, dtype)
        return
    for options in (dict(), dict(select='i', select_range=(1, 3), tol=1e-3)):
        np.testing.assert_array_equal(
            msl.eigh_tridiagonal(d, e, eigvals_only=True, **options),
            jsl.eigh_tridiagonal(d, e, eigvals_only=True, **options))


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_positive_definite_solve_grad_is_the_true_transpose(dtype, rng):
    """scipy's ``solve(assume_a='pos')``: JAX transposes its solve as if ``a^T = a``
    (``custom_linear_solve(symmetric=True)``), which a complex Hermitian ``a`` is not, so
    its gradient is wrong; minijax's agrees with JAX's forward derivative (``jvp``)."""
    a, b, db = _hermitian(rng, (3, 3), dtype), _rhs(rng, (3, 3), dtype), _rhs(rng, (3, 3), dtype)
    loss = _loss(mnp, lambda b: msl.solve(a, b, assume_a='pos'))
    jax_loss = _loss(jnp, lambda b: jsl.solve(a, b, assume_a='pos'))
    _, directional = jax.jvp(jax_loss, (b,), (db,))
    got = np.real(np.sum(np.asarray(minijax.jit(minijax.grad(loss))(b)) * db))
    np.testing.assert_allclose(got, directional, rtol=1e-4 if dtype == 'complex64' else 1e-10)


def test_lu_solve_refuses_a_bad_trans_as_jax_does():
    for s in (msl, jsl):
        with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2, got 3"):
            s.lu_solve(s.lu_factor(np.eye(2)), np.ones(2), trans=3)
