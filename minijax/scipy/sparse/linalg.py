"""``jax.scipy.sparse.linalg``'s Krylov solvers of ``A x = b``: conjugate gradients (``cg``,
for positive definite ``A``) and ``bicgstab``, as JAX writes them. ``A`` and the
preconditioner ``M`` are matrices or linear functions of pytrees; each solve is a
``while_loop`` inside ``custom_linear_solve``, so ``grad`` differentiates the solution
implicitly (another solve) rather than through the iterations. The second result (``info``)
is None, as in JAX."""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from minijax import dtypes
from minijax import numpy as mnp
from minijax.control_flow import custom_linear_solve, while_loop
from minijax.tree_util import tree_leaves, tree_map, tree_structure

__all__ = ['bicgstab', 'cg']


def _vdot_real_part(x, y):
    """The real part of ``<x, y>``, without forming the complex product."""
    result = mnp.vdot(x.real, y.real)
    if mnp.iscomplexobj(x) or mnp.iscomplexobj(y):
        result += mnp.vdot(x.imag, y.imag)
    return result


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(tree_leaves(tree_map(mnp.vdot, x, y)))


def _scaled(scalar, tree):
    return tree_map(partial(operator.mul, scalar), tree)


def _add(x, y):
    return tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_map(operator.sub, x, y)


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
        return partial(mnp.dot, a) if hasattr(a, 'dtype') else partial(operator.matmul, a)
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
    dtype = mnp.result_type(*tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, p0).astype(dtype)
    return while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))[0]


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
        x_ = tree_map(partial(mnp.where, exit_early), _add(x, _scaled(alpha_, phat)),
                      _add(x, _add(_scaled(alpha_, phat), _scaled(omega_, shat))))
        r_ = tree_map(partial(mnp.where, exit_early), s, _sub(s, _scaled(omega_, t)))
        k_ = mnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = mnp.where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = _sub(b, A(x0))
    one = mnp.ones((), dtypes.result_type(*tree_leaves(b)))
    return while_loop(cond_fun, body_fun, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _shapes(tree):
    return [np.shape(leaf) for leaf in tree_leaves(tree)]


def _isolve(solve, A, b, x0, *, tol, atol, maxiter, M, check_symmetric=False):
    """The checks and defaults the solvers share, and the solve as a linear solve."""
    if x0 is None:
        x0 = tree_map(mnp.zeros_like, b)
    b, x0 = tree_map(mnp.asarray, (b, x0))
    if maxiter is None:
        maxiter = 10 * sum(leaf.size for leaf in tree_leaves(b))
    M = _identity if M is None else _as_function(M)
    A = _as_function(A)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError('x0 and b must have matching tree structure: '
                         f'{tree_structure(x0)} vs {tree_structure(b)}')
    if _shapes(x0) != _shapes(b):
        raise ValueError('arrays in x0 and b must have matching shapes: '
                         f'{_shapes(x0)} vs {_shapes(b)}')
    isolve = partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    symmetric = check_symmetric and not any(mnp.iscomplexobj(leaf) for leaf in tree_leaves(b))
    return custom_linear_solve(A, b, solve=isolve, transpose_solve=isolve,
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
