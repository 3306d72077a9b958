"""``Precision``, ``DotAlgorithm`` and ``DotAlgorithmPreset``: how exactly a contraction
(``dot_general``, ``conv_general_dilated``) multiplies its operands, as JAX names the options.

Accelerators trade accuracy for speed on float32 contractions (TPUs multiply in bfloat16
passes); the CPU always computes at full precision, so a ``Precision`` level changes only the
``precision = [...]`` attribute written on the StableHLO op, as JAX writes it. A contraction
primitive keeps it as a pair, one level per operand, or None when the program asks for none.

A dot algorithm (``dot_general`` only) names the types the operands are rounded to and the
type the products are summed in. The CPU runs the presets JAX lets it run (``ON_CPU``): the
operands are converted to the types the preset takes, the sum comes out in its accumulation
type and is converted to the result's; the algorithm is written on the op. Any other preset,
and any ``DotAlgorithm``, is JAX's ValueError when the program is lowered.
"""
from __future__ import annotations

import enum
from typing import Any, NamedTuple, Union

import numpy as np

from minijax import dtypes


class Precision(enum.Enum):
    """The precision of a contraction's multiplications, per operand: ``DEFAULT`` (fastest;
    also ``'default'``, ``'bfloat16'``, ``'fastest'``), ``HIGH`` (``'high'``,
    ``'bfloat16_3x'``, ``'tensorfloat32'``) or ``HIGHEST`` (``'highest'``, ``'float32'``)."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _BY_NAME.get(value)

    def __repr__(self):
        return f'Precision.{self.name}'

    def __str__(self):
        return self.name


_BY_NAME = {'highest': Precision.HIGHEST, 'float32': Precision.HIGHEST,
            'high': Precision.HIGH, 'bfloat16_3x': Precision.HIGH,
            'tensorfloat32': Precision.HIGH, 'default': Precision.DEFAULT,
            'bfloat16': Precision.DEFAULT, 'fastest': Precision.DEFAULT, None: Precision.DEFAULT}


class DotAlgorithm(NamedTuple):
    """A dot algorithm spelled out: the types the operands are rounded to, the type the
    products are summed in, and how many passes emulate a wider type (JAX's fields)."""
    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """JAX's named dot algorithms, ``LHS_RHS_ACCUMULATION`` (``_X3``: in three passes)."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f'DotAlgorithmPreset.{self.name}'

    def __str__(self):
        return self.name


PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]


class Algorithm(NamedTuple):
    """What a preset the CPU runs does: the operand types it takes (another is converted to
    the first), its accumulation type, and the attribute it writes on the op."""
    operand_types: tuple
    accumulation_type: str
    written: tuple  # (lhs, rhs, accumulation element types, primitive operations)


#: The presets JAX lets the CPU run (``DEFAULT`` is no algorithm at all).
ON_CPU = {
    DotAlgorithmPreset.F16_F16_F16: Algorithm(('float16',), 'float16', ('f16', 'f16', 'f16', 1)),
    DotAlgorithmPreset.F32_F32_F32: Algorithm(('float32',), 'float32', ('f32', 'f32', 'f32', 1)),
    DotAlgorithmPreset.F64_F64_F64: Algorithm(('float64',), 'float64', ('f64', 'f64', 'f64', 1)),
    DotAlgorithmPreset.BF16_BF16_F32: Algorithm(('bfloat16', 'float32'), 'float32',
                                                ('bf16', 'bf16', 'f32', 1)),
    DotAlgorithmPreset.BF16_BF16_F32_X3: Algorithm(('float32',), 'float32',
                                                   ('bf16', 'bf16', 'f32', 3)),
    DotAlgorithmPreset.BF16_BF16_F32_X6: Algorithm(('float32',), 'float32',
                                                   ('bf16', 'bf16', 'f32', 6)),
}


def algorithm_types(precision, lhs_dtype, rhs_dtype, out_dtype):
    """The operand and accumulation dtypes a dot algorithm computes in on the CPU (as JAX
    picks them: a bfloat16 sum only of bfloat16 operands asking for one), or None when
    ``precision`` is no algorithm; JAX's ValueError for one the CPU does not run."""
    if not isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)) or \
            precision is DotAlgorithmPreset.DEFAULT:
        return None
    if precision not in ON_CPU:
        raise ValueError(f"The precision '{precision}' is not supported by dot_general on CPU")
    algorithm = ON_CPU[precision]

    def taken(dtype):
        dtype = np.dtype(dtype)
        return dtype if dtype.name in algorithm.operand_types else \
            dtypes.check_supported(algorithm.operand_types[0])
    lhs, rhs = taken(lhs_dtype), taken(rhs_dtype)
    accumulation = dtypes.check_supported(algorithm.accumulation_type)
    if precision is DotAlgorithmPreset.BF16_BF16_F32 and lhs == rhs == dtypes.bfloat16 \
            and np.dtype(out_dtype) == lhs:
        accumulation = lhs
    return lhs, rhs, accumulation


def canonicalize_precision(precision):
    """``precision`` as the primitives keep it: None, a pair of ``Precision`` (one level
    for both operands, a name, or a pair of levels or of names), or a dot algorithm (a
    preset, its name, or a ``DotAlgorithm``); ValueError otherwise."""
    if precision is None:
        return None
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    if isinstance(precision, Precision):
        return precision, precision
    if isinstance(precision, str) and precision in _BY_NAME:
        return Precision(precision), Precision(precision)
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]
    if isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) and p in _BY_NAME for p in precision):
            return tuple(Precision(p) for p in precision)
    raise ValueError(f'precision must be None, a lax.Precision, one of the names '
                     f'{[name for name in _BY_NAME if name]}, a pair of levels or of names '
                     f'(one per operand), a lax.DotAlgorithmPreset or its name, or a '
                     f'lax.DotAlgorithm; got {precision!r}')
