"""``minijax.config``: the configuration object JAX programs set flags on
(``jax.config.update('jax_enable_x64', True)``).

minijax always computes as JAX does with ``jax_enable_x64`` on, on the CPU: a flag asking for
that is accepted, one asking for something else is refused with an error that says so.
``jax_disable_jit`` is honoured (``jit`` then runs its function eagerly, as in JAX), and so are
``jax_compilation_cache_dir`` and the two ``jax_persistent_cache_min_*`` thresholds (the
persistent compilation cache: ``minijax.compilation_cache``).
"""
from __future__ import annotations

import contextlib

#: Flags minijax honours or whose one supported value it accepts: name -> (value, why).
_FLAGS = {
    'jax_enable_x64': (True, 'minijax always computes in 64-bit (float64 and int64 by '
                             'default, as JAX with jax_enable_x64=True)'),
    'jax_platform_name': ('cpu', 'minijax runs on the CPU only'),
    'jax_platforms': ('cpu', 'minijax runs on the CPU only'),
    'jax_default_device': (None, 'minijax runs on one CPU device'),
    'jax_debug_nans': (False, 'minijax does not check results for NaNs'),
    'jax_debug_infs': (False, 'minijax does not check results for infinities'),
    'jax_numpy_rank_promotion': ('allow', 'minijax broadcasts ranks as NumPy does'),
    'jax_default_matmul_precision': (None, 'minijax multiplies at full precision'),
}
#: Flags that change nothing minijax computes: any value is accepted and kept (the cache's
#: are read by minijax.compilation_cache).
_FREE = {'jax_disable_jit': False, 'jax_log_compiles': False, 'jax_traceback_filtering': 'auto',
         'jax_compilation_cache_dir': None, 'jax_persistent_cache_min_compile_time_secs': 1.0,
         'jax_persistent_cache_min_entry_size_bytes': 0, 'jax_explain_cache_misses': False}
#: minijax's own flags, read by the runtime (``minijax_num_cpu_devices``: how many CPU devices
#: the replicated programs' client is made with, before the first ``pmap``; see
#: ``minijax.runtime``).
_MINIJAX = {'minijax_num_cpu_devices': None}


class Config:
    """Flag values, read as attributes (``config.jax_enable_x64``). Each is an attribute of
    the instance, so reading one (``jit`` reads ``jax_disable_jit`` on every call) is a plain
    attribute lookup."""

    def __init__(self):
        vars(self).update({**{k: v for k, (v, _) in _FLAGS.items()}, **_FREE, **_MINIJAX})

    def update(self, name, value):
        if name in _FREE or name in _MINIJAX:
            vars(self)[name] = value
            return
        if name not in _FLAGS:
            raise AttributeError(f'config.update: unknown or unsupported flag {name!r} '
                                 f'(minijax knows {", ".join(sorted(vars(self)))})')
        supported, why = _FLAGS[name]
        if value != supported and not (name == 'jax_platforms' and value in ('', None)):
            raise NotImplementedError(f'config.update({name!r}, {value!r}): {why}; only '
                                      f'{supported!r} is supported')

    def read(self, name):
        return getattr(self, name)

    def __getattr__(self, name):  # called only for a name that is not a flag
        raise AttributeError(f'config has no flag {name!r}')


config = Config()


_NO_VALUE = object()


class State:
    """A flag as JAX's top-level name for it (``jax.enable_x64``, ``jax.debug_nans``):
    ``.value`` reads it, and ``State(value)`` sets it within a ``with`` block or a decorated
    function, as ``config.update`` would (refused the same way where minijax has one
    value). A boolean flag called without a value turns on, as JAX's do."""

    def __init__(self, name):
        self.name = name

    @property
    def value(self):
        return config.read(self.name)

    def __call__(self, new_val=_NO_VALUE):
        if new_val is _NO_VALUE:
            if not isinstance(self.value, bool):
                raise TypeError(f'Context manager for {self.name[len("jax_"):]} config option '
                                'requires an argument representing the new value for the '
                                'config option.')
            new_val = True
        return _Setting(self.name, new_val)

    def __repr__(self):
        return f'State({self.name!r}, value={self.value!r})'


class _Setting(contextlib.ContextDecorator):
    def __init__(self, name, value):
        self._name, self._value = name, value

    def __enter__(self):
        self._before = config.read(self._name)
        config.update(self._name, self._value)

    def __exit__(self, *exc):
        config.update(self._name, self._before)


(debug_infs, debug_nans, default_device, default_matmul_precision, enable_x64,
 explain_cache_misses, log_compiles, numpy_rank_promotion) = (State(f'jax_{name}') for name in (
     'debug_infs', 'debug_nans', 'default_device', 'default_matmul_precision', 'enable_x64',
     'explain_cache_misses', 'log_compiles', 'numpy_rank_promotion'))


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within the block, ``jit`` runs functions eagerly (``jax.disable_jit``)."""
    before = config.jax_disable_jit
    config.update('jax_disable_jit', disable)
    try:
        yield
    finally:
        config.update('jax_disable_jit', before)
