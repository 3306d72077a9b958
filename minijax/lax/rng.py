"""Randomness on the device: ``rng_bit_generator``, XLA's counter-based generator of random
bits from a key, and ``rng_uniform``, XLA's stateful uniform numbers.

``rng_bit_generator(key, shape)`` is a function of its key: the same key gives the same bits
and a new key to draw the next bits from. Its bits are XLA's (Philox or Threefry, the
platform's choice by default), so it runs on XLA eagerly, as JAX runs it, and so does its
impl: minijax has no NumPy imitation of them. ``rng_uniform`` draws from XLA's own state:
two calls give different numbers, and only their range, shape and dtype are defined.
Neither is differentiable (JAX has no rule either), and JAX batches only the bit generator,
drawing every example's bits from the first key, which minijax does too.
"""
from __future__ import annotations

import enum

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters.batching import moveaxis, not_mapped
from minijax.lax.slicing import dynamic_update_index_in_dim, slice  # noqa: A004 (lax.slice)
from minijax.lax.structural import squeeze
from minijax.lowering import constant, register_lowering, tensor_type
from minijax.sharding.rules import canonicalize_sharding


class RandomAlgorithm(enum.IntEnum):
    """Which algorithm ``rng_bit_generator`` draws its bits with."""
    RNG_DEFAULT = 0  # the platform's default
    RNG_THREE_FRY = 1  # Threefry-2x32
    RNG_PHILOX = 2  # Philox-4x32

    def __str__(self):  # (as JAX prints it in a jaxpr: algorithm=RNG_DEFAULT)
        return self.name


_BIT_DTYPES = tuple(np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64))
#: The keys XLA's generator takes: two 64-bit words, or the same bits as four 32-bit words.
_KEY_TYPES = {((2,), np.dtype(np.uint64)), ((4,), np.dtype(np.uint32))}

# ----------------------------------------------------------------------------- rng_bit_generator

rng_bit_generator_p = Primitive('rng_bit_generator', multiple_results=True, eager_on_xla=True)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """``(new_key, bits)``: random bits of ``shape`` and the unsigned ``dtype`` drawn from
    ``key`` (a ``uint32[4]`` or ``uint64[2]``) by ``algorithm``, and the key to draw the
    next ones from. Most programs want ``minijax.random``."""
    shape = core.canonicalize_shape(shape, 'rng_bit_generator')
    dtype = dtypes.check_supported(dtype, 'rng_bit_generator dtype')
    if dtype not in _BIT_DTYPES:  # (JAX's text)
        raise TypeError(f'rng_bit_generator: unsupported dtype {dtype}')
    if algorithm not in tuple(RandomAlgorithm):
        raise ValueError(f'rng_bit_generator: algorithm must be a lax.RandomAlgorithm, '
                         f'got {algorithm!r}')
    return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype, algorithm=algorithm,
                                          out_sharding=canonicalize_sharding(
                                              out_sharding, 'rng_bit_generator')))


def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    """The new key has the key's type. A key of another type is refused here (JAX fails
    lowering it, with an AssertionError)."""
    if (key.shape, key.dtype) not in _KEY_TYPES:
        raise TypeError(f'rng_bit_generator: the key must be uint32[4] or uint64[2], got '
                        f'{key.str_short()}')
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


def _rng_bit_generator_impl(key, **params):
    """XLA's bits, computed by XLA even under ``MINIJAX_EAGER=numpy``: minijax has no NumPy
    imitation of Philox and Threefry to check them against."""
    from minijax.dispatch import apply_primitive  # (the layer above: XLA runs the lowering)
    out_avals = _rng_bit_generator_abstract_eval(core.get_aval(key), **params)
    return apply_primitive(rng_bit_generator_p, [key], params, out_avals)


def _rng_bit_generator_batching(vals, dims, *, shape, **params):
    """JAX's rule: the bits of every example come from the first example's key, in one draw
    of the batched shape, and only that key is replaced by the new one."""
    (keys,), (dim,) = vals, dims
    if dim is not_mapped:
        return rng_bit_generator_p.bind(keys, shape=shape, **params), [not_mapped, not_mapped]
    keys = moveaxis(keys, dim, 0)
    # the first key as JAX's keys[0] takes it: a slice without strides, squeezed
    first_key = squeeze(slice(keys, (0,) * keys.ndim, (1, *keys.shape[1:])), (0,))
    new_key, bits = rng_bit_generator_p.bind(first_key, shape=(keys.shape[0], *shape),
                                             **params)
    return [dynamic_update_index_in_dim(keys, new_key, 0, axis=0), bits], [0, 0]


def _rng_bit_generator_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding):
    """``stablehlo.rng_bit_generator`` on a ``uint64[2]`` key: a ``uint32[4]`` key is
    reshaped and bitcast to it, and the new key back, as JAX lowers it."""
    key_aval, bits_aval = ctx.avals_out
    u64_key = ShapedArray((2,), np.uint64)
    words = key_aval.dtype == np.uint32
    if words:
        pairs = hlo.ReshapeOp(tensor_type(ShapedArray((2, 2), np.uint32)), key).result
        key = hlo.BitcastConvertOp(tensor_type(u64_key), pairs).result
    new_key, bits = hlo.RngBitGeneratorOp(
        tensor_type(u64_key), tensor_type(bits_aval),
        hlo.RngAlgorithmAttr.get(str(RandomAlgorithm(algorithm)).removeprefix('RNG_')),
        key).results
    if words:
        pairs = hlo.BitcastConvertOp(tensor_type(ShapedArray((2, 2), np.uint32)), new_key).result
        new_key = hlo.ReshapeOp(tensor_type(key_aval), pairs).result
    return [new_key, bits]


rng_bit_generator_p.def_impl(_rng_bit_generator_impl)
rng_bit_generator_p.def_abstract_eval(_rng_bit_generator_abstract_eval)
rng_bit_generator_p.def_batching(_rng_bit_generator_batching)
register_lowering(rng_bit_generator_p, _rng_bit_generator_lowering)

# ----------------------------------------------------------------------------- rng_uniform

rng_uniform_p = Primitive('rng_uniform', eager_on_xla=True)
#: The dtypes XLA's CPU backend draws uniformly (it aborts the process on bool and on
#: integers narrower than 32 bits; StableHLO refuses complex numbers).
_UNIFORM_DTYPES = ('float16', 'bfloat16', 'float32', 'float64', 'int32', 'int64', 'uint32',
                   'uint64')


def rng_uniform(a, b, shape):
    """Numbers of ``shape`` drawn uniformly from ``[a, b)`` (scalars of one dtype) by XLA's
    stateful generator: each call draws anew. Most programs want ``minijax.random``."""
    return rng_uniform_p.bind(a, b, shape=core.canonicalize_shape(shape, 'rng_uniform'))


def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:  # (JAX's texts)
        raise ValueError(f'Arguments to rng_uniform must have identical dtypes, got '
                         f'{a.dtype.name} and {b.dtype.name}.')
    if a.shape != () or b.shape != ():
        raise ValueError(f'Arguments to rng_uniform must be scalars; got shapes {a.shape} '
                         f'and {b.shape}.')
    if a.dtype.name not in _UNIFORM_DTYPES:
        raise TypeError(f'rng_uniform: XLA draws {", ".join(_UNIFORM_DTYPES)} numbers, '
                        f'got {a.str_short()}')
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_impl(a, b, *, shape):
    """NumPy's own draw from ``[a, b)`` (XLA draws eagerly, from its state: this serves
    ``MINIJAX_EAGER=numpy``)."""
    a, b = np.asarray(a), np.asarray(b)
    rng = np.random.default_rng()
    if dtypes.is_float(a.dtype):
        return rng.uniform(a, b, shape).astype(a.dtype)
    return rng.integers(a, b, shape, dtype=a.dtype, endpoint=False)


def _rng_uniform_lowering(ctx, a, b, *, shape):
    dims = constant(np.array(shape, np.int64))
    return hlo.RngOp(a, b, dims, hlo.RngDistributionAttr.get('UNIFORM')).result


rng_uniform_p.def_impl(_rng_uniform_impl)
rng_uniform_p.def_abstract_eval(_rng_uniform_abstract_eval)
register_lowering(rng_uniform_p, _rng_uniform_lowering)

