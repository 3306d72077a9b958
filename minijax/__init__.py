"""minijax: a small JAX that lowers to StableHLO MLIR and runs on the PJRT CPU client."""
import os

# Before jaxlib loads: keep PJRT's start-up INFO lines off stderr unless asked for.
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')

from minijax import lax, numpy  # noqa: E402  (after the environment is set)
from minijax.array import Array
from minijax.autodiff import (grad, hessian, jacfwd, jacobian, jacrev, jvp, linearize,
                              value_and_grad, vjp)
from minijax.control_flow import cond, fori_loop, scan, switch, while_loop
from minijax.core import ConcreteArray, Primitive, ShapedArray, ShapeDtypeStruct
from minijax.custom_derivatives import checkpoint, custom_jvp, custom_vjp, remat
from minijax.flops import flops
from minijax.interpreters.batching import vmap
from minijax.interpreters.transpose import is_undefined_primal
from minijax.ir.tracing import make_jaxpr
from minijax.jit import jit
from minijax import test_util
from minijax import tree, tree_util
from minijax.tree_util import register_pytree_node
from minijax import nn, scipy

__all__ = ['Array', 'ConcreteArray', 'Primitive', 'ShapeDtypeStruct', 'ShapedArray', 'cond',
           'checkpoint', 'custom_jvp', 'custom_vjp', 'nn', 'numpy', 'remat', 'scipy',
           'flops', 'fori_loop', 'grad', 'hessian', 'is_undefined_primal', 'jacfwd', 'jacobian',
           'jacrev', 'jit', 'jvp', 'lax', 'linearize',
           'make_jaxpr', 'register_pytree_node', 'scan', 'switch', 'test_util', 'tree', 'tree_util',
           'value_and_grad', 'vjp', 'vmap', 'while_loop']
