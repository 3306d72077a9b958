"""Forward-mode differentiation: the JVP trace carries a tangent beside each primal.

Tangents may be *symbolic zeros* (``Zero``): a value that does not depend on the inputs being
differentiated has no tangent to compute, and no zero array appears in the program.
"""
from __future__ import annotations

import functools

import numpy as np

from minijax import core, dtypes, tree_util
from minijax.caching import cache_on_first_arg
from minijax.core import ShapedArray, Tracer
from minijax.interpreters.partial_eval import PartialEvalTracer
from minijax.ir.jaxpr import ClosedJaxpr, jaxpr_as_fun
from minijax.ir.printer import short_type
from minijax.ir.tracing import trace_to_jaxpr


#: ``rule(primals, tangents, **params) -> (primal_out, tangent_out)``, tangents as arrays.
jvp_rules = core.RuleTable('jvp', '{p}_p.def_jvp(...)')
#: The same, for rules that take and may return symbolic ``Zero`` tangents.
symbolic_zero_jvp_rules = core.RuleTable('symbolic_zero_jvp',
                                         '{p}_p.def_jvp(..., symbolic_zeros=True)')


class Zero:
    """A tangent known to be zero; only its type is kept."""
    __slots__ = ('aval',)

    def __init__(self, aval: ShapedArray):
        self.aval = core.raise_to_shaped(aval)

    def __repr__(self):
        return f'Zero({self.aval.str_short()})'


def zeros_like_aval(aval):
    from minijax import lax  # lax's rules build on this module
    return lax.full(aval.shape, 0, aval.dtype, weak_type=aval.weak_type)


def instantiate(tangent):
    """An array for ``tangent``: zeros for a symbolic ``Zero``."""
    return zeros_like_aval(tangent.aval) if isinstance(tangent, Zero) else tangent



def nonzero_flags(tangents) -> tuple[bool, ...]:
    """Which tangents are not symbolic zeros."""
    return tuple(not isinstance(t, Zero) for t in tangents)


def drop_zeros(tangents) -> list:
    """The tangents that are not symbolic zeros: what a jaxpr from ``jvp_jaxpr`` takes."""
    return [t for t in tangents if not isinstance(t, Zero)]


def fill_zeros(nonzero_tangents, flags, primals) -> list:
    """The inverse of ``drop_zeros``: a ``Zero`` (typed like its primal) where a flag is off."""
    it = iter(nonzero_tangents)
    return [next(it) if nz else Zero(core.get_aval(p)) for nz, p in zip(flags, primals)]


class JVPTracer(Tracer):
    __slots__ = ('primal', 'tangent')

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        return core.get_aval(self.primal)

    def _short_repr(self):
        """As JAX: ``JVPTracer(primal=1.0, tangent=1.0)`` under ``jvp``; under ``grad``,
        ``vjp`` and ``linearize`` (the tangent is unknown, staged by partial evaluation)
        JAX's ``GradTracer(primal=1.0, typeof(tangent)=f64[])``."""
        primal = core.short_repr(self.primal)
        if isinstance(self.tangent, PartialEvalTracer) and not self.tangent.pval.is_known:
            return f'GradTracer(primal={primal}, typeof(tangent)={short_type(self.tangent.aval)})'
        return f'JVPTracer(primal={primal}, tangent={core.short_repr(self.tangent)})'


class JVPTrace(core.Trace):
    def pure(self, val):
        return JVPTracer(self, val, Zero(core.get_aval(val)))

    lift = pure

    def tangents(self, tracers) -> list:
        """The tangents of ``tracers`` as a rule sees them (under ``linearize``, one that
        partial evaluation knows is a symbolic zero)."""
        tangents = [t.tangent for t in tracers]
        if self.main.global_data is not None:
            tangents = [_zero_unless_staged(t, self.main.global_data) for t in tangents]
        return tangents

    def process_primitive(self, primitive, tracers, params):
        primals = [t.primal for t in tracers]
        tangents = self.tangents(tracers)
        if all(isinstance(t, Zero) for t in tangents):
            out = primitive.bind(*primals, **params)
            primals_out = out if primitive.multiple_results else [out]
            tangents_out = [Zero(core.get_aval(p)) for p in primals_out]
        else:
            rule = symbolic_zero_jvp_rules.get(primitive)
            if rule is None:
                rule = jvp_rules[primitive]
                tangents = [instantiate(t) for t in tangents]
            primals_out, tangents_out = core.rule_pair(
                primitive, 'jvp', rule(primals, tangents, **params), '(primal_out, tangent_out)')
        outs = [JVPTracer(self, p, t) for p, t in zip(primals_out, tangents_out, strict=True)]
        return outs if primitive.multiple_results else outs[0]


def _zero_unless_staged(tangent, staged_by):
    """Under ``linearize`` every tangent is linear in the staged input tangents, so one that
    partial evaluation knows now (a zero a rule built as an array) is zero: made symbolic, it
    keeps the tangent work of later rules (a custom_vjp's backward rule among it) out of the
    known computation, which runs forward only."""
    if isinstance(tangent, Zero) or (isinstance(tangent, PartialEvalTracer) and
                                     tangent._trace.main is staged_by and
                                     not tangent.pval.is_known):
        return tangent
    return Zero(core.get_aval(tangent))


def jvp_flat(f, primals, tangents, name='jvp()', staged_by=None):
    """JVP of a flat function; tangents may be ``Zero``. Returns flat primal and tangent outs.

    The equations it traces get ``name`` on their name stack; a rule differentiating a body
    passes ``''``: its equations keep their own names, as in JAX. ``linearize`` passes the
    partial evaluation that stages the tangents as ``staged_by``."""
    with core.new_main(JVPTrace, staged_by) as main, core.name_scope(name):
        trace = main.trace
        tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
        outs = f(*tracers_in)
        tracers_out = core.full_raise_outputs(trace, outs)
        return ([t.primal for t in tracers_out], [t.tangent for t in tracers_out])


def jvp(f, primals, tangents):
    """Forward-mode derivative: ``(f(*primals), df(primals) . tangents)`` as pytrees."""
    core.check_callable('jvp', f=f)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError('jvp(f, primals, tangents): primals and tangents must be tuples or lists')
    primals_flat, in_tree = tree_util.tree_flatten(tuple(primals))
    tangents_flat, in_tree2 = tree_util.tree_flatten(tuple(tangents))
    if in_tree != in_tree2:
        raise TypeError(f'jvp: primals {in_tree} and tangents {in_tree2} differ in structure')
    tangents_flat = [_checked_tangent(i, core.get_aval(p), t)
                     for i, (p, t) in enumerate(zip(primals_flat, tangents_flat))]
    f_flat, out_tree = tree_util.flatten_fun(f, in_tree)
    primals_out, tangents_out = jvp_flat(f_flat, primals_flat, tangents_flat)
    tangents_out = [instantiate(t) if has_tangent(core.get_aval(p)) else
                    zero_tangent(core.get_aval(p)) for p, t in zip(primals_out, tangents_out)]
    return (tree_util.tree_unflatten(out_tree(), primals_out),
            tree_util.tree_unflatten(out_tree(), tangents_out))


# ----------------------------------------------------------------------------- float0

def has_tangent(aval) -> bool:
    """Whether a value has a tangent of its own dtype. An integer, bool or key value's tangent
    is JAX's ``float0``, always zero: never traced, and given as ``float0`` zeros."""
    return not dtypes.is_key(aval.dtype) and dtypes.is_inexact(aval.dtype)


def zero_tangent(aval):
    """The tangent minijax gives for a value without one: zeros of its dtype (a key's:
    ``float0`` zeros). JAX gives ``float0`` zeros for every such value; minijax takes them but
    gives them for keys only, since its transformations carry no ``float0`` values (``vmap``
    of a ``jvp`` would fail on them): docs/semantics.md."""
    dtype = dtypes.float0 if dtypes.is_key(aval.dtype) else aval.dtype
    return np.zeros(aval.shape, dtype)


def tangent_type(x) -> tuple[tuple, np.dtype]:
    """``(shape, dtype)`` of a (co)tangent a user gave, a ``float0`` array's too."""
    if getattr(x, 'dtype', None) == dtypes.float0:
        return np.shape(x), dtypes.float0
    aval = core.get_aval(x)
    return aval.shape, aval.dtype


def dtype_name(dtype) -> str:
    return 'float0' if dtype == dtypes.float0 else dtype.name  # (NumPy's name: 'void')


def type_text(shape, dtype) -> str:
    """``float32[2,3]``, ``float0[]``: a type for an error."""
    return f'{dtype_name(dtype)}[{",".join(map(str, shape))}]'


def _checked_tangent(i, p_aval, tangent):
    """The tangent for a primal of type ``p_aval`` (a ``Zero`` for a ``float0`` one), or
    JAX's error: ValueError for another shape, TypeError for another dtype (a Python
    scalar's too: its dtype is float64 whatever its primal's)."""
    t_shape, t_dtype = tangent_type(tangent)
    if p_aval.shape != t_shape:
        raise ValueError(f'jvp: tangent {i} has shape {t_shape} but its primal has shape '
                         f'{p_aval.shape} (tangent {type_text(t_shape, t_dtype)}, primal '
                         f'{p_aval.str_short()})')
    expected = p_aval.dtype if has_tangent(p_aval) else dtypes.float0
    if t_dtype != expected:
        raise TypeError(f'jvp: tangent {i} has dtype {dtype_name(t_dtype)} but its primal '
                        f'has dtype {p_aval.dtype.name}: primal and tangent dtypes must be '
                        'equal, or '
                        'for an integer, bool or key primal the tangent dtype must be float0 '
                        '(np.zeros(shape, minijax.dtypes.float0))')
    return Zero(p_aval) if expected == dtypes.float0 else tangent


# ----------------------------------------------------------------------------- rule helpers

def defjvp(primitive, *partials):
    """Define a JVP rule from one linear map per argument.

    ``partials[i](tangent_i, *primals, **params)`` is argument i's contribution to the output
    tangent (``None`` for an argument that is not differentiable). Zero tangents contribute
    nothing, so they are never instantiated.
    """
    def rule(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        terms = [partial(t, *primals, **params)
                 for partial, t in zip(partials, tangents)
                 if partial is not None and not isinstance(t, Zero)]
        if not terms:
            return out, Zero(core.get_aval(out))
        return out, _sum_broadcasting(terms, core.get_aval(out))

    primitive.def_jvp(rule, symbolic_zeros=True)
    return rule


def defjvp_linear(primitive):
    """A linear primitive's JVP applies the primitive to the tangents."""
    def rule(primals, tangents, **params):
        tangents = [instantiate(t) for t in tangents]
        return primitive.bind(*primals, **params), primitive.bind(*tangents, **params)

    primitive.def_jvp(rule, symbolic_zeros=True)
    return rule


def defjvp_zero(primitive):
    """A primitive whose output does not vary with its inputs (comparisons, iota)."""
    def rule(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        zeros = ([Zero(core.get_aval(o)) for o in out] if primitive.multiple_results
                 else Zero(core.get_aval(out)))
        return out, zeros

    primitive.def_jvp(rule, symbolic_zeros=True)
    return rule


def _sum_broadcasting(terms, out_aval):
    """The sum of the tangent terms, with ``add_any`` as JAX's ``add_tangents`` sums them;
    a term of an implicitly broadcast operand (a scalar, size-1 axes) is broadcast first."""
    from minijax import lax  # lax's rules build on this module
    terms = [lax.elementwise.maybe_broadcast(t, out_aval.shape) for t in terms]
    return functools.reduce(lax.add_any, terms)


# ----------------------------------------------------------------------------- jaxpr level

@cache_on_first_arg
def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: tuple[bool, ...], instantiate: tuple[bool, ...]):
    """The JVP of ``closed`` when the input tangents marked in ``nonzeros`` are nonzero.

    Returns the new closed jaxpr (inputs: primals then the nonzero tangents; outputs: primals
    then the nonzero tangents) and which output tangents are nonzero; an output tangent with
    ``instantiate[i]`` set is always returned, as zeros if need be. Higher-order primitives
    (``xla_call``, ``cond``, loops) use this to differentiate their bodies.
    """
    n = len(nonzeros)
    out_nonzeros: list[bool] = []

    def jvp_traceable(*args):
        primals, nonzero_tangents = core.split_list(args, n)
        tangents = fill_zeros(nonzero_tangents, nonzeros, primals)
        primals_out, tangents_out = jvp_flat(jaxpr_as_fun(closed), primals, tangents, name='')
        tangents_out = [zeros_like_aval(t.aval) if inst and isinstance(t, Zero) else t
                        for t, inst in zip(tangents_out, instantiate, strict=True)]
        out_nonzeros.extend(nonzero_flags(tangents_out))
        return [*primals_out, *drop_zeros(tangents_out)]

    in_avals = [*closed.in_avals, *(a for a, nz in zip(closed.in_avals, nonzeros) if nz)]
    new_closed, _ = trace_to_jaxpr(jvp_traceable, in_avals)
    return new_closed, tuple(out_nonzeros)
