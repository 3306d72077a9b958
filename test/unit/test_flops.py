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


SOLVERS = {
    'custom_linear_solve': lambda x: lax.custom_linear_solve(
        lambda v: x * v, x + 1., lambda mv, b: b / x, symmetric=True),
    'platform_dependent': lambda x: lax.platform_dependent(
        x, cpu=lambda x: x * x * x, default=lambda x: x),
    'composite': lambda x: lax.composite(lambda x: x * x + x, name='my.op')(x),
}


@pytest.mark.parametrize('name', SOLVERS)
def test_solvers_count_as_xla_does(name):
    """The solve, the platform's branch, the decomposition: what runs."""
    x = np.ones((4, 5), np.float32)
    assert mj.flops(SOLVERS[name])(x) == xla_flops(SOLVERS[name], x)


def test_while_loop_trip_count_from_constants():
    def f(x):
        return mj.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    per_trip = 1 + 8  # counter add, carry multiply
    cond = 1
    assert mj.flops(f)(np.ones(8)) == 5 * per_trip + 6 * cond


def test_while_loop_with_input_dependent_trip_count():
    """From types alone the trip count is unknown (JAX's ValueError); given values, flops
    runs the loop as far as the count needs (Mini-JAX's "as much as needed")."""
    f = lambda n, x: mj.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1]), (0, x))  # noqa
    with pytest.raises(ValueError, match='trip count'):
        mj.flops(f)(mj.ShapeDtypeStruct((), np.int64), 1.)
    assert mj.flops(f)(3, 1.) == 3 * 1 + 4 * 1  # 3 counter adds, 4 predicates
    fori = lambda n, x: mj.fori_loop(0, n, lambda i, v: v * x, x)  # noqa: E731
    assert mj.flops(fori)(np.int64(5), np.ones(8)) == 5 * (8 + 1) + 6 * 1


def test_loops_in_a_loop_body_see_its_hoisted_constants():
    """A constant a scan body closes over is an operand of scan (as in JAX): the trip count
    of a while_loop inside, bounded by that constant, is still known."""
    limit = np.array([3., 7.])

    def f(x):
        def body(c, _):
            inner = mj.while_loop(lambda v: v[0] < lax.reduce_max(limit, 0),
                                  lambda v: (v[0] + 1., v[1] * x), (0., c))
            return inner[1], None
        return mj.scan(body, x, None, length=2)[0]
    per_scan_step = 7 * (1 + 8) + 8 * 2  # 7 trips of (counter, multiply); 8 predicates
    assert mj.flops(f)(np.ones(8)) == 2 * per_scan_step


def test_concrete_counts_python_control_flow_and_the_trips_run():
    """Mini-JAX's FLOPS transformation runs the program as far as needed: counting by
    running follows ``if`` on values, counts the cond branch taken and the while trips run,
    and agrees with the abstract count where both apply."""
    x = np.ones(8, np.float32)

    def python_if(x):
        return x * x * x if lax.reduce_sum(x) > 0 else x
    assert mj.flops(python_if, concrete=True)(x) == 7 + 1 + 16  # sum, compare, 2 multiplies
    assert mj.flops(python_if)(x) == 7 + 1 + 16  # runs: the types do not say which way
    with pytest.raises(TypeError, match='traced'):
        mj.flops(python_if)(mj.ShapeDtypeStruct((8,), np.float32))
    data_dependent = lambda n, x: mj.while_loop(  # noqa: E731
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    assert mj.flops(data_dependent, concrete=True)(3, x) == 3 * (1 + 8) + 4 * 1
    branches = lambda x: mj.cond(x[0] > 0, lambda: x * x * x, lambda: x)  # noqa: E731
    assert mj.flops(branches, concrete=True)(-x) == 1 + 1  # the comparison, its cast
    loss = mj.jit(mj.grad(lambda p, x: mlp_loss(p, x)))
    assert mj.flops(loss, concrete=True)(PARAMS, X) == mj.flops(loss)(PARAMS, X)


# ----------------------------------------------------------------------------- the CNN (issue 12)

def _cnn():
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parents[2] / 'examples' / 'cnn.py'
    spec = importlib.util.spec_from_file_location('example_cnn_flops', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    key = mj.random.PRNGKey(0)
    return module, module.init_params(key), *module.make_images(key, 16)


IMAGES = rng.normal(size=(8, 4, 8, 8)).astype(np.float32)
WINDOWED = {
    'conv': lambda x: lax.conv_general_dilated(
        x, np.ones((2, 4, 3, 3), np.float32), (2, 1), [(1, 0), (1, 1)],
        dimension_numbers=('NCHW', 'OIHW', 'NCHW')),
    'reduce_window_sum': lambda x: lax.reduce_window(x, 0., lax.add, (1, 1, 3, 2),
                                                     (1, 1, 2, 1), 'SAME'),
    'reduce_window_max': lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 1, 2, 2),
                                                     (1, 1, 2, 2), 'VALID'),
    'sort': lambda x: lax.sort(x.reshape(-1)),
    'top_k': lambda x: lax.top_k(x.reshape(-1), 5)[0],
}


@pytest.mark.rule('flops', primitives={'conv': 'conv_general_dilated', 'sort': 'sort',
                                       'reduce_window_sum': 'reduce_window_sum',
                                       'reduce_window_max': 'reduce_window_max', 'top_k': 'top_k'})
@pytest.mark.parametrize('name', WINDOWED)
def test_new_primitives_count_as_xla_does(name):
    """Convolution, windowed reductions and sorts, each alone, count what XLA counts."""
    f = WINDOWED[name]
    assert mj.flops(f)(IMAGES) == xla_flops(f, IMAGES)


def test_cnn_forward_counts_as_xla_does():
    module, params, images, labels = _cnn()
    mine, xla = mj.flops(module.loss)(params, images, labels), \
        xla_flops(module.loss, params, images, labels)
    assert abs(mine - xla) <= 0.01 * xla, (mine, xla)


def test_cnn_training_step_within_a_fifth_of_xla():
    """minijax counts the step's jaxpr as written; XLA counts the program after rewriting it
    (the convolutions' transposes, the pooling gradient), here about 15% more."""
    module, params, images, labels = _cnn()
    step = mj.value_and_grad(module.loss)
    mine, xla = mj.flops(step)(params, images, labels), xla_flops(step, params, images, labels)
    assert abs(mine - xla) <= 0.2 * xla, (mine, xla)
