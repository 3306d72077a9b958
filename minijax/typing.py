"""``minijax.typing``: the annotations JAX programs write (``jax.typing``).

``ArrayLike`` is what minijax's functions take as an array (an Array, a NumPy array or
scalar, a Python number); ``DTypeLike`` what they take as a dtype.
"""

from typing import Any, Protocol, Union

import numpy as np

from minijax.array import Array

__all__ = ['ArrayLike', 'DTypeLike']


class SupportsDType(Protocol):
    """Anything with a ``dtype`` (``jnp.float32``, an array)."""

    @property
    def dtype(self) -> np.dtype: ...


ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]
