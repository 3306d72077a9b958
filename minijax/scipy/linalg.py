"""Linear algebra, as ``jax.scipy.linalg`` defines it, on ``minijax.lax.linalg``.

The same LAPACK kernels as JAX, called in the same way, so the same bits. SciPy's names
and conventions differ from ``jnp.linalg``'s: ``cholesky`` gives the upper factor unless
``lower=True`` and reads one triangle only (no symmetrizing), ``eigh`` returns ``(w, v)``,
``lu`` returns ``(p, l, u)`` with ``a = p l u``, and the factorizations come in pairs for
their solvers (``cho_factor``/``cho_solve``, ``lu_factor``/``lu_solve``). The arguments
SciPy has for memory and checks (``overwrite_a``, ``check_finite``, ...) are accepted and
ignored, as in JAX.
"""

import functools

import numpy as np

from minijax import control_flow, core, custom_derivatives, dtypes
from minijax import numpy as jnp
from minijax.interpreters import batching
from minijax.jit import jit as _jit
from minijax.lax import linalg as lax_linalg
from minijax.numpy.linalg import _H, _float_matrix, _solve_operands
from minijax.scipy._schur_functions import funm, rsf2csf, schur, sqrtm  # noqa: F401
from minijax.scipy._householder_functions import hessenberg, qr_multiply  # noqa: F401
from minijax.scipy._sylvester import solve_sylvester  # noqa: F401
from minijax.scipy._tridiagonal import eigh_tridiagonal  # noqa: F401
from minijax.scipy._matrices import (  # noqa: F401 (re-exported)
    block_diag, circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion,
    hadamard, hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal, toeplitz)

__all__ = ['block_diag', 'cho_factor', 'cho_solve', 'cholesky', 'circulant', 'companion',
           'convolution_matrix', 'det', 'dft', 'eigh', 'eigh_tridiagonal', 'expm', 'expm_frechet',
           'fiedler', 'fiedler_companion', 'funm', 'hadamard', 'hankel', 'helmert', 'hessenberg',
           'hilbert', 'inv', 'invhilbert', 'invpascal', 'leslie', 'lu', 'lu_factor', 'lu_solve',
           'pascal', 'polar', 'qr', 'qr_multiply', 'rsf2csf', 'schur', 'solve', 'solve_sylvester',
           'solve_triangular', 'sqrtm', 'svd', 'toeplitz']


def _solved(name, a, b, solve_matrices):
    """``solve_matrices(a, b)`` for a vector or a matrix ``b`` (batch axes broadcast)."""
    a, b, vector = _solve_operands(name, a, b)
    x = solve_matrices(a, b)
    return x[..., 0] if vector else x

# ----------------------------------------------------------------------------- triangular


#: SciPy's ``trans`` -> whether ``a`` is transposed, and conjugated
_TRANSPOSED = {0: (False, False), 'N': (False, False), 1: (True, False), 'T': (True, False),
               2: (True, True), 'C': (True, True)}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """``x`` with ``op(a) x = b``, ``op(a)`` the lower (or upper) triangle of ``a``,
    transposed for ``trans`` 1 or 'T', conjugate transposed for 2 or 'C'."""
    if trans not in _TRANSPOSED:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got "
                         f'{trans!r}')
    transpose_a, conjugate_a = _TRANSPOSED[trans]
    return _solved('solve_triangular', a, b, lambda a, b: lax_linalg.triangular_solve(
        a, b, left_side=True, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
        unit_diagonal=unit_diagonal))

# ----------------------------------------------------------------------------- Cholesky


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of ``a``: upper ``U`` with ``a = U^H U``, or lower ``L`` with
    ``a = L L^H``. Only that triangle of ``a`` is read."""
    a = _float_matrix('cholesky', a)
    factor = lax_linalg.cholesky(a if lower else _H(a), symmetrize_input=False)
    return factor if lower else _H(factor)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)``: the Cholesky factor and which triangle it is, for ``cho_solve``."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """``x`` with ``a x = b`` from ``cho_factor(a)``: two triangular solves."""
    c, lower = c_and_lower
    return _solved('cho_solve', c, b, lambda c, b: _cho_solve_matrices(c, b, lower))


def _cho_solve_matrices(c, b, lower):
    y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                    conjugate_a=not lower)
    return lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower,
                                       conjugate_a=lower)

# ----------------------------------------------------------------------------- LU


def lu_factor(a, overwrite_a=False, check_finite=True):
    """``(lu, pivots)``: ``L`` (unit diagonal) and ``U`` in one matrix, and the row swaps,
    for ``lu_solve``."""
    lu_, pivots, _ = lax_linalg.lu(_float_matrix('lu_factor', a, square=False, error=TypeError))
    return lu_, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """``x`` with ``a x = b`` from ``lu_factor(a)`` (``trans`` 1: ``a^T x = b``, 2:
    ``a^H x = b``)."""
    lu_, pivots = lu_and_piv
    m = core.get_aval(lu_).shape[-2]
    permutation = lax_linalg.lu_pivots_to_permutation(pivots, m)
    return _solved('lu_solve', lu_, b,
                   lambda lu_, b: lax_linalg._lu_solve(lu_, permutation, b, trans))


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """``(p, l, u)`` with ``a = p l u``: ``p`` a permutation matrix, ``l`` unit lower
    triangular ``[m, k]``, ``u`` upper triangular ``[k, n]`` (``k = min(m, n)``);
    ``(p l, u)`` if ``permute_l``."""
    a = _float_matrix('lu', a, square=False, error=TypeError)  # JAX's class
    if jnp.ndim(a) != 2:
        raise ValueError(f'lu: a must be a matrix [m, n], got {core.get_aval(a).str_short()}')
    lu_, _, permutation = lax_linalg.lu(a)
    m, n = jnp.shape(a)
    k = min(m, n)
    dtype = core.get_aval(a).dtype
    p = (permutation[None, :] == jnp.arange(m, dtype=permutation.dtype)[:, None]).astype(
        dtypes.real_part_dtype(dtype))  # (JAX's: real, for a complex a too)
    l = jnp.tril(lu_, -1)[:, :k] + jnp.eye(m, k, dtype=dtype)  # noqa: E741 (SciPy's name)
    u = jnp.triu(lu_)[:k, :]
    return (jnp.matmul(p, l), u) if permute_l else (p, l, u)

# ----------------------------------------------------------------------------- solve


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a='gen'):
    """``x`` with ``a x = b``: by LU (``jnp.linalg.solve``), or for ``assume_a='pos'`` (a
    positive definite ``a``) by Cholesky, reading the ``lower`` (or upper) triangle."""
    if assume_a not in ('gen', 'sym', 'her', 'pos'):
        raise ValueError(f"solve: assume_a must be 'gen', 'sym', 'her' or 'pos', got "
                         f'{assume_a!r}')
    if assume_a != 'pos':
        return jnp.linalg.solve(a, b)
    return _solved('solve', a, b, lambda a, b: _cho_solve_positive(a, b, lower))


def _cho_solve_positive_primal(a, b, lower):
    return _cho_solve_matrices(cholesky(a, lower=lower), b, lower)


_cho_solve_positive = custom_derivatives.custom_jvp(_cho_solve_positive_primal,
                                                    nondiff_argnums=(2,))


@_cho_solve_positive.defjvp
def _cho_solve_positive_jvp(lower, primals, tangents):
    """``x' = a^-1 (b' - a' x)`` with ``a``'s Cholesky factor (JAX's custom_linear_solve)."""
    (a, b), (a_dot, b_dot) = primals, tangents
    c = cholesky(a, lower=lower)
    x = _cho_solve_matrices(c, b, lower)
    return x, _cho_solve_matrices(c, b_dot - jnp.matmul(a_dot, x), lower)

# ----------------------------------------------------------------------------- the rest


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse matrix (``jnp.linalg.inv``)."""
    return jnp.linalg.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    """The determinant (``jnp.linalg.det``)."""
    return jnp.linalg.det(a)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):  # noqa: A002 (SciPy's name)
    """``(w, v)``: the eigenvalues (ascending) and eigenvectors of a symmetric matrix, or
    ``w`` alone. The generalized problem (``b``) is not supported, as in JAX."""
    if b is not None or type != 1 or eigvals is not None:
        raise NotImplementedError('eigh: only b=None, type=1, eigvals=None are supported '
                                  '(as in JAX)')
    v, w = lax_linalg.eigh(_float_matrix('eigh', a, error=TypeError), lower=lower)
    return w if eigvals_only else (w, v)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver='gesdd'):
    """``(u, s, vh)`` with ``a = u diag(s) vh``, or ``s`` alone."""
    a = _float_matrix('svd', a, square=False, error=TypeError)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def _polar_matrix(a, side, method, eps, max_iterations):
    m, n = a.shape
    if method == 'qdwh':
        if m >= n and side == 'right':
            unitary, posdef, _, _ = lax_linalg.qdwh(a, eps=eps)
        elif m < n and side == 'left':
            unitary, posdef, _, _ = lax_linalg.qdwh(a.T.conj(), eps=eps)
            unitary, posdef = unitary.T.conj(), posdef.T.conj()
        else:
            raise NotImplementedError(f"method='qdwh' only supports mxn matrices where m < n "
                                      f"where side='right' and m >= n side='left', got "
                                      f"{a.shape} with side={side!r}")
        return unitary, posdef
    if method != 'svd':
        raise ValueError(f'Unknown polar decomposition method {method}.')
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    s = s.astype(u.dtype)
    if side == 'right':
        return u @ vh, (vh.T.conj() * s[None, :]) @ vh
    return u @ vh, (u * s[None, :]) @ u.T.conj()


@functools.partial(_jit, static_argnames=('side', 'method'))
def polar(a, side='right', *, method='qdwh', eps=None, max_iterations=None):
    """``(u, p)``: ``a = u p`` (``side='right'``, ``p`` ``[n, n]``) or ``a = p u`` (left),
    ``u`` with orthonormal columns or rows, ``p`` positive semidefinite; by QDWH
    (``lax.linalg.qdwh``) or the SVD."""
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError('The input `a` must be at least a 2-D array.')
    if side not in ('right', 'left'):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    signature = '(m,n)->(m,n),(n,n)' if side == 'right' else '(m,n)->(m,n),(m,m)'
    return jnp.vectorize(functools.partial(_polar_matrix, side=side, method=method, eps=eps,
                                           max_iterations=max_iterations), signature=signature)(a)


#: SciPy's qr ``mode`` -> whether ``q`` is square
_QR_FULL = {'full': True, 'r': True, 'economic': False}


def qr(a, overwrite_a=False, lwork=None, mode='full', pivoting=False, check_finite=True):
    """``(q, r)`` with ``a = q r`` (``mode='economic'``: ``q`` ``[m, k]``), or ``(r,)`` for
    ``mode='r'``."""
    if mode not in _QR_FULL:
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    a = _float_matrix('qr', a, square=False, error=TypeError)
    q, r = lax_linalg.qr(a, pivoting=pivoting, full_matrices=_QR_FULL[mode])
    return (r,) if mode == 'r' else (q, r)



# ----------------------------------------------------------------------------- expm

#: The numerator coefficients b_0..b_m of the [m/m] Pade approximants of exp (Higham, "The
#: scaling and squaring method for the matrix exponential revisited", 2005): p(A) = U + V
#: with the odd powers in U, the even in V, and q(A) = V - U.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
#: Per dtype: the largest 1-norm each degree is accurate for (the last degree's is where
#: squaring begins), lowest degree first.
_PADE_BOUNDS = {
    'float64': ((3, 5, 7, 9, 13), (0.01495585217958292, 0.253939833006323, 0.9504178996162932,
                                   2.097847961257068), 5.371920351148152),
    'float32': ((3, 5, 7), (0.4258730016922831, 1.880152677804762), 3.92572478313866),
}
_PADE_BOUNDS.update(complex128=_PADE_BOUNDS['float64'], complex64=_PADE_BOUNDS['float32'])


def _even_powers(a, highest):
    """``{0: I, 2: a^2, 4: a^4, ...}`` up to ``highest``, each from the last times ``a^2``."""
    a2 = jnp.dot(a, a)
    powers = {0: jnp.eye(*a.shape, dtype=a.dtype), 2: a2}
    for k in range(4, highest + 1, 2):
        powers[k] = jnp.dot(powers[k - 2], a2)
    return powers


def _weighted_sum(b, powers, terms, total=None):
    """``total + b[i] a^k + ...`` over ``terms`` (pairs ``(i, k)``), added left to right."""
    for i, k in terms:
        term = b[i] * powers[k]
        total = term if total is None else total + term
    return total


def _pade(m, a):
    """``(U, V)`` of the degree-``m`` approximant. Degree 13 uses powers up to ``a^6`` only:
    its highest terms are ``a^6`` times a sum of lower powers."""
    b = _PADE[m]
    odd = [(j, j - 1) for j in range(m, 0, -2)]
    even = [(j, j) for j in range(m - 1, -1, -2)]
    if m < 13:
        powers = _even_powers(a, m - 1)
        return jnp.dot(a, _weighted_sum(b, powers, odd)), _weighted_sum(b, powers, even)
    powers = _even_powers(a, 6)
    a6 = powers[6]
    high_u = jnp.dot(a6, _weighted_sum(b, powers, [(13, 6), (11, 4), (9, 2)]))
    high_v = jnp.dot(a6, _weighted_sum(b, powers, [(12, 6), (10, 4), (8, 2)]))
    return (jnp.dot(a, _weighted_sum(b, powers, odd[3:], high_u)),
            _weighted_sum(b, powers, even[3:], high_v))


def _scaled_pade(a):
    """``(P, Q, s)``: ``a`` scaled by ``2^-s`` until its 1-norm is within the highest
    degree's bound, and the numerator and denominator of the lowest degree accurate for it."""
    degrees, bounds, max_norm = _PADE_BOUNDS[a.dtype.name]
    norm = jnp.linalg.norm(a, 1)
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm / max_norm)))
    a = a / 2 ** n_squarings.astype(a.dtype)
    index = jnp.sum(jnp.array(bounds, norm.dtype) <= norm).astype(dtypes.int32)
    u, v = control_flow.switch(index, [functools.partial(_pade, m) for m in degrees], a)
    return u + v, -u + v, n_squarings


def _squaring(r, n_squarings, max_squarings):
    """``r`` squared ``n_squarings`` times, in a loop of ``max_squarings`` steps."""
    def step(r, i):
        return control_flow.cond(i < n_squarings, lambda x: jnp.dot(x, x), lambda x: x, r), None
    return control_flow.scan(step, r, jnp.arange(max_squarings, dtype=n_squarings.dtype))[0]


@functools.partial(_jit, static_argnames=('upper_triangular', 'max_squarings'))
def expm(A, *, upper_triangular=False, max_squarings=16):  # noqa: N803 (SciPy's name)
    """The matrix exponential by scaling and squaring with Pade approximants (Higham 2005),
    as JAX computes it: NaN where more than ``max_squarings`` squarings would be needed."""
    a = _float_matrix('expm', A)
    if a.ndim > 2:
        batch = a.shape[:-2]
        flat = jnp.reshape(a, (-1, *a.shape[-2:]))
        out = batching.vmap(functools.partial(expm, upper_triangular=upper_triangular,
                                              max_squarings=max_squarings))(flat)
        return jnp.reshape(out, a.shape[:-2] + out.shape[-2:]) if batch else out
    if a.dtype.name not in _PADE_BOUNDS:
        raise TypeError(f'expm: A.dtype={a.dtype} is not supported.')
    p, q, n_squarings = _scaled_pade(a)

    def compute(operands):
        _, p, q = operands
        r = solve_triangular(q, p) if upper_triangular else jnp.linalg.solve(q, p)
        return _squaring(r, n_squarings, max_squarings)

    return control_flow.cond(n_squarings > max_squarings, lambda ops: jnp.full_like(ops[0], np.nan),
                             compute, (a, p, q))


def expm_frechet(A, E, *, method=None, compute_expm=True):  # noqa: N803 (SciPy's names)
    """The Frechet derivative of ``expm`` at ``A`` in the direction ``E`` (``expm``'s JVP, as
    in JAX), with ``expm(A)`` first unless ``compute_expm=False``."""
    from minijax.autodiff import jvp
    a, e = jnp.asarray(A), jnp.asarray(E)
    if a.ndim < 2 or a.shape[-2] != a.shape[-1]:
        raise ValueError(f'expected A to be a (batched) square matrix, got A.shape={a.shape}')
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f'expected E to be a (batched) square matrix, got E.shape={e.shape}')
    if a.shape != e.shape:
        raise ValueError(f'expected A and E to be the same shape, got A.shape={a.shape} '
                         f'E.shape={e.shape}')
    expm_a, derivative = jvp(functools.partial(expm, upper_triangular=False, max_squarings=16),
                             (a,), (e,))
    return (expm_a, derivative) if compute_expm else derivative
