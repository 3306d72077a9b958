"""StableHLO modules as files: ``.mlir`` text, MLIR bytecode and versioned portable artifacts.

Reading parses and verifies into minijax's MLIR context, which knows the dialects JAX writes
(``chlo``, ``sdy``). Bytecode is recognised by its magic number, whatever the file is called.
MLIR aborts the process on some corrupt bytecode, so parsing runs in a child process
(``isolation``) that hands back the module as bytecode it wrote itself, or the diagnostics.
"""
from __future__ import annotations

import io
import re

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import func, stablehlo

from minijax.lowering import mlir_context
from minijax.lowering.context import new_context
from minijax import isolation, runtime
from minijax.tools import inputs
from minijax.tools.errors import Failure, UsageError

_BYTECODE_MAGIC = b'ML\xefR'


# ----------------------------------------------------------------------------- reading

def load_module(path: str) -> ir.Module:
    """Parse and verify the module in ``path`` (``-``: standard input); a Failure gives its
    MLIR diagnostics as MLIR's tools print them."""
    data = inputs.read_bytes(path)
    name = inputs.display_name(path)
    if not data.startswith(_BYTECODE_MAGIC):
        _check_text(data, name)
    try:
        kind, value = isolation.call_isolated(_parse, data)
    except isolation.Crashed as crash:
        raise Failure(f'MLIR crashed ({crash}) reading this file: it is corrupt or not a '
                      'module this jaxlib can read', where=name) from None
    if kind == 'diagnostics':
        raise _diagnostics_failure(value, name)
    if kind == 'not an artifact':
        raise Failure(f'not a StableHLO portable artifact this jaxlib can read ({value}; it '
                      f'reads up to version {stablehlo.get_current_version()})', where=name)
    with mlir_context():
        return ir.Module.parse(value)  # bytecode the child wrote from a verified module


def _check_text(data: bytes, name: str) -> None:
    """A Failure naming a binary file that is not bytecode (a ``jax.export``
    serialization, say), rather than a parse error at some byte of it: the file was read and
    is not a valid module (exit 1, as ``mlir-opt``)."""
    if b'\0' in data:
        raise Failure(f"'{name}' is a binary file but neither MLIR bytecode nor a StableHLO "
                         "portable artifact (they start with 'ML\\xefR'); of a jax.export "
                         'Exported, save its mlir_module_serialized')
    inputs.decode_text(data, name, 'MLIR text, MLIR bytecode or a StableHLO portable artifact')


def _parse(data: bytes):
    """(in the child) ('module', bytecode), ('diagnostics', [...]) or ('not an artifact',
    reason)."""
    with new_context(multithreaded=False) as ctx:
        if data.startswith(_BYTECODE_MAGIC):
            module, reason = _deserialize(ctx, data)
            if module is None:
                return 'not an artifact', reason
        else:
            try:
                module = ir.Module.parse(data.decode())
            except ir.MLIRError as err:
                return 'diagnostics', ([_diagnostic(d) for d in err.error_diagnostics]
                                       or [(None, ' '.join(str(err).split()), [])])
        out = io.BytesIO()
        module.operation.write_bytecode(out)
        return 'module', out.getvalue()


def _deserialize(ctx: ir.Context, data: bytes):
    """(module, None), or (None, the first diagnostic): a portable artifact or plain MLIR
    bytecode, its diagnostics kept off stderr."""
    diagnostics = []

    def collect(diagnostic):
        diagnostics.append(diagnostic.message)
        return True  # handled: MLIR does not print it

    handler = ctx.attach_diagnostic_handler(collect)
    try:
        return stablehlo.deserialize_portable_artifact(ctx, data), None
    except ValueError:
        return None, diagnostics[0] if diagnostics else 'unreadable'
    finally:
        handler.detach()


def _diagnostic(d) -> tuple:
    """(location, message, notes) of an MLIR diagnostic, as plain data for the pipe."""
    return str(d.location), d.message, [(str(n.location), n.message) for n in d.notes]


def _diagnostics_failure(diagnostics, name: str) -> Failure:
    """The diagnostics as MLIR prints them: ``file:line:col: error: ...`` and its notes
    (``note: prior use here``) on the lines that follow."""
    (location, message, notes), *others = diagnostics
    lines = [message] + [f'{_where(loc, name)}: note: {m}' for loc, m in notes]
    for loc, m, more in others:
        lines.append(f'{_where(loc, name)}: error: {m}')
        lines += [f'{_where(note_loc, name)}: note: {n}' for note_loc, n in more]
    return Failure('\n'.join(lines), where=_where(location, name))


_FILE_LOC = re.compile(r'loc\("(?P<file>.*)":(?P<line>\d+):(?P<col>\d+)\)')


def _where(location: str | None, name: str) -> str:
    """``file:line:col``, the form editors and FileCheck tests expect; text parsed from
    memory is located in ``-``, which is ``name``."""
    m = _FILE_LOC.search(location or '')
    if m is None:
        return name
    return f"{name if m['file'] == '-' else m['file']}:{m['line']}:{m['col']}"


# ----------------------------------------------------------------------------- functions

def functions(module: ir.Module) -> list[func.FuncOp]:
    """The ``func.func`` ops at the top of ``module``, in order."""
    return [op for op in module.body.operations if isinstance(op, func.FuncOp)]


def signature(fn: func.FuncOp) -> str:
    """``func.func public @main(tensor<3xf32>) -> tensor<3xf32>``."""
    visibility = fn.attributes['sym_visibility'].value if 'sym_visibility' in fn.attributes \
        else 'public'
    return f'func.func {visibility} @{fn.name.value}{fn.type}'


def entry_function(module: ir.Module, entry: str, where: str) -> func.FuncOp:
    """The function ``entry`` names; a Failure naming the functions there are if none."""
    fns = functions(module)
    for fn in fns:
        if fn.name.value == entry:
            return fn
    there = ', '.join(f'@{fn.name.value}' for fn in fns) or 'none'
    if entry == 'main':
        raise Failure(f'the module has no @main function to run (its functions: {there}; '
                      'pick one with --entry NAME)', where=where)
    raise Failure(f'the module has no function @{entry} (its functions: {there})', where=where)


def make_entry(module: ir.Module, entry: str, where: str) -> None:
    """Make the function ``entry`` the public ``@main`` that PJRT and the reference
    interpreter run (a ``@main`` already there is renamed out of its way)."""
    fn = entry_function(module, entry, where)
    if entry == 'main':
        return
    with mlir_context():
        names = {f.name.value for f in functions(module)}
        old_main = next((f for f in functions(module) if f.name.value == 'main'), None)
        if old_main is not None:
            spare = next(f'main_{n}' for n in range(len(names) + 1) if f'main_{n}' not in names)
            _rename(module, old_main, spare)
        _rename(module, fn, 'main')
        if 'sym_visibility' in fn.attributes:  # (no attribute is public)
            del fn.attributes['sym_visibility']
        module.operation.verify()


def _rename(module: ir.Module, fn: func.FuncOp, name: str) -> None:
    ir.SymbolTable.replace_all_symbol_uses(fn.name.value, name, module.operation)
    ir.SymbolTable.set_symbol_name(fn.operation, name)


# ----------------------------------------------------------------------------- transforming

def copy_of(module: ir.Module) -> ir.Module:
    """A copy, for passes and serialization that rewrite a module in place: the original may
    be one that minijax caches."""
    with mlir_context():
        return ir.Module.parse(module.operation.get_asm(enable_debug_info=True))


def pass_manager(pipeline: str) -> passmanager.PassManager:
    """The passes of ``pipeline`` (``canonicalize,cse``: passes that jaxlib registers); a
    UsageError naming what is wrong with it."""
    with mlir_context():
        try:
            return passmanager.PassManager.parse(f'builtin.module({pipeline})')
        except ValueError as err:
            reason = re.search(r'error: (.*)', str(err))
            raise UsageError(f"bad --passes '{pipeline}': "
                             f'{reason[1] if reason else str(err).strip()}') from None


def run_passes(module: ir.Module, pipeline: str) -> None:
    """Run ``pipeline`` on the module (the pass manager verifies it after each pass)."""
    manager = pass_manager(pipeline)
    with mlir_context():
        try:
            manager.run(module.operation)
        except ir.MLIRError as err:
            raise Failure(f"--passes '{pipeline}' failed: {' '.join(str(err).split())}") \
                from None


#: The StableHLO version a portable artifact targets unless told: as ``jax.export``, one at
#: least 4 weeks old, so that consumers updated monthly read it.
DEFAULT_TARGET_VERSION = stablehlo.get_version_from_compatibility_requirement(
    stablehlo.StablehloCompatibilityRequirement.WEEK_4)

_VERSION = re.compile(r'\d+\.\d+\.\d+')


def check_target_version(version: str) -> None:
    """A UsageError unless ``version`` is X.Y.Z within what this jaxlib can write."""
    low, high = stablehlo.get_minimum_version(), stablehlo.get_current_version()
    if not _VERSION.fullmatch(version) or not (
            _version_key(low) <= _version_key(version) <= _version_key(high)):
        raise UsageError(f"bad --target-version '{version}': expected a StableHLO version "
                         f'X.Y.Z from {low} to {high}')


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split('.'))


def portable_artifact(module: ir.Module, debug_info: bool, target_version: str) -> bytes:
    """The module as a versioned StableHLO artifact, with locations only if ``debug_info``.
    A module over a mesh keeps its Shardy ops and attributes, as JAX's export keeps them.

    Serializing rewrites a module into VHLO in place, so a copy is serialized.
    """
    copy = copy_of(module)
    with mlir_context():
        if not debug_info:
            passmanager.PassManager.parse('builtin.module(strip-debuginfo)').run(copy.operation)
        if _has_mesh(copy):
            return runtime.serialize_portable_artifact_with_sdy(copy, target_version)
        return stablehlo.serialize_portable_artifact(copy, target_version)


def _has_mesh(module: ir.Module) -> bool:
    return any(op.operation.name == 'sdy.mesh' for op in module.body.operations)
