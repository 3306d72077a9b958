"""From minijax avals to MLIR tensor types."""
import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes


def _integer_type(dtype):
    """Signed integers and bool are MLIR's signless ``iN``; unsigned ones are ``uiN``, as in
    JAX, so that the type itself tells StableHLO how to compare, shift and convert them."""
    bits = 1 if dtype == dtypes.bool_ else 8 * dtype.itemsize
    if dtype.kind == 'u':
        return ir.IntegerType.get_unsigned(bits)
    return ir.IntegerType.get_signless(bits)


_FLOAT_TYPES = {dtypes.float16: ir.F16Type.get, dtypes.bfloat16: ir.BF16Type.get,
                dtypes.float32: ir.F32Type.get, dtypes.float64: ir.F64Type.get}


def element_type(dtype) -> ir.Type:
    """``float32`` -> ``f32``, ``uint8`` -> ``ui8``, ``complex64`` -> ``complex<f32>``."""
    dtype = dtypes.check_supported(dtype)
    if dtypes.is_float(dtype):
        return _FLOAT_TYPES[dtype]()
    if dtypes.is_complex(dtype):
        return ir.ComplexType.get(element_type(dtypes.COMPLEX_PARTS[dtype]))
    return _integer_type(dtype)


def numpy_dtype(mlir_type: ir.Type) -> np.dtype:
    """The dtype whose element type is ``mlir_type`` (inside its context)."""
    for dtype in dtypes.SUPPORTED:
        if element_type(dtype) == mlir_type:
            return dtype
    raise TypeError(f'minijax has no dtype for the MLIR element type {mlir_type}')


def tensor_type(aval) -> ir.Type:
    """``float32[3,4]`` -> ``tensor<3x4xf32>`` (needs an active context); a key array is
    its physical type (``key<fry>[3]`` -> ``tensor<3x2xui32>``); a token, which is no
    tensor, ``!stablehlo.token``."""
    if aval is core.abstract_token:
        return hlo.TokenType.get()
    aval = core.physical_aval(aval)
    return ir.RankedTensorType.get(aval.shape, element_type(aval.dtype))


def dense_elements(val: np.ndarray) -> ir.DenseElementsAttr:
    """``val`` as an MLIR attribute of its own element type. The bindings read a NumPy
    buffer by its bit width alone (a uint32 array would become ``i32``) and cannot read
    bfloat16 at all, so the type is given and bfloat16 passes as its 16-bit pattern."""
    val = np.array(val, order='C')
    if val.dtype == dtypes.bfloat16:
        val = val.view(np.uint16)
        return ir.DenseElementsAttr.get(val, type=ir.BF16Type.get(), shape=list(val.shape))
    return ir.DenseElementsAttr.get(val, type=element_type(val.dtype), shape=list(val.shape))
