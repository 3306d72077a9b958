"""``jax_debug_nans`` and ``jax_debug_infs``: results checked for NaNs and infinities, an
error naming the primitive that made one (``FloatingPointError('invalid value (nan)
encountered in log')``), as JAX checks them.

Eagerly, each primitive's floating-point results are checked. A jitted call's results are
checked as a whole; where one holds a NaN, the function runs again op by op (un-jitted, as
JAX runs it) so that the primitive that made it is named, and where that run makes none,
the error says so (JAX's message). An ``xla_call`` evaluated under a transformation runs its
jaxpr op by op instead (there is no Python function to run again).

Unchecked, nothing here costs anything: turning a flag on swaps ``core``'s eager entry
points (``eager_apply``, ``EvalTrace.process_primitive``) for checking ones, and turning
both off puts them back; ``jit`` reads the flags on its full path only, and records no fast
path while they are on (``config.special_value_hooks`` drops the ones recorded).
"""
from __future__ import annotations

import numpy as np

from minijax import core
from minijax.config import config, special_value_hooks
from minijax.ir.jaxpr import eval_jaxpr


def checking() -> bool:
    """Whether results are checked (``jax_debug_nans`` or ``jax_debug_infs``)."""
    return config.jax_debug_nans or config.jax_debug_infs


def invalid_value(values) -> str | None:
    """'nan' or 'inf' for the first value holding a special value the flags check for,
    or None."""
    for x in values:
        dtype = getattr(x, 'dtype', None)
        if dtype is None or not np.issubdtype(dtype, np.inexact):
            continue
        value = np.asarray(x)
        if config.jax_debug_nans and np.isnan(value).any():
            return 'nan'
        if config.jax_debug_infs and np.isinf(value).any():
            return 'inf'
    return None


def check(name: str, values) -> None:
    """JAX's FloatingPointError where a value holds a special value."""
    kind = invalid_value(values)
    if kind is not None:
        raise FloatingPointError(f'invalid value ({kind}) encountered in {name}')


def check_call(name: str, outs, rerun) -> None:
    """A jitted call's results ``outs``: where one holds a special value, ``rerun()`` runs
    the computation op by op, whose check names the primitive; where it raises nothing,
    JAX's error saying that the de-optimized function made no such value."""
    kind = invalid_value(outs)
    if kind is None:
        return
    print('Invalid nan value encountered in the output of a jax.jit function. Calling the '
          'de-optimized version.')
    try:
        rerun()
    except (FloatingPointError, ZeroDivisionError) as err:
        raise err from None
    raise FloatingPointError(
        f"{(name, kind)}. Because jax_config.debug_nans.value and/or config.jax_debug_infs is "
        'set, the de-optimized function (i.e., the function as if the `jit` decorator were '
        'removed) was called in an attempt to get a more precise error message. However, the '
        'de-optimized function did not produce invalid values during its execution. This '
        'behavior can result from `jit` optimizations causing the invalid value to be '
        'produced. It may also arise from having nan/inf literals as inputs or outputs, like '
        '`jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\nIt may be possible to avoid the '
        'invalid value by removing the `jit` decorator, at the cost of losing optimizations. '
        '\n\nIf you see this error, consider opening a bug report at '
        'https://github.com/jax-ml/jax.') from None


# ----------------------------------------------------------------------------- eager checks

_unchecked: dict = {}  # the entry points the checking ones replace, while they do


def _checked_eager_apply(primitive, args, params):
    out = _unchecked['eager_apply'](primitive, args, params)
    if out is not core.NOT_CACHED:
        _check_results(primitive, out, args, params)
    return out


def _checked_process_primitive(trace, primitive, tracers, params):
    out = _unchecked['process_primitive'](trace, primitive, tracers, params)
    _check_results(primitive, out, tracers, params)
    return out


def _check_results(primitive, out, args, params) -> None:
    outs = out if primitive.multiple_results else [out]
    if primitive.name != 'xla_call':
        check(primitive.name, outs)
        return
    closed = params['jaxpr']
    check_call(f"jit({params['name']})", outs,
               lambda: eval_jaxpr(closed.jaxpr, closed.consts, list(args)))


def _swap() -> None:
    """Install the checking entry points when a flag is on, the unchecked ones when none."""
    if checking() and not _unchecked:
        _unchecked['eager_apply'] = core.eager_apply
        _unchecked['process_primitive'] = core.EvalTrace.process_primitive
        core.eager_apply = _checked_eager_apply
        core.EvalTrace.process_primitive = _checked_process_primitive
    elif not checking() and _unchecked:
        core.eager_apply = _unchecked.pop('eager_apply')
        core.EvalTrace.process_primitive = _unchecked.pop('process_primitive')


special_value_hooks.append(_swap)
