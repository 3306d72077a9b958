"""The primitive case table: one row per way of calling a primitive of ``minijax.lax``, with
its JAX counterpart.

``test_rules.py`` runs every rule of every primitive over this table (``test_jvp[sin-f64]``,
``test_vmap[dot_general-...]``, ...), so a new primitive needs new rows here; the guard test
there checks that none is forgotten. A row's id is ``<primitive>-<case>``; the tests append
the dtype.
"""
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from minijax import lax as mlax
from minijax import numpy as mnp
from testlib import (BOOL, C64, C128, COMPLEX, F32, F64, FLOATS, I8, I32, I64, NUMBERS, U8, U32,
                     U64, random_array)

#: Short dtype names for test ids.
SHORT_NAMES = {F32: 'f32', F64: 'f64', I32: 'i32', I64: 'i64', BOOL: 'bool', I8: 'i8', U8: 'u8',
               U32: 'u32', U64: 'u64', C64: 'c64', C128: 'c128'}


class Arg(NamedTuple):
    """One operand: its shape, the values it is drawn from (see ``testlib.random_array``),
    a fixed dtype (indices, predicates: then it is not differentiated) and a fixed value."""
    shape: tuple
    domain: str = 'any'
    dtype: np.dtype | None = None
    value: int | None = None

    def draw(self, rng, dtype, shape=None):
        shape = self.shape if shape is None else shape
        if self.value is not None:
            return np.full(shape, self.value, self.dtype)
        return random_array(rng, shape, self.dtype or dtype, self.domain)


class Case(NamedTuple):
    primitive: str          # name of the minijax Primitive exercised
    name: str               # which call of it ('' when there is one)
    mj: Callable            # the minijax function
    jx: Callable            # the JAX oracle
    operands: tuple         # one Arg per operand
    dtypes: tuple = FLOATS  # dtypes to test (operands without a fixed dtype take it)

    @property
    def id(self):
        return '-'.join(filter(None, (self.primitive, self.name)))

    @property
    def diff_args(self):
        """Operands that take the test dtype: the ones differentiated (when it is a float)."""
        return [i for i, a in enumerate(self.operands) if a.dtype is None]

    def args(self, rng, dtype, shapes=None):
        shapes = shapes or [a.shape for a in self.operands]
        return [a.draw(rng, dtype, s) for a, s in zip(self.operands, shapes)]


def _name(*shapes):
    return '-'.join('x'.join(map(str, s)) or 's' for s in shapes)


def _args(*shapes, domain='any'):
    return tuple(Arg(s, domain) for s in shapes)


def _unary(name, dtypes=FLOATS, domain='any'):
    return Case(name, '', getattr(mlax, name), getattr(jax.lax, name), _args((3, 4), domain=domain),
                dtypes)


#: The operand shapes of a binary primitive's rows that broadcast implicitly.
BROADCASTS = (((), (3, 4)), ((3, 4), ()), ((3, 1), (1, 4)))


def _binary(name, jx, dtypes=NUMBERS, domains=('any', 'any'), broadcasts=BROADCASTS):
    """The rows of a binary primitive. The variants with a scalar operand, or axes of size 1,
    exercise the implicit broadcast (the primitive takes such operands: each of its rules
    must broadcast), which does not depend on the dtype: one float and one int dtype
    suffice. Where each row costs XLA half a second to compile (the incomplete gamma
    functions' series and continued fractions), ``broadcasts`` keeps the one that broadcasts
    both operands."""
    variants = [(((3, 4), (3, 4)), dtypes)]
    variants += [(shapes, dtypes[:1] + dtypes[2:3]) for shapes in broadcasts]
    return [Case(name, _name(a, b), getattr(mlax, name), jx,
                 (Arg(a, domains[0]), Arg(b, domains[1])), dts)
            for (a, b), dts in variants]


#: Integer dtypes for the bitwise rows: signed and unsigned, narrow and wide.
INTEGERS = (I32, U32, I8, U64)


def _bitwise(primitive, fn, dtypes=INTEGERS):
    """Rows of a bitwise primitive (``and``) called through its function (``bitwise_and``)."""
    jx = getattr(jax.lax, fn)
    if primitive in ('not', 'population_count', 'clz'):
        return [Case(primitive, '', getattr(mlax, fn), jx, _args((3, 4)), dtypes)]
    return [case._replace(primitive=primitive, mj=getattr(mlax, fn))
            for case in _binary(fn, jx, dtypes)]


def _ties(name, jx, *shapes):
    return Case(name, f'ties-{_name(*shapes)}', getattr(mlax, name), jx,
                _args(*shapes, domain='ties'))


COMPARISONS = [('gt', jax.lax.gt), ('lt', jax.lax.lt), ('eq', jax.lax.eq),
               ('ne', jax.lax.ne), ('ge', jax.lax.ge), ('le', jax.lax.le)]


def _integer_pow(y):
    dtypes, domain = (FLOATS, 'nonzero') if y < 0 else (NUMBERS, 'any')
    return Case('integer_pow', str(y), lambda x: mlax.integer_pow(x, y),
                lambda x: jax.lax.integer_pow(x, y), _args((3, 4), domain=domain), dtypes)


def _convert(src, dst):
    return Case('convert_element_type', f'{src.name}-{dst.name}',
                lambda x: mlax.convert_element_type(x, dst),
                lambda x: jax.lax.convert_element_type(x, dst), _args((3, 4)), (src,))


def _bitcast(src, dst, shape):
    return Case('bitcast_convert_type', f'{src.name}-{np.dtype(dst).name}',
                lambda x: mlax.bitcast_convert_type(x, dst),
                lambda x: jax.lax.bitcast_convert_type(x, dst), _args(shape), (src,))


def _select_n(name, which, n):
    return Case('select_n', name, mlax.select_n, jax.lax.select_n,
                (which, *_args(*[(3, 4)] * n)), NUMBERS)


def _clamp(name, bounds, dtypes):
    """clamp rows: the bounds are moved apart (min < max everywhere) so that the derivative
    JAX's rule gives is the true one, which finite differences check too."""
    return Case('clamp', name, lambda lo, x, hi: mlax.clamp(lo - 3, x, hi + 3),
                lambda lo, x, hi: jax.lax.clamp(lo - 3, x, hi + 3),
                (bounds, Arg((3, 4)), bounds), dtypes)


def _reduction(name, axis, domain='any'):
    axes = (0, 1, 2) if axis is None else (axis,) if isinstance(axis, int) else axis
    return Case(name, f'{domain}-{axis}' if domain != 'any' else f'2x3x4-{axis}',
                lambda x: getattr(mlax, name)(x, axes), lambda x: getattr(jax.lax, name)(x, axes),
                _args((2, 3, 4), domain=domain), NUMBERS if domain == 'any' else FLOATS)


def _bitwise_reduction(name, axes):
    return Case(name, f'2x3x4-{_name(axes)}', lambda x: getattr(mlax, name)(x, axes),
                lambda x: getattr(jax.lax, name)(x, axes), _args((2, 3, 4)), (BOOL, I32, U8))


def _arg_reduction(name, shape, axis, domain='any', dtypes=(F32, F64, I32)):
    return Case(name, f'{domain}-{_name(shape)}-{axis}',
                lambda x: getattr(mlax, name)(x, axis, I32),
                lambda x: getattr(jax.lax, name)(x, axis, I32), _args(shape, domain=domain),
                dtypes)


def _static(primitive, name, mj, jx, operands, dtypes=NUMBERS):
    """A structural primitive: ``mj`` and ``jx`` fix its parameters."""
    return Case(primitive, name, mj, jx, operands, dtypes)


def _broadcast(shape_in, sizes):
    """JAX's ``lax.broadcast``: new leading axes of ``sizes``."""
    return _static('broadcast_in_dim', f'broadcast-{_name(shape_in)}-{sizes}',
                   lambda x: mlax.broadcast(x, sizes),
                   lambda x: jax.lax.broadcast(x, sizes), _args(shape_in))


def _broadcast_in_dim(shape_in, shape, dims):
    return _static('broadcast_in_dim', f'{_name(shape_in, shape)}-{dims}',
                   lambda x: mlax.broadcast_in_dim(x, shape, dims),
                   lambda x: jax.lax.broadcast_in_dim(x, shape, dims), _args(shape_in))


def _transpose(shape, perm):
    return _static('transpose', str(perm), lambda x: mlax.transpose(x, perm),
                   lambda x: jax.lax.transpose(x, perm), _args(shape))


def _reshape(name, mj, jx, shape):
    return _static('reshape', name, mj, jx, _args(shape))


def _concatenate(shapes, axis):
    return _static('concatenate', f'{_name(*shapes)}-{axis}',
                   lambda *xs: mlax.concatenate(xs, axis),
                   lambda *xs: jax.lax.concatenate(xs, axis), _args(*shapes))


def _pad(config):
    return _static('pad', str(config), lambda x, v: mlax.pad(x, v, config),
                   lambda x, v: jax.lax.pad(x, v, config), _args((3, 4), ()))


def _slice(start, limit, strides):
    return _static('slice', f'{start}-{limit}-{strides}',
                   lambda x: mlax.slice(x, start, limit, strides),
                   lambda x: jax.lax.slice(x, start, limit, strides), _args((5, 6)))


def _index(value, dtype=I32):
    """A start index operand: a fixed one, or drawn at random (``value=None``)."""
    return Arg((), 'idx', dtype, value)


def _index_name(i, j, dtype):
    name = 'random' if i is None else f'{i}-{j}'
    return name if dtype == I32 else f'{name}-{np.dtype(dtype).name}'


def _dynamic_slice(i, j, dtype=I32):
    return _static('dynamic_slice', _index_name(i, j, dtype),
                   lambda x, i, j: mlax.dynamic_slice(x, (i, j), (2, 3)),
                   lambda x, i, j: jax.lax.dynamic_slice(x, (i, j), (2, 3)),
                   (Arg((5, 6)), _index(i, dtype), _index(j, dtype)))


def _dynamic_update_slice(i, j, dtype=I32):
    return _static('dynamic_update_slice', _index_name(i, j, dtype),
                   lambda x, u, i, j: mlax.dynamic_update_slice(x, u, (i, j)),
                   lambda x, u, i, j: jax.lax.dynamic_update_slice(x, u, (i, j)),
                   (Arg((5, 6)), Arg((2, 3)), _index(i, dtype), _index(j, dtype)))


def _dot(lhs, rhs, dims, dtypes=(F32, F64, I32)):
    return _static('dot_general', f'{_name(lhs, rhs)}-{dims}',
                   lambda x, y: mlax.dot_general(x, y, dims),
                   lambda x, y: jax.lax.dot_general(x, y, dims), _args(lhs, rhs), dtypes)


def _matmul_with(name, dtypes, operands=_args((3, 4), (4, 2)), **options):
    """A matrix product with JAX's options (``precision``, ``preferred_element_type``)."""
    return _static('dot_general', name, lambda x, y: mlax.dot(x, y, **options),
                   lambda x, y: jax.lax.dot(x, y, **options), operands, dtypes)


def _scaled(name, lhs, rhs, lhs_scale, rhs_scale, dtypes=(F32, F64, I32), **options):
    """A scaled_dot row: float32 scales (JAX's default ones are float8_e8m0fnu, which
    minijax lacks), each covering a block of 2 or more contracting positions."""
    def call(lax):
        return lambda x, y, s, t: lax.scaled_dot(x, y, lhs_scale=s, rhs_scale=t, **options)
    return Case('scaled_dot', name, call(mlax), call(jax.lax),
                (Arg(lhs), Arg(rhs), Arg(lhs_scale, dtype=F32), Arg(rhs_scale, dtype=F32)),
                dtypes)


def _ragged(name, lhs, rhs, groups, dims, dtypes=(F32, F64, I32)):
    """A ragged_dot_general row: ``dims`` are ``RaggedDotDimensionNumbers``'s arguments;
    ``group_sizes`` (shape ``groups``) are drawn below 3, so the groups of a 6-long ragged axis
    may leave rows past their end."""
    def call(lax):
        return lambda x, y, g: lax.ragged_dot_general(x, y, g, lax.RaggedDotDimensionNumbers(*dims))
    return Case('ragged_dot_general', name, call(mlax), call(jax.lax),
                (Arg(lhs), Arg(rhs), Arg(groups, 'idx3', I32)), dtypes)


def _approx_top_k(fn, k, axis, part, operand=(3, 4), dtypes=FLOATS, **options):
    """A row of approx_max_k or approx_min_k: its values or its indices (``part``)."""
    i = ('values', 'indices').index(part)
    name = '-'.join([fn, str(k), f'axis{axis}', part, *(f'{k}={v}' for k, v in options.items())])
    return Case('approx_top_k', name,
                lambda x: getattr(mlax, fn)(x, k, axis, **options)[i],
                lambda x: getattr(jax.lax, fn)(x, k, axis, **options)[i], _args(operand), dtypes)


def _sort(name, mj, jx, shapes, domain='any', dtypes=NUMBERS):
    return Case('sort', name, mj, jx, _args(*shapes, domain=domain), dtypes)


def _cumulative(name, axis, reverse, domain='any', dtypes=NUMBERS):
    """A row of cumsum, cumprod, cummax, cummin or cumlogsumexp over a 3x4x2 operand."""
    return Case(name, f'{domain}-{axis}' + ('-reverse' if reverse else ''),
                lambda x: getattr(mlax, name)(x, axis, reverse),
                lambda x: getattr(jax.lax, name)(x, axis, reverse),
                _args((3, 4, 2), domain=domain), dtypes)


def _fft(kind, shape, lengths, dtypes):
    """A row of ``fft`` of one kind over the trailing axes of ``shape`` (of sizes
    ``lengths``; IRFFT's operand holds ``lengths[-1] // 2 + 1`` frequencies there)."""
    return Case('fft', f'{kind}-{_name(shape)}', lambda x: mlax.fft(x, kind, lengths),
                lambda x: jax.lax.fft(x, kind, lengths), _args(shape), dtypes)


def _conv(name, lhs, rhs, **params):
    return _static('conv_general_dilated', name,
                   lambda x, y: mlax.conv_general_dilated(x, y, **params),
                   lambda x, y: jax.lax.conv_general_dilated(x, y, **params), _args(lhs, rhs),
                   FLOATS)


#: reduce_window's computations, with the identity each starts from.
WINDOW_REDUCERS = {'reduce_window_sum': ('add', 0.), 'reduce_window_max': ('max', -np.inf),
                   'reduce_window_min': ('min', np.inf)}


def _reduce_window(primitive, name, *window_args):
    computation, init = WINDOW_REDUCERS[primitive]
    return _static(primitive, name,
                   lambda x: mlax.reduce_window(x, init, getattr(mlax, computation), *window_args),
                   lambda x: jax.lax.reduce_window(x, init, getattr(jax.lax, computation),
                                                   *window_args), _args((5, 6)), FLOATS)


def _DERIVED_OPERANDS(lax):
    """The operands a multi-operand row makes of its one: ``x``, ``-x``, ``x * x``."""
    return [lambda x: x, lax.neg, lambda x: lax.mul(x, x)]


def _init(x, value):
    """An initial value of ``x``'s dtype (lax.reduce wants the operand's)."""
    return np.array(value, x.dtype)


def _reduce(name, computation, inits, dimensions, shapes, dtypes=FLOATS, pick=0):
    """A general ``lax.reduce`` row: ``computation`` (of the ``lax`` module given) over
    operands of ``shapes`` from ``inits``; one output (``pick``) per row. Several operands
    are made from one (``x``, ``-x``, ...): JAX's rule fails on a symbolic zero tangent."""
    def call(lax):
        def f(x):
            xs = tuple(make(x) for make in _DERIVED_OPERANDS(lax)[:len(shapes)])
            out = lax.reduce(xs if len(xs) > 1 else xs[0],
                             tuple(_init(x, i) for x, i in zip(xs, inits)) if len(xs) > 1
                             else _init(xs[0], inits[0]), computation(lax), dimensions)
            return out[pick] if len(xs) > 1 else out
        return f
    return Case('reduce', name, call(mlax), call(jax.lax), _args(shapes[0]), dtypes)


def _general_reduce_window(name, computation, inits, shapes, *window, pick=0):
    """A ``lax.reduce_window`` row whose computation has no primitive of its own; several
    operands are made from one, as in ``_reduce``."""
    def call(lax):
        def f(x):
            xs = tuple(make(x) for make in _DERIVED_OPERANDS(lax)[:len(shapes)])
            out = lax.reduce_window(xs if len(xs) > 1 else xs[0],
                                    tuple(_init(x, i) for x, i in zip(xs, inits))
                                    if len(xs) > 1 else _init(xs[0], inits[0]),
                                    computation(lax), *window)
            return out[pick] if len(xs) > 1 else out
        return f
    return Case('reduce_window', name, call(mlax), call(jax.lax), _args(shapes[0]), FLOATS)


def _select_and_gather_add(name, select, window_dimensions, window_strides, padding,
                           base_dilation=(1, 1), window_dilation=(1, 1)):
    """Max (``ge``) or min (``le``) pooling's tangent: the tangent where the window picks."""
    def call(lax):
        return lambda t, x: lax.select_and_gather_add_p.bind(
            t, x, select_prim=getattr(lax, f'{select}_p'), window_dimensions=window_dimensions,
            window_strides=window_strides, padding=padding, base_dilation=base_dilation,
            window_dilation=window_dilation)
    return Case('select_and_gather_add', name, call(mlax), call(jax.lax),
                _args((5, 6), (5, 6)), FLOATS)


def _select_and_scatter_add(name, select, source, window_dimensions, window_strides,
                            padding):
    def call(lax):
        return lambda s, x: lax.select_and_scatter_add_p.bind(
            s, x, select_prim=getattr(lax, f'{select}_p'), window_dimensions=window_dimensions,
            window_strides=window_strides, padding=padding)
    return Case('select_and_scatter_add', name, call(mlax), call(jax.lax),
                _args(source, (5, 6)), FLOATS)


def _select_and_scatter(name, select, scatter, source, window_dimensions, window_strides,
                        padding, dtypes=FLOATS):
    """The general select_and_scatter, as JAX's ``_select_and_scatter`` binds it (JAX has no
    public function for it)."""
    from jax._src.lax.windowed_reductions import _select_and_scatter as jax_select_and_scatter
    from minijax.lax.windowed import _select_and_scatter as mj_select_and_scatter

    def call(lax, fn):
        return lambda x, s: fn(x, getattr(lax, select), window_dimensions, window_strides,
                               padding, s, _init(x, 0), getattr(lax, scatter))
    return Case('select_and_scatter', name, call(mlax, mj_select_and_scatter),
                call(jax.lax, jax_select_and_scatter), _args((5, 6), source), dtypes)


def _scatter_apply(name, func, operand, indices, update_shape, dnums, dtype, **params):
    """scatter_apply binds scatter with an update computation: its operand's dtype is fixed,
    since JAX does not differentiate it (nor does minijax)."""
    def call(lax, np_):
        return lambda x, i: lax.scatter_apply(x, i, getattr(np_, func),
                                              lax.ScatterDimensionNumbers(*dnums),
                                              update_shape=update_shape, **params)
    return Case('scatter', f'apply-{name}', call(mlax, mnp), call(jax.lax, jnp),
                (Arg(operand, dtype=dtype), Arg(indices, 'idx', I32)), (dtype,))


def _gather(name, operand, indices, dnums, slice_sizes, dtypes=FLOATS, **jax_params):
    """A gather row; ``jax_params`` (a mode) go to the JAX oracle only."""
    return _static('gather', name,
                   lambda x, i: mlax.gather(x, i, mlax.GatherDimensionNumbers(*dnums), slice_sizes),
                   lambda x, i: jax.lax.gather(x, i, jax.lax.GatherDimensionNumbers(*dnums),
                                               slice_sizes, **jax_params),
                   (Arg(operand), Arg(indices, 'idx', I32)), dtypes)


def _scatter(primitive, name, operand, indices, updates, dnums, dtypes=FLOATS, **params):
    return _static(primitive.replace('_', '-'), name,
                   lambda x, i, u: getattr(mlax, primitive)(
                       x, i, u, mlax.ScatterDimensionNumbers(*dnums), **params),
                   lambda x, i, u: getattr(jax.lax, primitive)(
                       x, i, u, jax.lax.ScatterDimensionNumbers(*dnums), **params),
                   (Arg(operand), Arg(indices, 'idx', I32), Arg(updates)), dtypes)


SCATTERS = ('scatter', 'scatter_add', 'scatter_sub', 'scatter_mul', 'scatter_min', 'scatter_max')


def _scatter_rows(primitive):
    """Each scatter: one update per row of a batch (unique indices, the first row, which
    check_rules takes), rows of an operand at indices that may repeat, windows dropped out of
    bounds. scatter_mul differentiates its updates for unique indices only: one index there."""
    unique = {'unique_indices': True} if primitive == 'scatter_mul' else {}
    n = 1 if unique else 4
    return [_scatter(primitive, 'batching', (3, 5), (3, 1), (3,), ((), (1,), (1,), (0,), (0,)),
                     **unique),
            _scatter(primitive, 'rows', (5, 6), (n, 1), (n, 6), ((1,), (0,), (0,)),
                     NUMBERS if primitive in ('scatter_add', 'scatter_sub') else FLOATS,
                     **unique),
            _scatter(primitive, 'drop', (4, 6), (n, 2), (n, 2, 3), ((1, 2), (), (0, 1)), **unique)]


def _in_range(lax, r, a, b):
    """Whether each of ``r`` lies in ``[a, b)``: what is defined of ``rng_uniform``."""
    return lax.bitwise_and(lax.ge(r, a), lax.lt(r, b))


def _betainc(a, b):
    """A betainc row: ``a`` and ``b`` are held constant, as neither library differentiates
    in them."""
    return Case('regularized_incomplete_beta', f'a{a}-b{b}',
                lambda x: mlax.betainc(mlax.full_like(x, a), mlax.full_like(x, b), x),
                lambda x: jax.lax.betainc(jax.lax.full_like(x, a), jax.lax.full_like(x, b), x),
                _args((3, 4), domain='prob'))




PRIMITIVE_CASES = [
    # elementwise
    _unary('sin'), _unary('cos'), _unary('exp'), _unary('log', domain='pos'),
    _unary('tanh'), _unary('logistic'), _unary('sqrt', domain='pos'),
    _unary('rsqrt', domain='pos'),
    _unary('log1p', domain='pos'), _unary('erf'), _unary('erfc'),
    _unary('tan'), _unary('expm1'), _unary('cbrt', domain='nonzero'),
    _unary('floor'), _unary('ceil'),
    *[_unary(name, FLOATS + (C128,), domain) for name, domain in [
        ('sinh', 'any'), ('cosh', 'any'), ('asin', 'unit'), ('acos', 'unit'), ('atan', 'any'),
        ('asinh', 'any'), ('acosh', 'above_one'), ('atanh', 'unit')]],
    _unary('square', NUMBERS + (C128,)), _unary('exp2'),
    _unary('lgamma'), _unary('digamma'), _unary('erf_inv', domain='unit'),
    *[Case('polygamma', f'm{m}', lambda x, m=m: mlax.polygamma(mlax.full_like(x, m), x),
           lambda x, m=m: jax.lax.polygamma(jax.lax.full_like(x, m), x),
           _args((3, 4), domain='pos'))
      for m in (0, 1, 3)],
    *_binary('zeta', jax.lax.zeta, FLOATS, domains=('above_one', 'above_one')),
    *_binary('nextafter', jax.lax.nextafter, FLOATS, domains=('any', 'ties')),
    _unary('bessel_i0e'), _unary('bessel_i1e'),
    *[Case(name, 'wide', lambda x, name=name: getattr(mlax, name)(x * 8.),
           lambda x, name=name: getattr(jax.lax, name)(x * 8.), _args((3, 4)))
      for name in ('bessel_i0e', 'bessel_i1e')],  # (beyond 8: the other series of i0e)
    *[case for name in ('igamma', 'igammac', 'igamma_grad_a')
      for case in _binary(name, getattr(jax.lax, name), FLOATS, domains=('pos', 'pos'),
                          broadcasts=BROADCASTS[2:])],
    *[_betainc(a, b) for a, b in [(0.5, 2.), (3., 1.5)]],
    Case('regularized_incomplete_beta', 'scalars',
         lambda x: mlax.betainc(np.asarray(2.5, x.dtype), np.asarray(4., x.dtype), x),
         lambda x: jax.lax.betainc(np.asarray(2.5, x.dtype), np.asarray(4., x.dtype), x),
         _args((3, 4), domain='prob')),
    *[Case('round', f'{method.name.lower()}-{domain}', lambda x, m=method: mlax.round(x, m),
           lambda x, m=method: jax.lax.round(x, m), _args((3, 4), domain=domain))
      for method, domain in [(mlax.RoundingMethod.AWAY_FROM_ZERO, 'any'),
                             (mlax.RoundingMethod.AWAY_FROM_ZERO, 'halves'),
                             (mlax.RoundingMethod.TO_NEAREST_EVEN, 'halves')]],
    _unary('is_finite', domain='specials'),
    *[Case('reduce_precision', f'e{e}m{m}-{domain}',
           lambda x, e=e, m=m: mlax.reduce_precision(x, e, m),
           lambda x, e=e, m=m: jax.lax.reduce_precision(x, e, m), _args((3, 4), domain=domain))
      for e, m, domain in [(5, 10, 'any'), (8, 7, 'specials'), (2, 1, 'any'), (3, 0, 'halves')]],
    *_binary('atan2', jax.lax.atan2, FLOATS, domains=('nonzero', 'nonzero')),
    _unary('neg', NUMBERS), _unary('abs', NUMBERS, 'nonzero'), _unary('sign', NUMBERS),
    # complex numbers: the parts (complex operands), and elementwise ops on complex operands
    _unary('real', COMPLEX), _unary('imag', COMPLEX), _unary('conj', COMPLEX),
    *_binary('complex', jax.lax.complex, FLOATS),
    *(_unary(name, (C128,), domain) for name, domain in [
        ('abs', 'nonzero'), ('sin', 'any'), ('log', 'nonzero'), ('sqrt', 'nonzero'),
        ('logistic', 'any')]),
    *_binary('div', jax.lax.div, (C128,), domains=('any', 'nonzero'))[:1],
    # Fourier transforms: each kind over one and over two axes (test_fft.py differentiates
    # the complex ones, and the jnp.fft functions)
    _fft('fft', (3, 8), (8,), COMPLEX), _fft('ifft', (2, 3, 4), (3, 4), COMPLEX),
    _fft('rfft', (3, 8), (8,), FLOATS), _fft('rfft', (2, 3, 5), (3, 5), FLOATS),
    _fft('irfft', (3, 5), (8,), COMPLEX), _fft('irfft', (2, 3, 3), (3, 5), COMPLEX),
    *_binary('add', jax.lax.add), *_binary('sub', jax.lax.sub), *_binary('mul', jax.lax.mul),
    Case('add_any', '', mlax.add_any, jax.interpreters.ad.add_jaxvals, _args((3, 4), (3, 4))),
    *_binary('div', jax.lax.div, domains=('any', 'nonzero')),
    *_binary('max', jax.lax.max), *_binary('min', jax.lax.min),
    _ties('max', jax.lax.max, (3, 4), (3, 4)), _ties('min', jax.lax.min, (3, 4), (3, 4)),
    _clamp('3x4', Arg((3, 4)), NUMBERS), _clamp('scalar-bounds', Arg((), dtype=F64), (F64,)),
    *_binary('pow', jax.lax.pow, FLOATS, domains=('pos', 'any')),
    *[_integer_pow(y) for y in (0, 1, 2, 3, 5, -2)],
    *[c for name, jx in COMPARISONS for c in _binary(name, jx)],
    *[Case(name, f'{domain}-{_name(*shapes)}', getattr(mlax, f'{name}_p').bind,
           getattr(jax.lax, f'{name}_p').bind, (Arg(shapes[0], domain), Arg(shapes[1], domain)),
           (F32, F64, I32, U8, BOOL))
      for name in ('eq_to', 'le_to', 'lt_to')
      # (the first row, which check_rules takes, has no NaN nor -0.: the reference
      # interpreter compares TOTALORDER as FLOAT, see KNOWN_BUGS in random_programs.py)
      for domain, shapes in [('any', ((3, 4), (3, 4))), ('total_order', ((3, 4), (3, 4))),
                             ('ties', ((3, 1), (1, 4)))]],
    *[_ties(name, jx, *shapes) for name, jx in COMPARISONS[2:]
      for shapes in [((3, 4), (3, 4)), ((), (3, 4))]],
    Case('eq', 'bool', mlax.eq, jax.lax.eq, _args((3, 4), (3, 4)), (BOOL,)),
    _convert(F32, F64), _convert(F64, F32), _convert(F64, I32), _convert(I32, F64),
    _convert(I64, I32), _convert(F32, BOOL),
    _bitcast(I32, F32, (3, 4)), _bitcast(F32, np.uint32, (3, 4)), _bitcast(I64, I32, (3, 4)),
    _bitcast(I32, F64, (3, 2)),
    _select_n('bool', Arg((3, 4), dtype=BOOL), 2),
    _select_n('scalar-pred', Arg((), dtype=BOOL), 2),
    _select_n('int3', Arg((3, 4), 'idx3', I32), 3),
    # bitwise and integer
    *_bitwise('and', 'bitwise_and', (I32, U32, BOOL, U8)),
    *_bitwise('or', 'bitwise_or', (I32, U32, BOOL, I64)),
    *_bitwise('xor', 'bitwise_xor', (U32, I32, BOOL, U64)),
    *_bitwise('not', 'bitwise_not', (I32, U32, BOOL, I8)),
    *_bitwise('shift_left', 'shift_left'), *_bitwise('shift_right_logical', 'shift_right_logical'),
    *_bitwise('shift_right_arithmetic', 'shift_right_arithmetic'),
    *_bitwise('population_count', 'population_count'), *_bitwise('clz', 'clz'),
    *_bitwise('mulhi', 'mulhi', (I32, U32, I8, U64, I64)),
    *_binary('rem', jax.lax.rem, (*NUMBERS, U32), domains=('any', 'nonzero')),
    # reductions
    *[_reduction(name, axis, domain)
      for name in ('reduce_sum', 'reduce_prod', 'reduce_max', 'reduce_min')
      for domain in ('any', 'ties') for axis in [None, 1, (0, 2)]
      if domain == 'any' or name != 'reduce_sum'],
    Case('reduce_min', 'bool-0', lambda x: mlax.reduce_min(x, (0,)),
         lambda x: jax.lax.reduce_min(x, (0,)), _args((3, 4)), (BOOL,)),
    *[_bitwise_reduction(name, axes) for name in ('reduce_and', 'reduce_or', 'reduce_xor')
      for axes in [(1,), (0, 2)]],
    *[_arg_reduction(name, (3, 4, 5), axis) for name in ('argmax', 'argmin') for axis in (0, 2)],
    *[_arg_reduction(name, (3, 4, 2), axis, 'ties', FLOATS)
      for name in ('argmax', 'argmin') for axis in (0, 1)],
    _arg_reduction('argmax', (3, 4), 1, 'ties', (I32, I64)),
    # structural
    _broadcast((3,), (2, 4)), _broadcast((), (2, 3)), _broadcast((2, 3), (5,)),
    _broadcast_in_dim((3,), (2, 3, 4), (1,)), _broadcast_in_dim((1, 3), (4, 3), (0, 1)),
    _broadcast_in_dim((1, 4), (2, 3, 4), (0, 2)), _broadcast_in_dim((), (2, 3), ()),
    _transpose((2, 3, 4), (2, 0, 1)), _transpose((3, 4), (1, 0)),
    _reshape('2x3x4-6x4', lambda x: mlax.reshape(x, (6, 4)),
             lambda x: jax.lax.reshape(x, (6, 4)), (2, 3, 4)),
    _reshape('2x3x4-4x6', lambda x: mlax.reshape(x, (4, 6)),
             lambda x: jax.lax.reshape(x, (4, 6)), (2, 3, 4)),
    _reshape('3x4-12', lambda x: mlax.reshape(x, (12,)),
             lambda x: jax.lax.reshape(x, (12,)), (3, 4)),
    _static('squeeze', '', lambda x: mlax.squeeze(x, (1,)), lambda x: jax.lax.squeeze(x, (1,)),
            _args((3, 1, 4))),
    _static('squeeze', 'two-axes', lambda x: mlax.squeeze(x, (-1, 1)),
            lambda x: jax.lax.squeeze(x, (-1, 1)), _args((3, 1, 4, 1))),
    _reshape('expand_dims', lambda x: mlax.expand_dims(x, (0, 2)),
             lambda x: jax.lax.expand_dims(x, (0, 2)), (3, 4)),
    _concatenate([(2, 3), (2, 4)], 1), _concatenate([(3, 2), (3, 4)], 1),
    _concatenate([(1, 4), (3, 4), (2, 4)], 0), _concatenate([(2, 3)], 1),
    # split and unstack rows read one piece: the others' cotangents are symbolic zeros
    _static('split', '(1, 3)-0', lambda x: mlax.split(x, (1, 3))[1],
            lambda x: jax.lax.split(x, (1, 3))[1], _args((4, 3))),
    _static('split', '(2, 0, 1)-1', lambda x: mlax.split(x, (2, 0, 1), axis=1)[0],
            lambda x: jax.lax.split(x, (2, 0, 1), axis=1)[0], _args((4, 3))),
    _static('unstack', '1', lambda x: mlax.unstack(x, 1)[2],
            lambda x: jax.lax.unstack(x, 1)[2], _args((4, 3))),
    _static('stack', '3-1', lambda *xs: mlax.stack(xs, 1), lambda *xs: jax.lax.stack(xs, 1),
            _args((4, 3), (4, 3), (4, 3))),
    _static('tile', '(2, 1, 3)', lambda x: mlax.tile(x, (2, 1, 3)),
            lambda x: jax.lax.tile(x, (2, 1, 3)), _args((2, 3, 1))),
    _pad(((1, 2, 1), (0, -1, 0))), _pad(((1, 2, 0), (0, 1, 2))), _pad(((-1, 2, 1), (2, -3, 0))),
    _static('iota', '', lambda: mlax.broadcasted_iota(I32, (3, 4), 1),
            lambda: jax.lax.broadcasted_iota(I32, (3, 4), 1), (), (I32,)),
    _static('iota', 'i64', lambda: mlax.broadcasted_iota(I64, (2, 3), 0),
            lambda: jax.lax.broadcasted_iota(I64, (2, 3), 0), (), (I64,)),
    _static('iota', 'times-x', lambda x: x * mlax.broadcasted_iota(x.dtype, (3, 4), 1),
            lambda x: x * jax.lax.broadcasted_iota(x.dtype, (3, 4), 1), _args((3, 4)), FLOATS),
    _static('empty', '', lambda: mlax.empty((3, 4), F32), lambda: jax.lax.empty((3, 4), F32), (),
            (F32,)),
    _static('empty', 'plus-x', lambda x: x + mlax.empty((3, 4), x.dtype),
            lambda x: x + jax.lax.empty((3, 4), x.dtype), _args((3, 4)), NUMBERS),
    # slicing
    _slice((0, 1), (3, 4), (2, 1)), _slice((1, 0), (4, 6), None), _slice((1, 0), (5, 6), (2, 4)),
    _dynamic_slice(None, None), _dynamic_slice(1, 2), _dynamic_slice(4, 5), _dynamic_slice(0, 9),
    _dynamic_slice(-2, 1, I8), _dynamic_slice(-2, -1, I64), _dynamic_slice(250, 3, U8),
    _dynamic_update_slice(-2, 1, I8), _dynamic_update_slice(-3, 2, I64),
    _dynamic_update_slice(None, None), _dynamic_update_slice(1, 2), _dynamic_update_slice(4, 5),
    # gather and scatter (the clamped windows: JAX's default mode leaves their gradient
    # undefined; minijax's is CLIP's)
    _gather('rows', (5, 6), (4, 1), ((1,), (0,), (0,)), (1, 6), NUMBERS),
    _gather('clamped', (5, 6), (3, 2), ((1, 2), (), (0, 1)), (2, 3), mode='clip'),
    _gather('batching', (3, 5, 2), (3, 4, 1), ((2,), (1,), (1,), (0,), (0,)), (1, 1, 2)),
    *[row for primitive in SCATTERS for row in _scatter_rows(primitive)],
    _scatter_apply('sin-rows', 'sin', (5, 6), (4, 1), (4, 6), ((1,), (0,), (0,)), F32),
    _scatter_apply('negative-drop', 'negative', (4, 6), (4, 2), (4, 2, 3),
                   ((1, 2), (), (0, 1)), F64),
    _scatter_apply('square-points', 'square', (4, 6), (5, 2), (5,), ((), (0, 1), (0, 1)), I32),
    _reduce('mul-from-2', lambda lax: lax.mul, (2,), (0,), [(3, 4)], NUMBERS),
    _reduce('sum-prod-pair', lambda lax: lambda a, b: (lax.add(a[0], b[0]),
                                                       lax.mul(a[1], b[1])),
            (0, 1), (0,), [(3, 4), (3, 4)], pick=1),
    _reduce('max-index', lambda lax: lambda a, b: (
        lax.max(a[0], b[0]), lax.select(lax.gt(a[0], b[0]), a[1], b[1])),
            (-np.inf, 0), (1,), [(3, 4), (3, 4)]),
    # linear algebra
    _dot((3, 4), (4, 5), (((1,), (0,)), ((), ())), NUMBERS),
    _dot((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    _dot((4, 3), (5, 4), (((0,), (1,)), ((), ()))),
    _dot((4, 2, 3), (3, 5, 2), (((2,), (0,)), ((1,), (2,))), FLOATS),
    _dot((3, 4, 2), (4, 2), (((1, 2), (0, 1)), ((), ())), FLOATS),
    _dot((4,), (4,), (((0,), (0,)), ((), ())), FLOATS),
    _dot((3,), (4,), (((), ()), ((), ())), FLOATS),
    _matmul_with('float32', FLOATS, precision='float32'),
    _matmul_with('highest-bfloat16', FLOATS, precision=('highest', 'bfloat16')),
    _matmul_with('to-f64', (F32,), preferred_element_type=F64),
    _matmul_with('algorithm-bf16', (F32,), precision='BF16_BF16_F32'),
    _matmul_with('algorithm-f16', (F32,), precision='F16_F16_F16'),
    _matmul_with('to-f32', (F64, I8), preferred_element_type=F32),
    _matmul_with('to-i32', (I8,), preferred_element_type=I32),
    _matmul_with('i32-times-float', FLOATS, (Arg((3, 4), dtype=I32), Arg((4, 2)))),
    # sorting
    _sort('3x4-1', lambda x: mlax.sort(x, 1), lambda x: jax.lax.sort(x, 1), [(3, 4)]),
    _sort('ties-3x4-0', lambda x: mlax.sort(x, 0), lambda x: jax.lax.sort(x, 0), [(3, 4)],
          'ties', FLOATS),
    _sort('ties-key-val', lambda k, v: mlax.sort_key_val(k, v, 1)[1],
          lambda k, v: jax.lax.sort_key_val(k, v, 1)[1], [(3, 4), (3, 4)], 'ties'),
    _sort('ties-two-keys', lambda a, b, c: mlax.sort((a, b, c), 0, num_keys=2)[2],
          lambda a, b, c: jax.lax.sort((a, b, c), 0, num_keys=2)[2], [(4, 3)] * 3, 'ties'),
    *[Case('top_k', f'{k}-axis{axis}-{part}',
           lambda x, k=k, axis=axis, i=i: mlax.top_k(x, k, axis=axis)[i],
           lambda x, k=k, axis=axis, i=i: jax.lax.top_k(x, k, axis=axis)[i],
           _args((3, 4)), NUMBERS)
      for k, axis in [(2, -1), (3, 0), (0, 1)]
      for i, part in enumerate(('values', 'indices'))],
    *[_approx_top_k(fn, k, axis, part) for fn, k, axis in
      [('approx_max_k', 2, -1), ('approx_min_k', 3, 0), ('approx_max_k', 1, 1)]
      for part in ('values', 'indices')],
    *[_approx_top_k('approx_max_k', 3, 1, part, (2, 300), (F32,), recall_target=0.9,
                    aggregate_to_topk=False) for part in ('values', 'indices')],
    # ragged dots: the three modes (a free, a contracting and a batch axis ragged). No ragged
    # contracting axis with a batch axis: vmap makes two, which XLA 0.10.2 fails to compile
    # (its simplifier's dot has the wrong shape), JAX's module as minijax's.
    _ragged('m-k-times-g-k-n', (6, 3), (3, 3, 4), (3,), ((([1], [1]), ([], [])), [0], [0])),
    _ragged('batched-b-m-k-times-g-b-k-n', (2, 6, 3), (3, 2, 3, 4), (2, 3),
            ((([2], [2]), ([0], [1])), [1], [0])),
    _ragged('free-axes-around-m', (2, 6, 3), (3, 3, 4, 5), (3,),
            ((([2], [1]), ([], [])), [1], [0])),
    _ragged('contracting', (4, 6), (6, 5), (3,), ((([1], [0]), ([], [])), [1], [])),
    _ragged('ragged-batch', (3, 4, 2), (3, 2, 5), (3,), ((([2], [1]), ([0], [0])), [0], [])),
    # scaled dots: the default axes of 2 and 3 dimensions, both axes contracted, a batch
    # axis in the middle; float32, bfloat16 (the default) and float64 results
    _scaled('m-k-times-k-n-to-f32', (3, 8), (8, 4), (3, 2), (2, 4), (F32, F64, I32, C64, BOOL),
            preferred_element_type=F32),
    _scaled('m-k-times-k-n', (3, 8), (8, 4), (3, 4), (4, 4), (F32, I32)),
    _scaled('b-m-k-times-b-k-n-to-f32', (2, 3, 8), (2, 8, 4), (2, 3, 4), (2, 4, 4), (F32,),
            preferred_element_type=F32),
    _scaled('both-axes-to-f64', (4, 6), (6, 4), (2, 3), (3, 2), (F32,),
            dimension_numbers=(((0, 1), (1, 0)), ((), ())), preferred_element_type=F64),
    _scaled('batch-in-the-middle', (3, 2, 8), (8, 2, 4), (3, 2, 2), (4, 2, 4), (F64,),
            dimension_numbers=(((2,), (0,)), ((1,), (1,)))),
    Case('optimization_barrier', 'pair-times',
         lambda x, y: mlax.mul(*mlax.optimization_barrier((x, y))),
         lambda x, y: jax.lax.mul(*jax.lax.optimization_barrier((x, y))), _args((3, 4), ()),
         NUMBERS),
    Case('dce_sink', '', lambda x: mlax.dce_sink(mlax.mul(x, x)) or x,
         lambda x: jax.lax.dce_sink(jax.lax.mul(x, x)) or x, _args((3, 4)), NUMBERS),
    Case('dce_sink', 'kept-in-the-module',
         lambda x: mlax.dce_sink(mlax.mul(x, x), prevent_mlir_dce=True) or x,
         lambda x: jax.lax.dce_sink(jax.lax.mul(x, x), prevent_mlir_dce=True) or x,
         _args((3, 4))),
    Case('copy', '', lambda x: mlax.mul(mnp.copy(x), x), lambda x: jax.lax.mul(jnp.copy(x), x),
         _args((3, 4)), NUMBERS),
    Case('stage', 'traced', lambda x: mlax.stage(x), lambda x: jax.lax.stage(x), _args((3, 4))),
    Case('stage', 'constant', lambda x: mlax.add(mlax.stage(np.ones((3, 4), x.dtype)), x),
         lambda x: jax.lax.add(jax.lax.stage(np.ones((3, 4), x.dtype)), x), _args((3, 4)),
         NUMBERS),
    # accuracy: a Tolerance or an AccuracyMode, carried to the op's result_accuracy
    *[Case(name, f'accuracy-{label}',
           lambda x, n=name, a=acc: getattr(mlax, n)(x, accuracy=a(mlax)),
           lambda x, n=name, a=acc: getattr(jax.lax, n)(x, accuracy=a(jax.lax)),
           _args((3, 4), domain=domain))
      for name, domain in [('exp', 'any'), ('tanh', 'any'), ('sin', 'any'), ('log', 'pos'),
                           ('expm1', 'any'), ('logistic', 'any'), ('exp2', 'any')]
      for label, acc in [('highest', lambda lax: lax.AccuracyMode.HIGHEST),
                         ('tolerance', lambda lax: lax.Tolerance(atol=1e-5, rtol=1e-4, ulps=2))]],
    # randomness on the device
    *[Case('rng_bit_generator', f'{name}-{i}',
           lambda k, s=shape, d=dtype, a=alg, i=i: mlax.rng_bit_generator(
               k, s, d, mlax.RandomAlgorithm(a))[i],
           lambda k, s=shape, d=dtype, a=alg, i=i: jax.lax.rng_bit_generator(
               k, s, d, jax.lax.RandomAlgorithm(a))[i],
           (Arg(key_shape),), (key_dtype,))
      for name, key_shape, key_dtype, shape, dtype, alg in [
          ('default', (4,), U32, (3, 4), U32, 0), ('threefry-u8', (4,), U32, (5,), U8, 1),
          ('philox-u64-key', (2,), U64, (2, 3), U64, 2),
          ('scalar-u16', (4,), U32, (), np.uint16, 0)]
      for i in (0, 1)],
    Case('rng_uniform', 'in-range',
         lambda a: _in_range(mlax, mlax.rng_uniform(a, a + 3, (3, 4)), a, a + 3),
         lambda a: _in_range(jax.lax, jax.lax.rng_uniform(a, a + 3, (3, 4)), a, a + 3),
         _args(()), (F32, F64, I32)),
    # tokens
    Case('create_token', '', lambda x: (mlax.create_token(x), x)[1],
         lambda x: (jax.lax.create_token(x), x)[1], _args((3, 4))),
    Case('after_all', '', lambda x: (mlax.after_all(mlax.create_token(), mlax.create_token()),
                                     x)[1],
         lambda x: (jax.lax.after_all(jax.lax.create_token(), jax.lax.create_token()), x)[1],
         _args((3, 4))),
    # cumulative
    *[_cumulative(name, axis, reverse, dtypes=FLOATS if name == 'cumlogsumexp' else NUMBERS)
      for name in ('cumsum', 'cumprod', 'cummax', 'cummin', 'cumlogsumexp')
      for axis, reverse in [(1, False), (0, True)]],
    *[_cumulative(name, axis, reverse, 'ties', FLOATS) for name in ('cummax', 'cummin')
      for axis, reverse in [(1, False), (1, True)]],
    # convolution and windowed reductions
    _static('rev', '(0, 2)', lambda x: mlax.rev(x, (0, 2)), lambda x: jax.lax.rev(x, (0, 2)),
            _args((2, 3, 4))),
    _conv('nchw-valid', (2, 3, 5, 4), (4, 3, 3, 2), window_strides=(1, 1), padding='VALID'),
    _conv('nhwc-same-strided', (2, 5, 4, 3), (3, 2, 3, 4), window_strides=(2, 1),
          padding='SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC')),
    _conv('dilated-cropped', (2, 6, 5, 4), (3, 4, 2, 2), window_strides=(2, 2),
          padding=((1, 2), (0, -1)), lhs_dilation=(2, 1), rhs_dilation=(1, 2),
          dimension_numbers=('NHWC', 'OIHW', 'NCWH')),
    _conv('feature-groups', (2, 4, 6), (6, 2, 3), window_strides=(2,), padding=((1, 0),),
          feature_group_count=2),
    _conv('batch-groups', (4, 3, 6), (6, 3, 3), window_strides=(1,), padding=((1, 1),),
          batch_group_count=2),
    _conv('highest', (2, 3, 5), (4, 3, 2), window_strides=(1,), padding='VALID',
          precision='highest'),
    *[_reduce_window(p, '2x2-s2', (2, 2), (2, 2), 'VALID') for p in WINDOW_REDUCERS],
    *[_reduce_window(p, '3x2-same', (3, 2), (1, 2), 'SAME') for p in WINDOW_REDUCERS],
    _reduce_window('reduce_window_sum', 'dilated', (2, 3), (2, 1), ((1, 2), (0, 1)), (2, 1),
                   (1, 2)),
    _general_reduce_window('mul-2x2', lambda lax: lax.mul, (1,), [(5, 6)], (2, 2), (1, 1),
                           'VALID'),
    _general_reduce_window('max-add-pair-same', lambda lax: lambda a, b: (
        lax.max(a[0], b[0]), lax.add(a[1], b[1])), (-np.inf, 0), [(5, 6), (5, 6)], (3, 2),
        (2, 1), 'SAME', pick=1),
    _general_reduce_window('mul-dilated', lambda lax: lax.mul, (1,), [(5, 6)], (2, 3), (2, 1),
                           ((1, 2), (0, 1)), (2, 1), (1, 2)),
    _select_and_gather_add('ge-2x2-s2', 'ge', (2, 2), (2, 2), ((0, 0), (0, 0))),
    _select_and_gather_add('le-3x2-padded', 'le', (3, 2), (1, 2), ((1, 1), (0, 1))),
    _select_and_gather_add('ge-base-dilated', 'ge', (3, 2), (2, 1), ((1, 0), (0, 1)),
                           base_dilation=(2, 1)),
    _select_and_scatter_add('ge-2x2-s2', 'ge', (2, 3), (2, 2), (2, 2), ((0, 0), (0, 0))),
    _select_and_scatter_add('le-3x2-padded', 'le', (5, 3), (3, 2), (1, 2), ((1, 1), (0, 1))),
    _select_and_scatter('ge-add', 'ge', 'add', (2, 3), (2, 2), (2, 2), ((0, 0), (0, 0)),
                        NUMBERS),
    _select_and_scatter('le-add-overlapping', 'le', 'add', (4, 5), (2, 2), (1, 1),
                        ((0, 0), (0, 0))),
]
