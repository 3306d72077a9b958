"""The array API standard's entry points: ``x.__array_namespace__()`` (this ``jnp``) and
``jnp.__array_namespace_info__()``, what an array-API library asks of a namespace: its
capabilities, devices and dtypes (minijax's, as JAX's with x64: 64-bit defaults)."""
from __future__ import annotations

import numpy as np

from minijax import runtime

#: The version of the standard whose namespace ``jnp`` is, as JAX's.
ARRAY_API_VERSION = '2024.12'

#: The standard's dtypes, by the kinds it names ('numeric' and 'integral' are unions).
_KINDS = {
    'bool': ['bool'],
    'signed integer': ['int8', 'int16', 'int32', 'int64'],
    'unsigned integer': ['uint8', 'uint16', 'uint32', 'uint64'],
    'real floating': ['float32', 'float64'],
    'complex floating': ['complex64', 'complex128'],
}
_KINDS['integral'] = _KINDS['signed integer'] + _KINDS['unsigned integer']
_KINDS['numeric'] = _KINDS['integral'] + _KINDS['real floating'] + _KINDS['complex floating']


def array_namespace(self, *, api_version=None):
    """``x.__array_namespace__()``: ``jnp``, the module an array-API program calls
    (``xp = x.__array_namespace__(); xp.sin(x)``)."""
    if api_version is not None and api_version != ARRAY_API_VERSION:
        raise ValueError(f'{api_version=!r} is not available; available versions are: '
                         f'{[ARRAY_API_VERSION]}')
    import minijax.numpy
    return minijax.numpy


class ArrayNamespaceInfo:
    """What ``jnp.__array_namespace_info__()`` returns, as JAX's: no data-dependent shapes
    or boolean indexing under transformations, 64 dimensions at most, one CPU device
    (``None`` first: an array not committed to a device)."""

    def capabilities(self):
        return {'boolean indexing': False, 'data-dependent shapes': False,
                'max dimensions': 64}

    def default_device(self):
        return None

    def devices(self):
        return [None, *runtime.devices()]

    def default_dtypes(self, *, device=None):
        del device  # (the same on every device)
        return {'real floating': np.dtype('float64'), 'complex floating': np.dtype('complex128'),
                'integral': np.dtype('int64'), 'indexing': np.dtype('int64')}

    def dtypes(self, *, device=None, kind=None):
        """The dtypes of ``kind`` (a kind's name or a tuple of them; every numeric and
        boolean dtype when None), by name."""
        del device
        kinds = ('numeric', 'bool') if kind is None else (kind,) if isinstance(kind, str) \
            else kind
        return {name: np.dtype(name) for k in kinds for name in _KINDS[k]}


def __array_namespace_info__():  # noqa: N807 (the standard's name)
    return ArrayNamespaceInfo()
