"""Calling an executable at least cost: a call is keyed by its arguments' types read straight
off the objects (``call_signature``; a pytree of them is flattened in C++ first,
``tree_call_key``), and runs a function made once for that key (``fast_call``) that
transfers, executes and wraps without avals or cache lookups. ``jit`` and ``Compiled`` record
one per key after a call of the full path has checked its arguments."""
from __future__ import annotations

import functools
import operator

import numpy as np

from minijax import core, dtypes, runtime, tree_util
from minijax.array import Array, from_device, release_host_views, scalar_buffer


class ArrayEntry:
    """An Array argument's entry in a call signature: its type (shape, dtype, weak type),
    one object per type, so that a signature hashes and compares by identity, in C. (A
    tuple of shapes and dtypes, hashed and compared again on every call, cost a tenth of
    a call of many arguments.)"""
    __slots__ = ('shape', 'dtype', 'weak_type')

    def __init__(self, shape, dtype, weak_type):
        self.shape, self.dtype, self.weak_type = shape, dtype, weak_type

    def __repr__(self):
        return f'ArrayEntry({self.shape}, {self.dtype}, weak_type={self.weak_type})'


_array_entries: dict[tuple, ArrayEntry] = {}


def _array_entry(aval) -> ArrayEntry:
    """The entry of an Array of type ``aval``, interned, and kept on the type for the next
    call (an executable's results share their types)."""
    key = (aval.shape, aval.dtype, aval.weak_type)
    entry = _array_entries.get(key)
    if entry is None:
        entry = _array_entries[key] = ArrayEntry(*key)
    aval._call_entry = entry
    return entry


def call_signature(args) -> tuple | None:
    """What decides the trace of a call whose arguments are all single arrays or scalars,
    read without flattening or building avals: an Array's ``ArrayEntry``, an ndarray's
    (shape, dtype), a scalar's type. None for anything else (pytrees, tracers), which takes
    the full path."""
    signature = []
    for x in args:
        kind = type(x)
        if kind is Array:
            if x._sharding is not None:  # over a mesh: the full path
                return None
            aval = x._aval  # (not the property: a Python call)
            try:
                signature.append(aval._call_entry)
            except AttributeError:
                signature.append(_array_entry(aval))
        elif kind is np.ndarray:
            signature.append((x.shape, x.dtype))
        elif kind is float or kind is bool or isinstance(x, np.generic):
            signature.append(kind)
        elif kind is int:
            dtypes.python_scalar(x)  # an int too large for int64 is an error here too
            signature.append(kind)
        else:
            return None
    return tuple(signature)


def tree_call_key(tree, static: tuple = ()) -> tuple:
    """(the fast path's key, the leaves' signature, the leaves) for a call whose traced
    arguments are the pytree ``tree``: flattened in C++ (Python's containers only), the key
    is the structure, ``static`` (the static arguments' values) and the signature. The key
    is None where a leaf is not an array or scalar (a tracer, a node only minijax's
    registry knows) or jaxlib does not flatten the tree."""
    flat = runtime.flatten_containers(tree)
    if flat is None:
        return None, None, ()
    leaves, structure = flat
    signature = call_signature(leaves)
    return (None if signature is None else (structure, static, signature)), signature, leaves


def call_error(err, leaves) -> Exception:
    """What a failed fast call raises: for an argument whose buffer was deleted or donated,
    jaxlib's message as a ValueError, as JAX's C++ fast path raises it (a call that traces
    raises ``Array has been deleted``, a RuntimeError, in both)."""
    if any(type(x) is Array and x.is_deleted() for x in leaves):
        return ValueError(str(err))
    return err


def _transfer(entry, donated: bool):
    """How an argument of one signature entry reaches the device: an Array hands over its
    buffer, a scalar its kept one (unless the program takes it: ``donated``), an ndarray
    is copied by the transfer made for its type."""
    if type(entry) is ArrayEntry:
        return _array_buffer
    if isinstance(entry, tuple):
        return runtime.host_to_device(*entry)
    if donated:
        return runtime.host_to_device((), np.dtype(dtypes.PYTHON_SCALARS[entry][0]
                                                   if entry in dtypes.PYTHON_SCALARS else entry))
    return scalar_buffer


_array_buffer = Array.buffer.fget


def same_objects(xs, ys) -> bool:
    """Whether two flattenings gave the same leaves in the same order."""
    return len(xs) == len(ys) and all(map(operator.is_, xs, ys))


def fast_call(exe, signature, out_avals, out_tree):
    """A call of ``exe`` for leaves of ``call_signature``: transfer, execute, wrap. What the
    full path does for these argument types, minus the work whose answer the signature
    fixes (flattening in Python, avals, the trace-cache lookup, how each argument is
    transferred)."""
    run = exe.runner(tuple(_transfer(entry, i in exe.donated)
                           for i, entry in enumerate(signature)), _outputs(out_avals, out_tree))
    if not exe.donated:
        return run
    donated = exe.donated

    def run_donating(values):  # (PJRT takes a buffer no view reads)
        release_host_views(values, donated)
        return run(values)
    return run_donating


def _outputs(out_avals, out_tree):
    """A function making the call's output from the result buffers."""
    wrap = from_device if core.abstract_token in out_avals else Array  # (tokens are rare)
    if tree_util.treedef_is_leaf(out_tree) and out_tree.num_leaves == 1:  # not None or ()
        aval, = out_avals
        return lambda buffers: wrap(buffers[0], aval)
    unflatten = _output_unflatten(out_tree)
    return lambda buffers: unflatten([wrap(b, a) for b, a in zip(buffers, out_avals)])


def _output_unflatten(out_tree):
    """A function building the output pytree from its leaves: in C++ where the tree is
    made of Python's containers (checked by flattening a tree of placeholders back)."""
    placeholders = [object() for _ in range(out_tree.num_leaves)]
    flat = runtime.flatten_containers(tree_util.tree_unflatten(out_tree, placeholders))
    if flat is not None and same_objects(flat[0], placeholders):
        return flat[1].unflatten
    return functools.partial(tree_util.tree_unflatten, out_tree)
