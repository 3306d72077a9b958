"""``jax.debug.print`` and ``jax.debug.log``: the ``debug_print`` primitive, as JAX 0.10.2 has it.

Its parameters hold all that formatting needs when the program runs: the format string, the
tree of the arguments (``in_tree``), the leaves that are not arrays (``static_args``, as
``(index, value)`` pairs), NumPy's print options at the call (``np_printoptions``), whether
``fmt`` has placeholders, and for ``log`` the record to log. So a jaxpr shows what JAX's
shows, and the primitive runs as a debug callback does (``callback.define_debug_rules``):
eagerly, once per batch element under ``vmap``, on the primals under ``jvp``, and under
``jit`` as a host callback, ordered when ``ordered=True``.
"""
from __future__ import annotations

import copy
import logging
import string
import sys

import numpy as np

from minijax import core
from minijax.callback import (FlatCallback, debug_callback_impl, debug_callback_lowering,
                              define_debug_rules, effect_of, flatten_callback)
from minijax.core import Primitive

debug_print_p = Primitive('debug_print', multiple_results=True)
debug_print_p.ordered = lambda params: params['ordered']

#: The logger ``debug.log`` writes to (JAX's is ``jax._src.debugging``).
logger = logging.getLogger('minijax.debug')


class _FormatChecker(string.Formatter):
    """Formats nothing; refuses arguments the format string does not use, as JAX does (an
    f-string passed as ``fmt`` is the usual cause)."""

    def format_field(self, value, format_spec):
        return ''

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(f'Unused positional arguments to `jax.debug.print`: {unused}')
        unused = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f'Unused keyword arguments to `jax.debug.print`: {unused}. You may '
                             'be passing an f-string (i.e, `f"{x}"`) into `jax.debug.print` '
                             'and instead should pass in a regular string.')


def debug_print(fmt: str | None = None, *args, ordered=False, partitioned=False,
                skip_format_check=False, _use_logging=False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` when the program runs (``jax.debug.print``),
    with NumPy's print options as they are now; a ``fmt`` without placeholders is followed
    by the arguments, space-separated. Without ``fmt``, the options are taken first and the
    function returned prints (JAX's two-call form: ``debug.print(ordered=True)(fmt, x)``)."""
    def bind(fmt, *args, **kwargs):
        if partitioned:
            raise NotImplementedError('debug.print: minijax runs callbacks on one device '
                                      '(partitioned=True is not supported)')
        if not skip_format_check:
            _FormatChecker().format(fmt, *args, **kwargs)
        flat, arrays = flatten_callback(None, args, kwargs)
        debug_print_p.bind(
            *arrays, fmt=fmt, ordered=ordered, partitioned=partitioned, in_tree=flat.in_tree,
            static_args=tuple(flat.static_leaves.items()),
            np_printoptions=tuple(np.get_printoptions().items()),
            has_placeholders=any(field is not None
                                 for _, field, _, _ in string.Formatter().parse(fmt)),
            logging_record=_record_of_the_caller() if _use_logging else None)

    if fmt is not None:
        return bind(fmt, *args, **kwargs)
    if args or kwargs:
        raise TypeError('debug_print received unexpected arguments in the two-call form: '
                        f'args={args!r} kwargs={kwargs!r}')
    return bind


def debug_log(fmt: str | None = None, *args, **kwargs):
    """``debug.print``'s message, logged when the program runs (``jax.debug.log``): an INFO
    record of the ``minijax.debug`` logger, located at the line that called ``log``."""
    return debug_print(fmt, *args, _use_logging=True, **kwargs)


def _record_of_the_caller() -> logging.LogRecord:
    frames = core.user_frames(core.user_source_info())
    where = ('(unknown file)', 0) if not frames else (
        frames[0][0].co_filename, core.frame_position(*frames[0])[0] or 0)
    return logger.makeRecord(logger.name, logging.INFO, *where, '', (), None)


def _printing_callback(fmt, in_tree, static_args, np_printoptions, has_placeholders,
                       logging_record) -> FlatCallback:
    """The callback that formats the values it is handed and prints (or logs) the text."""
    def emit(*args, **kwargs):
        with np.printoptions(**dict(np_printoptions)):
            text = (fmt.format(*args, **kwargs) if has_placeholders else
                    ' '.join((fmt, *map(str, args))))
        if logging_record is None:
            sys.stdout.write(text + '\n')
        else:
            record = copy.copy(logging_record)
            record.msg = text
            logger.handle(record)
    return FlatCallback(emit, in_tree, dict(static_args))


def _as_debug_callback(rule):
    """``rule`` (debug_callback's impl or lowering) applied to ``debug_print``'s params."""
    def apply(*args, ordered, partitioned, **printing):
        return rule(*args, callback=_printing_callback(**printing), effect=effect_of(ordered),
                    partitioned=partitioned)
    return apply


define_debug_rules(debug_print_p, _as_debug_callback(debug_callback_impl),
                   _as_debug_callback(debug_callback_lowering))
