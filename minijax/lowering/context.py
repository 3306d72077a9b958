"""The one MLIR context minijax builds modules in, with the dialects JAX's modules use.

minijax emits ``func``, ``stablehlo`` and, where JAX does, ``chlo`` (the ops JAX lowers
``erf``, ``sinh``, ``top_k``... to); ``sdy`` (Shardy's sharding annotations) is registered
too, so that modules JAX writes parse here. The StableHLO passes (``chlo-legalize-to-stablehlo``
among them) are registered with them. Creating a context and registering dialects takes
milliseconds, so it is made once.
"""
import functools

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, sdy, stablehlo


@functools.cache
def mlir_context() -> ir.Context:
    return new_context()


def new_context(multithreaded: bool = True) -> ir.Context:
    """A context with minijax's dialects. ``multithreaded=False`` for a one-job child process
    (``minijax.isolation``): MLIR would otherwise start a thread pool to verify functions in
    parallel, for a single small module."""
    ctx = ir.Context()
    ctx.enable_multithreading(multithreaded)
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)  # func, arith, ... : the upstream dialects
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    for dialect in (stablehlo, chlo, sdy):  # without this, their ops are "not registered"
        dialect.register_dialect(ctx)
    stablehlo.register_stablehlo_passes()
    return ctx
