"""The collectives of ``jax.lax`` that XLA's CPU backend does not run: ``pbroadcast``,
``psend``/``precv`` and ``ragged_all_to_all``. They trace, transform and print as JAX's do,
and fail on CPU where and as JAX 0.10.2 fails there:

- ``pbroadcast`` (every member gets member ``source``'s value: XLA's CollectiveBroadcast)
  has no CPU lowering in JAX: lowering it is JAX's NotImplementedError. Under
  ``vmap(..., axis_name=...)`` it is an ordinary program and runs.
- ``psend``/``precv`` (one-sided sends and receives ordered by a token: XLA's Send and Recv)
  lower on GPUs only: lowering them is JAX's NotImplementedError.
- ``ragged_all_to_all`` (an all-to-all of ragged slices) lowers to JAX's
  ``stablehlo.custom_call @ragged_all_to_all``, its module text JAX's; XLA:CPU then refuses
  to compile it (its UNIMPLEMENTED error, a ``JaxRuntimeError``, as under JAX).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, tree_util
from minijax.core import ShapedArray
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import move_batch_axis, moveaxis, not_mapped
from minijax.interpreters.jvp import Zero
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.bitwise import bitwise_and
from minijax.lax.elementwise import add, eq, ge, lt, mul, select_n
from minijax.lax.parallel import (COLLECTIVE_CHANNEL_ID, _bind, _collective, _replica_groups,
                                  _same_dim, all_to_all, axis_index, axis_names_of, psum)
from minijax.lax.reductions import reduce_or
from minijax.lax.shapes import index_in_dim
from minijax.lax.structural import broadcast_in_dim, broadcasted_iota, full, iota, reshape
from minijax.lowering import register_lowering

__all__ = ['pbroadcast', 'pbroadcast_p', 'precv', 'precv_p', 'psend', 'psend_p',
           'ragged_all_to_all', 'ragged_all_to_all_p']


def _no_cpu_lowering(message):
    def lowering(ctx, *args, **params):
        raise NotImplementedError(message)
    return lowering

# ----------------------------------------------------------------------------- pbroadcast


def _pbroadcast_vmap(size, vals, dims, *, axis_name, source):
    """Over its own vmapped axis: every example gets example ``source``'s value."""
    (x,), (d,) = vals, dims
    if d is not_mapped:
        return x, not_mapped
    row = index_in_dim(move_batch_axis(size, d, 0, x), source, keepdims=False)
    aval = core.get_aval(row)
    return broadcast_in_dim(row, (size, *aval.shape), tuple(range(1, aval.ndim + 1))), 0


pbroadcast_p = _collective('pbroadcast', lambda x, *, source: x, _pbroadcast_vmap)
pbroadcast_p.def_batching(_same_dim(pbroadcast_p))
ad.defjvp_linear(pbroadcast_p)


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    """The cotangents summed onto member ``source``, zeros elsewhere (JAX 0.10.2's rule
    fills with ``full_like``, which fails on a cotangent that is not a scalar)."""
    total = psum(ct, axis_name)
    return [select_n(eq(axis_index(axis_name), np.int32(source)),
                     full(core.get_aval(ct).shape, 0, core.get_aval(ct).dtype), total)]


pbroadcast_p.def_transpose(_pbroadcast_transpose)
register_lowering(pbroadcast_p, _no_cpu_lowering(
    "MLIR translation rule for primitive 'pbroadcast' not found for platform cpu"))


def pbroadcast(x, axis_name, source):
    """Every member of the axis gets member ``source``'s ``x`` (a pytree): JAX's
    ``psum(where(axis_index(axis_name) == source, x, 0), axis_name)``, as one collective.
    XLA's CPU backend has none: it runs only under ``vmap(..., axis_name=...)``."""
    return tree_util.tree_map(
        lambda leaf: _bind(pbroadcast_p, leaf, axis_name=axis_name, source=source), x)

# ----------------------------------------------------------------------------- psend, precv


def _perm(perm) -> tuple:
    return tuple(map(tuple, perm))


psend_p = _collective('psend', lambda x, *, perm: core.abstract_token, None)
psend_p.effectful = True  # (kept, though only a precv reads its token)
register_lowering(psend_p, _no_cpu_lowering('psend is currently only implemented on GPU'))


def psend(x, axis_name, perm):
    """Send member ``src``'s ``x`` (a pytree) to member ``dst`` for each ``(src, dst)`` of
    ``perm``; a token (per leaf) that a ``precv`` takes to order the receive after it. GPUs
    only, as in JAX: lowering it on CPU is its NotImplementedError."""
    axis_name = axis_names_of(axis_name)
    return tree_util.tree_map(
        lambda leaf: psend_p.bind(leaf, axis_name=axis_name, perm=_perm(perm)), x)


precv_p = _collective('precv', lambda token, *, out_shape, perm: out_shape, None)
precv_p.effectful = True
register_lowering(precv_p, _no_cpu_lowering('precv is currently only implemented on GPU'))


def precv(token, out_shape, axis_name, perm):
    """Receive an array of ``out_shape`` (a ``ShapeDtypeStruct``) as ``perm`` pairs the
    members, after ``token`` (a ``psend``'s or ``create_token()``). GPUs only, as
    ``psend``."""
    return precv_p.bind(token, out_shape=ShapedArray(tuple(out_shape.shape),
                                                     np.dtype(out_shape.dtype)),
                        axis_name=axis_names_of(axis_name), perm=_perm(perm))

# ----------------------------------------------------------------------------- ragged_all_to_all


_OFFSETS = ('input_offsets', 'send_sizes', 'output_offsets', 'recv_sizes')


def _ragged_abstract_eval(operand, output, *offsets, axis_index_groups):
    """JAX's checks: the offsets and sizes are non-empty integer vectors."""
    for name, aval in zip(_OFFSETS, offsets):
        if not dtypes.issubdtype(aval.dtype, np.integer):
            raise ValueError(f'ragged_all_to_all {name} must be integer type.')
        if aval.ndim != 1 or aval.shape[0] < 1:
            raise ValueError(f'ragged_all_to_all {name} must be rank 1 with positive '
                             f'dimension size, but got shape {aval.shape}')
    return output.update(weak_type=False)


def _ragged_own_axis(size, vals, dims, **params):
    raise NotImplementedError('Please open a feature request!')  # (JAX's, under vmap)


ragged_all_to_all_p = _collective('ragged_all_to_all', _ragged_abstract_eval, _ragged_own_axis)


def _ragged_jvp(primals, tangents, **params):
    operand, output, *offsets = primals
    operand_dot, output_dot, *_ = tangents
    out = ragged_all_to_all_p.bind(operand, output, *offsets, **params)
    if type(operand_dot) is Zero and type(output_dot) is Zero:
        return out, Zero(core.get_aval(out))
    dots = [ad.instantiate(t) for t in (operand_dot, output_dot)]
    return out, ragged_all_to_all_p.bind(*dots, *offsets, **params)


ragged_all_to_all_p.def_jvp(_ragged_jvp, symbolic_zeros=True)


def _ragged_transpose(ct, operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups):
    """JAX's: the cotangent sent back the way the slices came (offsets exchanged by a tiled
    ``all_to_all``) for the operand; for the output, the cotangent outside the received
    slices (minijax finds them by comparing positions, JAX by a cumulative sum)."""
    aval = core.get_aval(ct)
    operand_ct = output_ct = None
    zeros = full(operand.aval.shape, 0, operand.aval.dtype) \
        if is_undefined_primal(operand) else None
    back_out, back_in = (all_to_all(o, axis_name, 0, 0, tiled=True)
                         for o in (output_offsets, input_offsets))
    if zeros is not None:
        operand_ct = ragged_all_to_all_p.bind(ct, zeros, back_out, recv_sizes, back_in,
                                              send_sizes, axis_name=axis_name,
                                              axis_index_groups=axis_index_groups)
    if is_undefined_primal(output):
        k = core.get_aval(back_out).shape[0]
        rows = broadcasted_iota(core.get_aval(back_out).dtype, (aval.shape[0], k), 0)
        starts = broadcast_in_dim(back_out, (aval.shape[0], k), (1,))
        ends = broadcast_in_dim(add(back_out, recv_sizes), (aval.shape[0], k), (1,))
        received = reduce_or(bitwise_and(ge(rows, starts), lt(rows, ends)), (1,))
        mask = broadcast_in_dim(received, aval.shape, (0,))
        output_ct = select_n(mask, ct, full(aval.shape, 0, aval.dtype))
    return [operand_ct, output_ct, None, None, None, None]


ragged_all_to_all_p.def_transpose(_ragged_transpose)


def _ragged_other_axis(vals, dims, *, axis_name, axis_index_groups):
    """vmap over another axis (JAX's rule): the examples' buffers laid end to end, each
    example's offsets moved to its part, one exchange, split back."""
    if axis_index_groups:
        raise NotImplementedError('Please open a feature request!')
    size = next(core.get_aval(x).shape[d] for x, d in zip(vals, dims) if d is not not_mapped)
    operand, output = (move_batch_axis(size, d, 0, x) for x, d in zip(vals[:2], dims[:2]))
    n, m = core.get_aval(operand).shape[1], core.get_aval(output).shape[1]
    offsets = [moveaxis(move_batch_axis(size, d, 0, x), 0, 1)
               for x, d in zip(vals[2:], dims[2:])]  # (K, size)
    k = core.get_aval(offsets[0]).shape[0]

    def shifted(x, length):
        dtype = core.get_aval(x).dtype
        step = mul(iota(dtype, size), full((size,), length, dtype))
        return add(x, broadcast_in_dim(step, (k, size), (1,)))
    offsets[0], offsets[2] = shifted(offsets[0], n), shifted(offsets[2], m)

    def merged(x):
        shape = core.get_aval(x).shape
        return reshape(x, (shape[0] * shape[1], *shape[2:]))
    out = ragged_all_to_all(*map(merged, (operand, output, *offsets)), axis_name=axis_name)
    shape = core.get_aval(out).shape
    return reshape(out, (size, shape[0] // size, *shape[1:])), 0


ragged_all_to_all_p.def_batching(_ragged_other_axis)


def _ragged_lowering(ctx, operand, output, *offsets, axis_name, axis_index_groups):
    """JAX's custom call: the device groups (and, in a manual computation, the channel) in
    its backend config, a dictionary."""
    groups, extra = _replica_groups('ragged_all_to_all', axis_name, axis_index_groups)
    config = {'replica_groups': groups}
    if extra:
        config['channel_id'] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                  COLLECTIVE_CHANNEL_ID)
    return hlo.CustomCallOp([output.type], [operand, output, *offsets],
                            ir.StringAttr.get('ragged_all_to_all'),
                            backend_config=ir.DictAttr.get(config),
                            api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                           4)).result


register_lowering(ragged_all_to_all_p, _ragged_lowering)


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
                      *, axis_name, axis_index_groups=None):
    """Each member sends ragged slices of ``operand`` (``send_sizes[i]`` rows from
    ``input_offsets[i]``) to the members in turn, which write them into ``output`` at
    ``output_offsets`` (the sender's view) in ``recv_sizes`` rows: JAX's
    ``lax.ragged_all_to_all``. XLA's CPU backend cannot compile it (as under JAX)."""
    groups = None if axis_index_groups is None else \
        tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    if groups is not None and len({len(g) for g in groups}) > 1:
        raise ValueError('Replica groups must be equally sized')
    return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes,
                                    output_offsets, recv_sizes,
                                    axis_name=axis_names_of(axis_name), axis_index_groups=groups)
