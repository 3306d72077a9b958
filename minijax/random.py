"""minijax.random: JAX's counter-based PRNG (threefry2x32), bit for bit with ``jax.random``.

There is no hidden state. A *key* is two uint32 words; every random function is a pure
function of a key, so the same key gives the same numbers eagerly, under ``jit`` and under
``vmap`` (over a batch of keys). New keys come from ``split`` and ``fold_in``.

Everything rests on one hash, ``threefry2x32(key, x) -> y``: 20 rounds of add, rotate and
xor on pairs of uint32 words (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
SC 2011). Random bits for an array of ``shape`` are the hash of the counters 0, 1, 2, ...
(the flat index of each element, as a 64-bit number split into its high and low words),
which is what JAX does with ``jax_threefry_partitionable`` on, its default since 0.5:

- ``split(key, n)``: the n keys are the hash pairs of the counters 0..n-1;
- ``fold_in(key, d)``: the hash pair of the counter pair (0, d);
- ``bits``: the xor of the two hash words (32 bits), or both words (64 bits);
- floats: random bits under the exponent of 1.0 read as a float (``bitcast_convert_type``)
  lie uniformly in [1, 2); subtract 1 and scale.

The hash is ``jit``-compiled, so it is lowered to one private StableHLO function that every
call reuses: read it with ``minijax.jit(minijax.random.split).lower(key).as_text()``.

Keys are raw ``uint32[2]`` arrays, as ``PRNGKey`` gives in JAX; ``key`` returns the same raw
key (JAX's ``key`` gives a typed scalar key instead, whose bits ``jax.random.key_data``
shows: these are those bits). A batch of keys is a ``uint32[..., 2]`` array: ``vmap`` over it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from minijax import core, dtypes, lax
from minijax import numpy as mnp
from minijax.jit import jit
from minijax.lax.bitcast import bitcast_convert_type
from minijax.lax.elementwise import in_float32_if_narrow

__all__ = ['PRNGKey', 'bernoulli', 'bits', 'categorical', 'choice', 'fold_in', 'key',
           'normal', 'permutation', 'randint', 'shuffle', 'split', 'truncated_normal',
           'uniform']

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


def _check_key(name, key):
    """A single raw key, ``uint32[2]``; a batch of keys is for ``vmap``."""
    aval = core.get_aval(key)
    if aval.dtype != uint32 or not aval.shape or aval.shape[-1] != 2:
        raise TypeError(f'{name}: expected a PRNG key, a uint32[2] array (from PRNGKey, split '
                        f'or fold_in), got {aval.str_short()}')
    if aval.shape != (2,):
        raise ValueError(f'{name} accepts a single key, but was given a key array of shape '
                         f'{aval.shape} != (2,). Use minijax.vmap for batching.')
    return [lax.reshape(lax.slice(key, (i,), (i + 1,)), ()) for i in range(2)]


def _counters(shape):
    """The flat index of each element of ``shape`` as a 64-bit counter: (high, low) words."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise ValueError(f'minijax.random: {size} random values in one call is more than the '
                         '2**32 that 32-bit counters number')
    low = lax.reshape(lax.iota(uint32, (size,)), shape)
    return lax.full(shape, 0, uint32), low


def _hash_counters(key, shape, name):
    k0, k1 = _check_key(name, key)
    return threefry2x32(k0, k1, *_counters(shape))


def _stack_last(x, y):
    return lax.concatenate([lax.expand_dims(x, (-1,)), lax.expand_dims(y, (-1,))], -1)


# ----------------------------------------------------------------------------- keys

def PRNGKey(seed):  # noqa: N802 (JAX's name)
    """A key from an integer seed: the seed's 64 bits as two uint32 words (high, low); a
    seed of 32 bits or fewer has a zero high word."""
    seed = np.int64(seed) if isinstance(seed, int) else seed
    aval = core.get_aval(seed)
    if aval.shape:
        raise TypeError(f'PRNGKey accepts a scalar seed, but was given an array of shape '
                        f'{aval.shape} != (). Use minijax.vmap for batching')
    if not np.issubdtype(aval.dtype, np.integer):
        raise TypeError(f'PRNGKey: the seed must be an integer, got {aval.str_short()}')
    low = lax.convert_element_type(seed, uint32)
    if aval.dtype.itemsize < 8:
        high = lax.full((), 0, uint32)
    else:
        high = lax.convert_element_type(lax.shift_right_logical(seed, np.array(32, aval.dtype)),
                                        uint32)
    return _stack_last(high, low)


def key(seed):
    """``PRNGKey(seed)``: a raw uint32[2] key. JAX's ``key`` gives a typed scalar key holding
    these same bits (``jax.random.key_data(jax.random.key(s))`` equals ``key(s)`` here);
    minijax has no key dtype, so its keys are always raw."""
    return PRNGKey(seed)


def _two_keys(key):
    """``split(key)`` as two separate keys."""
    keys = split(key)
    return [lax.reshape(lax.slice(keys, (i, 0), (i + 1, 2)), (2,)) for i in range(2)]


def split(key, num=2):
    """``num`` new keys (an int or a shape): ``uint32[*shape, 2]``."""
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    shape = core.canonicalize_shape(shape, 'split: num')
    return _stack_last(*_hash_counters(key, shape, 'split'))


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (taken modulo 2**32)."""
    k0, k1 = _check_key('fold_in', key)
    if np.ndim(data):
        raise TypeError(f'fold_in accepts a scalar, but was given an array of shape '
                        f'{np.shape(data)} != (). Use minijax.vmap for batching.')
    data = np.asarray(data, uint32) if isinstance(data, int) else lax.convert_element_type(
        data, uint32)
    return _stack_last(*threefry2x32(k0, k1, lax.full((), 0, uint32), data))


# ----------------------------------------------------------------------------- bits

def _random_bits(key, bit_width, shape, name='bits'):
    high, low = _hash_counters(key, shape, name)
    if bit_width == 64:
        dtype = UINT_DTYPES[64]
        high = lax.convert_element_type(high, dtype)
        return lax.bitwise_or(lax.shift_left(high, np.uint64(32)),
                              lax.convert_element_type(low, dtype))
    mixed = lax.bitwise_xor(high, low)
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, UINT_DTYPES[bit_width])


def bits(key, shape=(), dtype=None):
    """Uniform random unsigned integers of ``dtype`` (uint64 by default, as JAX with x64)."""
    dtype = np.dtype(UINT_DTYPES[64] if dtype is None else dtype)
    if not np.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f'dtype argument to `bits` must be an unsigned int dtype, got {dtype}')
    shape = core.canonicalize_shape(shape, 'bits: shape')
    return _random_bits(key, dtype.itemsize * 8, shape)


# ----------------------------------------------------------------------------- floats

def _float_dtype(name, dtype):
    dtype = dtypes.check_supported(dtypes.float64 if dtype is None else dtype, f'{name}: dtype')
    if not dtypes.is_float(dtype):
        raise ValueError(f'dtype argument to `{name}` must be a float dtype, got {dtype}')
    return dtype


def _broadcast_param(name, value, shape, dtype):
    """``value`` (a scalar or an array broadcastable to ``shape``) as a ``dtype[shape]``."""
    value_shape = np.shape(value)
    if len(value_shape) > len(shape) or any(
            v not in (1, s) for v, s in zip(value_shape[::-1], shape[::-1])):
        raise ValueError(f'{name} parameter shapes must be broadcast-compatible with shape '
                         f'argument, got a parameter of shape {value_shape} for shape {shape}')
    value = lax.convert_element_type(value, dtype)
    return mnp.broadcast_to(value, shape)


@partial(jit, static_argnums=(1, 2, 5))
def _uniform(key, shape, dtype, minval, maxval, name='uniform'):
    """Random bits in the mantissa of a float in [1, 2), minus 1, scaled to [minval, maxval)
    (the ``max`` keeps rounding from going below ``minval``). Compiled even when called
    eagerly, as in JAX: XLA fuses the scaling's multiply and add (one rounding), NumPy
    rounds twice."""
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = max(nbits, 8) if nmant >= 8 else 8
    random = _random_bits(key, rng_bits, shape, name)
    uint = UINT_DTYPES[nbits]
    random = lax.convert_element_type(random, uint) if rng_bits != nbits else random
    one_bits = np.array(1., dtype).view(uint)
    mantissa = lax.shift_right_logical(random, np.array(rng_bits - nmant, uint))
    floats = lax.sub(bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype),
                     np.array(1., dtype))
    minval = _broadcast_param(name, minval, shape, dtype)
    maxval = _broadcast_param(name, maxval, shape, dtype)
    return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
    """Uniform random floats in [minval, maxval) (float64 by default, as JAX with x64)."""
    shape = core.canonicalize_shape(shape, 'uniform: shape')
    return _uniform(key, shape, _float_dtype('uniform', dtype), minval, maxval)


#: Giles' approximations of erfinv ("Approximating the erfinv function", GPU Computing Gems,
#: 2011), as XLA expands ``erf_inv``: with w = -log(1 - x^2), erfinv(x) = x p(t), where per
#: range of w, ``(upper bound of w or None, t as a function of w, coefficients of p, highest
#: power first)``.
_ERF_INV_FLOAT32 = [
    (5., lambda w: lax.sub(w, 2.5),
     [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
      -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]),
    (None, lambda w: lax.sub(lax.sqrt(w), 3.),
     [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
      -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]),
]
_ERF_INV_FLOAT64 = [
    (6.25, lambda w: lax.sub(w, 3.125),
     [-3.64441206401782e-21, -1.6850591381820166e-19, 1.28584807152564e-18,
      1.1157877678025181e-17, -1.333171662854621e-16, 2.0972767875968562e-17,
      6.637638134358324e-15, -4.054566272975207e-14, -8.151934197605472e-14,
      2.6335093153082323e-12, -1.2975133253453532e-11, -5.415412054294628e-11,
      1.0512122733215323e-09, -4.112633980346984e-09, -2.9070369957882005e-08,
      4.2347877827932404e-07, -1.3654692000834679e-06, -1.3882523362786469e-05,
      0.00018673420803405714, -0.000740702534166267, -0.006033670871430149,
      0.24015818242558962, 1.6536545626831027]),
    (16., lambda w: lax.sub(lax.sqrt(w), 3.25),
     [2.2137376921775787e-09, 9.075656193888539e-08, -2.7517406297064545e-07,
      1.8239629214389228e-08, 1.5027403968909828e-06, -4.013867526981546e-06,
      2.9234449089955446e-06, 1.2475304481671779e-05, -4.7318229009055734e-05,
      6.828485145957318e-05, 2.4031110387097894e-05, -0.0003550375203628475,
      0.0009532893797373805, -0.0016882755560235047, 0.002491442096107851,
      -0.003751208507569241, 0.005370914553590064, 1.0052589676941592, 3.0838856104922208]),
    (None, lambda w: lax.sub(lax.sqrt(w), 5.),
     [-2.7109920616438573e-11, -2.555641816996525e-10, 1.5076572693500548e-09,
      -3.789465440126737e-09, 7.61570120807834e-09, -1.496002662714924e-08,
      2.914795345090108e-08, -6.771199775845234e-08, 2.2900482228026655e-07,
      -9.9298272942317e-07, 4.526062597223154e-06, -1.968177810553167e-05,
      7.599527703001776e-05, -0.00021503011930044477, -0.00013871931833623122,
      1.0103004648645344, 4.849906401408584]),
]


def _horner(coefficients, t):
    acc = lax.full_like(t, coefficients[0])
    for c in coefficients[1:]:
        acc = lax.add(lax.mul(acc, t), c)
    return acc


def _erf_inv(x):
    """The inverse error function in lax ops, with the same operations in the same order as
    XLA's expansion of ``erf_inv`` (so jitted results equal JAX's bit for bit); +-inf at +-1.
    XLA expands it for float16 and bfloat16 in float32, rounding once."""
    return in_float32_if_narrow(_erf_inv_expansion, x)


def _erf_inv_expansion(x):
    ranges = _ERF_INV_FLOAT32 if core.get_aval(x).dtype == dtypes.float32 else _ERF_INV_FLOAT64
    w = lax.neg(lax.log1p(lax.mul(x, lax.neg(x))))
    p = None
    for bound, t, coefficients in reversed(ranges):
        value = _horner(coefficients, t(w))
        p = value if bound is None else lax.select_n(lax.less(w, bound), p, value)
    at_one = lax.eq(lax.abs(x), 1.)
    return lax.select_n(at_one, lax.mul(p, x), lax.mul(x, np.inf))


def normal(key, shape=(), dtype=None):
    """Standard normal floats: sqrt(2) erfinv(u) for u uniform in (-1, 1)."""
    return _normal(key, core.canonicalize_shape(shape, 'normal: shape'),
                   _float_dtype('normal', dtype))


@partial(jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
    """Compiled even when called eagerly, as in JAX: XLA's ``log1p`` and NumPy's differ in
    the last bit now and then, and the numbers should not depend on how they are called."""
    lowest = np.nextafter(np.array(-1., dtype), np.array(0., dtype))
    u = _uniform(key, shape, dtype, lowest, 1., 'normal')
    return lax.mul(np.array(np.sqrt(2), dtype), _erf_inv(u))


def _next_float(x, direction):
    """NumPy's ``nextafter(x, direction * inf)`` in lax ops, on the bits: a float's bits as
    a signed integer step by one per representable number (towards zero for a negative
    float's magnitude); zero steps to the smallest subnormal of ``direction``'s sign."""
    dtype = core.get_aval(x).dtype
    as_int = bitcast_convert_type(x, np.dtype(f'int{dtype.itemsize * 8}'))
    away_from_zero = lax.eq(lax.less(x, 0.), direction < 0)
    stepped = bitcast_convert_type(
        lax.select_n(away_from_zero, lax.sub(as_int, 1), lax.add(as_int, 1)), dtype)
    smallest = np.array(direction * dtypes.finfo(dtype).smallest_subnormal, dtype)
    return lax.select_n(lax.eq(x, 0.), stepped, lax.full_like(x, smallest))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats conditioned on (lower, upper): erfinv of uniforms between erf(lower/sqrt2)
    and erf(upper/sqrt2), clamped into the open interval. Equal to JAX's where ``lax.erf``
    is: in float64 minijax's erf (Cephes' expansion) and XLA's differ in the last bits at
    some bounds, and so then do the numbers."""
    dtype = _float_dtype('truncated_normal', dtype)
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    shape = core.canonicalize_shape(shape, 'truncated_normal: shape')
    return _truncated_normal(key, lower, upper, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = _broadcast_param('truncated_normal', lower, shape, dtype)
    upper = _broadcast_param('truncated_normal', upper, shape, dtype)
    a, b = lax.erf(lax.div(lower, sqrt2)), lax.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, _erf_inv(_uniform(key, shape, dtype, a, b, 'truncated_normal')))
    lowest = _next_float(lax.stop_gradient(lower), 1)
    highest = _next_float(lax.stop_gradient(upper), -1)
    return lax.min(lax.max(out, lowest), highest)


# ----------------------------------------------------------------------------- discrete

def bernoulli(key, p=0.5, shape=None):
    """Booleans that are True with probability ``p`` (uniform < p)."""
    dtype = core.get_aval(p).dtype
    if not dtypes.is_float(dtype):
        raise TypeError(f'bernoulli probability `p` must have a floating dtype, got {dtype}.')
    shape = np.shape(p) if shape is None else core.canonicalize_shape(shape, 'bernoulli: shape')
    u = _uniform(key, shape, dtype, 0., 1., 'bernoulli')
    return lax.less(u, _broadcast_param('bernoulli', p, shape, dtype))


def _clip_to(x, dtype):
    """An integer array converted to ``dtype``, saturating instead of wrapping."""
    source = np.iinfo(core.get_aval(x).dtype)
    target = np.iinfo(dtype)
    x = lax.max(x, np.array(max(source.min, target.min), source.dtype))
    x = lax.min(x, np.array(min(source.max, target.max), source.dtype))
    return lax.convert_element_type(x, dtype)


def _as_int_array(name, value):
    value = mnp.asarray(value)
    return value if np.issubdtype(value.dtype, np.integer) else value.astype(dtypes.int64)


def randint(key, shape, minval, maxval, dtype=None):
    """Uniform random integers in [minval, maxval).

    From 2 * nbits random bits (two draws of nbits, combined modulo the span), so that the
    bias of a span that is not a power of two stays small; 8- and 16-bit results are drawn
    as int32 and converted, as in JAX.
    """
    dtype = dtypes.check_supported(dtypes.int64 if dtype is None else dtype, 'randint: dtype')
    if not np.issubdtype(dtype, np.integer):
        raise TypeError(f'randint only accepts integer dtypes, got {dtype}')
    shape = core.canonicalize_shape(shape, 'randint: shape')
    minval, maxval = _as_int_array('randint', minval), _as_int_array('randint', maxval)
    if np.iinfo(dtype).bits < 32:
        info = np.iinfo(dtype)
        minval = mnp.clip(minval.astype(dtypes.int32), int(info.min), int(info.max))
        maxval = mnp.clip(maxval.astype(dtypes.int32), int(info.min), int(info.max) + 1)
        return _randint(key, shape, minval, maxval, dtypes.int32).astype(dtype)
    return _randint(key, shape, minval, maxval, dtype)


def _randint(key, shape, minval, maxval, dtype):
    limit = min(np.iinfo(dtype).max, np.iinfo(maxval.dtype).max)
    maxval_out_of_range = lax.greater(maxval, np.array(limit, maxval.dtype))
    minval = mnp.broadcast_to(_clip_to(minval, dtype), shape)
    maxval = mnp.broadcast_to(_clip_to(maxval, dtype), shape)
    maxval_out_of_range = mnp.broadcast_to(maxval_out_of_range, shape)
    nbits = np.iinfo(dtype).bits
    k1, k2 = _two_keys(key)
    higher, lower = (_random_bits(k, nbits, shape, 'randint') for k in (k1, k2))
    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = lax.full_like(span, 1)
    # maxval <= minval gives minval; a maxval beyond the dtype makes the span one larger
    # (the maximum span wraps to 0, and then the remainders below leave the bits alone).
    span = lax.select_n(lax.le(maxval, minval), span, one)
    span = lax.select_n(lax.bitwise_and(maxval_out_of_range, lax.greater(maxval, minval)),
                        span, lax.add(span, one))
    # 2**nbits mod span, without overflow: (2**(nbits/2) mod span)**2 mod span.
    multiplier = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def _gumbel(key, shape, dtype, name):
    """Gumbel noise, -log(-log(u)), u uniform in [tiny, 1)."""
    tiny = dtypes.finfo(dtype).tiny
    u = _uniform(key, shape, dtype, tiny, 1., name)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def categorical(key, logits, axis=-1, shape=None):
    """Indices drawn with probabilities softmax(logits) along ``axis`` (the Gumbel-max
    trick: the argmax of logits plus Gumbel noise)."""
    logits = mnp.asarray(logits)
    ndim = logits.ndim
    axis = core.canonicalize_axis(axis, ndim, 'categorical: axis')
    batch_shape = logits.shape[:axis] + logits.shape[axis + 1:]
    shape = batch_shape if shape is None else core.canonicalize_shape(shape, 'categorical')
    prefix = shape[:len(shape) - len(batch_shape)]
    if np.broadcast_shapes(shape, batch_shape) != tuple(shape):
        raise ValueError(f'categorical: shape {shape} is not broadcast-compatible with the '
                         f'batch shape {batch_shape} of the logits')
    full = (*prefix, *shape[len(prefix):len(prefix) + axis], logits.shape[axis],
            *shape[len(prefix) + axis:])
    noise = _gumbel(key, full, logits.dtype, 'categorical')
    logits = mnp.broadcast_to(logits, full)
    return lax.argmax(lax.add(noise, logits), len(prefix) + axis, dtypes.int64)


# ----------------------------------------------------------------------------- permutations

def _shuffle(key, x, axis):
    """Sort by random 32-bit keys, ceil(3 log(n) / log(2**32 - 1)) times with fresh keys, so
    that ties (rare) are broken by the next round (JAX's algorithm)."""
    size = math.prod(np.shape(x))
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = _two_keys(key)
        sort_keys = _random_bits(subkey, 32, np.shape(x), 'permutation')
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``range(x)`` (an int), or of ``x``'s slices along ``axis``
    (each 1-D slice independently when ``independent``)."""
    _check_key('permutation', key)
    if not np.ndim(x):
        if not np.issubdtype(core.get_aval(x).dtype, np.integer):
            raise TypeError('x must be an integer or at least 1-dimensional')
        return _shuffle(key, mnp.arange(int(x)), 0)
    x = mnp.asarray(x)
    axis = core.canonicalize_axis(axis, x.ndim, 'permutation: axis')
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, mnp.arange(x.shape[axis]), 0)
    return mnp.take(x, order, axis)


def shuffle(key, x, axis=0):
    """Deprecated in JAX for ``permutation(key, x, axis, independent=True)``: the same."""
    return _shuffle(key, mnp.asarray(x), core.canonicalize_axis(axis, np.ndim(x),
                                                                'shuffle: axis'))


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Draws from ``a`` (an array, along ``axis``, or ``range(a)`` for an int): uniformly
    (``randint``), weighted by ``p`` (inverting the cumulative sum), or without replacement
    (the first draws of a permutation; the Gumbel top-k trick with ``p``)."""
    _check_key('choice', key)
    if not isinstance(shape, Sequence):
        raise TypeError(f'shape argument of minijax.random.choice must be a sequence, got '
                        f'{shape}')
    arr = mnp.asarray(a)
    n_inputs = int(a) if arr.ndim == 0 else arr.shape[core.canonicalize_axis(
        axis, arr.ndim, 'choice: axis')]
    axis = 0 if arr.ndim == 0 else core.canonicalize_axis(axis, arr.ndim, 'choice: axis')
    n_draws = math.prod(shape)
    if n_draws == 0:
        return mnp.zeros(shape, arr.dtype)
    if n_inputs <= 0:
        raise ValueError('a must be greater than 0 unless no samples are taken')
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None and replace:
        index = randint(key, shape, 0, n_inputs)
    elif p is None:
        index = permutation(key, n_inputs)[:n_draws]
    else:
        index = _weighted_choice(key, p, n_inputs, shape, n_draws, replace)
    result = index if arr.ndim == 0 else mnp.take(arr, mnp.ravel(index), axis)
    out_shape = tuple(shape) if arr.ndim == 0 else (*arr.shape[:axis], *shape,
                                                    *arr.shape[axis + 1:])
    return mnp.reshape(result, out_shape)


def _weighted_choice(key, p, n_inputs, shape, n_draws, replace):
    p = mnp.asarray(p)
    p = p if dtypes.is_float(p.dtype) else p.astype(dtypes.float64)
    if p.shape != (n_inputs,):
        raise ValueError(f'p must be None or a 1D vector with the same size as a.shape[axis]. '
                         f'p has shape {p.shape} and a.shape[axis] is {n_inputs}.')
    if replace:
        cumulative = mnp.cumsum(p)
        r = lax.mul(cumulative[-1], lax.sub(1., _uniform(key, tuple(shape), p.dtype, 0., 1.,
                                                          'choice')))
        # The first index whose cumulative weight reaches r: how many fall short of it.
        falls_short = mnp.expand_dims(cumulative, tuple(range(r.ndim))) < mnp.expand_dims(r, -1)
        return mnp.sum(falls_short.astype(dtypes.int64), axis=-1)
    g = lax.add(_gumbel(key, (n_inputs,), p.dtype, 'choice'), lax.log(p))
    return lax.top_k(g, n_draws)[1].astype(dtypes.int64)
