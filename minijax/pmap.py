"""``pmap``: run a function on several devices at once, one slice of the mapped axis each.

``pmap(f, axis_name)(xs)`` traces ``f`` once on one slice (the per-device program, in which
collectives such as ``lax.psum(x, axis_name)`` reach the other devices) and binds the
``xla_pmap`` primitive with that jaxpr. Evaluating it lowers the jaxpr to a StableHLO module
compiled with ``num_replicas = n`` (SPMD: one program, n replicas, see docs/spmd.md), puts
slice ``i`` of each mapped argument on device ``i`` and stacks the devices' results. Like
``xla_call``, the primitive has every rule, so ``grad``, ``jvp``, ``vmap`` and ``linearize``
of a pmapped function work. The CPU client has one device unless asked for more
(``MINIJAX_NUM_CPU_DEVICES`` or ``config.update('minijax_num_cpu_devices', n)``).

Not supported (each refused with an error that says so): pmap nested in pmap, pmap inside
``jit`` (JAX runs it there with a warning), ``axis_index_groups``.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from minijax import core, runtime, tree_util
from minijax.array import Array, physical_value
from minijax.caching import cache_on_first_arg
from minijax.core import Primitive
from minijax.dump import dump_module
from minijax.flops import flops_rules, closed_jaxpr_flops
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.batching import in_axes_per_leaf, moveaxis, not_mapped
from minijax.interpreters.transpose import (drop_zero_cts, is_undefined_primal, nonzero_cts,
                                            transposed_jaxpr)
from minijax.ir.jaxpr import ClosedJaxpr, JaxprEqn, Var, same_type
from minijax.control_flow.common import hoist_consts
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lax import collectives_beyond_cpu, parallel
from minijax.lax.reductions import reduce_sum
from minijax.lowering import (lower_jaxpr_to_module, mlir_context, module_text,
                              register_lowering)

__all__ = ['pmap', 'xla_pmap_p']

xla_pmap_p = Primitive('xla_pmap', multiple_results=True)


def xla_pmap(*args, **params):
    return xla_pmap_p.bind(*args, **params)


def _in_axis(params):
    """The named axis in scope while a rule retraces the body (its collectives need it)."""
    return core.extend_axis_env(params['axis_name'], params['axis_size'])


def _stacked(aval, size):
    return aval.update(shape=(size, *aval.shape))


# ----------------------------------------------------------------------------- evaluation

@cache_on_first_arg
def replicated_module(closed: ClosedJaxpr, axis_name, axis_size: int, name: str) -> ir.Module:
    """The per-device program as ``module @pmap_<name>`` for ``axis_size`` replicas."""
    runtime.counters['lower'] += 1
    with core.extend_axis_env(axis_name, axis_size):
        module = lower_jaxpr_to_module(closed, f'pmap_{name}')
    with mlir_context():
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes['mhlo.num_replicas'] = ir.IntegerAttr.get(i32, axis_size)
        module.operation.attributes['mhlo.num_partitions'] = ir.IntegerAttr.get(i32, 1)
    return module


@cache_on_first_arg
def replicated_executable(closed, axis_name, axis_size, name, devices):
    module = replicated_module(closed, axis_name, axis_size, name)
    dump_module(module)
    return runtime.compile_replicated(module, _devices(name, axis_size, devices))


def _devices(name, axis_size, devices) -> tuple:
    """The devices to run ``axis_size`` replicas on: ``devices``, or the first ones."""
    if runtime.process_count() > 1:
        raise NotImplementedError(
            f'pmap {name}: minijax runs pmap in one process, and this one is one of '
            f'{runtime.process_count()} (minijax.distributed): use jit over a mesh or shard_map')
    available = runtime.devices()
    on = tuple(devices) if devices is not None else tuple(available[:axis_size])
    if len(on) != axis_size:
        raise ValueError(
            f'pmap {name}: the mapped axis has size {axis_size} but '
            + (f'{len(on)} devices were given' if devices is not None else
               f'only {len(available)} devices are available (ask for more with '
               f'${runtime.NUM_CPU_DEVICES_VARIABLE} or '
               "config.update('minijax_num_cpu_devices', n) before the first pmap)"))
    return on


def _xla_pmap_impl(*args, call_jaxpr, axis_name, axis_size, mapped_invars, name, devices):
    exe = replicated_executable(call_jaxpr, axis_name, axis_size, name, devices)
    per_device = [list(physical_value(x)) if mapped else [physical_value(x)] * axis_size
                  for x, mapped in zip(args, mapped_invars)]
    outs = []
    for value, aval in zip(exe(per_device), call_jaxpr.out_avals):
        value.flags.writeable = False
        outs.append(Array(None, _stacked(aval, axis_size), value))
    return outs


def _xla_pmap_abstract_eval(*in_avals, call_jaxpr, axis_name, axis_size, mapped_invars, name,
                            devices):
    for i, (given, mapped, expected) in enumerate(zip(in_avals, mapped_invars,
                                                      call_jaxpr.in_avals, strict=True)):
        if not same_type(given, _stacked(expected, axis_size) if mapped else expected):
            raise TypeError(f'xla_pmap {name}: argument {i} has type {given.str_short()} but '
                            f'the per-device jaxpr expects {expected.str_short()}'
                            f'{f" mapped over {axis_size} devices" if mapped else ""}')
    return [_stacked(a, axis_size) for a in call_jaxpr.out_avals]


xla_pmap_p.def_impl(_xla_pmap_impl)
xla_pmap_p.def_abstract_eval(_xla_pmap_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _xla_pmap_jvp(primals, tangents, **params):
    nonzeros = ad.nonzero_flags(tangents)
    with _in_axis(params):
        body, out_nonzeros = ad.jvp_jaxpr(params['call_jaxpr'], nonzeros,
                                          (False,) * len(params['call_jaxpr'].out_avals))
    mapped = params['mapped_invars']
    mapped += tuple(m for m, nz in zip(mapped, nonzeros) if nz)
    outs = xla_pmap(*primals, *ad.drop_zeros(tangents),
                    **dict(params, call_jaxpr=body, mapped_invars=mapped))
    primals_out, tangents_out = core.split_list(outs, len(out_nonzeros))
    return primals_out, ad.fill_zeros(tangents_out, out_nonzeros, primals_out)


xla_pmap_p.def_jvp(_xla_pmap_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- vmap

def _xla_pmap_batching(vals, dims, **params):
    """The batch axis goes inside the device axis: a mapped operand batched at axis 0 has it
    moved to 1, and the per-device body is batched at ``dim - 1``."""
    size = batching.axis_size_of(vals, dims)
    vals, body_dims = list(vals), []
    for i, (x, d, mapped) in enumerate(zip(vals, dims, params['mapped_invars'])):
        if mapped and d == 0:
            vals[i], d = moveaxis(x, 0, 1), 1
        body_dims.append(d - 1 if mapped and d is not not_mapped else d)
    with _in_axis(params):
        body, out_batched = batching.batched_jaxpr(params['call_jaxpr'], size,
                                                   tuple(body_dims), False)
    outs = xla_pmap(*vals, **dict(params, call_jaxpr=body))
    return outs, [1 if b else not_mapped for b in out_batched]


xla_pmap_p.def_batching(_xla_pmap_batching)


# ----------------------------------------------------------------------------- partial eval

def _split(params, in_unknowns):
    """The body split into a known and an unknown part, and each part's parameters: the
    residuals pass between them stacked over the devices, so they are mapped."""
    with _in_axis(params):
        known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(params['call_jaxpr'],
                                                                      in_unknowns)
    known_mapped, unknown_mapped = pe.partition_list(in_unknowns, params['mapped_invars'])
    known_params = dict(params, call_jaxpr=known, mapped_invars=tuple(known_mapped))
    unknown_params = dict(params, call_jaxpr=unknown,
                          mapped_invars=(True,) * num_res + tuple(unknown_mapped))
    return known_params, unknown_params, out_unknowns, num_res


def _xla_pmap_partial_eval(trace, tracers, **params):
    """Trace time: run the known part on the devices now, stage the unknown part."""
    in_unknowns = [not t.pval.is_known for t in tracers]
    known_params, unknown_params, out_unknowns, num_res = _split(params, in_unknowns)
    known_tracers, unknown_tracers = pe.partition_list(in_unknowns, tracers)
    outs_and_res = xla_pmap(*(t.pval.const for t in known_tracers), **known_params)
    known_outs, residuals = core.split_list(outs_and_res, len(outs_and_res) - num_res)
    res_tracers = [trace.instantiate_const(core.full_raise(trace, r)) for r in residuals]
    out_avals = [_stacked(a, params['axis_size'])
                 for a in unknown_params['call_jaxpr'].out_avals]
    unknown_outs = trace.stage(xla_pmap_p, res_tracers + unknown_tracers, unknown_params,
                               out_avals)
    return pe.merge_lists(out_unknowns, known_outs, unknown_outs)


def _xla_pmap_partial_eval_jaxpr(unknowns_in, eqn):
    """Jaxpr level: split one xla_pmap equation into a known and an unknown one."""
    known_params, unknown_params, out_unknowns, num_res = _split(eqn.params, unknowns_in)
    known_ins, unknown_ins = pe.partition_list(unknowns_in, eqn.inputs)
    known_outs, unknown_outs = pe.partition_list(out_unknowns, eqn.out_binders)
    residuals = [Var(_stacked(a, eqn.params['axis_size']))
                 for a in unknown_params['call_jaxpr'].in_avals[:num_res]]
    known_eqn = JaxprEqn(xla_pmap_p, known_ins, known_params, known_outs + residuals,
                         eqn.source_info)
    unknown_eqn = JaxprEqn(xla_pmap_p, residuals + unknown_ins, unknown_params, unknown_outs,
                           eqn.source_info)
    return known_eqn, unknown_eqn, out_unknowns, residuals


def _xla_pmap_dce(used_outputs, eqn):
    body, used_inputs = pe.dce_closed_jaxpr(eqn.params['call_jaxpr'], used_outputs)
    mapped = tuple(m for m, used in zip(eqn.params['mapped_invars'], used_inputs) if used)
    return used_inputs, pe.pruned_eqn(eqn, used_inputs, used_outputs, call_jaxpr=body,
                                      mapped_invars=mapped)


pe.partial_eval_rules[xla_pmap_p] = _xla_pmap_partial_eval
pe.partial_eval_jaxpr_rules[xla_pmap_p] = _xla_pmap_partial_eval_jaxpr
pe.dce_rules[xla_pmap_p] = _xla_pmap_dce


# ----------------------------------------------------------------------------- transpose

def _xla_pmap_transpose(cts, *args, **params):
    """The transposed body runs on the devices too; an input broadcast to every device
    (not mapped) gets the sum of the devices' cotangents."""
    undefined = tuple(is_undefined_primal(x) for x in args)
    residuals, res_mapped = [], []
    for x, mapped, u in zip(args, params['mapped_invars'], undefined):
        if not u:
            residuals.append(x)
            res_mapped.append(mapped)
    nonzero = nonzero_cts(cts)
    with _in_axis(params):
        body = transposed_jaxpr(params['call_jaxpr'], undefined, nonzero)
    cts_in = iter(xla_pmap(*residuals, *drop_zero_cts(cts), **dict(
        params, call_jaxpr=body, name=f'{params["name"]}_transpose',
        mapped_invars=(*res_mapped, *(True for nz in nonzero if nz)))))
    return [(next(cts_in) if mapped else reduce_sum(next(cts_in), (0,))) if u else None
            for u, mapped in zip(undefined, params['mapped_invars'])]


xla_pmap_p.def_transpose(_xla_pmap_transpose)


# ----------------------------------------------------------------------------- lowering, flops

def _xla_pmap_lowering(ctx, *args, name, **params):
    raise NotImplementedError(
        f'pmap {name} inside jit: minijax compiles a pmap as its own replicated program; '
        'call the pmapped function outside jit (JAX runs jit-of-pmap, with a warning)')


register_lowering(xla_pmap_p, _xla_pmap_lowering)
flops_rules[xla_pmap_p] = lambda eqn, known: (eqn.params['axis_size'] *
                                              closed_jaxpr_flops(eqn.params['call_jaxpr']))
for _collective in (parallel.psum_p, parallel.pmax_p, parallel.pmin_p, parallel.axis_index_p,
                    parallel.all_gather_p, parallel.psum_scatter_p, parallel.ppermute_p,
                    parallel.all_to_all_p, collectives_beyond_cpu.pbroadcast_p,
                    collectives_beyond_cpu.psend_p, collectives_beyond_cpu.precv_p,
                    collectives_beyond_cpu.ragged_all_to_all_p):
    # flops lives above lax; a collective moves data between devices: counted as none
    flops_rules[_collective] = lambda eqn, known: 0


# ----------------------------------------------------------------------------- the API

class Pmapped:
    """A function mapped over devices (see ``pmap``): traced once per argument types."""

    def __init__(self, fun, axis_name, in_axes, out_axes, devices, static_broadcasted_argnums,
                 axis_size=None):
        self.fun = fun
        self.axis_size = axis_size
        self.__name__ = self.name = getattr(fun, '__name__', 'function')
        self.__wrapped__ = fun
        self.axis_name = axis_name if axis_name is not None else object()
        self.in_axes, self.out_axes = in_axes, out_axes
        self.devices = tuple(devices) if devices is not None else None
        nums = static_broadcasted_argnums
        self.static = (nums,) if isinstance(nums, int) else tuple(nums)
        self._traces = {}

    def __call__(self, *args):
        closed, closed_over, leaves, mapped, size, out_tree = self._prepare(args)
        consts = []
        if closed.consts and (closed_over or core.dynamic_trace is not None or
                              any(isinstance(x, core.Tracer) for x in leaves)):
            # traced, the constants are operands (seeds/004's func13), broadcast to every
            # device: they become constvars of the outer jaxpr, as jit's do
            consts, closed = closed.consts, hoist_consts(closed)
            mapped = (False,) * len(consts) + mapped
        out_axes = self._flat_out_axes(closed.out_avals, out_tree)
        outs = xla_pmap(*consts, *closed_over, *leaves, call_jaxpr=closed, axis_name=self.axis_name,
                        axis_size=size, mapped_invars=mapped, name=self.name,
                        devices=self.devices)
        outs = [x[0] if a is None else moveaxis(x, 0, a) for x, a in zip(outs, out_axes)]
        return tree_util.tree_unflatten(out_tree, outs)

    def lower(self, *args) -> 'LoweredPmap':
        """The per-device StableHLO module for these arguments (``mhlo.num_replicas`` = n)."""
        closed, closed_over, _, _, size, _ = self._prepare(args)
        if closed_over:
            raise core.UnexpectedTracerError(
                f'pmap({self.name}).lower: the function closes over a traced value')
        return LoweredPmap(replicated_module(closed, self.axis_name, size, self.name))

    def _prepare(self, args):
        """(body, closed-over values, flat arguments with the mapped axis first, which are
        mapped, the axis size, the output tree)."""
        if any(main is None for _, _, main in core.axis_env):
            raise NotImplementedError(f'pmap {self.name}: pmap nested in pmap is not '
                                      'supported by minijax')
        static = self._static_arguments(args)
        dyn = [a for i, a in enumerate(args) if i not in dict(static)]
        leaves, in_tree = tree_util.tree_flatten(tuple(dyn))
        axes = self._flat_in_axes(dyn, leaves)
        size = self._axis_size(leaves, axes)
        leaves = [x if a is None else moveaxis(x, a, 0) for x, a in zip(leaves, axes)]
        avals = [core.shaped_aval(x) for x in leaves]
        per_device = tuple(a if ax is None else a.update(shape=a.shape[1:])
                           for a, ax in zip(avals, axes))
        closed, closed_over, out_tree = self._trace(static, in_tree, per_device, size)
        mapped = (False,) * len(closed_over) + tuple(a is not None for a in axes)
        return closed, closed_over, leaves, mapped, size, out_tree

    def _static_arguments(self, args) -> tuple:
        """``(position, value)`` of each static argument: passed positionally, and
        hashable, since the values key the trace cache (JAX's ValueErrors)."""
        for i in self.static:
            if not -len(args) <= i < len(args):
                raise ValueError(
                    f'pmap {self.name} has static_broadcasted_argnums={self.static} but was '
                    f'called with only {len(args)} positional arguments; static broadcasted '
                    'arguments must be passed positionally')
        static = tuple((i, args[i]) for i in sorted({i % len(args) for i in self.static}))
        for i, value in static:
            try:
                hash(value)
            except TypeError as err:
                raise ValueError(f'pmap {self.name}: static argument {i} of type '
                                 f'{type(value).__name__} is not hashable ({err}); '
                                 'non-hashable static arguments are not supported, as they '
                                 'would key the trace cache') from None
        return static

    def _flat_in_axes(self, dyn, leaves):
        flat = in_axes_per_leaf('pmap', self.in_axes, dyn, f'pmap {self.name}',
                                '(non-static) positional arguments')
        return [None if a is None else core.canonicalize_axis(
            a, np.ndim(x), f'pmap {self.name}: in_axes') for a, x in zip(flat, leaves)]

    def _flat_out_axes(self, out_avals, out_tree) -> list:
        """Where each output leaf's device axis goes, checked against the rank of the
        stacked output before anything runs."""
        axes = tree_util.broadcast_prefix(self.out_axes, tree_util.tree_unflatten(
            out_tree, [object()] * len(out_avals)), name='pmap out_axes')
        return [None if a is None else core.canonicalize_axis(
            a, aval.ndim + 1, f'pmap {self.name}: out_axes') for a, aval in zip(axes, out_avals)]

    def _axis_size(self, leaves, axes) -> int:
        sizes = {np.shape(x)[a] for x, a in zip(leaves, axes) if a is not None}
        if len(sizes) != 1:
            raise ValueError(f'pmap {self.name}: ' + (
                f'the mapped axes have different sizes {sorted(sizes)}' if sizes else
                'needs at least one mapped argument (in_axes is all None)'))
        size = sizes.pop()
        if self.axis_size is not None and self.axis_size != size:
            raise ValueError(f"Specified axis_size {self.axis_size} doesn't match received "
                             f'axis_size {size}.')
        _devices(self.name, size, self.devices)  # too many for the devices: say so now
        return size

    def _trace(self, static, in_tree, avals, size):
        key = (static, in_tree, avals, size)
        if key not in self._traces:
            def per_device(*flat):
                args = list(tree_util.tree_unflatten(in_tree, flat))
                for i, value in static:
                    args.insert(i, value)
                outs = self.fun(*args)
                out_leaves, tree = tree_util.tree_flatten(outs)
                trees.append(tree)
                return out_leaves

            trees = []
            with core.extend_axis_env(self.axis_name, size):
                closed, closed_over = trace_to_jaxpr(per_device, list(avals))
            if closed_over:  # tracers of an outer transformation must not outlive it
                return closed, closed_over, trees[0]
            self._traces[key] = (closed, closed_over, trees[0])
        return self._traces[key]


class LoweredPmap:
    """A pmapped function lowered for particular arguments: the per-device module."""

    def __init__(self, module: ir.Module):
        self._module = module

    def as_text(self, debug_info: bool = False) -> str:
        with mlir_context():
            return module_text(self._module, debug_info)

    def compiler_ir(self) -> ir.Module:
        return self._module


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Run ``fun`` on ``n`` devices at once, device ``i`` on slice ``i`` of the mapped axes
    (``in_axes``, as ``vmap``'s); ``axis_name`` names the axis for collectives
    (``lax.psum(x, axis_name)``). Results are stacked along ``out_axes``.

    ``n`` may not exceed the number of devices (``minijax.device_count()``, 1 unless
    ``MINIJAX_NUM_CPU_DEVICES`` asks for more); ``devices`` picks them.
    ``static_broadcasted_argnums``: arguments passed to every device as Python values.
    ``axis_size``, if given, must be the mapped axes' size (at least one axis is mapped, as
    in JAX). ``donate_argnums`` has no effect: minijax never reuses an input buffer for an output.
    """
    core.check_callable('pmap', fun=fun)
    runtime._check_backend(backend)
    return Pmapped(fun, axis_name, in_axes, out_axes, devices, static_broadcasted_argnums,
                   axis_size)
