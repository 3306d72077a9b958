"""Random programs agree four ways: minijax's eager evaluation, jit through XLA, the
StableHLO reference interpreter on the same module, and JAX; and so do their gradients."""
import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings, strategies as st

import minijax as mj
from minijax import lax
from minijax.reference_interpreter import run_module

jax.config.update('jax_enable_x64', True)

# name -> (arity, minijax op, jax op); every op maps float64[4] values to float64[4].
OPS = {
    'add': (2, lax.add, jnp.add),
    'sub': (2, lax.sub, jnp.subtract),
    'mul': (2, lax.mul, jnp.multiply),
    'max': (2, lax.max, jnp.maximum),
    'sin': (1, lax.sin, jnp.sin),
    'tanh': (1, lax.tanh, jnp.tanh),
    'exp_of_neg_sq': (1, lambda x: lax.exp(lax.neg(lax.mul(x, x))), lambda x: jnp.exp(-x * x)),
    'scale': (1, lambda x: x * 0.5 + 1., lambda x: x * 0.5 + 1.),
    'sum_broadcast': (1, lambda x: lax.broadcast(lax.reduce_sum(x), (4,), (0,)),
                      lambda x: jnp.broadcast_to(jnp.sum(x), (4,))),
    'reverse': (1, lambda x: lax.transpose(lax.reshape(x, (2, 2)), (1, 0)).reshape(4),
                lambda x: x.reshape(2, 2).T.reshape(4)),
    'cond': (2, lambda x, y: mj.cond(lax.reduce_sum(x) > 0., lambda: lax.mul(x, y),
                                     lambda: lax.sub(y, x)),
             lambda x, y: jax.lax.cond(jnp.sum(x) > 0., lambda: x * y, lambda: y - x)),
    'scan': (2, lambda x, y: mj.scan(lambda c, r: (lax.add(lax.mul(c, r), r), c), x, y)[0],
             lambda x, y: jax.lax.scan(lambda c, r: (c * r + r, c), x, y)[0]),
}

steps = st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 99),
                           st.integers(0, 99)), min_size=1, max_size=6)


def build(program, which):
    """The program as a function of two float64[4] inputs, using minijax (0) or jax (2) ops."""
    def f(x, y):
        values = [x, y]
        for name, a, b in program:
            arity, *ops = OPS[name]
            op = ops[which // 2]
            args = [values[a % len(values)], values[b % len(values)]][:arity]
            values.append(op(*args))
        total = values[-1]
        return total, values[2] if len(values) > 3 else total
    return f


def scalar(f, total):
    return lambda x, y: total(f(x, y)[0])


@settings(max_examples=25, deadline=None)
@given(steps, st.integers(0, 2 ** 31 - 1))
def test_four_executors_agree(program, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=4), rng.normal(size=4)
    mine, theirs = build(program, 0), build(program, 2)
    expected = [np.asarray(v) for v in theirs(x, y)]
    lowered = mj.jit(mine).lower(x, y)
    for got in (mine(x, y), mj.jit(mine)(x, y), run_module(lowered.compiler_ir(), [x, y])):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-10, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(steps, st.integers(0, 2 ** 31 - 1))
def test_gradients_agree_with_jax(program, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=4), rng.normal(size=4)
    mine = scalar(build(program, 0), lax.reduce_sum)
    theirs = scalar(build(program, 2), jnp.sum)
    expected = jax.grad(theirs, (0, 1))(x, y)
    for got in (mj.grad(mine, (0, 1))(x, y), mj.jit(mj.grad(mine, (0, 1)))(x, y)):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)
