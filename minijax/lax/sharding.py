"""``with_sharding_constraint``: how a value inside a program over a mesh must lie.

``sharding_constraint_p`` is the identity to the program's values; to XLA's partitioner it is
``sdy.sharding_constraint``, fixing the value's layout there (the partitioner inserts the
collectives that move it). Its transpose and its JVP constrain the cotangent and the tangent the
same way; under ``vmap`` the new batch dimension is left unconstrained, as JAX leaves it.
Applied to a concrete value, it places the value as ``device_put`` does.
"""
from __future__ import annotations

from minijax import core, tree_util
from minijax.array import device_put
from minijax.core import Primitive
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.lowering import register_lowering
from minijax.lowering.shardings import sharding_constraint
from minijax.sharding import NamedSharding, PartitionSpec
from minijax.sharding.mesh import get_concrete_mesh
from minijax.sharding.partition_spec import UNCONSTRAINED

sharding_constraint_p = Primitive('sharding_constraint')


class Dims(frozenset):
    """``unconstrained_dims``: a frozenset that prints as JAX's jaxprs show it, braces kept
    when empty (``frozenset({})``)."""

    def __repr__(self):
        return f'frozenset({{{", ".join(map(repr, sorted(self)))}}})'

    __str__ = __repr__


def with_sharding_constraint(x, shardings):
    """``x`` (a pytree) with each array constrained to lie as its sharding says
    (``jax.lax.with_sharding_constraint``): a ``NamedSharding``, or a ``PartitionSpec``
    over the mesh ``set_mesh`` installed; ``shardings`` is a prefix of ``x``."""
    leaves, treedef = tree_util.tree_flatten(x)
    if isinstance(shardings, (NamedSharding, PartitionSpec)):
        per_leaf = [shardings] * len(leaves)
    else:
        per_leaf = tree_util.broadcast_prefix(
            shardings, x, is_leaf=lambda s: isinstance(s, (NamedSharding, PartitionSpec)),
            name='with_sharding_constraint shardings')
    return treedef.unflatten(_constrained(v, s) for v, s in zip(leaves, per_leaf))


def _constrained(x, sharding):
    if isinstance(sharding, PartitionSpec):
        mesh = get_concrete_mesh()
        if mesh.empty:
            raise RuntimeError(
                'with_sharding_constraint requires a non-empty mesh in context if you are '
                'passing `PartitionSpec`s to shardings. You can define a context mesh via '
                '`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to shardings and '
                'then the mesh context manager is not required.')
        sharding = NamedSharding(mesh, sharding)
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f'with_sharding_constraint: a sharding must be a NamedSharding or a '
                        f'PartitionSpec, got {sharding!r}')
    aval = core.get_aval(x)
    try:
        sharding.check_compatible_aval(aval.shape)
    except ValueError as err:
        raise ValueError(f'One of with_sharding_constraint arguments is incompatible with its '
                         f'sharding annotation {sharding}: {err}') from None
    unconstrained = Dims(i for i, p in enumerate(sharding.spec.partitions)
                         if p is UNCONSTRAINED)
    return sharding_constraint_p.bind(x, context_mesh=get_concrete_mesh(), layout=None,
                                      sharding=sharding, unconstrained_dims=unconstrained)


def _impl(x, *, sharding, **_):
    """A concrete value placed as the sharding says (JAX runs the constraint as a program
    over the mesh; the value is the same)."""
    return device_put(x, sharding)


def _abstract_eval(aval, *, sharding, **_):
    sharding.check_compatible_aval(aval.shape)
    return core.raise_to_shaped(aval)


def _transpose(ct, x, **params):
    return [sharding_constraint_p.bind(ct, **params)]


def _batching(vals, dims, *, sharding, unconstrained_dims, **params):
    """The batch dimension joins the spec unconstrained (JAX's rule without
    ``spmd_axis_name``)."""
    (x,), (d,) = vals, dims
    if d is batching.not_mapped:
        return sharding_constraint_p.bind(x, sharding=sharding,
                                          unconstrained_dims=unconstrained_dims, **params), d
    entries = list(sharding.spec.partitions)
    entries += [None] * (core.get_aval(x).ndim - 1 - len(entries))
    entries.insert(d, UNCONSTRAINED)
    batched = sharding.update(spec=sharding.spec.update(partitions=entries))
    dims_out = Dims({i + (i >= d) for i in unconstrained_dims} | {d})
    return sharding_constraint_p.bind(x, sharding=batched, unconstrained_dims=dims_out,
                                      **params), d


def _lowering(ctx, x, *, sharding, **_):
    return sharding_constraint(ctx, x, sharding, ctx.avals_in[0].ndim)


sharding_constraint_p.def_impl(_impl)
sharding_constraint_p.def_abstract_eval(_abstract_eval)
ad.defjvp_linear(sharding_constraint_p)
sharding_constraint_p.def_transpose(_transpose)
sharding_constraint_p.def_batching(_batching)
register_lowering(sharding_constraint_p, _lowering)
