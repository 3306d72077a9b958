"""``shard_map``: a function mapped over the shards of its arguments, one per device of a mesh.

``shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)`` traces ``f`` once on one
shard (the per-device program: a dimension split over mesh axes has its size divided by
theirs) and binds the ``shard_map`` primitive with that jaxpr. The body is *manual* over the
mesh axes: collectives such as ``lax.psum(x, 'x')`` name them and move data between devices.
The outputs are the devices' results concatenated as ``out_specs`` says; a mesh axis an
out_spec does not mention promises the results are equal along it.

It lowers, as JAX 0.10.2 lowers it, to ``sdy.manual_computation`` (Shardy): the operands'
and results' shardings over the module's ``sdy.mesh``, the manual axes, and a body on the
per-device types, where each collective names its device groups in the mesh
(``replica_groups`` with ``use_global_device_ids``). XLA's partitioner compiles the module
for ``mesh.size`` partitions. The primitive has every rule, so ``jit``, ``grad``, ``vmap``
and ``scan`` compose with it (see docs/shard_map.md, which also lists what departs from JAX).
"""
from __future__ import annotations

import contextlib
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from minijax import core, dispatch, tree_util, vma
from minijax.caching import cache_on_first_arg
from minijax.core import Primitive
from minijax.flops import closed_jaxpr_flops, flops_rules
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.transpose import (drop_zero_cts, is_undefined_primal, nonzero_cts,
                                            transposed_jaxpr)
from minijax.ir.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Lit, PrimalLit, Var, eval_jaxpr,
                              same_type)
from minijax.ir import tracing
from minijax.ir.tracing import trace_to_jaxpr
from minijax.control_flow.common import hoist_consts
from minijax.lax import parallel
from minijax.lax.structural import broadcast_in_dim, squeeze
from minijax.lowering import append_block, lower_closed_jaxpr, register_lowering, tensor_type
from minijax.lowering.module import detached, rule_location
from minijax.lowering.shardings import sdy_sharding
from minijax.sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec
from minijax.sharding import mesh as mesh_lib
from minijax.sharding import rules as sharding_rules
from minijax.sharding.types import type_sharding

__all__ = ['Infer', 'shard_map', 'shard_map_p', 'smap']

P = PartitionSpec
shard_map_p = Primitive('shard_map', multiple_results=True)


class InferFromArgs:
    """``in_specs=Infer`` (the default): the specs are read off the arguments' shardings,
    which needs every manual mesh axis ``Explicit``."""

    def __repr__(self):
        return 'jax.sharding.Infer'


Infer = InferFromArgs()


# ----------------------------------------------------------------------------- specs and types

def spec_names(spec: PartitionSpec) -> dict[int, tuple]:
    """``{dimension: the mesh axes it is split over}`` for the split dimensions."""
    return {d: entry if isinstance(entry, tuple) else (entry,)
            for d, entry in enumerate(spec.partitions)
            if entry is not None and entry is not PartitionSpec.UNCONSTRAINED}


def spec_axes(spec: PartitionSpec) -> frozenset:
    return frozenset(n for names in spec_names(spec).values() for n in names)


def _split_size(mesh, names) -> int:
    return math.prod(mesh.shape[n] for n in names)


def shard_aval(mesh, spec: PartitionSpec, aval: core.ShapedArray,
               manual=None) -> core.ShapedArray:
    """The type of one device's shard of a value of type ``aval`` split as ``spec`` says:
    typed over the body's mesh (the ``manual`` axes, all of the mesh's if None, made
    ``Manual``), so only its other Explicit axes stay in the type. An untyped ``aval`` stays
    so, but in a partly manual body, where JAX's types name the mesh (and an op's result is
    constrained over its automatic axes)."""
    names = spec_names(spec)
    shape = tuple(n // _split_size(mesh, names.get(d, ())) for d, n in enumerate(aval.shape))
    sharding = aval._sharding
    manual = mesh.axis_names if manual is None else manual
    if sharding is None and set(manual) != set(mesh.axis_names):
        sharding = NamedSharding(mesh.abstract_mesh, P())
    if sharding is not None:
        body_mesh = mesh.abstract_mesh.update_axis_types({n: AxisType.Manual for n in manual})
        sharding = type_sharding(NamedSharding(body_mesh, sharding.spec), shape)
    return core.ShapedArray(shape, aval.dtype, aval.weak_type, sharding)


def unshard_aval(mesh, spec: PartitionSpec, aval: core.ShapedArray) -> core.ShapedArray:
    """The type of the value the devices' shards of type ``aval`` make up, as ``spec`` says:
    split over the mesh's Explicit axes as ``spec`` splits it, where types carry
    shardings."""
    names = spec_names(spec)
    shape = tuple(n * _split_size(mesh, names.get(d, ())) for d, n in enumerate(aval.shape))
    sharding = None
    if core.sharding_in_types() and not mesh.empty:
        sharding = type_sharding(NamedSharding(mesh.abstract_mesh, spec), shape)
    return core.ShapedArray(shape, aval.dtype, aval.weak_type, sharding)


def ordered(mesh, axes) -> tuple:
    """``axes`` in the mesh's order."""
    return tuple(n for n in mesh.axis_names if n in axes)


@contextlib.contextmanager
def manual_axes_in_scope(mesh, axes, check_vma):
    """The manual axes bound while the body is traced or transformed (its collectives name
    them), the abstract mesh the body sees (those axes ``Manual``) and whether it tracks
    its values' varying axes."""
    with contextlib.ExitStack() as stack:
        for name in ordered(mesh, axes):
            stack.enter_context(core.extend_axis_env(name, mesh.shape[name]))
        stack.enter_context(mesh_lib.use_abstract_mesh(mesh.abstract_mesh.update_axis_types(
            {n: AxisType.Manual for n in axes})))
        parallel.vma_checked.append(check_vma)
        try:
            yield
        finally:
            parallel.vma_checked.pop()


def _in_scope(params):
    return manual_axes_in_scope(params['mesh'], params['newly_manual_axes'],
                                params['check_vma'])


def _typed(params, body: ClosedJaxpr, in_specs, out_specs) -> ClosedJaxpr:
    """With ``check_vma``, a body a transformation made (the JVP, a batched body, the known
    and unknown parts, the transpose) staged as JAX stages it: its new equations cast where
    their operands vary along different axes, and its types showing the axes."""
    if not params['check_vma']:
        return body
    order = params['mesh'].axis_names
    in_axes = [spec_axes(s) for s in in_specs]
    with _in_scope(params):
        body, _ = vma.with_pvary(body, in_axes, order, strict=False)
        body = vma.cast_outputs(body, in_axes, [spec_axes(s) for s in out_specs], order)
    vma.annotate(body.jaxpr, in_axes, order)
    return body


def _axes_spec(mesh, axes) -> PartitionSpec:
    """The spec of a value each device holds its own of (a residual) that varies along
    ``axes``: the devices' values concatenated along the leading axis, over those axes."""
    axes = ordered(mesh, axes)
    return P(axes if len(axes) > 1 else axes[0]) if axes else P()


def _residual_specs(params, known: ClosedJaxpr, known_in_specs, n_computed) -> list:
    """The specs of the residuals the known part computes: with ``check_vma``, over the
    axes each varies along (as JAX's), else over every manual axis."""
    if not params['check_vma']:
        return [_axes_spec(params['mesh'], params['newly_manual_axes'])] * n_computed
    outs = vma.varying_axes(known.jaxpr, [spec_axes(s) for s in known_in_specs])
    return [_axes_spec(params['mesh'], a) for a in outs[:n_computed]]


# ----------------------------------------------------------------------------- evaluation

def _shard_map_impl(*args, jaxpr, **params):
    """Eagerly: the one equation compiled for the mesh (JAX runs each primitive of the body
    on the devices in turn; the values are the same), each result laid out as its out_spec
    says over the mesh it ran on, as JAX lays it out."""
    mesh = params['mesh']
    if isinstance(mesh, AbstractMesh):
        mesh = mesh_lib.get_concrete_mesh()
    return list(_eager(jaxpr, tuple(sorted(params.items())), mesh)(*args))


@cache_on_first_arg
def _eager(jaxpr: ClosedJaxpr, params: tuple, mesh):
    """A jitted function binding the equation: traced and compiled once per body."""
    from minijax.jit import jit  # (jit imports the lax layer this module's rules live in)
    params = dict(params)
    out_shardings = None if mesh.empty else \
        tuple(NamedSharding(mesh, s) for s in params['out_specs'])
    return jit(lambda *xs: tuple(shard_map_p.bind(*xs, jaxpr=jaxpr, **params)),
               out_shardings=out_shardings)


def _shard_map_abstract_eval(*in_avals, jaxpr, mesh, in_specs, out_specs, check_vma,
                             newly_manual_axes):
    for i, (given, spec, expected) in enumerate(zip(in_avals, in_specs, jaxpr.in_avals,
                                                    strict=True)):
        if not same_type(shard_aval(mesh, spec, given, newly_manual_axes), expected):
            raise TypeError(f'shard_map: argument {i} of type {given.str_short()} split as '
                            f'{spec} is not the body\'s {expected.str_short()}')
    return [unshard_aval(mesh, spec, a) for spec, a in zip(out_specs, jaxpr.out_avals)]


shard_map_p.def_impl(_shard_map_impl)
shard_map_p.def_abstract_eval(_shard_map_abstract_eval)
sharding_rules.register(sharding_rules.AS_EVALUATED, shard_map_p)  # typed by its out_specs
sharding_rules.not_constrained.add(shard_map_p)  # (as JAX lowers it: its out_shardings say)
dispatch.PLACING.add(shard_map_p)  # (its impl places its results: not the eager-op path)


# ----------------------------------------------------------------------------- jvp

def _shard_map_jvp(primals, tangents, **params):
    """The body's JVP; a tangent is split as its primal is. The body's literals are primal
    values (``PrimalLit``): where the tangent computation reads one, linearizing makes it
    a residual, as JAX's linearization of ``shard_map`` does."""
    nonzeros = ad.nonzero_flags(tangents)
    body, values = _with_primal_literals(params['jaxpr'])
    with _in_scope(params), tracing.primal_literals(values):
        new_body, out_nonzeros = ad.jvp_jaxpr(body, nonzeros, (False,) * len(body.out_avals))
    in_specs = params['in_specs'] + tuple(s for s, nz in zip(params['in_specs'], nonzeros) if nz)
    out_specs = params['out_specs'] + tuple(s for s, nz in zip(params['out_specs'], out_nonzeros)
                                            if nz)
    new_body = _typed(params, new_body, in_specs, out_specs)
    outs = shard_map_p.bind(*primals, *ad.drop_zeros(tangents), **dict(
        params, jaxpr=new_body, in_specs=in_specs, out_specs=out_specs))
    primals_out, tangents_out = core.split_list(outs, len(out_nonzeros))
    return primals_out, ad.fill_zeros(tangents_out, out_nonzeros, primals_out)


shard_map_p.def_jvp(_shard_map_jvp, symbolic_zeros=True)


@cache_on_first_arg
def _with_primal_literals(body: ClosedJaxpr) -> tuple[ClosedJaxpr, tuple]:
    """``body`` with its equations' literals ``PrimalLit``s, and their operands."""
    jaxpr = body.jaxpr
    marked = {}

    def mark(x):
        if isinstance(x, Lit):
            x = marked.setdefault(id(x), PrimalLit(x.val, x.aval))
        return x
    eqns = [e._replace(inputs=[mark(x) for x in e.inputs]) for e in jaxpr.eqns]
    new = Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, [mark(x) for x in jaxpr.outs])
    return ClosedJaxpr(new, body.consts), tuple(x.operand() for x in marked.values())


# ----------------------------------------------------------------------------- vmap

def _batched_spec(spec: PartitionSpec, dim) -> PartitionSpec:
    """A batch axis inserted at ``dim`` is not split: every device sees the whole batch."""
    if dim is batching.not_mapped:
        return spec
    entries = list(spec.partitions) + [None] * max(0, dim - len(spec.partitions))
    entries.insert(dim, None)
    return spec.update(partitions=entries)


def _shard_map_batching(vals, dims, **params):
    """The body batched where the operands are: a shard keeps its operand's batch axis."""
    size = batching.axis_size_of(vals, dims)
    with _in_scope(params):
        body, out_batched = batching.batched_jaxpr(params['jaxpr'], size, tuple(dims), False)
    out_dims = [0 if b else batching.not_mapped for b in out_batched]
    in_specs = tuple(map(_batched_spec, params['in_specs'], dims))
    out_specs = tuple(map(_batched_spec, params['out_specs'], out_dims))
    outs = shard_map_p.bind(*vals, **dict(params, jaxpr=_typed(params, body, in_specs, out_specs),
                                          in_specs=in_specs, out_specs=out_specs))
    return outs, out_dims


shard_map_p.def_batching(_shard_map_batching)


# ----------------------------------------------------------------------------- partial eval

def _promoted_residuals(known: ClosedJaxpr, unknown: ClosedJaxpr, num_res: int, forwarded):
    """The split body with each computed residual given a leading axis to concatenate the
    devices' values along (a scalar gets one of size 1, as JAX does): the known part
    returns them so, the unknown part takes them so."""
    computed = [i for i, f in enumerate(forwarded) if f is None]
    scalars = [i for i in computed if not unknown.in_avals[i].shape]
    if not scalars:
        return known, unknown
    n_outs = len(known.out_avals) - len(computed)

    def known_fn(*args):
        outs = eval_jaxpr(known.jaxpr, known.consts, args)
        return [broadcast_in_dim(x, (1,), ()) if k >= n_outs and
                computed[k - n_outs] in scalars else x for k, x in enumerate(outs)]

    def unknown_fn(*args):
        args = [squeeze(x, (0,)) if i in scalars else x for i, x in enumerate(args)]
        return eval_jaxpr(unknown.jaxpr, unknown.consts, args)

    unknown_avals = [a.update(shape=(1,)) if i in scalars else a
                     for i, a in enumerate(unknown.in_avals)]
    return trace_to_jaxpr(known_fn, known.in_avals)[0], \
        trace_to_jaxpr(unknown_fn, unknown_avals)[0]


@cache_on_first_arg
def _split_body(body: ClosedJaxpr, in_unknowns: tuple):
    """(known part, unknown part, which outputs are unknown, where each residual comes
    from), once per body: the same parts, and so the same compiled programs, each time.
    The known part returns the residuals it computes first, then its outputs (JAX's
    order)."""
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(body, in_unknowns)
    known, forwarded = pe.forwarded_residuals(known, num_res)
    known, unknown = _promoted_residuals(known, unknown, num_res, forwarded)
    n_outs = len(known.out_avals) - forwarded.count(None)
    outs = known.jaxpr.outs
    known = ClosedJaxpr(Jaxpr(known.jaxpr.constvars, known.jaxpr.invars, known.jaxpr.eqns,
                              outs[n_outs:] + outs[:n_outs]), known.consts)
    return known, unknown, out_unknowns, forwarded


def _split(params, in_unknowns):
    """The body split into a known and an unknown part, each part's parameters, and where
    each residual comes from (the index of a known input it is, or None: the known part
    computes it, and each device's is stacked along the leading axis)."""
    with _in_scope(params):
        known, unknown, out_unknowns, forwarded = _split_body(params['jaxpr'],
                                                              tuple(in_unknowns))
    known_in, unknown_in = pe.partition_list(in_unknowns, params['in_specs'])
    known_out, unknown_out = pe.partition_list(out_unknowns, params['out_specs'])
    computed = iter(_residual_specs(params, known, known_in, forwarded.count(None)))
    res_specs = tuple(next(computed) if f is None else known_in[f] for f in forwarded)
    known_out_specs = tuple(s for s, f in zip(res_specs, forwarded) if f is None) + \
        tuple(known_out)
    known_params = dict(params, in_specs=tuple(known_in), out_specs=known_out_specs,
                        jaxpr=_typed(params, known, known_in, known_out_specs))
    unknown_params = dict(params, in_specs=res_specs + tuple(unknown_in),
                          out_specs=tuple(unknown_out),
                          jaxpr=_typed(params, unknown, res_specs + tuple(unknown_in),
                                       unknown_out))
    return known_params, unknown_params, out_unknowns, forwarded


def _residuals(forwarded, known_ins, computed) -> list:
    computed = iter(computed)
    return [next(computed) if f is None else known_ins[f] for f in forwarded]


def _shard_map_partial_eval(trace, tracers, **params):
    """Trace time: run the known part on the mesh now, stage the unknown part."""
    in_unknowns = [not t.pval.is_known for t in tracers]
    known_params, unknown_params, out_unknowns, forwarded = _split(params, in_unknowns)
    known_tracers, unknown_tracers = pe.partition_list(in_unknowns, tracers)
    known_vals = [t.pval.const for t in known_tracers]
    res_and_outs = shard_map_p.bind(*known_vals, **known_params)
    computed, known_outs = core.split_list(res_and_outs, forwarded.count(None))
    residuals = _residuals(forwarded, known_vals, computed)
    res_tracers = [trace.instantiate_const(core.full_raise(trace, r)) for r in residuals]
    ins = res_tracers + unknown_tracers
    out_avals = _shard_map_abstract_eval(*(t.aval for t in ins), **unknown_params)
    unknown_outs = trace.stage(shard_map_p, ins, unknown_params, out_avals)
    return pe.merge_lists(out_unknowns, known_outs, unknown_outs)


def _shard_map_partial_eval_jaxpr(unknowns_in, eqn):
    """Jaxpr level: split one shard_map equation into a known and an unknown one."""
    known_params, unknown_params, out_unknowns, forwarded = _split(eqn.params, unknowns_in)
    known_ins, unknown_ins = pe.partition_list(unknowns_in, eqn.inputs)
    known_outs, unknown_outs = pe.partition_list(out_unknowns, eqn.out_binders)
    res_avals = _shard_map_abstract_eval(*(x.aval for x in known_ins), **known_params)
    computed = [Var(a) for a in res_avals[:forwarded.count(None)]]
    residuals = _residuals(forwarded, known_ins, computed)
    known_eqn = JaxprEqn(shard_map_p, known_ins, known_params, computed + known_outs,
                         eqn.source_info)
    unknown_eqn = JaxprEqn(shard_map_p, residuals + unknown_ins, unknown_params, unknown_outs,
                           eqn.source_info)
    return known_eqn, unknown_eqn, out_unknowns, [r for r in residuals if isinstance(r, Var)]


def _shard_map_dce(used_outputs, eqn):
    body, used_inputs = pe.dce_closed_jaxpr(eqn.params['jaxpr'], used_outputs)
    keep = lambda xs, used: tuple(x for x, u in zip(xs, used) if u)  # noqa: E731
    return used_inputs, pe.pruned_eqn(
        eqn, used_inputs, used_outputs, jaxpr=body,
        in_specs=keep(eqn.params['in_specs'], used_inputs),
        out_specs=keep(eqn.params['out_specs'], used_outputs))


pe.partial_eval_rules[shard_map_p] = _shard_map_partial_eval
pe.partial_eval_jaxpr_rules[shard_map_p] = _shard_map_partial_eval_jaxpr
pe.dce_rules[shard_map_p] = _shard_map_dce


# ----------------------------------------------------------------------------- transpose

def _unmentioned(params, spec) -> tuple:
    """The manual axes ``spec`` does not split over: a value is replicated along them."""
    return tuple(n for n in ordered(params['mesh'], params['newly_manual_axes'])
                 if n not in spec_axes(spec))


def _shard_map_transpose(cts, *args, **params):
    """The transposed body runs on the mesh too. With ``check_vma`` the body's casts
    (``pvary``, whose transpose sums over the devices) already say where cotangents meet;
    without, an output replicated along a manual axis came from every device along it, so
    its cotangent is shared out among them, and an input replicated along one gets the sum
    of those devices' cotangents (JAX's two transposes)."""
    mesh = params['mesh']
    undefined = tuple(is_undefined_primal(x) for x in args)
    residuals = [x for x, u in zip(args, undefined) if not u]
    res_specs = tuple(s for s, u in zip(params['in_specs'], undefined) if not u)
    nonzero = nonzero_cts(cts)
    cts = [ct / _split_size(mesh, _unmentioned(params, spec)) if nz and
           not params['check_vma'] and _unmentioned(params, spec) else ct
           for ct, spec, nz in zip(cts, params['out_specs'], nonzero)]
    ct_specs = tuple(s for s, nz in zip(params['out_specs'], nonzero) if nz)
    operands = [*drop_zero_cts(cts), *residuals]
    avals = tuple(shard_aval(mesh, s, core.raise_to_shaped(core.get_aval(x)),
                             params['newly_manual_axes'])
                  for s, x in zip(ct_specs + res_specs, operands))
    others = tuple((k, v) for k, v in sorted(params.items()) if k != 'jaxpr')
    body = _transposed_body(params['jaxpr'], others, undefined, nonzero, avals)
    out_specs = tuple(s for s, u in zip(params['in_specs'], undefined) if u)
    cts_in = iter(shard_map_p.bind(*operands, **dict(
        params, jaxpr=body, in_specs=ct_specs + res_specs, out_specs=out_specs)))
    return [next(cts_in) if u else None for u in undefined]


@cache_on_first_arg
def _transposed_body(body: ClosedJaxpr, others: tuple, undefined, nonzero, avals):
    """The transposed body for these linear inputs and nonzero cotangents (taking the
    cotangents, then the residuals), once per body: the same program each time. The body's
    work on the residuals alone (a promoted residual's squeeze) runs forward; its linear
    part is transposed."""
    params = dict(others, jaxpr=body)
    in_specs = params['in_specs']
    lin_specs = [s for s, u in zip(in_specs, undefined) if u]

    def transposed(*cts_and_res):
        out_cts, res = core.split_list(cts_and_res, nonzero.count(True))
        known, linear, out_linear, num_res = pe.partial_eval_jaxpr(body, undefined)
        backward = transposed_jaxpr(linear, (False,) * num_res + (True,) * len(lin_specs),
                                    tuple(nz for nz, lin in zip(nonzero, out_linear) if lin))
        computed = eval_jaxpr(known.jaxpr, known.consts, res)[out_linear.count(False):]
        cts_iter, lin_cts = iter(out_cts), []
        for nz, lin in zip(nonzero, out_linear):
            ct = next(cts_iter) if nz else None
            if nz and lin:
                lin_cts.append(ct)
        in_cts = eval_jaxpr(backward.jaxpr, backward.consts, [*computed, *lin_cts])
        return [parallel.psum(ct, axes) if not params['check_vma'] and
                (axes := _unmentioned(params, s)) else ct for ct, s in zip(in_cts, lin_specs)]

    with _in_scope(params):
        traced, _ = trace_to_jaxpr(transposed, list(avals))
    ct_specs = tuple(s for s, nz in zip(params['out_specs'], nonzero) if nz)
    res_specs = tuple(s for s, u in zip(in_specs, undefined) if not u)
    return _typed(params, traced, ct_specs + res_specs, tuple(lin_specs))


shard_map_p.def_transpose(_shard_map_transpose)


# ----------------------------------------------------------------------------- lowering

def _shard_map_lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma,
                        newly_manual_axes):
    """``sdy.manual_computation`` over the module's mesh: the operands split as ``in_specs``
    say, the results assembled as ``out_specs`` say, the body on per-device types. When
    the manual axes all have size 1 there is nothing to split: the body is inlined."""
    module_ctx = ctx.module_context
    manual = ordered(mesh, newly_manual_axes)
    inner = parallel.ManualMesh(tuple(mesh.axis_names), tuple(mesh.axis_sizes))
    if _split_size(mesh, manual) == 1:
        with parallel.lowering_manual_computation(inner):
            return lower_closed_jaxpr(module_ctx, jaxpr, args)
    open_dims = len(manual) < len(mesh.axis_names)  # partly manual: the rest is Shardy's
    module_ctx.uses_shardy = True  # (the module's sdy.mesh is made of the inline meshes)

    def shardings(specs, avals):
        return sdy.TensorShardingPerValueAttr.get(
            [sdy_sharding(NamedSharding(mesh, s), a.ndim, open_dims)
             for s, a in zip(specs, avals)])

    in_shardings = shardings(in_specs, ctx.avals_in)
    out_shardings = shardings(out_specs, ctx.avals_out)
    op = sdy.ManualComputationOp([tensor_type(a) for a in ctx.avals_out], list(args),
                                 in_shardings, out_shardings,
                                 sdy.ManualAxesAttr.get([ir.StringAttr.get(n) for n in manual]))
    block = append_block(ctx, op.body, *(tensor_type(a) for a in jaxpr.in_avals))
    with ir.InsertionPoint(block), rule_location(ctx), detached(module_ctx), \
            parallel.lowering_manual_computation(inner):
        sdy.ReturnOp(lower_closed_jaxpr(module_ctx, jaxpr, list(block.arguments)))
    return list(op.results)


register_lowering(shard_map_p, _shard_map_lowering)
for _cast in (parallel.pvary_p, parallel.psum_invariant_p):  # (flops lives above lax)
    flops_rules[_cast] = lambda eqn, known: 0  # no arithmetic: a cast, an all-reduce
flops_rules[shard_map_p] = lambda eqn, known: (
    _split_size(eqn.params['mesh'], eqn.params['newly_manual_axes']) *
    closed_jaxpr_flops(eqn.params['jaxpr']))


# ----------------------------------------------------------------------------- the API

def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Map ``f`` over shards of its arguments, one application per device of ``mesh`` (the
    mesh ``set_mesh`` installed when None). ``in_specs`` (a pytree prefix of the arguments)
    says how each argument is split over the mesh axes, ``out_specs`` how each output's
    per-device results are put together; ``axis_names`` the mesh axes the body is manual
    over (all when empty). With ``check_vma``, an ``out_specs`` entry that leaves out a
    mesh axis the output may vary along is an error. Used as a decorator without ``f``."""
    kwargs = dict(out_specs=out_specs, in_specs=in_specs, mesh=mesh, axis_names=axis_names,
                  check_vma=check_vma)
    if f is None:
        return lambda g: _shard_map(g, **kwargs)
    return _shard_map(f, **kwargs)


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
    """``shard_map`` over the one mesh axis ``axis_name`` of the mesh ``set_mesh`` installed,
    with ``vmap``'s way of saying where it splits: ``in_axes`` (an int, None, or a tuple
    with one entry per positional argument) and ``out_axes`` give the dimension of each
    argument and output the axis splits (None: not split)."""
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f'smap axis_name should be a `str` or a `Hashable`, but got '
                        f'{axis_name}')
    if in_axes is not None and in_axes is not Infer and not isinstance(in_axes, (int, tuple)):
        raise TypeError('smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of '
                        'entries corresponding to the positional arguments passed to the '
                        f'function, but got {in_axes}.')
    if in_axes is not Infer and not all(isinstance(a, int)
                                        for a in tree_util.tree_leaves(in_axes)):
        raise TypeError('smap in_axes must be an int, None, jax.sharding.Infer, or (nested) '
                        f'container with those types as leaves, but got {in_axes}.')
    if not all(isinstance(a, int) for a in tree_util.tree_leaves(out_axes)):
        raise TypeError('smap out_axes must be an int, None, or (nested) container with '
                        f'those types as leaves, but got {out_axes}.')

    def specs(axes):
        return tree_util.tree_map(
            lambda axis: P() if axis is None else P(*[None] * axis, axis_name), axes,
            is_leaf=lambda x: x is None)

    kwargs = dict(in_specs=in_axes if in_axes is Infer else specs(in_axes),
                  out_specs=specs(out_axes), axis_names=frozenset({axis_name}))
    if f is None:
        return lambda g: shard_map(g, **kwargs)
    return shard_map(f, **kwargs)


def _shard_map(f, *, out_specs, in_specs, mesh, axis_names, check_vma):
    if not callable(f):
        raise TypeError('shard_map requires a callable for its first argument, but got '
                        f'{f} of type {type(f)}.')

    traces = {}  # (argument types and static leaves, mesh) -> the staged body and its specs

    def wrapped(*args):
        the_mesh, manual = _checked_mesh(mesh, axis_names, in_specs, out_specs)
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = _flat_in_specs(f, in_specs, args, leaves, the_mesh, manual)
        dynamic = [s is not None for s in specs]
        dyn_leaves = [x for x, d in zip(leaves, dynamic) if d]
        dyn_specs = tuple(s for s in specs if s is not None)
        _check_specs_vs_args(f, the_mesh, in_tree, dynamic, dyn_specs, dyn_leaves)
        avals = [shard_aval(the_mesh, s, core.shaped_aval(x), manual)
                 for s, x in zip(dyn_specs, dyn_leaves)]
        static = tuple(x for x, d in zip(leaves, dynamic) if not d)
        key = _trace_key(in_tree, tuple(avals), dyn_specs, static, the_mesh)
        staged = traces.get(key) if key is not None else None
        if staged is None:
            staged = _stage(f, the_mesh, manual, check_vma, out_specs, leaves, in_tree, dynamic,
                            dyn_specs, avals)
            if key is not None and not staged[1]:  # (a traced value closed over: not kept)
                traces[key] = staged
        body_jaxpr, closed_over, consts, all_specs, flat_out_specs, out_tree = staged
        outs = shard_map_p.bind(
            *consts, *closed_over, *dyn_leaves, jaxpr=body_jaxpr, mesh=the_mesh,
            in_specs=all_specs, out_specs=flat_out_specs, check_vma=check_vma,
            newly_manual_axes=manual)
        return tree_util.tree_unflatten(out_tree, outs)

    wrapped.__name__ = getattr(f, '__name__', 'shard_map')
    wrapped.__wrapped__ = f
    return wrapped


def _trace_key(in_tree, avals, specs, static, mesh):
    """What the staged body depends on (None when a static argument is not hashable)."""
    key = (in_tree, avals, specs, static, mesh)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _stage(f, mesh, manual, check_vma, out_specs, leaves, in_tree, dynamic, dyn_specs, avals):
    """Trace ``f`` on one device's shards: (the body, the traced values it closes over, its
    constants, the specs of all its inputs, its outputs' specs, the output tree)."""
    trees = []

    def body(*dyn):
        dyn = iter(dyn)
        all_leaves = [next(dyn) if d else x for x, d in zip(leaves, dynamic)]
        outs = f(*tree_util.tree_unflatten(in_tree, all_leaves))
        out_leaves, out_tree = tree_util.tree_flatten(outs)
        trees.append(out_tree)
        return out_leaves

    with manual_axes_in_scope(mesh, manual, check_vma):
        closed, closed_over = trace_to_jaxpr(body, avals)
    flat_out_specs = _flat_out_specs(f, out_specs, trees[0], closed.out_avals)
    consts = list(closed.consts)
    all_specs = (P(),) * (len(consts) + len(closed_over)) + dyn_specs
    body_jaxpr = hoist_consts(closed)
    if check_vma:
        body_jaxpr = _typed_body(f, mesh, manual, body_jaxpr, all_specs, flat_out_specs)
    return body_jaxpr, closed_over, consts, all_specs, flat_out_specs, trees[0]


def _checked_mesh(mesh, axis_names, in_specs, out_specs):
    """The mesh (the context's when None) and the manual axes, checked as JAX checks them."""
    context = mesh_lib.get_abstract_mesh()
    if mesh is None:
        if context.empty:
            raise ValueError('The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to '
                             'enter into a mesh context')
        mesh = context  # (runs on the mesh set_mesh installed: spmd_call.jaxpr_meshes)
    elif not isinstance(mesh, (Mesh, AbstractMesh)):
        raise TypeError('shard_map requires a `jax.sharding.Mesh` or a '
                        '`jax.sharding.AbstractMesh` instance for its second argument, but '
                        f'got {mesh} of type {type(mesh)}.')
    elif not context.empty and mesh.abstract_mesh != context:
        raise ValueError(f'The context mesh {context} should match the mesh passed to '
                         f'shard_map {mesh}')
    if mesh.empty:
        raise ValueError(f'shard_map requires a non-empty mesh. Got {mesh}')
    if not isinstance(axis_names, (frozenset, set)):
        raise TypeError('`axis_names` argument of shard_map should be of type `frozenset` or '
                        f'`set`. Got type: {type(axis_names)}')
    manual = frozenset(axis_names) or frozenset(mesh.axis_names) - frozenset()
    if not manual <= frozenset(mesh.axis_names):
        raise ValueError(f'jax.shard_map requires axis_names={manual} to be a subset of '
                         f'mesh.axis_names={mesh.axis_names}')
    types = mesh._name_to_type
    if in_specs is Infer and not all(types[a] is AxisType.Explicit for a in manual):
        raise TypeError(
            'shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` '
            f'instances, but it was `None` when axis_names={manual} are of type '
            + ', '.join(str(types[a]) for a in ordered(mesh, manual)))
    if in_specs is None:
        raise TypeError('shard_map in_specs argument must be a pytree of '
                        '`jax.sharding.PartitionSpec` instances, but it was None.\nInstead '
                        'of `in_specs=None`, did you mean `in_specs=P()`, where '
                        '`P = jax.sharding.PartitionSpec`?')
    if in_specs is not Infer:
        _check_specs('in', in_specs, manual)
    _check_specs('out', out_specs, manual)
    return mesh, manual - set(mesh.manual_axes)


def _check_specs(prefix, specs, manual) -> None:
    """Each leaf a ``PartitionSpec`` (TypeError) naming only manual axes (ValueError)."""
    paths = tree_util.tree_flatten_with_path(specs)[0]  # (None: no leaf, a static argument)
    wrong = [f'  {prefix}_specs{tree_util.keystr(k)} is {x} of type {type(x).__name__}, '
             for k, x in paths if not isinstance(x, PartitionSpec)]
    if wrong:
        raise TypeError(f'shard_map {prefix}_specs argument must be a pytree of '
                        '`jax.sharding.PartitionSpec` instances, but:\n\n' + '\n\n'.join(wrong)
                        + f'\n\nCheck the {prefix}_specs values passed to shard_map.')
    unknown = [f'  {prefix}_specs{tree_util.keystr(k)} refers to {n!r}'
               for k, spec in paths for n in spec_axes(spec) if n not in manual]
    if unknown:
        raise ValueError(f'shard_map {prefix}_specs argument must refer to an axis marked as '
                         f'manual ({manual}), but:\n\n' + '\n\n'.join(unknown) +
                         f'\n\nCheck the {prefix}_specs values passed to shard_map.')


def _flat_in_specs(f, in_specs, args, leaves, mesh, manual) -> list:
    """A spec per argument leaf (None: a static leaf, passed to the body as it is). On a
    mesh whose axes are all manual and ``Explicit``, an argument's own sharding must be
    what its spec says (JAX's ValueError)."""
    if in_specs is Infer:
        return [_manual_spec(_sharding_spec(x), manual) for x in leaves]
    try:
        specs = tree_util.broadcast_prefix(in_specs, args, is_leaf=lambda x: x is None)
    except ValueError as err:
        raise ValueError(f'shard_map in_specs: {err}') from None
    if manual == frozenset(mesh.axis_names) and \
            all(t is AxisType.Explicit for t in mesh.axis_types):
        for x, spec in zip(leaves, specs):
            if spec is None:
                continue
            ndim = np.ndim(x)
            want, have = (s._normalized_spec_for_aval(ndim) for s in (spec, _sharding_spec(x)))
            if want != have:
                raise ValueError(
                    f'in_specs passed to shard_map: {want} does not match the specs of the '
                    f'input: {have} for arg: {core.shaped_aval(x).str_short()}. `in_specs` is '
                    'an optional argument so you can omit specifying it and shard_map will '
                    'infer the in_specs from the arguments. If you want to reshard your '
                    'inputs, you can use `jax.reshard` on the arguments and then pass those '
                    'args to shard_map.')
    return specs


def _sharding_spec(x) -> PartitionSpec:
    """The spec ``x`` is laid out by: a sharded Array's, or a traced value's type's; an
    unsharded value is replicated."""
    sharding = core.get_aval(x).sharding if isinstance(x, core.Tracer) else \
        getattr(x, 'sharding', None)
    return sharding.spec if isinstance(sharding, NamedSharding) else P()


def _manual_spec(spec: PartitionSpec, manual) -> PartitionSpec:
    """``spec`` with the axes that are not manual left out."""
    entries = []
    for names in spec.partitions:
        kept = tuple(n for n in (names if isinstance(names, tuple) else (names,))
                     if n is not None and n in manual)
        entries.append(None if not kept else kept[0] if len(kept) == 1 else kept)
    return P(*entries)


def _flat_out_specs(f, out_specs, out_tree, out_avals) -> tuple:
    placeholders = tree_util.tree_unflatten(out_tree, [object()] * out_tree.num_leaves)
    try:
        flat = tree_util.broadcast_prefix(out_specs, placeholders, is_leaf=lambda x: x is None)
    except ValueError as err:
        raise ValueError(f'shard_map out_specs: {err}') from None
    too_long = [(s, a) for s, a in zip(flat, out_avals) if len(s) > a.ndim]
    if too_long:
        raise ValueError(_rank_error('out', f, too_long))
    return tuple(flat)


def _rank_error(prefix, f, fails) -> str:
    name = getattr(f, '__name__', str(f))
    lines = '\n\n'.join(f'* {prefix}_specs entry {s} has length {len(s)}, but the '
                        f'{prefix}put has shape {a.str_short()}, which has rank {a.ndim} '
                        f'(and {a.ndim} < {len(s)})' for s, a in fails)
    msg = (f"shard_map applied to the function '{name}' was given an {prefix}_specs entry "
           f'which is too long to be compatible with the corresponding {prefix}put value '
           f'from the function:\n\n{lines}\n\nEntries in {prefix}_specs must be of length no '
           f'greater than the number of axes in the corresponding {prefix}put value.')
    if any(not a.ndim for _, a in fails):
        msg += (f'\n\nFor scalar values (rank 0), consider using an {prefix}_specs entry of '
                '`P()`, where `P = jax.sharding.PartitionSpec`.')
    return msg


def _check_specs_vs_args(f, mesh, in_tree, dynamic, specs, leaves) -> None:
    """Each argument has at least as many axes as its spec, and each split axis a size the
    mesh axes' divides (ValueErrors, as JAX's)."""
    avals = [core.shaped_aval(x) for x in leaves]
    too_long = [(s, a) for s, a in zip(specs, avals) if len(s) > a.ndim]
    if too_long:
        raise ValueError(_rank_error('in', f, too_long))
    name = getattr(f, '__name__', str(f))
    bad = []
    for spec, aval in zip(specs, avals):
        for d, names in spec_names(spec).items():
            size = _split_size(mesh, names)
            if aval.shape[d] % size:
                axes = f'axes {names}' if len(names) > 1 else f"axis '{names[0]}'"
                bad.append(f'* the argument of shape {aval.str_short()} corresponds to '
                           f'in_specs entry {spec}, which maps array axis {d} (of size '
                           f'{aval.shape[d]}) to mesh {axes} (of size {size}), but {size} '
                           f'does not evenly divide {aval.shape[d]}')
    if bad:
        raise ValueError(
            f"shard_map applied to the function '{name}' was given argument arrays with axis "
            'sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n'
            f'The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis '
            f'names {mesh.axis_names}.\n\n' + '\n\n'.join(bad))


def _typed_body(f, mesh, manual, body: ClosedJaxpr, in_specs, out_specs) -> ClosedJaxpr:
    """``check_vma``: the body as JAX stages it (``vma.with_pvary``), each output cast to
    vary along the axes its spec splits over; an output that may vary along a manual axis
    its spec leaves out is JAX's error."""
    in_axes = [spec_axes(s) for s in in_specs]
    with manual_axes_in_scope(mesh, manual, True):
        body, _ = vma.with_pvary(body, in_axes, mesh.axis_names)
        body = vma.cast_outputs(body, in_axes, [spec_axes(s) for s in out_specs],
                                mesh.axis_names)
    varying = vma.varying_axes(body.jaxpr, in_axes)
    vma.annotate(body.jaxpr, in_axes, mesh.axis_names)
    name = getattr(f, '__name__', str(f))
    bad = []
    for spec, vary in zip(out_specs, varying):
        missing = [n for n in ordered(mesh, manual) if n in vary and n not in spec_axes(spec)]
        if missing:
            bad.append(f'* out_specs entry {spec} says the output is equal along mesh axes '
                       f'{missing}, but it may vary along {list(ordered(mesh, vary))}')
    if bad:
        raise ValueError(
            f"shard_map applied to the function '{name}' was given out_specs which require "
            'replication which can\'t be statically inferred given the mesh:\n\n'
            f'The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis names '
            f'{mesh.axis_names}.\n\n' + '\n\n'.join(bad) + '\n\nCheck if these output values '
            'are meant to be replicated over those mesh axes. If not, consider revising the '
            'corresponding out_specs entries. If so, consider disabling the check by passing '
            'the check_vma=False argument to `jax.shard_map`.')
    return body
