"""Grade course tasks: run exactly each task's tests against a copy of the project.

The tests of a task are those its marker names (``@pytest.mark.rule``: see
``minijax.course.tasks``), ``test_check_rules[<primitive>-<kind>]`` among them, and for a
lowering, the lit tests of the primitive. They run in a subprocess on the copy's own code
(``PYTHONPATH`` = the copy), collecting only the test files that carry markers; a task's score
is the fraction of its tests that pass. A test that failed on the stub of *another* task
(rules build on rules: grad of sin transposes the mul its jvp emits), before or after it
reached this task's rule, is set aside for this one: it says nothing of this task's rule. The results are printed one line per task and
written in Gradescope's ``results.json`` shape.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

from minijax.course.tasks import Task
from minijax.errors import stubbed_task


@dataclass
class Result:
    """What the tests of one task said: each test's name and, if it failed, why."""
    task: Task
    failures: dict[str, str] = field(default_factory=dict)
    passed: list[str] = field(default_factory=list)
    #: test name -> the other task whose stub it failed on (not counted)
    set_aside: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.passed) + len(self.failures)

    @property
    def score(self) -> float:
        return len(self.passed) / self.total if self.total else 0.

    def line(self) -> str:
        return f'{self.task}  {len(self.passed)}/{self.total} tests  {self.score:.2f}'

    def gradescope(self) -> dict:
        output = '\n\n'.join([*(f'{name}: {why}' for name, why in self.failures.items()),
                              *(f'{name}: set aside, it needs {other}'
                                for name, other in self.set_aside.items())])
        return {'name': str(self.task), 'score': round(self.score, 4), 'max_score': 1,
                'output': f'{self.line()}\n{output}'.strip()}


class GradingError(Exception):
    """The tests could not be run at all (no project there, no test runner)."""


def grade(tasks: list[Task], project: pathlib.Path) -> list[Result]:
    """Run the tests of ``tasks`` against ``project``: one pytest run, one lit run."""
    unit = project / 'test' / 'unit'
    if not unit.is_dir():
        raise GradingError(f'{project} holds no test/unit: not a minijax project')
    results = {task: Result(task) for task in tasks}
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp, 'pytest.xml')
        files = [str(f) for f in sorted(unit.glob('test_*.py'))
                 if 'pytest.mark.rule(' in f.read_text()]
        # Python's own tracebacks: pytest's default style parses the source file of every
        # frame of every failure, which took two thirds of grading a fresh handout.
        _run(project, ['-m', 'pytest', *files, '-q', '-p', 'no:cacheprovider', '--tb=native',
                       f'--junitxml={report}', *(f'--task={t}' for t in tasks)], report)
        tally(results, report)
        for task in tasks:
            lit_files = _lit_files(project, task)
            if lit_files:
                report = pathlib.Path(tmp, f'lit-{task.primitive}.xml')
                _run(project, ['-c', 'import lit.main; lit.main.main()', '-q',
                      f'--xunit-xml-output={report}', *lit_files],
                     report)
                for case, why, details in _cases(report):
                    _record(results[task], f"lit {case.get('name')}", why, details)
    return list(results.values())


def tally(results: dict[Task, Result], report) -> None:
    """Record each test of pytest's JUnit XML ``report`` for the tasks it checked (its
    ``task`` properties, from test/unit/conftest.py), or set it aside for a task it did not
    reach because another task's stub stopped it (``unreached``)."""
    for case, why, details in _cases(report):
        for task in map(Task.parse, _properties(case, 'task')):
            if task in results:
                _record(results[task], _name(case), why, details)
        for task in map(Task.parse, _properties(case, 'unreached')):
            if task in results and stubbed_task(details) not in (None, str(task)):
                results[task].set_aside[_name(case)] = stubbed_task(details)


def _run(project, args, report) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(project), *filter(None, [os.environ.get('PYTHONPATH')])]))
    done = subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True,
                          text=True)
    if not report.exists():
        raise GradingError(f'the tests did not run (exit status {done.returncode}):\n'
                           f'{done.stdout[-2000:]}{done.stderr[-2000:]}')


def _cases(report):
    """``(testcase element, why it failed, its traceback too)`` of a JUnit XML report (the
    two False for a test that passed). A test the suite reported waiting for another task's
    stub (an expected failure, test/unit/conftest.py) counts as failing on that stub."""
    for case in ElementTree.parse(report).iter('testcase'):
        bad = next((c for c in case if c.tag in ('failure', 'error')), None)
        skipped = next((c for c in case if c.tag == 'skipped'), None)
        if skipped is not None and bad is None:
            if stubbed_task(skipped.get('message')):
                yield case, skipped.get('message'), skipped.get('message')
            continue
        yield case, bad is not None and (bad.get('message') or bad.text or bad.tag), (
            bad is not None and f"{bad.get('message')}\n{bad.text}")


def _properties(case, name):
    return [p.get('value') for p in case.iter('property') if p.get('name') == name]


def _name(case) -> str:
    return f"{case.get('classname', '').rpartition('.')[2]}::{case.get('name')}"


def _record(result, name, why, details) -> None:
    stub = stubbed_task(details)
    if stub not in (None, str(result.task)):
        result.set_aside[name] = stub
    elif why:
        result.failures[name] = why
    else:
        result.passed.append(name)


def _lit_files(project, task) -> list[str]:
    """A lowering's lit tests: test/lit/**/<primitive>.py, or else <primitive>_*.py
    (``while_loop.py``, ``max_min.py``)."""
    if task.kind != 'lowering':
        return []
    lit = project / 'test' / 'lit'
    exact = sorted(lit.rglob(f'{task.primitive}.py'))
    found = exact or sorted(lit.rglob(f'{task.primitive}_*.py'))
    return [str(f.relative_to(project)) for f in found if 'Inputs' not in f.parts]


def results_json(results: list[Result]) -> dict:
    """Gradescope's ``results.json``: the total and one test per task, scored out of 1."""
    tests = [r.gradescope() for r in results]
    return {'score': round(sum(t['score'] for t in tests), 4), 'tests': tests}


def write_json(results, path) -> None:
    pathlib.Path(path).write_text(json.dumps(results_json(results), indent=2) + '\n')
