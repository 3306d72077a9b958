"""``jnp.ufunc``: NumPy's universal functions as JAX has them, objects with ``outer``,
``reduce``, ``accumulate``, ``at`` and ``reduceat``; ``jnp.add``, ``jnp.maximum`` and the other
binary ones JAX makes ufuncs are these objects (each method the reduction JAX names, or a
loop over the axis, as JAX's generic fallback). ``frompyfunc`` makes one from a Python
function, and ``vectorize`` (NumPy's generalized signatures) maps a function with ``vmap``.
"""
from __future__ import annotations

import functools
import math
import operator
import re

import numpy as np

from minijax import core, lax
from minijax.control_flow import fori_loop, scan
from minijax.interpreters.batching import vmap
from minijax.ir.tracing import eval_shape
from minijax.numpy import (_axes, _no_out, asarray, broadcast_shapes, broadcast_to, full,
                           moveaxis, ravel, reshape, take, where)

__all__ = ['frompyfunc', 'ufunc', 'vectorize']


class ufunc:  # noqa: N801 (JAX's name)
    """A function of ``nin`` arrays, elementwise and broadcast, with NumPy's ufunc methods.
    ``call``, ``reduce``, ``accumulate``, ``at`` and ``reduceat`` replace the generic ways
    (``vectorize``d ``func``, loops over the axis) where a primitive does the job."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._func = func
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs, self.identity = operator.index(nargs or nin), identity
        self._call, self._reduce, self._accumulate = call, reduce, accumulate
        self._at, self._reduceat = at, reduceat

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __hash__(self):
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout))

    def __eq__(self, other):
        return isinstance(other, ufunc) and (
            (self._func, self.__name__, self.identity, self.nin, self.nout) ==
            (other._func, other.__name__, other.identity, other.nin, other.nout))

    def __call__(self, *args, out=None, where=None):
        if out is not None:
            raise NotImplementedError(f'out argument of {self}')
        if where is not None:
            raise NotImplementedError(f'where argument of {self}')
        return (self._call or vectorize(self._func))(*args)

    def _binary(self, method):
        if self.nin != 2:
            raise ValueError(f'{method} only supported for binary ufuncs')
        if self.nout != 1:
            raise ValueError(f'{method} only supported for functions returning a single value')

    def _dtype(self, a, dtype):
        """The dtype of ``func`` on two elements of ``a`` (JAX's default for the methods)."""
        if dtype is not None:
            return np.dtype(dtype)
        one = core.ShapeDtypeStruct((), core.get_aval(a).dtype)
        return np.dtype(eval_shape(self._func, one, one).dtype)

    def outer(self, A, B, /):  # noqa: N803 (JAX's names)
        """``func(A[i...], B[j...])`` for every pair, the axes of ``A`` first."""
        self._binary('outer')
        A, B = asarray(A), asarray(B)
        out = vmap(vmap(self, (None, 0)), (0, None))(ravel(A), ravel(B))
        return reshape(out, (*np.shape(A), *np.shape(B)))

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """``func`` folded along ``axis`` (all axes if None), from ``initial`` or the first
        element; with ``where``, only over the selected elements."""
        self._binary('reduce')
        _no_out(f'{self.__name__}.reduce', out)
        if where is not None:
            if self.identity is None and initial is None:
                raise ValueError(f'reduction operation {self.__name__!r} does not have an '
                                 "identity, so to use a where mask one has to specify 'initial'.")
            if core.get_aval(where).dtype != np.bool_:
                raise ValueError(f'where argument must have dtype=bool; got '
                                 f'dtype={core.get_aval(where).dtype}')
        reduce = self._reduce or self._reduce_by_loop
        return reduce(asarray(a), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                      where=where)

    def _reduce_by_loop(self, a, axis, dtype, keepdims, initial, where):
        dtype = self._dtype(a, dtype)
        initial = self.identity if initial is None else initial
        if isinstance(axis, tuple):
            raise NotImplementedError('tuple of axes')
        if where is not None:
            where = broadcast_to(where, np.shape(a))
        if axis is None:
            final = (1,) * np.ndim(a) if keepdims else ()
            a, where, axis = ravel(a), None if where is None else ravel(where), 0
        else:
            axis = _axes(f'{self.__name__}.reduce', a, axis)[0]
            shape_ = list(np.shape(a))
            final = tuple(shape_[:axis] + [1] * keepdims + shape_[axis + 1:])
            a = moveaxis(a, axis, 0)
            where = None if where is None else moveaxis(where, axis, 0)
        if np.shape(a)[0] == 0:
            if initial is None:
                raise ValueError(f'zero-size array to reduction operation {self.__name__} '
                                 'which has no identity')
            return full(final, initial, dtype)

        def body(i, acc):
            step = self(acc, a[i].astype(dtype))
            return step if where is None else where(where[i], step, acc)
        start, first = (1, a[0]) if initial is None else (0, initial)
        first = broadcast_to(asarray(first).astype(dtype), np.shape(a)[1:])
        return reshape(fori_loop(start, np.shape(a)[0], body, first), final)

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running ``reduce`` along ``axis``."""
        self._binary('accumulate')
        _no_out(f'{self.__name__}.accumulate', out)
        if axis is None or isinstance(axis, tuple):
            raise ValueError('accumulate does not allow multiple axes')
        accumulate = self._accumulate or self._accumulate_by_scan
        return accumulate(asarray(a), axis=axis, dtype=dtype)

    def _accumulate_by_scan(self, a, axis, dtype):
        dtype = self._dtype(a, dtype)
        axis = _axes(f'{self.__name__}.accumulate', a, axis)[0]
        if np.size(a) == 0:
            return full(np.shape(a), 0, dtype)
        a = moveaxis(a, axis, 0).astype(dtype)

        def step(acc, x):
            acc = self(acc, x)
            return acc, acc
        _, rest = scan(step, a[0], a[1:])
        return moveaxis(lax.concatenate([a[:1], rest], 0), 0, axis)

    def at(self, a, indices, b=None, /, *, inplace=True):
        """``a`` with ``func(a[indices], b)`` at ``indices`` (repeated indices applied in
        turn); JAX's arrays are immutable, so ``inplace=False`` is required."""
        if inplace:
            raise NotImplementedError(
                'Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n'
                'np.ufunc.at(). Instead, you can pass inplace=False and capture the result; '
                'e.g.\n>>> arr = jnp.add.at(arr, ind, val, inplace=False)\n')
        args = () if b is None else (b,)
        return (self._at or self._at_by_scan)(asarray(a), indices, *args)

    def _at_by_scan(self, a, indices, *args):
        one = core.ShapeDtypeStruct((), core.get_aval(a).dtype)
        dtype = eval_shape(self._func, one, *(core.ShapeDtypeStruct(
            np.shape(x), core.get_aval(asarray(x)).dtype) for x in args)).dtype
        a, args = a.astype(dtype), [asarray(x).astype(dtype) for x in args]
        indices = indices if isinstance(indices, tuple) else (indices,)
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape_ = shapes and broadcast_shapes(*shapes)
        if not shape_:
            return a.at[indices].set(self(a[indices], *args))
        count = math.prod(shape_)
        args = [reshape(broadcast_to(x, (*shape_, *np.shape(x)[len(shape_):])),
                        (count, *np.shape(x)[len(shape_):])) for x in args]
        indices = [i if isinstance(i, slice) else ravel(broadcast_to(i, shape_))
                   for i in indices]

        def body(k, a):
            idx = tuple(i if isinstance(i, slice) else i[k] for i in indices)
            return a.at[idx].set(self(a[idx], *(x[k] for x in args)))
        return fori_loop(0, count, body, a)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """``reduce`` over each slice ``indices[i]:indices[i + 1]`` along ``axis``."""
        self._binary('reduceat')
        _no_out(f'{self.__name__}.reduceat', out)
        a, indices = asarray(a), asarray(indices)
        if np.ndim(a) == 0:
            raise ValueError(f'reduceat: a must have 1 or more dimension, got a.shape={()}')
        if np.ndim(indices) != 1:
            raise ValueError('reduceat: indices must be one-dimensional, got indices.shape='
                             f'{np.shape(indices)}')
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError('reduceat requires a single integer axis.')
        axis = _axes('reduceat', a, axis)[0]
        out = take(a, indices, axis=axis)
        others = [k for k in range(np.ndim(out)) if k != axis]
        bounds = lax.expand_dims(lax.concatenate(
            [indices, asarray([np.shape(a)[axis]], core.get_aval(indices).dtype)], 0), others)
        n = np.shape(bounds)[axis]
        start = lax.slice_in_dim(bounds, 0, n - 1, axis=axis)
        end = lax.slice_in_dim(bounds, 1, n, axis=axis)

        def body(i, out):
            inside = (i > start) & (i < end)
            return where(inside, self(out, take(a, lax.expand_dims(i, (0,)), axis=axis)),
                             out)
        return fori_loop(0, np.shape(a)[axis], body, out)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """``func`` (of scalars) as a ``ufunc``: called elementwise through ``vectorize``."""
    return ufunc(func, nin, nout, identity=identity)


def _reduction(fn, combine=None):
    """A ``ufunc.reduce`` from a ``jnp`` reduction (``sum`` for ``add``...); ``combine``
    folds ``initial`` in where the reduction takes none (``all``, ``any``)."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        if combine is None:
            out = fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
        else:
            out = fn(a, axis=axis, keepdims=keepdims, where=where)
            out = out if initial is None else combine(out, initial)
        return out if dtype is None else out.astype(dtype)
    return reduce


def _accumulation(fn):
    """A ``ufunc.accumulate`` from a ``jnp`` cumulative function."""
    return lambda a, *, axis, dtype: fn(a, axis=axis, dtype=dtype)


def _scatter(method):
    """A ``ufunc.at`` from an ``x.at[i]`` update (``add`` for ``jnp.add``)."""
    return lambda a, indices, *args: getattr(a.at[indices], method)(*args)


def jnp_ufuncs(jnp):
    """The functions JAX makes ufuncs (its binary ones, and ``negative``) as ufuncs of
    ``jnp``'s functions, with JAX's identities and the reductions, cumulative functions and
    scatters it names for each."""
    table = {
        'add': (0, _reduction(jnp.sum), _accumulation(jnp.cumsum), _scatter('add')),
        'multiply': (1, _reduction(jnp.prod), _accumulation(jnp.cumprod),
                     _scatter('multiply')),
        'subtract': (None, None, None, _scatter('subtract')),
        'maximum': (None, _reduction(jnp.max), None, None),
        'minimum': (None, _reduction(jnp.min), None, None),
        'logical_and': (True, _reduction(jnp.all, jnp.logical_and), None, None),
        'logical_or': (False, _reduction(jnp.any, jnp.logical_or), None, None),
        'logical_xor': (False, None, None, None),
        'bitwise_and': (-1, None, None, None),
        'bitwise_or': (0, None, None, None),
        'bitwise_xor': (0, None, None, None),
        'logaddexp': (-np.inf, None, None, None),
        'logaddexp2': (-np.inf, None, None, None),
    }
    out = {}
    for name, (identity, reduce, accumulate, at) in table.items():
        fn = getattr(jnp, name)
        out[name] = ufunc(fn, 2, 1, name=name, identity=identity, call=fn, reduce=reduce,
                          accumulate=accumulate, at=at)
    out['negative'] = ufunc(jnp.negative, 1, 1, name='negative', call=jnp.negative)
    return out


# ----------------------------------------------------------------------------- vectorize

_DIM = r'\w+'
_ARGUMENT = fr'\((?:{_DIM}(?:,{_DIM})*)?\)'
_SIGNATURE = fr'^{_ARGUMENT}(?:,{_ARGUMENT})*->{_ARGUMENT}(?:,{_ARGUMENT})*$'


def _parse_signature(signature):
    """NumPy's generalized-ufunc signature ``'(m,n),(n)->(m)'`` as the core dimension
    names of each input and of each output."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f'not a valid gufunc signature: {signature}')
    return ([tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARGUMENT, part)]
            for part in signature.split('->'))


def _update_sizes(sizes, shape_, dims, context, *, is_input):
    """Record (and check) the sizes of the core dimensions ``dims`` of an operand (the
    last axes of an input; all of an output)."""
    if is_input and len(shape_) < len(dims):
        raise ValueError(f'input with shape {shape_!r} does not have enough dimensions for all '
                         f'core dimensions {dims!r} {context}')
    if not is_input and len(shape_) != len(dims):
        raise ValueError(f'output shape {shape_!r} does not match core dimensions {dims!r} '
                         f'{context}')
    for dim, size in zip(dims, shape_[len(shape_) - len(dims):]):
        if sizes.setdefault(dim, size) != size:
            raise ValueError(f'inconsistent size for core dimension {dim!r}: {size!r} vs '
                             f'{sizes[dim]!r} {context}')


def _without_excluded(fn, excluded, args, kwargs):
    """``fn`` with the ``excluded`` arguments (positions or names) bound as they are, and
    the arguments left to map."""
    if not excluded:
        return fn, list(args), kwargs
    static = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
              if i < len(args)]
    static_kwargs = {k: v for k, v in kwargs.items() if k in excluded}

    def bound(*args, **kwargs):
        args = list(args)
        for i, arg in static:
            args.insert(i, arg)
        return fn(*args, **kwargs, **static_kwargs)
    return (bound, [a for i, a in enumerate(args) if i not in excluded],
            {k: v for k, v in kwargs.items() if k not in excluded})


def _checked_outputs(fn, sizes, out_dims, context):
    def checked(*args):
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(out_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(f'output must be a tuple when multiple outputs are expected, got: '
                            f'{out!r}\n{context}')
        if len(outs) != len(out_dims):
            raise TypeError(f'wrong number of output arguments: expected {len(out_dims)}, got '
                            f'{len(outs)} {context}')
        sizes_ = dict(sizes)
        for o, dims in zip(outs, out_dims):
            _update_sizes(sizes_, np.shape(o), dims, context, is_input=False)
        return out
    return checked


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """``pyfunc`` (of scalars, or of the core dimensions of ``signature``) mapped with
    ``vmap`` over the broadcast leading axes of its positional arguments, one axis at a
    time (an axis where every operand has size 1 is added back after). Arguments named in
    ``excluded`` (positions or keywords) are passed as they are; as in JAX, other keyword
    arguments are not passed on."""
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(f'jax.numpy.vectorize can only exclude integer or string arguments, '
                        f'but excluded={excluded!r}')
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f'excluded={excluded!r} contains negative numbers')

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f'on vectorized function with excluded={excluded!r} and signature={signature!r}'
        fn, args, _ = _without_excluded(pyfunc, excluded, args, kwargs)
        if signature is None:
            in_dims, out_dims = [()] * len(args), None
        else:
            in_dims, out_dims = _parse_signature(signature)
        nones = {i for i, a in enumerate(args) if a is None}
        if nones:
            if any(in_dims[i] != () for i in nones):
                raise ValueError(f'Cannot pass None at locations {nones} with '
                                 f'signature={signature!r}')
            fn, args, _ = _without_excluded(fn, nones, args, {})
            in_dims = [d for i, d in enumerate(in_dims) if i not in nones]
        args = [asarray(a) for a in args]
        if len(args) != len(in_dims):
            raise TypeError(f'wrong number of positional arguments: expected {len(in_dims)}, '
                            f'got {len(args)} {context}')
        sizes = {}
        for a, dims in zip(args, in_dims):
            _update_sizes(sizes, np.shape(a), dims, context, is_input=True)
        loops = [np.shape(a)[:np.ndim(a) - len(d)] for a, d in zip(args, in_dims)]
        loop = broadcast_shapes(*loops)
        fn = fn if out_dims is None else _checked_outputs(fn, sizes, out_dims, context)
        squeezed, reversed_shapes = [], []
        for a, shape_ in zip(args, loops):
            reversed_shapes.append(((1,) * (len(loop) - len(shape_)) + shape_)[::-1])
            squeezed.append(lax.squeeze(a, [i for i, n in enumerate(shape_) if n == 1]))
        expand = []
        for negative_axis, axis_sizes in enumerate(zip(*reversed_shapes)):
            in_axes = tuple(None if n == 1 else 0 for n in axis_sizes)
            if all(a is None for a in in_axes):
                expand.append(len(loop) - 1 - negative_axis)
            else:
                fn = vmap(fn, in_axes)
        out = fn(*squeezed)
        if not expand:
            return out
        if isinstance(out, tuple):
            return tuple(lax.expand_dims(asarray(o), expand) for o in out)
        return lax.expand_dims(asarray(out), expand)
    return wrapped
