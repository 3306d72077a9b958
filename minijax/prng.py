"""minijax.prng: typed PRNG keys, the primitives on them, and the threefry2x32 hash below.

A typed key array (``minijax.random.key(0)``) is an ``Array`` of dtype ``key<fry>``
(``minijax.dtypes.key_fry``): each element is a whole key. Its *physical* value is the
keys' uint32 words as a trailing axis, so a ``key<fry>[3]`` is stored, transferred and
lowered as a ``uint32[3,2]`` (``core.physical_aval``), as in JAX.

Programs never see the words: they see six primitives, each with all its rules here.

- ``random_seed``, ``random_split``, ``random_fold_in`` and ``random_bits`` act on keys.
  Each is computed by a *physical* function of one key's words (the threefry hash), vmapped
  over the key array's shape: that function is the implementation, and traced at the
  physical types it is the lowering. Under ``vmap`` a batch of keys is one more axis of the
  key array. Keys have no derivatives: the outputs' tangents are zeros.
- ``random_wrap`` and ``random_unwrap`` turn words into keys and back; they lower to
  nothing, since the physical types are the words.

The primitives that only move elements (slicing, reshaping, broadcasting, gathering,
selecting, copying: ``STRUCTURAL_PRIMITIVES``) also act on key arrays, so that keys can be
indexed, stacked, carried through loops and batched. A key array is two uint32 arrays, one
per word, and such a primitive moves the elements of both alike: its own rules, applied to
each word, are its rules on keys (``lift_to_keys``).

The hash: ``threefry2x32(key, x) -> y``, 20 rounds of add, rotate and xor on pairs of
uint32 words (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011). The
bits for an array of ``shape`` are the hash of the counters 0, 1, 2, ... (the flat index of
each element as a 64-bit number: high and low words), as JAX computes them with
``jax_threefry_partitionable`` on (its default since 0.5). It is ``jit``-compiled, so it is
lowered to one private StableHLO function that every use calls.
"""
from __future__ import annotations

import math
from functools import lru_cache, partial

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lax
from minijax.array import key_array, physical_value
from minijax.core import Primitive, ShapedArray
from minijax.sharding import rules as sharding_rules
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import axis_size_of, move_batch_axis, vmap
from minijax.ir.tracing import trace_to_jaxpr
from minijax.jit import jit
from minijax.lowering import (LoweringRuleContext, lower_closed_jaxpr, lowering_rules,
                              register_lowering, tensor_type)

uint32 = dtypes.uint32
UINT_DTYPES = {8: np.dtype('uint8'), 16: np.dtype('uint16'), 32: np.dtype('uint32'),
               64: np.dtype('uint64')}

# ----------------------------------------------------------------------------- the hash

#: Threefry-2x32's rotation distances: rounds alternate between the two groups of four.
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
#: The key schedule's third word is k0 ^ k1 ^ this constant (Threefish's parity word).
KEY_PARITY = 0x1BD11BDA


def _u32(value):
    return np.uint32(value)


def _rotate_left(x, distance):
    return lax.bitwise_or(lax.shift_left(x, _u32(distance)),
                          lax.shift_right_logical(x, _u32(32 - distance)))


def _mix(x0, x1, distance):
    """One round: add the words, rotate the second, xor the sum into it."""
    x0 = lax.add(x0, x1)
    return x0, lax.bitwise_xor(_rotate_left(x1, distance), x0)


@jit
def threefry2x32(k0, k1, x0, x1):
    """The threefry2x32 hash of the counter words ``(x0, x1)`` (uint32 arrays of one shape)
    under the key ``(k0, k1)`` (uint32 scalars): 5 groups of 4 rounds, the key schedule
    (the three words rotating) injected before the first group and after each one."""
    schedule = [k0, k1, lax.bitwise_xor(lax.bitwise_xor(k0, k1), _u32(KEY_PARITY))]
    x0, x1 = lax.add(x0, schedule[0]), lax.add(x1, schedule[1])
    for group in range(5):
        for distance in ROTATIONS[group % 2]:
            x0, x1 = _mix(x0, x1, distance)
        x0 = lax.add(x0, schedule[(group + 1) % 3])
        x1 = lax.add(lax.add(x1, schedule[(group + 2) % 3]), _u32(group + 1))
    return x0, x1


# ----------------------------------------------------------------------------- one key's words

def _words(key):
    """A key's two words, ``uint32[2]`` -> two uint32 scalars."""
    return [lax.reshape(lax.slice(key, (i,), (i + 1,)), ()) for i in range(2)]


def _stack_last(x, y):
    return lax.concatenate([lax.expand_dims(x, (-1,)), lax.expand_dims(y, (-1,))], -1)


def _counters(shape):
    """The flat index of each element of ``shape`` as a 64-bit counter: (high, low) words."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise ValueError(f'minijax.random: {size} random values in one call is more than the '
                         '2**32 that 32-bit counters number')
    low = lax.reshape(lax.iota(uint32, size), shape)
    return lax.full(shape, 0, uint32), low


def threefry_seed(seed):
    """A key's words from an integer seed: its 64 bits as (high, low); a seed of 32 bits or
    fewer has a zero high word."""
    dtype = core.get_aval(seed).dtype
    low = lax.convert_element_type(seed, uint32)
    if dtype.itemsize < 8:
        return _stack_last(lax.full((), 0, uint32), low)
    high = lax.shift_right_logical(seed, np.array(32, dtype))
    return _stack_last(lax.convert_element_type(high, uint32), low)


def threefry_split(key, shape):
    """The words of ``prod(shape)`` new keys: the hash pairs of the counters."""
    return _stack_last(*threefry2x32(*_words(key), *_counters(shape)))


def threefry_fold_in(key, data):
    """The words of a new key: the hash pair of the counter pair (0, data)."""
    return _stack_last(*threefry2x32(*_words(key), lax.full((), 0, uint32), data))


def threefry_random_bits(key, bit_width, shape):
    """Random bits: the xor of the two hash words (32 bits or fewer), or both (64 bits)."""
    high, low = threefry2x32(*_words(key), *_counters(shape))
    if bit_width == 64:
        dtype = UINT_DTYPES[64]
        high = lax.shift_left(lax.convert_element_type(high, dtype), np.uint64(32))
        return lax.bitwise_or(high, lax.convert_element_type(low, dtype))
    mixed = lax.bitwise_xor(high, low)
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, UINT_DTYPES[bit_width])


# ----------------------------------------------------------------------------- key primitives

def _key_shape(name, keys):
    if not dtypes.is_key(keys.dtype):
        raise TypeError(f'{name} expects a PRNG key array (dtype key<fry>), got '
                        f'{keys.str_short()}')
    return keys.shape


def _over_key_shape(physical, ndim, params):
    """``physical`` (of one key's operands) vmapped over the ``ndim`` leading axes that the
    key array's shape gives all its operands."""
    fun = partial(physical, **params)
    for _ in range(ndim):
        fun = vmap(fun)
    return fun


def _key_impl(primitive, physical, *args, **params):
    """The physical function on the operands' physical values, as one compiled program
    (``_compiled_physical``); key outputs wrapped."""
    out_aval = core.abstract_eval_rules[primitive](*map(core.get_aval, args), **params)
    fun = _compiled_physical(physical, core.get_aval(args[0]).ndim, tuple(params.items()))
    out = physical_value(fun(*map(physical_value, args)))
    return key_array(np.array(out)) if dtypes.is_key(out_aval.dtype) else out


@lru_cache(maxsize=256)
def _compiled_physical(physical, ndim, params: tuple):
    """``_over_key_shape``'s function as a ``jit``, made once per key rank and parameters:
    eagerly, a split or a draw is one executable's call (as JAX jits its threefry
    functions), not the hash's hundred ops each dispatched on its own."""
    return jit(_over_key_shape(physical, ndim, dict(params)))


def _key_lowering(physical, ctx, *args, **params):
    """The physical function traced at the physical types, emitted in place."""
    fun = _over_key_shape(physical, ctx.avals_in[0].ndim, params)
    closed, _ = trace_to_jaxpr(lambda *xs: [fun(*xs)], map(core.physical_aval, ctx.avals_in))
    return lower_closed_jaxpr(ctx.module_context, closed, args)


def _key_batching(primitive, vals, dims, **params):
    """The batch is one more leading axis of the key array (and of the other operands)."""
    size = axis_size_of(vals, dims)
    return primitive.bind(*(move_batch_axis(size, d, 0, v) for v, d in zip(vals, dims)),
                          **params), 0


def _key_primitive(name, physical, abstract_eval):
    """A primitive on key arrays computed by ``physical`` on one key's words."""
    primitive = Primitive(name)
    primitive.def_impl(partial(_key_impl, primitive, physical))
    primitive.def_abstract_eval(abstract_eval)
    primitive.def_batching(partial(_key_batching, primitive))
    ad.defjvp_zero(primitive)
    register_lowering(primitive, partial(_key_lowering, physical))
    sharding_rules.register(sharding_rules.prefix_rule, primitive)
    return primitive


def _seed_abstract_eval(seeds, *, impl):
    if not dtypes.is_integer(seeds.dtype):
        raise TypeError(f'PRNG key seed must be an integer; got {seeds.str_short()}')
    return ShapedArray(seeds.shape, dtypes.key_fry)


def _split_abstract_eval(keys, *, shape):
    return ShapedArray((*_key_shape('random_split', keys), *shape), dtypes.key_fry)


def _fold_in_abstract_eval(keys, msgs):
    if msgs.dtype != uint32 or msgs.shape != _key_shape('random_fold_in', keys):
        raise TypeError(f'random_fold_in: the data must be uint32 of the keys\' shape '
                        f'{keys.shape}, got {msgs.str_short()}')
    return ShapedArray(keys.shape, dtypes.key_fry)


def _bits_abstract_eval(keys, *, bit_width, shape):
    return ShapedArray((*_key_shape('random_bits', keys), *shape), UINT_DTYPES[bit_width])


random_seed_p = _key_primitive('random_seed', lambda seed, impl: threefry_seed(seed),
                               _seed_abstract_eval)
random_split_p = _key_primitive('random_split', threefry_split, _split_abstract_eval)
random_fold_in_p = _key_primitive('random_fold_in', threefry_fold_in, _fold_in_abstract_eval)
random_bits_p = _key_primitive('random_bits', threefry_random_bits, _bits_abstract_eval)
# JAX's marker that a key is used twice on purpose (for its key-reuse checker): the identity.
random_clone_p = _key_primitive('random_clone', lambda keys: keys, lambda keys: keys)


def random_seed(seeds):
    return random_seed_p.bind(seeds, impl=dtypes.key_fry.impl)


def random_split(keys, shape):
    return random_split_p.bind(keys, shape=tuple(shape))


def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, msgs)


def random_bits(keys, bit_width, shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


# ----------------------------------------------------------------------------- wrap and unwrap

random_wrap_p = Primitive('random_wrap')
random_unwrap_p = Primitive('random_unwrap')
sharding_rules.register(sharding_rules.prefix_rule, random_wrap_p, random_unwrap_p)


def random_wrap(words, *, impl=dtypes.key_fry.impl):
    """Keys from their words, ``uint32[..., 2]`` -> ``key<fry>[...]``."""
    return random_wrap_p.bind(words, impl=impl)


def random_unwrap(keys):
    """The words of keys, ``key<fry>[...]`` -> ``uint32[..., 2]``."""
    return random_unwrap_p.bind(keys)


def _wrap_abstract_eval(words, *, impl):
    """JAX's checks of key data, in its words."""
    if words.dtype != uint32:
        raise TypeError(f'JAX encountered invalid PRNG key data: expected key_data.dtype = '
                        f'uint32; got dtype={words.dtype}')
    if words.shape[-1:] != (dtypes.key_fry.words,):
        raise TypeError(f'JAX encountered invalid PRNG key data: expected key_data.shape to '
                        f'end with (2,); got shape={words.shape} for impl=threefry2x32')
    return ShapedArray(words.shape[:-1], dtypes.key_fry)


def _wrap_batching(vals, dims, *, impl):
    """The words' axis stays last: the batch axis goes first."""
    (words,), (dim,) = vals, dims
    return random_wrap(move_batch_axis(None, dim, 0, words), impl=impl), 0


random_wrap_p.def_impl(lambda words, *, impl: key_array(np.array(words, uint32)))
random_wrap_p.def_abstract_eval(_wrap_abstract_eval)
random_wrap_p.def_batching(_wrap_batching)
ad.defjvp_zero(random_wrap_p)
register_lowering(random_wrap_p, lambda ctx, words, *, impl: words)

random_unwrap_p.def_impl(lambda keys: np.array(physical_value(keys)))
random_unwrap_p.def_abstract_eval(lambda keys: core.physical_aval(
    ShapedArray(_key_shape('random_unwrap', keys), keys.dtype)))
random_unwrap_p.def_batching(lambda vals, dims: (random_unwrap(vals[0]), dims[0]))
ad.defjvp_zero(random_unwrap_p)
register_lowering(random_unwrap_p, lambda ctx, keys: keys)


# ----------------------------------------------------------------------------- structural ops

#: The primitives that move elements without looking at them, and so act on key arrays.
STRUCTURAL_PRIMITIVES = (
    lax.broadcast_in_dim_p, lax.reshape_p, lax.squeeze_p, lax.transpose_p, lax.concatenate_p,
    lax.rev_p, lax.slice_p, lax.dynamic_slice_p, lax.dynamic_update_slice_p, lax.gather_p,
    lax.scatter_p, lax.select_n_p, lax.copy_p, lax.stack_p, lax.tile_p, lax.split_p,
    lax.unstack_p)


def _is_key_value(x):
    return dtypes.is_key(getattr(x, 'dtype', None))


def _word_aval(aval):
    return aval.update(dtype=dtypes.key_fry.word_dtype) if dtypes.is_key(aval.dtype) else aval


def _lift_abstract_eval(rule, multiple_results):
    """The rule on the words' types; the results are key arrays."""
    def abstract_eval(*avals, **params):
        if not any(dtypes.is_key(a.dtype) for a in avals):
            return rule(*avals, **params)
        outs = rule(*map(_word_aval, avals), **params)
        keys = [a.update(dtype=dtypes.key_fry) for a in (outs if multiple_results else [outs])]
        return keys if multiple_results else keys[0]
    return abstract_eval


def _lift_impl(impl, multiple_results):
    """The implementation on each word's values; each result's words stacked as a key
    array's."""
    def lifted(*args, **params):
        if not any(map(_is_key_value, args)):
            return impl(*args, **params)
        per_word = [impl(*(physical_value(a)[..., i] if _is_key_value(a) else a
                           for a in args), **params)
                    for i in range(dtypes.key_fry.words)]
        per_word = per_word if multiple_results else [[w] for w in per_word]
        keys = [key_array(np.stack([np.asarray(w) for w in words], -1))
                for words in zip(*per_word)]
        return keys if multiple_results else keys[0]
    return lifted


def _word_value(x, aval, i):
    """Word ``i`` of the key array ``x`` (an MLIR value of its physical type)."""
    shape = core.physical_aval(aval).shape
    start, limit = [0] * len(shape), [*shape]
    start[-1], limit[-1] = i, i + 1
    one_word = hlo.SliceOp(x, start, limit, [1] * len(shape)).result
    return hlo.ReshapeOp(tensor_type(_word_aval(aval)), one_word).result


def _join_words(words, aval):
    """The key array of type ``aval`` whose words are ``words``."""
    column = ir.RankedTensorType.get([*aval.shape, 1], ir.IntegerType.get_unsigned(32))
    columns = [hlo.ReshapeOp(column, w).result for w in words]
    return hlo.ConcatenateOp(columns, len(aval.shape)).result


def _lift_lowering(rule):
    """The rule emitted once per word (at the words' types); the results joined."""
    def lifted(ctx, *args, **params):
        if not any(dtypes.is_key(a.dtype) for a in ctx.avals_in):
            return rule(ctx, *args, **params)
        word_ctx = LoweringRuleContext(ctx.module_context, list(map(_word_aval, ctx.avals_in)),
                                       list(map(_word_aval, ctx.avals_out)), ctx.primitive)
        per_word = []
        for i in range(dtypes.key_fry.words):
            out = rule(word_ctx, *(_word_value(x, a, i) if dtypes.is_key(a.dtype) else x
                                   for x, a in zip(args, ctx.avals_in)), **params)
            per_word.append([out] if isinstance(out, ir.Value) else out)
        outs = [_join_words(words, aval) for words, aval in zip(zip(*per_word), ctx.avals_out)]
        return outs if ctx.primitive.multiple_results else outs[0]
    return lifted


def lift_to_keys(primitive):
    """Make ``primitive`` (one that only moves elements) act on key arrays too: its
    abstract eval, implementation and lowering applied to each word."""
    many = primitive.multiple_results
    core.abstract_eval_rules[primitive] = _lift_abstract_eval(
        core.abstract_eval_rules[primitive], many)
    core.impl_rules[primitive] = _lift_impl(core.impl_rules[primitive], many)
    lowering_rules[primitive] = _lift_lowering(lowering_rules[primitive])


for _primitive in STRUCTURAL_PRIMITIVES:
    lift_to_keys(_primitive)
