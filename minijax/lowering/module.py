"""Lowering a jaxpr to a StableHLO module: an interpreter that emits ops instead of values.

``lower_jaxpr_to_module`` makes ``module @<name>`` with ``func.func public @main``, written as
JAX writes it (the module's replica and partition counts, each result's
``jax.result_info``); each equation's lowering rule emits ops into the current block.
Sub-jaxprs (``xla_call``) become private functions, emitted once per (jaxpr, argument
types) and called with ``func.call``. Every module is verified before it is returned.
"""
from __future__ import annotations

import contextlib
import re
import weakref
from typing import NamedTuple, Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func, stablehlo as hlo

from minijax import core
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, Lit, Var, name_stack as name_stack_of
from minijax.ir.printer import jax_name
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lowering.context import mlir_context, new_context
from minijax.lowering.donation import donation_attrs
from minijax.lowering.registry import LoweringRuleContext, lowering_rules, outlined_primitives
from minijax.lowering.shardings import (constrain_all, constrain_to_type, lift_meshes,
                                        sdy_sharding)
from minijax.sharding import mesh as mesh_lib, rules as sharding_rules
from minijax.lowering.types import dense_elements, tensor_type


class LoweringError(Exception):
    """minijax produced an invalid module: a bug in minijax or in a user lowering rule."""


class Where(NamedTuple):
    """How the ops being emitted are located, as JAX locates them. JAX keeps, for each
    equation, the frames inside the trace that made it; it lowers each equation in a
    function of its own and inlines it where the equation is, fusing each op's location
    with the call's; and a body's equations go on from the frames of the equation that
    holds it.

    ``inlined_into``: the calls the ops are inlined into, outermost first, each a name
    stack, a ``SourceInfo`` and the frames its frames are cut at (or None).
    ``cut``: the code objects of the frames an equation's frames are cut at (None: all
    kept, in ``@main``; a private function's: the frames of its call).
    ``trace_frames``: the code objects of the frames the innermost trace ran in (where the
    module is lowered, where a loop body's equation was bound, ...).
    ``in_rule``: the equations are a rule's, traced while lowering (``lower_fun``), each at
    the frames of the equation the rule lowers.
    ``call``: the equation whose rule runs: its name stack, its ``SourceInfo`` and whether
    its ops are inlined where it is (not, when the rule runs in a function of its own)."""
    inlined_into: tuple = ()
    cut: tuple | None = None
    trace_frames: tuple = ()
    in_rule: bool = False
    call: tuple | None = None


class ModuleContext:
    """The module being built, its symbol names and the private functions emitted so far."""

    def __init__(self, module: ir.Module):
        self.module = module
        self.symbols: set[str] = {'main'}
        self._renames = 0  # (how many names ``unique_symbol`` has numbered)
        self.functions: dict[tuple, str] = {}
        self._tensor_types: dict = {}
        self._literal_attrs: dict = {}
        self._leading_dims: dict[int, ir.DenseI64ArrayAttr] = {}
        self.name_stack = ''  # of the function being emitted: 'jit(f)' in @main
        #: @main's own location, as JAX gives it: its name stack where it was lowered. Its
        #: constants and its return are located there, not at ``loc(unknown)``.
        self.function_location = ir.Location.unknown()
        self.eqn_name_stack = ''  # of the equation being lowered: 'jit(f)/jvp()'
        self.locations: dict = {}  # (op name, SourceInfo, inlined into, ...) -> ir.Location
        self.where = Where()  # how the ops being emitted are located
        self.host_callbacks: list = []  # the Python functions the module calls, by index
        #: The ordered effects' token in the function being emitted: its argument, then
        #: each ordered callback's result (None where the function has no ordered effect).
        self.token: ir.Value | None = None
        self.uses_shardy = False  # whether an op carries a sharding (sdy.sharding_constraint)
        self.num_partitions = 1  # the devices a partitioned program runs on (its mesh's)

    def tensor_type(self, aval, shape: tuple | None = None) -> ir.RankedTensorType:
        """``tensor_type(aval)`` (or of its dtype in ``shape``), built once per module:
        every equation's results are checked against it. (Keyed by shape and dtype, which
        hash in C, not by the aval.)"""
        if aval is core.abstract_token:
            key = aval
        else:
            shape = aval.shape if shape is None else shape
            key = (shape, aval.dtype)
        ty = self._tensor_types.get(key)
        if ty is None:
            ty = self._tensor_types[key] = tensor_type(
                aval if shape is None or shape == aval.shape else aval.update(shape=shape))
        return ty

    def leading_dims(self, rank: int) -> ir.DenseI64ArrayAttr:
        """``array<i64: 0, 1, ..., rank - 1>``, a ``broadcast_in_dim``'s dimensions for an
        operand that grows no new leading axes, built once per module for each rank."""
        attr = self._leading_dims.get(rank)
        if attr is None:
            attr = self._leading_dims[rank] = ir.DenseI64ArrayAttr.get(list(range(rank)))
        return attr

    def literal(self, lit: Lit) -> ir.Value:
        """``stablehlo.constant`` of a literal, one op per use as JAX emits it; its
        attribute is built once per module for each value (``x * 1.5`` in a loop)."""
        key = (lit.val.tobytes(), lit.val.dtype)
        attr = self._literal_attrs.get(key)
        if attr is None:
            attr = self._literal_attrs[key] = dense_elements(lit.val)
        return emit('stablehlo.constant', attr.type, value=attr)

    def unique_symbol(self, base: str, sanitize: bool = True) -> str:
        """``base`` made a valid symbol (unless the caller knows it is one), numbered after
        its first use by one counter for the whole module, as MLIR's symbol table numbers
        JAX's: a jit and its transpose are ``@f`` and ``@f_0``, and a second name taken
        twice goes on from there (``@g_1``); ``composite``'s ``@my.op`` keeps its dot."""
        base = _sanitize(base) if sanitize else base
        name = base
        while name in self.symbols:
            name = f'{base}_{self._renames}'
            self._renames += 1
        self.symbols.add(name)
        return name

    def private_function(self, name: str, closed: ClosedJaxpr, shardings=None) -> func.FuncOp:
        """The private function for ``closed``, emitted on first use: one per jaxpr, types
        and ``shardings`` (None, or the shardings its arguments and results are constrained
        to: a nested ``jit`` given them)."""
        key = (id(closed), tuple(closed.in_avals), shardings)
        if key not in self.functions:
            symbol = self.unique_symbol(name)
            self.functions[key] = symbol
            with ir.InsertionPoint(self.module.body), _jit_location(self):
                emit_function(self, symbol, closed, public=False, shardings=shardings)
        return self.functions[key]


    def call_outlined(self, rule, ctx, args, params, location: ir.Location
                      ) -> list[ir.Value]:
        """A call of the private function holding ``rule``'s ops for these operand types and
        ``params``, emitted on first use: how a primitive registered with ``inline=False``
        is lowered. The call is located at the equation (the current location); the
        function, its arguments and its return at ``location``, the equation's before
        anything inlines it; the rule's own ops at its primitive, as JAX locates them."""
        key = (ctx.primitive, tuple((a.shape, a.dtype) for a in ctx.avals_in),
               tuple(sorted(params.items())))
        out_types = [self.tensor_type(a) for a in ctx.avals_out]
        symbol = self.functions.get(key)
        if symbol is None:
            symbol = self.functions[key] = self.unique_symbol(ctx.primitive.name)
            in_types = [self.tensor_type(a) for a in ctx.avals_in]
            with ir.InsertionPoint(self.module.body), location:
                fn = func.FuncOp(symbol, ir.FunctionType.get(in_types, out_types))
            fn.attributes['sym_visibility'] = ir.StringAttr.get('private')
            block = fn.add_entry_block(arg_locs=[location] * len(in_types))
            saved = self.name_stack, self.eqn_name_stack, self.where
            self.name_stack = self.eqn_name_stack = ''
            self.where = self.where._replace(inlined_into=(), cut=self.where.trace_frames,
                                             in_rule=True)
            try:
                with ir.InsertionPoint(block):
                    with rule_location(ctx):
                        outs = rule(ctx, *block.arguments, **params)
                    func.ReturnOp([outs] if isinstance(outs, ir.Value) else outs, loc=location)
            finally:
                self.name_stack, self.eqn_name_stack, self.where = saved
        return list(func.CallOp(out_types, ir.FlatSymbolRefAttr.get(symbol), args).results)


def rule_location(ctx) -> ir.Location:
    """``loc("sort:"("sort"))``: where JAX locates what a rule makes before inlining it
    where the equation is, which keeps it: its regions' block arguments, and the ops of a
    rule that is not inlined."""
    name = jax_name(ctx.primitive.name)
    return ir.Location.name(f'{name}:', childLoc=ir.Location.name(name))


def append_block(ctx, region: ir.Region, *types: ir.Type) -> ir.Block:
    """A block of ``region`` taking arguments of ``types``, located as JAX locates a rule's
    block arguments (``rule_location``)."""
    return region.blocks.append(*types, arg_locs=[rule_location(ctx)] * len(types))


def _sanitize(name: str) -> str:
    cleaned = ''.join(c if c.isalnum() or c == '_' else '_' for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f'f_{cleaned}'


#: A module whose constants take more bytes than this is built in an MLIR context of its own.
#: A context keeps every attribute made in it (a constant's values) for as long as it lives,
#: so in the shared context each big constant would stay in memory after its module is gone;
#: a context of its own goes with its module. Small modules share one: making a context
#: takes milliseconds.
OWN_CONTEXT_BYTES = 1 << 20


def lower_jaxpr_to_module(closed: ClosedJaxpr, module_name: str, name_stack: str = '',
                          arg_names: Sequence[str] = (), result_names: Sequence[str] = (),
                          num_partitions: int = 1, arg_shardings: Sequence = (),
                          result_shardings: Sequence = (),
                          donated_args: Sequence[bool] = ()) -> ir.Module:
    """``module @<module_name>`` whose public ``@main`` computes ``closed``; verified.
    The module's objects belong to ``module.context``: work on them inside it.

    Named as JAX names it: every character but letters, digits, ``_``, ``.`` and ``-``
    becomes ``_`` and trailing ``_`` go (``jit_<lambda>`` is ``@jit__lambda``). One replica
    and one partition, as a jit runs (``pmap`` overrides the replica count). Each result
    carries ``jax.result_info``: its ``result_names`` (the paths of the output's leaves,
    ``result['a']``) or, without them, ``result`` / ``result[i]``.

    Locations (printed with debug info) name each op as JAX does: ``name_stack`` (``jit(f)``),
    the transformations it was traced under and its primitive, at the user's frames; the
    arguments of ``@main`` are located at ``arg_names`` (its Python parameters).

    A program for a mesh (``jit`` with shardings) has ``num_partitions`` (the mesh's size)
    and, per argument and result, a ``NamedSharding`` or None (XLA chooses): each becomes an
    ``sdy.sharding`` attribute, their meshes one ``sdy.mesh @mesh`` (``lowering.shardings``).

    ``donated_args``: per argument, whether its buffer is given to the program
    (``jit(donate_argnums=...)``): the outputs that may reuse it are marked on ``@main``'s
    arguments (``lowering.donation``)."""
    if core.sharding_in_types():  # (sharded types: laid out as their types say, as JAX)
        arg_shardings, result_shardings = (
            [s if s is not None else sharding_rules.constraint_of(a)
             for s, a in zip(list(given) or [None] * len(avals), avals)]
            for given, avals in ((arg_shardings, closed.in_avals),
                                 (result_shardings, closed.out_avals)))
    big = _constant_bytes(closed) > OWN_CONTEXT_BYTES
    with core.gc_paused(), new_context() if big else mlir_context(), ir.Location.unknown():
        module = ir.Module.create()
        attributes = module.operation.attributes
        attributes['sym_name'] = ir.StringAttr.get(re.sub(r'[^\w.-]', '_', module_name)
                                                   .rstrip('_'))
        i32 = ir.IntegerType.get_signless(32)
        attributes['mhlo.num_partitions'] = ir.IntegerAttr.get(i32, num_partitions)
        attributes['mhlo.num_replicas'] = ir.IntegerAttr.get(i32, 1)
        module_ctx = ModuleContext(module)
        module_ctx.num_partitions = num_partitions
        module_ctx.name_stack = name_stack
        here = core.user_source_info()
        module_ctx.where = Where(trace_frames=_codes(here))
        module_ctx.function_location = _new_location(name_stack, here)
        with ir.InsertionPoint(module.body):
            main = emit_function(module_ctx, 'main', closed, public=True, arg_names=arg_names)
            names = result_names or _result_names(len(closed.out_avals))
            result_shardings = list(result_shardings) or [None] * len(names)
            tokens = token_attrs([hlo.TokenType.get()] * closed.ordered)
            main.result_attrs = ir.ArrayAttr.get(tokens + [
                ir.DictAttr.get({'jax.result_info': ir.StringAttr.get(name),
                                 **_sharding_attr(sharding, aval)})
                for name, sharding, aval in zip(names, result_shardings, closed.out_avals)])
            donations = [{}] * len(closed.in_avals)
            if any(donated_args):
                donations = donation_attrs(
                    closed.in_avals, closed.out_avals, donated_args, len(tokens),
                    result_shardings if num_partitions > 1 else None)
            if any(s is not None for s in arg_shardings) or any(donations):
                arg_shardings = list(arg_shardings) or [None] * len(closed.in_avals)
                main.arg_attrs = ir.ArrayAttr.get(tokens + [
                    ir.DictAttr.get({**_sharding_attr(s, a), **d})
                    for s, a, d in zip(arg_shardings, closed.in_avals, donations, strict=True)])
        verify_module(module)
        if module_ctx.uses_shardy or any(s is not None for s in
                                         (*arg_shardings, *result_shardings)):
            lift_meshes(module)
    if module_ctx.host_callbacks:
        _remember_host_callbacks(module, module_ctx.host_callbacks)
    return module


#: The Python functions each lowered module calls back (``stablehlo.custom_call`` with an
#: ``index`` into this list), by the module's ``id``: the runtime hands them to PJRT with the
#: module to compile. Not a WeakKeyDictionary: an ``ir.Module`` hashes by its contents, which
#: change when an attribute is set after lowering (``pmap`` sets its replica count).
_host_callbacks: dict[int, list] = {}


def _remember_host_callbacks(module: ir.Module, callbacks: list) -> None:
    """Record ``callbacks`` for as long as ``module`` lives."""
    _host_callbacks[id(module)] = callbacks
    weakref.finalize(module, _host_callbacks.pop, id(module), None)


def host_callbacks(module: ir.Module) -> list:
    """The Python functions ``module``'s host callbacks call, by index (empty for a module
    with none, or one not lowered here: parsed from text)."""
    return _host_callbacks.get(id(module), [])


def _sharding_attr(sharding, aval) -> dict:
    """``{sdy.sharding = ...}`` of an argument or result laid out by a sharding (none for
    None, whose layout XLA chooses)."""
    if sharding is None:
        return {}
    return {'sdy.sharding': sdy_sharding(sharding, core.physical_aval(aval).ndim)}


def _result_names(n: int) -> list[str]:
    """JAX's ``jax.result_info`` of a function returning one array (``result``) or a tuple of
    ``n`` (``result[i]``), where the caller gives no names."""
    return ['result'] if n == 1 else [f'result[{i}]' for i in range(n)]


def _constant_bytes(closed: ClosedJaxpr) -> int:
    """The bytes of the constants ``closed`` and the jaxprs in its equations' parameters hold."""
    total = sum(_physical(c).nbytes for c in closed.consts)
    for eqn in closed.jaxpr.eqns:
        for param in eqn.params.values():
            for sub in (param if isinstance(param, (tuple, list)) else (param,)):
                if isinstance(sub, ClosedJaxpr):
                    total += _constant_bytes(sub)
    return total


def main_function(module: ir.Module):
    """The module's ``func.func @main`` (the function PJRT and the reference interpreter
    run), or None."""
    for op in module.body.operations:
        if op.operation.name == 'func.func' and \
                ir.StringAttr(op.operation.attributes['sym_name']).value == 'main':
            return op
    return None


def verify_module(module: ir.Module) -> None:
    try:
        module.operation.verify()
    except ir.MLIRError as err:
        raise LoweringError(f'minijax emitted an invalid module (this is a bug in the lowering '
                            f'rule of the primitive named in the location): {err}') from None


def emit_function(module_ctx, name: str, closed: ClosedJaxpr, public: bool,
                  arg_names: Sequence[str] = (), cut: tuple | None = None,
                  shardings=None) -> func.FuncOp:
    """``func.func @<name>``, at the current location. ``@main``'s arguments without a
    name, its constants and its return are located where it is; a private function's
    are not located, and its ops are named without the caller's name stack and located at
    their frames inside the trace of the function, as JAX lowers a function out of line
    (it may have several callers; each ``func.call`` carries its own). ``cut``: the frames
    its ops' frames are cut at, instead of the call's (a function traced by a rule, at the
    frames of the equation the rule lowers, keeps those inside the outer trace).
    ``shardings``: (per argument, per result) a sharding or None: the arguments are
    constrained to theirs on entry and the results before the return."""
    tokens = [hlo.TokenType.get()] * closed.ordered
    in_types = tokens + [tensor_type(a) for a in closed.in_avals]
    out_types = tokens + [tensor_type(a) for a in closed.out_avals]
    fn = func.FuncOp(name, ir.FunctionType.get(in_types, out_types))
    fn.attributes['sym_visibility'] = ir.StringAttr.get('public' if public else 'private')
    if tokens:
        fn.arg_attrs, fn.result_attrs = (ir.ArrayAttr.get(token_attrs(types)) for types in
                                         (in_types, out_types))
    names = [''] * len(tokens) + list(arg_names)
    names += [''] * (len(in_types) - len(names))
    location = module_ctx.function_location if public else ir.Location.unknown()
    block = fn.add_entry_block(arg_locs=[ir.Location.name(n) if n else location
                                         for n in names])
    with ir.InsertionPoint(block), location, \
            contextlib.nullcontext() if public else detached(module_ctx, cut):
        args = list(block.arguments)[len(tokens):]
        if shardings is not None:
            args = constrain_all(module_ctx, args, shardings[0], closed.in_avals)
        with threading_token(module_ctx, block.arguments[0] if tokens else None):
            outs = lower_closed_jaxpr(module_ctx, closed, args)
            if shardings is not None:
                outs = constrain_all(module_ctx, outs, shardings[1], closed.out_avals)
            func.ReturnOp([module_ctx.token, *outs] if tokens else outs)
    return fn


def token_attrs(types) -> list[ir.DictAttr]:
    """A function's argument or result attributes: ``{jax.token = true}`` on each token
    (the ordered effects' token, first), none on the others."""
    return [ir.DictAttr.get({'jax.token': ir.BoolAttr.get(True)}
                            if hlo.TokenType.isinstance(t) else {}) for t in types]


@contextlib.contextmanager
def detached(module_ctx, cut: tuple | None = None):
    """Lower what follows as JAX lowers a function of its own (a private function, a
    ``shard_map`` body): its ops named without the caller's name stack and located at their
    frames inside the trace of the function, cut at the call's frames (or ``cut``)."""
    saved = module_ctx.name_stack, module_ctx.where
    call = module_ctx.where.call
    module_ctx.name_stack = ''
    frames = _codes(call[1] if call else None)
    module_ctx.where = Where(cut=frames if cut is None else cut, trace_frames=frames)
    try:
        yield
    finally:
        module_ctx.name_stack, module_ctx.where = saved


def _jit_location(module_ctx) -> ir.Location:
    """Where JAX locates the private function of a ``jit`` it lowers out of line: at the
    call's frames, named ``jit`` in its name stack, of op type ``jit:``."""
    name_stack, info, _ = module_ctx.where.call
    where = module_ctx.where
    inner = _inlined_location(module_ctx, (), _joined(name_stack, 'jit'), info, where.cut)
    return ir.Location.name('jit:', childLoc=inner)


def lower_closed_jaxpr(module_ctx, closed: ClosedJaxpr, args: Sequence[ir.Value],
                       scope: str = '') -> list[ir.Value]:
    """``lower_jaxpr`` of a closed jaxpr, its constants emitted as ``stablehlo.constant``s:
    how a function body, a branch or a loop body is emitted. A rule lowering a sub-jaxpr
    names its ``scope`` (``cond/branch_1_fun``, ``while/body``): its ops are named inside
    the equation being lowered, as JAX names them (``jit(f)/jvp()/cond/branch_1_fun/sin``).
    Their frames go on from the equation's: JAX traces a body's equations at the frames
    inside it, then locates them at the equation's."""
    saved = module_ctx.name_stack, module_ctx.eqn_name_stack, module_ctx.where
    if scope:
        module_ctx.name_stack = _joined(module_ctx.eqn_name_stack, scope)
    where, call = module_ctx.where, module_ctx.where.call
    if call is not None and where.in_rule:
        module_ctx.where = where._replace(
            inlined_into=(*where.inlined_into, ('', call[1], where.cut)))
    elif call is not None:
        module_ctx.where = where._replace(trace_frames=_codes(call[1]))
    try:
        consts = [constant(_physical(c)) for c in closed.consts]
        return lower_jaxpr(module_ctx, closed.jaxpr, consts, args)
    finally:
        module_ctx.name_stack, module_ctx.eqn_name_stack, module_ctx.where = saved


@contextlib.contextmanager
def threading_token(module_ctx, token: ir.Value | None):
    """Lower a region (a branch, a loop body) whose ordered effects go on from ``token``
    (the region's own token, or the function's); ``module_ctx.token`` is then the token
    the region returns. The enclosing function's token is restored after it."""
    saved = module_ctx.token
    module_ctx.token = token
    try:
        yield
    finally:
        module_ctx.token = saved


_NO_MESH = contextlib.nullcontext()  # (stateless: one for every equation)


def _traced_mesh(eqn):
    """The abstract mesh ``eqn`` was traced under, in context while its rule runs (JAX keeps
    it in the equation's context), read from its results' types: a rule that traces a
    function (``lower_fun``) types its values on the equation's mesh, an ``auto_axes``
    body's Auto one."""
    mesh = next((a._sharding.mesh for a in (v.aval for v in eqn.out_binders)
                 if a is not core.abstract_token and a._sharding is not None), None)
    if mesh is None or mesh.empty or mesh == mesh_lib.get_abstract_mesh():
        return _NO_MESH
    return mesh_lib.use_abstract_mesh(mesh)


def lower_fun(fun, multiple_results=False):
    """A lowering rule that emits ``fun(*operands, **params)``, written in lax ops and traced
    at the operands' types, in place of the primitive: how a primitive lowers to a formula
    (JAX's ``mlir.lower_fun``). As in JAX, the equations of ``fun`` are traced at the
    equation's frames and their ops located as if inlined from a function of their own:
    ``jit(f)/neg`` at the frames inside the trace, called at the equation's location."""
    def rule(ctx, *args, **params):
        def traced(*xs):
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]
        module_ctx = ctx.module_context
        call = module_ctx.where.call
        with core.traced_as(call[1] if call else None, ()):
            closed, _ = trace_to_jaxpr(traced, ctx.avals_in)
        saved = module_ctx.name_stack, module_ctx.where
        module_ctx.name_stack = ''
        module_ctx.where = module_ctx.where._replace(
            inlined_into=_calls_inlined_into(module_ctx.where), cut=module_ctx.where.trace_frames,
            in_rule=True, call=None)
        try:
            outs = lower_closed_jaxpr(module_ctx, closed, args)
        finally:
            module_ctx.name_stack, module_ctx.where = saved
        return outs if multiple_results else outs[0]
    return rule


def _joined(*names: str) -> str:
    """A name stack: the non-empty ``names`` joined by ``/``."""
    return '/'.join(filter(None, names))


def _physical(value) -> np.ndarray:
    """A constant's value as the module holds it: a key array's words."""
    from minijax.array import physical_value  # (minijax.array imports the runtime, and so this)
    return physical_value(value)


def lower_jaxpr(module_ctx, jaxpr: Jaxpr, consts: Sequence[ir.Value],
                args: Sequence[ir.Value]) -> list[ir.Value]:
    """Emit the ops of ``jaxpr`` at the current insertion point; return its output values.

    A value leaves ``env`` after its last use: each one the bindings hand out is a Python
    object keeping its op's wrapper alive, and holding all of them made lowering slower per
    equation the longer the jaxpr (3% at 30,000 equations), as well as slower overall.
    Where an equation's ops go (``_EqnPlace``) is worked out once per primitive and place it
    was traced at: a loop in the user's code traces the same lines again and again."""
    env: dict[Var, ir.Value] = {}
    literal = module_ctx.literal

    def read(x):
        return literal(x) if type(x) is Lit else env[x]

    for v, val in zip([*jaxpr.constvars, *jaxpr.invars], [*consts, *args], strict=True):
        env[v] = val
    last_use = {x: i for i, eqn in enumerate(jaxpr.eqns) for x in eqn.inputs}
    last_use.update((x, -1) for x in jaxpr.outs)  # (returned: never dropped)
    places: dict[tuple, _EqnPlace] = {}
    constrains = core.sharding_in_types() and sharding_rules.constrains
    for i, eqn in enumerate(jaxpr.eqns):
        key = (eqn.primitive, eqn.source_info, eqn.params.get('name'))  # (a jit names its ops)
        place = places.get(key)
        if place is None:
            place = places[key] = _eqn_place(module_ctx, eqn)
        rule_ctx = LoweringRuleContext(module_ctx, [x.aval for x in eqn.inputs],
                                       [v.aval for v in eqn.out_binders], eqn.primitive)
        module_ctx.eqn_name_stack, module_ctx.where = place.name_stack, place.where
        # (a literal's constant is emitted in the function, one per use)
        operands = [env[x] if type(x) is not Lit else literal(x) for x in eqn.inputs]
        with place.location, _traced_mesh(eqn) if constrains else _NO_MESH:
            if place.outlined is not None:
                outs = module_ctx.call_outlined(lowering_rules[eqn.primitive], rule_ctx,
                                                operands, eqn.params, place.outlined)
            else:
                outs = lowering_rules[eqn.primitive](rule_ctx, *operands, **eqn.params)
                if constrains and constrains(eqn.primitive):
                    outs = [constrain_to_type(rule_ctx, x, aval) for x, aval in
                            zip([outs] if isinstance(outs, ir.Value) else outs,
                                rule_ctx.avals_out)]
        outs = _check_lowered(module_ctx, eqn, rule_ctx.avals_out, outs)
        for v, val in zip(eqn.out_binders, outs):
            env[v] = val
        for x in eqn.inputs:
            if last_use[x] == i:
                env.pop(x, None)
    return [read(x) for x in jaxpr.outs]


class _EqnPlace(NamedTuple):
    """Where an equation's ops go: its name stack, ``Where`` (with the equation as its
    ``call``), the location its ops are emitted at and, for a primitive whose ops go in a
    private function, that function's location (else None)."""
    name_stack: str
    where: Where
    location: ir.Location
    outlined: ir.Location | None


def _eqn_place(module_ctx, eqn) -> _EqnPlace:
    name_stack = _joined(module_ctx.name_stack, core.format_name_stack(name_stack_of(eqn)))
    outlined = eqn.primitive in outlined_primitives
    where = module_ctx.where._replace(call=(name_stack, eqn.source_info, not outlined))
    if outlined:
        return _EqnPlace(name_stack, where, _location(module_ctx, eqn, name_stack),
                         _location(module_ctx, eqn, name_stack, inlined=False))
    return _EqnPlace(name_stack, where,
                     _location(module_ctx, eqn, _op_name(module_ctx, eqn, name_stack)), None)


def _check_lowered(module_ctx, eqn, avals_out, outs) -> list[ir.Value]:
    """A lowering rule's output as a list, checked against the abstract eval: the count and
    each value's tensor type. A rule that disagrees fails here, naming the primitive."""
    outs = [outs] if isinstance(outs, ir.Value) else outs
    if not isinstance(outs, (list, tuple)):
        raise _rule_returned(eqn, f'a {type(outs).__name__}, expected ir.Value results')
    if len(outs) != len(avals_out):
        raise _rule_returned(eqn, f'{len(outs)} values, expected {len(avals_out)}')
    for val, aval in zip(outs, avals_out):
        if not isinstance(val, ir.Value):
            raise _rule_returned(eqn, f'a {type(val).__name__}, expected an ir.Value')
        if not val.type == module_ctx.tensor_type(aval):  # (the bindings' == is the quick one)
            raise _rule_returned(eqn, f'{val.type}, the abstract eval says {aval.str_short()}')
    return list(outs)


def _rule_returned(eqn, what: str) -> LoweringError:
    return LoweringError(f"primitive '{eqn.primitive.name}': the lowering rule returned {what}")


def _location(module_ctx, eqn, name: str, inlined: bool = True) -> ir.Location:
    """JAX's location of an op: ``loc("jit(f)/jvp()/sin"(callsite(<innermost user frame> at
    <its caller> ...)))``, each frame ``loc("<function>"("file":line:col to :end))``; inside
    a rule written in lax ops, fused with the calls it is inlined into (unless not
    ``inlined``: a private function's own). Built once per module for each distinct one: a
    loop in the user's code traces the same line again and again."""
    where = module_ctx.where
    return _inlined_location(module_ctx, where.inlined_into if inlined else (), name,
                             eqn.source_info, where.cut)


def _inlined_location(module_ctx, inlined_into: tuple, name: str, info,
                      cut_at: tuple | None) -> ir.Location:
    """``loc("<name>"(<info's frames>))`` inlined into each call of ``inlined_into``, the
    innermost first, as JAX's inliner fuses them: the call's name stack before the name,
    the callee's frames called at the call's."""
    key = (name, info, inlined_into, cut_at)
    location = module_ctx.locations.get(key)
    if location is None:
        full_name, child = name, _frames_location(info, cut_at)
        for call_name, call_info, call_cut_at in reversed(inlined_into):
            full_name = _joined(call_name, full_name)
            caller = _frames_location(call_info, call_cut_at)
            if caller is not None:
                child = caller if child is None else ir.Location.callsite(child, [caller])
        location = module_ctx.locations[key] = _named(full_name, child)
    return location


def traceless_location(ctx, primitive_name: str) -> ir.Location:
    """Where JAX locates the op of ``primitive_name`` that a rule lowers from a jaxpr JAX
    traced without the user's frames (a scatter's combining function): at the equation,
    named after that primitive."""
    module_ctx = ctx.module_context
    return _inlined_location(module_ctx, _calls_inlined_into(module_ctx.where),
                             primitive_name, None, None)


def _calls_inlined_into(where: Where) -> tuple:
    """The calls the ops a rule emits are inlined into: the equation's too, when it is."""
    if where.call is None or not where.call[2]:
        return where.inlined_into
    name_stack, info, _ = where.call
    return (*where.inlined_into,
            (name_stack, info, where.cut))


def _codes(info) -> tuple:
    """The code objects of the user's frames of ``info``."""
    return tuple(code for code, _ in core.user_frames(info))


def _frames_location(info, cut_at: tuple | None) -> ir.Location | None:
    """The user's frames of ``info`` as a callsite; with ``cut_at``, only those inside the
    trace, above the frames it ran in (the traceback JAX gives an equation)."""
    frames = core.user_frames(info)
    if cut_at is not None:
        n = 0
        while n < min(len(frames), len(cut_at)) and frames[-1 - n][0] is cut_at[-1 - n]:
            n += 1
        frames = frames[:len(frames) - n]
    frames = [_frame_location(code, offset) for code, offset in frames]
    if not frames:
        return None
    return frames[0] if len(frames) == 1 else ir.Location.callsite(frames[0], frames[1:])


def _new_location(name: str, info) -> ir.Location:
    return _named(name, _frames_location(info, None))


def _named(name: str, where: ir.Location | None) -> ir.Location:
    """``loc("<name>"(<where>))``, without the parts that are empty."""
    if where is None:
        return ir.Location.name(name) if name else ir.Location.unknown()
    return ir.Location.name(name, childLoc=where) if name else where


def _op_name(module_ctx, eqn, eqn_name_stack: str) -> str:
    """The name stack and the primitive's name. A call of a jitted function is a scope,
    ``jit(<its name>)``, which the transformations wrap, as in JAX: ``jvp(jit(g))``."""
    if eqn.primitive.name == 'xla_call':
        scope = f"jit({eqn.params['name']})"
        return _joined(module_ctx.name_stack,
                       core.format_name_stack((*name_stack_of(eqn), scope)))
    return _joined(eqn_name_stack, jax_name(eqn.primitive.name))


def _frame_location(code, offset: int) -> ir.Location:
    line, end_line, col, end_col = core.frame_position(code, offset)
    if line is None:
        where = ir.Location.file(code.co_filename, code.co_firstlineno, 0)
    elif col is None:
        where = ir.Location.file(code.co_filename, line, 0)
    else:
        where = ir.Location.file(code.co_filename, line, col, end_line, end_col)
    return ir.Location.name(code.co_qualname, childLoc=where)


def constant(val: np.ndarray) -> ir.Value:
    """``stablehlo.constant dense<...>`` holding ``val``."""
    return hlo.ConstantOp(dense_elements(val)).result


def emit(name: str, result_type: ir.Type, *operands: ir.Value, **attributes) -> ir.Value:
    """The result of a new op ``name`` (``'stablehlo.sine'``) of one result, of
    ``result_type``, at the current insertion point and location. The bindings' builders
    (``hlo.SineOp(x)``) infer the result type and go through a generic path, at twice the
    cost: the ops that most equations emit (elementwise ops, literals and their broadcasts)
    are built this way."""
    return ir.Operation.create(name, results=[result_type], operands=operands,
                               attributes=attributes).result


#: The forms of ``debug_info``: locations as JAX prints them, each op ending with an alias
#: (``loc(#loc14)``) defined after the module, or each written out on its op (a minijax option).
DEBUG_INFO_FORMS = ('alias', 'inline')


def module_text(module: ir.Module, debug_info: bool | str = False) -> str:
    """The module's text: without locations unless ``debug_info`` (``True`` or ``'alias'``:
    JAX's aliases; ``'inline'``: each location written out on its op, MLIR's local scope).
    Every module was verified when it was made (lowered or parsed), so the printer does not
    verify it again. It prints bytes, decoded once: printing to a ``str`` goes through an
    ``io.StringIO``, which holds every character in four bytes (a sixth slower)."""
    if debug_info not in (False, True, *DEBUG_INFO_FORMS):
        raise ValueError(f'module_text: debug_info must be a bool or one of '
                         f'{DEBUG_INFO_FORMS}, got {debug_info!r}')
    text = module.operation.get_asm(binary=True, enable_debug_info=bool(debug_info),
                                    use_local_scope=debug_info == 'inline',
                                    assume_verified=True).decode()
    return text if text.endswith('\n') else text + '\n'  # (the local scope ends without)

