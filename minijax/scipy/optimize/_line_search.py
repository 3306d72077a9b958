"""The line search of ``jax.scipy.optimize``'s BFGS: a step satisfying the strong Wolfe
conditions (Nocedal and Wright, Algorithms 3.5 and 3.6), bracketing by doubling, then zooming
by cubic, quadratic or bisection steps, as JAX does: every branch computed, the taken one
selected by ``where``, inside ``while_loop``s."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.autodiff import value_and_grad
from minijax.control_flow import while_loop
from minijax.numpy import _promote_inexact


def _dot(a, b):
    return lax.dot(a, b, precision=lax.Precision.HIGHEST)


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through ``(a, fa)`` with slope ``fpa``, ``(b, fb)`` and
    ``(c, fc)``."""
    dtype = jnp.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denominator = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    d2 = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    big_a, big_b = _dot(d1, d2) / denominator
    return a + (-big_b + jnp.sqrt(big_b * big_b - 3. * big_a * fpa)) / (3. * big_a)


def _quadmin(a, fa, fpa, b, fb):
    """The minimizer of the quadratic through ``(a, fa)`` with slope ``fpa`` and ``(b, fb)``."""
    db = b - a
    return a - fpa / (2. * ((fb - fa - fpa * db) / (db ** 2)))


def _where(condition, state, **new):
    """``state`` with the fields in ``new`` taken where ``condition`` holds."""
    return state._replace(**{k: jnp.where(condition, v, getattr(state, k))
                             for k, v in new.items()})


class _Zoom(NamedTuple):
    done: object
    failed: object
    j: object
    a_lo: object
    phi_lo: object
    dphi_lo: object
    a_hi: object
    phi_hi: object
    dphi_hi: object
    a_rec: object
    phi_rec: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object
    nfev: object
    ngev: object


def _zoom(phi_dphi_g, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi, g_0,
          pass_through):
    """A step in the bracket ``[a_lo, a_hi]`` meeting both Wolfe conditions (failed after 30
    tries or when the bracket is too small); skipped where ``pass_through``."""
    state = _Zoom(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                  a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
                  phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo,
                  dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)

    def body(s):
        dalpha = s.a_hi - s.a_lo
        low, high = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
        cubic_margin, quad_margin = 0.2 * dalpha, 0.1 * dalpha
        threshold = np.where(np.finfo(dalpha.dtype).bits < 64, 1e-5, 1e-10)
        s = s._replace(failed=s.failed | (dalpha <= threshold))
        a_cubic = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (a_cubic > low + cubic_margin) & (a_cubic < high - cubic_margin)
        a_quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = (~use_cubic) & (a_quad > low + quad_margin) & (a_quad < high - quad_margin)
        a_j = jnp.where(use_cubic, a_cubic, s.a_rec)
        a_j = jnp.where(use_quad, a_quad, a_j)
        a_j = jnp.where((~use_cubic) & (~use_quad), (s.a_lo + s.a_hi) / 2., a_j)
        phi_j, dphi_j, g_j = phi_dphi_g(a_j)
        phi_j, dphi_j = phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = wolfe_two(dphi_j) & (~hi_to_j)
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.) & (~hi_to_j) & (~star_to_j)
        lo_to_j = (~hi_to_j) & (~star_to_j)
        s = _where(hi_to_j, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi,
                   phi_rec=s.phi_hi)
        s = _where(star_to_j, s._replace(done=star_to_j | s.done), a_star=a_j, phi_star=phi_j,
                   dphi_star=dphi_j, g_star=g_j)
        s = _where(hi_to_lo, s, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi,
                   phi_rec=s.phi_hi)
        s = _where(lo_to_j & ~hi_to_lo, s, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _where(lo_to_j, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        s = s._replace(j=s.j + 1)
        return s._replace(failed=s.failed | (s.j >= 30))

    return while_loop(lambda s: (~s.done) & (~pass_through) & (~s.failed), body, state)


class _Search(NamedTuple):
    done: object
    failed: object
    i: object
    a_i1: object
    phi_i1: object
    dphi_i1: object
    nfev: object
    ngev: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object


class LineSearchResults(NamedTuple):
    failed: object
    nit: object
    nfev: object
    ngev: object
    k: object
    a_k: object
    f_k: object
    g_k: object
    status: object


_STAR = ('a_star', 'phi_star', 'dphi_star', 'g_star')


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step ``a`` along ``pk`` from ``xk`` with ``f`` decreased enough (``c1``) and its slope
    flattened enough (``c2``); status 0 (found), 1 (zoom failed) or 3 (``maxiter``)."""
    xk, pk = _promote_inexact(xk, pk)

    def phi_dphi_g(t):
        phi, g = value_and_grad(f)(xk + jnp.array(t, dtype=pk.dtype) * pk)
        return phi, jnp.real(_dot(g, pk)), g

    if old_fval is None or gfk is None:
        phi_0, dphi_0, gfk = phi_dphi_g(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = jnp.where(candidate > 1, 1.0, candidate)
    else:
        start = 1

    def wolfe_one(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    evaluated = 1 if (old_fval is None or gfk is None) else 0
    state = _Search(done=jnp.array(False), failed=jnp.array(False), i=1, a_i1=0.,
                    phi_i1=phi_0, dphi_i1=dphi_0, nfev=evaluated, ngev=evaluated, a_star=0.,
                    phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def body(s):
        a_i = jnp.where(s.i == 1, start, s.a_i1 * 2.)
        phi_i, dphi_i, g_i = phi_dphi_g(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        to_i = wolfe_two(dphi_i) & (~to_zoom1)
        to_zoom2 = (dphi_i >= 0.) & (~to_zoom1) & (~to_i)
        zoom1 = _zoom(phi_dphi_g, wolfe_one, wolfe_two, s.a_i1, s.phi_i1, s.dphi_i1, a_i, phi_i,
                      dphi_i, gfk, ~to_zoom1)
        s = s._replace(nfev=s.nfev + zoom1.nfev, ngev=s.ngev + zoom1.ngev)
        zoom2 = _zoom(phi_dphi_g, wolfe_one, wolfe_two, a_i, phi_i, dphi_i, s.a_i1, s.phi_i1,
                      s.dphi_i1, gfk, ~to_zoom2)
        s = s._replace(nfev=s.nfev + zoom2.nfev, ngev=s.ngev + zoom2.ngev)
        s = _where(to_zoom1, s._replace(done=to_zoom1 | s.done,
                                        failed=(to_zoom1 & zoom1.failed) | s.failed),
                   **{k: getattr(zoom1, k) for k in _STAR})
        s = _where(to_i, s._replace(done=to_i | s.done), a_star=a_i, phi_star=phi_i,
                   dphi_star=dphi_i, g_star=g_i)
        s = _where(to_zoom2, s._replace(done=to_zoom2 | s.done,
                                        failed=(to_zoom2 & zoom2.failed) | s.failed),
                   **{k: getattr(zoom2, k) for k in _STAR})
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = while_loop(lambda s: (~s.done) & (s.i <= maxiter) & (~s.failed), body, state)
    status = jnp.where(state.failed, jnp.array(1),
                       jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    alpha = jnp.asarray(state.a_star)
    alpha = jnp.where((np.finfo(alpha.dtype).bits != 64) & (jnp.abs(alpha) < 1e-8),
                      jnp.sign(alpha) * 1e-8, alpha)
    return LineSearchResults(failed=state.failed | (~state.done), nit=state.i - 1,
                             nfev=state.nfev, ngev=state.ngev, k=state.i, a_k=alpha,
                             f_k=state.phi_star, g_k=state.g_star, status=status)
