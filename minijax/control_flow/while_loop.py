"""``while_loop``: repeat a body jaxpr while a predicate jaxpr holds; ``stablehlo.while``.

The primitive's operands are the values the predicate closes over, those the body closes
over, then the loop carry. Its trip count is unknown in advance, so it can be
differentiated forwards (and linearized) but not transposed: reverse mode needs
``fori_loop`` with Python-int bounds or ``scan``.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lax, tree_util
from minijax.control_flow.common import (batched_loop_body, check_same_types, fixed_point,
                                         insert_unused_inputs, move_inputs, settle_carry_types,
                                         trace_function)
from minijax.core import Primitive
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_closed_jaxpr
from minijax.lowering import (lower_closed_jaxpr, register_lowering, tensor_type,
                              threading_token)
from minijax.lowering.ops import broadcast_in_dim
from minijax.lowering.registry import LoweringRuleContext, lowering_rules
from minijax.sharding import rules as sharding_rules

while_p = Primitive('while', multiple_results=True, eager_on_xla=True)
sharding_rules.register(sharding_rules.AS_TRACED, while_p)  # its results: its jaxpr's types


# ----------------------------------------------------------------------------- the API

def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val); return val``, staged.

    ``body_fun`` must return the carry's types; a weakly typed Python scalar in
    ``init_val`` takes the dtype the body gives it.
    """
    core.check_callable('while_loop', cond_fun=cond_fun, body_fun=body_fun)
    init_flat, in_tree = tree_util.tree_flatten(init_val)
    args_tree = tree_util.tuple_treedef(in_tree)

    def trace_body(carry_avals):
        body, consts, out_tree = trace_function(body_fun, args_tree, carry_avals)
        if out_tree != in_tree:
            raise TypeError(f'while_loop: body_fun returns {out_tree}, but the carry is '
                            f'{in_tree}')
        return body, consts

    init_flat, body, body_consts = settle_carry_types('while_loop', init_flat, trace_body)
    avals = [core.shaped_aval(x) for x in init_flat]
    cond, cond_consts, _ = trace_function(cond_fun, args_tree, avals)
    out = cond.out_avals
    if len(out) != 1 or out[0].shape != () or out[0].dtype != dtypes.bool_:
        shown = ', '.join(a.str_short() for a in out)
        raise TypeError(f'while_loop: cond_fun must return a scalar bool, got ({shown})')
    outs = while_p.bind(*cond_consts, *body_consts, *init_flat, cond_jaxpr=cond,
                        body_jaxpr=body, cond_nconsts=len(cond_consts),
                        body_nconsts=len(body_consts))
    return tree_util.tree_unflatten(in_tree, outs)


# ----------------------------------------------------------------------------- evaluation

def _split_operands(args, cond_nconsts, body_nconsts):
    cond_consts, rest = core.split_list(args, cond_nconsts)
    body_consts, carry = core.split_list(rest, body_nconsts)
    return cond_consts, body_consts, carry


def run_while(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """Run the loop: (the final carry, the number of trips). ``flops`` counts trips with it."""
    cond_consts, body_consts, carry = _split_operands(args, cond_nconsts, body_nconsts)
    trips = 0
    while np.any(pred := eval_closed_jaxpr(cond_jaxpr, [*cond_consts, *carry])[0]):
        new = eval_closed_jaxpr(body_jaxpr, [*body_consts, *carry])
        carry = [_where(pred, x, y) for x, y in zip(new, carry)] if np.ndim(pred) else new
        trips += 1
    return carry, trips


def _where(pred, x, y):
    """``x`` where the (batched) predicate holds, else ``y``: the predicate's axes lead."""
    pred = lax.broadcast_in_dim(pred, core.get_aval(x).shape, range(np.ndim(pred)))
    return lax.select_n(pred, y, x)


def _while_impl(*args, **params):
    return run_while(*args, **params)[0]


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    _, _, carry = _split_operands(avals, cond_nconsts, body_nconsts)
    check_same_types('while: the body must return the carry types', carry,
                     body_jaxpr.out_avals)
    return body_jaxpr.out_avals  # the carry's types, weakly typed where the body's result is


while_p.def_impl(_while_impl)
while_p.def_abstract_eval(_while_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts, body_consts, carry = _split_operands(primals, cond_nconsts, body_nconsts)
    _, body_consts_dot, carry_dot = _split_operands(tangents, cond_nconsts, body_nconsts)
    consts_nz = list(ad.nonzero_flags(body_consts_dot))
    carry_nz = fixed_point(
        lambda nz: ad.jvp_jaxpr(body_jaxpr, tuple(consts_nz + nz), (False,) * len(nz))[1],
        list(ad.nonzero_flags(carry_dot)))
    body_jvp, _ = ad.jvp_jaxpr(body_jaxpr, tuple(consts_nz + carry_nz), tuple(carry_nz))
    # body_jvp takes (consts, carry, const tangents, carry tangents); the loop wants consts
    # first, then the carry: (consts, const tangents, carry, carry tangents).
    n_consts, n_carry, n_const_dots = len(body_consts), len(carry), sum(consts_nz)
    order = [*range(n_consts), *range(n_consts + n_carry, n_consts + n_carry + n_const_dots),
             *range(n_consts, n_consts + n_carry),
             *range(n_consts + n_carry + n_const_dots, len(body_jvp.in_avals))]
    body_jvp = move_inputs(body_jvp, order)
    carry_dot_avals = [core.shaped_aval(c)
                       for c, nz in zip(carry, carry_nz) if nz]
    cond_jvp = insert_unused_inputs(cond_jaxpr, len(cond_jaxpr.in_avals), carry_dot_avals)
    consts_dot = ad.drop_zeros(body_consts_dot)
    init_dot = [ad.instantiate(t) for t, nz in zip(carry_dot, carry_nz) if nz]
    outs = while_p.bind(*cond_consts, *body_consts, *consts_dot, *carry, *init_dot,
                        cond_jaxpr=cond_jvp, body_jaxpr=body_jvp, cond_nconsts=cond_nconsts,
                        body_nconsts=n_consts + n_const_dots)
    carry_out, nonzero_dots = core.split_list(outs, n_carry)
    return carry_out, ad.fill_zeros(nonzero_dots, carry_nz, carry_out)


while_p.def_jvp(_while_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- vmap

def _while_batching(vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """As JAX batches a loop: a carry is batched where its initial value is or the body
    makes it so. A predicate that comes out batched batches every carry (at axis 0) and
    stays batched in the loop: its lowering loops while any example's holds and keeps the
    carry of an example whose predicate is false. Otherwise each batched carry takes its
    batch axis after the predicate's own axes (those of an inner ``vmap``)."""
    size = batching.axis_size_of(vals, dims)
    cond_consts, body_consts, init = _split_operands(vals, cond_nconsts, body_nconsts)
    cond_dims, body_dims, init_dims = _split_operands(dims, cond_nconsts, body_nconsts)
    cond_bat, body_bat, init_bat = _split_operands(
        [d is not batching.not_mapped for d in dims], cond_nconsts, body_nconsts)
    carry_bat, _, _ = batched_loop_body(body_jaxpr, size, body_bat, init_bat)
    _, (pred_bat,) = batching.batched_jaxpr(
        cond_jaxpr, size, tuple(0 if b else batching.not_mapped for b in cond_bat + carry_bat),
        False)
    if pred_bat:
        carry_dims, pred_dims = [0] * len(init), (0,)
    else:
        rank = cond_jaxpr.out_avals[0].ndim
        carry_dims = [rank if b else batching.not_mapped for b in carry_bat]
        pred_dims = (batching.not_mapped,)
    body_b = batching.batched_jaxpr_axes(body_jaxpr, size, (*body_dims, *carry_dims),
                                         tuple(carry_dims))
    cond_b = batching.batched_jaxpr_axes(cond_jaxpr, size, (*cond_dims, *carry_dims),
                                         pred_dims)
    init = [x if dst is batching.not_mapped else batching.move_batch_axis(size, d, dst, x)
            for x, d, dst in zip(init, init_dims, carry_dims)]
    outs = while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr=cond_b,
                        body_jaxpr=body_b, cond_nconsts=cond_nconsts,
                        body_nconsts=body_nconsts)
    return outs, carry_dims


while_p.def_batching(_while_batching)


# ----------------------------------------------------------------------------- partial eval

def split_known_loop(cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts, unknowns):
    """Split a loop with partly unknown operands.

    Returns (which operands count as unknown: a carry whose value the loop makes unknown
    counts too, which carries come out unknown, and the params of a loop over the known
    carries alone, or None when the predicate depends on unknown values and nothing can run).
    """
    cond_uk, body_uk, carry_uk = _split_operands(unknowns, cond_nconsts, body_nconsts)
    carry_uk = fixed_point(lambda uk: pe.partial_eval_jaxpr(body_jaxpr, body_uk + uk)[2],
                           list(carry_uk))
    operands_uk = cond_uk + body_uk + carry_uk
    cond_known, _, pred_uk, _ = pe.partial_eval_jaxpr(cond_jaxpr, cond_uk + carry_uk)
    if pred_uk[0]:
        return operands_uk, carry_uk, None
    body_known, _, _, _ = pe.partial_eval_jaxpr(body_jaxpr, body_uk + carry_uk, carry_uk)
    params = dict(cond_jaxpr=_first_outputs(cond_known, 1),
                  body_jaxpr=_first_outputs(body_known, carry_uk.count(False)),
                  cond_nconsts=cond_uk.count(False), body_nconsts=body_uk.count(False))
    return operands_uk, carry_uk, params


def _first_outputs(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    jaxpr = closed.jaxpr
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.eqns, jaxpr.outs[:n]),
                       closed.consts)


def _while_partial_eval(trace, tracers, **params):
    """Run the loop over the known carries now; stage the whole loop for the unknown ones
    (it recomputes the known part: the trip count is only known by running)."""
    unknowns = [not t.pval.is_known for t in tracers]
    operands_uk, carry_uk, known_params = split_known_loop(unknowns=unknowns, **params)
    staged = trace.stage(while_p, [trace.instantiate_const(t) for t in tracers], params,
                         params['body_jaxpr'].out_avals)
    if known_params is None:
        return staged
    known_in = [t.pval.const for t, uk in zip(tracers, operands_uk) if not uk]
    known_outs = while_p.bind(*known_in, **known_params)
    return pe.merge_lists(carry_uk, known_outs, [s for s, uk in zip(staged, carry_uk) if uk])


def _while_partial_eval_jaxpr(unknowns, eqn):
    operands_uk, carry_uk, known_params = split_known_loop(unknowns=unknowns, **eqn.params)
    if known_params is None:
        return None
    known_ins = [x for x, uk in zip(eqn.inputs, operands_uk) if not uk]
    known_outs, unknown_outs = pe.partition_list(carry_uk, eqn.out_binders)
    known_eqn = JaxprEqn(while_p, known_ins, known_params, known_outs, eqn.source_info)
    staged_outs = [v if uk else Var(v.aval) for v, uk in zip(eqn.out_binders, carry_uk)]
    unknown_eqn = JaxprEqn(while_p, eqn.inputs, eqn.params, staged_outs, eqn.source_info)
    # the staged loop reads every operand: each known one is a residual
    residuals = [x for x, uk in zip(eqn.inputs, unknowns) if not uk and isinstance(x, Var)]
    return known_eqn, unknown_eqn, carry_uk, residuals


pe.partial_eval_rules[while_p] = _while_partial_eval
pe.partial_eval_jaxpr_rules[while_p] = _while_partial_eval_jaxpr


# ----------------------------------------------------------------------------- dead code

def _while_dce(used_outputs, eqn):
    """Keep the carries that are used, that the predicate reads, or that a kept carry's
    update reads (a fixed point)."""
    p = eqn.params
    cond_jaxpr, body_jaxpr = p['cond_jaxpr'], p['body_jaxpr']
    cond_nconsts, body_nconsts = p['cond_nconsts'], p['body_nconsts']
    _, cond_used = pe.dce_closed_jaxpr(cond_jaxpr, [True])
    used_cond_consts, cond_carry = core.split_list(cond_used, cond_nconsts)

    def carries_read(used_carry):
        return pe.dce_closed_jaxpr(body_jaxpr, used_carry)[1][body_nconsts:]

    used_carry = fixed_point(carries_read, [a or b for a, b in zip(used_outputs, cond_carry)])
    cond, _ = pe.dce_closed_jaxpr(cond_jaxpr, [True], [False] * cond_nconsts + used_carry)
    body, body_used = pe.dce_closed_jaxpr(body_jaxpr, used_carry,
                                          [False] * body_nconsts + used_carry)
    used_body_consts = body_used[:body_nconsts]
    used_inputs = used_cond_consts + used_body_consts + used_carry
    return used_inputs, pe.pruned_eqn(eqn, used_inputs, used_carry, cond_jaxpr=cond,
                                      body_jaxpr=body, cond_nconsts=sum(used_cond_consts),
                                      body_nconsts=sum(used_body_consts))


pe.dce_rules[while_p] = _while_dce


def _while_transpose(cts, *args, **params):
    raise ValueError('reverse-mode differentiation (vjp, grad) of while_loop, or of fori_loop '
                     'with traced bounds, is not supported (JAX\'s ValueError): its trip count '
                     'is only known by running it. Use fori_loop with Python int bounds, or '
                     'scan, which are reverse-differentiable')


while_p.def_transpose(_while_transpose)


# ----------------------------------------------------------------------------- lowering

def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """``stablehlo.while`` carrying, as JAX lowers it, the ordered effects' token (when the
    body has one), then the values ``cond_fun`` and ``body_fun`` close over, then the
    carry: each region reads its own from the block's arguments, and the body passes them
    on unchanged."""
    if cond_jaxpr.ordered:
        raise NotImplementedError('while_loop: minijax does not support ordered effects '
                                  '(debug.print(..., ordered=True)) in cond_fun; move them '
                                  'to body_fun')
    module = ctx.module_context
    tokens = [module.token] * body_jaxpr.ordered
    pred_aval = cond_jaxpr.out_avals[0]
    types = [tensor_type(a) for a in (*[core.abstract_token] * len(tokens), *ctx.avals_in)]
    loop = hlo.WhileOp(types, [*tokens, *args])
    for region, closed, scope in [(loop.regions[0], cond_jaxpr, 'cond'),
                                  (loop.regions[1], body_jaxpr, 'body')]:
        block = region.blocks.append(*types)
        token, *values = block.arguments if tokens else [None, *block.arguments]
        cond_consts, body_consts, carry = _split_operands(values, cond_nconsts, body_nconsts)
        consts = cond_consts if scope == 'cond' else body_consts
        with ir.InsertionPoint(block), threading_token(module, token):
            outs = lower_closed_jaxpr(module, closed, [*consts, *carry], scope=f'while/{scope}')
            if scope == 'cond' and pred_aval.ndim:  # (a batched predicate: any example's)
                outs = [_any(module, outs[0], pred_aval)]
            if scope == 'body' and pred_aval.ndim:  # (an example whose loop ended keeps its)
                pred, = lower_closed_jaxpr(module, cond_jaxpr, [*cond_consts, *carry],
                                           scope='while/body_pred')
                outs = [_select_rows(pred, pred_aval, new, old, aval)
                        for new, old, aval in zip(outs, carry, body_jaxpr.out_avals)]
            if scope == 'body':
                outs = [*[module.token] * len(tokens), *cond_consts, *body_consts, *outs]
            hlo.ReturnOp(outs)
    results = list(loop.results)
    if tokens:
        module.token = results[0]
    return results[len(tokens) + cond_nconsts + body_nconsts:]


def _any(module, pred, pred_aval):
    """A batched predicate reduced by ``or`` over all its axes (``reduce_or``'s lowering)."""
    ctx = LoweringRuleContext(module, [pred_aval], [pred_aval.update(shape=())],
                              lax.reduce_or_p)
    return lowering_rules[lax.reduce_or_p](ctx, pred, axes=tuple(range(pred_aval.ndim)))


def _select_rows(pred, pred_aval, new, old, aval):
    """``new`` where the batched predicate holds, else ``old``, as JAX selects them."""
    shape = core.physical_aval(aval).shape
    mask = broadcast_in_dim(pred, core.ShapedArray(shape, np.dtype(bool)), range(pred_aval.ndim))
    return hlo.SelectOp(mask, new, old).result


register_lowering(while_p, _while_lowering)
