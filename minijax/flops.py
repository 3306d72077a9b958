"""``flops``: counting a program's floating-point operations, from its types or by running it.

A transformation as an interpreter over a jaxpr (the Mini-JAX FLOPS lesson): trace the
function to a jaxpr, then walk the equations summing a per-primitive cost. The costs follow
XLA's ``cost_analysis()`` so the two can be compared: one flop per element for elementwise
arithmetic, comparisons, selects and conversions; none for transcendental functions (XLA
counts those apart) or for ops that only move data; a reduction of n elements to m costs
n - m; ``dot_general`` costs 2 per multiply-add. Control flow is followed: ``xla_call``
into its jaxpr, ``cond`` takes the branch its index picks when the index is known and its
most expensive branch otherwise, ``scan`` multiplies its body by its length and
``while_loop`` by its trip count, which must be known.

Counting by running applies the same rules in a trace that runs ``f`` on its arguments, as
Mini-JAX's FLOPS transformation does: Python control flow on values works, and every operand
of a top-level equation is known, so a ``cond`` counts the branch taken and a ``while_loop``
the trips it runs. Inside a loop body the carry is still unknown. ``flops(f)`` runs only as
much as needed: given array values, it counts by running where the count from types cannot
be known (Python control flow on values, a trip count that depends on the inputs);
``flops(f, concrete=True)`` always runs.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from minijax import core, errors, lax, tree_util
from minijax.control_flow import (composite_p, cond_p, linear_solve_p, platform_index_p,
                                  scan_p, while_p)
from minijax.control_flow.while_loop import run_while, split_known_loop
from minijax.lax.fft import fft_flops
from minijax.lax.ragged_dot import ragged_dot_general_expansion
from minijax.lax.scaled_dot import scaled_dot_decomposition
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Lit, Var, abstract_eval_eqn
from minijax.ir.tracing import make_jaxpr, trace_to_jaxpr
from minijax.xla_call import xla_call_p

#: primitive -> rule(eqn, known) giving the flops of one equation; ``known`` maps the jaxpr
#: variables whose values do not depend on the inputs to those values.
flops_rules = core.RuleTable('flops', 'minijax.flops.flops_rules[{p}_p] = ...')


class UnknownCountError(ValueError):
    """The count depends on values that the types do not give (a while_loop's trip count)."""


#: What tracing or counting from types raises where the count needs the arguments' values.
_NEEDS_VALUES = (errors.ConcretizationTypeError, errors.TracerIntegerConversionError,
                 errors.NonConcreteBooleanIndexError, UnknownCountError)


def flops(f, concrete=False):
    """``flops(f)(*args)``: the floating-point operations ``f`` performs on such arguments.

    Arguments may be arrays, scalars or ``ShapeDtypeStruct``: the count is that of ``f``'s
    jaxpr, from the types alone where it can be. Where it cannot (Python control flow on
    values, a ``while_loop`` or ``fori_loop`` whose trip count depends on the inputs) and
    the arguments are values, ``f`` is run on them as far as the count needs (Mini-JAX's
    FLOPS transformation). ``concrete=True`` always counts while running ``f``: a ``cond``
    then counts the branch taken rather than the most expensive one.
    """
    def count(*args):
        if concrete:
            return _count_while_running(f, args)
        try:
            return closed_jaxpr_flops(make_jaxpr(f)(*args))
        except _NEEDS_VALUES:
            if not _are_values(args):
                raise
        return _count_while_running(f, args)
    return count


def _are_values(args) -> bool:
    """Whether every leaf of ``args`` has a value to run with (not a type or a tracer)."""
    return not any(isinstance(leaf, (core.Tracer, core.ShapeDtypeStruct))
                   for leaf in tree_util.tree_leaves(args))


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


class _CountingTracer(core.Tracer):
    __slots__ = ('val',)

    def __init__(self, trace, val):
        self._trace = trace
        self.val = val

    aval = property(lambda self: core.get_aval(self.val))  # concrete: ``if x > 0`` works


class _CountingTrace(core.Trace):
    """Runs each primitive on its operands' values and adds its cost, found by its rule
    with every operand known, to the count in ``main.global_data``."""

    def pure(self, val):
        return _CountingTracer(self, val)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        vals = [t.val for t in tracers]
        with core.new_dynamic(None):  # run the rule and the primitive below this trace
            self.main.global_data[0] += _known_eqn_flops(primitive, vals, params)
            outs = primitive.bind(*vals, **params)
        if primitive.multiple_results:
            return [_CountingTracer(self, o) for o in outs]
        return _CountingTracer(self, outs)


def _known_eqn_flops(primitive, vals, params) -> int:
    """The cost of ``primitive`` applied to the known values ``vals``."""
    inputs = [Var(core.shaped_aval(v)) for v in vals]
    outs = [Var(a) for a in abstract_eval_eqn(primitive, [v.aval for v in inputs], params)]
    eqn = JaxprEqn(primitive, inputs, params, outs)
    return flops_rules[primitive](eqn, dict(zip(inputs, vals)))


def _count_while_running(f, args) -> int:
    """Run ``f(*args)`` under the counting trace, made the dynamic trace so that operations
    on constants count too, as they do in ``f``'s jaxpr."""
    if not _are_values(args):
        raise TypeError(f'flops(concrete=True) runs the function, so it needs array values, '
                        f'got {args!r}; flops(f) counts from types alone')
    leaves, in_tree = tree_util.tree_flatten(args)
    count = [0]
    with core.new_main(_CountingTrace, count) as main, core.new_dynamic(main):
        trace = main.trace
        f(*tree_util.tree_unflatten(in_tree, [_CountingTracer(trace, x) for x in leaves]))
    return count[0]


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


def _as_xla_expands_it(eqn, known):
    """A CHLO op (``chlo.sinh``, ``chlo.top_k``...) is expanded by XLA into other ops (and
    mulhi lowers to several): what XLA's cost analysis counts for one op of these operand
    types and parameters, asked once."""
    return _xla_count(eqn.primitive, tuple((x.aval.shape, x.aval.dtype) for x in eqn.inputs),
                      tuple(sorted(eqn.params.items())))


@functools.cache
def _xla_count(primitive, operand_types, params) -> int:
    from minijax.jit import jit  # (jit's module imports this one)
    operands = [core.ShapeDtypeStruct(shape, dtype) for shape, dtype in operand_types]
    lowered = jit(lambda *xs: primitive.bind(*xs, **dict(params))).lower(*operands)
    return int(lowered.compile().cost_analysis().get('flops', 0))


def _convert_element_type(eqn, known):
    """One per element, none when only the weak type changes (XLA has nothing to do)."""
    same = eqn.inputs[0].aval.dtype == eqn.out_binders[0].aval.dtype
    return 0 if same else _per_output_element(eqn, known)


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


def _cond(eqn, known):
    """The branch the index picks when it is known; else the most expensive one."""
    index, *operands = eqn.inputs
    branches = eqn.params['branches']
    if isinstance(index, Lit) or index in known:
        value = index.val if isinstance(index, Lit) else known[index]
        branches = [branches[int(np.clip(value, 0, len(branches) - 1))]]
    return max(closed_jaxpr_flops(b, _inner_known(b, operands, known)) for b in branches)


def _xla_call(eqn, known):
    closed = eqn.params['jaxpr']
    return closed_jaxpr_flops(closed, _inner_known(closed, eqn.inputs, known))


def _linear_solve(eqn, known):
    """The solve: what runs (the primitive lowers to its ops)."""
    jaxprs, lengths = eqn.params['jaxprs'], eqn.params['const_lengths']
    start = lengths.matvec + lengths.vecmat
    operands = [*eqn.inputs[start:start + lengths.solve], *eqn.inputs[sum(lengths):]]
    return closed_jaxpr_flops(jaxprs.solve, _inner_known(jaxprs.solve, operands, known))


def _composite(eqn, known):
    """The decomposition, which XLA calls (and counts) unless it knows the op."""
    closed = eqn.params['jaxpr']
    return closed_jaxpr_flops(closed, _inner_known(closed, eqn.inputs, known))


def _scan(eqn, known):
    body, num_consts = eqn.params['jaxpr'], eqn.params['num_consts']
    consts_known = _inner_known(body, eqn.inputs[:num_consts], known)
    return eqn.params['length'] * closed_jaxpr_flops(body, consts_known)


def _while(eqn, known):
    unknowns = [not (isinstance(x, Lit) or x in known) for x in eqn.inputs]
    operands_uk, _, known_loop = split_known_loop(unknowns=unknowns, **eqn.params)
    if known_loop is None:
        raise UnknownCountError('flops: the trip count of a while_loop depends on values its '
                                'types do not give (the inputs, or the carry of a loop around '
                                'it); given array values, flops runs f to count the trips, '
                                'except inside another loop\'s body')
    operands = [x.val if isinstance(x, Lit) else known[x]
                for x, uk in zip(eqn.inputs, operands_uk) if not uk]
    _, trips = run_while(*operands, **known_loop)
    p = eqn.params
    cond_consts, rest = core.split_list(eqn.inputs, p['cond_nconsts'])
    body_consts = rest[:p['body_nconsts']]
    return (trips * closed_jaxpr_flops(p['body_jaxpr'],
                                       _inner_known(p['body_jaxpr'], body_consts, known)) +
            (trips + 1) * closed_jaxpr_flops(p['cond_jaxpr'],
                                             _inner_known(p['cond_jaxpr'], cond_consts, known)))


def _sort(eqn, known):
    return lax.sorting.sort_flops(_size(eqn.inputs[0].aval))


def _approx_top_k(eqn, known):
    """On the CPU XLA sorts the operand (the ApproxTopK fallback)."""
    return lax.sorting.sort_flops(_size(eqn.inputs[0].aval))


def _ragged_dot_general(eqn, known):
    """XLA compiles the dense expansion (masks, then one dot_general): its flops."""
    closed, _ = trace_to_jaxpr(lambda *xs: [ragged_dot_general_expansion(eqn)(*xs)],
                               [x.aval for x in eqn.inputs])
    return closed_jaxpr_flops(closed)


def _scaled_dot(eqn, known):
    """XLA compiles the decomposition (conversions, products, one dot_general): its flops."""
    closed, _ = trace_to_jaxpr(lambda *xs: [scaled_dot_decomposition(eqn)(*xs)],
                               [x.aval for x in eqn.inputs])
    return closed_jaxpr_flops(closed)


def _cumulative(eqn, known):
    return lax.cumulative.cumulative_flops(eqn)


def _fft(eqn, known):
    return fft_flops(eqn)


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


def _reduce(eqn, known):
    """The computation's flops once per element reduced away (``lax.reduce``'s general
    primitive)."""
    steps = _size(eqn.inputs[0].aval) - _size(eqn.out_binders[0].aval)
    return steps * closed_jaxpr_flops(eqn.params['jaxpr'])


def _general_reduce_window(eqn, known):
    """The computation's flops once per window element but the first."""
    body = closed_jaxpr_flops(ClosedJaxpr(eqn.params['jaxpr'], list(eqn.params['consts'])))
    return _reduce_window(eqn, known) * body


def _select_and_gather_add(eqn, known):
    """A comparison and two selects per window element but the first (its lowering's)."""
    return 3 * _reduce_window(eqn, known)


def _select_and_scatter_add(eqn, known):
    """Per source element: a comparison per window element but the first, and an add."""
    window = math.prod(eqn.params['window_dimensions'])
    return _size(eqn.inputs[0].aval) * window


def _select_and_scatter(eqn, known):
    """Per source element: the select computation per window element but the first, and the
    scatter computation once."""
    p = eqn.params
    select = closed_jaxpr_flops(ClosedJaxpr(p['select_jaxpr'], list(p['select_consts'])))
    scatter = closed_jaxpr_flops(ClosedJaxpr(p['scatter_jaxpr'], list(p['scatter_consts'])))
    window = math.prod(p['window_dimensions'])
    return _size(eqn.inputs[1].aval) * ((window - 1) * select + scatter)


def _scatter(eqn, known):
    """One combining operation per update element; none for a plain set; scatter_apply's
    computation once per update element."""
    if 'update_jaxpr' in eqn.params:
        update = ClosedJaxpr(eqn.params['update_jaxpr'], list(eqn.params['update_consts']))
        return _size(eqn.inputs[2].aval) * closed_jaxpr_flops(update)
    return 0 if eqn.primitive is lax.scatter_p else _size(eqn.inputs[2].aval)


def _erfc(eqn, known):
    """XLA expands ``chlo.erfc`` into other ops (``minijax.lax.special.erfc_expansion``),
    where ``erf`` is an op of its own (a transcendental): the expansion's flops."""
    closed, _ = trace_to_jaxpr(lambda x: [lax.special.erfc_expansion(x)],
                               [eqn.inputs[0].aval])
    return closed_jaxpr_flops(closed)


_ELEMENTWISE = [lax.add_p, lax.add_any_p, lax.sub_p, lax.mul_p, lax.div_p, lax.max_p, lax.min_p, lax.neg_p,
                lax.abs_p, lax.sign_p, lax.gt_p, lax.lt_p, lax.eq_p, lax.ne_p, lax.ge_p,
                lax.le_p, lax.eq_to_p, lax.le_to_p, lax.lt_to_p, lax.select_n_p,
                lax.convert_element_type_p, lax.integer_pow_p,
                lax.bitcast_convert_type_p,
                lax.and_p, lax.or_p, lax.xor_p, lax.not_p, lax.shift_left_p,
                lax.shift_right_logical_p, lax.shift_right_arithmetic_p,
                lax.population_count_p, lax.clz_p, lax.rem_p, lax.clamp_p,
                lax.real_p, lax.imag_p, lax.conj_p, lax.complex_p, lax.floor_p, lax.ceil_p,
                lax.round_p, lax.is_finite_p, lax.reduce_precision_p]
_TRANSCENDENTAL = [lax.sin_p, lax.cos_p, lax.exp_p, lax.log_p, lax.tanh_p, lax.logistic_p,
                   lax.sqrt_p, lax.rsqrt_p, lax.pow_p, lax.log1p_p, lax.tan_p, lax.expm1_p,
                   lax.cbrt_p, lax.atan2_p, lax.erf_p]
_DATA_MOVEMENT = [lax.broadcast_in_dim_p, lax.reshape_p, lax.squeeze_p, lax.transpose_p,
                  lax.concatenate_p, lax.slice_p, lax.dynamic_slice_p,
                  lax.dynamic_update_slice_p, lax.pad_p, lax.iota_p, lax.empty_p,
                  lax.gradients.stop_gradient_p, lax.rev_p, lax.gather_p, lax.split_p,
                  lax.unstack_p, lax.stack_p, lax.tile_p, lax.optimization_barrier_p,
                  lax.dce_sink_p, lax.copy_p, lax.stage_p, lax.create_token_p,
                  lax.after_all_p, lax.sharding_constraint_p, lax.device_put_p]
_REDUCTIONS = [lax.reduce_sum_p, lax.reduce_prod_p, lax.reduce_max_p, lax.reduce_min_p,
               lax.reduce_and_p, lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p, lax.argmin_p]

#: Primitives lowered to CHLO ops, which XLA expands (and mulhi, to a widening product; the
#: random generators, to the arithmetic of their algorithms; Bessel function i0e and the
#: incomplete gamma and beta functions, to JAX's expansions, whose loops' trip counts depend
#: on the values):
#: what XLA counts for them.
_EXPANDED_BY_XLA = [lax.sinh_p, lax.cosh_p, lax.asin_p, lax.acos_p, lax.atan_p, lax.asinh_p,
                    lax.acosh_p, lax.atanh_p, lax.square_p, lax.exp2_p, lax.erf_inv_p,
                    lax.lgamma_p, lax.digamma_p, lax.polygamma_p, lax.zeta_p, lax.nextafter_p,
                    lax.top_k_p, lax.mulhi_p, lax.rng_bit_generator_p, lax.rng_uniform_p,
                    lax.bessel_i0e_p, lax.bessel_i1e_p, lax.igamma_p, lax.igammac_p,
                    lax.igamma_grad_a_p, lax.regularized_incomplete_beta_p]

for _prims, _rule in [(_ELEMENTWISE, _per_output_element), (_TRANSCENDENTAL, _free),
                      (_EXPANDED_BY_XLA, _as_xla_expands_it),
                      (_DATA_MOVEMENT, _free), (_REDUCTIONS, _reduction)]:
    flops_rules.update(dict.fromkeys(_prims, _rule))
flops_rules.update(dict.fromkeys([lax.reduce_window_sum_p, lax.reduce_window_max_p,
                                  lax.reduce_window_min_p], _reduce_window))
flops_rules.update({lax.conv_general_dilated_p: _conv_general_dilated, lax.reduce_p: _reduce,
                    lax.reduce_window_p: _general_reduce_window,
                    lax.select_and_gather_add_p: _select_and_gather_add,
                    lax.select_and_scatter_add_p: _select_and_scatter_add,
                    lax.select_and_scatter_p: _select_and_scatter})
flops_rules.update({lax.dot_general_p: _dot_general, xla_call_p: _xla_call, cond_p: _cond,
                    scan_p: _scan, while_p: _while, lax.erfc_p: _erfc,
                    linear_solve_p: _linear_solve, composite_p: _composite,
                    platform_index_p: _free,
                    lax.sort_p: _sort, lax.fft_p: _fft, lax.approx_top_k_p: _approx_top_k,
                    lax.ragged_dot_general_p: _ragged_dot_general,
                    lax.scaled_dot_p: _scaled_dot,
                    lax.convert_element_type_p: _convert_element_type})
flops_rules.update(dict.fromkeys([lax.scatter_add_p, lax.scatter_sub_p, lax.scatter_mul_p,
                                  lax.scatter_min_p, lax.scatter_max_p, lax.scatter_p], _scatter))
# The decompositions run LAPACK kernels in custom calls, which XLA's cost analysis counts as 0.
L = lax.linalg
flops_rules.update(dict.fromkeys([L.cholesky_p, L.triangular_solve_p, L.lu_p, L.qr_p, L.eigh_p,
                                  L.eig_p, L.svd_p, L.schur_p, L.hessenberg_p, L.tridiagonal_p,
                                  L.householder_product_p, L.ormqr_p, L.tridiagonal_solve_p,
                                  lax.householder.geqrf_p, lax.householder.geqp3_p],
                                 _free))
# These lower to lax formulas and loops (as JAX's do on CPU): what XLA counts for them.
flops_rules.update(dict.fromkeys([L.symmetric_product_p, L.cholesky_update_p,
                                  L.lu_pivots_to_permutation_p],
                                 _as_xla_expands_it))
del L
flops_rules.update(dict.fromkeys([lax.cumsum_p, lax.cumprod_p, lax.cummax_p, lax.cummin_p,
                                  lax.cumlogsumexp_p], _cumulative))
