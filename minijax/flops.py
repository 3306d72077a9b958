"""``flops``: counting a program's floating-point operations without running it.

A transformation as an interpreter over a jaxpr (the Mini-JAX FLOPS lesson): trace the
function to a jaxpr, then walk the equations summing a per-primitive cost. The costs follow
XLA's ``cost_analysis()`` so the two can be compared: one flop per element for elementwise
arithmetic, comparisons, selects and conversions; none for transcendental functions (XLA
counts those apart) or for ops that only move data; a reduction of n elements to m costs
n - m; ``dot_general`` costs 2 per multiply-add. Control flow is followed: ``xla_call``
into its jaxpr, ``cond`` takes its most expensive branch, ``scan`` multiplies its body by
its length and ``while_loop`` by its trip count, when that does not depend on the inputs.
"""
from __future__ import annotations

import math

import numpy as np

from minijax import core, lax
from minijax.control_flow import cond_p, scan_p, while_p
from minijax.control_flow.while_loop import run_while, split_known_loop
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, Lit, Var
from minijax.ir.tracing import make_jaxpr, trace_to_jaxpr
from minijax.xla_call import xla_call_p

#: primitive -> rule(eqn, known) giving the flops of one equation; ``known`` maps the jaxpr
#: variables whose values do not depend on the inputs to those values.
flops_rules = core.RuleTable('flops', 'minijax.flops.flops_rules[{p}_p] = ...')


def flops(f):
    """``flops(f)(*args)``: the floating-point operations ``f`` performs on such arguments.

    Arguments may be arrays, scalars or ``ShapeDtypeStruct``: only their types are used.
    """
    def count(*args):
        closed = make_jaxpr(f)(*args)
        return closed_jaxpr_flops(closed)
    return count


def closed_jaxpr_flops(closed: ClosedJaxpr, known_inputs=None) -> int:
    known = dict(zip(closed.jaxpr.constvars, closed.consts))
    known.update(known_inputs or {})
    return jaxpr_flops(closed.jaxpr, known)


def jaxpr_flops(jaxpr: Jaxpr, known: dict) -> int:
    """The flops of ``jaxpr``; ``known`` holds variables with input-independent values."""
    known = dict(known)
    total = 0
    for eqn in jaxpr.eqns:
        total += flops_rules[eqn.primitive](eqn, known)
        _fold_constants(eqn, known)
    return total


def _fold_constants(eqn, known):
    """Record the outputs of an equation all of whose inputs are known (e.g. loop bounds)."""
    if all(isinstance(x, Lit) or x in known for x in eqn.inputs):
        values = [x.val if isinstance(x, Lit) else known[x] for x in eqn.inputs]
        outs = eqn.primitive.bind(*values, **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        known.update(zip(eqn.out_binders, outs))


def _size(aval) -> int:
    return math.prod(aval.shape)


def _per_output_element(eqn, known):
    return sum(_size(v.aval) for v in eqn.out_binders)


def _free(eqn, known):
    return 0


def _reduction(eqn, known):
    return _size(eqn.inputs[0].aval) - _size(eqn.out_binders[0].aval)


def _dot_general(eqn, known):
    (lhs_contract, _), _ = eqn.params['dimension_numbers']
    contracted = math.prod(eqn.inputs[0].aval.shape[d] for d in lhs_contract)
    return 2 * _size(eqn.out_binders[0].aval) * contracted


def _inner_known(closed, inputs, known):
    """The known values of a sub-jaxpr's inputs, given those of the outer equation."""
    return {v: known[x] if isinstance(x, Var) else x.val
            for v, x in zip(closed.jaxpr.invars, inputs)
            if isinstance(x, Lit) or x in known}


def _xla_call(eqn, known):
    closed = eqn.params['jaxpr']
    return closed_jaxpr_flops(closed, _inner_known(closed, eqn.inputs, known))


def _cond(eqn, known):
    return max(closed_jaxpr_flops(b, _inner_known(b, eqn.inputs[1:], known))
               for b in eqn.params['branches'])


def _scan(eqn, known):
    return eqn.params['length'] * closed_jaxpr_flops(eqn.params['jaxpr'])


def _while(eqn, known):
    unknowns = [not (isinstance(x, Lit) or x in known) for x in eqn.inputs]
    operands_uk, _, known_loop = split_known_loop(unknowns=unknowns, **eqn.params)
    if known_loop is None:
        raise ValueError('flops: the trip count of a while_loop depends on the inputs, so its '
                         'cost is unknown without running it')
    operands = [x.val if isinstance(x, Lit) else known[x]
                for x, uk in zip(eqn.inputs, operands_uk) if not uk]
    _, trips = run_while(*operands, **known_loop)
    p = eqn.params
    return (trips * closed_jaxpr_flops(p['body_jaxpr']) +
            (trips + 1) * closed_jaxpr_flops(p['cond_jaxpr']))


def _sort(eqn, known):
    return lax.sorting.sort_flops(_size(eqn.inputs[0].aval))


def _cumulative(eqn, known):
    return lax.cumulative.cumulative_flops(eqn)


def _valid_window_pairs(n_in, window, stride, padding, base_dilation, window_dilation, n_out):
    """The (output position, window offset) pairs along one axis that land on an element of
    the operand, not on padding or a dilation hole: XLA counts only those."""
    lo, _ = padding
    place = (np.arange(n_out)[:, None] * stride + np.arange(window)[None, :] * window_dilation
             - lo)
    return int(np.sum((place >= 0) & (place < (n_in - 1) * base_dilation + 1)
                      & (place % base_dilation == 0)))


def _conv_general_dilated(eqn, known):
    """2 per multiply-add: per output element, one per input feature of its group and
    kernel offset that meets the operand (XLA skips padding and holes)."""
    p = eqn.params
    lhs_spec, rhs_spec, out_spec = p['dimension_numbers']
    lhs, rhs, out = (v.aval.shape for v in (*eqn.inputs, eqn.out_binders[0]))
    pairs = math.prod(
        _valid_window_pairs(lhs[a], rhs[k], *axis_params, out[o])
        for a, k, o, *axis_params in zip(lhs_spec[2:], rhs_spec[2:], out_spec[2:],
                                         p['window_strides'], p['padding'], p['lhs_dilation'],
                                         p['rhs_dilation']))
    return 2 * out[out_spec[0]] * out[out_spec[1]] * rhs[rhs_spec[1]] * pairs


def _reduce_window(eqn, known):
    """One combine per window element but the first, padding included (as XLA counts)."""
    window = math.prod(eqn.params['window_dimensions'])
    return _size(eqn.out_binders[0].aval) * (window - 1)


def _scatter(eqn, known):
    """One combining operation per update element; none for a plain set."""
    return 0 if eqn.primitive is lax.scatter_p else _size(eqn.inputs[2].aval)


def _expansion(eqn, known):
    """erf and erfc lower to an expansion in other ops (``minijax.lax.special``): its flops."""
    expansion = lax.special.EXPANSIONS[eqn.primitive]
    closed, _ = trace_to_jaxpr(lambda x: [expansion(x)], [eqn.inputs[0].aval])
    return closed_jaxpr_flops(closed)


_ELEMENTWISE = [lax.add_p, lax.sub_p, lax.mul_p, lax.div_p, lax.max_p, lax.min_p, lax.neg_p,
                lax.abs_p, lax.sign_p, lax.greater_p, lax.less_p, lax.eq_p, lax.ne_p, lax.ge_p,
                lax.le_p, lax.select_n_p, lax.convert_element_type_p, lax.integer_pow_p,
                lax.bitcast_convert_type_p,
                lax.and_p, lax.or_p, lax.xor_p, lax.not_p, lax.shift_left_p,
                lax.shift_right_logical_p, lax.shift_right_arithmetic_p,
                lax.population_count_p, lax.clz_p, lax.rem_p]
_TRANSCENDENTAL = [lax.sin_p, lax.cos_p, lax.exp_p, lax.log_p, lax.tanh_p, lax.logistic_p,
                   lax.sqrt_p, lax.rsqrt_p, lax.pow_p, lax.log1p_p, lax.tan_p, lax.expm1_p,
                   lax.cbrt_p, lax.atan2_p]
_DATA_MOVEMENT = [lax.broadcast_in_dim_p, lax.reshape_p, lax.transpose_p, lax.concatenate_p,
                  lax.slice_p, lax.dynamic_slice_p, lax.dynamic_update_slice_p, lax.pad_p,
                  lax.iota_p, lax.gradients.stop_gradient_p, lax.rev_p, lax.gather_p]
_REDUCTIONS = [lax.reduce_sum_p, lax.reduce_max_p, lax.reduce_min_p, lax.argmax_p, lax.argmin_p]

for _prims, _rule in [(_ELEMENTWISE, _per_output_element), (_TRANSCENDENTAL, _free),
                      (_DATA_MOVEMENT, _free), (_REDUCTIONS, _reduction)]:
    flops_rules.update(dict.fromkeys(_prims, _rule))
flops_rules.update(dict.fromkeys([lax.reduce_window_sum_p, lax.reduce_window_max_p,
                                  lax.reduce_window_min_p], _reduce_window))
flops_rules.update({lax.conv_general_dilated_p: _conv_general_dilated})
flops_rules.update({lax.dot_general_p: _dot_general, xla_call_p: _xla_call, cond_p: _cond,
                    scan_p: _scan, while_p: _while, lax.erf_p: _expansion,
                    lax.erfc_p: _expansion, lax.sort_p: _sort})
flops_rules.update(dict.fromkeys([lax.scatter_add_p, lax.scatter_mul_p, lax.scatter_min_p,
                                  lax.scatter_max_p, lax.scatter_p], _scatter))
flops_rules.update(dict.fromkeys([lax.cumsum_p, lax.cumprod_p, lax.cummax_p, lax.cummin_p,
                                  lax.cumlogsumexp_p], _cumulative))
