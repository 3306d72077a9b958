"""From jaxprs to StableHLO MLIR modules, built op by op with the MLIR Python bindings.

The public extension point is ``register_lowering(primitive, rule)``; see ``registry``.
``stablehlo`` is jaxlib's StableHLO dialect module, re-exported for writing rules.
"""
from jaxlib.mlir.dialects import stablehlo

from minijax.lowering.context import mlir_context
from minijax.lowering.module import (
    LoweringError, ModuleContext, append_block, constant, emit, lower_closed_jaxpr, lower_fun,
    lower_jaxpr, lower_jaxpr_to_module, module_text, threading_token, traceless_location,
    verify_module)
from minijax.lowering.registry import LoweringRuleContext, lowering_rules, register_lowering
from minijax.lowering.types import element_type, tensor_type

__all__ = ['LoweringError', 'LoweringRuleContext', 'ModuleContext', 'append_block', 'constant',
           'element_type', 'emit',
           'lower_closed_jaxpr', 'lower_fun', 'lower_jaxpr', 'lower_jaxpr_to_module',
           'mlir_context', 'module_text', 'register_lowering', 'stablehlo', 'tensor_type',
           'threading_token', 'traceless_location', 'verify_module']
