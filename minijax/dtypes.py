"""The dtypes minijax supports and how weakly typed Python scalars promote.

minijax follows NumPy: a Python float is float64 and a Python int is int64. Inside a traced
function a Python scalar is *weakly typed*: it takes the dtype of the array it meets, so
``x * 2.`` keeps a float32 ``x`` float32 (as in JAX and NumPy 2).
"""
import numpy as np

#: dtype -> the short name MLIR and the CLI use for it.
SHORT_NAMES = {
    np.dtype('float32'): 'f32',
    np.dtype('float64'): 'f64',
    np.dtype('int32'): 'i32',
    np.dtype('int64'): 'i64',
    np.dtype('bool'): 'i1',
}
SUPPORTED = tuple(SHORT_NAMES)

float32, float64 = np.dtype('float32'), np.dtype('float64')
int32, int64 = np.dtype('int32'), np.dtype('int64')
bool_ = np.dtype('bool')

#: Python scalar type -> (dtype, weakly typed?)
PYTHON_SCALARS = {bool: (bool_, False), int: (int64, True), float: (float64, True)}


def check_supported(dtype, what='value'):
    """Return ``dtype`` as an ``np.dtype`` or raise a TypeError naming it."""
    dtype = np.dtype(dtype)
    if dtype not in SHORT_NAMES:
        names = ', '.join(d.name for d in SUPPORTED)
        raise TypeError(f'{what} has dtype {dtype.name}, which minijax does not support '
                        f'(supported: {names})')
    return dtype


def is_float(dtype):
    return np.issubdtype(dtype, np.floating)


def weak_join(strong, weak):
    """The dtype a weakly typed value takes when it meets a strongly typed one.

    A weak int or float meets an array of the same kind or a wider kind (int meets float)
    and takes its dtype; a weak float never silently becomes an int array.
    """
    if is_float(weak) and not is_float(strong):
        return None
    return strong
