"""The library a test program compares, set up in its own process on 8 CPU devices (the unit
tests' own processes have 4): ``library('jax')`` or ``library('minijax')``. JAX computes in
64-bit, as minijax does, and reads the suite's compilation cache (conftest.py) if it has one."""
import os


def library(name):
    if name == 'jax':
        import jax
        jax.config.update('jax_num_cpu_devices', 8)
        jax.config.update('jax_enable_x64', True)
        if os.environ.get('MINIJAX_TESTS_JAX_CACHE'):
            jax.config.update('jax_compilation_cache_dir', os.environ['MINIJAX_TESTS_JAX_CACHE'])
            jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
        return jax
    import minijax
    minijax.config.update('minijax_num_cpu_devices', 8)
    return minijax
