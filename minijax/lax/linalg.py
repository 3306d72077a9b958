"""Matrix decompositions (``jax.lax.linalg``): primitives lowered to jaxlib's LAPACK kernels.

On CPU JAX lowers each decomposition to a ``stablehlo.custom_call`` of one of the LAPACK
kernels jaxlib ships (``lapack_dpotrf_ffi``, ``lapack_dgetrf_ffi``, ...); minijax emits the
same calls with the same attributes, so its factors are JAX's, bit for bit. The kernels take
column-major matrices (the ``operand_layouts``) with any leading batch axes, report failure in
an ``info`` result (a matrix that fails becomes NaNs, as in JAX), and are registered with XLA
when the first module that calls them compiles (``minijax.runtime``). Eager evaluation runs them too
(``eager_on_xla``); the NumPy impls (``numpy.linalg``) are the reference executor's, and agree
up to rounding. The StableHLO reference interpreter cannot run a custom call.

Each primitive works on the last two axes; its vmap rule moves the batch axis to the front.
The JVP rules are JAX's formulas, written for one matrix and vmapped over the batch axes.
Matrices are float32, float64, complex64 or complex128 (LAPACK's ``s``, ``d``, ``c`` and ``z``
kernels) and not empty. For complex matrices the formulas conjugate where JAX's do: a
transpose becomes the conjugate transpose (``_H``); on real ones ``_H`` is ``_T``, untouched.
"""

import enum

import numpy as np
from jaxlib.mlir.dialects import chlo, stablehlo as hlo

from minijax import core, dtypes, lax, lowering
from minijax.interpreters import batching, jvp
from minijax.interpreters import transpose as ad
from minijax.lax import lapack

__all__ = ['EigImplementation', 'EighImplementation', 'SvdAlgorithm', 'cholesky', 'eig', 'eigh',
           'lu', 'lu_pivots_to_permutation', 'lu_pivots_to_permutation_p', 'qdwh', 'qr',
           'schur', 'svd', 'schur_p', 'triangular_solve', 'cholesky_p', 'eig_p',
           'eigh_p', 'lu_p', 'qr_p', 'svd_p', 'triangular_solve_p', 'hessenberg',
           'householder_product', 'ormqr', 'tridiagonal', 'hessenberg_p', 'householder_product_p',
           'ormqr_p', 'tridiagonal_p', 'tridiagonal_solve', 'tridiagonal_solve_p',
           'cholesky_update', 'cholesky_update_p', 'symmetric_product', 'symmetric_product_p']

# ----------------------------------------------------------------------------- user functions


class EigImplementation(enum.Enum):
    """Which kernel ``eig`` calls: on CPU, LAPACK's (the only one, as in JAX)."""
    CUSOLVER = 'cusolver'
    MAGMA = 'magma'
    LAPACK = 'lapack'


class EighImplementation(enum.Enum):
    """Which algorithm ``eigh`` runs: on CPU, QR (LAPACK's ``syevd``/``heevd``), as in JAX."""
    QR = 'qr'
    JACOBI = 'jacobi'
    QDWH = 'qdwh'


class SvdAlgorithm(enum.Enum):
    """Which algorithm ``svd`` runs: on CPU, divide and conquer (LAPACK's ``gesdd``, the
    default) or QR (``gesvd``), as in JAX."""
    DEFAULT = 'default'
    QR = 'QR'
    JACOBI = 'Jacobi'
    POLAR = 'polar'
    DIVIDE_AND_CONQUER = 'divide_and_conquer'


def _symmetrize(x):
    """``(x + x^H) / 2``: the Hermitian matrix ``cholesky`` and ``eigh`` decompose."""
    return lax.div(lax.add(x, _H(x)), 2.)


def cholesky(x, *, symmetrize_input=True):
    """The lower-triangular ``L`` with ``x = L L^T`` (NaNs where ``x`` is not positive
    definite). Without ``symmetrize_input`` only the lower triangle of ``x`` is read."""
    lapack.check_matrix('cholesky', core.get_aval(x), symmetrized=symmetrize_input)
    # The zeros above the diagonal are selected out here, as in JAX, not only inside the
    # primitive: so its transpose drops a cotangent there (a NaN too), as JAX's does.
    return _tril(cholesky_p.bind(_symmetrize(x) if symmetrize_input else x))


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """``x`` with ``op(a) x = b`` (``left_side``) or ``x op(a) = b``, where ``op(a)`` is the
    lower or upper triangle of ``a``, transposed if ``transpose_a``, with ones on its
    diagonal if ``unit_diagonal``. The other triangle of ``a`` is not read."""
    complex_a = dtypes.is_complex(core.get_aval(a).dtype)  # (JAX drops it for a real a)
    return triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                   transpose_a=bool(transpose_a),
                                   conjugate_a=bool(conjugate_a) and complex_a,
                                   unit_diagonal=bool(unit_diagonal))


def lu(x):
    """LU decomposition with partial pivoting, ``P x = L U``: ``(lu, pivots, permutation)``,
    ``L`` (unit diagonal, not stored) below and ``U`` on and above the diagonal of ``lu``;
    row ``i`` was swapped with row ``pivots[i]``; ``permutation`` is ``P`` as row indices."""
    lu_, pivots = lu_p.bind(x)
    return lu_, pivots, lu_pivots_to_permutation(pivots, core.get_aval(x).shape[-2])


def lu_pivots_to_permutation(pivots, permutation_size):
    """The row swaps ``pivots`` (int32, ``[..., k]``) applied in order to ``0..m-1``
    (``m = permutation_size``): the permutation ``P`` as row indices."""
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


def _permutation_loop(pivots, *, permutation_size):
    """The lowering: a loop over the pivots, as in JAX. Each step swaps two entries of every
    batch member at once, by comparing positions (``j`` differs between members). Under
    sharding in types the batch may be sharded (the permutations are, alike), the swaps not
    (the primitive's sharding rule, JAX's, refuses them)."""
    from minijax.control_flow import fori_loop  # (a layer above lax)
    aval = core.get_aval(pivots)
    shape = (*aval.shape[:-1], permutation_size)
    last = len(shape) - 1
    sharding = aval._sharding
    positions = lax.broadcasted_iota(dtypes.int32, shape, last, out_sharding=sharding)

    def at(index_column):
        return lax.eq(positions,
                      lax.broadcast_in_dim(index_column, shape, tuple(range(len(shape)))))

    def entry(perm, where):
        zeros = lax.full(shape, 0, dtypes.int32, sharding=sharding)
        return lax.reduce_sum(lax.select_n(where, zeros, perm), last)

    def swap(i, perm):
        zeros = (np.int32(0),) * last  # the loop index is int32: one dtype for all starts
        at_i = at(lax.dynamic_slice(positions, (*zeros, i), (*shape[:-1], 1)))
        at_j = at(lax.dynamic_slice(pivots, (*zeros, i), (*shape[:-1], 1)))
        p_i, p_j = (lax.broadcast_in_dim(entry(perm, w), shape, tuple(range(last)))
                    for w in (at_i, at_j))
        return lax.select_n(at_i, lax.select_n(at_j, perm, p_i), p_j)

    return fori_loop(np.int32(0), np.int32(aval.shape[-1]), swap, positions)


def _permutation_abstract_eval(pivots, *, permutation_size):
    _check_pivots(pivots, permutation_size)
    return core.ShapedArray((*pivots.shape[:-1], permutation_size), dtypes.int32)


def _permutation_impl(pivots, *, permutation_size):
    pivots = np.asarray(pivots)
    out = np.empty((*pivots.shape[:-1], permutation_size), np.int32)
    for index in np.ndindex(pivots.shape[:-1]):
        perm = np.arange(permutation_size, dtype=np.int32)
        for i, j in enumerate(pivots[index]):
            perm[[i, j]] = perm[[j, i]]
        out[index] = perm
    return out


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """``(t, q)`` with ``x = q t q^H``: ``t`` quasi-upper triangular (real ``x``: 2x2 blocks
    for complex pairs) or upper triangular (complex ``x``), ``q`` unitary; ``(t,)`` without
    ``compute_schur_vectors``. LAPACK's ``gees``; no derivative, as in JAX."""
    return tuple(schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors),
                              sort_eig_vals=bool(sort_eig_vals),
                              select_callable=select_callable))


def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """``(u, h, num_iters, is_converged)``: the polar decomposition ``x = u h`` by the
    QR-based dynamically weighted Halley iteration, as JAX runs it. Written with
    ``minijax.numpy`` (``minijax/scipy/_qdwh.py``), so imported when called."""
    from minijax.scipy._qdwh import qdwh as qdwh_
    return qdwh_(x, is_hermitian=is_hermitian, max_iterations=max_iterations, eps=eps,
                 dynamic_shape=dynamic_shape)


def _check_pivots(aval, permutation_size):
    """JAX's errors: int32 pivots of rank 1 or more, no more of them than rows to swap."""
    if aval.dtype != dtypes.int32 or aval.ndim < 1:
        raise TypeError(f'lu_pivots_to_permutation: pivots must be int32 of rank at least 1, '
                        f'got {aval.str_short()}')
    if permutation_size < aval.shape[-1]:
        raise ValueError(f'lu_pivots_to_permutation: permutation_size {permutation_size} is '
                         f'smaller than the number of pivots, {aval.shape[-1]} (pivots '
                         f'{aval.str_short()})')


def _lu_solve(lu, permutation, b, trans=0):
    """``x`` with ``a x = b`` (``trans`` 1: ``a^T x = b``; 2: ``a^H x = b``) from ``a``'s LU
    factors: ``b``'s rows permuted, then one solve with ``L`` (unit diagonal) and one with
    ``U``; transposed, the two solves come first and the rows are put back after, as JAX
    solves. ``b`` is ``[..., m, k]`` with ``lu``'s batch axes."""
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")

    def solve_one(lu, permutation, b):
        if trans == 0:
            x = _take_rows(b, permutation)
            x = triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
            return triangular_solve(lu, x, left_side=True, lower=False)
        conjugate = trans == 2
        x = triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True,
                             conjugate_a=conjugate)
        x = triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                             transpose_a=True, conjugate_a=conjugate)
        rows = core.get_aval(permutation).shape[0]
        _, inverse = lax.sort_key_val(permutation, lax.broadcasted_iota(dtypes.int32, (rows,), 0))
        return _take_rows(x, inverse)
    return _per_matrix(solve_one, lu, permutation, b)


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """``(q, r)`` with ``x = q r``, ``q`` orthonormal (unitary) columns and ``r`` upper
    triangular: ``q`` is ``[m, m]`` with ``full_matrices``, else ``[m, min(m, n)]``.
    ``use_magma`` picks a GPU kernel for ``pivoting``: on CPU JAX ignores it, as minijax does."""
    del use_magma
    if pivoting:
        raise NotImplementedError('lax.linalg.qr: minijax does not support pivoting=True')
    return tuple(qr_p.bind(x, full_matrices=bool(full_matrices)))


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
         subset_by_index=None, implementation=None):
    """``(v, w)``: eigenvectors (columns of ``v``) and ascending real eigenvalues ``w`` of a
    Hermitian (real symmetric) matrix. Without ``symmetrize_input`` only the ``lower`` (or
    upper) triangle of ``x`` is read. ``implementation``: QR only on CPU (JAX's errors for
    the others)."""
    if implementation == EighImplementation.QDWH:
        raise NotImplementedError('QDWH implementation is only supported on TPU')
    if implementation == EighImplementation.JACOBI:
        raise NotImplementedError('Jacobi implementation is not supported on CPU')
    lapack.check_matrix('eigh', core.get_aval(x), symmetrized=symmetrize_input)
    _whole_spectrum('eigh', x, subset_by_index)
    v, w = eigh_p.bind(_symmetrize(x) if symmetrize_input else x, lower=bool(lower),
                       sort_eigenvalues=bool(sort_eigenvalues))
    return v, w


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """``(u, s, vt)`` with ``x = u diag(s) vt`` and real ``s`` descending; only ``s`` without
    ``compute_uv``. ``algorithm``: divide and conquer (LAPACK's ``gesdd``, the default) or
    ``SvdAlgorithm.QR`` (``gesvd``); Jacobi and polar do not run on CPU (JAX's error)."""
    if algorithm not in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.QR,
                         SvdAlgorithm.DIVIDE_AND_CONQUER):
        raise NotImplementedError('The SVD Jacobi and Polar algorithms are not implemented on '
                                  'CPU.')
    _whole_spectrum('svd', x, subset_by_index)
    out = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                     algorithm=algorithm)
    if not compute_uv:
        return out[0]
    s, u, vt = out
    return u, s, vt


def _whole_spectrum(name, x, subset_by_index):
    shape = core.get_aval(x).shape
    if subset_by_index is not None and tuple(subset_by_index) != (0, min(shape[-2:])):
        raise NotImplementedError(f'lax.linalg.{name}: subset_by_index is not supported on '
                                  'CPU (by JAX either)')

# ----------------------------------------------------------------------------- traced helpers


def _T(x):
    """The matrix transpose: the last two axes swapped."""
    n = core.get_aval(x).ndim
    return lax.transpose(x, (*range(n - 2), n - 1, n - 2))


def _H(x):
    """The conjugate transpose; the transpose of a real matrix (no conj: JAX's ``conj`` of a
    real array is the array)."""
    return lax.conj(_T(x)) if dtypes.is_complex(core.get_aval(x).dtype) else _T(x)


def _matmul(a, b):
    """Matrix product over the last two axes, batched over the leading ones."""
    n = core.get_aval(a).ndim
    batch = tuple(range(n - 2))
    return lax.dot_general(a, b, (((n - 1,), (n - 2,)), (batch, batch)))


def _triangle_mask(shape, k):
    """``True`` on and below diagonal ``k`` of matrices of ``shape`` (``k < 0``: below),
    counted in int64 as JAX counts (its offset is a 64-bit integer): one matrix's mask,
    broadcast over the batch axes."""
    matrix = shape[-2:]
    rows = lax.broadcasted_iota(dtypes.int64, matrix, 0)
    mask = lax.ge(lax.add(rows, np.int64(k)), lax.broadcasted_iota(dtypes.int64, matrix, 1))
    n = len(shape)
    return mask if n == 2 else lax.broadcast_in_dim(mask, shape, (n - 2, n - 1))


def _zeros_like(aval):
    """Zeros of ``aval``'s type, its sharding too (JAX's zeros_like_array)."""
    return lax.full(aval.shape, 0, aval.dtype, sharding=aval._sharding)


def _tril(x, k=0):
    aval = core.get_aval(x)
    return lax.select_n(_triangle_mask(aval.shape, k), _zeros_like(aval), x)


def _triu(x, k=0):
    aval = core.get_aval(x)
    return lax.select_n(_triangle_mask(aval.shape, k - 1), x, _zeros_like(aval))


def _symmetric_from_triangle(x, lower):
    """The Hermitian matrix whose lower (or upper) triangle is ``x``'s: what a LAPACK
    kernel that reads one triangle sees. A Hermitian ``x`` comes back bit for bit (but for
    the imaginary parts of its diagonal, which a kernel ignores)."""
    triangle = _tril(x) if lower else _triu(x)
    other = _tril(x, -1) if lower else _triu(x, 1)
    return lax.add(triangle, _H(other))


def _eye(dtype, n):
    return lax.convert_element_type(lax.eq(lax.broadcasted_iota(dtypes.int32, (n, n), 0),
                                           lax.broadcasted_iota(dtypes.int32, (n, n), 1)),
                                    dtype)


def _diagonal(x):
    """The diagonal of a square matrix: exact, since all but one term of each sum is 0."""
    aval = core.get_aval(x)
    return lax.reduce_sum(lax.mul(x, _eye(aval.dtype, aval.shape[-1])), aval.ndim - 1)


def _astype(x, dtype):
    """``x`` as ``dtype``: no op when it is already (JAX's ``astype``)."""
    return x if core.get_aval(x).dtype == dtype else lax.convert_element_type(x, dtype)


def _real_part(x):
    """``x.real`` as JAX takes it: the real part of a complex ``x``, a real ``x`` itself."""
    return lax.real(x) if dtypes.is_complex(core.get_aval(x).dtype) else x


def _per_matrix(fn, *matrices):
    """``fn`` (written for one matrix) vmapped over the leading axes of ``matrices``: the
    batch axes, those of the arguments of highest rank (the matrices, not the vectors)."""
    for _ in range(max(core.get_aval(x).ndim for x in matrices) - 2):
        fn = batching.vmap(fn)
    return fn(*matrices)


def _take_rows(x, rows):
    """``x[rows]`` for a matrix ``x`` and int32 row indices."""
    numbers = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                         start_index_map=(0,))
    return lax.gather(x, lax.expand_dims(rows, (1,)), numbers, (1, core.get_aval(x).shape[1]),
                      unique_indices=True)

# ----------------------------------------------------------------------------- cholesky


def _cholesky_abstract_eval(x):
    lapack.check_matrix('cholesky', x)
    return core.ShapedArray(x.shape, x.dtype)


def _cholesky_one(a):
    """As LAPACK's potrf leaves it: ``L`` below and on the diagonal, ``a`` above (which
    ``cholesky`` zeroes, as JAX's)."""
    try:
        return (np.tril(np.linalg.cholesky(a)) + np.triu(a, 1),)
    except np.linalg.LinAlgError:  # not positive definite: NaNs, as the lowering gives
        return (np.full_like(a, np.nan),)


def _cholesky_jvp(primals, tangents):
    """``L' = L phi(L^-1 x' L^-H)``, ``phi`` taking the lower triangle with its diagonal
    halved (Murray 2016, arXiv:1602.07527), as JAX writes it. LAPACK reads only the lower
    triangle of ``x``, so ``x'`` counts through that triangle (a symmetric ``x'``, the
    usual case, is unchanged: the tangent is JAX's bit for bit). Above the diagonal the
    primitive gives ``x``'s upper triangle, as LAPACK leaves it (``cholesky`` zeroes it)."""
    (x,), (x_dot,) = primals, tangents
    factor = cholesky_p.bind(x)
    L = _tril(factor)
    upper_dot = _triu(x_dot, 1)
    x_dot = _symmetric_from_triangle(x_dot, lower=True)

    def tangent(L, x_dot):
        n = core.get_aval(L).shape[-1]
        tmp = triangular_solve(L, x_dot, left_side=False, transpose_a=True, conjugate_a=True,
                               lower=True)
        inner = triangular_solve(L, tmp, left_side=True, lower=True)
        phi = lax.div(_tril(inner), lax.add(1., _eye(core.get_aval(L).dtype, n)))
        return _matmul(L, phi)
    return factor, lax.add(_per_matrix(tangent, L, x_dot), upper_dot)


def _cholesky_lowering(ctx, x):
    aval, = ctx.avals_out
    info_aval = lapack.info_aval(aval)
    factor, info = lapack.call('potrf', [x], ctx.avals_in, [aval, info_aval], {0: 0},
                                uplo='L')
    return [lapack.nan_unless(ctx, lapack.succeeded(info, info_aval), factor, aval, info_aval)]


cholesky_p = core.Primitive('cholesky', eager_on_xla=True)
cholesky_p.def_impl(lambda x: lapack.per_matrix_impl(_cholesky_one)(x)[0])
cholesky_p.def_abstract_eval(_cholesky_abstract_eval)
cholesky_p.def_jvp(_cholesky_jvp)
lapack.batch_at_front(cholesky_p)
lowering.register_lowering(cholesky_p, _cholesky_lowering)

# ----------------------------------------------------------------------------- triangular_solve


def _triangular_solve_abstract_eval(a, b, *, left_side, **_):
    lapack.check_matrix('triangular_solve', a, what='a')
    lapack.check_matrix('triangular_solve', b, square=False, what='b')
    if a.dtype != b.dtype:
        raise TypeError(f'triangular_solve: a and b must have one dtype, got {a.str_short()} '
                        f'and {b.str_short()}')
    common = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != common:
        side = 'rows' if left_side else 'columns'
        raise ValueError(f'triangular_solve: a {a.str_short()} does not fit b {b.str_short()} '
                         f'(left_side={left_side}: b needs {a.shape[-1]} {side} and a\'s '
                         'batch axes)')
    return core.ShapedArray(b.shape, b.dtype)


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a, b = np.asarray(a), np.asarray(b)
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - t * np.eye(a.shape[-1], dtype=a.dtype) + np.eye(a.shape[-1], dtype=a.dtype)
    t = np.swapaxes(t, -1, -2) if transpose_a else t
    t = np.conj(t) if conjugate_a else t
    if left_side:
        return np.linalg.solve(t, b).astype(b.dtype)
    return np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2)),
                       -1, -2).astype(b.dtype)


def _triangular_solve_jvp(primals, tangents, **params):
    """Linear in ``b``; in ``a``, ``x' = -op(a)^-1 op(a') x`` (or ``x op(a') op(a)^-1``),
    multiplying in the cheaper order, as JAX does."""
    (a, b), (a_dot, b_dot) = primals, tangents
    x = triangular_solve_p.bind(a, b, **params)
    terms = [] if isinstance(b_dot, jvp.Zero) else [triangular_solve_p.bind(a, b_dot, **params)]
    if not isinstance(a_dot, jvp.Zero):
        terms.append(_per_matrix(lambda a, a_dot, x: _solve_a_tangent(a, a_dot, x, **params),
                                 a, a_dot, x))
    if not terms:
        return x, jvp.Zero(core.get_aval(x))
    return x, terms[0] if len(terms) == 1 else lax.add(*terms)


def _solve_a_tangent(a, a_dot, x, *, left_side, lower, transpose_a, conjugate_a,
                     unit_diagonal):
    m, n = core.get_aval(x).shape
    k = 1 if unit_diagonal else 0
    g = lax.neg(_tril(a_dot, -k) if lower else _triu(a_dot, k))
    g = _T(g) if transpose_a else g
    g = lax.conj(g) if conjugate_a else g

    def a_inverse(rhs):
        return triangular_solve(a, rhs, left_side=left_side, lower=lower,
                                transpose_a=transpose_a, conjugate_a=conjugate_a,
                                unit_diagonal=unit_diagonal)
    if left_side:
        return a_inverse(_matmul(g, x)) if m > n else _matmul(a_inverse(g), x)
    return a_inverse(_matmul(x, g)) if m < n else _matmul(x, a_inverse(g))


def _triangular_solve_transpose(ct, a, b, **params):
    if ad.is_undefined_primal(a):
        raise TypeError('triangular_solve is linear only in b: cannot transpose with respect '
                        'to a')
    flipped = dict(params, transpose_a=not params['transpose_a'])
    return [None, triangular_solve_p.bind(a, ct, **flipped)]


def _triangular_solve_batching(vals, dims, *, left_side, **params):
    """``a`` shared: the examples of ``b`` become more right-hand sides of one solve (as
    in JAX, so the kernel is called as JAX calls it); otherwise both batch axes go first."""
    (a, b), (da, db) = vals, dims
    if da is batching.not_mapped:
        b_aval = core.get_aval(b)
        axis = b_aval.ndim - 1 if left_side else b_aval.ndim - 2
        b = batching.moveaxis(b, db, axis)
        shape = core.get_aval(b).shape
        flat = (*shape[:-2], shape[-2] * shape[-1]) if left_side else (
            *shape[:-3], shape[-3] * shape[-2], shape[-1])
        from minijax.lax.structural import reshape
        out = triangular_solve_p.bind(a, reshape(b, flat), left_side=left_side, **params)
        return reshape(out, shape), axis
    size = batching.axis_size_of(vals, dims)
    a, b = (batching.move_batch_axis(size, d, 0, v) for v, d in zip(vals, dims))
    return triangular_solve_p.bind(a, b, left_side=left_side, **params), 0


def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    """``trsm`` conjugates only while it transposes (``'C'``): ``conj(a)`` alone is taken
    first, with CHLO's ``conj`` as JAX takes it."""
    if conjugate_a and not transpose_a:
        a = chlo.ConjOp(a).result
    return lapack.call('trsm', [a, b], ctx.avals_in, ctx.avals_out, {1: 0},
                        side='L' if left_side else 'R', uplo='L' if lower else 'U',
                        trans_x='N' if not transpose_a else 'C' if conjugate_a else 'T',
                        diag='U' if unit_diagonal else 'N')


triangular_solve_p = core.Primitive('triangular_solve', eager_on_xla=True)
triangular_solve_p.def_impl(_triangular_solve_impl)
triangular_solve_p.def_abstract_eval(_triangular_solve_abstract_eval)
triangular_solve_p.def_jvp(_triangular_solve_jvp, symbolic_zeros=True)
triangular_solve_p.def_transpose(_triangular_solve_transpose)
triangular_solve_p.def_batching(_triangular_solve_batching)
lowering.register_lowering(triangular_solve_p, _triangular_solve_lowering)

# ----------------------------------------------------------------------------- lu


def _lu_abstract_eval(x):
    lapack.check_matrix('lu', x, square=False)
    return [core.ShapedArray(x.shape, x.dtype),
            core.ShapedArray((*x.shape[:-2], min(x.shape[-2:])), dtypes.int32)]


def _lu_one(a):
    """Partial pivoting, as LAPACK's getrf: at step j the largest ``|a[i, j]|`` (the first
    of equals) is swapped up to row j."""
    a = a.copy()
    m, n = a.shape
    pivots = np.zeros(min(m, n), np.int32)
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        pivots[j] = p
        a[[j, p]] = a[[p, j]]
        if a[j, j] != 0:
            a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, pivots


def _lu_jvp(primals, tangents):
    """``L' = L tril(L^-1 P a' U^-1, -1)``, ``U' = triu(L^-1 P a' U^-1) U`` (de Hoog,
    Anderssen and Lukas), as JAX writes it; the pivots have no tangent."""
    (a,), (a_dot,) = primals, tangents
    lu_, pivots = lu_p.bind(a)
    permutation = lu_pivots_to_permutation(pivots, core.get_aval(a).shape[-2])
    lu_dot = _per_matrix(_lu_tangent, lu_, a_dot, permutation)
    return [lu_, pivots], [lu_dot, jvp.Zero(core.get_aval(pivots))]


def _lu_tangent(lu_, a_dot, permutation):
    m, n = core.get_aval(lu_).shape
    dtype = core.get_aval(lu_).dtype
    k = min(m, n)
    zero = np.zeros((), dtype)
    l = lax.pad(_tril(lax.slice(lu_, (0, 0), (m, k)), -1), zero, [(0, 0, 0), (0, m - k, 0)])
    l = lax.add(l, _eye(dtype, m))
    u_eye = lax.pad(_eye(dtype, n - k), zero, [(k, 0, 0), (k, 0, 0)])
    u = lax.add(lax.pad(_triu(lax.slice(lu_, (0, 0), (k, n))), zero,
                        [(0, n - k, 0), (0, 0, 0)]), u_eye)
    la = triangular_solve(l, _take_rows(a_dot, permutation), left_side=True, lower=True,
                          unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    return lax.add(_matmul(l, _tril(lau, -1)), _matmul(_triu(lau), u))


def _lu_lowering(ctx, x):
    lu_aval, pivots_aval = ctx.avals_out
    info_aval = lapack.info_aval(lu_aval)
    lu_, pivots, info = lapack.call('getrf', [x], ctx.avals_in,
                                     [lu_aval, pivots_aval, info_aval], {0: 0})
    pivots = hlo.SubtractOp(pivots, lapack.full(pivots_aval, 1)).result  # (LAPACK counts from 1)
    ok = lapack.succeeded(info, info_aval, 'GE')
    return [lapack.nan_unless(ctx, ok, lu_, lu_aval, info_aval), pivots]


lu_p = core.Primitive('lu', multiple_results=True, eager_on_xla=True)
lu_p.def_impl(lapack.per_matrix_impl(_lu_one))
lu_p.def_abstract_eval(_lu_abstract_eval)
lu_p.def_jvp(_lu_jvp)
lapack.batch_at_front(lu_p)
lowering.register_lowering(lu_p, _lu_lowering)

lu_pivots_to_permutation_p = core.Primitive('lu_pivots_to_permutation', eager_on_xla=True)
lu_pivots_to_permutation_p.def_impl(_permutation_impl)
lu_pivots_to_permutation_p.def_abstract_eval(_permutation_abstract_eval)
lapack.batch_at_front(lu_pivots_to_permutation_p)
lowering.register_lowering(lu_pivots_to_permutation_p, lowering.lower_fun(_permutation_loop))

# ----------------------------------------------------------------------------- qr


def _qr_abstract_eval(x, *, full_matrices):
    lapack.check_matrix('qr', x, square=False)
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    return [core.ShapedArray((*batch, m, k), x.dtype), core.ShapedArray((*batch, k, n), x.dtype)]


def _qr_one(a, *, full_matrices):
    return np.linalg.qr(a, mode='complete' if full_matrices else 'reduced')


def _qr_jvp(primals, tangents, *, full_matrices):
    (x,), (x_dot,) = primals, tangents
    q, r = qr_p.bind(x, full_matrices=full_matrices)
    return [q, r], list(_per_matrix(_qr_tangent, q, r, x, x_dot))


def _qr_tangent(q, r, x, x_dot):
    """The thin-QR tangent of the square part (Townsend's derivation); for a wide ``x`` the
    rest of ``r`` is ``q^H x2``, whose tangent follows by the product rule."""
    m, n = core.get_aval(x).shape
    if m > n and core.get_aval(q).shape[1] == m:
        return _full_tall_qr_tangent(q, r, x_dot)
    if m >= n:
        return _thin_qr_tangent(q, r, x_dot)
    dq, dr1 = _thin_qr_tangent(q, lax.slice(r, (0, 0), (m, m)), lax.slice(x_dot, (0, 0), (m, m)))
    dr2 = lax.add(_matmul(_H(dq), lax.slice(x, (0, m), (m, n))),
                  _matmul(_H(q), lax.slice(x_dot, (0, m), (m, n))))
    return dq, lax.concatenate([dr1, dr2], 1)


def _thin_qr_tangent(q, r, dx):
    """For a complex ``x`` the diagonal of ``q^H dx r^-1`` keeps its imaginary part in
    ``do`` (the phases LAPACK's real diagonal of ``r`` fixes), as JAX corrects it."""
    dx_rinv = triangular_solve(r, dx)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    lower = _tril(qt_dx_rinv, -1)
    do = lax.sub(lower, _H(lower))
    aval = core.get_aval(qt_dx_rinv)
    if dtypes.is_complex(aval.dtype):
        imaginary = lax.sub(qt_dx_rinv, _astype(_real_part(qt_dx_rinv), aval.dtype))
        do = lax.add(do, lax.mul(_eye(aval.dtype, aval.shape[-1]), imaginary))
    dq = lax.add(_matmul(q, lax.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(lax.sub(qt_dx_rinv, do), r)
    return dq, dr


def _full_tall_qr_tangent(q, r, dx):
    """The complete QR of a tall ``[m, n]`` matrix (Roberts and Roberts, arXiv:2409.13374,
    eqs. 32-33, as JAX): the first ``n`` columns of ``q`` and the square top of ``r`` move as
    the thin QR does; the other ``m - n`` columns, which ``x`` does not determine, move so
    that ``q`` stays orthogonal (through ``z = q[n:, :n] (q[:n, :n] - I)^-1``), and the zero
    rows of ``r`` stay zero. Complex: each transpose conjugated."""
    m, n = core.get_aval(dx).shape
    dtype = core.get_aval(dx).dtype
    q_thin, q_rest = lax.slice(q, (0, 0), (m, n)), lax.slice(q, (0, n), (m, m))
    dq_thin, dr_top = _thin_qr_tangent(q_thin, lax.slice(r, (0, 0), (n, n)), dx)
    q_top, q_bottom = lax.slice(q_thin, (0, 0), (n, n)), lax.slice(q_thin, (n, 0), (m, n))
    dq_top, dq_bottom = lax.slice(dq_thin, (0, 0), (n, n)), lax.slice(dq_thin, (n, 0), (m, n))
    lu_, _, permutation = lu(_H(lax.sub(q_top, _eye(dtype, n))))
    z_h = _lu_solve(lu_, permutation, _H(q_bottom))
    z = _H(z_h)
    dq_rest = lax.sub(_matmul(dq_thin, z_h),
                      _matmul(lax.add(q_thin, _matmul(q_rest, z)),
                              _H(lax.sub(dq_bottom, _matmul(z, dq_top)))))
    return (lax.concatenate([dq_thin, dq_rest], 1),
            lax.concatenate([dr_top, lax.full((m - n, n), 0, dtype)], 0))


def _qr_lowering(ctx, x, *, full_matrices):
    x_aval, = ctx.avals_in
    q_aval, r_aval = ctx.avals_out
    *batch, m, n = x_aval.shape
    taus_aval = core.ShapedArray((*batch, min(m, n)), x_aval.dtype)
    r, taus = lapack.call('geqrf', [x], [x_aval], [x_aval, taus_aval], {0: 0})
    reflectors, reflectors_aval = r, x_aval
    if m < n:
        reflectors_aval = x_aval.update(shape=(*batch, m, m))
        reflectors = _matrix_slice(r, x_aval, m, m)
    elif full_matrices:  # (padded with no columns too when square, as JAX's lowering pads)
        reflectors_aval = q_aval
        reflectors = hlo.PadOp(r, lowering.constant(np.zeros((), x_aval.dtype)),
                               [0] * (len(batch) + 2), [0] * (len(batch) + 1) + [m - n],
                               [0] * (len(batch) + 2)).result
    orgqr = 'ungqr' if dtypes.is_complex(x_aval.dtype) else 'orgqr'  # (unitary: LAPACK's name)
    q, = lapack.call(orgqr, [reflectors, taus], [reflectors_aval, taus_aval], [q_aval],
                      {0: 0})
    if r_aval.shape != x_aval.shape:
        r = _matrix_slice(r, x_aval, *r_aval.shape[-2:])
    return [q, lapack.lowered_triu(r, r_aval)]


def _matrix_slice(x, aval, rows, cols):
    """The leading ``rows x cols`` block of every matrix of ``x``."""
    return hlo.SliceOp(x, [0] * aval.ndim, [*aval.shape[:-2], rows, cols],
                       [1] * aval.ndim).result


qr_p = core.Primitive('qr', multiple_results=True, eager_on_xla=True)
qr_p.def_impl(lapack.per_matrix_impl(_qr_one))
qr_p.def_abstract_eval(_qr_abstract_eval)
qr_p.def_jvp(_qr_jvp)
lapack.batch_at_front(qr_p)
lowering.register_lowering(qr_p, _qr_lowering)

# ----------------------------------------------------------------------------- eigh


def _eigh_abstract_eval(x, *, lower, sort_eigenvalues):
    lapack.check_matrix('eigh', x)
    return [core.ShapedArray(x.shape, x.dtype),
            core.ShapedArray(x.shape[:-1], dtypes.real_part_dtype(x.dtype))]


def _eigh_one(a, *, lower, sort_eigenvalues):
    w, v = np.linalg.eigh(a, UPLO='L' if lower else 'U')
    return v, w


def _eigh_jvp(primals, tangents, **params):
    """Nondegenerate perturbation theory, as JAX: ``w' = re diag(v^H a' v)``,
    ``v' = v (F * v^H a' v)`` with ``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal;
    ``a'`` counts through the triangle LAPACK reads, as for ``cholesky``."""
    (a,), (a_dot,) = primals, tangents
    v, w = eigh_p.bind(a, **params)
    a_dot = _symmetric_from_triangle(a_dot, params['lower'])
    return [v, w], list(_per_matrix(_eigh_tangent, v, w, a_dot))


def _eigh_tangent(v, w, a_dot):
    n = core.get_aval(w).shape[0]
    dtype = core.get_aval(v).dtype
    w = _astype(w, dtype)
    eye = _eye(dtype, n)
    differences = lax.sub(lax.add(eye, lax.broadcast_in_dim(w, (n, n), (1,))),
                          lax.broadcast_in_dim(w, (n, n), (0,)))
    f = lax.sub(lax.integer_pow(differences, -1), eye)
    vh_adot_v = _matmul(_matmul(_H(v), a_dot), v)
    return _matmul(v, lax.mul(f, vh_adot_v)), _diagonal(_real_part(vh_adot_v))


def _eigh_lowering(ctx, x, *, lower, sort_eigenvalues):
    v_aval, w_aval = ctx.avals_out
    info_aval = lapack.info_aval(v_aval)
    kernel = 'heevd' if dtypes.is_complex(v_aval.dtype) else 'syevd'
    v, w, info = lapack.call(kernel, [x], ctx.avals_in, [v_aval, w_aval, info_aval], {0: 0},
                              mode='V', uplo='L' if lower else 'U')
    ok = lapack.succeeded(info, info_aval)
    return [lapack.nan_unless(ctx, ok, v, v_aval, info_aval),
            lapack.nan_unless(ctx, ok, w, w_aval, info_aval)]


eigh_p = core.Primitive('eigh', multiple_results=True, eager_on_xla=True)
eigh_p.def_impl(lapack.per_matrix_impl(_eigh_one))
eigh_p.def_abstract_eval(_eigh_abstract_eval)
eigh_p.def_jvp(_eigh_jvp)
lapack.batch_at_front(eigh_p)
lowering.register_lowering(eigh_p, _eigh_lowering)

# ----------------------------------------------------------------------------- eig


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
        enable_eigvec_derivs=False, implementation=None, use_magma=None):
    """``[w, vl, vr]`` (as asked for) of the square matrices ``x``: the complex
    eigenvalues, and the left and right eigenvectors as unit columns, from LAPACK's
    ``geev`` as JAX calls it on CPU. Only the eigenvalues have derivatives."""
    if implementation not in (None, 'lapack', EigImplementation.LAPACK) or use_magma:
        raise ValueError('Only the lapack implementation is supported on CPU.')  # (JAX's)
    return eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=enable_eigvec_derivs)


def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs):
    lapack.check_matrix('eig', x)
    dtype = x.dtype if dtypes.is_complex(x.dtype) else dtypes.COMPLEX_OF[x.dtype]
    count = compute_left_eigenvectors + compute_right_eigenvectors
    return [core.ShapedArray(x.shape[:-1], dtype)] + [core.ShapedArray(x.shape, dtype)] * count


def _eig_one(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs):
    import scipy.linalg  # (LAPACK's geev on the host: the reference interpreter's)
    w, vl, vr = scipy.linalg.eig(a, left=True, right=True)
    return (w, *[vl] * compute_left_eigenvectors, *[vr] * compute_right_eigenvectors)


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs):
    """The eigenvalues' tangents, ``w_i' = (u_i^H a' v_i) / (u_i^H v_i)`` with ``u``,
    ``v`` the left and right eigenvectors (JAX's ``diag(v^-1 a' v)``, without a complex
    solve); JAX refuses the eigenvectors' unless asked to assume what it cannot check."""
    if compute_left_eigenvectors or compute_right_eigenvectors:
        raise NotImplementedError(
            'Derivatives of non-symmetric eigenvectors are only valid under assumptions on '
            'the input that JAX cannot check (see the enable_eigvec_derivs argument to '
            'jax.lax.linalg.eig). minijax implements the eigenvalues\' derivatives only.')
    (a,), (a_dot,) = primals, tangents
    w, vl, vr = eig_p.bind(a, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
                           enable_eigvec_derivs=False)
    rows = core.get_aval(vr).ndim - 2
    ul = lax.conj(vl)
    a_dot = lax.convert_element_type(a_dot, core.get_aval(vr).dtype)
    scale = lax.reduce_sum(lax.mul(ul, vr), rows)
    return [w], [lax.div(lax.reduce_sum(lax.mul(ul, _matmul(a_dot, vr)), rows), scale)]


def _eig_lowering(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs):
    x_aval, = ctx.avals_in
    w_aval = ctx.avals_out[0]
    v_aval = core.ShapedArray(x_aval.shape, w_aval.dtype)
    info_aval = lapack.info_aval(x_aval)
    part_aval = core.ShapedArray(x_aval.shape[:-1], x_aval.dtype)
    real = not dtypes.is_complex(x_aval.dtype)  # (real geev: w in two parts)
    *w, vl, vr, info = lapack.call(
        'geev', [x], [x_aval], [part_aval] * (1 + real) + [v_aval, v_aval, info_aval], {},
        compute_left='V' if compute_left_eigenvectors else 'N',
        compute_right='V' if compute_right_eigenvectors else 'N')
    w = hlo.ComplexOp(*w).result if real else w[0]
    ok = lapack.succeeded(info, info_aval)
    out = [w] + [vl] * compute_left_eigenvectors + [vr] * compute_right_eigenvectors
    return [lapack.nan_unless(ctx, ok, value, aval, info_aval)
            for value, aval in zip(out, ctx.avals_out)]


eig_p = core.Primitive('eig', multiple_results=True, eager_on_xla=True)
eig_p.def_impl(lapack.per_matrix_impl(_eig_one))
eig_p.def_abstract_eval(_eig_abstract_eval)
eig_p.def_jvp(_eig_jvp)
lapack.batch_at_front(eig_p)
lowering.register_lowering(eig_p, _eig_lowering)

# ----------------------------------------------------------------------------- svd


def _svd_shapes(shape, full_matrices):
    """The shapes of ``s``, ``u`` and ``vt`` for a matrix (batch) of ``shape``."""
    *batch, m, n = shape
    k = min(m, n)
    return ((*batch, k), (*batch, m, m if full_matrices else k),
            (*batch, n if full_matrices else k, n))


def _svd_abstract_eval(x, *, full_matrices, compute_uv, algorithm):
    lapack.check_matrix('svd', x, square=False)
    s, *uv = _svd_shapes(x.shape, full_matrices)
    return [core.ShapedArray(s, dtypes.real_part_dtype(x.dtype))] + [
        core.ShapedArray(shape, x.dtype) for shape in uv[:2 if compute_uv else 0]]


def _svd_one(a, *, full_matrices, compute_uv, algorithm):
    if not compute_uv:
        return (np.linalg.svd(a, compute_uv=False),)
    u, s, vt = np.linalg.svd(a, full_matrices=full_matrices)
    return s, u, vt


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, algorithm):
    (a,), (a_dot,) = primals, tangents
    m, n = core.get_aval(a).shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError('svd: the derivative of full_matrices=True for a '
                                  'non-square matrix is not implemented (by JAX either)')
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, algorithm=algorithm)
    ds, du, dvt = _per_matrix(_svd_tangent, s, u, vt, a, a_dot)
    if not compute_uv:
        return [s], [ds]
    return [s, u, vt], [ds, du, dvt]


def _svd_tangent(s, u, vt, a, a_dot):
    """JAX's formula (after Townsend's and Giles'), for one matrix; the real ``s`` and
    ``F`` are cast to a complex ``a``'s dtype where they meet its tangents."""
    m, n = core.get_aval(a).shape
    k = core.get_aval(s).shape[0]
    dtype, real_dtype = core.get_aval(a).dtype, core.get_aval(s).dtype
    ut, v = _H(u), _H(vt)
    s_j, s_i = (lax.broadcast_in_dim(s, (k, k), (axis,)) for axis in (1, 0))  # s[j], s[i]
    ds_matrix = _matmul(_matmul(ut, a_dot), v)
    ds = _diagonal(_real_part(ds_matrix))
    eye = _eye(real_dtype, k)
    f = _astype(lax.sub(lax.div(1., lax.add(lax.mul(lax.add(s_j, s_i), lax.sub(s_j, s_i)), eye)),
                        eye), dtype)
    dss, sds = lax.mul(_astype(s_j, dtype), ds_matrix), lax.mul(_astype(s_i, dtype), ds_matrix)
    s_zeros = lax.convert_element_type(lax.eq(s, 0.), real_dtype)
    s_inv = lax.sub(lax.div(1., lax.add(s, s_zeros)), s_zeros)
    du_dv_diag = lax.mul(lax.mul(.5, lax.sub(ds_matrix, _H(ds_matrix))),
                         _astype(lax.mul(eye, lax.broadcast_in_dim(s_inv, (k, k), (1,))), dtype))
    du = _matmul(u, lax.add(lax.mul(f, lax.add(dss, _H(dss))), du_dv_diag))
    dv = _matmul(v, lax.mul(f, lax.add(sds, _H(sds))))
    if m > n:
        dav = _matmul(a_dot, v)
        du = lax.add(du, lax.div(lax.sub(dav, _matmul(u, _matmul(ut, dav))),
                                 _astype(lax.broadcast_in_dim(s, (m, k), (1,)), dtype)))
    if n > m:
        dahu = _matmul(_H(a_dot), u)
        dv = lax.add(dv, lax.div(lax.sub(dahu, _matmul(v, _matmul(vt, dahu))),
                                 _astype(lax.broadcast_in_dim(s, (n, k), (1,)), dtype)))
    return ds, du, _H(dv)


def _svd_lowering(ctx, x, *, full_matrices, compute_uv, algorithm):
    x_aval, = ctx.avals_in
    s_shape, u_shape, vt_shape = _svd_shapes(x_aval.shape, full_matrices)
    s_aval = core.ShapedArray(s_shape, dtypes.real_part_dtype(x_aval.dtype))
    u_aval, vt_aval = x_aval.update(shape=u_shape), x_aval.update(shape=vt_shape)
    info_aval = lapack.info_aval(x_aval)
    mode = 'N' if not compute_uv else 'A' if full_matrices else 'S'
    kernel = 'gesvd' if algorithm == SvdAlgorithm.QR else 'gesdd'
    _, s, u, vt, info = lapack.call(kernel, [x], [x_aval],
                                     [x_aval, s_aval, u_aval, vt_aval, info_aval], {0: 0},
                                     mode=mode)
    ok = lapack.succeeded(info, info_aval)
    outs = zip([s, u, vt], ctx.avals_out)
    return [lapack.nan_unless(ctx, ok, value, aval, info_aval) for value, aval in outs]


svd_p = core.Primitive('svd', multiple_results=True, eager_on_xla=True)
svd_p.def_impl(lapack.per_matrix_impl(_svd_one))
svd_p.def_abstract_eval(_svd_abstract_eval)
svd_p.def_jvp(_svd_jvp)
lapack.batch_at_front(svd_p)
lowering.register_lowering(svd_p, _svd_lowering)

# ----------------------------------------------------------------------------- Schur


def _schur_abstract_eval(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    if x.dtype not in lapack.PREFIX:
        raise TypeError(f'schur: LAPACK decomposes float32, float64, complex64 or complex128 '
                        f'matrices, got the operand {x.str_short()}')
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f'The input to schur must be a square matrix. Got shape '
                         f'{x.shape[-2:]}.')
    return [core.ShapedArray(x.shape, x.dtype)] * (2 if compute_schur_vectors else 1)


def _schur_one(a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    import scipy.linalg  # (LAPACK's gees on the host: the reference interpreter's)
    t, q = scipy.linalg.schur(a, output='complex' if np.iscomplexobj(a) else 'real')
    return (t, q) if compute_schur_vectors else (t,)


def _schur_lowering(ctx, x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    """gees as JAX calls it: the Schur form and vectors in place, the eigenvalues (real and
    imaginary parts for a real matrix), and two infos (the second, sorting's, unused)."""
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not "
                                  "implemented.")
    x_aval, = ctx.avals_in
    info_aval = lapack.info_aval(x_aval)
    eigenvalues = core.ShapedArray(x_aval.shape[:-1], x_aval.dtype)
    parts = [eigenvalues] * (1 if dtypes.is_complex(x_aval.dtype) else 2)
    t, q, *_, info = lapack.call('gees', [x], [x_aval],
                                  [x_aval, x_aval, *parts, info_aval, info_aval], {0: 0},
                                  mode='V' if compute_schur_vectors else 'N', sort='N')
    ok = lapack.succeeded(info, info_aval)
    return [lapack.nan_unless(ctx, ok, v, aval, info_aval)
            for v, aval in zip([t, q], ctx.avals_out)]


schur_p = core.Primitive('schur', multiple_results=True, eager_on_xla=True)
schur_p.def_impl(lapack.per_matrix_impl(_schur_one))
schur_p.def_abstract_eval(_schur_abstract_eval)
lapack.batch_at_front(schur_p)
lowering.register_lowering(schur_p, _schur_lowering)

# The Householder reductions and products, the tridiagonal solve, and the two products JAX
# writes in lax ops: modules of their own on this one's helpers.
from minijax.lax.householder import (  # noqa: E402
    hessenberg, hessenberg_p, householder_product, householder_product_p, ormqr, ormqr_p,
    tridiagonal, tridiagonal_p)
from minijax.lax.tridiagonal_solve import tridiagonal_solve, tridiagonal_solve_p  # noqa: E402
from minijax.lax.matrix_updates import (  # noqa: E402
    cholesky_update, cholesky_update_p, symmetric_product, symmetric_product_p)
