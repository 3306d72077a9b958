"""``scan``: a loop with a carry that also maps over leading axes, stacking its outputs.

``scan(f, init, xs)`` runs ``carry, y = f(carry, x)`` for each slice ``x`` of ``xs`` and
returns ``(carry, stacked ys)``. The body is a jaxpr taking (consts, carry, x slices) and
returning (carry, y slices). Its trip count is static, so unlike ``while_loop`` it can be
transposed, and reverse mode works. It lowers to ``stablehlo.while`` over an index, reading
slices with ``dynamic_slice`` and writing outputs with ``dynamic_update_slice``.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes, lax, tree_util
from minijax.array import Array
from minijax.control_flow.common import (batched_loop_body, fixed_point, move_inputs,
                                         settle_carry_types, trace_function, zeros)
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.transpose import (drop_zero_cts, instantiate_cts, is_undefined_primal,
                                            nonzero_cts, transposed_jaxpr)
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_closed_jaxpr
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lowering import lower_fun, register_lowering
from minijax.sharding import rules as sharding_rules

scan_p = Primitive('scan', multiple_results=True, eager_on_xla=True)
sharding_rules.register(sharding_rules.AS_TRACED, scan_p)  # its results: its jaxpr's types


# ----------------------------------------------------------------------------- the API

def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """``carry = init; for x in xs: carry, y = f(carry, x)``; returns ``(carry, stack(ys))``.

    ``xs`` is a pytree of arrays sharing their leading dimension (or None, with ``length``);
    ``reverse`` walks the slices from last to first, still stacking ys in xs order.
    ``unroll`` (iterations per loop trip in JAX) is a speed hint that does not change the
    results: minijax checks it and always emits the rolled loop; so is JAX's experimental
    ``_split_transpose``, which minijax accepts and ignores.
    """
    core.check_callable('scan', f=f)
    if not isinstance(unroll, (bool, int, float, np.integer, np.floating)):
        raise TypeError(f'scan: unroll must be a bool or a number, got {unroll!r}')
    if unroll < 0:
        raise ValueError('`unroll` must be a `bool` or a non-negative `int`.')
    init_flat, init_tree = tree_util.tree_flatten(init)
    xs_flat, xs_tree = tree_util.tree_flatten(xs)
    length = _scan_length(xs_flat, length)
    x_avals = [sharding_rules.row_type(core.get_aval(x)) for x in xs_flat]
    args_tree = tree_util.tuple_treedef(init_tree, xs_tree)
    ys_tree = []

    def trace_body(carry_avals):
        body, consts, out_tree = trace_function(f, args_tree, [*carry_avals, *x_avals])
        children = out_tree.child_treedefs
        if out_tree.node_type is None or out_tree.node_type.name != 'tuple' or \
                len(children) != 2 or children[0] != init_tree:
            raise TypeError(f'scan: f must return a pair (carry, y) with the carry shaped like '
                            f'{init_tree}, got {out_tree}')
        ys_tree[:] = [children[1]]
        return body, consts

    init_flat, body, consts = settle_carry_types('scan', init_flat, trace_body)
    carry, ys = _bind_forwarding(body, consts, init_flat, xs_flat, length, bool(reverse))
    return (tree_util.tree_unflatten(init_tree, carry),
            tree_util.tree_unflatten(ys_tree[0], ys))


def _bind_forwarding(body, consts, init, xs, length, reverse):
    """``scan_p`` bound as JAX's ``scan`` binds it, without what the body passes through
    unchanged: a carry the body returns as it got it is read-only, a const of the loop; a y
    that is the body's x is that x (not copied into a stack). Returns (carry, ys)."""
    num_consts, num_carry = len(consts), len(init)
    position = {v: k for k, v in enumerate(body.jaxpr.invars)}
    forwarded = [position.get(v) if isinstance(v, Var) else None for v in body.jaxpr.outs]
    to_const = [f == num_consts + i for i, f in enumerate(forwarded[:num_carry])]
    from_xs = [f - num_consts - num_carry if f is not None and f >= num_consts + num_carry
               and isinstance(xs[f - num_consts - num_carry], (core.Tracer, Array)) else None
               for f in forwarded[num_carry:]]
    if any(to_const) or any(f is not None for f in from_xs):
        invars = body.jaxpr.invars
        moved = [v for v, m in zip(invars[num_consts:], to_const) if m]
        kept = [v for v, m in zip(invars[num_consts:], to_const + [False] * len(xs)) if not m]
        outs = [v for v, keep in zip(body.jaxpr.outs, [not m for m in to_const] +
                                     [f is None for f in from_xs]) if keep]
        body = ClosedJaxpr(Jaxpr(body.jaxpr.constvars, [*moved, *invars[:num_consts], *kept],
                                 body.jaxpr.eqns, outs), body.consts)
        consts = [*(c for c, m in zip(init, to_const) if m), *consts]
        init = [c for c, m in zip(init, to_const) if not m]
    outs = scan_p.bind(*consts, *init, *xs, jaxpr=body, num_consts=len(consts),
                       num_carry=len(init), length=length, reverse=reverse)
    carry, ys = core.split_list(outs, len(init))
    ys = iter(ys)
    ys = [next(ys) if f is None else xs[f] for f in from_xs]
    moved = iter(consts[:to_const.count(True)])
    carry = iter(carry)
    return [next(moved) if m else next(carry) for m in to_const], ys


def _scan_length(xs_flat, length):
    lengths = set()
    for x in xs_flat:
        aval = core.get_aval(x)
        if aval.ndim == 0:
            raise ValueError(f'scan: xs must be arrays with a leading axis to scan over, got '
                             f'{aval.str_short()}')
        lengths.add(aval.shape[0])
    if length is not None:
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
            raise ValueError(f'scan: length must be a non-negative integer, got {length!r}')
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError('scan: needs xs or length' if not lengths else
                         f'scan: xs leading dimensions and length disagree: {sorted(lengths)}')
    return lengths.pop()


# ----------------------------------------------------------------------------- evaluation

def _split_operands(args, num_consts, num_carry):
    consts, rest = core.split_list(args, num_consts)
    carry, xs = core.split_list(rest, num_carry)
    return consts, carry, xs


def _scan_impl(*args, jaxpr, num_consts, num_carry, length, reverse):
    consts, carry, xs = _split_operands(args, num_consts, num_carry)
    xs = [np.asarray(x) for x in xs]
    ys = []
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = eval_closed_jaxpr(jaxpr, [*consts, *carry, *(x[i] for x in xs)])
        carry, y = core.split_list(outs, num_carry)
        ys.append([np.asarray(v) for v in y])
    if reverse:
        ys.reverse()
    y_avals = jaxpr.out_avals[num_carry:]
    stacked = [np.stack(column) if length else np.zeros((0, *a.shape), a.dtype)
               for column, a in zip(zip(*ys), y_avals)] if ys else \
        [np.zeros((0, *a.shape), a.dtype) for a in y_avals]
    return [*carry, *stacked]


def _scan_abstract_eval(*avals, jaxpr, num_consts, num_carry, length, reverse):
    consts, carry, xs = _split_operands(avals, num_consts, num_carry)
    expected = [*consts, *carry, *map(sharding_rules.row_type, xs)]
    for i, (given, want) in enumerate(zip(expected, jaxpr.in_avals, strict=True)):
        if given.shape != want.shape or given.dtype != want.dtype:
            raise TypeError(f'scan: operand {i} has type {given.str_short()} but the body '
                            f'expects {want.str_short()}')
    carry_out, ys = core.split_list(jaxpr.out_avals, num_carry)  # weak types as the body's
    return [*carry_out, *(sharding_rules.stacked_type(y, length) for y in ys)]


scan_p.def_impl(_scan_impl)
scan_p.def_abstract_eval(_scan_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _group_order(sizes, num_groups_a):
    """Input order interleaving (a0, a1, a2) and (b0, b1, b2) into (a0, b0, a1, b1, a2, b2),
    where ``sizes`` lists the sizes of a0, a1, a2, b0, b1, b2."""
    starts = np.cumsum([0, *sizes]).tolist()
    order = []
    for g in range(num_groups_a):
        for group in (g, g + num_groups_a):
            order.extend(range(starts[group], starts[group + 1]))
    return order


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse):
    consts, carry, xs = _split_operands(primals, num_consts, num_carry)
    consts_dot, carry_dot, xs_dot = _split_operands(tangents, num_consts, num_carry)
    nonzero = lambda ts: list(ad.nonzero_flags(ts))  # noqa: E731
    consts_nz, xs_nz = nonzero(consts_dot), nonzero(xs_dot)
    num_ys = len(jaxpr.out_avals) - num_carry
    carry_nz = fixed_point(
        lambda nz: ad.jvp_jaxpr(jaxpr, tuple(consts_nz + nz + xs_nz),
                                (False,) * (num_carry + num_ys))[1][:num_carry],
        nonzero(carry_dot))
    body, out_nz = ad.jvp_jaxpr(jaxpr, tuple(consts_nz + carry_nz + xs_nz),
                                tuple(carry_nz) + (False,) * num_ys)
    ys_nz = list(out_nz[num_carry:])
    # jvp_jaxpr's inputs are (consts, carry, xs, their nonzero tangents): regroup them as
    # (consts, const tangents, carry, carry tangents, xs, x tangents); likewise the outputs.
    body = move_inputs(body, _group_order(
        [len(consts), num_carry, len(xs), sum(consts_nz), sum(carry_nz), sum(xs_nz)], 3))
    body = _move_outputs(body, _group_order([num_carry, num_ys, sum(carry_nz), sum(ys_nz)], 2))
    consts_dot = ad.drop_zeros(consts_dot)
    carry_dot = [ad.instantiate(t) for t, nz in zip(carry_dot, carry_nz) if nz]
    xs_dot = ad.drop_zeros(xs_dot)
    outs = scan_p.bind(*consts, *consts_dot, *carry, *carry_dot, *xs, *xs_dot, jaxpr=body,
                       num_consts=len(consts) + len(consts_dot),
                       num_carry=num_carry + len(carry_dot), length=length, reverse=reverse)
    carry_out, carry_dot_out, ys, ys_dot = _split_sizes(
        outs, [num_carry, len(carry_dot), num_ys])
    return ([*carry_out, *ys],
            [*ad.fill_zeros(carry_dot_out, carry_nz, carry_out),
             *ad.fill_zeros(ys_dot, ys_nz, ys)])


def _split_sizes(xs, sizes):
    parts = []
    for n in sizes:
        part, xs = core.split_list(xs, n)
        parts.append(part)
    return [*parts, xs]


def _move_outputs(closed: ClosedJaxpr, order) -> ClosedJaxpr:
    jaxpr = closed.jaxpr
    outs = [jaxpr.outs[i] for i in order]
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.eqns, outs), closed.consts)


scan_p.def_jvp(_scan_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- vmap

def _scan_batching(vals, dims, *, jaxpr, num_consts, num_carry, length, reverse):
    """As JAX batches a scan: a carry is batched where its initial value is or the body
    makes it so (a fixed point), and a y where the body makes it so; consts and carries at
    axis 0, xs and ys at axis 1 (the scanned axis first). What no batched value reaches,
    a loop counter say, stays unbatched."""
    size = batching.axis_size_of(vals, dims)
    consts, carry, xs = _split_operands(vals, num_consts, num_carry)
    consts_dims, carry_dims, xs_dims = _split_operands(dims, num_consts, num_carry)
    const_bat, init_bat, xs_bat = _split_operands(
        [d is not batching.not_mapped for d in dims], num_consts, num_carry)
    carry_bat, body, out_bat = batched_loop_body(jaxpr, size, const_bat, init_bat, xs_bat)
    consts = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
              for x, d in zip(consts, consts_dims)]
    carry = [batching.move_batch_axis(size, d, 0, x) if b else x
             for x, d, b in zip(carry, carry_dims, carry_bat)]
    xs = [x if d is batching.not_mapped else batching.moveaxis(x, d, 1)
          for x, d in zip(xs, xs_dims)]
    outs = scan_p.bind(*consts, *carry, *xs, jaxpr=body, num_consts=num_consts,
                       num_carry=num_carry, length=length, reverse=reverse)
    return outs, [(0 if k < num_carry else 1) if b else batching.not_mapped
                  for k, b in enumerate(out_bat)]


scan_p.def_batching(_scan_batching)


# ----------------------------------------------------------------------------- partial eval

def _split_body(jaxpr, num_consts, num_carry, unknowns):
    """Split the body: the known scan also stacks the residuals the unknown one reads.

    A residual that is a known const of the body (a weight matrix) or a known slice of xs
    is not stacked: the unknown scan reads that operand itself, as a const or as an xs, so
    a loop-invariant value is not copied once per iteration nor an xs stacked again.

    Returns (unknown operands, unknown carries, known body, unknown body taking (consts,
    forwarded consts, carry, residual slices, forwarded xs, xs), where each residual comes
    from (``_RESIDUAL_SOURCES``), unknown outputs).
    """
    consts_uk, carry_uk, xs_uk = _split_operands(unknowns, num_consts, num_carry)
    carry_uk = fixed_point(
        lambda uk: pe.partial_eval_jaxpr(jaxpr, consts_uk + uk + xs_uk)[2][:num_carry],
        list(carry_uk))
    num_ys = len(jaxpr.out_avals) - num_carry
    known, unknown, out_uk, num_res = pe.partial_eval_jaxpr(
        jaxpr, consts_uk + carry_uk + xs_uk, carry_uk + [False] * num_ys)
    sources = _residual_sources(known, num_res, consts_uk.count(False), carry_uk.count(False))
    n_known_outs = len(known.out_avals) - num_res
    known = _move_outputs(known, [*range(n_known_outs), *(
        n_known_outs + i for i, (kind, _) in enumerate(sources) if kind == 'stacked')])
    # the unknown body takes (residuals, consts, carry, xs): put each residual in its place
    n_uk_consts, n_uk_carry = consts_uk.count(True), carry_uk.count(True)
    of_kind = {kind: [i for i, (k, _) in enumerate(sources) if k == kind]
               for kind in _RESIDUAL_SOURCES}
    carry_start = num_res + n_uk_consts
    xs_start = carry_start + n_uk_carry
    order = [*range(num_res, carry_start), *of_kind['const'], *range(carry_start, xs_start),
             *of_kind['stacked'], *of_kind['xs'], *range(xs_start, len(unknown.in_avals))]
    unknown = move_inputs(unknown, order)
    return consts_uk + carry_uk + xs_uk, carry_uk, known, unknown, sources, out_uk


#: Where a residual of the known body comes from: one of its known consts or known xs (read
#: by the unknown scan from that operand), or computed in the loop and stacked.
_RESIDUAL_SOURCES = ('const', 'stacked', 'xs')


def _residual_sources(known, num_res, num_known_consts, num_known_carry):
    """(kind, index) per residual: ('const', j) / ('xs', j) for the known body's j-th const
    or xs input, ('stacked', None) for a value computed in the loop."""
    position = {v: i for i, v in enumerate(known.jaxpr.invars)}
    sources = []
    for out in known.jaxpr.outs[len(known.out_avals) - num_res:]:
        i = position.get(out) if isinstance(out, Var) else None
        if i is not None and i < num_known_consts:
            sources.append(('const', i))
        elif i is not None and i >= num_known_consts + num_known_carry:
            sources.append(('xs', i - num_known_consts - num_known_carry))
        else:
            sources.append(('stacked', None))
    return sources


def _forwarded(sources, kind, operands):
    """The known operands the unknown scan reads for the residuals of ``kind``."""
    return [operands[j] for k, j in sources if k == kind]


def _scan_partial_eval(trace, tracers, *, jaxpr, num_consts, num_carry, length, reverse):
    unknowns = [not t.pval.is_known for t in tracers]
    operands_uk, carry_uk, known, unknown, sources, out_uk = _split_body(
        jaxpr, num_consts, num_carry, unknowns)
    consts_uk, _, _ = _split_operands(operands_uk, num_consts, num_carry)
    known_in = [t.pval.const for t, uk in zip(tracers, operands_uk) if not uk]
    n_known_consts, n_known_carry = consts_uk.count(False), carry_uk.count(False)
    known_outs = scan_p.bind(*known_in, jaxpr=known, num_consts=n_known_consts,
                             num_carry=n_known_carry, length=length, reverse=reverse)
    num_stacked = sum(kind == 'stacked' for kind, _ in sources)
    known_outs, residuals = core.split_list(known_outs, len(known_outs) - num_stacked)
    uk_tracers = [trace.instantiate_const(t) for t, uk in zip(tracers, operands_uk) if uk]
    uk_consts, uk_carry, uk_xs = _split_operands(uk_tracers, consts_uk.count(True),
                                                  carry_uk.count(True))
    known_consts, _, known_xs = _split_operands(
        [t for t, uk in zip(tracers, operands_uk) if not uk], n_known_consts, n_known_carry)
    fwd_consts, fwd_xs = ([trace.instantiate_const(t) for t in _forwarded(sources, kind, ts)]
                          for kind, ts in (('const', known_consts), ('xs', known_xs)))
    res_tracers = [trace.instantiate_const(core.full_raise(trace, r)) for r in residuals]
    params = dict(jaxpr=unknown, num_consts=len(uk_consts) + len(fwd_consts),
                  num_carry=len(uk_carry), length=length, reverse=reverse)
    staged_in = [*uk_consts, *fwd_consts, *uk_carry, *res_tracers, *fwd_xs, *uk_xs]
    avals = _scan_abstract_eval(*(t.aval for t in staged_in), **params)
    unknown_outs = trace.stage(scan_p, staged_in, params, avals)
    return pe.merge_lists(out_uk, known_outs, unknown_outs)


def _scan_partial_eval_jaxpr(unknowns, eqn):
    p = eqn.params
    num_consts, num_carry = p['num_consts'], p['num_carry']
    operands_uk, carry_uk, known, unknown, sources, out_uk = _split_body(
        p['jaxpr'], num_consts, num_carry, unknowns)
    consts_uk, _, _ = _split_operands(operands_uk, num_consts, num_carry)
    known_ins, unknown_ins = pe.partition_list(operands_uk, eqn.inputs)
    known_outs, unknown_outs = pe.partition_list(out_uk, eqn.out_binders)
    num_stacked = sum(kind == 'stacked' for kind, _ in sources)
    res_avals = known.out_avals[len(known.out_avals) - num_stacked:]
    residuals = [Var(ShapedArray((p['length'], *a.shape), a.dtype)) for a in res_avals]
    known_eqn = JaxprEqn(scan_p, known_ins, dict(p, jaxpr=known,
                                                 num_consts=consts_uk.count(False),
                                                 num_carry=carry_uk.count(False)),
                         known_outs + residuals, eqn.source_info)
    known_consts, _, known_xs = _split_operands(known_ins, consts_uk.count(False),
                                                carry_uk.count(False))
    fwd_consts = _forwarded(sources, 'const', known_consts)
    fwd_xs = _forwarded(sources, 'xs', known_xs)
    uk_consts, uk_carry, uk_xs = _split_operands(unknown_ins, consts_uk.count(True),
                                                  carry_uk.count(True))
    unknown_eqn = JaxprEqn(scan_p, [*uk_consts, *fwd_consts, *uk_carry, *residuals, *fwd_xs,
                                    *uk_xs],
                           dict(p, jaxpr=unknown, num_consts=len(uk_consts) + len(fwd_consts),
                                num_carry=len(uk_carry)),
                           unknown_outs, eqn.source_info)
    # known operands that the staged scan reads (an init made unknown by the loop, a
    # forwarded const or xs)
    forwarded = [x for x, uk, op_uk in zip(eqn.inputs, unknowns, operands_uk)
                 if op_uk and not uk and isinstance(x, Var)]
    forwarded += [x for x in fwd_consts + fwd_xs if isinstance(x, Var)]
    return known_eqn, unknown_eqn, out_uk, residuals + list(dict.fromkeys(forwarded))


pe.partial_eval_rules[scan_p] = _scan_partial_eval
pe.partial_eval_jaxpr_rules[scan_p] = _scan_partial_eval_jaxpr


# ----------------------------------------------------------------------------- dead code

def _scan_dce(used_outputs, eqn):
    """Keep the ys that are used and the carries they need, at every iteration: a carry
    is live if its final value is used or a live output reads it (a fixed point)."""
    p = eqn.params
    jaxpr, num_consts, num_carry = p['jaxpr'], p['num_consts'], p['num_carry']
    used_ys = list(used_outputs[num_carry:])

    def carries_read(used_carry):
        _, used_in = pe.dce_closed_jaxpr(jaxpr, used_carry + used_ys)
        return _split_operands(used_in, num_consts, num_carry)[1]

    used_carry = fixed_point(carries_read, list(used_outputs[:num_carry]))
    num_xs = len(jaxpr.in_avals) - num_consts - num_carry
    body, used_inputs = pe.dce_closed_jaxpr(
        jaxpr, used_carry + used_ys, [False] * num_consts + used_carry + [False] * num_xs)
    return used_inputs, pe.pruned_eqn(eqn, used_inputs, used_carry + used_ys, jaxpr=body,
                                      num_consts=sum(used_inputs[:num_consts]),
                                      num_carry=sum(used_carry))


pe.dce_rules[scan_p] = _scan_dce


# ----------------------------------------------------------------------------- transpose

def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse):
    """Run the transposed body backwards over the slices.

    Linear consts accumulate their cotangents in the carry; residual consts and residual
    xs are read as before; the cotangents of linear xs come out as stacked outputs.
    """
    consts, carry, xs = _split_operands(args, num_consts, num_carry)
    # The body is linear in the whole carry, even where an initial value is a known constant
    # (a zero tangent made concrete): every carry is transposed, known ones get no cotangent.
    consts_lin = [is_undefined_primal(c) for c in consts]
    xs_lin = [is_undefined_primal(x) for x in xs]
    res_consts = [c for c, lin in zip(consts, consts_lin) if not lin]
    res_xs = [x for x, lin in zip(xs, xs_lin) if not lin]
    lin_const_avals = [c.aval for c, lin in zip(consts, consts_lin) if lin]
    # Carry cotangents flow around the loop, so they are arrays; a ys cotangent that is a
    # symbolic zero stays one, and the body's work for it is skipped.
    ct_carry, ct_ys = core.split_list(cts, num_carry)
    ct_carry = instantiate_cts(ct_carry, [_aval(c) for c in carry])
    ys_nonzero = nonzero_cts(ct_ys)
    ct_ys = drop_zero_cts(ct_ys)
    body_t = transposed_jaxpr(jaxpr, tuple(consts_lin + [True] * num_carry + xs_lin),
                              (True,) * num_carry + ys_nonzero)

    def transposed_body(*args):  # (the xs in JAX's order: ys' cotangents, then residuals)
        res_c, acc, ct_c, ct_y, res_x = _split_sizes(
            args, [len(res_consts), len(lin_const_avals), num_carry, len(ct_ys)])
        cts_in = eval_closed_jaxpr(body_t, [*res_c, *res_x, *ct_c, *ct_y])
        ct_consts, ct_carry_in, ct_xs = _split_sizes(cts_in, [len(acc), num_carry])
        return [*map(lax.add, acc, ct_consts), *ct_carry_in, *ct_xs]

    x_aval = lambda x: sharding_rules.row_type(core.get_aval(x))  # noqa: E731
    in_avals = [*(core.shaped_aval(c) for c in res_consts),
                *lin_const_avals, *(_aval(c) for c in carry),
                *map(x_aval, ct_ys), *map(x_aval, res_xs)]
    body, _ = trace_to_jaxpr(transposed_body, in_avals)
    outs = scan_p.bind(*res_consts, *map(zeros, lin_const_avals), *ct_carry, *ct_ys, *res_xs,
                       jaxpr=body, num_consts=len(res_consts),
                       num_carry=len(lin_const_avals) + num_carry, length=length,
                       reverse=not reverse)
    ct_consts, ct_init, ct_xs = _split_sizes(outs, [len(lin_const_avals), num_carry])
    ct_consts_it, ct_xs_it = iter(ct_consts), iter(ct_xs)
    return [*(next(ct_consts_it) if lin else None for lin in consts_lin),
            *(ct if is_undefined_primal(c) else None for c, ct in zip(carry, ct_init)),
            *(next(ct_xs_it) if lin else None for lin in xs_lin)]


def _aval(x):
    return x.aval if is_undefined_primal(x) else core.shaped_aval(x)


scan_p.def_transpose(_scan_transpose)


# ----------------------------------------------------------------------------- lowering

def _scan_as_while(*args, jaxpr, num_consts, num_carry, length, reverse):
    """``scan`` as JAX lowers it, written in lax ops and traced where it lowers
    (``lower_fun``): a ``while_loop`` over (step, carry, stacked ys) whose body reads each x
    with ``dynamic_index_in_dim``, runs ``jaxpr`` as a private function (``closed_call``)
    and writes each y with ``dynamic_update_index_in_dim``; the consts and xs it closes over
    ride in the loop's carry. A reverse scan visits the steps from the last."""
    from minijax.control_flow.while_loop import while_loop  # (a sibling: lowered last)
    from minijax.xla_call import xla_call  # (nested jits are a layer above control flow)
    consts, carry, xs = _split_operands(args, num_consts, num_carry)
    ys = [_empty_rows(length, y) for y in jaxpr.out_avals[num_carry:]]
    if length == 0:  # the loop never runs; reading a row of an empty xs is not even valid
        return [*carry, *ys]

    def body(loop):
        step, carry, ys = loop
        i = length - step - 1 if reverse else step
        x = [lax.dynamic_index_in_dim(x, i, keepdims=False, allow_negative_indices=False)
             for x in xs]
        carry, y = core.split_list(xla_call(*consts, *carry, *x, jaxpr=jaxpr,
                                            name='closed_call'), num_carry)
        ys = [lax.dynamic_update_index_in_dim(stack, row, i, 0, allow_negative_indices=False)
              for stack, row in zip(ys, y)]
        return step + 1, carry, ys

    _, carry, ys = while_loop(lambda loop: loop[0] < length, body, (np.int64(0), carry, ys))
    return [*carry, *ys]


def _empty_rows(length, aval):
    """``length`` rows of ``aval``'s shape to write the ys into: zeros broadcast, as JAX
    makes them (a key's zero words, broadcast, then wrapped)."""
    if not dtypes.is_key(aval.dtype):
        return lax.broadcast_in_dim(np.zeros((), aval.dtype), (length, *aval.shape), ())
    from minijax import prng  # (keys are built on control flow)
    words = core.physical_aval(aval)
    rows = lax.broadcast_in_dim(np.zeros(words.shape[aval.ndim:], words.dtype),
                                (length, *words.shape), range(1 + aval.ndim, 1 + words.ndim))
    return prng.random_wrap(rows, impl=aval.dtype.impl)


register_lowering(scan_p, lower_fun(_scan_as_while, multiple_results=True))

