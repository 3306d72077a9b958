"""``jax.stages``: the ahead-of-time stages of a jitted function, each a step further from
Python: ``jit(f)`` is ``Wrapped``, ``.trace(*args)`` gives ``Traced`` (the jaxpr),
``.lower()`` gives ``Lowered`` (the StableHLO module) and ``.compile()`` gives ``Compiled``
(the executable). Every stage describes the call's arguments (``args_info``, a pytree of
``ArgInfo`` shaped as ``(args, kwargs)``) and results (``out_info``).

minijax never reuses an argument's buffer, so every ``ArgInfo.donated`` is False.
"""

import dataclasses
import typing

from jaxlib.mlir import ir

from minijax import (core, errors, fast_calls, lowering, runtime, sharding, spmd_call,
                     tree_util, xla_call)
from minijax.ir import jaxpr as jaxprs
from minijax.ir import tracing

__all__ = ['ArgInfo', 'Compiled', 'CompilerOptions', 'Lowered', 'Traced', 'Wrapped']

#: Options for XLA's compiler, by name (``Lowered.compile(compiler_options=...)``).
CompilerOptions = dict[str, typing.Union[str, bool]]


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    """One argument leaf of a staged call: its type, and whether its buffer is donated."""
    _aval: typing.Any
    donated: bool

    @property
    def shape(self):
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype


@typing.runtime_checkable
class Wrapped(typing.Protocol):
    """A function ``jit`` wrapped: callable, and traced or lowered ahead of time."""

    def __call__(self, *args, **kwargs): ...

    def trace(self, *args, **kwargs) -> 'Traced': ...

    def lower(self, *args, **kwargs) -> 'Lowered': ...


class _Stage:
    """What every stage says about its call: ``args_info`` and, from it, the arguments'
    tree and types; ``out_info``, the results' types."""
    _in_tree: typing.Any
    out_tree: typing.Any
    _jaxpr: jaxprs.ClosedJaxpr
    _donated: tuple[bool, ...] = ()  # per argument leaf, whether its buffer is donated

    @property
    def args_info(self):
        donated = self._donated or (False,) * len(self._jaxpr.in_avals)
        return tree_util.tree_unflatten(self._in_tree, [
            ArgInfo(a, d) for a, d in zip(self._jaxpr.in_avals, donated, strict=True)])

    @property
    def in_tree(self):
        """The tree of ``(positional arguments, keyword arguments)``."""
        return self._in_tree

    @property
    def in_avals(self):
        return tree_util.tree_unflatten(self._in_tree, self._jaxpr.in_avals)

    @property
    def out_info(self):
        return tree_util.tree_unflatten(self.out_tree, [
            core.ShapeDtypeStruct(a.shape, a.dtype) for a in self._jaxpr.out_avals])


class Traced(_Stage):
    """A jitted function traced for particular argument types: its jaxpr, ready to lower."""

    def __init__(self, closed: jaxprs.ClosedJaxpr, name: str, in_tree, out_tree, lower,
                 donated=()):
        self._jaxpr, self._name, self._in_tree, self.out_tree = closed, name, in_tree, out_tree
        self._lower = lower
        self._donated = donated

    jaxpr = property(lambda self: self._jaxpr)
    fun_name = property(lambda self: self._name)

    @property
    def out_avals(self):
        return tree_util.tree_unflatten(self.out_tree, self._jaxpr.out_avals)

    def __call__(self, *args, **kwargs):
        """Evaluate the jaxpr on arguments shaped as the traced ones."""
        leaves = tree_util.flatten_up_to(self._in_tree, (args, kwargs))
        outs = jaxprs.eval_closed_jaxpr(self._jaxpr, leaves)
        return tree_util.tree_unflatten(self.out_tree, outs)

    def lower(self, *, lowering_platforms: tuple[str, ...] | None = None) -> 'Lowered':
        if lowering_platforms not in (None, ('cpu',)):
            raise ValueError(f'Traced.lower: lowering_platforms={lowering_platforms!r}: '
                             "minijax lowers for 'cpu' only")
        return self._lower()


class Lowered(_Stage):
    """A jitted function lowered to a StableHLO module for particular argument types."""

    def __init__(self, closed: jaxprs.ClosedJaxpr, name: str, out_tree, names=((), ()), place=None,
                 in_tree=None, compiler_options=(), donated=()):
        """``names``: of the module's arguments and results (``jit``'s trace gives them);
        ``place``: the mesh and shardings of a program over a mesh (``spmd_call``);
        ``in_tree``: of the (positional, keyword) arguments traced; ``compiler_options``:
        ``jit``'s, as (name, value) pairs; ``donated``: per argument leaf, whether its
        buffer is given to the program (empty: none is)."""
        self.jaxpr = self._jaxpr = closed
        self.name = name
        self.out_tree = out_tree
        self._names = names
        self._place = place
        self._in_tree = in_tree
        self._compiler_options = compiler_options
        self._donated = donated
        self._module = xla_call.lowered_module(closed, name, *names, place, donated)

    def as_text(self, dialect: str | None = None, *, debug_info: bool | str = False) -> str:
        """The module's text, as JAX's ``as_text``: ``dialect`` 'stablehlo' (the default) or
        'hlo' (what XLA starts from). ``debug_info`` adds each op's name stack and source
        lines: StableHLO's ``loc(...)`` (``'inline'``, a minijax option, writes each out on
        its op instead of as an alias), HLO's ``metadata``."""
        if dialect == 'hlo':
            return runtime.hlo_text(self._module, metadata=bool(debug_info))
        if dialect not in (None, 'stablehlo'):
            raise ValueError(f"Lowered.as_text: unknown dialect {dialect!r}: minijax prints "
                             f"'stablehlo' and 'hlo'")
        with self._module.context:
            return lowering.module_text(self._module, debug_info)

    def compiler_ir(self, dialect: str | None = None) -> ir.Module:
        if dialect not in (None, 'stablehlo'):
            raise ValueError(f"Lowered.compiler_ir: dialect {dialect!r}: minijax's is "
                             "'stablehlo'")
        return self._module

    def cost_analysis(self) -> dict:
        """XLA's estimate of the module's cost before optimization (flops, transcendentals,
        bytes accessed); ``Compiled.cost_analysis`` estimates the optimized program."""
        return runtime.lowered_cost_analysis(self._module)

    def compile(self, compiler_options: CompilerOptions | None = None, *,
                device_assignment=None) -> 'Compiled':
        """The executable; ``compiler_options`` (XLA's options) add to and override
        ``jit``'s."""
        if device_assignment is not None:
            raise NotImplementedError('Lowered.compile: device_assignment is not supported by '
                                      'minijax (it compiles for the devices of the call)')
        options = xla_call.option_pairs({**dict(self._compiler_options),
                                         **(compiler_options or {})})
        if self._place is not None:
            exe = xla_call.spmd_executable(self.jaxpr, self.name, *self._names, self._place,
                                           options, self._donated)
            return Compiled(self.jaxpr, exe, self.out_tree, self._place, self._in_tree,
                            self._donated)
        exe = xla_call.executable(self.jaxpr, self.name, *self._names, options, self._donated)
        return Compiled(self.jaxpr, exe, self.out_tree, in_tree=self._in_tree,
                        donated=self._donated)


def _structure_error(given, compiled) -> TypeError:
    """JAX's error for a compiled function called with arguments of another structure than
    it was compiled for, listing each difference."""
    placeholder = object()
    differences = list(tree_util.equality_errors(
        *(tree_util.tree_unflatten(t, [placeholder] * t.num_leaves) for t in (given, compiled)),
        is_leaf=lambda x: x is placeholder))
    lines = ['Function compiled with input pytree does not match the input pytree it was '
             f'called with. There are {len(differences)} mismatches, including:']
    for (first, *rest), now, seen, why in differences:
        lines.append(f'    * at {("args", "kwargs")[first.idx]}{tree_util.keystr(tuple(rest))}, '
                     f'seen {seen} but now given {now}, so {why}')
    return TypeError('\n'.join(lines))


class Compiled(_Stage):
    """A compiled jitted function: call it with arguments of the lowered types."""

    def __init__(self, closed: jaxprs.ClosedJaxpr, exe: runtime.Executable, out_tree, place=None,
                 in_tree=None, donated=()):
        self._jaxpr = closed
        self._executable = exe
        self.out_tree = out_tree
        self._place = place
        self._in_tree = in_tree
        self._donated = donated
        self._fast_calls: dict = {}  # per argument types a call passed with (fast_calls)

    def __call__(self, *args, **kwargs):
        key, _, leaves = self._fast_key(args, kwargs)
        fast = self._fast_calls.get(key)
        if fast is not None:
            try:
                return fast(leaves)
            except errors.JaxRuntimeError as err:
                raise fast_calls.call_error(err, leaves) from None
        return self._call(args, kwargs)

    @staticmethod
    def _fast_key(args, kwargs):
        """(key, signature, leaves) of a call for the fast path (see ``Jitted._fast_key``)."""
        if not kwargs:
            signature = fast_calls.call_signature(args)
            if signature is not None:
                return signature, signature, args
        return fast_calls.tree_call_key((args, kwargs))

    def _call(self, args, kwargs):
        """The full path: check the arguments' types, run, and record a fast path for
        these argument types."""
        for x in tree_util.tree_leaves((args, kwargs)):
            if isinstance(x, core.Tracer):
                raise TypeError('Cannot apply JAX transformations to a function lowered and '
                                'compiled for a particular signature. Detected argument of '
                                f'Tracer type {type(x)}.')
        avals, in_tree, leaves = tracing.abstractify_args('compiled function', (args, kwargs))
        if self._in_tree is not None and in_tree != self._in_tree:
            raise _structure_error(in_tree, self._in_tree)
        expected = self._jaxpr.in_avals
        if len(avals) != len(expected) or not all(map(jaxprs.same_type, avals, expected)):
            raise TypeError('compiled function called with types '
                            f'({", ".join(a.str_short() for a in avals)}) but compiled for '
                            f'({", ".join(a.str_short() for a in expected)})')
        xla_call.check_values('compiled function', map(str, range(len(leaves))), leaves)
        if self._place is not None:
            outs = spmd_call.run(self._executable, self._place, leaves, self._jaxpr.out_avals)
            return tree_util.tree_unflatten(self.out_tree, outs)
        key, signature, fast_leaves = self._fast_key(args, kwargs)
        if key is not None and fast_calls.same_objects(fast_leaves, leaves):
            self._fast_calls[key] = fast_calls.fast_call(
                self._executable, signature, self._jaxpr.out_avals, self.out_tree)
        outs = xla_call.run(self._executable, leaves, self._jaxpr.out_avals)
        return tree_util.tree_unflatten(self.out_tree, outs)

    @property
    def input_shardings(self):
        """How each argument is laid out, ``(positional, keyword)`` as the call's pytrees:
        given, brought, or XLA's choice (an ordinary program's: its one device)."""
        ins, _ = self._shardings()
        return tree_util.tree_unflatten(self._in_tree, ins)

    @property
    def output_shardings(self):
        """How each result is laid out, as the output's pytree."""
        _, outs = self._shardings()
        return tree_util.tree_unflatten(self.out_tree, outs)

    def _shardings(self):
        if self._place is None:
            device = sharding.SingleDeviceSharding(runtime.device())
            return ([device] * len(self._jaxpr.in_avals),
                    [device] * len(self._jaxpr.out_avals))
        return spmd_call.shardings(self._executable, self._place, self._jaxpr.in_avals,
                                   self._jaxpr.out_avals)

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._executable.hlo_text()

    def cost_analysis(self) -> dict:
        return self._executable.cost_analysis()
