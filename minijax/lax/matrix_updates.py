"""Two products of ``jax.lax.linalg`` that JAX computes with lax ops on CPU (GPU kernels
elsewhere): ``symmetric_product``, ``alpha a a^T + beta c``, and ``cholesky_update``, the
Cholesky factor of ``r^T r + w w^T`` by Givens rotations. Each primitive lowers to JAX's
formula (``lower_fun``), so its text and bits are JAX's. Neither has a derivative, and
``cholesky_update`` does not batch, as in JAX (``NotImplementedError``). Real matrices only,
as in JAX.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.lax.dot_general import batch_matmul
from minijax.lax.elementwise import (
    abs as abs_, add, div, eq, gt, integer_pow, mul, neg, select_n, sqrt, sub)
from minijax.lax.gather import ScatterDimensionNumbers, scatter
from minijax.lax import lapack
from minijax.lax.linalg import _T, _tril
from minijax.lax.slicing import slice as slice_
from minijax.lax.structural import broadcast_in_dim, squeeze
from minijax.lowering import lower_fun, register_lowering

__all__ = ['cholesky_update', 'symmetric_product', 'cholesky_update_p',
           'symmetric_product_p']

_REAL = (dtypes.float32, dtypes.float64)


def symmetric_product(a_matrix, c_matrix, *, alpha=1., beta=0., symmetrize_output=False):
    """``alpha a a^T + beta c`` for ``a`` ``[..., m, n]`` and a symmetric ``c``
    ``[..., m, m]``: the lower triangle is the product's (the whole of it on CPU);
    ``symmetrize_output`` copies the lower triangle onto the upper, as JAX does."""
    result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        upper = _T(_tril(result, -1))
        result = add(_tril(result), upper)
    return result


def cholesky_update(r_matrix, w_vector):
    """The upper-triangular ``R'`` with ``R'^T R' = R^T R + w w^T``, from the upper
    ``R`` (``[n, n]``) and ``w`` (``[n]``): ``n`` Givens rotations, ``O(n^2)``."""
    return cholesky_update_p.bind(r_matrix, w_vector)


def _check_real(name, avals, ranks, exact):
    """JAX's checks: float32 or float64 operands of one dtype, each of rank ``ranks[i]``
    (at least, or ``exact``ly), with as many batch axes each (all TypeError)."""
    for i, (aval, rank) in enumerate(zip(avals, ranks)):
        if aval.dtype not in _REAL:
            raise TypeError(f'{name}: operand {i} must be float32 or float64, got '
                            f'{aval.str_short()}')
        if aval.ndim < rank or (exact and aval.ndim != rank):
            how = 'exactly' if exact else 'at least'
            raise TypeError(f'{name}: operand {i} must have rank {how} {rank}, got '
                            f'{aval.str_short()}')
    if len({a.dtype for a in avals}) > 1 or len({a.ndim - r for a, r in zip(avals, ranks)}) > 1:
        raise TypeError(f'{name}: the operands must have one dtype and as many batch axes '
                        f'each, got {", ".join(a.str_short() for a in avals)}')

# ----------------------------------------------------------------------------- symmetric_product


def _symmetric_product_abstract_eval(a, c, *, alpha, beta):
    _check_real('symmetric_product', [a, c], (2, 2), exact=False)
    if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1] or a.shape[:-2] != c.shape[:-2]:
        raise ValueError(f'symmetric_product: a must be [..., m, n] and c [..., m, m], got a '
                         f'{a.str_short()} and c {c.str_short()}')
    return ShapedArray(c.shape, c.dtype)


def _symmetric_product(a, c, *, alpha, beta):
    """JAX's formula: the full product ``a a^T`` at the highest precision."""
    product = batch_matmul(a, _T(a), precision='highest')
    return add(mul(alpha, product), mul(beta, c))


def _symmetric_product_impl(a, c, *, alpha, beta):
    a, c = np.asarray(a), np.asarray(c)
    return (alpha * (a @ np.swapaxes(a, -1, -2)) + beta * c).astype(c.dtype)


symmetric_product_p = Primitive('symmetric_product', eager_on_xla=True)
symmetric_product_p.def_impl(_symmetric_product_impl)
symmetric_product_p.def_abstract_eval(_symmetric_product_abstract_eval)
lapack.batch_at_front(symmetric_product_p)
register_lowering(symmetric_product_p, lower_fun(_symmetric_product))

# ----------------------------------------------------------------------------- cholesky_update


def _cholesky_update_abstract_eval(r, w):
    _check_real('cholesky_update', [r, w], (2, 1), exact=True)
    if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
        raise ValueError(f'cholesky_update: r must be a square matrix [n, n] and w a vector '
                         f'[n], got r {r.str_short()} and w {w.str_short()}')
    return ShapedArray(r.shape, r.dtype)


def _entry(x, index):
    """``x[index]`` (static ints) as JAX takes it: a slice, squeezed."""
    sliced = slice_(x, index, [i + 1 for i in index])
    return squeeze(sliced, tuple(range(len(index))))


def _rotation(x, y):
    """``(c, s)`` of the Givens rotation taking ``(x, y)`` to ``(r, 0)``, scaled against
    overflow (BLAS's ``rotg``): ``(1, 0)`` when ``y`` is already 0."""
    from minijax.control_flow import cond  # (a layer above lax)
    dtype = core.get_aval(x).dtype

    def nonzero(x, y):
        abs_x, abs_y = abs_(x), abs_(y)
        scale = select_n(gt(abs_x, abs_y), abs_y, abs_x)
        x, y = div(x, scale), div(y, scale)
        inverse = div(np.array(1, dtype), sqrt(add(integer_pow(x, 2), integer_pow(y, 2))))
        return mul(x, inverse), mul(neg(y), inverse)
    return cond(eq(y, np.array(0, dtype)), lambda x, y: (np.array(1, dtype), np.array(0, dtype)),
                nonzero, x, y)


def _cholesky_update(r, z):
    """JAX's algorithm: row ``k`` of ``r`` and ``z`` rotated so that ``z[k]`` becomes 0."""
    n = core.get_aval(z).shape[0]
    numbers = ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))
    for k in range(n):
        c, s = _rotation(_entry(r, (k, k)), _entry(z, (k,)))
        row = squeeze(slice_(r, (k, 0), (k + 1, n)), (0,))

        def scaled(scale, v):
            return mul(broadcast_in_dim(scale, (n,), ()), v)
        row, z = sub(scaled(c, row), scaled(s, z)), add(scaled(c, z), scaled(s, row))
        index = broadcast_in_dim(np.int32(k), (1,), ())
        r = scatter(r, index, row, numbers, indices_are_sorted=True, unique_indices=True)
    return r


def _cholesky_update_impl(r, w):
    """The same rotations in NumPy."""
    r, z = np.array(r), np.array(w)
    for k in range(z.shape[0]):
        x, y = r[k, k], z[k]
        c, s = np.ones((), r.dtype), np.zeros((), r.dtype)
        if y != 0:
            scale = max(abs(x), abs(y))
            x, y = x / scale, y / scale
            inverse = 1 / np.sqrt(x * x + y * y)
            c, s = x * inverse, -y * inverse
        r[k], z = c * r[k] - s * z, c * z + s * r[k]
    return r


cholesky_update_p = Primitive('cholesky_update', eager_on_xla=True)
cholesky_update_p.def_impl(_cholesky_update_impl)
cholesky_update_p.def_abstract_eval(_cholesky_update_abstract_eval)
register_lowering(cholesky_update_p, lower_fun(_cholesky_update))
