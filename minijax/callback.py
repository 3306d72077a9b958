"""Host callbacks: Python functions that a program calls while it runs (``jax.debug.callback``,
``jax.pure_callback``), inside ``jit`` as well as eagerly.

A callback is a primitive whose parameter is the Python function. Evaluated eagerly, its impl
calls the function. Under ``jit`` its lowering emits a ``stablehlo.custom_call`` to jaxlib's
FFI handler ``xla_ffi_python_cpu_callback`` whose ``index`` attribute points into the
module's list of host callbacks; the runtime hands that list to PJRT with the module, and
XLA calls the function when the program reaches the op. Either way the function receives
``minijax.Array``s (copies of XLA's buffers), as JAX hands it ``jax.Array``s.

- ``debug_callback`` has a side effect and no results. Its primitive is ``effectful``:
  dead-code elimination keeps it, and the jits, branches and loops that hold it. Its jvp
  calls it on the primals (tangents pass nothing to it), vmap calls it once per batch
  element, its transpose sends no cotangent; partial evaluation keeps it with the known
  values. Calls are unordered by default, as in JAX: XLA may run two callbacks that do not
  depend on each other in either order. ``ordered=True`` (its ``effect`` is then
  ``OrderedDebug``) runs them in program order, and from one run to the next: the compiled
  function threads a token through them (``minijax.lowering.module``).
- ``pure_callback`` has results and no side effect: when nothing reads them it is dropped,
  and ``vmap_method`` says how it is batched. It cannot be differentiated (as in JAX).
"""
from __future__ import annotations

import copy
import logging
import string
import sys
from typing import Any

import numpy as np

from minijax import core, lax, tree_util
from minijax.array import device_put
from minijax.control_flow import scan
from minijax.errors import JaxRuntimeError
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import batching
from minijax.lax import parallel
from minijax.lowering import register_lowering
from minijax.lowering.ops import python_callback
from minijax.sharding import rules as sharding_rules


class FlatCallback:
    """``function(*args, **kwargs)`` called with the array leaves of ``(args, kwargs)`` only:
    the other leaves (strings, ``None``...) are not values a program can carry, so they are
    kept here and put back in their places."""

    def __init__(self, function, in_tree, static_leaves: dict[int, Any]):
        self.function, self.in_tree, self.static_leaves = function, in_tree, static_leaves

    def __call__(self, *arrays):
        arrays_left = iter(arrays)
        leaves = [self.static_leaves[i] if i in self.static_leaves else next(arrays_left)
                  for i in range(len(self.static_leaves) + len(arrays))]
        args, kwargs = tree_util.tree_unflatten(self.in_tree, leaves)
        return self.function(*args, **kwargs)

    def __repr__(self):
        return getattr(self.function, '__qualname__', repr(self.function))


def flatten_callback(function, args, kwargs) -> tuple[FlatCallback, list]:
    """The callback taking the array leaves of ``(args, kwargs)``, and those leaves."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    static = {i: x for i, x in enumerate(leaves) if not core.is_valid_value(x)}
    arrays = [x for i, x in enumerate(leaves) if i not in static]
    return FlatCallback(function, in_tree, static), arrays


# ----------------------------------------------------------------------------- debug_callback

class Effect:
    """A debug callback's effect, printed as JAX prints it in a jaxpr: ``Debug``, or
    ``OrderedDebug`` (ordered)."""

    def __init__(self, name: str, ordered: bool):
        self.name, self.ordered = name, ordered

    def __repr__(self):
        return self.name


debug_effect, ordered_debug_effect = Effect('Debug', False), Effect('OrderedDebug', True)

debug_callback_p = Primitive('debug_callback', multiple_results=True)
debug_callback_p.effectful = True
debug_callback_p.ordered = lambda params: params['effect'].ordered


def debug_callback(callback, *args, ordered=False, partitioned=False, **kwargs) -> None:
    """Call ``callback(*args, **kwargs)`` for its side effect when the program runs
    (``jax.debug.callback``); under ``jit`` every time the compiled program runs."""
    core.check_callable('debug_callback', callback=callback)
    if partitioned:
        raise NotImplementedError('debug_callback: minijax runs callbacks on one device '
                                  '(partitioned=True is not supported)')
    flat, arrays = flatten_callback(callback, args, kwargs)
    debug_callback_p.bind(*arrays, callback=flat,
                          effect=ordered_debug_effect if ordered else debug_effect)


def _debug_callback_impl(*args, callback, effect):
    callback(*device_put(args))
    return []


def _debug_callback_jvp(primals, tangents, **params):
    """The callback sees the primal values; nothing depends on it, so no tangent."""
    debug_callback_p.bind(*primals, **params)
    return [], []


def _debug_callback_batching(args, dims, **params):
    """One call per batch element, with that element's values (JAX unrolls it too)."""
    for i in range(batching.axis_size_of(args, dims)):
        debug_callback_p.bind(*(x if d is batching.not_mapped else _element(x, d, i)
                                for x, d in zip(args, dims)), **params)
    return [], []


def _element(x, axis, i):
    return lax.squeeze(lax.slice_in_dim(x, i, i + 1, axis=axis), (axis,))


def _placement(ctx) -> tuple | None:
    """Which devices a callback runs on in a partitioned program, as JAX places it: device 0,
    once, on whole values, in a program over a mesh; every device, on its block, inside a
    ``shard_map``; None (no annotation) on one device or under ``pmap``."""
    if parallel.manual_meshes:
        return ()
    return (0,) if ctx.module_context.num_partitions > 1 else None


def _on_host(impl, **params):
    """The function XLA calls from a compiled program: the primitive's impl, which gets the
    values as XLA hands them over and returns its results as a tuple."""
    return lambda *arrays: tuple(impl(*arrays, **params))


def _debug_callback_lowering(ctx, *args, callback, effect):
    if effect.ordered and ctx.module_context.num_partitions > 1:  # (JAX's error; an ordered
        # io_callback is threaded through a program over several devices, as in JAX)
        raise ValueError('The following ordered effects are not supported for more than 1 '
                         'device: [OrderedDebugEffect]')
    return python_callback(ctx, _on_host(_debug_callback_impl, callback=callback,
                                         effect=effect), args, has_side_effect=True,
                           ordered=effect.ordered, device_ids=_placement(ctx))


debug_callback_p.def_impl(_debug_callback_impl)
debug_callback_p.def_abstract_eval(lambda *avals, **params: [])
debug_callback_p.def_jvp(_debug_callback_jvp, symbolic_zeros=True)
debug_callback_p.def_batching(_debug_callback_batching)
debug_callback_p.def_transpose(lambda cts, *args, **params: [None] * len(args))
register_lowering(debug_callback_p, _debug_callback_lowering)


# ----------------------------------------------------------------------------- debug.print

class _FormatChecker(string.Formatter):
    """Formats nothing; refuses arguments the format string does not use, as JAX does (an
    f-string passed as ``fmt`` is the usual cause)."""

    def format_field(self, value, format_spec):
        return ''

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(f'Unused positional arguments to `jax.debug.print`: {unused}')
        unused = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f'Unused keyword arguments to `jax.debug.print`: {unused}. You may '
                             'be passing an f-string (i.e, `f"{x}"`) into `jax.debug.print` '
                             'and instead should pass in a regular string.')


def debug_print(fmt: str, *args, ordered=False, partitioned=False, skip_format_check=False,
                **kwargs) -> None:
    """Print ``fmt.format(*args, **kwargs)`` when the program runs (``jax.debug.print``),
    with NumPy's print options as they are now; a ``fmt`` without placeholders is followed
    by the arguments, space-separated."""
    _debug_format(lambda text: sys.stdout.write(text + '\n'), fmt, args, kwargs, ordered,
                  partitioned, skip_format_check)


#: The logger ``debug_log`` writes to (JAX's is ``jax._src.debugging``).
logger = logging.getLogger('minijax.debug')


def debug_log(fmt: str, *args, ordered=False, partitioned=False, skip_format_check=False,
              **kwargs) -> None:
    """``debug_print``'s message, logged when the program runs (``jax.debug.log``): an INFO
    record of the ``minijax.debug`` logger, located at the line that called ``log``."""
    frames = core.user_frames(core.user_source_info())
    where = ('(unknown file)', 0) if not frames else (
        frames[0][0].co_filename, core.frame_position(*frames[0])[0] or 0)
    record = logger.makeRecord(logger.name, logging.INFO, *where, '', (), None)

    def log_record(text):
        logged = copy.copy(record)
        logged.msg = text
        logger.handle(logged)

    _debug_format(log_record, fmt, args, kwargs, ordered, partitioned, skip_format_check)


def _debug_format(emit, fmt, args, kwargs, ordered, partitioned, skip_format_check):
    """A debug callback passing ``fmt`` formatted with the values to ``emit``."""
    if not skip_format_check:
        _FormatChecker().format(fmt, *args, **kwargs)
    has_placeholders = any(field is not None for _, field, _, _ in string.Formatter().parse(fmt))
    options = np.get_printoptions()

    def emit_formatted(*args, **kwargs):
        with np.printoptions(**options):
            emit(fmt.format(*args, **kwargs) if has_placeholders else
                 ' '.join((fmt, *map(str, args))))

    debug_callback(emit_formatted, *args, ordered=ordered, partitioned=partitioned, **kwargs)


# ----------------------------------------------------------------------------- pure_callback

pure_callback_p = Primitive('pure_callback', multiple_results=True)

VMAP_METHODS = ('sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all',
                'legacy_vectorized', None)


def _returning_arrays(callback, result_shape_dtypes, args, kwargs):
    """What ``pure_callback`` and ``io_callback`` bind: the callback on flat arguments and
    returning flat results, the array arguments, the results' types and their tree."""
    result_avals, out_tree = tree_util.tree_flatten(tree_util.tree_map(
        lambda s: ShapedArray(s.shape, s.dtype), result_shape_dtypes))
    flat, arrays = flatten_callback(
        lambda *a, **k: tree_util.tree_leaves(callback(*a, **k)), args, kwargs)
    return flat, arrays, result_avals, out_tree


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """``callback(*args, **kwargs)``, a pure function of its arguments returning arrays of
    ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``s), called when the program
    runs (``jax.pure_callback``)."""
    core.check_callable('pure_callback', callback=callback)
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f'vmap_method must be on of the allowed methods {list(VMAP_METHODS)}, '
                         f'but got: {vmap_method}')
    if sharding is not None:
        raise NotImplementedError('pure_callback: minijax runs on one device (sharding=None)')
    flat, arrays, result_avals, out_tree = _returning_arrays(callback, result_shape_dtypes,
                                                             args, kwargs)
    outs = pure_callback_p.bind(*arrays, callback=flat, result_avals=tuple(result_avals),
                                vmap_method=vmap_method)
    return tree_util.tree_unflatten(out_tree, outs)


def _pure_callback_impl(*args, callback, result_avals, vmap_method):
    """The callback's results, checked against ``result_avals`` (JAX's errors: XLA's
    runtime error, which JAX raises eagerly too)."""
    outs = callback(*device_put(args))
    if len(outs) != len(result_avals):
        raise JaxRuntimeError(f'Mismatched number of outputs from callback. Expected: '
                              f'{len(result_avals)}, Actual: {len(outs)}')
    outs = [np.asarray(x) for x in outs]
    for i, (out, aval) in enumerate(zip(outs, result_avals)):
        if out.shape != aval.shape:
            raise JaxRuntimeError(f'Incorrect output shape for return value #{i}: '
                                  f'Expected: {aval.shape}, Actual: {out.shape}')
        if out.dtype != aval.dtype:
            raise JaxRuntimeError(f'Incorrect output dtype for return value #{i}: '
                                  f'Expected: {aval.dtype}, Actual: {out.dtype}')
    return outs


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError('Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use '
                     'callbacks while taking gradients.')


def _pure_callback_transpose(cts, *args, **params):
    raise ValueError('Pure callbacks do not support transpose. Please use `jax.custom_vjp` to '
                     'use callbacks while taking gradients.')


def _pure_callback_batching(args, dims, *, callback, result_avals, vmap_method):
    """As ``vmap_method`` says: a loop over the batch ('sequential'), or one call on the
    batch moved to axis 0 with unbatched arguments given a leading axis of size 1
    ('expand_dims'), of the batch size ('broadcast_all') or none ('legacy_vectorized')."""
    size = batching.axis_size_of(args, dims)
    args = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
            for x, d in zip(args, dims)]
    if vmap_method in ('sequential', 'sequential_unrolled'):
        outs = _sequential(args, dims, callback, result_avals, vmap_method)
    elif vmap_method in ('expand_dims', 'broadcast_all', 'legacy_vectorized'):
        lead = {'expand_dims': 1, 'broadcast_all': size, 'legacy_vectorized': None}[vmap_method]
        args = [_with_leading_axis(x, lead) if d is batching.not_mapped and lead else x
                for x, d in zip(args, dims)]
        outs = pure_callback_p.bind(
            *args, callback=callback, vmap_method=vmap_method,
            result_avals=tuple(a.update(shape=(size, *a.shape)) for a in result_avals))
    else:
        raise NotImplementedError(
            'vmap is only supported for the pure_callback primitive when vmap_method is one of '
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got {vmap_method=}.")
    return outs, [0] * len(outs)


def _with_leading_axis(x, size):
    shape = core.get_aval(x).shape
    return lax.broadcast_in_dim(x, (size, *shape), range(1, len(shape) + 1))


def _sequential(args, dims, callback, result_avals, vmap_method):
    """One call per batch element, in a ``scan`` over the batched arguments."""
    return _scanned(pure_callback_p, args, dims, callback=callback, result_avals=result_avals,
                    vmap_method=vmap_method)


def _scanned(primitive, args, dims, **params):
    """``primitive`` bound once per batch element (arguments batched at axis 0, or not), in
    a ``scan``: its results stacked at axis 0."""
    batched = [d is not batching.not_mapped for d in dims]

    def step(carry, elements):
        elements = iter(elements)
        call_args = [next(elements) if b else x for x, b in zip(args, batched)]
        return carry, primitive.bind(*call_args, **params)

    return scan(step, (), [x for x, b in zip(args, batched) if b])[1]


def _pure_callback_lowering(ctx, *args, **params):
    return python_callback(ctx, _on_host(_pure_callback_impl, **params), args,
                           has_side_effect=False, device_ids=_placement(ctx))


pure_callback_p.def_impl(_pure_callback_impl)
pure_callback_p.def_abstract_eval(lambda *avals, result_avals, **params: list(result_avals))
pure_callback_p.def_jvp(_pure_callback_jvp)
pure_callback_p.def_transpose(_pure_callback_transpose)
pure_callback_p.def_batching(_pure_callback_batching)
register_lowering(pure_callback_p, _pure_callback_lowering)


# ----------------------------------------------------------------------------- io_callback

io_callback_p = Primitive('io_callback', multiple_results=True)
io_callback_p.effectful = True  # (kept when nothing reads its results)
io_callback_p.ordered = lambda params: params['ordered']


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """``callback(*args, **kwargs)``, a function with side effects returning arrays of
    ``result_shape_dtypes``, called when the program runs (``jax.experimental.io_callback``):
    never dropped, even when nothing reads its results; under ``vmap``, once per batch
    element. It cannot be differentiated (as in JAX). ``ordered`` calls run in program
    order, as ordered debug callbacks do."""
    core.check_callable('io_callback', callback=callback)
    if sharding is not None:
        raise NotImplementedError('io_callback: minijax runs on one device (sharding=None)')
    flat, arrays, result_avals, out_tree = _returning_arrays(callback, result_shape_dtypes,
                                                             args, kwargs)
    outs = io_callback_p.bind(*arrays, callback=flat, ordered=bool(ordered),
                              result_avals=tuple(result_avals))
    return tree_util.tree_unflatten(out_tree, outs)


def _io_callback_impl(*args, callback, ordered, result_avals):
    return _pure_callback_impl(*args, callback=callback, result_avals=result_avals,
                               vmap_method=None)


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError('IO callbacks do not support JVP.')


def _io_callback_transpose(cts, *args, **params):
    raise ValueError('IO callbacks do not support transpose.')


def _io_callback_batching(args, dims, **params):
    """Once per batch element, in a ``scan``; not when ordered (JAX's ValueError)."""
    if params['ordered']:
        raise ValueError('Cannot `vmap` ordered IO callback.')
    args = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
            for x, d in zip(args, dims)]
    outs = _scanned(io_callback_p, args, dims, **params)
    return outs, [0] * len(outs)


def _io_callback_lowering(ctx, *args, **params):
    return python_callback(ctx, _on_host(_io_callback_impl, **params), args,
                           has_side_effect=True, ordered=params['ordered'],
                           device_ids=_placement(ctx))


io_callback_p.def_impl(_io_callback_impl)
io_callback_p.def_abstract_eval(lambda *avals, result_avals, **params: list(result_avals))
io_callback_p.def_jvp(_io_callback_jvp)
io_callback_p.def_transpose(_io_callback_transpose)
io_callback_p.def_batching(_io_callback_batching)
register_lowering(io_callback_p, _io_callback_lowering)
# Their results' types are the ones the caller gave: unsharded, whatever the operands are
# (and, as JAX lowers them, not constrained to it).
_CALLBACKS = (debug_callback_p, pure_callback_p, io_callback_p)
sharding_rules.register(sharding_rules.unsharded_results_rule, *_CALLBACKS)
sharding_rules.not_constrained.update(_CALLBACKS)
