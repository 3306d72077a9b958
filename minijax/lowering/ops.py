"""Small StableHLO builders that several lowering rules share."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.lowering.module import constant
from minijax.lowering.types import element_type, tensor_type


def broadcast_in_dim(value: ir.Value, aval_out, dims) -> ir.Value:
    """Broadcast ``value`` to ``aval_out``'s shape; operand dim i goes to result dim dims[i]."""
    return hlo.BroadcastInDimOp(tensor_type(aval_out), value,
                                ir.DenseI64ArrayAttr.get(list(dims))).result


def broadcast_scalars(ctx, operands) -> list[ir.Value]:
    """Broadcast rank-0 operands of an elementwise op to the shape of its result."""
    out_shape = ctx.avals_out[0].shape
    return [broadcast_in_dim(x, aval.update(shape=out_shape), [])
            if aval.shape != out_shape else x
            for x, aval in zip(operands, ctx.avals_in)]


_COMPARE_TYPES = {'f': 'FLOAT', 'c': 'FLOAT', 'i': 'SIGNED', 'u': 'UNSIGNED', 'b': 'UNSIGNED'}


def compare(x: ir.Value, y: ir.Value, direction: str, dtype) -> ir.Value:
    """``stablehlo.compare <direction>`` (EQ, NE, LT, LE, GT, GE) of two same-typed values."""
    return hlo.CompareOp(
        x, y, hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(_COMPARE_TYPES[dtypes.kind(dtype)])).result


def reduce(operand: ir.Value, init: np.ndarray, axes, aval_out, body_op) -> ir.Value:
    """``stablehlo.reduce`` of ``operand`` over ``axes`` with ``body_op`` (e.g. AddOp)."""
    scalar_type = ir.RankedTensorType.get([], element_type(init.dtype))
    op = hlo.ReduceOp([tensor_type(aval_out)], [operand], [constant(init)], list(axes))
    block = op.regions[0].blocks.append(scalar_type, scalar_type)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([body_op(*block.arguments).result])
    return op.result


def default_precision() -> ir.ArrayAttr:
    """``precision = [DEFAULT, DEFAULT]``: the precision config JAX writes on a contraction
    (one per operand) when the program asks for none."""
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get('DEFAULT')] * 2)
