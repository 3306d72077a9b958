"""The PJRT CPU runtime: client, transfers, compilation and execution.

Every private jaxlib API minijax uses (besides the MLIR bindings) is here, so that a jaxlib
upgrade touches one file. minijax never imports ``jax``.
"""
from __future__ import annotations

import collections
import functools

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.ir import WalkResult

from minijax.lowering.module import main_function
from minijax.lowering.types import numpy_dtype

#: How often minijax traced, lowered and compiled: tests check caching with these counts.
counters: collections.Counter = collections.Counter()


@functools.cache
def client():
    return xc.make_cpu_client()


@functools.cache
def device():
    return client().devices()[0]


def devices(backend=None) -> list:
    """The PJRT CPU client's devices (``jax.devices()``)."""
    _check_backend(backend)
    return list(client().devices())


def _check_backend(backend):
    if backend not in (None, 'cpu'):
        raise RuntimeError(f'backend {backend!r} is not available: minijax runs on the CPU')


def device_count(backend=None) -> int:
    return len(devices(backend))


def default_backend() -> str:
    return 'cpu'


local_devices = devices
local_device_count = device_count


def process_index() -> int:
    """minijax runs in one process, number 0 (``jax.process_index``)."""
    return 0


def process_count() -> int:
    return 1


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
        return xc.DeviceList((device(),))

    @functools.cached_property
    def _device_assignment(self):
        return (device(),)


@functools.cache
def _sharding():
    return _DeviceSharding(device())


class _TransferAval:
    """The few aval fields ``batched_device_put`` and the result handlers read."""
    __slots__ = ('shape', 'dtype', 'weak_type', 'ndim')

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.weak_type, self.ndim = shape, dtype, False, len(shape)


def device_put(x) -> 'xc.ArrayImpl':
    """Copy a NumPy value to the CPU device."""
    if type(x) is not np.ndarray or not x.flags.c_contiguous:
        x = np.require(x, requirements="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    return xc.batched_device_put(_TransferAval(x.shape, x.dtype), _sharding(), [x], [device()],
                                 enable_x64=True)


def is_device_buffer(x) -> bool:
    return isinstance(x, xc.ArrayImpl)


class Executable:
    """A compiled module: call it with device buffers, get device buffers back.

    Each result becomes a device array through a result handler made once per output type:
    jaxlib's generic ``disassemble_into_single_device_arrays`` would import all of ``jax``
    and route every output through its Python sharding code.
    """

    def __init__(self, loaded, result_types):
        self._loaded = loaded
        self._handlers = [xc._xla.array_result_handler(_TransferAval(shape, dtype), _sharding(),
                                                       committed=True, _skip_checks=True)
                          for shape, dtype in result_types]

    def __call__(self, buffers):
        return self._loaded.execute_sharded(list(buffers)).consume_with_handlers(self._handlers)

    def hlo_text(self) -> str:
        return '\n\n'.join(m.to_string() for m in self._loaded.hlo_modules())

    def cost_analysis(self) -> dict:
        return dict(self._loaded.cost_analysis())


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


def compile_module(module) -> Executable:
    """Compile an ``ir.Module`` for the CPU device."""
    chain = longest_chain(module)
    if chain > MAX_CHAIN_LENGTH:
        raise CompileError(f'the module has a chain of {chain} dependent ops; XLA crashes '
                           f'compiling chains much longer than {MAX_CHAIN_LENGTH}: express the '
                           'repetition as a loop (fori_loop, scan) or split the computation')
    counters['compile'] += 1
    options = xc.CompileOptions()
    loaded = client().compile_and_load(module, xc.DeviceList(tuple(client().devices())), options)
    return Executable(loaded, _main_result_types(module))


def _main_result_types(module) -> list[tuple[tuple[int, ...], np.dtype]]:
    """(shape, dtype) of each result of the module's ``@main``, the function PJRT runs."""
    with module.context:
        main = main_function(module)
        if main is None:
            raise CompileError('the module has no @main function to run')
        results = ir.FunctionType(ir.TypeAttr(main.attributes['function_type']).value).results
        return [(tuple(ir.RankedTensorType(t).shape),
                 numpy_dtype(ir.RankedTensorType(t).element_type)) for t in results]
