"""JAX's public names that minijax does not provide, each with why and what to use instead.

A minijax namespace that lacks one of these names raises an ``AttributeError`` that says so
(its module ``__getattr__`` is ``missing_name``), so a ported program stops at a reason and an
alternative, not at a bare "has no attribute". The coverage table (``bench/coverage.py``,
``docs/jax_coverage.md``) reads the same table. The other way round, ``public_dir`` keeps a
namespace's ``dir()`` to JAX's names where the module holds more.
"""
from __future__ import annotations

import dis
import sys

_REFS = ("mutable array references (JAX's Ref, new_ref, freeze and their helpers) are not "
         'supported: minijax values are immutable; update functionally (x.at[i].set(v)) and '
         'carry state through loops and function results')

_EFFECTS = ("effect types: minijax's jaxprs record none; a primitive is effectful or not "
            '(Primitive.effectful), which dead-code elimination reads, and its effect ordered '
            'or not (Primitive.ordered, a function of the params), which lowering reads')
_TRACE_STATE = ("JAX's trace-state internals: minijax's transformations are a stack of "
                'MainTrace objects (minijax.core.trace_stack, new_main, new_dynamic)')
_EXTENDED = ("JAX's extended dtypes and high-level types: minijax's one extended dtype is the "
             'PRNG key (random.key)')

_NARROW_FLOATS = ('minijax has no float8, float6, float4 or sub-byte integer dtypes; '
                  'use bfloat16 or float16, or int8/uint8')

#: namespace -> name -> why minijax does not have it, and what to use instead.
UNSUPPORTED: dict[str, dict[str, str]] = {
    'jax': {
        'jax2tf_associative_scan_reductions': 'a jax2tf flag: minijax has no TensorFlow '
                                              'export; its portable artifact is StableHLO '
                                              '(minijax lower --emit bytecode)',
        **dict.fromkeys(['Ref', 'new_ref', 'empty_ref', 'free_ref', 'freeze', 'ds', 'ad'],
                        _REFS),
        'memory': 'memory spaces: minijax keeps every array in the CPU device\'s one memory '
                  '(device_put moves nothing between memories)',
    },
    'jax.errors': {
        'InconclusiveDimensionOperation': "the error of a comparison of symbolic dimensions: "
                                          "minijax has no shape polymorphism, every dimension "
                                          "is an int, so it is never raised",
    },
    'jax.debug': dict.fromkeys(['DebugEffect', 'OrderedDebugEffect'], _EFFECTS),
    'jax.custom_derivatives': {
        'remat_opt_p': "the primitive of custom_vjp's optimize_remat, which minijax does not "
                       'support: checkpoint recomputes nothing',
    },
    'jax.experimental': dict.fromkeys(['EArray', 'cur_qdd', 'primal_tangent_dtype'], _EXTENDED),
    'jax.experimental.checkify': dict.fromkeys(
        ['Error', 'ErrorCategory', 'JaxRuntimeError', 'all_checks', 'automatic_checks',
         'check', 'check_error', 'checkify', 'debug_check', 'div_checks', 'float_checks',
         'index_checks', 'init_error', 'nan_checks', 'user_checks'],
        'checkify (errors as values, threaded through jit, vmap and grad) is not '
        'supported: check a traced condition with jax.debug.callback raising on the host, '
        "and NaNs and infinities with jax.config.update('jax_debug_nans', True) (or "
        'jax_debug_infs), which names the primitive'),
    'jax.extend.core': {
        **dict.fromkeys(['Effect', 'Effects'], _EFFECTS),
        **dict.fromkeys(['TraceTag', 'get_opaque_trace_state', 'set_current_trace',
                         'take_current_trace'], _TRACE_STATE),
        **dict.fromkeys(['CallPrimitive', 'call_impl'],
                        "JAX's call primitives bind a Python function; minijax's "
                        'higher-order primitives hold a ClosedJaxpr parameter (see xla_call_p, '
                        'custom_jvp_call_p)'),
        'DebugInfo': "minijax's jaxprs carry no debug info (argument and result names live "
                     "in jit's lowering)",
        'InconclusiveDimensionOperation': "the error of a comparison of symbolic dimensions: "
                                          "minijax has no shape polymorphism",
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
            reason = (f'{module}.{name} is not supported ({namespace}.{name} is JAX\'s): '
                      f'{unsupported[name]}')
            if _importing_from(sys._getframe(1)):
                raise ImportError(reason, name=module)
            raise AttributeError(reason, name=name)
        raise AttributeError(f"module '{module}' has no attribute '{name}'", name=name)
    return __getattr__


_IMPORT_FROM = dis.opmap['IMPORT_FROM']


def _importing_from(frame) -> bool:
    """Whether ``frame`` is running ``from module import name``. Python turns an
    AttributeError there into a bare "cannot import name", which drops the reason; an
    ImportError goes through as it is (and ``hasattr`` still sees an AttributeError)."""
    return frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM


def public_dir(module_globals: dict):
    """A module ``__dir__`` listing only the module's ``__all__`` (and its dunder names), so
    that ``dir()`` and tab completion offer JAX's names. For a minijax namespace that must
    keep other names: the tables, predicates and rule-registration helpers the rest of
    minijax imports from it by name (JAX keeps its counterparts in ``jax._src``)."""
    def __dir__():
        return sorted({*module_globals['__all__'],
                       *(name for name in module_globals if name.startswith('__'))} -
                      {'__dir__'})
    return __dir__
