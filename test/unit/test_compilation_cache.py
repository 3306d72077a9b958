"""The persistent compilation cache (minijax.compilation_cache): a second compile of the
same module loads the executable from disk, and nothing else ever does."""
import subprocess
import sys

import numpy as np
import pytest

import minijax
from minijax import compilation_cache, runtime
from minijax.config import config


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(config, 'jax_compilation_cache_dir', str(tmp_path))
    monkeypatch.setattr(config, 'jax_persistent_cache_min_compile_time_secs', 0)
    return tmp_path


def _module(fn, *args):
    return minijax.jit(fn).lower(*args).compiler_ir()


def _compiled(module):
    """Compile ``module`` as jit does; whether it came from the cache."""
    hits = runtime.counters['compilation_cache_hit']
    executable = runtime.compile_module(module)
    return executable, runtime.counters['compilation_cache_hit'] > hits


X = np.arange(6.).reshape(2, 3)


def _jitted(make, times, between=lambda: None):
    """``make()`` jitted and called ``times`` times, a new function each time (so each is
    traced and compiled anew, not found in memory, from this one line: the module's
    locations are the same), ``between()`` after each; the results, and whether each hit."""
    results = []
    for _ in range(times):
        hits = runtime.counters['compilation_cache_hit']
        results.append((np.asarray(minijax.jit(make())(X)),
                        runtime.counters['compilation_cache_hit'] > hits))
        between()
    return results


def test_a_second_compile_loads_the_first_ones_executable(cache):
    (first, hit1), (second, hit2) = _jitted(lambda: lambda x: minijax.numpy.sin(x) @ x.T, 2)
    assert (hit1, hit2) == (False, True) and len(list(cache.iterdir())) == 1
    np.testing.assert_array_equal(first, second)


def test_another_program_or_flag_never_loads_a_wrong_entry(cache, monkeypatch):
    _compiled(_module(lambda x: x + 1., X))
    assert not _compiled(_module(lambda x: x + 2., X))[1]
    assert not _compiled(_module(lambda x: x + 1., X[:1]))[1]
    monkeypatch.setenv('XLA_FLAGS', '--xla_cpu_enable_fast_math=true')
    assert not _compiled(_module(lambda x: x + 1., X))[1]
    assert len(list(cache.iterdir())) == 4


def test_a_corrupt_entry_is_compiled_again_and_replaced(cache):
    def cut_short():
        for entry in cache.iterdir():
            entry.write_bytes(entry.read_bytes()[:100])
    corrupt = runtime.counters['compilation_cache_corrupt']
    after = iter([cut_short, lambda: None, lambda: None])
    (first, hit1), (again, hit2), (third, hit3) = _jitted(
        lambda: lambda x: minijax.numpy.exp(x) * 3., 3, between=lambda: next(after)())
    assert runtime.counters['compilation_cache_corrupt'] == corrupt + 1
    assert (hit1, hit2, hit3) == (False, False, True)  # compiled, compiled again, loaded
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, third)


def test_quick_compiles_and_callbacks_are_not_kept(cache, monkeypatch):
    monkeypatch.setattr(config, 'jax_persistent_cache_min_compile_time_secs', 60)
    _compiled(_module(lambda x: x * 3., X))
    monkeypatch.setattr(config, 'jax_persistent_cache_min_compile_time_secs', 0)
    _compiled(_module(lambda x: minijax.pure_callback(
        np.cos, minijax.ShapeDtypeStruct(X.shape, X.dtype), x), X))
    assert list(cache.iterdir()) == []


def test_off_without_a_directory(monkeypatch):
    monkeypatch.setattr(config, 'jax_compilation_cache_dir', None)
    monkeypatch.delenv(compilation_cache.ENVIRONMENT_VARIABLE, raising=False)
    assert compilation_cache.directory() is None


PROGRAM = '''
import numpy as np, minijax
from minijax import runtime
minijax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
print(minijax.jit(lambda x: (minijax.numpy.tanh(x) ** 2).sum())(np.arange(4.)),
      runtime.counters['compilation_cache_hit'])
'''


def test_processes_share_the_cache_through_the_environment_variable(tmp_path):
    """Two processes at once (both may write the entry), then a third that loads it."""
    env = {'JAX_COMPILATION_CACHE_DIR': str(tmp_path), 'PATH': '/usr/bin:/bin'}
    both = [subprocess.Popen([sys.executable, '-c', PROGRAM], env=env, stdout=subprocess.PIPE,
                             text=True) for _ in range(2)]
    outs = [p.communicate()[0].split() for p in both]
    third = subprocess.run([sys.executable, '-c', PROGRAM], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    assert outs[0][0] == outs[1][0] == third[0] and third[1] == '1'  # the same bits
    assert [p.name for p in tmp_path.iterdir()] and not any(
        p.name.startswith('.') for p in tmp_path.iterdir())
