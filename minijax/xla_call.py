"""``xla_call``: the higher-order primitive that ``jit`` binds, holding a closed jaxpr.

Evaluating ``xla_call`` lowers the jaxpr to StableHLO, compiles it with PJRT (once per
jaxpr) and runs it; under a transformation, its rules transform the jaxpr instead, so
``jit`` composes with ``jvp``, ``vmap``, ``grad`` and itself. Nested, it lowers to a
``func.call`` of a private function.
"""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from minijax import core, runtime, spmd_call
from minijax.array import Array, from_device, release_host_views, to_device
from minijax.caching import cache_on_first_arg
from minijax.core import Primitive
from minijax.dump import dump_module
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.transpose import (drop_zero_cts, is_undefined_primal, nonzero_cts,
                                            transposed_jaxpr)
from minijax.ir.jaxpr import ClosedJaxpr, JaxprEqn, Var, same_type
from minijax.lowering import lower_jaxpr_to_module, register_lowering, tensor_type
from minijax.sharding import NamedSharding, mesh as mesh_lib, rules as sharding_rules

xla_call_p = Primitive('xla_call', multiple_results=True)
sharding_rules.register(sharding_rules.AS_TRACED, xla_call_p)  # its results: its jaxpr's types


def xla_call(*args, jaxpr: ClosedJaxpr, name: str, in_shardings=None, out_shardings=None,
             ctx_mesh=None, donated_invars=()):
    """Bind ``xla_call``. ``in_shardings``/``out_shardings``: per argument and result, a
    sharding or None (XLA chooses), as ``jit`` was given them; parameters of the equation
    only where one is given (JAX prints them then), so a call without any keeps JAX's
    ``jit[name=... jaxpr=...]``. ``ctx_mesh``: the mesh in context when ``jit`` traced the
    function (a transformation passes the call's on), a parameter only when there is one,
    as JAX prints it. ``donated_invars``: per argument, whether the call may take its
    buffer (``jit(donate_argnums=...)``), a parameter only when one is donated, as JAX
    prints it."""
    if ctx_mesh is None:
        ctx_mesh = _context_mesh()
    return xla_call_p.bind(*args, **_params(jaxpr, name, in_shardings, out_shardings,
                                            ctx_mesh, donated_invars))


def _context_mesh():
    """JAX's ``ctx_mesh`` of a ``jit``: the concrete mesh ``set_mesh`` installed, else an
    abstract one with an Explicit axis (``use_abstract_mesh``), else None."""
    concrete = mesh_lib.get_concrete_mesh()
    if not concrete.empty:
        return concrete
    abstract = mesh_lib.get_abstract_mesh()
    return abstract if not abstract.empty and abstract.explicit_axes else None


def _params(jaxpr, name, in_shardings, out_shardings, ctx_mesh=None, donated_invars=()) -> dict:
    params = dict(jaxpr=jaxpr, name=name)
    if ctx_mesh is not None:
        params['ctx_mesh'] = ctx_mesh
    if any(donated_invars):
        params['donated_invars'] = tuple(donated_invars)
    if any(s is not None for s in (*(in_shardings or ()), *(out_shardings or ()))):
        params.update(in_shardings=tuple(in_shardings or (None,) * len(jaxpr.in_avals)),
                      out_shardings=tuple(out_shardings or (None,) * len(jaxpr.out_avals)))
    return params


def _kept(shardings, flags, keep=True) -> tuple | None:
    """The shardings whose flag is ``keep`` (None where there are none)."""
    return None if shardings is None else tuple(s for s, f in zip(shardings, flags)
                                                if f == keep)


# ----------------------------------------------------------------------------- evaluation

@cache_on_first_arg
def lowered_module(closed: ClosedJaxpr, name: str, arg_names: tuple[str, ...] = (),
                   result_names: tuple[str, ...] = (),
                   place: spmd_call.Placement | None = None,
                   donated: tuple[bool, ...] = ()) -> ir.Module:
    """The module of ``jit(<name>)``, without the equations no output needs (as JAX lowers
    it: a gradient's unused forward values are not computed); ``arg_names`` locate
    ``@main``'s arguments and ``result_names`` name its results. A program over a mesh
    (``place``) has its partition count and its arguments' and results' shardings.
    ``donated``: per argument, whether its buffer is given to the program (empty: none)."""
    runtime.counters['lower'] += 1
    live, _ = pe.dce_closed_jaxpr(closed, [True] * len(closed.out_avals), instantiate=True)
    if place is None:
        return lower_jaxpr_to_module(live, f'jit_{name}', f'jit({name})', arg_names,
                                     result_names, donated_args=donated)
    return lower_jaxpr_to_module(live, f'jit_{name}', f'jit({name})', arg_names, result_names,
                                 place.num_partitions, place.in_shardings, place.out_shardings,
                                 donated)


@cache_on_first_arg
def executable(closed: ClosedJaxpr, name: str, arg_names: tuple[str, ...] = (),
               result_names: tuple[str, ...] = (), compiler_options: tuple = (),
               donated: tuple[bool, ...] = ()) -> runtime.Executable:
    """``jit(<name>)`` compiled, with XLA's ``compiler_options`` ((name, value) pairs),
    taking the buffers of the ``donated`` arguments."""
    module = lowered_module(closed, name, arg_names, result_names, None, donated)
    dump_module(module)
    return runtime.compile_module(module, compiler_options)


@cache_on_first_arg
def spmd_executable(closed: ClosedJaxpr, name: str, arg_names: tuple[str, ...],
                    result_names: tuple[str, ...], place: spmd_call.Placement,
                    compiler_options: tuple = (), donated: tuple[bool, ...] = ()
                    ) -> runtime.SpmdExecutable:
    """``jit(<name>)`` compiled for ``place``'s devices; XLA chooses the layouts not given."""
    module = lowered_module(closed, name, arg_names, result_names, place, donated)
    dump_module(module)
    outs = place.out_shardings or (None,) * len(closed.out_avals)
    return runtime.compile_spmd(module, place.devices, [s is None for s in place.in_shardings],
                                [s is None for s in outs], compiler_options)


def check_values(what, arg_names, leaves) -> None:
    """A TypeError naming an argument that has a type but no value (a ``ShapeDtypeStruct``):
    it can be lowered, not run."""
    for name, leaf in zip(arg_names, leaves):
        if not core.is_valid_value(leaf):
            raise TypeError(f"{what}: argument '{name}': {core.invalid_type_error(leaf)}")


def option_pairs(compiler_options) -> tuple:
    """XLA's options as sorted (name, value) pairs: hashable, so they key the caches."""
    if compiler_options is None:
        return ()
    if not isinstance(compiler_options, dict):
        raise TypeError(f'jit: compiler_options must be a dict of XLA option names to values, '
                        f'got {type(compiler_options).__name__}')
    return tuple(sorted(compiler_options.items()))


def run(exe: runtime.Executable, args, out_avals) -> list[Array]:
    """Buffers in, Arrays (and Tokens) out: an Array argument passes its device buffer as
    it is (a donated one for the program to take)."""
    if exe.donated:
        release_host_views(args, exe.donated)
    return [from_device(b, a) for b, a in zip(exe([to_device(x) for x in args]), out_avals)]


def _xla_call_impl(*args, jaxpr, name, in_shardings=None, out_shardings=None, ctx_mesh=None,
                   donated_invars=()):
    """Run the call; with shardings (given, the arguments', its constraints'), over their
    mesh (``spmd_call``)."""
    place = None
    if in_shardings is not None or any(map(spmd_call.is_sharded, args)) or \
            spmd_call.jaxpr_meshes(jaxpr):
        place = spmd_call.placement(f'jit({name})', args, in_shardings or (),
                                    out_shardings or (), closed=jaxpr)
    if place is not None:
        return spmd_call.run(spmd_executable(jaxpr, name, (), (), place, (), donated_invars),
                             place, args, jaxpr.out_avals)
    return run(executable(jaxpr, name, (), (), (), donated_invars), args, jaxpr.out_avals)


def _xla_call_abstract_eval(*in_avals, jaxpr, name, **shardings_and_donation):
    for i, (given, expected) in enumerate(zip(in_avals, jaxpr.in_avals, strict=True)):
        if not same_type(given, expected):
            raise TypeError(f'xla_call {name}: argument {i} has type {given.str_short()} but the '
                            f'jaxpr expects {expected.str_short()}')
    return jaxpr.out_avals


xla_call_p.def_impl(_xla_call_impl)
xla_call_p.def_abstract_eval(_xla_call_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _xla_call_jvp(primals, tangents, *, jaxpr, name, in_shardings=None, out_shardings=None,
                  ctx_mesh=None, donated_invars=()):
    """A tangent lies as its primal does, and is donated where its primal is."""
    nonzeros = ad.nonzero_flags(tangents)
    new_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, (False,) * len(jaxpr.out_avals))
    ins = outs = None
    if in_shardings is not None:
        ins = in_shardings + _kept(in_shardings, nonzeros)
        outs = out_shardings + _kept(out_shardings, out_nonzeros)
    if donated_invars:
        donated_invars = donated_invars + _kept(donated_invars, nonzeros)
    outs = xla_call(*primals, *ad.drop_zeros(tangents), jaxpr=new_jaxpr, name=name,
                    in_shardings=ins, out_shardings=outs, ctx_mesh=ctx_mesh,
                    donated_invars=donated_invars)
    primals_out, tangents_out = core.split_list(outs, len(out_nonzeros))
    return primals_out, ad.fill_zeros(tangents_out, out_nonzeros, primals_out)


xla_call_p.def_jvp(_xla_call_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- vmap

def _xla_call_batching(vals, dims, *, jaxpr, name, in_shardings=None, out_shardings=None,
                       ctx_mesh=None, donated_invars=()):
    """A batched value's batch dimension is not split (JAX's rule without
    ``spmd_axis_name``)."""
    axis_size = batching.axis_size_of(vals, dims)
    new_jaxpr, out_batched = batching.batched_jaxpr(jaxpr, axis_size, tuple(dims), False)
    out_dims = [0 if b else batching.not_mapped for b in out_batched]
    ins = outs = None
    if in_shardings is not None:
        ins = tuple(map(_batched, in_shardings, dims, jaxpr.in_avals))
        outs = tuple(map(_batched, out_shardings, out_dims, jaxpr.out_avals))
    outs = xla_call(*vals, jaxpr=new_jaxpr, name=name, in_shardings=ins, out_shardings=outs,
                    ctx_mesh=ctx_mesh, donated_invars=donated_invars)
    return outs, out_dims


def _batched(sharding, dim, aval):
    """``sharding`` of a value of type ``aval`` given a batch dimension at ``dim``."""
    if dim is batching.not_mapped or not isinstance(sharding, NamedSharding):
        return sharding
    entries = list(sharding.spec.partitions)
    entries += [None] * (aval.ndim - len(entries))
    entries.insert(dim, None)
    return sharding.update(spec=sharding.spec.update(partitions=entries))


xla_call_p.def_batching(_xla_call_batching)


# ----------------------------------------------------------------------------- partial eval

def _xla_call_partial_eval(trace, tracers, *, jaxpr, name, in_shardings=None,
                           out_shardings=None, ctx_mesh=None, donated_invars=()):
    """Trace time: run the known part of the call now, stage a call of the unknown part.
    A residual that is one of the known inputs is passed on as it is, not returned (XLA
    lays the residuals out)."""
    in_unknowns = [not t.pval.is_known for t in tracers]
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, in_unknowns)
    known, forwarded = pe.forwarded_residuals(known, num_res)
    known_tracers, unknown_tracers = pe.partition_list(in_unknowns, tracers)
    known_vals = [t.pval.const for t in known_tracers]
    known_params, unknown_params = _split_shardings(
        known, unknown, in_unknowns, out_unknowns, num_res, in_shardings, out_shardings)
    known_donated, unknown_donated = _split_donated(donated_invars, in_unknowns, num_res)
    outs_and_res = xla_call(*known_vals, name=name, ctx_mesh=ctx_mesh,
                            donated_invars=known_donated, **known_params)
    known_outs, computed = core.split_list(outs_and_res, out_unknowns.count(False))
    residuals = _with_forwarded(forwarded, known_vals, computed)
    res_tracers = [trace.instantiate_const(core.full_raise(trace, r)) for r in residuals]
    unknown_outs = trace.stage(xla_call_p, res_tracers + unknown_tracers,
                               _params(name=name, ctx_mesh=ctx_mesh,
                                       donated_invars=unknown_donated, **unknown_params),
                               unknown.out_avals)
    return pe.merge_lists(out_unknowns, known_outs, unknown_outs)


def _xla_call_partial_eval_jaxpr(unknowns_in, eqn):
    """Jaxpr level: split one xla_call equation into a known and an unknown call."""
    jaxpr, name = eqn.params['jaxpr'], eqn.params['name']
    ctx_mesh = eqn.params.get('ctx_mesh')
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns_in)
    known, forwarded = pe.forwarded_residuals(known, num_res)
    known_params, unknown_params = _split_shardings(
        known, unknown, unknowns_in, out_unknowns, num_res, eqn.params.get('in_shardings'),
        eqn.params.get('out_shardings'))
    known_donated, unknown_donated = _split_donated(eqn.params.get('donated_invars', ()),
                                                    unknowns_in, num_res)
    known_ins, unknown_ins = pe.partition_list(unknowns_in, eqn.inputs)
    known_outs, unknown_outs = pe.partition_list(out_unknowns, eqn.out_binders)
    computed = [Var(a) for a, f in zip(unknown.in_avals[:num_res], forwarded) if f is None]
    residuals = _with_forwarded(forwarded, known_ins, computed)
    known_eqn = JaxprEqn(xla_call_p, known_ins,
                         _params(name=name, ctx_mesh=ctx_mesh, donated_invars=known_donated,
                                 **known_params),
                         known_outs + computed, eqn.source_info)
    unknown_eqn = JaxprEqn(xla_call_p, residuals + unknown_ins,
                           _params(name=name, ctx_mesh=ctx_mesh,
                                   donated_invars=unknown_donated, **unknown_params),
                           unknown_outs, eqn.source_info)
    return known_eqn, unknown_eqn, out_unknowns, [r for r in residuals if isinstance(r, Var)]


def _split_shardings(known, unknown, in_unknowns, out_unknowns, num_res, in_shardings,
                     out_shardings):
    """The parameters (jaxpr and shardings) of the known and the unknown call: each keeps
    its inputs' and outputs' shardings; the residuals have none (XLA lays them out)."""
    if in_shardings is None:
        return (dict(jaxpr=known, in_shardings=None, out_shardings=None),
                dict(jaxpr=unknown, in_shardings=None, out_shardings=None))
    computed = len(known.out_avals) - out_unknowns.count(False)
    known_params = dict(jaxpr=known, in_shardings=_kept(in_shardings, in_unknowns, False),
                        out_shardings=_kept(out_shardings, out_unknowns, False)
                        + (None,) * computed)
    unknown_params = dict(jaxpr=unknown,
                          in_shardings=(None,) * num_res + _kept(in_shardings, in_unknowns),
                          out_shardings=_kept(out_shardings, out_unknowns))
    return known_params, unknown_params


def _split_donated(donated_invars, in_unknowns, num_res) -> tuple[tuple, tuple]:
    """The donated inputs of the known and the unknown call: each keeps its inputs'
    flags; the residuals are not donated (JAX's rule)."""
    if not donated_invars:
        return (), ()
    return (_kept(donated_invars, in_unknowns, False),
            (False,) * num_res + _kept(donated_invars, in_unknowns))


def _with_forwarded(forwarded, known_ins, computed) -> list:
    """The residuals in order: each forwarded one is a known input, the rest are computed."""
    computed = iter(computed)
    return [next(computed) if f is None else known_ins[f] for f in forwarded]


pe.partial_eval_rules[xla_call_p] = _xla_call_partial_eval
pe.partial_eval_jaxpr_rules[xla_call_p] = _xla_call_partial_eval_jaxpr


def _xla_call_dce(used_outputs, eqn):
    """A nested jit keeps the used outputs and the inputs they read."""
    body, used_inputs = pe.dce_closed_jaxpr(eqn.params['jaxpr'], used_outputs)
    kept = {}
    if 'in_shardings' in eqn.params:
        kept = dict(in_shardings=_kept(eqn.params['in_shardings'], used_inputs),
                    out_shardings=_kept(eqn.params['out_shardings'], used_outputs))
    if 'donated_invars' in eqn.params:
        kept['donated_invars'] = _kept(eqn.params['donated_invars'], used_inputs)
    return used_inputs, pe.pruned_eqn(eqn, used_inputs, used_outputs, jaxpr=body, **kept)


pe.dce_rules[xla_call_p] = _xla_call_dce


# ----------------------------------------------------------------------------- transpose

def _xla_call_transpose(cts, *args, jaxpr, name, in_shardings=None, out_shardings=None,
                        ctx_mesh=None, donated_invars=()):
    """The cotangent of an input lies as the input does, a result's cotangent as the
    result. Nothing is donated (the inputs are residuals and cotangents)."""
    undefined = tuple(is_undefined_primal(x) for x in args)
    residuals = [x for x in args if not is_undefined_primal(x)]
    transposed = transposed_jaxpr(jaxpr, undefined, nonzero_cts(cts))
    ins = outs = None
    if in_shardings is not None:
        ins = _kept(in_shardings, undefined, False) + _kept(out_shardings, nonzero_cts(cts))
        outs = _kept(in_shardings, undefined)
    cts_in = xla_call(*residuals, *drop_zero_cts(cts), jaxpr=transposed, name=name,
                      in_shardings=ins, out_shardings=outs, ctx_mesh=ctx_mesh)
    cts_it = iter(cts_in)
    return [next(cts_it) if u else None for u in undefined]


xla_call_p.def_transpose(_xla_call_transpose)


# ----------------------------------------------------------------------------- lowering

def _xla_call_lowering(ctx, *args, jaxpr, name, in_shardings=None, out_shardings=None,
                       ctx_mesh=None, donated_invars=()):
    """A ``func.call`` of the private function; with shardings, the function constrains
    its arguments and results to them, as JAX lowers a nested ``jit`` given shardings. A
    function with ordered effects takes the caller's token and returns the next one.
    Donation is the outermost program's: a nested call gives no buffer away (as JAX)."""
    shardings = None if in_shardings is None else (in_shardings, out_shardings)
    module = ctx.module_context
    symbol = module.private_function(name, jaxpr, shardings)
    tokens = [module.token] if jaxpr.ordered else []  # (it runs ordered effects: threaded)
    result_types = [tensor_type(a) for a in (*[core.abstract_token] * len(tokens),
                                             *ctx.avals_out)]
    call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(symbol), [*tokens, *args])
    if tokens:
        module.token, *outs = call.results
        return outs
    return list(call.results)


register_lowering(xla_call_p, _xla_call_lowering)
