"""The persistent compilation cache (minijax.compilation_cache): a second compile of the
same module loads the executable from disk, and nothing else ever does."""
import subprocess
import sys

import numpy as np
import pytest

import jaxlib

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


def test_another_program_flag_or_jaxlib_never_loads_a_wrong_entry(cache, monkeypatch):
    module = _module(lambda x: x + 1., X)
    _compiled(module)
    assert _compiled(module)[1]  # (the same program, flags and jaxlib: loaded)
    assert not _compiled(_module(lambda x: x + 2., X))[1]
    assert not _compiled(_module(lambda x: x + 1., X[:1]))[1]
    monkeypatch.setenv('XLA_FLAGS', '--xla_cpu_enable_fast_math=true')
    assert not _compiled(module)[1]
    monkeypatch.delenv('XLA_FLAGS')
    monkeypatch.setattr(jaxlib, '__version__', '0.0.1')
    assert not _compiled(module)[1]
    assert len(list(cache.iterdir())) == 5


def test_a_program_on_another_line_loads_the_executable_unless_metadata_is_keyed(
        cache, monkeypatch):
    """Locations are not in the key, as JAX's cache leaves them out by default: the same
    program written on another line loads the executable; with
    ``jax_compilation_cache_include_metadata_in_key`` it is compiled again."""
    def on_two_lines():
        return (_module(lambda x: x * 3., X),
                _module(lambda x: x * 3., X))
    first, second = on_two_lines()
    with_locations = [m.operation.get_asm(enable_debug_info=True) for m in (first, second)]
    assert with_locations[0] != with_locations[1] and str(first) == str(second)
    assert not _compiled(first)[1] and _compiled(second)[1]
    monkeypatch.setattr(config, 'jax_compilation_cache_include_metadata_in_key', True)
    assert not _compiled(first)[1] and not _compiled(second)[1]
    assert len(list(cache.iterdir())) == 3


def _cut_short(entry: bytes) -> bytes:
    return entry[:100]


def _one_byte_changed(entry: bytes) -> bytes:
    """A bit flipped in the executable's middle: XLA's loader alone takes it for code."""
    middle = len(entry) // 2
    return entry[:middle] + bytes([entry[middle] ^ 0xFF]) + entry[middle + 1:]


@pytest.mark.parametrize('damage', [_cut_short, _one_byte_changed, lambda entry: b''],
                         ids=['cut-short', 'one-byte-changed', 'empty'])
def test_a_corrupt_entry_is_compiled_again_and_replaced(cache, damage):
    def cut_short():
        for entry in cache.iterdir():
            entry.write_bytes(damage(entry.read_bytes()))
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


def test_config_update_sets_the_directory(tmp_path, monkeypatch):
    """``config.update('jax_compilation_cache_dir', path)``, JAX's way, turns it on; ``None``
    (and no environment variable) off."""
    monkeypatch.delenv(compilation_cache.ENVIRONMENT_VARIABLE, raising=False)
    saved = config.jax_compilation_cache_dir
    try:
        minijax.config.update('jax_compilation_cache_dir', str(tmp_path))
        assert compilation_cache.directory() == tmp_path
        minijax.config.update('jax_compilation_cache_dir', None)
        assert compilation_cache.directory() is None
    finally:
        minijax.config.update('jax_compilation_cache_dir', saved)


def test_off_without_a_directory(monkeypatch):
    monkeypatch.setattr(config, 'jax_compilation_cache_dir', None)
    monkeypatch.delenv(compilation_cache.ENVIRONMENT_VARIABLE, raising=False)
    assert compilation_cache.directory() is None


PROGRAM = '''
import sys, numpy as np, minijax
from minijax import runtime
if sys.argv[1:]:  # JAX's config.update, else the environment variable
    minijax.config.update('jax_compilation_cache_dir', sys.argv[1])
minijax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
print(minijax.jit(lambda x: (minijax.numpy.tanh(x) ** 2).sum())(np.arange(4.)),
      runtime.counters['compilation_cache_hit'])
'''


#: A replicated program over two devices, whatever the process has (a client of ``devices``).
PMAP_PROGRAM = '''
import numpy as np, minijax
from minijax import runtime
minijax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
print(minijax.pmap(lambda x: x * 2.)(np.arange(2.)), runtime.counters['compilation_cache_hit'])
'''


def _run(directory, how='environment', devices=1, wait=True, program=PROGRAM):
    """``program`` in a new process, the cache in ``directory`` (set ``how``), ``devices``
    CPU devices for replicated programs: its process, or (``wait``) its last line's words."""
    env = {'PATH': '/usr/bin:/bin', 'MINIJAX_NUM_CPU_DEVICES': str(devices)}
    args = [str(directory)] if how == 'config' else []
    if how == 'environment':
        env['JAX_COMPILATION_CACHE_DIR'] = str(directory)
    process = subprocess.Popen([sys.executable, '-c', program, *args], env=env,
                               stdout=subprocess.PIPE, text=True)
    if not wait:
        return process
    out = process.communicate()[0]
    assert process.returncode == 0
    return out.splitlines()[-1].split()


@pytest.mark.parametrize('how', ['environment', 'config'])
def test_processes_share_the_cache(tmp_path, how):
    """Two processes at once (both may write the entry), then a third that loads it."""
    both = [_run(tmp_path, how, wait=False) for _ in range(2)]
    outs = [p.communicate()[0].split() for p in both]
    third, hits = _run(tmp_path, how)
    assert outs[0][0] == outs[1][0] == third and hits == '1'  # the same bits
    assert [p.name for p in tmp_path.iterdir()] and not any(
        p.name.startswith('.') for p in tmp_path.iterdir())


def test_a_process_with_another_device_count_compiles_its_own(tmp_path):
    """The same two-device program, in processes of two and of three devices."""
    def hit(devices):
        return _run(tmp_path, devices=devices, program=PMAP_PROGRAM)[-1] == '1'
    assert not hit(2)
    assert not hit(3)
    assert hit(3) and hit(2)
    assert len(list(tmp_path.iterdir())) == 2
