"""The dtypes minijax supports, how weakly typed Python scalars promote, and JAX's
type-promotion lattice for operands of different dtypes.

minijax follows NumPy: a Python float is float64 and a Python int is int64. Inside a traced
function a Python scalar is *weakly typed*: it takes the dtype of the array it meets, so
``x * 2.`` keeps a float32 ``x`` float32 (as in JAX and NumPy 2).

A Python complex is complex128 and weakly typed like the others: ``x * 1j`` makes a float32
``x`` complex64, as in JAX.

``bfloat16`` comes from ``ml_dtypes`` (a jaxlib dependency): NumPy does not count it as a
floating type (its kind is 'V'), so code here asks ``kind(dtype)`` rather than ``dtype.kind``.
"""
import functools

import ml_dtypes
import numpy as np

from minijax import unsupported
from minijax.config import config

__all__ = ['TypePromotionError', 'bfloat16', 'canonicalize_dtype', 'extended', 'finfo', 'float0',
           'iinfo', 'issubdtype', 'itemsize_bits', 'prng_key', 'result_type', 'scalar_type_of']

# dir() lists JAX's names (``jax.dtypes``) only. The module keeps the rest, minijax's dtype
# vocabulary (the supported dtypes, the promotion lattice, the predicates), which the modules
# of every layer import from here (JAX keeps its counterparts in ``jax._src.dtypes``).
__dir__ = unsupported.public_dir(globals())

#: dtype -> the short name MLIR and the CLI use for it (``ui32`` is MLIR's unsigned i32).
SHORT_NAMES = {
    np.dtype('float16'): 'f16',
    np.dtype(ml_dtypes.bfloat16): 'bf16',
    np.dtype('float32'): 'f32',
    np.dtype('float64'): 'f64',
    np.dtype('int8'): 'i8',
    np.dtype('int16'): 'i16',
    np.dtype('int32'): 'i32',
    np.dtype('int64'): 'i64',
    np.dtype('uint8'): 'ui8',
    np.dtype('uint16'): 'ui16',
    np.dtype('uint32'): 'ui32',
    np.dtype('uint64'): 'ui64',
    np.dtype('bool'): 'i1',
    np.dtype('complex64'): 'c64',
    np.dtype('complex128'): 'c128',
}
SUPPORTED = tuple(SHORT_NAMES)

float16, bfloat16 = np.dtype('float16'), np.dtype(ml_dtypes.bfloat16)
float32, float64 = np.dtype('float32'), np.dtype('float64')
int8, int16, int32, int64 = (np.dtype(f'int{n}') for n in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (np.dtype(f'uint{n}') for n in (8, 16, 32, 64))
bool_ = np.dtype('bool')
complex64, complex128 = np.dtype('complex64'), np.dtype('complex128')

#: The dtype of the tangent of an integer or bool value, JAX's: no bits, always zero. Only
#: the differentiation API takes and gives it (``jvp``'s tangents, ``vjp``'s and ``grad``'s
#: results); inside a trace such a tangent is a symbolic zero.
float0 = np.dtype([('float0', np.void, 0)])


def tangent_dtype(dtype):
    """The dtype of a tangent of a ``dtype`` value: itself if inexact, else ``float0``."""
    return np.dtype(dtype) if is_inexact(dtype) else float0


#: Python scalar type -> (dtype, weakly typed?)
PYTHON_SCALARS = {bool: (bool_, False), int: (int64, True), float: (float64, True),
                  complex: (complex128, True)}


#: The Python ints int64 holds (``x in INT64_RANGE`` answers without a loop).
INT64_RANGE = range(-2 ** 63, 2 ** 63)


def python_scalar(x) -> tuple[np.dtype, bool]:
    """(dtype, weak type) of the Python scalar ``x``, as JAX with x64 gives them; an int that
    int64 cannot hold is an OverflowError, as in JAX (NumPy would make it an object array)."""
    dtype_and_weak = PYTHON_SCALARS[type(x)]
    if type(x) is int and x not in INT64_RANGE:
        raise OverflowError(f'Python int {x} too large to convert to int64')
    return dtype_and_weak


def check_supported(dtype, what='value'):
    """Return ``dtype`` as an ``np.dtype`` or raise a TypeError naming it."""
    dtype = np.dtype(dtype)
    if dtype not in SHORT_NAMES:
        if not dtype.isnative and dtype.newbyteorder('=') in SHORT_NAMES:
            raise TypeError(f'{what} has dtype {dtype.str}, {dtype.name} in the byte order this '
                            'machine does not use, which minijax (like JAX) does not support: '
                            f'convert it first (x.astype({dtype.name!r}))')
        names = ', '.join(d.name for d in SUPPORTED)
        raise TypeError(f'{what} has dtype {dtype.name}, which minijax does not support '
                        f'(supported: {names})')
    return dtype


@functools.lru_cache(maxsize=256)  # (asked of every operand by the type rules)
def kind(dtype):
    """'b' (bool), 'i' (signed), 'u' (unsigned), 'f' (floating, bfloat16 included) or 'c'
    (complex)."""
    return 'f' if np.dtype(dtype) == bfloat16 else np.dtype(dtype).kind


def is_float(dtype):
    return kind(dtype) == 'f'


def is_complex(dtype):
    return kind(dtype) == 'c'


def is_inexact(dtype):
    """Floating or complex: the dtypes that have derivatives."""
    return kind(dtype) in 'fc'


#: complex dtype <-> the float dtype of its real and imaginary parts
COMPLEX_PARTS = {complex64: float32, complex128: float64}
COMPLEX_OF = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}
#: The float type an integer or bool becomes in true division, float-only functions and
#: transforms (JAX's ``to_inexact_dtype``: 64-bit integers to float64, the others to float32).
FLOAT_OF = {**dict.fromkeys([bool_, int8, int16, int32, uint8, uint16, uint32], float32),
            int64: float64, uint64: float64}


def real_part_dtype(dtype):
    """The dtype of ``real(x)`` and ``abs(x)``: the part type of a complex dtype, else
    ``dtype`` itself."""
    return COMPLEX_PARTS.get(np.dtype(dtype), np.dtype(dtype))


def complex_operand(aval) -> bool:
    """Whether an operand is complex: ``eager_on_xla`` for the primitives whose NumPy impl
    is XLA's on real numbers only (where a complex NaN lands, complex ``sqrt``'s edges)."""
    return is_complex(aval.dtype)


def is_integer(dtype):
    return kind(dtype) in 'iu'


def lowest(dtype):
    """The least value of ``dtype``, the identity of a maximum: -inf for a float (-inf+0j
    for a complex number, ordered by real part first), the smallest integer, False."""
    if is_float(dtype) or is_complex(dtype):
        return -np.inf
    return False if dtype == bool_ else np.iinfo(dtype).min


def highest(dtype):
    """The greatest value of ``dtype``, the identity of a minimum."""
    if is_float(dtype) or is_complex(dtype):
        return np.inf
    return True if dtype == bool_ else np.iinfo(dtype).max


def finfo(dtype):
    """``np.finfo`` that knows bfloat16."""
    return ml_dtypes.finfo(dtype)


iinfo = ml_dtypes.iinfo


def itemsize_bits(dtype) -> int:
    """The bits one element of ``dtype`` takes (a bool takes a byte)."""
    return np.dtype(dtype).itemsize * 8


#: The float types too narrow to accumulate in (8 and 11 significant bits): XLA's CPU backend
#: and ``jnp.sum`` widen them to float32 inside a sum.
NARROW_FLOATS = (float16, bfloat16)


def accumulates_in_float32(impl):
    """``impl``, the NumPy implementation of a primitive that accumulates (a sum, a dot
    product, a window or running reduction), made to compute float16 and bfloat16 as XLA's
    CPU backend does: in float32, rounding once at the end. NumPy would round after every
    step (in bfloat16 256 + 1 is 256), and its einsum has no bfloat16."""
    @functools.wraps(impl)
    def widened(*args, **params):
        arrays = [np.asarray(a) for a in args]
        narrow = [a.dtype for a in arrays if a.dtype in NARROW_FLOATS]
        if not narrow:
            return impl(*args, **params)
        wide = [a.astype(float32) if a.dtype in NARROW_FLOATS else a for a in arrays]
        return np.asarray(impl(*wide, **params)).astype(narrow[0])
    return widened


def weak_join(strong, weak):
    """The dtype a weakly typed value takes when it meets a strongly typed one.

    A weak int or float meets an array of the same kind or a wider kind (int meets float)
    and takes its dtype; a weak float never silently becomes an int array, nor a weak
    complex a real one.
    """
    if (is_float(weak) and not is_inexact(strong)) or (is_complex(weak) and not is_complex(strong)):
        return None
    return strong

# ----------------------------------------------------------------------------- promotion

#: JAX's type-promotion lattice: each type -> the types just above it. 'i*', 'f*' and 'c*'
#: are a weakly typed Python int, float and complex: a weak int sits below every integer type
#: (so ``uint8 + 1`` stays uint8), a weak float below every float type, a weak complex below
#: complex64 (so ``float32 * 1j`` is complex64). Two operands promote to
#: their least upper bound: ``int8 + uint8`` is int16, ``uint64 + int64`` is f*, i.e. float64.
_LATTICE = {
    'bool': ['i*'], 'i*': ['uint8', 'int8'],
    'uint8': ['uint16', 'int16'], 'uint16': ['uint32', 'int32'],
    'uint32': ['uint64', 'int64'], 'uint64': ['f*'],
    'int8': ['int16'], 'int16': ['int32'], 'int32': ['int64'], 'int64': ['f*'],
    'f*': ['float16', 'bfloat16', 'c*'], 'float16': ['float32'], 'bfloat16': ['float32'],
    'float32': ['float64', 'complex64'], 'float64': ['complex128'],
    'c*': ['complex64'], 'complex64': ['complex128'], 'complex128': [],
}
#: What a weak lattice type becomes as a dtype (minijax is always x64, as JAX with x64 on).
_WEAK_DEFAULTS = {'i*': int64, 'f*': float64, 'c*': complex128}
_WEAK_NODES = {'i': 'i*', 'u': 'i*', 'f': 'f*', 'c': 'c*'}


def _upper_bounds(node):
    """``node`` and every type above it in the lattice."""
    bounds = {node}
    for above in _LATTICE[node]:
        bounds |= _upper_bounds(above)
    return bounds


_UPPER_BOUNDS = {node: frozenset(_upper_bounds(node)) for node in _LATTICE}


def _lattice_node(dtype, weak):
    if weak and kind(dtype) in _WEAK_NODES:
        return _WEAK_NODES[kind(dtype)]
    return np.dtype(dtype).name


#: JAX's strict lattice (``jax_numpy_dtype_promotion='strict'``): no two dtypes promote;
#: only a Python scalar meets an array of its kind or a wider one (a weak int an integer
#: or float type, a weak float a float or complex type, a weak complex a complex type).
_STRICT_UPPER_BOUNDS = {
    **{n: frozenset({n}) for n in _LATTICE},
    'i*': frozenset({'i*', 'f*', 'c*', 'uint8', 'uint16', 'uint32', 'uint64', 'int8', 'int16',
                     'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64',
                     'complex64', 'complex128'}),
    'f*': frozenset({'f*', 'c*', 'float16', 'bfloat16', 'float32', 'float64', 'complex64',
                     'complex128'}),
    'c*': frozenset({'c*', 'complex64', 'complex128'}),
}
#: How JAX's strict-mode error names a weak type: the Python type.
_WEAK_NAMES = {'i*': str(int), 'f*': str(float), 'c*': str(complex)}


def promote(*typed):
    """The (dtype, weak_type) that values of the given ``(dtype, weak_type)`` pairs promote
    to, as ``jax.numpy.result_type`` computes it: the least upper bound in the lattice (the
    strict one when ``jax_numpy_dtype_promotion`` is ``'strict'``)."""
    return _promote(config.jax_numpy_dtype_promotion == 'strict', *typed)


@functools.lru_cache(maxsize=None)  # a handful of distinct calls, made on every binary op
def _promote(strict, *typed):
    """When every operand is weak, the bound is taken of their strong dtypes and the result
    stays weak (a weak int16 plus a weak int32 is a weak int32, not an int64)."""
    if len({d for d, _ in typed}) == 1:
        dtype = typed[0][0]
        return dtype, dtype != bool_ and all(w for _, w in typed)  # a bool is never weak
    all_weak = all(w for _, w in typed)
    nodes = [_lattice_node(d, w and not all_weak) for d, w in typed]
    bounds = _STRICT_UPPER_BOUNDS if strict and not all_weak else _UPPER_BOUNDS
    common = frozenset.intersection(*(bounds[n] for n in nodes))
    least = [n for n in common if common <= bounds[n]]  # below all the others
    if not least:
        raise TypePromotionError(
            f'Input dtypes {tuple(_WEAK_NAMES.get(n, n) for n in nodes)} have no available '
            'implicit dtype promotion path when jax_numpy_dtype_promotion=strict. Try '
            'explicitly casting inputs to the desired output type, or set '
            'jax_numpy_dtype_promotion=standard.')
    (least,) = least
    if least in _WEAK_DEFAULTS:
        return _WEAK_DEFAULTS[least], True
    return np.dtype(least), all_weak


class TypePromotionError(ValueError):
    """JAX's error for an implicit promotion its strict mode
    (``jax_numpy_dtype_promotion='strict'``) refuses."""


def dtype_and_weak_type(x) -> tuple:
    """The (dtype, weak type) of a value or a dtype-like: a Python scalar (and the types
    ``int``, ``float``, ``complex``) is weak, an array (minijax's, NumPy's, traced) is as
    its type says, a dtype-like (``np.float32``, ``'int8'``, ``jnp.int16``) is strong."""
    if isinstance(x, type) and x in PYTHON_SCALARS:
        return PYTHON_SCALARS[x]
    if type(x) in PYTHON_SCALARS:
        return python_scalar(x)
    aval = getattr(x, 'aval', None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    dtype = x if isinstance(x, (type, str, np.dtype)) else getattr(x, 'dtype', x)
    return (dtype if isinstance(dtype, KeyDType) else check_supported(dtype)), False


def result_type(*args, return_weak_type_flag=False):
    """The dtype that values or dtypes ``args`` promote to (``promote``); with
    ``return_weak_type_flag``, and whether it is weak."""
    if not args:
        raise ValueError('at least one array or dtype is required')
    dtype, weak = promote(*map(dtype_and_weak_type, args))
    return (dtype, weak) if return_weak_type_flag else dtype


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """``dtype`` as minijax computes it: itself, as JAX with x64 gives it (nothing is
    narrowed); a key dtype only when ``allow_extended_dtype``."""
    if isinstance(dtype, KeyDType):
        if not allow_extended_dtype:
            raise ValueError(f'Internal: canonicalize_dtype called on extended dtype {dtype} '
                             'with allow_extended_dtype=False')
        return dtype
    return check_supported(dtype)


def scalar_type_of(x) -> type:
    """The Python scalar type of ``x``'s kind: bool, int, float or complex."""
    dtype = dtype_and_weak_type(x)[0]
    if isinstance(dtype, KeyDType):
        raise TypeError(f'Invalid scalar value {x!r}')
    return {'b': bool, 'i': int, 'u': int, 'f': float, 'c': complex}[kind(dtype)]

# ----------------------------------------------------------------------------- extended dtypes

class extended:  # noqa: N801 (JAX's name: ``jax.dtypes.extended``)
    """The abstract type of the dtypes NumPy does not have: ``issubdtype(d, extended)``."""


class prng_key(extended):  # noqa: N801 (JAX's name: ``jax.dtypes.prng_key``)
    """The abstract type of PRNG key dtypes: ``issubdtype(key.dtype, prng_key)``."""


class KeyDType:
    """``key<fry>``, the dtype of a typed PRNG key array (``minijax.random.key``): one
    element is a whole threefry2x32 key. Its *physical* layout is the key's ``uint32[2]``
    words as a trailing axis: a ``key<fry>[3]`` is held, transferred and lowered as a
    ``uint32[3,2]`` (``minijax.core.physical_aval``)."""
    type = prng_key
    name = 'key<fry>'
    impl = 'fry'  # JAX's short name of threefry2x32, shown in jaxprs as ``impl=fry``
    word_dtype = uint32
    words = 2
    itemsize = 8

    def __repr__(self):
        return self.name

    __str__ = __repr__


#: The one key dtype (threefry2x32 is the only implementation minijax has).
key_fry = KeyDType()


def is_key(dtype) -> bool:
    return isinstance(dtype, KeyDType)


def issubdtype(a, b) -> bool:
    """``np.issubdtype`` that knows the key dtype: a key dtype is a ``prng_key`` and an
    ``extended``, and no NumPy dtype is either."""
    if is_key(a):
        return a == b or (isinstance(b, type) and issubclass(a.type, b))
    if is_key(b) or (isinstance(b, type) and issubclass(b, extended)):
        return False
    return np.issubdtype(a, b)
