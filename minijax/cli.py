"""The ``minijax`` command: lower Python functions to StableHLO, run and check modules, and
keep lit golden tests up to date, in the habits of the LLVM/MLIR tools.

Errors are one line on stderr and an exit status: 2 for a bad command line, 1 when the work
fails (an invalid module, an exception in the user's function: shown with the user's frame).
``--traceback`` shows the Python traceback too. Ctrl-C is one line too, and exit status 130.
"""
from __future__ import annotations

import argparse
import functools
import inspect
import os
import signal
import sys
import sysconfig
import threading
import traceback

import numpy as np
from jaxlib.mlir import ir

import minijax
from minijax import core, reference_interpreter, runtime, tree_util
from minijax.jit import Jitted
from minijax.lowering import mlir_context, tensor_type
from minijax.tools import modules, output, targets, update_checks
from minijax.tools.errors import CommandError, Failure, UsageError
from minijax.tools.specs import format_value, parse_spec, parse_value

EMITS = ('stablehlo', 'jaxpr', 'hlo', 'bytecode')
BACKENDS = ('pjrt', 'interpreter')


# ----------------------------------------------------------------------------- lower

def lower_command(args) -> None:
    if args.emit == 'bytecode' and args.output is None:
        raise UsageError('--emit bytecode writes binary data: give an output file with -o')
    if args.debug_info and args.emit not in ('stablehlo', 'bytecode'):
        raise UsageError(f'--debug-info applies to --emit stablehlo or bytecode, '
                         f'not {args.emit}')
    specs = [parse_spec(s) for s in args.arg]
    fn = _load_function(args.target, specs)
    output.write_output(args.output, _emit(fn, specs, args.emit, args.debug_info))


def _emit(fn, specs, emit: str, debug_info: bool) -> str | bytes:
    if emit == 'jaxpr':
        return f'{minijax.make_jaxpr(fn)(*specs)}\n'
    lowered = minijax.jit(fn).lower(*specs)
    if emit == 'stablehlo':
        return lowered.as_text(debug_info=debug_info)
    if emit == 'hlo':
        return lowered.compile().as_text()
    return modules.portable_artifact(lowered.compiler_ir(), debug_info)


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
        outputs = _run_function(args.target, values, args.backend)
    else:
        outputs = _run_module_file(args.target, values, args.backend)
    for out in outputs:
        print(format_value(out))


def _run_function(target: str, values, backend: str) -> list[np.ndarray]:
    lowered = minijax.jit(_load_function(target, values)).lower(*values)
    if backend == 'interpreter':
        return reference_interpreter.run_module(lowered.compiler_ir(),
                                                tree_util.tree_leaves(values))
    # As jit runs it: through its compile cache (and MINIJAX_DUMP_DIR).
    return [np.asarray(x) for x in tree_util.tree_leaves(lowered.compile()(*values))]


def _run_module_file(path: str, values, backend: str) -> list[np.ndarray]:
    if path.endswith('.py'):
        raise UsageError(f"TARGET '{path}' needs a function: {path}:FUNCTION")
    module = modules.load_module(path)
    flat_values = tree_util.tree_leaves(values)
    _check_entry_types(module, flat_values, path)
    if backend == 'interpreter':
        return reference_interpreter.run_module(module, flat_values)
    executable = runtime.compile_module(module)
    return [np.asarray(b) for b in executable([runtime.device_put(a) for a in flat_values])]


def _check_entry_types(module, values, path: str) -> None:
    """A UsageError unless ``values`` fit the arguments of the module's ``@main``."""
    expected = [str(t) for t in modules.entry_function(module, path).type.inputs]
    with mlir_context(), ir.Location.unknown():
        given = [str(tensor_type(v)) for v in values]
    if len(given) != len(expected):
        raise UsageError(f'wrong number of --arg for {path}: @main takes {len(expected)}, '
                         f'{len(given)} given')
    for i, (g, e) in enumerate(zip(given, expected)):
        if g != e:
            raise UsageError(f'--arg {i} for {path} is a {g} but @main expects {e}')


# ----------------------------------------------------------------------------- check, update

def check_command(args) -> None:
    module = modules.load_module(args.file)
    for fn in modules.functions(module):
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


def build_parser() -> argparse.ArgumentParser:
    traceback_flag = argparse.ArgumentParser(add_help=False)
    traceback_flag.add_argument('--traceback', action='store_true', default=argparse.SUPPRESS,
                                help='on an error, also print the Python traceback')
    parser = _Parser(prog='minijax', parents=[traceback_flag], description=(
        'Lower Python functions to StableHLO MLIR, run and check modules, and keep lit '
        'golden tests up to date. Exit status: 0 on success, 1 when the work fails, '
        '2 for a bad command line.'))
    commands = parser.add_subparsers(title='commands', metavar='COMMAND', required=True)

    lower = commands.add_parser(
        'lower', parents=[traceback_flag], help='print the module of jit(FUNCTION)',
        description='Trace FUNCTION at the argument types given by --arg and print its '
                    'StableHLO module (or its jaxpr, optimized HLO or portable artifact).')
    lower.add_argument('target', metavar='TARGET',
                       help='path/to/file.py:function or package.module:function')
    lower.add_argument('--arg', metavar='SPEC', action='append', default=[],
                       help='the type of the next argument, in order: f32[3,4], f64[], '
                            'i32[5], bool[] (or float32[...], int64[...]); a tuple argument '
                            "is '(f32[3], f32[3])'")
    lower.add_argument('-o', dest='output', metavar='OUT',
                       help='write to OUT instead of stdout (atomically: on an error or '
                            'Ctrl-C a regular file OUT is neither created nor changed)')
    lower.add_argument('--emit', choices=EMITS, default='stablehlo',
                       help='stablehlo: the module of jit(FUNCTION) (default); jaxpr: the '
                            "jaxpr; hlo: XLA's optimized HLO; bytecode: a versioned StableHLO "
                            'portable artifact (needs -o)')
    lower.add_argument('--debug-info', action='store_true',
                       help="add locations: the user's file and line and the primitive name "
                            'of each op (stablehlo and bytecode)')
    lower.set_defaults(command=lower_command)

    run = commands.add_parser(
        'run', parents=[traceback_flag], help='compile and run a function or a module',
        description='Compile TARGET, run it on the --arg values and print each output as a '
                    'VALUE.')
    run.add_argument('target', metavar='TARGET',
                     help='path/to/file.py:function, package.module:function, a .mlir file or '
                          'a StableHLO portable artifact (run as given: its @main)')
    run.add_argument('--arg', metavar='VALUE', action='append', default=[],
                     help='the next argument, in order: SPEC=literal (f32[3]=[1,2,3], '
                          "f64[]=2.5, '(f32[2], i32[])=([1,2], 3)') or @file.npy")
    run.add_argument('--backend', choices=BACKENDS, default='pjrt',
                     help='pjrt: compile with XLA and run on the CPU (default); interpreter: '
                          'the StableHLO reference interpreter shipped in jaxlib')
    run.set_defaults(command=run_command)

    check = commands.add_parser(
        'check', parents=[traceback_flag], help='parse and verify a module',
        description='Parse and verify FILE and print its function signatures; on an invalid '
                    'module, print the MLIR diagnostics (file:line:col) and exit 1.')
    check.add_argument('file', metavar='FILE', help='a .mlir file or a portable artifact')
    check.set_defaults(command=check_command)

    update = commands.add_parser(
        'update-checks', parents=[traceback_flag],
        help="rewrite a lit test's CHECK lines from its RUN output",
        description=update_checks.__doc__.split('\n\n')[0].replace('``', "'"))
    update.add_argument('files', metavar='FILE', nargs='+', help='a lit test file')
    update.set_defaults(command=update_checks_command)
    return parser


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
