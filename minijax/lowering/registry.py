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

#: The primitives whose ops go in a private function of their own, called where they are used.
outlined_primitives: set[Primitive] = set()


def register_lowering(primitive: Primitive, rule: LoweringRule, inline: bool = True
                      ) -> LoweringRule:
    """Register ``rule`` as the StableHLO lowering of ``primitive``. With ``inline=False``
    its ops go in a private function ``@<primitive>``, emitted once per module for each
    operand types and parameters and called at each use, as JAX lowers ``cumsum`` or
    ``argmax``."""
    lowering_rules[primitive] = rule
    (outlined_primitives.discard if inline else outlined_primitives.add)(primitive)
    return rule


@dataclass(slots=True)  # one per equation lowered: no frozen-dataclass setattr cost
class LoweringRuleContext:
    """What a lowering rule may look at besides its operands."""
    module_context: 'ModuleContext'  # noqa: F821  (minijax.lowering.module)
    avals_in: list[ShapedArray]
    avals_out: list[ShapedArray]
    primitive: Primitive

    def result_type(self, i: int = 0) -> ir.Type:
        """The tensor type of result ``i`` (built once per module)."""
        return self.module_context.tensor_type(self.avals_out[i])
