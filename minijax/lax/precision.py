"""``Precision``: how exactly a contraction (``dot_general``, ``conv_general_dilated``)
multiplies its operands, as JAX names the levels.

Accelerators trade accuracy for speed on float32 contractions (TPUs multiply in bfloat16
passes); the CPU always computes at full precision, so here the option changes only the
``precision = [...]`` attribute written on the StableHLO op, as JAX writes it. A contraction
primitive keeps it as a pair, one level per operand, or None when the program asks for none.
"""
from __future__ import annotations

import enum


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


def canonicalize_precision(precision):
    """``precision`` as the primitives keep it: None, or a pair of ``Precision`` (one level
    for both operands, a name, or a pair of levels or of names); ValueError otherwise (a
    ``DotAlgorithm`` too, which minijax does not have)."""
    if precision is None:
        return None
    if isinstance(precision, Precision):
        return precision, precision
    if isinstance(precision, str) and precision in _BY_NAME:
        return Precision(precision), Precision(precision)
    if isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) and p in _BY_NAME for p in precision):
            return tuple(Precision(p) for p in precision)
    raise ValueError(f'precision must be None, a lax.Precision, one of the names '
                     f'{[name for name in _BY_NAME if name]}, or a pair of levels or of '
                     f'names, one per operand; got {precision!r}')
