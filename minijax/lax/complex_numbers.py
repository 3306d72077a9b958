"""The primitives that take complex numbers apart and put them together: ``real``, ``imag``,
``conj`` and ``complex`` (``lax.complex(x, y)`` is ``x + i y``), each with all its rules.

All four are linear (over the reals), so each JVP applies the primitive to the tangent and
each has a transpose. JAX's convention, which minijax follows, is that a transpose never
conjugates: the cotangent of ``real(z)`` is ``complex(ct, 0)``, that of ``imag(z)`` is
``complex(0, -ct)``. So ``grad(f)(z)`` of a real-valued ``f`` is ``df/dx - i df/dy``, the
conjugate of the steepest-ascent direction, exactly as ``jax.grad`` returns it.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import batching, jvp as ad
from minijax.interpreters.transpose import is_undefined_primal
from minijax.lax.elementwise import (
    broadcast_shape, full_like, neg, promote_weak_scalars, same_dtypes_error, unbroadcast)
from minijax.lowering import lower_fun, register_lowering
from minijax.lowering.ops import broadcast_operands


def _check_complex(name, x):
    """JAX's error for a real operand where only complex ones make sense."""
    if not dtypes.is_complex(x.dtype):
        raise TypeError(f'{name} does not accept dtype {x.dtype.name}. Accepted dtypes are '
                        'subtypes of complexfloating.')


def _complex_unary(name, impl, lowering, out_dtype, transpose):
    """A linear primitive of one complex operand; ``out_dtype(dtype)`` is its result dtype,
    ``transpose(ct)`` the cotangent of its operand."""
    prim = Primitive(name)
    prim.def_impl(lambda x: np.asarray(impl(np.asarray(x))))

    def abstract_eval(x):
        _check_complex(name, x)
        return ShapedArray(x.shape, out_dtype(x.dtype), x.weak_type)

    prim.def_abstract_eval(abstract_eval)
    ad.defjvp_linear(prim)
    prim.def_transpose(lambda ct, x: [transpose(ct)])
    prim.def_batching(lambda vals, dims: (prim.bind(*vals), dims[0]))
    register_lowering(prim, lowering)
    return prim


def real(x):
    """The real part of complex ``x`` (a float array of the part dtype)."""
    return real_p.bind(x)


def imag(x):
    """The imaginary part of complex ``x``."""
    return imag_p.bind(x)


def conj(x):
    """The complex conjugate of complex ``x``."""
    return conj_p.bind(x)


def complex(x, y):  # noqa: A001 (lax.complex, as in JAX)
    """``x + i y`` for float ``x`` and ``y`` of one dtype: complex64 from float32,
    complex128 from float64."""
    return complex_p.bind(*promote_weak_scalars('complex', x, y))


def _strong_zeros(ct):
    """The other part of a cotangent made complex: zeros of a strong type, as JAX's NumPy
    zeros are, so that the complex cotangent is strongly typed (``grad`` at a Python
    complex gives ``complex128``, not a weak type)."""
    return full_like(ct, 0, dtype=get_aval(ct).dtype)


real_p = _complex_unary('real', np.real, lambda ctx, x: hlo.RealOp(x).result,
                        dtypes.real_part_dtype, lambda ct: complex(ct, _strong_zeros(ct)))
imag_p = _complex_unary('imag', np.imag, lambda ctx, x: hlo.ImagOp(x).result,
                        dtypes.real_part_dtype, lambda ct: complex(_strong_zeros(ct), neg(ct)))
# conj lowers as the lax ops it is made of, each op named after its own primitive, as in JAX
conj_p = _complex_unary('conj', np.conj, lower_fun(lambda x: complex(real(x), neg(imag(x)))),
                        lambda d: d, conj)

# ----------------------------------------------------------------------------- complex

complex_p = Primitive('complex')


def _complex_abstract_eval(x, y):
    for position, operand in enumerate((x, y)):
        if operand.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f'complex does not accept dtype {operand.dtype.name} at position '
                            f'{position}. Accepted dtypes at position {position} are subtypes '
                            'of float32, float64.')
    if x.dtype != y.dtype:
        raise same_dtypes_error('complex', x.dtype, y.dtype)
    return ShapedArray(broadcast_shape('complex', x.shape, y.shape), dtypes.COMPLEX_OF[x.dtype],
                       x.weak_type and y.weak_type)


def _complex_impl(x, y):
    """The parts set one by one: ``x + 1j * y`` would turn an infinite ``y`` into a NaN
    real part (``1j * inf`` is ``nan + inf j``)."""
    x, y = np.asarray(x), np.asarray(y)
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtypes.COMPLEX_OF[x.dtype])
    out.real, out.imag = x, y
    return out


def _complex_transpose(ct, x, y):
    """``x`` receives ``real(ct)``, ``y`` receives ``imag(-ct)`` (no conjugation)."""
    return [unbroadcast(real(ct), x.aval) if is_undefined_primal(x) else None,
            unbroadcast(imag(neg(ct)), y.aval) if is_undefined_primal(y) else None]


def _complex_lowering(ctx, x, y):
    x, y = broadcast_operands(ctx, [x, y])
    return hlo.ComplexOp(x, y).result


complex_p.def_impl(_complex_impl)
complex_p.def_abstract_eval(_complex_abstract_eval)
ad.defjvp_linear(complex_p)
complex_p.def_transpose(_complex_transpose)
batching.broadcasting_batcher(complex_p)
register_lowering(complex_p, _complex_lowering)
