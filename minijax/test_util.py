"""``check_grads``: automatic derivatives checked against finite differences, as
``jax.test_util.check_grads``.

Each check looks in one random direction (seeded, so a failure reproduces): forward mode
compares ``jvp``'s tangent with a central difference, and reverse mode compares the
projection ``<t, vjp(c)>`` with ``<jvp_numerical(t), c>``, which holds exactly for the true
derivative. Higher orders check the derivative functions themselves the same way.
"""
from __future__ import annotations

import functools

import numpy as np

from minijax import autodiff, core, tree_util

__all__ = ['check_grads', 'check_jvp', 'check_vjp']

EPS = 1e-4

#: Default (atol, rtol) per dtype, before scaling by the compared arrays' size (as in JAX).
DEFAULT_GRADIENT_TOLERANCE = {np.dtype('float32'): 2e-3, np.dtype('float64'): 1e-5}


def check_grads(f, args, order, modes=('fwd', 'rev'), atol=None, rtol=None, eps=None):
    """Check the derivatives of ``f`` at ``args`` up to ``order`` against finite differences.

    ``modes`` picks 'fwd' (``jvp``), 'rev' (``vjp``) and 'lin' (``linearize``). ``atol`` and
    ``rtol`` are numbers or dicts from dtype to number; ``eps`` is the finite-difference
    step. Raises AssertionError naming the check (e.g. 'JVP of VJP tangent') that failed.
    """
    core.check_callable('check_grads', f=f)  # (JAX's error names f, as its jvp did)
    args = tuple(args)
    check_jvp_ = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps or EPS)
    check_vjp_ = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps or EPS)

    def check(f, args, order, label):
        if 'fwd' in modes:
            here = f'JVP of {label}' if label else 'JVP'
            check_jvp_(f, functools.partial(autodiff.jvp, f), args, err_msg=here)
            if order > 1:
                check(functools.partial(autodiff.jvp, f), (args, args), order - 1, here)
        if 'rev' in modes:
            here = f'VJP of {label}' if label else 'VJP'
            check_vjp_(f, functools.partial(autodiff.vjp, f), args, err_msg=here)
            if order > 1:
                check(functools.partial(_vjp_at_output, f), args, order - 1, here)
        if 'lin' in modes:
            here = f'LIN of {label}' if label else 'LIN'
            check_jvp_(f, functools.partial(_jvp_by_linearize, f), args, err_msg=here)
            if order > 1:
                check(functools.partial(_jvp_by_linearize, f), (args, args), order - 1, here)

    check(f, args, order, '')


def _vjp_at_output(f, *args):
    """The VJP of ``f`` applied to its own output: a function of ``args`` to differentiate
    again for the second-order reverse check."""
    out, f_vjp = autodiff.vjp(f, *args)
    return f_vjp(out)


def _jvp_by_linearize(f, primals, tangents):
    out, f_lin = autodiff.linearize(f, *primals)
    return out, f_lin(*tangents)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=''):
    """``f_jvp(args, tangents)`` (e.g. ``partial(jvp, f)``) against a central difference."""
    rng = np.random.RandomState(0)
    tangents = tree_util.tree_map(functools.partial(_random_like, rng), args)
    out, tangent_out = f_jvp(args, tangents)
    expected_out = f(*args)
    _check_same_dtypes(out, tangent_out, f'{err_msg} tangent')
    _check_same_dtypes(out, expected_out, f'{err_msg} primal')
    _check_close(out, expected_out, atol, rtol, f'{err_msg} primal')
    _check_close(tangent_out, numerical_jvp(f, args, tangents, eps), atol, rtol,
                 f'{err_msg} tangent')


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=''):
    """``f_vjp(*args)`` (e.g. ``partial(vjp, f)``) against a central difference, through the
    identity ``<t, vjp(c)> = <jvp(t), c>``."""
    rng = np.random.RandomState(0)
    out, pullback = f_vjp(*args)
    _check_close(out, f(*args), atol, rtol, f'{err_msg} primal')
    tangents = tree_util.tree_map(functools.partial(_random_like, rng), args)
    tangent_out = numerical_jvp(f, args, tangents, eps)
    cotangent = tree_util.tree_map(functools.partial(_random_like, rng), out)
    projected = _inner_product(tangents, pullback(cotangent))
    _check_close(projected, _inner_product(tangent_out, cotangent), atol, rtol,
                 f'{err_msg} cotangent projection')


def numerical_jvp(f, primals, tangents, eps=EPS):
    """``(f(x + eps t) - f(x - eps t)) / 2 eps``, leaf by leaf, in each leaf's dtype."""
    f_pos = f(*tree_util.tree_map(lambda x, t: _axpy(eps, t, x), primals, tangents))
    f_neg = f(*tree_util.tree_map(lambda x, t: _axpy(-eps, t, x), primals, tangents))
    return tree_util.tree_map(lambda p, n: _central_difference(p, n, eps), f_pos, f_neg)


def _axpy(a, t, x):
    """``x + a t`` in ``x``'s dtype; a Python scalar stays one (keeping its weak type)."""
    dtype = _dtype(x)
    out = np.asarray(x, dtype) + np.asarray(a, dtype) * np.asarray(t, dtype)
    return out.item() if _is_python_scalar(x) else out


def _central_difference(f_pos, f_neg, eps):
    dtype = _dtype(f_pos)
    f_pos, f_neg = np.asarray(f_pos, dtype), np.asarray(f_neg, dtype)
    with np.errstate(invalid='ignore'):  # inf - inf: the same value on both sides, so 0
        delta = np.where(f_pos == f_neg, np.zeros((), dtype), f_pos - f_neg)
    return (delta * np.asarray(0.5 / eps, dtype)).astype(dtype)


def _random_like(rng, x):
    """A standard normal value of ``x``'s shape and dtype (a Python float for a Python
    scalar)."""
    value = np.asarray(rng.randn(*np.shape(x)), _dtype(x))
    return value.item() if _is_python_scalar(x) else value


def _inner_product(xs, ys):
    products = tree_util.tree_map(
        lambda x, y: np.dot(np.ravel(np.asarray(x)), np.ravel(np.asarray(y))), xs, ys)
    return sum(tree_util.tree_leaves(products))


def _check_same_dtypes(xs, ys, err_msg):
    def check_leaf(x, y):
        assert _dtype(x) == _dtype(y), f'{err_msg}: dtypes {_dtype(x)} and {_dtype(y)} differ'

    tree_util.tree_map(check_leaf, xs, ys)


def _check_close(actual, expected, atol, rtol, err_msg):
    """Leaf by leaf, with JAX's tolerances: the dtype's default (or the given) tolerance,
    scaled by the number of elements compared."""
    def check_leaf(a, b):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, f'{err_msg}: shapes {a.shape} and {b.shape} differ'
        np.testing.assert_allclose(a, b, atol=_tolerance(atol, a, b) * a.size,
                                   rtol=_tolerance(rtol, a, b) * b.size, err_msg=err_msg)

    tree_util.tree_map(check_leaf, actual, expected)


def _tolerance(tol, a, b):
    if tol is not None and not isinstance(tol, dict):
        return tol
    table = {**DEFAULT_GRADIENT_TOLERANCE, **{np.dtype(k): v for k, v in (tol or {}).items()}}
    return max(table.get(a.dtype, 0), table.get(b.dtype, 0))


def _dtype(x):
    return np.dtype(x.dtype) if hasattr(x, 'dtype') else np.asarray(x).dtype


def _is_python_scalar(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)
