"""``jax.lax.linalg.tridiagonal_solve``: ``x`` with ``A x = b`` for a tridiagonal ``A`` given
by its three diagonals, each ``[..., m]`` (``dl[i] = A[i, i-1]``, ``d[i] = A[i, i]``,
``du[i] = A[i, i+1]``; ``dl[0]`` and ``du[m-1]`` unused) and ``b`` ``[..., m, k]``.

On CPU JAX calls LAPACK's ``gtsv`` (Gaussian elimination with partial pivoting; a singular
``A`` gives NaNs), or with ``perturb_singular`` jaxlib's ``tridiagonal_solve_perturbed``
kernel, which nudges tiny pivots so that a singular ``A`` still gives a finite answer;
minijax emits the same calls. The derivatives and the batching are JAX's: linear in ``b``
(its transpose solves with ``A^T``, the diagonals shifted), and a shared ``A`` under vmap
solves one system with more right-hand sides.
"""
from __future__ import annotations

import numpy as np

from minijax import core
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching
from minijax.interpreters.jvp import Zero, instantiate
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.elementwise import add, mul, neg, sub
from minijax.lax.householder import _check_operands, _lapack
from minijax.lax import lapack
from minijax.lax.slicing import slice as slice_
from minijax.lax.structural import broadcast_in_dim, concatenate, full, pad, reshape
from minijax.lowering import register_lowering

__all__ = ['tridiagonal_solve', 'tridiagonal_solve_p']


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """``x`` with ``A x = b``, ``A`` tridiagonal with diagonals ``dl``, ``d``, ``du``;
    ``perturb_singular``: perturb tiny pivots, so that a singular ``A`` gives finite
    values (for inverse iteration), instead of NaNs."""
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


def _abstract_eval(dl, d, du, b, *, perturb_singular):
    _check_operands('tridiagonal_solve', [dl, d, du, b], (1, 1, 1, 2))
    if not dl.shape == d.shape == du.shape:
        raise TypeError(f'tridiagonal_solve: the diagonals dl, d, du must have one shape, '
                        f'got {dl.str_short()}, {d.str_short()}, {du.str_short()}')
    if b.shape[:-1] != d.shape:
        raise TypeError(f'tridiagonal_solve: b must be [..., m, k] for diagonals [..., m], '
                        f'got b {b.str_short()} for diagonals {d.str_short()}')
    return ShapedArray(b.shape, b.dtype)


def _impl(dl, d, du, b, *, perturb_singular):
    """LAPACK's ``gtsv`` through SciPy, system by system (NaNs for a singular one). With
    ``perturb_singular`` only a nonsingular system agrees with the lowering's kernel: the
    perturbation of tiny pivots is jaxlib's, not reproduced here."""
    dl, d, du, b = (np.asarray(v) for v in (dl, d, du, b))
    out = np.empty_like(b)
    for index in np.ndindex(b.shape[:-2]):
        *_, x, info = _lapack('gtsv', b)(dl[index][1:], d[index], du[index][:-1], b[index])
        out[index] = x if info == 0 else np.nan
    return out


def _product(dl, d, du, x):
    """``A x`` for the tridiagonal ``A``: ``d x``, plus ``dl`` times the rows above, plus
    ``du`` times the rows below (in JAX's order of sums)."""
    *batch, m, k = core.get_aval(x).shape
    rank = len(batch) + 2
    zero = np.zeros((), core.get_aval(x).dtype)

    def column(v):
        return broadcast_in_dim(v, (*batch, m, k), tuple(range(rank - 1)))

    def shifted(v, down):
        """``v`` (``[..., m, k]``) moved one row down (or up), a zero row coming in."""
        starts, limits = [0] * rank, [*batch, m, k]
        if down:
            limits[-2] = m - 1
        else:
            starts[-2] = 1
        config = [(0, 0, 0)] * rank
        config[-2] = (1, 0, 0) if down else (0, 1, 0)
        return pad(slice_(v, starts, limits), zero, config)
    y = add(mul(column(d), x), mul(column(dl), shifted(x, down=True)))
    return add(y, mul(column(du), shifted(x, down=False)))


def _jvp(primals, tangents, *, perturb_singular):
    """``A x = b`` gives ``A x' = b' - A' x``, solved with ``A`` itself (JAX's rule)."""
    *diagonals, b = primals
    *diagonal_dots, b_dot = tangents
    x = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(isinstance(t, Zero) for t in diagonal_dots):
        rhs = b_dot
    else:
        a_dot_x = _product(*[instantiate(t) for t in diagonal_dots], x)
        rhs = neg(a_dot_x) if isinstance(b_dot, Zero) else sub(b_dot, a_dot_x)
    if isinstance(rhs, Zero):
        return x, Zero(core.get_aval(x))
    return x, tridiagonal_solve_p.bind(*diagonals, rhs, perturb_singular=perturb_singular)


def _transpose(ct, dl, d, du, b, *, perturb_singular):
    """``A^T``'s subdiagonal is ``A``'s superdiagonal one row down, and its superdiagonal
    ``A``'s subdiagonal one row up."""
    if any(is_undefined_primal(v) for v in (dl, d, du)):
        raise TypeError('tridiagonal_solve is linear only in b: cannot transpose with respect '
                        'to the diagonals')
    if isinstance(ct, Zero):
        return [None, None, None, Zero(b.aval)]
    aval = core.get_aval(du)
    *batch, m = aval.shape
    zero = full((*batch, 1), 0, aval.dtype)
    last = aval.ndim - 1
    dl_t = concatenate([zero, slice_(du, [0] * aval.ndim, [*batch, m - 1])], last)
    du_t = concatenate([slice_(dl, [0] * (aval.ndim - 1) + [1], [*batch, m]), zero], last)
    return [None, None, None, tridiagonal_solve(dl_t, d, du_t, ct,
                                                perturb_singular=perturb_singular)]


def _batching(vals, dims, *, perturb_singular):
    """JAX's rule: diagonals shared, the examples of ``b`` become more right-hand sides
    (their axis next to ``k``); otherwise every batch axis goes to the front."""
    *diagonals, b = vals
    *diagonal_dims, db = dims
    if all(d is batching.not_mapped for d in diagonal_dims):
        rank = core.get_aval(b).ndim
        b = batching.moveaxis(b, db, rank - 2)
        shape = core.get_aval(b).shape
        flat = reshape(b, (*shape[:-3], shape[-3], shape[-2] * shape[-1]))
        out = tridiagonal_solve(*diagonals, flat, perturb_singular=perturb_singular)
        return reshape(out, shape), rank - 2
    size = batching.axis_size_of(vals, dims)
    moved = [batching.move_batch_axis(size, d, 0, v) for v, d in zip(vals, dims)]
    return tridiagonal_solve(*moved, perturb_singular=perturb_singular), 0


def _lowering(ctx, dl, d, du, b, *, perturb_singular):
    """gtsv overwrites all four operands (the diagonals with its factors), and says in its
    info whether ``A`` was singular; the perturbed kernel writes a fresh ``x`` only."""
    b_aval = ctx.avals_in[-1]
    if perturb_singular:
        return lapack.call('tridiagonal_solve_perturbed_ffi', [dl, d, du, b], ctx.avals_in,
                            [b_aval], {}, prefixed=False)
    info_aval = lapack.info_aval(b_aval)
    *_, x, info = lapack.call('gtsv', [dl, d, du, b], ctx.avals_in,
                               [*ctx.avals_in, info_aval], {i: i for i in range(4)})
    return [lapack.nan_unless(ctx, lapack.succeeded(info, info_aval), x, b_aval, info_aval)]


tridiagonal_solve_p = Primitive('tridiagonal_solve', eager_on_xla=True)
tridiagonal_solve_p.def_impl(_impl)
tridiagonal_solve_p.def_abstract_eval(_abstract_eval)
tridiagonal_solve_p.def_jvp(_jvp, symbolic_zeros=True)
tridiagonal_solve_p.def_transpose(_transpose)
tridiagonal_solve_p.def_batching(_batching)
register_lowering(tridiagonal_solve_p, _lowering)
