"""Partial evaluation: run what is known now, stage what is unknown into a jaxpr.

Linearization is partial evaluation of a JVP with known primals and unknown tangents: the
primal computation runs in Python (so Python control flow on primal values still works) and
only the tangent computation, linear in the tangents, is recorded.

Two forms, as in Autodidax Part 4:
- trace time: ``partial_eval_flat`` traces a function with ``PartialEvalTracer``s, which
  record *recipes* for unknown values; ``tracers_to_jaxpr`` then builds the staged jaxpr;
- jaxpr level: ``partial_eval_jaxpr`` splits an existing jaxpr in two (used by higher-order
  primitives such as ``xla_call``, whose body is already a jaxpr).
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any, NamedTuple

from minijax import core
from minijax.caching import cache_on_first_arg
from minijax.core import ShapedArray, Tracer
from minijax.ir.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, PrimalLit, Var,
                              abstract_eval_eqn, eqn_effectful)


#: Higher-order primitives (``xla_call``, ``cond``, loops) say how they split. At trace time:
#: ``rule(trace, tracers, **params) -> out tracers``.
partial_eval_rules = core.RuleTable('partial_eval', 'partial_eval_rules[{p}_p] = ...')
#: At jaxpr level: ``rule(unknown_inputs, eqn) -> (known eqn, unknown eqn, unknown outputs,
#: residuals)`` or None to stage the whole equation.
partial_eval_jaxpr_rules = core.RuleTable('partial_eval_jaxpr',
                                          'partial_eval_jaxpr_rules[{p}_p] = ...')
#: How dead-code elimination prunes a body: ``rule(used_outputs, eqn) -> (used_inputs, eqn)``.
dce_rules = core.RuleTable('dce', 'dce_rules[{p}_p] = ...')


class PartialVal(NamedTuple):
    """A value that is either known (``const``) or unknown (only ``aval`` is known)."""
    aval: ShapedArray
    const: Any | None

    @classmethod
    def known(cls, val):
        return cls(core.get_aval(val), val)

    @classmethod
    def unknown(cls, aval):
        return cls(core.raise_to_shaped(aval), None)

    is_known = property(lambda self: self.const is not None)


# How an unknown value will be computed in the staged jaxpr.
class LambdaBindingRecipe(NamedTuple):
    pass


class ConstRecipe(NamedTuple):
    val: Any


class JaxprEqnRecipe(NamedTuple):
    prim: core.Primitive
    tracers_in: list['PartialEvalTracer']
    params: dict[str, Any]
    avals_out: list[ShapedArray]
    tracer_refs_out: list[weakref.ReferenceType['PartialEvalTracer']]
    order: int  # when it was staged: the jaxpr lists equations in the program's order
    source_info: core.SourceInfo | None


_staging_order = itertools.count()


class PartialEvalTracer(Tracer):
    __slots__ = ('pval', 'recipe', '__weakref__')

    def __init__(self, trace, pval: PartialVal, recipe):
        self._trace = trace
        self.pval = pval
        self.recipe = recipe

    @property
    def aval(self):
        return self.pval.aval

    def full_lower(self):
        if self.pval.is_known:
            return core.full_lower(self.pval.const)
        return self

    def _short_repr(self):
        """A known value shows as that value: it is the primal that JAX's ``GradTracer``
        shows (linearize's primals are known partial values here)."""
        if self.pval.is_known:
            return core.short_repr(self.pval.const)
        return super()._short_repr()


class PartialEvalTrace(core.Trace):
    def new_arg(self, pval: PartialVal) -> PartialEvalTracer:
        return PartialEvalTracer(self, pval, LambdaBindingRecipe())

    def lift(self, val):
        return PartialEvalTracer(self, PartialVal.known(val), None)

    pure = lift

    def instantiate_const(self, tracer: PartialEvalTracer) -> PartialEvalTracer:
        """An unknown tracer for ``tracer``: a known value becomes a constant of the jaxpr."""
        if not tracer.pval.is_known:
            return tracer
        return PartialEvalTracer(self, PartialVal.unknown(tracer.aval),
                                 ConstRecipe(tracer.pval.const))

    def process_primitive(self, primitive, tracers, params):
        if all(t.pval.is_known for t in tracers):
            return primitive.bind(*(t.pval.const for t in tracers), **params)
        if primitive in partial_eval_rules:
            return partial_eval_rules[primitive](self, tracers, **params)
        tracers_in = [self.instantiate_const(t) for t in tracers]
        avals_out = abstract_eval_eqn(primitive, [t.aval for t in tracers_in], params)
        return self.stage(primitive, tracers_in, params, avals_out)

    def stage(self, primitive, tracers_in, params, avals_out):
        """Record ``primitive`` on unknown ``tracers_in``; return its unknown outputs."""
        tracers_out = [PartialEvalTracer(self, PartialVal.unknown(a), None) for a in avals_out]
        recipe = JaxprEqnRecipe(primitive, tracers_in, params, avals_out,
                                [weakref.ref(t) for t in tracers_out], next(_staging_order),
                                core.user_source_info())
        for t in tracers_out:
            t.recipe = recipe
        return tracers_out if primitive.multiple_results else tracers_out[0]


def partial_eval_flat(f, pvals_in: list[PartialVal], instantiate):
    """Run ``f`` on partially known inputs.

    Returns (jaxpr of the unknown part, output PartialVals, the jaxpr's consts). The jaxpr's
    inputs are the unknown inputs, in order; its outputs are the unknown outputs, where
    ``instantiate(num_outputs)[i]`` makes output i unknown even if its value is known.
    """
    with core.new_main(PartialEvalTrace) as main:
        trace = main.trace
        tracers_in = [trace.new_arg(pval) for pval in pvals_in]
        outs = f(*tracers_in)
        tracers_out = core.full_raise_outputs(trace, outs)
        tracers_out = [trace.instantiate_const(t) if inst else t
                       for t, inst in zip(tracers_out, instantiate(len(tracers_out)),
                                          strict=True)]
        pvals_out = [t.pval for t in tracers_out]
        unknown_in = [t for t in tracers_in if not t.pval.is_known]
        unknown_out = [t for t in tracers_out if not t.pval.is_known]
        jaxpr, consts = tracers_to_jaxpr(unknown_in, unknown_out)
    return jaxpr, pvals_out, consts


def tracers_to_jaxpr(tracers_in, tracers_out) -> tuple[Jaxpr, list]:
    """Build the jaxpr that the recipes of ``tracers_out`` describe: the equations they
    reach, in the order the program staged them (each follows its inputs, as the program
    computed them; a derivative then sums its terms in JAX's order, and rounds alike)."""
    tracer_to_var = {id(t): Var(t.aval) for t in tracers_in}
    constvars: dict[int, Var] = {}
    constvals: list = []

    def var_of(t):
        if id(t) in tracer_to_var:
            return tracer_to_var[id(t)]
        if isinstance(t.recipe, LambdaBindingRecipe):
            raise core.UnexpectedTracerError('an unknown input of partial evaluation was '
                                             'not passed as an input')
        if not isinstance(t.recipe, ConstRecipe):
            raise TypeError(f'unknown recipe {t.recipe!r}')
        val = t.recipe.val
        if id(val) not in constvars:
            constvars[id(val)] = Var(t.aval)
            constvals.append(val)
        return constvars[id(val)]

    recipes = {id(t.recipe): t.recipe for t in _reachable(tracers_out)
               if isinstance(t.recipe, JaxprEqnRecipe)}
    eqns = []
    for recipe in sorted(recipes.values(), key=lambda r: r.order):
        out_binders = [Var(aval) for aval in recipe.avals_out]
        eqns.append(JaxprEqn(recipe.prim, [var_of(t) for t in recipe.tracers_in],
                             recipe.params, out_binders, recipe.source_info))
        for ref, var in zip(recipe.tracer_refs_out, out_binders):
            if ref() is not None:
                tracer_to_var[id(ref())] = var
    invars = [tracer_to_var[id(t)] for t in tracers_in]
    outs = [var_of(t) for t in tracers_out]
    return Jaxpr(list(constvars.values()), invars, eqns, outs), constvals


def _tracer_parents(t):
    return t.recipe.tracers_in if isinstance(t.recipe, JaxprEqnRecipe) else []


def _reachable(tracers_out):
    """The tracers whose recipes ``tracers_out`` depend on (themselves included)."""
    seen: dict[int, PartialEvalTracer] = {}
    stack = list(tracers_out)
    while stack:
        t = stack.pop()
        if id(t) not in seen:
            seen[id(t)] = t
            stack.extend(_tracer_parents(t))
    return seen.values()


# ----------------------------------------------------------------------------- jaxpr level

def partial_eval_jaxpr(closed: ClosedJaxpr, in_unknowns, instantiate=None):
    """Split ``closed`` into a known part and an unknown part.

    Returns ``(known, unknown, out_unknowns, num_res)``: ``known`` takes the known inputs and
    returns the known outputs followed by ``num_res`` residuals; ``unknown`` takes the
    residuals followed by the unknown inputs and returns the unknown outputs. An output with
    ``instantiate[i]`` set is made unknown even if it could be computed now.

    The split is cached per jaxpr, so ``grad(jit(f))`` called again reuses the same known and
    unknown jaxprs, and their compiled programs.
    """
    instantiate = (False,) * len(closed.out_avals) if instantiate is None else instantiate
    known, unknown, out_unknowns, num_res = _split_jaxpr(closed, tuple(in_unknowns),
                                                         tuple(instantiate))
    return known, unknown, list(out_unknowns), num_res


@cache_on_first_arg
def _split_jaxpr(closed: ClosedJaxpr, in_unknowns, instantiate):
    jaxpr = closed.jaxpr
    instantiate = list(instantiate)
    unknown_vars: set[Var] = {v for v, uk in zip(jaxpr.invars, in_unknowns, strict=True) if uk}
    residuals: dict[Var, None] = {}  # ordered set of known vars the unknown part needs

    def is_unknown(x):
        return isinstance(x, Var) and x in unknown_vars

    primal_lits: dict[int, PrimalLit] = {}  # source -> the literal standing for it

    def need_residual(x):
        if isinstance(x, PrimalLit):  # (a constant of a linearized shard_map body's primal)
            residuals[primal_lits.setdefault(x.source, x)] = None
        elif isinstance(x, Var) and x not in unknown_vars:
            residuals[x] = None

    eqns1, eqns2 = [], []
    for eqn in jaxpr.eqns:
        unks_in = [is_unknown(x) for x in eqn.inputs]
        rule = partial_eval_jaxpr_rules.get(eqn.primitive)
        split = rule(unks_in, eqn) if rule is not None and any(unks_in) else None
        if not any(unks_in):
            eqns1.append(eqn)
        elif split is not None:
            eqn1, eqn2, unks_out, eqn_residuals = split
            eqns1.append(eqn1)
            eqns2.append(eqn2)
            for x in eqn_residuals:
                residuals[x] = None
            unknown_vars.update(v for v, uk in zip(eqn.out_binders, unks_out) if uk)
        else:
            eqns2.append(eqn)
            for x in eqn.inputs:
                need_residual(x)
            unknown_vars.update(eqn.out_binders)

    out_unknowns = [is_unknown(x) or inst for x, inst in zip(jaxpr.outs, instantiate)]
    for x, uk in zip(jaxpr.outs, out_unknowns):
        if uk and not is_unknown(x):
            need_residual(x)
    # Residual vars that eqn rules created are bound by eqns1's binders; the rest are vars of
    # the known jaxpr (inputs, constvars or known eqn outputs).
    residual_vars = list(residuals)
    known_ins = [v for v, uk in zip(jaxpr.invars, in_unknowns) if not uk]
    unknown_ins = [v for v, uk in zip(jaxpr.invars, in_unknowns) if uk]
    known_outs = [x for x, uk in zip(jaxpr.outs, out_unknowns) if not uk]
    unknown_outs = [x for x, uk in zip(jaxpr.outs, out_unknowns) if uk]

    known = Jaxpr(jaxpr.constvars, known_ins, eqns1, known_outs + residual_vars)
    # The unknown jaxpr binds fresh copies of the residuals (a var is bound once per jaxpr).
    res_binders = [Var(v.aval) for v in residual_vars]
    rename = dict(zip(residual_vars, res_binders))
    if primal_lits:
        rename.update({lit.source: rename[lit] for lit in primal_lits.values()})
    eqns2 = [_rename_inputs(e, rename) for e in eqns2]
    unknown_outs = [rename.get(x, x) if isinstance(x, Var) else
                    rename.get(x.source, x) if isinstance(x, PrimalLit) else x
                    for x in unknown_outs]
    unknown = Jaxpr([], res_binders + unknown_ins, eqns2, unknown_outs)
    return (ClosedJaxpr(known, closed.consts), ClosedJaxpr(unknown, []),
            out_unknowns, len(residual_vars))


@cache_on_first_arg
def forwarded_residuals(known: ClosedJaxpr, num_res) -> tuple[ClosedJaxpr, tuple]:
    """``known`` (from ``partial_eval_jaxpr``) without the residuals that are its own inputs,
    and for each residual the index of the known input it is (None where ``known``
    computes it). A call need not return what its caller gave it: the caller forwards
    those residuals itself, as JAX does for ``jit``. Cached, as the split is."""
    jaxpr = known.jaxpr
    num_outs = len(jaxpr.outs) - num_res
    position = {v: i for i, v in enumerate(jaxpr.invars)}
    residuals = jaxpr.outs[num_outs:]
    forwarded = tuple(position.get(r) if isinstance(r, Var) else None for r in residuals)
    if not any(f is not None for f in forwarded):
        return known, forwarded
    computed = [r for r, f in zip(residuals, forwarded) if f is None]
    pruned = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.eqns, jaxpr.outs[:num_outs] + computed)
    return ClosedJaxpr(pruned, known.consts), forwarded


def _rename_inputs(eqn: JaxprEqn, rename) -> JaxprEqn:
    """``eqn`` reading each renamed input's new variable (a ``PrimalLit``: its source's)."""
    return eqn._replace(inputs=[rename.get(x, x) if isinstance(x, Var) else
                                rename.get(x.source, x) if isinstance(x, PrimalLit) else x
                                for x in eqn.inputs])


def partition_list(flags, xs):
    """Split ``xs`` by boolean ``flags``: (those with False, those with True)."""
    false, true = [], []
    for flag, x in zip(flags, xs, strict=True):
        (true if flag else false).append(x)
    return false, true


def merge_lists(flags, false_xs, true_xs):
    """The inverse of ``partition_list``."""
    false_it, true_it = iter(false_xs), iter(true_xs)
    return [next(true_it) if flag else next(false_it) for flag in flags]



# ----------------------------------------------------------------------------- dead code

def dce_jaxpr(jaxpr: Jaxpr, used_outputs, instantiate=False) -> tuple[Jaxpr, list[bool]]:
    """``jaxpr`` without the equations that no used output depends on.

    Returns the pruned jaxpr, which returns only the used outputs and takes only the used
    inputs (and those flagged in ``instantiate``, a bool or one flag per input), and the
    flags of the inputs it kept. Primitives are pure, so a dead equation can go; one with a
    rule in ``dce_rules`` (loops, cond, xla_call) also prunes its body. Reverse mode runs
    this before transposing, as JAX does: a dead loop is never transposed and a dead partial
    derivative (``log`` at 0) never meets a zero cotangent.

    A dce rule ``rule(used_outputs, eqn)`` returns (which of ``eqn``'s inputs are used, the
    pruned equation, binding a subset of ``eqn``'s outputs from a subset of its inputs).
    """
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.invars)
    live: set[Var] = {x for x, used in zip(jaxpr.outs, used_outputs, strict=True)
                      if used and isinstance(x, Var)}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        rule = dce_rules.get(eqn.primitive)
        if rule is None:  # (most equations: kept whole if any output is used)
            if any(v in live for v in eqn.out_binders) or eqn_effectful(eqn):
                live.update(x for x in eqn.inputs if type(x) is Var)
                eqns.append(eqn)
            continue
        used_outs = [v in live for v in eqn.out_binders]
        if not any(used_outs) and not eqn_effectful(eqn):
            continue
        used_ins, new_eqn = rule(used_outs, eqn)
        live.update(x for x, used in zip(eqn.inputs, used_ins, strict=True)
                    if used and type(x) is Var)
        eqns.append(new_eqn)
    used_inputs = [v in live or inst for v, inst in zip(jaxpr.invars, instantiate, strict=True)]
    pruned = Jaxpr([v for v in jaxpr.constvars if v in live],
                   [v for v, used in zip(jaxpr.invars, used_inputs) if used],
                   eqns[::-1], [x for x, used in zip(jaxpr.outs, used_outputs) if used])
    return pruned, used_inputs


def dce_closed_jaxpr(closed: ClosedJaxpr, used_outputs,
                     instantiate=False) -> tuple[ClosedJaxpr, list[bool]]:
    """``dce_jaxpr`` on a closed jaxpr: the consts of pruned constvars go too. Cached per
    jaxpr, as ``partial_eval_jaxpr`` is, so a pruned body is the same object (and the same
    compiled program) every time."""
    instantiate = tuple(instantiate) if isinstance(instantiate, (list, tuple)) else instantiate
    pruned, used_inputs = _dce_closed_jaxpr(closed, tuple(used_outputs), instantiate)
    return pruned, list(used_inputs)


@cache_on_first_arg
def _dce_closed_jaxpr(closed: ClosedJaxpr, used_outputs, instantiate):
    pruned, used_inputs = dce_jaxpr(closed.jaxpr, list(used_outputs), instantiate)
    kept = set(pruned.constvars)
    consts = [c for v, c in zip(closed.jaxpr.constvars, closed.consts) if v in kept]
    return ClosedJaxpr(pruned, consts), used_inputs


def pruned_eqn(eqn: JaxprEqn, used_inputs, used_outputs, **params) -> JaxprEqn:
    """``eqn`` reading only its used inputs and binding only its used outputs, with
    ``params`` updated: what a dce rule returns."""
    return eqn._replace(inputs=[x for x, used in zip(eqn.inputs, used_inputs) if used],
                        params=dict(eqn.params, **params),
                        out_binders=[v for v, used in zip(eqn.out_binders, used_outputs)
                                     if used])
