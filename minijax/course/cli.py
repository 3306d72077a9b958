"""``minijax course tasks | handout | grade``: the course kit's command line."""
from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys

from minijax.course import grade as grading
from minijax.course.handout import PROJECT, write_handout
from minijax.course.tasks import Task
from minijax.tools.errors import Failure, UsageError


def add_commands(commands, traceback_flag) -> None:
    course = commands.add_parser(
        'course', parents=[traceback_flag], help='assignments from the rule tables',
        description='List course tasks (one rule of one primitive, KIND:PRIMITIVE), write a '
                    'handout where chosen rules are stubs, grade a copy. See docs/teaching.md.')
    verbs = course.add_subparsers(title='commands', metavar='COMMAND', required=True)
    tasks = verbs.add_parser('tasks', parents=[traceback_flag],
                             help='list every task, one per line')
    tasks.set_defaults(command=tasks_command)
    handout = verbs.add_parser('handout', parents=[traceback_flag],
                               help="write a student copy with the tasks' rules as stubs")
    handout.add_argument('tasks', metavar='TASK', nargs='+', type=_task)
    handout.add_argument('-o', dest='output', metavar='DIR', required=True, type=pathlib.Path,
                         help='the directory to write (new or empty)')
    handout.set_defaults(command=handout_command)
    grade = verbs.add_parser('grade', parents=[traceback_flag],
                             help="run each task's tests and score it")
    grade.add_argument('tasks', metavar='TASK', nargs='+', type=_task)
    grade.add_argument('--project', metavar='DIR', type=pathlib.Path, default=PROJECT,
                       help='the copy to grade (default: this checkout)')
    grade.add_argument('--json', metavar='FILE', help="write Gradescope's results.json")
    grade.set_defaults(command=grade_command)


def _task(text: str) -> Task:
    try:
        return Task.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def tasks_command(args) -> None:
    """The tasks the marked tests check: collected by pytest in this checkout."""
    files = [str(f) for f in sorted((PROJECT / 'test' / 'unit').glob('test_*.py'))
             if 'pytest.mark.rule(' in f.read_text()]
    done = subprocess.run([sys.executable, '-m', 'pytest', *files, '--list-tasks', '-q', '-s',
                           '-p', 'no:cacheprovider'], cwd=PROJECT, capture_output=True,
                          text=True)
    listed = [line for line in done.stdout.splitlines() if ':' in line and ' ' not in line]
    if not listed:
        raise Failure(f'collecting the tests failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}')
    print(*listed, sep='\n')


def handout_command(args) -> None:
    if args.output.exists() and any(args.output.iterdir()):
        raise UsageError(f'{args.output} is not empty')
    write_handout(args.tasks, args.output)
    print(f'wrote {args.output}: {len(args.tasks)} tasks to write '
          f"({' '.join(map(str, args.tasks))})")


def grade_command(args) -> None:
    try:
        results = grading.grade(args.tasks, args.project.resolve())
    except grading.GradingError as e:
        raise Failure(str(e)) from None
    for result in results:
        print(result.line())
    if args.json:
        grading.write_json(results, args.json)
