"""The ``accuracy=`` option of the transcendental functions (``exp``, ``sin``, ``tanh``, ...):
``Tolerance`` and ``AccuracyMode``, as in JAX.

The option is a parameter of the primitive's equation (left out when it is None, as JAX
prints it) and a ``result_accuracy`` attribute on the lowered op, which lets a compiler pick
an implementation accurate enough. XLA on the CPU has one implementation of each function,
so the values do not change; the module's text does, as JAX's does.
"""
from __future__ import annotations

import enum

from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.lowering import emit


class Tolerance:
    """The tolerances a function's result must meet: at most two of them, ``atol`` and
    ``rtol``, or ``atol`` and ``ulps``."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:  # (JAX's texts)
            raise ValueError('Tolerances must be non-negative.')
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError('At least one of atol, rtol, or ulps must be set.')
        self.atol = atol
        self.rtol = rtol
        self.ulps = ulps


class AccuracyMode(enum.Enum):
    """The most accurate implementation, or the compiler's default one."""
    HIGHEST = 1
    DEFAULT = 2


def check_accuracy(fn: str, accuracy) -> dict:
    """The primitive's parameters for ``accuracy``: none for None (JAX's jaxpr does not show
    it then), else ``accuracy``, which must be a ``Tolerance`` or an ``AccuracyMode`` (JAX
    fails lowering any other value with this NotImplementedError; minijax at the call)."""
    if accuracy is None:
        return {}
    if not isinstance(accuracy, (Tolerance, AccuracyMode)):
        raise NotImplementedError(f'{fn}: Accuracy {accuracy} not supported (give a '
                                  'lax.Tolerance or a lax.AccuracyMode)')
    return {'accuracy': accuracy}


def accuracy_attr(accuracy) -> hlo.ResultAccuracyAttr:
    """``#stablehlo.result_accuracy<...>``: a mode, or the tolerances."""
    if isinstance(accuracy, AccuracyMode):
        return hlo.ResultAccuracyAttr.get(0.0, 0.0, 0, accuracy.name)
    return hlo.ResultAccuracyAttr.get(atol=accuracy.atol, rtol=accuracy.rtol,
                                      ulps=accuracy.ulps, mode='TOLERANCE')


def op_with_accuracy(ctx, hlo_op, x, accuracy=None):
    """``hlo_op(x)`` of the equation's result type, carrying ``accuracy`` as its
    ``result_accuracy``. Given an accuracy, JAX builds the op without it first and leaves
    that unused op in the module: minijax does too, so that the text is JAX's."""
    out = emit(hlo_op.OPERATION_NAME, ctx.result_type(), x)
    if accuracy is not None:
        out = emit(hlo_op.OPERATION_NAME, ctx.result_type(), x,
                   result_accuracy=accuracy_attr(accuracy))
    return out
