"""The samplers ``jax.random`` builds from its basic ones: each is JAX's transformation of
uniforms, normals, Gammas or Bernoullis, written with the same ops in the same order and
compiled (as JAX's are), so that the same key gives JAX's numbers.

``minijax.random`` re-exports them; the basic samplers (``_uniform``, ``_normal``,
``_gamma``...) and the key helpers are that module's.
"""
from functools import partial

import numpy as np

from minijax import core, dtypes, lax, prng
from minijax import numpy as mnp
from minijax.control_flow import scan, while_loop
from minijax.jit import jit
from minijax.numpy import linalg as numpy_linalg
from minijax.random import (_check_key, _check_param_shape, _exponential, _float_dtype,
                            _float_params, _gamma, _normal, _split_n, _uniform,
                            _with_out_sharding, bernoulli, split)

__all__ = ['ball', 'binomial', 'chisquare', 'double_sided_maxwell', 'f', 'generalized_normal',
           'geometric', 'lognormal', 'maxwell', 'multinomial', 'orthogonal', 'pareto',
           'rademacher', 'rayleigh', 'triangular', 'wald', 'weibull_min']


def _safe_to_cast(name, dtype, *params):
    """JAX's check that each parameter promotes to the sampler's dtype unchanged (a float64
    parameter of a float32 sampler is an error; Python scalars, weakly typed, always fit)."""
    for p in params:
        if isinstance(p, (int, float, bool)):
            continue
        have = core.get_aval(p).dtype
        if mnp.promote_types(have, dtype) != dtype:
            raise dtypes.TypePromotionError(
                f'In arguments to {name}, cannot safely cast argument of type {have} to '
                f'{dtype}')


def _drawn(out_sharding, name, draw, key, *args):
    """``draw(key, *args)``, laid out as ``out_sharding`` says (the bits do not change)."""
    return _with_out_sharding(lambda k: draw(k, *args), out_sharding, name)(key)


def _inexact(x):
    """``x`` as an array of an inexact dtype (integers become float64, as
    ``promote_dtypes_inexact`` makes them with x64)."""
    x = mnp.asarray(x)
    return x if dtypes.is_float(x.dtype) else x.astype(dtypes.float64)


# ----------------------------------------------------------------------------- continuous

@partial(jit, static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    return mnp.exp(_exponential(key, shape, dtype) / b)


def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
    """Pareto(b) floats on [1, inf): ``exp(e / b)`` for e exponential."""
    key = _check_key('pareto', key)
    shape, dtype = _float_params('pareto', shape, dtype, b)
    _safe_to_cast('pareto', dtype, b)
    return _drawn(out_sharding, 'pareto', _pareto, key, b, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
    half_df = lax.convert_element_type(df, dtype) / np.array(2., dtype)
    return mnp.exp(_gamma(key, half_df, shape, dtype, True)) * np.array(2., dtype)


def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Chi-square floats with ``df`` degrees of freedom: twice a Gamma(df / 2), drawn in log
    space."""
    key = _check_key('chisquare', key)
    shape, dtype = _float_params('chisquare', shape, dtype, df)
    _safe_to_cast('chisquare', dtype, df)
    return _drawn(out_sharding, 'chisquare', _chisquare, key, df, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_den, key_num = _split_n(key, 2)
    chi2_num = _chisquare(key_num, dfnum, shape, dtype)
    chi2_den = _chisquare(key_den, dfden, shape, dtype)
    return lax.div(lax.div(chi2_num, dfnum), lax.div(chi2_den, dfden))


def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
    """F(dfnum, dfden) floats: the ratio of two chi-squares, each over its degrees of
    freedom."""
    key = _check_key('f', key)
    shape, dtype = _float_params('f', shape, dtype, dfnum, dfden)
    _safe_to_cast('f', dtype, dfnum, dfden)
    return _drawn(out_sharding, 'f', _f, key, dfnum, dfden, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    signs = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * signs - 1).astype(dtype)


def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
    """-1 or 1 with equal probability (int64 by default)."""
    key = _check_key('rademacher', key)
    dtype = dtypes.check_supported(dtypes.int64 if dtype is None else dtype,
                                   'rademacher: dtype')
    shape = core.canonicalize_shape(shape, 'rademacher: shape')
    return _drawn(out_sharding, 'rademacher', _rademacher, key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _maxwell(key, shape, dtype):
    return numpy_linalg.norm(_normal(key, (*shape, 3), dtype), axis=-1)


def maxwell(key, shape=(), dtype=None, *, out_sharding=None):
    """Maxwell floats: the length of a standard normal 3-vector."""
    key = _check_key('maxwell', key)
    shape = core.canonicalize_shape(shape, 'maxwell: shape')
    return _drawn(out_sharding, 'maxwell', _maxwell, key, shape, _float_dtype('maxwell', dtype))


@partial(jit, static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = np.broadcast_shapes(np.shape(loc), np.shape(scale))
    shape = (*(shape or params_shape), *params_shape)
    maxwell_key, sign_key = _split_n(key, 2)
    maxwell_samples = _maxwell(maxwell_key, shape, dtype)
    return _rademacher(sign_key, shape, dtype) * maxwell_samples * scale + loc


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """A Maxwell float with a random sign, scaled by ``scale`` and shifted by ``loc``; the
    result's shape is ``shape`` (the parameters' if empty) followed by the parameters'
    broadcast shape, as in JAX."""
    key = _check_key('double_sided_maxwell', key)
    dtype = _float_dtype('double_sided_maxwell', dtype)
    return _double_sided_maxwell(key, loc, scale,
                                 core.canonicalize_shape(shape, 'double_sided_maxwell: shape'),
                                 dtype)


@partial(jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    u = _uniform(key, 0, 1, shape, dtype)
    return mnp.power(-mnp.log1p(-u), 1.0 / concentration) * scale


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull floats: the inverse of the Weibull CDF at a uniform."""
    key = _check_key('weibull_min', key)
    dtype = _float_dtype('weibull_min', dtype)
    return _weibull_min(key, scale, concentration,
                        core.canonicalize_shape(shape, 'weibull_min: shape'), dtype)


@partial(jit, static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    keys = prng.random_split(key, (2,))  # indexed where used, as JAX indexes them
    g = _gamma(keys[0], 1 / p, shape, dtype, False)
    return _rademacher(keys[1], shape, dtype) * g ** (1 / p)


def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
    """Generalized normal floats (density ``exp(-|x|^p)``): a random sign times
    ``Gamma(1/p) ** (1/p)``."""
    key = _check_key('generalized_normal', key)
    shape = core.canonicalize_shape(shape, 'generalized_normal: shape')
    return _drawn(out_sharding, 'generalized_normal', _generalized_normal, key, p, shape,
                  _float_dtype('generalized_normal', dtype))


@partial(jit, static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    k1, k2 = _split_n(key, 2)
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    return g / (((mnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


def ball(key, d, p=2, shape=(), dtype=None, *, out_sharding=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d`` (Barthe et al.: a
    generalized normal vector over its norm with an exponential added)."""
    key = _check_key('ball', key)
    d = core.static_int(d, 'ball: d')
    shape = core.canonicalize_shape(shape, 'ball: shape')
    return _drawn(out_sharding, 'ball', _ball, key, p, d, shape, _float_dtype('ball', dtype))


@partial(jit, static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = _uniform(key, 0., 1., shape, dtype)
    scale = mnp.broadcast_to(lax.convert_element_type(scale, dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), np.array(-2., dtype))))


def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
    """Rayleigh(scale) floats: ``scale sqrt(-2 log u)``."""
    key = _check_key('rayleigh', key)
    shape, dtype = _float_params('rayleigh', shape, dtype, scale)
    _safe_to_cast('rayleigh', dtype, scale)
    return _drawn(out_sharding, 'rayleigh', _rayleigh, key, scale, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = _split_n(key, 2)
    mean = mnp.broadcast_to(lax.convert_element_type(mean, dtype), shape)
    v = _normal(k1, shape, dtype)
    z = _uniform(k2, 0., 1., shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
    """Wald (inverse Gaussian) floats with mean ``mean``: Michael, Schucany and Haas's
    transformation of a normal, accepted against a uniform."""
    key = _check_key('wald', key)
    shape, dtype = _float_params('wald', shape, dtype, mean)
    _safe_to_cast('wald', dtype, mean)
    return _drawn(out_sharding, 'wald', _wald, key, mean, shape, dtype)


@partial(jit, static_argnums=(4, 5), inline=True)
def _triangular(key, left, mode, right, shape, dtype):
    left, right, mode = (mnp.broadcast_to(lax.convert_element_type(x, dtype), shape)
                         for x in (left, right, mode))
    fc = (mode - left) / (right - left)
    u = _uniform(key, 0., 1., shape, dtype)
    below = left + lax.sqrt(u * (right - left) * (mode - left))
    above = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, below, above)


def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
    """Triangular floats on [left, right] peaking at ``mode``: the inverse CDF at a
    uniform."""
    key = _check_key('triangular', key)
    shape, dtype = _float_params('triangular', shape, dtype, left, mode, right)
    _safe_to_cast('triangular', dtype, left, mode, right)
    return _drawn(out_sharding, 'triangular', _triangular, key, left, mode, right, shape,
                  dtype)


@partial(jit, static_argnums=(2, 3), inline=True)
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(_normal(key, shape, dtype) * sigma)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, *, out_sharding=None):
    """Log-normal floats: ``exp(sigma n)`` for n standard normal."""
    key = _check_key('lognormal', key)
    shape, dtype = _float_params('lognormal', shape, dtype, sigma)
    _safe_to_cast('lognormal', dtype, sigma)
    return _drawn(out_sharding, 'lognormal', _lognormal, key, sigma, shape, dtype)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
    z = _normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = numpy_linalg.qr(z)
    x = q * mnp.expand_dims(mnp.sign(numpy_linalg.diagonal(r)), -2)
    return x.mT if n < m else x


def orthogonal(key, n, shape=(), dtype=None, m=None, *, out_sharding=None):
    """Matrices ``n x m`` (``m = n`` by default) with orthonormal columns or rows, uniform
    (Haar) among them: the Q of a normal matrix's QR, its columns' signs fixed by R's
    diagonal (Mezzadri 2007)."""
    key = _check_key('orthogonal', key)
    n = core.static_int(n, 'orthogonal: n')
    m = n if m is None else core.static_int(m, 'orthogonal: m')
    shape = core.canonicalize_shape(shape, 'orthogonal: shape')
    return _drawn(out_sharding, 'orthogonal', _orthogonal, key, n, m, shape,
                  _float_dtype('orthogonal', dtype))


# ----------------------------------------------------------------------------- discrete

@partial(jit, static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    p = _inexact(p)
    u = _uniform(key, 0., 1., shape, p.dtype)
    log_u = lax.log(mnp.where(u == 0, 1, u))
    log_one_minus_p = mnp.broadcast_to(lax.log1p(-p), shape)
    return (lax.floor(lax.div(log_u, log_one_minus_p)) + 1).astype(dtype)


def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
    """The number of Bernoulli(p) trials up to the first success (int64 by default):
    ``floor(log u / log(1 - p)) + 1``."""
    key = _check_key('geometric', key)
    dtype = dtypes.check_supported(dtypes.int64 if dtype is None else dtype,
                                   'geometric: dtype')
    if not np.issubdtype(dtype, np.integer):
        raise ValueError(f'dtype argument to `geometric` must be an int dtype, got {dtype}')
    shape = np.shape(p) if shape is None else core.canonicalize_shape(shape,
                                                                       'geometric: shape')
    return _drawn(out_sharding, 'geometric', _geometric, key, p, shape, dtype)


#: log(k!) - (Stirling's approximation of it), for k = 0..9, from Hoermann's BTRS paper.
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.010411265261972, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k):
    """The tail of Stirling's series at ``k``: tabulated up to 9, its expansion beyond."""
    table = mnp.array(_STIRLING_TAIL, dtype=k.dtype)
    small = k <= 9
    k = lax.clamp(np.array(0., k.dtype), k, np.array(9., k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return lax.select(small, table[mnp.asarray(mnp.floor(k), dtype='int32')], approx)


@partial(jit, static_argnums=(3, 4, 5), inline=True)
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """For small ``count * prob``: the number of geometric waiting times that fit in
    ``count`` trials."""
    log1minusprob = mnp.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = _split_n(key, 2)
        num_geom = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(subkey, 0., 1., shape, prob.dtype)
        geom_sum = geom_sum + mnp.ceil(mnp.log(u) / log1minusprob)
        return i + 1, num_geom, geom_sum, key

    def cond(carry):
        i, _, geom_sum, _ = carry
        return (geom_sum <= count).any() & (i < max_iters)

    num_geom, geom_sum = (lax.full_like(prob, 0, prob.dtype, shape) for _ in range(2))
    return (while_loop(cond, body, (0, num_geom, geom_sum, key))[1] - 1).astype(dtype)


@partial(jit, static_argnums=(3, 4, 5), inline=True)
def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hoermann's transformed rejection with squeeze ("The generation of binomial random
    variates", 1993), for large ``count * prob``."""
    stddev = mnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = mnp.floor((count + 1) * prob)
    tail = _stirling_approx_tail

    def body(carry):
        i, k_out, accepted, key = carry
        key, key_u, key_v = _split_n(key, 3)
        u = _uniform(key_u, 0., 1., shape, prob.dtype)
        v = _uniform(key_v, 0., 1., shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - mnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = mnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = mnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * mnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * mnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * mnp.log(r * (count - k + 1) / (k + 1))
              + tail(m) + tail(count - m) - tail(k) - tail(count - k))
        accept2 = v <= ub
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond(carry):
        i, _, accepted, _ = carry
        return (~accepted).any() & (i < max_iters)

    init = (0, lax.full_like(prob, -1, prob.dtype, shape), mnp.full(shape, False, bool), key)
    return while_loop(cond, body, init)[1].astype(dtype)


@partial(jit, static_argnums=(3, 4), inline=True)
def _binomial(key, count, prob, shape, dtype):
    """Both methods run on every element (inversion where ``count * q <= 10``, BTRS
    elsewhere, for ``q = min(p, 1 - p)``), then the invalid and infinite counts and the
    ``p > 1/2`` reflection, as JAX does."""
    if shape is None:
        shape = np.broadcast_shapes(np.shape(count), np.shape(prob))
    prob = _inexact(prob)
    count = mnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = mnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = mnp.isnan(count) | (count < 0.0)
    count_inf = mnp.isinf(count)
    q_is_nan, q_l_0 = mnp.isnan(q), q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = mnp.floor(count)
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 10000.0), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, mnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, mnp.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def _check_arraylike(name, *args):
    for i, x in enumerate(args):
        if not (isinstance(x, (int, float, complex, bool, np.generic, np.ndarray))
                or hasattr(x, 'shape') and hasattr(x, 'dtype')):
            raise TypeError(f'{name} requires ndarray or scalar arguments, got {type(x)} '
                            f'at position {i}.')


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts, as floats (float64 by default, as JAX)."""
    key = _check_key('binomial', key)
    _check_arraylike('binomial', n, p)
    dtype = _float_dtype('binomial', dtype)
    if shape is not None:
        shape = core.canonicalize_shape(shape, 'binomial: shape')
        for x in (n, p):
            _check_param_shape('binomial', np.shape(x), shape)
    return _binomial(key, n, p, shape, dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of ``n`` draws among the categories of ``p`` (the last axis): one binomial per
    category, of the draws left over the probability left (a ``scan``)."""
    key = _check_key('multinomial', key)
    _check_arraylike('multinomial', n, p)
    n, p = mnp.asarray(n), mnp.asarray(p)
    common = mnp.result_type(n, p)
    common = common if dtypes.is_float(common) else dtypes.float64
    n, p = n.astype(common), p.astype(common)
    shape = p.shape if shape is None else core.canonicalize_shape(shape, 'multinomial: shape')
    n = mnp.broadcast_to(n, shape[:-1])
    p = mnp.moveaxis(mnp.broadcast_to(p, shape), -1, 0)

    def draw(remainder, ratio_key):
        ratio, key = ratio_key
        # (the bounds by keyword, as JAX's ``ratio.clip`` passes them to its jit)
        count = binomial(key, remainder, mnp.clip(ratio, min=0, max=1), dtype=remainder.dtype)
        return remainder - count, count

    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = p / mnp.where(remaining == 0, 1, remaining)
    keys = split(key, ratios.shape[0])
    _, counts = scan(draw, n, (ratios, keys), unroll=unroll)
    return mnp.moveaxis(counts, 0, -1).astype(dtypes.float64 if dtype is None else dtype)

