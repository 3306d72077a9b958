"""StableHLO modules as files: ``.mlir`` text and versioned portable artifacts.

Both are read into minijax's MLIR context, where parsing also verifies. A portable artifact is
recognised by the MLIR bytecode magic number, whatever the file is called.
"""
from __future__ import annotations

import re

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import func, stablehlo

from minijax.lowering import mlir_context
from minijax.lowering.module import main_function
from minijax.tools import inputs
from minijax.tools.errors import Failure

_BYTECODE_MAGIC = b'ML\xefR'


def load_module(path: str) -> ir.Module:
    """Parse and verify the module in ``path``; a Failure lists its MLIR diagnostics."""
    data = inputs.read_bytes(path)
    with mlir_context():
        if data.startswith(_BYTECODE_MAGIC):
            return _deserialize(data, path)
        inputs.decode_text(data, path, 'MLIR text or a StableHLO portable artifact')
        try:
            return ir.Module.parseFile(path)  # diagnostics name the file
        except ir.MLIRError as err:
            if not err.error_diagnostics:  # e.g. an unreadable file
                raise Failure(' '.join(str(err).split()), where=path) from None
            first, *others = err.error_diagnostics
            more = ''.join(f'\n{_where(d, path)}: error: {d.message}' for d in others)
            raise Failure(first.message + more, where=_where(first, path)) from None


def _deserialize(data: bytes, path: str) -> ir.Module:
    """The module in a portable artifact; its diagnostics go into the Failure, not stderr."""
    diagnostics = []

    def collect(diagnostic):
        diagnostics.append(diagnostic.message)
        return True  # handled: MLIR does not print it

    handler = mlir_context().attach_diagnostic_handler(collect)
    try:
        return stablehlo.deserialize_portable_artifact(mlir_context(), data)
    except ValueError:
        reason = diagnostics[0] if diagnostics else 'unreadable'
        raise Failure(f'not a StableHLO portable artifact this jaxlib can read ({reason}; it '
                      f'reads up to version {stablehlo.get_current_version()})',
                      where=path) from None
    finally:
        handler.detach()


_FILE_LOC = re.compile(r'loc\("(?P<file>.*)":(?P<line>\d+):(?P<col>\d+)\)')


def _where(diagnostic, path: str) -> str:
    """``file:line:col`` of an MLIR diagnostic, the form editors and FileCheck tests expect."""
    m = _FILE_LOC.search(str(diagnostic.location))
    return f"{m['file']}:{m['line']}:{m['col']}" if m else path


def functions(module: ir.Module) -> list[func.FuncOp]:
    """The ``func.func`` ops at the top of ``module``, in order."""
    return [op for op in module.body.operations if isinstance(op, func.FuncOp)]


def signature(fn: func.FuncOp) -> str:
    """``func.func public @main(tensor<3xf32>) -> tensor<3xf32>``."""
    visibility = fn.attributes['sym_visibility'].value if 'sym_visibility' in fn.attributes \
        else 'public'
    return f'func.func {visibility} @{fn.name.value}{fn.type}'


def entry_function(module: ir.Module, path: str) -> func.FuncOp:
    """``@main``, the function PJRT and the reference interpreter run."""
    main = main_function(module)
    if main is None:
        raise Failure('the module has no @main function to run', where=path)
    return main


def portable_artifact(module: ir.Module, debug_info: bool) -> bytes:
    """The module as a versioned StableHLO artifact, with locations only if ``debug_info``.

    Serializing rewrites a module into VHLO in place, so a copy is serialized: ``module`` may
    be one that minijax caches.
    """
    with mlir_context():
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True))
        if not debug_info:
            passmanager.PassManager.parse('builtin.module(strip-debuginfo)').run(copy.operation)
        return stablehlo.serialize_portable_artifact(copy, stablehlo.get_current_version())
