"""``custom_jvp``, ``custom_vjp`` and ``checkpoint``: a function with a derivative the user
chose, as in JAX.

Calling a ``custom_jvp`` function traces its primal function to a closed jaxpr and binds
``custom_jvp_call``, a higher-order primitive like ``xla_call`` holding that jaxpr and the
user's rule (flattened). Every interpreter but one treats it as the primal jaxpr: evaluation
runs it, ``vmap`` batches it, lowering emits it inline. The JVP interpreter instead calls the
rule, so the derivative is the user's: it is traced (into the linear jaxpr, under ``grad``)
exactly as if the user had written it inline.

``custom_vjp_call`` likewise holds ``fwd`` and ``bwd``. Its JVP rule runs ``fwd`` for the
outputs and residuals and binds ``custom_lin`` on the residuals and the input tangents: a
linear primitive that cannot be evaluated (forward mode of a ``custom_vjp`` function is an
error, as in JAX) but whose transpose calls ``bwd``. Under ``grad``, partial evaluation
stages ``custom_lin`` into the linear jaxpr (its tangent inputs are unknown) and transposing
that jaxpr calls ``bwd`` with the residuals ``fwd`` saved.

Both differentiate with respect to explicit arguments only: a nonzero tangent reaching a value
the function closed over is refused, with JAX's message. ``vmap`` batches every operand
(broadcasting unbatched ones) so that the rules, batched with ``vmap`` too, see one layout;
under ``grad`` the transpose of that broadcast sums the per-example cotangents of an
unbatched operand.
"""

import dataclasses
import functools
import inspect
from typing import Any

import numpy as np

from minijax import core, dtypes, lax, tree_util, unsupported
from minijax.control_flow.common import trace_function
from minijax.core import Primitive
from minijax.flops import closed_jaxpr_flops, flops_rules
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters.partial_eval import PartialEvalTracer
from minijax.interpreters.transpose import instantiate_cts
from minijax.ir.jaxpr import eval_closed_jaxpr, same_type
from minijax.lowering import lower_closed_jaxpr, register_lowering
from minijax.sharding import rules as sharding_rules

__all__ = ['CustomVJPPrimal', 'SymbolicZero', 'closure_convert', 'custom_gradient', 'custom_jvp',
           'custom_jvp_call_p', 'custom_vjp', 'custom_vjp_call_p', 'custom_vjp_primal_tree_values',
           'linear_call', 'zero_from_primal']

# dir() lists JAX's names only. The module keeps more: it defines primitives and writes their
# rows of the interpreters' rule tables, by name (``register_lowering``, ``flops_rules``...), as
# every module defining a primitive does; and ``checkpoint``, which ``minijax.checkpoint`` is
# (JAX keeps these in ``jax._src``).
__dir__ = unsupported.public_dir(globals())

custom_jvp_call_p = Primitive('custom_jvp_call', multiple_results=True)
custom_vjp_call_p = Primitive('custom_vjp_call', multiple_results=True)
custom_lin_p = Primitive('custom_lin', multiple_results=True)
sharding_rules.register(sharding_rules.AS_TRACED,  # their results: their jaxprs' types
                        custom_jvp_call_p, custom_vjp_call_p, custom_lin_p)


class NamedRule:
    """A flattened user rule kept in an equation's params: printed by the user's name (not
    as a function address), so jaxprs print the same every run."""

    def __init__(self, name, fun):
        self.name, self.fun = name, fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __repr__(self):
        return self.name


# ----------------------------------------------------------------------------- the API

class SymbolicZero:
    """A tangent or cotangent known to be zero, as a rule with ``symbolic_zeros`` sees it:
    only its type (``aval``; ``shape``, ``dtype``... are read from it)."""

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return 'SymbolicZero'

    def __getattr__(self, name):
        if name == 'aval':  # (not set yet: unpickling, copying)
            raise AttributeError(name)
        return getattr(self.aval, name)

    @staticmethod
    def from_primal_value(val):
        aval = core.raise_to_shaped(core.get_aval(val))
        return SymbolicZero(aval.update(dtype=dtypes.tangent_dtype(aval.dtype), weak_type=False))


@dataclasses.dataclass
class CustomVJPPrimal:
    """An argument leaf of a ``custom_vjp``'s ``fwd`` with ``symbolic_zeros``: the value, and
    whether a derivative reaches it."""
    value: Any
    perturbed: bool


def custom_vjp_primal_tree_values(tree):
    """``tree`` with each ``CustomVJPPrimal`` leaf replaced by its value."""
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f'unexpected leaf type {type(leaf)}')
        return leaf.value
    return tree_util.tree_map(value, tree)


def zero_from_primal(val, symbolic_zeros=False):
    """The zero tangent of each leaf of ``val``: a ``SymbolicZero`` with ``symbolic_zeros``,
    else zeros of the tangent dtype (``float0`` for an integer or bool leaf)."""
    def zero(x):
        if symbolic_zeros:
            return SymbolicZero.from_primal_value(x)
        aval = core.raise_to_shaped(core.get_aval(x))
        if not ad.has_tangent(aval):
            return np.zeros(aval.shape, dtypes.float0)
        return ad.instantiate(ad.Zero(aval))
    return tree_util.tree_map(zero, val)


def _given_zero(tangent, symbolic_zeros):
    """A tangent as a rule gets it: a ``Zero`` as a ``SymbolicZero``, or as zeros."""
    if not isinstance(tangent, ad.Zero):
        return tangent
    return SymbolicZero(tangent.aval) if symbolic_zeros else ad.instantiate(tangent)


def _instantiate_symbolic(tangent):
    return ad.instantiate(ad.Zero(tangent.aval)) if isinstance(tangent, SymbolicZero) else tangent


class custom_jvp:  # noqa: N801 (JAX's name)
    """A function with a custom JVP rule: ``f = custom_jvp(fun)``, then ``@f.defjvp``.

    The rule is ``jvp(primals, tangents) -> (primal_out, tangent_out)`` (with
    ``nondiff_argnums``, ``jvp(*nondiff_args, primals, tangents)``, the tuples holding the
    other arguments only). ``defjvps`` gives one ``jvp_i(g_i, primal_out, *primals)`` per
    argument instead. Rules may use any minijax operation, including ``f`` itself.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp, self.symbolic_zeros = None, False

    def defjvp(self, jvp, symbolic_zeros=False):
        """``symbolic_zeros``: the rule gets a ``SymbolicZero`` for each tangent known to be
        zero (and may return them), instead of zeros."""
        core.check_callable('custom_jvp.defjvp', jvp=jvp)
        self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument, ``jvp_i(g_i, primal_out, *primals)`` (None: no
        dependence); the output tangent is their sum, by ``add_any`` as in JAX."""
        def jvp(primals, tangents):
            if len(jvps) != len(primals):
                raise ValueError(f'custom_jvp {self.__name__}: defjvps got {len(jvps)} rules '
                                 f'for {len(primals)} differentiable arguments (one each, '
                                 'None for no dependence)')
            primal_out = self(*primals)
            terms = [rule(t, primal_out, *primals) for rule, t in zip(jvps, tangents)
                     if rule is not None]
            if not terms:
                return primal_out, tree_util.tree_map(_zeros_like, primal_out)
            return primal_out, tree_util.tree_map(lambda *ts: functools.reduce(lax.add_any, ts),
                                                  *terms)
        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f'No JVP defined for custom_jvp function {self.__name__} '
                                 'using defjvp.')
        return _call_custom(self, args, kwargs, _Call.jvp_in_place, lambda call: (
            custom_jvp_call_p.bind(
                *call.consts, *call.flat_args, call_jaxpr=call.jaxpr,
                jvp=NamedRule(getattr(self.jvp, '__name__', 'jvp'), call.flat_jvp),
                num_consts=len(call.consts), name=call.name)))


class custom_vjp:  # noqa: N801 (JAX's name)
    """A function with a custom VJP: ``f = custom_vjp(fun)``, then ``f.defvjp(fwd, bwd)``.

    ``fwd`` takes ``fun``'s arguments and returns ``(output, residuals)``;
    ``bwd(residuals, output_cotangent)`` (with ``nondiff_argnums``,
    ``bwd(*nondiff_args, residuals, g)``) returns a tuple with one cotangent per
    differentiable argument (None for zero). Only reverse mode is possible.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.symbolic_zeros = False

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """``symbolic_zeros``: ``fwd`` gets each argument leaf as a ``CustomVJPPrimal``
        (its value, and whether it is perturbed: has a nonzero tangent), and ``bwd`` a
        ``SymbolicZero`` for each output cotangent known to be zero."""
        core.check_callable('custom_vjp.defvjp', fwd=fwd, bwd=bwd)
        if optimize_remat:
            raise NotImplementedError('custom_vjp.defvjp: optimize_remat is not supported by '
                                      'minijax (checkpoint recomputes nothing)')
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f'No VJP defined for custom_vjp function {self.__name__} '
                                 'using defvjp.')
        return _call_custom(self, args, kwargs, _Call.vjp_in_place, lambda call: (
            custom_vjp_call_p.bind(
                *call.consts, *call.flat_args, call_jaxpr=call.jaxpr,
                fwd=NamedRule(getattr(self.fwd, '__name__', 'fwd'), call.flat_fwd),
                bwd=NamedRule(getattr(self.bwd, '__name__', 'bwd'), call.flat_bwd),
                num_consts=len(call.consts), name=call.name)))


def _call_custom(function, args, kwargs, in_place, bind):
    """A call of a custom_jvp or custom_vjp ``function``, as JAX makes it: as Python calls
    it outside any transformation; under jvp or grad, its rule ``in_place`` on the primal
    values (``_Call.jvp_in_place``, ``_Call.vjp_in_place``); else traced, and ``bind`` of
    the traced call."""
    out = _called_directly(function, args, kwargs)
    if out is not _NOT_GIVEN:
        return out
    call = _Call(function, args, kwargs, traced=False)
    trace = call.differentiating_trace()
    if trace is not None:
        return in_place(call, trace)
    call.trace()
    return tree_util.tree_unflatten(call.out_tree, bind(call))


_NOT_GIVEN = object()  # (no output; checkpoint's deprecated ``concrete`` not given)


def _called_directly(custom, args, kwargs):
    """``custom.fun``'s output if the call sees no transformation, else ``_NOT_GIVEN``.

    JAX calls the function itself, as Python calls it (no trace, no rule: Python arithmetic
    on a float returns a float), when nothing is staged and no differentiable argument is
    traced, or is only a value partial evaluation already knows (a primal inside ``grad``'s
    rules). An output that is a tracer shows the function closed over one: the call then
    binds, as under any transformation, so that the rules see it."""
    if core.dynamic_trace is not None:
        return _NOT_GIVEN
    nondiff = {i % len(args) for i in custom.nondiff_argnums if -len(args) <= i < len(args)}
    args = [x if i in nondiff else tree_util.tree_map(_known_value, x)
            for i, x in enumerate(args)]
    kwargs = tree_util.tree_map(_known_value, kwargs)
    diff = [x for i, x in enumerate(args) if i not in nondiff]
    if not all(core.is_valid_value(x) and not isinstance(x, core.Tracer)
               for x in tree_util.tree_leaves((diff, kwargs))):
        return _NOT_GIVEN
    out = custom.fun(*args, **kwargs)
    if any(isinstance(x, core.Tracer) for x in tree_util.tree_leaves(out)):
        return _NOT_GIVEN
    return out


def _known_value(x):
    """A value partial evaluation knows, as the value itself."""
    return x.pval.const if isinstance(x, PartialEvalTracer) and x.pval.is_known else x


def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=(),
               static_argnames=(), concrete=_NOT_GIVEN):
    """``fun`` itself (its ``static_argnums`` checked at each call): JAX's rematerialization
    decorator, accepted so programs run unchanged (``static_argnames`` too; ``concrete``,
    removed from JAX, is JAX's error).

    minijax recomputes nothing: reverse mode keeps the residuals that linearization saves, so
    values and derivatives are JAX's, but memory is not traded for recomputation. Usable as
    ``@checkpoint``, ``checkpoint(f, policy=...)`` and ``partial(checkpoint, ...)``.
    """
    if concrete is not _NOT_GIVEN:
        raise NotImplementedError('The `concrete` option to `jax.checkpoint` was deprecated in '
                                  'JAX v0.8.2, and removed in JAX v0.10.0. In its place please '
                                  'use `static_argnums`.')
    if fun is None:
        return lambda f: checkpoint(f, prevent_cse=prevent_cse, policy=policy,
                                    static_argnums=static_argnums,
                                    static_argnames=static_argnames)
    core.check_callable('checkpoint', fun=fun)
    if not static_argnums:
        return fun
    argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def checked(*args, **kwargs):  # JAX checks static_argnums at each call
        for i in argnums:
            if not -len(args) <= i < len(args):
                raise ValueError(f'checkpoint: static_argnums {i} is out of range for '
                                 f'{len(args)} positional arguments')
        return fun(*args, **kwargs)
    return checked


remat = checkpoint


def custom_gradient(fun):
    """A function with its VJP written inline (``jax.custom_gradient``): ``fun`` returns
    ``(output, rule)`` and ``rule(output_cotangent)`` the tuple of input cotangents (a single
    one alone). It is a ``custom_vjp`` whose ``fwd`` traces ``rule`` to a jaxpr: the values
    ``rule`` closes over become the residuals, as in JAX."""
    core.check_callable('custom_gradient', fun=fun)

    @custom_vjp
    def wrapped_fun(*args, **kwargs):
        ans, _ = fun(*args, **kwargs)
        return ans

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        ans_flat, out_tree = tree_util.tree_flatten((ans,))
        avals = [core.raise_to_shaped(core.get_aval(x)) for x in ans_flat]
        jaxpr, consts, rule_out_tree = trace_function(rule, out_tree, avals)
        return ans, tree_util.Partial(_RuleJaxpr(jaxpr, out_tree, rule_out_tree), consts)

    def bwd(residuals, cts):
        return residuals(cts)

    wrapped_fun.defvjp(fwd, bwd)
    return wrapped_fun


class _RuleJaxpr:
    """A ``custom_gradient`` rule traced: called with its residuals and the output's
    cotangent, the input cotangents (a tuple)."""

    def __init__(self, jaxpr, out_tree, rule_out_tree):
        self.jaxpr, self.out_tree, self.rule_out_tree = jaxpr, out_tree, rule_out_tree

    def __call__(self, consts, cts):
        cts_flat, cts_tree = tree_util.tree_flatten((cts,))
        if cts_tree != self.out_tree:
            raise TypeError(f'{self.out_tree}\n!=\n{cts_tree}')
        out = tree_util.tree_unflatten(self.rule_out_tree,
                                       eval_closed_jaxpr(self.jaxpr, [*consts, *cts_flat]))
        return (out,) if tree_util.treedef_is_leaf(self.rule_out_tree) else out


def closure_convert(fun, *example_args):
    """``(converted, hoisted)``: ``fun`` traced at the types of ``example_args``, as a
    function taking ``fun``'s arguments and then ``hoisted``, the values it closes over that
    a derivative could reach (tracers of a transformation with a tangent), so that a
    ``custom_vjp`` sees them as arguments. Other closed-over values stay inside."""
    core.check_callable('closure_convert', fun=fun)
    flat_args, in_tree = tree_util.tree_flatten(example_args)
    avals = [core.get_aval(x) for x in flat_args]
    jaxpr, consts, out_tree = trace_function(fun, in_tree, avals)
    perturbed = [_maybe_perturbed(c) for c in consts]
    hoisted = [c for c, p in zip(consts, perturbed) if p]
    kept = [c for c, p in zip(consts, perturbed) if not p]

    def converted_fun(*args_hoisted):
        args, given = args_hoisted[:len(args_hoisted) - len(hoisted)], \
            args_hoisted[len(args_hoisted) - len(hoisted):]
        all_args, in_tree2 = tree_util.tree_flatten(tuple(args))
        if in_tree != in_tree2:
            raise TypeError('The inputs to the closure produced by closure_convert must have '
                            'the same Pytree structure as the example arguments passed when '
                            f'closure_convert was called. Expected {in_tree}, but got '
                            f'{in_tree2}')
        given, kept_it = iter(given), iter(kept)
        merged = [next(given) if p else next(kept_it) for p in perturbed]
        return tree_util.tree_unflatten(out_tree, eval_closed_jaxpr(jaxpr, [*merged, *all_args]))

    return converted_fun, hoisted


def _maybe_perturbed(x) -> bool:
    """Whether ``x`` may carry a nonzero tangent: a tracer of a differentiable type that is
    not a JVP tracer with a symbolic zero tangent (its primal is asked instead)."""
    while isinstance(x, ad.JVPTracer) and isinstance(x.tangent, ad.Zero):
        x = x.primal
    return isinstance(x, core.Tracer) and ad.has_tangent(x.aval)


# ----------------------------------------------------------------------------- one call

class _Call:
    """One call of a custom_jvp/custom_vjp function: the differentiable arguments flattened,
    the primal function traced at their types, and the user's rules as flat functions."""

    def __init__(self, custom, args, kwargs, traced=True):
        self.custom, self.name = custom, custom.__name__
        args = _positional(custom.fun, self.name, args, kwargs)
        self.nondiff_argnums = _check_argnums(self.name, custom.nondiff_argnums, len(args))
        self.args = args
        self.nondiff = [args[i] for i in self.nondiff_argnums]
        diff = tuple(x for i, x in enumerate(args) if i not in self.nondiff_argnums)
        self.flat_args, self.in_tree = tree_util.tree_flatten(diff)
        # (what partial evaluation knows is its value: the trace of another transformation,
        # or none, applies the call, as partial evaluation binds a primitive of known values)
        self.flat_args = [_known_value(x) for x in self.flat_args]
        self.jaxpr = self.consts = self.out_tree = self.out_avals = None
        if traced:
            self.trace()

    def trace(self):
        """The primal function traced at the arguments' types: the primitive's jaxpr, and
        the output types the rules' outputs are checked against."""
        avals = [core.shaped_aval(x) for x in self.flat_args]
        self.jaxpr, self.consts, self.out_tree = trace_function(
            lambda *d: self.custom.fun(*self.full_args(d)), self.in_tree, avals)
        self.out_avals = self.jaxpr.out_avals

    def differentiating_trace(self):
        """The JVP trace (of ``jvp``, ``grad``, ...) on top of the arguments, if one is and
        gives a differentiable argument a nonzero tangent: JAX then calls the rule on the
        primals and tangents, without tracing the function (so under an eager ``grad`` the
        rule, and the function it calls, see values and may branch on them in Python)."""
        if not all(map(core.is_valid_value, self.flat_args)):
            return None
        trace = core.find_top_trace(self.flat_args)
        if not isinstance(trace, ad.JVPTrace) or any(
                isinstance(x, core.Tracer) and x._trace.main is trace.main
                for x in tree_util.tree_leaves(self.nondiff)):
            return None
        tracers = [core.full_raise(trace, x) for x in self.flat_args]
        if all(isinstance(t, ad.Zero) for t in trace.tangents(tracers)):
            return None
        return trace

    def jvp_in_place(self, trace):
        """``custom_jvp``'s rule applied at ``trace``: its outputs as that trace's
        tracers."""
        tracers = [core.full_raise(trace, x) for x in self.flat_args]
        outs, tangents = self.flat_jvp([t.primal for t in tracers], trace.tangents(tracers))
        return self.tracers_out(trace, outs, tangents)

    def vjp_in_place(self, trace):
        """``custom_vjp``'s JVP (``_fwd_and_lin``) applied at ``trace``."""
        tracers = [core.full_raise(trace, x) for x in self.flat_args]
        outs, tangents_out = _fwd_and_lin(
            self.flat_fwd, NamedRule(getattr(self.custom.bwd, '__name__', 'bwd'), self.flat_bwd),
            [t.primal for t in tracers], trace.tangents(tracers), lambda: self.out_avals,
            self.name)
        return self.tracers_out(trace, outs, tangents_out)

    def tracers_out(self, trace, outs, tangents):
        return tree_util.tree_unflatten(self.out_tree, [
            ad.JVPTracer(trace, p, t) for p, t in zip(outs, tangents, strict=True)])

    def full_args(self, diff):
        """All arguments in their positions, from the differentiable ones."""
        diff_it = iter(diff)
        return [self.args[i] if i in self.nondiff_argnums else next(diff_it)
                for i in range(len(self.args))]

    def flat_jvp(self, primals_flat, tangents_flat):
        """The rule on the arguments; a ``Zero`` tangent reaches it as a ``SymbolicZero``
        with ``symbolic_zeros``, else as zeros; a ``SymbolicZero`` it returns is zeros."""
        primals = tree_util.tree_unflatten(self.in_tree, primals_flat)
        tangents = tree_util.tree_unflatten(self.in_tree, [
            _given_zero(t, self.custom.symbolic_zeros) for t in tangents_flat])
        pair = self.custom.jvp(*self.nondiff, primals, tangents)
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(f'custom_jvp {self.name}: the rule {_name(self.custom.jvp)} must '
                            f'return a pair (primal_out, tangent_out), got {_shown(pair)}')
        out, tangent_out = pair
        outs = self.flatten_output('primal output', out)
        tangent_out = tree_util.tree_map(_instantiate_symbolic, tangent_out)
        return outs, self.flatten_output('tangent output', tangent_out, like=outs)

    def flat_fwd(self, *primals_flat, perturbed=None):
        """``fwd`` on the arguments; with ``symbolic_zeros`` each leaf is a
        ``CustomVJPPrimal`` saying whether it is ``perturbed`` (all are, if not given)."""
        if self.custom.symbolic_zeros:
            perturbed = [True] * len(primals_flat) if perturbed is None else perturbed
            primals_flat = [CustomVJPPrimal(x, p) for x, p in zip(primals_flat, perturbed)]
        primals = tree_util.tree_unflatten(self.in_tree, primals_flat)
        pair = self.custom.fwd(*self.full_args(primals))
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(f'custom_vjp {self.name}: fwd must return a pair (output, '
                            f'residuals), got {_shown(pair)}')
        residuals, residual_tree = tree_util.tree_flatten(pair[1])
        return self.flatten_output('fwd output', pair[0]), residuals, residual_tree

    def flat_bwd(self, residual_tree, residuals, cts_flat, zeros=None):
        """``bwd`` on the residuals and cotangents; with ``symbolic_zeros`` those ``zeros``
        says are zero reach it as ``SymbolicZero``s. A None or ``SymbolicZero`` it returns
        is zeros."""
        if self.custom.symbolic_zeros and zeros is not None:
            cts_flat = [SymbolicZero(core.raise_to_shaped(core.get_aval(ct))) if zero else ct
                        for ct, zero in zip(cts_flat, zeros)]
        cts_out = tree_util.tree_unflatten(self.out_tree, cts_flat)
        cts_in = self.custom.bwd(*self.nondiff,
                                 tree_util.tree_unflatten(residual_tree, residuals), cts_out)
        primals = tree_util.tree_unflatten(self.in_tree, self.flat_args)
        if not isinstance(cts_in, (tuple, list)) or len(cts_in) != len(primals):
            raise TypeError(f'custom_vjp {self.name}: bwd must return a tuple with one '
                            f'cotangent per differentiable argument ({len(primals)}), got '
                            f'{cts_in!r}')
        pairs = [pair for primal, ct in zip(primals, cts_in) for pair in _leaves_up_to(primal, ct)]
        for i, (x, ct) in enumerate(pairs):
            if ct is not None and core.get_aval(ct).shape != core.get_aval(x).shape:
                raise ValueError(f'custom_vjp {self.name}: bwd returned a cotangent of type '
                                 f'{core.get_aval(ct).str_short()} for differentiable '
                                 f'argument leaf {i}, of type {core.get_aval(x).str_short()}: '
                                 'a cotangent has its argument\'s shape')
        return [_zeros_like(x) if ct is None or isinstance(ct, SymbolicZero) else ct
                for x, ct in pairs]

    def flatten_output(self, what, out, like=None):
        """``out`` flat, checked against the primal function's output types."""
        leaves, tree = tree_util.tree_flatten(out)
        if self.out_tree is None:  # (not traced: the rule's primal output gives the types)
            self.out_tree, self.out_avals = tree, [core.shaped_aval(x) for x in leaves]
        expected = self.out_avals
        if tree != self.out_tree or not all(
                same_type(core.shaped_aval(x), a) for x, a in zip(leaves, expected)):
            got = ', '.join(core.shaped_aval(x).str_short() for x in leaves)
            raise TypeError(f'custom rule of {self.name}: the {what} has structure {tree} and '
                            f'types ({got}), but {self.name} returns {self.out_tree} of types '
                            f'({", ".join(a.str_short() for a in expected)})')
        return leaves


def _name(rule):
    return getattr(rule, '__name__', type(rule).__name__)


def _shown(value):
    """What a rule returned, for an error: a tuple's length, another value's type."""
    if isinstance(value, (tuple, list)):
        return f'a {type(value).__name__} of {len(value)} values'
    return f'a value of type {type(value).__name__}'


def _positional(fun, name, args, kwargs):
    """Keyword arguments moved to their positions, as JAX resolves them."""
    if not kwargs:
        return list(args)
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(f'{name}: keyword-only arguments {sorted(bound.kwargs)} cannot be '
                        'passed to a custom_jvp/custom_vjp function')
    return list(bound.args)


def _check_argnums(name, argnums, nargs):
    for i in argnums:
        if not isinstance(i, int) or not 0 <= i < nargs:
            raise ValueError(f'{name}: nondiff_argnums {argnums} out of range for {nargs} '
                             'arguments')
    return frozenset(argnums)


def _leaves_up_to(primal, ct):
    """Pairs (primal leaf, cotangent leaf); a None cotangent stands for all of its leaves."""
    leaves = tree_util.tree_leaves(primal)
    cts = [None] * len(leaves) if ct is None else tree_util.flatten_up_to(
        tree_util.tree_structure(primal), ct)
    return zip(leaves, cts)


def _zeros_like(x):
    aval = core.shaped_aval(x)
    return lax.full(aval.shape, 0, aval.dtype)


# ----------------------------------------------------------------------------- shared rules

def _call_impl(*args, call_jaxpr, **_):
    return eval_closed_jaxpr(call_jaxpr, args)


def _call_abstract_eval(*avals, call_jaxpr, **_):
    return call_jaxpr.out_avals


def _call_lowering(ctx, *args, call_jaxpr, **_):
    """The primal jaxpr, inline: the custom rule only matters to differentiation."""
    return lower_closed_jaxpr(ctx.module_context, call_jaxpr, args)


def _call_flops(eqn, known):
    return closed_jaxpr_flops(eqn.params['call_jaxpr'])


def _check_no_closed_over_tangents(name, tangents, num_consts):
    if any(not isinstance(t, ad.Zero) for t in tangents[:num_consts]):
        raise TypeError(f'Detected differentiation of a custom_jvp/custom_vjp function '
                        f'({name}) with respect to a closed-over value. That isn\'t supported '
                        'because the custom rule only specifies how to differentiate the '
                        'function with respect to explicit input parameters: pass the value '
                        'as an argument.')


def _vmapped(rule, axis_size):
    """``rule(*flat_args) -> flat list`` vmapped over axis 0 of every argument, with every
    output batched at axis 0: how the user's rules follow their primitive under ``vmap``."""
    def batched(*args):
        outs, _ = batching.vmap_flat(rule, (0,) * len(args), *args, axis_size=axis_size)
        return [batching.move_batch_axis(axis_size, d, 0, x) for x, d in outs]
    return batched


for _p in (custom_jvp_call_p, custom_vjp_call_p):
    _p.def_impl(_call_impl)
    _p.def_abstract_eval(_call_abstract_eval)
    register_lowering(_p, _call_lowering)
    flops_rules[_p] = _call_flops


def _all_batched_at_0(vals, dims):
    size = batching.axis_size_of(vals, dims)
    return size, [batching.move_batch_axis(size, d, 0, x) for x, d in zip(vals, dims)]


# ----------------------------------------------------------------------------- custom_jvp_call

def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, name):
    _check_no_closed_over_tangents(name, tangents, num_consts)
    return jvp(primals[num_consts:], tangents[num_consts:])


def _custom_jvp_call_batching(vals, dims, *, call_jaxpr, jvp, num_consts, name):
    size, vals = _all_batched_at_0(vals, dims)
    num_outs = len(call_jaxpr.out_avals)

    def jvp_of_batch(primals, tangents):
        n, tangents = len(primals), [ad.instantiate(t) for t in tangents]
        outs = _vmapped(lambda *xs: [x for part in jvp(xs[:n], xs[n:]) for x in part],
                        size)(*primals, *tangents)
        return core.split_list(outs, num_outs)

    outs = custom_jvp_call_p.bind(
        *vals, call_jaxpr=batching.batched_jaxpr(call_jaxpr, size, (0,) * len(vals))[0],
        jvp=NamedRule(f'vmap({jvp})', jvp_of_batch), num_consts=num_consts, name=name)
    return outs, [0] * len(outs)


custom_jvp_call_p.def_jvp(_custom_jvp_call_jvp, symbolic_zeros=True)
custom_jvp_call_p.def_batching(_custom_jvp_call_batching)


# ----------------------------------------------------------------------------- custom_vjp_call

def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts, name):
    _check_no_closed_over_tangents(name, tangents, num_consts)
    return _fwd_and_lin(fwd, bwd, primals[num_consts:], tangents[num_consts:],
                        lambda: call_jaxpr.out_avals, name)


def _fwd_and_lin(fwd, bwd, primals, tangents, out_avals, name):
    """A custom_vjp call's JVP, as JAX's: ``fwd`` on the primals, and the output tangents
    the linear ``custom_lin`` of ``bwd`` (its residuals bound in), which grad transposes.
    ``out_avals()`` gives the output types once ``fwd`` ran (a call not traced learns them
    from ``fwd``'s output)."""
    outs, residuals, residual_tree = fwd(
        *primals, perturbed=[not isinstance(t, ad.Zero) for t in tangents])
    tangents_out = custom_lin_p.bind(
        *residuals, *map(ad.instantiate, tangents), num_res=len(residuals),
        bwd=NamedRule(str(bwd), functools.partial(bwd, residual_tree)),
        out_avals=tuple(out_avals()), name=name)
    return outs, tangents_out


def _custom_vjp_call_batching(vals, dims, *, call_jaxpr, fwd, bwd, num_consts, name):
    size, vals = _all_batched_at_0(vals, dims)
    num_outs = len(call_jaxpr.out_avals)

    def fwd_of_batch(*primals, perturbed=None):
        residual_trees = []  # the residuals' tree, seen while fwd is traced

        def flat(*xs):
            outs, residuals, residual_tree = fwd(*xs, perturbed=perturbed)
            residual_trees.append(residual_tree)
            return [*outs, *residuals]

        outs, residuals = core.split_list(_vmapped(flat, size)(*primals), num_outs)
        return outs, residuals, residual_trees[0]

    def bwd_of_batch(residual_tree, residuals, cts, zeros=None):
        n = len(residuals)
        return _vmapped(lambda *xs: bwd(residual_tree, xs[:n], xs[n:], zeros=zeros),
                        size)(*residuals, *cts)

    outs = custom_vjp_call_p.bind(
        *vals, call_jaxpr=batching.batched_jaxpr(call_jaxpr, size, (0,) * len(vals))[0],
        fwd=NamedRule(f'vmap({fwd})', fwd_of_batch), bwd=NamedRule(f'vmap({bwd})', bwd_of_batch),
        num_consts=num_consts, name=name)
    return outs, [0] * len(outs)


custom_vjp_call_p.def_jvp(_custom_vjp_call_jvp, symbolic_zeros=True)
custom_vjp_call_p.def_batching(_custom_vjp_call_batching)


# ----------------------------------------------------------------------------- custom_lin

def _forward_mode_error(name):
    return TypeError(f"can't apply forward-mode autodiff (jvp) to a custom_vjp function "
                     f'({name}): it has a reverse-mode rule only (use grad or vjp)')


def _custom_lin_impl(*args, name, **_):
    raise _forward_mode_error(name)


def _custom_lin_lowering(ctx, *args, name, **_):
    raise _forward_mode_error(name)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, name):
    """The backward pass of a custom_vjp function: ``bwd`` on the saved residuals."""
    residuals = list(args[:num_res])
    cts_in = bwd(residuals, instantiate_cts(cts, out_avals),
                 zeros=[ct is None or isinstance(ct, ad.Zero) for ct in cts])
    return [None] * num_res + list(cts_in)


custom_lin_p.def_impl(_custom_lin_impl)
custom_lin_p.def_abstract_eval(lambda *avals, out_avals, **_: list(out_avals))
custom_lin_p.def_transpose(_custom_lin_transpose)
register_lowering(custom_lin_p, _custom_lin_lowering)


# ----------------------------------------------------------------------------- linear_call

linear_call_p = Primitive('linear_call', multiple_results=True)
sharding_rules.register(sharding_rules.AS_TRACED, linear_call_p)


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """``fun(residual_args, linear_args)``, a function linear in ``linear_args``, whose
    transpose is ``fun_transpose(residual_args, cotangent)`` (``jax.custom_derivatives.
    linear_call``). The transpose of the call is a call of ``fun_transpose`` whose own
    transpose is ``fun``; its JVP calls ``fun`` on the tangents."""
    core.check_callable('linear_call', fun=fun, fun_transpose=fun_transpose)
    operands_res, res_tree = tree_util.tree_flatten(residual_args)
    operands_lin, lin_tree = tree_util.tree_flatten(linear_args)
    res_avals = [core.raise_to_shaped(core.get_aval(x)) for x in operands_res]
    lin_avals = [core.raise_to_shaped(core.get_aval(x)) for x in operands_lin]
    callee, f_consts, out_tree = trace_function(
        fun, tree_util.treedef_tuple((res_tree, lin_tree)), [*res_avals, *lin_avals])

    def transpose_thunk():
        transpose, t_consts, t_out_tree = trace_function(
            fun_transpose, tree_util.treedef_tuple((res_tree, out_tree)),
            [*res_avals, *callee.out_avals])
        if t_out_tree != lin_tree:
            raise TypeError('transpose output pytree structure must match that of linear '
                            f'inputs, got output structure {t_out_tree} and input structure '
                            f'{lin_tree}.')
        return transpose, t_consts

    out = linear_call_p.bind(*f_consts, *operands_res, *operands_lin, callee=callee,
                             transpose_thunk=NamedRule('transpose_thunk', transpose_thunk),
                             num_callee_consts=len(f_consts), num_res=len(operands_res))
    return tree_util.tree_unflatten(out_tree, out)


def _linear_call_impl(*args, callee, **_):
    return eval_closed_jaxpr(callee, args)


def _linear_call_jvp(primals, tangents, *, num_callee_consts, num_res, **params):
    """``fun`` on the primals, and on the tangents (it is linear in them)."""
    fixed = num_callee_consts + num_res
    if any(not isinstance(t, ad.Zero) for t in tangents[:fixed]):
        raise TypeError('linear_call: a residual argument has a nonzero tangent: the '
                        'function is linear in its linear arguments only')
    params.update(num_callee_consts=num_callee_consts, num_res=num_res)
    outs = linear_call_p.bind(*primals, **params)
    tangents_out = linear_call_p.bind(*primals[:fixed],
                                      *(ad.instantiate(t) for t in tangents[fixed:]), **params)
    return outs, tangents_out


def _linear_call_transpose(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    """A call of ``fun_transpose`` on the cotangents, with ``fun`` as its transpose."""
    transpose, t_consts = transpose_thunk()
    f_consts, operands_res = args[:num_callee_consts], args[num_callee_consts:][:num_res]
    cts = instantiate_cts(cts, callee.out_avals)
    cts_out = linear_call_p.bind(
        *t_consts, *operands_res, *cts, callee=transpose,
        transpose_thunk=NamedRule('transpose_thunk', lambda: (callee, list(f_consts))),
        num_callee_consts=len(t_consts), num_res=len(operands_res))
    return [None] * (num_callee_consts + num_res) + list(cts_out)


linear_call_p.def_impl(_linear_call_impl)
linear_call_p.def_abstract_eval(lambda *avals, callee, **_: list(callee.out_avals))
linear_call_p.def_jvp(_linear_call_jvp, symbolic_zeros=True)
linear_call_p.def_transpose(_linear_call_transpose)
register_lowering(linear_call_p, lambda ctx, *args, callee, **_: lower_closed_jaxpr(
    ctx.module_context, callee, args))
flops_rules[linear_call_p] = lambda eqn, known: closed_jaxpr_flops(eqn.params['callee'])

__getattr__ = unsupported.missing_name('jax.custom_derivatives')
