"""The PJRT CPU runtime: client, transfers, compilation and execution.

Every private jaxlib API minijax uses (besides the MLIR bindings) is here, so that a jaxlib
upgrade touches one file, but for the multi-process runtime's (``minijax.distributed``).
minijax never imports ``jax``.
"""
from __future__ import annotations

import collections
import functools
import gc
import io
import itertools
import math
import operator
import os
import sys
import time
import warnings
from typing import NamedTuple

import numpy as np
from jaxlib import _hlo, _jax, xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from jaxlib.mlir.ir import WalkResult

from minijax import compilation_cache, distributed
from minijax.config import config
from minijax.lowering.module import host_callbacks, main_function
from minijax.lowering.ops import PYTHON_CALLBACK_TARGET
from minijax.lowering.types import numpy_dtype

#: How often minijax traced, lowered and compiled: tests check caching with these counts.
counters: collections.Counter = collections.Counter()


#: The class of devices (``jax.Device``): jaxlib's.
Device = xc.Device

#: The environment variable that sets how many CPU devices the client has (1 by default).
NUM_CPU_DEVICES_VARIABLE = 'MINIJAX_NUM_CPU_DEVICES'


def requested_device_count() -> int:
    """The CPU devices asked for: ``config.update('minijax_num_cpu_devices', n)`` if set, else
    ``$MINIJAX_NUM_CPU_DEVICES``, else 1. XLA's ``--xla_force_host_platform_device_count``
    is not read: minijax passes the count to the client itself."""
    count = config.minijax_num_cpu_devices or os.environ.get(NUM_CPU_DEVICES_VARIABLE) or 1
    try:
        count = int(count)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f'minijax_num_cpu_devices / ${NUM_CPU_DEVICES_VARIABLE} must be a '
                         f'positive integer, got {count!r}')
    return count


def collect_released_references(phase=None, info=None) -> None:
    """Free the Python objects that XLA's threads have let go of: each execution's record of
    the Python stack (56 bytes) is released where the GIL is not held, and jaxlib queues it
    until asked. Every garbage collection asks (a ``gc`` callback, as JAX installs one), so
    a long training loop's memory stays flat."""
    _jax.collect_garbage()


gc.callbacks.append(collect_released_references)


@functools.cache
def client():
    """The single-device PJRT CPU client that ordinary programs (``jit``, eager primitives)
    run on. A client with more devices makes every execution slower (its thread pools and
    bookkeeping grow with the devices), so it is kept apart: see ``replica_client``."""
    counters['cpu_client'] += 1
    return xc.make_cpu_client(num_devices=1)


@functools.cache
def replica_client():
    """The client replicated (``pmap``) programs run on, made on first use with
    ``requested_device_count()`` devices (the single-device client when that is 1): several
    CPU devices in one process run replicated programs with XLA's own collectives. Its
    results reach ordinary programs through the host. After ``distributed.initialize`` it
    is the multi-process client: ``requested_device_count()`` devices in each process."""
    if distributed.is_initialized():
        counters['cpu_client'] += 1
        return distributed.cpu_client(requested_device_count())
    if requested_device_count() == 1:
        return client()
    counters['cpu_client'] += 1
    return xc.make_cpu_client(num_devices=requested_device_count())


def backends_are_initialized() -> bool:
    """Whether a CPU client was made (``distributed.initialize`` must come before)."""
    return bool(client.cache_info().currsize or replica_client.cache_info().currsize)


@functools.cache
def device():
    """The device ordinary programs run on."""
    return client().devices()[0]


def devices(backend=None) -> list:
    """The devices replicated programs run on (``jax.devices()``): every process's (see
    ``minijax.distributed``). This process's first stands for ``device()``, where
    single-device programs run."""
    _check_backend(backend)
    made = replica_client()
    if made.local_device_count() != requested_device_count():
        raise RuntimeError(f'minijax_num_cpu_devices is {requested_device_count()} but the CPU '
                           f'client was made with {made.local_device_count()} devices: set it '
                           'before the first pmap or devices()')
    return list(made.devices())


def local_devices(process_index: int | None = None, backend=None, host_id=None) -> list:
    """The devices of process ``process_index`` (this one by default)."""
    if host_id is not None:
        process_index = host_id
    if process_index is None:
        process_index = distributed.global_state.process_id
    if not 0 <= process_index < process_count(backend):
        raise ValueError(f'Unknown process_index {process_index}')
    return [d for d in devices(backend) if d.process_index == process_index]


def is_default_device(d) -> bool:
    """Whether ``d`` names the device ordinary programs run on: ``device()`` or
    ``local_devices()[0]``, its stand-in among the replicated programs' devices."""
    return d is None or d == device() or d == local_devices()[0]


def _check_backend(backend):
    if backend not in (None, 'cpu'):
        raise RuntimeError(f'backend {backend!r} is not available: minijax runs on the CPU')


def device_count(backend=None) -> int:
    return len(devices(backend))


def local_device_count(backend=None) -> int:
    return len(local_devices(backend=backend))


def default_backend() -> str:
    return 'cpu'


def process_index(backend=None) -> int:
    """This process's number: 0 unless ``minijax.distributed.initialize`` said otherwise."""
    _check_backend(backend)
    return distributed.global_state.process_id


def process_count(backend=None) -> int:
    _check_backend(backend)
    return distributed.global_state.num_processes


def process_indices(backend=None) -> list[int]:
    """Every process's number, in order."""
    return list(range(process_count(backend)))


def _renamed(old, new):
    """JAX's older name ``old`` of ``new``: it works, with a warning naming ``new``."""
    @functools.wraps(new)
    def renamed(backend=None):
        warnings.warn(f'jax.{old} has been renamed to jax.{new.__name__}. This alias will '
                      'eventually be removed; please update your code.', UserWarning,
                      stacklevel=2)
        return new(backend)
    renamed.__name__ = old
    return renamed


host_id, host_count, host_ids = (_renamed('host_id', process_index),
                                 _renamed('host_count', process_count),
                                 _renamed('host_ids', process_indices))


@functools.cache
def register_lapack_kernels() -> None:
    """Register jaxlib's LAPACK kernels (the ``lapack_*_ffi`` custom-call targets that
    ``minijax.lax.linalg`` lowers to) with XLA's CPU backend, as JAX does when imported (here
    when a module calling one first compiles: loading LAPACK takes a fifth of a second).
    ``initialize`` binds them to the LAPACK that SciPy ships (a dependency of jaxlib)."""
    from jaxlib import lapack
    lapack._lapack.initialize()
    for name, kernel, api_version in lapack.registrations()['cpu']:
        xc.register_custom_call_target(name, kernel, platform='cpu', api_version=api_version)


_REPLICATED = xc.HloSharding.replicate()


class _DeviceSharding(xc.SingleDeviceSharding):
    """The single-device sharding ``batched_device_put`` asks for, without ``jax``."""
    memory_kind = None
    is_fully_addressable = True
    num_devices = 1

    def _to_xla_hlo_sharding(self, ndim):
        return _REPLICATED

    @functools.cached_property  # read on every transfer: build it once
    def _internal_device_list(self):
        return xc.DeviceList((self._device,))

    @functools.cached_property
    def _device_assignment(self):
        return (self._device,)


@functools.cache
def _sharding(on=None):
    return _DeviceSharding(on or device())


class _TransferAval:
    """The few aval fields ``batched_device_put`` and the result handlers read."""
    __slots__ = ('shape', 'dtype', 'weak_type', 'ndim')

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.weak_type, self.ndim = shape, dtype, False, len(shape)


def device_put(x, on=None) -> 'xc.ArrayImpl':
    """Copy a host value to a CPU device (``on``, by default device 0). jaxlib reads an
    ndarray of any strides itself: no contiguous copy first."""
    x = np.asarray(x)
    if on is None:  # (an eager op's operand: the transfer made once per type)
        return _kept_transfer(x.shape, x.dtype)(x)
    return xc.batched_device_put(_TransferAval(x.shape, x.dtype), _sharding(on),
                                 [x], [on], enable_x64=True)


#: Host values up to this size are copied while they are transferred; larger ones are lent to
#: the device (zero-copy). Lending costs more than copying a few kilobytes: jaxlib checks the
#: data's alignment, copies anyway when it is not 64-byte aligned (most small NumPy arrays)
#: and keeps a reference until the device is done with it.
COPY_TRANSFERS_UP_TO_BYTES = 2048

_HostBufferSemantics = xc._xla.HostBufferSemantics


class HostTransfer(NamedTuple):
    """The transfer to device 0 of host values of one type (an ndarray of any strides, a NumPy
    scalar, or a Python scalar, which jaxlib makes float64, int64 or bool): the arguments of
    jaxlib's ``batched_device_put`` besides the values, passed by position (nanobind's
    keyword matching would cost a tenth of the transfer)."""
    aval: _TransferAval
    sharding: object
    devices: list
    semantics: object

    def __call__(self, x):
        aval, sharding, on, semantics = self
        return xc.batched_device_put(aval, sharding, [x], on, True, False, semantics, True)


@functools.cache
def host_to_device(shape, dtype) -> HostTransfer:
    """The transfer of host values of one type, made once per type so that a jitted call
    moves each argument with one C++ call and nothing else."""
    nbytes = math.prod(shape) * dtype.itemsize
    semantics = (_HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
                 if nbytes <= COPY_TRANSFERS_UP_TO_BYTES else _HostBufferSemantics.ZERO_COPY)
    return HostTransfer(_TransferAval(shape, dtype), _argument_sharding(), [device()], semantics)


@functools.cache
def _kept_transfer(shape, dtype) -> HostTransfer:
    """``host_to_device``'s transfer for a buffer that outlives the call (an Array keeps
    it): with the ``_DeviceSharding`` that ``jax`` reads of an Array's buffer."""
    return host_to_device(shape, dtype)._replace(sharding=_sharding())


@functools.cache
def _argument_sharding():
    """The sharding of a call's transferred argument: jaxlib's own C++ class, which its
    transfer reads in C++, where ``_DeviceSharding`` costs Python attribute reads and a call
    of ``_to_xla_hlo_sharding`` (a sixth of the transfer). Only a buffer that lives for one
    execution has it: an Array's buffer keeps the ``_DeviceSharding`` ``jax`` reads."""
    return xc.GSPMDSharding(xc.DeviceList((device(),)), _REPLICATED)


def to_host(buffer) -> np.ndarray:
    """A device buffer's value as an ndarray (read-only where it shares the buffer's memory).
    NumPy reads it through the buffer protocol, which has no format for bfloat16: where that
    fails (``np.asarray`` would make an object array), jaxlib copies the value, after trying
    to import ``jax`` for its error context (hidden here: it goes on without)."""
    try:
        return np.asarray(memoryview(buffer))
    except BufferError:
        with _jax_hidden():
            return buffer._single_device_array_to_np_array_did_copy()[0]


def buffer_devices(buffer) -> set:
    """The devices holding a device buffer, read from its sharding (the buffer's own
    ``devices()`` is ``jax``'s, missing where ``jax`` is not imported)."""
    return set(buffer._sharding._internal_device_list)


def is_device_buffer(x) -> bool:
    return isinstance(x, xc.ArrayImpl)


#: jaxlib's C++ pytree code with Python's containers only (tuple, list, dict, None,
#: namedtuple): ``jit``'s fast path keys and rebuilds pytrees with it. minijax's own registry
#: (``tree_util``) stays the definition; a node this one does not know is a leaf here.
_CONTAINERS = xc._xla.pytree.PyTreeRegistry()


def flatten_containers(tree):
    """(leaves, treedef) of ``tree`` in C++; the treedef hashes, compares and unflattens
    (``treedef.unflatten(leaves)``) in C++ too. None where jaxlib fails (dict keys that do
    not sort, nesting too deep: a SystemError from the bindings): ``tree_util`` then
    flattens the tree, and names what is wrong with it."""
    try:
        return _CONTAINERS.flatten(tree)
    except (ValueError, SystemError, RecursionError):
        return None


class _Compiled:
    """What every compiled module shows about itself: its optimized HLO and XLA's cost
    estimate (``self._loaded``: jaxlib's loaded executable)."""

    def hlo_text(self, metadata: bool = True) -> str:
        """The optimized HLO; ``metadata`` keeps each instruction's name stack and line."""
        options = _hlo.HloPrintOptions()
        options.print_metadata = metadata
        return '\n\n'.join(m.to_string(options) for m in self._loaded.hlo_modules())

    def cost_analysis(self) -> dict:
        return dict(self._loaded.cost_analysis())


#: The token of the last execution of a program with host callbacks (the CPU device runs
#: executions in order, so the last one done means all are, as JAX's runtime tokens).
_effect_tokens: list = [None]


#: The ordered effects' token: the one the last program with ordered effects returned,
#: passed to the next (JAX's runtime token), so their callbacks run in the order of the calls.
_ordered_tokens: list = [None]


def _ordered_token():
    if _ordered_tokens[0] is None:
        _ordered_tokens[0] = device_put(np.zeros(0, bool))
    return _ordered_tokens[0]


def block_until_ready(buffers: list) -> None:
    """Wait until XLA has computed ``buffers``: an execution returns its results as soon as
    it is dispatched (the CPU client runs programs asynchronously, as JAX's does)."""
    if buffers:
        _jax.batched_block_until_ready(buffers)


def effects_barrier() -> None:
    """Wait until every program run so far has made its side effects (``jax.effects_barrier``):
    its host callbacks have returned."""
    token, _effect_tokens[0] = _effect_tokens[0], None
    if token is not None:
        token.block_until_ready()


def live_arrays(platform=None) -> list:
    """The Arrays alive now and not deleted (``jax.live_arrays``), found among the objects
    Python's garbage collector tracks: a debugging aid, its cost grows with the heap."""
    _check_backend(platform)
    from minijax.array import Array  # (the array module is built on this one)
    return [x for x in gc.get_objects() if type(x) is Array and not x.is_deleted()]


def print_environment_info(return_string: bool = False) -> str | None:
    """The versions and devices minijax runs with, and the ``JAX_``/``XLA_``/``MINIJAX_``
    environment variables (``jax.print_environment_info``): printed, or returned."""
    import platform
    from jaxlib import version
    info = '\n'.join([
        'minijax (the API of jax 0.10.2)', f'jaxlib: {version.__version__}',
        f'numpy:  {np.__version__}', f'python: {sys.version}'.replace('\n', ' '),
        f'device info: {device().device_kind}-{device_count()}, {local_device_count()} local '
        'devices', f'process_count: {process_count()}', f'platform: {platform.uname()}',
        *(f'{k}={v}' for k, v in os.environ.items()
          if k.startswith(('JAX_', 'XLA_', 'MINIJAX_')))])
    if return_string:
        return info
    print(info)
    return None


class Executable(_Compiled):
    """A compiled module: call it with device buffers, get device buffers back.

    Each result becomes a device array through a result handler made once per output type:
    jaxlib's generic ``disassemble_into_single_device_arrays`` would import all of ``jax``
    and route every output through its Python sharding code.
    """

    def __init__(self, loaded, result_types, callbacks=(), ordered=False, donated=()):
        self._loaded = loaded
        self._host_callbacks = callbacks  # XLA calls them while the executable lives
        self._ordered = ordered  # @main takes and returns the ordered effects' token
        #: the positions of the arguments whose buffers the program may take (donated)
        self.donated = donated
        self._handlers = [xc._xla.array_result_handler(_TransferAval(shape, dtype), _sharding(),
                                                       committed=True, _skip_checks=True)
                          for shape, dtype in result_types]

    def __call__(self, buffers: list):
        """Run on device buffers. A program that calls back into Python leaves its
        execution's token for ``effects_barrier``."""
        _jax.collect_garbage()  # (see ``collect_released_references``)
        if not self._host_callbacks:
            return self._loaded.execute_sharded(buffers).consume_with_handlers(self._handlers)
        if self._ordered:
            buffers = [_ordered_token(), *buffers]
        results = self._loaded.execute_sharded(buffers, with_tokens=True)
        _effect_tokens[0] = results.consume_token()
        outs = results.consume_with_handlers(self._handlers)
        if self._ordered:
            _ordered_tokens[0], *outs = outs
        return outs

    def runner(self, transfers, finish):
        """A function of values running the executable: each value moves to the device by
        its transfer (``host_to_device``), and ``finish`` gets the result buffers. A jitted
        call's fast path, in one Python frame, which first frees what XLA's threads released
        (``collect_released_references``: a training loop's memory stays flat from its first
        step, not only from its first garbage collection).

        (jaxlib records the Python stack with every array it makes and every execution, at a
        cost that grows with the stack's depth: hence one frame. The records stay on: the
        switch is process-wide, and the stacks that tracing records for locations, minijax's
        and JAX's, come from the same jaxlib ``Traceback``.)"""
        execute, handlers = self._loaded.execute_sharded, self._handlers
        release = _jax.collect_garbage
        if self._host_callbacks:  # (its token is kept: the path of __call__)
            return lambda values: finish(self([*map(operator.call, transfers, values)]))
        if len(transfers) == 1 and type(transfers[0]) is HostTransfer:  # the commonest call
            aval, sharding, on, semantics = transfers[0]
            put = xc.batched_device_put

            def run_one(values):  # (the call's tuple of values goes to jaxlib as is)
                release()
                return finish(execute([put(aval, sharding, values, on, True, False, semantics,
                                           True)]).consume_with_handlers(handlers))
            return run_one

        def run(values):
            release()
            return finish(execute([*map(operator.call, transfers, values)])
                          .consume_with_handlers(handlers))  # each transfer(value)
        return run



#: The longest chain of dependent ops minijax hands to XLA. XLA:CPU's fusion emitter recurses
#: once per op of a fused chain (SortTiledHloInstructionsInPostOrder), on a compile thread whose
#: stack XLA sizes itself: a chain of 25,000 ``sine`` ops overflows it and kills the process
#: (jaxlib 0.10.2; 20,000 compile). A larger Python thread stack does not help.
MAX_CHAIN_LENGTH = 10_000


class CompileError(RuntimeError):
    """XLA cannot compile this module safely; nothing was compiled."""


def longest_chain(module) -> int:
    """The number of ops on the longest chain of ops each using the previous one's result
    (an op with regions counts as one op; its regions' chains are counted on their own)."""
    depth = {}
    longest = 0

    def visit(op):
        nonlocal longest
        op_depth = 1 + max((depth.get(v, 0) for v in op.operands), default=0)
        for result in op.results:
            depth[result] = op_depth
        longest = max(longest, op_depth)
        return WalkResult.ADVANCE

    module.operation.walk(visit)
    return longest


def hlo_text(module: ir.Module, metadata: bool = False) -> str:
    """The HLO that XLA starts from, before it optimizes (JAX's ``as_text(dialect='hlo')``):
    with ``metadata``, each instruction's name stack and source line, which XLA reads from
    the module's locations (``debug_info``)."""
    options = _hlo.HloPrintOptions.short_parsable()  # (JAX's)
    options.print_metadata = metadata
    return _hlo_module(module).to_string(options)


def _hlo_module(module: ir.Module):
    """The module converted to XLA's HLO, unoptimized."""
    bytecode = io.BytesIO()
    with module.context:
        module.operation.write_bytecode(bytecode)
    return _jax.mlir.mlir_module_to_xla_computation(bytecode.getvalue(),
                                                   use_tuple_args=False).as_hlo_module()


def lowered_cost_analysis(module: ir.Module) -> dict:
    """XLA's cost estimate of the module as it is, before optimization (JAX's
    ``Lowered.cost_analysis``)."""
    return dict(_jax.hlo_module_cost_analysis(client(), _hlo_module(module)))


def compile_module(module, compiler_options=()) -> Executable:
    """Compile an ``ir.Module`` for the CPU device; ``compiler_options``: (name, value)
    pairs of XLA options (``jit(..., compiler_options=)``)."""
    chain = longest_chain(module)
    if chain > MAX_CHAIN_LENGTH:
        raise CompileError(f'the module has a chain of {chain} dependent ops; XLA crashes '
                           f'compiling chains much longer than {MAX_CHAIN_LENGTH}: express the '
                           'repetition as a loop (fori_loop, scan) or split the computation')
    callbacks = _checked_host_callbacks(module)
    loaded = _compile(client(), module, (device(),), _options(compiler_options), callbacks)
    return Executable(loaded, _main_result_types(module), callbacks, _threads_token(module),
                      _donated_arguments(module))


#: The options JAX sets on the build options rather than as XLA's environment options.
_BUILD_OPTIONS = ('exec_time_optimization_effort', 'memory_fitting_effort',
                  'optimization_level', 'memory_fitting_level')


def _options(compiler_options=()) -> 'xc.CompileOptions':
    """Compile options with the user's XLA options, as JAX passes them: XLA checks each
    name and value when it compiles (an unknown one is its INVALID_ARGUMENT error)."""
    options = xc.CompileOptions()
    overrides = []
    for name, value in compiler_options:
        if name in _BUILD_OPTIONS:
            setattr(options.executable_build_options, name, value)
        else:
            overrides.append((name, value))
    options.env_option_overrides = overrides
    return options


def _compile(on_client, module, on: tuple, options, callbacks):
    """``module`` compiled for the devices ``on``, or loaded from the persistent
    compilation cache when it holds it (``minijax.compilation_cache``). The LAPACK kernels
    are registered first if it calls one (whoever lowered it: minijax, or JAX's text); the
    kernel of ``tridiagonal_solve(perturb_singular=True)`` is registered with them."""
    if _calls(module, lambda target: target.startswith('lapack_')
              or target == 'tridiagonal_solve_perturbed_ffi'):
        register_lapack_kernels()
    devices = xc.DeviceList(on)
    name = None
    if compilation_cache.directory() is not None and not callbacks:
        name = compilation_cache.key(
            module,
            options.SerializeAsString(), on_client.platform_version, [d.id for d in on],
            len(on_client.devices()))
        try:
            serialized = compilation_cache.load(name)
            if serialized is not None:
                loaded = on_client.deserialize_executable(serialized, devices, options)
                counters['compilation_cache_hit'] += 1
                return loaded
        except Exception:  # cut short or corrupt: compiled again, and replaced
            counters['compilation_cache_corrupt'] += 1
    counters['compile'] += 1
    start = time.perf_counter()
    loaded = on_client.compile_and_load(module, devices, options, host_callbacks=callbacks)
    if name is not None:
        compilation_cache.store(name, on_client.serialize_executable(loaded),
                                time.perf_counter() - start)
    return loaded


def _checked_host_callbacks(module) -> list:
    """The Python functions the module's host callbacks call. A module that calls back but
    has none (parsed from text, as the ``minijax`` command reads it) is refused: XLA would
    crash calling them."""
    callbacks = host_callbacks(module)
    if not callbacks and calls_back(module):
        raise CompileError(f'the module calls back into Python (stablehlo.custom_call '
                           f'@{PYTHON_CALLBACK_TARGET}), but it was not lowered in this '
                           'process, so there is no Python function to call: run it from '
                           'the jit that lowered it')
    return callbacks


#: The argument attributes by which a module gives an argument's buffer to the program.
_DONATION_ATTRS = ('tf.aliasing_output', 'jax.buffer_donor')


def _donated_arguments(module) -> tuple[int, ...]:
    """The positions (after the ordered effects' token) of ``@main``'s arguments whose
    buffers the program may take (``lowering.donation``)."""
    with module.context:
        main = main_function(module)
        if main is None or 'arg_attrs' not in main.attributes:
            return ()
        attrs = [ir.DictAttr(a) for a in main.arg_attrs]
        attrs = attrs[1:] if attrs and 'jax.token' in attrs[0] else attrs
        return tuple(i for i, a in enumerate(attrs) if any(n in a for n in _DONATION_ATTRS))


def _threads_token(module) -> bool:
    """Whether ``module``'s ``@main`` takes the ordered effects' token (its first argument,
    marked ``jax.token``, as JAX marks it)."""
    with module.context:
        main = main_function(module)
        attrs = main.arg_attrs if main is not None and 'arg_attrs' in main.attributes else []
        return len(attrs) > 0 and 'jax.token' in ir.DictAttr(attrs[0])


def calls_back(module) -> bool:
    """Whether ``module`` calls a Python function on the host (``debug.print``,
    ``pure_callback``): one that only the process that lowered it can run."""
    return _calls(module, lambda target: target == PYTHON_CALLBACK_TARGET)


def _calls(module, wanted) -> bool:
    """Whether ``module`` has a ``stablehlo.custom_call`` whose target is ``wanted``."""
    found = []

    def visit(op):
        if op.name == 'stablehlo.custom_call' and \
                wanted(ir.StringAttr(op.attributes['call_target_name']).value):
            found.append(op)
            return WalkResult.INTERRUPT
        return WalkResult.ADVANCE

    module.operation.walk(visit)
    return bool(found)


def _main_result_types(module) -> list[tuple[tuple[int, ...], np.dtype]]:
    """(shape, dtype) of each result of the module's ``@main``, the function PJRT runs."""
    with module.context:
        main = main_function(module)
        if main is None:
            raise CompileError('the module has no @main function to run')
        results = ir.FunctionType(ir.TypeAttr(main.attributes['function_type']).value).results
        return [_TOKEN_BUFFER if hlo.TokenType.isinstance(t) else
                (tuple(ir.RankedTensorType(t).shape),
                 numpy_dtype(ir.RankedTensorType(t).element_type)) for t in results]


#: The buffer PJRT passes for a token, an argument or a result: an empty bool array (JAX's).
_TOKEN_BUFFER = ((0,), np.dtype(bool))


# ----------------------------------------------------------------------------- replicated programs

class _ReplicaSharding(xc.Sharding):
    """One shard per device, the way a replicated (``pmap``) program's arguments and results
    are laid out: what ``execute_sharded`` and the result handlers ask for, without ``jax``."""
    memory_kind = None
    is_fully_addressable = True

    def __init__(self, on: tuple):
        self._devices = on

    num_devices = property(lambda self: len(self._devices))
    _device_assignment = property(lambda self: self._devices)

    @functools.cached_property
    def _internal_device_list(self):
        return xc.DeviceList(self._devices)

    def _to_xla_hlo_sharding(self, ndim):
        return _REPLICATED


class ReplicatedExecutable(_Compiled):
    """A module compiled with ``num_replicas = len(devices)``: one copy runs on each device.

    Called with, per argument, one NumPy value per device; returns, per result, the devices'
    values stacked along a new leading axis (a ``pmap`` result, gathered on the host).
    """

    def __init__(self, loaded, result_types, on: tuple, callbacks=(), ordered=False):
        self._loaded = loaded
        self._host_callbacks = callbacks  # XLA calls them while the executable lives
        self._ordered = ordered  # @main takes and returns the ordered effects' token
        self._devices = on
        self._sharding = _ReplicaSharding(on)
        self._handlers = [xc._xla.array_result_handler(
            _TransferAval((len(on), *shape), dtype), self._sharding, committed=True,
            _skip_checks=True) for shape, dtype in result_types]

    def __call__(self, per_device_args) -> list[np.ndarray]:
        """(A program with ordered effects gets a token per device: its run ends before
        this returns, so the next one comes after it.)"""
        tokens = [[np.zeros(0, bool)] * len(self._devices)] * self._ordered
        args = [self._sharded(values) for values in (*tokens, *per_device_args)]
        outs = self._loaded.execute_sharded(args).consume_with_handlers(self._handlers)
        outs = outs[len(tokens):]
        with _jax_hidden():
            return [np.stack([to_host(s) for s in out._arrays]) for out in outs]

    def _sharded(self, values):
        shards = [device_put(v, on) for v, on in zip(values, self._devices, strict=True)]
        shape = (len(shards), *np.shape(values[0]))
        return xc.ArrayImpl(_TransferAval(shape, np.asarray(values[0]).dtype), self._sharding,
                            shards, committed=True, _skip_checks=True)


class _HideJax:
    """An import finder refusing ``jax``: jaxlib splits a multi-device array into its shards
    with ``jax``'s classes when it can import them (importing all of ``jax`` on first use),
    and with its own otherwise."""

    def find_spec(self, name, path=None, target=None):
        if name == 'jax' or name.startswith('jax.'):
            raise ModuleNotFoundError(f'No module named {name!r}')
        return None


class _jax_hidden:
    """Within the block, ``import jax`` fails unless ``jax`` is already imported."""

    def __enter__(self):
        self._finder = None if 'jax' in sys.modules else _HideJax()
        if self._finder:
            sys.meta_path.insert(0, self._finder)

    def __exit__(self, *exc):
        if self._finder:
            sys.meta_path.remove(self._finder)


def compile_replicated(module, on: tuple) -> ReplicatedExecutable:
    """Compile ``module`` to run one replica on each device of ``on`` (its collectives'
    replica groups number those replicas 0..len(on)-1)."""
    options = xc.CompileOptions()
    options.num_replicas = len(on)
    options.num_partitions = 1
    options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id] for d in on]))
    callbacks = _checked_host_callbacks(module)
    loaded = _compile(replica_client(), module, on, options, callbacks)
    return ReplicatedExecutable(loaded, _main_result_types(module), on, callbacks,
                                _threads_token(module))


def buffer_pointer(buffer) -> int:
    """The address of a device buffer's memory (``Array.unsafe_buffer_pointer``)."""
    return buffer.unsafe_buffer_pointer()


# ----------------------------------------------------------------------------- SPMD programs

def hlo_sharding(sharding, ndim: int):
    """The ``xc.HloSharding`` of a ``NamedSharding`` for an array of rank ``ndim``, as JAX
    builds it: a tile per device, the mesh's device order (an iota) transposed so that the
    axes each dimension is split over come first, major to minor, and the unused axes last
    as a replicated subgroup, then the axes it is unreduced over as an unreduced one.
    Size-one axes split nothing and are left out."""
    mesh = sharding.mesh
    names = [n for n in mesh.axis_names if mesh.shape[n] != 1]
    if not names:
        return _REPLICATED
    sizes = [mesh.shape[n] for n in names]
    tiles, order = [1] * ndim, []
    for d, entry in enumerate(sharding.spec.partitions):
        for axis in (() if entry is None or not isinstance(entry, (str, tuple)) else
                     entry if isinstance(entry, tuple) else (entry,)):
            if mesh.shape[axis] != 1:
                tiles[d] *= mesh.shape[axis]
                order.append(names.index(axis))
    unreduced = [i for i, n in enumerate(names) if n in sharding.spec.unreduced]
    replicated = [i for i in range(len(names)) if i not in order and i not in unreduced]
    if not order and not unreduced:
        return _REPLICATED
    subgroups = []
    for kind, axes in ((xc.OpSharding.Type.REPLICATED, replicated),
                       (xc.OpSharding.Type.UNREDUCED, unreduced)):
        if axes:
            tiles.append(math.prod(sizes[i] for i in axes))
            subgroups.append(kind)
            order += axes
    return xc.HloSharding.iota_tile(tiles, sizes, order, subgroups)


def device_sharding(sharding, ndim: int):
    """jaxlib's own sharding object for a ``NamedSharding`` or a ``SingleDeviceSharding``:
    what its arrays and executables read (the devices, in the mesh's order, and the
    ``HloSharding``)."""
    hlo = hlo_sharding(sharding, ndim) if hasattr(sharding, 'mesh') else _REPLICATED
    return xc.GSPMDSharding(xc.DeviceList(sharding._device_assignment), hlo)


def shard(value: np.ndarray, sharding) -> 'xc.ArrayImpl':
    """A host value split on the devices as ``sharding`` (a ``NamedSharding``) says: one
    jaxlib array over all of them, each holding its block (this process's devices only,
    when several processes run the program)."""
    value = np.asarray(value)
    blocks = [device_put(value[index], on)
              for on, index in sharding.addressable_devices_indices_map(value.shape).items()]
    return assemble(value.shape, value.dtype, sharding, blocks)


def assemble(shape, dtype, sharding, blocks: list) -> 'xc.ArrayImpl':
    """One jaxlib array of ``shape`` over ``sharding``'s devices from this process's blocks
    (single-device buffers, in the order of ``addressable_devices_indices_map``)."""
    return xc.ArrayImpl(_TransferAval(tuple(shape), np.dtype(dtype)),
                        device_sharding(sharding, len(shape)), blocks, committed=True,
                        _skip_checks=True)


def shards(buffer) -> list:
    """The single-device buffers of a jaxlib array over several devices, in its sharding's
    device order."""
    with _jax_hidden():
        return list(buffer._arrays)


def gather(buffer, sharding, shape, dtype) -> np.ndarray:
    """The whole value of a sharded buffer, copied to the host block by block (from this
    process's devices, which must hold every block: ``holds_whole_value``)."""
    out = np.empty(shape, dtype)
    for block, index in zip(shards(buffer),
                            sharding.addressable_devices_indices_map(shape).values()):
        out[index] = to_host(block)
    out.flags.writeable = False
    return out


class SpmdExecutable(_Compiled):
    """A module compiled for a mesh (``num_partitions`` = its devices): XLA's partitioner
    made one program per device from the module's Shardy annotations. Called with one
    jaxlib array over the mesh's devices per argument, laid out as ``in_shardings`` (the
    executable's parameter ``HloSharding``s) say; returns one per result, laid out as
    ``out_shardings`` say (XLA chose those it was free to). A program with ordered effects
    (``ordered``) takes and returns their token first: a token per device, which the
    caller never sees."""

    def __init__(self, loaded, argument_count: int, result_types, on: tuple, callbacks=(),
                 ordered=False):
        self._loaded = loaded
        self._host_callbacks = callbacks
        self.devices = on
        self._ordered = ordered
        in_shardings = _hlo_shardings(loaded.get_parameter_shardings(), argument_count)
        out_shardings = _hlo_shardings(loaded.get_output_shardings(), len(result_types))
        self.in_shardings, self.out_shardings = in_shardings[ordered:], out_shardings[ordered:]
        device_list = xc.DeviceList(on)
        self._handlers = [xc._xla.array_result_handler(
            _TransferAval(shape, dtype), xc.GSPMDSharding(device_list, hlo), committed=True,
            _skip_checks=True) for (shape, dtype), hlo in zip(result_types, out_shardings)]
        self._token = None if not ordered else xc.ArrayImpl(
            _TransferAval(*_TOKEN_BUFFER), xc.GSPMDSharding(device_list, _REPLICATED),
            [device_put(np.zeros(*_TOKEN_BUFFER), d) for d in on], committed=True,
            _skip_checks=True)

    def __call__(self, arrays: list) -> list:
        if self._ordered:
            arrays = [self._token, *arrays]
        outs = self._loaded.execute_sharded(arrays).consume_with_handlers(self._handlers)
        return outs[self._ordered:]


def _hlo_shardings(shardings, count: int) -> list:
    """An executable's parameter or output shardings as ``HloSharding``s (an ``OpSharding``
    is converted); a program of one partition has none: each value is whole (replicated)."""
    if shardings is None:
        return [_REPLICATED] * count
    return [s if isinstance(s, xc.HloSharding) else xc.HloSharding.from_proto(s)
            for s in shardings]


def compile_spmd(module, on: tuple, free_inputs=None, free_outputs=None,
                 compiler_options=()) -> SpmdExecutable:
    """Compile ``module`` (annotated with ``sdy.mesh`` and ``sdy.sharding``) for the devices
    ``on``, in the mesh's order, as JAX compiles for a mesh on CPU: one replica,
    ``len(on)`` partitions, SPMD partitioning by Shardy. ``free_inputs``/``free_outputs``:
    per argument/result, whether XLA may choose its sharding (JAX's unspecified ones)."""
    options = _options(compiler_options)
    options.num_replicas = 1
    options.num_partitions = len(on)
    options.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in on]]))
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    ordered = _threads_token(module)  # (the token first: replicated, never XLA's to choose)
    free_inputs, free_outputs = ([False] * ordered + list(free) if free is not None else None
                                 for free in (free_inputs, free_outputs))
    if free_inputs is not None:
        build.allow_spmd_sharding_propagation_to_parameters = list(free_inputs)
    if free_outputs is not None:
        build.allow_spmd_sharding_propagation_to_output = list(free_outputs)
    callbacks = _checked_host_callbacks(module)
    loaded = _compile(replica_client(), module, on, options, callbacks)
    with module.context:
        arguments = ir.FunctionType(ir.TypeAttr(
            main_function(module).attributes['function_type']).value).inputs
    return SpmdExecutable(loaded, len(arguments), _main_result_types(module), on, callbacks,
                          ordered)


@functools.lru_cache(maxsize=1024)  # (a call of a program reads its results' layouts again)
def named_sharding_from_hlo(hlo, mesh, ndim: int):
    """The ``NamedSharding`` over ``mesh`` whose ``HloSharding`` is ``hlo``: how a layout
    XLA chose (a propagated argument or result) is read back as JAX reads it. Each axis of
    the mesh goes to one dimension or none; the first match is JAX's spec."""
    from minijax.sharding import AxisType, NamedSharding, PartitionSpec
    if hlo.is_replicated():
        return NamedSharding(mesh, PartitionSpec())
    names = [n for n in mesh.axis_names if mesh.shape[n] != 1]
    choices = [range(-2 if mesh._name_to_type[n] is AxisType.Explicit else -1, ndim)
               for n in names]  # (-1: replicated, -2: unreduced, on an Explicit axis only)
    for choice in itertools.product(*choices):
        per_dim = [[n for n, d in zip(names, choice) if d == dim] for dim in range(ndim)]
        unreduced = {n for n, d in zip(names, choice) if d == -2}
        for orders in itertools.product(*map(itertools.permutations, per_dim)):
            spec = PartitionSpec(*[None if not o else o[0] if len(o) == 1 else o
                                   for o in orders], unreduced=unreduced)
            if hlo_sharding(NamedSharding(mesh, spec), ndim) == hlo:
                return NamedSharding(mesh, _trimmed(spec))
    raise NotImplementedError(f'XLA laid a value out as {hlo}, which no PartitionSpec over '
                              f'{mesh} describes: give the jit explicit out_shardings')


def _trimmed(spec):
    """The spec without its trailing Nones, as JAX writes a propagated one (``P('y',)``)."""
    entries = list(spec.partitions)
    while entries and entries[-1] is None:
        entries.pop()
    return type(spec)(*entries, unreduced=spec.unreduced, reduced=spec.reduced)


def serialize_portable_artifact_with_sdy(module: ir.Module, target_version: str) -> bytes:
    """``module`` as a versioned StableHLO artifact that keeps Shardy's ``sdy.mesh`` and
    ``sdy.sharding``, which VHLO has no ops or attributes for: jaxlib's mixed serialization,
    as JAX's export writes a module over a mesh. Rewrites ``module`` in place."""
    return _jax.mlir.serialize_portable_artifact(module, target_version, True)
