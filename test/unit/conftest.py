"""Fixtures shared by minijax's unit tests.

JAX is the oracle (test-only): every number minijax computes is compared against JAX, finite
differences or a value printed in the Autodidax seed, never against minijax itself. The
helpers live in ``testlib`` and the primitive case table in ``primitive_cases``.
"""
import os

# test_pmap compares minijax's pmap with JAX's on 4 CPU devices: both read the count before
# their CPU client starts, so it is set here, first (single-device programs run on device 0).
os.environ['XLA_FLAGS'] = ' '.join(
    [os.environ.get('XLA_FLAGS', ''), '--xla_force_host_platform_device_count=4']).strip()
os.environ['MINIJAX_NUM_CPU_DEVICES'] = '4'

import shutil  # noqa: E402
import tempfile  # noqa: E402
import zlib  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402


_JAX_CACHE = 'MINIJAX_TESTS_JAX_CACHE'


def pytest_configure(config):
    """JAX, the oracle, compiles every primitive it runs eagerly; with a compilation cache
    shared by the pytest-xdist workers, what one worker compiled the other loads instead (the
    same executable, so the same answers), and the suite runs a fifth faster. The main
    process makes the directory before it starts the workers, which inherit its environment;
    minijax's own compiles are not cached."""
    if not hasattr(config, 'workerinput'):
        os.environ[_JAX_CACHE] = tempfile.mkdtemp(prefix='minijax-tests-jax-cache-')
    os.environ.setdefault('JAX_PLATFORMS', 'cpu')  # as testlib, which may come later
    import jax
    jax.config.update('jax_compilation_cache_dir', os.environ[_JAX_CACHE])
    jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
    jax.config.update('jax_persistent_cache_min_entry_size_bytes', 0)


def pytest_unconfigure(config):
    if not hasattr(config, 'workerinput'):  # the main process, once every worker has ended
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
