"""Static parameters of the lax functions (sizes, bounds, strides, dimensions, permutations):
Python ints, converted where the function is called. A float such as 1.5 is JAX's TypeError
naming the function and the argument, never truncated to 1 as ``int(1.5)`` would, silently.
"""
from __future__ import annotations

import operator

import numpy as np

from minijax import core


def static_int(value, fn, what, integral_floats=False) -> int:
    """``value`` as a Python int (``integral_floats``: 2.0 too, as JAX's convolution takes
    it), or a TypeError naming ``fn`` and ``what``."""
    if integral_floats and isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f'{fn}: {what} must be an integer, got {value!r} of type '
                        f'{type(value).__name__}') from None


def static_ints_as_given(values, fn, what) -> tuple:
    """``static_ints``, keeping NumPy ints as they are: where JAX binds such a parameter
    unconverted, its jaxpr prints them so (``np.int64(1)``)."""
    ints = static_ints(values, fn, what)
    return tuple(v if isinstance(v, np.integer) else i for v, i in zip(values, ints))


def canonical_axes(axes, ndim, what, error=ValueError) -> tuple[int, ...]:
    """``core.canonicalize_axes`` raising ``error`` (JAX's class for the calling function:
    ``concatenate`` and ``rev`` raise TypeError) for an axis out of range or repeated."""
    try:
        return core.canonicalize_axes(axes, ndim, what)
    except ValueError as err:
        raise error(str(err)) from None


def static_ints(values, fn, what, integral_floats=False) -> tuple[int, ...]:
    """``values`` (a sequence) as a tuple of Python ints, or a TypeError naming ``fn`` and
    ``what``."""
    try:
        return tuple(static_int(v, fn, what, integral_floats) for v in values)
    except TypeError:
        raise TypeError(f'{fn}: {what} must be a sequence of integers, got {values!r}') from None


#: Why minijax takes only the default of a JAX option, by option.
_DEFAULT_ONLY = {
    'out_sharding': 'minijax places each value on one device (pmap spreads over devices)',
    'sharding': 'minijax places each value on one device (pmap spreads over devices)',
    'axis_index_groups': 'minijax reduces over the whole mapped axis',
    'out_dtype': 'minijax multiplies in the operands\' dtype (convert them first)',
}


def default_options_only(fn, **options) -> None:
    """Refuse a JAX option given other than its default (None): JAX's parameter is there so
    that a JAX program calling with it runs, and says what minijax lacks if it asks for more."""
    for name, value in options.items():
        if value is not None:
            raise NotImplementedError(f'{fn}: {name}={value!r} is not supported: '
                                      f'{_DEFAULT_ONLY[name]}')
