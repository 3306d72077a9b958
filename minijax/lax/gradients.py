"""``stop_gradient``: the identity on values whose derivative is zero.

It needs a primitive: a composition of other primitives would carry their derivatives
along. The rule set is the smallest that is correct: the impl, abstract eval, vmap and
lowering are the identity (it lowers to no op at all, as in JAX), and the jvp rule returns a
symbolic zero tangent, so no tangent of it is ever built, staged or transposed; that is also
why it needs no transpose rule.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes, tree_util
from minijax.array import Array
from minijax.core import Primitive
from minijax.interpreters import jvp as ad
from minijax.lowering import register_lowering

stop_gradient_p = Primitive('stop_gradient')
# (an Array is its own result, where it is: a value on the device stays there)
stop_gradient_p.def_impl(lambda x: x if isinstance(x, Array) else np.asarray(x))
stop_gradient_p.def_abstract_eval(core.raise_to_shaped)
ad.defjvp_zero(stop_gradient_p)
stop_gradient_p.def_batching(lambda vals, dims: (stop_gradient_p.bind(*vals), dims[0]))
register_lowering(stop_gradient_p, lambda ctx, x: x)


def stop_gradient(x):
    """``x`` (an array or a pytree of arrays) unchanged, but a constant to differentiation:
    ``grad(lambda x: stop_gradient(x) * x)(3.)`` is 3. Bound on leaves of every dtype but
    keys, as in JAX (0.10.2 stages it on integers too)."""
    def stop(leaf):
        if dtypes.is_key(core.get_aval(leaf).dtype):
            return leaf
        return stop_gradient_p.bind(leaf)
    return tree_util.tree_map(stop, x)
