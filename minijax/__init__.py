"""minijax: a small JAX that lowers to StableHLO MLIR and runs on the PJRT CPU client."""
import os

#: minijax's own version (``jax.__version__`` is JAX's: minijax follows JAX 0.10.2's API).
__version__ = '0.1.0'

# Before jaxlib loads: keep PJRT's start-up INFO lines off stderr unless asked for.
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')

from minijax import (ad_checkpoint, checkpoint_policies, debug, distributed,  # noqa: E402
                     errors, experimental, extend, image, lax, nn, numpy, ops, random, scipy,
                     sharding, stages, test_util, tree, tree_util, typing)
from minijax.array import (Array, Shard, block_until_ready, copy_to_host_async,  # noqa: E402
                           device_get, device_put)
from minijax.callback import pure_callback  # noqa: E402
from minijax.autodiff import (fwd_and_bwd, grad, hessian, jacfwd, jacobian,  # noqa: E402
                              jacrev, jvp, linear_transpose, linearize, value_and_grad, vjp)
from minijax.control_flow import cond, fori_loop, scan, switch, while_loop  # noqa: E402
from minijax.config import (config, debug_infs, debug_nans, default_device,  # noqa: E402
                            default_matmul_precision, disable_jit, enable_x64,
                            explain_cache_misses, log_compiles, numpy_rank_promotion)
from minijax.config import (allow_f16_reductions, array_garbage_collection_guard,  # noqa: E402
                            auto_pcast, check_tracer_leaks, checking_leaks, debug_key_reuse,
                            default_prng_impl, enable_checks, enable_custom_prng,
                            legacy_prng_key, make_user_context, no_execution, no_tracing,
                            numpy_dtype_promotion, remove_size_one_mesh_axis_from_type,
                            softmax_custom_jvp,
                            thread_guard, threefry_partitionable, transfer_guard,
                            transfer_guard_device_to_device, transfer_guard_device_to_host,
                            transfer_guard_host_to_device)
from minijax.core import Primitive, ShapedArray, ShapeDtypeStruct, typeof  # noqa: E402
from minijax.core import ensure_compile_time_eval, named_call, named_scope  # noqa: E402
from minijax.dtypes import float0  # noqa: E402
from minijax import dispatch  # noqa: E402,F401  (eager primitives run on XLA)
from minijax.custom_derivatives import (checkpoint, closure_convert, custom_gradient,  # noqa: E402
                                        custom_jvp, custom_vjp, remat)
from minijax.flops import flops  # noqa: E402
from minijax.global_arrays import (make_array_from_callback,  # noqa: E402
                                   make_array_from_process_local_data,
                                   make_array_from_single_device_arrays)
from minijax.interpreters.batching import vmap  # noqa: E402
from minijax.interpreters.transpose import is_undefined_primal  # noqa: E402
from minijax.ir.tracing import eval_shape, make_jaxpr  # noqa: E402
from minijax.jit import clear_caches, jit  # noqa: E402
from minijax.pmap import pmap  # noqa: E402
from minijax.shard_map import shard_map, smap  # noqa: E402
from minijax.runtime import (Device, default_backend, device_count, devices,  # noqa: E402
                              effects_barrier, host_count, host_id, host_ids, live_arrays,
                              local_device_count, local_devices, print_environment_info,
                              process_count, process_index, process_indices)
from minijax.sharding.mesh import make_mesh, set_mesh  # noqa: E402
from minijax.lax.reshard import reshard  # noqa: E402
from minijax.sharding.partition_spec import P  # noqa: E402
from minijax.sharding.named_sharding import NamedSharding  # noqa: E402

__all__ = [
    'ad_checkpoint', 'allow_f16_reductions', 'array_garbage_collection_guard', 'auto_pcast',
    'check_tracer_leaks', 'checking_leaks', 'closure_convert', 'copy_to_host_async',
    'custom_gradient', 'debug_key_reuse', 'default_prng_impl', 'effects_barrier',
    'enable_checks', 'enable_custom_prng', 'ensure_compile_time_eval', 'experimental',
    'extend', 'float0', 'fwd_and_bwd', 'host_count', 'host_id', 'host_ids', 'legacy_prng_key',
    'linear_transpose', 'live_arrays', 'make_user_context', 'named_call', 'named_scope',
    'no_execution', 'no_tracing', 'numpy_dtype_promotion', 'print_environment_info',
    'process_indices', 'remove_size_one_mesh_axis_from_type', 'smap', 'softmax_custom_jvp',
    'stages', 'thread_guard', 'threefry_partitionable', 'transfer_guard',
    'transfer_guard_device_to_device', 'transfer_guard_device_to_host',
    'transfer_guard_host_to_device',
    'Array', 'Device', 'NamedSharding', 'Primitive', 'Shard', 'ShapeDtypeStruct',
    'ShapedArray',
    'block_until_ready', 'checkpoint', 'checkpoint_policies', 'clear_caches', 'cond', 'config',
    'custom_jvp', 'custom_vjp', 'debug', 'debug_infs', 'debug_nans', 'default_device',
    'distributed',
    'default_matmul_precision', 'enable_x64', 'explain_cache_misses', 'log_compiles',
    'numpy_rank_promotion',
    'default_backend', 'device_count', 'device_get', 'device_put', 'devices', 'disable_jit',
    'errors', 'eval_shape', 'flops', 'local_device_count', 'local_devices',
    'make_array_from_callback', 'make_array_from_process_local_data',
    'make_array_from_single_device_arrays', 'make_mesh',
    'NamedSharding', 'P',
    'process_count',
    'process_index', 'reshard', 'typeof', 'fori_loop', 'grad', 'hessian',
    'image', 'is_undefined_primal', 'jacfwd',
    'jacobian', 'jacrev', 'jit', 'jvp', 'lax', 'linearize', 'make_jaxpr', 'nn', 'numpy', 'ops',
    'pmap', 'pure_callback',
    'random', 'remat', 'scan', 'scipy', 'set_mesh', 'shard_map',
    'sharding', 'switch', 'test_util', 'tree', 'tree_util', 'typing', 'value_and_grad', 'vjp', 'vmap',
    'while_loop',
]

from minijax import unsupported  # noqa: E402

__getattr__ = unsupported.missing_name('jax')
