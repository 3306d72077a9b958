"""``minijax.debug``: printing values from inside a program (``jax.debug``).

``print`` and ``callback`` are host callbacks (``minijax.callback``): they run eagerly, under
transformations and inside ``jit``-compiled programs, where XLA calls back into Python.
"""
from minijax.callback import debug_callback as callback
from minijax.callback import debug_print as print  # noqa: A001 (jax.debug.print)

__all__ = ['callback', 'print']
