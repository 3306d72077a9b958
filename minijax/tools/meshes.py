"""A mesh and argument shardings as written on the command line (``minijax lower --mesh
x=4,y=2 --sharding x,_``).

``--mesh`` names the axes and their sizes, in order (``x=4,y=2``): a mesh of ``Auto`` axes
over the first devices, the command making that many CPU devices. ``--sharding`` gives one
argument's ``PartitionSpec``, one entry per dimension, comma-separated: an axis name, several
joined by ``+`` (split over their product, the first major), or ``_`` for a dimension not
split; an empty one replicates the argument. A tuple argument's leaves share its sharding.
"""
from __future__ import annotations

import re

from minijax.tools.errors import UsageError

_AXIS = re.compile(r'^\s*([A-Za-z_]\w*)\s*=\s*(\d+)\s*$')


def parse_mesh(text: str) -> list[tuple[str, int]]:
    """``x=4,y=2`` as ``[('x', 4), ('y', 2)]``."""
    axes = []
    for part in text.split(','):
        m = _AXIS.match(part)
        if m is None or int(m[2]) < 1:
            raise UsageError(f"bad --mesh '{text}': expected axes like x=4,y=2 (a name and a "
                             f"positive size each), got '{part.strip()}'")
        axes.append((m[1], int(m[2])))
    names = [n for n, _ in axes]
    if len(set(names)) != len(names):
        raise UsageError(f"bad --mesh '{text}': an axis is named twice")
    return axes


def parse_sharding(text: str, axis_names) -> tuple:
    """``x+y,_`` as the entries of a ``PartitionSpec``: ``(('x', 'y'), None)``."""
    if not text.strip():
        return ()
    entries = []
    for part in text.split(','):
        names = [n.strip() for n in part.split('+')]
        if names == ['_']:
            entries.append(None)
            continue
        for n in names:
            if n not in axis_names:
                raise UsageError(f"bad --sharding '{text}': '{n}' is not an axis of the mesh "
                                 f"({', '.join(axis_names)}) nor _ (not split)")
        entries.append(names[0] if len(names) == 1 else tuple(names))
    return tuple(entries)
