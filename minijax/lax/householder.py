"""The Householder reductions of ``jax.lax.linalg`` and the products of their reflectors.

``hessenberg`` (LAPACK's ``gehrd``) and ``tridiagonal`` (``sytrd``, ``hetrd``) leave a matrix
in packed form: the reduced matrix on and next to its diagonal, the Householder vectors
``v_i`` of the reflectors ``H_i = I - tau_i v_i v_i^H`` beyond, and the scalars ``tau_i``
beside. ``householder_product`` (``orgqr``, ``ungqr``) multiplies the reflectors out into
``Q``; ``ormqr`` (``ormqr``, ``unmqr``) applies ``Q`` to a matrix without forming it. Each
lowers to the kernel JAX calls on CPU with JAX's attributes (``lapack.call``), so
the bits are JAX's; the NumPy impls (the reference executor's) call the same LAPACK routines
through SciPy. None has a derivative, as in JAX.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.core import Primitive, ShapedArray
from minijax.lax import lapack
from minijax.lowering import register_lowering

__all__ = ['hessenberg', 'householder_product', 'ormqr', 'tridiagonal', 'hessenberg_p',
           'householder_product_p', 'ormqr_p', 'tridiagonal_p']
# (``geqrf``/``geqrf_p`` and ``geqp3``/``geqp3_p``, the Householder QR in packed form, without
# and with column pivoting, are internal, as in JAX: ``scipy.linalg.qr_multiply`` calls them.)


def hessenberg(a):
    """``(a, taus)``: ``a`` reduced to upper Hessenberg form (on and above its first
    subdiagonal), the reflectors' vectors below, and their ``n - 1`` scalars ``taus``."""
    return tuple(hessenberg_p.bind(a))


def householder_product(a, taus):
    """The product ``H_0 H_1 ... H_{k-1}`` of the ``k`` reflectors whose vectors are the
    columns of ``a`` below its diagonal (``[..., m, n]``, ``m >= n``) and whose scalars are
    ``taus`` (``[..., k]``, ``k <= n``): the first ``n`` columns, orthonormal."""
    return householder_product_p.bind(a, taus)


def ormqr(a, taus, c, *, left=True, transpose=False):
    """``Q c`` (``left``) or ``c Q``, ``Q`` the product of the reflectors of ``a`` and
    ``taus`` (as ``householder_product`` takes them, ``Q`` square), without forming ``Q``;
    ``transpose``: ``Q^T`` (``Q^H`` for complex matrices) instead of ``Q``."""
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


def tridiagonal(a, *, lower=True):
    """``(a, d, e, taus)``: the Hermitian ``a`` reduced to real symmetric tridiagonal form,
    ``d`` its diagonal and ``e`` its first sub- (``lower``) or superdiagonal (both real), the
    reflectors' vectors beyond in ``a`` and their scalars ``taus``. Only the ``lower`` (or
    upper) triangle of ``a`` is read."""
    return tuple(tridiagonal_p.bind(a, lower=bool(lower)))


def geqrf(a):
    """``(a, taus)``: the QR decomposition in packed form, ``r`` on and above the diagonal
    of ``a``, the reflectors of ``q`` below it and in ``taus`` (``[..., min(m, n)]``)."""
    return tuple(geqrf_p.bind(a))


def geqp3(a):
    """``(a, jpvt, taus)``: the column-pivoted QR decomposition in packed form, ``a[:, jpvt
    - 1] = q r`` (``jpvt`` counts from 1, as LAPACK's and JAX's ``geqp3``). Every column is
    free to move: JAX's ``geqp3`` takes the ``jpvt`` LAPACK starts from, which its one
    caller (``qr_multiply``) sets to zeros, as minijax's lowering does."""
    return tuple(geqp3_p.bind(a))


def _lapack(name, a):
    """SciPy's wrapper of the LAPACK routine ``name`` for ``a``'s dtype."""
    import scipy.linalg.lapack  # (the reference executor's kernels)
    return getattr(scipy.linalg.lapack, lapack.PREFIX[a.dtype] + name)


def _check_operands(name, avals, ranks):
    """JAX's checks of a linear-algebra primitive's operands: float or complex and one
    dtype (TypeError), rank at least ``ranks[i]`` and as many batch axes each (TypeError),
    and (minijax's, where JAX fails later) one batch shape (ValueError)."""
    for i, (aval, rank) in enumerate(zip(avals, ranks)):
        if aval.dtype not in lapack.PREFIX:
            raise TypeError(f'{name}: LAPACK takes float32, float64, complex64 or complex128 '
                            f'operands, got operand {i} {aval.str_short()}')
        if aval.ndim < rank:
            raise TypeError(f'{name}: operand {i} must have rank at least {rank}, got '
                            f'{aval.str_short()}')
    if len({a.dtype for a in avals}) > 1:
        raise TypeError(f'{name}: the operands must have one dtype, got '
                        f'{", ".join(a.str_short() for a in avals)}')
    batches = {a.shape[:a.ndim - rank] for a, rank in zip(avals, ranks)}
    if len({len(b) for b in batches}) > 1:
        raise TypeError(f'{name}: the operands must have as many batch axes each, got '
                        f'{", ".join(a.str_short() for a in avals)}')
    if len(batches) > 1:
        raise ValueError(f'{name}: the operands must have one batch shape, got '
                         f'{", ".join(a.str_short() for a in avals)}')

# ----------------------------------------------------------------------------- hessenberg


def _hessenberg_abstract_eval(a):
    lapack.check_matrix('hessenberg', a)
    return [ShapedArray(a.shape, a.dtype),
            ShapedArray((*a.shape[:-2], a.shape[-1] - 1), a.dtype)]


def _hessenberg_one(a):
    h, taus, _ = _lapack('gehrd', a)(a)
    return h, taus


def _hessenberg_lowering(ctx, a):
    """gehrd over rows and columns ``low = 1`` to ``high = n`` (the whole matrix), its info
    making both results NaNs where it fails, as JAX calls it."""
    a_aval, taus_aval = ctx.avals_out
    info_aval = lapack.info_aval(a_aval)
    h, taus, info = lapack.call('gehrd', [a], ctx.avals_in, [a_aval, taus_aval, info_aval],
                                 {0: 0}, high=np.int32(a_aval.shape[-1]), low=np.int32(1))
    ok = lapack.succeeded(info, info_aval)
    return [lapack.nan_unless(ctx, ok, h, a_aval, info_aval),
            lapack.nan_unless(ctx, ok, taus, taus_aval, info_aval)]


hessenberg_p = Primitive('hessenberg', multiple_results=True, eager_on_xla=True)
hessenberg_p.def_impl(lapack.per_matrix_impl(_hessenberg_one))
hessenberg_p.def_abstract_eval(_hessenberg_abstract_eval)
lapack.batch_at_front(hessenberg_p)
register_lowering(hessenberg_p, _hessenberg_lowering)

# ----------------------------------------------------------------------------- tridiagonal


def _tridiagonal_abstract_eval(a, *, lower):
    lapack.check_matrix('tridiagonal', a)
    *batch, n = a.shape[:-1]
    real = dtypes.real_part_dtype(a.dtype)
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, n), real),
            ShapedArray((*batch, n - 1), real), ShapedArray((*batch, n - 1), a.dtype)]


def _tridiagonal_one(a, *, lower):
    name = 'hetrd' if np.iscomplexobj(a) else 'sytrd'
    packed, d, e, taus, _ = _lapack(name, a)(a, lower=int(lower))
    return packed, d, e, taus


def _tridiagonal_lowering(ctx, a, *, lower):
    x_aval, = ctx.avals_in
    info_aval = lapack.info_aval(x_aval)
    kernel = 'hetrd' if dtypes.is_complex(x_aval.dtype) else 'sytrd'
    *outs, info = lapack.call(kernel, [a], [x_aval], [*ctx.avals_out, info_aval], {0: 0},
                               uplo='L' if lower else 'U')
    ok = lapack.succeeded(info, info_aval)
    return [lapack.nan_unless(ctx, ok, x, aval, info_aval) for x, aval in zip(outs, ctx.avals_out)]


tridiagonal_p = Primitive('tridiagonal', multiple_results=True, eager_on_xla=True)
tridiagonal_p.def_impl(lapack.per_matrix_impl(_tridiagonal_one))
tridiagonal_p.def_abstract_eval(_tridiagonal_abstract_eval)
lapack.batch_at_front(tridiagonal_p)
register_lowering(tridiagonal_p, _tridiagonal_lowering)

# ----------------------------------------------------------------------------- householder_product


def _householder_product_abstract_eval(a, taus):
    _check_operands('householder_product', [a, taus], (2, 1))
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(f'householder_product: a must have at least as many rows as '
                         f'columns, got {a.str_short()}')
    if taus.shape[-1] > n:
        raise ValueError(f'householder_product: taus must have at most min(m, n) = {n} '
                         f'entries, got {taus.str_short()} for a {a.str_short()}')
    return ShapedArray(a.shape, a.dtype)


def _householder_product_impl(a, taus):
    a, taus = np.asarray(a), np.asarray(taus)
    name = 'ungqr' if np.iscomplexobj(a) else 'orgqr'
    out = np.empty_like(a)
    for index in np.ndindex(a.shape[:-2]):
        out[index] = _lapack(name, a)(a[index], taus[index])[0]
    return out


def _householder_product_lowering(ctx, a, taus):
    kernel = 'ungqr' if dtypes.is_complex(ctx.avals_in[0].dtype) else 'orgqr'
    return lapack.call(kernel, [a, taus], ctx.avals_in, ctx.avals_out, {0: 0})


householder_product_p = Primitive('householder_product', eager_on_xla=True)
householder_product_p.def_impl(_householder_product_impl)
householder_product_p.def_abstract_eval(_householder_product_abstract_eval)
lapack.batch_at_front(householder_product_p)
register_lowering(householder_product_p, _householder_product_lowering)

# ----------------------------------------------------------------------------- ormqr


def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
    _check_operands('ormqr', [a, taus, c], (2, 1, 2))
    m = a.shape[-2]
    rows, cols = c.shape[-2:]
    if (rows if left else cols) != m:
        side = 'rows' if left else 'columns'
        raise ValueError(f'ormqr: with left={left}, c must have as many {side} as a has rows '
                         f'({m}), got a {a.str_short()} and c {c.str_short()}')
    if taus.shape[-1] > min(a.shape[-2:]):
        raise ValueError(f'ormqr: taus must have at most min(m, n) = {min(a.shape[-2:])} '
                         f'entries, got {taus.str_short()} for a {a.str_short()}')
    return ShapedArray(c.shape, c.dtype)


def _ormqr_impl(a, taus, c, *, left, transpose):
    a, taus, c = np.asarray(a), np.asarray(taus), np.asarray(c)
    name = 'unmqr' if np.iscomplexobj(a) else 'ormqr'
    trans = ('C' if np.iscomplexobj(a) else 'T') if transpose else 'N'
    out = np.empty_like(c)
    for index in np.ndindex(a.shape[:-2]):
        k = taus.shape[-1]
        # (SciPy's wrapper wants a's first k columns: the reflectors; -1 asks for the
        # optimal workspace size)
        run = _lapack(name, a)
        lwork = int(np.real(run('L' if left else 'R', trans, a[index][:, :k], taus[index],
                                c[index], -1)[1][0]))
        out[index] = run('L' if left else 'R', trans, a[index][:, :k], taus[index],
                         c[index], max(lwork, 1))[0]
    return out


def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    kernel = 'unmqr' if dtypes.is_complex(ctx.avals_in[0].dtype) else 'ormqr'
    return lapack.call(kernel, [a, taus, c], ctx.avals_in, ctx.avals_out, {2: 0},
                        left=left, transpose=transpose)


ormqr_p = Primitive('ormqr', eager_on_xla=True)
ormqr_p.def_impl(_ormqr_impl)
ormqr_p.def_abstract_eval(_ormqr_abstract_eval)
lapack.batch_at_front(ormqr_p)
register_lowering(ormqr_p, _ormqr_lowering)

# ----------------------------------------------------------------------------- geqrf


def _geqrf_abstract_eval(a):
    lapack.check_matrix('geqrf', a, square=False)
    return [ShapedArray(a.shape, a.dtype),
            ShapedArray((*a.shape[:-2], min(a.shape[-2:])), a.dtype)]


def _geqrf_one(a):
    packed, taus, _, _ = _lapack('geqrf', a)(a)
    return packed, taus


def _geqrf_lowering(ctx, a):
    return lapack.call('geqrf', [a], ctx.avals_in, ctx.avals_out, {0: 0})


geqrf_p = Primitive('geqrf', multiple_results=True, eager_on_xla=True)
geqrf_p.def_impl(lapack.per_matrix_impl(_geqrf_one))
geqrf_p.def_abstract_eval(_geqrf_abstract_eval)
lapack.batch_at_front(geqrf_p)
register_lowering(geqrf_p, _geqrf_lowering)

# ----------------------------------------------------------------------------- geqp3


def _geqp3_abstract_eval(a):
    lapack.check_matrix('geqp3', a, square=False)
    *batch, m, n = a.shape
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, n), dtypes.int32),
            ShapedArray((*batch, min(m, n)), a.dtype)]


def _geqp3_one(a):
    packed, jpvt, taus, _, _ = _lapack('geqp3', a)(a)
    return packed, jpvt.astype(np.int32), taus


def _geqp3_lowering(ctx, a):
    """geqp3 from zero ``jpvt`` (every column free), as JAX's ``qr_multiply`` calls it."""
    jpvt_aval = ctx.avals_out[1]
    jpvt = lapack.full(jpvt_aval, 0)
    return lapack.call('geqp3', [a, jpvt], [ctx.avals_in[0], jpvt_aval], ctx.avals_out,
                        {0: 0, 1: 1})


geqp3_p = Primitive('geqp3', multiple_results=True, eager_on_xla=True)
geqp3_p.def_impl(lapack.per_matrix_impl(_geqp3_one))
geqp3_p.def_abstract_eval(_geqp3_abstract_eval)
lapack.batch_at_front(geqp3_p)
register_lowering(geqp3_p, _geqp3_lowering)
