"""``jnp`` functions stage JAX's equations: over the case tables of the ``jnp`` tests, the jaxpr
``make_jaxpr`` prints and the module ``jit(f).lower(...).as_text()`` writes are JAX's, text
for text (tracing and lowering only: nothing is compiled).

The rows that still differ are listed in ``DIFFERING``, each with its reason; a test checks
that each listed row really differs, so that the list shrinks as functions are brought to
JAX's form.
"""
import jax
import jax.numpy as jnp
import pytest

import minijax
import minijax.numpy as mnp

import test_numpy
import test_numpy_math
import test_numpy_more
import test_numpy_surface
import testlib  # noqa: F401  (JAX with x64, as minijax computes)


def _rows():
    """``id -> (make(numpy module) -> function, make_args(rng))`` over the four tables (the
    rows of ``test_numpy_more`` that JAX can ``jit``)."""
    rows = {}
    for case in test_numpy.CASES:
        rows[f'numpy:{case.id}'] = (lambda m, c=case: lambda *a: c.fn(m, *a),
                                    lambda rng, c=case: test_numpy._args(rng, c))
    for case in test_numpy_math.CASES:
        mine, theirs = test_numpy_math.MODULES[case.module]
        rows[f'math:{case.id}'] = (
            lambda m, c=case, mine=mine, theirs=theirs:
                lambda *a: c.fn(mine if m is mnp else theirs, *a),
            lambda rng, c=case: test_numpy_math._args(rng, c))
    for case in test_numpy_more.CASES:
        if case.jit:
            rows[f'more:{case.id}'] = (lambda m, c=case: lambda *a: c.fn(m, *a),
                                       lambda rng, c=case: test_numpy_more._args(rng, c))
    for case in test_numpy_surface.CASES:
        rows[f'surface:{case.id}'] = (lambda m, c=case: lambda *a: c.fn(m, *a),
                                      lambda rng, c=case: test_numpy_surface._args(rng, c))
    return rows


ROWS = _rows()

# Why a row's jaxpr or module is not yet JAX's, by kind of difference.
_SCATTER = ("x.at[...] updates pad and select (basic indices) or scatter through minijax's own "
            "indexer, where JAX's index_to_gather builds one scatter with its index layout")
_DROPPED = "JAX drops an argument or equation nobody reads from the module; minijax lowers it"
_RESHAPE_DIMS = ("JAX's function reshapes with dimensions=; minijax's transposes, then "
                 "reshapes")
_GATHER_FILL = ("JAX's gather takes mode='fill' and its fill value as parameters (its lowering "
                "masks); minijax's gather masks the windows that do not fit in the jaxpr")
_DIAGONAL = ("JAX's diagonal gathers it (a square matrix's under a cond on platform_index), "
             "where minijax's slices the flattened matrix with a stride")
_INT_DIV = ("minijax lowers an integer div or rem with guards (a zero divisor, the lowest int "
            "by -1), where JAX lowers stablehlo.divide or stablehlo.remainder alone")
_SAME_PRIMITIVES = ("the same primitives as JAX's, in another order or with other parameters, "
                    "literals or intermediate shapes")


def _nested(*names):
    return f"JAX stages nested jits minijax does not: {', '.join(names)}"


def _ops(theirs, mine):
    return f'JAX stages {theirs or "none"} where minijax stages {mine or "none"}'


#: The difference most quantile rows share: JAX stages a clamp where minijax bounds the
#: sorted positions with comparisons, max and min.
_QUANTILE_BY_SORT = _ops(
    ['clamp'], ['and', 'ge', 'le', 'lt', 'max', 'min', 'reduce_min', 'reshape', 'transpose'])


#: The rows whose jaxpr or module still differs from JAX's, with the reason.
DIFFERING = {
    'numpy:full-of-a-row': _ops([], ['convert_element_type']),
    'numpy:at-set': _SCATTER,
    'numpy:at-set-slice': _SCATTER,
    'numpy:at-add-strided': _SCATTER,
    'numpy:at-add-broadcast': _SCATTER,
    'math:hypot': _ops(['square'], ['convert_element_type']),
    'math:copysign': _ops(['convert_element_type', 'shift_right_arithmetic'], ['lt']),
    'math:binary-special': _ops(['shift_right_arithmetic', 'square'], []),
    'math:hypot-big': _ops(['square'], ['convert_element_type']),
    'math:heaviside': _SAME_PRIMITIVES,
    'math:ldexp': ("a jit called inside a custom_jvp function (frexp's) is lowered to a "
                   "private function of its own (_where_2) where JAX calls the one it has"),
    'math:predicates':
        _ops(['convert_element_type', 'shift_right_arithmetic'], ['broadcast_in_dim', 'lt']),
    'math:predicates-int': _SAME_PRIMITIVES,
    'math:ediff1d': _SAME_PRIMITIVES,
    'math:average': _ops(['reshape'], []),
    'math:average-1d-weights': _ops(['reshape'], []),
    'math:median':
        _ops(['clamp'], ['and', 'ge', 'le', 'lt', 'max', 'min', 'reduce_min', 'transpose']),
    'math:median-even': _QUANTILE_BY_SORT,
    'math:quantile-linear': _QUANTILE_BY_SORT,
    'math:quantile-lower': _ops(
        ['clamp'],
        ['add', 'and', 'ge', 'le', 'lt', 'max', 'min', 'reduce_min', 'reshape', 'transpose']),
    'math:quantile-higher': _ops(
        ['clamp'],
        ['add', 'and', 'ge', 'le', 'lt', 'max', 'min', 'reduce_min', 'reshape', 'transpose']),
    'math:quantile-nearest': _ops(
        ['clamp'],
        ['add', 'and', 'ge', 'lt', 'max', 'min', 'reduce_min', 'reshape', 'transpose']),
    'math:quantile-midpoint': _QUANTILE_BY_SORT,
    'math:quantile-axes': _RESHAPE_DIMS,
    'math:percentile':
        _ops(['clamp'], ['and', 'ge', 'le', 'lt', 'max', 'min', 'reduce_min', 'transpose']),
    'math:quantile-nan': _QUANTILE_BY_SORT,
    'math:nanmedian': _ops(
        ['concatenate', 'iota', 'not'],
        ['and', 'eq', 'ge', 'le', 'reduce_min', 'reshape', 'transpose']),
    'math:nanquantile': _ops(
        ['concatenate', 'iota', 'not'],
        ['and', 'eq', 'ge', 'le', 'reduce_min', 'reshape', 'transpose']),
    'math:cov': _ops(['slice'], []),
    'math:cov-options': _ops(['slice'], []),
    'math:cov-weights': _ops(['abs', 'reshape'], []),
    'math:corrcoef': _DIAGONAL,
    'math:corrcoef-pair': _DIAGONAL,
    'math:cov-corrcoef-complex': _DIAGONAL,
    'math:kron': _ops(['broadcast_in_dim'], []),
    'math:cross': _ops(['broadcast_in_dim', 'concatenate', 'transpose'], ['stack']),
    'math:cross-2-3': _ops(['concatenate'], ['stack']),
    'math:cross-2d': _SAME_PRIMITIVES,
    'math:polyval': _ops(['scan'], ['slice', 'squeeze']),
    'math:interp': _nested('_interp', '_searchsorted_scan_impl', 'floor_divide'),
    'math:interp-left-right': _nested('_interp', '_searchsorted_scan_impl', 'floor_divide'),
    'math:interp-period': _nested('_interp', '_searchsorted_scan_impl', 'floor_divide'),
    'math:trapezoid': _ops(['squeeze'], []),
    'math:searchsorted': _nested('_searchsorted_scan_impl', 'floor_divide'),
    'math:searchsorted-ties-nan': _nested('_searchsorted_scan_impl', 'floor_divide'),
    'math:searchsorted-sorter': _nested('_searchsorted_scan_impl', 'floor_divide'),
    'math:select': _ops(['argmax', 'stack'], ['convert_element_type', 'jit']),
    'math:unstack': _ops(['unstack'], ['slice', 'squeeze']),
    'math:tri-indices': _SCATTER,
    'math:tril-indices-use': _SCATTER,
    'math:indices': _ops(['broadcast_in_dim'], []),
    'math:unravel_index': _INT_DIV,
    'math:unravel_index-range': _INT_DIV,
    'math:ravel_multi_index-clip-C': _ops([], ['broadcast_in_dim']),
    'math:ravel_multi_index-clip-F': _ops([], ['broadcast_in_dim']),
    'math:ravel_multi_index-wrap-C': _ops([], ['broadcast_in_dim']),
    'math:ravel_multi_index-wrap-F': _ops([], ['broadcast_in_dim']),
    'more:gcd-lcm': _SAME_PRIMITIVES,
    'more:frexp-grad': _DROPPED,
    'more:nextafter-spacing': _ops(['convert_element_type', 'shift_right_arithmetic'], ['lt']),
    'more:spacing-special': _ops(['convert_element_type', 'shift_right_arithmetic'], ['lt']),
    'more:spacing-f32': _ops(['shift_right_arithmetic'], ['lt']),
    'more:shifts': _INT_DIV,
    'more:unwrap-axis-int': _SAME_PRIMITIVES,
    'more:packbits': _SAME_PRIMITIVES,
    'more:unpackbits': _ops(['gt'], ['ne']),
    'more:vecmat-complex': _ops([], ['squeeze']),
    'more:diagflat': _ops([], ['jit']),
    'more:fill-diagonal': _ops(['tile'], ['jit', 'reshape']),
    'more:indices-from': _SCATTER,
    'more:mask-indices-sized': _SAME_PRIMITIVES,
    'more:ix': _ops([], ['reshape']),
    'more:mgrid-ogrid': _SAME_PRIMITIVES,
    'more:r-c': _SAME_PRIMITIVES,
    'more:insert': _SAME_PRIMITIVES,
    'more:delete': _SAME_PRIMITIVES,
    'more:put': _ops([], ['reshape']),
    'more:put-along-axis': _ops([], ['reshape']),
    'more:place': _ops(['tile'], []),
    'more:sets-sized': _nested('_unique_sorted_mask'),
    'more:sets-sized-fill': _nested('_unique_sorted_mask'),
    'more:unique-array-api-sized': _nested('_unique_sorted_mask'),
    'more:histogramdd': _nested('_ptp', '_searchsorted_scan_impl', 'floor_divide'),
    'more:histogram2d-grad': _nested('_ptp', '_searchsorted_scan_impl', 'diff', 'floor_divide'),
    'more:polydiv': _SCATTER,
    'surface:exp2-log2-log10': _ops(['div'], []),
    'surface:power-integer-exponent': _SAME_PRIMITIVES,
    'surface:power-integer-exponents': _SAME_PRIMITIVES,
    'surface:power-integer-exponent-grad': _SAME_PRIMITIVES,
    'surface:round-rint-complex': _SAME_PRIMITIVES,
    'surface:rint-int': _ops([], ['round']),
    'surface:mod-floordiv-int': _INT_DIV,
    'surface:logical': _ops([], ['eq']),
    'surface:logical-numbers': _ops(['convert_element_type', 'not', 'or'], ['add', 'eq']),
    'surface:isclose-int-complex': _ops(['ne', 'or'], ['select_n']),
    'surface:lexsort': _SAME_PRIMITIVES,
    'surface:vecdot': _ops([], ['broadcast_in_dim']),
    'surface:vdot-vecdot-complex': _SAME_PRIMITIVES,
    'surface:einsum-ii':
        _ops(['broadcast_in_dim', 'eq', 'iota', 'select_n'], ['jit', 'reshape', 'slice']),
    'surface:einsum-ii->i': _ops(
        ['broadcast_in_dim', 'eq', 'iota', 'reduce_sum', 'select_n'],
        ['jit', 'reshape', 'slice']),
    'surface:einsum-ij,jk,kl->il': _SAME_PRIMITIVES,
    'surface:trace-diag': _DIAGONAL,
    'surface:diagonal-batched': _ops(
        ['broadcast_in_dim', 'concatenate', 'convert_element_type', 'gather', 'iota', 'lt',
         'select_n'],
        ['reshape', 'slice']),
    'surface:vstack-hstack': _ops(['transpose'], ['reshape']),
    'surface:meshgrid': _SAME_PRIMITIVES,
    'surface:take': _GATHER_FILL,
    'surface:search-choose-partition': _SCATTER,
    'surface:partition-axis': _SCATTER,
    'surface:view-byteswap': _SCATTER,
    'surface:creation-like': _DROPPED,
    'surface:array-of-traced': _SAME_PRIMITIVES,
    'surface:integer-array-index': _ops(['broadcast_in_dim'], ['jit', 'lt', 'reshape']),
    'surface:polynomials': _SCATTER,
    'surface:polynomials-int-digitize': _nested('_searchsorted_scan_impl', 'floor_divide'),
    'surface:polyfit': _ops(['copy', 'custom_linear_solve', 'sort', 'stop_gradient'],
                            ['custom_jvp_call', 'lu_pivots_to_permutation']),
    'surface:gradient': _SAME_PRIMITIVES,
}


def _texts(make, args):
    """The jaxpr and the lowered module of ``make``'s function over ``args``: minijax's,
    then JAX's."""
    mine, theirs = make(mnp), make(jnp)
    return ((str(minijax.make_jaxpr(mine)(*args)), minijax.jit(mine).lower(*args).as_text()),
            (str(jax.make_jaxpr(theirs)(*args)), jax.jit(theirs).lower(*args).as_text()))


@pytest.mark.parametrize('row', [r for r in ROWS if r not in DIFFERING])
def test_jaxpr_and_module_are_jaxs(row, rng):
    make, make_args = ROWS[row]
    (jaxpr, module), (their_jaxpr, their_module) = _texts(make, make_args(rng))
    assert jaxpr == their_jaxpr
    assert module == their_module


@pytest.mark.parametrize('row', sorted(DIFFERING))
def test_listed_rows_still_differ(row, rng):
    """A row listed in ``DIFFERING`` that now matches JAX's must leave the list."""
    assert row in ROWS, f'{row} is no longer a row of the case tables'
    make, make_args = ROWS[row]
    try:
        mine, theirs = _texts(make, make_args(rng))
    except Exception:  # noqa: BLE001  (one of the two refuses the row: it differs)
        return
    assert mine != theirs, f'{row} now stages JAX\'s equations: remove it from DIFFERING'
