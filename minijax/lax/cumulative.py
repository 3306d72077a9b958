"""Cumulative reductions: ``cumsum``, ``cumprod``, ``cummax``, ``cummin`` and ``cumlogsumexp``
along ``axis`` (running from the end when ``reverse``), and ``associative_scan``.

Lowering. Each is one ``stablehlo.reduce_window``: output i reduces the window of the n
elements ending at i (starting there, when ``reverse``), the n - 1 missing ones being padding
filled with the reduction's identity. That is what JAX emits on CPU, and one op is easy to
read; it costs n per element, which XLA's CPU compiler rewrites into a faster scan (and
``minijax.flops`` counts as XLA's cost analysis does, n - 1 combines per element). The other
option, a parallel prefix scan in slices, pads and elementwise ops, is ``associative_scan``.

Differentiation. ``cumsum`` is linear; its transpose is a ``cumsum`` running the other way.
The others are differentiated as JAX differentiates them: through ``associative_scan`` of
their combining function (``mul``, ``max``, ``min``, ``logaddexp``). The tangent program is then
made of slices, pads and elementwise ops, each with its own transpose, and ties of ``cummax``
and ``cummin`` split the tangent as JAX's scan splits it (``max`` gives half to each tied
operand).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from minijax import core, dtypes, tree_util
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import jvp as ad
from minijax.lax.elementwise import add, max, max_p, min, min_p, mul
from minijax.lax.log_add_exp import logaddexp
from minijax.lax.reductions import highest, lowest
from minijax.lax.slicing import slice_in_dim
from minijax.lax.structural import concatenate, pad, rev
from minijax.lax.windowed import reduce_window
from minijax.lowering import lower_fun, register_lowering

# ----------------------------------------------------------------------------- associative_scan


def associative_scan(fn, elems, reverse=False, axis=0):
    """The running ``fn``-reduction of ``elems`` (a pytree of arrays sharing the size of
    ``axis``): ``[a, fn(a, b), fn(fn(a, b), c), ...]``, for an associative, elementwise ``fn``.

    In log2(n) levels (Blelloch's odd/even scheme, as JAX's): combine adjacent pairs, scan the
    half-size result recursively (giving the odd positions), then combine each of those with
    the next even element (giving the even positions), and interleave.
    """
    core.check_callable('associative_scan', fn=fn)
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        raise ValueError('associative_scan: elems has no arrays')
    axis = core.canonicalize_axis(axis, np.ndim(leaves[0]), 'associative_scan: axis')
    if len({np.shape(x)[axis] for x in leaves}) != 1:
        raise ValueError('associative_scan: the arrays of elems differ in the size of axis '
                         f'{axis}: {[np.shape(x) for x in leaves]}')

    def combine(a, b):
        out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        return tree_util.tree_flatten(out)[0]

    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]
    scanned = _scan(combine, leaves, axis)
    if reverse:
        scanned = [rev(x, (axis,)) for x in scanned]
    return tree_util.tree_unflatten(tree, scanned)


def _scan(combine, elems, axis):
    n = np.shape(elems[0])[axis]
    if n < 2:
        return elems

    def take(xs, start, limit=None, stride=1):
        return [slice_in_dim(x, start, limit if limit is not None else np.shape(x)[axis],
                             stride, axis) for x in xs]

    odd = _scan(combine, combine(take(elems, 0, n - 1, 2), take(elems, 1, None, 2)), axis)
    before_even = take(odd, 0, np.shape(odd[0])[axis] - 1) if n % 2 == 0 else odd
    even = combine(before_even, take(elems, 2, None, 2))
    even = [concatenate([first, rest], axis) for first, rest in zip(take(elems, 0, 1), even)]
    return [_interleave(e, o, axis) for e, o in zip(even, odd)]


def _interleave(even, odd, axis):
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis``: each padded with zeros into
    the other's places (interior padding), then added (or'ed, for bools)."""
    n_even, n_odd = np.shape(even)[axis], np.shape(odd)[axis]

    def spread(x, low, high):
        config = [(low, high, 1) if a == axis else (0, 0, 0) for a in range(np.ndim(x))]
        return pad(x, np.zeros((), core.get_aval(x).dtype), config)

    even = spread(even, 0, 1 if n_even == n_odd else 0)
    odd = spread(odd, 1, 0 if n_even == n_odd else 1)
    if core.get_aval(even).dtype == dtypes.bool_:
        return max(even, odd)
    return add(even, odd)


# ----------------------------------------------------------------------------- the primitives

class _Cumulative:
    """One row of the family: how to combine two elements in NumPy (``impl``) and in lax ops
    (``combine``: the lowering's reduce_window body and the JVP's scan), and the reduction's
    identity. ``rounds`` marks a combination whose rounding depends on the order XLA picks
    (True, or a function of the operand's aval)."""

    def __init__(self, name, impl, combine, identity, float_only=False, rounds=False):
        self.name, self.impl, self.combine, self.identity = name, impl, combine, identity
        self.float_only, self.rounds = float_only, rounds


def _same_dtype(np_fn):
    return lambda x, y: np_fn(x, y, dtype=x.dtype)


_FAMILY = [
    _Cumulative('cumsum', _same_dtype(np.add), add, lambda d: 0, rounds=True),
    _Cumulative('cumprod', _same_dtype(np.multiply), mul, lambda d: 1, rounds=True),
    # max and min as their primitives' impls: NaN wins, and +0. beats -0. in max, as in XLA.
    # A complex NaN wins or loses by its place in XLA's order of comparisons: XLA runs those.
    _Cumulative('cummax', lambda x, y: core.impl_rules[max_p](x, y), max, lowest,
                rounds=dtypes.complex_operand),
    _Cumulative('cummin', lambda x, y: core.impl_rules[min_p](x, y), min, highest,
                rounds=dtypes.complex_operand),
    # logaddexp as JAX's custom_jvp function: the reduce_window body and the scan's combine
    _Cumulative('cumlogsumexp', _same_dtype(np.logaddexp), logaddexp, lambda d: -np.inf,
                float_only=True, rounds=True),
]


def _accumulate(combine, x, axis, reverse):
    """The running ``combine`` of ``x`` along ``axis``, one position at a time."""
    x = np.moveaxis(np.asarray(x), axis, 0)
    x = x[::-1] if reverse else x
    out = np.empty_like(x)
    running = None
    for i in range(x.shape[0]):
        running = x[i:i + 1] if running is None else combine(running, x[i:i + 1])
        out[i:i + 1] = running
    out = out[::-1] if reverse else out
    return np.moveaxis(out, 0, axis).copy()


def _abstract_eval(row):
    def rule(x, *, axis, reverse):
        wrong_kind = (not dtypes.is_float(x.dtype) if row.float_only
                      else x.dtype == dtypes.bool_)
        if wrong_kind:
            kind = 'floating-point' if row.float_only else 'numeric'
            raise TypeError(f'{row.name} needs a {kind} operand, got {x.str_short()}')
        if not 0 <= axis < x.ndim:
            raise TypeError(f'{row.name}: axis {axis} is out of range for {x.str_short()}')
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return rule


def _batching(prim):
    def rule(vals, dims, *, axis, reverse):
        (x,), (bdim,) = vals, dims
        return prim.bind(x, axis=axis + (bdim <= axis), reverse=reverse), bdim
    return rule


def _lowering(row):
    """JAX's: ``reduce_window`` (in lax ops) with a window of the whole axis, padded before
    position 0 (after the last position, when ``reverse``) with n - 1 identities."""
    def windowed(x, *, axis, reverse):
        aval = core.get_aval(x)
        n = aval.shape[axis]
        if n == 0:
            return x
        window = [n if a == axis else 1 for a in range(aval.ndim)]
        padding = [((0, n - 1) if reverse else (n - 1, 0)) if a == axis else (0, 0)
                   for a in range(aval.ndim)]
        identity = np.asarray(row.identity(aval.dtype), aval.dtype)
        return reduce_window(x, identity, row.combine, window, [1] * aval.ndim, padding)
    return lower_fun(windowed)


def _scan_jvp(row):
    """The JVP through ``associative_scan`` of the row's lax ``combine``, as JAX's."""
    def rule(primals, tangents, *, axis, reverse):
        scan = functools.partial(associative_scan, row.combine, axis=axis, reverse=reverse)
        return ad.jvp(scan, primals, tangents)
    return rule


def _cumulative_primitive(row):
    prim = Primitive(row.name, eager_on_xla=row.rounds)
    prim.def_impl(dtypes.accumulates_in_float32(
        lambda x, *, axis, reverse: _accumulate(row.impl, x, axis, reverse)))
    prim.def_abstract_eval(_abstract_eval(row))
    prim.def_batching(_batching(prim))
    register_lowering(prim, _lowering(row), inline=False)  # as JAX: a function of its own
    if row.name != 'cumsum':
        prim.def_jvp(_scan_jvp(row))
    return prim


cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p = map(_cumulative_primitive, _FAMILY)
ad.defjvp_linear(cumsum_p)
cumsum_p.def_transpose(lambda ct, x, *, axis, reverse:
                       [cumsum_p.bind(ct, axis=axis, reverse=not reverse)])


def _cumulative_function(prim):
    def fn(operand, axis=0, reverse=False):
        axis = core.canonicalize_axis(axis, np.ndim(operand), f'{prim.name}: axis')
        return prim.bind(operand, axis=axis, reverse=bool(reverse))
    fn.__name__ = fn.__qualname__ = prim.name
    fn.__doc__ = (f'The running {prim.name[3:]} of ``operand`` along ``axis`` (from the end '
                  f'when ``reverse``), as ``jax.lax.{prim.name}``.')
    return fn


cumsum, cumprod, cummax, cummin, cumlogsumexp = map(
    _cumulative_function, [cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p])


def cumulative_flops(eqn):
    """XLA's cost analysis of the reduce_window: n - 1 combines per output element (n the size
    of the axis), each costing the flops of the body (8 for logaddexp: its exp and log1p are
    transcendentals, counted apart)."""
    aval = eqn.inputs[0].aval
    per_combine = 8 if eqn.primitive is cumlogsumexp_p else 1
    n = aval.shape[eqn.params['axis']]
    return math.prod(aval.shape) * (n - 1 if n else 0) * per_combine
