"""``minijax.typing``: the annotations JAX programs write (``jax.typing``).

``ArrayLike`` is what minijax's functions take as an array (an Array, a NumPy array or
scalar, a Python number); ``DTypeLike`` what they take as a dtype.
"""

import typing

import numpy as np

from minijax import array

__all__ = ['ArrayLike', 'DTypeLike']


class _SupportsDType(typing.Protocol):
    """Anything with a ``dtype`` (``jnp.float32``, an array)."""

    @property
    def dtype(self) -> np.dtype: ...


ArrayLike = typing.Union[array.Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = typing.Union[str, type[typing.Any], np.dtype, _SupportsDType]
