"""What the control-flow primitives share: tracing user functions to closed jaxprs,
reshaping jaxprs so several of them (branches, loop bodies) agree on their signatures, and
the loop machinery (carry types that settle, loop-carried facts found by a fixed point)."""
from __future__ import annotations

from minijax import core, dtypes, lax, tree_util
from minijax.interpreters import batching
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, Var, eval_closed_jaxpr, same_type
from minijax.ir.tracing import trace_to_jaxpr
from minijax.sharding.rules import carry_sharding


def trace_function(fun, in_tree, in_avals):
    """Trace ``fun`` (taking pytree arguments) at ``in_avals`` for a higher-order primitive.

    Returns (a closed jaxpr without consts whose first inputs are ``fun``'s constants and
    then the tracers it closed over, those values, the output tree). The primitive takes
    the values as operands, as Autodidax and JAX join consts: traced inside a jaxpr, the
    constants become the outer jaxpr's constvars, and every rule sees them as operands.
    """
    flat_fun, out_tree = tree_util.flatten_fun(fun, in_tree)
    closed, closed_over = trace_to_jaxpr(flat_fun, in_avals)
    return hoist_consts(closed), [*closed.consts, *closed_over], out_tree()


def hoist_consts(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with its constvars turned into its leading inputs, and no consts (JAX's
    ``convert_constvars_jaxpr``): the caller passes ``closed.consts`` first."""
    if not closed.consts:
        return closed
    jaxpr = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.eqns, jaxpr.outs), [])


def insert_unused_inputs(closed: ClosedJaxpr, position: int, avals) -> ClosedJaxpr:
    """``closed`` with extra, ignored inputs of types ``avals`` inserted at ``position``."""
    if not avals:
        return closed
    jaxpr = closed.jaxpr
    invars = [*jaxpr.invars[:position], *(Var(a) for a in avals), *jaxpr.invars[position:]]
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, invars, jaxpr.eqns, jaxpr.outs), closed.consts)


def move_inputs(closed: ClosedJaxpr, order) -> ClosedJaxpr:
    """``closed`` with its inputs permuted: new input i is old input ``order[i]``."""
    jaxpr = closed.jaxpr
    invars = [jaxpr.invars[i] for i in order]
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, invars, jaxpr.eqns, jaxpr.outs), closed.consts)


def map_outputs(closed: ClosedJaxpr, fun) -> ClosedJaxpr:
    """A jaxpr computing ``fun(outputs of closed)``: retraced, so ``fun`` may bind ops."""
    def mapped(*args):
        return fun(eval_closed_jaxpr(closed, args))
    new_closed, _ = trace_to_jaxpr(mapped, closed.in_avals)
    return new_closed


def zeros(aval):
    return lax.full(aval.shape, 0, aval.dtype)


def check_branch_types(what, names, avals_lists):
    """Every branch returns the same shapes and dtypes (their weak types may differ), as JAX
    requires: a Python scalar does not take another branch's dtype, so
    ``cond(p, lambda: x32, lambda: 0.)`` is JAX's TypeError, showing the differing types."""
    for position, avals in enumerate(zip(*avals_lists)):
        if any((a.shape, a.dtype) != (avals[0].shape, avals[0].dtype) for a in avals):
            types = ', '.join(f'{n} gives {b.str_short()}' for n, b in zip(names, avals))
            raise TypeError(f'{what}: output {position} differs between branches: {types}')


def check_same_types(what, expected, given):
    """The types agree, their shardings too (under a mesh: ``f64[4@X]`` is not ``f64[4]``)."""
    if len(expected) != len(given) or not all(
            same_type(a, b) and carry_sharding(a) == carry_sharding(b)
            for a, b in zip(expected, given)):
        raise TypeError(f'{what}: expected types ({", ".join(a.str_short() for a in expected)})'
                        f' but got ({", ".join(a.str_short() for a in given)})')


def settle_carry_types(what, init_flat, trace_body):
    """Trace a loop body until its carry types settle.

    ``trace_body(carry_avals) -> (closed body, closed-over tracers)``, the body's outputs
    starting with the carry. A weakly typed init value (a Python scalar) takes the dtype the
    body returns for it, and the body is traced again; any other mismatch is a TypeError.
    Returns (the possibly converted init values, the body, its closed-over tracers).
    """
    while True:
        carry_avals = [core.shaped_aval(x) for x in init_flat]
        body, consts = trace_body(carry_avals)
        carry_out = body.out_avals[:len(init_flat)]
        converted = [lax.convert_element_type(x, out.dtype)
                     if aval.weak_type and out.dtype != aval.dtype and out.shape == aval.shape
                     and dtypes.weak_join(out.dtype, aval.dtype) is not None else x
                     for x, aval, out in zip(init_flat, carry_avals, carry_out)]
        if all(c is x for c, x in zip(converted, init_flat)):
            check_same_types(f'{what}: the body must return the carry types', carry_avals,
                             carry_out)
            return init_flat, body, consts
        init_flat = converted  # converted values are strongly typed: this happens once


def fixed_point(step, flags):
    """Grow ``flags`` by ``flags | step(flags)`` until it stops changing (loop-carried facts
    such as "this carry has a nonzero tangent" must hold for every iteration)."""
    while True:
        new = [a or b for a, b in zip(flags, step(flags))]
        if new == flags:
            return flags
        flags = new


def batched_loop_body(body: ClosedJaxpr, size: int, consts_bat, carry_bat, xs_bat=()):
    """How ``vmap`` batches a loop's carry, as JAX does: a carry is batched where its initial
    value is or the body makes it so (a fixed point). Returns the carries' flags, and the
    body batched for them (every batched input and carry at axis 0, other outputs batched
    only where the body makes them so) with its outputs' flags: the fixed point's last
    trace, not traced again."""
    num_ys = len(body.out_avals) - len(carry_bat)
    traced = {}

    def batched(carry_bat):
        key = tuple(carry_bat)
        if key not in traced:
            flags = [*consts_bat, *carry_bat, *xs_bat]
            traced[key] = batching.batched_jaxpr(
                body, size, tuple(0 if b else batching.not_mapped for b in flags),
                (*carry_bat, *[False] * num_ys))
        return traced[key]

    carry_bat = fixed_point(lambda bat: list(batched(bat)[1][:len(bat)]), list(carry_bat))
    return (carry_bat, *batched(carry_bat))
