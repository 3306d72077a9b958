"""``logaddexp`` and ``logaddexp2`` as JAX defines them: ``custom_jvp`` functions (their
jaxprs show ``custom_jvp_call[name=logaddexp ...]``), shared by ``jnp.logaddexp`` and by
``cumlogsumexp`` (its lowering's reduce_window body and its JVP's scan combine).

Real operands: ``max + log1p(exp(-|x1 - x2|))``, or ``x1 + x2`` where ``x1 - x2`` is NaN (a
NaN operand, or infinities of one sign, which give themselves). Complex operands:
``max + log1p(exp(x1 + x2 - 2 max))`` (``max`` in lexicographic order), its imaginary part
wrapped into (-pi, pi]. In base 2 (``logaddexp2``), ``exp2`` and a factor 1/ln 2, and the
wrap into (-pi/ln 2, pi/ln 2].

The derivative is ``t1 exp(x1 - out) + t2 exp(x2 - out)`` (``exp2`` in base 2), with +inf
(of the real part) replaced by 0 in ``x1``, ``x2`` and ``out``: where both operands are +inf,
each gets a share of 1 rather than NaN; an operand at -inf (the other not) gets 0.

The functions are made on first use: ``custom_jvp`` is in the layer above lax.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from minijax import core, dtypes
from minijax.lax.bitwise import rem
from minijax.lax.complex_numbers import complex as make_complex
from minijax.lax.complex_numbers import imag, real
from minijax.lax.elementwise import (
    abs, add, eq, exp, full_like, log1p, lt, max, mul, ne, neg, select_n, sub)
from minijax.lax.transcendental import exp2


def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow (operands of one dtype)."""
    return _custom_functions()[0](x1, x2)


def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)`` without overflow (operands of one dtype)."""
    return _custom_functions()[1](x1, x2)


def _formula(x1, x2, exp_fn, ln_base):
    """The primal in the base whose exponential is ``exp_fn``; ``ln_base`` is ln(base), or
    None for base e."""
    def scaled(x):
        return x if ln_base is None else mul(np.asarray(1 / ln_base, core.get_aval(x).dtype), x)

    amax = max(x1, x2)
    if dtypes.is_complex(core.get_aval(amax).dtype):
        two = np.asarray(2, core.get_aval(amax).dtype)
        out = add(amax, scaled(log1p(exp_fn(sub(add(x1, x2), mul(amax, two))))))
        return make_complex(real(out), _wrap(imag(out), math.pi / (ln_base or 1.)))
    delta = sub(x1, x2)
    undefined, total = ne(delta, delta), add(x1, x2)
    return select_n(undefined, add(amax, scaled(log1p(exp_fn(neg(abs(delta)))))), total)


def _wrap(angle, half_period):
    """``angle`` moved by whole periods into (-half_period, half_period]."""
    period = 2 * half_period
    shifted = rem(add(angle, half_period), period)
    shifted = select_n(lt(shifted, 0.), shifted, add(shifted, period))
    return sub(shifted, half_period)


def _finite_inf(x):
    """``x`` with +inf (of its real part) replaced by 0."""
    part = real(x) if dtypes.is_complex(core.get_aval(x).dtype) else x
    return select_n(eq(part, np.inf), x, full_like(x, 0))


def _jvp_rule(fn, exp_fn):
    def rule(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = fn(x1, x2)

        def share(x, t):
            return mul(t, exp_fn(sub(_finite_inf(x), _finite_inf(out))))
        return out, add(share(x1, t1), share(x2, t2))
    return rule


@functools.cache
def _custom_functions():
    """The two ``custom_jvp`` functions, named as JAX's (and their rules)."""
    from minijax.custom_derivatives import custom_jvp  # (a layer above lax)

    def logaddexp(x1, x2):
        return _formula(x1, x2, exp, None)

    def logaddexp2(x1, x2):
        return _formula(x1, x2, exp2, math.log(2))

    functions = custom_jvp(logaddexp), custom_jvp(logaddexp2)
    for fn, exp_fn in zip(functions, (exp, exp2)):
        rule = _jvp_rule(fn, exp_fn)
        rule.__name__ = f'_{fn.__name__}_jvp'
        fn.defjvp(rule)
    return functions
