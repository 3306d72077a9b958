"""jax.lax.linalg and jnp.linalg against JAX: the same LAPACK kernels, so the same bits
(eagerly and under jit, float32 and float64, batched and vmapped), gradients, every rule of
each decomposition primitive (``check_rules``; its lowering under XLA alone, since the
reference interpreter cannot run a custom call) and the errors."""
import pathlib
import re

import jax
import jax.numpy as jnp
import jax.scipy.linalg  # noqa: F401 (jax.scipy.linalg)
import numpy as np
import pytest
from testlib import jax_answer

import minijax
import minijax.numpy as mnp
import minijax.scipy.linalg  # noqa: F401 (minijax.scipy.linalg)
from minijax import core, lax as mlax
from minijax.flops import flops_rules
from minijax.lax import householder
from minijax.reference_interpreter import InterpreterError, run_module
from minijax.testing import RULE_CHECKS, check_rule

jax.config.update('jax_enable_x64', True)
RNG = np.random.default_rng(11)
A = RNG.standard_normal((4, 4))
SPD = A @ A.T + np.eye(4)
WIDE = RNG.standard_normal((3, 5))
TALL = WIDE.T.copy()
A3 = RNG.standard_normal((3, 3))
B = RNG.standard_normal((4, 2))
#: lax.linalg's primitives, and geqrf's and geqp3's (internal, as in JAX: the QR of
#: scipy.linalg.qr_multiply)
LINALG_PRIMITIVES = [v for v in vars(mlax.linalg).values() if isinstance(v, core.Primitive)] + [
    householder.geqrf_p, householder.geqp3_p]


def _assert_same_bits(got, expected):
    got, expected = jax.tree.leaves(got), jax.tree.leaves(expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        g, e = np.asarray(g), np.asarray(e)
        assert (g.shape, g.dtype) == (e.shape, e.dtype)
        np.testing.assert_array_equal(g, e)


#: name -> (function of a linalg namespace, arguments): each a different kernel or path.
LAX_CASES = {
    'cholesky-batched': (lambda L: L.cholesky, [np.stack([SPD, 2 * SPD])]),
    'cholesky-not-positive-definite': (lambda L: L.cholesky, [A]),
    'triangular_solve': (lambda L: lambda a, b: L.triangular_solve(
        a, b, left_side=True, lower=True, transpose_a=True), [SPD, B]),
    'lu-wide': (lambda L: L.lu, [WIDE]),
    'qr-tall-complete': (lambda L: lambda x: L.qr(x, full_matrices=True), [TALL]),
    'eigh': (lambda L: L.eigh, [SPD]),
    'svd-wide-reduced': (lambda L: lambda x: L.svd(x, full_matrices=False), [WIDE]),
    'hessenberg': (lambda L: L.hessenberg, [A]),
    'tridiagonal_solve-perturbed': (lambda L: lambda *a: L.tridiagonal_solve(
        *a, perturb_singular=True), [A[0], A[1] + 4, A[2], B]),
    # (real matrices only, as in JAX: lax formulas, not LAPACK calls)
    'symmetric_product': (lambda L: lambda a, c: L.symmetric_product(
        a, c, alpha=-2., beta=.5, symmetrize_output=True), [np.stack([WIDE, 2 * WIDE]),
                                                          np.stack([A3, A3.T])]),
    'cholesky_update': (lambda L: L.cholesky_update, [np.triu(A) + 4 * np.eye(4), B[:, 0]]),
}


#: The primitive each case checks the rules of (course tasks: ``@pytest.mark.rule``).
CASE_PRIMITIVES = {name: name.split('-')[0] for name in LAX_CASES}


@pytest.mark.rule('impl', 'lowering', primitives=CASE_PRIMITIVES)
@pytest.mark.parametrize('name', LAX_CASES)
def test_lax_linalg_gives_jax_bits_eagerly_and_under_jit(name):
    make, args = LAX_CASES[name]
    expected = jax.jit(make(jax.lax.linalg))(*args)
    _assert_same_bits(make(mlax.linalg)(*args), expected)
    _assert_same_bits(minijax.jit(make(mlax.linalg))(*args), expected)


@pytest.mark.rule('impl', primitives=CASE_PRIMITIVES)
@pytest.mark.parametrize('name', LAX_CASES)
def test_impl_matches_jax(name, eager_on_numpy):
    """The NumPy impls, which eager evaluation leaves for XLA's kernels (``eager_on_xla``)
    and ``check_rules`` takes for ground truth: close to JAX's answers."""
    make, args = LAX_CASES[name]
    got, expected = jax.tree.leaves(make(mlax.linalg)(*args)), jax.tree.leaves(
        jax.jit(make(jax.lax.linalg))(*args))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def test_float32_gives_jax_bits():
    x = SPD.astype(np.float32)
    for name in ('cholesky', 'eigh', 'inv', 'svd'):
        _assert_same_bits(getattr(mnp.linalg, name)(x), getattr(jnp.linalg, name)(x))


@pytest.mark.parametrize('name,args', [
    ('solve', [np.stack([A, SPD]), B]), ('det', [A3]), ('det', [A]), ('slogdet', [A]),
    ('eigh', [SPD]), ('qr', [TALL]), ('svd', [WIDE]), ('pinv', [WIDE]),
    ('matrix_rank', [WIDE]), ('inv', [np.arange(4).reshape(2, 2) + 1]),
], ids=lambda v: v if isinstance(v, str) else '')
def test_jnp_linalg_gives_jax_bits(name, args):
    """Values and result types (EighResult, SVDResult, ...): what JAX prints."""
    got, expected = getattr(mnp.linalg, name)(*args), getattr(jnp.linalg, name)(*args)
    _assert_same_bits(got, expected)
    if isinstance(expected, tuple):
        assert type(got).__name__ == type(expected).__name__


@pytest.mark.parametrize('name,args', [('inv', [A]), ('det', [A3]), ('cholesky', [SPD])])
def test_jnp_linalg_grads_give_jax_bits(name, args):
    def loss(linalg, np_):
        return lambda *xs: np_.sum(np_.sin(jax.tree.leaves(getattr(linalg, name)(*xs))[-1]))
    argnums = tuple(range(len(args)))
    _assert_same_bits(minijax.grad(loss(mnp.linalg, mnp), argnums)(*args),
                      jax.grad(loss(jnp.linalg, jnp), argnums)(*args))


#: name -> (decomposition of a lax.linalg namespace, shape of its operand): a path of a JVP
#: rule of its own (a batch of non-square matrices, the complete QR of a tall matrix).
GRAD_CASES = {
    'svd-batch-wide': (lambda L: lambda x: L.svd(x, full_matrices=False), (2, 3, 4)),
    'svd-batch-tall': (lambda L: lambda x: L.svd(x, full_matrices=False), (2, 4, 3)),
    'svd-values-batch': (lambda L: lambda x: L.svd(x, compute_uv=False), (3, 2, 4)),
    'qr-tall-complete': (lambda L: lambda x: L.qr(x, full_matrices=True), (5, 3)),
    'qr-batch-tall-complete': (lambda L: lambda x: L.qr(x, full_matrices=True), (2, 4, 2)),
}


@pytest.mark.rule('jvp', 'transpose', primitives={name: name.split('-')[0] for name in GRAD_CASES})
@pytest.mark.parametrize('name', GRAD_CASES)
def test_lax_linalg_grads_match_jax(name, rng):
    make, shape = GRAD_CASES[name]
    x = rng.standard_normal(shape)

    def loss(linalg, np_):
        return lambda x: sum(np_.sum(np_.sin(out)) for out in jax.tree.leaves(make(linalg)(x)))
    expected = jax_answer(jax.grad(loss(jax.lax.linalg, jnp)), x)
    for grad in (minijax.grad, lambda f: minijax.jit(minijax.grad(f))):
        np.testing.assert_allclose(grad(loss(mlax.linalg, mnp))(x), expected, rtol=1e-9)


#: jax.scipy.linalg and the jnp.linalg functions built on the decompositions: each call a
#: different path (transposed or vector right-hand sides, the lower factor, a permutation).
SCIPY_CASES = {
    'solve_triangular-T-vector': lambda L: L.solve_triangular(SPD, B[:, 0], trans=1),
    'cho_solve-lower': lambda L: L.cho_solve(L.cho_factor(SPD, lower=True), B),
    'lu_solve': lambda L: L.lu_solve(L.lu_factor(A), B[:, 0]),
    'lu-wide': lambda L: L.lu(WIDE),
    'solve-pos': lambda L: L.solve(SPD, B, assume_a='pos'),
    'eigh-svd-qr': lambda L: (L.eigh(SPD), L.svd(TALL, full_matrices=False),
                              L.qr(TALL, mode='r')),
    # Pade degrees 3, 9 and 13 with 4 squarings (a batch: every branch under vmap).
    'expm': lambda L: L.expm(np.stack([A * 1e-3, A / 4, A * 20])),
}
JNP_LINALG_CASES = {
    'lstsq': lambda L: L.lstsq(TALL, WIDE[0] + 1.),
    'matrix_power': lambda L: (L.matrix_power(A, 5), L.matrix_power(A, -2)),
    'multi_dot': lambda L: L.multi_dot([B[:, 0], SPD, B, WIDE[:2], TALL]),
    'cond-tensorsolve': lambda L: (L.cond(A), L.cond(A, 1),
                                   L.tensorsolve(SPD.reshape(4, 2, 2), B[:, 0])),
    'norm-2-nuc': lambda L: (L.norm(WIDE, 2), L.norm(np.stack([A, SPD]), 'nuc', (2, 1), True)),
    'svdvals-tensorinv': lambda L: (L.svdvals(TALL), L.tensorinv(SPD.reshape(4, 2, 2), ind=1)),
}


@pytest.mark.parametrize('name', SCIPY_CASES)
def test_scipy_linalg_gives_jax_bits(name):
    _assert_same_bits(SCIPY_CASES[name](minijax.scipy.linalg), SCIPY_CASES[name](jax.scipy.linalg))


@pytest.mark.parametrize('name', JNP_LINALG_CASES)
def test_jnp_linalg_on_decompositions_gives_jax_bits(name):
    _assert_same_bits(JNP_LINALG_CASES[name](mnp.linalg), JNP_LINALG_CASES[name](jnp.linalg))


def test_scipy_solve_pos_grad_gives_jax_bits():
    """The Cholesky solve's derivative reuses the factor, as JAX's custom_linear_solve."""
    def loss(L, m):
        return lambda a, b: m.sum(m.sin(L.solve(a, b, assume_a='pos')))
    _assert_same_bits(minijax.grad(loss(minijax.scipy.linalg, mnp), (0, 1))(SPD, B),
                      jax.grad(loss(jax.scipy.linalg, jnp), (0, 1))(SPD, B))


def test_vmap_matches_jax():
    """Batch axes other than 0; a triangular solve with a shared matrix becomes one solve
    with more right-hand sides, as in JAX."""
    bs = np.stack([B, 2 * B, -B], axis=2)
    solve = lambda L: lambda b: L.triangular_solve(SPD, b, left_side=True, lower=True)  # noqa
    _assert_same_bits(minijax.vmap(solve(mlax.linalg), 2)(bs), jax.vmap(solve(jax.lax.linalg), 2)(bs))
    mats = np.stack([A, SPD], axis=1)
    _assert_same_bits(minijax.vmap(mnp.linalg.inv, 1)(mats), jax.vmap(jnp.linalg.inv, 1)(mats))
    _assert_same_bits(minijax.vmap(mlax.linalg.hessenberg, 1)(mats),
                      jax.vmap(jax.lax.linalg.hessenberg, 1)(mats))

    def tridiagonal(L):  # shared diagonals: one solve with more right-hand sides
        return lambda b: L.tridiagonal_solve(A[0], A[1] + 4, A[2], b)
    _assert_same_bits(minijax.vmap(tridiagonal(mlax.linalg), 2)(bs[:, :1]),
                      jax.vmap(tridiagonal(jax.lax.linalg), 2)(bs[:, :1]))
    taus = np.stack([A[0, :2], A[1, :2]])  # one matrix of reflectors, two sets of scalars

    def product(L):
        return lambda t: L.householder_product(TALL, t)
    _assert_same_bits(minijax.vmap(product(mlax.linalg))(taus),
                      jax.vmap(product(jax.lax.linalg))(taus))


def test_lax_formulas_module_text_is_jaxs():
    """symmetric_product and cholesky_update lower to JAX's lax formulas (a product at the
    highest precision; Givens rotations in stablehlo.case, rows scattered): JAX's text."""
    def symmetric(L):
        return lambda a, c: L.symmetric_product(a, c, alpha=2., beta=.5, symmetrize_output=True)
    cases = [(symmetric, (np.stack([WIDE, WIDE]), np.stack([A3, A3.T]))),
             (lambda L: L.cholesky_update, (np.triu(A3) + 3 * np.eye(3), A3[0]))]
    for make, args in cases:
        assert (minijax.jit(make(mlax.linalg)).lower(*args).as_text()
                == jax.jit(make(jax.lax.linalg)).lower(*args).as_text())


@pytest.mark.parametrize('primitive,kind', [
    pytest.param(p, kind, id=f'{p}-{kind}', marks=pytest.mark.rule(kind))
    for p in LINALG_PRIMITIVES for kind in RULE_CHECKS])
def test_check_rules(primitive, kind):
    """Every rule against an independent answer (finite differences, a loop, the impl), one
    at a time (``check_rule``), so that a course task's grade runs its own."""
    params = {'triangular_solve': dict(left_side=False, lower=False, transpose_a=True,
                                       conjugate_a=False, unit_diagonal=True),
              'qr': dict(full_matrices=False), 'eigh': dict(lower=True, sort_eigenvalues=True),
              'svd': dict(full_matrices=False, compute_uv=True, algorithm=None),
              'eig': dict(compute_left_eigenvectors=False, compute_right_eigenvectors=False,
                          enable_eigvec_derivs=False),
              'schur': dict(compute_schur_vectors=True, sort_eig_vals=False,
                            select_callable=None),
              'tridiagonal': dict(lower=False), 'ormqr': dict(left=False, transpose=True),
              'tridiagonal_solve': dict(perturb_singular=False),
              'symmetric_product': dict(alpha=2., beta=.5),
              'lu_pivots_to_permutation': dict(permutation_size=4)}.get(primitive.name, {})
    args = {'triangular_solve': [A3, WIDE[:2, :3]], 'lu': [WIDE], 'qr': [TALL],
            'svd': [WIDE], 'geqrf': [TALL], 'geqp3': [WIDE],
            'householder_product': [TALL, WIDE[0, :2]],
            'ormqr': [TALL, WIDE[0, :2], WIDE[:2]],
            'tridiagonal_solve': [A3[0], A3[1] + 4, A3[2], A3[:, :2]],
            'symmetric_product': [WIDE[:, :2], A3 + A3.T],
            'cholesky_update': [np.triu(A3) + 3 * np.eye(3), A3[0]],
            'lu_pivots_to_permutation': [np.array([2, 3, 2], np.int32)],
            }.get(primitive.name, [A3 @ A3.T + np.eye(3)])
    check_rule(kind, primitive, *args, **params)


@pytest.mark.parametrize('primitive', LINALG_PRIMITIVES, ids=str)
def test_primitive_has_a_lit_test_and_a_flops_rule(primitive):
    """The guard tests of test_rules.py cover the primitives of minijax.lax itself; these
    live in minijax.lax.linalg, as in JAX."""
    lit = pathlib.Path(__file__).parents[1] / 'lit' / 'primitives'
    word = re.compile(rf'\b{primitive.name}\b')
    assert any(word.search(f.read_text()) for f in lit.glob('*.py'))
    assert primitive in flops_rules


@pytest.mark.parametrize('thunk,error,message', [
    (lambda: mlax.linalg.cholesky(np.ones((2, 3))), TypeError,
     r'square.*added to its transpose.*float64\[2,3\]'),
    (lambda: mlax.linalg.eigh(np.ones((2, 3)), symmetrize_input=False), ValueError,
     r'eigh: the operand must be a square matrix \[..., m, m\], got float64\[2,3\]'),
    (lambda: mlax.linalg.cholesky(np.ones(3)), TypeError, r'rank at least 2.*float64\[3\]'),
    (lambda: mlax.linalg.svd(np.ones(3)), TypeError,
     r'svd: the operand must have rank at least 2 \(a matrix \[..., m, n\]\), got float64\[3\]'),
    (lambda: mlax.linalg.lu(np.ones(3)), TypeError, r'lu: .*rank at least 2.*float64\[3\]'),
    (lambda: mlax.linalg.qr(np.ones(3)), TypeError, r'qr: .*rank at least 2.*float64\[3\]'),
    (lambda: mlax.linalg.lu(np.ones((2, 2), np.int32)), TypeError, r'lu.*int32\[2,2\]'),
    (lambda: mlax.linalg.eigh(np.ones((2, 2), np.float16)), TypeError, r'float16'),
    (lambda: mlax.linalg.triangular_solve(np.eye(2), np.ones((3, 1)), left_side=True),
     ValueError, r'a float64\[2,2\] does not fit b float64\[3,1\]'),
    (lambda: mnp.linalg.solve(np.eye(2), np.ones(3)), ValueError, r'solve.*\[3\]'),
    (lambda: mnp.linalg.inv(np.ones((2, 3))), ValueError, r'inv.*\[2,3\]'),
    (lambda: mnp.linalg.qr(np.eye(2), mode='raw'), ValueError, 'raw'),
    (lambda: minijax.scipy.linalg.cho_solve((np.eye(2), True), np.ones(3)), ValueError,
     r'cho_solve.*float64\[2,2\].*\[3\]'),
    (lambda: mnp.linalg.lstsq(np.eye(2), np.ones(3)), ValueError, r'lstsq.*float64\[3,1\]'),
    (lambda: mlax.linalg.lu_pivots_to_permutation(np.zeros(4, np.int32), 2), ValueError,
     r'lu_pivots_to_permutation: permutation_size 2 is smaller than the number of pivots, 4'),
    (lambda: mlax.linalg.lu_pivots_to_permutation(np.zeros(4), 4), TypeError,
     r'lu_pivots_to_permutation: pivots must be int32 .*got float64\[4\]'),
    (lambda: mlax.linalg.lu_pivots_to_permutation(np.int32(0), 4), TypeError,
     r'lu_pivots_to_permutation: pivots must be int32 of rank at least 1, got int32\[\]'),
], ids=['non-square', 'non-square-unsymmetrized', 'rank-1', 'svd-rank-1', 'lu-rank-1',
        'qr-rank-1', 'int', 'float16', 'shapes', 'solve', 'inv', 'qr-mode',
        'cho_solve', 'lstsq', 'pivots-too-many', 'pivots-float', 'pivots-scalar'])
def test_bad_input_is_refused_when_traced(thunk, error, message):
    """JAX's exception types (a rank below 2 is a TypeError, as a non-square matrix that
    symmetrize_input adds to its transpose; a non-square one otherwise a ValueError)."""
    with pytest.raises(error, match=message):
        minijax.make_jaxpr(thunk)()
    with pytest.raises(error, match=message):
        thunk()


def test_interpreter_refuses_a_custom_call_naming_its_kernel():
    module = minijax.jit(mlax.linalg.cholesky).lower(SPD).compiler_ir()
    with pytest.raises(InterpreterError, match='custom_call @lapack_dpotrf_ffi'):
        run_module(module, [SPD])


def test_cholesky_drops_a_cotangent_above_the_diagonal_as_jax_does():
    """lax.linalg.cholesky selects the zeros above the diagonal outside its primitive, as
    JAX does, so a cotangent there (NaN from 0 / 0 in the loss: fuzz seed 188069) is
    dropped, not spread over the whole gradient."""
    a = np.array([[4., 1., 0.], [1., 3., .5], [0., .5, 2.]])
    ct = np.array([[1., np.nan, np.nan], [1., 1., np.nan], [1., 1., 1.]])
    for lib in (minijax, jax):
        assert str(lib.make_jaxpr(lib.lax.linalg.cholesky)(a)).count('select_n') == 1
    np.testing.assert_array_equal(minijax.vjp(mlax.linalg.cholesky, a)[1](ct)[0],
                                  jax.vjp(jax.lax.linalg.cholesky, a)[1](ct)[0])

    def loss(lax):
        return lambda a: (lambda L: (L * L / (L * L)).sum())(lax.linalg.cholesky(a))
    np.testing.assert_array_equal(minijax.grad(loss(mlax))(a), jax.grad(loss(jax.lax))(a))


def test_implementation_enums_and_their_parameters():
    """JAX's enums (same members and values); the CPU choices give JAX's kernels' results,
    the others JAX's errors; qr's ``use_magma`` is for GPUs (ignored on CPU, as by JAX)."""
    for name in ('EigImplementation', 'EighImplementation', 'SvdAlgorithm'):
        mine, theirs = getattr(mlax.linalg, name), getattr(jax.lax.linalg, name)
        assert [(m.name, m.value) for m in mine] == [(t.name, t.value) for t in theirs]
    L, J = mlax.linalg, jax.lax.linalg
    for algorithm in ('DIVIDE_AND_CONQUER', 'QR'):  # (LAPACK's gesdd and gesvd)
        _assert_same_bits(L.svd(WIDE, algorithm=L.SvdAlgorithm[algorithm]),
                          J.svd(WIDE, algorithm=J.SvdAlgorithm[algorithm]))
    _assert_same_bits(L.qr(TALL, use_magma=True), J.qr(TALL, use_magma=True))
    _assert_same_bits(L.eigh(SPD, implementation=L.EighImplementation.QR),
                      J.eigh(SPD, implementation=J.EighImplementation.QR))
    _assert_same_bits(L.eig(A, implementation=L.EigImplementation.LAPACK),
                      J.eig(A, implementation=J.EigImplementation.LAPACK))
    for ns in (L, J):
        with pytest.raises(NotImplementedError):
            jax.block_until_ready(ns.svd(WIDE, algorithm=ns.SvdAlgorithm.JACOBI))
        with pytest.raises(NotImplementedError):
            jax.block_until_ready(ns.eigh(SPD, implementation=ns.EighImplementation.JACOBI))
        with pytest.raises(NotImplementedError, match='QDWH'):
            jax.block_until_ready(ns.eigh(SPD, implementation=ns.EighImplementation.QDWH))
        with pytest.raises(ValueError):
            jax.block_until_ready(ns.eig(A, implementation=ns.EigImplementation.MAGMA))
