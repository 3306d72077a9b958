"""Building jaxprs by tracing: the trace that records every primitive as an equation.

``trace_to_jaxpr`` runs a flat Python function on ``JaxprTracer`` inputs with the
``JaxprTrace`` as the dynamic trace (omnistaging), so every primitive it binds, even one on
constants only, becomes an equation.
"""
from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from minijax import core, tree_util
from minijax.core import ShapedArray, Tracer
from minijax.ir.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Lit, PrimalLit, Var,
                              abstract_eval_eqn)
from minijax.ir.printer import pp_jaxpr


#: primitive -> rule computing it, while tracing, on constant scalar operands (Python or NumPy
#: scalars, which become literals) instead of staging an equation: JAX folds
#: ``convert_element_type`` of a literal this way, so ``jnp.sin(2)`` stages ``sin 2.0``.
const_fold_rules: dict[core.Primitive, Any] = {}


#: While a ``shard_map`` body is linearized (``primal_literals``): the id of each value of
#: its primal computation that is a constant (a literal's operand, or one folded from them)
#: -> the value, kept alive so that its id stays its own. None otherwise.
_primal_values: dict[int, Any] | None = None


@contextlib.contextmanager
def primal_literals(values):
    """Trace with ``values`` (the operands of a body's ``PrimalLit``s) as primal constants:
    a literal made of one, or folded from one, is a ``PrimalLit`` too. (Not a Python int
    or bool: those small objects are shared, so their identity says nothing; they are no
    tangent's operand anyway, but for an index.)"""
    global _primal_values
    saved = _primal_values
    _primal_values = {id(v): v for v in values if type(v) not in (int, bool)}
    try:
        yield
    finally:
        _primal_values = saved


def _literal(val, aval) -> Lit:
    if _primal_values is not None and id(val) in _primal_values:
        return PrimalLit(val, aval, source=id(val))
    return Lit(val, aval)


class JaxprTracer(Tracer):
    """A value being traced: its type and the jaxpr atom (Var or Lit) it is bound to."""
    __slots__ = ('aval', '_var')

    def __init__(self, trace, aval):
        self._trace = trace
        self.aval = aval

    def _short_repr(self):
        return f'JitTracer({self.aval})'  # JAX's name for the tracer of jit and make_jaxpr


class JaxprTrace(core.Trace):
    """Stage each primitive into the builder shared by the main trace."""

    @property
    def builder(self) -> 'JaxprBuilder':
        return self.main.global_data

    def new_arg(self, aval) -> JaxprTracer:
        tracer = JaxprTracer(self, core.raise_to_shaped(aval))
        self.builder.add_var(tracer)
        self.builder.invars.append(tracer)
        return tracer

    def pure(self, val) -> JaxprTracer:
        return self.builder.get_const(self, val)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        out_avals = abstract_eval_eqn(primitive, [t.aval for t in tracers], params)
        builder = self.main.global_data
        if primitive in const_fold_rules:
            scalars = builder.literal_values(tracers)
            if scalars is not None:
                folded = const_fold_rules[primitive](*scalars, **params)
                if _primal_values is not None and \
                        any(isinstance(t._var, PrimalLit) for t in tracers):
                    _primal_values[id(folded)] = folded  # (of a primal value: one too)
                return builder.get_const(self, folded, out_avals[0])
        out_tracers = [JaxprTracer(self, a) for a in out_avals]
        builder.add_eqn(primitive, tracers, params, out_tracers)
        return out_tracers if primitive.multiple_results else out_tracers[0]


class JaxprBuilder:
    """Accumulates equations, variables and constants while a function is traced."""

    def __init__(self):
        self.eqns: list[JaxprEqn] = []
        #: id of a constant -> (the constant, kept alive so that its id stays its own; its tracer)
        self.const_tracers: dict[int, tuple[Any, JaxprTracer]] = {}
        self.constvals: dict[Var, Any] = {}
        self.invars: list[JaxprTracer] = []
        #: each distinct place an equation was traced at, kept once (see ``source_info``)
        self.source_infos: dict[core.SourceInfo, core.SourceInfo] = {}

    @staticmethod
    def add_var(tracer) -> Var:
        """Bind ``tracer`` to a new variable. The tracer itself holds it (not a table of
        every tracer), so tracers the function drops are freed while it is traced."""
        var = tracer._var = Var(tracer.aval)
        return var

    def get_const(self, trace, val, aval=None) -> JaxprTracer:
        """The tracer standing for the constant ``val`` (of type ``aval``, when its weak
        type differs from what ``val`` itself says). A scalar is written inline as a
        literal, a new one each time: caching it by identity would keep every scalar the
        function made alive, and it is seldom the same object again (``x * 1.5`` converts
        ``1.5`` anew). Anything else becomes one constvar per object (or, a tracer of an
        outer transformation, an input the jaxpr closes over)."""
        if _is_literal(val):
            tracer = JaxprTracer(trace, aval or core.shaped_aval(val))
            tracer._var = _literal(val, tracer.aval)
            return tracer
        known = self.const_tracers.get(id(val))
        if known is not None:
            return known[1]
        tracer = JaxprTracer(trace, aval or core.shaped_aval(val))
        self.const_tracers[id(val)] = val, tracer
        self.constvals[self.add_var(tracer)] = val
        return tracer

    def literal_values(self, tracers) -> list | None:
        """The values of ``tracers`` if every one is a constant written as a literal."""
        values = []
        for tracer in tracers:
            var = tracer._var
            if not isinstance(var, Lit):
                return None
            values.append(var.val)
        return values

    def add_eqn(self, primitive, in_tracers, params, out_tracers):
        inputs = [t._var for t in in_tracers]
        outs = [self.add_var(t) for t in out_tracers]
        self.eqns.append(JaxprEqn(primitive, inputs, params, outs, self.source_info()))

    def source_info(self) -> core.SourceInfo:
        """Where the equation being added is traced: one object per distinct place. A loop
        in the user's code traces the same lines again and again, and a stack is some 400
        bytes, more than the rest of the equation: a long trace kept one per equation."""
        info = core.user_source_info()
        return self.source_infos.setdefault(info, info)

    def build(self, in_tracers, out_tracers) -> tuple[ClosedJaxpr, list[Tracer]]:
        """The closed jaxpr, and the outer-trace tracers it closed over.

        Concrete constants become constvars; tracers of outer transformations that the
        function closed over become extra leading inputs, returned so that the caller can
        pass them in.
        """
        constvars, consts, closed_over_vars, closed_over = [], [], [], []
        for var, val in self.constvals.items():
            if isinstance(val, Tracer):
                closed_over_vars.append(var)
                closed_over.append(val)
            else:
                constvars.append(var)
                consts.append(val)
        invars = closed_over_vars + [t._var for t in in_tracers]
        outs = [t._var for t in out_tracers]
        return ClosedJaxpr(Jaxpr(constvars, invars, self.eqns, outs), consts), closed_over


def _is_literal(val):
    """A constant written inline: a Python or NumPy scalar (an Array stays a constvar)."""
    if isinstance(val, np.ndarray):
        return val.shape == ()
    return isinstance(val, (np.generic, bool, int, float, complex))


def trace_to_jaxpr(flat_fun, in_avals) -> tuple[ClosedJaxpr, list[Tracer]]:
    """Trace ``flat_fun`` (flat list in, flat list out) on arguments of type ``in_avals``."""
    builder = JaxprBuilder()
    with core.gc_paused(), core.new_main(JaxprTrace, builder) as main, core.new_name_stack():
        with core.new_dynamic(main):
            trace = main.trace
            in_tracers = [trace.new_arg(aval) for aval in in_avals]
            outs = flat_fun(*in_tracers)
            out_tracers = core.full_raise_outputs(trace, outs)
            return builder.build(in_tracers, out_tracers)


def abstractify_args(what: str, args, avals_ok=False) -> tuple[list[ShapedArray], Any, list]:
    """Flatten ``args``: (the leaves' types, the tree, the leaves).

    With ``avals_ok`` a ``ShapedArray`` leaf stands for itself (``make_jaxpr`` takes types).
    A leaf minijax cannot hold is a TypeError that names its argument.
    """
    leaves, in_tree = tree_util.tree_flatten(args)
    try:
        return [x if avals_ok and isinstance(x, ShapedArray) else core.shaped_aval(x)
                for x in leaves], in_tree, leaves
    except TypeError:
        for position, leaf in _leaves_with_positions(args):
            try:
                core.shaped_aval(leaf)
            except TypeError as err:
                raise TypeError(f'{what}: argument {position} {err}') from None
        raise


def _leaves_with_positions(args):
    for i, arg in enumerate(args):
        leaves = tree_util.tree_leaves(arg)
        if len(leaves) == 1 and leaves[0] is arg:
            yield f'{i}', arg
        else:
            for j, leaf in enumerate(leaves):
                yield f'{i} (leaf {j})', leaf


class MakeJaxprResult(ClosedJaxpr):
    """What ``make_jaxpr(f)(*args)`` returns: a closed jaxpr that prints as JAX prints it."""

    def __init__(self, closed: ClosedJaxpr, out_tree):
        super().__init__(closed.jaxpr, closed.consts)
        self.out_tree = out_tree


class AutodidaxJaxpr(Jaxpr):
    """The jaxpr of the Autodidax call ``make_jaxpr(f, *avals)``: it prints in the seed's
    syntax (``{ lambda a:float64[] . let ... in ( b ) }``)."""

    def __str__(self):
        return pp_jaxpr(self, syntax='autodidax')

    __repr__ = __str__


def eval_shape(f, *args, **kwargs):
    """The types of ``f(*args, **kwargs)`` as a pytree of ``ShapeDtypeStruct``, found by
    tracing ``f`` without running it (``jax.eval_shape``)."""
    core.check_callable('eval_shape', f=f)
    avals, in_tree, _ = abstractify_args(f'eval_shape({getattr(f, "__name__", "function")})',
                                         (args, kwargs))
    flat_fun, out_tree = tree_util.flatten_fun(lambda a, k: f(*a, **k), in_tree)
    closed, _ = trace_to_jaxpr(flat_fun, avals)
    return tree_util.tree_unflatten(out_tree(), [core.ShapeDtypeStruct(a.shape, a.dtype)
                                                 for a in closed.out_avals])


def make_jaxpr(fun, *avals, static_argnums=(), axis_env=None, return_shape=False):
    """The jaxpr of ``fun``, in either of two calling conventions:

    - JAX's ``make_jaxpr(f, static_argnums=())(*args)``: a ``ClosedJaxpr`` that prints as JAX
      prints it. Arguments may be arrays, Python scalars, ``ShapeDtypeStruct`` or
      ``ShapedArray``; pytrees are flattened; those at ``static_argnums`` are passed to ``fun``
      as they are, not traced.
    - Autodidax's ``make_jaxpr(f, *avals)`` (seeds/003), the types given directly:
      ``(jaxpr, consts, out_tree)``, the jaxpr printing in the seed's syntax.

    ``axis_env`` lists ``(name, size)`` pairs of axis names the collectives in ``fun`` may
    use; with ``return_shape``, JAX's call also returns the outputs' ``ShapeDtypeStruct``.
    """
    core.check_callable('make_jaxpr', fun=fun)
    name = getattr(fun, '__name__', 'function')
    if avals and all(isinstance(a, ShapedArray) for a in tree_util.tree_leaves(avals)):
        closed, out_tree = _trace_make_jaxpr(fun, name, avals)
        j = closed.jaxpr
        return AutodidaxJaxpr(j.constvars, j.invars, j.eqns, j.outs), closed.consts, out_tree
    if avals:  # JAX's second positional parameter is static_argnums
        if len(avals) > 1 or static_argnums != ():
            raise TypeError(f'make_jaxpr({name}): extra positional arguments must be avals '
                            f'(ShapedArray), as Autodidax passes them; got {avals!r}')
        static_argnums = avals[0]
    static_argnums = _index_tuple(name, static_argnums)

    def make_jaxpr_f(*args):
        static = _positions(name, static_argnums, len(args))
        traced = [a for i, a in enumerate(args) if i not in static]

        def with_static(*traced_args):
            it = iter(traced_args)
            return fun(*(a if i in static else next(it) for i, a in enumerate(args)))

        with contextlib.ExitStack() as stack:
            for axis_name, size in axis_env or ():
                stack.enter_context(core.extend_axis_env(axis_name, size))
            closed, out_tree = _trace_make_jaxpr(with_static, name, traced)
        jaxpr = MakeJaxprResult(closed, out_tree)
        if not return_shape:
            return jaxpr
        return jaxpr, tree_util.tree_unflatten(out_tree, [
            core.ShapeDtypeStruct(a.shape, a.dtype) for a in closed.out_avals])

    return make_jaxpr_f


def _index_tuple(name, static_argnums) -> tuple[int, ...]:
    nums = static_argnums if isinstance(static_argnums, (tuple, list)) else (static_argnums,)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in nums):
        raise TypeError(f'make_jaxpr({name}): static_argnums must be an int or a sequence of '
                        f'ints, got {static_argnums!r}')
    return tuple(nums)


def _positions(name, static_argnums, nargs) -> frozenset[int]:
    """The static positions among ``nargs`` arguments (negative ones count from the end)."""
    for i in static_argnums:
        if not -nargs <= i < nargs:
            raise ValueError(f'make_jaxpr({name}): static_argnums {i} is out of range for '
                             f'{nargs} positional arguments')
    return frozenset(i % nargs for i in static_argnums)


def _trace_make_jaxpr(f, name, args):
    avals, in_tree, _ = abstractify_args(f'make_jaxpr({name})', tuple(args), avals_ok=True)
    flat_fun, out_tree = tree_util.flatten_fun(f, in_tree)
    closed, closed_over = trace_to_jaxpr(flat_fun, avals)
    if closed_over:
        raise core.UnexpectedTracerError(
            f'make_jaxpr({name}) closed over a value traced by an outer transformation')
    return closed, out_tree()
