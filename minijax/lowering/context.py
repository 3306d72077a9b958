"""The one MLIR context minijax builds modules in, with StableHLO and func registered.

Creating a context and registering dialects takes milliseconds, so it is made once.
"""
import functools

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import stablehlo


@functools.cache
def mlir_context() -> ir.Context:
    return new_context()


def new_context() -> ir.Context:
    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)  # func, arith, ... : the upstream dialects
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)  # without this, stablehlo ops are "not registered"
    return ctx
