"""Small StableHLO builders that several lowering rules share."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.lowering.module import append_block, constant, emit
from minijax.lowering.shardings import constrain_to_type, per_device_placement
from minijax.lowering.types import element_type, tensor_type


def broadcast_in_dim(value: ir.Value, aval_out, dims) -> ir.Value:
    """Broadcast ``value`` to ``aval_out``'s shape; operand dim i goes to result dim dims[i]."""
    return hlo.BroadcastInDimOp(tensor_type(aval_out), value,
                                ir.DenseI64ArrayAttr.get(list(dims))).result


def full_like_aval(value, aval) -> ir.Value:
    """``value`` broadcast to ``aval``'s type, a ``broadcast_in_dim`` even to a scalar (how
    JAX's ``mlir.full_like_aval`` writes a filled array)."""
    return broadcast_in_dim(constant(np.array(value, aval.dtype)), aval, ())


def broadcast_operands(ctx, operands) -> list[ir.Value]:
    """Broadcast the operands of an elementwise op to the shape of its result, as JAX does:
    a scalar (``x * 2.``, on every use of a literal: the tensor type comes from the module's
    cache) or an operand with axes of size 1, which grow. Under sharding in types, each
    broadcast operand, and each operand typed otherwise than the result, is constrained to
    the result's sharding (JAX's multi_broadcast_in_dim)."""
    out = ctx.avals_out[0]
    module = ctx.module_context
    return [constrain_to_type(ctx, emit(
                'stablehlo.broadcast_in_dim', module.tensor_type(aval, out.shape), x,
                broadcast_dimensions=module.leading_dims(len(aval.shape))), out)
            if aval.shape != out.shape else
            constrain_to_type(ctx, x, out) if aval._sharding != out._sharding else x
            for x, aval in zip(operands, ctx.avals_in)]


_COMPARE_TYPES = {'f': 'FLOAT', 'c': 'FLOAT', 'i': 'SIGNED', 'u': 'UNSIGNED', 'b': 'UNSIGNED'}


def compare(x: ir.Value, y: ir.Value, direction: str, dtype, total_order=False) -> ir.Value:
    """``stablehlo.compare <direction>`` (EQ, NE, LT, LE, GT, GE) of two same-typed values;
    with ``total_order``, real floats compare as XLA's ``TOTALORDER`` orders them."""
    kind = 'TOTALORDER' if total_order and dtypes.is_float(dtype) else \
        _COMPARE_TYPES[dtypes.kind(dtype)]
    return hlo.CompareOp(x, y, hlo.ComparisonDirectionAttr.get(direction),
                         compare_type=hlo.ComparisonTypeAttr.get(kind)).result


def choose(x: ir.Value, y: ir.Value, direction: str, dtype) -> ir.Value:
    """The maximum (``direction`` 'GT') or minimum ('LT') of two same-typed values. Complex
    numbers are compared as JAX compares them, real parts first, then imaginary parts on a
    tie, which is not the order of ``stablehlo.maximum``/``minimum`` on XLA."""
    if not dtypes.is_complex(dtype):
        return (hlo.MaxOp if direction == 'GT' else hlo.MinOp)(x, y).result
    part_dtype = dtypes.real_part_dtype(dtype)
    (x_re, y_re), (x_im, y_im) = ([part(v).result for v in (x, y)]
                                  for part in (hlo.RealOp, hlo.ImagOp))
    x_wins = hlo.SelectOp(compare(x_re, y_re, 'EQ', part_dtype),
                          compare(x_im, y_im, direction, part_dtype),
                          compare(x_re, y_re, direction, part_dtype)).result
    return hlo.SelectOp(x_wins, x, y).result


def reduce(ctx, operand: ir.Value, init: np.ndarray, axes, body) -> ir.Value:
    """``stablehlo.reduce`` of ``operand`` over ``axes``, the rule's result; ``body(a, b)``
    builds the combined value (``lambda a, b: hlo.AddOp(a, b).result``)."""
    scalar_type = ir.RankedTensorType.get([], element_type(init.dtype))
    op = hlo.ReduceOp([tensor_type(ctx.avals_out[0])], [operand], [constant(init)], list(axes))
    block = append_block(ctx, op.regions[0], scalar_type, scalar_type)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([body(*block.arguments)])
    return op.result


def reduce_window(ctx, operand: ir.Value, init: ir.Value, body, window_dimensions,
                  window_strides, padding, base_dilation=None, window_dilation=None
                  ) -> ir.Value:
    """``stablehlo.reduce_window`` with every attribute written out, as JAX writes it, the
    rule's result; ``body(a, b)`` builds the combined scalar, ``padding`` is a (low, high)
    pair per axis."""
    return reduce_windows(ctx, [operand], [init], lambda a, b: [body(a, b)],
                          window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)[0]


def reduce_windows(ctx, operands, inits, body, window_dimensions, window_strides, padding,
                   base_dilation=None, window_dilation=None) -> list[ir.Value]:
    """``reduce_window`` of several operands at once, the rule's results:
    ``body(*accumulated, *elements)`` returns one scalar per operand."""
    avals_out = ctx.avals_out
    ones = [1] * len(window_dimensions)
    op = hlo.ReduceWindowOp(
        [tensor_type(a) for a in avals_out], list(operands), list(inits),
        list(window_dimensions), window_strides=list(window_strides),
        base_dilations=list(base_dilation or ones), window_dilations=list(window_dilation or ones),
        padding=ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2)))
    scalar_types = [ir.RankedTensorType.get([], element_type(a.dtype)) for a in avals_out]
    block = append_block(ctx, op.regions[0], *scalar_types, *scalar_types)
    with ir.InsertionPoint(block):
        hlo.ReturnOp(body(*block.arguments))
    return list(op.results)


#: jaxlib's FFI handler that calls the Python function ``index`` of the running executable's
#: host callbacks: NumPy arrays in, a tuple of NumPy arrays out.
PYTHON_CALLBACK_TARGET = 'xla_ffi_python_cpu_callback'


def python_callback(ctx, callback, operands, has_side_effect: bool, ordered: bool = False,
                    device_ids: tuple | None = None) -> list[ir.Value]:
    """``stablehlo.custom_call @xla_ffi_python_cpu_callback`` running ``callback`` on the
    host, as JAX emits it: the callback joins the module's ``host_callbacks`` and the op
    carries its index. ``has_side_effect`` keeps XLA from removing a call whose results
    nobody reads. An ``ordered`` call takes the function's token first and returns the
    next one first, which becomes the function's token: XLA runs such calls in order.
    In a partitioned program, ``device_ids`` places it (``shardings.per_device_placement``)."""
    module = ctx.module_context
    module.host_callbacks.append(_passing_token(callback) if ordered else callback)
    index = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), len(module.host_callbacks) - 1)
    token = module.token if ordered else None
    op = ffi_call(ctx, PYTHON_CALLBACK_TARGET, operands, has_side_effect, {'index': index},
                  token)
    if device_ids is not None:
        module.uses_shardy = True
        per_device_placement(op, device_ids)
    if not ordered:
        return list(op.results)
    module.token, *outs = op.results
    return outs


def _passing_token(callback):
    """``callback`` as XLA calls an ordered one: the token's (empty) buffer first, passed
    back first."""
    return lambda token, *arrays: (token, *callback(*arrays))


def ffi_call(ctx, target, operands, has_side_effect: bool, config: dict,
             token: ir.Value | None = None) -> ir.Operation:
    """``stablehlo.custom_call @target`` of an XLA FFI handler, as JAX's ``ffi_lowering``
    writes it: row-major layouts, the handler's attributes ``config`` in
    ``mhlo.backend_config``. With a ``token``, the call takes it first and returns a token
    first (a token's layout is a scalar's). The op (a caller may annotate it before taking
    its ``results``)."""
    tokens = [] if token is None else [core.abstract_token]
    op = hlo.CustomCallOp(
        [tensor_type(a) for a in (*tokens, *ctx.avals_out)], [*([token] * len(tokens)),
                                                              *operands], target,
        has_side_effect=ir.BoolAttr.get(has_side_effect), backend_config=ir.StringAttr.get(''),
        operand_layouts=row_major_layouts([*tokens, *ctx.avals_in]),
        result_layouts=row_major_layouts([*tokens, *ctx.avals_out]))
    op.operation.attributes['mhlo.backend_config'] = ir.DictAttr.get(config)
    return op.operation


def row_major_layouts(avals) -> ir.ArrayAttr:
    """A custom call's ``operand_layouts``/``result_layouts`` for row-major arrays (each
    layout lists the dimensions minor to major; a token's is empty)."""
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.arange(getattr(a, 'ndim', 0) - 1, -1, -1,
                                              dtype=np.int64),
                                    type=ir.IndexType.get()) for a in avals])


def concatenate(values, dimension: int) -> ir.Value:
    """``stablehlo.concatenate`` of ``values`` as JAX writes it: none for one value, and a
    tree of concatenations of at most 16 operands each for many (wide ones compile slowly)."""
    while len(values) > 1:
        values = [hlo.ConcatenateOp(values[i:i + 16], dimension).result
                  for i in range(0, len(values), 16)]
    return values[0]


def precision_config(precision=None) -> ir.ArrayAttr:
    """``precision = [HIGHEST, DEFAULT]``: a contraction's precision, one level per operand
    (a pair of ``lax.Precision``), as JAX writes it; ``[DEFAULT, DEFAULT]`` for None (and
    for a dot algorithm, which is an attribute of its own)."""
    levels = precision if type(precision) is tuple else None  # (not a DotAlgorithm)
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p) if p else 'DEFAULT')
                             for p in levels or (None, None)])


def dot_algorithm(lhs, rhs, accumulation, primitive_operations) -> ir.Attribute:
    """``algorithm = <lhs_precision_type = bf16, ...>`` from the element types' names."""
    return hlo.DotAlgorithm.get(*(ir.Type.parse(t) for t in (lhs, rhs, accumulation)), 1, 1,
                                primitive_operations, False)
