"""Fixtures shared by minijax's unit tests.

JAX is the oracle (test-only): every number minijax computes is compared against JAX, finite
differences or a value printed in the Autodidax seed, never against minijax itself. The
helpers live in ``testlib`` and the primitive case table in ``primitive_cases``.
"""
import os

# test_pmap compares minijax's pmap with JAX's on 4 CPU devices: both read the count before
# their CPU client starts, so it is set here, first (single-device programs run on device 0).
# A pytest run inside this one (a course grade's) inherits the flag: it is not added twice, so
# that the compilation caches' keys, which hash the flags, stay the same.
_DEVICES_FLAG = '--xla_force_host_platform_device_count=4'
if _DEVICES_FLAG not in os.environ.get('XLA_FLAGS', '').split():
    os.environ['XLA_FLAGS'] = ' '.join([os.environ.get('XLA_FLAGS', ''), _DEVICES_FLAG]).strip()
os.environ['MINIJAX_NUM_CPU_DEVICES'] = '4'

import shutil  # noqa: E402
import tempfile  # noqa: E402
import zlib  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402


_JAX_CACHE = 'MINIJAX_TESTS_JAX_CACHE'
_MADE_CACHE = pytest.StashKey[bool]()


def pytest_configure(config):
    """JAX, the oracle, compiles every primitive it runs eagerly; with a compilation cache
    shared by the pytest-xdist workers, what one worker compiled the other loads instead (the
    same executable, so the same answers), and the suite runs a fifth faster. minijax's
    compiles are cached beside JAX's. The main process makes the directory before it starts
    the workers, which inherit its environment, as do the pytest runs of a course grade inside
    a test (test_course.py): they share it, and the outermost run removes it."""
    if not hasattr(config, 'workerinput') and _JAX_CACHE not in os.environ:
        os.environ[_JAX_CACHE] = tempfile.mkdtemp(prefix='minijax-tests-jax-cache-')
        config.stash[_MADE_CACHE] = True
    os.environ.setdefault('JAX_PLATFORMS', 'cpu')  # as testlib, which may come later
    import jax
    jax.config.update('jax_enable_x64', True)  # minijax's float64 default: every module, alone too
    jax.config.update('jax_compilation_cache_dir', os.environ[_JAX_CACHE])
    jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
    jax.config.update('jax_persistent_cache_min_entry_size_bytes', 0)
    import minijax
    minijax.config.update('jax_compilation_cache_dir', os.path.join(os.environ[_JAX_CACHE],
                                                                    'minijax'))
    minijax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
    config.addinivalue_line('markers', 'rule(*kinds): the test checks these rules of the '
                                       'primitive of its parameters (course tasks)')


def pytest_addoption(parser):
    parser.addoption('--task', action='append', default=[], metavar='KIND:PRIMITIVE',
                     help='run only the tests of this course task (repeatable): jvp:tanh')
    parser.addoption('--list-tasks', action='store_true',
                     help='print each course task the collected tests check, then stop')


def tasks_of(item):
    """The course tasks ``item`` checks (``minijax.course.tasks``): the kinds of its ``rule``
    markers, for the primitive its ``case`` or ``primitive`` parameter names, or that the
    marker's ``primitives`` table gives for its ``name`` parameter."""
    from minijax.course.tasks import tasks_checked
    params = getattr(item, 'callspec', None) and item.callspec.params
    tasks = set()
    for mark in item.iter_markers('rule') if params else ():
        if 'case' in params:
            name = params['case'].primitive
        elif 'primitive' in params:
            name = str(params['primitive'])
        else:
            name = mark.kwargs.get('primitives', {}).get(params.get('name'))
        tasks |= tasks_checked(mark.args, name)
    return tasks


_TASKS = pytest.StashKey[set]()


def pytest_collection_modifyitems(config, items):
    """Keep the tests of the ``--task``s only; order the marked tests by primitive, so that
    ``-x`` meets all the rules of one primitive together (a broken one early), and print
    the tasks for ``--list-tasks``."""
    tasks = {item: tasks_of(item) for item in items}
    for item, its_tasks in tasks.items():
        item.stash[_TASKS] = its_tasks
    if config.getoption('list_tasks'):
        print(*sorted({str(t) for t in set().union(*tasks.values())}), sep='\n')
        items.clear()
        return
    wanted = set(config.getoption('task'))
    if wanted:
        deselected = [item for item in items if not _names(tasks[item]) & wanted]
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if _names(tasks[item]) & wanted]
    first_seen = {}
    for item in items:
        for task in sorted(tasks[item]):
            first_seen.setdefault(task.primitive, len(first_seen))
    items.sort(key=lambda item: min((first_seen[t.primitive] for t in tasks[item]),
                                    default=-1))


def _names(tasks):
    return {str(t) for t in tasks}


@pytest.fixture(autouse=True)
def _course_tasks(request):
    """Under ``--task`` (the grader's run), tell the JUnit XML the grader reads which of
    its tasks the test checked (``task``): those whose rule it looked up. The others its
    marker names are ``unreached`` (the test stopped before, on another task's stub, or it
    never needs them)."""
    tasks = request.node.stash.get(_TASKS, set())
    if not (tasks and request.config.getoption('task')):
        yield
        return
    from minijax.course.tasks import rules_looked_up, tasks_exercised
    with rules_looked_up() as looked_up:
        yield
    checked = tasks_exercised(tasks, looked_up)
    request.node.user_properties += [('task' if task in checked else 'unreached', str(task))
                                     for task in sorted(tasks)]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In a course handout, a test that fails on the stub of a task it does not check waits
    for that task: it is reported as an expected failure naming the task, so that the suite
    fails only on the tests of the rules still to write. (In the project, no rule is a stub.)"""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or not report.failed or report.when == 'teardown':
        return
    from minijax.errors import rule_to_write_behind
    stub = rule_to_write_behind(call.excinfo.value)
    if stub and stub not in _names(item.stash.get(_TASKS, set())):
        report.outcome = 'skipped'
        report.wasxfail = f'waits for course task {stub}: this rule is yours to write'


def pytest_unconfigure(config):
    if config.stash.get(_MADE_CACHE, False):  # the main process, once every worker has ended
        shutil.rmtree(os.environ.pop(_JAX_CACHE), ignore_errors=True)


def _seeded_by_test_id(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def rng(request):
    """A random generator seeded from the test's name: reproducible, different per test."""
    return _seeded_by_test_id(request)


@pytest.fixture(autouse=True)
def _reseed_module_rng(request):
    """A test module whose input makers draw from a module-level ``rng`` gets it reseeded
    from the test's id before each test, so a test sees the same inputs whichever tests ran
    before it (``-k``, ``-n``)."""
    if isinstance(getattr(request.module, 'rng', None), np.random.Generator):
        request.module.rng = _seeded_by_test_id(request)


@pytest.fixture
def eager_on_numpy(monkeypatch):
    """Every primitive on its NumPy impl for one test, as ``MINIJAX_EAGER=numpy`` runs
    them. The eager entries (which remember where each op ran) are dropped before and after,
    so that no later test in this process runs on NumPy an op that belongs on XLA."""
    from minijax import core, dispatch  # (imported once the device count is set, above)
    dispatch.executable_cache_clear()
    monkeypatch.setattr(core, 'apply_on_xla', None)
    yield
    monkeypatch.undo()
    dispatch.executable_cache_clear()
