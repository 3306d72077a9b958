"""The API boundary of ``minijax.numpy``: what wraps each public function.

Eagerly, a function returns Arrays, as ``jax.numpy``'s do: the primitives' eager
implementations compute NumPy values, and the boundary wraps the result of each API call (not
each primitive), for free: no copy, no transfer until a compiled program needs the value on
the device. A list or tuple where one array is expected is refused, as JAX refuses it. And the
functions that JAX wraps in a ``jit`` are ``jit``s here too.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import types

import numpy as np

from minijax import core
from minijax.array import Array, eager_result
from minijax.core import Tracer


def _as_array_result(out, args):
    """An eager result as an Array, as the primitives' own results are
    (``minijax.array.eager_result``): here for a function that returned a NumPy value
    without binding a primitive (an argument returned as it is, a constant)."""
    if isinstance(out, list):
        return [_as_array_result(o, args) for o in out]
    if (isinstance(out, np.ndarray) and core.dynamic_trace is not None
            and builtins.any(out is a for a in args)):
        # traced, an argument returned as it is stays the same constant of the jaxpr, so
        # branches closing over one NumPy array share one operand, as in JAX
        return core.staged_constant(out)
    return eager_result(out, None, args)


#: The parameters that take one array: JAX refuses a list or tuple there (a NumPy
#: habit that would hide a conversion), naming the function and the argument's position
#: among them. Functions that read nested sequences or only look at them are exempt.
_ARRAY_PARAMETERS = {'x', 'y', 'x1', 'x2', 'a', 'b', 'm', 'arr', 'ary', 'ar', 'v', 'p', 'xp',
                     'fp', 'q', 'condition', 'element', 'test_elements', 'indices', 'A',
                     'weights', 'fill_value', 'repeats', 'bins', 'a1', 'a2', 'w', 'f',
                     'seq_of_zeros'}
_TAKES_SEQUENCES = {'asarray', 'shape', 'ndim', 'size', 'isscalar', 'iscomplexobj',
                    'promote_types', 'array_equal', 'histogram2d', 'histogramdd'}


def _array_parameters(fn):
    """``(position, name)`` of each array parameter of ``fn``, in its signature's order."""
    if fn.__name__ in _TAKES_SEQUENCES:
        return ()
    parameters = inspect.signature(fn).parameters.values()
    return tuple((k, p.name) for k, p in enumerate(parameters)
                 if p.name in _ARRAY_PARAMETERS and p.kind is not p.KEYWORD_ONLY)


def _not_arraylike(name, position, value) -> TypeError:
    return TypeError(f'{name} requires ndarray or scalar arguments, got {type(value)} at '
                     f'position {position}.')


def returns_arrays(fn):
    parameters = _array_parameters(fn)

    @functools.wraps(fn)
    def api_function(*args, **kwargs):
        for position, (k, parameter) in enumerate(parameters):  # (inline: on every call)
            value = args[k] if k < len(args) else kwargs.get(parameter)
            if isinstance(value, (list, tuple)):
                raise _not_arraylike(fn.__name__, position, value)
        out = fn(*args, **kwargs)
        return out if isinstance(out, _FINISHED) else _as_array_result(out, args)
    return api_function


#: Results the boundary passes on as they are (``_as_array_result`` would): a primitive's
#: result, already an Array or a tracer, and tuples (shapes, and the tuples of functions
#: that return several results, made of such results).
_FINISHED = (Tracer, Array, tuple)


#: The functions that ``jax.numpy`` (0.10.2) wraps in a ``jit`` of their own name, with the
#: parameters that ``jit`` takes as static (those of the minijax function's signature
#: count). Traced, each binds ``xla_call``, so jaxprs print JAX's ``jit[name=...]`` and
#: lowered modules JAX's private functions; eagerly, each is compiled, as in JAX. Names with
#: an underscore are the helpers that JAX's public function calls (``where`` -> ``_where``).
_STAGED_AS_JIT = {
    **dict.fromkeys(['_where', 'arccosh', 'atleast_1d', 'atleast_2d', 'atleast_3d',
                     'bitwise_count', 'block',
                     'clip', 'copysign', 'divmod', 'ediff1d', 'floor_divide', 'fmax', 'fmin',
                     'fmod', 'heaviside', 'hypot', 'iscomplex', 'isinf', 'isreal', 'kron',
                     'ldexp', 'nan_to_num', 'remainder', 'rint', 'signbit', 'sinc',
                     'trunc'], ()),
    '_flip': ('axis',), 'allclose': ('equal_nan',), 'isclose': ('equal_nan',),
    'angle': ('deg',), 'round': ('decimals',), 'around': ('decimals',), 'tril': ('k',),
    'triu': ('k',),
    'sort': ('axis', 'kind', 'order', 'stable', 'descending'),
    'argsort': ('axis', 'kind', 'order', 'stable', 'descending', 'dtype'),
    'convolve': ('mode', 'precision', 'preferred_element_type'),
    'correlate': ('mode', 'precision', 'preferred_element_type'),
    'corrcoef': ('rowvar', 'dtype'), 'cov': ('rowvar', 'bias', 'ddof', 'dtype'),
    'count_nonzero': ('axis', 'keepdims'), 'cross': ('axisa', 'axisb', 'axisc', 'axis'),
    'cumsum': ('axis', 'dtype'), 'cumprod': ('axis', 'dtype'), 'diff': ('n', 'axis'),
    'diagonal': ('offset', 'axis1', 'axis2'),
    'trace': ('offset', 'axis1', 'axis2', 'dtype'),  # JAX traces offset; minijax slices by it
    'lexsort': ('axis',), 'rot90': ('k', 'axes'), 'trapezoid': ('axis',),
    'searchsorted': ('side', 'method'), 'digitize': ('right', 'method'),
    'gradient': ('axis', 'edge_order'), **dict.fromkeys(['poly', 'polyadd', 'polysub'], ()),
    'polyval': ('unroll',), 'polyder': ('m',), 'polyint': ('m',), 'vander': ('N', 'increasing'),
    'polyfit': ('deg', 'rcond', 'full', 'cov'),
    **dict.fromkeys(['gcd', 'lcm', 'frexp', 'modf', 'i0', 'sort_complex', 'matvec', 'vecmat'],
                    ()),
    'unwrap': ('axis',), 'packbits': ('axis', 'bitorder'),
    'unpackbits': ('axis', 'count', 'bitorder'), 'append': ('axis',),
    'put_along_axis': ('axis', 'inplace', 'mode'), 'resize': ('new_shape',),
    'rollaxis': ('axis', 'start'),
    'nanmax': ('axis', 'keepdims'), 'nanmin': ('axis', 'keepdims'),
    'nanmean': ('axis', 'dtype', 'keepdims'), 'nanvar': ('axis', 'dtype', 'keepdims'),
    'nanstd': ('axis', 'dtype', 'keepdims'),
    'median': ('axis', 'overwrite_input', 'keepdims'),
    'nanmedian': ('axis', 'overwrite_input', 'keepdims'),
    **dict.fromkeys(['quantile', 'nanquantile', 'nanpercentile'],
                    ('axis', 'overwrite_input', 'keepdims', 'method')),
    'percentile': ('axis', 'overwrite_input', 'keepdims', 'method', 'out_sharding'),
    **dict.fromkeys(['_var', '_std'], ('axis', 'dtype', 'keepdims')),
    '_linspace': ('num', 'endpoint', 'retstep', 'dtype', 'axis'),
    **dict.fromkeys(['_logspace', '_geomspace'], ('num', 'endpoint', 'dtype', 'axis')),
    '_in1d': ('invert',), '_piecewise': ('funcs',), '_setxor1d_size': ('assume_unique', 'size'),
    '_intersect1d_size': ('fill_value', 'assume_unique', 'size', 'return_indices'),
    '_norm': ('ord', 'axis', 'keepdims'),  # (named norm, as JAX's jit)
    **dict.fromkeys(['nansum', 'nanprod'], ('axis', 'dtype', 'keepdims')),
    **dict.fromkeys(['nancumsum', 'nancumprod', '_cumsum_with_promotion'], ('axis', 'dtype')),
    '_ptp': ('axis', 'keepdims'), '_diag': ('k',),
    **dict.fromkeys(['_nanargmax', '_nanargmin'], ('axis', 'keepdims')),
    '_take': ('axis', 'mode', 'unique_indices', 'indices_are_sorted', 'fill_value'),
    '_roll_static': ('shift', 'axis'), '_roll_dynamic': ('axis',), '_pad': ('pad_width',),
}


def _staged_as_jit(fn, static_argnames):
    """``fn`` as a ``jit`` named after it, as JAX stages it: traced, it binds ``xla_call``;
    called eagerly (under an eager ``grad`` or ``vmap`` too) it is compiled once per
    argument types, so that its results are JAX's to the last bit: op by op they can
    differ where XLA rewrites the compiled program (``round``'s ``x * 10**d / 10**d``)."""
    from minijax.jit import jit  # the api layer, above this module
    parameters = inspect.signature(fn).parameters.values()
    static = tuple(p.name for p in parameters if p.name in static_argnames)
    positions = tuple(k for k, p in enumerate(parameters)
                      if p.name in static and p.kind in _POSITIONAL)
    return functools.wraps(fn)(jit(fn, static_argnums=positions, static_argnames=static))


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

#: Functions that ``jax.numpy`` wraps in ``jit(inline=True)`` (``inlined_jit``): called eagerly
#: they are compiled, traced they are inlined. Those whose compiled program XLA rounds
#: differently from their ops one by one (``logaddexp2``'s ``max + log1p(...) / ln 2`` becomes
#: a fused multiply-add, ``mean``'s division by the count a product with its reciprocal), and
#: those with Python work around their ops. With the parameters that the ``jit`` takes as
#: static, as in ``_STAGED_AS_JIT``; the reductions' private jits are made where they are
#: (``minijax.numpy._reductions``).
_INLINED_JIT = {
    **dict.fromkeys(['logaddexp', 'logaddexp2', 'nextafter', 'spacing'], ()),
    '_mean': ('axis', 'dtype', 'keepdims', 'upcast_f16_for_computation'),
    **dict.fromkeys(['dot', 'matmul'], ('precision', 'preferred_element_type', 'out_sharding')),
    **dict.fromkeys(['vdot', 'inner'], ('precision', 'preferred_element_type')),
    'outer': (), '_average': ('axis', 'returned', 'keepdims'),
    'ravel': ('order', 'out_sharding'), 'swapaxes': ('axis1', 'axis2'),
    '_moveaxis': ('source', 'destination'),
}


def inlined_jit(fn, static_argnames=()):
    """``fn`` compiled when called eagerly (under an eager ``grad`` or ``vmap`` too, as
    ``jit``); its ops themselves when staged into a jaxpr (no ``xla_call``, as JAX's inline
    ``jit`` stages none). JAX's ``jit(inline=True)``: an eager call of a ``jnp`` function
    with Python work around its ops (``matmul`` sorting axes, ``sum`` casting) is then
    one cached executable's call, that work done once per argument types."""
    jitted = _staged_as_jit(fn, static_argnames)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if core.dynamic_trace is None:
            return jitted(*args, **kwargs)
        return fn(*args, **kwargs)
    return call


def install_api_boundary(namespace, module: str):
    """Put the boundary on every function of ``namespace`` (a module or class) defined in
    ``module`` (by name): each public one returns Arrays when it runs eagerly, those of
    ``_STAGED_AS_JIT`` are ``jit``s and those of ``_INLINED_JIT`` inline ``jit``s."""
    for name, value in list(vars(namespace).items()):
        if not (isinstance(value, types.FunctionType) and value.__module__ == module):
            continue
        staged = name if name in _STAGED_AS_JIT or name in _INLINED_JIT else value.__name__
        if staged in _STAGED_AS_JIT:  # (an alias, mod = remainder, is its function's jit)
            value = _staged_as_jit(value, _STAGED_AS_JIT[staged])
        elif staged in _INLINED_JIT:
            value = inlined_jit(value, _INLINED_JIT[staged])
        if not name.startswith('_'):
            value = returns_arrays(value)
        setattr(namespace, name, value)
