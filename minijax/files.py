"""Writing a file whole or not at all, for the command line and for ``MINIJAX_DUMP_DIR``.

A regular file (or a new one) is written next to its destination under a temporary name and
renamed into place only once complete, so an error, a crash or Ctrl-C never leaves a partial
or changed file behind. A symbolic link is followed: its target is replaced, the link stays,
as editors do. Anything else that exists (``/dev/null``, a FIFO, a terminal) is opened and
written, as the shell's ``>`` does: renaming over it would replace the device node or pipe.
"""
from __future__ import annotations

import os
import stat
import tempfile
import threading

#: Held while a temporary file exists, so that a process ending at once can wait for it.
temporary_file = threading.Lock()


def write_file(path: str, data: str | bytes) -> None:
    """Replace a regular file atomically; write into anything else that exists."""
    data = data.encode() if isinstance(data, str) else data
    destination = os.path.realpath(path)
    if os.path.exists(destination) and not stat.S_ISREG(os.stat(destination).st_mode):
        with open(destination, 'wb') as f:
            f.write(data)
    else:
        _replace_atomically(destination, data)


def _replace_atomically(path: str, data: bytes) -> None:
    with temporary_file:
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
