"""Random well-typed programs over minijax.lax, each built twice: with minijax and with JAX.

A program is a plain description (``Program``): typed inputs, then steps, each an op name,
the indices of its argument values and static parameters (sub-programs for control flow and
nested jit). ``generate(seed)`` draws one; ``run(program, backend, args)`` evaluates it with
``MINIJAX`` or ``JAX`` ops, so JAX is the oracle for every leg that ``check(seed)`` compares:
eager, jit (XLA), the StableHLO reference interpreter, grad (and finite differences), vmap.

Used by test/unit/test_random_programs.py (a fixed seed set in CI) and bench/fuzz.py (long
runs). Not a test module itself: pytest does not collect it.
"""
from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import minijax as mj
import minijax.numpy as mnp
from minijax import lax as mlax
from minijax.reference_interpreter import InterpreterError, run_module

jax.config.update('jax_enable_x64', True)

#: Where minijax departs from JAX on purpose (docs/semantics.md says so): ``generate`` and
#: ``check`` stay clear of these. A bug class found by the fuzzer may be parked here by name
#: while it is being fixed; delete its name once the fix lands, so the fuzzer hits it again.
KNOWN_BUGS = {
    'interpreter_outer_product_sign': 'the StableHLO reference interpreter adds each '
                                      'dot_general product to +0., even with nothing to sum, '
                                      'so a -0. product is +0. there (XLA: -0.)',
    'subnormals': 'subnormal floats: XLA on CPU flushes them to zero, eager NumPy keeps '
                  'them (sign, comparisons, conversion to bool differ)',
    'interpreter_atan2_subnormals': 'the StableHLO reference interpreter keeps subnormal '
                                    'floats that XLA on CPU flushes to zero; atan2, '
                                    'discontinuous where its second operand is zero, turns '
                                    'that into a difference of pi',
    'interpreter_totalorder_nan': 'the StableHLO reference interpreter compares floats '
                                  'with compare_type TOTALORDER as with FLOAT: NaN is '
                                  'neither above nor equal to anything, so a sort whose '
                                  'keys hold a NaN (minijax and JAX order NaNs last with a '
                                  'TOTALORDER comparator) comes out unsorted there (XLA '
                                  'and the spec: -NaN < -inf < ... < inf < +NaN)',
    'interpreter_zeta_overflow': 'the StableHLO reference interpreter runs jaxlib\'s MLIR '
                                 'expansion of chlo.zeta (and of polygamma, built on it), '
                                 'whose answer overflows to inf where XLA\'s own expansion '
                                 'gives NaN, for a huge exponent (zeta(1e300, 0.5); fuzz '
                                 'seed 181634): the terms are infinite either way',
    'interpreter_fft_large': 'the StableHLO reference interpreter\'s FFT rounds with an '
                             'error relative to the largest input, where XLA\'s '
                             'cancels huge inputs exactly: outputs much smaller than an input '
                             'of 1e30 differ; and it gives NaN for infinite inputs where XLA '
                             'gives +-inf (no answer is right there)',
    'interpreter_uint64_start_index': 'the StableHLO reference interpreter reads a uint64 '
                                      'start index of 2**63 or more (a negative constant '
                                      'cast to uint64) as negative and clamps it to 0, where '
                                      'the spec and XLA clamp it to the last position (fuzz '
                                      'seed 272152; minijax and JAX keep the index dtype)',
    'interpreter_dot_overflow': "XLA's CPU dot fuses each multiply into the sum: a product "
                                'that overflows beside an infinite one of the other sign '
                                'gives that infinity, where the StableHLO reference '
                                'interpreter rounds the product to inf first (inf - inf = '
                                'NaN; fuzz seed 100831)',
    'xla_and_or_of_a_converted_int': "XLA's CPU compiler crashes the process (a segfault) "
                                      'compiling and/or whose operand is an integer converted '
                                      'from another integer type, and the other operand made '
                                      'from it ((c * c) | c, (c + c) & c), under jax.jit as '
                                      'under minijax.jit (fuzz seed 71161)',
    'xla_int_div_by_zero_crash': 'JAX lowers an integer division as stablehlo.divide, and '
                                  'XLA on the CPU can trap (SIGFPE) dividing by zero inside a '
                                  'loop: jax.jit crashes the process (minijax chooses the '
                                  'undefined quotients; fuzz seed 104172)',
    'xla_whole_update_beside_a_reverse': "XLA aborts (a failed check: 'Invalid binary instruction "
                                  "opcode map') compiling jax.jit of an update of the whole "
                                  'array, by any method, beside a reverse '
                                  '(jnp.flip(x.at[()].min(c), 0)), or its grad: its '
                                  'simplifier makes the whole scatter a map, then pushes the '
                                  "reverse through it. JAX's program (fuzz seeds 108925, "
                                  "163468, 189421); minijax's compiles",
    'xla_nan_sign_in_top_k': "top_k orders NaNs by their sign bit (XLA's total order: NaN "
                             'first, a negative NaN last), and the sign of a NaN an op makes '
                             '(asin out of its domain, inf - inf) is not specified: XLA\'s '
                             'fused and unfused code differ, so top_k of computed NaNs '
                             'differs between op-by-op and jit, JAX\'s too (fuzz seed '
                             '220375). Avoided: top_k\'s operand has one positive NaN',
    'xla_fft_beside_lapack': "XLA's layout assignment gives an FFT the column-major layout "
                             "of a LAPACK call's operand its result flows into (forward or "
                             "in a gradient), and the FFT thunk then fails its check "
                             "(RET_CHECK IsMonotonicWithDim0Major) at run time: JAX's "
                             "program and minijax's alike (fuzz seed 182666)",
    'xla_abs_of_complex_iota': "XLA's algebraic simplifier aborts the process (a failed "
                               'RET_CHECK: abs(iota) folded to iota, c128 for f64) compiling '
                               'abs of a complex iota, under jax.jit as under minijax.jit '
                               '(fuzz seed 41665)',
}

SIGNED = ('int8', 'int16', 'int32', 'int64')
UNSIGNED = ('uint8', 'uint16', 'uint32', 'uint64')
INTS = SIGNED + UNSIGNED
#: float32 and float64 are differentiated (finite differences in float64); the narrow floats
#: only flow through, compared with loose tolerances.
WIDE_FLOATS = ('float32', 'float64')
FLOATS = ('float16', 'bfloat16') + WIDE_FLOATS
COMPLEX = ('complex64', 'complex128')
_REAL_PART = dict(zip(COMPLEX, WIDE_FLOATS))
INEXACT = FLOATS + COMPLEX
NUMBERS = INEXACT + INTS
DTYPES = NUMBERS + ('bool',)
MAX_DEPTH = 2

#: The dtypes JAX accepts for an op the generator draws, where not every number.
ACCEPTS = {
    **dict.fromkeys(('erf', 'erfc', 'cbrt', 'atan2', 'cumlogsumexp', 'custom'), FLOATS),
    **dict.fromkeys(('sin', 'cos', 'exp', 'log', 'log1p', 'tanh', 'logistic', 'sqrt', 'rsqrt',
                     'tan', 'expm1', 'pow', 'conv', 'sinh', 'cosh', 'asin', 'acos', 'atan',
                     'asinh', 'acosh', 'atanh', 'exp2'), INEXACT),
    'abs': SIGNED + INEXACT,
    **dict.fromkeys(('gt', 'ge', 'lt', 'le', 'rem', 'argmax', 'argmin', 'eq_to', 'le_to',
                     'lt_to'), FLOATS + INTS),
    **dict.fromkeys(('bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_not'),
                    INTS + ('bool',)),
    **dict.fromkeys(('shift_left', 'shift_right_logical', 'shift_right_arithmetic',
                     'population_count', 'clz', 'reduce_and', 'reduce_or', 'reduce_xor',
                     'mulhi'), INTS),
    'linalg': WIDE_FLOATS,
    'top_k': FLOATS + INTS + ('bool',),
}


def accepts(op, aval):
    """Whether JAX's ``op`` takes a value of type ``aval``."""
    return aval.dtype in ACCEPTS.get(op, NUMBERS)


#: (op, dtypes) -> the KNOWN_BUGS class that ``op`` on those dtypes hits.
PARKED = {}

#: (op, dtypes) -> the KNOWN_BUGS class that ``op`` hits on those dtypes' infinities: an
#: op drawn there while the class is avoided gets finite operands.
TAMED = {}


class Aval(NamedTuple):
    shape: tuple
    dtype: str

    def __str__(self):
        return f'{self.dtype}[{",".join(map(str, self.shape))}]'


class Step(NamedTuple):
    op: str
    args: tuple      # indices into the values computed so far (inputs first)
    params: dict     # static parameters; sub-programs for control flow
    outs: tuple      # the avals of the values this step adds


class Program(NamedTuple):
    inputs: tuple    # Avals
    steps: tuple     # Steps
    outputs: tuple   # value indices


class Description(NamedTuple):
    """A generated program with what the checks need to know about it."""
    seed: int
    program: Program
    hazards: frozenset   # KNOWN_BUGS names it may hit, plus 'while' / 'nonsmooth'
    avoid: frozenset     # KNOWN_BUGS names to stay clear of

    def skips(self, *hazards):
        """Whether a leg exposed to ``hazards`` is skipped: the program may hit one of
        them and it is to be avoided (the generator could not steer clear of it)."""
        return bool(self.hazards & self.avoid & set(hazards))


# ----------------------------------------------------------------------------- backends

def _jax_binary(op):
    """A jax.lax binary op that broadcasts a scalar operand, as minijax's binary ops do
    (axes of size 1 are broadcast by the op itself, in both)."""
    def fn(x, y):
        shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
        return op(*(jax.lax.broadcast_in_dim(v, shape, ()) if jnp.ndim(v) == 0 else v
                    for v in (x, y)))
    return fn


#: Reductions of integers only, whose empty reductions give their identity eagerly too.
_BITWISE_REDUCTIONS = ('reduce_and', 'reduce_or', 'reduce_xor')


def _jax_reduction(fn, identity):
    """A jnp reduction over ``axes`` that keeps the dtype and has an identity for empty
    arrays, as minijax's reductions do."""
    def reduce(x, axes):
        dtype = np.dtype(x.dtype)
        if identity is None:
            return fn(x, axis=tuple(axes), dtype=dtype)
        if np.size(x):  # an initial value would take half of a tie's gradient
            return fn(x, axis=tuple(axes))
        return fn(x, axis=tuple(axes), initial=np.asarray(identity(dtype), dtype))
    return reduce


def _is_inexact(dtype):
    """Floating or complex (bfloat16 too, whose NumPy kind is 'V')."""
    return jnp.issubdtype(dtype, jnp.inexact)


def _lowest(dtype):
    return -np.inf if _is_inexact(dtype) else jnp.iinfo(dtype).min


def _highest(dtype):
    return np.inf if _is_inexact(dtype) else jnp.iinfo(dtype).max


def _window_reductions(lax_module):
    """``reduce_window`` with add, max or min from its identity, under JAX's primitive
    names (``reduce_window_sum``, ...)."""
    def reduction(op, identity):
        def reduce(x, window, strides, padding):
            init = np.asarray(identity(np.dtype(x.dtype)), x.dtype)
            return lax_module.reduce_window(x, init, op, window, strides, padding)
        return reduce
    return dict(reduce_window_sum=reduction(lax_module.add, lambda dtype: 0),
                reduce_window_max=reduction(lax_module.max, _lowest),
                reduce_window_min=reduction(lax_module.min, _highest))


_BINARY = ('add', 'sub', 'mul', 'div', 'max', 'min', 'pow', 'eq', 'ne', 'gt', 'ge', 'lt', 'le',
           'atan2', 'add_any', 'eq_to', 'le_to', 'lt_to')


def _jax_div(x, y):
    """``jax.lax.div`` with integer operands XLA cannot see through: XLA dies of SIGFPE
    folding an integer division of provable constants by zero (``(x - x) / (x - x)``) at
    compile time. (minijax's lowering picks the quotient of a zero divisor itself.)"""
    if jnp.issubdtype(jnp.result_type(x), jnp.integer):
        x, y = jax.lax.optimization_barrier((x, y))
    return jax.lax.div(x, y)


def _jax_mulhi(x, y):
    """``jax.lax.mulhi`` run alone, from a host callback: XLA (jaxlib 0.10.2) fails to
    compile ``chlo.mulhi`` inside most fusions ("Unsupported elementwise operation"), so
    JAX's jit of a program around it fails. (minijax lowers mulhi to ops XLA compiles.)"""
    out = jax.ShapeDtypeStruct(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y)),
                               jnp.result_type(x))
    return jax.pure_callback(lambda a, b: np.asarray(jax.lax.mulhi(a, b)), out, x, y,
                             vmap_method='broadcast_all')


#: JAX's ops not taken from jax.lax as they are (add_any is autodiff's sum of two
#: derivatives, which jax.lax does not export).
_JAX_ELSEWHERE = {'add_any': jax.interpreters.ad.add_jaxvals, 'div': _jax_div,
                  'mulhi': _jax_mulhi, 'eq_to': jax.lax.eq_to_p.bind,
                  'le_to': jax.lax.le_to_p.bind, 'lt_to': jax.lax.lt_to_p.bind}
_TRANSCENDENTAL = ('sin', 'cos', 'exp', 'log', 'log1p', 'tanh', 'logistic', 'sqrt', 'rsqrt',
                   'erf', 'erfc', 'tan', 'expm1', 'cbrt', 'sinh', 'cosh', 'asin', 'acos',
                   'atan', 'asinh', 'acosh', 'atanh', 'exp2', 'square')
_UNARY = _TRANSCENDENTAL + ('neg', 'abs', 'sign')
_SHARED = _UNARY + ('select_n', 'convert_element_type', 'integer_pow', 'broadcast_in_dim',
                    'transpose', 'reshape', 'concatenate', 'pad', 'slice', 'dynamic_slice',
                    'dynamic_update_slice', 'argmax', 'argmin', 'dot_general', 'rev',
                    'bitcast_convert_type', 'conv_general_dilated', 'sort', 'cumsum',
                    'cumprod', 'cummax', 'cummin', 'cumlogsumexp', 'cond', 'switch',
                    'while_loop', 'fori_loop', 'scan', 'gather', 'scatter', 'scatter_add',
                    'scatter_mul', 'scatter_min', 'scatter_max', 'GatherDimensionNumbers',
                    'ScatterDimensionNumbers', 'clamp', 'real', 'imag', 'conj', 'complex',
                    'fft', 'floor', 'ceil', 'round', 'is_finite', 'lgamma', 'digamma',
                    'erf_inv', 'polygamma', 'zeta', 'nextafter', 'stop_gradient', 'full_like',
                    'split', 'unstack', 'stack', 'tile', 'top_k', 'optimization_barrier',
                    'empty', 'reduce_precision', 'scatter_sub', 'dce_sink', 'stage',
                    'approx_max_k', 'approx_min_k', 'ragged_dot', 'bessel_i0e', 'bessel_i1e',
                    'igamma', 'igammac', 'igamma_grad_a', 'random_gamma_grad', 'betainc')
_COMPARISONS = ('eq', 'ne', 'gt', 'ge', 'lt', 'le', 'eq_to', 'le_to', 'lt_to')
_BITWISE_BINARY = ('bitwise_and', 'bitwise_or', 'bitwise_xor', 'shift_left',
                   'shift_right_logical', 'shift_right_arithmetic', 'rem', 'mulhi')
_BITWISE_UNARY = ('bitwise_not', 'population_count', 'clz')


class Backend(dict):
    """One library's ops under one set of names (JAX's), so a program is written once."""
    __getattr__ = dict.__getitem__


MINIJAX = Backend(
    {name: getattr(mlax, name)
     for name in _BINARY + _SHARED + _BITWISE_BINARY + _BITWISE_UNARY
     if hasattr(mlax, name)},
    eq_to=mlax.eq_to_p.bind, le_to=mlax.le_to_p.bind, lt_to=mlax.lt_to_p.bind,
    cond=mj.cond, switch=mj.switch, while_loop=mj.while_loop, fori_loop=mj.fori_loop,
    scan=mj.scan, jit=mj.jit, iota=mlax.broadcasted_iota, reduce_sum=mlax.reduce_sum,
    reduce_prod=mlax.reduce_prod,
    reduce_max=mlax.reduce_max, reduce_min=mlax.reduce_min, **_window_reductions(mlax),
    **{name: getattr(mlax, name) for name in _BITWISE_REDUCTIONS}, numpy=mnp, random=mj.random,
    linalg=mlax.linalg, custom_jvp=mj.custom_jvp, custom_vjp=mj.custom_vjp, name='minijax')


def _jax_scan(f, init, xs, length, reverse):
    """``jax.lax.scan``, which op by op (under ``disable_jit``) refuses zero steps; zero steps
    give the initial carry and empty ys of the body's type."""
    if length:
        return jax.lax.scan(f, init, xs, length=length, reverse=reverse)
    x = None if xs is None else tuple(jax.ShapeDtypeStruct(v.shape[1:], v.dtype) for v in xs)
    _, y = jax.eval_shape(f, init, x)
    return init, jnp.zeros((0, *y.shape), y.dtype)


JAX = Backend(
    {name: getattr(jax.lax, name) for name in _SHARED}, scan=_jax_scan,
    **{name: _jax_binary(_JAX_ELSEWHERE.get(name) or getattr(jax.lax, name))
       for name in _BINARY + _BITWISE_BINARY},
    **{name: getattr(jax.lax, name) for name in _BITWISE_UNARY},
    jit=jax.jit, iota=jax.lax.broadcasted_iota,
    reduce_sum=_jax_reduction(jnp.sum, None), reduce_prod=jax.lax.reduce_prod,
    reduce_max=_jax_reduction(jnp.max, _lowest),
    reduce_min=_jax_reduction(jnp.min, _highest), **_window_reductions(jax.lax),
    **{name: getattr(jax.lax, name) for name in _BITWISE_REDUCTIONS}, numpy=jnp,
    random=jax.random, linalg=jax.lax.linalg, custom_jvp=jax.custom_jvp,
    custom_vjp=jax.custom_vjp, name='jax')


def _like(x, value):
    return np.asarray(value, x.dtype)


def _custom_rules(B):
    """A fixed family of functions with custom derivative rules, built alike with each
    backend. Each rule but the cube's differs from the true derivative, so a rule ignored
    (or applied twice) shows in the gradients."""
    sin = B.custom_jvp(B.sin)
    sin.defjvp(lambda xs, ts: (B.sin(xs[0]), B.mul(B.mul(B.cos(xs[0]), ts[0]), _like(xs[0], 2))))
    cube = B.custom_jvp(lambda x: B.mul(B.mul(x, x), x))
    cube.defjvp(lambda xs, ts: (cube(xs[0]), B.mul(B.mul(B.mul(xs[0], xs[0]), ts[0]),
                                                    _like(xs[0], 3))))
    product = B.custom_vjp(B.mul)
    product.defvjp(lambda x, y: (B.mul(x, y), (x, y)),
                   lambda res, ct: (B.mul(ct, res[1]), B.mul(B.mul(ct, res[0]), _like(ct, 3))))
    exp = B.custom_vjp(B.exp)
    exp.defvjp(lambda x: (B.exp(x), B.exp(x)),
               lambda res, ct: (B.mul(B.mul(ct, res), _like(ct, 0.5)),))
    return dict(sin_jvp=sin, cube_jvp=cube, product_vjp=product, exp_vjp=exp)


for _backend in (MINIJAX, JAX):
    _backend['custom'] = _custom_rules(_backend)


# ----------------------------------------------------------------------------- evaluation

def run(program: Program, B: Backend, args) -> list:
    """The values of ``program``'s outputs on ``args``, computed with backend ``B``."""
    env = list(args)
    for step in program.steps:
        outs = BUILDERS[step.op](B, [env[i] for i in step.args], **step.params)
        env.extend(outs)
    return [env[i] for i in program.outputs]


def as_function(program, B):
    def program_fn(*args):
        return tuple(run(program, B, args))
    return program_fn


def _int32(B, x):
    return B.convert_element_type(x, np.int32)


def _clamp(B, x, lo, hi):
    dtype = np.dtype(x.dtype)
    return B.clamp(np.asarray(lo, dtype), x, np.asarray(hi, dtype))


def _without_nans(B, x):
    """NaNs replaced by 0, for a program kept clear of NaN-sensitive classes (KNOWN_BUGS)."""
    if not _is_inexact(x.dtype):
        return x
    return B.select_n(B.ne(x, x), x, B.broadcast_in_dim(np.zeros((), x.dtype), jnp.shape(x), ()))


def _scalar_from(B, v, kind):
    """A scalar derived from ``v``: a bool predicate, or an int32 branch index."""
    if kind in ('bool', 'int32'):
        return v
    total = B.reduce_sum(v, tuple(range(len(jnp.shape(v)))))
    if kind == 'positive':
        return B.gt(total, np.zeros((), total.dtype))
    return _int32(B, total)  # 'index': a sum of ints, wrapped to int32


def _b_unary(B, args, *, name, tame=False):
    """``name`` of ``x``; with ``tame``, of ``x`` with its infinities and NaNs as 0."""
    return [B[name](_finite(B, args[0]) if tame else args[0])]


def _b_rounding(B, args, *, name, method=None, format=None):  # noqa: A002 (a float format)
    if name == 'reduce_precision':
        return [B.reduce_precision(args[0], *format)]
    return [B.round(args[0], method) if name == 'round' else B[name](args[0])]


#: The special functions that loop until they converge, drawn on operands squashed into
#: (0, 10) (betainc's x into (0, 1)), where they converge in a few dozen steps (igamma's
#: series of a = x = 1e30 would take ~1/eps of them, in JAX too).
_CONVERGING = ('igamma', 'igammac', 'igamma_grad_a', 'random_gamma_grad', 'betainc')


def _b_special(B, args, *, name, m=None):
    """``name`` of a float: ``polygamma`` of the whole number ``m``; ``zeta`` and
    ``nextafter``, which neither library differentiates, of operands held constant, as are
    those of ``igamma_grad_a``, of ``random_gamma_grad`` (a while_loop: no reverse mode) and
    betainc's a and b."""
    if name == 'polygamma':
        return [B.polygamma(B.full_like(args[0], m), args[0])]
    if name in ('zeta', 'nextafter'):
        return [B[name](*map(B.stop_gradient, args))]
    if name in _CONVERGING:
        squashed = [B.logistic(v) for v in args]
        scaled = [B.mul(v, B.full_like(v, 10)) for v in squashed]
        if name == 'betainc':
            return [B.betainc(*map(B.stop_gradient, scaled[:2]), squashed[2])]
        if name in ('igamma_grad_a', 'random_gamma_grad'):
            scaled = map(B.stop_gradient, scaled)
        return [B[name](*scaled)]
    return [B[name](args[0])]


def _b_binary(B, args, *, name, safe_divisor=False, narrow=((), ())):
    """``name`` of ``x`` and ``y``; ``narrow`` gives, per operand, axes cut to their first
    element, so that lax broadcasts them back (size 1 against the other's size)."""
    x, y = (_first_along(B, v, axes) for v, axes in zip(args, narrow))
    if safe_divisor:  # y == 0 -> 1
        y = B.select_n(B.eq(y, np.zeros((), y.dtype)), y, B.broadcast_in_dim(
            np.ones((), y.dtype), jnp.shape(y), ()))
    return [B[name](x, y)]


def _first_along(B, x, axes):
    if not axes:
        return x
    shape = jnp.shape(x)
    return B.slice(x, (0,) * len(shape), tuple(1 if i in axes else n for i, n in enumerate(shape)))


def _b_complex_parts(B, args, *, part):
    """A float result through complex values: a part of ``conj(x + iy) + (y + ix)``
    (exact: no rounding for the executors to disagree on)."""
    x, y = args
    w = B.add(B.conj(B.complex(x, y)), B.complex(y, x))
    return [B[part](w)]


def _b_fourier(B, args, *, kind, lengths, tame):
    """A float result through a Fourier transform: ``x - ix`` into the complex kinds, the
    real part out of those with a complex result; with ``tame``, the elements of magnitude
    1e3 or more (infinities, NaN) as 0 first."""
    x = _finite(B, args[0], 1e3) if tame else args[0]
    if kind != 'rfft':
        x = B.complex(x, B.neg(x))
    y = B.fft(x, kind, lengths)
    return [y if kind == 'irfft' else B.real(y)]


def _b_select_n(B, args, *, which_kind, n_cases):
    which, *cases = args
    if which_kind == 'int':
        which = _clamp(B, _int32(B, which), 0, n_cases - 1)
    return [B.select_n(which, *cases)]


def _b_convert(B, args, *, dtype, sanitize):
    """``x`` converted to ``dtype``; with ``sanitize``, a float first brought into the range
    of the integer ``dtype`` (out of it, the conversion is undefined)."""
    x = args[0]
    if sanitize:
        bounds = jnp.iinfo(dtype)
        x = _clamp(B, _without_nans(B, x), max(-1e3, bounds.min), min(1e3, bounds.max))
    return [B.convert_element_type(x, np.dtype(dtype))]


def _b_static(B, args, *, name, **params):
    # positionally: the two libraries name some parameters differently (perm/permutation)
    return [B[name](*args, *params.values())]


def _b_concatenate(B, args, *, dimension):
    return [B.concatenate(args, dimension)]


def _b_pieces(B, args, *, name, axis=None, sizes=None, reps=None):
    """``split``, ``unstack`` (all their pieces), ``stack`` or ``tile``."""
    if name == 'split':
        return list(B.split(args[0], sizes, axis))
    if name == 'unstack':
        return list(B.unstack(args[0], axis))
    if name == 'stack':
        return [B.stack(args, axis)]
    return [B.tile(args[0], reps)]


def _b_barrier(B, args):
    return list(B.optimization_barrier(tuple(args)))


def _b_identity(B, args, *, name):
    """A value copied (jnp.copy), lifted into the trace (stage), or sunk and passed on."""
    if name == 'dce_sink':
        B.dce_sink(args[0])
        return [args[0]]
    return [B.numpy.copy(args[0]) if name == 'copy' else B.stage(args[0])]


def _b_iota(B, args, *, dtype, shape, dimension):
    return [B.iota(np.dtype(dtype), shape, dimension)]


def _b_empty(B, args, *, dtype, shape):
    return [B.empty(shape, np.dtype(dtype))]


def _b_const(B, args, *, value):
    return [value]


def _start_indices(B, indices, nonneg):
    return [B.max(i, np.zeros((), i.dtype)) if nonneg else i for i in indices]


def _b_dynamic_slice(B, args, *, slice_sizes, nonneg):
    x, *indices = args
    return [B.dynamic_slice(x, _start_indices(B, indices, nonneg), slice_sizes)]


def _b_dynamic_update_slice(B, args, *, nonneg):
    x, update, *indices = args
    return [B.dynamic_update_slice(x, update, _start_indices(B, indices, nonneg))]


def _b_reduce(B, args, *, name, axes):
    return [B[name](args[0], axes)]


def _b_arg_chooser(B, args, *, name, axis, index_dtype, sanitize):
    x = _without_nans(B, args[0]) if sanitize else args[0]
    return [B[name](x, axis, np.dtype(index_dtype))]


def _b_dot_general(B, args, *, dimension_numbers, tame=False):
    """``dot_general``; with ``tame``, of operands whose finite elements are small enough
    that no product overflows (infinities stay)."""
    if tame:
        args = [_below_overflow(B, x) for x in args]
    return [B.dot_general(*args, dimension_numbers)]


def _b_bitcast(B, args, *, new_dtype):
    """Integers (exact everywhere) reinterpreted as floats, a subnormal result flushed to
    zero as XLA's CPU flushes it (eager NumPy keeps it: a documented departure)."""
    y = B.bitcast_convert_type(args[0], jnp.dtype(new_dtype))
    tiny = np.asarray(jnp.finfo(new_dtype).tiny, new_dtype)
    return [B.select_n(B.lt(B.abs(y), tiny), y, B.mul(y, np.zeros((), new_dtype)))]


def _finite(B, x, bound=np.inf):
    """``x`` with its elements of magnitude ``bound`` or more (infinities) and NaNs
    replaced by 0."""
    zero = B.broadcast_in_dim(np.zeros((), x.dtype), jnp.shape(x), ())
    size = B.abs(x)  # real for a complex x
    return B.select_n(B.lt(size, np.asarray(bound, size.dtype)), zero, x)


def _below_overflow(B, x):
    """``x`` with its finite elements of magnitude sqrt(max) or more replaced by 0."""
    size = B.abs(x)
    bound = np.sqrt(np.asarray(jnp.finfo(size.dtype).max, np.float64))
    small = _finite(B, x, bound)
    return B.select_n(B.numpy.isfinite(size), x, small)


def _b_conv(B, args, *, stride, padding):
    """A 1-D convolution of two values flattened to (batch 1, feature 1, width), their
    infinities replaced first: whether XLA multiplies padding zeros by them (inf * 0 = NaN)
    depends on the algorithm it picks."""
    x, w = (B.reshape(_finite(B, v), (1, 1, _size(jnp.shape(v)))) for v in args)
    out = B.conv_general_dilated(x, w, (stride,), padding)
    return [B.reshape(out, (_size(jnp.shape(out)),))]


def _b_sort(B, args, *, dimension, num_keys):
    return list(B.sort(tuple(args), dimension=dimension, is_stable=True, num_keys=num_keys))


def _b_top_k(B, args, *, k, axis, tame=False):
    """``top_k``; with ``tame``, of its operand with every NaN one positive NaN."""
    x = args[0]
    if tame:
        nan = B.broadcast_in_dim(np.full((), np.nan, x.dtype), jnp.shape(x), ())
        x = B.select_n(B.ne(x, x), x, nan)
    return list(B.top_k(x, k, axis=axis))


def _b_approx_top_k(B, args, *, name, k, axis):
    """``approx_max_k`` or ``approx_min_k`` of the operand with its NaNs zeroed: XLA's
    comparator (GT, LT) leaves a NaN's place to the sort, which may differ between fused and
    unfused code."""
    x = args[0]
    x = B.select_n(B.ne(x, x), x, B.broadcast_in_dim(np.zeros((), x.dtype), jnp.shape(x), ()))
    return list(B[name](x, k, axis))


def _b_ragged_dot(B, args, *, group_sizes, tame=False):
    """``ragged_dot`` of ``x`` (m, k) by two groups of weights, ``y`` and ``-y``, the rows
    split by the constant ``group_sizes`` (rows past their sum are zero)."""
    x, y = [_below_overflow(B, v) for v in args] if tame else args
    weights = B.concatenate([B.broadcast_in_dim(w, (1, *jnp.shape(y)), (1, 2))
                             for w in (y, B.neg(y))], 0)
    return [B.ragged_dot(x, weights, np.asarray(group_sizes, np.int32))]


def _b_reduce_window(B, args, *, name, window, strides, padding):
    return [B[name](args[0], window, strides, padding)]


def _b_gather(B, args, *, mode):
    """Rows of ``x`` (axis 0) at ``indices`` of shape (m, 1)."""
    x, indices = args
    rest = jnp.shape(x)[1:]
    dnums = B.GatherDimensionNumbers(tuple(range(1, len(rest) + 1)), (0,), (0,))
    return [B.gather(x, indices, dnums, (1, *rest), mode=mode)]


def _b_scatter(B, args, *, name, mode):
    """Rows of ``updates`` written into ``x`` (axis 0) at ``indices`` of shape (m, 1)."""
    x, indices, updates = args
    dnums = B.ScatterDimensionNumbers(tuple(range(1, len(jnp.shape(x)))), (0,), (0,))
    return [B[name](x, indices, updates, dnums, mode=mode)]


def _closure(B, body, closed):
    return lambda *operands: tuple(run(body, B, (*operands, *closed)))


def _b_cond(B, args, *, branches, n_operands, pred_kind):
    pred, operands, closed = args[0], args[1:1 + n_operands], args[1 + n_operands:]
    funs = [_closure(B, b, closed) for b in branches]
    if pred_kind in ('bool', 'positive'):
        return list(B.cond(_scalar_from(B, pred, pred_kind), funs[1], funs[0], *operands))
    return list(B.switch(_scalar_from(B, pred, pred_kind), funs, *operands))


def _b_while(B, args, *, body, n_carry, trips):
    carry, closed = args[:n_carry], args[n_carry:]
    if isinstance(trips, int):
        bound = np.int32(trips)
    else:  # trips from an int value: its sum, clamped to [0, 3]
        bound, closed = _clamp(B, _scalar_from(B, closed[0], 'index'), 0, 3), closed[1:]
    step = _closure(B, body, closed)

    def body_fun(c):
        return (B.add(c[0], np.int32(1)), *step(*c[1:], c[0]))

    return list(B.while_loop(lambda c: B.lt(c[0], bound), body_fun, (np.int32(0), *carry))[1:])


def _b_fori(B, args, *, body, n_carry, lower, upper):
    carry, closed = args[:n_carry], args[n_carry:]
    step = _closure(B, body, closed)
    return list(B.fori_loop(lower, upper, lambda i, c: step(*c, _int32(B, i)), tuple(carry)))


def _b_scan(B, args, *, body, n_carry, n_xs, length, reverse):
    carry, xs, closed = args[:n_carry], args[n_carry:n_carry + n_xs], args[n_carry + n_xs:]
    step = _closure(B, body, closed)

    def f(c, x):
        outs = step(*c, *(x or ()))
        return outs[:n_carry], outs[n_carry]

    final, ys = B.scan(f, tuple(carry), tuple(xs) if xs else None, length=length,
                       reverse=reverse)
    return [*final, ys]


def _b_jit(B, args, *, body):
    return list(B.jit(as_function(body, B))(*args))


#: Marks an entry of an index spec taken from a traced int scalar argument.
TRACED = 'traced'


def _index(spec, traced):
    """The index ``spec`` describes, its TRACED entries taken from ``traced`` in turn."""
    traced = iter(traced)
    return tuple(next(traced) if isinstance(e, str) else e for e in spec)


def _b_index(B, args, *, spec):
    x, *traced = args
    return [B.numpy.asarray(x)[_index(spec, traced)]]


def _b_at(B, args, *, spec, method, mode):
    """``x.at[index].method(update, mode=mode)``; ``get`` takes no update."""
    x, *rest = args
    if method == 'get':
        return [B.numpy.asarray(x).at[_index(spec, rest)].get(mode=mode)]
    update, *traced = rest
    return [getattr(B.numpy.asarray(x).at[_index(spec, traced)], method)(update, mode=mode)]


#: jax.random's samplers as the generator calls them: (key, shape, dtype) -> values.
_RANDOM = dict(
    uniform=lambda r, key, shape, dtype: r.uniform(key, shape, dtype, -2., 3.),
    normal=lambda r, key, shape, dtype: r.normal(key, shape, dtype),
    exponential=lambda r, key, shape, dtype: r.exponential(key, shape, dtype),
    gumbel=lambda r, key, shape, dtype: r.gumbel(key, shape, dtype),
    laplace=lambda r, key, shape, dtype: r.laplace(key, shape, dtype),
    logistic=lambda r, key, shape, dtype: r.logistic(key, shape, dtype),
    truncated_normal=lambda r, key, shape, dtype: r.truncated_normal(key, -1., 2., shape, dtype),
    bits=lambda r, key, shape, dtype: r.bits(key, shape, dtype),
    randint=lambda r, key, shape, dtype: r.randint(key, shape, 1, 100, dtype),
    bernoulli=lambda r, key, shape, dtype: r.bernoulli(key, 0.3, shape),
)
_RANDOM_DTYPES = dict(dict.fromkeys(_RANDOM, FLOATS), bits=UNSIGNED, randint=INTS,
                      bernoulli=('bool',))


def _b_random(B, args, *, typed, path, sampler, shape, dtype):
    """Random values from the key of an int scalar seed (typed, or raw uint32[2]), moved
    along ``path`` (folds in and splits), drawn by ``sampler``."""
    key = (B.random.key if typed else B.random.PRNGKey)(args[0])
    for how, n in path:
        key = B.random.fold_in(key, n) if how == 'fold_in' else B.random.split(key, n)[n - 1]
    return [_RANDOM[sampler](B.random, key, shape, np.dtype(dtype))]


def _last_two_swapped(x):
    rank = len(jnp.shape(x))
    return (*range(rank - 2), rank - 1, rank - 2)


def _b_linalg(B, args, *, name, mix, options):
    """A decomposition of a well-conditioned matrix made from ``x``: its entries bounded
    (tanh, NaN as 0), mixed by the constant ``mix`` into the shape wanted, scaled down and
    added to a dominant diagonal (3, 6, 9, ...: distinct eigenvalues and singular values,
    unambiguous pivots). Factors fixed only up to signs (eigenvectors, singular vectors, Q
    and R) are squared elementwise: the signs LAPACK picks do not show."""
    y = B.tanh(_without_nans(B, args[0]))
    rank = len(jnp.shape(y))
    a = B.dot_general(y, mix.astype(y.dtype), (((rank - 1,), (0,)), ((), ())))
    if name in ('cholesky', 'eigh'):
        a = B.add(a, B.transpose(a, _last_two_swapped(a)))
    m, k = jnp.shape(a)[-2:]
    diagonal = np.eye(m, k) * np.arange(3, 3 * k + 1, 3)
    a = B.add(B.mul(a, _like(a, 0.02)),
              B.broadcast_in_dim(_like(a, diagonal), jnp.shape(a), (rank - 2, rank - 1)))
    if name == 'triangular_solve':
        b = y if options['left_side'] else B.transpose(y, _last_two_swapped(y))
        return [B.linalg.triangular_solve(a, b, **options)]
    outs = getattr(B.linalg, name)(a, **options)
    if name == 'cholesky':
        return [outs]
    if name == 'lu':
        return list(outs)
    squared = {'eigh': (0,), 'qr': (0, 1), 'svd': (0, 2)}[name]
    if name == 'svd' and not options['compute_uv']:
        return [outs]
    return [B.mul(v, v) if k in squared else v for k, v in enumerate(outs)]


def _b_custom(B, args, *, name):
    return [B.custom[name](*args)]


BUILDERS = dict(
    unary=_b_unary, rounding=_b_rounding, special=_b_special, binary=_b_binary,
    select_n=_b_select_n, convert=_b_convert,
    static=_b_static, concatenate=_b_concatenate, pieces=_b_pieces, iota=_b_iota, const=_b_const,
    dynamic_slice=_b_dynamic_slice, dynamic_update_slice=_b_dynamic_update_slice,
    reduce=_b_reduce, arg_chooser=_b_arg_chooser, dot_general=_b_dot_general,
    bitcast=_b_bitcast, conv=_b_conv, reduce_window=_b_reduce_window, sort=_b_sort,
    top_k=_b_top_k, approx_top_k=_b_approx_top_k, ragged_dot=_b_ragged_dot,
    barrier=_b_barrier, identity=_b_identity, empty=_b_empty,
    gather=_b_gather, scatter=_b_scatter, complex_parts=_b_complex_parts, fourier=_b_fourier,
    index=_b_index, at=_b_at, random=_b_random, linalg=_b_linalg, custom=_b_custom,
    cond=_b_cond, while_loop=_b_while, fori_loop=_b_fori, scan=_b_scan, jit=_b_jit)


# ----------------------------------------------------------------------------- generation

class Gen:
    """The state of one program's generation: the RNG, what to avoid, what was hit."""

    def __init__(self, rng, avoid):
        self.rng, self.avoid, self.hazards = rng, avoid, set()
        self.converted_ints = set()  # (id(pool), index): integers converted from integers

    def choice(self, seq):
        return seq[self.rng.integers(len(seq))]

    def coin(self, p):
        return self.rng.random() < p

    def hit(self, *hazards):
        """Record ``hazards``; True if the program may hit them (none is avoided)."""
        if self.avoid.intersection(hazards):
            return False
        self.hazards.update(hazards)
        return True

    def drawable(self, op, aval, parked=PARKED):
        """Whether JAX takes ``op`` on ``aval`` and no bug class avoided is ``parked`` there."""
        return accepts(op, aval) and all(self.hit(bug) for (name, dtypes), bug in parked.items()
                                          if name == op and aval.dtype in dtypes)

    def pick(self, pool, ok=lambda a: True):
        """The index of a value in ``pool`` satisfying ``ok``; recent values are likelier."""
        found = [i for i, a in enumerate(pool) if ok(a)]
        if not found:
            return None
        return found[-1] if self.coin(0.4) else self.choice(found)

    def shape(self, max_rank=3):
        rank = int(self.rng.integers(0, max_rank + 1))
        return tuple(0 if self.coin(0.04) else int(self.rng.integers(1, 5)) for _ in range(rank))


def _is_float(a):
    return a.dtype in FLOATS


def _is_ordered(a):
    """A real number (not complex, not bool): what a comparison or a max orders."""
    return a.dtype in FLOATS + INTS


def _is_number(a):
    return a.dtype in NUMBERS


def _size(shape):
    return math.prod(shape)


def _step(op, args, outs, **params):
    return Step(op, tuple(args), params, tuple(outs))


# Each sampler returns a Step built from values of ``pool`` (indices), or None if the pool
# has nothing it can use.

def s_unary(g, pool, depth):
    name = g.choice(_UNARY)
    x = g.pick(pool, lambda a: g.drawable(name, a))
    if x is None:
        return None
    if name == 'abs' and pool[x].dtype in INEXACT:
        g.hazards.add('grad_abs_zero')
    if name in ('abs', 'sign'):
        g.hazards.add('nonsmooth')
    a = pool[x]
    if name == 'abs':  # of a complex number: real
        a = Aval(a.shape, _REAL_PART.get(a.dtype, a.dtype))
    return _step('unary', [x], [a], name=name, tame=not g.drawable(name, pool[x], TAMED))


def _partner(g, pool, x):
    """A value to combine with ``x``: its type, or a scalar of its dtype."""
    a = pool[x]
    y = g.pick(pool, lambda b: b.dtype == a.dtype and b.shape in (a.shape, ()))
    return x if y is None else y


def s_binary(g, pool, depth):
    name = g.choice(_BINARY)
    x = g.pick(pool, lambda a: g.drawable(name, a))
    if x is None:
        return None
    y = _partner(g, pool, x)
    if name == 'add_any' and pool[y] != pool[x]:  # it adds two values of one type
        y = x
    if g.coin(0.5):
        x, y = y, x
    a = Aval(max(pool[x].shape, pool[y].shape, key=len), pool[x].dtype)
    out = Aval(a.shape, 'bool') if name in _COMPARISONS else a
    narrow = ((), ())
    if (name != 'add_any' and pool[x].shape == pool[y].shape and pool[x].shape
            and 0 not in a.shape and g.coin(0.25)):
        # axes of size 1 against full ones (add_any adds values of one type): each axis
        # cut in x, in y or in neither
        owners = g.rng.integers(0, 3, len(a.shape))
        narrow = tuple(tuple(int(i) for i in np.flatnonzero(owners == k)) for k in (1, 2))
    if name not in ('add', 'add_any', 'sub', 'mul', 'div', 'pow', 'atan2'):
        g.hazards.add('nonsmooth')
    if name == 'atan2':
        g.hazards.add('interpreter_atan2_subnormals')
    if name in ('eq_to', 'le_to', 'lt_to') and a.dtype in FLOATS:
        g.hazards.add('interpreter_totalorder_nan')
    safe = name == 'div' and a.dtype in INTS and not g.hit('int_div_by_zero',
                                                             'xla_int_div_by_zero_crash')
    if name == 'div' and a.dtype in INTS and not safe:
        g.hazards.add('interpreter_crash')
    return _step('binary', [x, y], [out], name=name, safe_divisor=safe, narrow=narrow)


def complex_parts_step(seed, pool):
    """A last step through complex values (None for a third of the seeds, or without a
    float32/float64 value), drawn from its own generator so that adding it left the programs
    the CI seeds had drawn before unchanged."""
    rng = np.random.default_rng([seed, 2])
    floats = [i for i, a in enumerate(pool) if a.dtype in ('float32', 'float64')]
    if not floats or rng.random() < 1 / 3:
        return None
    x = floats[rng.integers(len(floats))]
    y = next((i for i in floats if pool[i] == pool[x] and i != x), x)
    part = ('real', 'imag')[rng.integers(2)]
    return _step('complex_parts', [x, y], [pool[x]], part=part)


def fourier_step(seed, pool, avoid, beside_lapack=False):
    """A last step through one of the four Fourier transforms over 1 to 3 trailing axes of a
    float array (None for half of the seeds, or without one), drawn from its own generator
    as ``complex_parts_step`` is; None in a program with a LAPACK call (``beside_lapack``)
    while xla_fft_beside_lapack is avoided."""
    rng = np.random.default_rng([seed, 3])
    arrays = [i for i, a in enumerate(pool)
              if a.dtype in ('float32', 'float64') and a.shape and 0 not in a.shape]
    if not arrays or rng.random() < 1 / 2:
        return None
    x = arrays[rng.integers(len(arrays))]
    a = pool[x]
    kind = ('fft', 'ifft', 'rfft', 'irfft')[rng.integers(4)]
    lengths = a.shape[len(a.shape) - int(rng.integers(1, min(len(a.shape), 3) + 1)):]
    shape = a.shape
    if kind == 'rfft':
        shape = shape[:-1] + (lengths[-1] // 2 + 1,)
    elif kind == 'irfft':  # the m frequencies are those of n = 2m - 1 or 2m - 2 points
        m = lengths[-1]
        n = 2 * m - 1 if m == 1 or rng.random() < 1 / 2 else 2 * m - 2
        lengths, shape = lengths[:-1] + (n,), shape[:-1] + (n,)
    if beside_lapack and 'xla_fft_beside_lapack' in avoid:
        return None
    return _step('fourier', [x], [Aval(shape, a.dtype)], kind=kind, lengths=lengths,
                 tame='interpreter_fft_large' in avoid)


def s_select_n(g, pool, depth):
    x = g.pick(pool, lambda a: a.shape != () or a.dtype != 'bool')
    if x is None:
        return None
    a = pool[x]
    same = [i for i, b in enumerate(pool) if b == a]
    which = g.pick(pool, lambda b: b.dtype == 'bool' and b.shape in ((), a.shape))
    if which is None or g.coin(0.3):
        which = g.pick(pool, lambda b: b.dtype in INTS and b.shape in ((), a.shape))
    if which is None:
        return None
    n = 2 if pool[which].dtype == 'bool' else int(g.rng.integers(1, 4))
    g.hazards.add('nonsmooth')
    return _step('select_n', [which] + [g.choice(same) for _ in range(n)], [a],
                 which_kind='bool' if pool[which].dtype == 'bool' else 'int', n_cases=n)


def s_convert(g, pool, depth):
    x = g.pick(pool)
    a, dtype = pool[x], g.choice(DTYPES)
    if a.dtype in COMPLEX and dtype not in INEXACT:  # JAX warns, and drops the imaginary part
        dtype = g.choice(INEXACT)
    to_int = _is_float(a) and dtype in INTS
    sanitize = to_int and not g.hit('float_to_int')
    if dtype not in FLOATS or not _is_float(a):
        g.hazards.add('nonsmooth')
    if a.dtype in INTS and dtype in INTS:
        g.converted_ints.add((id(pool), len(pool)))  # the index the output will have
    return _step('convert', [x], [Aval(a.shape, dtype)], dtype=dtype, sanitize=sanitize)


#: (exponent bits, mantissa bits) of reduce_precision: float16's, bfloat16's, float8's, tiny.
_FORMATS = ((5, 10), (8, 7), (4, 3), (5, 2), (2, 1), (3, 0), (11, 52))


def s_rounding(g, pool, depth):
    """floor, ceil, round (either way of breaking ties), is_finite or reduce_precision of a
    float."""
    x = g.pick(pool, _is_float)
    if x is None:
        return None
    name = g.choice(('floor', 'ceil', 'round', 'is_finite', 'reduce_precision'))
    g.hazards.add('nonsmooth')
    a = pool[x]
    out = Aval(a.shape, 'bool') if name == 'is_finite' else a
    if name == 'reduce_precision':
        return _step('rounding', [x], [out], name=name, format=g.choice(_FORMATS))
    return _step('rounding', [x], [out], name=name,
                 method=int(g.rng.integers(2)) if name == 'round' else None)


def s_special(g, pool, depth):
    """lgamma, digamma, erf_inv, polygamma (of order 0 to 3), zeta, nextafter, the Bessel
    functions i0e and i1e, the incomplete gamma functions or betainc of floats (their poles
    and edges make them nonsmooth for finite differences)."""
    x = g.pick(pool, _is_float)
    if x is None:
        return None
    name = g.choice(('lgamma', 'digamma', 'erf_inv', 'polygamma', 'zeta', 'nextafter',
                     'bessel_i0e', 'bessel_i1e', *_CONVERGING))
    g.hazards.add('nonsmooth')
    if name in ('zeta', 'polygamma'):
        g.hazards.add('interpreter_zeta_overflow')
    operands = 3 if name == 'betainc' else 2 if name in ('zeta', 'nextafter', *_CONVERGING) else 1
    args = [x, *(_partner(g, pool, x) for _ in range(operands - 1))]
    out = Aval(max((pool[i].shape for i in args), key=len), pool[x].dtype)
    return _step('special', args, [out], name=name,
                 m=int(g.rng.integers(4)) if name == 'polygamma' else None)


def s_integer_pow(g, pool, depth):
    x = g.pick(pool, _is_number)
    if x is None:
        return None
    a = pool[x]
    y = int(g.rng.integers(-3 if a.dtype in INEXACT else 0, 5))
    if y == 0 and a.dtype in INEXACT and not g.hit('nan_zero_cotangent'):
        y = 2
    return _step('static', [x], [a], name='integer_pow', y=y)


def s_broadcast_in_dim(g, pool, depth):
    x = g.pick(pool)
    a = pool[x]
    rank = len(a.shape) + int(g.rng.integers(0, 4 - len(a.shape))) if len(a.shape) < 4 \
        else len(a.shape)
    dims = sorted(g.rng.choice(rank, len(a.shape), replace=False).tolist())
    shape = [int(g.rng.integers(0 if g.coin(0.05) else 1, 4)) for _ in range(rank)]
    for d, n in zip(dims, a.shape):
        shape[d] = n if n != 1 or g.coin(0.5) else shape[d]
    return _step('static', [x], [Aval(tuple(shape), a.dtype)], name='broadcast_in_dim',
                 shape=tuple(shape), broadcast_dimensions=tuple(dims))


def s_transpose(g, pool, depth):
    x = g.pick(pool, lambda a: len(a.shape) >= 2)
    if x is None:
        return None
    a = pool[x]
    perm = tuple(g.rng.permutation(len(a.shape)).tolist())
    return _step('static', [x], [Aval(tuple(a.shape[p] for p in perm), a.dtype)],
                 name='transpose', permutation=perm)


def _factor(g, n):
    """A random shape of ``n`` elements (rank 0 to 3)."""
    if n == 0:
        shape = list(g.shape(3)) or [0]
        shape[g.rng.integers(len(shape))] = 0
        return tuple(shape)
    shape = []
    for _ in range(int(g.rng.integers(0, 3))):
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        d = g.choice(divisors)
        shape.append(d)
        n //= d
    return tuple(shape + [n]) if n != 1 or g.coin(0.5) else tuple(shape)


def s_reshape(g, pool, depth):
    x = g.pick(pool)
    a = pool[x]
    shape = _factor(g, _size(a.shape))
    return _step('static', [x], [Aval(shape, a.dtype)], name='reshape', new_sizes=shape)


def s_concatenate(g, pool, depth):
    x = g.pick(pool, lambda a: a.shape != ())
    if x is None:
        return None
    a = pool[x]
    d = int(g.rng.integers(len(a.shape)))

    def fits(b):
        return b.dtype == a.dtype and len(b.shape) == len(a.shape) and all(
            m == n for i, (m, n) in enumerate(zip(a.shape, b.shape)) if i != d)

    args = [x] + [g.pick(pool, fits) for _ in range(int(g.rng.integers(0, 3)))]
    shape = list(a.shape)
    shape[d] = sum(pool[i].shape[d] for i in args)
    return _step('concatenate', args, [Aval(tuple(shape), a.dtype)], dimension=d)


def s_pieces(g, pool, depth):
    """An array cut into pieces (split, unstack: every piece a value) or assembled from
    copies (stack of values of one type, tile)."""
    name = g.choice(('split', 'unstack', 'stack', 'tile'))
    x = g.pick(pool, lambda a: a.shape != () and (name != 'unstack' or 0 < max(a.shape) <= 4))
    if x is None:
        return None
    a = pool[x]
    if name == 'tile':
        reps = tuple(int(g.rng.integers(0 if g.coin(0.1) else 1, 3)) for _ in a.shape)
        return _step('pieces', [x], [Aval(tuple(r * n for r, n in zip(reps, a.shape)), a.dtype)],
                     name=name, reps=reps)
    if name == 'stack':
        args = [x] + [g.pick(pool, lambda b: b == a) for _ in range(int(g.rng.integers(0, 3)))]
        axis = int(g.rng.integers(len(a.shape) + 1))
        shape = a.shape[:axis] + (len(args),) + a.shape[axis:]
        return _step('pieces', args, [Aval(shape, a.dtype)], name=name, axis=axis)
    axes = [i for i, n in enumerate(a.shape) if name == 'split' or 0 < n <= 4]
    axis = g.choice(axes)
    rest = a.shape[:axis] + a.shape[axis + 1:]
    if name == 'unstack':
        return _step('pieces', [x], [Aval(rest, a.dtype)] * a.shape[axis], name=name, axis=axis)
    cuts = sorted(int(c) for c in g.rng.integers(0, a.shape[axis] + 1, int(g.rng.integers(1, 3))))
    sizes = tuple(int(n) for n in np.diff([0, *cuts, a.shape[axis]]))
    return _step('pieces', [x], [Aval(a.shape[:axis] + (n,) + a.shape[axis + 1:], a.dtype)
                                 for n in sizes], name=name, axis=axis, sizes=sizes)


def s_barrier(g, pool, depth):
    """One to three values through one optimization barrier."""
    args = [g.pick(pool) for _ in range(int(g.rng.integers(1, 4)))]
    return _step('barrier', args, [pool[i] for i in args])


def s_identity(g, pool, depth):
    """A value through copy, stage or dce_sink: the identity, in three ways."""
    x = g.pick(pool)
    return _step('identity', [x], [pool[x]], name=g.choice(('copy', 'stage', 'dce_sink')))


def s_pad(g, pool, depth):
    x = g.pick(pool)
    a = pool[x]
    value = g.pick(pool, lambda b: b == Aval((), a.dtype))
    if value is None:
        return None
    config, shape = [], []
    for n in a.shape:
        interior = int(g.rng.integers(0, 3))
        inner = n + max(n - 1, 0) * interior
        lo, hi = (int(v) for v in g.rng.integers(-2, 3, size=2))
        lo, hi = max(lo, -inner), max(hi, -inner)
        if lo + hi + inner < 0:
            lo, hi = 0, 0
        config.append((lo, hi, interior))
        shape.append(lo + hi + inner)
    return _step('static', [x, value], [Aval(tuple(shape), a.dtype)], name='pad',
                 padding_config=tuple(config))


def s_iota(g, pool, depth):
    """A counting array (iota), or now and then an empty one (lax.empty: zeros)."""
    shape = g.shape(3) or (3,)
    dtype = g.choice(NUMBERS)
    if g.coin(0.2):
        return _step('empty', [], [Aval(shape, dtype)], dtype=dtype, shape=shape)
    if dtype in COMPLEX and not g.hit('xla_abs_of_complex_iota'):
        dtype = 'float64'
    return _step('iota', [], [Aval(shape, dtype)], dtype=dtype, shape=shape,
                 dimension=int(g.rng.integers(len(shape))))


def s_const(g, pool, depth):
    x = g.pick(pool)
    a = pool[x] if g.coin(0.7) else Aval((), g.choice(DTYPES))
    return _step('const', [], [a], value=random_value(g.rng, a, g.coin(0.3), g.hit('subnormals')))


def s_slice(g, pool, depth):
    x = g.pick(pool, lambda a: a.shape != ())
    if x is None:
        return None
    a = pool[x]
    starts, limits, strides, shape = [], [], [], []
    for n in a.shape:
        lo = int(g.rng.integers(0, n + 1))
        hi = int(g.rng.integers(lo, n + 1))
        stride = int(g.rng.integers(1, 3))
        starts.append(lo), limits.append(hi), strides.append(stride)
        shape.append(-(-(hi - lo) // stride))
    return _step('static', [x], [Aval(tuple(shape), a.dtype)], name='slice',
                 start_indices=tuple(starts), limit_indices=tuple(limits),
                 strides=tuple(strides))


def _start_operands(g, pool, rank):
    """``rank`` int scalar indices of one dtype: values of the pool or new constants."""
    nonneg = not g.hit('dynamic_index_negative')
    index = Aval((), g.choice(INTS))
    nonneg = nonneg or index.dtype == 'uint64' and not g.hit('interpreter_uint64_start_index')
    steps, args = [], []
    for _ in range(rank):
        i = g.pick(pool, lambda b: b == index)
        if i is None or g.coin(0.5):
            value = np.asarray(g.rng.integers(0 if nonneg else -4, 6)).astype(index.dtype)
            steps.append(_step('const', [], [index], value=value))
            i = len(pool) + len(steps) - 1
        args.append(i)
    return steps, args, nonneg


def s_dynamic_slice(g, pool, depth):
    x = g.pick(pool)
    a = pool[x]
    steps, indices, nonneg = _start_operands(g, pool, len(a.shape))
    sizes = tuple(int(g.rng.integers(0, n + 1)) for n in a.shape)
    return steps + [_step('dynamic_slice', [x] + indices, [Aval(sizes, a.dtype)],
                          slice_sizes=sizes, nonneg=nonneg)]


def s_dynamic_update_slice(g, pool, depth):
    x = g.pick(pool)
    a = pool[x]
    update = g.pick(pool, lambda b: b.dtype == a.dtype and len(b.shape) == len(a.shape)
                    and all(m <= n for m, n in zip(b.shape, a.shape)))
    steps, indices, nonneg = _start_operands(g, pool, len(a.shape))
    return steps + [_step('dynamic_update_slice', [x, update] + indices, [a], nonneg=nonneg)]


def s_reduce(g, pool, depth):
    name = g.choice(('reduce_sum', 'reduce_sum', 'reduce_prod', 'reduce_max', 'reduce_min')
                    + _BITWISE_REDUCTIONS)
    x = g.pick(pool, lambda a: g.drawable(name, a))
    if x is None:
        return None
    a = pool[x]
    chooser = name in ('reduce_max', 'reduce_min')
    if chooser and 0 in a.shape and not g.hit('reduce_max_empty_eager'):
        name, chooser = 'reduce_sum', False
    axes = tuple(i for i in range(len(a.shape)) if g.coin(0.5))
    if chooser:
        g.hazards.add('nonsmooth')
    return _step('reduce', [x], [Aval(tuple(n for i, n in enumerate(a.shape) if i not in axes),
                                      a.dtype)], name=name, axes=axes)


def s_arg_chooser(g, pool, depth):
    x = g.pick(pool, lambda a: accepts('argmax', a) and any(a.shape))
    if x is None:
        return None
    a = pool[x]
    axis = g.choice([i for i, n in enumerate(a.shape) if n])
    dtype = g.choice(INTS)
    sanitize = _is_float(a) and not g.hit('argmax_nans')
    return _step('arg_chooser', [x], [Aval(a.shape[:axis] + a.shape[axis + 1:], dtype)],
                 name=g.choice(('argmax', 'argmin')), axis=axis, index_dtype=dtype,
                 sanitize=sanitize)


def s_dot_general(g, pool, depth):
    x = g.pick(pool, lambda a: _is_number(a) and a.shape != ())
    if x is None:
        return None
    a = pool[x]
    y = _partner(g, pool, x)
    y = g.pick(pool, lambda b: b.dtype == a.dtype and b.shape != ()) if y == x else y
    b = pool[y]
    pairs = [(i, j) for i in range(len(a.shape)) for j in range(len(b.shape))
             if a.shape[i] == b.shape[j]]
    g.rng.shuffle(pairs)
    used_a, used_b, contract, batch = set(), set(), [], []
    for i, j in pairs[:int(g.rng.integers(0, 4))]:
        if i not in used_a and j not in used_b:
            used_a.add(i), used_b.add(j)
            (batch if g.coin(0.3) else contract).append((i, j))
    lb, rb = [p[0] for p in batch], [p[1] for p in batch]
    shape = ([a.shape[i] for i in lb] + [n for i, n in enumerate(a.shape) if i not in used_a]
             + [n for j, n in enumerate(b.shape) if j not in used_b])
    if len(shape) > 4:
        return None
    if 0 in a.shape + b.shape:
        g.hazards.add('interpreter_crash')
    terms = math.prod(a.shape[i] for i, _ in contract)
    if terms == 1:  # each output one product (or none)
        g.hazards.add('interpreter_outer_product_sign')
    tame = terms > 1 and _is_inexact(a.dtype) and 'interpreter_dot_overflow' in g.avoid
    dims = ((tuple(p[0] for p in contract), tuple(p[1] for p in contract)), (tuple(lb), tuple(rb)))
    return _step('dot_general', [x, y], [Aval(tuple(shape), a.dtype)], dimension_numbers=dims,
                 tame=tame)


def _operands(g, pool, most):
    """Up to ``most`` distinct values of ``pool`` (at least one)."""
    picked = [g.pick(pool) for _ in range(int(g.rng.integers(1, most + 1)))]
    return list(dict.fromkeys(picked))


def _closed(g, pool):
    return _operands(g, pool, 2) if g.coin(0.5) else []


def s_cond(g, pool, depth):
    pred = g.pick(pool, lambda a: a == Aval((), 'bool') or _is_ordered(a))
    if pred is None:
        return None
    kind = 'bool' if pool[pred] == Aval((), 'bool') else 'positive'
    n_branches = 2
    if pool[pred].dtype in INTS and g.coin(0.6):
        kind, n_branches = 'index', int(g.rng.integers(1, 4))
    if pool[pred] == Aval((), 'int32') and kind == 'index' and g.coin(0.5):
        kind = 'int32'
    operands = _operands(g, pool, 2) if g.coin(0.8) else []
    closed = _closed(g, pool)
    outs = [pool[i] for i in operands] or [pool[closed[0]]] if (operands or closed) else []
    if not outs:
        return None
    ins = [pool[i] for i in operands + closed]
    branches = tuple(sub_program(g, ins, outs, depth) for _ in range(n_branches))
    g.hazards.add('vmap_cond_pred_batched')
    g.hazards.add('nonsmooth')
    return _step('cond', [pred] + operands + closed, outs, branches=branches,
                 n_operands=len(operands), pred_kind=kind)


def s_while(g, pool, depth):
    carry, closed = _operands(g, pool, 2), _closed(g, pool)
    trips = int(g.rng.integers(0, 4))
    if g.coin(0.4):
        bound = g.pick(pool, lambda a: a.dtype in INTS)
        if bound is not None:
            trips, closed = None, [bound] + closed
    ins = [pool[i] for i in carry] + [Aval((), 'int32')] + \
        [pool[i] for i in (closed if trips is not None else closed[1:])]
    body = sub_program(g, ins, [pool[i] for i in carry], depth)
    g.hazards.add('while')
    return _step('while_loop', carry + closed, [pool[i] for i in carry], body=body,
                 n_carry=len(carry), trips=trips)


def s_fori(g, pool, depth):
    carry, closed = _operands(g, pool, 2), _closed(g, pool)
    lower = int(g.rng.integers(0, 3))
    upper = lower + int(g.rng.integers(-1, 4))
    if upper <= lower and not g.hit('zero_length_scan_jit'):
        upper = lower + 1
    ins = [pool[i] for i in carry] + [Aval((), 'int32')] + [pool[i] for i in closed]
    body = sub_program(g, ins, [pool[i] for i in carry], depth)
    return _step('fori_loop', carry + closed, [pool[i] for i in carry], body=body,
                 n_carry=len(carry), lower=lower, upper=upper)


def s_scan(g, pool, depth):
    carry, closed = _operands(g, pool, 2), _closed(g, pool)
    x = g.pick(pool, lambda a: a.shape != ())
    length = pool[x].shape[0] if x is not None and g.coin(0.8) else int(g.rng.integers(0, 4))
    xs = [] if x is None or pool[x].shape[0] != length else \
        [i for i in _operands(g, pool, 2) if pool[i].shape[:1] == (length,)] or [x]
    if length == 0 and not g.hit('zero_length_scan_jit'):
        return None
    ins = [pool[i] for i in carry] + [Aval(pool[i].shape[1:], pool[i].dtype) for i in xs] + \
        [pool[i] for i in closed]
    body = sub_program(g, ins, [pool[i] for i in carry], depth, extra_output=True)
    y = body.outputs[-1]
    y_aval = (list(body.inputs) + [o for s in body.steps for o in s.outs])[y]
    return _step('scan', carry + xs + closed,
                 [pool[i] for i in carry] + [Aval((length,) + y_aval.shape, y_aval.dtype)],
                 body=body, n_carry=len(carry), n_xs=len(xs), length=length,
                 reverse=bool(g.coin(0.3)))


def s_jit(g, pool, depth):
    args = _operands(g, pool, 3)
    body = sub_program(g, [pool[i] for i in args], None, depth)
    outs = (list(body.inputs) + [o for s in body.steps for o in s.outs])
    return _step('jit', args, [outs[i] for i in body.outputs], body=body)


def s_rev(g, pool, depth):
    x = g.pick(pool, lambda a: a.shape != ())
    if x is None:
        return None
    a = pool[x]
    dims = tuple(i for i in range(len(a.shape)) if g.coin(0.6)) or (0,)
    return _step('static', [x], [a], name='rev', dimensions=dims)


_FLOATS_OF_SIZE = {2: ('float16', 'bfloat16'), 4: ('float32',), 8: ('float64',)}


def s_bitcast(g, pool, depth):
    x = g.pick(pool, lambda a: a.dtype in INTS and np.dtype(a.dtype).itemsize > 1)
    if x is None:
        return None
    a = pool[x]
    dtype = g.choice(_FLOATS_OF_SIZE[np.dtype(a.dtype).itemsize])
    return _step('bitcast', [x], [Aval(a.shape, dtype)], new_dtype=dtype)


def s_conv(g, pool, depth):
    x = g.pick(pool, lambda a: g.drawable('conv', a) and _size(a.shape) > 0)
    if x is None:
        return None
    a = pool[x]
    w = g.pick(pool, lambda b: b.dtype == a.dtype and 0 < _size(b.shape) <= 6)
    if w is None:
        return None
    stride = int(g.rng.integers(1, 3))
    width = -(-_size(a.shape) // stride)  # 'SAME': ceil(width / stride)
    return _step('conv', [x, w], [Aval((width,), a.dtype)], stride=stride, padding='SAME')


def s_reduce_window(g, pool, depth):
    name = g.choice(('reduce_window_sum', 'reduce_window_max', 'reduce_window_min'))
    x = g.pick(pool, lambda a: g.drawable(name, a) and a.shape != () and 0 not in a.shape)
    if x is None:
        return None
    a = pool[x]
    if name != 'reduce_window_sum':
        g.hazards.add('nonsmooth')
    window = tuple(int(g.rng.integers(1, min(n, 3) + 1)) for n in a.shape)
    strides = tuple(int(g.rng.integers(1, 3)) for _ in a.shape)
    shape = tuple(-(-n // s) for n, s in zip(a.shape, strides))
    return _step('reduce_window', [x], [Aval(shape, a.dtype)], name=name, window=window,
                 strides=strides, padding='SAME')


def s_sort(g, pool, depth):
    x = g.pick(pool, lambda a: a.shape != () and g.drawable('sort', a))
    if x is None:
        return None
    a = pool[x]
    args = [x] + [i for i in [g.pick(pool, lambda b: b.shape == a.shape and g.drawable('sort', b))]
                  if g.coin(0.5)]
    g.hazards.add('nonsmooth')
    dimension = int(g.rng.integers(len(a.shape)))
    num_keys = int(g.rng.integers(1, len(args) + 1))
    if any(pool[i].dtype in INEXACT for i in args[:num_keys]):
        g.hazards.add('interpreter_totalorder_nan')
    return _step('sort', args, [pool[i] for i in args], dimension=dimension,
                 num_keys=num_keys)


def s_top_k(g, pool, depth):
    x = g.pick(pool, lambda a: a.shape != () and g.drawable('top_k', a))
    if x is None:
        return None
    a = pool[x]
    axis = int(g.rng.integers(len(a.shape)))
    k = int(g.rng.integers(a.shape[axis] + 1))
    g.hazards.add('nonsmooth')
    if a.dtype in INEXACT:
        g.hazards.add('interpreter_totalorder_nan')
    shape = a.shape[:axis] + (k,) + a.shape[axis + 1:]
    return _step('top_k', [x], [Aval(shape, a.dtype), Aval(shape, 'int32')], k=k, axis=axis,
                 tame=a.dtype in INEXACT and 'xla_nan_sign_in_top_k' in g.avoid)


def s_approx_top_k(g, pool, depth):
    """approx_max_k or approx_min_k (exact on the CPU) of a float along one axis."""
    x = g.pick(pool, lambda a: a.shape != () and _is_float(a) and 0 not in a.shape)
    if x is None:
        return None
    a = pool[x]
    axis = int(g.rng.integers(len(a.shape)))
    k = int(g.rng.integers(1, a.shape[axis] + 1))
    g.hazards.add('nonsmooth')
    shape = a.shape[:axis] + (k,) + a.shape[axis + 1:]
    return _step('approx_top_k', [x], [Aval(shape, a.dtype), Aval(shape, 'int32')],
                 name=g.choice(('approx_max_k', 'approx_min_k')), k=k, axis=axis)


def s_ragged_dot(g, pool, depth):
    """ragged_dot of a matrix x (m, k) by a matrix y (k, n) and -y, in two groups of rows."""
    x = g.pick(pool, lambda a: len(a.shape) == 2 and a.dtype in FLOATS + SIGNED)
    if x is None:
        return None
    a = pool[x]
    y = g.pick(pool, lambda b: len(b.shape) == 2 and b.dtype == a.dtype
               and b.shape[0] == a.shape[1])
    if y is None:
        return None
    m, n = a.shape[0], pool[y].shape[1]
    first = int(g.rng.integers(m + 1))
    sizes = (first, int(g.rng.integers(m - first + 1)))
    tame = _is_inexact(a.dtype) and 'interpreter_dot_overflow' in g.avoid
    return _step('ragged_dot', [x, y], [Aval((m, n), a.dtype)], group_sizes=sizes, tame=tame)


def s_cumulative(g, pool, depth):
    name = g.choice(('cumsum', 'cumprod', 'cummax', 'cummin', 'cumlogsumexp'))
    x = g.pick(pool, lambda a: a.shape != () and g.drawable(name, a))
    if x is None:
        return None
    a = pool[x]
    if name in ('cummax', 'cummin'):
        g.hazards.add('nonsmooth')
    return _step('static', [x], [a], name=name, axis=int(g.rng.integers(len(a.shape))),
                 reverse=g.coin(0.5))


def s_bitwise(g, pool, depth):
    """An integer or bitwise op: on integers (and bools where JAX takes them); ``rem`` on
    any real number."""
    name = g.choice(_BITWISE_BINARY + _BITWISE_UNARY)
    x = g.pick(pool, lambda a: accepts(name, a))
    if x is None:
        return None
    a = pool[x]
    if name in _BITWISE_UNARY:
        return _step('unary', [x], [a], name=name)
    y = _partner(g, pool, x)
    converted = {(id(pool), x), (id(pool), y)} & g.converted_ints
    if name in ('bitwise_and', 'bitwise_or') and converted and \
            not g.hit('xla_and_or_of_a_converted_int'):
        name = 'bitwise_xor'
    g.hazards.add('nonsmooth')
    out = Aval(max(a.shape, pool[y].shape, key=len), a.dtype)
    return _step('binary', [x, y], [out], name=name, safe_divisor=name == 'rem')


def s_gather_scatter(g, pool, depth):
    """Rows read (gather) or written (a scatter) at constant indices, repeated and out of
    bounds, except for a gather in JAX's default mode (whose gradient there JAX leaves
    undefined) and scatter_min/max with mode='clip' (JAX's jvp then mixes clamped gathers
    with scatter-adds that drop, so its tangent out of bounds is wrong)."""
    name = g.choice(('gather', 'scatter', 'scatter_add', 'scatter_sub', 'scatter_mul',
                     'scatter_min', 'scatter_max'))
    x = g.pick(pool, lambda a: g.drawable(name, a) and a.shape != () and a.shape[0] > 0)
    if x is None:
        return None
    a = pool[x]
    mode = g.choice((None, 'clip', 'fill' if name == 'gather' else 'promise_in_bounds'))
    m, n = int(g.rng.integers(1, 5)), a.shape[0]
    in_bounds = (name, mode) in [('gather', None), ('scatter_min', 'clip'), ('scatter_max', 'clip')]
    bounds = (0, n) if in_bounds else (-2, n + 2)
    rows = Aval((m, *a.shape[1:]), a.dtype)
    indices = _step('const', [], [Aval((m, 1), 'int32')],
                    value=g.rng.integers(*bounds, size=(m, 1)).astype(np.int32))
    if name == 'gather':
        return [indices, _step('gather', [x, len(pool)], [rows], mode=mode)]
    if name in ('scatter_mul', 'scatter_min', 'scatter_max'):
        g.hazards.add('nonsmooth')
    updates = _step('const', [], [rows], value=random_value(g.rng, rows, g.coin(0.3)))
    return [indices, updates, _step('scatter', [x, len(pool), len(pool) + 1], [a], name=name,
                                    mode=mode)]


def _outs_from_jax(op, pool, args, **params):
    """The step ``op`` on ``args``, its output types those JAX computes for it."""
    def fn(*xs):
        return BUILDERS[op](JAX, list(xs), **params)
    outs = jax.eval_shape(fn, *[jax.ShapeDtypeStruct(pool[i].shape, pool[i].dtype)
                                for i in args])
    return _step(op, args, [Aval(tuple(o.shape), o.dtype.name) for o in outs], **params)


def _index_spec(g, pool, shape, in_bounds):
    """A jnp index into ``shape`` (ints, slices, int arrays, traced int scalars of the pool,
    a None, a leading Ellipsis) and the pool values its TRACED entries take. Arrays go out of
    bounds and traced scalars appear only if not ``in_bounds``."""
    k = int(g.rng.integers(0, len(shape) + 1))
    trailing = g.coin(0.2)
    array_shape = g.choice([(), (2,), (3,), (2, 2)])  # one for all: they broadcast together
    spec, traced = [], []
    for n in shape[len(shape) - k:] if trailing else shape[:k]:
        kinds = ('slice', 'slice', 'int', 'array') + (() if in_bounds else ('traced',))
        kind = g.choice(kinds) if n else 'slice'
        scalar = g.pick(pool, lambda a: a.shape == () and a.dtype in INTS)
        if kind == 'traced' and scalar is not None:
            spec.append(TRACED)
            traced.append(scalar)
        elif kind == 'int':
            spec.append(int(g.rng.integers(-n, n) if in_bounds else
                            g.rng.integers(-n - 2, n + 2)))
        elif kind == 'array':
            lo, hi = (-n, n) if in_bounds else (-n - 2, n + 2)
            spec.append(g.rng.integers(lo, hi, size=array_shape).astype(g.choice(SIGNED[2:])))
        else:
            def bound():
                return None if g.coin(0.3) else int(g.rng.integers(-n - 1, n + 2))
            spec.append(slice(bound(), bound(), g.choice((None, 1, 2, -1, -2))))
    if g.coin(0.2):
        spec.insert(int(g.rng.integers(len(spec) + 1)), None)
    return tuple([Ellipsis] * trailing + spec), traced


def s_index(g, pool, depth):
    """``x[index]``, basic and advanced; in bounds for a float ``x``, whose gradient at a
    clamped read JAX leaves undefined (docs/semantics.md)."""
    x = g.pick(pool, lambda a: a.shape != ())
    if x is None:
        return None
    spec, traced = _index_spec(g, pool, pool[x].shape, pool[x].dtype in INEXACT)
    return _outs_from_jax('index', pool, [x] + traced, spec=spec)


#: The types each ``.at[]`` method takes, and the modes it is drawn with.
_AT_TYPES = dict(set=lambda a: True, get=lambda a: True, add=_is_number, mul=_is_number,
                 min=_is_ordered, max=_is_ordered)
_AT_MODES = (None, 'clip', 'promise_in_bounds')


def s_at(g, pool, depth):
    """``x.at[index].set/add/mul/min/max(update, mode=...)`` or ``.get(mode=...)``, the update
    a value of the pool or a new constant (always for mul, which JAX differentiates in its
    update only at unique indices); in bounds in mode promise_in_bounds, and for min
    and max in mode clip (JAX's tangent out of bounds is wrong there: see
    ``s_gather_scatter``)."""
    method = g.choice(tuple(_AT_TYPES))
    x = g.pick(pool, lambda a: a.shape != () and _AT_TYPES[method](a))
    if x is None:
        return None
    mode = g.choice(_AT_MODES + ('fill' if method == 'get' else 'drop',))
    in_bounds = (mode == 'promise_in_bounds' or (method in ('min', 'max') and mode == 'clip')
                 or (method == 'get' and mode is None and pool[x].dtype in INEXACT))
    spec, traced = _index_spec(g, pool, pool[x].shape, in_bounds)
    whole = all(e is Ellipsis or e is None or (isinstance(e, slice) and e == slice(None))
                for e in spec)
    if method != 'get' and whole and not g.hit('xla_whole_update_beside_a_reverse'):
        method = 'get'
    if method == 'get':
        return _outs_from_jax('at', pool, [x] + traced, spec=spec, method=method, mode=mode)
    target = _outs_from_jax('index', pool, [x] + traced, spec=spec).outs[0]
    update = g.pick(pool, lambda b: b in (target, Aval((), target.dtype)))
    steps = []
    if update is None or method == 'mul' or g.coin(0.3):
        steps = [_step('const', [], [target], value=random_value(g.rng, target, g.coin(0.3)))]
        update = len(pool)
    if method in ('min', 'max', 'mul'):
        g.hazards.add('nonsmooth')
    return steps + [_step('at', [x, update] + traced, [pool[x]], spec=spec, method=method,
                          mode=mode)]


def s_random(g, pool, depth):
    """jax.random's values from the key of an int scalar seed, as JAX computes them."""
    seed = g.pick(pool, lambda a: a.dtype in INTS and a.shape == ())
    steps = []
    if seed is None or g.coin(0.3):
        steps = [_step('const', [], [Aval((), 'int64')],
                       value=np.asarray(g.rng.integers(0, 2 ** 40)))]
        seed = len(pool)
    path = tuple((g.choice(('fold_in', 'split')), int(g.rng.integers(1, 4)))
                 for _ in range(int(g.rng.integers(0, 3))))
    sampler = g.choice(tuple(_RANDOM))
    return steps + [_outs_from_jax(
        'random', pool + [s.outs[0] for s in steps], [seed], typed=g.coin(0.5), path=path,
        sampler=sampler, shape=g.shape(2), dtype=g.choice(_RANDOM_DTYPES[sampler]))]


def s_linalg(g, pool, depth):
    """A decomposition (or triangular solve) of a well-conditioned matrix made from a float
    value with 1 to 4 rows and columns (``_b_linalg``)."""
    x = g.pick(pool, lambda a: accepts('linalg', a) and len(a.shape) >= 2
               and 0 < a.shape[-1] <= 4 and 0 < a.shape[-2] <= 4)
    if x is None:
        return None
    a = pool[x]
    name = g.choice(('cholesky', 'eigh', 'svd', 'qr', 'lu', 'triangular_solve'))
    m, n = a.shape[-2:]
    k = m if name in ('cholesky', 'eigh', 'triangular_solve') else int(g.rng.integers(1, 5))
    # full matrices only where the extra columns are unique up to sign, and for svd only of
    # a square matrix (JAX does not differentiate the others)
    full = abs(m - k) <= 1 and g.coin(0.5) and (name != 'svd' or m == k)
    options = dict(
        svd=dict(full_matrices=full, compute_uv=g.coin(0.8)), qr=dict(full_matrices=full),
        triangular_solve=dict(left_side=g.coin(0.5), lower=g.coin(0.5),
                              transpose_a=g.coin(0.5), unit_diagonal=g.coin(0.3)),
    ).get(name, {})
    return _outs_from_jax('linalg', pool, [x], name=name, mix=g.rng.uniform(-1, 1, (n, k)),
                          options=options)


def s_custom(g, pool, depth):
    """A function of the custom-rule family (``_custom_rules``)."""
    x = g.pick(pool, lambda a: accepts('custom', a))
    if x is None:
        return None
    name = g.choice(('sin_jvp', 'cube_jvp', 'product_vjp', 'exp_vjp'))
    args = [x, g.pick(pool, lambda b: b == pool[x])] if name == 'product_vjp' else [x]
    g.hazards.add('nonsmooth')  # the rules are not the derivatives: no finite differences
    if name.endswith('_vjp'):
        g.hazards.add('custom_vjp')  # which JAX cannot differentiate in forward mode
    return _step('custom', args, [pool[x]], name=name)


SAMPLERS = [(s_unary, 4), (s_binary, 6), (s_select_n, 1), (s_convert, 1.5),
            (s_integer_pow, 1), (s_broadcast_in_dim, 1), (s_transpose, 1), (s_reshape, 1),
            (s_concatenate, 1), (s_pad, 1), (s_iota, 0.3), (s_const, 0.7), (s_slice, 1),
            (s_dynamic_slice, 1), (s_dynamic_update_slice, 0.7), (s_reduce, 1.5),
            (s_arg_chooser, 0.7), (s_dot_general, 1), (s_rev, 0.4), (s_bitcast, 0.3),
            (s_conv, 0.5), (s_reduce_window, 0.7), (s_sort, 0.5), (s_top_k, 0.3),
            (s_cumulative, 1),
            (s_bitwise, 2), (s_gather_scatter, 1), (s_index, 1), (s_at, 1), (s_random, 0.4),
            (s_linalg, 1.5), (s_custom, 0.5), (s_rounding, 0.5), (s_special, 0.5),
            (s_pieces, 0.6), (s_barrier, 0.3), (s_identity, 0.3), (s_approx_top_k, 0.3),
            (s_ragged_dot, 0.4)]
CONTROL_FLOW = [(s_cond, 1), (s_while, 0.7), (s_fori, 0.7), (s_scan, 1), (s_jit, 0.7)]


def _draw_steps(g, pool, n_steps, depth):
    """``n_steps`` steps drawn onto ``pool`` (extended in place)."""
    table = SAMPLERS + (CONTROL_FLOW if depth < MAX_DEPTH else [])
    weights = np.array([w for _, w in table])
    steps = []
    while len(steps) < n_steps:
        sampler = table[g.rng.choice(len(table), p=weights / weights.sum())][0]
        drawn = sampler(g, pool, depth + 1)
        for step in ([] if drawn is None else drawn if isinstance(drawn, list) else [drawn]):
            steps.append(step)
            pool.extend(step.outs)
    return steps


def _uses(steps):
    return {i for s in steps for i in s.args}


def sub_program(g, in_avals, out_avals, depth, extra_output=False):
    """A body over ``in_avals`` returning ``out_avals`` (each the latest value of its type),
    plus one more value if ``extra_output``; ``out_avals=None``: all unused values."""
    pool = list(in_avals)
    steps = _draw_steps(g, pool, int(g.rng.integers(1, 4)), depth)
    if out_avals is None:
        return Program(tuple(in_avals), tuple(steps), _leaves(pool, steps, len(in_avals)))
    outputs = [max(i for i, a in enumerate(pool) if a == want) for want in out_avals]
    if extra_output:
        outputs.append(len(pool) - 1)
    if any(s.op == 'scan' for s in steps) and not set(
            range(len(in_avals), len(pool))) - _uses(steps) <= set(outputs):
        g.hazards.add('nan_zero_cotangent')  # a scan output nobody uses
    return Program(tuple(in_avals), tuple(steps), tuple(outputs))


def _leaves(pool, steps, n_inputs):
    """The computed values no step uses (or the last value): a program's outputs."""
    leaves = [i for i in range(n_inputs, len(pool)) if i not in _uses(steps)]
    return tuple(leaves or [len(pool) - 1])


def generate(seed: int, avoid=frozenset(KNOWN_BUGS), max_steps=8) -> Description:
    """The random program of ``seed``, steering clear of the bug classes in ``avoid``."""
    g = Gen(np.random.default_rng([seed, 1]), frozenset(avoid))
    dtype = g.choice(WIDE_FLOATS * 4 + ('int32', 'int64') * 2 + DTYPES)
    base = g.shape(3)
    inputs = [Aval(base, dtype)]
    for _ in range(int(g.rng.integers(0, 3))):
        inputs.append(g.choice([Aval(base, dtype), Aval((), dtype), Aval((), 'int32'),
                                Aval(g.shape(2), g.choice(DTYPES))]))
    pool = list(inputs)
    steps = _draw_steps(g, pool, int(g.rng.integers(1, max_steps + 1)), 0)
    lapack = any(s.op == 'linalg' for s in _all_steps(Program((), tuple(steps), ())))
    for last in (complex_parts_step(seed, pool), fourier_step(seed, pool, g.avoid, lapack)):
        if last is not None:
            steps.append(last)
            pool.append(last.outs[0])
    program = Program(tuple(inputs), tuple(steps), _leaves(pool, steps, len(inputs)))
    return Description(seed, program, frozenset(g.hazards), g.avoid)


# ----------------------------------------------------------------------------- inputs

#: Special float values for inputs and constants (cast: 1e300 is inf in float32).
SPECIALS = [np.nan, np.inf, -np.inf, -0., 0., 1e30, -1e30, 1e-30, 1e300]
SUBNORMAL = 5e-324


def random_value(rng, aval, special=False, subnormals=False):
    """A random array of ``aval``; with ``special``, some NaN/Inf/-0./huge/extreme values
    (and a subnormal if ``subnormals``)."""
    dtype = np.dtype(aval.dtype)
    if dtype == np.bool_:
        return rng.random(aval.shape) < 0.5
    if aval.dtype in INTS:
        x = rng.integers(-6, 7, size=aval.shape).astype(dtype)
        bounds = np.iinfo(dtype)
        extremes = np.array([0, 1, bounds.min, bounds.max], dtype)
    else:
        x = _random_inexact(rng, aval.shape, dtype)
        with np.errstate(over='ignore', under='ignore'):
            extremes = np.array(SPECIALS + [SUBNORMAL] * subnormals, np.float64).astype(dtype)
    if special:
        mask = rng.random(aval.shape) < 0.3
        x = np.where(mask, rng.choice(extremes, size=aval.shape), x).astype(dtype)
        if aval.dtype in COMPLEX:  # the specials in the imaginary parts too
            mask = rng.random(aval.shape) < 0.3
            x.imag = np.where(mask, rng.choice(extremes.real, size=aval.shape), x.imag)
    return np.asarray(x).astype(dtype)


def _random_inexact(rng, shape, dtype):
    """Normally distributed floats, or complex numbers with normal parts."""
    x = rng.normal(size=shape)
    if dtype.kind == 'c':
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def random_inputs(description, rng):
    special = rng.random() < 0.3
    subnormals = 'subnormals' not in description.avoid
    return [random_value(rng, a, special, subnormals) for a in description.program.inputs], \
        special


# ----------------------------------------------------------------------------- comparisons

#: Relative tolerance by dtype: float16 and bfloat16 round at about 1e-3 and 1e-2 at each
#: step, and XLA computes some of their ops in float32 where NumPy does not.
TOLERANCE = {'float16': 2e-2, 'bfloat16': 1e-1, 'float32': 2e-4, 'float64': 1e-9,
             'complex64': 2e-4, 'complex128': 1e-9}


class Mismatch(Exception):
    """One leg disagrees with its oracle."""


def _show(x):
    return np.array2string(np.asarray(x), threshold=12, precision=6)


def agreement(got, want, tol=None):
    """Elementwise: ``got`` equals ``want`` (bitwise for ints and bools; floats within a
    tolerance relative to the array's magnitude, NaN equal to NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    if not _is_inexact(got.dtype):
        return got == want
    tol = max(tol or 0, TOLERANCE[got.dtype.name])
    if got.dtype == jnp.bfloat16:  # which NumPy's isclose does not know
        got, want = got.astype(np.float32), want.astype(np.float32)
    finite = np.abs(want[np.isfinite(want)])
    scale = float(finite.max()) if finite.size else 1.
    return np.isclose(got, want, rtol=tol, atol=tol * max(scale, 1.), equal_nan=True)


def compare(got, want, what, tol=None, excuse=None):
    """``got`` equals ``want`` in shape, dtype and value, except where ``excuse(got)`` (a
    mask, asked for only on a mismatch) explains the difference."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise Mismatch(f'{what}: got {got.dtype}{list(got.shape)}, '
                       f'expected {want.dtype}{list(want.shape)}')
    close = agreement(got, want, tol)
    if not close.all() and excuse is not None:
        close |= excuse(got)
    if not close.all():
        where = tuple(np.argwhere(~close)[0].tolist())
        raise Mismatch(f'{what}: got {_show(got)}, expected {_show(want)} (first at '
                       f'{where}: {got[where]!r} vs {want[where]!r})')


def compare_all(got, want, what, tol=None, excuses=None):
    if len(got) != len(want):
        raise Mismatch(f'{what}: {len(got)} outputs, expected {len(want)}')
    for k, (g, w) in enumerate(zip(got, want)):
        compare(g, w, f'{what} output {k}', tol, excuses and (lambda g, k=k: excuses(k, g)))


def tolerance(program):
    """The loosest tolerance of the dtypes a program computes in, for all its values (the
    rounding of a float32 reaches float64 outputs through conversions); None for float64's."""
    avals = list(program.inputs) + [a for s in _all_steps(program) for a in s.outs]
    loosest = max((TOLERANCE[a.dtype] for a in avals if a.dtype in TOLERANCE), default=0)
    return loosest if loosest > TOLERANCE['float64'] else None


# ----------------------------------------------------------------------------- the legs

def _float_inputs(program):
    """The inputs to differentiate in: float32 and float64 ones."""
    return [k for k, a in enumerate(program.inputs) if a.dtype in WIDE_FLOATS]


def loss(program, B):
    """The sum of the program's float outputs and of the real parts of its complex ones, in
    float64: a scalar to differentiate."""
    avals = list(program.inputs) + [o for s in program.steps for o in s.outs]
    floats = [k for k, i in enumerate(program.outputs) if avals[i].dtype in INEXACT]

    def fn(*args):
        outs = run(program, B, args)
        total = np.zeros((), np.float64)
        for k in floats:
            x = outs[k] if avals[program.outputs[k]].dtype in FLOATS else B.real(outs[k])
            x = B.convert_element_type(x, np.float64)
            total = B.add(total, B.reduce_sum(x, tuple(range(len(jnp.shape(x))))))
        return total
    return fn, bool(floats)


class Oracle:
    """JAX's answer for a function, and what excuses a difference from it, element by element:
    - JAX op by op gives the same: XLA's rewrites of NaN, Inf and overflow depend on the exact
      graph, which differs between JAX and minijax; op by op, JAX computes as the StableHLO
      spec says;
    - the element is ill-conditioned: JAX itself moves there when the inputs move by a few
      ulps (sin of 1e147, a cancelling sum of 1e30s), so no two libraries need agree;
    - for derivatives, an infinity where JAX has NaN: minijax scales a tangent by one
      coefficient, JAX sometimes expands it (tanh: (g + g*ans) * (1 - ans)), and inf * 0
      appears only in the expansion (docs/semantics.md).
    """

    def __init__(self, fn, args, derivative=False):
        self.fn, self.args, self.derivative = fn, args, derivative
        self.compiled = self._jitted(args)

    def _jitted(self, args):
        return [np.asarray(v) for v in jax.jit(self.fn)(*args)]

    def _op_by_op(self):
        with jax.disable_jit():
            return [np.asarray(v) for v in self.fn(*self.args)]

    def _excuses(self):
        by_op = self._op_by_op()
        nudged = self._jitted(jax.tree.map(_nudge, self.args))

        def excuse(k, got):
            want = self.compiled[k]
            ok = ~agreement(want, nudged[k]) | agreement(got, by_op[k])
            if self.derivative:
                ok |= np.isinf(got) & np.isnan(want)
            return ok
        return excuse

    def check(self, got, what, tol):
        try:
            compare_all(got, self.compiled, what, tol)
        except Mismatch:
            compare_all(got, self.compiled, what, tol, self._excuses())


def _nudge(x):
    """``x`` with its finite nonzero floats a few ulps larger in magnitude."""
    x = np.asarray(x)
    if not _is_inexact(x.dtype):
        return x
    return np.where(np.isfinite(x), x * (1 + 4 * jnp.finfo(x.dtype).eps), x).astype(x.dtype)


def leg_values(d, args, oracle, tol):
    """Eager minijax, mj.jit (XLA) and the reference interpreter on its module, against JAX."""
    mine = as_function(d.program, MINIJAX)
    oracle.check(mine(*args), 'eager', tol)
    jitted = mj.jit(mine)
    oracle.check(jitted(*args), 'jit', tol)
    if not d.skips('interpreter_crash', 'interpreter_outer_product_sign',
                   'interpreter_atan2_subnormals', 'interpreter_totalorder_nan',
                   'interpreter_zeta_overflow'):
        module = jitted.lower(*args).compiler_ir()
        try:
            results = run_module(module, args)
        except InterpreterError:  # it refuses what it cannot run (and would crash on)
            return
        oracle.check(results, 'interpreter', tol)


def leg_jvp(d, args, rng, tol):
    """mj.jvp of the sum of the float outputs against jax.jvp, along a random tangent:
    forward mode reaches while_loop, which reverse mode cannot differentiate (and custom_vjp
    functions it cannot)."""
    program = d.program
    argnums = _float_inputs(program)
    if (not argnums or not loss(program, MINIJAX)[1] or 'custom_vjp' in d.hazards
            or d.skips('nan_zero_cotangent')):
        return
    tangents = [rng.normal(size=np.shape(args[k])).astype(args[k].dtype) for k in argnums]

    def along(fn):
        return lambda *xs: fn(*[xs[argnums.index(k)] if k in argnums else a
                                for k, a in enumerate(args)])

    primals = [args[k] for k in argnums]
    got = mj.jvp(along(loss(program, MINIJAX)[0]), primals, tangents)
    oracle = Oracle(lambda p, t: jax.jvp(along(loss(program, JAX)[0]), p, t),
                    (primals, tangents), derivative=True)
    oracle.check(got, 'jvp', tol)


def leg_grad(d, args, special, tol):
    """mj.grad (eager and jitted) of the sum of the float outputs against jax.grad, and
    against central differences where the program is smooth."""
    program = d.program
    argnums = tuple(_float_inputs(program))
    mine, has_floats = loss(program, MINIJAX)
    if not argnums or not has_floats or 'while' in d.hazards or d.skips(
            'grad_abs_zero', 'nan_zero_cotangent'):
        return
    got = mj.grad(mine, argnums)(*args)
    try:
        oracle = Oracle(jax.grad(loss(program, JAX)[0], argnums), args, derivative=True)
    except Exception:  # JAX cannot (e.g. grad of pad in its padding value alone)
        oracle = None
    if oracle is not None:
        oracle.check(got, 'grad', tol)
        oracle.check(mj.jit(mj.grad(mine, argnums))(*args), 'jit(grad)', tol)
    if not special and 'nonsmooth' not in d.hazards and tol is None:
        check_finite_differences(mine, args, argnums, got)


def check_finite_differences(fn, args, argnums, grads, eps=1e-6):
    """The directional derivative along a random direction matches central differences
    (float64 inputs only: float32 is too coarse for them)."""
    if any(np.asarray(args[k]).dtype != np.float64 for k in argnums):
        return
    rng = np.random.default_rng(0)
    direction = [rng.normal(size=np.shape(args[k])) for k in argnums]

    def at(sign):
        moved = list(args)
        for k, v in zip(argnums, direction):
            moved[k] = args[k] + sign * eps * v
        return float(np.asarray(fn(*moved)))

    above, below = at(1), at(-1)
    numeric = (above - below) / (2 * eps)
    # The loss itself is rounded: a large one (an output of -1e30 beside x * 0.4) drowns
    # the step, and the difference quotient measures nothing finer than this.
    rounding = np.finfo(np.float64).eps * max(abs(above), abs(below)) / eps
    analytic = sum(float(np.sum(np.asarray(g) * v)) for g, v in zip(grads, direction))
    if np.isfinite(numeric) and np.isfinite(analytic) and abs(analytic) < 1e6:
        if abs(numeric - analytic) > 1e-4 * (1 + abs(analytic)) + rounding:
            raise Mismatch(f'grad vs finite differences: {analytic} vs {numeric}')


def leg_vmap(d, rng, tol, size=2):
    """``vmap`` of the program (batch axis 0 or another axis per input, some unbatched)
    against a loop of JAX's unbatched program."""
    program = d.program
    axes = [None if rng.random() < 0.25 else 0 if rng.random() < 0.5 else
            int(rng.integers(0, len(a.shape) + 1)) for a in program.inputs]
    if all(a is None for a in axes):
        axes[0] = 0
    special = rng.random() < 0.3
    subnormals = 'subnormals' not in d.avoid
    examples = [[random_value(rng, a, special, subnormals) for a in program.inputs]
                for _ in range(size)]
    batched = [examples[0][k] if ax is None else np.stack([e[k] for e in examples], ax)
               for k, ax in enumerate(axes)]
    theirs = as_function(program, JAX)

    def loop(*examples):
        outs = [theirs(*[examples[0][k] if ax is None else e[k] for k, ax in enumerate(axes)])
                for e in examples]
        return [jnp.stack([o[k] for o in outs]) for k in range(len(outs[0]))]

    batched_fn = mj.vmap(as_function(program, MINIJAX), tuple(axes))
    jitted = rng.random() < 0.3
    got = (mj.jit(batched_fn) if jitted else batched_fn)(*batched)
    Oracle(loop, examples).check(got, f'{"jit(vmap)" if jitted else "vmap"}(in_axes='
                                 f'{tuple(axes)})', tol)


class Failure(NamedTuple):
    seed: int
    leg: str       # eager, jit, interpreter, grad, vmap, ... or 'generator' (JAX refused)
    kind: str      # 'mismatch' or an exception's type
    message: str

    @property
    def cls(self):
        """A failure class: where it happened and what it was."""
        return f'{self.leg}: {self.kind}'


def check(seed: int, avoid=frozenset(KNOWN_BUGS), legs=('values', 'jvp', 'grad', 'vmap')):
    """Run every leg on the program of ``seed``; return the first failure of each leg."""
    d = generate(seed, avoid)
    rng = np.random.default_rng([seed, 2])
    args, special = random_inputs(d, rng)
    failures = []
    with warnings.catch_warnings(), np.errstate(all='ignore'):
        warnings.simplefilter('ignore')
        try:
            oracle = Oracle(as_function(d.program, JAX), args)
        except Exception as e:  # the generator made a program JAX refuses
            return [Failure(seed, 'generator', type(e).__name__, str(e)[:300])]
        tol = tolerance(d.program)
        run_legs = {
            'values': lambda: leg_values(d, args, oracle, tol),
            'jvp': lambda: leg_jvp(d, args, rng, tol),
            'grad': lambda: leg_grad(d, args, special, tol),
            'vmap': lambda: None if d.skips('vmap_cond_pred_batched') else leg_vmap(
                d, rng, tol)}
        for leg in legs:
            try:
                run_legs[leg]()
            except Mismatch as e:
                where = str(e).split(':')[0].split(' output')[0].split('(in_axes')[0]
                failures.append(Failure(seed, where, 'mismatch', str(e)))
            except Exception as e:
                failures.append(Failure(seed, leg, type(e).__name__, str(e)[:300]))
    return failures


def _all_steps(program):
    for s in program.steps:
        yield s
        for sub in s.params.get('branches', ()) + tuple(
                s.params[k] for k in ('body',) if k in s.params):
            yield from _all_steps(sub)


# ----------------------------------------------------------------------------- description

def describe(program: Program, indent='') -> str:
    """A readable listing of ``program`` (values are v0, v1, ...; inputs first)."""
    n = len(program.inputs)
    lines = [indent + 'inputs: ' + ', '.join(f'v{i}: {a}' for i, a in enumerate(program.inputs))]
    for s in program.steps:
        outs = ', '.join(f'v{n + k}: {a}' for k, a in enumerate(s.outs))
        n += len(s.outs)
        params = {k: v for k, v in s.params.items() if k not in ('body', 'branches', 'name')}
        if 'value' in params:
            params['value'] = _show(params['value'])
        args = ', '.join(f'v{i}' for i in s.args)
        lines.append(f'{indent}{outs} = {s.params.get("name", s.op)}({args}) {params}')
        for sub in s.params.get('branches', ()) + ((s.params['body'],) if 'body' in s.params
                                                    else ()):
            lines.append(describe(sub, indent + '    '))
    lines.append(indent + 'outputs: ' + ', '.join(f'v{i}' for i in program.outputs))
    return '\n'.join(lines)

