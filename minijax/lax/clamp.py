"""``clamp(min, x, max)``: ``x`` limited to ``[min, max]`` elementwise (JAX's ``lax.clamp``,
StableHLO's ``clamp``); ``switch`` clamps its branch index with it.

``min`` and ``max`` are scalars or have ``x``'s shape, and all three share one dtype (a
Python scalar takes the dtype of a typed operand). The result is ``min(max(x, min), max)``,
as StableHLO defines it: ``max`` where ``min > max``, NaN where any operand is NaN.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching, jvp as ad
from minijax.lax.bitwise import bitwise_and
from minijax.lax.elementwise import (full_like, greater, less, max_p, min_p,
                                     promote_weak_scalars, select_n)
from minijax.lax.structural import broadcast, broadcast_in_dim
from minijax.lowering import register_lowering
from minijax.lowering.ops import broadcast_operands

clamp_p = Primitive('clamp')


def clamp(min, x, max):  # noqa: A002 (JAX's parameter names)
    """Elementwise ``min`` where ``x < min``, ``max`` where ``x > max``, else ``x``."""
    typed = next((v for v in (x, min, max) if not core.get_aval(v).weak_type), x)
    min, x, max = (promote_weak_scalars('clamp', typed, v)[1] for v in (min, x, max))
    return clamp_p.bind(min, x, max)


def _clamp_impl(lo, x, hi):
    """StableHLO's order of operations, with XLA's NaN and signed-zero rules of max/min."""
    maximum, minimum = core.impl_rules[max_p], core.impl_rules[min_p]
    return minimum(maximum(np.asarray(x), np.asarray(lo)), np.asarray(hi))


def _clamp_abstract_eval(lo, x, hi):
    for name, bound in (('min', lo), ('max', hi)):
        if bound.dtype != x.dtype:
            raise TypeError(f'clamp requires arguments to have the same dtypes, got {name} '
                            f'{bound.str_short()} and x {x.str_short()}')
        if bound.shape and bound.shape != x.shape:
            raise TypeError(f'clamp requires {name}.shape == x.shape or {name}.shape == (), '
                            f'got {name} {bound.str_short()} and x {x.str_short()}')
    return ShapedArray(x.shape, x.dtype, lo.weak_type and x.weak_type and hi.weak_type)


def _passed_where(pred, t, x):
    """The tangent ``t`` (broadcast to ``x``'s shape) where ``pred`` holds, zero elsewhere."""
    shape = core.get_aval(x).shape
    if core.get_aval(t).shape != shape:
        t = broadcast_in_dim(t, shape, ())
    return select_n(pred, full_like(t, 0), t)


# As JAX: a tangent passes through the operand that is the result, strictly (at a tie, the
# derivative is zero); min wins only where it is below max.
ad.defjvp(clamp_p,
          lambda t, lo, x, hi: _passed_where(bitwise_and(greater(lo, x), less(lo, hi)), t, x),
          lambda t, lo, x, hi: _passed_where(bitwise_and(greater(x, lo), less(x, hi)), t, x),
          lambda t, lo, x, hi: _passed_where(less(hi, x), t, x))


def _clamp_batching(vals, dims):
    """JAX's rule: operands batched alike, or scalar bounds, clamp where they are, the batch
    axis staying put; otherwise batch axes go to the front and a bound is broadcast to
    ``x``'s shape (or ``x`` to a batched bound's, when ``x`` is an unbatched scalar)."""
    size = batching.axis_size_of(vals, dims)
    (lo, x, hi), (lo_dim, x_dim, hi_dim) = vals, dims
    if lo_dim == x_dim == hi_dim and np.shape(lo) == np.shape(x) == np.shape(hi):
        return clamp_p.bind(lo, x, hi), x_dim
    if lo_dim == x_dim == hi_dim and np.ndim(lo) == np.ndim(hi) == 1:  # a bound per example
        return clamp_p.bind(broadcast_in_dim(lo, np.shape(x), (lo_dim,)), x,
                            broadcast_in_dim(hi, np.shape(x), (hi_dim,))), x_dim
    if np.ndim(lo) == np.ndim(hi) == 0 and x_dim is not batching.not_mapped:
        return clamp_p.bind(lo, x, hi), x_dim
    lo, hi, x = (batching.move_batch_axis(size, d, 0, v) if np.ndim(v) else v
                 for v, d in ((lo, lo_dim), (hi, hi_dim), (x, x_dim)))  # (JAX's order)
    if np.ndim(x):  # scalar bounds first, then bounds per example, in JAX's order
        lo, hi = (b if np.ndim(b) else broadcast(b, np.shape(x)) for b in (lo, hi))
        lo, hi = (broadcast_in_dim(b, np.shape(x), (0,)) if np.ndim(b) < np.ndim(x) else b
                  for b in (lo, hi))
    if np.ndim(lo) > np.ndim(x):  # an unbatched scalar ``x`` between batched bounds
        x = broadcast(x, np.shape(lo))
    return clamp_p.bind(lo, x, hi), 0


clamp_p.def_impl(_clamp_impl)
clamp_p.def_abstract_eval(_clamp_abstract_eval)
clamp_p.def_batching(_clamp_batching)
register_lowering(clamp_p, lambda ctx, *operands: hlo.ClampOp(  # scalar bounds broadcast, as
    *broadcast_operands(ctx, operands)).result)                     # JAX writes them
