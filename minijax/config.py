"""``minijax.config``: the configuration object JAX programs set flags on
(``jax.config.update('jax_enable_x64', True)``).

minijax always computes as JAX does with ``jax_enable_x64`` on, on the CPU: a flag asking for
that is accepted, one asking for something else is refused with an error that says so.
``jax_disable_jit`` is honoured (``jit`` then runs its function eagerly, as in JAX), and so are
``jax_compilation_cache_dir`` and the two ``jax_persistent_cache_min_*`` thresholds (the
persistent compilation cache: ``minijax.compilation_cache``), and ``jax_debug_nans`` and
``jax_debug_infs`` (results checked for special values: ``minijax.special_values``).
"""
from __future__ import annotations

import contextlib
import functools

_DIRECTIONS = ('', '_host_to_device', '_device_to_device', '_device_to_host')
#: Flags minijax honours or whose one supported value it accepts: name -> (value, why).
_FLAGS = {
    'jax_enable_x64': (True, 'minijax always computes in 64-bit (float64 and int64 by '
                             'default, as JAX with jax_enable_x64=True)'),
    'jax_platform_name': ('cpu', 'minijax runs on the CPU only'),
    'jax_platforms': ('cpu', 'minijax runs on the CPU only'),
    'jax_default_device': (None, 'minijax runs on one CPU device'),
    'jax_numpy_rank_promotion': ('allow', 'minijax broadcasts ranks as NumPy does'),
    'jax_default_matmul_precision': (None, 'minijax multiplies at full precision'),
    'jax_allow_f16_reductions': (True, 'minijax reduces float16 as JAX does by default'),
    'jax_auto_pcast': (True, 'minijax casts varying manual axes as JAX does by default'),
    'jax_check_tracer_leaks': (False, 'minijax finds a leaked tracer when it is used '
                                      '(UnexpectedTracerError), not when its trace ends'),
    'jax_debug_key_reuse': (False, 'minijax does not check that PRNG keys are used once'),
    'jax_default_prng_impl': ('threefry2x32', 'minijax has the threefry2x32 PRNG only'),
    'jax_enable_custom_prng': (False, 'minijax has no custom PRNG implementations'),
    'jax_legacy_prng_key': ('allow', 'minijax accepts raw uint32 keys, as JAX by default'),
    'jax_no_execution': (False, 'minijax does not refuse to execute'),
    'jax_no_tracing': (False, 'minijax does not refuse to trace'),
    'jax_remove_size_one_mesh_axis_from_type': (False, 'minijax keeps size-one mesh axes in '
                                                       'types, as JAX by default'),
    'jax_softmax_custom_jvp': (False, "minijax differentiates softmax as JAX does by default"),
    'jax_thread_guard': (False, 'minijax does not guard against use from other threads'),
    'jax_threefry_partitionable': (True, 'minijax computes random bits as JAX does by '
                                         'default (partitionable threefry)'),
    **dict.fromkeys(
        [f'jax_transfer_guard{direction}' for direction in _DIRECTIONS],
        (None, 'minijax has no transfer guard: every transfer is allowed')),
}
#: Flags that change nothing minijax computes: any value is accepted and kept (the cache's
#: are read by minijax.compilation_cache).
_FREE = {'jax_disable_jit': False, 'jax_log_compiles': False, 'jax_traceback_filtering': 'auto',
         'jax_compilation_cache_dir': None, 'jax_persistent_cache_min_compile_time_secs': 1.0,
         'jax_persistent_cache_min_entry_size_bytes': 0,
         'jax_compilation_cache_include_metadata_in_key': False, 'jax_explain_cache_misses': False,
         'jax_enable_checks': False, 'jax_array_garbage_collection_guard': None,
         'jax_debug_nans': False, 'jax_debug_infs': False}
#: Flags that take one of a few values, each honoured: the first is the default.
_CHOICES = {'jax_numpy_dtype_promotion': ('standard', 'strict')}
#: The flags that turn on checking results for special values (``minijax.special_values``).
_SPECIAL_VALUES = ('jax_debug_nans', 'jax_debug_infs')
#: Called with no arguments when one of them is set: the checks are installed or removed,
#: and ``jit`` drops the fast paths it recorded (which check nothing).
special_value_hooks: list = []
#: minijax's own flags, read by the runtime (``minijax_num_cpu_devices``: how many CPU devices
#: the replicated programs' client is made with, before the first ``pmap``; see
#: ``minijax.runtime``).
_MINIJAX = {'minijax_num_cpu_devices': None}


class Config:
    """Flag values, read as attributes (``config.jax_enable_x64``). Each is an attribute of
    the instance, so reading one (``jit`` reads ``jax_disable_jit`` on every call) is a plain
    attribute lookup."""

    def __init__(self):
        vars(self).update({**{k: v for k, (v, _) in _FLAGS.items()}, **_FREE, **_MINIJAX,
                           **{k: values[0] for k, values in _CHOICES.items()}})

    def update(self, name, value):
        if name in _FREE or name in _MINIJAX:
            vars(self)[name] = value
            if name in _SPECIAL_VALUES:
                for hook in special_value_hooks:
                    hook()
            return
        if name in _CHOICES:  # (each changes what a trace is: jit keys its traces on it)
            if value not in _CHOICES[name]:
                raise ValueError(f'{value!r} is not a valid value of {name} (one of '
                                 f'{", ".join(map(repr, _CHOICES[name]))})')
            vars(self)[name] = value
            _changed_trace_context()
            return
        if name not in _FLAGS:
            raise AttributeError(f'config.update: unknown or unsupported flag {name!r} '
                                 f'(minijax knows {", ".join(sorted(vars(self)))})')
        supported, why = _FLAGS[name]
        if value != supported and not (name == 'jax_platforms' and value in ('', None)) \
                and not (name.startswith('jax_transfer_guard') and value == 'allow'):
            raise NotImplementedError(f'config.update({name!r}, {value!r}): {why}; only '
                                      f'{supported!r} is supported')
        vars(self)[name] = value

    def read(self, name):
        return getattr(self, name)

    def __getattr__(self, name):  # called only for a name that is not a flag
        raise AttributeError(f'config has no flag {name!r}')


config = Config()

_NO_VALUE = object()  # (``State()`` called without a value)


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
        return _Setting({self.name: new_val})

    def __repr__(self):
        return f'State({self.name!r}, value={self.value!r})'


class _Setting(contextlib.ContextDecorator):
    """Flags set within a block: ``values`` maps each flag's name to its value there."""

    def __init__(self, values: dict):
        self._values = values

    def __enter__(self):
        self._before = {name: config.read(name) for name in self._values}
        for name, value in self._values.items():
            config.update(name, value)

    def __exit__(self, *exc):
        for name, value in self._before.items():
            config.update(name, value)


(debug_infs, debug_nans, default_device, default_matmul_precision, enable_x64,
 explain_cache_misses, log_compiles, numpy_rank_promotion) = (State(f'jax_{name}') for name in (
     'debug_infs', 'debug_nans', 'default_device', 'default_matmul_precision', 'enable_x64',
     'explain_cache_misses', 'log_compiles', 'numpy_rank_promotion'))
(allow_f16_reductions, array_garbage_collection_guard, auto_pcast, check_tracer_leaks,
 debug_key_reuse, default_prng_impl, enable_checks, enable_custom_prng, legacy_prng_key,
 no_execution, no_tracing, numpy_dtype_promotion, remove_size_one_mesh_axis_from_type,
 softmax_custom_jvp, thread_guard, threefry_partitionable, transfer_guard_device_to_device,
 transfer_guard_device_to_host, transfer_guard_host_to_device) = (State(f'jax_{name}') for name in (
     'allow_f16_reductions', 'array_garbage_collection_guard', 'auto_pcast',
     'check_tracer_leaks', 'debug_key_reuse', 'default_prng_impl', 'enable_checks',
     'enable_custom_prng', 'legacy_prng_key', 'no_execution', 'no_tracing',
     'numpy_dtype_promotion', 'remove_size_one_mesh_axis_from_type', 'softmax_custom_jvp',
     'thread_guard', 'threefry_partitionable', 'transfer_guard_device_to_device',
     'transfer_guard_device_to_host', 'transfer_guard_host_to_device'))
#: ``jax.checking_leaks()``: ``check_tracer_leaks(True)`` (refused, as that flag's True is).
checking_leaks = functools.partial(check_tracer_leaks, True)


def transfer_guard(new_val: str):
    """The transfer guard level of every direction within a block (``jax.transfer_guard``):
    minijax has none, so only 'allow' is accepted."""
    return _Setting({f'jax_transfer_guard{direction}': new_val for direction in _DIRECTIONS})


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within the block, ``jit`` runs functions eagerly (``jax.disable_jit``)."""
    before = config.jax_disable_jit
    config.update('jax_disable_jit', disable)
    try:
        yield
    finally:
        config.update('jax_disable_jit', before)


# ----------------------------------------------------------------------------- user contexts

_user_contexts: list = []
#: Called with no arguments whenever a value a trace depends on changes (``trace_context``:
#: a user context, the dtype promotion rules): ``jit`` drops the fast paths it recorded
#: under the old values.
trace_context_hooks: list = []


class UserContext:
    """A value ``jit`` traces under (``jax.make_user_context``): a jitted function is traced
    and compiled again when it changes. ``.value`` reads it; ``ctx(v)`` sets it within a
    ``with`` block; ``set_global(v)`` sets it outside any block."""

    def __init__(self, default_value):
        self._value = default_value
        _user_contexts.append(self)

    @property
    def value(self):
        return self._value

    def get_global(self):
        return self._value

    def set_global(self, new_value):
        self._value = new_value
        _changed_trace_context()

    def __call__(self, new_value):
        return _UserSetting(self, new_value)


class _UserSetting(contextlib.ContextDecorator):
    def __init__(self, context, value):
        self._context, self._value = context, value

    def __enter__(self):
        self._before = self._context.value
        self._context.set_global(self._value)

    def __exit__(self, *exc):
        self._context.set_global(self._before)


def make_user_context(default_value=None) -> UserContext:
    """A new context value that ``jit``'s caches key on (``jax.make_user_context``)."""
    return UserContext(default_value)


def _changed_trace_context():
    for hook in trace_context_hooks:
        hook()


def trace_context() -> tuple:
    """What a trace depends on besides the arguments, for ``jit``'s trace cache key, as JAX
    keys its own: the dtype promotion rules and the value of every user context."""
    return (config.jax_numpy_dtype_promotion, *(c.value for c in _user_contexts))
