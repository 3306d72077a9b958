"""Elementwise primitives, each defined in one place with every rule.

A unary primitive is one ``unary_primitive`` call: its NumPy implementation, its StableHLO
op and its derivative. A binary primitive takes two operands of one dtype whose shapes are
equal, or one of which is a scalar (broadcast implicitly, as a Python scalar in ``x * 2.`` is).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray, Tracer
from minijax.interpreters import batching, jvp as ad
from minijax.interpreters.transpose import is_undefined_primal, unbroadcast
from minijax.lowering import register_lowering, tensor_type
from minijax.lowering.ops import broadcast_scalars, compare

# ----------------------------------------------------------------------------- unary


def unary_primitive(name, impl, hlo_op, derivative=None, float_only=True):
    """Define ``name`` with all its rules.

    ``derivative(x, ans)`` is d(ans)/dx as an expression in lax ops (``ans`` = the output);
    ``None`` means the primitive is not differentiable (its tangent is zero).
    """
    prim = Primitive(name)
    prim.def_impl(lambda x: impl(np.asarray(x)))

    def abstract_eval(x):
        if float_only and not dtypes.is_float(x.dtype):
            raise TypeError(f'{name} needs a floating-point operand, got {x.str_short()}')
        return ShapedArray(x.shape, x.dtype, x.weak_type)

    prim.def_abstract_eval(abstract_eval)
    if derivative is None:
        ad.defjvp_zero(prim)
    else:
        def jvp_rule(primals, tangents):
            (x,), (t,) = primals, tangents
            ans = prim.bind(x)
            return ans, mul(t, derivative(x, ans))
        prim.def_jvp(jvp_rule)
    prim.def_batching(lambda vals, dims: (prim.bind(*vals), dims[0]))
    register_lowering(prim, lambda ctx, x: hlo_op(x).result)
    return prim


def _unary_function(prim, doc):
    def fn(x):
        return prim.bind(x)
    fn.__name__ = fn.__qualname__ = prim.name
    fn.__doc__ = doc
    return fn


def _logistic(x):
    return 1 / (1 + np.exp(-x))


sin_p = unary_primitive('sin', np.sin, hlo.SineOp, lambda x, ans: cos(x))
cos_p = unary_primitive('cos', np.cos, hlo.CosineOp, lambda x, ans: neg(sin(x)))
exp_p = unary_primitive('exp', np.exp, hlo.ExpOp, lambda x, ans: ans)
log_p = unary_primitive('log', np.log, hlo.LogOp, lambda x, ans: div(1., x))
tanh_p = unary_primitive('tanh', np.tanh, hlo.TanhOp, lambda x, ans: sub(1., mul(ans, ans)))
logistic_p = unary_primitive('logistic', _logistic, hlo.LogisticOp,
                             lambda x, ans: mul(ans, sub(1., ans)))
sqrt_p = unary_primitive('sqrt', np.sqrt, hlo.SqrtOp, lambda x, ans: div(.5, ans))
rsqrt_p = unary_primitive('rsqrt', lambda x: 1 / np.sqrt(x), hlo.RsqrtOp,
                          lambda x, ans: mul(-.5, div(ans, x)))
abs_p = unary_primitive('abs', np.abs, hlo.AbsOp, lambda x, ans: sign(x), float_only=False)
sign_p = unary_primitive('sign', np.sign, hlo.SignOp, None, float_only=False)

sin = _unary_function(sin_p, 'Elementwise sine.')
cos = _unary_function(cos_p, 'Elementwise cosine.')
exp = _unary_function(exp_p, 'Elementwise e**x.')
log = _unary_function(log_p, 'Elementwise natural logarithm.')
tanh = _unary_function(tanh_p, 'Elementwise hyperbolic tangent.')
logistic = _unary_function(logistic_p, 'Elementwise 1 / (1 + exp(-x)).')
sqrt = _unary_function(sqrt_p, 'Elementwise square root.')
rsqrt = _unary_function(rsqrt_p, 'Elementwise 1 / sqrt(x).')
abs = _unary_function(abs_p, 'Elementwise absolute value.')  # noqa: A001 (lax.abs, as in JAX)
sign = _unary_function(sign_p, 'Elementwise sign: -1, 0 or 1.')

# neg is linear: its JVP is itself and it has a transpose.
neg_p = unary_primitive('neg', np.negative, hlo.NegOp, float_only=False)
ad.defjvp_linear(neg_p)
neg_p.def_transpose(lambda ct, x: [neg(ct)])
neg = _unary_function(neg_p, 'Elementwise negation.')

# ----------------------------------------------------------------------------- binary


def _binary_abstract_eval(name, out_dtype=None):
    def abstract_eval(x, y):
        if x.dtype != y.dtype or (x.shape != y.shape and x.shape and y.shape):
            raise TypeError(f'{name} got incompatible operands {x.str_short()} and '
                            f'{y.str_short()}: they need one dtype and equal shapes '
                            '(or a scalar)')
        return ShapedArray(x.shape or y.shape, out_dtype or x.dtype,
                           x.weak_type and y.weak_type)
    return abstract_eval


def binary_primitive(name, impl, lowering, out_dtype=None):
    """Define a binary elementwise primitive: impl, abstract eval, batching and lowering.

    ``lowering(ctx, x, y)`` gets operands already broadcast to the result shape. The
    differentiation rules differ per primitive and are given beside each definition.
    """
    prim = Primitive(name)
    abstract_eval = prim.def_abstract_eval(_binary_abstract_eval(name, out_dtype))

    def checked_impl(x, y):
        abstract_eval(core.get_aval(x), core.get_aval(y))
        return impl(x, y)

    prim.def_impl(checked_impl)
    batching.broadcasting_batcher(prim)
    register_lowering(prim, lambda ctx, x, y: lowering(ctx, *broadcast_scalars(ctx, [x, y])))
    return prim


def _binary_function(prim, doc):
    def fn(x, y):
        return prim.bind(*promote_weak_scalars(prim.name, x, y))
    fn.__name__ = fn.__qualname__ = prim.name
    fn.__doc__ = doc
    return fn


def promote_weak_scalars(name, x, y):
    """Give a weakly typed operand (a Python scalar) the dtype of the other operand."""
    x_aval, y_aval = core.get_aval(x), core.get_aval(y)
    if x_aval.dtype == y_aval.dtype or x_aval.weak_type == y_aval.weak_type:
        return x, y
    if x_aval.weak_type:
        return _cast_weak(name, x, x_aval, y_aval), y
    return x, _cast_weak(name, y, y_aval, x_aval)


def _cast_weak(name, x, aval, strong_aval):
    dtype = dtypes.weak_join(strong_aval.dtype, aval.dtype)
    if dtype is None:
        raise TypeError(f'{name}: a weakly typed {aval.dtype.name} scalar cannot be combined '
                        f'with {strong_aval.str_short()} without losing its fraction')
    if isinstance(x, Tracer):
        return convert_element_type(x, dtype)
    return np.asarray(x, dtype)


def _hlo_binary(op):
    return lambda ctx, x, y: op(x, y).result


def _integer_divide(x, y):
    """C-style division (truncating towards zero), as StableHLO divides integers."""
    quotient = np.floor_divide(x, y)
    remainder = np.remainder(x, y)
    return quotient + ((remainder != 0) & ((x < 0) != (y < 0)))


def _divide(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return np.divide(x, y) if dtypes.is_float(x.dtype) else _integer_divide(x, y)


add_p = binary_primitive('add', np.add, _hlo_binary(hlo.AddOp))
sub_p = binary_primitive('sub', np.subtract, _hlo_binary(hlo.SubtractOp))
mul_p = binary_primitive('mul', np.multiply, _hlo_binary(hlo.MulOp))
div_p = binary_primitive('div', _divide, _hlo_binary(hlo.DivOp))

add = _binary_function(add_p, 'Elementwise x + y.')
sub = _binary_function(sub_p, 'Elementwise x - y.')
mul = _binary_function(mul_p, 'Elementwise x * y.')
div = _binary_function(div_p, 'Elementwise x / y (truncating for integers).')

ad.defjvp(add_p, lambda t, x, y: t, lambda t, x, y: t)
ad.defjvp(sub_p, lambda t, x, y: t, lambda t, x, y: neg(t))
ad.defjvp(mul_p, lambda t, x, y: mul(t, y), lambda t, x, y: mul(x, t))
ad.defjvp(div_p, lambda t, x, y: div(t, y), lambda t, x, y: neg(div(mul(t, x), mul(y, y))))


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

# ----------------------------------------------------------------------------- comparisons


def _comparison(name, impl, direction):
    prim = binary_primitive(
        name, impl, lambda ctx, x, y: compare(x, y, direction, ctx.avals_in[0].dtype),
        out_dtype=dtypes.bool_)
    ad.defjvp_zero(prim)
    return prim


greater_p = _comparison('greater', np.greater, 'GT')
less_p = _comparison('less', np.less, 'LT')
greater = _binary_function(greater_p, 'Elementwise x > y (a bool array).')
less = _binary_function(less_p, 'Elementwise x < y (a bool array).')

# ----------------------------------------------------------------------------- conversion

convert_element_type_p = Primitive('convert_element_type')


def convert_element_type(x, new_dtype):
    """``x`` cast to ``new_dtype`` (one of minijax's supported dtypes)."""
    new_dtype = dtypes.check_supported(new_dtype, 'convert_element_type target')
    return convert_element_type_p.bind(x, new_dtype=new_dtype)


convert_element_type_p.def_impl(lambda x, *, new_dtype: np.asarray(x).astype(new_dtype))
convert_element_type_p.def_abstract_eval(
    lambda x, *, new_dtype: ShapedArray(x.shape, new_dtype))
convert_element_type_p.def_batching(
    lambda vals, dims, *, new_dtype: (convert_element_type(vals[0], new_dtype), dims[0]))


def _convert_jvp(primals, tangents, *, new_dtype):
    (x,), (t,) = primals, tangents
    out = convert_element_type(x, new_dtype)
    if not (dtypes.is_float(new_dtype) and dtypes.is_float(core.get_aval(x).dtype)):
        return out, ad.Zero(core.get_aval(out))
    return out, convert_element_type(ad.instantiate(t), new_dtype)


convert_element_type_p.def_jvp(_convert_jvp, symbolic_zeros=True)
convert_element_type_p.def_transpose(
    lambda ct, x, *, new_dtype: [convert_element_type(ct, x.aval.dtype)])
register_lowering(
    convert_element_type_p,
    lambda ctx, x, *, new_dtype: hlo.ConvertOp(tensor_type(ctx.avals_out[0]), x).result)
