"""Eager evaluation on XLA: a primitive whose NumPy impl could round differently from XLA
(``Primitive.eager_on_xla``) runs alone as a compiled module when applied to concrete
values, as JAX applies every primitive, so eager results carry XLA's numerics bit for bit.
Control flow (``cond``, ``while``, ``scan``) is among them: XLA fuses a loop body, so only the
whole loop compiled rounds as JAX's does.

Each (primitive, params, operand types) is lowered and compiled once, then reused. The other
primitives keep their NumPy impl, which gives XLA's bits already and compiles nothing.
``MINIJAX_EAGER=numpy`` runs every primitive on its impl rule (the Autodidax way).
"""
from __future__ import annotations

import functools
import os

from minijax import core, runtime, spmd_call
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from minijax.lax.sharding import sharding_constraint_p
from minijax.lowering import lower_jaxpr_to_module
from minijax.xla_call import run, spmd_executable, xla_call_p


@functools.lru_cache(maxsize=4096)
def _executable(primitive, params, in_types) -> runtime.Executable:
    in_vars = [Var(core.ShapedArray(shape, dtype)) for shape, dtype in in_types]
    params = dict(params)
    out_avals = core.abstract_eval_rules[primitive](*(v.aval for v in in_vars), **params)
    out_vars = [Var(a) for a in (out_avals if primitive.multiple_results else [out_avals])]
    jaxpr = Jaxpr([], in_vars, [JaxprEqn(primitive, in_vars, params, out_vars)], out_vars)
    runtime.counters['eager_compile'] += 1
    return runtime.compile_module(lower_jaxpr_to_module(ClosedJaxpr(jaxpr, []),
                                                        primitive.name))


executable_cache_clear = _executable.cache_clear


def apply_primitive(primitive, args, params, out_avals):
    """``primitive`` applied to the concrete ``args`` by XLA; ``out_avals`` is what its
    abstract evaluation gave (it tells the results' weak types)."""
    in_types = tuple((a.shape, a.dtype) for a in map(core.shaped_aval, args))
    exe = _executable(primitive, tuple(sorted(params.items())), in_types)
    if not primitive.multiple_results:
        return run(exe, args, [out_avals])[0]
    return run(exe, args, out_avals)


@functools.lru_cache(maxsize=1024)
def _one_equation(primitive, params, in_avals) -> ClosedJaxpr:
    """The jaxpr applying ``primitive`` once (what runs it over a mesh)."""
    in_vars = [Var(a) for a in in_avals]
    params = dict(params)
    out_avals = core.abstract_eval_rules[primitive](*in_avals, **params)
    out_vars = [Var(a) for a in (out_avals if primitive.multiple_results else [out_avals])]
    return ClosedJaxpr(Jaxpr([], in_vars, [JaxprEqn(primitive, in_vars, params, out_vars)],
                             out_vars), [])


def apply_on_mesh(primitive, args, params, out_avals):
    """``primitive`` applied to concrete ``args`` of which one is sharded, or holding a
    jaxpr that runs on a mesh (a ``shard_map`` in a loop body): as JAX runs it, a program
    over their mesh, whose results XLA lays out (``jnp.sin`` of an array split over ``x`` is
    split over ``x``). None when neither. Primitives that place
    values themselves (``jit``'s call, a sharding constraint) keep their own rule."""
    if primitive in PLACING:
        return None
    sharded = any(map(spmd_call.is_sharded, args))
    if not sharded and not any(map(_holds_jaxpr, params.values())):
        return None
    avals = tuple(core.raise_to_shaped(core.get_aval(a)) for a in args)
    closed = _one_equation(primitive, tuple(sorted(params.items())), avals)
    mesh = spmd_call.jaxpr_mesh(closed)  # (a loop whose body holds a shard_map)
    if not sharded and mesh is None:
        return None
    place = spmd_call.placement(primitive.name, args, mesh=mesh)
    exe = spmd_executable(closed, primitive.name, (), (), place)
    outs = spmd_call.run(exe, place, args, closed.out_avals)
    return outs if primitive.multiple_results else outs[0]


def _holds_jaxpr(param) -> bool:
    return isinstance(param, ClosedJaxpr) or \
        isinstance(param, tuple) and any(isinstance(p, ClosedJaxpr) for p in param)


#: The primitives whose impl places its results itself.
PLACING = {xla_call_p, sharding_constraint_p}


if os.environ.get('MINIJAX_EAGER', 'xla') != 'numpy':
    core.apply_on_xla = apply_primitive
core.apply_on_mesh = apply_on_mesh
