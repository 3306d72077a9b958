"""Eager evaluation on XLA: a primitive whose NumPy impl could round differently from XLA
(``Primitive.eager_on_xla``) runs alone as a compiled module when applied to concrete
values, as JAX applies every primitive, so eager results carry XLA's numerics bit for bit.
Control flow (``cond``, ``while``, ``scan``) is among them: XLA fuses a loop body, so only the
whole loop compiled rounds as JAX's does.

Each (primitive, params, operand types) is lowered and compiled once, then reused. The other
primitives keep their NumPy impl, which gives XLA's bits already and compiles nothing.
``MINIJAX_EAGER=numpy`` runs every primitive on its impl rule (the Autodidax way).

``eager_apply`` is the eager fast path that ``core.bind`` tries first: what ``EvalTrace``
decides for a (primitive, params, operand types), its result types and where it runs, is
decided once and kept, so an eager op costs a dict lookup, then the execution.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from minijax import core, dtypes, runtime, spmd_call
from minijax.array import (Array, clear_scalar_buffers, scalar_buffer, to_device,
                           typed_host_result)
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, abstract_eval_eqn
from minijax.lax.sharding import sharding_constraint_p
from minijax.lowering import lower_jaxpr_to_module
from minijax.sharding import rules as sharding_rules
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


def executable_cache_clear() -> None:
    """Forget every eager executable (``jax.clear_caches``), and the fast path's entries."""
    _executable.cache_clear()
    _entries.clear()
    clear_scalar_buffers()


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
    out_vars = [Var(a) for a in abstract_eval_eqn(primitive, in_avals, params)]  # (typed)
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
    sharded = any(map(spmd_call.is_sharded, args)) or core.sharding_in_types() and any(map(
        sharding_rules.constraint_of, out_avals if primitive.multiple_results
        else [out_avals] if out_avals is not None else []))
    # (a result typed over a mesh, jnp.zeros(..., out_sharding=), runs there)
    if not sharded and not any(map(_holds_jaxpr, params.values())):
        return None
    avals = tuple(core.raise_to_shaped(core.get_aval(a)) for a in args)
    closed = _one_equation(primitive, tuple(sorted(params.items())), avals)
    if not sharded and not spmd_call.jaxpr_meshes(closed):  # (a shard_map in a loop body)
        return None
    place = spmd_call.placement(primitive.name, args, closed=closed)
    if place is None:  # (typed over an abstract mesh, no devices given: the default device)
        return None
    exe = spmd_executable(closed, primitive.name, (), (), place)
    outs = spmd_call.run(exe, place, args, closed.out_avals)
    return outs if primitive.multiple_results else outs[0]


def _holds_jaxpr(param) -> bool:
    return isinstance(param, ClosedJaxpr) or \
        isinstance(param, tuple) and any(isinstance(p, ClosedJaxpr) for p in param)


# ----------------------------------------------------------------------------- the fast path

def eager_apply(primitive, args, params):
    """``primitive`` applied to ``args`` as ``EvalTrace`` applies it, from the entry kept
    for the primitive, its parameters and its operands' types (made on the first call); or
    ``core.NOT_CACHED`` where it takes the general path: an operand is a tracer or sharded
    (placed, or typed over a mesh), a mesh is in context, a parameter holds a jaxpr or is
    unhashable. (Only these: a process that once used shardings keeps its fast path.)

    (Entries are keyed by parameter values, as ``_executable`` is: equal values, ``1`` and
    ``True`` say, share one. The lax functions give each parameter one type.)"""
    if core.mesh_in_context():
        return core.NOT_CACHED
    key = [primitive, tuple(params.items())]
    for x in args:
        operand = _OPERAND_KEYS.get(type(x), _no_key)(x)
        if operand is None:
            return core.NOT_CACHED
        key.append(operand)
    key = tuple(key)
    try:
        entry = _entries.get(key, _NEW)
    except TypeError:  # an unhashable parameter (an ndarray)
        return core.NOT_CACHED
    if entry is _NEW:  # (made outside the ``try``: a bad call's error shows no KeyError)
        if len(_entries) >= MAX_ENTRIES:  # (a long run over ever new shapes)
            _entries.clear()
        entry = _entries[key] = _entry(primitive, args, params)
    return core.NOT_CACHED if entry is None else entry(args, params)


_NEW = object()


#: The entries kept at the most; more, and they are all dropped (then made again as needed).
MAX_ENTRIES = 4096

#: (primitive, params, operand keys) -> entry: ``entry(args, params) -> results``, or None
#: where the general path runs each time.
_entries: dict = {}


def _no_key(x):
    return None


def _int_key(x):
    """An int's type, where int64 holds it (else None: the general path's OverflowError)."""
    return int if -2 ** 63 <= x < 2 ** 63 else None


def _array_key(x):
    """An Array's type as a tuple (which hashes in C, an aval in Python), and whether its
    value is on the device only (see ``Primitive.follows_device_operands``)."""
    aval = x._aval
    if x._sharding is not None or aval._sharding is not None:
        return None
    return aval.shape, aval.dtype, aval.weak_type, x._npy is None


#: Operand type -> the part of the key its operands make: what decides their type (the
#: general path computes the type of each). A sharded Array, and a tracer, have none.
_OPERAND_KEYS = {
    Array: _array_key,
    float: type, complex: type, bool: type, int: _int_key,
    np.ndarray: lambda x: (x.shape, x.dtype),
    **{d.type: type for d in dtypes.SUPPORTED},  # NumPy scalars
}


def _entry(primitive, args, params):
    """The entry of ``primitive`` applied to operands like ``args``: where ``EvalTrace``
    runs it (XLA or the NumPy impl) and its result types. None for a primitive holding a
    jaxpr (it may run over a mesh: ``apply_on_mesh`` decides by the jaxpr), giving a
    token, or a result typed over a mesh (``out_sharding=``: it runs there)."""
    if primitive in PLACING or any(map(_holds_jaxpr, params.values())):
        return None
    in_avals = [core.shaped_aval(x) for x in args]
    avals = core.eager_out_avals(primitive, in_avals, params)
    out_avals = avals if primitive.multiple_results or avals is None else [avals]
    if out_avals is not None and any(a is core.abstract_token
                                     or getattr(a, '_sharding', None) is not None
                                     for a in out_avals):
        return None
    if core.runs_on_xla(primitive, in_avals) or (
            primitive.follows_device_operands and core.apply_on_xla is not None
            and any(type(x) is Array and x._npy is None for x in args)):
        in_types = tuple((a.shape, a.dtype) for a in in_avals)
        exe = _executable(primitive, tuple(sorted(params.items())), in_types)
        return _on_xla(exe, out_avals, primitive.multiple_results)
    if (primitive.multiple_results or avals is None
            or any(type(x) is np.ndarray for x in args)):  # (a result may alias one)
        return functools.partial(_impl_as_evaltrace, primitive, avals)
    return _on_impl(core.impl_rules[primitive], avals)


def _buffer(x):
    """The device buffer of an operand: an Array's own (transferred once), a Python
    scalar's kept one, else a transfer. (A buffer donated to a program is gone: JAX's
    error.)"""
    if type(x) is Array and x._buffer is not None:
        if x._buffer.is_deleted():
            x._check_if_deleted()
        return x._buffer
    if type(x) in dtypes.PYTHON_SCALARS:
        return scalar_buffer(x)
    return to_device(x)


def _on_xla(exe, out_avals, multiple_results):
    """The entry running ``exe``: buffers in, Arrays typed ``out_avals`` out."""
    if multiple_results:
        return lambda args, params: [Array(b, a) for b, a in
                                     zip(exe([_buffer(x) for x in args]), out_avals)]
    aval, = out_avals
    return lambda args, params: Array(exe([_buffer(x) for x in args])[0], aval)


def _on_impl(impl, aval):
    """The entry running a NumPy ``impl`` of one result, of operands none of which is a
    writable ndarray (so no copy is needed: the result aliases none)."""
    def apply(args, params):
        with core.in_impl_rule, np.errstate(all='ignore'):  # (as ``core.apply_impl``)
            return typed_host_result(impl(*args, **params), aval)
    return apply


def _impl_as_evaltrace(primitive, avals, args, params):
    return core.apply_impl(primitive, args, params, avals)


#: The primitives whose impl places its results itself.
PLACING = {xla_call_p, sharding_constraint_p}


if os.environ.get('MINIJAX_EAGER', 'xla') != 'numpy':
    core.apply_on_xla = apply_primitive
core.apply_on_mesh = apply_on_mesh
core.eager_apply = eager_apply
