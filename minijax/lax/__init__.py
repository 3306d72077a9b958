"""minijax.lax: the primitive operations, each defined once with all of its rules.

``elementwise`` holds the unary and binary arithmetic, comparisons (and the total-order ones),
``select_n`` and dtype conversion; ``structural`` broadcast_in_dim, transpose, reshape,
squeeze, concatenate, pad, iota, empty and rev; ``pieces`` split, unstack, stack and tile;
``slicing`` slice, dynamic_slice and dynamic_update_slice; ``reductions`` the reductions
(reduce_sum, reduce_prod, ...) and argmax/argmin; ``windowed`` reduce_window (sum, max, min,
and any computation) and max pooling's derivatives (select_and_gather_add,
select_and_scatter_add, select_and_scatter); ``dot_general`` dot_general; ``ragged_dot``
ragged_dot and ragged_dot_general; ``scaled_dot`` scaled_dot; ``convolution``
conv_general_dilated; ``precision`` the Precision and dot algorithms of both;
``conv_variants`` conv_transpose and the patch and local convolutions written with
conv_general_dilated; ``special`` erf, erfc, erf_inv, lgamma,
digamma, polygamma, zeta, bessel_i0e and bessel_i1e; ``incomplete`` igamma, igammac,
igamma_grad_a, random_gamma_grad and betainc; ``rounding`` floor, ceil, round, is_finite,
nextafter and reduce_precision; ``transcendental`` tan, atan2, expm1, cbrt, exp2, square and
the (inverse) trigonometric and hyperbolic functions; ``bitcast`` bitcast_convert_type;
``bitwise`` the bitwise and integer operations (and, or, xor, not, shifts, population_count,
clz, mulhi, rem); ``clamp`` clamp; ``sorting`` sort, sort_key_val, top_k, approx_max_k and
approx_min_k; ``cumulative`` cumsum, cumprod, cummax, cummin, cumlogsumexp and
associative_scan; ``log_add_exp`` JAX's custom_jvp logaddexp and logaddexp2 (no primitives:
jnp's and cumlogsumexp's); ``gather`` gather, index_take and the scatters (scatter, scatter_add,
scatter_sub, scatter_mul, scatter_min, scatter_max); ``gradients`` stop_gradient; ``barrier``
the compiler hints optimization_barrier and dce_sink; ``identities`` copy and stage;
``complex_numbers`` real, imag, conj and complex; ``fft`` the discrete Fourier transforms;
``rng`` rng_bit_generator and rng_uniform; ``tokens`` create_token and after_all; ``accuracy``
the accuracy option of the transcendental functions; ``linalg`` (``lax.linalg``, as in JAX) the
matrix decompositions; and ``shapes`` JAX's shape arithmetic. Eager evaluation checks types
with each primitive's abstract-eval rule before running its implementation (see
``core.EvalTrace``), so eager errors name shapes and dtypes as traced ones do.

The control-flow operations (``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``,
``map``, ``platform_dependent``, ``custom_linear_solve``, ``custom_root``, ``composite``) are
reachable here too, as in ``jax.lax``; they live in ``minijax.control_flow``, a
layer above the primitives they are built from, so they are imported on first use.
"""
from minijax import core
from minijax.lax.elementwise import (
    abs, abs_p, add, add_any, add_any_p, add_p, convert_element_type, convert_element_type_p,
    cos, cos_p, div, div_p, eq, eq_p, eq_to_p, exp, exp_p, full_like, ge, ge_p, greater, gt,
    gt_p, integer_pow, integer_pow_p, le, le_p, le_to_p, less, log, log1p, log1p_p, log_p,
    logistic, logistic_p, lt, lt_p, lt_to_p, max, max_p, min, min_p, mul, mul_p, ne, ne_p, neg,
    neg_p, pow, pow_p, rsqrt, rsqrt_p, select, select_n, select_n_p, sign, sign_p, sin, sin_p,
    sqrt, sqrt_p, sub, sub_p, tanh, tanh_p)
from minijax.lax.structural import (
    broadcast, broadcast_in_dim, broadcast_in_dim_p, broadcasted_iota, concatenate, concatenate_p,
    empty, empty_p, expand_dims, full, iota, iota_p, pad, pad_p, reshape, reshape_p, rev, rev_p, squeeze,
    squeeze_p, transpose, transpose_p)
from minijax.lax.slicing import (
    dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim, dynamic_slice_p,
    dynamic_update_index_in_dim, dynamic_update_slice, dynamic_update_slice_in_dim,
    dynamic_update_slice_p, slice, slice_in_dim, slice_p)
from minijax.lax.reductions import (
    argmax, argmax_p, argmin, argmin_p, reduce, reduce_and, reduce_and_p, reduce_max,
    reduce_max_p, reduce_min, reduce_min_p, reduce_or, reduce_or_p, reduce_prod, reduce_prod_p,
    reduce_p, reduce_sum, reduce_sum_p, reduce_xor, reduce_xor_p)
from minijax.lax.dot_general import (
    DotDimensionNumbers, batch_matmul, dot, dot_general, dot_general_p)
from minijax.lax.ragged_dot import (
    RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general, ragged_dot_general_p)
from minijax.lax.scaled_dot import scaled_dot, scaled_dot_p
from minijax.lax.precision import DotAlgorithm, DotAlgorithmPreset, Precision, PrecisionLike
from minijax.lax.accuracy import AccuracyMode, Tolerance
from minijax.lax.pieces import (
    split, split_p, stack, stack_p, tile, tile_p, unstack, unstack_p)
from minijax.lax.windowed import (
    reduce_window, reduce_window_max_p, reduce_window_min_p, reduce_window_p, reduce_window_sum_p,
    select_and_gather_add_p, select_and_scatter_add_p, select_and_scatter_p)
from minijax.lax.convolution import (
    ConvDimensionNumbers, ConvGeneralDilatedDimensionNumbers, conv, conv_dimension_numbers,
    conv_general_dilated, conv_general_dilated_p, conv_with_general_padding)
from minijax.lax.special import (
    bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p, digamma, digamma_p, erf, erf_inv,
    erf_inv_p, erf_p, erfc, erfc_p, lgamma, lgamma_p, polygamma, polygamma_p, zeta, zeta_p)
from minijax.lax.incomplete import (
    betainc, igamma, igamma_grad_a, igamma_grad_a_p, igamma_p, igammac, igammac_p,
    random_gamma_grad, regularized_incomplete_beta_p)
from minijax.lax.shapes import (
    broadcast_like, broadcast_shapes, broadcast_to_rank, collapse, conv_general_permutations,
    conv_general_shape_tuple, conv_shape_tuple, dtype, index_in_dim, padtype_to_pads,
    conv_transpose_shape_tuple, reduce_window_shape_tuple, shape_as_value)
from minijax.lax.conv_variants import (
    conv_general_dilated_local, conv_general_dilated_patches, conv_transpose)
from minijax.lax.rounding import (
    RoundingMethod, ceil, ceil_p, floor, floor_p, is_finite, is_finite_p, nextafter, nextafter_p,
    reduce_precision, reduce_precision_p, round, round_p)
from minijax.lax.transcendental import (
    acos, acos_p, acosh, acosh_p, asin, asin_p, asinh, asinh_p, atan, atan2, atan2_p, atan_p,
    atanh, atanh_p, cbrt, cbrt_p, cosh, cosh_p, exp2, exp2_p, expm1, expm1_p, reciprocal, sinh,
    sinh_p, square, square_p, tan, tan_p)
from minijax.lax.bitcast import bitcast_convert_type, bitcast_convert_type_p
from minijax.lax.clamp import clamp, clamp_p
from minijax.lax.bitwise import (
    and_p, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, clz, clz_p, not_p, or_p,
    mulhi, mulhi_p, population_count, population_count_p, rem, rem_p, shift_left, shift_left_p,
    shift_right_arithmetic, shift_right_arithmetic_p, shift_right_logical,
    shift_right_logical_p, xor_p)
from minijax.lax.sorting import (
    approx_max_k, approx_min_k, approx_top_k_p, sort, sort_key_val, sort_p, top_k, top_k_p)
from minijax.lax.gather import (
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, gather, gather_p,
    index_take, scatter, scatter_add, scatter_add_p, scatter_max, scatter_max_p, scatter_min,
    scatter_min_p, scatter_mul, scatter_mul_p, scatter_apply, scatter_p, scatter_sub, scatter_sub_p)
from minijax.lax.complex_numbers import (
    complex, complex_p, conj, conj_p, imag, imag_p, real, real_p)
from minijax.lax.cumulative import (
    associative_scan, cumlogsumexp, cumlogsumexp_p, cummax, cummax_p, cummin, cummin_p, cumprod,
    cumprod_p, cumsum, cumsum_p)
from minijax.lax.fft import FftType, fft, fft_p
from minijax.lax.gradients import stop_gradient
from minijax.lax.barrier import (
    dce_sink, dce_sink_p, optimization_barrier, optimization_barrier_p)
from minijax.lax.identities import copy_p, stage, stage_p
from minijax.lax.tokens import after_all, after_all_p, create_token, create_token_p
from minijax.lax.rng import (
    RandomAlgorithm, rng_bit_generator, rng_bit_generator_p, rng_uniform, rng_uniform_p)
# Collectives over a named axis (pmap, shard_map, vmap(axis_name=...)): see
# minijax/lax/parallel.py.
from minijax.lax.parallel import (  # noqa: E402
    all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index, axis_index_p, axis_size,
    pcast, pmax, pmax_p, pmean, pmin, pmin_p, ppermute, ppermute_p, pshuffle, psum, psum_p,
    psum_scatter, psum_scatter_p, pswapaxes)
# The ones XLA's CPU backend does not run (they fail there as under JAX): see
# minijax/lax/collectives_beyond_cpu.py.
from minijax.lax.collectives_beyond_cpu import (  # noqa: E402
    pbroadcast, precv, psend, ragged_all_to_all, ragged_all_to_all_p)
# Shardings of values inside a program over a mesh: see minijax/lax/sharding.py.
from minijax.lax.sharding import sharding_constraint_p, with_sharding_constraint  # noqa: E402
# The traced device_put's primitive (its placements are shardings): minijax/lax/device_put.py.
from minijax.lax.device_put import device_put_p  # noqa: E402
# jax.lax.linalg: the decompositions, as a namespace of their own (their primitives too).
from minijax.lax import linalg  # noqa: E402
# Every lax primitive's sharding rule (sharding in types), once they all exist.
from minijax.lax import sharding_rules as _sharding_rules  # noqa: E402, F401

_CONTROL_FLOW = ('cond', 'switch', 'while_loop', 'fori_loop', 'scan', 'cond_p', 'while_p',
                 'scan_p', 'custom_linear_solve', 'custom_root', 'linear_solve_p',
                 'platform_dependent', 'composite')


def __getattr__(name):
    """``lax.cond`` and the other control-flow names, from the layer above, on first use;
    and ``stop_gradient_p``, kept out of this module's namespace, whose primitives are each
    checked against finite differences (``minijax.testing``): its derivative is zero by
    definition."""
    if name == 'stop_gradient_p':
        from minijax.lax.gradients import stop_gradient_p
        return stop_gradient_p
    if name not in _CONTROL_FLOW:
        raise AttributeError(f"module 'minijax.lax' has no attribute '{name}'")
    from minijax import control_flow
    return getattr(control_flow, name)


def __dir__():
    return sorted([*globals(), *_CONTROL_FLOW, 'stop_gradient_p'])


def map(f, xs, *, batch_size=None):  # noqa: A001 (lax.map, as in JAX)
    """``stack([f(x) for x in xs])`` over the leading axis of ``xs`` (a pytree), as one
    ``scan`` with no carry, so ``f`` is traced once."""
    if batch_size is not None:
        raise NotImplementedError('lax.map: minijax does not support batch_size (map over '
                                  'the examples one at a time, or use vmap)')
    from minijax.control_flow import scan
    core.check_callable('lax.map', f=f)
    _, ys = scan(lambda carry, x: (carry, f(x)), (), xs)
    return ys
