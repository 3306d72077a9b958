"""``minijax update-checks``: rewrite a lit test's CHECK lines from what its RUN lines print.

In the spirit of MLIR's generate-test-checks.py, golden tests become cheap to keep: change the
code, run this, review the diff. For each check prefix (``CHECK`` unless a RUN line gives
``--check-prefix``), the first RUN line that pipes into ``FileCheck %s`` is run and its output
replaces that prefix's check blocks:

- a check block is a run of consecutive comment lines holding the prefix's directives. The
  output is shared out among the blocks at their ``PREFIX-LABEL`` lines (kept as written), so
  every block but the first must start with one. A file without checks gets one block at its
  end, labelled with the first output line.
- each output line becomes ``PREFIX-NEXT`` (``PREFIX-EMPTY`` when blank), so the golden test
  pins the whole output; SSA values (``%0``, ``%arg0``, ``%cst``) become FileCheck variables,
  defined where first seen in each function, so renumbering alone breaks nothing.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from minijax.tools import inputs
from minijax.tools.errors import Failure, UsageError
from minijax.tools.output import write_file

_RUN = re.compile(r'^\s*(?P<marker>#|//)\s*RUN:\s?(?P<command>.*?)\s*$')
_FILECHECK = re.compile(r'\|\s*FileCheck\b(?P<args>[^|]*)$')
_SUFFIXES = r'(?:-NEXT|-SAME|-LABEL|-EMPTY|-NOT|-DAG|-COUNT-\d+)?'
# An SSA value as MLIR prints it: %0, %arg0, %cst_1 (and %0 in %0#1 or %0:2).
_SSA = re.compile(r'%([A-Za-z_$.][\w$.]*|\d+)')
_DOUBLE_BRACKETS = re.compile(r'\[\[|\{\{')


@dataclass
class _Block:
    """A run of check lines: ``lines[start:end]`` of the file, and its label pattern if any."""
    start: int
    end: int
    label: str | None


def update_file(path: str) -> int:
    """Rewrite the check blocks of the lit test ``path``; return how many were written."""
    lines = inputs.read_text(path, 'a lit test').splitlines()
    pipelines = _pipelines(lines, path)
    if not pipelines:
        raise UsageError("no RUN line pipes into 'FileCheck %s'", where=path)
    marker = pipelines[0][0]
    written = 0
    for _, prefix, command in pipelines:
        with tempfile.TemporaryDirectory() as tmp:
            output = _run(command, path, tmp).splitlines()
        converter = _LineConverter([tmp, os.path.dirname(os.path.abspath(path))])
        lines, n = _update_prefix(lines, marker, prefix, output, converter, path)
        written += n
    write_file(path, '\n'.join(lines) + '\n')
    return written


# ----------------------------------------------------------------------------- RUN lines

def _pipelines(lines, path) -> list[tuple[str, str, str]]:
    """(comment marker, check prefix, producing command): the first RUN line per prefix."""
    found: dict[str, tuple[str, str, str]] = {}
    for marker, command in _run_commands(lines):
        m = _FILECHECK.search(command)
        if m is None or '%s' not in shlex.split(m['args']):
            continue
        prefix = _check_prefix(shlex.split(m['args']), path)
        found.setdefault(prefix, (marker, prefix, command[:m.start()].strip()))
    return list(found.values())


def _run_commands(lines):
    """The RUN commands with ``\\`` continuations joined."""
    pending = ''
    for line in lines:
        m = _RUN.match(line)
        if m is None:
            continue
        command = m['command']
        if command.endswith('\\'):
            pending += command[:-1] + ' '
            continue
        yield m['marker'], pending + command
        pending = ''


def _check_prefix(args, path) -> str:
    for i, arg in enumerate(args):
        name, eq, value = arg.partition('=')
        if name in ('--check-prefix', '-check-prefix', '--check-prefixes', '-check-prefixes'):
            value = value if eq else args[i + 1] if i + 1 < len(args) else ''
            if not value:
                raise UsageError(f'{name} without a prefix in a RUN line', where=path)
            return value.split(',')[0]
    return 'CHECK'


def _run(command: str, path: str, tmp: str) -> str:
    """Run a RUN command as lit would (substitutions, directory, PATH); return its output."""
    expect_failure = command.startswith('not ')
    if expect_failure:
        command = command[len('not '):]
    path = os.path.abspath(path)
    command = _substitute(command, path, os.path.join(tmp, os.path.basename(path) + '.tmp'))
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep
               + os.environ.get('PATH', ''))
    proc = subprocess.run(['bash', '-o', 'pipefail', '-c', command], env=env,
                          cwd=os.path.dirname(path), capture_output=True, text=True)
    if (proc.returncode != 0) != expect_failure:
        last = proc.stderr.strip().splitlines()[-1:] or ['(nothing on stderr)']
        raise Failure(f'the RUN command exited with status {proc.returncode}: {command}: '
                      f'{last[0]}', where=path)
    return proc.stdout


def _substitute(command: str, path: str, tmp: str) -> str:
    """lit's ``%python`` (see lit.cfg.py), ``%s``, ``%S``, ``%p``, ``%t`` and ``%%``."""
    values = {'%python': sys.executable, '%s': path, '%S': os.path.dirname(path),
              '%p': os.path.dirname(path), '%t': tmp}
    return re.sub(r'%python|%[sSpt%]',
                  lambda m: '%' if m[0] == '%%' else shlex.quote(values[m[0]]), command)


# ----------------------------------------------------------------------------- check blocks

def _update_prefix(lines, marker, prefix, output, converter, path):
    blocks = _blocks(lines, marker, prefix)
    if not blocks:
        new = _check_lines(marker, prefix, output, converter)
        return lines + [''] + new, 1
    starts = _chunk_starts(blocks, output, prefix, path)
    ends = starts[1:] + [len(output)]
    for block, start, end in reversed(list(zip(blocks, starts, ends))):
        label = (lines[block.start], block.label) if block.label is not None else None
        lines = (lines[:block.start]
                 + _check_lines(marker, prefix, output[start:end], converter, label)
                 + lines[block.end:])
    return lines, len(blocks)


def _blocks(lines, marker, prefix) -> list[_Block]:
    directive = re.compile(rf'^\s*{re.escape(marker)}\s*{re.escape(prefix)}{_SUFFIXES}:\s?(.*)$')
    label = re.compile(rf'^\s*{re.escape(marker)}\s*{re.escape(prefix)}-LABEL:\s?(.*)$')
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        if not directive.match(lines[i]):
            i += 1
            continue
        start = i
        while i < len(lines) and directive.match(lines[i]):
            i += 1
        m = label.match(lines[start])
        blocks.append(_Block(start, i, m[1].strip() if m else None))
    return blocks


def _chunk_starts(blocks, output, prefix, path) -> list[int]:
    """Where each block's share of the output starts: at its label's first match, in order."""
    starts, pos = [], 0
    for n, block in enumerate(blocks):
        if block.label is None:
            if n:
                raise UsageError(f'this check block needs a {prefix}-LABEL line to say '
                                 'where its output starts', where=f'{path}:{block.start + 1}')
            starts.append(0)
            continue
        pattern = _pattern_regex(block.label)
        while pos < len(output) and not pattern.search(output[pos]):
            pos += 1
        if pos == len(output):
            raise Failure(f"no output line after the previous block's matches "
                          f'{prefix}-LABEL: {block.label}', where=f'{path}:{block.start + 1}')
        starts.append(pos)
        pos += 1
    return starts


def _pattern_regex(pattern: str) -> re.Pattern:
    """A FileCheck pattern as a Python regex: ``{{re}}`` and ``[[VAR:re]]`` are regexes."""
    parts = re.split(r'(\{\{.*?\}\}|\[\[.*?\]\])', pattern)
    regex = ''
    for part in parts:
        if part.startswith('{{') and part.endswith('}}'):
            regex += f'(?:{part[2:-2]})'
        elif part.startswith('[[') and part.endswith(']]'):
            _, colon, var_regex = part[2:-2].partition(':')
            regex += f'(?:{var_regex})' if colon else '.*?'
        else:
            regex += re.escape(part)
    return re.compile(regex)


def _check_lines(marker, prefix, chunk, converter, label=None) -> list[str]:
    """The check block for ``chunk``; ``label`` is the block's (label line, pattern), kept."""
    chunk = list(chunk)
    while chunk and not chunk[-1].strip():
        chunk.pop()
    if not chunk:
        return [label[0]] if label is not None else []
    converter.start_block()
    first = chunk[0]
    if label is not None:
        label_line, pattern = label
        rest = first[_pattern_regex(pattern).search(first).end():]
        out = [label_line]
        if rest.strip():
            out.append(f'{marker} {prefix}-SAME: {converter.convert(rest, first).strip()}')
    else:  # a label may not define variables
        kind = '' if _SSA.search(first) else '-LABEL'
        out = [f'{marker} {prefix}{kind}: {converter.convert(first, first).strip()}']
    for line in chunk[1:]:
        if line.strip():
            out.append(f'{marker} {prefix}-NEXT: {converter.convert(line, line)}')
        else:
            out.append(f'{marker} {prefix}-EMPTY:')
    return out


class _LineConverter:
    """Output text -> FileCheck pattern.

    SSA values become variables, defined at first sight in each function; the test's directory
    and lit's temporary directory become ``{{.*}}``, so paths in messages are portable.
    """

    def __init__(self, directories):
        self.directories = [os.path.join(d, '') for d in directories]
        self.defined: set[str] = set()

    def start_block(self):
        self.defined = set()

    def convert(self, text: str, full_line: str) -> str:
        if full_line.lstrip().startswith('func.func'):
            self.defined = set()  # SSA names are per function
        pieces, pos = [], 0
        for m in _SSA.finditer(text):
            var = self._variable(m[1])
            pieces.append(self._literal(text[pos:m.start()]))
            if var in self.defined:
                pieces.append(f'%[[{var}]]')
            else:
                self.defined.add(var)
                pieces.append(f'%[[{var}:.*]]')
            pos = m.end()
        pieces.append(self._literal(text[pos:]))
        return ''.join(pieces).rstrip()

    def _literal(self, text: str) -> str:
        text = _escape(text)
        for directory in self.directories:
            text = text.replace(directory, '{{.*}}')
        return text

    @staticmethod
    def _variable(name: str) -> str:
        cleaned = re.sub(r'\W', '_', name).upper()
        return f'V{cleaned}' if cleaned[0].isdigit() else cleaned


def _escape(text: str) -> str:
    """Literal text in a FileCheck pattern: ``[[`` and ``{{`` would start a variable/regex."""
    return _DOUBLE_BRACKETS.sub(lambda m: '{{' + re.escape(m[0]) + '}}', text)
