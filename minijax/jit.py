"""``jit``: staging a function out to XLA as the higher-order primitive ``xla_call``.

``jit(f)(*args)`` traces ``f`` to a closed jaxpr once per argument types and binds
``xla_call`` with it. Evaluating ``xla_call`` lowers the jaxpr to StableHLO, compiles it with
PJRT (once per jaxpr) and runs it; under a transformation, ``xla_call``'s rules transform the
jaxpr instead, so ``jit`` composes with ``jvp``, ``vmap``, ``grad`` and itself.
"""
from __future__ import annotations

import os
import tempfile
import weakref

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from minijax import core, runtime, tree_util
from minijax.array import Array, to_device
from minijax.caching import cache_on_first_arg
from minijax.core import Primitive
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.transpose import (drop_zero_cts, is_undefined_primal, nonzero_cts,
                                            transposed_jaxpr)
from minijax.ir.jaxpr import ClosedJaxpr, JaxprEqn, Var, same_type
from minijax.ir.tracing import abstractify_args, trace_to_jaxpr
from minijax.lowering import (lower_jaxpr_to_module, mlir_context, module_text,
                              register_lowering, tensor_type)

xla_call_p = Primitive('xla_call', multiple_results=True)


def xla_call(*args, jaxpr: ClosedJaxpr, name: str):
    return xla_call_p.bind(*args, jaxpr=jaxpr, name=name)


# ----------------------------------------------------------------------------- evaluation

@cache_on_first_arg
def lowered_module(closed: ClosedJaxpr, name: str) -> ir.Module:
    runtime.counters['lower'] += 1
    return lower_jaxpr_to_module(closed, f'jit_{name}')


@cache_on_first_arg
def executable(closed: ClosedJaxpr, name: str) -> runtime.Executable:
    module = lowered_module(closed, name)
    dump_dir = os.environ.get('MINIJAX_DUMP_DIR')
    if dump_dir:
        _dump(module, dump_dir)
    return runtime.compile_module(module)


def _dump(module: ir.Module, dump_dir: str) -> None:
    """Write ``<dump_dir>/<module name>.mlir`` whole (temporary file, then rename)."""
    if os.path.exists(dump_dir) and not os.path.isdir(dump_dir):
        raise NotADirectoryError(f'MINIJAX_DUMP_DIR={dump_dir!r} is a file, not a directory: '
                                 'point it at a directory (one is created if missing)')
    os.makedirs(dump_dir, exist_ok=True)
    name = ir.StringAttr(module.operation.attributes['sym_name']).value
    with mlir_context():
        text = module_text(module)
    path = os.path.join(dump_dir, f'{name}.mlir')
    n = 0
    while os.path.exists(path) and open(path).read() != text:
        n += 1
        path = os.path.join(dump_dir, f'{name}.{n}.mlir')
    fd, tmp = tempfile.mkstemp(dir=dump_dir, suffix='.mlir.tmp')
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def _xla_call_impl(*args, jaxpr, name):
    buffers = [to_device(x) for x in args]
    return [Array(b, a) for b, a in zip(executable(jaxpr, name)(buffers), jaxpr.out_avals)]


def _xla_call_abstract_eval(*in_avals, jaxpr, name):
    for i, (given, expected) in enumerate(zip(in_avals, jaxpr.in_avals, strict=True)):
        if not same_type(given, expected):
            raise TypeError(f'xla_call {name}: argument {i} has type {given.str_short()} but the '
                            f'jaxpr expects {expected.str_short()}')
    return jaxpr.out_avals


xla_call_p.def_impl(_xla_call_impl)
xla_call_p.def_abstract_eval(_xla_call_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _xla_call_jvp(primals, tangents, *, jaxpr, name):
    new_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, ad.nonzero_flags(tangents),
                                           (False,) * len(jaxpr.out_avals))
    outs = xla_call(*primals, *ad.drop_zeros(tangents), jaxpr=new_jaxpr, name=name)
    primals_out, tangents_out = core.split_list(outs, len(out_nonzeros))
    return primals_out, ad.fill_zeros(tangents_out, out_nonzeros, primals_out)


xla_call_p.def_jvp(_xla_call_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- vmap

def _xla_call_batching(vals, dims, *, jaxpr, name):
    axis_size = batching.axis_size_of(vals, dims)
    new_jaxpr = batching.batched_jaxpr(jaxpr, axis_size, tuple(dims))
    outs = xla_call(*vals, jaxpr=new_jaxpr, name=name)
    return outs, [0] * len(outs)


xla_call_p.def_batching(_xla_call_batching)


# ----------------------------------------------------------------------------- partial eval

def _xla_call_partial_eval(trace, tracers, *, jaxpr, name):
    """Trace time: run the known part of the call now, stage a call of the unknown part."""
    in_unknowns = [not t.pval.is_known for t in tracers]
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, in_unknowns)
    known_tracers, unknown_tracers = pe.partition_list(in_unknowns, tracers)
    outs_and_res = xla_call(*(t.pval.const for t in known_tracers), jaxpr=known, name=name)
    known_outs, residuals = core.split_list(outs_and_res, len(outs_and_res) - num_res)
    res_tracers = [trace.instantiate_const(core.full_raise(trace, r)) for r in residuals]
    unknown_outs = trace.stage(xla_call_p, res_tracers + unknown_tracers,
                               dict(jaxpr=unknown, name=name), unknown.out_avals)
    return pe.merge_lists(out_unknowns, known_outs, unknown_outs)


def _xla_call_partial_eval_jaxpr(unknowns_in, eqn):
    """Jaxpr level: split one xla_call equation into a known and an unknown call."""
    jaxpr, name = eqn.params['jaxpr'], eqn.params['name']
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns_in)
    known_ins, unknown_ins = pe.partition_list(unknowns_in, eqn.inputs)
    known_outs, unknown_outs = pe.partition_list(out_unknowns, eqn.out_binders)
    residuals = [Var(a) for a in unknown.in_avals[:num_res]]
    known_eqn = JaxprEqn(xla_call_p, known_ins, dict(jaxpr=known, name=name),
                         known_outs + residuals, eqn.source_info)
    unknown_eqn = JaxprEqn(xla_call_p, residuals + unknown_ins, dict(jaxpr=unknown, name=name),
                           unknown_outs, eqn.source_info)
    return known_eqn, unknown_eqn, out_unknowns, residuals


pe.partial_eval_rules[xla_call_p] = _xla_call_partial_eval
pe.partial_eval_jaxpr_rules[xla_call_p] = _xla_call_partial_eval_jaxpr


def _xla_call_dce(used_outputs, eqn):
    """A nested jit keeps the used outputs and the inputs they read."""
    body, used_inputs = pe.dce_closed_jaxpr(eqn.params['jaxpr'], used_outputs)
    return used_inputs, pe.pruned_eqn(eqn, used_inputs, used_outputs, jaxpr=body)


pe.dce_rules[xla_call_p] = _xla_call_dce


# ----------------------------------------------------------------------------- transpose

def _xla_call_transpose(cts, *args, jaxpr, name):
    undefined = tuple(is_undefined_primal(x) for x in args)
    residuals = [x for x in args if not is_undefined_primal(x)]
    transposed = transposed_jaxpr(jaxpr, undefined, nonzero_cts(cts))
    cts_in = xla_call(*residuals, *drop_zero_cts(cts), jaxpr=transposed,
                      name=f'{name}_transpose')
    cts_it = iter(cts_in)
    return [next(cts_it) if u else None for u in undefined]


xla_call_p.def_transpose(_xla_call_transpose)


# ----------------------------------------------------------------------------- lowering

def _xla_call_lowering(ctx, *args, jaxpr, name):
    symbol = ctx.module_context.private_function(name, jaxpr)
    result_types = [tensor_type(a) for a in ctx.avals_out]
    call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(symbol), list(args))
    return list(call.results)


register_lowering(xla_call_p, _xla_call_lowering)


# ----------------------------------------------------------------------------- the jit API

class Jitted:
    """A function compiled on first call per argument types (see ``jit``)."""

    def __init__(self, fun):
        self.fun = fun
        self.name = getattr(fun, '__name__', 'function')
        self.__name__ = self.name
        self.__doc__ = getattr(fun, '__doc__', None)
        self._traces = _traces_of(fun)

    def _trace(self, args):
        """(closed jaxpr, closed-over tracers, output tree, flat args) for ``args``."""
        avals, in_tree, leaves = abstractify_args(f'jit({self.name})', args)
        key = (in_tree, tuple(avals))
        cached = self._traces.get(key)
        if cached is None:
            runtime.counters['trace'] += 1
            flat_fun, out_tree = tree_util.flatten_fun(self.fun, in_tree)
            closed, closed_over = trace_to_jaxpr(flat_fun, avals)
            cached = (closed, closed_over, out_tree())
            if not closed_over:  # tracers of an outer transformation must not outlive it
                self._traces[key] = cached
        return (*cached, leaves)

    def __call__(self, *args):
        closed, closed_over, out_tree, flat_args = self._trace(args)
        if closed_over or core.dynamic_trace is not None or \
                any(isinstance(x, core.Tracer) for x in flat_args):
            outs = xla_call(*closed_over, *flat_args, jaxpr=closed, name=self.name)
        else:  # nothing to transform: run the executable directly (what bind would reach)
            outs = _xla_call_impl(*flat_args, jaxpr=closed, name=self.name)
        return tree_util.tree_unflatten(out_tree, outs)

    def lower(self, *args) -> 'Lowered':
        """Trace and lower for ``args`` (arrays, scalars or ``ShapeDtypeStruct``)."""
        closed, closed_over, out_tree, _ = self._trace(args)
        if closed_over:
            raise core.UnexpectedTracerError(
                f'jit({self.name}).lower: the function closes over a traced value')
        return Lowered(closed, self.name, out_tree)


_trace_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _traces_of(fun) -> dict:
    """The trace cache of ``fun``, shared by every ``jit(fun)``: the same function jitted
    twice is traced (and emitted as a private function) once."""
    try:
        return _trace_caches.setdefault(fun, {})
    except TypeError:  # not weakly referenceable: a cache of its own
        return {}


def jit(fun):
    """Compile ``fun`` with XLA: traced once per argument types, then run from the cache."""
    core.check_callable('jit', fun=fun)
    return Jitted(fun)


class Lowered:
    """A jitted function lowered to a StableHLO module for particular argument types."""

    def __init__(self, closed: ClosedJaxpr, name: str, out_tree):
        self.jaxpr = closed
        self.name = name
        self.out_tree = out_tree
        self._module = lowered_module(closed, name)

    def as_text(self, debug_info: bool = False) -> str:
        """The StableHLO text; ``debug_info`` adds ``loc(...)`` with source lines."""
        with mlir_context():
            return module_text(self._module, debug_info)

    def compiler_ir(self) -> ir.Module:
        return self._module

    def compile(self) -> 'Compiled':
        return Compiled(self.jaxpr, executable(self.jaxpr, self.name), self.out_tree)


class Compiled:
    """A compiled jitted function: call it with arguments of the lowered types."""

    def __init__(self, closed: ClosedJaxpr, exe: runtime.Executable, out_tree):
        self._jaxpr = closed
        self._executable = exe
        self._out_tree = out_tree

    def __call__(self, *args):
        avals, _, leaves = abstractify_args('compiled function', args)
        expected = self._jaxpr.in_avals
        if len(avals) != len(expected) or not all(map(same_type, avals, expected)):
            raise TypeError('compiled function called with types '
                            f'({", ".join(a.str_short() for a in avals)}) but compiled for '
                            f'({", ".join(a.str_short() for a in expected)})')
        buffers = self._executable([to_device(x) for x in leaves])
        outs = [Array(b, a) for b, a in zip(buffers, self._jaxpr.out_avals)]
        return tree_util.tree_unflatten(self._out_tree, outs)

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._executable.hlo_text()

    def cost_analysis(self) -> dict:
        return self._executable.cost_analysis()
