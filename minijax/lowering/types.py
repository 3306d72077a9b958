"""From minijax avals to MLIR tensor types."""
import numpy as np
from jaxlib.mlir import ir

from minijax import dtypes

_ELEMENT_TYPES = {
    np.dtype('float32'): ir.F32Type.get,
    np.dtype('float64'): ir.F64Type.get,
    np.dtype('int32'): lambda: ir.IntegerType.get_signless(32),
    np.dtype('int64'): lambda: ir.IntegerType.get_signless(64),
    np.dtype('bool'): lambda: ir.IntegerType.get_signless(1),
}
assert set(_ELEMENT_TYPES) == set(dtypes.SUPPORTED)


def element_type(dtype) -> ir.Type:
    return _ELEMENT_TYPES[dtypes.check_supported(dtype)]()


def tensor_type(aval) -> ir.RankedTensorType:
    """``float32[3,4]`` -> ``tensor<3x4xf32>`` (needs an active context)."""
    return ir.RankedTensorType.get(aval.shape, element_type(aval.dtype))
