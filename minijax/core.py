"""The core of minijax: abstract values, primitives and the interpreter stack.

Every operation a traced program performs is a ``Primitive`` applied with ``bind``. ``bind``
asks the interpreter stack which transformation owns the call (the *top trace*), boxes the
arguments into that trace's tracers and lets the trace interpret the primitive. A trace at
level 0 (``EvalTrace``) runs the primitive's implementation on concrete values.
"""
from __future__ import annotations

import functools
import gc
import math
import operator
import sysconfig
import threading
from contextlib import contextmanager
from typing import Any, Callable, NamedTuple

import numpy as np
from jaxlib.xla_client import Traceback

from minijax import dtypes
from minijax.sharding import mesh as _mesh, types as _types
from minijax.errors import (ConcretizationTypeError, TracerArrayConversionError,  # noqa: F401
                            TracerBoolConversionError, TracerIntegerConversionError,
                            UnexpectedTracerError)


# ----------------------------------------------------------------------------- abstract values

class ShapedArray:
    """The type of an array: shape and dtype (and whether it is a weakly typed scalar), and
    under a mesh its sharding (JAX's sharding in types: ``f32[8@X,4]``).

    An unsharded type stores no sharding (``_sharding`` is None) and reads as the empty
    mesh's; only a type with a mesh pays for one (see ``minijax.sharding.types``).

    ``_call_entry``, unset until a jitted call first reads it, is the type's entry in call
    signatures (``fast_calls.call_signature``): one object for all equal types."""
    array_abstraction_level = 1
    __slots__ = ('shape', 'dtype', 'weak_type', '_sharding', '_call_entry')

    def __init__(self, shape, dtype, weak_type=False, sharding=None):
        self.shape = tuple(map(int, shape))
        self.dtype = dtype if isinstance(dtype, np.dtype) or dtypes.is_key(dtype) else \
            np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._sharding = None if sharding is None else _type_sharding(sharding, self.shape)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    @property
    def sharding(self):
        """A ``NamedSharding`` over an ``AbstractMesh`` (the empty mesh's when unsharded)."""
        s = self._sharding
        return _types.unsharded(len(self.shape)) if s is None else s

    def str_short(self, short_dtypes=False):
        """``float32[8@X,4]{U:Y}``: the dtype, each dimension with the mesh axes it is
        sharded over, and the axes it is unreduced over (``short_dtypes``: ``f32``)."""
        name = short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        if self._sharding is None:
            return f'{name}[{",".join(str(d) for d in self.shape)}]'
        return name + _types.type_text(self.shape, self._sharding.spec, self._sharding.mesh)

    def update(self, shape=None, dtype=None, weak_type=None, sharding=None):
        """A type like this one; the sharding is kept where the rank is (a type of another
        rank, say a reduction's scalar, is unsharded unless ``sharding`` says)."""
        if sharding is None and (shape is None or len(shape) == len(self.shape)):
            sharding = self._sharding
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type, sharding)

    def __hash__(self):  # (a ConcreteArray's value is left out: equal ones still hash equal)
        return hash((self.shape, self.dtype, self.weak_type, self._sharding))

    def __eq__(self, other):
        return (type(self) is type(other) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self._sharding == other._sharding)

    def __repr__(self):
        weak = ', weak_type=True' if self.weak_type else ''
        return f'ShapedArray({self.str_short()}{weak})'

    def __str__(self):
        """As JAX prints a type: ``float64[3]``, with ``~`` marking a weak type."""
        return f'{"~" if self.weak_type else ""}{self.str_short()}'

    @staticmethod
    def _bool(tracer):
        raise TracerBoolConversionError(tracer)

    _nonzero = _bool

    @staticmethod
    def _concrete(tracer, conversion):
        if conversion is operator.index:
            raise TracerIntegerConversionError(tracer)
        raise ConcretizationTypeError(tracer, conversion)


def short_dtype_name(dtype) -> str:
    """``f32``, ``i8``, ``u32``, ``c64``, ``bool``: a dtype as JAX prints it in a jaxpr."""
    return (dtype.name.replace('float', 'f').replace('uint', 'u').replace('int', 'i')
            .replace('complex', 'c'))


_type_sharding = _types.type_sharding


class ShardingTypeError(Exception):
    """An operation whose result's sharding the operands' types do not decide, or decide
    illegally (``jax._src.core.ShardingTypeError``): say it with ``out_sharding=``,
    ``reshard`` or ``auto_axes``."""


def sharding_in_types() -> bool:
    """Whether results need shardings: some type has had one, or a mesh is in context.
    Until then (every ordinary program) the sharding rules are not even looked up."""
    return _types.seen or mesh_in_context()


def mesh_in_context() -> bool:
    """Whether a mesh is in context (``set_mesh``, ``use_abstract_mesh``)."""
    return _mesh._context.abstract_mesh is not _mesh.EMPTY_ABSTRACT_MESH


def shard_results(primitive, in_avals, out_avals, params) -> list:
    """``out_avals`` (a list) with their shardings (``minijax.sharding.rules``)."""
    from minijax.sharding.rules import shard_results
    return shard_results(primitive, in_avals, out_avals, params)


def shared_aval(shape, dtype, weak_type, *operands) -> ShapedArray:
    """The type (``shape``, ``dtype``, ``weak_type``): the first of the ``operands``' types
    that is exactly it, else a new one. Types are never mutated, so an elementwise equation
    may share its operand's: a traced chain of them then holds one type object, not one
    per equation (fewer objects to allocate, and for the garbage collector to walk)."""
    for aval in operands:
        if (type(aval) is ShapedArray and aval.shape == shape and aval.dtype == dtype
                and aval.weak_type == weak_type and aval._sharding is None):
            return aval
    return ShapedArray(shape, dtype, weak_type)


class ConcreteArray(ShapedArray):
    """A ShapedArray that also knows its value, so Python control flow on it still works."""
    array_abstraction_level = 0
    __slots__ = ('val',)

    def __init__(self, val, weak_type=False, sharding=None):
        super().__init__(np.shape(val), val.dtype, weak_type, sharding)
        self.val = val

    def __eq__(self, other):
        return super().__eq__(other) and \
            np.asarray(self.val).tobytes() == np.asarray(other.val).tobytes()

    __hash__ = ShapedArray.__hash__

    def __repr__(self):
        return f'ConcreteArray({np.asarray(self.val)!r})'

    @staticmethod
    def _bool(tracer):
        return bool(np.asarray(tracer.aval.val))

    _nonzero = _bool

    @staticmethod
    def _concrete(tracer, conversion):
        return conversion(np.asarray(tracer.aval.val))


class AbstractToken:
    """The type of a token (``lax.create_token``), printed ``Tok`` as JAX prints it: a value
    with no data, which orders side effects in XLA by the data dependences between tokens.
    It has no shape and no dtype; there is one, ``abstract_token``."""
    array_abstraction_level = 1
    __slots__ = ()
    weak_type = False

    def str_short(self):
        return 'Tok'

    __str__ = str_short

    def __repr__(self):
        return 'AbstractToken()'


abstract_token = AbstractToken()


class Token:
    """A token's value, as jit returns it (``jax.core.Token``): nothing to read."""
    __slots__ = ()

    def block_until_ready(self):
        return self


def physical_aval(aval) -> ShapedArray:
    """How ``aval`` is stored and lowered: itself, or for a key array its words as a
    trailing axis (``key<fry>[3]`` is ``uint32[3,2]``)."""
    if not dtypes.is_key(aval.dtype):
        return aval
    return ShapedArray((*aval.shape, aval.dtype.words), aval.dtype.word_dtype)


def raise_to_shaped(aval):
    if type(aval) is ShapedArray or aval is abstract_token:  # (avals are never mutated)
        return aval
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type, aval._sharding)


def typeof(x) -> ShapedArray:
    """The type of ``x``: its shape, dtype and weak type, and its sharding over the
    explicit axes of its mesh (``jax.typeof``)."""
    return shaped_aval(x)


class ShapeDtypeStruct:
    """A stand-in argument that has only a shape and a dtype, and maybe a sharding (a
    ``NamedSharding``, or a ``PartitionSpec`` over the mesh in context), for make_jaxpr and
    lower."""

    __slots__ = ('shape', 'dtype', 'weak_type', '_sharding')

    def __init__(self, shape, dtype, *, sharding=None, weak_type=False):
        if dtype is None:
            raise ValueError('ShapeDtypeStruct: dtype must be specified.')
        shape = canonicalize_shape(shape, 'ShapeDtypeStruct')
        if sharding is not None and not hasattr(sharding, 'spec') and \
                not hasattr(sharding, 'partitions'):
            raise TypeError('sharding should be an instance of `jax.sharding.Sharding` or '
                            f'`jax.sharding.PartitionSpec`. Got {sharding} of type '
                            f'{type(sharding)}.')
        for name, value in (('shape', shape), ('weak_type', bool(weak_type)),
                            ('_sharding', sharding),
                            ('dtype', dtype if dtypes.is_key(dtype) else
                             dtypes.check_supported(dtype, f'ShapeDtypeStruct{shape}'))):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise RuntimeError(f'Cannot reassign attributes ({name}) of immutable '
                           'ShapeDtypeStruct objects')

    size = property(lambda self: math.prod(self.shape))
    ndim = property(lambda self: len(self.shape))

    def __len__(self):
        if not self.shape:
            raise TypeError('len() of unsized object')
        return self.shape[0]

    @classmethod
    def like(cls, x):
        """The type of ``x`` (an array, a scalar, or another ShapeDtypeStruct), with its
        sharding when it is laid out over a mesh."""
        aval = get_aval(x)
        sharding = getattr(x, 'sharding', None) if getattr(x, 'committed', True) else None
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type,
                   sharding=sharding if hasattr(sharding, 'spec') else None)

    def _key(self):
        return self.shape, self.dtype, self.weak_type, self._sharding

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    @property
    def sharding(self):
        """How an argument of this type lies on a mesh (for ``jit.lower``); a spec is over
        the mesh in context (the concrete one, if set)."""
        if hasattr(self._sharding, 'partitions'):
            mesh = _mesh.get_concrete_mesh()
            return _types.NamedSharding(mesh if not mesh.empty else _mesh.get_abstract_mesh(),
                                        self._sharding)
        return self._sharding

    def __repr__(self):
        sharding = '' if self._sharding is None else f', sharding={self.sharding}'
        weak = ', weak_type=True' if self.weak_type else ''
        return f'ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})'


#: Python type -> function giving its aval; other modules (Array) register themselves here.
aval_handlers: dict[type, Callable[[Any], ShapedArray]] = {}


def _python_scalar_aval(x):
    dtype, weak = dtypes.python_scalar(x)
    return ConcreteArray(np.array(x, dtype), weak_type=weak)


def _ndarray_aval(x):
    dtypes.check_supported(x.dtype, f'array of shape {x.shape}')
    return ConcreteArray(np.asarray(x))


for _t in dtypes.PYTHON_SCALARS:
    aval_handlers[_t] = _python_scalar_aval
aval_handlers[np.ndarray] = _ndarray_aval
for _t in dtypes.SUPPORTED:  # NumPy scalars: np.float32(1.), np.uint8(3), ...
    aval_handlers[_t.type] = _ndarray_aval
aval_handlers[ShapeDtypeStruct] = lambda s: ShapedArray(s.shape, s.dtype, s.weak_type, s.sharding)
aval_handlers[Token] = lambda t: abstract_token


def get_aval(x):
    """The abstract value of ``x``; a TypeError for values minijax cannot hold."""
    if isinstance(x, Tracer):
        return x.aval
    handler = aval_handlers.get(type(x))
    if handler is None:
        raise invalid_type_error(x)
    return handler(x)


def invalid_type_error(x) -> TypeError:
    """The TypeError for a value minijax cannot hold: a scalar of an unsupported dtype
    (complex, float16, ...) is told which dtypes are supported, a ``ShapeDtypeStruct`` that
    it has a type and no value."""
    if isinstance(x, ShapeDtypeStruct):
        return TypeError(f'a ShapeDtypeStruct of shape '
                         f'{ShapedArray(x.shape, x.dtype).str_short()} is a type without a '
                         'value: it stands for an argument when tracing (jit(f).lower, '
                         'make_jaxpr, eval_shape), not in a computation')
    if isinstance(x, (np.generic, complex)):
        try:
            dtypes.check_supported(np.result_type(x), f'scalar of type {type(x).__name__}')
        except TypeError as err:
            return err
    return TypeError(f'value of type {type(x).__name__} is not a valid minijax type '
                     '(use arrays, Python scalars or ShapeDtypeStruct)')


#: Value type -> function giving its type where the value holds it (an Array does: asked of
#: every operand of every eager op, it is read, not computed again).
typed_values: dict[type, Callable[[Any], ShapedArray]] = {}


def shaped_aval(x) -> ShapedArray:
    """The type of ``x`` without its value (``raise_to_shaped(get_aval(x))``, computed
    without building the value's ``ConcreteArray``): what ``jit`` keys its caches on."""
    if isinstance(x, Tracer):
        aval = x.aval
        return aval if type(aval) is ShapedArray else raise_to_shaped(aval)
    typed = typed_values.get(type(x))
    if typed is not None:
        return typed(x)
    if type(x) in dtypes.PYTHON_SCALARS:
        return _scalar_aval(*dtypes.python_scalar(x))
    if type(x) not in aval_handlers:
        raise invalid_type_error(x)
    if type(x) is Token:
        return abstract_token
    if _types.seen:  # (a sharded Array's type holds its sharding)
        typed = getattr(x, 'aval', None)
        if type(typed) is ShapedArray and typed._sharding is not None:
            return typed
    if type(x) is ShapeDtypeStruct:
        return aval_handlers[ShapeDtypeStruct](x)
    dtype = x.dtype
    if dtype not in dtypes.SHORT_NAMES:  # (a key, or a dtype minijax does not support)
        if dtypes.is_key(dtype):
            return ShapedArray(x.shape, dtype)
        dtype = dtypes.check_supported(dtype, f'array of shape {x.shape}')
    weak_type = getattr(x, 'weak_type', False)
    return _scalar_aval(dtype, weak_type) if x.shape == () else \
        ShapedArray(x.shape, dtype, weak_type)


@functools.cache
def _scalar_aval(dtype, weak_type) -> ShapedArray:
    """The aval of a scalar, one per type: made once, since avals are never mutated
    (``x * 2.0`` asks for it on every operation)."""
    return ShapedArray((), dtype, weak_type)


def is_valid_value(x):
    """Whether ``x`` can be computed with: a tracer or a concrete value (a
    ``ShapeDtypeStruct`` has a type but no value)."""
    return isinstance(x, Tracer) or (type(x) in aval_handlers and type(x) is not ShapeDtypeStruct)


# ----------------------------------------------------------------------------- primitives

class RuleTable(dict):
    """The rules of one kind (jvp, vmap, lowering, ...), keyed by ``Primitive``.

    Each interpreter owns its table, as in Autodidax (``jvp_rules[sin_p] = sin_jvp``). Looking
    up a primitive that has no rule raises the one "missing rule" error, naming both.
    """

    def __init__(self, kind: str, how_to_define: str):
        super().__init__()
        self.kind, self.how_to_define = kind, how_to_define
        rule_tables[kind] = self

    def __missing__(self, primitive):
        raise NotImplementedError(self.missing(primitive))

    def missing(self, primitive) -> str:
        """What the "missing rule" error says of ``primitive`` (``check_rules`` says it too)."""
        return (f"primitive '{primitive}' has no {self.kind} rule (define it with "
                f"{self.how_to_define.format(p=primitive)})")

    def __repr__(self):
        return f'RuleTable({self.kind!r}, {len(self)} rules)'


#: Every rule table by kind: the core's two below, and one per interpreter above it.
rule_tables: dict[str, RuleTable] = {}
impl_rules = RuleTable('impl', '{p}_p.def_impl(...)')
abstract_eval_rules = RuleTable('abstract_eval', '{p}_p.def_abstract_eval(...)')


class Primitive:
    """A named operation. Its rules live in one table per interpreter (``impl_rules`` and
    ``abstract_eval_rules`` here, ``jvp_rules`` in ``minijax.interpreters.jvp``, ...);
    the ``def_*`` methods are the user-facing way to fill them.

    The rules follow "How JAX primitives work": ``impl(*args, **params)``,
    ``abstract_eval(*avals, **params)``, ``jvp(primals, tangents, **params)``,
    ``transpose(ct, *args, **params)``, ``batching(args, dims, **params)``. A primitive with
    ``multiple_results`` returns (and its rules return) lists. Its lowering is registered
    with ``minijax.lowering.register_lowering``.

    A primitive with ``effectful = True`` has a side effect (it calls back into Python):
    dead-code elimination keeps its equations though no output is used. ``ordered``, a
    function of an equation's params, says whether its effect is ordered (JAX's ordered
    effects, ``debug.print(..., ordered=True)``): a compiled program threads a token
    through such equations, in program order, and from one run to the next.
    """
    effectful = False
    ordered = None

    #: An eager op of this primitive (whose NumPy impl gives XLA's bits) runs on XLA all
    #: the same when an operand's value is on the device only, as a previous op on XLA
    #: left it: the impl would copy it to the host, and the next op on XLA back (the
    #: elementwise primitives set it; ``minijax.dispatch`` reads it).
    follows_device_operands = False

    def __init__(self, name, multiple_results=False, eager_on_xla=False):
        """``eager_on_xla``: the NumPy impl may round differently from XLA (a transcendental
        function, or a sum in an order XLA chooses), so eager evaluation runs the primitive
        on XLA instead (``minijax.dispatch``) and its results match JAX's bit for bit. The
        other primitives are exact or correctly rounded: NumPy gives XLA's bits for free.
        A function of the operands' avals says so for some operands only."""
        self.name = name
        self.multiple_results = multiple_results
        self.eager_on_xla = eager_on_xla

    def __repr__(self):
        return self.name

    # ``bind(*args, **params)``: the module's ``bind`` function itself (set below it)

    def _define(self, kind, rule):
        if kind not in rule_tables:
            raise RuntimeError(f'no {kind} rule table: import minijax before defining rules')
        rule_tables[kind][self] = rule
        return rule

    def def_impl(self, impl):
        return self._define('impl', impl)

    def def_abstract_eval(self, abstract_eval):
        return self._define('abstract_eval', abstract_eval)

    def def_jvp(self, rule, symbolic_zeros=False):
        """``rule(primals, tangents, **params) -> (out, tangent_out)``.

        With ``symbolic_zeros`` the rule may receive ``minijax.interpreters.jvp.Zero`` tangents
        (and return one); otherwise zero tangents are instantiated as arrays first.
        """
        return self._define('symbolic_zero_jvp' if symbolic_zeros else 'jvp', rule)

    def def_transpose(self, rule):
        return self._define('transpose', rule)

    def def_batching(self, rule):
        return self._define('vmap', rule)



# ----------------------------------------------------------------------------- interpreter stack

class MainTrace:
    """One transformation on the stack: its level, its Trace class and its shared data, and
    the one Trace object (stateless beyond ``main``) that every tracer of it shares. (The
    seed makes a Trace per ``bind``; two objects per equation for the whole trace's life.)"""
    __slots__ = ('level', 'trace_type', 'global_data', 'alive', 'trace')

    def __init__(self, level, trace_type, global_data):
        self.level, self.trace_type, self.global_data = level, trace_type, global_data
        self.alive = True
        self.trace = trace_type(self)

    def __repr__(self):
        return f'MainTrace({self.level}, {self.trace_type.__name__})'


trace_stack: list[MainTrace] = []
# Omnistaging: the trace that stages out everything, even ops on constants (set by make_jaxpr).
dynamic_trace: MainTrace | None = None


@contextmanager
def new_main(trace_type, global_data=None):
    main = MainTrace(len(trace_stack), trace_type, global_data)
    trace_stack.append(main)
    try:
        yield main
    finally:
        trace_stack.pop()
        main.alive = False
        # The main and its trace refer to each other, and the data (a jaxpr builder) to
        # tracers of the trace: cut those cycles, so that what the transformation built is
        # freed when its last user drops it, not at some later garbage collection.
        main.trace = main.global_data = None


@contextmanager
def gc_paused():
    """Python's cyclic garbage collector off within the block. Tracing and lowering create
    many objects that stay alive (tracers, Vars, equations, MLIR ops), and every full
    collection would walk them all again: a fifth of the time of a 30,000-equation trace
    and lower. They create no garbage cycles that need collecting meanwhile."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def new_dynamic(main):
    global dynamic_trace
    previous, dynamic_trace = dynamic_trace, main
    try:
        yield
    finally:
        dynamic_trace = previous


class Trace:
    """How one transformation interprets primitives; tracers of this trace carry its data."""

    def __init__(self, main: MainTrace):
        self.main = main

    def pure(self, val):
        raise NotImplementedError

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        raise NotImplementedError


class Tracer:
    """A value boxed by a transformation; it duck-types an array through its aval."""
    __array_priority__ = 1000
    __slots__ = ('_trace',)

    aval: ShapedArray

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)

    def full_lower(self):
        return self

    def __len__(self):
        if not self.shape:
            raise TypeError('len() of a scalar (0-d) array')
        return self.shape[0]

    def __iter__(self):
        """The rows, one static index each (indexing clamps, so it cannot end the loop)."""
        if not self.shape:
            raise TypeError('iteration over a scalar (0-d) array')
        return (self[i] for i in range(self.shape[0]))

    def __bool__(self):
        return self.aval._bool(self)

    def __int__(self):
        return self.aval._concrete(self, int)

    # float() and complex() never read a known value, as in JAX: under grad the derivative
    # would be dropped silently; int(), bool() and index() of a known value are exact.
    def __float__(self):
        return ShapedArray._concrete(self, float)

    def __complex__(self):
        return ShapedArray._concrete(self, complex)

    def tolist(self):
        return ShapedArray._concrete(self, 'tolist')

    def __index__(self):
        return self.aval._concrete(self, operator.index)

    def __repr__(self):
        return self._short_repr()

    def _short_repr(self) -> str:
        """What ``print(x)`` shows under a transformation, as JAX shows it: the name of
        JAX's tracer for that transformation and what the tracer holds (each subclass says
        it; ``~`` marks a weak type)."""
        return f'{type(self).__name__}<{self.aval}>'

    def __array__(self, dtype=None, copy=None):
        raise TracerArrayConversionError(self)

    def __getattr__(self, name):
        # Tracers of values with known contents (ConcreteArray) forward what they can.
        if name.startswith('__'):
            raise AttributeError(name)
        try:
            return getattr(self.aval, name)
        except AttributeError:
            raise AttributeError(f'{type(self).__name__} has no attribute {name}') from None


def short_repr(x) -> str:
    """A tracer's ``_short_repr``, a value's ``str``: how a tracer shows what it holds."""
    return x._short_repr() if isinstance(x, Tracer) else str(x)


class _InImplRule(threading.local):
    """Entered while an eager impl rule computes with NumPy on concrete values: there, an
    Array handed to a NumPy function stands for its value (``Array.__array_function__``)."""
    depth = 0

    def __enter__(self):
        self.depth += 1

    def __exit__(self, *exc):
        self.depth -= 1


in_impl_rule = _InImplRule()


class EvalTrace(Trace):
    """Level 0: apply each primitive to concrete values: over their mesh where one is
    sharded, on XLA where XLA decides the rounding, else by its NumPy implementation.
    (``bind`` first tries ``eager_apply``, the same done from a cache.)"""
    pure = lift = lambda self, x: x

    def process_primitive(self, primitive, tracers, params):
        in_avals = [get_aval(t) for t in tracers]
        avals = eager_out_avals(primitive, in_avals, params)
        if apply_on_mesh is not None:
            out = apply_on_mesh(primitive, tracers, params, avals)
            if out is not None:
                return out
        if runs_on_xla(primitive, in_avals):
            return apply_on_xla(primitive, tracers, params, avals)
        return apply_impl(primitive, tracers, params, avals)


def eager_out_avals(primitive, in_avals, params):
    """The result type(s) of an eager ``primitive``, or None where it has no abstract-eval
    rule (a user's primitive): the rule checks the operands first, so a bad eager call fails
    with the message a traced one gives."""
    check = abstract_eval_rules.get(primitive)
    avals = None if check is None else check(*in_avals, **params)
    if avals is not None and sharding_in_types():
        avals = shard_results(primitive, in_avals, avals if primitive.multiple_results
                              else [avals], params)
        avals = avals if primitive.multiple_results else avals[0]
    return avals


def runs_on_xla(primitive, in_avals) -> bool:
    """Whether eager ``primitive`` of operands typed ``in_avals`` runs on XLA (``Primitive``'s
    ``eager_on_xla``), not on its NumPy impl."""
    on_xla = primitive.eager_on_xla
    return bool(on_xla) and apply_on_xla is not None and (on_xla is True or on_xla(*in_avals))


def apply_impl(primitive, args, params, avals):
    """``primitive``'s NumPy impl applied to the concrete ``args``; its results as Arrays
    typed as ``avals`` say (their weak types)."""
    impl = impl_rules[primitive]
    with in_impl_rule, np.errstate(all='ignore'):  # 1/0 is inf, log(-1) NaN, as in XLA
        out = impl(*args, **params)
    if not primitive.multiple_results:
        return eager_result(out, avals, args)
    return [eager_result(o, a, args) for o, a in zip(out, avals or [None] * len(out))]


def _value_as_is(value, aval, args):
    return value


#: How an eager result leaves ``EvalTrace`` (``value, its aval or None, the operands``):
#: ``minijax.array`` makes it an ``Array``, as JAX's eager results are.
eager_result = _value_as_is

#: How a primitive runs eagerly on XLA (``minijax.dispatch``), or None for the impl rules.
apply_on_xla = None

#: How a primitive runs eagerly when an operand is sharded over a mesh (``minijax.dispatch``):
#: it returns the results, or None when no operand is (then the rules above apply).
apply_on_mesh = None


trace_stack.append(MainTrace(0, EvalTrace, None))


#: What ``eager_apply`` returns where its cache cannot answer.
NOT_CACHED = object()


def _nothing_cached(primitive, args, params):
    return NOT_CACHED


#: The eager fast path (``minijax.dispatch.eager_apply``): ``primitive`` applied to ``args``,
#: values of no transformation, as ``EvalTrace`` would apply it, from a cache of what it
#: decided for the same primitive, parameters and operand types; or ``NOT_CACHED``.
eager_apply = _nothing_cached


def bind(primitive, *args, **params):
    """Apply ``primitive`` to ``args`` in whichever transformation owns them."""
    if dynamic_trace is None:  # (an operand may still be a tracer: the cache says NOT_CACHED)
        out = eager_apply(primitive, args, params)
        if out is not NOT_CACHED:
            return out
    top_trace = find_top_trace(args)
    try:
        tracers = [full_raise(top_trace, arg) for arg in args]
    except TypeError:
        _check_values(primitive, args)
        raise
    out = top_trace.process_primitive(primitive, tracers, params)
    if primitive.multiple_results:
        return [full_lower(o) for o in out]
    return full_lower(out)


# ``primitive.bind(...)`` is ``bind(primitive, ...)``: the function itself as the method,
# one Python call per op rather than two (every eager op pays it).
Primitive.bind = bind


def _check_values(primitive, args) -> None:
    """A TypeError naming the primitive and the position of an argument that is not a value
    (an object, a string, a ``ShapeDtypeStruct``), as JAX names them."""
    for i, x in enumerate(args):
        if not is_valid_value(x):
            raise TypeError(f'{primitive.name}: argument {i}: {invalid_type_error(x)}') from None


def staged_constant(value):
    """``value`` as a constant of the jaxpr being traced (omnistaging), as JAX stages a
    constant it creates: a scalar becomes a literal there. ``None`` when nothing is traced."""
    return None if dynamic_trace is None else find_top_trace(()).pure(value)


def find_top_trace(xs) -> Trace:
    top_main = trace_stack[0]
    for x in xs:
        if isinstance(x, Tracer):
            main = x._trace.main
            if not main.alive:
                raise escaped_tracer_error(x)
            if main.level > top_main.level:
                top_main = main
    if dynamic_trace is not None and dynamic_trace.level > top_main.level:
        top_main = dynamic_trace
    return top_main.trace


def escaped_tracer_error(tracer):
    return UnexpectedTracerError(
        f'a {type(tracer).__name__} of type {tracer.aval.str_short()} was used after the '
        f'{tracer._trace.main.trace_type.__name__} transformation that created it had ended: '
        'a traced value escaped (stored in a global or a closure?); return it instead')


def full_lower(val):
    return val.full_lower() if isinstance(val, Tracer) else val


def full_raise(trace: Trace, val) -> Tracer:
    if not isinstance(val, Tracer):
        if not is_valid_value(val):
            raise invalid_type_error(val)
        return trace.pure(val)
    level = trace.main.level
    if val._trace.main is trace.main:
        return val
    if not val._trace.main.alive:
        raise escaped_tracer_error(val)
    if val._trace.main.level < level:
        return trace.lift(val)
    raise UnexpectedTracerError(f'cannot lift a {type(val).__name__} from level '
                                f'{val._trace.main.level} into a trace at level {level}')


def full_raise_outputs(trace: Trace, outs) -> list[Tracer]:
    """The flat outputs of a function a transformation traced, as tracers of ``trace``; an
    output that is not an array is named as the user's mistake, not found deep inside."""
    for i, out in enumerate(outs):
        if not is_valid_value(out):
            raise TypeError(f'output {i} of the transformed function (outputs flattened) is a '
                            f'value of type {type(out).__name__}: a function that minijax '
                            'transforms must return arrays or Python scalars, or pytrees '
                            'of them')
    return [full_raise(trace, out) for out in outs]


def check_callable(what, **funs):
    """A TypeError naming the argument, for a function argument that is not a function."""
    for name, fun in funs.items():
        if not callable(fun):
            raise TypeError(f'{what}: {name} must be callable, got {fun!r} of type '
                            f'{type(fun).__name__}')


# ----------------------------------------------------------------------------- named axes

#: The named axes in scope, innermost last: ``(name, size, main)`` for each enclosing
#: ``vmap(..., axis_name=name)`` (``main`` its trace), ``pmap``, ``shard_map`` mesh axis and
#: ``make_jaxpr(..., axis_env=)`` entry (``main`` None). Collectives look their axes up here.
axis_env: list = []


@contextmanager
def extend_axis_env(name, size, main=None):
    axis_env.append((name, size, main))
    try:
        yield
    finally:
        axis_env.pop()


def axis_frame(name, primitive_name):
    """``(size, main)`` of the innermost axis named ``name``; a ``NameError`` (as JAX raises)
    for a collective over a name no enclosing ``pmap``/``vmap`` binds."""
    for bound, size, main in reversed(axis_env):
        if bound == name:
            return size, main
    raise NameError(f'{primitive_name}: unbound axis name: {name}. The axis names in scope '
                    f'(bound by pmap or vmap(..., axis_name=...)) are '
                    f'{[n for n, _, _ in axis_env]}')


# ----------------------------------------------------------------------------- small helpers

class SourceInfo(NamedTuple):
    """Where an equation was traced, for the locations of ``--debug-info``: the Python stack
    when it was traced (a jaxlib ``Traceback``, captured in C++ for about a microsecond
    however deep the stack; ``user_frames`` reads the user's frames out of it only when a
    location is built), and the name stack: the transformations traced through, outermost
    first (``('vmap()', 'jvp()')``), as JAX names them."""
    frames: Traceback | None
    name_stack: tuple = ()


#: The user frames a location keeps at the most (JAX's ``jax_traceback_in_locations_limit``).
MAX_FRAMES = 100

_name_stack: tuple = ()
_frames_override: tuple | None = None


@contextmanager
def name_scope(name: str):
    """Equations traced inside get ``name`` on their name stack (``jvp()``, ``vmap()``);
    an empty ``name`` adds nothing (a transformation applied inside a rule, not by the user)."""
    global _name_stack
    saved, _name_stack = _name_stack, _name_stack + ((name,) if name else ())
    try:
        yield
    finally:
        _name_stack = saved


@contextmanager
def new_name_stack():
    """Equations traced inside start an empty name stack: a sub-jaxpr's name stacks are
    relative to the equation that holds it, as JAX's are (its frames stay those of the
    equation being transformed, if any)."""
    global _name_stack
    saved, _name_stack = _name_stack, ()
    try:
        yield
    finally:
        _name_stack = saved


@contextmanager
def traced_as(info: 'SourceInfo | None', name_stack: tuple):
    """Equations traced inside get ``info``'s frames and ``name_stack``: how a rule that
    rewrites an equation (a jvp, a transpose, a jaxpr evaluated again) passes its location
    on to the equations it emits."""
    global _name_stack, _frames_override
    saved = _name_stack, _frames_override
    _name_stack, _frames_override = name_stack, (info.frames if info else None)
    try:
        yield
    finally:
        _name_stack, _frames_override = saved


def current_name_stack() -> tuple:
    return _name_stack


def named_scope(name: str):
    """``jax.named_scope``: a context manager (or decorator) putting ``name`` on the name
    stack of the equations traced inside, which locations, HLO metadata and profiles show
    (``layer/dot_general``)."""
    if not isinstance(name, str):
        raise TypeError('named_scope name argument must be a string.')
    return name_scope(name)


def named_call(fun, *, name: str | None = None):
    """``fun`` with its equations traced under the name ``name`` (default: its own)."""
    return named_scope(fun.__name__ if name is None else name)(fun)


@contextmanager
def ensure_compile_time_eval():
    """Within the block, operations on values that are not tracers run at once, even while
    ``jit``/``make_jaxpr`` trace (omnistaging is off): their results are concrete values a
    Python ``if`` can read. Operations on tracers are still traced."""
    with new_dynamic(None):
        yield


def format_name_stack(stack: tuple) -> str:
    """A name stack as JAX writes it: each transformation wraps the names inside it,
    ``('vmap()', 'transpose()', 'jvp()')`` is ``vmap(transpose(jvp()))``."""
    text = ''
    for name in reversed(stack):
        if name.endswith('()'):  # a transformation
            text = f'{name[:-1]}{text})'
        else:
            text = f'{name}/{text}' if text else name
    return text


def named_after(f, transformed):
    """``transformed`` under ``f``'s name, wrapping it (``__wrapped__``), as JAX's
    transformations are: ``jit(grad(f))`` is ``jit(f)`` in jaxprs, module names and
    locations, and its signature is ``f``'s."""
    return functools.update_wrapper(transformed, f, assigned=('__name__', '__qualname__'),
                                    updated=())


def user_source_info() -> SourceInfo:
    """The ``SourceInfo`` of an equation traced now: the stack and the current name stack."""
    if _frames_override is not None:
        return SourceInfo(_frames_override, _name_stack)
    return SourceInfo(Traceback.get_traceback(), _name_stack)


def user_frames(info: SourceInfo | None) -> list[tuple]:
    """The frames of ``info`` outside minijax, where the user called us, innermost first:
    (code object, instruction offset) pairs, at most ``MAX_FRAMES``."""
    if info is None or info.frames is None:
        return []
    codes, offsets = info.frames.raw_frames()
    return [(code, offset) for code, offset in zip(codes, offsets)
            if not code.co_filename.startswith(_NOT_USER_DIRS)][:MAX_FRAMES]


def frame_position(code, offset: int) -> tuple:
    """(line, end line, column, end column) of the instruction at ``offset`` in ``code``
    (any of them may be None)."""
    return _positions(code)[offset // 2]  # (2 bytes an instruction)


@functools.lru_cache(maxsize=1024)
def _positions(code) -> list:
    return list(code.co_positions())


def summarize_source(info: SourceInfo | None) -> str:
    """The innermost user frame of ``info`` as JAX's ``pretty_print(source_info=True)``
    writes it: ``file.py:7:31 (f)``, the line and the column where the call starts."""
    frames = user_frames(info)
    if not frames:
        return 'unknown'
    code, offset = frames[0]
    line, _, col, _ = frame_position(code, offset)
    return f'{code.co_filename}:{line or code.co_firstlineno}:{col or 0} ({code.co_qualname})'


_PACKAGE_DIR = __file__.rsplit('/', 1)[0] + '/'
#: Frames not the user's: minijax's own and the standard library's (the CLI's thread).
_NOT_USER_DIRS = (_PACKAGE_DIR, sysconfig.get_paths()['stdlib'] + '/')

def canonicalize_axis(axis, ndim, what='axis'):
    """``axis`` as an index in ``range(ndim)``, negative axes counting from the end (NumPy's
    rule). Every axis-taking function goes through here, so none silently wraps around. An
    axis out of range is NumPy's ``AxisError``, both a ``ValueError`` and an ``IndexError``:
    JAX raises the one or the other depending on the function."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f'{what} must be an integer, got {axis!r} of type '
                        f'{type(axis).__name__}')
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(
            f'{what} {axis} is out of bounds for an array of rank {ndim}')
    return int(axis) % ndim


def canonicalize_axes(axes, ndim, what='axis'):
    """``axes`` (an int, a sequence of ints, or None for all) as a sorted tuple of distinct
    indices in ``range(ndim)``."""
    if axes is None:
        return tuple(range(ndim))
    axes = tuple(axes) if np.iterable(axes) and not isinstance(axes, str) else (axes,)
    out = [canonicalize_axis(a, ndim, what) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f'{what} {tuple(axes)} repeats an axis (rank {ndim})')
    return tuple(sorted(out))


def canonicalize_shape(shape, what='shape'):
    """``shape`` (an int or a sequence of ints) as a tuple of non-negative Python ints."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f'{what}: shape must be a sequence of integers, got {shape!r}') from None
    if any(d < 0 for d in dims):
        raise TypeError(f'{what}: shape {dims} has a negative dimension; sizes must be >= 0')
    return dims


def static_int(value, what):
    """``value`` as a Python int, for an argument that sets a shape (``one_hot``'s
    ``num_classes``): as in JAX, it must be known while tracing, and a traced value is a
    ``ConcretizationTypeError`` naming the argument."""
    if isinstance(value, Tracer) and not isinstance(value.aval, ConcreteArray):
        raise ConcretizationTypeError(value, operator.index, (
            f'{what} sets the shape of the result: pass it as a static (non-array) value.'))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f'{what} must be an integer, got {value!r}') from None


def rule_results(primitive, rule, out, count=None):
    """What ``primitive``'s ``rule`` returned, as a list, checked against the primitive's
    arity: a list for ``multiple_results`` (of ``count`` values if given), else one value.
    A user-written rule that breaks this fails here, naming the primitive and the rule."""
    if isinstance(out, (list, tuple)) != primitive.multiple_results:
        expected = 'a list of results' if primitive.multiple_results else \
            'one result (the primitive has a single result)'
        got = (f'a {type(out).__name__} of {len(out)} values'
               if isinstance(out, (list, tuple)) else f'a {type(out).__name__}')
        raise TypeError(f'{_rule_prefix(primitive, rule)} {got}, expected {expected}')
    out = list(out) if primitive.multiple_results else [out]
    if count is not None and len(out) != count:
        raise TypeError(f'{_rule_prefix(primitive, rule)} {len(out)} values, expected {count}')
    return out


def _rule_prefix(primitive, rule):
    return f"primitive '{primitive.name}': the {rule} rule returned"


def rule_pair(primitive, rule, out, what):
    """The two halves of a rule's ``(results, extras)`` pair (jvp: primals and tangents;
    batching: values and batch axes), each checked with ``rule_results``."""
    if not isinstance(out, (list, tuple)) or len(out) != 2:
        raise TypeError(f"primitive '{primitive.name}': the {rule} rule must return a pair "
                        f'{what}, got {type(out).__name__}')
    first = rule_results(primitive, rule, out[0])
    return first, rule_results(primitive, rule, out[1], len(first))




def split_list(xs, n):
    return list(xs[:n]), list(xs[n:])
