"""The lowering-rule registry: how each primitive becomes StableHLO ops.

A rule is ``rule(ctx, *operands, **params) -> list[ir.Value]`` (or one ``ir.Value``):
``operands`` are MLIR values, ``ctx`` a ``LoweringRuleContext`` with the operand and result
avals and the module being built. Rules build ops with ``jaxlib.mlir.dialects.stablehlo``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from jaxlib.mlir import ir

from minijax.core import Primitive, RuleTable, ShapedArray

LoweringRule = Callable[..., 'list[ir.Value] | ir.Value']

lowering_rules = RuleTable('lowering', 'minijax.lowering.register_lowering({p}_p, ...)')


def register_lowering(primitive: Primitive, rule: LoweringRule) -> LoweringRule:
    """Register ``rule`` as the StableHLO lowering of ``primitive``."""
    lowering_rules[primitive] = rule
    return rule


@dataclass(slots=True)  # one per equation lowered: no frozen-dataclass setattr cost
class LoweringRuleContext:
    """What a lowering rule may look at besides its operands."""
    module_context: 'ModuleContext'  # noqa: F821  (minijax.lowering.module)
    avals_in: list[ShapedArray]
    avals_out: list[ShapedArray]
    primitive: Primitive
