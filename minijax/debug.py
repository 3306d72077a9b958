"""``minijax.debug``: printing values from inside a program (``jax.debug``).

``visualize_array_sharding`` draws how a sharded array's blocks lie on its devices, and
``inspect_array_sharding`` hands the sharding to a callback (inside ``jit`` too).
``breakpoint`` stops in an interactive debugger (``minijax.debugger``).
``print``, ``log`` and ``callback`` are host callbacks (``minijax.callback``): they run
eagerly, under transformations and inside ``jit``-compiled programs, where XLA calls back
into Python.
"""
from minijax.callback import debug_callback as callback
from minijax.debug_printing import debug_log as log
from minijax.debug_printing import debug_print as print  # noqa: A001 (jax.debug.print)
from minijax.debugger import breakpoint  # noqa: A004 (jax.debug.breakpoint)
from minijax.sharding_view import (inspect_array_sharding, visualize_array_sharding,
                                   visualize_sharding)
from minijax import unsupported

__all__ = ['breakpoint', 'callback', 'inspect_array_sharding', 'log', 'print', 'visualize_array_sharding',
           'visualize_sharding']

__getattr__ = unsupported.missing_name('jax.debug')
