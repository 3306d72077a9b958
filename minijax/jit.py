"""``jit``: compile a function with XLA, traced once per argument types.

``jit(f)(*args, **kwargs)`` traces ``f`` to a closed jaxpr and binds ``xla_call`` with it
(``minijax.xla_call``); ``jit(f).trace(...)`` gives the jaxpr (``Traced``), ``.lower(...)``
the StableHLO module (``Lowered``) and ``.compile()`` the executable (``Compiled``), as in
JAX's ahead-of-time API (the stages are in ``minijax.stages``).

Arguments named in ``static_argnums``/``static_argnames`` are not traced: their values are
part of the trace cache key (so they must be hashable) and reach ``f`` as they are, which is
how Python control flow on a configuration value (a size, a flag, a callable) stays Python.
"""
from __future__ import annotations

import functools
import inspect
import types
import warnings
import weakref
from collections.abc import Callable

import numpy as np
from minijax import core, runtime, special_values, spmd_call, tree_util
from minijax.errors import JaxRuntimeError
from minijax.fast_calls import call_error, call_signature, fast_call, same_objects, tree_call_key
from minijax.config import config, special_value_hooks, trace_context, trace_context_hooks
from minijax.control_flow.common import hoist_consts
from minijax.ir.jaxpr import eval_jaxpr
from minijax.ir.tracing import abstractify_args, trace_to_jaxpr
from minijax.sharding import SingleDeviceSharding
from minijax.sharding.mesh import get_concrete_mesh
from minijax.stages import Compiled, Lowered, Traced
from minijax.xla_call import (check_values, executable, lowered_module, option_pairs, run,
                              spmd_executable, xla_call, xla_call_p)

__all__ = ['Compiled', 'Jitted', 'Lowered', 'Traced', 'jit', 'xla_call_p']


class Jitted:
    """A function compiled on first call per argument types and static values (see ``jit``).

    It is a descriptor, as a Python function is: ``@jit`` on a method binds the instance as
    the first argument (so ``static_argnums=0`` makes ``self`` static, as in JAX).
    """

    def __init__(self, fun, static_argnums=None, static_argnames=None, in_shardings=None,
                 out_shardings=None, inline=False, compiler_options=None, donate_argnums=None,
                 donate_argnames=None):
        self.fun = fun
        self.inline = inline
        self.compiler_options = option_pairs(compiler_options)
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        self.name = getattr(fun, '__name__', 'function')
        self.__name__ = self.name
        self.__doc__ = getattr(fun, '__doc__', None)
        self.__wrapped__ = fun
        self.static_argnums, self.static_argnames = _static_arguments(
            self.name, fun, static_argnums, static_argnames)
        self.donate_argnums, self.donate_argnames = _donated_arguments(
            self.name, fun, (self.static_argnums, self.static_argnames), donate_argnums,
            donate_argnames)
        self._traces = _traces_of(fun)
        self._fast_calls: dict[tuple, Callable] = {}
        self._layouts: dict[int, tuple] = {}
        _all_jitted.add(self)

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self):
        return f'<Jitted {self.name}>'

    def _trace(self, args, kwargs):
        """(closed jaxpr, the same with its consts as leading inputs, closed-over tracers,
        output tree, the names of the module's arguments and results, flat traced args) for a
        call. The names travel with the trace, so a call, ``lower`` and ``compile`` share one
        module."""
        static, dyn_args, dyn_kwargs = self._split_static(args, kwargs)
        avals, in_tree, leaves = self._abstractify(args, dyn_args, dyn_kwargs)
        # (a sharded argument's sharding is in the key as JAX has it: it traces again)
        key = (in_tree, tuple(avals), static, tuple(map(spmd_call.own_sharding, leaves)),
               trace_context())
        cached = self._traces.get(key)
        if cached is None:
            runtime.counters['trace'] += 1
            flat_fun, out_tree = tree_util.flatten_fun(
                functools.partial(self._call_with_static, static), in_tree)
            closed, closed_over = trace_to_jaxpr(flat_fun, avals)
            names = ((), ()) if closed_over else (self._argument_names(args, kwargs),
                                                   _result_names(out_tree()))
            cached = (closed, hoist_consts(closed), closed_over, out_tree(), names)
            if not closed_over:  # tracers of an outer transformation must not outlive it
                self._traces[key] = cached
        return (*cached, leaves)

    def _split_static(self, args, kwargs):
        """(static key, traced positional args, traced keyword args).

        The key holds each static argument as (position or name, type, value): the type
        keeps ``1``, ``1.0`` and ``True`` apart although they hash and compare equal, since
        they may trace to different programs.
        """
        positions, traced = self._layout(len(args))
        static = tuple((i, type(args[i]), _hashed(self.name, i, args[i])) for i in positions)
        static += tuple((k, type(kwargs[k]), _hashed(self.name, k, kwargs[k]))
                        for k in sorted(kwargs) if k in self.static_argnames)
        dyn_args = tuple([args[i] for i in traced])
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return static, dyn_args, dyn_kwargs

    def _layout(self, nargs: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(the static positions, the traced ones) of a call with ``nargs`` positional
        arguments: worked out once per count."""
        layout = self._layouts.get(nargs)
        if layout is None:
            static = tuple(_static_positions(self.static_argnums, nargs))
            layout = self._layouts[nargs] = (static, tuple(i for i in range(nargs)
                                                           if i not in static))
        return layout

    def _call_with_static(self, static, dyn_args, dyn_kwargs):
        """``fun`` called with the static values put back where the caller passed them."""
        args, kwargs = list(dyn_args), dict(dyn_kwargs)
        for where, _, value in static:
            if isinstance(where, int):
                args.insert(where, value)  # positions ascend, so each lands at its index
            else:
                kwargs[where] = value
        return self.fun(*args, **kwargs)

    def _abstractify(self, args, dyn_args, dyn_kwargs):
        """Flatten the traced arguments; a non-array one is named, with the way out."""
        what = f'jit({self.name})'
        try:
            return abstractify_args(what, (dyn_args, dyn_kwargs))
        except TypeError:
            static = _static_positions(self.static_argnums, len(args))
            traced = [(i, a) for i, a in enumerate(args) if i not in static]
            for label, value in [*traced, *dyn_kwargs.items()]:
                for leaf in tree_util.tree_leaves(value):
                    try:
                        core.shaped_aval(leaf)
                    except TypeError as err:
                        raise TypeError(f'{what}: argument {label} {err}'
                                        f'{_STATIC_HINT if _not_numeric(leaf) else ""}') from None
            raise

    def __call__(self, *args, **kwargs):
        if core.dynamic_trace is None and not config.jax_disable_jit:
            leaves = args
            fast = (self._fast_calls.get(call_signature(args))  # the commonest call, cheapest
                    if not kwargs and not self.static_argnums else None)
            if fast is None:
                key, _, leaves = self._fast_key(args, kwargs)
                try:
                    fast = self._fast_calls.get(key)
                except TypeError:  # an unhashable static value: the full path names it
                    fast = None
            if fast is not None:
                try:
                    return fast(leaves)
                except JaxRuntimeError as err:
                    raise call_error(err, leaves) from None
        return self._call(args, kwargs)

    def _fast_key(self, args, kwargs):
        """(the fast path's key for a call, the leaves' signature, the call's array
        leaves). Traced arguments that are positional arrays are their own leaves, keyed
        by their signature (and the static values, if any); otherwise they are flattened
        (``tree_call_key``). The key is None where a leaf is not an array or scalar."""
        positions, traced = self._layout(len(args))
        # ``_split_static``'s split, without its check that each static value hashes: the
        # key's lookup hashes them, and the full path names one that does not
        if positions:
            static = tuple([(i, type(args[i]), args[i]) for i in positions])
            dyn_args = tuple([args[i] for i in traced])
        else:
            static, dyn_args = (), args
        dyn_kwargs = kwargs
        if kwargs:
            names = self.static_argnames
            static += tuple([(k, type(kwargs[k]), kwargs[k]) for k in sorted(kwargs)
                             if k in names])
            dyn_kwargs = {k: v for k, v in kwargs.items() if k not in names}
        if not dyn_kwargs:
            signature = call_signature(dyn_args)
            if signature is not None:
                return (None, static, signature) if static else signature, signature, dyn_args
        return tree_call_key((dyn_args, dyn_kwargs), static)

    def _call(self, args, kwargs):
        """The full path: trace (or find the trace), then bind ``xla_call`` under a
        transformation or run the executable, recording a fast path for these types."""
        if config.jax_disable_jit:
            return self.fun(*args, **kwargs)
        closed, hoisted, closed_over, out_tree, names, flat_args = self._trace(args, kwargs)
        if closed_over or core.dynamic_trace is not None or \
                any(isinstance(x, core.Tracer) for x in flat_args):
            # the call takes the constants as operands (JAX's and seeds/004's ``xla_call``):
            # traced, they become constvars of the outer jaxpr
            if self.inline and not (self.in_shardings or self.out_shardings):
                outs = eval_jaxpr(hoisted.jaxpr, [], [*closed.consts, *closed_over, *flat_args])
                return tree_util.tree_unflatten(out_tree, outs)
            given_ins, given_outs = self._given_shardings(args, kwargs, out_tree)
            if given_ins or given_outs:  # (constants, closed-over values: XLA lays them out)
                given_ins = (None,) * (len(closed.consts) + len(closed_over)) + \
                    tuple(given_ins or (None,) * len(flat_args))
            donated = self._donated_leaves(args, kwargs)
            if donated:  # (the constants are not the caller's to give)
                donated = (False,) * (len(closed.consts) + len(closed_over)) + donated
            outs = xla_call(*closed.consts, *closed_over, *flat_args, jaxpr=hoisted,
                            name=self.name, in_shardings=given_ins or None,
                            out_shardings=given_outs or None, donated_invars=donated)
            return tree_util.tree_unflatten(out_tree, outs)
        # nothing to transform: run the executable, constants inside (no transfers)
        check_values(f'jit({self.name})', names[0], flat_args)
        donated = self._donated_leaves(args, kwargs)
        place = self._placement(args, kwargs, flat_args, out_tree, closed)
        if place is not None:  # over a mesh: no fast path (the layouts are checked per call)
            exe = spmd_executable(closed, self.name, *names, place, self.compiler_options,
                                  donated)
            return tree_util.tree_unflatten(
                out_tree, spmd_call.run(exe, place, flat_args, closed.out_avals))
        exe = executable(closed, self.name, *names, self.compiler_options, donated)
        if special_values.checking():  # (no fast path: it would check nothing)
            outs = run(exe, flat_args, closed.out_avals)
            special_values.check_call(f'jit({self.name})', outs,
                                      lambda: self.fun(*args, **kwargs))
            return tree_util.tree_unflatten(out_tree, outs)
        key, signature, leaves = self._fast_key(args, kwargs)
        if key is not None and same_objects(leaves, flat_args):
            self._fast_calls[key] = fast_call(exe, signature, closed.out_avals, out_tree)
        return tree_util.tree_unflatten(out_tree, run(exe, flat_args, closed.out_avals))

    def trace(self, *args, **kwargs) -> Traced:
        """Trace for ``args`` (arrays, scalars or ``ShapeDtypeStruct``, and the static
        arguments' values): the jaxpr, ready to ``lower``."""
        closed, _, closed_over, out_tree, _, _ = self._trace(args, kwargs)
        if closed_over:
            raise core.UnexpectedTracerError(
                f'jit({self.name}).trace: the function closes over a traced value')
        _, dyn_args, dyn_kwargs = self._split_static(args, kwargs)
        return Traced(closed, self.name, tree_util.tree_structure((dyn_args, dyn_kwargs)),
                      out_tree, lambda: self.lower(*args, **kwargs),
                      self._donated_leaves(args, kwargs))

    def lower(self, *args, **kwargs) -> Lowered:
        """Trace and lower for ``args`` (arrays, scalars or ``ShapeDtypeStruct``, and the
        static arguments' values)."""
        closed, _, closed_over, out_tree, names, flat_args = self._trace(args, kwargs)
        if closed_over:
            raise core.UnexpectedTracerError(
                f'jit({self.name}).lower: the function closes over a traced value')
        _, dyn_args, dyn_kwargs = self._split_static(args, kwargs)
        return Lowered(closed, self.name, out_tree, names,
                       self._placement(args, kwargs, flat_args, out_tree, closed),
                       tree_util.tree_structure((dyn_args, dyn_kwargs)), self.compiler_options,
                       self._donated_leaves(args, kwargs))

    def _placement(self, args, kwargs, flat_args, out_tree, closed):
        """Where the call runs (``spmd_call.placement``): over the mesh of its shardings (or
        of its constraints, in ``closed``), or None for the default device."""
        ins, outs = self._given_shardings(args, kwargs, out_tree)
        if not ins and not outs and all(spmd_call.own_sharding(x) is None for x in flat_args) \
                and not spmd_call.jaxpr_meshes(closed) and get_concrete_mesh().empty:
            return None  # (under set_mesh, a program runs over its mesh, as JAX's)
        return spmd_call.placement(f'jit({self.name})', flat_args, ins, outs, closed)

    def _given_shardings(self, args, kwargs, out_tree) -> tuple[list, list]:
        """The shardings ``jit`` was given, one per traced leaf and one per output leaf
        (empty when not given): ``in_shardings`` is a prefix of the positional arguments
        (without the static ones), ``out_shardings`` of the output."""
        ins = outs = ()
        if self.in_shardings is not None:
            _, dyn_args, dyn_kwargs = self._split_static(args, kwargs)
            ins = spmd_call.flat_shardings('in_shardings', self.in_shardings, tuple(dyn_args))
            ins += [None] * len(tree_util.tree_leaves(dyn_kwargs))
        if self.out_shardings is not None:
            placeholder = tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
            outs = spmd_call.flat_shardings('out_shardings', self.out_shardings, placeholder)
        return ins, outs

    def _donated_leaves(self, args, kwargs) -> tuple[bool, ...]:
        """Per traced leaf, whether its buffer is donated (every leaf of a donated argument,
        as JAX's ``donation_vector``); empty when nothing is."""
        if not (self.donate_argnums or self.donate_argnames):
            return ()
        static = _static_positions(self.static_argnums, len(args))
        given = _static_positions(self.donate_argnums, len(args))
        flags = [flag for i, a in enumerate(args) if i not in static
                 for flag in [i in given] * len(tree_util.tree_leaves(a))]
        flags += [flag for k in sorted(kwargs) if k not in self.static_argnames
                  for flag in [k in self.donate_argnames] * len(tree_util.tree_leaves(kwargs[k]))]
        return tuple(flags) if any(flags) else ()

    def _argument_names(self, args, kwargs) -> tuple[str, ...]:
        """The name of each traced leaf, as JAX locates ``@main``'s arguments: the Python
        parameter, then the leaf's path in it (``x``, ``params['w']``, ``args[1][0]``)."""
        params = _parameters(self.fun)
        positional = [p.name for p in params if p.kind in _POSITIONAL] if params else []
        static = _static_positions(self.static_argnums, len(args))
        named = [(positional[i] if i < len(positional) else f'args[{i}]', a)
                 for i, a in enumerate(args) if i not in static]
        named += [(k, kwargs[k]) for k in sorted(kwargs) if k not in self.static_argnames]
        return tuple(base + tree_util.keystr(path)
                     for base, value in named
                     for path, _ in tree_util.tree_flatten_with_path(value)[0])


_STATIC_HINT = ('; an argument that is not an array must be marked static with '
                'static_argnums or static_argnames')


def _not_numeric(x):
    """A value no dtype could make an array (a string, an object): one meant to be static."""
    return not isinstance(x, (np.generic, np.ndarray, complex))


_trace_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Every jitted function alive: a change of the trace context drops their fast paths, which were
#: recorded for the programs traced under the old values.
_all_jitted: weakref.WeakSet = weakref.WeakSet()


def _drop_fast_paths() -> None:
    for jitted in list(_all_jitted):
        jitted._fast_calls.clear()


trace_context_hooks.append(_drop_fast_paths)
special_value_hooks.append(_drop_fast_paths)


def _traces_of(fun) -> dict:
    """The trace cache of ``fun``, shared by every ``jit(fun)``: the same function jitted
    twice is traced (and emitted as a private function) once. Static arguments are in the
    key, so jits of ``fun`` with different static arguments share it safely."""
    try:
        return _trace_caches.setdefault(fun, {})
    except TypeError:  # not weakly referenceable: a cache of its own
        return {}


def clear_caches() -> None:
    """Forget every trace, module and executable made so far (JAX's ``jax.clear_caches``):
    what follows is traced, lowered and compiled again, as in a new process."""
    from minijax import dispatch
    from minijax.lax.reductions import computation_jaxpr_cache_clear
    for traces in _trace_caches.values():
        traces.clear()
    for cache in (dispatch.executable_cache_clear, computation_jaxpr_cache_clear,
                  lowered_module.cache_clear, executable.cache_clear):
        cache()


# ----------------------------------------------------------------------------- static arguments

def _static_arguments(name, fun, static_argnums, static_argnames):
    """``(static_argnums, static_argnames)`` as tuples, each completed from the other through
    ``fun``'s signature (as JAX does), so a static parameter is static however it is passed."""
    return _argument_selection(name, fun, 'static', static_argnums, static_argnames)


def _donated_arguments(name, fun, static, donate_argnums, donate_argnames):
    """``(donate_argnums, donate_argnames)`` checked as JAX checks them (each names a
    parameter of ``fun``, none is also ``static``: an argument that is not traced has no
    buffer to give) and each completed from the other through ``fun``'s signature."""
    donated = _argument_selection(name, fun, 'donate', donate_argnums, donate_argnames)
    for what, (static_ones, donated_ones) in (('argnums', (static[0], donated[0])),
                                              ('argnames', (static[1], donated[1]))):
        both = set(static_ones) & set(donated_ones)
        if both:
            raise ValueError(f'jit({name}): static_{what} and donate_{what} cannot intersect. '
                             f'Arguments {sorted(both)} appear in both static_{what} and '
                             f'donate_{what}')
    return donated


def _argument_selection(name, fun, kind, argnums, argnames):
    """``({kind}_argnums, {kind}_argnames)`` (``kind``: static or donate) as tuples, checked
    against ``fun``'s signature and each completed from the other through it."""
    argnums = _index_tuple(name, kind, argnums)
    argnames = (argnames,) if isinstance(argnames, str) else tuple(argnames or ())
    for n in argnames:
        if not isinstance(n, str):
            raise TypeError(f'jit({name}): {kind}_argnames must be strings, got {n!r}')
    params = _parameters(fun)
    if params is None:
        return argnums, argnames
    _check_against_signature(name, kind, params, argnums, argnames)
    positional = [p.name for p in params if p.kind in _POSITIONAL]
    argnames += tuple(n for i, n in enumerate(positional)
                      if i in argnums and params[i].kind is _KEYWORD_OR_POSITIONAL
                      and n not in argnames)
    argnums += tuple(i for i, n in enumerate(positional) if n in argnames and i not in argnums)
    return argnums, argnames


_KEYWORD_OR_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, _KEYWORD_OR_POSITIONAL)


def _index_tuple(name, kind, argnums) -> tuple[int, ...]:
    nums = () if argnums is None else argnums
    nums = (nums,) if not isinstance(nums, (tuple, list)) else tuple(nums)
    for i in nums:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f'jit({name}): {kind}_argnums must be an int or a sequence of '
                            f'ints, got {argnums!r}')
    return nums


def _parameters(fun):
    """``fun``'s parameters, or None where they do not bound its arguments (``*args``,
    ``**kwargs``, no signature): then nothing is checked or inferred."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = {p.kind for p in params}
    if inspect.Parameter.VAR_POSITIONAL in kinds or inspect.Parameter.VAR_KEYWORD in kinds:
        return None
    return params


def _check_against_signature(name, kind, params, argnums, argnames):
    npositional = sum(p.kind in _POSITIONAL for p in params)
    for i in argnums:
        if not -npositional <= i < npositional:
            raise ValueError(f'jit({name}) has {kind}_argnums={argnums}, but {name} only '
                             f'accepts {npositional} positional arguments')
    unknown = [n for n in argnames if n not in {p.name for p in params}]
    if unknown:
        raise ValueError(f'jit({name}) has {kind}_argnames {unknown}, which are not '
                         f'parameters of {name}')


def _static_positions(static_argnums, nargs) -> list[int]:
    """The static positions among ``nargs`` positional arguments, ascending; a negative
    number counts from the end, and a number past the end is not passed, so not static."""
    return sorted({i % nargs for i in static_argnums if -nargs <= i < nargs})


def _hashed(name, where, value):
    try:
        hash(value)
    except TypeError as err:
        raise ValueError(
            f'jit({name}): static argument {where!r}: Non-hashable static arguments are not '
            f'supported. An error occurred while trying to hash an object of type '
            f'{type(value)}, {value!r}. The error was:\nTypeError: {err}') from None
    return value


def jit(fun=None, *, in_shardings=None, out_shardings=None, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None, keep_unused=False,
        device=None, backend=None, inline=False, compiler_options=None):
    """Compile ``fun`` with XLA: traced once per argument types, then run from the cache.

    ``static_argnums``/``static_argnames``: arguments passed to ``fun`` as Python values,
    not traced; each distinct (hashable) value traces and compiles once. Other arguments,
    keyword arguments included, are pytrees of arrays. ``jit(static_argnums=...)`` without
    ``fun`` is a decorator, as is ``functools.partial(jit, ...)``.

    ``in_shardings``/``out_shardings``: how the arguments (a pytree prefix of the positional
    ones) and the output (a prefix of it) lie on a mesh's devices, each a ``Sharding``, a
    ``PartitionSpec`` over the mesh ``set_mesh`` installed, or None (XLA chooses, as does a
    sharded argument's own sharding). A call with shardings runs on the mesh's devices
    (``minijax.spmd_call``); traced, they are parameters of its ``jit`` equation, which
    every transformation carries as JAX's does (a tangent or cotangent lies as its
    value), and a nested call constrains its function's arguments and results to them.

    ``donate_argnums``/``donate_argnames``: arguments whose buffers the call gives to XLA to
    write outputs of their type into (``lowering.donation``); once the call has run, such an
    Array is deleted, as in JAX (a NumPy argument is copied first and stays as it is).
    ``keep_unused`` has no effect: minijax always passes every argument to the executable
    (JAX's ``keep_unused=True``).

    ``device`` and ``backend`` are deprecated in JAX and warn as there: ``device`` runs the
    function on that device (its arguments and results placed there), ``backend`` must be
    ``'cpu'``. With ``inline``, a call traced inside another function adds the body's
    equations to the caller's jaxpr instead of a nested ``jit``. ``compiler_options``: a
    dict of XLA's options for its compilations (``Lowered.compile`` takes one too).
    """
    if fun is None:
        return functools.partial(jit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 static_argnums=static_argnums,
                                 static_argnames=static_argnames, donate_argnums=donate_argnums,
                                 donate_argnames=donate_argnames, keep_unused=keep_unused,
                                 device=device, backend=backend, inline=inline,
                                 compiler_options=compiler_options)
    core.check_callable('jit', fun=fun)
    if device is not None or backend is not None:
        in_shardings = out_shardings = _on_device(device, backend, in_shardings, out_shardings)
    return Jitted(fun, static_argnums, static_argnames, in_shardings, out_shardings, inline,
                  compiler_options, donate_argnums, donate_argnames)


def _on_device(device, backend, in_shardings, out_shardings):
    """The sharding that JAX's deprecated ``device``/``backend`` arguments of ``jit`` ask
    for (None: the default device), after JAX's warning and checks."""
    warnings.warn('jit: the device and backend arguments are deprecated (as in JAX): put '
                  "the function's inputs on the device with device_put instead",
                  DeprecationWarning, stacklevel=3)
    if device is not None and backend is not None:
        raise ValueError(f"can't specify both a device and a backend for jit, got "
                         f'device={device!r} and backend={backend!r}')
    for name, given in (('in_shardings', in_shardings), ('out_shardings', out_shardings)):
        if given is not None:
            raise ValueError(f'If backend or device is specified on jit, then {name} should '
                             'not be specified.')
    runtime._check_backend(backend)
    return None if device is None else SingleDeviceSharding(device)


def _result_names(out_tree) -> tuple[str, ...]:
    """``result`` followed by each output leaf's path (``result[0]``, ``result['loss']``),
    as JAX names a module's results."""
    placeholder = tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    return tuple('result' + tree_util.keystr(path)
                 for path, _ in tree_util.tree_flatten_with_path(placeholder)[0])
