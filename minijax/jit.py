"""``jit``: compile a function with XLA, traced once per argument types.

``jit(f)(*args)`` traces ``f`` to a closed jaxpr and binds ``xla_call`` with it
(``minijax.xla_call``); ``jit(f).lower(...)`` gives the StableHLO module (``Lowered``) and
``.compile()`` the executable (``Compiled``), as in JAX's ahead-of-time API.
"""
from __future__ import annotations

import weakref

from jaxlib.mlir import ir

from minijax import core, runtime, tree_util
from minijax.ir.jaxpr import ClosedJaxpr, same_type
from minijax.ir.tracing import abstractify_args, trace_to_jaxpr
from minijax.lowering import mlir_context, module_text
from minijax.xla_call import executable, lowered_module, run, xla_call, xla_call_p

__all__ = ['Compiled', 'Jitted', 'Lowered', 'jit', 'xla_call_p']


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
            outs = run(executable(closed, self.name), flat_args, closed.out_avals)
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
        outs = run(self._executable, leaves, self._jaxpr.out_avals)
        return tree_util.tree_unflatten(self._out_tree, outs)

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._executable.hlo_text()

    def cost_analysis(self) -> dict:
        return self._executable.cost_analysis()
