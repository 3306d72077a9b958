"""The identity, twice over: ``copy``, a value in a buffer of its own, and ``stage``, a value
lifted into the transformation being traced.

To a program either is the identity: both are linear (their transposes are themselves) and
batch elementwise. ``copy_p`` is what ``jnp.array``, ``jnp.copy`` and ``Array.copy`` bind, as
in JAX, so a jaxpr shows where a program asked for a copy (jit's module needs none: it
returns the operand). ``stage_p`` is never seen in a jaxpr: binding it lifts a constant
into the innermost trace instead (a literal, or a constant of the jaxpr), as ``jnp.array``
of a NumPy array or a Python scalar does.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes
from minijax.array import Array, device_array, scalar
from minijax.core import Primitive, Tracer
from minijax.interpreters import jvp as ad
from minijax.lowering import register_lowering


def _identity_rules(primitive):
    """Every rule of a primitive that is the identity to a program."""
    primitive.def_impl(lambda x: np.array(x, copy=True))
    primitive.def_abstract_eval(core.raise_to_shaped)
    ad.defjvp_linear(primitive)
    primitive.def_transpose(lambda ct, x: [primitive.bind(ct)])
    primitive.def_batching(lambda vals, dims: (primitive.bind(*vals), dims[0]))
    register_lowering(primitive, lambda ctx, x: x)


copy_p = Primitive('copy')
_identity_rules(copy_p)


class _StagePrimitive(Primitive):
    """``stage_p``: its bind lifts the operand into the innermost trace rather than add an
    equation, as JAX's binds it with ``trace.stage_value``."""

    def bind(self, x):
        if isinstance(x, Tracer):
            return x
        if not isinstance(x, Array):
            dtype, weak_type = (dtypes.python_scalar(x) if type(x) in dtypes.PYTHON_SCALARS
                                else (np.asarray(x).dtype, False))
            x = device_array(np.asarray(x, dtype), weak_type)
        staged = core.staged_constant(scalar(x, x.dtype, x.weak_type) if x.ndim == 0 else x)
        return x if staged is None else staged


stage_p = _StagePrimitive('stage')
_identity_rules(stage_p)


def stage(x, /):
    """``x`` lifted into the active trace: a traced value as it is, a constant (a Python or
    NumPy scalar, a NumPy array) as a literal or a constant of the jaxpr being traced; an
    Array when nothing is traced."""
    return stage_p.bind(x)
