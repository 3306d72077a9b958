"""Writing a command's result: to stdout, or to a file replaced atomically.

The file is written next to its destination under a temporary name and renamed into place
only once complete, so an error (or a crash) never leaves a partial or changed file behind.
"""
from __future__ import annotations

import os
import sys
import tempfile

from minijax.tools.errors import Failure


def write_output(path: str | None, data: str | bytes) -> None:
    """Write ``data`` to ``path``, or to stdout when ``path`` is None."""
    if path is None:
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    write_atomically(path, data)


def write_atomically(path: str, data: str | bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f'.{os.path.basename(path)}.',
                                   suffix='.tmp')
    except OSError as err:
        raise Failure(f"cannot write '{path}': {err.strerror}") from None
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except OSError as err:
        raise Failure(f"cannot write '{path}': {err.strerror}") from None
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
