"""The exceptions minijax raises for misuse of traced values, as ``jax.errors`` names them.

They subclass the standard exceptions JAX's do (``TypeError``, ``IndexError``), so a ported
``except jax.errors.ConcretizationTypeError`` (or ``except TypeError``) catches the same
errors. The messages are minijax's own: they name the traced value's type and say what to do.
"""

import re

# jaxlib's class for an error while XLA compiles or runs a program: what JAX re-exports.
from jaxlib.xla_client import XlaRuntimeError as JaxRuntimeError

from minijax import unsupported

__all__ = ['ConcretizationTypeError', 'JAXIndexError', 'JAXTypeError', 'JaxRuntimeError',
           'JaxprTypeError', 'KeyReuseError',
           'NonConcreteBooleanIndexError', 'TracerArrayConversionError',
           'TracerBoolConversionError', 'TracerIntegerConversionError', 'UnexpectedTracerError']


class JAXTypeError(TypeError):
    """The base of the errors that are a ``TypeError``."""


class JAXIndexError(IndexError):
    """The base of the errors that are an ``IndexError``."""


class JaxprTypeError(TypeError):
    """A jaxpr that does not typecheck: an equation whose inputs its primitive refuses, a
    binder of the wrong type, a variable unbound or bound twice."""


def _traced(tracer):
    return f'a {type(tracer).__name__} of type {tracer.aval.str_short()}'


class ConcretizationTypeError(JAXTypeError):
    """Python needed the value of a traced array (``int(x)``, ``float(x)``, an index), which
    is unknown while tracing: only its type is."""

    def __init__(self, tracer, conversion, advice=None):
        name = getattr(conversion, '__name__', str(conversion))
        advice = advice or ('To change its dtype use x.astype(dtype); to use it as a Python '
                            'number, compute it outside the traced function and pass it in as '
                            'a static (non-array) value.')
        super().__init__(f'{name}() was called on a traced value ({_traced(tracer)}) whose '
                         f'value is not known while tracing. {advice}')


class TracerBoolConversionError(ConcretizationTypeError):
    """``if x:``, ``while x:``, ``and``/``or`` on a traced array: its truth value is unknown."""

    def __init__(self, tracer):
        super().__init__(tracer, bool, 'Python control flow on traced values needs '
                         'minijax.lax.cond, minijax.lax.while_loop or jnp.where.')


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(x)`` of a traced array: NumPy needs the values."""

    def __init__(self, tracer):
        super().__init__(f'The numpy.ndarray conversion method __array__() was called on '
                         f'{_traced(tracer)}: its value is not known while tracing. Use '
                         'minijax.numpy instead of numpy on traced values.')


class TracerIntegerConversionError(JAXTypeError):
    """``operator.index(x)`` of a traced array (``range(x)``, ``[0, 1][x]``)."""

    def __init__(self, tracer):
        super().__init__(f'index() was called on a traced value ({_traced(tracer)}) whose '
                         'value is not known while tracing. Index Python sequences with static '
                         '(non-array) values, and arrays with jnp indexing or lax.dynamic_slice.')


class UnexpectedTracerError(JAXTypeError):
    """A tracer was used after the transformation that created it had finished."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """``x[mask]`` with a traced ``mask``: the number of elements it selects is unknown."""

    def __init__(self, mask):
        super().__init__(f'Array boolean indices must be concrete; got {mask.aval}. '
                         'Under jit or vmap use jnp.where(mask, x, other), or jnp.nonzero(mask, '
                         'size=...) for indices of a static size')


class KeyReuseError(JAXTypeError):
    """JAX's key-reuse checker (``jax_debug_key_reuse``) raises it; minijax has no such
    checker, so nothing raises it: it is here so that ``except`` clauses port."""


class RuleToWrite(NotImplementedError):
    """A rule a course handout left for the student to write was called."""

    def __init__(self, task: str, doc: str):
        super().__init__(f'course task {task}: this rule is yours to write (read {doc}; '
                         f'minijax course grade {task} scores it)')
        self.task = task


def rule_to_write(task: str, doc: str):
    """The body of a rule a course handout left for the student to write (``minijax course
    handout``): calling it says which task it is and where to read how."""
    raise RuleToWrite(task, doc)


def rule_to_write_behind(error: BaseException | None) -> str | None:
    """The task of the ``RuleToWrite`` that ``error`` is, or was raised from, if any."""
    while error is not None and not isinstance(error, RuleToWrite):
        error = error.__cause__ or error.__context__
    return None if error is None else error.task


_RULE_TO_WRITE = re.compile(r'course task (\S+): this rule is yours to write')


def stubbed_task(text: str | None) -> str | None:
    """The course task whose stub (``rule_to_write``) raised the error that ``text`` (a test
    report) shows, if one did: how the grader tells a test waiting for another task."""
    found = _RULE_TO_WRITE.search(text or '')
    return found.group(1) if found else None


__getattr__ = unsupported.missing_name('jax.errors')
