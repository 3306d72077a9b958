"""``minijax.debug``: printing values from inside a program (``jax.debug.print``).

minijax prints concrete values only: under ``jit`` or a transformation the values are not
known while tracing, and minijax has no host callback to print them when the compiled
program runs, so it says so instead of printing tracers.
"""
from __future__ import annotations

import builtins

from minijax import core, tree_util


def print(fmt: str, *args, **kwargs) -> None:  # noqa: A001 (jax.debug.print)
    """Print ``fmt.format(*args, **kwargs)``, arrays formatted as ``str`` shows them."""
    for leaf in tree_util.tree_leaves((args, kwargs)):
        if isinstance(leaf, core.Tracer):
            raise NotImplementedError(
                f'debug.print({fmt!r}): a traced value ({leaf.aval.str_short()}) cannot be '
                'printed: minijax prints only outside jit and transformations (it has no host '
                'callback); print the value after the call or return it')
    builtins.print(fmt.format(*args, **kwargs))
