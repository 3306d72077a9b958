"""``jnp.linalg``: linear algebra on the decompositions of ``minijax.lax.linalg``.

Each function is written as JAX writes it, on the same LAPACK kernels, so that values (and
the derivatives JAX defines with ``custom_jvp``) are JAX's bit for bit: ``solve`` and ``inv``
permute and do two triangular solves with ``lu``'s factors; ``det`` of a 2x2 or 3x3 matrix is
the explicit formula, larger ones come from ``slogdet``, which reads the diagonal of ``lu``.
Results are JAX's named tuples (``EighResult``, ``SVDResult``, ``QRResult``,
``SlogdetResult``). Integer operands become floats first, as in JAX. The functions JAX
compiles with ``jit`` are compiled here too: XLA fuses their elementwise arithmetic (a 3x3
determinant, say), which can round differently from running it op by op.
"""

import functools
import math
import typing

import numpy as np

from minijax import core, custom_derivatives, dtypes, lax
from minijax import numpy as jnp
from minijax.jit import jit as _jit
from minijax.lax import linalg as lax_linalg
from minijax.numpy import _norm as norm  # (in minijax.numpy, where jnp's other norms use it)

__all__ = ['cholesky', 'cond', 'cross', 'det', 'diagonal', 'eig', 'eigh', 'eigvals', 'eigvalsh',
           'inv', 'lstsq', 'matmul', 'matrix_norm', 'matrix_power', 'matrix_rank',
           'matrix_transpose', 'multi_dot', 'norm', 'outer', 'pinv', 'qr', 'slogdet', 'solve',
           'svd', 'svdvals', 'tensordot', 'tensorinv', 'tensorsolve', 'trace', 'vecdot',
           'vector_norm']


# The result types, named as JAX's (their reprs show the names), and private as JAX's are:
# ``jax.numpy.linalg`` does not list them.
_EigResult = typing.NamedTuple('EigResult', [('eigenvalues', object), ('eigenvectors', object)])
_EighResult = typing.NamedTuple('EighResult', [('eigenvalues', object),
                                               ('eigenvectors', object)])
_QRResult = typing.NamedTuple('QRResult', [('Q', object), ('R', object)])
_SVDResult = typing.NamedTuple('SVDResult', [('U', object), ('S', object), ('Vh', object)])
_SlogdetResult = typing.NamedTuple('SlogdetResult', [('sign', object), ('logabsdet', object)])


def _float_matrix(name, a, square=True, error=ValueError):
    """``a`` as a float array of matrices ``[..., m, n]`` (``m == n`` if ``square``); a
    wrongly shaped one raises ``error``: JAX's class for ``name`` (TypeError where JAX hands
    ``a`` straight to a ``lax.linalg`` primitive, whose shape rule refuses it)."""
    a = jnp._to_float(jnp.asarray(a))
    shape = core.get_aval(a).shape
    if len(shape) < 2 or (square and shape[-1] != shape[-2]):
        kind = '[..., n, n]' if square else '[..., m, n]'
        raise error(f'jnp.linalg.{name}: the argument must have shape {kind}, got '
                    f'{core.get_aval(a).str_short()}')
    return a


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _H(x):
    """The conjugate transpose (of a real matrix, its transpose)."""
    return jnp.conj(_mT(x))

# ----------------------------------------------------------------------------- decompositions


@functools.partial(_jit, static_argnames=('upper', 'symmetrize_input'))
def cholesky(a, *, upper=False, symmetrize_input=True):
    """``L`` with ``a = L L^T`` (``L^T`` if ``upper``); NaNs if ``a`` is not positive
    definite."""
    a = _float_matrix('cholesky', a, error=TypeError)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def eig(a):
    """The (complex) eigenvalues and right eigenvectors (unit columns) of the square
    matrices ``a``: LAPACK's ``geev``, as JAX calls it on CPU. Only the eigenvalues have
    derivatives (as in JAX)."""
    a = _float_matrix('eig', a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return _EigResult(w, v)


@_jit
def eigvals(a):
    """The (complex) eigenvalues of the square matrices ``a``."""
    a = _float_matrix('eigvals', a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


@functools.partial(_jit, static_argnames=('UPLO', 'symmetrize_input'))
def eigh(a, UPLO=None, symmetrize_input=True):  # noqa: N803 (NumPy's name)
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix: ``EighResult``."""
    if UPLO not in (None, 'L', 'U'):
        raise ValueError(f"jnp.linalg.eigh: UPLO must be one of None, 'L' or 'U', got {UPLO!r}")
    a = _float_matrix('eigh', a, error=TypeError)
    v, w = lax_linalg.eigh(a, lower=UPLO != 'U', symmetrize_input=symmetrize_input)
    return _EighResult(w, v)


@functools.partial(_jit, static_argnames=('UPLO', 'symmetrize_input'))
def eigvalsh(a, UPLO='L', *, symmetrize_input=True):  # noqa: N803
    """The eigenvalues of a symmetric matrix, ascending."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


_QR_FULL_MATRICES = {'reduced': False, 'r': False, 'complete': True}


@functools.partial(_jit, static_argnames=('mode',))
def qr(a, mode='reduced'):
    """``QRResult(Q, R)`` (``R`` alone for ``mode='r'``); ``'complete'`` gives a square
    ``Q``."""
    if mode not in _QR_FULL_MATRICES:
        raise ValueError(f"jnp.linalg.qr: mode must be 'reduced', 'complete' or 'r' "
                         f"(minijax has no 'raw'), got {mode!r}")
    a = _float_matrix('qr', a, square=False, error=TypeError)
    q, r = lax_linalg.qr(a, full_matrices=_QR_FULL_MATRICES[mode])
    return r if mode == 'r' else _QRResult(q, r)


@functools.partial(_jit, static_argnames=('full_matrices', 'compute_uv', 'hermitian',
                                          'subset_by_index'))
def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """``SVDResult(U, S, Vh)`` with ``a = U diag(S) Vh``, or ``S`` alone; of a ``hermitian``
    ``a``, from its eigendecomposition. ``subset_by_index`` may only name the whole
    spectrum, as on JAX's CPU."""
    a = _float_matrix('svd', a, square=False, error=TypeError)
    if hermitian:
        return _hermitian_svd(a, compute_uv, subset_by_index)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                              subset_by_index=subset_by_index)
    return _SVDResult(*lax_linalg.svd(a, full_matrices=full_matrices,
                                      subset_by_index=subset_by_index))


def _hermitian_svd(a, compute_uv, subset_by_index):
    """The SVD of a Hermitian ``a`` = V diag(w) V^H: the singular values are ``|w|``
    (descending), U the eigenvectors in their order, Vh = (U sign(w))^H."""
    vectors, values = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    s = jnp.abs(values)
    if not compute_uv:
        return jnp.flip(jnp.sort(s, axis=-1), -1)
    order = lax.broadcasted_iota(np.int64, jnp.shape(s), jnp.ndim(s) - 1)
    s, order, sign = lax.sort((s, order, jnp.sign(values)), jnp.ndim(s) - 1, num_keys=1)
    s, order, sign = (jnp.flip(x, -1) for x in (s, order, sign))
    u = jnp.take_along_axis(vectors, order[..., None, :], axis=-1)
    vh = jnp.conj(jnp.swapaxes(u * sign[..., None, :].astype(u.dtype), -1, -2))
    return _SVDResult(u, s, vh)

def svdvals(x):
    """The singular values, descending."""
    return svd(x, compute_uv=False)

# ----------------------------------------------------------------------------- solving


def _solve_operands(name, a, b):
    """``(a, b, vector)`` for a solve: ``a`` float ``[..., m, m]``; ``b`` a vector ``[m]``
    (``vector``, made ``[m, 1]``) or matrices ``[..., m, k]``, batch axes broadcast against
    ``a``'s (NumPy 2's rule, as in JAX), one dtype."""
    a = _float_matrix(name, a)
    b = jnp._to_float(jnp.asarray(b))
    b_given = core.get_aval(b).str_short()
    vector = jnp.ndim(b) == 1
    b = jnp.expand_dims(b, -1) if vector else b
    a_shape, b_shape = jnp.shape(a), jnp.shape(b)
    if len(b_shape) < 2 or b_shape[-2] != a_shape[-1]:
        raise ValueError(f'{name}: a must be [..., m, m] and b [m] or [..., m, k], '
                         f'got a {core.get_aval(a).str_short()} and b {b_given}')
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    a, b = jnp._promote(jnp.broadcast_to(a, (*batch, *a_shape[-2:])),
                        jnp.broadcast_to(b, (*batch, *b_shape[-2:])))
    return a, b, vector


@_jit
def solve(a, b):
    """``x`` with ``a x = b``: ``b`` is a vector ``[m]`` or matrices ``[..., m, k]``."""
    a, b, vector = _solve_operands('jnp.linalg.solve', a, b)
    x = _solve(a, b)
    return x[..., 0] if vector else x


def _lu_solve(a, b):
    """``a^-1 b`` for ``b`` ``[..., m, k]``, differentiated through its operations: what a
    JVP rule uses on tangents, where a ``custom_jvp`` call could not be transposed."""
    lu, _, permutation = lax_linalg.lu(a)
    return lax_linalg._lu_solve(lu, permutation, b)


_solve = custom_derivatives.custom_jvp(_lu_solve)


@_solve.defjvp
def _solve_jvp(primals, tangents):
    """``x' = a^-1 (b' - a' x)``, reusing ``a``'s factors (JAX's custom_linear_solve); the
    tangent program is linear, so ``grad`` transposes its two triangular solves."""
    (a, b), (a_dot, b_dot) = primals, tangents
    lu, _, permutation = lax_linalg.lu(a)
    x = lax_linalg._lu_solve(lu, permutation, b)
    return x, lax_linalg._lu_solve(lu, permutation, b_dot - jnp.matmul(a_dot, x))


@_jit
def inv(a):
    """The inverse matrix: ``solve(a, I)``."""
    a = _float_matrix('inv', a)
    aval = core.get_aval(a)
    eye = jnp.broadcast_to(jnp.eye(aval.shape[-1], dtype=aval.dtype), aval.shape)
    return solve(a, eye)


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse, from the SVD: singular values at most ``rtol``
    times the largest count as zero."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError('jnp.linalg.pinv: give rtol or rcond, not both')
        rtol = rcond
    if hermitian:
        raise NotImplementedError('jnp.linalg.pinv: minijax does not support hermitian=True')
    return _pinv(_float_matrix('pinv', a, square=False), rtol)


def _pinv_with_rtol(a, rtol):
    dtype = core.get_aval(a).dtype
    if rtol is None:
        rtol = 10. * max(core.get_aval(a).shape[-2:]) * jnp.array(dtypes.finfo(dtype).eps)
    rtol = jnp.asarray(rtol)
    u, s, vh = svd(jnp.conj(a), full_matrices=False)  # (as JAX: no conj transposes after)
    cutoff = jnp.expand_dims(rtol, -1) * s[..., 0:1]
    s = jnp.where(s > cutoff, s, np.inf).astype(dtype)
    return jnp.matmul(_mT(vh), _mT(u) / jnp.expand_dims(s, -1))


_pinv = custom_derivatives.custom_jvp(_jit(_pinv_with_rtol), nondiff_argnums=(1,))


@_pinv.defjvp
def _pinv_jvp(rtol, primals, tangents):
    """Golub and Pereyra's derivative of the pseudo-inverse, as JAX writes it."""
    (a,), (a_dot,) = primals, tangents
    p = _pinv(a, rtol)
    m, n = core.get_aval(a).shape[-2:]
    if m >= n:
        s = jnp.matmul(jnp.matmul(p, _H(p)), _H(a_dot))
        t = jnp.matmul(jnp.matmul(_H(a_dot), _H(p)), p)
        p_dot = (-jnp.matmul(jnp.matmul(p, a_dot), p) + s - jnp.matmul(jnp.matmul(s, a), p)
                 + t - jnp.matmul(jnp.matmul(p, a), t))
    else:
        s = jnp.matmul(p, jnp.matmul(_H(p), _H(a_dot)))
        t = jnp.matmul(_H(a_dot), jnp.matmul(_H(p), p))
        p_dot = (-jnp.matmul(p, jnp.matmul(a_dot, p)) + s - jnp.matmul(s, jnp.matmul(a, p))
                 + t - jnp.matmul(p, jnp.matmul(a, t)))
    return p, p_dot


@functools.partial(_jit, static_argnames=('hermitian',))
def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):  # noqa: N803 (NumPy's name)
    """How many singular values (of a ``hermitian`` ``M``: its eigenvalues' moduli) exceed
    ``rtol`` times the largest (default: its size times the dtype's epsilon)."""
    if tol is not None:
        if rtol is not None:
            raise ValueError('jnp.linalg.matrix_rank: give rtol or tol, not both')
        rtol = tol
    M = jnp._to_float(jnp.asarray(M))
    if jnp.ndim(M) < 2:
        return jnp.any(M != 0).astype(np.int32)
    s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        dtype = core.get_aval(s).dtype
        rtol = (jnp.max(s, axis=-1) * np.asarray(max(jnp.shape(M)[-2:]), dtype)
                * dtypes.finfo(dtype).eps)
    return jnp.sum(s > jnp.expand_dims(rtol, -1), axis=-1)

# ----------------------------------------------------------------------------- determinants


@_jit
def det(a):
    """The determinant: the explicit formula for 2x2 and 3x3 matrices, else from
    ``slogdet``."""
    a = _float_matrix('det', a)
    n = core.get_aval(a).shape[-1]
    if n in _SMALL_DETERMINANTS:
        return _SMALL_DETERMINANTS[n](a)
    return _det(a)


def _det_2x2(a):
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
    return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2] +
            a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0] +
            a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1] -
            a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0] -
            a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1] -
            a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])


_SMALL_DETERMINANTS = {2: _det_2x2, 3: _det_3x3}


@custom_derivatives.custom_jvp
def _det(a):
    sign, logdet = slogdet(a)
    return sign * jnp.exp(logdet).astype(core.get_aval(sign).dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
    """``det(a) trace(a^-1 a')``. JAX uses a cofactor solve, which stays finite for a
    singular ``a``; minijax's gives NaN there (see docs/semantics.md)."""
    (a,), (a_dot,) = primals, tangents
    y = _det(a)
    return y, y * jnp.trace(_lu_solve(a, a_dot), axis1=-1, axis2=-2)


@functools.partial(_jit, static_argnames=('method',))
def slogdet(a, *, method=None):
    """``SlogdetResult(sign, logabsdet)`` of ``det(a)``: by ``method`` ``'lu'`` (None), for
    matrices larger than 2x2, from the diagonal of ``lu`` and the parity of its row swaps;
    by ``'qr'``, from the diagonal of ``R`` and the sign of ``det(Q)`` (real ``a`` only)."""
    a = _float_matrix('slogdet', a)
    n = core.get_aval(a).shape[-1]
    if method is None or method == 'lu':
        return _SlogdetResult(*(_slogdet_small(a) if n <= 2 else _slogdet_lu(a)))
    if method == 'qr':
        return _SlogdetResult(*_slogdet_qr(a))
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                     "(`None`), and 'qr'.")


def _slogdet_qr(a):
    if dtypes.is_complex(core.get_aval(a).dtype):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    q, r = lax_linalg.qr(a, full_matrices=False)
    diag = jnp.diagonal(r, axis1=-2, axis2=-1)
    q_sign, _ = _slogdet_lu(q)  # +1 or -1, an orthogonal matrix's determinant
    return (jnp.prod(jnp.sign(diag), axis=-1) * q_sign,
            jnp.sum(jnp.log(jnp.abs(diag)), axis=-1))


@custom_derivatives.custom_jvp
def _slogdet_small(a):
    d = a[..., 0, 0] if core.get_aval(a).shape[-1] == 1 else _det_2x2(a)
    return jnp.sign(d), jnp.real(jnp.log(jnp.abs(d)))


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    sign, logdet = _slogdet_small(x)
    if core.get_aval(x).shape[-1] == 1:
        logdet_dot = g[..., 0, 0] / x[..., 0, 0]
    else:
        logdet_dot = ((g[..., 0, 0] * x[..., 1, 1] - g[..., 0, 1] * x[..., 1, 0]
                       - g[..., 1, 0] * x[..., 0, 1] + g[..., 1, 1] * x[..., 0, 0])
                      / _det_2x2(x))
    return (sign, logdet), _slogdet_tangents(sign, logdet_dot)


def _slogdet_tangents(sign, logdet_dot):
    """``(sign', log|det|')`` from ``trace(a^-1 a')``: a real sign has no derivative; a
    complex one turns with the imaginary part (as JAX's rule)."""
    if not dtypes.is_complex(core.get_aval(sign).dtype):
        return jnp.zeros_like(sign), logdet_dot
    return (logdet_dot - jnp.real(logdet_dot).astype(core.get_aval(logdet_dot).dtype)) * sign, \
        jnp.real(logdet_dot)


@custom_derivatives.custom_jvp
def _slogdet_lu(a):
    dtype = core.get_aval(a).dtype
    lu, pivots, _ = lax_linalg.lu(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = jnp.any(diag == jnp.array(0, dtype=dtype), axis=-1)
    swapped = pivots != lax.broadcasted_iota(np.int32, core.get_aval(pivots).shape,
                                 len(core.get_aval(pivots).shape) - 1)
    parity = jnp.count_nonzero(swapped, axis=-1)
    if dtypes.is_complex(dtype):  # the phases of the diagonal's entries
        sign = jnp.prod(diag / jnp.abs(diag).astype(dtype), axis=-1)
    else:
        sign = jnp.array(1, dtype=dtype)
        parity = parity + jnp.count_nonzero(diag < 0, axis=-1)
    sign = jnp.where(is_zero, jnp.array(0, dtype=dtype),
                     sign * jnp.array(-2 * (parity % 2) + 1, dtype=dtype))
    logdet = jnp.where(is_zero, jnp.array(-np.inf, dtype=dtype),
                       jnp.sum(jnp.log(jnp.abs(diag)).astype(dtype), axis=-1))
    return sign, jnp.real(logdet)


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(primals, tangents):
    """``log|det a|' = trace(a^-1 a')``; the sign has no derivative."""
    (x,), (g,) = primals, tangents
    sign, logdet = _slogdet_lu(x)
    return (sign, logdet), _slogdet_tangents(sign, jnp.trace(_lu_solve(x, g), axis1=-1,
                                                             axis2=-2))


# ----------------------------------------------------------------------------- from the above


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """The least-squares ``x`` minimizing ``|a x - b|``, from the SVD (as JAX): ``(x,
    residuals, rank, s)``; singular values below ``rcond`` times the largest count as 0.
    The residuals are always computed (JAX's ``numpy_resid=False``, its jit ``_lstsq``)."""
    if numpy_resid:
        raise NotImplementedError('jnp.linalg.lstsq: minijax does not support numpy_resid=True')
    return _lstsq(a, b, rcond)


@_jit
def _lstsq(a, b, rcond):
    a = _float_matrix('lstsq', a, square=False)
    b = jnp._to_float(jnp.asarray(b))
    vector = jnp.ndim(b) == 1
    b = jnp.expand_dims(b, -1) if vector else b
    if jnp.ndim(a) != 2 or jnp.ndim(b) != 2 or jnp.shape(a)[0] != jnp.shape(b)[0]:
        raise ValueError(f'jnp.linalg.lstsq: a must be [m, n] and b [m] or [m, k], got a '
                         f'{core.get_aval(a).str_short()} and b {core.get_aval(b).str_short()}')
    a, b = jnp._promote(a, b)
    dtype = core.get_aval(a).dtype
    if rcond is None:
        rcond = float(dtypes.finfo(dtype).eps) * max(jnp.shape(a))
    else:
        rcond = jnp.where(jnp.asarray(rcond) < 0, dtypes.finfo(dtype).eps, rcond)
    u, s, vt = svd(a, full_matrices=False)
    kept = (s > 0) & (s >= jnp.asarray(rcond, core.get_aval(s).dtype) * s[0])
    s_inv = jnp.where(kept, 1 / jnp.where(kept, s, 1.).astype(dtype), 0.)[:, None]
    x = jnp.matmul(_H(vt), s_inv * jnp.matmul(_H(u), b))
    residuals = jnp.linalg.norm(b - jnp.matmul(a, x), axis=0) ** 2
    return (x.ravel() if vector else x), residuals, jnp.sum(kept), s


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times (the inverse's for ``n < 0``), by repeated
    squaring in JAX's order, so that the products round as JAX's do."""
    a = jnp.asarray(a)
    if jnp.ndim(a) < 2 or jnp.shape(a)[-1] != jnp.shape(a)[-2]:
        raise TypeError(f'jnp.linalg.matrix_power: a must be [..., n, n] (its last 2 axes '
                        f'square), got {core.get_aval(a).str_short()}')  # JAX's class
    n = jnp._static_int(n, 'jnp.linalg.matrix_power: n')
    if n == 0:
        return jnp.broadcast_to(jnp.eye(jnp.shape(a)[-1], dtype=core.get_aval(a).dtype),
                                jnp.shape(a))
    a, n = (inv(a), -n) if n < 0 else (a, n)
    if n <= 3:
        return functools.reduce(jnp.matmul, [a] * n)
    power, result = None, None
    while n:
        power = a if power is None else jnp.matmul(power, power)
        n, bit = divmod(n, 2)
        if bit:
            result = power if result is None else jnp.matmul(result, power)
    return result


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (the first and last may be vectors), multiplied
    in the order of fewest flops (the matrix-chain dynamic program)."""
    arrays = [jnp.asarray(x) for x in arrays]
    shapes = [jnp.shape(x) for x in arrays]
    if (len(arrays) < 2 or len(shapes[0]) not in (1, 2) or len(shapes[-1]) not in (1, 2)
            or any(len(s) != 2 for s in shapes[1:-1])):
        raise ValueError(f'jnp.linalg.multi_dot: needs two arrays or more, all matrices but '
                         f'the first and last, which may be vectors; got shapes {shapes}')
    if any(s[-1] != t[0] for s, t in zip(shapes, shapes[1:])):
        raise ValueError(f'jnp.linalg.multi_dot: the shapes {shapes} do not chain')
    matrices = [s if len(s) == 2 else (1, *s) if k == 0 else (*s, 1)
                for k, s in enumerate(shapes)]  # vectors as a row, then a column
    dims = [matrices[0][0]] + [s[1] for s in matrices]
    return _chain_product(arrays, _chain_order(dims), 0, len(arrays) - 1)


def _chain_order(dims):
    """``split[i][j]``: where the cheapest product of matrices ``i..j`` splits, for
    matrices of shapes ``dims[k] x dims[k + 1]``."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min(
                (cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                for k in range(i, j))
    return split


def _chain_product(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i][j]
    return jnp.matmul(_chain_product(arrays, split, i, k),
                      _chain_product(arrays, split, k + 1, j))


@functools.partial(_jit, static_argnames=('p',))
def cond(x, p=None):
    """The condition number: the ratio of the largest and smallest singular values for
    ``p`` None, 2 or -2, else ``norm(x, p) * norm(inv(x), p)``; inf where that is NaN
    and ``x`` has no NaN."""
    x = _float_matrix('cond', x, square=p not in (None, 2, -2))
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        r = (jnp.linalg.norm(x, ord=p, axis=(-2, -1))
             * jnp.linalg.norm(inv(x), ord=p, axis=(-2, -1)))
    return jnp.where(jnp.isnan(r) & ~jnp.any(jnp.isnan(x), axis=(-2, -1)), np.inf, r)


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix of its first ``ind`` axes by the others."""
    a = jnp.asarray(a)
    rows, cols = jnp.shape(a)[:ind], jnp.shape(a)[ind:]
    if math.prod(rows) != math.prod(cols):
        raise ValueError(f'jnp.linalg.tensorinv: the first {ind} axes of a '
                         f'{core.get_aval(a).str_short()} must have as many elements as the '
                         'others')
    return jnp.reshape(inv(jnp.reshape(a, (math.prod(rows), math.prod(cols)))),
                       (*cols, *rows))


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``: a solve of ``a`` seen as a matrix."""
    a, b = jnp.asarray(a), jnp.asarray(b)
    if axes is not None:
        a = jnp.moveaxis(a, axes, tuple(range(jnp.ndim(a) - len(axes), jnp.ndim(a))))
    b_shape, x_shape = jnp.shape(b), jnp.shape(a)[jnp.ndim(b):]
    if jnp.shape(a)[:jnp.ndim(b)] != b_shape or math.prod(b_shape) != math.prod(x_shape):
        raise ValueError(f'jnp.linalg.tensorsolve: a {core.get_aval(a).str_short()} does not '
                         f'fit b {core.get_aval(b).str_short()}')
    a = jnp.reshape(a, (math.prod(b_shape), math.prod(x_shape)))
    return jnp.reshape(solve(a, jnp.ravel(b)), x_shape)


# ---------------------------------------------------------------------- the array API's names

def _preferred(x1, x2, preferred_element_type):
    """The operands as the dtype asked for (XLA's dot accumulates in it, which on CPU is
    the same as computing in it)."""
    if preferred_element_type is None:
        return x1, x2
    return (jnp.asarray(x, preferred_element_type) for x in (x1, x2))


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis``."""
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if jnp.shape(x1)[axis] != 3 or jnp.shape(x2)[axis] != 3:
        raise ValueError('Both input arrays must be (arrays of) 3-dimensional vectors, but they '
                         f'have x1.shape[axis]={jnp.shape(x1)[axis]!r} and '
                         f'x2.shape[axis]={jnp.shape(x2)[axis]!r}')
    return jnp.cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset=0):
    """The diagonals of the matrices ``x[..., m, n]``."""
    return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``x1 @ x2`` (``precision`` is for TPUs: on CPU every dot is exact to its dtype)."""
    return jnp.matmul(*_preferred(x1, x2, preferred_element_type))


def matrix_norm(x, /, *, keepdims=False, ord='fro'):  # noqa: A002
    """The norm ``ord`` of each matrix ``x[..., m, n]``."""
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


def matrix_transpose(x, /):
    """Each matrix ``x[..., m, n]`` transposed."""
    x = jnp.asarray(x)
    ndim = jnp.ndim(x)
    if ndim < 2:
        raise ValueError(f'matrix_transpose requires at least 2 dimensions; got ndim={ndim}')
    return lax.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


def outer(x1, x2, /):
    """The outer product of two vectors."""
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if jnp.ndim(x1) != 1 or jnp.ndim(x2) != 1:
        raise ValueError(f'Input arrays must be one-dimensional, but they are '
                         f'x1.ndim={jnp.ndim(x1)} x2.ndim={jnp.ndim(x2)}')
    return x1[:, None] * x2[None, :]


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
    """``jnp.tensordot`` with the array API's keyword ``axes`` (one device: no sharding)."""
    if out_sharding is not None:
        raise NotImplementedError('tensordot: out_sharding needs a mesh (SPMD is issue 31)')
    return jnp.tensordot(*_preferred(x1, x2, preferred_element_type), axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    """The traces of the matrices ``x[..., m, n]``."""
    return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The dot products of vectors along ``axis``, ``x1`` conjugated."""
    return jnp.vecdot(*_preferred(x1, x2, preferred_element_type), axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """The vector norm ``ord`` over ``axis`` (an axis, a tuple of them, or all of ``x``),
    JAX's formulas."""
    return jnp._linear_algebra._vector_norm(jnp.asarray(x), ord, axis, keepdims)
