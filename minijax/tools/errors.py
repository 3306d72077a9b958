"""The errors the ``minijax`` command reports as one line on stderr, without a traceback.

The exit status tells a script whose fault it was: 2 for a bad command line (as argparse
does), 1 when the work itself failed.
"""


class CommandError(Exception):
    """An error to report as ``<where>: error: <message>``; ``where`` is a file:line:col or
    the program's name."""
    exit_code = 1

    def __init__(self, message: str, where: str = 'minijax'):
        super().__init__(message)
        self.where = where

    def report(self) -> str:
        return f'{self.where}: error: {self}'


class UsageError(CommandError):
    """The command line is wrong: a missing file or function, a bad SPEC or VALUE (exit 2)."""
    exit_code = 2


class Failure(CommandError):
    """The command line is fine but the work failed: an invalid module, a failed run (exit 1)."""
    exit_code = 1
