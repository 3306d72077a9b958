"""A user-defined primitive, rule by rule: the ``multiply_add`` walkthrough of "How JAX
primitives work", rebuilt on minijax's public API.

``multiply_add(x, y, z) = x * y + z``. Each section adds one rule and shows what it unlocks;
``python examples/multiply_add.py`` runs them all and prints what each transformation gives.
"""
import numpy as np

import minijax
from minijax.lowering import register_lowering, stablehlo

multiply_add_p = minijax.Primitive('multiply_add')


def multiply_add(x, y, z):
    """The traceable way to use the primitive: bind it to the (positional) operands."""
    return multiply_add_p.bind(x, y, z)


def square_add(a, b):
    return multiply_add(a, a, b)


# Evaluation: how to compute the result from concrete NumPy values.
@multiply_add_p.def_impl
def multiply_add_impl(x, y, z):
    return np.add(np.multiply(x, y), z)


# Abstract evaluation: the type of the result from the types of the operands. jit, vmap
# and grad trace with types alone, so every transformation beyond evaluation needs it.
@multiply_add_p.def_abstract_eval
def multiply_add_abstract_eval(x, y, z):
    if not x.shape == y.shape == z.shape or not x.dtype == y.dtype == z.dtype:
        raise TypeError(f'multiply_add needs operands of one type, got {x.str_short()}, '
                        f'{y.str_short()} and {z.str_short()}')
    return minijax.ShapedArray(x.shape, x.dtype)


# Lowering: the StableHLO ops that compute the result inside a compiled module.
def multiply_add_lowering(ctx, x, y, z):
    return [stablehlo.AddOp(stablehlo.MulOp(x, y).result, z).result]


register_lowering(multiply_add_p, multiply_add_lowering)


# Forward differentiation: the output tangent is xt * y + x * yt + zt, written with the
# primitive itself so that it too can be jitted, batched and transposed.
@multiply_add_p.def_jvp
def multiply_add_jvp(primals, tangents):
    x, y, z = primals
    xt, yt, zt = tangents
    out = multiply_add(x, y, z)
    return out, multiply_add(xt, y, multiply_add(x, yt, zt))


# Reverse differentiation: the JVP uses multiply_add linearly (one of x, y is always a
# constant there), so grad needs its transpose in the linear arguments.
@multiply_add_p.def_transpose
def multiply_add_transpose(ct, x, y, z):
    zeros = minijax.lax.full(ct.shape, 0, ct.dtype)
    if minijax.is_undefined_primal(x):  # ct * y flows back to x
        return [multiply_add(ct, y, zeros), None, ct]
    return [None, multiply_add(x, ct, zeros), ct]


# Batching: multiply_add is elementwise, so a batch of examples is one bigger application,
# once every operand has its batch axis in the same place.
@multiply_add_p.def_batching
def multiply_add_batching(args, dims):
    size = next(np.shape(a)[d] for a, d in zip(args, dims) if d is not None)
    args = [minijax.lax.broadcast(a, (size,)) if d is None
            else _move_to_front(a, d) for a, d in zip(args, dims)]
    return multiply_add(*args), 0


def _move_to_front(x, axis):
    perm = (axis, *(i for i in range(np.ndim(x)) if i != axis))
    return minijax.lax.transpose(x, perm)


def main():
    xs, ys = np.array([2., 3.]), np.array([10., 20.])
    print('eval:         ', square_add(2., 10.))
    print('jit:          ', minijax.jit(square_add)(2., 10.))
    print('jvp:          ', minijax.jvp(square_add, (2., 10.), (1., 1.)))
    print('grad:         ', minijax.grad(square_add)(2., 10.))
    print('jit(grad):    ', minijax.jit(minijax.grad(square_add))(2., 10.))
    print('vmap:         ', minijax.vmap(square_add)(xs, ys))
    print('jit(vmap):    ', minijax.jit(minijax.vmap(square_add))(xs, ys))
    print(minijax.jit(square_add).lower(2., 10.).as_text())


if __name__ == '__main__':
    main()
