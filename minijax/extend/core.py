"""``jax.extend.core``: the jaxpr types and helpers a custom interpreter uses, over
minijax's own (``minijax.ir``, ``minijax.core``).

The "Writing custom jaxpr interpreters" notebook runs on these: a jaxpr's ``constvars``,
``invars``, ``eqns`` and ``outvars``, an equation's ``primitive``, ``params``, ``invars``
and ``outvars``, ``Literal.val``, ``Primitive.bind``. ``Jaxpr(...)`` and
``JaxprEqn(...)`` take JAX's arguments in JAX's order and make minijax's objects (which
``isinstance`` recognizes as these). minijax's jaxprs record no effect types, so the
``effects`` a constructor takes must be empty.
"""

import functools

import numpy as np

from minijax import core, dtypes, errors, unsupported
from minijax.core import AbstractToken, Primitive, Token
from minijax.errors import JaxprTypeError
from minijax.ir import jaxpr as ir
from minijax.ir.jaxpr import ClosedJaxpr, Var
from minijax.ir.jaxpr import Lit as Literal

__all__ = ['AbstractToken', 'ClosedJaxpr', 'DropVar', 'Jaxpr', 'JaxprEqn', 'JaxprTypeError',
           'Literal', 'Primitive', 'Token', 'Var', 'array_types', 'check_jaxpr',
           'concrete_or_error', 'find_top_trace', 'gensym', 'jaxpr_as_fun', 'jaxprs_in_params',
           'mapped_aval', 'new_jaxpr_eqn', 'no_effects', 'nonempty_axis_env_DO_NOT_USE',
           'primal_dtype_to_tangent_dtype', 'subjaxprs', 'unmapped_aval',
           'unsafe_am_i_under_a_jit_DO_NOT_USE', 'unsafe_am_i_under_a_vmap_DO_NOT_USE',
           'unsafe_get_axis_names_DO_NOT_USE', 'valid_jaxtype']


#: The effects of an equation that has none (minijax's jaxprs record no effect types).
no_effects: frozenset = frozenset()


class DropVar(Var):
    """A result nobody reads (printed ``_``)."""
    __slots__ = ()


class _Constructs(type):
    """A metaclass for a JAX constructor of one of minijax's classes: calling it makes that
    class's object, and ``isinstance`` asks that class."""

    def __instancecheck__(cls, x):
        return isinstance(x, cls.made)


def _no_effects(effects):
    if effects:
        raise NotImplementedError(f'effects={effects!r}: minijax\'s jaxprs record no effect '
                                  'types (a primitive is effectful or not)')


class Jaxpr(metaclass=_Constructs):
    """``Jaxpr(constvars, invars, outvars, eqns, effects=no_effects, debug_info=None)``."""
    made = ir.Jaxpr

    def __new__(cls, constvars, invars, outvars, eqns, effects=no_effects, debug_info=None):
        _no_effects(effects)
        return ir.Jaxpr(list(constvars), list(invars), list(eqns), list(outvars))


class JaxprEqn(metaclass=_Constructs):
    """``JaxprEqn(invars, outvars, primitive, params, effs, source_info, ctx)``."""
    made = ir.JaxprEqn

    def __new__(cls, invars, outvars, primitive, params, effs, source_info, ctx=None):
        _no_effects(effs)
        return ir.JaxprEqn(primitive, list(invars), dict(params), list(outvars), source_info)


def new_jaxpr_eqn(invars, outvars, primitive, params, effects, source_info=None, ctx=None):
    """An equation, located where it is made when ``source_info`` is not given."""
    return JaxprEqn(invars, outvars, primitive, params, effects,
                    source_info or core.user_source_info(), ctx)


def find_top_trace(_):
    """The innermost transformation's trace now (JAX's ignores its argument too)."""
    main = core.trace_stack[-1]
    if core.dynamic_trace is not None and core.dynamic_trace.level > main.level:
        main = core.dynamic_trace
    return main.trace


def gensym():
    """A maker of fresh variables: ``gensym()(aval)``."""
    return Var


def check_jaxpr(jaxpr) -> None:
    """Raise ``JaxprTypeError`` if ``jaxpr`` is ill-typed (a variable read before it is
    bound, bound twice, or typed unlike its equation's result)."""
    ir.typecheck_jaxpr(jaxpr)


def jaxpr_as_fun(closed_jaxpr, *args):
    """The closed jaxpr as a function (curried, as JAX's: ``jaxpr_as_fun(closed)(*args)``),
    which binds its primitives, so under a transformation it is transformed."""
    return functools.partial(_evaluate, closed_jaxpr, *args)


def _evaluate(closed_jaxpr, *args):
    return ir.eval_closed_jaxpr(closed_jaxpr, args)


def jaxprs_in_params(params):
    """The jaxprs among an equation's parameters (one level down)."""
    for value in params.values():
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, ir.Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def subjaxprs(jaxpr):
    """The jaxprs held by ``jaxpr``'s equations (not recursively)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


def concrete_or_error(force, val, context=''):
    """``force(val)`` (``val`` when ``force`` is None), ``val``'s known value for a tracer
    that has one; a tracer with none is a ``ConcretizationTypeError`` naming ``context``."""
    force = force or (lambda x: x)
    if not isinstance(val, core.Tracer):
        return force(val)
    aval = val.aval
    if not isinstance(aval, core.ConcreteArray):
        raise errors.ConcretizationTypeError(val, 'concrete_or_error', context or None)
    return force(aval.val)


def valid_jaxtype(x) -> bool:
    """Whether ``x`` has a type minijax computes with."""
    try:
        core.get_aval(x)
    except TypeError:
        return False
    return True


#: The types of values that are arrays to minijax (besides Python scalars and tracers).
array_types = {np.ndarray, *(t for t in core.aval_handlers if t is not np.ndarray)}


def primal_dtype_to_tangent_dtype(primal_dtype):
    """Its own dtype for an inexact value, ``float0`` for any other."""
    return dtypes.tangent_dtype(primal_dtype)


def mapped_aval(size, axis, aval):
    """``aval`` without its mapped ``axis`` (of ``size``): the type a ``vmap`` body sees."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise TypeError(f'mapped_aval: axis {axis} of {aval.str_short()} is not of size {size}')
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """``aval`` with an axis of ``size`` inserted at ``axis``: a ``vmap`` result's type."""
    if explicit_mesh_axis is not None:
        raise NotImplementedError('unmapped_aval: explicit_mesh_axis is not supported')
    if axis is None:
        return aval
    return core.ShapedArray(aval.shape[:axis] + (size,) + aval.shape[axis:], aval.dtype,
                            aval.weak_type)


def _trace_types() -> list[str]:
    traces = [main.trace_type.__name__ for main in core.trace_stack]
    if core.dynamic_trace is not None:
        traces.append(core.dynamic_trace.trace_type.__name__)
    return traces


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:  # noqa: N802 (JAX's name)
    """Whether a jaxpr is being traced (``jit``, ``make_jaxpr``, a loop's body)."""
    return 'JaxprTrace' in _trace_types()


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:  # noqa: N802 (JAX's name)
    return 'BatchTrace' in _trace_types()


def unsafe_get_axis_names_DO_NOT_USE() -> list:  # noqa: N802 (JAX's name)
    """The named axes bound now (``vmap(axis_name=)``, ``pmap``, ``make_jaxpr(axis_env=)``)."""
    return [name for name, _, _ in core.axis_env]


def nonempty_axis_env_DO_NOT_USE() -> bool:  # noqa: N802 (JAX's name)
    return bool(core.axis_env)


__getattr__ = unsupported.missing_name('jax.extend.core')
