"""The ``minijax`` command: lower Python functions to StableHLO, run and check modules, and
keep lit golden tests up to date, in the habits of the LLVM/MLIR tools.

Errors are one line on stderr and an exit status: 2 for a bad command line, 1 when the work
fails (an invalid module, an exception in the user's function: shown with the user's frame).
MLIR's diagnostics print as MLIR's tools print them (``file:line:col: error: ...`` and their
notes on the lines that follow). ``--traceback`` shows the Python traceback too. Ctrl-C is one
line too, and exit status 130. ``-`` is standard input for a module and standard output for
``-o``.
"""
from __future__ import annotations

import argparse
import functools
import importlib.metadata
import inspect
import math
import os
import signal
import sys
import sysconfig
import threading
import traceback

import numpy as np
from jaxlib import version as jaxlib_version
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

import minijax
from minijax import core, reference_interpreter, runtime, tree_util
from minijax.course import cli as course
from minijax.jit import Jitted
from minijax.lowering import mlir_context, tensor_type
from minijax.lowering.module import module_text
from minijax.tools import inputs, meshes, modules, output, targets, update_checks
from minijax.tools.errors import CommandError, Failure, UsageError
from minijax.tools.specs import SPEC_DTYPES, format_value, parse_spec, parse_value

EMITS = ('stablehlo', 'jaxpr', 'hlo', 'hlo-optimized', 'bytecode')
BACKENDS = ('pjrt', 'interpreter')


# ----------------------------------------------------------------------------- lower

def lower_command(args) -> None:
    _check_lower_flags(args)
    if args.debug_info:  # the form lowering.module_text takes
        args.debug_info = 'inline' if args.inline_locations else 'alias'
    specs = [parse_spec(s) for s in args.arg]
    shardings = _argument_shardings(args, len(specs))
    fn = _load_function(args.target, specs)
    output.write_output(args.output, _emit(fn, specs, args, shardings))


def _argument_shardings(args, count: int):
    """The ``NamedSharding`` of each argument (``--mesh`` and ``--sharding``), or None
    without a mesh. The CPU client is made with the mesh's devices (at least)."""
    if args.mesh is None:
        if args.sharding:
            raise UsageError('--sharding needs a --mesh to name the axes of')
        return None
    axes = meshes.parse_mesh(args.mesh)
    if len(args.sharding) not in (0, count):
        raise UsageError(f'--sharding: give one per --arg ({count}), got {len(args.sharding)}')
    size = math.prod([n for _, n in axes])
    if runtime.requested_device_count() < size:
        minijax.config.update('minijax_num_cpu_devices', size)
    mesh = minijax.make_mesh([n for _, n in axes], [a for a, _ in axes],
                             (minijax.sharding.AxisType.Auto,) * len(axes))
    texts = args.sharding or [''] * count
    return tuple(minijax.sharding.NamedSharding(
        mesh, minijax.P(*meshes.parse_sharding(t, mesh.axis_names))) for t in texts)


def _check_lower_flags(args) -> None:
    """A UsageError for flags that do not apply to the stage ``--emit`` names."""
    if args.emit == 'bytecode' and args.output is None:
        raise UsageError('--emit bytecode writes binary data: give an output file with -o '
                         '(-o - for stdout)')
    if args.inline_locations:
        if not args.debug_info:
            raise UsageError('--inline-locations writes the locations of --debug-info: give '
                             'both')
        if args.emit not in ('stablehlo', 'jaxpr'):
            raise UsageError(f'--inline-locations applies to the text of --emit stablehlo (and '
                             f'jaxpr, always inline), not {args.emit}')
    if args.target_version is not None:
        if args.emit != 'bytecode':
            raise UsageError(f'--target-version applies to --emit bytecode, not {args.emit}')
        modules.check_target_version(args.target_version)
    if args.passes is not None:
        if args.emit == 'jaxpr':
            raise UsageError('--passes runs on the StableHLO module: it does not apply to '
                             '--emit jaxpr')
        modules.pass_manager(args.passes)


def _emit(fn, specs, args, shardings=None) -> str | bytes:
    if args.emit == 'jaxpr':
        closed = minijax.make_jaxpr(fn)(*specs)
        return f'{closed.pretty_print(source_info=bool(args.debug_info))}\n'
    module = minijax.jit(fn, in_shardings=shardings).lower(*specs).compiler_ir()
    if args.passes is not None:
        module = modules.copy_of(module)  # (jit caches the module it lowered)
        modules.run_passes(module, args.passes)
    if args.emit == 'stablehlo':
        with mlir_context():
            return module_text(module, args.debug_info)
    if args.emit == 'hlo':
        return runtime.hlo_text(module, metadata=bool(args.debug_info))
    if args.emit == 'hlo-optimized':  # over a mesh: the program of one device
        exe = runtime.compile_module(module) if shardings is None else \
            runtime.compile_spmd(module, shardings[0]._device_assignment)
        return exe.hlo_text(metadata=bool(args.debug_info))
    if runtime.calls_back(module):
        raise Failure('the function calls back into Python (debug.print, debug.callback, '
                      'pure_callback): a portable artifact cannot carry the Python function, '
                      'so nothing could run it')
    return modules.portable_artifact(module, args.debug_info,
                                     args.target_version or modules.DEFAULT_TARGET_VERSION)


def _load_function(target: str, args):
    """The Python function ``target`` names (unwrapped from ``jit``), checked against the
    --arg list, its output checked when it is traced."""
    fn = targets.load_function(target)
    python_fn = fn.fun if isinstance(fn, Jitted) else fn
    _check_arity(python_fn, args, target)
    return _with_checked_output(python_fn, target)


def _with_checked_output(fn, target: str):
    """``fn``, with a Failure naming ``target`` when its output is not an array or a pytree
    of arrays: the command prints or lowers arrays, and without this check the error would
    be a TypeError from inside tracing that does not say it is about the output."""
    @functools.wraps(fn)
    def checked(*args):
        out = fn(*args)
        leaves = tree_util.tree_leaves(out)
        not_arrays = [x for x in leaves if not core.is_valid_value(x)]
        if not_arrays or not leaves:
            raise Failure(f'the output of {target} is {_describe_output(out, not_arrays)}: '
                          'expected an array, or a tuple, list or dict of arrays')
        return out
    return checked


def _describe_output(out, not_arrays) -> str:
    if out is None:
        return 'None'
    kind = type(out).__name__
    if not not_arrays:
        return f'a {kind} with no array in it'
    if not_arrays[0] is out:
        return f'of type {kind}'
    return f'a {kind} holding a value of type {type(not_arrays[0]).__name__}'


def _check_arity(fn, args, target: str) -> None:
    """A UsageError when the number of --arg does not fit ``fn``'s parameters."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a signature: let the call say what is wrong
    try:
        signature.bind(*args)
    except TypeError as err:
        raise UsageError(f'wrong number of --arg for {target}{signature}: {err} '
                         f'({len(args)} given)') from None


# ----------------------------------------------------------------------------- run

def run_command(args) -> None:
    values = [parse_value(v) for v in args.arg]
    if targets.is_python_target(args.target):
        if args.entry is not None:
            raise UsageError('--entry picks a function of a module file; a Python TARGET '
                             'names its function after the colon')
        outputs = _run_function(args.target, values, args.backend)
    else:
        outputs = _run_module_file(args.target, values, args.backend, args.entry or 'main')
    for out in outputs:
        print(format_value(out))


def _run_function(target: str, values, backend: str) -> list[np.ndarray]:
    lowered = minijax.jit(_load_function(target, values)).lower(*values)
    if backend == 'interpreter':
        return reference_interpreter.run_module(lowered.compiler_ir(),
                                                tree_util.tree_leaves(values))
    # As jit runs it: through its compile cache (and MINIJAX_DUMP_DIR).
    return [np.asarray(x) for x in tree_util.tree_leaves(lowered.compile()(*values))]


def _run_module_file(path: str, values, backend: str, entry: str) -> list[np.ndarray]:
    if path.endswith('.py'):
        raise UsageError(f"TARGET '{path}' needs a function: {path}:FUNCTION")
    module = modules.load_module(path)
    name = inputs.display_name(path)
    modules.make_entry(module, entry, name)
    flat_values = tree_util.tree_leaves(values)
    _check_entry_types(module, flat_values, name, entry)
    if backend == 'interpreter':
        return reference_interpreter.run_module(module, flat_values)
    executable = runtime.compile_module(module)
    return [runtime.to_host(b) for b in executable([runtime.device_put(a) for a in flat_values])]


def _check_entry_types(module, values, name: str, entry: str) -> None:
    """A UsageError unless ``values`` fit the arguments of the function to run."""
    expected = [str(t) for t in modules.entry_function(module, 'main', name).type.inputs]
    with mlir_context(), ir.Location.unknown():
        given = [str(tensor_type(v)) for v in values]
    if len(given) != len(expected):
        raise UsageError(f'wrong number of --arg for {name}: @{entry} takes {len(expected)}, '
                         f'{len(given)} given')
    for i, (g, e) in enumerate(zip(given, expected)):
        if g != e:
            raise UsageError(f'--arg {i} for {name} is a {g} but @{entry} expects {e}')


# ----------------------------------------------------------------------------- check, update

def check_command(args) -> None:
    module = modules.load_module(args.file)
    if args.entry is None:
        fns = modules.functions(module)
    else:
        fns = [modules.entry_function(module, args.entry, inputs.display_name(args.file))]
    for fn in fns:
        print(modules.signature(fn))


def update_checks_command(args) -> None:
    for path in args.files:
        n = update_checks.update_file(path)
        print(f'{path}: wrote {n} check block{"s" * (n != 1)}')


# ----------------------------------------------------------------------------- arguments

class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(2, f'{self.prog}: error: {message} (see {self.prog} --help)\n')



def _output_path(text: str) -> str:
    """``-o``'s value: a path, or ``-`` for stdout; an empty one is a usage error."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path (write to stdout with -o - or no -o)")
    return text

def build_parser() -> argparse.ArgumentParser:
    traceback_flag = argparse.ArgumentParser(add_help=False)
    traceback_flag.add_argument('--traceback', action='store_true', default=argparse.SUPPRESS,
                                help='on an error, also print the Python traceback')
    parser = _Parser(prog='minijax', parents=[traceback_flag], description=(
        'Lower Python functions to StableHLO MLIR, run and check modules, and keep lit '
        'golden tests up to date. Exit status: 0 on success, 1 when the work fails, '
        '2 for a bad command line, 130 on Ctrl-C.'))
    parser.add_argument('--version', action='version', version=_version())
    commands = parser.add_subparsers(title='commands', metavar='COMMAND', required=True)

    lower = commands.add_parser(
        'lower', parents=[traceback_flag], help='print the module of jit(FUNCTION)',
        description='Trace FUNCTION at the argument types given by --arg and print its '
                    'StableHLO module (or its jaxpr, optimized HLO or portable artifact).')
    lower.add_argument('target', metavar='TARGET',
                       help='path/to/file.py:function or package.module:function')
    lower.add_argument('--arg', metavar='SPEC', action='append', default=[],
                       help="the type of the next argument, in order: 'f32[3,4]', 'f64[]', "
                            "'u8[5]', 'bf16[2]', 'bool[]' (dtypes: "
                            f"{', '.join(SPEC_DTYPES)}; or float32[...]); a tuple argument "
                            "is '(f32[3], f32[3])'. Quote it: the shell globs brackets")
    lower.add_argument('--mesh', metavar='AXES',
                       help="lower for a mesh of devices: its axes and sizes, in order, "
                            "'x=4,y=2' (Auto axes, over that many CPU devices); each argument "
                            'then gets a --sharding (replicated by default) and the module '
                            'carries sdy.mesh and sdy.sharding as JAX writes them')
    lower.add_argument('--sharding', metavar='SPEC', action='append', default=[],
                       help="with --mesh, the PartitionSpec of the next argument, in order: "
                            "one entry per dimension, 'x,_' (split over x, then not split), "
                            "'x+y' (over x and y), '' (replicated)")
    lower.add_argument('-o', dest='output', metavar='OUT', type=_output_path,
                       help='write to OUT instead of stdout (-o - is stdout). A regular file '
                            'is written atomically: on an error or Ctrl-C it is neither '
                            'created nor changed; /dev/null or a FIFO is written into')
    lower.add_argument('--emit', choices=EMITS, default='stablehlo',
                       help='stablehlo: the module of jit(FUNCTION) (default); jaxpr: the '
                            "jaxpr; hlo: the HLO XLA starts from (JAX's as_text(dialect="
                            "'hlo')); hlo-optimized: the HLO XLA compiled; bytecode: a "
                            'versioned StableHLO portable artifact (needs -o)')
    lower.add_argument('--debug-info', action='store_true',
                       help="add where each op came from: its name stack and the user's file "
                            'and line (stablehlo and bytecode: locations, each an alias '
                            'defined after the module as JAX prints them; jaxpr: a comment on '
                            "each equation; hlo, hlo-optimized: XLA's metadata, which they "
                            'omit without it)')
    lower.add_argument('--inline-locations', action='store_true',
                       help='with --debug-info, write each location out on its op instead of '
                            'as an alias (stablehlo)')
    lower.add_argument('--target-version', metavar='X.Y.Z',
                       help='the StableHLO version of a bytecode artifact (default '
                            f'{modules.DEFAULT_TARGET_VERSION}, as jax.export: at least 4 '
                            'weeks old, so that older consumers read it; from '
                            f'{stablehlo.get_minimum_version()} to '
                            f'{stablehlo.get_current_version()})')
    lower.add_argument('--passes', metavar='PIPELINE',
                       help='run MLIR passes on the module before emitting it, e.g. '
                            'canonicalize,cse,symbol-dce (passes jaxlib registers; inline '
                            "leaves func.call alone: jaxlib does not register func's "
                            'inliner)')
    lower.set_defaults(command=lower_command)

    run = commands.add_parser(
        'run', parents=[traceback_flag], help='compile and run a function or a module',
        description='Compile TARGET, run it on the --arg values and print each output as a '
                    'VALUE.')
    run.add_argument('target', metavar='TARGET',
                     help='path/to/file.py:function, package.module:function, or a module '
                          'file (- for stdin): .mlir text, MLIR bytecode or a StableHLO '
                          'portable artifact; JAX\'s modules (chlo, sdy) too')
    run.add_argument('--arg', metavar='VALUE', action='append', default=[],
                     help="the next argument, in order: SPEC=literal ('f32[3]=[1,2,3]', "
                          "'f64[]=2.5', 'c64[2]=[1+2j, -0.5j]', '(f32[2], i32[])=([1,2], 3)') "
                          'or @file.npy; every VALUE that run prints reads back')
    run.add_argument('--entry', metavar='NAME', type=_function_name,
                     help='the function of a module file to run (default: main)')
    run.add_argument('--backend', choices=BACKENDS, default='pjrt',
                     help='pjrt: compile with XLA and run on the CPU (default); interpreter: '
                          'the StableHLO reference interpreter shipped in jaxlib')
    run.set_defaults(command=run_command)

    check = commands.add_parser(
        'check', parents=[traceback_flag], help='parse and verify a module',
        description='Parse and verify FILE and print its function signatures; on an invalid '
                    'module, print the MLIR diagnostics (file:line:col) and exit 1.')
    check.add_argument('file', metavar='FILE',
                       help='a .mlir file, MLIR bytecode or a portable artifact (- for stdin)')
    check.add_argument('--entry', metavar='NAME', type=_function_name,
                       help='print only the signature of function NAME (an error if absent)')
    check.set_defaults(command=check_command)

    update = commands.add_parser(
        'update-checks', parents=[traceback_flag],
        help="rewrite a lit test's CHECK lines from its RUN output",
        description=update_checks.__doc__.split('\n\n')[0].replace('``', "'"))
    update.add_argument('files', metavar='FILE', nargs='+', help='a lit test file')
    update.set_defaults(command=update_checks_command)
    course.add_commands(commands, traceback_flag)
    return parser


def _function_name(text: str) -> str:
    """An --entry NAME: not empty (which would silently mean @main)."""
    if not text:
        raise argparse.ArgumentTypeError('expected the name of a function, got an empty one')
    return text


def _version() -> str:
    """``minijax 0.1.0 (jaxlib 0.10.2, StableHLO 1.17.0)``: what a bug report needs."""
    return (f"minijax {importlib.metadata.version('minijax')} (jaxlib "
            f'{jaxlib_version.__version__}, StableHLO {stablehlo.get_current_version()})')


# ----------------------------------------------------------------------------- errors

_LIBRARY_DIRS = tuple(os.path.join(d, '') for d in {
    *(sysconfig.get_paths()[k] for k in ('stdlib', 'platstdlib', 'purelib', 'platlib')),
    os.path.dirname(os.path.abspath(minijax.__file__))})


def _is_user_file(filename: str) -> bool:
    return not filename.startswith('<') and not os.path.abspath(filename).startswith(
        _LIBRARY_DIRS)


def describe_exception(err: BaseException) -> str:
    """One line: the message, at the innermost frame of the user's code if there is one."""
    if isinstance(err, SyntaxError) and err.filename:
        return f'{err.filename}:{err.lineno}: error: SyntaxError: {err.msg}'
    message = ' '.join(f'{type(err).__name__}: {err}'.split())
    frames = [f for f in traceback.extract_tb(err.__traceback__) if _is_user_file(f.filename)]
    if not frames:
        return f'minijax: error: {message}'
    frame = frames[-1]
    return f'{frame.filename}:{frame.lineno}: error: in {frame.name}: {message}'


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _interruptibly(args.command, args)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C changes nothing
        print('minijax: error: interrupted', file=sys.stderr)
        output.exit_now(128 + signal.SIGINT)  # the shell's status for a Ctrl-C
    except CommandError as err:
        _print_traceback_if_asked(args)
        print(err.report(), file=sys.stderr)
        return err.exit_code
    except Exception as err:  # raised by the user's code, or a bug in minijax
        _print_traceback_if_asked(args)
        print(describe_exception(err), file=sys.stderr)
        return 1
    return 0


def _interruptibly(command, args) -> None:
    """Run ``command(args)`` on a worker thread while the main thread waits, so that Ctrl-C
    (which Python delivers to the main thread, between bytecodes) is seen at once, even while
    XLA runs a compiled endless loop in C++ that never returns to Python. The worker's
    exception, if any, is raised here."""
    raised = []

    def work():
        try:
            command(args)
        except BaseException as err:  # noqa: B036 (handed to the main thread, whatever it is)
            raised.append(err)

    worker = threading.Thread(target=work, name='minijax-command', daemon=True)
    worker.start()
    worker.join()
    if raised:
        raise raised[0]


def _print_traceback_if_asked(args) -> None:
    if getattr(args, 'traceback', False):
        traceback.print_exc()


if __name__ == '__main__':
    sys.exit(main())
