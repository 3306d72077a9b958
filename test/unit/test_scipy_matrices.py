"""SciPy's special matrices (``minijax.scipy.linalg.toeplitz``, ``pascal``, ...) against
``jax.scipy.linalg`` (x64): values, dtypes and shapes, batched where JAX batches, under jit
(one program per constructor), a gradient through the vector-valued ones, and JAX's errors;
then the functions of matrices written on the decompositions (``polar`` and
``lax.linalg.qdwh``, ``expm_frechet``)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as mnp
import minijax.scipy.linalg as ml

JL = jax.scipy.linalg


#: name -> calls, each a function of (linalg namespace, vector v, batch of vectors w)
CASES = {
    'block_diag': [lambda L, v, w: L.block_diag(np.ones((1, 1)), w, v[:3], 5.),
                   lambda L, v, w: L.block_diag()],
    'circulant': [lambda L, v, w: L.circulant(v), lambda L, v, w: L.circulant(w)],
    'companion': [lambda L, v, w: L.companion(v), lambda L, v, w: L.companion(w)],
    'convolution_matrix': [lambda L, v, w: L.convolution_matrix(v, 3),
                           lambda L, v, w: L.convolution_matrix(v, 7, 'same'),
                           lambda L, v, w: L.convolution_matrix(w, 3, 'valid')],
    'dft': [lambda L, v, w: L.dft(4), lambda L, v, w: L.dft(5, 'sqrtn'),
            lambda L, v, w: L.dft(3, 'n', dtype=np.complex64)],
    'fiedler': [lambda L, v, w: L.fiedler(v), lambda L, v, w: L.fiedler(w)],
    'fiedler_companion': [lambda L, v, w: L.fiedler_companion(v),
                          lambda L, v, w: L.fiedler_companion(w),
                          lambda L, v, w: L.fiedler_companion(v[:2])],
    'hadamard': [lambda L, v, w: L.hadamard(8), lambda L, v, w: L.hadamard(4, np.float32)],
    'hankel': [lambda L, v, w: L.hankel(v), lambda L, v, w: L.hankel(v, w)],
    'helmert': [lambda L, v, w: L.helmert(5), lambda L, v, w: L.helmert(4, full=True)],
    'hilbert': [lambda L, v, w: L.hilbert(4)],
    'invhilbert': [lambda L, v, w: L.invhilbert(5)],
    'invpascal': [lambda L, v, w: L.invpascal(5), lambda L, v, w: L.invpascal(4, 'lower'),
                  lambda L, v, w: L.invpascal(4, 'upper')],
    'leslie': [lambda L, v, w: L.leslie(v, v[:4]), lambda L, v, w: L.leslie(w, w[:, 1:])],
    'pascal': [lambda L, v, w: L.pascal(5), lambda L, v, w: L.pascal(4, 'upper')],
    'toeplitz': [lambda L, v, w: L.toeplitz(v), lambda L, v, w: L.toeplitz(v, v[:3]),
                 lambda L, v, w: L.toeplitz(w, v), lambda L, v, w: L.toeplitz(v + 1j),
                 lambda L, v, w: L.toeplitz(np.arange(3))],
}


@pytest.mark.parametrize('name', CASES)
def test_values_against_jax(name, rng):
    v, w = rng.normal(size=5), rng.normal(size=(2, 4))
    calls = CASES[name]
    mine = minijax.jit(lambda v, w: [call(ml, v, w) for call in calls])(v, w)
    theirs = jax.jit(lambda v, w: [call(JL, v, w) for call in calls])(v, w)
    for m, t in zip(mine, theirs):
        assert_close(m, t)


def test_grads_through_the_vector_constructors(rng):
    v, w = rng.normal(size=5), rng.normal(size=(2, 4))
    weights = rng.normal(size=(5, 5))

    def loss(L, np_):
        return lambda v: (np_.sum(L.toeplitz(v) * weights) + np_.sum(L.hankel(v) ** 2)
                          + np_.sum(L.companion(v) * weights[:4, :4])
                          + np_.sum(L.convolution_matrix(v, 3) ** 2))
    assert_close(minijax.jit(minijax.grad(loss(ml, mnp)))(v), jax.jit(jax.grad(loss(JL, jnp)))(v))
    assert_close(minijax.jit(minijax.vmap(ml.circulant))(w), jax.vmap(JL.circulant)(w))


#: call -> exception type JAX raises
BAD_INPUTS = {
    'block_diag-3d': (lambda L: L.block_diag(np.ones((1, 1, 1))), ValueError),
    'companion-short': (lambda L: L.companion(np.ones(1)), ValueError),
    'fiedler_companion-empty': (lambda L: L.fiedler_companion(np.ones(0)), ValueError),
    'convolution_matrix-n': (lambda L: L.convolution_matrix(np.ones(3), 0), ValueError),
    'convolution_matrix-mode': (lambda L: L.convolution_matrix(np.ones(3), 2, 'x'), ValueError),
    'convolution_matrix-scalar': (lambda L: L.convolution_matrix(1., 2), ValueError),
    'dft-scale': (lambda L: L.dft(3, 'x'), ValueError),
    'dft-dtype': (lambda L: L.dft(3, dtype=np.float64), ValueError),
    'hadamard-not-power-of-2': (lambda L: L.hadamard(3), ValueError),
    'helmert-zero': (lambda L: L.helmert(0), ValueError),
    'pascal-kind': (lambda L: L.pascal(3, 'x'), ValueError),
    'invpascal-kind': (lambda L: L.invpascal(3, 'x'), ValueError),
    'leslie-lengths': (lambda L: L.leslie(np.ones(3), np.ones(3)), ValueError),
    'hankel-scalar': (lambda L: L.hankel(1.), ValueError),
}


@pytest.mark.parametrize('case', BAD_INPUTS)
def test_bad_input_raises_jax_exception_type(case):
    call, error = BAD_INPUTS[case]
    with pytest.raises(error):
        call(JL)
    with pytest.raises(error):
        call(ml)


def test_polar_qdwh_and_expm_frechet(rng):
    """JAX's iterations, so JAX's bits: QDWH (padded by ``dynamic_shape`` too) and the SVD
    route, both sides, batched; ``expm_frechet`` is ``expm``'s JVP."""
    tall, wide = rng.normal(size=(5, 3)), rng.normal(size=(2, 3, 4))
    square = rng.normal(size=(4, 4))
    direction = rng.normal(size=(4, 4))

    def program(L, lax_linalg, tall, wide, square, direction):
        return (L.polar(tall), L.polar(wide, 'left'), L.polar(tall, method='svd'),
                L.polar(wide, 'right', method='svd'), lax_linalg.qdwh(square),
                lax_linalg.qdwh(tall, max_iterations=3),
                lax_linalg.qdwh(tall, dynamic_shape=(4, 2)),
                L.expm_frechet(square, direction),
                L.expm_frechet(square / 10, direction, compute_expm=False))
    mine = minijax.jit(lambda *a: program(ml, minijax.lax.linalg, *a))(
        tall, wide, square, direction)
    theirs = jax.jit(lambda *a: program(JL, jax.lax.linalg, *a))(tall, wide, square, direction)
    for m, t in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs)):
        assert_close(m, t)


@pytest.mark.parametrize('call', [
    lambda L: L.polar(np.ones(3)), lambda L: L.polar(np.ones((3, 2)), 'x'),
    lambda L: L.polar(np.ones((3, 2)), method='x'),
    lambda L: L.expm_frechet(np.ones((2, 2)), np.ones((3, 3))),
    lambda L: L.expm_frechet(np.ones(2), np.ones(2))], ids=[
    'polar-vector', 'polar-side', 'polar-method', 'expm_frechet-shapes', 'expm_frechet-vector'])
def test_polar_and_expm_frechet_bad_input(call):
    for L in (JL, ml):
        with pytest.raises(ValueError):
            call(L)
    for qdwh in (jax.lax.linalg.qdwh, minijax.lax.linalg.qdwh):
        with pytest.raises(ValueError):
            qdwh(np.ones((2, 3)))


def test_schur_and_the_functions_built_on_it(rng):
    """``lax.linalg.schur`` (LAPACK's gees: real, complex, batched, float32, without vectors)
    and ``scipy.linalg.schur``, ``rsf2csf``, ``sqrtm``, ``funm`` (with complex ``eig`` under
    ``rsf2csf``): JAX's kernels and loops, so JAX's bits, eagerly and under jit."""
    a, batch = rng.normal(size=(4, 4)), rng.normal(size=(2, 3, 3))
    c = a + 1j * rng.normal(size=(4, 4))
    spd = a @ a.T + np.eye(4)

    def program(L, lax_linalg, np_, a, batch, c, spd):
        return (lax_linalg.schur(a), lax_linalg.schur(batch), lax_linalg.schur(c),
                lax_linalg.schur(a.astype(np.float32)),
                lax_linalg.schur(a, compute_schur_vectors=False),
                lax_linalg.eig(c), L.schur(a), L.schur(a, 'complex'), L.rsf2csf(*L.schur(a)),
                L.sqrtm(spd), L.sqrtm(a), L.funm(a, np_.exp),
                L.funm(spd, np_.log, disp=False))
    args = (a, batch, c, spd)
    mine = minijax.jit(lambda *x: program(ml, minijax.lax.linalg, mnp, *x))(*args)
    theirs = jax.jit(lambda *x: program(JL, jax.lax.linalg, jnp, *x))(*args)
    for m, t in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs)):
        assert_close(m, t)
    for m, t in zip(minijax.lax.linalg.schur(batch), jax.lax.linalg.schur(batch)):
        assert_close(m, t)


@pytest.mark.parametrize('call,error', [
    (lambda L, lax_linalg: lax_linalg.schur(np.ones((2, 3))), ValueError),
    (lambda L, lax_linalg: L.schur(np.eye(2), 'x'), ValueError),
    (lambda L, lax_linalg: L.sqrtm(np.eye(2), blocksize=2), NotImplementedError),
    (lambda L, lax_linalg: L.funm(np.ones((2, 3)), np.exp), ValueError),
    (lambda L, lax_linalg: L.rsf2csf(np.eye(2), np.eye(3)), ValueError)],
    ids=['schur-not-square', 'schur-output', 'sqrtm-blocksize', 'funm-not-square',
         'rsf2csf-shapes'])
def test_schur_family_bad_input(call, error):
    with pytest.raises(error):
        call(JL, jax.lax.linalg)
    with pytest.raises(error):
        call(ml, minijax.lax.linalg)
