"""``reshard``, ``auto_axes`` and ``explicit_axes``: changing a value's sharding in its type.

Under ``Explicit`` mesh axes a value's sharding is part of its type, and ops refuse operands
whose shardings disagree; ``reshard(x, P(...))`` is the one way to move a value to another
sharding (``reshard_p``: the identity on values, a sharding constraint to XLA's partitioner,
its type the new sharding). ``auto_axes`` runs a function with some axes ``Auto`` (the
compiler chooses the shardings inside, the types do not say them) and reshards its results
to ``out_sharding``; ``explicit_axes`` is its dual, resharding the arguments to
``in_sharding`` and running the function with the axes ``Explicit``.
"""
from __future__ import annotations

import functools

from minijax import core, tree_util
from minijax.array import Array, device_put
from minijax.core import Primitive
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.lowering import register_lowering
from minijax.sharding import NamedSharding, PartitionSpec, rules
from minijax.sharding.mesh import (AxisType, Mesh, get_abstract_mesh, get_concrete_mesh,
                                   use_abstract_mesh)
from minijax.sharding.types import explicit_only

reshard_p = Primitive('reshard')


def reshard(xs, out_shardings):
    """``xs`` (a pytree) with each array's sharding changed to its entry of
    ``out_shardings`` (a ``NamedSharding``, or a ``PartitionSpec`` over the mesh in
    context; a pytree prefix of ``xs``): ``jax.sharding.reshard``."""
    leaves, treedef = tree_util.tree_flatten(xs)
    is_leaf = lambda s: s is None or isinstance(s, (NamedSharding, PartitionSpec))  # noqa: E731
    if is_leaf(out_shardings):
        per_leaf = [out_shardings] * len(leaves)
    else:
        per_leaf = tree_util.broadcast_prefix(out_shardings, xs, is_leaf=is_leaf,
                                              name='reshard out_shardings')
    return treedef.unflatten(_reshard(x, s) for x, s in zip(leaves, per_leaf))


def _reshard(x, sharding):
    dst = rules.canonicalize_sharding(sharding, 'reshard')
    if dst is None:
        raise ValueError('Reshard should only be used with out_shardings which are non-None '
                         f'and have a non-empty mesh. Got sharding {sharding}.')
    ndim = len(core.shaped_aval(x).shape)
    dst = dst.update(spec=dst.spec._normalized_spec_for_aval(ndim))
    mesh = sharding.mesh if isinstance(sharding, NamedSharding) and \
        isinstance(sharding.mesh, Mesh) else None
    return reshard_p.bind(x, dst_sharding=dst, concrete_mesh=mesh)


def _abstract_eval(aval, *, dst_sharding, concrete_mesh):
    return aval.update(sharding=dst_sharding)


def _impl(x, *, dst_sharding, concrete_mesh):
    """A concrete value placed over the concrete mesh (the one given, else in context),
    typed as the abstract eval says (over the abstract mesh in context: its axis types)."""
    mesh = get_concrete_mesh() if concrete_mesh is None else concrete_mesh
    if mesh.empty and isinstance(getattr(x, 'sharding', None), NamedSharding):
        mesh = x.sharding.mesh  # (no mesh in context: the one the value is on)
    if mesh.empty:
        raise ValueError('reshard of a value on no mesh needs a mesh in context: set one '
                         'with jax.set_mesh, or pass a NamedSharding over a concrete Mesh')
    placed = device_put(x, NamedSharding(mesh, dst_sharding.spec))
    aval = core.shaped_aval(x)
    return Array(placed._buffer, core.ShapedArray(aval.shape, aval.dtype, aval.weak_type,
                                                  dst_sharding), sharding=placed._sharding)


def _transpose(ct, x, *, dst_sharding, concrete_mesh):
    """The cotangent goes back to the operand's sharding (over its mesh)."""
    sharding = x.aval.sharding
    with use_abstract_mesh(sharding.mesh):
        return [reshard_p.bind(ct, dst_sharding=sharding, concrete_mesh=concrete_mesh)]


def _batching(vals, dims, *, dst_sharding, concrete_mesh):
    """The batch dimension joins the spec unsharded."""
    (x,), (d,) = vals, dims
    if d is not batching.not_mapped:
        entries = list(dst_sharding.spec.partitions)
        entries.insert(d, None)
        dst_sharding = dst_sharding.update(spec=entries)
    return reshard_p.bind(x, dst_sharding=dst_sharding, concrete_mesh=concrete_mesh), d


reshard_p.def_impl(_impl)
reshard_p.def_abstract_eval(_abstract_eval)
ad.defjvp_linear(reshard_p)
reshard_p.def_transpose(_transpose)
reshard_p.def_batching(_batching)
register_lowering(reshard_p, lambda ctx, x, **params: x)  # (+ its type's constraint)
rules.register(rules.AS_EVALUATED, reshard_p)
rules.keeps_partial_sums.add(reshard_p)


# ----------------------------------------------------------------------------- axis types

def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """``f`` run with the mesh ``axes`` (all by default) ``Auto``: the compiler chooses how
    values are sharded inside, and the results are resharded to ``out_sharding`` (given
    here, or as a keyword argument of each call): ``jax.sharding.auto_axes``."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        shardings = _sharding_argument(kwargs, 'out_sharding', out_sharding)
        info = _new_mesh(axes, AxisType.Auto, 'auto_axes', shardings)
        if info is None:
            return f(*args, **kwargs)
        previous, new, names = info
        if set(previous.auto_axes) == set(names):
            return f(*args, **kwargs)
        with use_abstract_mesh(new):
            args = reshard(args, tree_util.tree_map(
                lambda a: explicit_only(core.typeof(a).sharding.spec, new), args))
            out = f(*args, **kwargs)
        return reshard(out, shardings)
    return decorated


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """``f`` run with the mesh ``axes`` (all by default) ``Explicit``, its arguments
    resharded to ``in_sharding`` (given here, or as a keyword argument of each call), its
    results brought back to the mesh in context: ``jax.sharding.explicit_axes``."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        shardings = _sharding_argument(kwargs, 'in_sharding', in_sharding)
        info = _new_mesh(axes, AxisType.Explicit, 'explicit_axes')
        if info is None:
            raise ValueError('Context mesh cannot be empty. Please use `jax.set_mesh` API to '
                             'enter into a mesh context when using `explicit_axes` API.')
        with use_abstract_mesh(info[1]):
            args = reshard(args, shardings)
            out = f(*args, **kwargs)
        mesh = get_abstract_mesh()
        return reshard(out, tree_util.tree_map(
            lambda o: explicit_only(core.typeof(o).sharding.spec, mesh), out))
    return decorated


def _sharding_argument(kwargs, name, given):
    if given is not None:
        return given
    if name not in kwargs:
        raise TypeError(f"Missing required keyword argument: '{name}'")
    return kwargs.pop(name)


def _new_mesh(axes, axis_type, name, shardings=None):
    """(the mesh in context or the shardings', it with ``axes`` of ``axis_type``, the axes),
    or None with no mesh at all (JAX's _get_new_mesh)."""
    current = get_abstract_mesh()
    of_shardings = None
    for s in tree_util.tree_leaves(shardings):
        if isinstance(s, NamedSharding):
            mesh = s.mesh.abstract_mesh
            if of_shardings is not None and of_shardings != mesh:
                raise ValueError(f'Shardings passed to {name} should have the same mesh. Got '
                                 f'one mesh {of_shardings} and another {s.mesh}')
            of_shardings = mesh
    if of_shardings is None and current.empty:
        return None
    if of_shardings is not None and not current.empty and of_shardings != current:
        raise ValueError(f'Context mesh {current} must match the mesh passed to shardings '
                         f'{of_shardings}. Recommended approach is to use `jax.set_mesh` '
                         'context manager.')
    mesh = current if not current.empty else of_shardings
    names = mesh.axis_names if axes is None else axes if isinstance(axes, tuple) else (axes,)
    for a in names:
        if mesh._name_to_type[a] is AxisType.Manual:
            raise NotImplementedError(
                'Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not '
                'allowed. Please file a bug at https://github.com/jax-ml/jax/issues with your '
                'use case')
    return mesh, mesh.update_axis_types({a: axis_type for a in names}), names
