"""Writing a command's result: to stdout, or to a file written whole or not at all
(``minijax.files``), and ending the process without leaving a temporary file behind.
"""
from __future__ import annotations

import os
import sys

from minijax import files
from minijax.tools.errors import Failure


def write_output(path: str | None, data: str | bytes) -> None:
    """Write ``data`` to ``path``, or to stdout when ``path`` is None or ``-``."""
    if path is None or path == '-':
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    write_file(path, data)


def write_file(path: str, data: str | bytes) -> None:
    """``minijax.files.write_file``, its failure one line for the command line."""
    try:
        files.write_file(path, data)
    except OSError as err:
        raise Failure(f"cannot write '{path}': {err.strerror}") from None


def exit_now(status: int) -> None:
    """End the process at once, even with a thread stuck in compiled code, but never while a
    temporary file exists: wait until it is renamed or removed, and start no other."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to show
            pass
    files.temporary_file.acquire()
    os._exit(status)
