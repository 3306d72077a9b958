"""``jnp``'s polynomials as coefficient arrays, highest power first (``polyval``, ``polyadd``,
``polymul``, ``polyder``, ``polyint``, ``polyfit``, ``poly``, ``vander``), written as JAX writes
them on the functions of ``minijax.numpy``, which imports them back. A result's length follows
from its operands' shapes, so leading zeros stay (JAX's ``trim_leading_zeros`` reads values).
"""
from __future__ import annotations

import operator

import numpy as np

from minijax import core, dtypes, lax
from minijax.numpy import (_promote, _promote_inexact, add, all, arange, argmin, array, asarray,
                           atleast_1d, concatenate, convolve, diag, dot, expand_dims, full,
                           linalg, maximum, multiply, ones, outer, power, prod, roll, sqrt,
                           subtract, sum, true_divide, unstack, where, zeros, zeros_like)
from minijax.numpy._data_dependent import _concrete_value

__all__ = ['poly', 'polyadd', 'polyder', 'polydiv', 'polyfit', 'polyint', 'polymul', 'polysub',
           'polyval', 'roots', 'vander']


def polyval(p, x, *, unroll=16):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``: Horner's rule."""
    p, x = _promote(asarray(p), asarray(x))
    y = zeros_like(x)
    for c in unstack(p):
        y = add(multiply(y, x), c)
    return y


def polyadd(a1, a2):
    """The sum of two polynomials: the shorter one added to the end of the longer one."""
    a1, a2 = _promote(asarray(a1), asarray(a2))
    if np.shape(a2)[0] <= np.shape(a1)[0]:
        return a1.at[-np.shape(a2)[0]:].add(a2)
    return a2.at[-np.shape(a1)[0]:].add(a1)


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = _promote(asarray(a1), asarray(a2))
    return polyadd(a1, -a2)


def _trim_leading_zeros(a):
    """``a`` without its leading zeros (read from its concrete value, as JAX's
    ``trim_zeros``)."""
    nonzero = np.flatnonzero(_concrete_value(a, 'polymul', 'pass trim_leading_zeros=False'))
    return a[nonzero[0]:] if nonzero.size else a[:0]


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials, a float array: the convolution of their coefficients
    (an empty operand counts as the polynomial 0)."""
    a1, a2 = _promote_inexact(a1, a2)
    if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):
        a1, a2 = _trim_leading_zeros(a1), _trim_leading_zeros(a2)
    dtype = core.get_aval(a1).dtype
    a1 = zeros(1, dtype) if len(a1) == 0 else a1
    a2 = zeros(1, dtype) if len(a2) == 0 else a2
    return convolve(a1, a2, mode='full')


def polyder(p, m=1):
    """The ``m``-th derivative: each coefficient times the falling factorial of its power."""
    m = operator.index(m)
    p, = _promote_inexact(p)
    if m < 0:
        raise ValueError('Order of derivative must be positive')
    if m == 0:
        return p
    dtype = core.get_aval(p).dtype
    powers = subtract(expand_dims(arange(m, len(p), dtype=dtype), 0),
                      expand_dims(arange(m, dtype=dtype), 1))
    return multiply(p[:-m], prod(powers, 0)[::-1])


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative, with the integration constants ``k`` (a scalar, or one
    per integration) as its last ``m`` coefficients."""
    m = operator.index(m)
    p, k = _promote_inexact(p, 0 if k is None else k)
    if m < 0:
        raise ValueError('Order of integral must be positive (see polyder)')
    k = atleast_1d(k)
    if len(k) == 1:
        k = full((m,), k[0])
    if np.shape(k) != (m,):
        raise ValueError('k must be a scalar or a rank-1 array of length 1 or m.')
    if m == 0:
        return p
    dtype = core.get_aval(p).dtype
    powers = subtract(expand_dims(arange(len(p) + m, dtype=dtype), 0),
                      expand_dims(arange(m, dtype=dtype), 1))
    divisors = prod(maximum(1, powers), 0)[::-1]
    return true_divide(concatenate((p, k)), divisors)


def vander(x, N=None, increasing=False):  # noqa: N803 (NumPy's name)
    """The matrix of the powers of ``x``: column ``j`` is ``x ** (N - 1 - j)`` (``x ** j``
    if ``increasing``)."""
    x = asarray(x)
    if np.ndim(x) != 1:
        raise ValueError('x must be a one-dimensional array')
    N = len(x) if N is None else operator.index(N)  # noqa: N806
    if N < 0:
        raise ValueError('N must be nonnegative')
    exponents = lax.iota(core.get_aval(x).dtype, N)
    if not increasing:
        exponents = subtract(N - 1, exponents)
    return power(expand_dims(x, 1), expand_dims(exponents, 0))


def poly(seq_of_zeros):
    """The monic polynomial with the given roots (a square matrix's eigenvalues), a float
    array: the product of the ``x - root``, one convolution each."""
    roots, = _promote_inexact(seq_of_zeros)
    roots = atleast_1d(roots)
    shape = np.shape(roots)
    if len(shape) == 2 and shape[0] == shape[1] != 0:  # the characteristic polynomial
        roots = linalg.eigvals(roots)
        shape = np.shape(roots)
    if len(shape) != 1:
        raise ValueError('input must be 1d or non-empty square 2d array.')
    dtype = core.get_aval(roots).dtype
    if shape[0] == 0:
        return ones((), dtype)
    coefficients = ones((1,), dtype)
    for k in range(shape[0]):
        coefficients = convolve(coefficients, array([1, -roots[k]], dtype), mode='full')
    return coefficients


def _polyfit_checks(x, y, deg):
    """JAX's errors for the operands of ``polyfit``, in JAX's order."""
    if deg < 0:
        raise ValueError('expected deg >= 0')
    if np.ndim(x) != 1:
        raise TypeError('expected 1D vector for x')
    if np.size(x) == 0:
        raise TypeError('expected non-empty vector for x')
    if not 1 <= np.ndim(y) <= 2:
        raise TypeError('expected 1D or 2D array for y')
    if np.shape(x)[0] != np.shape(y)[0]:
        raise TypeError('expected x and y to have same length')


def _weighted(lhs, rhs, w):
    """The rows of the least-squares problem multiplied by the weights ``w``."""
    w, = _promote_inexact(w)
    if np.ndim(w) != 1:
        raise TypeError('expected a 1-d array for weights')
    if np.shape(w)[0] != np.shape(rhs)[0]:
        raise TypeError('expected w and y to have the same length')
    w_column = expand_dims(w, 1)
    return multiply(lhs, w_column), multiply(rhs, w_column if np.ndim(rhs) == 2 else w)


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial ``p``: the eigenvalues of its companion matrix (complex).
    Leading zeros are stripped (which reads values), or with ``strip_zeros=False`` the
    roots they would add are NaN (JAX's way under jit)."""
    p, = _promote_inexact(p)
    p = atleast_1d(p)
    if np.ndim(p) != 1:
        raise ValueError('Input must be a rank-1 array.')
    complex_dtype = dtypes.COMPLEX_OF.get(core.get_aval(p).dtype, core.get_aval(p).dtype)
    if np.shape(p)[0] < 2:
        return array([], dtype=complex_dtype)
    leading = where(all(p == 0), np.shape(p)[0], argmin(p == 0))
    if strip_zeros:
        leading = int(_concrete_value(leading, 'jnp.roots', (
            'The error occurred in the jnp.roots() function. To use this within a '
            'JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros '
            'will result in some returned roots being set to NaN.')))
        return _roots_no_zeros(p[leading:])
    return _roots_with_zeros(p, leading)


def _roots_no_zeros(p):
    """The eigenvalues of the companion matrix of ``p`` (no leading zero)."""
    n = np.shape(p)[0]
    if n < 2:
        return array([], dtype=dtypes.COMPLEX_OF.get(core.get_aval(p).dtype))
    companion = diag(ones((n - 2,), core.get_aval(p).dtype), -1)
    return linalg.eigvals(companion.at[0, :].set(-p[1:] / p[0]))


def _roots_with_zeros(p, leading):
    """The roots of ``p`` rolled past its ``leading`` zeros (traced), those past the degree
    NaN, as JAX computes them under jit."""
    n = np.shape(p)[0]
    p = where(n == leading, 1.0, p)
    found = _roots_no_zeros(roll(p, -leading))
    found = lax.sort((found == 0, found), num_keys=1)[1]
    return where(arange(n - 1) < n - 1 - leading, found, complex(np.nan, np.nan))


def polydiv(u, v, *, trim_leading_zeros=False):
    """``(quotient, remainder)`` of the polynomials ``u / v``: long division, one step per
    quotient coefficient. The remainder keeps ``u``'s length unless ``trim_leading_zeros``
    (which reads values: the leading ones below ``sqrt(eps)`` in size go)."""
    u, v = _promote_inexact(u, v)
    m, n = np.shape(u)[0] - 1, np.shape(v)[0] - 1
    scale = 1.0 / v[0]
    q = zeros(max(m - n + 1, 1), core.get_aval(u).dtype)
    for k in range(0, m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        small = np.abs(_concrete_value(u, 'jnp.polydiv', 'Pass trim_leading_zeros=False.')) < \
            np.sqrt(dtypes.finfo(core.get_aval(u).dtype).eps)
        u = u[int(np.argmin(small)):] if not small.all() else zeros(0, core.get_aval(u).dtype)
    return q, u


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):  # noqa: A002
    """The least-squares polynomial of degree ``deg`` through the points ``(x, y)`` (a
    column per column of ``y``): ``lstsq`` on the Vandermonde matrix of ``x``, its columns
    scaled to unit norm. ``full`` adds ``(residuals, rank, singular values, rcond)``;
    ``cov`` the coefficients' covariance (``'unscaled'``: not scaled by the residuals)."""
    x, y = asarray(x), asarray(y)
    deg = int(deg)
    order = deg + 1
    _polyfit_checks(x, y, deg)
    if rcond is None:
        rcond = len(x) * float(dtypes.finfo(core.get_aval(x).dtype).eps)
    rcond = float(rcond)
    lhs, rhs = vander(x, order), y
    if w is not None:
        lhs, rhs = _weighted(lhs, rhs, w)
    scale = sqrt(sum(multiply(lhs, lhs), axis=0))
    lhs = true_divide(lhs, expand_dims(scale, 0))
    c, residuals, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = true_divide(c.T, expand_dims(scale, 0)).T if np.ndim(c) > 1 else true_divide(c, scale)
    if full:
        return c, residuals, rank, s, asarray(rcond)
    if not cov:
        return c
    unscaled = true_divide(linalg.inv(dot(lhs.T, lhs)), outer(scale, scale))
    return c, multiply(_covariance_dims(unscaled, np.ndim(y)),
                       _covariance_factor(cov, residuals, len(x), order, np.ndim(y)))


def _covariance_dims(unscaled, y_ndim):
    """The covariance matrix, with a last axis for the columns of a 2-D ``y``."""
    return unscaled if y_ndim == 1 else expand_dims(unscaled, 2)


def _covariance_factor(cov, residuals, points, order, y_ndim):
    """What ``polyfit`` multiplies the unscaled covariance by: 1, or the residuals over the
    degrees of freedom, shaped to broadcast against ``_covariance_dims``."""
    if cov == 'unscaled':
        factor = array(1.0)
    elif points <= order:
        raise ValueError('the number of data points must exceed order to scale the covariance '
                         'matrix')
    else:
        factor = true_divide(residuals, points - order)
    factor = atleast_1d(factor)
    return factor[np.newaxis] if y_ndim == 1 else factor[np.newaxis, np.newaxis, :]
