"""Elementwise primitives, each defined in one place with every rule.

A unary primitive is one ``unary_primitive`` call: its NumPy implementation, its StableHLO
op and its derivative. A binary primitive takes two operands of one dtype whose shapes are
equal, or one of which is a scalar (broadcast implicitly, as a Python scalar in ``x * 2.`` is).
``select_n`` (the primitive behind ``where``) picks elementwise among its cases.
"""
from __future__ import annotations

import operator

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lax
from minijax.core import Primitive, ShapedArray, Tracer, shared_aval
from minijax.interpreters import batching, jvp as ad
from minijax.ir import tracing
from minijax.array import Array, scalar
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.accuracy import AccuracyMode, check_accuracy, op_with_accuracy
from minijax.lax.static import default_options_only
from minijax.lax.structural import broadcast_in_dim, full
from minijax.lowering import (LoweringRuleContext, constant, emit, lower_fun, register_lowering,
                              tensor_type)
from minijax.lowering.ops import broadcast_in_dim as hlo_broadcast_in_dim
from minijax.lowering.ops import broadcast_operands, choose, compare, full_like_aval
from minijax.sharding import rules as sharding_rules

# ----------------------------------------------------------------------------- unary


#: What a unary primitive accepts: its operand kinds (see ``dtypes.kind``) and JAX's words.
INEXACT, FLOATING, ANY = ('fc', 'floating-point or complex'), ('f', 'floating-point'), None
ORDERED = ('iubf', 'integer, floating-point or bool')  # complex numbers have no order
NUMBER = ('iufc', 'number (integer, floating-point or complex)')  # bool is no number
SIGNED = ('ifc', 'signed number (signed integer, floating-point or complex)')


def unary_primitive(name, impl, hlo_op, tangent=None, accepts=INEXACT, eager_on_xla=False,
                    real_result=False):
    """Define ``name`` with all its rules.

    ``tangent(t, x, ans, **params)`` is the output tangent for the input tangent ``t`` as an
    expression in lax ops (``ans`` = the output), written as JAX writes it so that derivatives
    round as JAX's do; ``None`` means the primitive is not differentiable (its tangent is
    zero). ``params`` is what the equation has beyond its operand: ``accuracy`` for a
    transcendental function given one (``lax.exp(x, accuracy=...)``), else nothing; the
    implementation ignores it (XLA on the CPU has one implementation of each function).
    ``eager_on_xla``: see ``Primitive`` (True for XLA's own approximations of a function,
    or a function of the operand's aval).
    ``accepts``: INEXACT, FLOATING or ANY dtype. ``real_result``: a complex operand gives a
    real result of its part dtype (``abs``). ``hlo_op=None``: the caller registers a lowering
    rule of its own (one that needs the operand's type).
    """
    prim = Primitive(name, eager_on_xla=eager_on_xla)
    prim.follows_device_operands = True
    prim.def_impl(lambda x, **params: impl(np.asarray(x)))

    def abstract_eval(x, **params):
        if accepts is not ANY and dtypes.kind(x.dtype) not in accepts[0]:
            raise TypeError(f'{name} needs a {accepts[1]} operand, got {x.str_short()}')
        dtype = dtypes.real_part_dtype(x.dtype) if real_result else x.dtype
        return shared_aval(x.shape, dtype, x.weak_type, x)

    prim.def_abstract_eval(abstract_eval)
    if tangent is None:
        ad.defjvp_zero(prim)
    else:
        def jvp_rule(primals, tangents, **params):
            (x,), (t,) = primals, tangents
            ans = prim.bind(x, **params)
            return ans, tangent(t, x, ans, **params)
        prim.def_jvp(jvp_rule)
    prim.def_batching(lambda vals, dims, **params: (prim.bind(*vals, **params), dims[0]))
    if hlo_op is not None:
        register_lowering(prim, _unary_lowering(hlo_op))
    sharding_rules.register(sharding_rules.SAME_AS_OPERAND, prim)
    return prim


def _unary_lowering(hlo_op):
    """The lowering rule of ``hlo_op``: an op class, built at the result's type with the
    equation's ``accuracy``, or a function building the op (``stablehlo.sign``, whose
    unsigned form is a select)."""
    if isinstance(hlo_op, type):
        return lambda ctx, x, **params: op_with_accuracy(ctx, hlo_op, x, **params)
    return lambda ctx, x: hlo_op(x).result


def unary_function(prim, doc, accuracy=False):
    """The lax function binding ``prim``; with ``accuracy``, JAX's ``accuracy=None`` option
    of a transcendental function (a ``Tolerance`` or an ``AccuracyMode``)."""
    if accuracy:
        def fn(x, *, accuracy=None):
            return prim.bind(x, **check_accuracy(prim.name, accuracy))
    else:
        def fn(x):
            return prim.bind(x)
    fn.__name__ = fn.__qualname__ = prim.name
    fn.__doc__ = doc
    return fn


def _logistic(x):
    return 1 / (1 + np.exp(-x))


def _logistic_formula(x, accuracy=None):
    """``1 / (1 + exp(-x))`` in lax ops, as JAX lowers logistic (not ``stablehlo.logistic``,
    whose XLA expansion rounds differently), for a float or complex ``x``; JAX's ops carry
    no ``accuracy``."""
    one = np.ones((), core.get_aval(x).dtype)
    return div(one, add(one, exp(neg(x))))


def _sinh_and_cosh(b):
    """``(sinh(b), cosh(b))`` from ``expm1``, exact near 0 where ``exp`` would cancel."""
    e1m, e2m = lax.expm1(b), lax.expm1(neg(b))
    return div(sub(e1m, e2m), 2.), div(add(add(e1m, e2m), 2.), 2.)


def _complex_sin(x):
    """sin(a + bj) = sin(a) cosh(b) + cos(a) sinh(b) j, JAX's formula: a zero ``a`` keeps
    a zero real part where cosh(b) is infinite (XLA's ``sine`` gives NaN there)."""
    a, b = lax.real(x), lax.imag(x)
    zero = np.zeros((), core.get_aval(a).dtype)
    a_is_zero = eq(a, zero)
    sin_a, cos_a = sin(a), cos(a)
    sinh, cosh = _sinh_and_cosh(b)
    re, im = mul(sin_a, cosh), mul(cos_a, sinh)
    on_the_imaginary_axis = lax.complex(zero, im)
    return select_n(a_is_zero, lax.complex(re, im), on_the_imaginary_axis)


def _complex_cos(x):
    """cos(a + bj) = cos(a) cosh(b) - sin(a) sinh(b) j, JAX's formula: a zero ``a`` gives
    an imaginary part of +0 (not -0, nor NaN where sinh(b) is infinite)."""
    a, b = lax.real(x), lax.imag(x)
    a_is_zero = eq(a, full_like(a, 0))
    sin_a, cos_a = sin(a), cos(a)
    sinh, cosh = _sinh_and_cosh(b)
    re, im = mul(cos_a, cosh), mul(neg(sin_a), sinh)
    on_the_real_axis = lax.complex(re, full_like(a, 0))  # (made first, as in JAX's text)
    return select_n(a_is_zero, lax.complex(re, im), on_the_real_axis)


def _with_complex_formula(hlo_op, complex_formula):
    """A lowering rule: ``hlo_op`` on real numbers, ``complex_formula`` (lax ops) on complex
    ones, as JAX lowers sin and cos (an ``accuracy`` goes on the real op only)."""
    formula = lower_fun(complex_formula)

    def rule(ctx, x, accuracy=None):
        if dtypes.is_complex(ctx.avals_in[0].dtype):
            return formula(ctx, x)
        return op_with_accuracy(ctx, hlo_op, x, accuracy)
    return rule


def _logistic_tangent(t, x, ans, accuracy=None):
    """``t ans (1 - ans)``; asked for the highest accuracy, JAX's ``t ans logistic(-x)``."""
    if accuracy is AccuracyMode.HIGHEST:
        return mul(t, mul(ans, logistic(neg(x))))
    return mul(t, mul(ans, sub(1., ans)))


# sin and cos as the seed writes them (cos(x) * x_dot): the same bits as JAX's t * cos(x).
# A tangent whose formula ignores the accuracy takes it (``accuracy=None``) all the same.
sin_p = unary_primitive('sin', np.sin, None,
                        lambda t, x, ans, accuracy=None: mul(cos(x, accuracy=accuracy), t),
                        eager_on_xla=True)
register_lowering(sin_p, _with_complex_formula(hlo.SineOp, _complex_sin))
cos_p = unary_primitive('cos', np.cos, None,
                        lambda t, x, ans, accuracy=None: mul(neg(sin(x, accuracy=accuracy)), t),
                        eager_on_xla=True)
register_lowering(cos_p, _with_complex_formula(hlo.CosineOp, _complex_cos))
exp_p = unary_primitive('exp', np.exp, hlo.ExpOp, lambda t, x, ans, accuracy=None: mul(t, ans),
                        eager_on_xla=True)
log_p = unary_primitive('log', np.log, hlo.LogOp, lambda t, x, ans, accuracy=None: div(t, x),
                        eager_on_xla=True)
log1p_p = unary_primitive('log1p', np.log1p, hlo.Log1pOp,
                          lambda t, x, ans, accuracy=None: div(t, add(x, 1.)), eager_on_xla=True)
# tanh's tangent, t (1 + ans) (1 - ans); asked for the highest accuracy, JAX's
# 4 t logistic(2x) logistic(-2x), accurate where ans is near 1.
tanh_p = unary_primitive(
    'tanh', np.tanh, hlo.TanhOp,
    lambda t, x, ans, accuracy=None: mul(add(t, mul(t, ans)), sub(1., ans))
    if accuracy is not AccuracyMode.HIGHEST else
    mul(t, mul(4., mul(logistic(mul(2., x), accuracy=accuracy),
                       logistic(mul(-2., x), accuracy=accuracy)))),
    eager_on_xla=True)
logistic_p = unary_primitive('logistic', _logistic, None, _logistic_tangent, eager_on_xla=True)
register_lowering(logistic_p, lower_fun(_logistic_formula))
# A real square root is correctly rounded everywhere; a complex one is XLA's own formula
# (sqrt(-inf-0j) is +inf j there, -inf j in NumPy).
sqrt_p = unary_primitive('sqrt', np.sqrt, hlo.SqrtOp,
                         lambda t, x, ans, accuracy=None: mul(t, div(.5, ans)),
                         eager_on_xla=dtypes.complex_operand)
rsqrt_p = unary_primitive('rsqrt', lambda x: 1 / np.sqrt(x), hlo.RsqrtOp,
                          lambda t, x, ans, accuracy=None: mul(t, mul(-.5, div(ans, x))),
                          eager_on_xla=True)

def _abs_tangent(t, x, ans):
    """``t`` where x >= 0, ``-t`` elsewhere: at the kink x = 0 (and -0.) JAX takes +1, so a
    weight trained from zero under an L1 penalty still moves. For complex ``x``, JAX's
    ``real(t * conj(x) / |x|)``, with |x| = 0 read as 1 (the tangent there is 0)."""
    dtype = core.get_aval(x).dtype
    if not dtypes.is_complex(dtype):
        return select_n(ge(x, full_like(x, 0)), neg(t), t)
    safe_ans = select_n(eq(ans, full_like(ans, 0)), ans, full_like(ans, 1))
    return lax.real(mul(t, div(lax.conj(x), convert_element_type(safe_ans, dtype))))


# A complex magnitude is XLA's formula (abs(inf + nan j) is NaN there, inf in NumPy).
abs_p = unary_primitive('abs', np.abs, hlo.AbsOp, _abs_tangent, accepts=SIGNED,
                        real_result=True, eager_on_xla=dtypes.complex_operand)


def _sign(x):
    """NumPy's sign, but XLA's where they differ: a zero keeps its sign (sign(-0.) is -0.),
    and a complex number is divided by its magnitude part by part, so an infinite part gives
    NaN (NumPy's unit direction makes sign(inf+1j) 1)."""
    if not dtypes.is_complex(x.dtype):
        return np.where(x == 0, x, np.sign(x)) if dtypes.is_float(x.dtype) else np.sign(x)
    magnitude = np.abs(x)
    parts = np.empty_like(x)
    parts.real, parts.imag = x.real / magnitude, x.imag / magnitude
    return np.where(magnitude == 0, x, parts)


def _sign_op(x):
    """``stablehlo.sign`` takes signed numbers only; an unsigned ``x`` is 0 or positive, so its
    sign is ``select(x == 0, 0, 1)``, as JAX lowers it."""
    element = x.type.element_type
    if not (isinstance(element, ir.IntegerType) and element.is_unsigned):
        return hlo.SignOp(x)
    zero, one = (hlo.ConstantOp(ir.DenseElementsAttr.get_splat(
        x.type, ir.IntegerAttr.get(element, value))).result for value in (0, 1))
    is_zero = hlo.CompareOp(x, zero, hlo.ComparisonDirectionAttr.get('EQ'),
                            compare_type=hlo.ComparisonTypeAttr.get('UNSIGNED')).result
    return hlo.SelectOp(is_zero, zero, one)


# A complex sign runs on XLA eagerly too: XLA flushes a subnormal complex64 magnitude to 0
# (sign(3e-39+4e-39j) is the operand itself there).
sign_p = unary_primitive('sign', _sign, _sign_op, None, accepts=NUMBER,
                         eager_on_xla=dtypes.complex_operand)

sin = unary_function(sin_p, 'Elementwise sine.', accuracy=True)
cos = unary_function(cos_p, 'Elementwise cosine.', accuracy=True)
exp = unary_function(exp_p, 'Elementwise e**x.', accuracy=True)
log = unary_function(log_p, 'Elementwise natural logarithm.', accuracy=True)
log1p = unary_function(log1p_p, 'Elementwise log(1 + x), accurate for small x.', accuracy=True)
tanh = unary_function(tanh_p, 'Elementwise hyperbolic tangent.', accuracy=True)
logistic = unary_function(logistic_p, 'Elementwise 1 / (1 + exp(-x)).', accuracy=True)
sqrt = unary_function(sqrt_p, 'Elementwise square root.', accuracy=True)
rsqrt = unary_function(rsqrt_p, 'Elementwise 1 / sqrt(x).', accuracy=True)
abs = unary_function(abs_p, 'Elementwise absolute value.')  # noqa: A001 (lax.abs, as in JAX)
sign = unary_function(sign_p, 'Elementwise sign: -1, 0 or 1.')

# neg is linear: its JVP is itself and it has a transpose.
neg_p = unary_primitive('neg', np.negative, hlo.NegOp, accepts=NUMBER)
ad.defjvp_linear(neg_p)
neg_p.def_transpose(lambda ct, x: [neg(ct)])
neg = unary_function(neg_p, 'Elementwise negation.')

# ----------------------------------------------------------------------------- binary


def _binary_abstract_eval(name, out_dtype=None, accepts=ANY):
    def abstract_eval(x, y):
        if accepts is not ANY and dtypes.kind(x.dtype) not in accepts[0]:
            raise TypeError(f'{name} needs {accepts[1]} operands, got {x.str_short()}')
        if x.dtype != y.dtype:
            raise same_dtypes_error(name, x.dtype, y.dtype)
        # Weak operands give a weak result, a comparison's too (JAX's rule for every n-ary op).
        return shared_aval(broadcast_shape(name, x.shape, y.shape), out_dtype or x.dtype,
                           x.weak_type and y.weak_type, x, y)
    return abstract_eval


def broadcast_shape(name, *shapes) -> tuple[int, ...]:
    """The shape of an elementwise op's result, by lax's broadcasting (JAX's rule, stricter
    than NumPy's): the operands that are not scalars have one rank, and along each axis one
    size, or 1, which grows to it."""
    shapes = [s for s in shapes if s]
    if not shapes:
        return ()
    if all(s == shapes[0] for s in shapes):  # (the commonest case, at least cost)
        return shapes[0]
    if len({len(s) for s in shapes}) != 1:  # (JAX's texts)
        raise TypeError(f'{name}: arrays must have the same number of dimensions, got '
                        f'{ {len(s) for s in shapes} }')
    result = []
    for sizes in zip(*shapes):
        grown = {n for n in sizes if n != 1}
        if len(grown) > 1:
            raise TypeError(f'{name} got incompatible shapes for broadcasting: '
                            f'{", ".join(str(tuple(s)) for s in shapes)}.')
        result.append(grown.pop() if grown else 1)
    return tuple(result)


def maybe_broadcast(x, shape):
    """``x`` broadcast to ``shape``, which it reaches by lax's broadcasting (a scalar, or
    axes of size 1 growing), as JAX writes it: the size-1 axes reshaped away, the rest
    broadcast in place."""
    x_shape = np.shape(x)
    if x_shape == shape:
        return x
    if not x_shape:
        return broadcast_in_dim(x, shape, ())
    kept = tuple(i for i, (n, m) in enumerate(zip(x_shape, shape)) if n == m)
    return broadcast_in_dim(lax.reshape(x, tuple(x_shape[i] for i in kept)), shape, kept)


#: The jnp function that promotes its operands where a lax binary op requires one dtype,
#: named in the error as JAX names it.
_JNP_EQUIVALENTS = {'add': 'add', 'sub': 'subtract', 'mul': 'multiply', 'div': 'divide',
                    'max': 'maximum', 'min': 'minimum', 'eq': 'equal', 'ne': 'not_equal',
                    'atan2': 'arctan2'}


def same_dtypes_error(name, *dtypes_given) -> TypeError:
    """JAX's error for a lax binary op given operands of different dtypes (lax does not
    promote; jnp does)."""
    message = (f'lax.{name} requires arguments to have the same dtypes, '
               f'got {", ".join(np.dtype(d).name for d in dtypes_given)}.')
    if name in _JNP_EQUIVALENTS:
        message += (f' (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that does '
                    'automatic type promotion on inputs).')
    return TypeError(message)


def binary_primitive(name, impl, lowering, out_dtype=None, accepts=ANY, eager_on_xla=False,
                     lowering_broadcasts=False):
    """Define a binary elementwise primitive: impl, abstract eval, batching and lowering.

    ``lowering(ctx, x, y)`` gets operands already broadcast to the result shape, unless it
    ``lowering_broadcasts`` them itself (a formula in lax ops, as JAX's). The
    differentiation rules differ per primitive and are given beside each definition.
    """
    prim = Primitive(name, eager_on_xla=eager_on_xla)
    prim.follows_device_operands = True
    prim.def_abstract_eval(_binary_abstract_eval(name, out_dtype, accepts))

    prim.def_impl(impl)
    batching.broadcasting_batcher(prim)
    register_lowering(prim, lowering if lowering_broadcasts else on_broadcast_operands(lowering))
    sharding_rules.register(sharding_rules.broadcasting_rule(name), prim)
    return prim


def on_broadcast_operands(lowering):
    """``lowering`` of an elementwise op given operands broadcast to the result's shape, and
    a context whose operand types say so (a ``lower_fun`` rule traces at them)."""
    def rule(ctx, *operands):
        out = ctx.avals_out[0]
        if any(a.shape != out.shape or a._sharding != out._sharding for a in ctx.avals_in):
            operands = broadcast_operands(ctx, operands)
            ctx = LoweringRuleContext(ctx.module_context, [
                a if a.shape == out.shape else _grown(a, out) for a in ctx.avals_in],
                ctx.avals_out, ctx.primitive)
        return lowering(ctx, *operands)
    return rule


def _grown(aval, out):
    """The type of the operand ``aval`` broadcast to ``out``'s shape: ``out`` itself where
    only the shape differs (``x * 2.``'s scalar), without making a new type."""
    if aval.dtype == out.dtype and aval.weak_type == out.weak_type and \
            aval._sharding is None and out._sharding is None:
        return out
    return aval.update(shape=out.shape)


def _binary_function(prim, doc):
    def fn(x, y):
        return prim.bind(*promote_weak_scalars(prim.name, x, y))
    fn.__name__ = fn.__qualname__ = prim.name
    fn.__doc__ = doc
    return fn


def promote_weak_scalars(name, x, y):
    """Give a weakly typed operand (a Python scalar) the dtype of the other operand."""
    x_aval, y_aval = core.shaped_aval(x), core.shaped_aval(y)
    if x_aval.dtype == y_aval.dtype:
        return x, y
    if type(x) in dtypes.PYTHON_SCALARS and type(y) in dtypes.PYTHON_SCALARS:
        raise same_dtypes_error(name, x_aval.dtype, y_aval.dtype)  # lax.add(1, 1.), as JAX
    if x_aval.weak_type and y_aval.weak_type:  # a weak float value and 1: the float's type
        if dtypes.is_float(x_aval.dtype):
            return x, _cast_weak(name, y, y_aval, x_aval)
        return _cast_weak(name, x, x_aval, y_aval), y
    if x_aval.weak_type:
        return _cast_weak(name, x, x_aval, y_aval), y
    if y_aval.weak_type:
        return x, _cast_weak(name, y, y_aval, x_aval)
    return x, y


def _cast_weak(name, x, aval, strong_aval):
    dtype = dtypes.weak_join(strong_aval.dtype, aval.dtype)
    if dtype is None:
        raise TypeError(f'{name}: a weakly typed {aval.dtype.name} scalar cannot be combined '
                        f'with {strong_aval.str_short()} without losing its fraction')
    if isinstance(x, Tracer) or strong_aval.weak_type:  # weak and weak: still weak
        return convert_element_type(x, dtype, weak_type=strong_aval.weak_type)
    return np.asarray(x, dtype)


def _hlo_binary(op):
    return lambda ctx, x, y: emit(op.OPERATION_NAME, ctx.result_type(), x, y)


def _integer_divide(x, y):
    """C-style division (truncating towards zero), as StableHLO divides integers, with XLA's
    answers where C has none: ``x / 0`` is -1 (all bits set, the maximum if unsigned),
    ``INT_MIN / -1`` wraps to INT_MIN."""
    by_zero = y == 0
    safe_y = np.where(by_zero, np.ones_like(y), y)
    with np.errstate(over='ignore'):  # INT_MIN // -1
        quotient = np.floor_divide(x, safe_y)
    rounds_down = (np.remainder(x, safe_y) != 0) & ((x < 0) != (safe_y < 0))
    truncated = quotient + rounds_down.astype(quotient.dtype)
    return np.where(by_zero, ~np.zeros((), truncated.dtype), truncated)


def _divide(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return np.divide(x, y) if dtypes.is_inexact(x.dtype) else _integer_divide(x, y)


def safe_integer_divisor(ctx, x, y):
    """``(by_zero, safe_y)`` for an integer ``stablehlo.divide`` or ``remainder``: ``y`` with
    1 where C leaves the result undefined (``y == 0``, and ``INT_MIN / -1`` for signed
    types), so no executor ever divides by them: a CPU traps on both (SIGFPE), and XLA's
    constant folding would too. The caller picks XLA's answer where ``by_zero``; dividing
    INT_MIN by 1 instead of -1 already gives XLA's INT_MIN (and remainder 0)."""
    dtype = ctx.avals_out[0].dtype

    def full(value):
        return hlo_broadcast_in_dim(constant(np.array(value, dtype)), ctx.avals_out[0], [])

    by_zero = compare(y, full(0), 'EQ', dtype)
    undefined = by_zero
    if dtypes.kind(dtype) == 'i':
        overflows = hlo.AndOp(compare(x, full(np.iinfo(dtype).min), 'EQ', dtype),
                              compare(y, full(-1), 'EQ', dtype)).result
        undefined = hlo.OrOp(by_zero, overflows).result
    return by_zero, hlo.SelectOp(undefined, full(1), y).result


def _div_lowering(ctx, x, y):
    """``stablehlo.divide``; for integers, with XLA's answers (``x / 0`` = -1, ``INT_MIN /
    -1`` = INT_MIN) chosen in the program itself (see ``safe_integer_divisor``)."""
    aval = ctx.avals_out[0]
    if dtypes.is_inexact(aval.dtype):
        return hlo.DivOp(x, y).result
    by_zero, safe_y = safe_integer_divisor(ctx, x, y)
    all_ones = hlo_broadcast_in_dim(constant(~np.zeros((), aval.dtype)), aval, [])
    return hlo.SelectOp(by_zero, all_ones, hlo.DivOp(x, safe_y).result).result


# sub and div take numbers, not bools (JAX's TypeError; StableHLO has no subtract or divide
# of i1). add and mul of bools are or and and (jnp.add and jnp.multiply use them so).
add_p = binary_primitive('add', np.add, _hlo_binary(hlo.AddOp))
sub_p = binary_primitive('sub', np.subtract, _hlo_binary(hlo.SubtractOp), accepts=NUMBER)
mul_p = binary_primitive('mul', np.multiply, _hlo_binary(hlo.MulOp))
div_p = binary_primitive('div', _divide, _div_lowering, accepts=NUMBER,
                         eager_on_xla=True)  # XLA rewrites x / c

add = _binary_function(add_p, 'Elementwise x + y.')
sub = _binary_function(sub_p, 'Elementwise x - y.')


def mul(x, y, *, out_dtype=None):
    """Elementwise ``x * y``."""
    default_options_only('mul', out_dtype=out_dtype)
    return mul_p.bind(*promote_weak_scalars('mul', x, y))


div = _binary_function(div_p, 'Elementwise x / y (truncating for integers).')

ad.defjvp(mul_p, lambda t, x, y: mul(t, y), lambda t, x, y: mul(x, t))
ad.defjvp(div_p, lambda t, x, y: div(t, y),
          lambda t, x, y: mul(mul(neg(t), x), integer_pow(y, -2)))


def unbroadcast(ct, aval: ShapedArray):
    """``ct`` summed back down to ``aval``: the transpose of implicit broadcasting (of a
    scalar, or of axes of size 1)."""
    ct_aval = core.get_aval(ct)
    if ct_aval.shape != aval.shape and not aval.shape:
        ct = lax.reduce_sum(ct, tuple(range(ct_aval.ndim)))
    elif ct_aval.shape != aval.shape:
        grown = tuple(i for i, (n, m) in enumerate(zip(ct_aval.shape, aval.shape)) if n != m)
        ct = lax.reshape(lax.reduce_sum(ct, grown), aval.shape)
    if ct_aval.dtype != aval.dtype:
        ct = convert_element_type(ct, aval.dtype)
    return ct


def _add_transpose(ct, x, y):
    return [unbroadcast(ct, x.aval) if is_undefined_primal(x) else None,
            unbroadcast(ct, y.aval) if is_undefined_primal(y) else None]


def _sub_transpose(ct, x, y):
    return [unbroadcast(ct, x.aval) if is_undefined_primal(x) else None,
            unbroadcast(neg(ct), y.aval) if is_undefined_primal(y) else None]


def _mul_transpose(ct, x, y):
    if is_undefined_primal(x) and is_undefined_primal(y):
        raise TypeError('mul is not linear in both operands at once: cannot transpose x * y '
                        'when both x and y are linear inputs')
    if is_undefined_primal(x):
        return [unbroadcast(mul(ct, y), x.aval), None]
    return [None, unbroadcast(mul(x, ct), y.aval)]


def _div_transpose(ct, x, y):
    if is_undefined_primal(y):
        raise TypeError('div is linear only in its numerator: cannot transpose with respect '
                        'to the denominator')
    return [unbroadcast(div(ct, y), x.aval), None]


add_p.def_transpose(_add_transpose)
sub_p.def_transpose(_sub_transpose)
mul_p.def_transpose(_mul_transpose)
div_p.def_transpose(_div_transpose)


def _add_jvp(primals, tangents):
    """JAX's: ``add`` of the tangents (``add_any`` is for the tangents of *one* value)."""
    (x, y), (tx, ty) = primals, tangents
    return _linear_binary_jvp(add(x, y), tx, ty, add, lambda t: t)


def _sub_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return _linear_binary_jvp(sub(x, y), tx, ty, sub, neg)


def _linear_binary_jvp(out, tx, ty, both, only_y):
    """``both(tx, ty)``, or the one nonzero tangent (``only_y`` applied to ``ty``) broadcast
    to the output's shape, as JAX's JVPs of ``add`` and ``sub`` are."""
    out_aval = core.get_aval(out)
    if isinstance(tx, ad.Zero) and isinstance(ty, ad.Zero):
        return out, ad.Zero(out_aval)
    if isinstance(ty, ad.Zero):
        return out, maybe_broadcast(tx, out_aval.shape)
    if isinstance(tx, ad.Zero):
        return out, maybe_broadcast(only_y(ty), out_aval.shape)
    return out, both(tx, ty)


add_p.def_jvp(_add_jvp, symbolic_zeros=True)
sub_p.def_jvp(_sub_jvp, symbolic_zeros=True)

# ----------------------------------------------------------------------------- add_any

# ``add_any`` (JAX's ``add_jaxvals_p``) adds two contributions to one derivative: the
# cotangents a value receives from each of its uses (``backward_pass``), the tangent terms of
# a JVP rule (``defjvp``). It computes what ``add`` does, but being its own primitive it
# marks, in a printed jaxpr, the sums autodiff made, as JAX's jaxprs do.
add_any_p = Primitive('add_any')


def add_any(x, y):
    """``x + y`` for two values of one type, as differentiation accumulates them."""
    return add_any_p.bind(x, y)


def _add_any_abstract_eval(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        raise TypeError(f'add_any adds two values of one type, got {x.str_short()} and '
                        f'{y.str_short()}')
    return shared_aval(x.shape, x.dtype, x.weak_type, x)  # JAX's: the first operand's type


def _add_any_transpose(ct, x, y):
    """Fan-out: each linear operand receives the whole cotangent."""
    return [ct if is_undefined_primal(x) else None, ct if is_undefined_primal(y) else None]


def _add_any_batching(vals, dims):
    """As JAX's: the operands meet at the second one's batch axis (the first's if the second
    is unbatched), an unbatched operand broadcast along it."""
    out_dim = dims[0] if dims[1] is batching.not_mapped else dims[1]
    size = batching.axis_size_of(vals, dims)
    return add_any(*(v if d == out_dim else batching.move_batch_axis(size, d, out_dim, v)
                     for v, d in zip(vals, dims))), out_dim


add_any_p.def_impl(lambda x, y: np.add(np.asarray(x), np.asarray(y)))
add_any_p.def_abstract_eval(_add_any_abstract_eval)
ad.defjvp_linear(add_any_p)
add_any_p.def_transpose(_add_any_transpose)
add_any_p.def_batching(_add_any_batching)
register_lowering(add_any_p, _hlo_binary(hlo.AddOp))

# ----------------------------------------------------------------------------- max, min, pow

def _signed_zero_chooser(np_chooser, negative_zero, np_compare):
    """NumPy's maximum or minimum (both propagate NaN, as XLA does) with XLA's order of
    signed zeros, -0. below +0.: a tie of zeros is -0. where ``negative_zero(signbit(x),
    signbit(y))``, which is ``logical_and`` for max and ``logical_or`` for min. Complex
    numbers compare as ``lowering.ops.choose`` compares them (``np_compare``: np.greater for
    max, np.less for min)."""
    def impl(x, y):
        x, y = np.asarray(x), np.asarray(y)
        if dtypes.is_complex(np.result_type(x, y)):
            x_wins = np.where(x.real == y.real, np_compare(x.imag, y.imag),
                              np_compare(x.real, y.real))
            return np.where(x_wins, x, y)
        chosen = np_chooser(x, y)
        if not dtypes.is_float(chosen.dtype):
            return chosen
        zero_tie = (x == 0) & (y == 0)
        zero = np.where(negative_zero(np.signbit(x), np.signbit(y)), -0., 0.)
        return np.where(zero_tie, zero, chosen).astype(chosen.dtype)
    return impl


max_p = binary_primitive('max', _signed_zero_chooser(np.maximum, np.logical_and, np.greater),
                         lambda ctx, x, y: choose(x, y, 'GT', ctx.avals_in[0].dtype))
min_p = binary_primitive('min', _signed_zero_chooser(np.minimum, np.logical_or, np.less),
                         lambda ctx, x, y: choose(x, y, 'LT', ctx.avals_in[0].dtype))
pow_p = binary_primitive('pow', np.power, _hlo_binary(hlo.PowOp), accepts=INEXACT,
                         eager_on_xla=True)

max = _binary_function(max_p, 'Elementwise maximum (NaN if either is NaN).')  # noqa: A001
min = _binary_function(min_p, 'Elementwise minimum (NaN if either is NaN).')  # noqa: A001


def pow(x, y):  # noqa: A001 (lax.pow, as in JAX)
    """Elementwise ``x ** y``; an integer exponent ``y`` of an inexact ``x`` is first
    converted to ``x``'s dtype, as JAX converts it."""
    x_dtype, y_dtype = core.shaped_aval(x).dtype, core.shaped_aval(y).dtype
    if dtypes.is_inexact(x_dtype) and dtypes.is_integer(y_dtype):
        y = convert_element_type(y, x_dtype)
    return pow_p.bind(*promote_weak_scalars('pow', x, y))


def _share_of_ties(x, ans, y):
    """1 where ``x`` alone attains ``ans``, 1/2 where ``x`` and ``y`` tie, 0 elsewhere.

    Splitting ties evenly makes max/min differentiable the way JAX is: the derivative of
    ``max(x, x)`` is 1, half through each operand.
    """
    dtype = core.get_aval(ans).dtype
    attains = convert_element_type(eq(x, ans), dtype)
    return div(attains, add(1., convert_element_type(eq(y, ans), dtype)))


def _chooser_jvp(prim):
    def rule(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        ans = prim.bind(x, y)
        terms = [mul(t, _share_of_ties(a, ans, b))
                 for t, a, b in [(tx, x, y), (ty, y, x)] if not isinstance(t, ad.Zero)]
        return ans, (add_any(*terms) if len(terms) == 2 else terms[0])
    prim.def_jvp(rule, symbolic_zeros=True)


_chooser_jvp(max_p)
_chooser_jvp(min_p)


def _scalar_like(x, value):
    """``value`` as a weakly typed scalar of ``x``'s dtype: a rule's constant takes the type
    of the value it meets, even a Python scalar's (lax refuses two of different kinds)."""
    return scalar(value, core.get_aval(x).dtype, weak_type=True)


def _replace_zero(x):
    """``x`` with its zeros made ones (where a derivative's formula would divide by them)."""
    return select_n(eq(x, np.zeros((), core.get_aval(x).dtype)), x, full_like(x, 1))


def _pow_jvp(primals, tangents):
    """JAX's: d/dx x**y = y x**(y - 1) (NaN at 0**0 as in JAX, where 0 * inf is NaN) and
    d/dy x**y = log(x) x**y, taken at x = 1 where x is 0."""
    (x, y), (tx, ty) = primals, tangents
    ans = pow_p.bind(x, y)
    terms = []
    if not isinstance(tx, ad.Zero):
        dtype = core.get_aval(x).dtype
        x_, y_ = convert_element_type(x, dtype), convert_element_type(y, dtype)
        terms.append(mul(tx, mul(y_, pow(x_, sub(y_, full_like(y_, 1))))))
    if not isinstance(ty, ad.Zero):
        terms.append(convert_element_type(mul(ty, mul(log(_replace_zero(x)), ans)),
                                          core.get_aval(y).dtype))
    if not terms:
        return ans, ad.Zero(core.get_aval(ans))
    return ans, terms[0] if len(terms) == 1 else add_any(*terms)


pow_p.def_jvp(_pow_jvp, symbolic_zeros=True)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """A constant with the shape, dtype and weak type of ``x`` (a broadcast scalar), or the
    ``dtype`` (then strongly typed) and ``shape`` given; sharded as ``x``'s type is when
    its shape is kept, as JAX does (a cotangent's zeros are laid out as the cotangent)."""
    aval = core.get_aval(x)
    if sharding is None and shape is None:
        sharding = getattr(aval, '_sharding', None)
    return full(aval.shape if shape is None else shape, fill_value,
                aval.dtype if dtype is None else dtype, sharding=sharding,
                weak_type=aval.weak_type and dtype is None)


# ----------------------------------------------------------------------------- integer_pow

integer_pow_p = Primitive('integer_pow', eager_on_xla=True)  # NumPy's power calls libm


def integer_pow(x, y: int):
    """Elementwise ``x ** y`` for a static integer ``y``: lowered to multiplications."""
    try:
        y = operator.index(y)
    except TypeError:
        raise TypeError(f'integer_pow: y must be a static integer, got {y!r} of type '
                        f'{type(y).__name__} (lax.pow takes other exponents)') from None
    return integer_pow_p.bind(x, y=y)


def _integer_pow_abstract_eval(x, *, y):
    if (y < 0 and not dtypes.is_inexact(x.dtype)) or x.dtype == dtypes.bool_:
        raise TypeError(f'integer_pow: {x.str_short()} to the power {y} is not supported '
                        '(negative powers need a float operand)')
    return shared_aval(x.shape, x.dtype, x.weak_type, x)


def _integer_pow_jvp(t, x, *, y):
    if y == 0:
        return full_like(t, 0)
    return mul(t, mul(_scalar_like(x, y), x if y == 2 else integer_pow(x, y - 1)))


def _square_and_multiply(x, *, y):
    """``x ** y`` in O(log |y|) products of lax ops, as JAX lowers integer_pow."""
    if y == 0:
        return full_like(x, 1)
    acc, n = None, -y if y < 0 else y  # (lax.abs is abs here)
    while n:
        if n & 1:
            acc = x if acc is None else mul(acc, x)
        n >>= 1
        if n:
            x = mul(x, x)
    return div(full_like(acc, 1), acc) if y < 0 else acc


def _integer_pow_lowering(ctx, x, *, y):
    """JAX's: the powers 1, 2, 3 and -1 as ops (a cube is ``(x * x) * x``), the others by
    square-and-multiply in lax ops."""
    if y == 1:
        return x
    if y in (2, 3):
        square = hlo.MulOp(x, x).result
        return square if y == 2 else hlo.MulOp(square, x).result
    if y == -1:
        return hlo.DivOp(full_like_aval(1, ctx.avals_in[0]), x).result
    return lower_fun(_square_and_multiply)(ctx, x, y=y)


integer_pow_p.def_impl(lambda x, *, y: np.power(np.asarray(x), y))
integer_pow_p.def_abstract_eval(_integer_pow_abstract_eval)
ad.defjvp(integer_pow_p, _integer_pow_jvp)
integer_pow_p.def_batching(lambda vals, dims, *, y: (integer_pow(vals[0], y), dims[0]))
register_lowering(integer_pow_p, _integer_pow_lowering)

# ----------------------------------------------------------------------------- comparisons


def _comparison(name, impl, direction, total_order=False):
    """A comparison primitive; ``total_order`` ones order real numbers only (XLA's verifier
    refuses TOTALORDER on complex numbers, so JAX's eq_to of them fails when compiled)."""
    equality = direction in ('EQ', 'NE') and not total_order
    prim = binary_primitive(
        name, impl,
        lambda ctx, x, y: compare(x, y, direction, ctx.avals_in[0].dtype, total_order),
        out_dtype=dtypes.bool_, accepts=ANY if equality else ORDERED)
    ad.defjvp_zero(prim)
    return prim


def total_order_key(x):
    """``x`` as integers in the order XLA's ``TOTALORDER`` gives floats: -NaN < -inf < ...
    < -0. < +0. < ... < inf < NaN (a float's bits as a signed integer, the magnitude bits
    flipped below zero); other dtypes as they are."""
    x = np.asarray(x)
    if not dtypes.is_float(x.dtype):
        return x
    bits = x.view(np.dtype(f'i{x.dtype.itemsize}'))
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _on_total_order_keys(compare_keys):
    return lambda x, y: compare_keys(total_order_key(x), total_order_key(y))


eq_p = _comparison('eq', np.equal, 'EQ')
ne_p = _comparison('ne', np.not_equal, 'NE')
gt_p = _comparison('gt', np.greater, 'GT')
ge_p = _comparison('ge', np.greater_equal, 'GE')
lt_p = _comparison('lt', np.less, 'LT')
le_p = _comparison('le', np.less_equal, 'LE')
# The total-order comparisons (JAX's, for sort's comparators): -0. below +0., NaNs ordered.
eq_to_p = _comparison('eq_to', _on_total_order_keys(np.equal), 'EQ', total_order=True)
le_to_p = _comparison('le_to', _on_total_order_keys(np.less_equal), 'LE', total_order=True)
lt_to_p = _comparison('lt_to', _on_total_order_keys(np.less), 'LT', total_order=True)
eq = _binary_function(eq_p, 'Elementwise x == y (a bool array).')
ne = _binary_function(ne_p, 'Elementwise x != y (a bool array).')
gt = _binary_function(gt_p, 'Elementwise x > y (a bool array).')
ge = _binary_function(ge_p, 'Elementwise x >= y (a bool array).')
lt = _binary_function(lt_p, 'Elementwise x < y (a bool array).')
le = _binary_function(le_p, 'Elementwise x <= y (a bool array).')
greater, less = gt, lt  # minijax's first names for them, which its own modules use

# ----------------------------------------------------------------------------- select_n

select_n_p = Primitive('select_n')
select_n_p.follows_device_operands = True


def select_n(which, *cases):
    """Elementwise ``cases[which]``: ``which`` is bool (two cases: false, true) or an integer.

    ``which`` has the cases' shape or is a scalar (one choice for the whole array). One case
    is the answer whatever ``which`` says, as in JAX.
    """
    if len(cases) == 1:
        return cases[0]
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """Elementwise ``on_true`` where the boolean ``pred`` holds, else ``on_false``."""
    return select_n(pred, on_false, on_true)


def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise ValueError('select_n needs at least one case')
    first = cases[0]
    if any(c.shape != first.shape or c.dtype != first.dtype for c in cases):
        raise TypeError('select_n cases must share one type, got '
                        f'{", ".join(c.str_short() for c in cases)}')
    if which.dtype != dtypes.bool_ and not dtypes.is_integer(which.dtype):
        raise TypeError(f'select `which` must be boolean or integer type, got {which.dtype}.')
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError('select with boolean `which` cannot have > 2 cases.')
    if which.shape and which.shape != first.shape:
        raise TypeError(f'select_n: which has shape {which.shape} but the cases have shape '
                        f'{first.shape} (which must match them or be a scalar)')
    return ShapedArray(first.shape, first.dtype, all(c.weak_type for c in cases))


def _select_n_impl(which, *cases):
    return np.choose(np.asarray(which, np.int64), [np.asarray(c) for c in cases])


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = select_n(which, *cases)
    if all(isinstance(t, ad.Zero) for t in tangents[1:]):
        return out, ad.Zero(core.get_aval(out))
    return out, select_n(which, *(ad.instantiate(t) for t in tangents[1:]))


def _select_n_transpose(ct, which, *cases):
    if is_undefined_primal(which):
        raise TypeError('select_n is not linear in its selector')
    zeros = full_like(ct, 0)
    return [None] + [select_n(which, *(ct if j == i else zeros for j in range(len(cases))))
                     if is_undefined_primal(c) else None
                     for i, c in enumerate(cases)]


def _select_n_batching(vals, dims):
    """JAX's rule: operands batched alike (or a scalar ``which`` and cases of one shape)
    select where they are, the batch axis staying put; otherwise every batch axis moves to
    the front, and an unbatched scalar ``which`` stays a scalar."""
    size = batching.axis_size_of(vals, dims)
    (which, *cases), (which_dim, *case_dims) = vals, dims
    shapes = [np.shape(c) for c in cases]
    if all(d == which_dim for d in case_dims):
        if np.shape(which) != shapes[0]:  # one choice per example
            which = broadcast_in_dim(which, shapes[0], (which_dim,))
        return select_n(which, *cases), which_dim
    if not np.ndim(which) and batching.not_mapped not in case_dims:
        if len(set(case_dims)) == 1:
            return select_n(which, *cases), case_dims[0]
        if len(set(shapes)) == 1:
            first = case_dims[0]
            return select_n(which, cases[0], *(batching.moveaxis(c, d, first) for c, d in
                                               zip(cases[1:], case_dims[1:]))), first
    if np.ndim(which):
        which = batching.move_batch_axis(size, which_dim, 0, which)
    if any(shapes):
        cases = [batching.move_batch_axis(size, d, 0, c) for c, d in zip(cases, case_dims)]
    shape = np.shape(cases[0])
    if 0 < np.ndim(which) < len(shape):  # one choice per example
        which = broadcast_in_dim(which, shape, (0,))
    if np.ndim(which) > len(shape):  # scalar cases, batched ``which``
        cases = [broadcast_in_dim(c, np.shape(which), ()) for c in cases]
    return select_n(which, *cases), 0


def _select_n_lowering(ctx, which, *cases):
    """``stablehlo.select`` for a bool; a binary tree of selects on ``which < k`` for an
    integer."""
    if ctx.avals_in[0].dtype == dtypes.bool_:
        return cases[0] if len(cases) == 1 else hlo.SelectOp(which, cases[1], cases[0]).result
    which_aval = ctx.avals_in[0]

    def tree(lo, hi):
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        bound = constant(np.array(mid, which_aval.dtype))
        if which_aval.shape:
            bound = hlo_broadcast_in_dim(bound, which_aval, [])
        pred = compare(which, bound, 'LT', which_aval.dtype)
        return hlo.SelectOp(pred, tree(lo, mid), tree(mid, hi)).result

    return tree(0, len(cases))


select_n_p.def_impl(_select_n_impl)
select_n_p.def_abstract_eval(_select_n_abstract_eval)
select_n_p.def_jvp(_select_n_jvp, symbolic_zeros=True)
select_n_p.def_transpose(_select_n_transpose)
select_n_p.def_batching(_select_n_batching)
register_lowering(select_n_p, _select_n_lowering)

# ----------------------------------------------------------------------------- conversion

convert_element_type_p = Primitive('convert_element_type')
convert_element_type_p.follows_device_operands = True


def convert_element_type(operand, new_dtype, *, weak_type=False):
    """``operand`` cast to ``new_dtype`` (one of minijax's supported dtypes); weakly typed with
    ``weak_type``, a minijax option, as a Python scalar is (JAX's internal
    ``_convert_element_type``)."""
    new_dtype = dtypes.check_supported(new_dtype, 'convert_element_type target')
    if isinstance(operand, (Tracer, Array)) and \
            (operand.dtype, operand.aval.weak_type) == (new_dtype, weak_type):
        return operand  # already of that type: nothing to stage, as in JAX
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type))


def in_float32_if_narrow(fn, x, *args):
    """``fn(x, *args)``, for a float16 or bfloat16 ``x`` computed in float32 and rounded back
    once: how XLA expands its composite ops for these types (``chlo.erf``, ``erf_inv``) and
    how ``jnp.sum``, ``mean`` and ``var`` compute them. 8 or 11 significant bits are too few
    for a running sum, and a polynomial's coefficients overflow float16."""
    aval = core.get_aval(x)
    if aval.dtype not in dtypes.NARROW_FLOATS:
        return fn(x, *args)
    return convert_element_type(fn(convert_element_type(x, dtypes.float32), *args), aval.dtype,
                                weak_type=aval.weak_type)


def _convert_element_type_impl(x, *, new_dtype, weak_type):
    x = np.asarray(x)
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = np.real(x)  # complex -> real keeps the real part, as in JAX (and silently)
    if dtypes.is_float(x.dtype) and dtypes.is_integer(new_dtype):
        return _float_to_int(x, new_dtype)
    with np.errstate(over='ignore', invalid='ignore'):  # float64 -> float32 overflows to
        return x.astype(new_dtype)                      # +-inf, as in XLA


def _float_to_int(x, new_dtype):
    """XLA's float -> int conversion: truncate towards zero, saturate values out of range to
    the type's minimum or maximum (infinities too; 0 for negatives to unsigned), and map NaN
    to 0. (NumPy's cast leaves those cases undefined.)"""
    info = np.iinfo(new_dtype)
    truncated = np.trunc(x.astype(np.float64))  # exact for every float type minijax has
    low, high = float(info.min), 2. ** (info.bits - (info.min < 0))  # both exact in float64
    in_range = (truncated >= low) & (truncated < high)  # False for NaN
    safe = np.where(in_range, truncated, 0).astype(new_dtype)
    return np.where(truncated >= high, info.max, np.where(truncated < low, info.min, safe)
                    ).astype(new_dtype)


convert_element_type_p.def_impl(_convert_element_type_impl)
tracing.const_fold_rules[convert_element_type_p] = _convert_element_type_impl
convert_element_type_p.def_abstract_eval(
    lambda x, *, new_dtype, weak_type: ShapedArray(x.shape, new_dtype, weak_type))
convert_element_type_p.def_batching(lambda vals, dims, **params: (
    convert_element_type_p.bind(vals[0], **params), dims[0]))


def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    (x,), (t,) = primals, tangents
    out = convert_element_type(x, new_dtype, weak_type=weak_type)
    if not (dtypes.is_inexact(new_dtype) and dtypes.is_inexact(core.get_aval(x).dtype)):
        return out, ad.Zero(core.get_aval(out))
    return out, convert_element_type(ad.instantiate(t), new_dtype, weak_type=weak_type)


convert_element_type_p.def_jvp(_convert_jvp, symbolic_zeros=True)
convert_element_type_p.def_transpose(lambda ct, x, **params: [
    convert_element_type(ct, x.aval.dtype, weak_type=x.aval.weak_type)])


def _convert_lowering(ctx, x, **params):
    """``stablehlo.convert``, as JAX writes it: complex -> real takes ``stablehlo.real`` first
    (StableHLO's convert would not drop the imaginary part), and -> bool compares with zero
    first (``x != 0``, where a convert of an integer could truncate its bits)."""
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if dtypes.is_complex(aval_in.dtype) and not dtypes.is_complex(aval_out.dtype):
        x = hlo.RealOp(x).result
        aval_in = aval_in.update(dtype=dtypes.real_part_dtype(aval_in.dtype))
    if aval_out.dtype == dtypes.bool_:
        x = compare(x, full_like_aval(0, aval_in), 'NE', aval_in.dtype)
    return hlo.ConvertOp(tensor_type(aval_out), x).result


register_lowering(convert_element_type_p, _convert_lowering)
