"""``jax._src.util``'s strict ``map`` and ``zip``, which custom interpreters written after
JAX's tutorial import, and which ``example_libraries.optimizers`` exports as JAX's does."""
from __future__ import annotations

import builtins


def _first_length_mismatch(args):
    """The first argument whose length is not the first's: ``(index, its length)``."""
    return next(((i, len(a)) for i, a in enumerate(args) if len(a) != len(args[0])), None)


def safe_map(f, *args):
    """``map`` that insists its sequences have one length (JAX's module exports it)."""
    args = [list(a) for a in args]
    mismatch = _first_length_mismatch(args)
    if mismatch:
        i, n = mismatch
        raise ValueError(f'safe_map() argument {i + 1} is '
                         f'{"longer" if n > len(args[0]) else "shorter"} than argument 1')
    return list(builtins.map(f, *args))


def safe_zip(*args):
    """``zip`` that insists its sequences have one length."""
    args = [list(a) for a in args]
    mismatch = _first_length_mismatch(args)
    if mismatch:
        i, n = mismatch
        raise ValueError(f'safe_zip() argument {i} has length {n} but argument 0 has length '
                         f'{len(args[0])}. All lengths: {tuple(len(a) for a in args)}')
    return list(builtins.zip(*args))


def unzip2(xys):
    """``[(a, b), ...] -> ((a, ...), (b, ...))``."""
    firsts, seconds = [], []
    for a, b in xys:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)
