"""A student copy of the project with the rules of chosen tasks replaced by stubs.

The copy holds the files git tracks (no history). A task's rule is found from the rule table,
then its source is cut out where it is the primitive's own:

- a function only this primitive's rule reaches (a ``def`` or an inline ``lambda`` in a
  family row such as ``unary_primitive('tanh', ..., lambda t, x, ans: ...)``): its body
  becomes the stub, its signature stays;
- a value only this primitive's rule holds, passed to a family's factory (``np.tanh``,
  ``hlo.TanhOp`` in that row): the argument becomes a stub function;
- a rule a family of primitives shares (the batching rule of every broadcasting op): the
  family's function itself becomes the stub, for every member, so that no trace is left.

A stub calls ``minijax.errors.rule_to_write``, which raises ``NotImplementedError`` naming
the task and the doc to read.
"""
from __future__ import annotations

import ast
import functools
import inspect
import pathlib
import re
import shutil
import subprocess
import types
from collections import defaultdict
from dataclasses import dataclass

import minijax
from minijax import core
from minijax.course.tasks import Task, minijax_modules, primitives, rules

PACKAGE = pathlib.Path(minijax.__file__).parent
PROJECT = PACKAGE.parent


@dataclass(frozen=True)
class Edit:
    """Replace characters ``start:end`` of ``path`` (relative to the project) by ``text``."""
    path: str
    start: int
    end: int
    text: str


_IMPORT_STUB = '\nfrom minijax.errors import rule_to_write  # noqa: E402 (the stubs\' body)\n'


def write_handout(tasks: list[Task], out: pathlib.Path, project=PROJECT) -> None:
    """Copy ``project``'s tracked files into ``out``, each task's rule a stub."""
    files = subprocess.run(['git', 'ls-files', '-z'], cwd=project, capture_output=True,
                           check=True).stdout.decode().split('\0')
    for name in filter(None, files):
        if (project / name).is_file():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(project / name, out / name)
    for path, text in stubbed_sources(tasks, project).items():
        (out / path).write_text(text)


def stubbed_sources(tasks: list[Task], project=PROJECT) -> dict[str, str]:
    """The text of each source file a stub of ``tasks`` changes, by path in the project."""
    by_file = defaultdict(list)
    for task in tasks:
        for edit in stub_edits(task):
            by_file[edit.path].append(edit)
    sources = {}
    for path, edits in by_file.items():
        text = (project / path).read_text()
        for edit in reversed(_outermost(edits)):
            text = text[:edit.start] + edit.text + text[edit.end:]
        sources[path] = text + _IMPORT_STUB
    return sources


def _outermost(edits) -> list[Edit]:
    """The edits in order, less those inside another: a family rule two tasks share is
    stubbed once, for the task given first."""
    kept = []
    for edit in sorted(edits, key=lambda e: (e.start, -e.end)):
        if not kept or edit.start >= kept[-1].end:
            kept.append(edit)
    return kept


def stub_edits(task: Task) -> list[Edit]:
    """The edits that make ``task``'s rule (in each table holding it) a stub."""
    call = f'rule_to_write({str(task)!r}, {task.doc!r})'
    edits = []
    for table, rule in rules(task):
        primitive = primitives()[task.primitive]
        argument = _row_argument_holding(primitive, table, rule)
        if argument:  # the rule is what the row gave its factory (np.add)
            edits.append(_replace(*argument, f'lambda *args, **params: {call}'))
            continue
        own = _own_parts(table, primitive, rule)
        if own:
            edits += [e for part, via in own for e in _stub(part, via, primitive, call)]
            continue
        family = _family_rule(rule)  # the rule is its family's (every unary op's batching)
        if family is None:
            raise LookupError(f'{task}: no function of minijax holds the rule ({rule!r}), so '
                              'it cannot be stubbed')
        edits += _stub_body(family, call)
    return edits


def _family_rule(rule):
    """The outermost function of minijax's that ``rule`` is or holds, if any. A rule that a
    family of primitives shares is handed out whole, its body a stub for every member (their
    tests wait for the task), so that the handout holds no trace of it."""
    return next((value for value, _ in _reachable(rule) if _is_ours(value)), None)


# ----------------------------------------------------------------------------- finding the rule

def _reachable(rule, via=None):
    """``(value, via)`` for the rule and every callable it holds (closure cells, a partial's
    function and arguments), depth first; ``via`` is ``(closure, cell name)`` that held it."""
    if not callable(rule):
        return
    yield rule, via
    if isinstance(rule, functools.partial):
        for part in (rule.func, *rule.args):
            yield from _reachable(part)
    elif isinstance(rule, types.FunctionType):
        for name, cell in zip(rule.__code__.co_freevars, rule.__closure__ or ()):
            value = cell.cell_contents
            if isinstance(value, (tuple, list)):  # defjvp's tangent functions, one per operand
                for item in value:
                    yield from _reachable(item)
            elif callable(value) and not isinstance(value, core.Primitive):
                yield from _reachable(value, (rule, name))


def _shared(table, primitive):
    """The ids of the values and code objects other primitives' rules in ``table`` reach."""
    seen = set()
    for other, rule in core.rule_tables[table].items():
        if other is not primitive:
            for value, _ in _reachable(rule):
                seen |= {id(value), id(getattr(value, '__code__', value))}
    return seen


def _own_parts(table, primitive, rule):
    """The outermost values only ``primitive``'s rule reaches, with the cell holding each:
    a function whose code is its own, or a value a family's factory was given."""
    shared, own, inside_own = _shared(table, primitive), [], set()
    for value, via in _reachable(rule):
        if via is not None and id(via[0]) in inside_own:
            inside_own.add(id(value))
            continue
        if _is_ours(value) and id(value.__code__) not in shared:
            own.append((value, None))
        elif (via is not None and id(value) not in shared
              and _factory_argument(via, primitive)):
            own.append((value, via))
        else:
            continue
        inside_own.add(id(value))
    return own


def _row_argument_holding(primitive, table, rule):
    """``(path, text, node)`` of the argument of ``primitive``'s family row that is ``rule``
    itself (``add_p = binary_primitive('add', np.add, ...)``: np.add is add's impl), when no
    other rule of the primitive uses it; else None."""
    module, name = _home(primitive)
    path, text, tree = _parsed(module.__file__)
    row = next((node.value for node in tree.body if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and any(getattr(t, 'id', None) == name for t in node.targets)), None)
    if row is None or _used_by_other_rules(primitive, table, rule):
        return None
    for argument in [*row.args, *(k.value for k in row.keywords)]:
        if _names_value(argument, module, rule):
            return path, text, argument
    return None


def _names_value(node, module, value) -> bool:
    """Whether ``node`` is a name or attribute (``np.add``) denoting ``value`` in ``module``."""
    if isinstance(node, ast.Attribute):
        found = _names_value(node.value, module, None) and vars(module).get(node.value.id)
        return bool(found) and getattr(found, node.attr, None) is value
    return isinstance(node, ast.Name) and (value is None or vars(module).get(node.id) is value)


def _used_by_other_rules(primitive, table, value) -> bool:
    return any(part is value for other in core.rule_tables if other != table
               and primitive in core.rule_tables[other]
               for part, _ in _reachable(core.rule_tables[other][primitive]))


def _is_ours(value) -> bool:
    return (isinstance(value, types.FunctionType)
            and pathlib.Path(value.__code__.co_filename).is_relative_to(PACKAGE))


# ----------------------------------------------------------------------------- the stubs

def _stub(part, via, primitive, call) -> list[Edit]:
    if via is None:
        return _stub_body(part, call)
    node, path, text = _factory_argument(via, primitive)
    return [_replace(path, text, node, f'lambda *args, **params: {call}')]


def _stub_body(function, call) -> list[Edit]:
    """Replace the body of ``function`` (a ``def`` or a ``lambda``) by ``call``; a ``def``
    loses its docstring and the comments above it too (they tell how), and so does each
    helper of its module only this body calls (cholesky's impl calls ``_cholesky_one``)."""
    path, text, tree = _parsed(function.__code__.co_filename)
    node = _node_of(function.__code__, tree)
    helpers = [e for helper in _helpers_only_called_by(function, node, tree)
               for e in _stub_body(helper, call)]
    if isinstance(node, ast.Lambda):
        return [_replace(path, text, node.body, call), *helpers]
    first, last = node.body[0], node.body[-1]
    start = _offset(text, first.lineno, first.col_offset)
    return [Edit(path, start, _offset(text, last.end_lineno, last.end_col_offset), call),
            _leading_comments(path, text, node), *helpers]


def _helpers_only_called_by(function, node, tree) -> list:
    """The private functions of ``function``'s module that ``node`` (its source) names and
    nothing else in the package does."""
    inside = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    everywhere = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    filename = function.__code__.co_filename
    return [helper for name in sorted(set(inside))
            if name.startswith('_') and _is_ours(helper := function.__globals__.get(name))
            and helper.__code__.co_filename == filename
            and everywhere.count(name) == inside.count(name)
            and not _named_in_other_modules(name, filename)]


def _named_in_other_modules(name, filename) -> bool:
    word = re.compile(rf'\b{re.escape(name)}\b')
    return any(word.search(_parsed(module.__file__)[1]) for module in minijax_modules()
               if module.__file__ != filename)


def _leading_comments(path, text, node) -> Edit:
    """Remove the comment lines right above ``node`` (a ``def``, or its first decorator),
    up to a section rule (``# ----- binary``), which names the section, not the rule."""
    lines = text.splitlines(keepends=True)
    top = (node.decorator_list[0] if node.decorator_list else node).lineno - 1
    first = top
    while first > 0 and lines[first - 1].lstrip().startswith('#') and \
            not lines[first - 1].lstrip().startswith(('# --', '# ==')):
        first -= 1
    return Edit(path, _offset(text, first + 1, 0), _offset(text, top + 1, 0), '')


def _node_of(code, tree):
    """The smallest ``def`` or ``lambda`` whose source holds every position of ``code``."""
    positions = [pos for pos in code.co_positions()  # not the zero-width ones (RESUME)
                 if None not in pos and (pos[0], pos[2]) != (pos[1], pos[3])]
    candidates = [node for node in ast.walk(tree)
                  if isinstance(node, (ast.Lambda, ast.FunctionDef))
                  and all(_within(node, pos) for pos in positions)
                  and (node.lineno == code.co_firstlineno
                       or getattr(node, 'decorator_list', None)
                       and node.decorator_list[0].lineno == code.co_firstlineno)]
    return min(candidates, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset))


def _within(node, position) -> bool:
    line, end_line, col, end_col = position
    return ((node.lineno, node.col_offset) <= (line, col)
            and (end_line, end_col) <= (node.end_lineno, node.end_col_offset))


def _factory_argument(via, primitive):
    """``(argument node, path, text)`` of the family row that gave the closure ``via[0]``
    its cell ``via[1]``: in ``NAME_p = factory(...)``, where the module defining
    ``primitive`` defines it; None when there is no such row."""
    closure, cell = via
    factory_name = closure.__qualname__.split('.<locals>')[0]
    factory = closure.__globals__.get(factory_name)
    if not isinstance(factory, types.FunctionType):
        return None
    parameters = list(inspect.signature(factory).parameters)
    module, name = _home(primitive)
    path, text, tree = _parsed(module.__file__)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and _called_name(node.value) == factory_name and cell in parameters
                and any(getattr(t, 'id', None) == name for t in node.targets)):
            argument = _argument(node.value, parameters, cell)
            return argument and (argument, path, text)
    return None


def _called_name(call):
    return getattr(call.func, 'id', getattr(call.func, 'attr', None))


def _argument(call, parameters, name):
    index = parameters.index(name)
    if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _home(primitive):
    """``(module, global name)`` where ``primitive`` is defined: ``NAME = ...`` (or ``A, NAME
    = ...``) at the top level of a module of minijax."""
    for module in minijax_modules():
        tree = _parsed(module.__file__)[2]
        for node in tree.body:
            for target in getattr(node, 'targets', []):
                for name in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if vars(module).get(getattr(name, 'id', None)) is primitive:
                        return module, name.id
    raise LookupError(f'no module of minijax defines {primitive} at its top level')


def _replace(path, text, node, new) -> Edit:
    return Edit(path, _offset(text, node.lineno, node.col_offset),
                _offset(text, node.end_lineno, node.end_col_offset), new)


@functools.cache
def _parsed(filename):
    """``(path relative to the project, text, ast)`` of a source file of the package."""
    text = pathlib.Path(filename).read_text()
    return str(pathlib.Path(filename).relative_to(PROJECT)), text, ast.parse(text)


def _offset(text, line, col) -> int:
    """The character offset of (1-based ``line``, UTF-8 byte ``col``) in ``text``."""
    lines = text.splitlines(keepends=True)
    before = sum(len(s) for s in lines[:line - 1])
    return before + len(lines[line - 1].encode()[:col].decode())
