"""Vectorization (``vmap``): the batching trace carries each value with its batch axis.

A ``BatchTracer`` holds an array with one extra axis (``batch_dim``) or ``not_mapped`` for a
value shared by every example. Batching rules say where the batch axis of the output is.
"""
from __future__ import annotations

import contextlib

import numpy as np

from minijax import core, tree_util
from minijax.caching import cache_on_first_arg
from minijax.core import ShapedArray, Tracer
from minijax.ir.jaxpr import ClosedJaxpr, jaxpr_as_fun
from minijax.ir.tracing import trace_to_jaxpr

not_mapped = None

#: ``rule(vals, dims, **params) -> (out, out_dim)``: ``dims`` holds each operand's batch axis
#: (or ``not_mapped``); the rule says where the batch axis of its output is.
vmap_rules = core.RuleTable('vmap', '{p}_p.def_batching(...)')

#: ``rule(axis_size, vals, dims, **params) -> (out, out_dim)`` for a collective (``psum``...)
#: over the axis this ``vmap(..., axis_name=...)`` maps: there it reduces over the batch axis.
collective_vmap_rules: dict = {}

class BatchTracer(Tracer):
    __slots__ = ('val', 'batch_dim')

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        aval = core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = aval.shape[:self.batch_dim] + aval.shape[self.batch_dim + 1:]
        return ShapedArray(shape, aval.dtype, aval.weak_type)

    def full_lower(self):
        return core.full_lower(self.val) if self.batch_dim is not_mapped else self

    def _short_repr(self):
        """JAX's: the type of one example, and of the batch."""
        return f'VmapTracer(aval={self.aval}, batched={core.get_aval(self.val)})'


class BatchTrace(core.Trace):
    def pure(self, val):
        return BatchTracer(self, val, not_mapped)

    lift = pure

    @property
    def axis_size(self):
        return self.main.global_data[0]

    @property
    def axis_name(self):
        return self.main.global_data[1]

    def process_primitive(self, primitive, tracers, params):
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if primitive in collective_vmap_rules and self.axis_name is not None and \
                params.get('axis_name') in (self.axis_name, (self.axis_name,)):
            outs, out_dims = collective_vmap_rules[primitive](self.axis_size, vals, dims,
                                                              **params)
            outs, out_dims = [outs], [out_dims]
        elif all(d is not_mapped for d in dims):
            out = primitive.bind(*vals, **params)
            outs, out_dims = (out, [not_mapped] * len(out)) if primitive.multiple_results \
                else ([out], [not_mapped])
        else:
            outs, out_dims = core.rule_pair(
                primitive, 'vmap', vmap_rules[primitive](vals, dims, **params),
                '(out, out_batch_axis)')
        boxed = [BatchTracer(self, x, d) for x, d in zip(outs, out_dims, strict=True)]
        return boxed if primitive.multiple_results else boxed[0]


def axis_size_of(vals, dims):
    sizes = {core.get_aval(x).shape[d] for x, d in zip(vals, dims) if d is not not_mapped}
    if len(sizes) != 1:
        raise ValueError(f'vmap got inconsistent sizes for the mapped axis: {sorted(sizes)}')
    return sizes.pop()


def moveaxis(x, src: int, dst: int):
    if src == dst:
        return x
    perm = [i for i in range(core.get_aval(x).ndim) if i != src]
    perm.insert(dst, src)
    from minijax import lax  # lax's rules build on this module
    return lax.transpose(x, tuple(perm))


def move_batch_axis(axis_size, src, dst, x):
    """Put ``x``'s batch axis at ``dst``, materializing it by broadcasting if ``not_mapped``
    (the other axes computed with NumPy, as JAX's ``broadcast`` does: ``np.int64`` values)."""
    if src is not_mapped:
        shape = list(core.get_aval(x).shape)
        shape.insert(dst, axis_size)
        from minijax import lax  # lax's rules build on this module
        return lax.broadcast_in_dim(x, tuple(shape), tuple(np.delete(np.arange(len(shape)), dst)))
    return moveaxis(x, src, dst)


def vmap_flat(f, in_axes, *args, axis_size=None, axis_name=None, name='vmap()'):
    """``f`` on flat ``args`` batched along ``in_axes``: ([(output, batch axis)], size).

    ``axis_size`` is read off the mapped arguments unless given; a batched jaxpr gives it,
    since the operands its body sees may all be unmapped (only a cond's index may be).
    ``axis_name`` names the batch axis for collectives (``psum(x, axis_name)``). The
    equations it traces get ``name`` on their name stack (``''`` for a body a rule batches)."""
    if axis_size is None:
        axis_size = axis_size_of(args, in_axes)
    with core.new_main(BatchTrace, (axis_size, axis_name)) as main, \
            (core.extend_axis_env(axis_name, axis_size, main) if axis_name is not None
             else contextlib.nullcontext()), core.name_scope(name):
        trace = main.trace
        tracers_in = [BatchTracer(trace, x, d) if d is not not_mapped else x
                      for x, d in zip(args, in_axes)]
        outs = f(*tracers_in)
        tracers_out = core.full_raise_outputs(trace, outs)
        return [(t.val, t.batch_dim) for t in tracers_out], axis_size


def in_axes_per_leaf(transform, in_axes, args, what=None,
                     arguments='positional arguments') -> list:
    """``in_axes`` of ``transform`` (``vmap``, ``pmap``: an int, ``None``, or a tuple or list
    with one entry per positional argument, each a pytree prefix of it) as one entry per leaf
    of ``args``; errors begin with ``what`` (``transform`` unless given)."""
    what = what or transform
    axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    if isinstance(axes, tuple) and len(axes) != len(args):
        raise ValueError(f'{what}: in_axes has {len(axes)} entries but the function got '
                         f'{len(args)} {arguments}')
    return tree_util.broadcast_prefix(axes if isinstance(axes, tuple) else (axes,) * len(args),
                                      tuple(args), name=f'{transform} in_axes')


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None,
         sum_match=False):
    """Vectorize ``fun`` over the axes ``in_axes`` of its arguments.

    ``in_axes`` is an int, ``None`` (not mapped), or a tuple with one entry per positional
    argument, each itself an int, ``None`` or a pytree prefix of that argument. ``out_axes``
    likewise describes the outputs. ``axis_name`` names the mapped axis, so that collectives
    (``lax.psum(x, axis_name)``...) in ``fun`` reduce over it, as under ``pmap``.
    ``axis_size`` gives the mapped size, needed when no argument is mapped. With
    ``sum_match``, an output batched where ``out_axes`` says ``None`` is summed over the
    batch instead of being an error. ``spmd_axis_name`` (JAX's sharding of the batch axis
    over mesh axes) is not taken: its error says so.
    """
    core.check_callable('vmap', fun=fun)
    if spmd_axis_name is not None:
        raise NotImplementedError(
            'vmap: spmd_axis_name is not supported by minijax; shard the batched arguments '
            'with device_put or jax.sharding.reshard instead')

    def batched_f(*args):
        args_flat, in_tree = tree_util.tree_flatten(args)
        axes_flat = [_normalize_axis(a, x, 'in_axes') for a, x in
                     zip(in_axes_per_leaf('vmap', in_axes, args), args_flat)]
        size = _mapped_size(args_flat, axes_flat, axis_size)
        f_flat, out_tree = tree_util.flatten_fun(fun, in_tree)
        outs, size = vmap_flat(f_flat, axes_flat, *args_flat, axis_size=size,
                               axis_name=axis_name)
        if out_axes is None or isinstance(out_axes, int):  # (output types never rebuilt)
            out_axes_flat = [out_axes] * len(outs)
        else:
            out_axes_flat = tree_util.broadcast_prefix(out_axes, tree_util.tree_unflatten(
                out_tree(), [object()] * len(outs)), name='vmap out_axes')
        results = []
        for (val, bdim), dst in zip(outs, out_axes_flat):
            if dst is None:
                if bdim is not not_mapped and not sum_match:
                    raise ValueError('vmap: out_axes=None for an output that is batched')
                results.append(val if bdim is not_mapped else _sum_over(val, bdim))
            else:
                ndim = core.get_aval(val).ndim + (bdim is not_mapped)  # with the batch axis
                dst = core.canonicalize_axis(dst, ndim, 'vmap: out_axes')
                results.append(move_batch_axis(size, bdim, dst, val))
        return tree_util.tree_unflatten(out_tree(), results)

    return core.named_after(fun, batched_f)


def _mapped_size(args, axes, axis_size):
    """The batch size: ``axis_size`` if given (the mapped axes must have it), else the
    mapped axes' one size."""
    if axis_size is None:
        if all(a is not_mapped for a in axes):
            raise ValueError('vmap needs at least one mapped argument (in_axes is all None) '
                             'or axis_size')
        return axis_size_of(args, axes)
    sizes = {core.get_aval(x).shape[d] for x, d in zip(args, axes) if d is not not_mapped}
    if sizes - {axis_size}:
        raise ValueError(f'vmap got inconsistent sizes for the mapped axis: axis_size is '
                         f'{axis_size} but mapped axes have sizes {sorted(sizes)}')
    return axis_size


def _sum_over(x, axis):
    from minijax import lax  # lax's rules build on this module
    return lax.reduce_sum(x, (axis,))


def _normalize_axis(axis, x, what):
    if axis is None:
        return None
    return core.canonicalize_axis(axis, core.get_aval(x).ndim, f'vmap: {what}')


# ----------------------------------------------------------------------------- rule helpers

def broadcasting_batcher(primitive):
    """Batching rule for elementwise primitives, which broadcast scalars and axes of size 1.

    Operands batched at one axis with one shape (and unbatched scalars) pass straight
    through; otherwise, as in JAX, each batch axis goes to the front, an unbatched operand
    gets a leading axis of size 1 and a batched scalar trailing ones, and the primitive's
    own broadcasting does the rest.
    """
    def rule(vals, dims, **params):
        shapes = [core.get_aval(x).shape for x in vals]
        bdim, shape = next((d, s) for s, d in zip(shapes, dims) if d is not not_mapped)
        if all(s == shape and d == bdim for s, d in zip(shapes, dims) if s):
            return primitive.bind(*vals, **params), bdim
        from minijax import lax  # lax's rules build on this module
        args = [move_batch_axis(1, d, 0, x) if s else x for x, s, d in zip(vals, shapes, dims)]
        ranks = [core.get_aval(x).ndim for x in args]
        args = [lax.expand_dims(x, tuple(range(r, max(ranks))))
                if d is not not_mapped and r < max(ranks) else x
                for x, r, d in zip(args, ranks, dims)]
        return primitive.bind(*args, **params), 0

    primitive.def_batching(rule)
    return rule


# ----------------------------------------------------------------------------- jaxpr level

@cache_on_first_arg
def batched_jaxpr(closed: ClosedJaxpr, axis_size: int, dims_in: tuple,
                  instantiate: bool | tuple[bool, ...] = True
                  ) -> tuple[ClosedJaxpr, tuple[bool, ...]]:
    """``closed`` vectorized over ``dims_in``, and which of its outputs are batched (along
    axis 0). An output that depends on no batched input stays unbatched, unless
    ``instantiate`` asks for every output batched (loop carries and branches must agree), or
    for those it flags (a tuple, one flag per output).

    Higher-order primitives (``xla_call``, ``cond``, loops) use this to batch their bodies.
    """
    out_batched: list[bool] = []

    def batched(*args):
        outs, _ = vmap_flat(jaxpr_as_fun(closed), dims_in, *args, axis_size=axis_size,
                             name='')
        flags = instantiate if isinstance(instantiate, tuple) else [instantiate] * len(outs)
        out_batched.extend(inst or d is not not_mapped for (_, d), inst in zip(outs, flags))
        return [move_batch_axis(axis_size, d, 0, x) if b else x
                for (x, d), b in zip(outs, out_batched)]

    new_closed, _ = trace_to_jaxpr(batched, _batched_avals(closed, axis_size, dims_in))
    return new_closed, tuple(out_batched)


def batched_jaxpr_axes(closed: ClosedJaxpr, axis_size: int, dims_in: tuple,
                       dims_out: tuple) -> ClosedJaxpr:
    """``closed`` vectorized over ``dims_in``, each output batched along its axis in
    ``dims_out`` (broadcast there if it depends on no batched input), or unbatched where
    that is ``not_mapped``: a loop's carry keeps its batch axis where its predicate's shape
    needs it (JAX's ``batch_jaxpr_axes``)."""
    def batched(*args):
        outs, _ = vmap_flat(jaxpr_as_fun(closed), dims_in, *args, axis_size=axis_size,
                             name='')
        return [x if dst is not_mapped else move_batch_axis(axis_size, d, dst, x)
                for (x, d), dst in zip(outs, dims_out, strict=True)]
    return trace_to_jaxpr(batched, _batched_avals(closed, axis_size, dims_in))[0]


def _batched_avals(closed, axis_size, dims_in):
    return [a if d is not_mapped else a.update(shape=(*a.shape[:d], axis_size, *a.shape[d:]))
            for a, d in zip(closed.in_avals, dims_in)]
