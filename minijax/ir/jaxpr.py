"""The jaxpr IR: typed, first-order programs in A-normal form.

A ``Jaxpr`` binds constant variables and input variables, runs a list of equations (one
primitive application each) and returns atoms. A ``ClosedJaxpr`` pairs a jaxpr with the values
of its constants.

minijax names an equation's operands ``inputs`` and its results ``out_binders``, and a
jaxpr's results ``outs`` (Autodidax's names). JAX's names work too, so code that walks a
jaxpr as JAX's docs do runs unchanged: ``eqn.invars``, ``eqn.outvars``, ``jaxpr.outvars``,
and on a ``ClosedJaxpr`` also ``invars``, ``outvars``, ``constvars`` and ``eqns``.
"""
from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from minijax import core, dtypes
from minijax.core import ShapedArray
from minijax.errors import JaxprTypeError


class Var:
    """A variable: an identity with a type. Names are given by the printer."""
    __slots__ = ('aval',)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f'Var({self.aval.str_short()})'


class Lit:
    """A scalar constant written inline in an equation."""
    __slots__ = ('val', 'aval')

    def __init__(self, val, aval: ShapedArray | None = None):
        self.aval = aval if aval is not None else core.shaped_aval(val)
        self.val = np.asarray(val, self.aval.dtype)

    def __repr__(self):
        return f'Lit({self.val.item()!r})'

    def operand(self):
        """The value to bind: a Python scalar where the literal is weakly typed (``x * 2.``
        keeps ``x``'s dtype when evaluated again, as when traced), else the NumPy value."""
        scalar = self.val.item()
        if dtypes.PYTHON_SCALARS.get(type(scalar)) == (self.aval.dtype, self.aval.weak_type):
            return scalar
        return self.val


class PrimalLit(Lit):
    """A literal of the primal computation of a linearized ``shard_map`` body
    (``tracing.primal_literals``): an equation of its tangent computation reading one makes
    it a residual, which the known part returns, as JAX's linearization (where the
    constant is a value of the primal trace) does. ``source`` identifies the primal value
    the literals standing for it share; ``operand`` is one object, always the same."""
    __slots__ = ('source', '_operand')

    def __init__(self, val, aval: ShapedArray | None = None, source: int | None = None):
        super().__init__(val, aval)
        self._operand = super().operand()
        self.source = id(self._operand) if source is None else source

    def operand(self):
        return self._operand


Atom = Var | Lit


class JaxprEqn(NamedTuple):
    primitive: core.Primitive
    inputs: list[Atom]
    params: dict[str, Any]
    out_binders: list[Var]
    source_info: core.SourceInfo | None = None

    invars = property(lambda self: self.inputs, doc="JAX's name for ``inputs``.")
    outvars = property(lambda self: self.out_binders, doc="JAX's name for ``out_binders``.")


class Jaxpr:
    def __init__(self, constvars, invars, eqns, outs):
        self.constvars: list[Var] = list(constvars)
        self.invars: list[Var] = list(invars)
        self.eqns: list[JaxprEqn] = list(eqns)
        self.outs: list[Atom] = list(outs)

    outvars = property(lambda self: self.outs, doc="JAX's name for ``outs``.")

    @functools.cached_property
    def effectful(self) -> bool:
        """Whether running the jaxpr has a side effect: an equation of an effectful primitive,
        here or in a sub-jaxpr (a jit, a branch, a loop body). Jaxprs are never mutated, so
        this is computed once."""
        return any(eqn_effectful(eqn) for eqn in self.eqns)

    @functools.cached_property
    def ordered(self) -> bool:
        """Whether the jaxpr has an ordered effect, here or in a sub-jaxpr: its compiled
        function takes and returns a token (``minijax.lowering.module``)."""
        return any(eqn_ordered(eqn) for eqn in self.eqns)

    @property
    def in_avals(self):
        return [v.aval for v in self.invars]

    @property
    def out_avals(self):
        return [x.aval for x in self.outs]

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__

    def pretty_print(self, *, source_info: bool = False) -> str:
        """The jaxpr's text in JAX's syntax; ``source_info`` ends each equation with where it
        was traced (``# file.py:7:31 (f)``), as JAX's ``pretty_print`` does."""
        from minijax.ir.printer import pp_jaxpr
        return pp_jaxpr(self, source_info=source_info)


def eqn_effectful(eqn: JaxprEqn) -> bool:
    """Whether the equation has a side effect: its primitive's, or its sub-jaxprs'."""
    return eqn.primitive.effectful or any(sub.effectful for sub in _sub_jaxprs(eqn))


def eqn_ordered(eqn: JaxprEqn) -> bool:
    """Whether the equation has an ordered effect: its primitive's, or its sub-jaxprs'."""
    ordered = eqn.primitive.ordered
    return ordered is not None and ordered(eqn.params) or \
        bool(eqn.params) and any(sub.ordered for sub in _sub_jaxprs(eqn))


def _sub_jaxprs(eqn: JaxprEqn):
    return (sub for param in eqn.params.values()
            for sub in (param if isinstance(param, (tuple, list)) else (param,))
            if isinstance(sub, (Jaxpr, ClosedJaxpr)))


class ClosedJaxpr:
    """A jaxpr together with the values of its constvars.

    Equal by identity: a ClosedJaxpr is the unit that caches (lowering, compilation) key on.
    """

    def __init__(self, jaxpr: Jaxpr, consts):
        if len(consts) != len(jaxpr.constvars):
            raise ValueError(f'{len(jaxpr.constvars)} constvars but {len(consts)} consts')
        self.jaxpr = jaxpr
        self.consts = list(consts)

    # JAX's other name for the consts (its custom-interpreter tutorial reads this one).
    literals = property(lambda self: self.consts)
    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    # The jaxpr's parts, as JAX's ClosedJaxpr exposes them.
    eqns = property(lambda self: self.jaxpr.eqns)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outs)
    effectful = property(lambda self: self.jaxpr.effectful)
    ordered = property(lambda self: self.jaxpr.ordered)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, *, source_info: bool = False) -> str:
        return self.jaxpr.pretty_print(source_info=source_info)


class JaxprType(NamedTuple):
    in_types: list[ShapedArray]
    out_types: list[ShapedArray]

    def __str__(self):
        ins = ', '.join(t.str_short() for t in self.in_types)
        outs = ', '.join(t.str_short() for t in self.out_types)
        return f'({ins}) -> ({outs})'


def same_type(a: ShapedArray, b: ShapedArray) -> bool:
    """Types as the typechecker sees them: weak typing is a tracing detail, not a type."""
    if core.abstract_token in (a, b):
        return a is b
    return a.shape == b.shape and a.dtype == b.dtype


def typecheck_jaxpr(jaxpr: Jaxpr) -> JaxprType:
    """Check every equation against its primitive's abstract eval rule; return the type.
    An ill-typed jaxpr is a ``JaxprTypeError`` (a ``TypeError``), as JAX's checker raises."""
    env: set[Var] = set()
    for v in [*jaxpr.constvars, *jaxpr.invars]:
        if v in env:
            raise JaxprTypeError(f'variable {v} is bound twice')
        env.add(v)
    for eqn in jaxpr.eqns:
        in_types = [_typecheck_atom(env, x) for x in eqn.inputs]
        try:
            out_types = abstract_eval_eqn(eqn.primitive, in_types, eqn.params)
        except (TypeError, ValueError) as error:  # the primitive refuses its inputs
            raise JaxprTypeError(f'{eqn.primitive.name} on '
                                 f'({", ".join(t.str_short() for t in in_types)}): {error}'
                                 ) from error
        for v, t in zip(eqn.out_binders, out_types, strict=True):
            if not same_type(v.aval, t):
                raise JaxprTypeError(f'{eqn.primitive.name} produces {t.str_short()} but its binder '
                                f'is typed {v.aval.str_short()}')
            if v in env:
                raise JaxprTypeError(f'variable {v} is bound twice')
            env.add(v)
    in_types = [v.aval for v in jaxpr.invars]
    out_types = [_typecheck_atom(env, x) for x in jaxpr.outs]
    return JaxprType(in_types, out_types)


def _typecheck_atom(env, x):
    if isinstance(x, Var):
        if x not in env:
            raise JaxprTypeError(f'unbound variable {x}')
        return x.aval
    if isinstance(x, Lit):
        return x.aval
    raise JaxprTypeError(f'{x!r} is not an atom')


def abstract_eval_eqn(primitive, in_avals, params) -> list[ShapedArray]:
    """Output avals of ``primitive`` on ``in_avals``, always as a list."""
    out = core.abstract_eval_rules[primitive](*in_avals, **params)
    if type(out) is ShapedArray and not primitive.multiple_results:  # (the commonest case)
        out = [out]
    else:
        out = core.rule_results(primitive, 'abstract eval', out)
        for aval in out:
            if not isinstance(aval, ShapedArray) and aval is not core.abstract_token:
                raise TypeError(f"primitive '{primitive.name}': the abstract eval rule "
                                f'returned a {type(aval).__name__}, expected a ShapedArray')
    if core.sharding_in_types():
        out = core.shard_results(primitive, in_avals, out, params)
    return out


def eval_jaxpr(jaxpr: Jaxpr, consts, args) -> list:
    """Interpret ``jaxpr`` by binding each equation's primitive: the generic interpreter.

    Because it calls ``bind``, evaluating a jaxpr under a transformation transforms it; the
    equations that makes keep the source line and name stack of the one they came from.
    """
    env: dict[Var, Any] = {}

    def read(x):
        return x.operand() if isinstance(x, Lit) else env[x]

    for v, val in zip([*jaxpr.constvars, *jaxpr.invars], [*consts, *args], strict=True):
        env[v] = val
    outer = core.current_name_stack()
    for eqn in jaxpr.eqns:
        with core.traced_as(eqn.source_info, outer + name_stack(eqn)):
            outs = eqn.primitive.bind(*map(read, eqn.inputs), **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, val in zip(eqn.out_binders, outs, strict=True):
            env[v] = val
    return [read(x) for x in jaxpr.outs]


def name_stack(eqn: JaxprEqn) -> tuple:
    """The transformations ``eqn`` was traced under, inside the jaxpr that holds it."""
    return eqn.source_info.name_stack if eqn.source_info else ()


def eval_closed_jaxpr(closed: ClosedJaxpr, args) -> list:
    return eval_jaxpr(closed.jaxpr, closed.consts, args)


def jaxpr_as_fun(closed: ClosedJaxpr):
    return lambda *args: eval_closed_jaxpr(closed, args)
