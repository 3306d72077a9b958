"""Reading the files a command is given, with errors that name the file and say what is wrong
with it (missing, a directory, unreadable, not text) rather than an OSError or a
UnicodeDecodeError from deep inside.
"""
from __future__ import annotations

import os
import sys

from minijax.tools.errors import Failure, UsageError

#: The name that means standard input, as for the MLIR tools.
STDIN = '-'


def display_name(path: str) -> str:
    """How diagnostics name an input: ``<stdin>`` for ``-``, as MLIR's tools do."""
    return '<stdin>' if path == STDIN else path


def check_file(path: str) -> None:
    """A UsageError unless ``path`` names something that can be opened as a file."""
    if os.path.isdir(path):
        raise UsageError(f"'{path}' is a directory, not a file")
    if not os.path.exists(path):
        raise UsageError(f"no such file: '{path}'")


def read_bytes(path: str) -> bytes:
    """The contents of the file ``path`` (standard input for ``-``)."""
    if path == STDIN:
        return sys.stdin.buffer.read()
    check_file(path)
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError as err:
        raise UsageError(f"cannot read '{path}': {err.strerror}") from None


def decode_text(data: bytes, path: str, expected: str) -> str:
    """``data`` (read from ``path``) as UTF-8 text; ``expected`` says what kind of text.
    Bytes that are not text are a Failure: the file was read, and is not what it should be."""
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as err:
        raise Failure(f"'{display_name(path)}' is not text (byte {err.start} is not "
                         f'UTF-8): expected '
                         f'{expected}') from None


def read_text(path: str, expected: str) -> str:
    """The UTF-8 text of the file ``path``; ``expected`` says what kind of text."""
    return decode_text(read_bytes(path), path, expected)
