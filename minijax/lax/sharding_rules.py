"""Which sharding rule each lax primitive has (``minijax.sharding.rules``): one table, a rule
kind per row and the primitives that follow it. The unary and binary elementwise primitives
of ``elementwise.py`` get theirs where they are made; a primitive named nowhere has no
rule, which under an ``Explicit`` mesh is JAX's ``ShardingTypeError`` naming it.
"""
from __future__ import annotations

import operator

from minijax import lax
from minijax.lax.gradients import stop_gradient_p
from minijax.lax.sharding import sharding_constraint_p
from minijax.sharding import rules
from minijax.sharding.rules import (broadcasting_rule, operand_rule, unsharded_along_rule,
                                    varying_shape_rule, without_axes_rule)


_CUMULATIVE = unsharded_along_rule(
    'axis', 'Input should be unsharded over the axis being reduced. Got input type={aval} '
    'and axis={axis}')
_SORT = unsharded_along_rule(
    'dimension', 'Arguments to sort must be unsharded over the sorting dimension. Got arg '
    'sharding={sharding} and sorting dimension={axis}')

#: rule -> the primitives (names of ``lax.NAME_p``) it gives results' shardings.
TABLE = {
    rules.SAME_AS_OPERAND: 'not population_count clz round is_finite reduce_precision real '
                           'imag conj erf erfc copy stage bitcast_convert_type rev integer_pow',
    rules.AS_TRACED: 'optimization_barrier',
    without_axes_rule('axes'): 'reduce_sum reduce_prod reduce_max reduce_min reduce_and '
                               'reduce_or reduce_xor',
    without_axes_rule('axis'): 'argmax argmin',
    _CUMULATIVE: 'cumsum cumprod cummax cummin cumlogsumexp',
    _SORT: 'sort',
    rules.transpose_rule: 'transpose',
    rules.top_k_rule: 'top_k',
    rules.gather_rule: 'gather',
    rules.scatter_rule: 'scatter scatter_add scatter_sub scatter_mul scatter_min scatter_max',
    rules.tile_rule: 'tile',
    rules.conv_rule: 'conv_general_dilated',
    rules.broadcast_in_dim_rule: 'broadcast_in_dim',
    rules.reshape_rule: 'reshape',
    rules.squeeze_rule: 'squeeze',
    rules.created_rule: 'iota empty rng_uniform create_token after_all',
    rules.convert_rule: 'convert_element_type',
    rules.same_sharding_rule('select'): 'select_n',
    rules.same_sharding_rule('concatenate'): 'concatenate',
    rules.dot_general_rule: 'dot_general',
    varying_shape_rule('slicing'): 'slice',
    varying_shape_rule('dynamic_slice'): 'dynamic_slice',
    varying_shape_rule('split', multiple_results=True): 'split',
    rules.stack_rule: 'stack',
    rules.unstack_rule: 'unstack',
    rules.dynamic_update_slice_rule: 'dynamic_update_slice',
    varying_shape_rule('padding'): 'pad',
    varying_shape_rule('reduce_window'): 'reduce_window_sum reduce_window_max '
                                         'reduce_window_min',
    operand_rule(1): 'clamp select_and_scatter_add select_and_gather_add',
    rules.variadic_reduce_rule: 'reduce',
    rules.rng_bit_generator_rule: 'rng_bit_generator',
    rules.fft_rule: 'fft',
    rules.triangular_solve_rule: 'linalg.triangular_solve',
    rules.linalg_rule('cholesky', multiple_results=False): 'linalg.cholesky',
    **{rules.linalg_rule(name): f'linalg.{name}'
       for name in 'lu qr eigh eig svd schur hessenberg tridiagonal'.split()},
    **{rules.linalg_rule(name, ranks, multiple_results=False): f'linalg.{name}'
       for name, ranks in [('householder_product', (2, 1)), ('ormqr', (2, 1, 2)),
                           ('tridiagonal_solve', (1, 1, 1, 2)), ('symmetric_product', (2, 2)),
                           ('lu_pivots_to_permutation', (1,))]},
    **{rules.linalg_rule(name): f'householder.{name}' for name in ('geqrf', 'geqp3')},
}

for _rule, _names in TABLE.items():
    rules.register(_rule, *(operator.attrgetter(f'{n}_p')(lax) for n in _names.split()))
rules.register(rules.SAME_AS_OPERAND, stop_gradient_p, sharding_constraint_p)
# JAX lowers these without the constraint of their result's type (split and unstack
# constrain each piece as they make it: pieces.py).
rules.not_constrained.update(getattr(lax, f'{n}_p') for n in (
    'copy exp2 round sign square eq ne lt le gt ge eq_to le_to lt_to split unstack fft').split())
rules.not_constrained.add(sharding_constraint_p)
# (JAX lowers the decompositions to LAPACK's kernels and selects NaNs where one fails: the
# select's mask is constrained, the results are not.)
rules.not_constrained.update(operator.attrgetter(f'linalg.{n}_p')(lax) for n in (
    'cholesky triangular_solve lu qr eigh eig svd schur hessenberg tridiagonal '
    'householder_product ormqr tridiagonal_solve').split())
rules.not_constrained.update((lax.householder.geqrf_p, lax.householder.geqp3_p))
# (and these lower to lax formulas, whose last op is constrained already, as in JAX)
rules.not_constrained.update((lax.linalg.symmetric_product_p,
                              lax.linalg.lu_pivots_to_permutation_p))
rules.keeps_partial_sums.update(getattr(lax, f'{n}_p') for n in (
    'transpose squeeze reshape convert_element_type pad reduce_precision copy').split())
rules.keeps_partial_sums.add(sharding_constraint_p)
for _name in ('complex add_any regularized_incomplete_beta and or xor shift_left '
              'shift_right_logical shift_right_arithmetic').split():
    rules.register(broadcasting_rule(_name), getattr(lax, f'{_name}_p'))
