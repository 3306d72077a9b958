"""JAX's public names that minijax does not provide, each with why and what to use instead.

A minijax namespace that lacks one of these names raises an ``AttributeError`` that says so
(its module ``__getattr__`` is ``missing_name``), so a ported program stops at a reason and an
alternative, not at a bare "has no attribute". The coverage table (``bench/coverage.py``,
``docs/jax_coverage.md``) reads the same table.
"""
from __future__ import annotations

_NARROW_FLOATS = ('minijax has no float8, float6, float4 or sub-byte integer dtypes; '
                  'use bfloat16 or float16, or int8/uint8')

#: namespace -> name -> why minijax does not have it, and what to use instead.
UNSUPPORTED: dict[str, dict[str, str]] = {
    'jax': {
        'jax2tf_associative_scan_reductions': 'a jax2tf flag: minijax has no TensorFlow '
                                              'export; its portable artifact is StableHLO '
                                              '(minijax lower --emit bytecode)',
    },
    'jax.errors': {
        'InconclusiveDimensionOperation': "the error of a comparison of symbolic dimensions: "
                                          "minijax has no shape polymorphism, every dimension "
                                          "is an int, so it is never raised",
    },
    'jax.nn': dict.fromkeys(
        ['get_scaled_dot_general_config', 'scaled_dot_general', 'scaled_matmul'],
        "block-scaled matmuls (mxfp8, nvfp4) are cuDNN kernels on float8/float4 data, and "
        + _NARROW_FLOATS + '; use lax.dot_general (with preferred_element_type)'),
    'jax.numpy': dict.fromkeys(
        ['float4_e2m1fn', 'float6_e2m3fn', 'float6_e3m2fn', 'float8_e3m4', 'float8_e4m3',
         'float8_e4m3b11fnuz', 'float8_e4m3fn', 'float8_e4m3fnuz', 'float8_e5m2',
         'float8_e5m2fnuz', 'float8_e8m0fnu', 'int1', 'int2', 'int4', 'uint1', 'uint2',
         'uint4'], _NARROW_FLOATS),
}


def missing_name(namespace: str):
    """A module ``__getattr__`` for the minijax module standing for JAX's ``namespace``:
    a name of ``UNSUPPORTED`` is an error naming the reason; any other is Python's usual
    error."""
    unsupported = UNSUPPORTED.get(namespace, {})
    module = 'minijax' + namespace[len('jax'):]

    def __getattr__(name):
        if name in unsupported:
            raise AttributeError(f'{module}.{name} is not supported ({namespace}.{name} is '
                                 f'JAX\'s): {unsupported[name]}', name=name)
        raise AttributeError(f"module '{module}' has no attribute '{name}'", name=name)
    return __getattr__
