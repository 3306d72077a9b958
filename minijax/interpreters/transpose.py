"""Transposition of linear jaxprs: the backward pass of reverse-mode differentiation.

The linear inputs of a jaxpr are ``UndefinedPrimal`` (only their type is known). Walking the
equations backwards, each linear primitive's transpose rule turns the cotangent of its output
into cotangents of its linear inputs. Cotangents are symbolic zeros until something is added:
an equation whose outputs received no cotangent is skipped, so no zero arrays are built.
"""
from __future__ import annotations

from minijax import core
from minijax.caching import cache_on_first_arg
from minijax.core import ShapedArray
from minijax.interpreters.jvp import Zero, instantiate
from minijax.interpreters.partial_eval import dce_closed_jaxpr
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, Lit, Var, name_stack
from minijax.ir.tracing import trace_to_jaxpr


#: ``rule(ct, *primals, **params) -> [ct or None per operand]``, for primitives linear in the
#: operands that are ``UndefinedPrimal`` (``None`` for the others).
transpose_rules = core.RuleTable('transpose', '{p}_p.def_transpose(...)')


class UndefinedPrimal:
    """A linear input of a transposed primitive: its value is what we solve for."""
    __slots__ = ('aval',)

    def __init__(self, aval: ShapedArray):
        self.aval = core.raise_to_shaped(aval)

    def __repr__(self):
        return f'UndefinedPrimal({self.aval.str_short()})'


def is_undefined_primal(x) -> bool:
    """Whether ``x`` is a linear argument of a transpose rule (as opposed to a constant)."""
    return isinstance(x, UndefinedPrimal)


def backward_pass(jaxpr: Jaxpr, consts, args, cotangents, name='transpose') -> list:
    """Cotangents of the ``UndefinedPrimal`` entries of ``args``, given the outputs'.

    ``cotangents`` may hold ``Zero``; the result holds ``Zero`` for an input that received
    nothing and ``None`` for an input that is not an ``UndefinedPrimal``. The equations
    that only feed outputs with a zero cotangent are pruned first (``dce_jaxpr``, which
    also prunes loop and branch bodies), so they are never transposed. The equations it
    emits are named ``transpose(jvp())`` after those they transpose; a rule transposing a
    body passes ``name=''``: its equations keep their own names, as in JAX.
    """
    live, _ = dce_closed_jaxpr(ClosedJaxpr(jaxpr, consts), nonzero_cts(cotangents),
                               instantiate=True)
    jaxpr, consts, cotangents = live.jaxpr, live.consts, drop_zero_cts(cotangents)
    from minijax import lax  # lax's rules build on this module
    primal_env: dict[Var, object] = {}
    ct_env: dict[Var, object] = {}
    linear = {v for v, val in zip(jaxpr.invars, args) if is_undefined_primal(val)}
    linear.update(v for eqn in jaxpr.eqns for v in eqn.out_binders)

    def read_primal(x):
        if isinstance(x, Lit):
            return x.operand()
        if x in primal_env:
            return primal_env[x]
        if x in linear:
            return UndefinedPrimal(x.aval)
        raise RuntimeError(f'backward_pass: variable {x} of type {x.aval.str_short()} is read '
                           'but bound nowhere (a partial-eval rule dropped a residual)')

    def write_cotangent(x, ct):
        if isinstance(x, Var) and ct is not None and not isinstance(ct, Zero):
            ct_env[x] = lax.add_any(ct_env[x], ct) if x in ct_env else ct

    for v, val in zip([*jaxpr.constvars, *jaxpr.invars], [*consts, *args], strict=True):
        if not is_undefined_primal(val):
            primal_env[v] = val
    for x, ct in zip(jaxpr.outs, cotangents, strict=True):
        write_cotangent(x, ct)

    outer = core.current_name_stack()
    for eqn in reversed(jaxpr.eqns):
        cts_out = [ct_env.pop(v, None) for v in eqn.out_binders]
        if all(ct is None for ct in cts_out):
            continue
        primals_in = [read_primal(x) for x in eqn.inputs]
        rule = transpose_rules[eqn.primitive]
        with core.traced_as(eqn.source_info,
                            _transposed_name_stack(outer, name_stack(eqn), name)):
            if eqn.primitive.multiple_results:
                cts_out = [Zero(v.aval) if ct is None else ct
                           for ct, v in zip(cts_out, eqn.out_binders)]
                cts_in = rule(cts_out, *primals_in, **eqn.params)
            else:
                cts_in = rule(cts_out[0], *primals_in, **eqn.params)
            for x, ct in zip(eqn.inputs, cts_in, strict=True):
                write_cotangent(x, ct)  # (a sum of cotangents is this equation's too)

    return [(ct_env.get(v, Zero(v.aval)) if is_undefined_primal(val) else None)
            for v, val in zip(jaxpr.invars, args)]


def _transposed_name_stack(outer: tuple, stack: tuple, name: str) -> tuple:
    """JAX's name for an equation emitted transposing one traced under ``jvp()``:
    ``transpose(jvp())``, inside the transformations around the backward pass."""
    if not name:
        return outer + stack
    shared = 0
    while shared < min(len(outer), len(stack)) and outer[shared] == stack[shared]:
        shared += 1
    return (*outer, f'{name}()', *stack[shared:])


def instantiate_cts(cts, avals):
    """Arrays for cotangents that may be ``None`` or ``Zero``."""
    return [instantiate(Zero(a)) if ct is None or isinstance(ct, Zero) else ct
            for ct, a in zip(cts, avals)]


def nonzero_cts(cts) -> tuple[bool, ...]:
    """Which cotangents hold a value: neither ``None`` nor a symbolic ``Zero``."""
    return tuple(ct is not None and not isinstance(ct, Zero) for ct in cts)


def drop_zero_cts(cts) -> list:
    """The cotangents that hold a value: what a jaxpr from ``transposed_jaxpr`` takes."""
    return [ct for ct, nz in zip(cts, nonzero_cts(cts)) if nz]


@cache_on_first_arg
def transposed_jaxpr(closed: ClosedJaxpr, undefined: tuple[bool, ...],
                     nonzero_out_cts: tuple[bool, ...] | None = None) -> ClosedJaxpr:
    """The transpose of ``closed`` in its ``undefined`` (linear) inputs.

    The new jaxpr takes the defined (residual) inputs, then the cotangents of the outputs
    flagged in ``nonzero_out_cts`` (all outputs when it is None), and returns the cotangents
    of the linear inputs. The other outputs' cotangents stay symbolic zeros, so the work that
    only they would receive is skipped: a zero cotangent never meets an infinite partial
    derivative (``0 * inf``), and a dead loop is never transposed. Higher-order primitives
    use this for their bodies.
    """
    if nonzero_out_cts is None:
        nonzero_out_cts = (True,) * len(closed.out_avals)
    residual_avals = [a for a, u in zip(closed.in_avals, undefined) if not u]
    linear_avals = [a for a, u in zip(closed.in_avals, undefined) if u]
    ct_avals = [a for a, nz in zip(closed.out_avals, nonzero_out_cts, strict=True) if nz]

    def transposed(*args):
        residuals, cts = core.split_list(args, len(residual_avals))
        res_it, ct_it = iter(residuals), iter(cts)
        primals = [UndefinedPrimal(a) if u else next(res_it)
                   for a, u in zip(closed.in_avals, undefined)]
        cts_out = [next(ct_it) if nz else Zero(a)
                   for a, nz in zip(closed.out_avals, nonzero_out_cts)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts_out, name='')
        return instantiate_cts([ct for ct, u in zip(cts_in, undefined) if u], linear_avals)

    new_closed, _ = trace_to_jaxpr(transposed, [*residual_avals, *ct_avals])
    return new_closed
