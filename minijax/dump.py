"""``MINIJAX_DUMP_DIR``: every module ``jit`` compiles is also written there as text, as
``XLA_FLAGS=--xla_dump_to`` does for XLA, so a shell user can read what ran."""
from __future__ import annotations

import os

from jaxlib.mlir import ir

from minijax.files import write_file
from minijax.lowering import module_text


def dump_module(module: ir.Module) -> None:
    """Write ``<dump dir>/<module name>.mlir`` whole, when a dump directory is set; a
    different module of the same name goes to ``<name>.1.mlir``, ``<name>.2.mlir``, ..."""
    dump_dir = os.environ.get('MINIJAX_DUMP_DIR')
    if not dump_dir:
        return
    if os.path.exists(dump_dir) and not os.path.isdir(dump_dir):
        raise NotADirectoryError(f'MINIJAX_DUMP_DIR={dump_dir!r} is a file, not a directory: '
                                 'point it at a directory (one is created if missing)')
    os.makedirs(dump_dir, exist_ok=True)
    name = ir.StringAttr(module.operation.attributes['sym_name']).value
    with module.context:
        text = module_text(module)
    path = os.path.join(dump_dir, f'{name}.mlir')
    n = 0
    while os.path.exists(path) and open(path).read() != text:
        n += 1
        path = os.path.join(dump_dir, f'{name}.{n}.mlir')
    write_file(path, text)
