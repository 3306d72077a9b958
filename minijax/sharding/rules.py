"""Sharding rules: the sharding of a primitive's result, from its operands' (JAX 0.10.2's
sharding in types).

Each primitive's abstract-eval rule gives its results' shapes and dtypes; under a mesh with
``Explicit`` axes, ``shard_results`` then gives them shardings with the primitive's rule
from ``sharding_rules``, a table of a few rule kinds (an elementwise op's result is sharded
as its operands; a reduction drops the reduced dimensions' entries; ...). A primitive with
no rule is JAX's ``ShardingTypeError`` under such a mesh, never a silently wrong type. Under
no mesh, or one whose axes are all ``Auto``/``Manual``, results are unsharded over the mesh
in context and no rule runs; with no mesh at all, nothing here runs (``core`` checks).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from minijax import core
from minijax.core import ShardingTypeError
from minijax.sharding.mesh import EMPTY_ABSTRACT_MESH, AxisType, get_abstract_mesh
from minijax.sharding.named_sharding import DuplicateSpecError, NamedSharding
from minijax.sharding.partition_spec import PartitionSpec as P
from minijax.sharding.partition_spec import UNCONSTRAINED as UNCONSTRAINED_ENTRY
from minijax.sharding.types import type_sharding, type_text

#: primitive -> ``rule(*in_avals, **params)`` giving the result's ``NamedSharding`` (a list
#: of them for a primitive with several results), or ``AS_TRACED``.
sharding_rules: dict[core.Primitive, Callable] = {}


def AS_TRACED(*avals, **params):  # noqa: N802 (a marker, named as a constant)
    """The rule of a primitive that holds a jaxpr (jit, cond, scan...): its results' types
    are its jaxpr's, already sharded by the rules of the equations inside."""


def AS_EVALUATED(*avals, **params):  # noqa: N802
    """The rule of a primitive whose abstract eval gives the sharding itself (``reshard``:
    its parameter's), followed by its type's constraint when lowered."""


def _auto_or_empty(mesh) -> bool:
    return mesh.empty or all(t is not AxisType.Explicit for t in mesh.axis_types)


def operands_mesh(avals):
    """The mesh of the operands that have one; two different ones are JAX's error."""
    mesh = None
    for a in avals:
        if a is core.abstract_token or a._sharding is None:
            continue
        if mesh is not None and mesh != a._sharding.mesh:
            if _auto_or_empty(mesh) and _auto_or_empty(a._sharding.mesh):
                return EMPTY_ABSTRACT_MESH
            raise ValueError(f'Mesh for all inputs should be equal. Got one mesh: {mesh} and '
                             f'another mesh: {a._sharding.mesh}')
        mesh = a._sharding.mesh
    return mesh


def shard_results(primitive, in_avals, out_avals, params) -> list:
    """``out_avals`` (a list) with the shardings ``primitive``'s rule gives them."""
    current = get_abstract_mesh()
    if current is EMPTY_ABSTRACT_MESH and all(a._sharding is None for a in in_avals
                                              if a is not core.abstract_token):
        return out_avals  # (no mesh anywhere: unsharded, as the abstract eval made them)
    rule = sharding_rules.get(primitive)
    if rule is AS_TRACED or rule is AS_EVALUATED:
        return out_avals
    mesh = operands_mesh(in_avals)
    if _auto_or_empty(current) and (mesh is None or _auto_or_empty(mesh)):
        mesh = current if mesh is None or mesh.empty else mesh
        sharding = None if mesh.empty else NamedSharding(mesh, P())
        return [_typed(a, sharding) for a in out_avals]
    if rule is None:
        raise ShardingTypeError(
            f'sharding rule for {primitive.name} is not implemented (minijax has none for '
            'it: see minijax/lax/sharding_rules.py). You can work around this error by '
            'dropping that operation into full auto sharding mode via: '
            '`jax.sharding.auto_axes(fun, out_shardings=...)`')
    if primitive not in keeps_partial_sums and any(map(_partial_sums, in_avals)):
        sets = 'unreduced' if any(a._sharding.spec.unreduced for a in in_avals
                                  if _partial_sums(a)) else 'unreduced/reduced'
        raise NotImplementedError(  # (JAX's, for the ops without an unreduced rule)
            f'{sets} rule for {primitive.name} is not implemented. Please file an issue at '
            'https://github.com/jax-ml/jax/issues')
    if getattr(rule, 'out_shapes', False):  # (a rule that needs the results' shapes)
        params = {**params, '_out_shapes': [a.shape for a in out_avals]}
    try:
        out = rule(*in_avals, **params)
    except DuplicateSpecError as err:
        if primitive.multiple_results:
            raise
        operands = ', '.join(a.str_short(short_dtypes=True) for a in in_avals)
        aval, = out_avals
        result = core.short_dtype_name(aval.dtype) + type_text(aval.shape, err.pspec, err.mesh)
        raise ShardingTypeError(
            f'{primitive.name} operation with inputs: {operands} produces an illegally '
            f'sharded result: {result}') from err
    outs = out if primitive.multiple_results else [out]
    return [_typed(a, s) for a, s in zip(out_avals, outs, strict=True)]


def _typed(aval, sharding):
    """``aval`` with ``sharding`` (None: unsharded), itself when it has it already."""
    if aval is core.abstract_token:
        return aval
    typed = None if sharding is None else type_sharding(sharding, aval.shape)
    if typed == aval._sharding:
        return aval
    return core.ShapedArray(aval.shape, aval.dtype, aval.weak_type, typed)


#: Primitives whose operands may be unreduced or reduced over mesh axes (``{U:X}``): the
#: result keeps the operand's sets (JAX's unreduced rules of the ops that move data only).
#: Any other op on such an operand is JAX's NotImplementedError.
keeps_partial_sums: set = set()


def _partial_sums(aval) -> bool:
    s = None if aval is core.abstract_token else aval._sharding
    return s is not None and bool(s.spec.unreduced or s.spec.reduced)


#: Primitives with a rule whose lowering JAX does not follow with the constraint of their
#: result's type (``copy`` is its operand; a sharding constraint is its own).
not_constrained: set = set()


def constrains(primitive) -> bool:
    """Whether ``primitive``'s lowered results are constrained to their types' shardings."""
    rule = sharding_rules.get(primitive)
    return rule is not None and rule is not AS_TRACED and primitive not in not_constrained


def constraint_of(aval) -> NamedSharding | None:
    """The sharding a value of type ``aval`` lies by, as JAX lays out a program's arguments
    and results and constrains an op's (lower_with_sharding_in_types): its type's, unless it
    has no mesh, or one whose axes are all ``Auto`` or all ``Manual``. (A token has no
    layout.)"""
    sharding = getattr(aval, '_sharding', None)
    if sharding is None or sharding.mesh.are_all_axes_auto or \
            sharding.mesh.are_all_axes_manual:
        return None
    return sharding


def row_type(aval):
    """The type of one row of ``aval`` (a scan's ``xs``): its leading dimension gone, with
    that dimension's entry of the spec."""
    sharding = aval._sharding
    if sharding is not None:
        sharding = sharding.update(spec=sharding.spec.partitions[1:])
    return core.ShapedArray(aval.shape[1:], aval.dtype, False, sharding)


def stacked_type(aval, length: int):
    """The type of ``length`` values of type ``aval`` stacked (a scan's ``ys``): a new
    leading dimension, unsharded."""
    sharding = aval._sharding
    if sharding is not None:
        sharding = sharding.update(spec=(None, *sharding.spec.partitions))
    return core.ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type, sharding)


def carry_sharding(aval):
    """What a loop carry's sharding must keep from one iteration to the next: none for an
    unsharded value, whichever mesh its type is over."""
    sharding = getattr(aval, '_sharding', None)
    if sharding is None or (all(e is None for e in sharding.spec.partitions)
                            and not sharding.spec.unreduced):
        return None
    return sharding


# ----------------------------------------------------------------------------- rule kinds

def mesh_or_current(*avals):
    """The operands' mesh, else the one in context (for results made from unsharded or no
    operands)."""
    mesh = operands_mesh(avals)
    return get_abstract_mesh() if mesh is None else mesh


def spec_of(aval) -> tuple:
    """The entries of ``aval``'s spec, one per dimension."""
    return (None,) * len(aval.shape) if aval._sharding is None else \
        aval._sharding.spec.partitions


def sharded(mesh, entries, like=None) -> NamedSharding:
    """A sharding over ``mesh`` with ``entries``, keeping ``like``'s unreduced/reduced."""
    if like is None or like._sharding is None:
        return NamedSharding(mesh, P(*entries))
    spec = like._sharding.spec
    return NamedSharding(mesh, P(*entries, unreduced=spec.unreduced, reduced=spec.reduced))


def operand_rule(index=0):
    """Sharded as operand ``index`` (unary elementwise ops, ``clamp``'s operand)."""
    def rule(*avals, **params):
        return avals[index].sharding
    return rule


def broadcasting_rule(name):
    """n-ary elementwise ops (JAX's broadcasting_sharding_rule): each dimension sharded as
    the operands that are not a broadcast size 1 agree; a disagreement is an error."""
    def rule(*avals, **params):
        mesh = mesh_or_current(*avals)
        shaped = [a for a in avals if a.shape]
        if not shaped:
            return NamedSharding(mesh, P())
        specs = [spec_of(a) for a in shaped]
        result = []
        for entries, dims in zip(zip(*specs), zip(*(a.shape for a in shaped))):
            real = [e for e, d in zip(entries, dims) if not (d == 1 and e is None)]
            out = None
            for e in (real if real else entries):
                if out is None:
                    out = e
                elif e is not None and e != out:
                    raise ShardingTypeError(
                        f'{name} got incompatible shardings for broadcasting: '
                        f'{", ".join(str(tuple(s)) for s in specs)}.')
            result.append(out)
        return NamedSharding(mesh, P(*result))
    return rule


def without_axes_rule(param):
    """Reductions: the operand's sharding without the reduced dimensions' entries
    (``param`` names them: ``axes``, or one ``axis``)."""
    def rule(operand, **params):
        axes = params[param]
        axes = set(axes) if isinstance(axes, (tuple, list)) else {axes}
        return sharded(operand.sharding.mesh,
                       [e for i, e in enumerate(spec_of(operand)) if i not in axes], operand)
    return rule


def unsharded_along_rule(param, message):
    """Ops along one dimension (cumulative sums, sorts) that JAX refuses on a dimension that
    is sharded; the result is sharded as the operand."""
    def rule(*operands, **params):
        axis = params[param]
        for operand in operands:
            if spec_of(operand)[axis] is not None:
                raise ShardingTypeError(message.format(aval=operand, axis=axis,
                                                       sharding=operand.sharding))
        return operands[0].sharding if len(operands) == 1 else \
            [o.sharding for o in operands]
    return rule


def gather_rule(operand, indices, *, dimension_numbers, slice_sizes, **params):
    """JAX's: the output's dimensions from the operand's unsliced ones (their shardings)
    and from the indices' (theirs); a sliced dimension of the operand must be unsharded,
    and so must the indices' other dimensions, or it is JAX's error asking for
    ``out_sharding``. Batching dimensions take whichever of the two is sharded."""
    meshes = {a.sharding.mesh for a in (operand, indices) if a._sharding is not None}
    if len(meshes) > 1:
        raise ShardingTypeError(f'Conflicting meshes received. Got: unique_meshes={meshes}')
    mesh = meshes.pop() if meshes else mesh_or_current(operand, indices)
    spec = _gather_spec(operand, indices, dimension_numbers, slice_sizes)
    if spec is None:
        raise ShardingTypeError(
            'Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather '
            'indexing as out sharding could not be resolved unambiguously (or would require '
            f'collectives on inputs). Got operand={operand!r}, indices={indices!r}')
    return NamedSharding(mesh, spec)


def _gather_spec(operand, indices, dnums, slice_sizes):
    ops, idx = spec_of(operand), list(spec_of(indices))
    if all(e is None for e in ops) and all(e is None for e in idx):
        return P()
    batching = list(zip(dnums.operand_batching_dims, dnums.start_indices_batching_dims))
    if not all(slice_sizes[i] == operand.shape[i] or ops[i] is None
               for i in dnums.start_index_map):
        return None
    if not all(idx[j] == ops[i] or ops[i] is None or idx[j] is None for i, j in batching):
        return None
    if any(e is not None for j, e in enumerate(idx)
           if j not in dnums.start_indices_batching_dims):
        return None
    for i, j in batching:
        idx[j] = idx[j] or ops[i]
    offsets = iter(i for i in range(operand.ndim) if i not in dnums.collapsed_slice_dims
                   and i not in dnums.operand_batching_dims)
    from_indices = iter(idx)
    return P(*[ops[next(offsets)] if d in dnums.offset_dims else next(from_indices)
               for d in range(len(dnums.offset_dims) + indices.ndim - 1)])


def scatter_rule(operand, indices, updates, *, dimension_numbers, **params):
    """JAX's, the gather's in reverse: sharded as the operand, with what the updates' and
    indices' shardings add to it; where they disagree, or the windows overlap across
    shards, JAX's error asking for ``out_sharding``."""
    meshes = {a.sharding.mesh for a in (operand, indices, updates) if a._sharding is not None}
    if len(meshes) > 1:
        raise ShardingTypeError(f'Conflicting meshes received. Got: unique_meshes={meshes}')
    mesh = meshes.pop() if meshes else mesh_or_current(operand, indices, updates)
    spec = _scatter_spec(operand, indices, updates, dimension_numbers)
    if spec is None:
        raise ShardingTypeError(
            'Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec '
            'for the scatter update as out sharding could not be resolved unambiguously (or '
            f'would require collectives on inputs). Got operand={operand!r}, '
            f'indices={indices!r}, updates={updates!r}')
    return NamedSharding(mesh, spec)


def _scatter_spec(operand, indices, updates, dnums):
    ops, idx, upd = spec_of(operand), spec_of(indices), spec_of(updates)
    if all(e is None for e in (*ops, *idx, *upd)):
        return P()
    vector_dim = indices.ndim - 1
    query_dims = list(range(vector_dim))  # (the updates' dims that are not window dims)
    for d in dnums.update_window_dims:
        query_dims.insert(d, None)
    upd_batching = [query_dims.index(i) for i in dnums.scatter_indices_batching_dims]
    batching = list(zip(dnums.operand_batching_dims, dnums.scatter_indices_batching_dims,
                        upd_batching))
    windows = list(zip(dnums.update_window_dims,
                       [i for i in range(operand.ndim) if i not in dnums.inserted_window_dims
                        and i not in dnums.operand_batching_dims]))
    resolvable = (
        all(len({ops[o], idx[i], upd[u]} - {None}) <= 1 for o, i, u in batching)
        and all(updates.shape[u] == operand.shape[o] and upd[u] == ops[o] or
                upd[u] is None and ops[o] is None for u, o in windows)
        and all(ops[i] is None for i in dnums.inserted_window_dims)
        and all(e is None for u, e in enumerate(upd)
                if u not in upd_batching and u not in dnums.update_window_dims)
        and all(e is None for i, e in enumerate(idx[:vector_dim])
                if i not in dnums.scatter_indices_batching_dims)
        and idx[vector_dim] is None)
    if not resolvable:
        return None
    out = list(ops)
    for o, i, u in batching:
        out[o] = out[o] or idx[i] or upd[u]
    for u, o in windows:
        out[o] = out[o] or upd[u]
    return P(*out)


def top_k_rule(operand, *, k, axis):
    """Both results sharded as the operand, which JAX refuses sharded along ``axis``."""
    if spec_of(operand)[axis] is not None:
        raise ShardingTypeError('The input should be unsharded over the axis along which to '
                                f'compute the top_k values. Got input type={operand} and '
                                f'axis={axis}')
    return [operand.sharding] * 2


def tile_rule(operand, *, reps):
    """Sharded as the operand, which JAX refuses sharded along a dimension it repeats."""
    for i, (r, entry) in enumerate(zip(reps, spec_of(operand))):
        if r != 1 and entry is not None:
            raise ShardingTypeError(f'Operand cannot be sharded on dimension {i} when the '
                                    f'tiling is non-trivial. Got input type: {operand} with '
                                    f'reps: {reps}')
    return operand.sharding


def transpose_rule(operand, *, perm):
    entries = spec_of(operand)
    return sharded(operand.sharding.mesh, [entries[i] for i in perm], operand)


def broadcast_in_dim_rule(operand, *, shape, broadcast_dimensions, sharding=None):
    if sharding is not None:
        return sharding
    entries = iter(spec_of(operand))
    dims = set(broadcast_dimensions)
    return sharded(mesh_or_current(operand),
                   [next(entries) if i in dims else None for i in range(len(shape))], operand)


def squeeze_rule(operand, *, dimensions):
    return sharded(operand.sharding.mesh,
                   [e for i, e in enumerate(spec_of(operand)) if i not in set(dimensions)],
                   operand)


def linalg_rule(name, ranks=(2,), multiple_results=True):
    """The decompositions of ``lax.linalg`` (JAX's linalg_sharding_rule): operand ``i``'s
    last ``ranks[i]`` dimensions are its matrices (or vectors), which must be unsharded;
    the dimensions before them are a batch, sharded alike in every operand, and every
    result is sharded as that batch, unsharded after it."""
    def rule(*avals, _out_shapes, **params):
        batches = []
        for i, (rank, aval) in enumerate(zip(ranks, avals)):
            spec = spec_of(aval)
            if any(e is not None for e in spec[len(spec) - rank:]):
                raise ShardingTypeError(f'Input {i} to {name} must be unsharded on non-batch '
                                        f'dimensions, but got {P(*spec)}.')
            batches.append(tuple(spec[:len(spec) - rank]))
        if any(b != batches[0] for b in batches[1:]):
            raise ShardingTypeError(f'All inputs to {name} must have the same batch '
                                    f'sharding, but got {batches}.')
        mesh, batch = mesh_or_current(*avals), batches[0]
        outs = [NamedSharding(mesh, P(*batch, *[None] * (len(s) - len(batch))))
                for s in _out_shapes]
        return outs if multiple_results else outs[0]
    rule.out_shapes = True
    return rule


def triangular_solve_rule(a, b, *, left_side, transpose_a, **params):
    """JAX's: ``a`` and ``b`` batched alike, each unsharded along the dimension the solve
    contracts; the result's matrix dimensions are ``b``'s free one and ``a``'s."""
    (a_batch, a_mat), (b_batch, b_mat) = ((s[:-2], s[-2:]) for s in map(spec_of, (a, b)))
    if a_batch != b_batch:
        raise ShardingTypeError('All inputs to triangular_solve must have the same batch '
                                f'sharding, but got {a_batch} and {b_batch}.')
    for name, aval, entry in (('a', a, a_mat[left_side ^ transpose_a]),
                              ('b', b, b_mat[not left_side])):
        if entry is not None:
            raise ShardingTypeError(
                f'triangular solve input `{name}` must be unsharded on the contracting axis, '
                f'but got {P(*spec_of(aval))} with left_side={left_side} and '
                f'transpose_a={transpose_a}.')
    out = [a_mat[transpose_a], b_mat[1]] if left_side else [b_mat[0], a_mat[not transpose_a]]
    return NamedSharding(mesh_or_current(a, b), P(*a_batch, *out))


def rng_bit_generator_rule(key, *, out_sharding=None, **params):
    """The new key sharded as the key; the bits as ``out_sharding`` says, else unsharded
    over the mesh in context."""
    bits = NamedSharding(get_abstract_mesh(), P()) if out_sharding is None else out_sharding
    return [key.sharding, bits]


def fft_rule(operand, *, _out_shapes, **params):
    """Sharded as the operand, even along the dimensions it transforms (JAX's: the result's
    type is the operand's resized, so ``rfft``'s shorter last dimension must still divide
    over the axes it is split along, JAX's ValueError else)."""
    operand.sharding.check_divisible(_out_shapes[0])
    return operand.sharding


fft_rule.out_shapes = True


def unsharded_results_rule(*avals, _out_shapes, **params):
    """Ops whose results' types are given, not derived (the callbacks' ``result_avals``):
    unsharded over no mesh, whatever their operands and the mesh in context (JAX's)."""
    return [None] * len(_out_shapes)


unsharded_results_rule.out_shapes = True


def created_rule(*avals, sharding=None, **params):
    """Ops that make an array from nothing (``iota``): unsharded over the mesh in context
    unless ``sharding`` says."""
    return NamedSharding(get_abstract_mesh(), P()) if sharding is None else sharding


def convert_rule(operand, *, sharding=None, **params):
    return operand.sharding if sharding is None else sharding


def same_sharding_rule(what):
    """Ops whose operands must be sharded alike (concatenate, select's cases)."""
    def rule(*avals, **params):
        cases = avals[1:] if what == 'select' else avals
        found = [a.sharding for a in cases if a._sharding is not None]
        if not found:
            return NamedSharding(get_abstract_mesh(), P())
        if what == 'select':
            if any(s != found[0] for s in found[1:]):
                raise ShardingTypeError('select cases must have the same shardings, got '
                                        f'[{", ".join(str(c.sharding) for c in cases)}].')
            which = avals[0]
            if which.shape and which._sharding is not None and (
                    which._sharding.mesh != found[0].mesh
                    or which._sharding.spec.partitions != found[0].spec.partitions):
                raise ShardingTypeError(
                    'select `which` must be scalar or have the same sharding as cases, got '
                    f'`which` sharding {which.sharding} but case sharding {found[0]}.')
        elif any(s != found[0] for s in found[1:]):
            raise ShardingTypeError('All operands should have the same sharding. Got '
                                    f'shardings {", ".join(str(a.sharding) for a in cases)}')
        return found[0]
    return rule


def _axis_size(mesh, entry) -> int:
    return math.prod(mesh.shape[a] for a in (entry if isinstance(entry, tuple) else (entry,)))


def varying_shape_rule(name, multiple_results=False):
    """Ops whose results may be smaller or larger than the operand (slice, pad, windowed
    reductions, split): sharded as the operand, which JAX allows only where a changed
    dimension stays divisible by the mesh axes it is split over."""
    def rule(operand, *rest, _out_shapes, **params):
        mesh = operand.sharding.mesh
        for shape in _out_shapes:
            for size, out, entry in zip(operand.shape, shape, spec_of(operand)):
                if size != out and entry is not None and out % _axis_size(mesh, entry):
                    raise ShardingTypeError(
                        f'{name} on sharded dims where out dim ({out}) is not divisible by '
                        f'mesh axes ({_axis_size(mesh, entry)}) with spec ({entry}) is not '
                        f'implemented. Got input type={operand.str_short(True)} and output '
                        f'shape={tuple(shape)}')
        return [operand.sharding] * len(_out_shapes) if multiple_results else \
            operand.sharding
    rule.out_shapes = True
    return rule


_CONV_SHAPES = varying_shape_rule('conv_general_dilated')


def conv_rule(lhs, rhs, *, _out_shapes, dimension_numbers, **params):
    """JAX's: with the kernel unsharded and the input's feature dimension too, the result
    is sharded as the input (a changed spatial dimension staying divisible); else JAX's
    error asking for ``out_sharding`` (which minijax's convolution does not take)."""
    if any(e is not None for e in spec_of(rhs)) or \
            spec_of(lhs)[dimension_numbers.lhs_spec[1]] is not None:
        raise ShardingTypeError('Please specify the output sharding via `out_sharding` '
                                'parameter of `conv_general_dilated`')
    return _CONV_SHAPES(lhs, _out_shapes=_out_shapes)


conv_rule.out_shapes = True


def stack_rule(*operands, axis):
    """``stack``: the operands sharded alike, the new dimension unsharded."""
    found = same_sharding_rule('stack')(*operands)
    entries = list(found.spec.partitions)
    entries.insert(axis, None)
    return found.update(spec=found.spec.update(partitions=entries))


def unstack_rule(operand, *, axis):
    """``unstack``: each piece sharded as the operand without the unstacked dimension,
    which must be unsharded."""
    if spec_of(operand)[axis] is not None:
        raise ShardingTypeError(f'unstack operand cannot be sharded on the unstacking axis '
                                f'{axis}. Got operand type={operand.str_short(True)}')
    return [sharded(operand.sharding.mesh,
                    [e for i, e in enumerate(spec_of(operand)) if i != axis], operand)
            ] * operand.shape[axis]


def dynamic_update_slice_rule(operand, update, *indices):
    if operand.sharding != update.sharding:
        raise ShardingTypeError(
            'dynamic_update_slice operand sharding must be equal to update sharding, got '
            f'operand sharding {operand.str_short()} and update sharding '
            f'{update.str_short()}.')
    return operand.sharding


def dot_general_rule(lhs, rhs, *, dimension_numbers, out_sharding=None, **params):
    if lhs._sharding is not None and rhs._sharding is not None and \
            lhs._sharding.mesh != rhs._sharding.mesh:
        raise ShardingTypeError('Mesh of both lhs and rhs should match. Got lhs: '
                                f'{lhs.sharding.mesh} and rhs: {rhs.sharding.mesh}')
    if out_sharding is not None:
        return out_sharding
    (lc, rc), (lb, rb) = dimension_numbers
    ls, rs = spec_of(lhs), spec_of(rhs)
    lbs, rbs = tuple(ls[i] for i in lb), tuple(rs[i] for i in rb)
    lcs, rcs = tuple(ls[i] for i in lc), tuple(rs[i] for i in rc)
    _specs_match(lbs, rbs, 'dot_general requires lhs batch dimensions and rhs batch '
                 f'dimensions to have the consistent sharding, got {lbs} and {rbs}.')
    _specs_match(lcs, rcs, 'dot_general requires contracting dimensions to have consistent '
                 f'sharding, got {lcs} and {rcs}.')
    if any(a is not None and b is not None for a, b in zip(lcs, rcs)):
        raise ShardingTypeError(
            'Contracting dimensions are sharded and it is ambiguous how the output should be '
            'sharded. Please specify the output sharding via the `out_sharding` parameter. '
            f'Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}')
    mesh = rhs.sharding.mesh if lhs._sharding is None and rhs._sharding is not None else \
        lhs.sharding.mesh
    lfree = [e for i, e in enumerate(ls) if i not in set(lc) | set(lb)]
    rfree = [e for i, e in enumerate(rs) if i not in set(rc) | set(rb)]
    return NamedSharding(mesh, P(*lbs, *lfree, *rfree))


def _specs_match(a, b, message):
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            raise ShardingTypeError(message)


class _ReshapeError(Exception):
    """A reshape the rule cannot shard (JAX's error, raised by reshape_rule)."""


def reshape_rule(operand, *, new_sizes, dimensions=None, sharding=None, **params):
    """JAX's reshape rule: an unsharded operand, 1s added or removed, or one dimension split
    (its axes going to the leading new dimensions) or several merged into one; with
    ``dimensions``, of the operand those permute, its axes' shardings permuted with them
    (JAX's rule reads the unpermuted operand, and refuses a split or merge of a sharded axis
    then: minijax's reshape was a transpose and a reshape, and keeps that sharding)."""
    if sharding is not None:
        return sharding
    if dimensions is not None and operand._sharding is not None:
        operand = operand.update(shape=tuple(operand.shape[d] for d in dimensions),
                                 sharding=transpose_rule(operand, perm=dimensions))
    entries = spec_of(operand)
    if all(e is None for e in entries):
        return NamedSharding(operand.sharding.mesh, P(*[None] * len(new_sizes)))
    mesh, shape = operand.sharding.mesh, operand.shape
    try:
        if [d for d in shape if d != 1] == [d for d in new_sizes if d != 1]:
            kept = iter(e for d, e in zip(shape, entries) if d != 1)
            return sharded(mesh, [None if d == 1 else next(kept) for d in new_sizes], operand)
        groups = _reshape_groups(shape, new_sizes)
        out = []
        for in_dims, out_dims in groups:
            axes = [a for i in in_dims for a in _entry_names(entries[i])]
            if len(in_dims) > 1:  # a merge: only the trailing operand dims may be unsharded
                named = [entries[i] for i in in_dims]
                while named and named[-1] is None:
                    named.pop()
                if None in named:
                    raise _ReshapeError
            out += _split_axes(mesh, axes, [new_sizes[j] for j in out_dims])
        return sharded(mesh, out, operand)
    except _ReshapeError:
        raise ShardingTypeError(
            'This reshape is not supported. Please specify the sharding of the output via '
            'the `out_sharding` argument of jax.lax.reshape. Got operand type: '
            f'{operand}, new sizes: {tuple(new_sizes)}') from None


def _entry_names(entry) -> tuple:
    return () if entry is None else entry if isinstance(entry, tuple) else (entry,)


def _reshape_groups(shape, new_sizes):
    """The dimensions of ``shape`` and ``new_sizes`` grouped so each group has the same
    product, and each is one-to-many or many-to-one (else JAX refuses)."""
    groups, i, j = [], 0, 0
    while i < len(shape) or j < len(new_sizes):
        ins, outs = [i], [j]
        a, b = shape[i], new_sizes[j]
        while a != b:
            if a < b:
                i += 1
                ins.append(i)
                a *= shape[i]
            else:
                j += 1
                outs.append(j)
                b *= new_sizes[j]
        if len(ins) > 1 and len(outs) > 1:
            raise _ReshapeError
        groups.append((ins, outs))
        i, j = i + 1, j + 1
    return groups


def _split_axes(mesh, axes, sizes) -> list:
    """The mesh ``axes`` (major first) given out to dimensions of ``sizes``, each taking
    axes while its size stays divisible (JAX's split_partitions)."""
    axes, out = list(axes), []
    for size in sizes:
        taken = []
        while size > 1 and axes:
            size, remainder = divmod(size, mesh.shape[axes[0]])
            if remainder:
                raise _ReshapeError
            taken.append(axes.pop(0))
        out.append(None if not taken else taken[0] if len(taken) == 1 else tuple(taken))
    if axes:
        raise _ReshapeError
    return out


# ----------------------------------------------------------------------------- registration

def register(rule, *primitives):
    """``rule`` for each of ``primitives``: a table entry, the only per-primitive code."""
    for p in primitives:
        sharding_rules[p] = rule


#: The rule of unary elementwise ops, and of every op whose result is sharded as its first
#: operand is.
SAME_AS_OPERAND = operand_rule(0)


def variadic_reduce_rule(*avals, dimensions, **params):
    """``reduce`` of n operands (and n initial values): each result sharded as its operand
    without the reduced dimensions."""
    mesh = mesh_or_current(*avals)
    return [sharded(mesh, [e for i, e in enumerate(spec_of(a)) if i not in set(dimensions)], a)
            for a in avals[:len(avals) // 2]]


def prefix_rule(*avals, **params):
    """Key arrays (``random_bits``, ``random_split``, ``random_wrap``...): the result's
    leading dimensions are sharded as the key operand's, the dimensions it adds are not."""
    return sharded(mesh_or_current(avals[0]), spec_of(avals[0]))


# ----------------------------------------------------------------------------- out_sharding=

def canonicalize_sharding(sharding, api_name: str) -> NamedSharding | None:
    """An ``out_sharding=`` argument as a type's sharding: a ``PartitionSpec`` over the mesh
    in context, a ``NamedSharding`` over its abstract mesh (JAX's canonicalize_sharding)."""
    if sharding is None:
        return None
    if isinstance(sharding, P):
        mesh = get_abstract_mesh()
        if mesh.empty:
            raise ValueError(
                'Using PartitionSpec when you are not under a mesh context is not allowed. '
                'Please pass a NamedSharding instance or enter into a mesh context via '
                f'`jax.set_mesh`. Got {sharding}')
        return NamedSharding(mesh, sharding)
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f'{api_name}: out_sharding must be a NamedSharding or a '
                        f'PartitionSpec, got {sharding!r}')
    return NamedSharding(sharding.mesh.abstract_mesh, sharding.spec)


def sharding_param(name: str, sharding, api_name: str) -> dict:
    """``{name: sharding}`` for a primitive's parameters, ``{}`` when None: an unsharded
    program's equations keep the parameters they always had."""
    sharding = canonicalize_sharding(sharding, api_name)
    return {} if sharding is None else {name: sharding}


def operand_type_sharding(aval) -> dict:
    """``{'out_sharding': ...}`` making a result of ``aval``'s sharding, ``{}`` for an
    unsharded ``aval`` (a transpose rule's cotangent, sharded as its primal)."""
    return {} if aval._sharding is None else {'out_sharding': aval._sharding}


def broadcast_shardings(*avals) -> NamedSharding | None:
    """The sharding of the operands of an elementwise op broadcast to one shape (ranks
    aligned on the right, as NumPy's), or None with no mesh: what jnp broadcasts them to."""
    ndim = max(len(a.shape) for a in avals)
    ranked = [core.ShapedArray((1,) * (ndim - len(a.shape)) + a.shape, a.dtype, False,
                               None if a._sharding is None else a._sharding.update(
                                   spec=(None,) * (ndim - len(a.shape)) + spec_of(a)))
              for a in avals]
    sharding = broadcasting_rule('broadcast_shardings')(*ranked)
    return None if sharding.mesh.empty else sharding


def assert_sharding_is(aval, sharding: NamedSharding) -> None:
    """``with_sharding_constraint`` under ``Explicit`` axes: an assertion that the value's
    type is sharded as ``sharding`` says (JAX's AssertionError otherwise)."""
    spec = spec_of(aval)
    wanted = sharding.spec._normalized_spec_for_aval(len(aval.shape)).partitions
    if any(w != s for s, w in zip(spec, wanted) if w is not UNCONSTRAINED_ENTRY):
        raise AssertionError(
            '`with_sharding_constraint` acts as an assert when all axes of mesh are of type '
            f'`Explicit`. The array sharding: {P(*spec)} did not match the sharding provided: '
            f'{P(*wanted)}. Please use `jax.sharding.reshard` to shard your input to the '
            'sharding you want.')


def check_auto_only(sharding) -> None:
    """A constraint on a mesh with ``Explicit`` axes may name only its ``Auto`` axes."""
    if not isinstance(sharding, NamedSharding):
        return
    mesh = sharding.mesh.abstract_mesh
    kinds = mesh._name_to_type
    if any(kinds[a] is not AxisType.Auto for entry in sharding.spec.partitions
           if entry is not None and entry is not UNCONSTRAINED_ENTRY
           for a in (entry if isinstance(entry, tuple) else (entry,))):
        raise ValueError(
            'The spec of NamedSharding passed to with_sharding_constraint can only refer to '
            f'Auto axes of the mesh. Got spec={sharding.spec} and mesh={mesh}. You probably '
            'meant to use `reshard` API?')
