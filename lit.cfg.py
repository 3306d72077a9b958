"""lit configuration for minijax's FileCheck tests (run them with ``lit test/lit``).

A test is a ``.py`` file (``# RUN: %python %s | FileCheck %s``), an ``.mlir`` file run through
the ``minijax`` command, or a ``.test`` file of RUN lines. ``%python`` is the interpreter lit
runs in; ``FileCheck`` is the ``filecheck`` executable of the PyPI package; ``minijax`` is the
command installed beside that interpreter.
"""
import os
import shlex
import shutil
import sys

import lit.formats

config.name = 'minijax'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.py', '.mlir', '.test']
# The suite's root is the repository's root: only test/lit holds tests.
config.excludes = ['Inputs', 'lit.cfg.py', 'examples', 'minijax', 'unit', 'build', '.ci']

bin_dir = os.path.dirname(sys.executable)
# The minijax under test is this checkout's (a worktree's), not the one pip installed.
config.environment['PYTHONPATH'] = os.path.dirname(os.path.abspath(__file__))
config.environment['PATH'] = os.pathsep.join([bin_dir, config.environment.get('PATH', '')])

filecheck = shutil.which('filecheck', path=config.environment['PATH'])
if filecheck is None:
    lit_config.fatal("no 'filecheck' executable: pip install -e '.[test]'")
if shutil.which('minijax', path=config.environment['PATH']) is None:
    lit_config.fatal("no 'minijax' command: pip install -e '.[test]'")

config.substitutions.append(('%python', shlex.quote(sys.executable)))
config.substitutions.append(('FileCheck', shlex.quote(filecheck)))
