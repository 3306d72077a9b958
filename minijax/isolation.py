"""Running code that can kill the process in a child process, so that a crash becomes an error.

MLIR aborts the whole process on some inputs: the StableHLO reference interpreter on an op or
value it does not support (LLVM ERROR, SIGFPE), the bytecode reader on a corrupt file ("double
free"). ``call_isolated`` runs such a call in a child process: its result comes back pickled
through a pipe, and a signal or an exception in the child comes back as ``Crashed``.

The children are forked from a fork server, a fresh Python process that has imported minijax
and nothing else: a child forked from the caller itself would inherit copies of the caller's
locks held by threads that do not exist in the child (XLA's, MLIR's thread pools), and could
wait for them forever.
"""
from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import tempfile

_WORKERS = multiprocessing.get_context('forkserver')
_WORKERS.set_forkserver_preload(['minijax'])  # each child starts with minijax imported


class Crashed(Exception):
    """The child died from a signal (``signal_number``; the message names it, ``SIGABRT``) or
    raised (the message is its exception). ``last_line`` is the last line the child wrote on
    stderr (LLVM's own report of the crash), which is not shown to the user."""

    def __init__(self, message: str, signal_number: int | None = None, last_line: str = ''):
        super().__init__(message)
        self.signal_number = signal_number
        self.last_line = last_line


def call_isolated(fn, *args):
    """``fn(*args)`` in a child process. ``fn`` is a module-level function; its arguments
    and its result are picklable (an MLIR module travels as bytecode)."""
    receiver, sender = _WORKERS.Pipe(duplex=False)
    with tempfile.NamedTemporaryFile() as child_stderr:
        child = _WORKERS.Process(target=_child_main, daemon=True,
                                 args=(sender, child_stderr.name, fn, args))
        child.start()
        sender.close()
        try:
            ok, value = receiver.recv()
        except EOFError:  # it died before sending
            ok, value = None, None
        receiver.close()
        child.join()
        last_line = (child_stderr.read().decode(errors='replace').strip().splitlines()
                     or [''])[-1]
    if child.exitcode is not None and child.exitcode < 0:
        number = -child.exitcode
        if number == signal.SIGINT:  # Ctrl-C: the user's, not a crash
            raise KeyboardInterrupt
        raise Crashed(signal.Signals(number).name, number, last_line)
    if not ok:
        raise Crashed(value or f'the child exited with status {child.exitcode}', None,
                      last_line)
    return value


def _child_main(sender, stderr_path: str, fn, args) -> None:
    """(in the child) Run ``fn(*args)`` and send back (True, result) or (False, error)."""
    fd = os.open(stderr_path, os.O_WRONLY)
    os.dup2(fd, 2)
    faulthandler.disable()  # its report of the crash would go to the parent's stderr
    # Ctrl-C reaches the whole process group: the child dies with its parent (native code
    # holding the GIL would keep Python's own SIGINT handler from ever running).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        message = (True, fn(*args))
    except BaseException as err:  # noqa: B036 (reported to the parent, whatever it is)
        message = (False, f'{type(err).__name__}: {err}')
    sender.send(message)
    sender.close()
