"""Caches keyed on a jaxpr's identity that let go of their entries when the jaxpr dies."""
from __future__ import annotations

import functools
import weakref


def cache_on_first_arg(fn):
    """Memoize ``fn(obj, *hashable_rest)`` per ``obj`` (held weakly, compared by identity)."""
    tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(fn)
    def cached(obj, *rest):
        table = tables.setdefault(obj, {})
        if rest not in table:
            table[rest] = fn(obj, *rest)
        return table[rest]

    cached.cache_clear = tables.clear
    return cached
