"""Compiler hints: ``optimization_barrier``, values the compiler may not move computation
across, and ``dce_sink``, values dead-code elimination must keep computing.

XLA neither fuses ops on the two sides of a barrier nor merges equal computations across it
(JAX's rematerialization relies on that, so a recomputation is not folded back into the
stored value), and every value through it is computed before anything that reads it from
the other side. To a program it is the identity, on any number of operands at once: its
impl and batching pass the values through, and its derivatives are barriers too (one on the
tangents, one on the cotangents), as in JAX, so the ordering holds in gradient programs.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, tree_util
from minijax.core import Primitive
from minijax.interpreters import jvp as ad
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lowering import register_lowering
from minijax.lowering.ops import ffi_call

optimization_barrier_p = Primitive('optimization_barrier', multiple_results=True)


def optimization_barrier(operand, /):
    """``operand`` (an array or a pytree of arrays) unchanged, behind one barrier."""
    leaves, tree = tree_util.tree_flatten(operand)
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def _barrier_jvp(primals, tangents):
    """The primals behind one barrier, the tangents behind another (a symbolic zero made an
    array, as JAX does); an integer's tangent, always zero, stays symbolic."""
    differentiable = [i for i, p in enumerate(primals) if ad.has_tangent(core.get_aval(p))]
    tangents_out = [ad.Zero(core.get_aval(p)) for p in primals]
    through = optimization_barrier_p.bind(*(ad.instantiate(tangents[i]) for i in differentiable))
    for i, t in zip(differentiable, through):
        tangents_out[i] = t
    return optimization_barrier_p.bind(*primals), tangents_out


def _barrier_transpose(cts, *operands):
    """The cotangents of the linear operands behind one barrier."""
    linear = [i for i, x in enumerate(operands) if is_undefined_primal(x)]
    cts_in = [None] * len(operands)
    for i, ct in zip(linear, optimization_barrier_p.bind(*(ad.instantiate(cts[i])
                                                             for i in linear))):
        cts_in[i] = ct
    return cts_in


optimization_barrier_p.def_impl(lambda *xs: [np.asarray(x) for x in xs])
optimization_barrier_p.def_abstract_eval(lambda *avals: [core.raise_to_shaped(a) for a in avals])
optimization_barrier_p.def_jvp(_barrier_jvp, symbolic_zeros=True)
optimization_barrier_p.def_transpose(_barrier_transpose)
optimization_barrier_p.def_batching(lambda vals, dims: (optimization_barrier_p.bind(*vals),
                                                        list(dims)))
register_lowering(optimization_barrier_p,
                  lambda ctx, *xs: list(hlo.OptimizationBarrierOp(list(xs)).results))

# ----------------------------------------------------------------------------- dce_sink

#: It has no results, so nothing reads it: it is ``effectful`` for dead-code elimination
#: to keep it, and with it the computation of its operand.
dce_sink_p = Primitive('dce_sink', multiple_results=True)
dce_sink_p.effectful = True


def dce_sink(val, *, prevent_mlir_dce=False):
    """Mark each array of the pytree ``val`` used, so the jaxpr keeps the equations that
    compute it (a value computed only to be inspected, or timed). With
    ``prevent_mlir_dce``, the module keeps them too: a side-effecting FFI call reads it."""
    for leaf in tree_util.tree_leaves(val):
        dce_sink_p.bind(leaf, prevent_mlir_dce=bool(prevent_mlir_dce))


def _dce_sink_jvp(primals, tangents, **params):
    """Sink the primal and a nonzero tangent (whose computation is kept as well)."""
    dce_sink_p.bind(*primals, **params)
    if not isinstance(tangents[0], ad.Zero):
        dce_sink_p.bind(*tangents, **params)
    return [], []


def _dce_sink_batching(vals, dims, **params):
    """Nothing, as JAX's rule (which returns its operands as results nobody reads): under
    ``vmap`` the sink is gone from the jaxpr, and its operand's equations are dead code."""
    return [], []


def _dce_sink_lowering(ctx, x, *, prevent_mlir_dce):
    return list(ffi_call(ctx, 'dce_sink', [x], True, {}).results) if prevent_mlir_dce else []


dce_sink_p.def_impl(lambda x, **params: [])
dce_sink_p.def_abstract_eval(lambda x, **params: [])
dce_sink_p.def_jvp(_dce_sink_jvp, symbolic_zeros=True)
dce_sink_p.def_transpose(lambda cts, x, **params: [None])
dce_sink_p.def_batching(_dce_sink_batching)
register_lowering(dce_sink_p, _dce_sink_lowering)
