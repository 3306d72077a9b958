"""``jax.scipy.sparse.linalg``'s Krylov solvers of ``A x = b``: conjugate gradients (``cg``,
for positive definite ``A``), ``bicgstab`` and restarted ``gmres``, as JAX writes them.
``A`` and the preconditioner ``M`` are matrices or linear functions of pytrees; each solve
is a ``while_loop`` inside ``custom_linear_solve``, so ``grad`` differentiates the solution
implicitly (another solve) rather than through the iterations. The second result
(``info``) is None for ``cg`` and ``bicgstab``, as in JAX."""

import functools
import operator

import numpy as np

from minijax import control_flow, dtypes, lax, tree_util
from minijax import numpy as mnp
from minijax.scipy import linalg as scipy_linalg

__all__ = ['bicgstab', 'cg', 'gmres']


def _vdot_real_part(x, y):
    """The real part of ``<x, y>``, without forming the complex product."""
    result = mnp.vdot(x.real, y.real)
    if mnp.iscomplexobj(x) or mnp.iscomplexobj(y):
        result += mnp.vdot(x.imag, y.imag)
    return result


def _vdot_real_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(mnp.vdot, x, y)))


def _scaled(scalar, tree):
    return tree_util.tree_map(functools.partial(operator.mul, scalar), tree)


def _add(x, y):
    return tree_util.tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_util.tree_map(operator.sub, x, y)


def _identity(x):
    return x


def _as_function(a):
    """A linear operator as a function: itself, or multiplication by a square matrix."""
    if callable(a):
        return a
    if hasattr(a, '__matmul__'):
        if not hasattr(a, 'shape') or len(a.shape) != 2 or a.shape[0] != a.shape[1]:
            raise ValueError('linear operator must be a square matrix, but has shape: '
                             f'{getattr(a, "shape", None)}')
        if hasattr(a, 'dtype'):
            return functools.partial(mnp.dot, a)
        return functools.partial(operator.matmul, a)
    raise TypeError(f'linear operator must be either a function or ndarray: {a}')


def _tolerance(b, tol, atol):
    """The squared residual norm the iterations stop under."""
    return mnp.maximum(mnp.square(tol) * _vdot_real_tree(b, b), mnp.square(atol))


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned conjugate gradients from ``x0``."""
    atol2 = _tolerance(b, tol, atol)

    def cond_fun(value):
        _, r, gamma, _, k = value
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body_fun(value):
        x, r, gamma, p, k = value
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)
        x_, r_ = _add(x, _scaled(alpha, p)), _sub(r, _scaled(alpha, Ap))
        z_ = M(r_)
        gamma_ = _vdot_real_tree(r_, z_).astype(dtype)
        return x_, r_, gamma_, _add(z_, _scaled(gamma_ / gamma, p)), k + 1

    r0 = _sub(b, A(x0))
    p0 = M(r0)
    dtype = mnp.result_type(*tree_util.tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, p0).astype(dtype)
    return control_flow.while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
    """The stabilized biconjugate gradient method from ``x0``; it stops early on a
    breakdown (``k`` set negative), as JAX's does."""
    atol2 = _tolerance(b, tol, atol)

    def cond_fun(value):
        r, k = value[1], value[-1]
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body_fun(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = _vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _scaled(beta, _sub(p, _scaled(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot_tree(rhat, q_)
        s = _sub(r, _scaled(alpha_, q_))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)
        early = functools.partial(mnp.where, exit_early)
        x_ = tree_util.tree_map(early, _add(x, _scaled(alpha_, phat)),
                                _add(x, _add(_scaled(alpha_, phat), _scaled(omega_, shat))))
        r_ = tree_util.tree_map(early, s, _sub(s, _scaled(omega_, t)))
        k_ = mnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = mnp.where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = _sub(b, A(x0))
    one = mnp.ones((), dtypes.result_type(*tree_util.tree_leaves(b)))
    return control_flow.while_loop(cond_fun, body_fun, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _shapes(tree):
    return [np.shape(leaf) for leaf in tree_util.tree_leaves(tree)]


def _isolve(solve, A, b, x0, *, tol, atol, maxiter, M, check_symmetric=False):
    """The checks and defaults the solvers share, and the solve as a linear solve."""
    if x0 is None:
        x0 = tree_util.tree_map(mnp.zeros_like, b)
    b, x0 = tree_util.tree_map(mnp.asarray, (b, x0))
    if maxiter is None:
        maxiter = 10 * sum(leaf.size for leaf in tree_util.tree_leaves(b))
    M = _identity if M is None else _as_function(M)
    A = _as_function(A)
    if tree_util.tree_structure(x0) != tree_util.tree_structure(b):
        raise ValueError('x0 and b must have matching tree structure: '
                         f'{tree_util.tree_structure(x0)} vs {tree_util.tree_structure(b)}')
    if _shapes(x0) != _shapes(b):
        raise ValueError('arrays in x0 and b must have matching shapes: '
                         f'{_shapes(x0)} vs {_shapes(b)}')
    isolve = functools.partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    symmetric = check_symmetric and not any(mnp.iscomplexobj(leaf)
                                            for leaf in tree_util.tree_leaves(b))
    return control_flow.custom_linear_solve(A, b, solve=isolve, transpose_solve=isolve,
                                            symmetric=symmetric), None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """``(x, None)``: ``A x = b`` solved by conjugate gradients (``A`` positive definite)
    to ``|r| <= max(tol |b|, atol)`` or ``maxiter`` steps (10 n by default)."""
    return _isolve(_cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """``(x, None)``: ``A x = b`` solved by BiCGSTAB (any nonsingular ``A``), stopping as
    ``cg`` does."""
    return _isolve(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


# ----------------------------------------------------------------------------- gmres


def _norm(tree):
    return mnp.sqrt(sum(_vdot_real_part(x, x) for x in tree_util.tree_leaves(tree)))


def _safe_normalize(x, thresh=None):
    """``(x / |x|, |x|)``, or zeros when ``|x|`` is at most ``thresh`` (machine epsilon)."""
    norm = _norm(x)
    dtype = dtypes.result_type(*tree_util.tree_leaves(x))
    thresh = mnp.finfo(norm.dtype).eps if thresh is None else thresh
    use_norm = norm > mnp.asarray(thresh).astype(dtype).real
    divisor = norm.astype(dtype)
    return (tree_util.tree_map(lambda y: mnp.where(use_norm, y / divisor, 0.), x),
            mnp.where(use_norm, norm, 0.))


def _columns_times(V, y):
    return tree_util.tree_map(lambda X: mnp.dot(X, y), V)


def _arnoldi_step(k, A, M, V, H):
    """Extends the Krylov basis ``V`` (columns on the last axis) by the ``k``-th column's
    image, orthogonalized by a classical Gram-Schmidt pass; its coefficients are ``H``'s
    row ``k``. A zero new vector is a breakdown: the space is invariant."""
    dtype = dtypes.result_type(*tree_util.tree_leaves(V))
    v = M(A(tree_util.tree_map(lambda X: X[..., k], V)))
    _, norm_before = _safe_normalize(v)
    h = sum(tree_util.tree_leaves(tree_util.tree_map(
        lambda X, y: mnp.einsum('...n,...->n', X.conj(), y), V, v)))
    v = _sub(v, _columns_times(V, h))
    unit, norm_after = _safe_normalize(v, thresh=mnp.finfo(dtype).eps * norm_before)
    V = tree_util.tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit)
    H = H.at[k, :].set(h.at[k + 1].set(norm_after.astype(dtype)))
    return V, H, norm_after == 0.


def _rotate(H, i, cs, sn):
    """Entries ``i`` and ``i + 1`` of ``H`` turned by the Givens rotation ``(cs, sn)``."""
    x, y = H[i], H[i + 1]
    return H.at[i].set(cs.conj() * x - sn.conj() * y).at[i + 1].set(sn * x + cs * y)


def _givens(a, b):
    """The rotation zeroing ``b`` against ``a``."""
    a_lt_b = abs(a) < abs(b)
    t = -mnp.where(a_lt_b, a, b) / mnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    b_zero = abs(b) == 0
    return (mnp.where(b_zero, 1, mnp.where(a_lt_b, r * t, r)),
            mnp.where(b_zero, 0, mnp.where(a_lt_b, r, r * t)))


def _basis(unit_residual, restart):
    return tree_util.tree_map(lambda x: mnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                              unit_residual)


def _step_to(A, b, M, x0, V, y):
    """The new iterate ``x0 + V y`` and its normalized preconditioned residual."""
    x = _add(x0, _columns_times(tree_util.tree_map(lambda X: X[..., :-1], V), y))
    return (x, *_safe_normalize(M(_sub(b, A(x)))))


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart cycle, the least-squares problem kept triangular by Givens rotations as
    the basis grows, so it stops as soon as the residual estimate is under ``ptol``."""
    dtype = dtypes.result_type(*tree_util.tree_leaves(b))
    beta = mnp.zeros(restart + 1, dtype).at[0].set(residual_norm.astype(dtype))

    def step(carry):
        k, _, V, R, beta, givens = carry
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row = control_flow.fori_loop(0, k, lambda i, row: _rotate(row, i, *givens[i, :]), H[k, :])
        givens = givens.at[k, :].set(_givens(row[k], row[k + 1]))
        R = R.at[k, :].set(_rotate(row, k, *givens[k, :]))
        beta = _rotate(beta, k, *givens[k, :])
        return k + 1, abs(beta[k + 1]), V, R, beta, givens

    carry = (0, residual_norm, _basis(unit_residual, restart),
             mnp.eye(restart, restart + 1, dtype=dtype), beta,
             mnp.zeros((restart, 2), dtype))
    _, _, V, R, beta, _ = control_flow.while_loop(
        lambda c: (c[0] < restart) & (c[1] > ptol), step, carry)
    return _step_to(A, b, M, x0, V, scipy_linalg.solve_triangular(R[:, :-1].T, beta[:-1]))


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart cycle: the whole basis (until a breakdown), then the least-squares
    problem solved once, by its normal equations."""
    del ptol
    dtype = dtypes.result_type(*tree_util.tree_leaves(b))

    def step(carry):
        V, H, _, k = carry
        return (*_arnoldi_step(k, A, M, V, H), k + 1)

    carry = (_basis(unit_residual, restart), mnp.eye(restart, restart + 1, dtype=dtype),
             False, 0)
    V, H, _, _ = control_flow.while_loop(lambda c: (c[3] < restart) & ~c[2], step, carry)
    beta = mnp.zeros(restart + 1, dtype).at[0].set(residual_norm.astype(dtype))
    a = H.T
    y = scipy_linalg.solve(mnp.dot(a.T.conj(), a), mnp.dot(a.T.conj(), beta), assume_a='pos')
    return _step_to(A, b, M, x0, V, y)


_GMRES_METHODS = {'incremental': _gmres_incremental, 'batched': _gmres_batched}


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method='batched'):
    """``(x, info)``: ``A x = b`` solved by GMRES restarted every ``restart`` steps, at
    most ``maxiter`` cycles, to ``|r| <= max(tol |b|, atol)``; ``info`` is -1 if ``x`` is
    NaN, else 0. ``solve_method``: 'batched' (the least-squares problem once per cycle,
    fastest on accelerators) or 'incremental' (Givens rotations, stopping early)."""
    if x0 is None:
        x0 = tree_util.tree_map(mnp.zeros_like, b)
    M = _identity if M is None else _as_function(M)
    A = _as_function(A)
    b, x0 = tree_util.tree_map(mnp.asarray, (b, x0))
    size = sum(leaf.size for leaf in tree_util.tree_leaves(b))
    maxiter = 10 * size if maxiter is None else maxiter
    restart = min(restart, size)
    if tree_util.tree_structure(x0) != tree_util.tree_structure(b):
        raise ValueError('x0 and b must have matching tree structure: '
                         f'{tree_util.tree_structure(x0)} vs {tree_util.tree_structure(b)}')
    if solve_method not in _GMRES_METHODS:
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' "
                         "or 'batched'")
    cycle = _GMRES_METHODS[solve_method]
    b_norm = _norm(b)
    atol = mnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * mnp.minimum(1.0, atol / b_norm)

    def gmres_solve(A, b):
        def cycle_then_count(value):
            x, k, unit_residual, residual_norm = value
            x, unit_residual, residual_norm = cycle(A, b, x, unit_residual, residual_norm,
                                                    ptol, restart, M)
            return x, k + 1, unit_residual, residual_norm
        unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))
        return control_flow.while_loop(lambda v: (v[1] < maxiter) & (v[3] > atol), cycle_then_count,
                                       (x0, 0, unit_residual, residual_norm))[0]

    x = control_flow.custom_linear_solve(A, b, solve=gmres_solve, transpose_solve=gmres_solve)
    return x, mnp.where(mnp.isnan(_norm(x)), -1, 0)
