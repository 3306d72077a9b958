"""Writing a command's result: to stdout, or to a file that is written whole or not at all.

A regular file (or a new one) is written next to its destination under a temporary name and
renamed into place only once complete, so an error, a crash or Ctrl-C never leaves a partial
or changed file behind. A symbolic link is followed: its target is replaced, the link stays,
as editors do. Anything else that exists (``/dev/null``, a FIFO, a terminal) is opened and
written, as the shell's ``>`` does: renaming over it would replace the device node or pipe.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
import threading

from minijax.tools.errors import Failure

#: Held while a temporary file exists: ``exit_now`` waits for it to be renamed or removed.
_temporary_file = threading.Lock()


def write_output(path: str | None, data: str | bytes) -> None:
    """Write ``data`` to ``path``, or to stdout when ``path`` is None."""
    if path is None:
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    write_file(path, data)


def write_file(path: str, data: str | bytes) -> None:
    """Replace a regular file atomically; write into anything else that exists."""
    data = data.encode() if isinstance(data, str) else data
    destination = os.path.realpath(path)
    try:
        if os.path.exists(destination) and not stat.S_ISREG(os.stat(destination).st_mode):
            with open(destination, 'wb') as f:
                f.write(data)
        else:
            _replace_atomically(destination, data)
    except OSError as err:
        raise Failure(f"cannot write '{path}': {err.strerror}") from None


def _replace_atomically(path: str, data: bytes) -> None:
    with _temporary_file:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path),
                                   prefix=f'.{os.path.basename(path)}.', suffix='.tmp')
        try:
            with os.fdopen(fd, 'wb') as f:
                f.write(data)
            os.chmod(tmp, _mode_for(path))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _mode_for(path: str) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0o666 minus the umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def exit_now(status: int) -> None:
    """End the process at once, even with a thread stuck in compiled code, but never while a
    temporary file exists: wait until it is renamed or removed, and start no other."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to show
            pass
    _temporary_file.acquire()
    os._exit(status)
