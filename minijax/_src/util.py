"""``jax._src.util``'s strict ``map`` and ``zip``, which custom interpreters written after
JAX's tutorial import, and which ``example_libraries.optimizers`` exports as JAX's does."""
from __future__ import annotations

import builtins


def _of_one_length(args, message):
    """``args`` as lists, if all have the first's length; else ``message(i, n, lengths)``,
    for the first that has not, as a ValueError."""
    args = [list(a) for a in args]
    lengths = tuple(len(a) for a in args)
    for i, n in enumerate(lengths):
        if n != lengths[0]:
            raise ValueError(message(i, n, lengths))
    return args


def safe_map(f, *args):
    """``map`` that insists its sequences have one length (JAX's module exports it)."""
    args = _of_one_length(args, lambda i, n, lengths: (
        f'safe_map() argument {i + 1} is {"longer" if n > lengths[0] else "shorter"} '
        'than argument 1'))
    return list(builtins.map(f, *args))


def safe_zip(*args):
    """``zip`` that insists its sequences have one length."""
    args = _of_one_length(args, lambda i, n, lengths: (
        f'safe_zip() argument {i} has length {n} but argument 0 has length {lengths[0]}. '
        f'All lengths: {lengths}'))
    return list(builtins.zip(*args))


def unzip2(xys):
    """``[(a, b), ...] -> ((a, ...), (b, ...))``."""
    firsts, seconds = [], []
    for a, b in xys:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)
