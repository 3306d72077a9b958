"""Running a StableHLO module in the StableHLO reference interpreter shipped with jaxlib.

The interpreter executes the ops as the StableHLO specification defines them, independently
of XLA: running one module both ways cross-checks minijax's lowering and XLA's compilation
(``minijax run --backend interpreter``, and tests). It is slow; use it on small inputs.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from minijax.lowering import mlir_context


def run_module(module: ir.Module, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Evaluate ``module``'s ``@main`` on NumPy arguments; return NumPy results."""
    with mlir_context():
        attrs = [ir.DenseElementsAttr.get(np.require(a, requirements='C')) for a in args]
        return [np.array(result) for result in stablehlo.eval_module(module, attrs)]
