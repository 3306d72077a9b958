"""``minijax.debug.visualize_array_sharding``: a table of which devices hold which block of a
1-D or 2-D array, drawn as JAX draws it with ``rich`` when the output has no colors (a box
per block, its devices named ``CPU 0,1``, sized after the block), without ``rich``; and
``inspect_array_sharding``, which hands a value's sharding to a callback, inside ``jit`` too.
"""
from __future__ import annotations

from minijax import core, runtime, tree_util
from minijax.core import Primitive
from minijax.flops import flops_rules
from minijax.lowering import register_lowering
from minijax.sharding import SingleDeviceSharding

_BOX = {'top': '┌─┬┐', 'row': '├─┼┤', 'bottom': '└─┴┘', 'side': '│'}


def visualize_sharding(shape, sharding, *, use_color: bool = False, scale: float = 1.,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
    """Print the blocks of an array of ``shape`` laid out by ``sharding``
    (``jax.debug.visualize_sharding``). minijax draws without colors (``use_color`` and
    ``color_map`` are accepted and ignored), as JAX does when its output is not a terminal."""
    print(sharding_table(shape, sharding, scale=scale, min_width=min_width,
                         max_width=max_width), end='')


def visualize_array_sharding(arr, **kwargs) -> None:
    """Print how ``arr``'s blocks lie on its devices (``jax.debug.visualize_array_sharding``)."""
    visualize_sharding(arr.shape, arr.sharding, **kwargs)


def sharding_table(shape, sharding, *, scale: float = 1., min_width: int = 9,
                   max_width: int = 80) -> str:
    """The drawing, as text: JAX's sizes (a block's width and height follow its share of the
    array, scaled and clamped) and ``rich``'s square box with a line between rows."""
    if not 1 <= len(shape) <= 2:
        raise ValueError('`visualize_sharding` only works for shapes with 1 and 2 dimensions.')
    kind = next(iter(sharding.device_set)).platform.upper()
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    cells: dict = {}  # (row, column) -> (device ids, width share, height share or None)
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        spans = [(s.start or 0, size if s.stop is None else s.stop)
                 for s, size in zip(index, shape)]
        chunks = [start // (stop - start) for start, stop in spans]
        shares = [(stop - start) / size for (start, stop), size in zip(spans, shape)]
        if len(shape) == 1:
            key, width, height = (0, chunks[0]), shares[0], None
        else:
            key, width, height = tuple(chunks), shares[1], shares[0]
        ids, _, _ = cells.setdefault(key, (set(), width, height))
        ids.add(device.id)
    rows = max(r for r, _ in cells) + 1
    columns = max(c for _, c in cells) + 1
    laid_out = [[_cell(kind, *cells[r, c], base_width, base_height, min_width, max_width)
                 for c in range(columns)] for r in range(rows)]
    widths = [max(laid_out[r][c][1] for r in range(rows)) for c in range(columns)]
    lines = [_rule('top', widths)]
    for r, row in enumerate(laid_out):
        if r:
            lines.append(_rule('row', widths))
        cell_lines = [_cell_lines(cell, w) for cell, w in zip(row, widths)]
        height = max(map(len, cell_lines))  # a shorter cell is filled below, as rich does
        blocks = [ls + [' ' * w] * (height - len(ls)) for ls, w in zip(cell_lines, widths)]
        lines += [_BOX['side'] + _BOX['side'].join(parts) + _BOX['side']
                  for parts in zip(*blocks)]
    lines.append(_rule('bottom', widths))
    return '\n'.join(lines) + '\n'


def _cell(kind, ids, width_share, height_share, base_width, base_height, min_width,
          max_width):
    """(text, its width, its (top, right, bottom, left) padding) of one block, as JAX pads
    the block's label to the block's size."""
    text = f'{kind} ' + ','.join(map(str, sorted(ids)))
    width = min(max(int(width_share * base_width * 2.5), min_width), max_width)
    height = 1 if height_share is None else int(height_share * base_height)
    left, extra = divmod(width - len(text) - 2, 2)
    top, extra_rows = divmod(height - 2, 2)
    padding = (max(top, 0), max(left + extra, 0), max(top + extra_rows, 0), max(left, 0))
    return text, len(text) + padding[1] + padding[3], padding


def _cell_lines(cell, width: int) -> list[str]:
    """The cell's lines in a column ``width`` wide: the label centred between its side
    paddings, with its blank lines above and below."""
    text, _, (top, right, bottom, left) = cell
    inner = width - left - right
    before = (inner - len(text)) // 2
    middle = ' ' * left + ' ' * before + text + ' ' * (inner - len(text) - before) + ' ' * right
    return [' ' * width] * top + [middle] + [' ' * width] * bottom


def _rule(kind: str, widths: list[int]) -> str:
    left, line, cross, right = _BOX[kind]
    return left + cross.join(line * w for w in widths) + right


# ----------------------------------------------------------------------------- inspecting

inspect_sharding_p = Primitive('inspect_sharding', multiple_results=True)
inspect_sharding_p.effectful = True  # (kept by dead-code elimination: it calls back)


def inspect_array_sharding(value, *, callback):
    """Call ``callback`` with the sharding of each array of ``value`` (a pytree) as early as
    it is known (``jax.debug.inspect_array_sharding``): at once for an Array, when the
    program is lowered for a value traced by ``jit`` (once per compilation). Traced, the
    sharding is the value's type's: a ``NamedSharding`` over a mesh, or the default device's
    ``SingleDeviceSharding`` (where JAX reports the replicated sharding XLA chose)."""
    core.check_callable('inspect_array_sharding', callback=callback)
    tree_util.tree_map(lambda x: inspect_sharding_p.bind(x, callback=callback), value)


def _sharding_of_type(aval):
    if aval.sharding.mesh.empty:
        return SingleDeviceSharding(runtime.device())
    return aval.sharding


def _inspect_sharding_impl(x, *, callback):
    sharding = getattr(x, 'sharding', None)
    callback(_sharding_of_type(core.get_aval(x)) if sharding is None else sharding)
    return []


def _inspect_sharding_lowering(ctx, x, *, callback):
    callback(_sharding_of_type(ctx.avals_in[0]))
    return []


inspect_sharding_p.def_impl(_inspect_sharding_impl)
inspect_sharding_p.def_abstract_eval(lambda aval, *, callback: [])
inspect_sharding_p.def_jvp(lambda primals, tangents, *, callback: (
    inspect_sharding_p.bind(*primals, callback=callback), []))
inspect_sharding_p.def_batching(lambda vals, dims, *, callback: (
    inspect_sharding_p.bind(*vals, callback=callback), []))
inspect_sharding_p.def_transpose(lambda cts, x, *, callback: [None])
register_lowering(inspect_sharding_p, _inspect_sharding_lowering)
flops_rules[inspect_sharding_p] = lambda eqn, known: 0
