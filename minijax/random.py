"""minijax.random: JAX's counter-based PRNG (threefry2x32), bit for bit with ``jax.random``.

There is no hidden state. A *key* is the state of the generator; every random function is a
pure function of a key, so the same key gives the same numbers eagerly, under ``jit`` and
under ``vmap`` (over a batch of keys). New keys come from ``split`` and ``fold_in``.

Keys come in JAX's two kinds, and every function takes both:

- typed keys, ``key(seed)``: arrays of dtype ``key<fry>``, one key per element (a scalar
  key has shape ``()``, ``split(k, 3)`` shape ``(3,)``). They are ``minijax.prng``'s: the
  primitives ``random_seed``, ``random_split``, ``random_fold_in`` and ``random_bits`` act on
  them, and jaxprs show them as JAX's do (``random_bits[bit_width=64 shape=(2,)] a``);
- raw keys, ``PRNGKey(seed)``: the words of a typed key, ``uint32[2]``. A function given a
  raw key wraps it (``random_wrap``) and computes on the typed key; ``split`` and
  ``fold_in`` give raw keys back (``random_unwrap``). ``key_data`` and ``wrap_key_data``
  convert between the two.

Everything rests on one hash, threefry2x32 (``minijax.prng``):

- ``split(key, n)``: the n keys are the hash pairs of the counters 0..n-1;
- ``fold_in(key, d)``: the hash pair of the counter pair (0, d);
- ``bits``: the xor of the two hash words (32 bits), or both words (64 bits);
- floats: random bits under the exponent of 1.0 read as a float (``bitcast_convert_type``)
  lie uniformly in [1, 2); subtract 1 and scale;
- the distributions: JAX's transformations of those floats, in JAX's order (``gamma`` runs
  Marsaglia and Tsang's rejection loop per element, inside JAX's ``random_gamma`` primitive,
  ``poisson`` Knuth's and Hoermann's).

The hash is ``jit``-compiled, so it is lowered to one private StableHLO function that every
call reuses: read it with ``minijax.jit(minijax.random.split).lower(key).as_text()``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
import functools
import inspect
from functools import partial

import numpy as np

from minijax import core, dtypes, lax, prng, unsupported
from minijax import numpy as mnp
from minijax.numpy import linalg as numpy_linalg
from minijax.control_flow import while_loop
from minijax.interpreters.batching import axis_size_of, move_batch_axis, vmap
from minijax.ir.tracing import trace_to_jaxpr
from minijax.jit import jit
from minijax.lax.bitcast import bitcast_convert_type
from minijax.lax.reshard import auto_axes
from minijax.lowering import lower_closed_jaxpr, register_lowering
from minijax.scipy.special import gammaln
from minijax.sharding import rules as sharding_rules

__all__ = ['PRNGKey', 'ball', 'bernoulli', 'beta', 'binomial', 'bits', 'categorical', 'cauchy',
           'chisquare', 'choice', 'clone', 'dirichlet', 'double_sided_maxwell', 'exponential',
           'f', 'fold_in', 'gamma', 'generalized_normal', 'geometric', 'gumbel', 'key',
           'key_data', 'key_dtype', 'key_impl', 'laplace', 'loggamma', 'logistic', 'lognormal',
           'maxwell', 'multinomial', 'multivariate_normal', 'normal', 'orthogonal', 'pareto',
           'permutation', 'poisson', 'rademacher', 'randint', 'random_gamma_p', 'rayleigh',
           'split', 't',
           'triangular', 'truncated_normal', 'uniform', 'wald', 'weibull_min',
           'wrap_key_data']

# dir() lists JAX's names only: the helpers this module imports to build them stay out.
__dir__ = unsupported.public_dir(globals())


uint32 = dtypes.uint32
UINT_DTYPES = prng.UINT_DTYPES

# ----------------------------------------------------------------------------- keys


def _is_typed(key):
    return dtypes.is_key(getattr(key, 'dtype', None))


def _check_key(name, key):
    """``key`` as a single typed key: a raw ``uint32[2]`` key (``PRNGKey``'s) is wrapped,
    as JAX wraps it; a batch of keys is for ``vmap``."""
    typed = key if _is_typed(key) else prng.random_wrap(key)
    if core.get_aval(typed).shape:
        raise ValueError(f'{name} accepts a single key, but was given a key array of shape '
                         f'{core.get_aval(key).shape} != (). Use minijax.vmap for batching.')
    return typed


def _like(key, new_keys):
    """``new_keys`` as the caller's ``key`` was: typed, or raw words."""
    return new_keys if _is_typed(key) else prng.random_unwrap(new_keys)


def _seed(name, seed):
    seed = np.int64(seed) if isinstance(seed, int) else seed
    if _is_typed(seed):
        raise TypeError(f'{name} accepts a scalar seed, but was given a PRNG key.')
    shape = core.get_aval(seed).shape
    if shape:
        raise TypeError(f'{name} accepts a scalar seed, but was given an array of shape '
                        f'{shape} != (). Use minijax.vmap for batching')
    return prng.random_seed(seed)


def key(seed, *, impl=None, dtype=None):
    """A typed key, ``key<fry>[]``, from an integer seed (its 64 bits are the key's words:
    high, low). ``dtype`` (a key dtype or an implementation's name) says the implementation
    in place of ``impl``, as in JAX."""
    _check_impl('key', _impl_or_dtype('key', impl, dtype))
    return _seed('key', seed)


def PRNGKey(seed, *, impl=None):  # noqa: N802 (JAX's name)
    """A raw key from an integer seed: the words of ``key(seed)``, ``uint32[2]``."""
    _check_impl('PRNGKey', impl)
    return prng.random_unwrap(_seed('PRNGKey', seed))


def _impl_or_dtype(name, impl, dtype):
    """The implementation ``impl`` or ``dtype`` names (JAX's ``dtype`` replaces ``impl``)."""
    if dtype is None:
        return impl
    if impl is not None:
        raise ValueError(f'Cannot specify both `impl` and `dtype` arguments to '
                         f'jax.random.{name}')
    return 'threefry2x32' if dtypes.is_key(dtype) else dtype


def _check_impl(name, impl):
    if impl not in (None, 'threefry2x32'):
        raise ValueError(f'{name}: minijax implements only the threefry2x32 PRNG, got '
                         f'{impl!r}')


def key_data(keys):
    """The uint32 words of a key or a key array, ``uint32[..., 2]``."""
    return prng.random_unwrap(keys if _is_typed(keys) else prng.random_wrap(keys))


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys from their uint32 words, ``uint32[..., 2]`` -> ``key<fry>[...]``."""
    _check_impl('wrap_key_data', _impl_or_dtype('wrap_key_data', impl, dtype))
    return prng.random_wrap(key_bits_array)


def key_impl(keys):
    """The name of the keys' implementation: always ``'threefry2x32'`` in minijax."""
    key_data(keys)  # raw words are checked as JAX checks them
    return 'threefry2x32'


def key_dtype(impl_spec=None):
    """The dtype of typed keys, ``key<fry>`` (minijax has only threefry2x32)."""
    _check_impl('key_dtype', impl_spec)
    return dtypes.key_fry


def clone(key):
    """``key`` itself, marked (``random_clone``) as reused on purpose, as JAX marks it for
    its key-reuse checker (which minijax does not have)."""
    return prng.random_clone_p.bind(key)


def split(key, num=2):
    """``num`` new keys (an int or a shape), typed or raw as ``key`` is."""
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    shape = core.canonicalize_shape(shape, 'split: num')
    return _like(key, prng.random_split(_check_key('split', key), shape))


def _split_n(key, n):
    """``split(key, n)`` of a typed key as ``n`` separate keys."""
    return _rows(prng.random_split(key, (n,)))


def _rows(x):
    """``x``'s rows, sliced out as JAX slices the rows of a traced array it iterates over."""
    return [lax.index_in_dim(x, i, keepdims=False) for i in range(core.get_aval(x).shape[0])]


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (taken modulo 2**32)."""
    typed = _check_key('fold_in', key)
    if np.ndim(data):
        raise TypeError(f'fold_in accepts a scalar, but was given an array of shape '
                        f'{np.shape(data)} != (). Use minijax.vmap for batching.')
    data = np.asarray(data, uint32) if isinstance(data, int) else lax.convert_element_type(
        data, uint32)
    return _like(key, prng.random_fold_in(typed, data))


# ----------------------------------------------------------------------------- bits

def _with_out_sharding(draw, out_sharding, name):
    """``draw`` as it is, or under ``auto_axes`` to ``out_sharding`` (JAX's maybe_auto_axes):
    the bits are the same however the result is laid out."""
    if out_sharding is None:
        return draw
    return auto_axes(draw, out_sharding=sharding_rules.canonicalize_sharding(out_sharding,
                                                                             name))


def _takes_out_sharding(sampler):
    """``sampler`` with JAX's keyword ``out_sharding=`` (see ``_with_out_sharding``), shown
    in its signature as JAX's samplers show it."""
    @functools.wraps(sampler)
    def laid_out(key, *args, out_sharding=None, **kwargs):
        return _with_out_sharding(lambda k: sampler(k, *args, **kwargs), out_sharding,
                                  sampler.__name__)(key)

    signature = inspect.signature(sampler)
    laid_out.__signature__ = signature.replace(parameters=[
        *signature.parameters.values(),
        inspect.Parameter('out_sharding', inspect.Parameter.KEYWORD_ONLY, default=None)])
    return laid_out


@_takes_out_sharding
def bits(key, shape=(), dtype=None):
    """Uniform random unsigned integers of ``dtype`` (uint64 by default, as JAX with x64)."""
    key = _check_key('bits', key)
    dtype = np.dtype(UINT_DTYPES[64] if dtype is None else dtype)
    if not np.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f'dtype argument to `bits` must be an unsigned int dtype, got {dtype}')
    shape = core.canonicalize_shape(shape, 'bits: shape')
    return prng.random_bits(key, dtype.itemsize * 8, shape)


# ----------------------------------------------------------------------------- floats

def _float_dtype(name, dtype):
    dtype = dtypes.check_supported(dtypes.float64 if dtype is None else dtype, f'{name}: dtype')
    if not dtypes.is_float(dtype):
        raise ValueError(f'dtype argument to `{name}` must be a float dtype, got {dtype}')
    return dtype


def _check_param_shape(name, value_shape, shape):
    if len(value_shape) > len(shape) or any(
            v not in (1, s) for v, s in zip(value_shape[::-1], shape[::-1])):
        raise ValueError(f'{name} parameter shapes must be broadcast-compatible with shape '
                         f'argument, got a parameter of shape {value_shape} for shape {shape}')


@partial(jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    """Random bits in the mantissa of a float in [1, 2), minus 1, scaled to [minval, maxval)
    (the ``max`` keeps rounding from going below ``minval``). The bounds keep their own
    shapes, given ``shape``'s rank: the ops broadcast their size-1 axes (the reshape, JAX's,
    is an equation only for a scalar). Compiled even when called eagerly, as in JAX: XLA
    fuses the scaling's multiply and add (one rounding), NumPy rounds twice."""
    minval, maxval = (lax.convert_element_type(v, dtype) for v in (minval, maxval))
    minval, maxval = (lax.broadcast_to_rank(v, len(shape)) for v in (minval, maxval))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = max(nbits, 8) if nmant >= 8 else 8
    random = prng.random_bits(key, rng_bits, shape)
    uint = UINT_DTYPES[nbits]
    random = lax.convert_element_type(random, uint) if rng_bits != nbits else random
    one_bits = np.array(1., dtype).view(uint)
    mantissa = lax.shift_right_logical(random, np.array(rng_bits - nmant, uint))
    floats = lax.sub(bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype),
                     np.array(1., dtype))
    return lax.max(minval, lax.reshape(lax.add(lax.mul(floats, lax.sub(maxval, minval)),
                                               minval), shape))


def uniform(key, shape=(), dtype=None, minval=0., maxval=1., *, out_sharding=None):
    """Uniform random floats in [minval, maxval) (float64 by default, as JAX with x64);
    ``out_sharding``: drawn with the mesh's axes ``Auto``, then resharded to it (JAX's)."""
    key = _check_key('uniform', key)
    shape = core.canonicalize_shape(shape, 'uniform: shape')
    dtype = _float_dtype('uniform', dtype)
    for bound in (minval, maxval):
        _check_param_shape('uniform', np.shape(bound), shape)
    return _with_out_sharding(lambda k: _uniform(k, minval, maxval, shape, dtype),
                              out_sharding, 'uniform')(key)


def normal(key, shape=(), dtype=None, *, out_sharding=None):
    """Standard normal floats: sqrt(2) erfinv(u) for u uniform in (-1, 1)."""
    key = _check_key('normal', key)
    shape = core.canonicalize_shape(shape, 'normal: shape')
    dtype = _float_dtype('normal', dtype)
    return _with_out_sharding(lambda k: _normal(k, shape, dtype), out_sharding, 'normal')(key)


@partial(jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
    """JAX's entry for normal draws, where complex dtypes split the key for two real draws
    (minijax's normals are real only): its jaxpr nests ``_normal_real``'s, as JAX's does."""
    return _normal_real(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    """Compiled even when called eagerly, as in JAX: XLA's ``log1p`` and NumPy's differ in
    the last bit now and then, and the numbers should not depend on how they are called."""
    lowest = np.nextafter(np.array(-1., dtype), np.array(0., dtype))
    u = _uniform(key, lowest, np.array(1., dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


@_takes_out_sharding
def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats conditioned on (lower, upper): erfinv of uniforms between erf(lower/sqrt2)
    and erf(upper/sqrt2), clamped into the open interval. Equal to JAX's where ``lax.erf``
    is: in float64 minijax's erf (Cephes' expansion) and XLA's differ in the last bits at
    some bounds, and so then do the numbers."""
    key = _check_key('truncated_normal', key)
    dtype = _float_dtype('truncated_normal', dtype)
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    shape = core.canonicalize_shape(shape, 'truncated_normal: shape')
    for bound in (lower, upper):
        _check_param_shape('truncated_normal', np.shape(bound), shape)
    return _truncated_normal(key, lower, upper, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower, upper = (lax.convert_element_type(v, dtype) for v in (lower, upper))
    a, b = lax.erf(lax.div(lower, sqrt2)), lax.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, lax.erf_inv(_uniform(key, a, b, shape, dtype)))
    lowest = lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype))
    highest = lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype))
    return mnp.clip(out, lowest, highest)


# ----------------------------------------------------------------------------- from uniforms

def _sampler(name, compiled):
    """A sampler ``f(key, shape=(), dtype=None)`` of ``compiled(key, shape, dtype)`` (a jit,
    as JAX's are, so that eager numbers equal jitted ones, and other samplers nest it)."""
    def sample(key, shape=(), dtype=None):
        key = _check_key(name, key)
        return compiled(key, core.canonicalize_shape(shape, f'{name}: shape'),
                        _float_dtype(name, dtype))
    sample.__name__ = sample.__qualname__ = name
    sample.__doc__ = compiled.__doc__
    return _takes_out_sharding(sample)


@partial(jit, static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    """Exponential floats (rate 1): ``-log1p(-u)``, ``1 - u`` in (0, 1]."""
    u = _uniform(key, 0., 1., shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


@partial(jit, static_argnums=(1, 2))
def _laplace(key, shape, dtype):
    """Laplace floats (scale 1): ``sign(u) log1p(-|u|)``, u uniform in (-1, 1)."""
    u = _uniform(key, -1. + dtypes.finfo(dtype).epsneg, 1., shape, dtype)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


@partial(jit, static_argnums=(1, 2))
def _logistic(key, shape, dtype):
    """Logistic floats: the logit ``log(u) - log1p(-u)`` of u uniform in (0, 1)."""
    u = _uniform(key, dtypes.finfo(dtype).tiny, 1., shape, dtype)
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


@partial(jit, static_argnums=(1, 2))
def _cauchy(key, shape, dtype):
    """Standard Cauchy floats: ``tan(pi (u - 1/2))``, u uniform in [eps, 1)."""
    u = _uniform(key, dtypes.finfo(dtype).eps, 1., shape, dtype)
    return lax.tan(lax.mul(np.array(np.pi, dtype), lax.sub(u, np.array(.5, dtype))))


exponential = _sampler('exponential', _exponential)
laplace = _sampler('laplace', _laplace)
logistic = _sampler('logistic', _logistic)
cauchy = _sampler('cauchy', _cauchy)


@_takes_out_sharding
def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel floats, ``-log(-log(u))``: from one uniform (``mode='low'``, the
    default) or two (``'high'``, more bits near 0). ``'highest'`` is ``'high'`` except in
    float32, where JAX counts leading zeros instead; minijax does not have that mode."""
    key = _check_key('gumbel', key)
    shape = core.canonicalize_shape(shape, 'gumbel: shape')
    dtype = _float_dtype('gumbel', dtype)
    mode = 'low' if mode is None else mode
    if mode not in ('highest', 'high', 'low'):
        raise ValueError(f'Must provide valid mode for gumbel got: {mode}')
    if mode == 'highest' and dtype == dtypes.float32:
        raise NotImplementedError("gumbel: mode='highest' in float32 is not implemented in "
                                  "minijax; use mode='high'")
    return _gumbel(key, shape=shape, dtype=dtype, mode=mode)


@partial(jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    """-log(-log(u)) for u uniform in [tiny, 1); in the high modes, a second uniform refines
    the first below 1/2, where ``log1p(-x)`` would otherwise see only ``nmant`` bits. The
    bounds go by keyword, as JAX passes them (a jit's keyword arguments are flattened in
    name order: ``maxval`` first)."""
    finfo = dtypes.finfo(dtype)
    if mode == 'low':
        return -mnp.log(-mnp.log(_uniform(key, minval=finfo.tiny, maxval=1., shape=shape,
                                          dtype=dtype)))
    high, low = _rows(_uniform(key, minval=0., maxval=1., shape=(2, *shape), dtype=dtype))
    x = mnp.where(high >= .5, high, high + 2. ** -finfo.nmant * low + finfo.tiny)
    return -mnp.log(-mnp.log1p(-x))


def _float_params(name, shape, dtype, *params):
    """The output shape (``shape``, checked against the parameters', or their broadcast)
    and the float dtype."""
    dtype = _float_dtype(name, dtype)
    if shape is None:
        return np.broadcast_shapes(*(np.shape(p) for p in params)), dtype
    shape = core.canonicalize_shape(shape, f'{name}: shape')
    for p in params:
        _check_param_shape(name, np.shape(p), shape)
    return shape, dtype


# ----------------------------------------------------------------------------- gamma family

def _standard_gamma_one(key, alpha, log_space):
    """One Gamma(alpha) sample by Marsaglia and Tsang's method ("A simple method for
    generating gamma variables", 2000): v = (1 + c x)^3 for x normal (redrawn while
    ``1 + c x <= 0``) is accepted by a squeeze test, then the full test on ``log u``. For
    alpha < 1 it draws Gamma(alpha + 1) and multiplies by ``u^(1/alpha)`` (adds
    ``log(u) / alpha`` in log space), with JAX's keys and operations in JAX's order."""
    dtype = core.get_aval(alpha).dtype
    zero, one, two = (np.array(v, dtype) for v in (0., 1., 2.))
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select_n(boost_mask, lax.add(alpha, one), alpha)
    d = lax.sub(alpha, np.array(1. / 3., dtype))
    c = lax.div(np.array(1. / 3., dtype), lax.sqrt(d))

    def rejected(state):
        _, x_2, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(np.array(.0331, dtype), x_2)))
        full = lax.ge(lax.log(u), lax.add(lax.mul(x_2, np.array(.5, dtype)),
                                          lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))))
        return lax.bitwise_and(squeeze, full)

    def next_normal(state):
        key, subkey = _split_n(state[0], 2)
        x = _normal(subkey, (), dtype)
        return key, x, lax.add(one, lax.mul(x, c))

    def propose(state):
        key, x_key, u_key = _split_n(state[0], 3)
        _, x, v = while_loop(lambda s: lax.le(s[2], zero), next_normal,
                             (x_key, zero, np.array(-1., dtype)))
        u = _uniform(u_key, 0., 1., (), dtype)
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = _split_n(key, 2)
    _, _, v, _ = while_loop(rejected, propose, (key, zero, one, two))
    if log_space:
        log_u = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select_n(mnp.logical_or(boost_mask, lax.eq(log_u, zero)),
                                 lax.mul(log_u, lax.div(one, alpha_orig)), zero)
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    u = lax.sub(one, _uniform(subkey, 0., 1., (), dtype))
    boost = lax.select_n(boost_mask, lax.pow(u, lax.div(one, alpha_orig)), one)
    return lax.mul(lax.mul(d, v), boost)


def _gamma_samples(keys, a, *, log_space):
    """``random_gamma``'s computation: a's elements split among the keys (one key per
    leading element of ``a`` when vmapped), one key each (``split``), one Marsaglia-Tsang
    loop each, vectorized with ``vmap`` as JAX's lowering does."""
    shape = core.get_aval(a).shape
    key_ndim = core.get_aval(keys).ndim
    count = math.prod(shape[key_ndim:])
    if math.prod(shape) == 0:
        return a
    keys = prng.random_split(mnp.ravel(keys), (count,))
    samples = vmap(partial(_standard_gamma_one, log_space=log_space))(
        mnp.ravel(keys), mnp.ravel(a))
    return mnp.reshape(samples, shape)


def _gamma_grad(sample, a, *, log_space):
    """d sample / d a by implicit differentiation of the CDF (``lax.random_gamma_grad``);
    through ``exp`` in log space, with a sample that rounds to 0 taken as ``tiny``."""
    if log_space:
        samples = lax.exp(sample)
        tiny = lax.full_like(samples, dtypes.finfo(samples.dtype).tiny)
        samples = lax.select(lax.eq(samples, lax.full_like(samples, 0)), tiny, samples)
        return lax.div(lax.random_gamma_grad(a, samples), samples)
    return lax.random_gamma_grad(a, sample)


def _gamma_jvp(primals, tangents, *, log_space):
    from minijax.interpreters.jvp import Zero, instantiate
    out = random_gamma_p.bind(*primals, log_space=log_space)
    if isinstance(tangents[1], Zero):
        return out, Zero(core.get_aval(out))
    return out, lax.mul(instantiate(tangents[1]), _gamma_grad(out, primals[1],
                                                             log_space=log_space))


def _gamma_batching(vals, dims, *, log_space):
    size = axis_size_of(vals, dims)
    keys, a = (move_batch_axis(size, d, 0, v) for v, d in zip(vals, dims))
    return random_gamma_p.bind(keys, a, log_space=log_space), 0


def _gamma_lowering(ctx, keys, a, *, log_space):
    closed, _ = trace_to_jaxpr(lambda k, x: [_gamma_samples(k, x, log_space=log_space)],
                               ctx.avals_in)
    return lower_closed_jaxpr(ctx.module_context, closed, [keys, a])


#: JAX's ``random_gamma``: Gamma(a) samples (their logs if ``log_space``) from one key (or
#: a batch of keys over ``a``'s leading axes); its JVP is the implicit gradient.
random_gamma_p = core.Primitive('random_gamma')
random_gamma_p.def_impl(jit(_gamma_samples, static_argnames='log_space'))
random_gamma_p.def_abstract_eval(lambda keys, a, *, log_space: core.ShapedArray(
    a.shape, a.dtype, sharding=a.sharding))
random_gamma_p.def_jvp(_gamma_jvp, symbolic_zeros=True)
random_gamma_p.def_batching(_gamma_batching)
register_lowering(random_gamma_p, _gamma_lowering)
sharding_rules.register(sharding_rules.operand_rule(1), random_gamma_p)


@partial(jit, static_argnums=(2, 3, 4))
def _gamma(key, a, shape, dtype, log_space):
    a = mnp.broadcast_to(lax.convert_element_type(a, dtype), shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def _gamma_sampler(name, log_space, doc):
    def sample(key, a, shape=None, dtype=None):
        key = _check_key(name, key)
        shape, dtype = _float_params(name, shape, dtype, a)
        return _gamma(key, a, shape, dtype, log_space)
    sample.__name__ = sample.__qualname__ = name
    sample.__doc__ = doc
    return _takes_out_sharding(sample)


gamma = _gamma_sampler('gamma', False, """Gamma(a) floats (scale 1), differentiable in ``a``
by implicit reparameterization (``lax.random_gamma_grad``), as in JAX.""")
loggamma = _gamma_sampler('loggamma', True, """The log of Gamma(a) floats, computed in log
space: accurate for small ``a``, where the samples themselves underflow.""")


@_takes_out_sharding
def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) floats: ``Ga / (Ga + Gb)`` for Gamma samples, formed from their logs
    (scaled by the larger) so that small ``a`` and ``b`` do not underflow."""
    key = _check_key('beta', key)
    shape, dtype = _float_params('beta', shape, dtype, a, b)
    return _beta(key, a, b, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    a, b = (lax.convert_element_type(v, dtype) for v in (a, b))
    key_a, key_b = _split_n(key, 2)
    a, b = (mnp.broadcast_to(v, shape) for v in (a, b))
    log_gamma_a = _gamma(key_a, a, shape, dtype, True)
    log_gamma_b = _gamma(key_b, b, shape, dtype, True)
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a = mnp.exp(log_gamma_a - log_max)
    gamma_b = mnp.exp(log_gamma_b - log_max)
    return gamma_a / (gamma_a + gamma_b)


@_takes_out_sharding
def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) vectors along the last axis: the softmax of log-Gamma samples."""
    key = _check_key('dirichlet', key)
    if np.ndim(alpha) < 1:
        raise ValueError(f'dirichlet requires alpha.ndim >= 1, got alpha.ndim == '
                         f'{np.ndim(alpha)}')
    dtype = _float_dtype('dirichlet', dtype)
    batch = np.shape(alpha)[:-1] if shape is None else core.canonicalize_shape(
        shape, 'dirichlet: shape')
    return _dirichlet(key, alpha, (*batch, np.shape(alpha)[-1]), dtype)


@partial(jit, static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    from minijax.nn import softmax  # (here: minijax.nn's initializers import this module)
    alpha = lax.convert_element_type(alpha, dtype)
    return softmax(_gamma(key, alpha, shape, dtype, True), -1)


@_takes_out_sharding
def t(key, df, shape=None, dtype=None):
    """Student's t floats with ``df`` degrees of freedom: ``n sqrt(df / 2 / g)`` for n
    normal and g Gamma(df / 2)."""
    key = _check_key('t', key)
    shape, dtype = _float_params('t', shape, dtype, df)
    return _t(key, df, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split_n(key, 2)
    n = _normal(key_n, shape, dtype)
    half_df = lax.div(df, np.array(2., dtype))
    g = _gamma(key_g, half_df, shape, dtype, False)
    return n * mnp.sqrt(half_df / g)


@_takes_out_sharding
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method='cholesky'):
    """Normal vectors with mean ``mean`` (..., n) and covariance ``cov`` (..., n, n):
    ``mean + factor @ z`` for z standard normal and ``factor @ factor.T = cov`` (Cholesky,
    or from ``svd``/``eigh`` for singular covariances)."""
    key = _check_key('multivariate_normal', key)
    if method not in ('svd', 'eigh', 'cholesky'):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    mean, cov = mnp.asarray(mean), mnp.asarray(cov)
    common = dtypes.float64 if not dtypes.is_float(mnp.result_type(mean, cov)) else \
        mnp.result_type(mean, cov)
    mean, cov = mean.astype(common), cov.astype(common)
    dtype = common if dtype is None else _float_dtype('multivariate_normal', dtype)
    if mean.ndim < 1:
        raise ValueError(f'multivariate_normal requires mean.ndim >= 1, got mean.ndim == '
                         f'{mean.ndim}')
    n = mean.shape[-1]
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError(f'multivariate_normal requires cov.shape == (..., n, n) for n={n}, '
                         f'but got cov.shape == {cov.shape}.')
    batch = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]) if shape is None else \
        core.canonicalize_shape(shape, 'multivariate_normal: shape')
    return _multivariate_normal(key, mean, cov, batch, dtype, method)


@partial(jit, static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    if method == 'svd':
        u, s, _ = numpy_linalg.svd(cov)
        factor = u * mnp.sqrt(s[..., None, :])
    elif method == 'eigh':
        w, v = numpy_linalg.eigh(cov)
        factor = v * mnp.sqrt(w[..., None, :])
    else:
        factor = numpy_linalg.cholesky(cov)
    z = _normal(key, (*shape, mean.shape[-1]), dtype)
    return mean + mnp.einsum('...ij,...j->...i', factor, z)


# ----------------------------------------------------------------------------- discrete

@_takes_out_sharding
def bernoulli(key, p=0.5, shape=None, mode='low'):
    """Booleans that are True with probability ``p`` (uniform < p); ``mode='high'`` draws
    two uniforms, the second refining the first, for probabilities below float32's 1e-7."""
    if mode not in ('high', 'low'):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    key = _check_key('bernoulli', key)
    dtype = core.get_aval(p).dtype
    if not dtypes.is_float(dtype):
        raise TypeError(f'bernoulli probability `p` must have a floating dtype, got {dtype}.')
    shape = None if shape is None else core.canonicalize_shape(shape, 'bernoulli: shape')
    return _bernoulli(key, lax.convert_element_type(p, dtype), shape=shape, mode=mode)


@partial(jit, static_argnames=('shape', 'mode'))
def _bernoulli(key, p, shape, mode):
    """``p`` keeps its shape: the comparison (NumPy's, ranks promoted) broadcasts it."""
    dtype = core.get_aval(p).dtype
    if shape is None:
        shape = np.shape(p)
    _check_param_shape('bernoulli', np.shape(p), shape)
    if mode == 'low':
        return _uniform(key, 0., 1., shape, dtype) < p
    coarse, fine = _rows(_uniform(key, 0., 1., (2, *shape), dtype))
    return fine * 2. ** -dtypes.finfo(dtype).nmant < p - coarse


def _clip_to(x, dtype):
    """An integer array converted to ``dtype``, saturating instead of wrapping."""
    source, target = np.iinfo(x.dtype), np.iinfo(dtype)
    lowest = _const(x, max(source.min, target.min))
    highest = _const(x, min(source.max, target.max))
    return lax.convert_element_type(mnp.clip(x, lowest, highest), dtype)


def _const(x, value):
    """The integer ``value`` typed as ``x`` is: a Python int for a weakly typed scalar (so
    that ``clip`` keeps ``x`` weak, as JAX's ``lax._const`` does), else NumPy's."""
    aval = core.get_aval(x)
    return int(value) if aval.weak_type and not aval.shape else np.array(value, aval.dtype)


def _as_int_array(value):
    value = mnp.asarray(value)
    return value if np.issubdtype(value.dtype, np.integer) else value.astype(dtypes.int64)


@_takes_out_sharding
def randint(key, shape, minval, maxval, dtype=None):
    """Uniform random integers in [minval, maxval).

    From 2 * nbits random bits (two draws of nbits, combined modulo the span), so that the
    bias of a span that is not a power of two stays small; 8- and 16-bit results are drawn
    as int32 and converted, as in JAX.
    """
    key = _check_key('randint', key)
    dtype = dtypes.check_supported(dtypes.int64 if dtype is None else dtype, 'randint: dtype')
    if not np.issubdtype(dtype, np.integer):
        raise TypeError(f'randint only accepts integer dtypes, got {dtype}')
    shape = core.canonicalize_shape(shape, 'randint: shape')
    info, sampled = np.iinfo(dtype), dtype
    if info.bits < 32:
        sampled = dtypes.int32
        # The bounds by keyword, as JAX's ``x.clip`` passes them to its jit.
        lowest, highest = int(info.min), int(info.max)
        minval = mnp.clip(mnp.asarray(minval).astype(sampled), min=lowest, max=highest)
        maxval = mnp.clip(mnp.asarray(maxval).astype(sampled), min=lowest, max=highest + 1)
    return _randint(key, minval, maxval, shape=shape, dtype=sampled).astype(dtype)


@partial(jit, static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    """The bounds keep their own shapes, given ``shape``'s rank (as ``_uniform``'s): shapes
    that do not broadcast fail as JAX's check fails, before any op."""
    mnp.broadcast_shapes(shape, np.shape(minval), np.shape(maxval))
    for bound in (minval, maxval):
        _check_param_shape('randint', np.shape(bound), shape)
    minval, maxval = _as_int_array(minval), _as_int_array(maxval)
    maxval_out_of_range = lax.gt(maxval, _clip_to(mnp.array(np.iinfo(dtype).max, dtype),
                                                  maxval.dtype))
    minval, maxval = _clip_to(minval, dtype), _clip_to(maxval, dtype)
    minval, maxval = (lax.broadcast_to_rank(v, len(shape)) for v in (minval, maxval))
    nbits = np.iinfo(dtype).bits
    higher, lower = (prng.random_bits(k, nbits, shape) for k in _split_n(key, 2))
    span = lax.convert_element_type(maxval - minval, UINT_DTYPES[nbits])
    # maxval <= minval gives minval; a maxval beyond the dtype makes the span one larger
    # (the maximum span wraps to 0, and then the remainders below leave the bits alone).
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    one = np.array(1, span.dtype)
    span = lax.select(maxval_out_of_range & (maxval > minval), lax.add(span, one), span)
    # 2**nbits mod span, without overflow: (2**(nbits/2) mod span)**2 mod span.
    multiplier = lax.rem(np.array(2 ** (nbits // 2), span.dtype), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


@_takes_out_sharding
def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Indices drawn with probabilities softmax(logits) along ``axis`` (the Gumbel-max
    trick: the argmax of logits plus Gumbel noise). Without ``replace``, the draws along
    the leading axes of ``shape`` are distinct: the top k of one noisy copy of the logits
    (the Gumbel top-k trick). ``mode``: the Gumbel noise's (see ``gumbel``)."""
    key = _check_key('categorical', key)
    logits = mnp.asarray(logits)
    if not dtypes.is_float(logits.dtype):
        raise ValueError(f'categorical: logits must be floating-point, got '
                         f'{core.get_aval(logits).str_short()}')
    ndim = logits.ndim
    axis = core.canonicalize_axis(axis, ndim, 'categorical: axis')
    batch_shape = logits.shape[:axis] + logits.shape[axis + 1:]
    shape = batch_shape if shape is None else core.canonicalize_shape(shape, 'categorical')
    prefix = shape[:len(shape) - len(batch_shape)]
    if np.broadcast_shapes(shape, batch_shape) != tuple(shape):
        raise ValueError(f'categorical: shape {shape} is not broadcast-compatible with the '
                         f'batch shape {batch_shape} of the logits')
    if not replace:
        return _categorical_distinct(key, logits, axis, shape, prefix, mode)
    full = (*prefix, *shape[len(prefix):len(prefix) + axis], logits.shape[axis],
            *shape[len(prefix) + axis:])
    noise = gumbel(key, full, logits.dtype, mode=mode)
    return mnp.argmax(noise + lax.expand_dims(logits, tuple(range(len(prefix)))),
                      axis=len(prefix) + axis)


def _categorical_distinct(key, logits, axis, shape, prefix, mode):
    """``categorical`` without replacement: the indices of the ``k`` largest noisy logits
    (``k`` the draws per batch element), moved from the last axis to the front."""
    noisy = logits + gumbel(key, logits.shape, logits.dtype, mode=mode)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f'Number of samples without replacement ({k}) cannot exceed number '
                         f'of categories ({logits.shape[axis]}).')
    indices = lax.top_k(mnp.moveaxis(noisy, axis, -1), k)[1]
    return lax.reshape(indices, tuple(shape), (indices.ndim - 1, *range(indices.ndim - 1)))


@partial(jit, static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    """Knuth's method, for small ``lam``: the count of uniforms whose running product stays
    above ``exp(-lam)`` (log-sums here), in float32 and all elements in step."""
    def body(carry):
        i, k, key, log_prod = carry
        key, subkey = _split_n(key, 2)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = _uniform(subkey, 0., 1., shape, dtypes.float32)
        return i + 1, k, key, log_prod + mnp.log(u)

    def cond(carry):
        i, _, _, log_prod = carry
        return mnp.any(log_prod > -lam) & (i < max_iters)

    init = (0, lax.full_like(lam, 0, dtype, shape), key,
            lax.full_like(lam, 0, dtypes.float32, shape))
    return (while_loop(cond, body, init)[1] - 1).astype(dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    """Hoermann's transformed rejection ("The transformed rejection method for generating
    Poisson random variables", 1993), for large ``lam``, in float32."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, key_u, key_v = _split_n(key, 3)
        u = _uniform(key_u, 0., 1., shape, lam.dtype) - 0.5
        v = _uniform(key_v, 0., 1., shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = mnp.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - gammaln(k + 1)
        accept_fast = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept_full = s <= t
        accept = accept_fast | (~reject & accept_full)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond(carry):
        i, _, accepted, _ = carry
        return mnp.any(~accepted) & (i < max_iters)

    init = (0, lax.full_like(lam, -1, lam.dtype, shape),
            lax.full_like(lam, False, np.dtype(bool), shape), key)
    return while_loop(cond, body, init)[1].astype(dtype)


@partial(jit, static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    """Both methods run on every element (below 10 Knuth's counts, from 10 on the rejection
    sampler's), as in JAX, TensorFlow and NumPy."""
    use_knuth = mnp.isnan(lam) | (lam < 10)
    lam_knuth = lax.select_n(use_knuth, lax.full_like(lam, 0.), lam)
    lam_rejection = lax.select_n(use_knuth, lam, lax.full_like(lam, 1e5))
    max_iters = dtype.type(np.iinfo(dtype).max)
    result = lax.select(use_knuth,
                        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, mnp.zeros_like(result), result)


@_takes_out_sharding
def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) integers (int64 by default); ``lam`` is taken in float32, as in JAX."""
    key = _check_key('poisson', key)
    dtype = dtypes.check_supported(dtypes.int64 if dtype is None else dtype, 'poisson: dtype')
    if not np.issubdtype(dtype, np.integer):
        raise ValueError(f'dtype argument to `poisson` must be an integer dtype, got {dtype}')
    shape = np.shape(lam) if shape is None else core.canonicalize_shape(shape,
                                                                         'poisson: shape')
    lam = lax.convert_element_type(mnp.broadcast_to(lam, shape), dtypes.float32)
    return _poisson(key, lam, shape, dtype)


# ----------------------------------------------------------------------------- permutations

@partial(jit, static_argnums=(2,))
def _shuffle(key, x, axis):
    """Sort by random 32-bit keys, ceil(3 log(n) / log(2**32 - 1)) times with fresh keys, so
    that ties (rare) are broken by the next round (JAX's algorithm)."""
    size = math.prod(np.shape(x))
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = _split_n(key, 2)
        sort_keys = prng.random_bits(subkey, 32, np.shape(x))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


@_takes_out_sharding
def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``range(x)`` (an int), or of ``x``'s slices along ``axis``
    (each 1-D slice independently when ``independent``)."""
    key = _check_key('permutation', key)
    if not np.ndim(x):
        if not np.issubdtype(core.get_aval(x).dtype, np.integer):
            raise TypeError('x must be an integer or at least 1-dimensional')
        return _shuffle(key, mnp.arange(core.static_int(x, 'permutation: x')), 0)
    x = mnp.asarray(x)
    axis = core.canonicalize_axis(axis, x.ndim, 'permutation: axis')
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, mnp.arange(x.shape[axis]), 0)
    return mnp.take(x, order, axis, unique_indices=True)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Draws from ``a`` (an array, along ``axis``, or ``range(a)`` for an int): uniformly
    (``randint``), weighted by ``p`` (inverting the cumulative sum), or without replacement
    (the first draws of a permutation; the Gumbel top-k trick with ``p``, its noise drawn as
    ``mode`` says)."""
    key = _check_key('choice', key)
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
        index = _weighted_choice(key, p, n_inputs, shape, n_draws, replace, mode)
    result = index if arr.ndim == 0 else mnp.take(arr, mnp.ravel(index), axis)
    out_shape = tuple(shape) if arr.ndim == 0 else (*arr.shape[:axis], *shape,
                                                    *arr.shape[axis + 1:])
    return mnp.reshape(result, out_shape)


def _weighted_choice(key, p, n_inputs, shape, n_draws, replace, mode):
    p = mnp.asarray(p)
    p = p if dtypes.is_float(p.dtype) else p.astype(dtypes.float64)
    if p.shape != (n_inputs,):
        raise ValueError(f'p must be None or a 1D vector with the same size as a.shape[axis]. '
                         f'p has shape {p.shape} and a.shape[axis] is {n_inputs}.')
    if replace:
        cumulative = mnp.cumsum(p)
        r = lax.mul(cumulative[-1], lax.sub(1., _uniform(key, 0., 1., tuple(shape), p.dtype)))
        # The first index whose cumulative weight reaches r: how many fall short of it.
        falls_short = mnp.expand_dims(cumulative, tuple(range(r.ndim))) < mnp.expand_dims(r, -1)
        return mnp.sum(falls_short.astype(dtypes.int64), axis=-1)
    g = lax.add(gumbel(key, (n_inputs,), p.dtype, mode=mode), lax.log(p))
    return lax.top_k(g, n_draws)[1].astype(dtypes.int64)


# The samplers built from those above, in a module of their own (they import this one).
from minijax.random_derived import (  # noqa: E402
    ball, binomial, chisquare, double_sided_maxwell, f, generalized_normal, geometric,
    lognormal, maxwell, multinomial, orthogonal, pareto, rademacher, rayleigh, triangular, wald,
    weibull_min)
