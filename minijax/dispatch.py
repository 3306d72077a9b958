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

from minijax import core, runtime
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from minijax.lowering import lower_jaxpr_to_module
from minijax.xla_call import run


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


if os.environ.get('MINIJAX_EAGER', 'xla') != 'numpy':
    core.apply_on_xla = apply_primitive
