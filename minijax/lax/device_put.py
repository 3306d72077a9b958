"""``device_put`` of traced values: the ``device_put`` primitive, as JAX stages it.

Under a trace (``jit``, ``grad``...) ``device_put(x, s)`` is one equation for all the leaves
of ``x``: ``device_put[copy_semantics=... devices=... srcs=...]``. Its results' types are
the operands' with the sharding of each ``NamedSharding`` destination (on ``Explicit``
axes, the type changes, as ``reshard`` changes it); it lowers to nothing on CPU (the value
is where the program's shardings put it, as JAX lowers it there). Its transpose puts the
cotangents back where the operands came from (``srcs``).
"""
from __future__ import annotations

from jaxlib import xla_client as xc

from minijax import core
from minijax.core import Primitive
from minijax.interpreters import jvp as ad
from minijax.interpreters.transpose import is_undefined_primal, nonzero_cts
from minijax.lowering import register_lowering
from minijax.sharding import NamedSharding, PartitionSpec, rules
from minijax.sharding.mesh import get_concrete_mesh

#: How a result may share its operand's buffer (JAX's ``ArrayCopySemantics``, jaxlib's)
ArrayCopySemantics = xc.ArrayCopySemantics

device_put_p = Primitive('device_put', multiple_results=True)


def device_put_traced(leaves: list, placements: list, src, donate, may_alias) -> list:
    """``device_put`` of ``leaves`` (some traced) to ``placements`` (one per leaf: None, a
    device, a ``Sharding`` or a ``PartitionSpec``), bound as one equation."""
    n = len(leaves)
    devices = tuple(_sharding(d) for d in placements)
    srcs = tuple(_sharding(_source(s, x)) for s, x in zip(_per_leaf(src, n), leaves))
    copies = tuple(_copy_semantics(m, d) for m, d in zip(_per_leaf(may_alias, n),
                                                         _per_leaf(donate, n)))
    for x, d in zip(leaves, devices):
        if isinstance(d, NamedSharding):
            d.check_divisible(core.get_aval(x).shape)
    return device_put_p.bind(*leaves, devices=devices, srcs=srcs, copy_semantics=copies)


def _per_leaf(value, n) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value] * n


def _sharding(placement):
    """A ``PartitionSpec`` as a sharding over the mesh in context (JAX's error without
    one); anything else as it is."""
    if not isinstance(placement, PartitionSpec):
        return placement
    mesh = get_concrete_mesh()
    if mesh.empty:
        raise ValueError('Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed '
                         'to device_put')
    return NamedSharding(mesh, placement)


def _source(src, x):
    """Where ``x`` comes from, as JAX infers it: ``src`` if given, an Array's sharding, a
    traced value's type's sharding on a mesh of only ``Explicit`` axes, else None."""
    if src is not None:
        return src
    if isinstance(x, core.Tracer):
        sharding = x.aval._sharding  # (in device memory, as JAX's types say)
        return sharding.with_memory_kind('device') if sharding is not None and \
            sharding.mesh.are_all_axes_explicit else None
    return getattr(x, 'sharding', None)


def _copy_semantics(may_alias, donate):
    if may_alias and donate:
        raise ValueError('may_alias and donate cannot be True at the same time.')
    if may_alias is None:
        may_alias = not donate
    if may_alias:
        return ArrayCopySemantics.REUSE_INPUT
    return ArrayCopySemantics.DONATE_INPUT if donate else ArrayCopySemantics.ALWAYS_COPY


def _placed_aval(aval, device):
    """The type of ``aval`` placed on ``device``: a ``NamedSharding``'s sharding, no mesh
    on one device, unchanged for None."""
    if not isinstance(aval, core.ShapedArray) or device is None:
        return aval
    if isinstance(device, NamedSharding):
        return core.ShapedArray(aval.shape, aval.dtype, aval.weak_type,
                                NamedSharding(device.mesh.abstract_mesh, device.spec))
    return core.ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def _abstract_eval(*avals, devices, srcs, copy_semantics):
    return [_placed_aval(a, d) for a, d in zip(avals, devices)]


def _impl(*xs, devices, srcs, copy_semantics):
    from minijax.array import device_put  # (the eager placement: a concrete value)
    return [device_put(x, d) for x, d in zip(xs, devices)]


def _transpose(cts, *xs, devices, srcs, copy_semantics):
    """Each cotangent goes back where its operand came from (a copy: JAX's transpose never
    reuses the buffer)."""
    nonzero = nonzero_cts(cts)
    undefined = [i for i, x in enumerate(xs) if is_undefined_primal(x) and nonzero[i]]
    out: list = [None] * len(xs)
    if undefined:
        pick = lambda seq: tuple(seq[i] for i in undefined)  # noqa: E731
        moved = device_put_p.bind(*pick(cts), devices=pick(srcs), srcs=pick(devices),
                                  copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) *
                                  len(undefined))
        for i, ct in zip(undefined, moved):
            out[i] = ct
    return out


def _batching(vals, dims, **params):
    return device_put_p.bind(*vals, **params), list(dims)


device_put_p.def_impl(_impl)
device_put_p.def_abstract_eval(_abstract_eval)
ad.defjvp_linear(device_put_p)
device_put_p.def_transpose(_transpose)
device_put_p.def_batching(_batching)
register_lowering(device_put_p, lambda ctx, *xs, **params: list(xs))
rules.register(rules.AS_EVALUATED, device_put_p)
rules.not_constrained.add(device_put_p)  # (JAX's CPU lowering adds no constraint)
