"""The course kit (``minijax course tasks | handout | grade``), end to end as a teacher runs
it: list the tasks, write a handout of five, grade the untouched handout and the solution.

The independent answer is the suite itself: a stub fails each test of its task (0), the
checkout passes them (1), and the handout passes the tests of every task it did not stub.
"""
import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

from minijax.course import handout
from minijax.course.tasks import Task

REPO = pathlib.Path(__file__).parents[2]
#: Five kinds: a family row's inline lambda (jvp:tanh), a def (transpose:mul), a lowering
#: graded by its lit test too (lowering:div), a family's shared batching rule (vmap:add),
#: an impl passed to a family (impl:sign); the lowering of control flow, which vmap of a
#: batched predicate never runs (lowering:cond); the NumPy impl of a primitive evaluated
#: eagerly on XLA (impl:tanh).
CHOSEN = ['jvp:tanh', 'transpose:mul', 'lowering:div', 'vmap:add', 'impl:sign',
          'lowering:cond', 'impl:tanh']
#: Graded on the handout only (to keep this test short): the suite runs their tests on the
#: checkout anyway.
SLOW = ['lowering:cond']
SOLVED = [task for task in CHOSEN if task not in SLOW]
#: Tasks of the same files (not of the same family rule: vmap:sub shares vmap:add's), left to
#: the teacher's solution. jvp:sin's tests
#: build on stubbed rules (its vjp transposes the mul its jvp emits; tanh's eager values come
#: from its lowering): a test failing on another task's stub is set aside, not counted.
KEPT = ['jvp:sub', 'transpose:add', 'lowering:mul', 'vmap:sin', 'impl:abs', 'jvp:sin',
        'lowering:tanh']


def minijax_command(*args, cwd=REPO):
    return subprocess.run([sys.executable, '-m', 'minijax', *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def grades(done):
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines()]
    return {task: (tests, float(score)) for task, tests, _, score in lines}


def test_tasks_come_from_the_rule_tables():
    done = minijax_command('course', 'tasks')
    listed = done.stdout.split()
    assert {'jvp:tanh', 'vmap:reduce_sum', 'transpose:transpose', 'lowering:cond',
            'impl:sign', 'impl:tanh', 'partial_eval:scan', 'flops:sort',
            'jvp:cholesky', 'lowering:qr', 'impl:svd'} <= set(listed), done.stderr[-3000:]
    assert 'transpose:tanh' not in listed  # tanh is not linear: no such rule
    assert listed == sorted(listed)


def test_handout_stubs_each_task_and_grades_zero_then_full(tmp_path):
    out = tmp_path / 'handout'
    done = minijax_command('course', 'handout', *CHOSEN, '-o', str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert not (out / '.git').exists()
    elementwise = (out / 'minijax/lax/elementwise.py').read_text()
    assert "rule_to_write('jvp:tanh', 'docs/add_a_primitive.md')" in elementwise
    assert 'mul(add(t, mul(t, ans)), sub(1., ans))' not in elementwise  # tanh's tangent
    assert 'mul(neg(sin(x, accuracy=accuracy)), t)' in elementwise  # cos's, in the family, kept

    waiting = subprocess.run(  # jvp:sin's test, which transposes the stubbed mul
        [sys.executable, '-m', 'pytest', '-q', '-rx', '-p', 'no:cacheprovider',
         'test/unit/test_rules.py::test_transpose[sin-f64]'], cwd=out, capture_output=True,
        text=True, timeout=600, env={**os.environ, 'PYTHONPATH': str(out)})
    assert waiting.returncode == 0, waiting.stdout[-3000:]
    assert 'waits for course task transpose:mul' in waiting.stdout, waiting.stdout[-3000:]

    handout_json, solution_json = tmp_path / 'handout.json', tmp_path / 'solution.json'
    in_handout = grades(minijax_command('course', 'grade', *CHOSEN, *KEPT, '--project',
                                        str(out), '--json', str(handout_json)))
    assert {task: score for task, (_, score) in in_handout.items()} == {
        **dict.fromkeys(CHOSEN, 0.), **dict.fromkeys(KEPT, 1.)}
    solution = grades(minijax_command('course', 'grade', *SOLVED, '--json',
                                      str(solution_json)))
    assert all(score == 1. for _, score in solution.values()), solution
    for task in CHOSEN:  # tests ran, all failing in the handout
        assert in_handout[task][0].startswith('0/') and in_handout[task][0] != '0/0'
    assert all(tests.split('/')[1] != '0' for tests, _ in in_handout.values())
    results = json.loads(solution_json.read_text())
    assert results['score'] == len(SOLVED) and [t['name'] for t in results['tests']] == SOLVED
    assert {'name', 'score', 'max_score', 'output'} == set(results['tests'][0])
    assert json.loads(handout_json.read_text())['score'] == len(KEPT)


def test_a_rule_given_to_a_family_leaves_no_trace_in_its_row():
    """``add_p = binary_primitive('add', np.add, ...)``: np.add is add's impl itself."""
    text = handout.stubbed_sources([Task.parse('impl:add')])['minijax/lax/elementwise.py']
    row = next(line for line in text.splitlines() if line.startswith('add_p = '))
    assert 'np.add' not in row and "rule_to_write('impl:add'" in row
    sub_row = next(line for line in text.splitlines() if line.startswith('sub_p = '))
    assert 'np.subtract' in sub_row


def test_a_rule_a_family_shares_is_handed_out_whole():
    """vmap:add is the batching rule of every broadcasting op (batching.py's
    ``broadcasting_batcher``): its body and the helper only it calls become the stub, so the
    handout holds no trace of it; two tasks of the family stub it once."""
    text = handout.stubbed_sources([Task.parse('vmap:add'), Task.parse('vmap:sub')])[
        'minijax/interpreters/batching.py']
    assert "rule_to_write('vmap:add'" in text and "rule_to_write('vmap:sub'" not in text
    assert 'out_rank = max(ranks)' not in text and 'shape[:d] + shape[d + 1:]' not in text
    assert 'def broadcasting_batcher(primitive):' in text


def test_a_private_helper_only_the_rule_calls_is_stubbed_too():
    """cholesky's impl is ``lambda x: lapack.per_matrix_impl(_cholesky_one)(x)[0]``: the
    solution is in ``_cholesky_one``; ``lapack.per_matrix_impl`` serves every decomposition
    and stays (the other impls still call it)."""
    text = handout.stubbed_sources([Task.parse('impl:cholesky')])['minijax/lax/linalg.py']
    assert 'np.linalg.cholesky' not in text
    assert 'lapack.per_matrix_impl(_lu_one)' in text
    divide = handout.stubbed_sources([Task.parse('lowering:div')])['minijax/lax/elementwise.py']
    assert 'hlo.DivOp(x, safe_y)' not in divide  # _div_lowering's body
    assert 'def safe_integer_divisor(ctx, x, y):\n    """' in divide  # rem's lowering calls it


def test_a_stubbed_def_loses_the_comments_above_it():
    source = ('# ----- a section\n\n# how to do it\n# step two\n@staticmethod\n'
              'def rule(x):\n    """The answer."""\n    return x\n')
    edit = handout._leading_comments('m.py', source, ast.parse(source).body[0])
    assert source[:edit.start] + source[edit.end:] == (
        '# ----- a section\n\n@staticmethod\ndef rule(x):\n    """The answer."""\n    return x\n')


@pytest.mark.parametrize('text,path', [('jvp:cholesky', 'minijax/lax/linalg.py'),
                                       ('lowering:xla_call', 'minijax/xla_call.py'),
                                       ('impl:fft', 'minijax/lax/fft.py')])
def test_primitives_outside_lax_are_tasks(text, path):
    """lax.linalg's, xla_call, ...: every primitive a module of minijax defines."""
    assert [edit.path for edit in handout.stub_edits(Task.parse(text))][0] == path


def _case(name, properties, failure=None):
    props = ''.join(f'<property name="{k}" value="{v}"/>' for k, v in properties)
    fail = f'<failure message="{failure}">traceback</failure>' if failure else ''
    return (f'<testcase classname="test.unit.test_x" name="{name}">'
            f'<properties>{props}</properties>{fail}</testcase>')


def test_a_test_failing_on_another_tasks_stub_is_set_aside(tmp_path):
    """grad of sin transposes the mul its jvp emits; eager cholesky symmetrizes with add."""
    from minijax.course.grade import Result, tally

    def stub(task):
        return f'NotImplementedError: course task {task}: this rule is yours to write'
    report = tmp_path / 'report.xml'
    report.write_text('<testsuites><testsuite>' + ''.join([
        _case('transpose_sin', [('task', 'jvp:sin')], stub('transpose:mul')),
        _case('jvp_sin', [('task', 'jvp:sin')]),
        _case('transpose_mul', [('task', 'transpose:mul')], stub('transpose:mul')),
        _case('impl_cholesky', [('unreached', 'impl:cholesky')], stub('impl:add')),
        _case('check_cholesky', [('task', 'impl:cholesky')], 'AssertionError: wrong'),
    ]) + '</testsuite></testsuites>')
    tasks = [Task.parse(t) for t in ('jvp:sin', 'transpose:mul', 'impl:cholesky')]
    results = {task: Result(task) for task in tasks}
    tally(results, report)
    sin, mul, cholesky = results.values()
    assert (sin.passed, sin.set_aside) == (['test_x::jvp_sin'],
                                           {'test_x::transpose_sin': 'transpose:mul'})
    assert list(mul.failures) == ['test_x::transpose_mul']
    assert (list(cholesky.failures), cholesky.set_aside) == (
        ['test_x::check_cholesky'], {'test_x::impl_cholesky': 'impl:add'})


def test_a_lowering_is_graded_by_its_lit_test_too(tmp_path):
    from minijax.course.grade import _lit_files
    assert _lit_files(REPO, Task.parse('lowering:div')) == ['test/lit/primitives/div.py']
    assert _lit_files(REPO, Task.parse('lowering:while')) == [
        'test/lit/control_flow/while_loop.py']


@pytest.mark.parametrize('text', ['jvp', 'jvp:nothing', 'rule:tanh'])
def test_a_task_not_in_the_tables_is_a_usage_error(text):
    done = minijax_command('course', 'grade', text)
    assert done.returncode == 2 and 'no course task' in done.stderr
