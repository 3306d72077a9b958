"""minijax.flops against XLA's cost analysis and against counts done by hand."""
import numpy as np
import pytest

import minijax as mj
from minijax import lax

DN = (((1,), (0,)), ((), ()))  # contract x's axis 1 with w's axis 0
rng = np.random.default_rng(0)


def mlp_loss(params, x):
    w1, b1, w2, b2 = params
    h = lax.tanh(lax.add(lax.dot_general(x, w1, DN), b1))
    out = lax.add(lax.dot_general(h, w2, DN), b2)
    return lax.reduce_sum(lax.mul(out, out))


PARAMS = [rng.normal(size=s).astype(np.float32) for s in [(16, 32), (64, 32), (32, 8), (64, 8)]]
X = rng.normal(size=(64, 16)).astype(np.float32)


def xla_flops(f, *args):
    return mj.jit(f).lower(*args).compile().cost_analysis()['flops']


@pytest.mark.parametrize('f', [mlp_loss, mj.grad(mlp_loss), mj.jit(mj.grad(mlp_loss))],
                         ids=['loss', 'grad', 'jit_grad'])
def test_mlp_within_ten_percent_of_xla(f):
    mine, xla = mj.flops(f)(PARAMS, X), xla_flops(f, PARAMS, X)
    assert abs(mine - xla) <= 0.1 * xla, (mine, xla)


def test_counts_by_hand():
    x = np.ones((4, 5), np.float32)
    assert mj.flops(lambda x: lax.sin(x) * x + x)(x) == 40  # sin is a transcendental: 0
    assert mj.flops(lambda x: lax.reduce_sum(x, 1))(x) == 20 - 4
    assert mj.flops(lambda x, w: lax.dot_general(x, w, DN))(x, np.ones((5, 3), np.float32)) == 2 * 4 * 3 * 5
    assert mj.flops(lambda x: lax.transpose(x, (1, 0)))(x) == 0


def test_control_flow():
    x = np.ones((8,), np.float32)
    body = lambda i, v: v * x  # noqa: E731 (8 flops an iteration)
    counter = 1  # the loop counter's increment
    assert mj.flops(lambda x: mj.fori_loop(0, 10, body, x))(x) == 10 * (8 + counter)
    branches = lambda x: mj.cond(x[0] > 0, lambda: x * x * x, lambda: x)  # noqa: E731
    assert mj.flops(branches)(x) == 16 + 2  # the larger branch, the comparison, its cast
    assert mj.flops(mj.jit(lambda x: x * x))(x) == 8
    scanned = lambda x: mj.scan(lambda c, r: (c + r, None), x, np.ones((6, 8)))  # noqa
    assert mj.flops(scanned)(np.ones(8)) == 6 * 8


def test_while_loop_trip_count_from_constants():
    def f(x):
        return mj.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    per_trip = 1 + 8  # counter add, carry multiply
    cond = 1
    assert mj.flops(f)(np.ones(8)) == 5 * per_trip + 6 * cond


def test_while_loop_with_input_dependent_trip_count():
    f = lambda n, x: mj.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1]), (0, x))  # noqa
    with pytest.raises(ValueError, match='trip count'):
        mj.flops(f)(3, 1.)
