"""``cond`` and ``switch``: one primitive, ``cond``, choosing one of n branch jaxprs.

``cond(pred, true_fun, false_fun, *operands)`` is ``cond_p`` with the index
``convert_element_type(pred, int32)`` and branches ordered (false, true), as in JAX;
``switch(index, branches, *operands)`` clamps its index into range first. The primitive
lowers to ``stablehlo.case`` with one region per branch.

``platform_dependent(*args, cpu=..., default=...)`` is a ``cond`` whose index is
``platform_index_p`` (which platform the module is lowered for) and whose param
``branches_platforms`` names each branch's platforms: lowering keeps only the branch of the
platform lowered for (the CPU: minijax lowers for nothing else), as JAX prunes them. Every
rule passes that param on unchanged.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lax, tree_util
from minijax.control_flow.common import (check_branch_types, insert_unused_inputs, map_outputs,
                                         trace_function, zeros)
from minijax.core import Primitive
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.transpose import (drop_zero_cts, is_undefined_primal, nonzero_cts,
                                            transposed_jaxpr)
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_closed_jaxpr
from minijax.lowering import (constant, lower_closed_jaxpr, register_lowering, tensor_type,
                              threading_token)
from minijax.sharding import rules as sharding_rules

cond_p = Primitive('cond', multiple_results=True, eager_on_xla=True)
sharding_rules.register(sharding_rules.AS_TRACED, cond_p)  # its results: its jaxpr's types


# ----------------------------------------------------------------------------- the API

#: The default of the ``operand`` keyword: none was given.
_NO_OPERAND = object()


def _keyword_operand(operands, operand):
    """The operands, JAX's older ``operand=x`` keyword form included."""
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise TypeError(f"if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got operand={operand!r} and positional operands {operands}")
    return (operand,)


def cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged as one op.

    ``pred`` is a scalar bool, or a real number that is true when nonzero (as in JAX); both
    branches must return the same shapes and dtypes (a Python scalar does not take the
    dtype of the other branch's array, as in JAX).
    """
    operands = _keyword_operand(operands, operand)
    core.check_callable('cond', true_fun=true_fun, false_fun=false_fun)
    aval = core.get_aval(pred)
    if aval.shape != () or dtypes.kind(aval.dtype) not in 'biuf':
        raise TypeError(f'cond: the predicate must be a scalar bool or real number, got '
                        f'{aval.str_short()}')
    if aval.dtype != dtypes.bool_:
        pred = lax.ne(pred, np.zeros((), aval.dtype))
    index = lax.convert_element_type(pred, dtypes.int32)
    return _switch(index, [false_fun, true_fun], operands, 'cond',
                   ['the false branch', 'the true branch'])


def switch(index, branches, *operands, operand=_NO_OPERAND):
    """``branches[index](*operands)``, with ``index`` clamped into ``[0, len(branches))``."""
    operands = _keyword_operand(operands, operand)
    branches = list(branches)
    if not branches:
        raise ValueError('switch: needs at least one branch')
    core.check_callable('switch', **{f'branch {i}': b for i, b in enumerate(branches)})
    aval = core.get_aval(index)
    if aval.shape != () or not np.issubdtype(aval.dtype, np.integer):
        raise TypeError(f'switch: the index must be a scalar integer, got {aval.str_short()}')
    if aval.dtype != dtypes.int32:
        index = lax.convert_element_type(index, dtypes.int32)
    index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    return _switch(index, branches, operands, 'switch',
                   [f'branch {i}' for i in range(len(branches))])


def _switch(index, funs, operands, what, names, **params):
    operands_flat, in_tree = tree_util.tree_flatten(operands)
    in_avals = [core.shaped_aval(x) for x in operands_flat]
    traced = [trace_function(f, in_tree, in_avals) for f in funs]
    out_trees = [out_tree for _, _, out_tree in traced]
    if any(t != out_trees[0] for t in out_trees):
        raise TypeError(f'{what}: branches return different structures: '
                        f'{" and ".join(map(str, out_trees))}')
    check_branch_types(what, names, [closed.out_avals for closed, _, _ in traced])
    branches, closed_over = _join_closed_over([(closed, consts) for closed, consts, _ in traced])
    outs = cond_p.bind(index, *closed_over, *operands_flat, branches=branches, **params)
    return tree_util.tree_unflatten(out_trees[0], outs)


def _join_closed_over(traced):
    """Branches that all take every value any branch closed over (its constants and outer
    tracers, once each), then the operands; a branch ignores the values only other branches
    use. Those values are ``cond``'s leading operands, as in JAX and seeds/004."""
    unique = {id(c): c for _, consts in traced for c in consts}
    branches = []
    for closed, consts in traced:
        jaxpr = closed.jaxpr
        own = dict(zip(map(id, consts), jaxpr.invars))
        invars = [own.get(key) or Var(core.shaped_aval(c))
                  for key, c in unique.items()]
        invars += jaxpr.invars[len(consts):]
        branches.append(ClosedJaxpr(Jaxpr(jaxpr.constvars, invars, jaxpr.eqns, jaxpr.outs),
                                    closed.consts))
    return tuple(branches), list(unique.values())


# ----------------------------------------------------------------------------- evaluation

def _cond_impl(index, *operands, branches, **_):
    i = int(np.clip(np.asarray(index), 0, len(branches) - 1))
    return eval_closed_jaxpr(branches[i], operands)


def _cond_abstract_eval(index, *operands, branches, **_):
    if index.shape != () or index.dtype != dtypes.int32:
        raise TypeError(f'cond: the branch index must be an int32 scalar, got '
                        f'{index.str_short()}')
    return branches[0].out_avals


cond_p.def_impl(_cond_impl)
cond_p.def_abstract_eval(_cond_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _cond_jvp(primals, tangents, *, branches, **params):
    index, *operands = primals
    nonzeros = ad.nonzero_flags(tangents[1:])
    no_instantiate = (False,) * len(branches[0].out_avals)
    out_nonzeros = tuple(np.logical_or.reduce(
        [ad.jvp_jaxpr(b, nonzeros, no_instantiate)[1] for b in branches]).tolist())
    jvp_branches = tuple(ad.jvp_jaxpr(b, nonzeros, out_nonzeros)[0] for b in branches)
    outs = cond_p.bind(index, *operands, *ad.drop_zeros(tangents[1:]), branches=jvp_branches,
                       **params)
    primals_out, tangents_out = core.split_list(outs, len(out_nonzeros))
    return primals_out, ad.fill_zeros(tangents_out, out_nonzeros, primals_out)


cond_p.def_jvp(_cond_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- vmap

def _cond_batching(vals, dims, *, branches, **params):
    index, *operands = vals
    index_dim, *operand_dims = dims
    size = batching.axis_size_of(vals, dims)
    if 'branches_platforms' in params and index_dim is not batching.not_mapped:
        # every example runs on one platform: ask which again, unbatched (as JAX does)
        index, index_dim = platform_index_p.bind(platforms=params['branches_platforms']), None
    if index_dim is batching.not_mapped:
        new_branches = tuple(batching.batched_jaxpr(b, size, tuple(operand_dims))[0]
                             for b in branches)
        outs = cond_p.bind(index, *operands, branches=new_branches, **params)
        return outs, [0] * len(outs)
    # A batched index: every example may take a different branch, so run them all (on
    # operands batched along their first axis) and select per example, as JAX does. Each
    # branch sees its operands with their gradient stopped where another branch is chosen:
    # a branch not taken then gives no NaN gradient (JAX's issue 1052).
    index = batching.moveaxis(index, index_dim, 0)
    operands = [batching.move_batch_axis(size, d, 0, x) for x, d in zip(operands, operand_dims)]
    branch_outs = []
    for i, branch in enumerate(branches):
        chosen = lax.eq(index, np.array(i, dtypes.int32))
        inputs = [_per_example(chosen, lax.stop_gradient(x), x) for x in operands]
        batched = batching.batched_jaxpr(branch, size, (0,) * len(operands))[0]
        branch_outs.append(eval_closed_jaxpr(batched, inputs))
    outs = [_per_example(index, *cases) for cases in zip(*branch_outs)]
    return outs, [0] * len(outs)


def _per_example(which, *cases):
    """``select_n`` among ``cases`` (batched along their first axis) by ``which`` (one
    selector per example)."""
    shape = core.get_aval(cases[0]).shape
    if core.get_aval(which).ndim != len(shape):
        which = lax.broadcast_in_dim(which, shape, (0,))
    return lax.select_n(which, *cases)


cond_p.def_batching(_cond_batching)


# ----------------------------------------------------------------------------- partial eval

def _partial_eval_branches(branches, unknowns):
    """Split every branch alike: the same unknown outputs, and all branches' residuals.

    Each known branch returns its known outputs, then a slot for every branch's residuals
    (zeros in the slots of the other branches); each unknown branch takes all those slots.
    """
    out_unknowns = np.logical_or.reduce(
        [pe.partial_eval_jaxpr(b, unknowns)[2] for b in branches]).tolist()
    splits = [pe.partial_eval_jaxpr(b, unknowns, out_unknowns) for b in branches]
    res_avals = [unknown.in_avals[:num_res] for _, unknown, _, num_res in splits]
    known_branches, unknown_branches = [], []
    for i, (known, unknown, _, num_res) in enumerate(splits):
        before = [a for avals in res_avals[:i] for a in avals]
        after = [a for avals in res_avals[i + 1:] for a in avals]
        num_known_outs = len(known.out_avals) - num_res

        def pad(outs, num_known_outs=num_known_outs, before=before, after=after):
            known_outs, residuals = core.split_list(outs, num_known_outs)
            return [*known_outs, *map(zeros, before), *residuals, *map(zeros, after)]

        known_branches.append(map_outputs(known, pad))
        unknown = insert_unused_inputs(unknown, num_res, after)
        unknown_branches.append(insert_unused_inputs(unknown, 0, before))
    num_res = sum(map(len, res_avals))
    return tuple(known_branches), tuple(unknown_branches), out_unknowns, num_res


def _cond_partial_eval(trace, tracers, *, branches, **params):
    index, *operands = tracers
    if not index.pval.is_known:  # nothing can run now: stage the whole cond
        tracers_in = [trace.instantiate_const(t) for t in tracers]
        return trace.stage(cond_p, tracers_in, dict(branches=branches, **params),
                           branches[0].out_avals)
    unknowns = [not t.pval.is_known for t in operands]
    known_branches, unknown_branches, out_unknowns, num_res = \
        _partial_eval_branches(branches, unknowns)
    known_ops, unknown_ops = pe.partition_list(unknowns, operands)
    outs_and_res = cond_p.bind(index.pval.const, *(t.pval.const for t in known_ops),
                               branches=known_branches, **params)
    known_outs, residuals = core.split_list(outs_and_res, len(outs_and_res) - num_res)
    staged_in = [trace.instantiate_const(index),
                 *(trace.instantiate_const(core.full_raise(trace, r)) for r in residuals),
                 *unknown_ops]
    unknown_outs = trace.stage(cond_p, staged_in, dict(params, branches=unknown_branches),
                               unknown_branches[0].out_avals)
    return pe.merge_lists(out_unknowns, known_outs, unknown_outs)


def _cond_partial_eval_jaxpr(unknowns, eqn):
    index_unknown, *operand_unknowns = unknowns
    if index_unknown:
        return None  # stage the whole equation
    index, *operands = eqn.inputs
    known_branches, unknown_branches, out_unknowns, num_res = \
        _partial_eval_branches(eqn.params['branches'], operand_unknowns)
    known_ins, unknown_ins = pe.partition_list(operand_unknowns, operands)
    known_outs, unknown_outs = pe.partition_list(out_unknowns, eqn.out_binders)
    residuals = [Var(a) for a in unknown_branches[0].in_avals[:num_res]]
    known_eqn = JaxprEqn(cond_p, [index, *known_ins], dict(eqn.params, branches=known_branches),
                         known_outs + residuals, eqn.source_info)
    unknown_eqn = JaxprEqn(cond_p, [index, *residuals, *unknown_ins],
                           dict(eqn.params, branches=unknown_branches), unknown_outs,
                           eqn.source_info)
    needed = [index, *residuals] if isinstance(index, Var) else residuals
    return known_eqn, unknown_eqn, out_unknowns, needed


pe.partial_eval_rules[cond_p] = _cond_partial_eval
pe.partial_eval_jaxpr_rules[cond_p] = _cond_partial_eval_jaxpr


# ----------------------------------------------------------------------------- dead code

def _cond_dce(used_outputs, eqn):
    """Prune every branch to the used outputs; an operand stays if any branch reads it."""
    branches = eqn.params['branches']
    reads = [pe.dce_closed_jaxpr(b, used_outputs)[1] for b in branches]
    used_operands = [any(flags) for flags in zip(*reads, strict=True)]
    pruned = tuple(pe.dce_closed_jaxpr(b, used_outputs, used_operands)[0] for b in branches)
    used_inputs = [True, *used_operands]
    return used_inputs, pe.pruned_eqn(eqn, used_inputs, used_outputs, branches=pruned)


pe.dce_rules[cond_p] = _cond_dce


# ----------------------------------------------------------------------------- transpose

def _cond_transpose(cts, index, *operands, branches, **params):
    if is_undefined_primal(index):
        raise TypeError('cond: cannot transpose with respect to the branch index')
    undefined = tuple(is_undefined_primal(x) for x in operands)
    residuals = [x for x in operands if not is_undefined_primal(x)]
    transposed = tuple(transposed_jaxpr(b, undefined, nonzero_cts(cts)) for b in branches)
    cts_in = iter(cond_p.bind(index, *residuals, *drop_zero_cts(cts), branches=transposed,
                              **params))
    return [None, *(next(cts_in) if u else None for u in undefined)]


cond_p.def_transpose(_cond_transpose)


# ----------------------------------------------------------------------------- lowering

def _cond_lowering(ctx, index, *operands, branches, branches_platforms=None):
    """``stablehlo.case``; with ordered effects in a branch, every branch goes on from the
    function's token and returns the next one first, as JAX lowers it."""
    if branches_platforms is not None:
        index, branches = _platform_branch(index, branches, branches_platforms)
    module = ctx.module_context
    tokens = [core.abstract_token] * any(b.ordered for b in branches)
    case = hlo.CaseOp([tensor_type(a) for a in (*tokens, *ctx.avals_out)], index,
                      len(branches))
    for i, (region, branch) in enumerate(zip(case.regions, branches)):
        with ir.InsertionPoint(region.blocks.append()), threading_token(module, module.token):
            outs = lower_closed_jaxpr(module, branch, operands, scope=f'cond/branch_{i}_fun')
            hlo.ReturnOp([module.token, *outs] if tokens else outs)
    if tokens:
        module.token, *outs = case.results
        return outs
    return list(case.results)


register_lowering(cond_p, _cond_lowering)


def _platform_branch(index, branches, branches_platforms):
    """The branch of the platform lowered for, alone, and its index among the branches kept:
    JAX's case from each branch's index to it (0 for every branch, one being kept)."""
    kept = branches[_platform_branch_index(branches_platforms)]
    i32 = tensor_type(core.ShapedArray((), dtypes.int32))
    to_kept = hlo.CaseOp([i32], index, len(branches))
    for region in to_kept.regions:
        with ir.InsertionPoint(region.blocks.append()):
            hlo.ReturnOp([constant(np.int32(0))])
    return to_kept.result, (kept,)


# ----------------------------------------------------------------------------- platform_dependent

def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[p](*args)`` for the platform ``p`` the program runs on, or
    ``default(*args)`` for a platform not named (``cpu``, ``cuda``, ``rocm``, ``tpu``).

    Every branch is traced, as for ``switch``; the choice is made when lowering, for the
    platform lowered for (eagerly, at once). Platforms given the same function share its
    branch.
    """
    platforms, funs = [], []
    for name, fun in per_platform.items():
        if not callable(fun):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == 'gpu':
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        if fun in funs:
            platforms[funs.index(fun)].append(name)
        else:
            platforms.append([name])
            funs.append(fun)
    branches_platforms = tuple(map(tuple, platforms))
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        funs.append(default)
        branches_platforms += (None,)
    index = platform_index_p.bind(platforms=branches_platforms)
    if not isinstance(index, core.Tracer):
        return funs[int(index)](*args)
    return _switch(index, funs, args, 'platform_dependent',
                   [f'branch {i}' for i in range(len(funs))],
                   branches_platforms=branches_platforms)


#: Where minijax lowers and runs programs.
PLATFORM = 'cpu'

#: ``platform_index[platforms=...]``: the index of the entry of ``platforms`` (a tuple of
#: tuples of platform names, the last one possibly None: every other platform) that holds
#: the platform lowered for, as an int32 scalar.
platform_index_p = Primitive('platform_index')


def _platform_branch_index(platforms) -> int:
    for i, names in enumerate(platforms):
        if names is None or PLATFORM in names:
            return i
    raise NotImplementedError(f"MLIR translation rule for primitive 'platform_index(platforms="
                              f"{platforms})' not found for platform {PLATFORM}")


platform_index_p.def_impl(lambda *, platforms: np.int32(_platform_branch_index(platforms)))
platform_index_p.def_abstract_eval(
    lambda *, platforms: core.ShapedArray((), dtypes.int32))
register_lowering(platform_index_p, lambda ctx, *, platforms: [
    constant(np.int32(_platform_branch_index(platforms)))])
