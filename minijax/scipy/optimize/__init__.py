"""``jax.scipy.optimize.minimize``: unconstrained minimization by BFGS, as JAX runs it (one
``while_loop`` of quasi-Newton steps, each with a Wolfe line search from ``_line_search``), so
jittable and the same iterates."""

import typing

import numpy as np

from minijax import autodiff, control_flow
from minijax import numpy as jnp
from minijax.scipy.optimize import _line_search
from minijax.scipy.optimize._line_search import _dot

__all__ = ['OptimizeResults', 'minimize']


class OptimizeResults(typing.NamedTuple):
    """What ``minimize`` found: ``x``, ``success``, ``status`` (0 converged, 1 ``maxiter``
    reached, 2 + the line search's status when it failed), ``fun``, ``jac``, ``hess_inv``,
    and the counts ``nfev``, ``njev``, ``nit``."""
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


class _BFGS(typing.NamedTuple):
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object  # noqa: N815 (JAX's name)
    old_old_fval: object
    status: object
    line_search_status: object


def _bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS from ``x0`` until the gradient's ``norm`` is below ``gtol``: the inverse
    Hessian estimate updated by the rank-two formula (kept where ``1 / y.s`` is not finite)."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = autodiff.value_and_grad(fun)(x0)
    state = _BFGS(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1,
                  ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(d, dtype=x0.dtype),
                  old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0, line_search_status=0)

    def step(s):
        p_k = -_dot(s.H_k, s.g_k)
        search = _line_search.line_search(fun, s.x_k, p_k, old_fval=s.f_k,
                                          old_old_fval=s.old_old_fval, gfk=s.g_k,
                                          maxiter=line_search_maxiter)
        s = s._replace(nfev=s.nfev + search.nfev, ngev=s.ngev + search.ngev,
                       failed=search.failed, line_search_status=search.status)
        s_k = search.a_k * p_k
        y_k = search.g_k - s.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, np.newaxis] * y_k[np.newaxis, :])
        h_next = (_dot(_dot(w, s.H_k), w.T)
                  + rho_k * s_k[:, np.newaxis] * s_k[np.newaxis, :])
        return s._replace(converged=jnp.linalg.norm(search.g_k, ord=norm) < gtol, k=s.k + 1,
                          x_k=s.x_k + s_k, f_k=search.f_k, g_k=search.g_k,
                          H_k=jnp.where(jnp.isfinite(rho_k), h_next, s.H_k),
                          old_old_fval=s.f_k)

    state = control_flow.while_loop(lambda s: (~s.converged) & (~s.failed) & (s.k < maxiter),
                                    step, state)
    status = jnp.where(state.converged, 0, jnp.where(
        state.k == maxiter, 1, jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """The minimum of ``fun(x, *args)`` from ``x0`` (a vector): ``method='BFGS'`` (options
    ``maxiter``, ``norm``, ``gtol``, ``line_search_maxiter``). JAX's experimental L-BFGS is
    not in minijax."""
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f'args argument to jax.scipy.optimize.minimize must be a tuple, got '
                        f'{args}')
    if method.lower() == 'l-bfgs-experimental-do-not-rely-on-this':
        raise NotImplementedError("minimize: minijax has method='BFGS' only (JAX's L-BFGS is "
                                  "experimental)")
    if method.lower() != 'bfgs':
        raise ValueError(f'Method {method} not recognized')
    result = _bfgs(lambda x: fun(x, *args), x0, **options)
    return OptimizeResults(x=result.x_k, success=result.converged & ~result.failed,
                           status=result.status, fun=result.f_k, jac=result.g_k,
                           hess_inv=result.H_k, nfev=result.nfev, njev=result.ngev,
                           nit=result.k)
