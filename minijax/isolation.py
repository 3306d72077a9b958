"""Running code that can kill the process in a child process, so that a crash becomes an error.

MLIR aborts the whole process on some inputs: the StableHLO reference interpreter on an op or
value it does not support (LLVM ERROR, SIGFPE), the bytecode reader on a corrupt file ("double
free"). ``call_isolated`` runs such a call in a child process: its result comes back pickled
through a pipe, and a signal or an exception in the child comes back as ``Crashed``.

The children are forked from a fork server: a fresh Python process (``python -c``, on the
caller's ``sys.path``) that has imported minijax and runs nothing else. A child forked from
the caller itself would inherit copies of the caller's locks held by threads that do not
exist in the child (XLA's, MLIR's thread pools), and could wait for them forever. And
``multiprocessing``'s own fork server would re-run the caller's script in every child (its
rule that a script guards its code with ``if __name__ == '__main__':``), so a plain script
calling ``minijax.testing.check_rules`` would run twice, and a script read from standard
input not at all. Here a child runs ``fn`` and nothing more.

The caller sends each call, pickled, on the server's standard input; the server forks a
child that runs it and writes its report on a pipe, waits for the child, and answers on its
standard output with the child's exit code, its report and the last line of its stderr.
When the isolation itself fails (the server does not start or dies, the call does not
travel by pickle), ``IsolationError`` says so: nothing was run, and ``fn`` is not to blame.

The server and its children are a process group of their own, out of reach of Ctrl-C: the
caller, interrupted while it waits, kills the whole group; and the server watches its pipe of
requests, so that when the caller is gone (however it ended) it kills the running child and
exits. A child stuck in a long run never outlives its caller.
"""
from __future__ import annotations

import atexit
import contextlib
import faulthandler
import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import threading
import traceback


class Crashed(Exception):
    """The child died from a signal (``signal_number``; the message names it, ``SIGABRT``) or
    raised (the message is its exception). ``last_line`` is the last line the child wrote on
    stderr (LLVM's own report of the crash), which is not shown to the user."""

    def __init__(self, message: str, signal_number: int | None = None, last_line: str = ''):
        super().__init__(message)
        self.signal_number = signal_number
        self.last_line = last_line


class IsolationError(RuntimeError):
    """The call could not be run in a child process: the fork server did not start or died,
    or the function or its arguments do not travel by pickle. Nothing was run."""


def call_isolated(fn, *args):
    """``fn(*args)`` in a child process. ``fn`` is a module-level function of an importable
    module (not ``__main__``); its arguments and its result are picklable (an MLIR module
    travels as bytecode)."""
    try:
        request = pickle.dumps((fn, args))
    except Exception as err:
        raise IsolationError(f'cannot send {fn!r} to a child process: '
                             f'{type(err).__name__}: {err}') from err
    with _lock:
        exit_code, report, last_line = _ask_server(request)
    return _outcome(exit_code, report, last_line)


def _outcome(exit_code: int, report: bytes, last_line: str):
    """The child's result, or the exception that says what became of it."""
    if exit_code < 0:
        if -exit_code == signal.SIGINT:  # the user's interrupt, not a crash
            raise KeyboardInterrupt
        raise Crashed(signal.Signals(-exit_code).name, -exit_code, last_line)
    if not report:
        raise IsolationError(f'the child process exited with status {exit_code} without a '
                             f'report{": " + last_line if last_line else ""}')
    ok, value = pickle.loads(report)
    if ok is None:
        raise IsolationError(value)
    if not ok:
        raise Crashed(value, None, last_line)
    return value

# ----------------------------------------------------------------------------- talking to the server


_lock = threading.Lock()  # one call at a time goes through the server's pipes
_servers: dict[int, subprocess.Popen] = {}  # by the pid of the process that started it


def _ask_server(request: bytes) -> tuple[int, bytes, str]:
    """Send one call to the fork server and return its answer. A server that failed, or
    whose answer was interrupted (Ctrl-C), is stopped: the next call starts a new one."""
    server = _running_server()
    try:
        _send(server.stdin, request)
        answer = _receive(server.stdout)
    except BrokenPipeError:
        answer = None
    except BaseException:  # the answer on its way would be taken for the next call's
        _stop_server()
        raise
    if answer is None:
        _stop_server()
        raise IsolationError(f'the fork server of {__name__} exited with status '
                             f'{server.returncode} (its messages are on stderr)')
    return pickle.loads(answer)


def _running_server() -> subprocess.Popen:
    """This process's fork server, started on first use (a forked copy of the caller starts
    its own: the pipes of its parent's server are not its to use)."""
    server = _servers.get(os.getpid())
    if server is not None and server.poll() is None:
        return server
    _stop_server()  # (one that died: its pipes closed)
    code = f'import sys; sys.path[:] = {sys.path!r}; from {__name__} import _serve; _serve()'
    try:
        server = subprocess.Popen([sys.executable, '-c', code], process_group=0,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as err:
        raise IsolationError(f'cannot start the fork server ({sys.executable}): {err}') from err
    _servers[os.getpid()] = server
    return server


@atexit.register
def _stop_server() -> None:
    """Kill the fork server and any child of it (their process group)."""
    server = _servers.pop(os.getpid(), None)
    if server is not None:
        with contextlib.suppress(ProcessLookupError):  # (all gone already)
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        for pipe in (server.stdin, server.stdout):
            with contextlib.suppress(OSError):  # (a broken pipe)
                pipe.close()


def _send(pipe, data: bytes) -> None:
    pipe.write(len(data).to_bytes(8, 'little') + data)
    pipe.flush()


def _receive(pipe) -> bytes | None:
    """The next message on ``pipe``, or None at its end."""
    header = pipe.read(8)
    if len(header) < 8:
        return None
    size = int.from_bytes(header, 'little')
    data = pipe.read(size)
    return data if len(data) == size else None

# ----------------------------------------------------------------------------- the fork server


def _serve() -> None:
    """(the fork server) Run each call read from stdin in a child of its own; answer on
    stdout. It ends when the caller closes its stdin or exits, even during a call."""
    requests, answers = os.fdopen(os.dup(0), 'rb'), os.fdopen(os.dup(1), 'wb')
    os.dup2(2, 1)  # what anything prints goes to stderr, off the answers' pipe
    while (request := _receive(requests)) is not None:
        answer = _run_in_child(request, requests.fileno())
        if answer is None:
            return
        _send(answers, pickle.dumps(answer))


def _run_in_child(request: bytes, caller: int) -> tuple[int, bytes, str] | None:
    """(the fork server) Fork a child that runs the pickled call ``request``. Its exit code
    (negative: the signal that killed it), its report and the last line of its stderr; None
    if the caller went away first (it exited, or was interrupted): the child is killed."""
    reports, report_end = os.pipe()
    with tempfile.TemporaryFile() as stderr:
        pid = os.fork()
        if pid == 0:
            os.close(reports)
            _child_main(request, report_end, stderr.fileno())
        os.close(report_end)
        report = _read_report(reports, caller)
        if report is None:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        stderr.seek(0)
        last_line = (stderr.read().decode(errors='replace').strip().splitlines() or [''])[-1]
    return None if report is None else (os.waitstatus_to_exitcode(status), report, last_line)


def _read_report(reports: int, caller: int) -> bytes | None:
    """(the fork server) Everything the child writes on ``reports`` (read as it comes: a
    large report would fill the pipe), or None as soon as ``caller``, the pipe of requests,
    ends. The caller sends nothing while it waits, so that pipe is readable only at its
    end."""
    chunks = []
    with os.fdopen(reports, 'rb', buffering=0) as pipe:
        while True:
            readable, _, _ = select.select([pipe, caller], [], [])
            if caller in readable:
                return None
            chunk = pipe.read(1 << 16)
            if not chunk:
                return b''.join(chunks)
            chunks.append(chunk)


def _child_main(request: bytes, report_end: int, stderr_fd: int) -> None:
    """(in the child) Run the call and write its report: (True, result), (False, the error
    it raised) or (None, why it could not be called). Never returns: the server's loop is
    not the child's to run."""
    os.dup2(stderr_fd, 2)
    faulthandler.disable()  # its report of the crash would hide LLVM's last line
    # A SIGINT sent to the child (at a stuck run) ends it, and the caller takes it for Ctrl-C
    # (native code holding the GIL would keep Python's own SIGINT handler from ever running).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        with os.fdopen(report_end, 'wb') as sink:
            sink.write(pickle.dumps(_report(request)))
    except BaseException:  # noqa: B036 (an unpicklable result: no report, said on stderr)
        traceback.print_exc()
        os._exit(1)
    os._exit(0)


def _report(request: bytes) -> tuple[bool | None, object]:
    try:
        fn, args = pickle.loads(request)
    except BaseException as err:  # noqa: B036 (reported to the caller, whatever it is)
        return None, f'cannot run the call in a child process: {type(err).__name__}: {err}'
    try:
        return True, fn(*args)
    except BaseException as err:  # noqa: B036
        return False, f'{type(err).__name__}: {err}'
