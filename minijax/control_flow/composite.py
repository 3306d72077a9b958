"""``composite``: a named operation defined by its decomposition, as JAX's ``lax.composite``.

``composite(decomposition, name, version)(*args, **attributes)`` traces ``decomposition`` to
a jaxpr and binds ``composite_p``, which holds it with the name, the version and the keyword
arguments (as ``(key, leaves, treedef)`` triples, hashable). It evaluates as the jaxpr and
lowers to ``stablehlo.composite "<name>"`` calling a private function ``@<name>`` holding the
decomposition, the keyword arguments as its ``composite_attributes``: a compiler that knows
the name may replace the call. As in JAX it cannot be differentiated (its JVP rule raises JAX's
ValueError: wrap it in a ``custom_jvp``) or batched (NotImplementedError).
"""
from __future__ import annotations

import functools
import re

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, tree_util
from minijax.control_flow.common import hoist_consts
from minijax.core import Primitive
from minijax.errors import UnexpectedTracerError
from minijax.ir.jaxpr import eval_closed_jaxpr
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lowering import element_type, register_lowering
from minijax.lowering.module import emit_function
from minijax.lowering.types import dense_elements
from minijax.sharding import rules as sharding_rules

composite_p = Primitive('composite', multiple_results=True)
sharding_rules.register(sharding_rules.AS_TRACED, composite_p)  # its results: its jaxpr's types


class HashableArray:
    """A NumPy array attribute in ``composite_p``'s params, which must hash (JAX's class)."""
    __slots__ = ('val',)

    def __init__(self, val):
        self.val = np.asarray(val)

    def __repr__(self):
        return f'HashableArray({self.val!r})'

    def __hash__(self):
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other):
        return (isinstance(other, HashableArray) and self.val.shape == other.val.shape and
                self.val.dtype == other.val.dtype and np.array_equal(self.val, other.val))


def _closes_over_a_tracer(name, what):
    return UnexpectedTracerError(
        f"Found a JAX Tracer as {what} in the decomposition for the composite op '{name}'. "
        'This means that the decomposition function closes over a value that is involved '
        "in a JAX transformation. Any values that aren't explicitly known at compile time "
        'must be explicitly passed as arguments to the composite.')


def composite(decomposition, name, version=0):
    """``decomposition`` as one named operation: call the result with the inputs as
    positional arguments and the op's attributes as keyword arguments (one whose value is
    None is left out of the attributes)."""
    core.check_callable('composite', decomposition=decomposition)

    @functools.wraps(decomposition)
    def composite_fn(*args, **kwargs):
        if any(isinstance(v, core.Tracer) for v in kwargs.values()):
            raise _closes_over_a_tracer(name, 'an attribute')
        flat_args, in_tree = tree_util.tree_flatten(args)
        flat_fun, out_tree = tree_util.flatten_fun(
            functools.partial(decomposition, **kwargs), in_tree)
        closed, closed_over = trace_to_jaxpr(flat_fun, [core.shaped_aval(x) for x in flat_args])
        if closed_over:
            raise _closes_over_a_tracer(name, 'a constant')
        outs = bind_composite(closed, flat_args, name, version, kwargs)
        return tree_util.tree_unflatten(out_tree(), outs)
    return composite_fn


def bind_composite(closed, flat_args, name, version, attributes):
    """Bind ``composite_p`` for the traced decomposition ``closed`` of ``flat_args``, with the
    ``attributes`` dict. Equations holding one jaxpr share one decomposition function in the
    module (JAX's lowering caches on the jaxpr): a primitive lowered to a composite
    (``scaled_dot``) traces it once for its types and parameters, so its calls share one."""
    params = []
    for key, value in attributes.items():
        leaves, treedef = tree_util.tree_flatten(value)
        leaves = tuple(HashableArray(x) if isinstance(x, np.ndarray) else x for x in leaves)
        params.append((key, leaves, treedef))
    return composite_p.bind(*closed.consts, *flat_args, name=name, attributes=tuple(params),
                            version=version, jaxpr=hoist_consts(closed))


composite_p.def_impl(lambda *args, jaxpr, **_: eval_closed_jaxpr(jaxpr, args))
composite_p.def_abstract_eval(lambda *avals, jaxpr, **_: jaxpr.out_avals)


def _composite_jvp(primals, tangents, **_):
    raise ValueError('JVP rule for composite not implemented. You can use `jax.custom_jvp` to '
                     'add support. See '
                     'https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html')


def _composite_batching(vals, dims, **_):
    raise NotImplementedError("Batching rule for 'composite' not implemented")


composite_p.def_jvp(_composite_jvp)
composite_p.def_batching(_composite_batching)


# ----------------------------------------------------------------------------- lowering

#: What ``stablehlo.composite`` accepts as a name: a namespaced op name.
_OP_NAME = re.compile(r'[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+')


def _attribute(value) -> ir.Attribute:
    """A keyword argument as an MLIR attribute, typed as JAX types it: a Python scalar as a
    64-bit one, a NumPy scalar by its dtype, an array as dense elements, a dtype as its type,
    a sequence as an array attribute, a dict as a dictionary."""
    if isinstance(value, HashableArray):
        value = value.val
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, dict):
        return ir.DictAttr.get({k: _attribute(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return ir.ArrayAttr.get([_attribute(v) for v in value])
    if isinstance(value, np.ndarray):
        return dense_elements(value)
    if isinstance(value, np.generic):
        return _scalar_attribute(np.asarray(value))
    if isinstance(value, np.dtype):
        return ir.TypeAttr.get(element_type(value))
    for python_type, dtype in ((bool, np.bool_), (int, np.int64), (float, np.float64)):
        if isinstance(value, python_type):  # (bool first: a bool is an int)
            return _scalar_attribute(np.asarray(value, dtype))
    raise TypeError(f'No attribute handler defined for type: {type(value)}')


def _scalar_attribute(value: np.ndarray) -> ir.Attribute:
    ty = element_type(value.dtype)
    if isinstance(ty, ir.IntegerType):
        return ir.IntegerAttr.get(ty, int(value))
    if isinstance(ty, ir.FloatType):
        return ir.FloatAttr.get(ty, float(value))
    raise TypeError(f'Unsupported scalar attribute type: {value.dtype}')


def _composite_lowering(ctx, *args, name, attributes, version, jaxpr):
    if not _OP_NAME.fullmatch(name):
        raise ValueError(f'composite: the name {name!r} is not a namespaced op name (as '
                         '"my_namespace.my_op"), as stablehlo.composite requires')
    module_ctx = ctx.module_context
    key = ('composite', name, jaxpr)  # (holds the jaxpr: its id is not reused meanwhile)
    symbol = module_ctx.functions.get(key)
    if symbol is None:
        symbol = module_ctx.functions[key] = module_ctx.unique_symbol(name, sanitize=False)
        with ir.InsertionPoint(module_ctx.module.body), ir.Location.name(
                'composite:', childLoc=ir.Location.name('composite')):
            # (a composite a rule binds is traced at the frames of the equation it lowers)
            where = module_ctx.where
            emit_function(module_ctx, symbol, jaxpr, public=False,
                          cut=where.cut if where.in_rule else None)
    composite_attributes = {}
    for key, leaves, treedef in attributes:
        value = tree_util.tree_unflatten(treedef, leaves)
        if value is not None:
            composite_attributes[key] = _attribute(value)
    op = hlo.CompositeOp([module_ctx.tensor_type(a) for a in ctx.avals_out], args,
                         name=ir.StringAttr.get(name),
                         decomposition=ir.FlatSymbolRefAttr.get(symbol),
                         composite_attributes=ir.DictAttr.get(composite_attributes),
                         version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version))
    return list(op.results)


register_lowering(composite_p, _composite_lowering)
