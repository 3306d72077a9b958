"""Finding the Python function a TARGET names: ``path/to/file.py:function`` or
``package.module:function``.

A file is executed as a module named after it, with its directory on ``sys.path`` as when it
is run with ``python``; a dotted module is imported with the current directory on ``sys.path``.
``function`` may be dotted (``Class.method``). Exceptions raised by the user's module itself
propagate, so that the command can show the user's frame.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys

from minijax.tools import inputs
from minijax.tools.errors import Failure, UsageError


def is_python_target(target: str) -> bool:
    return ':' in target


_MISSING = object()


def load_function(target: str):
    """The callable that ``target`` names; a UsageError if there is no such file or function."""
    where, _, name = target.rpartition(':')
    if not where or not name:
        raise UsageError(f"bad TARGET '{target}': expected path/to/file.py:function or "
                         'package.module:function')
    if where.endswith('.py') or os.sep in where:
        module = _load_file(where)
    else:
        module = _import(where)
    fn = module
    for attr in name.split('.'):
        fn = getattr(fn, attr, _MISSING)
        if fn is _MISSING:
            raise UsageError(f"{where} has no function '{name}'")
    if not callable(fn):
        raise UsageError(f"'{name}' in {where} is not a function (it is of type "
                         f'{type(fn).__name__})')
    return fn


def _load_file(path: str):
    source = inputs.read_bytes(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.modules.setdefault(name, module)
    exec(_compile(source, path), module.__dict__)
    return module


def _compile(source: bytes, path: str):
    """The code of a Python file. A binary file is a Failure naming the file (Python's own
    error for it names neither file nor line), as a SyntaxError is one naming its line."""
    if b'\0' in source:
        raise Failure(f"'{path}' is not text (it holds NUL bytes): expected Python source")
    return compile(source, path, 'exec')


def _import(name: str):
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name and (name == err.name or name.startswith(err.name + '.')):
            raise UsageError(f"no module named '{name}'") from None
        raise  # a missing import inside the user's module: show the user's frame
