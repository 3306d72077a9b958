"""Results as JAX prints them: eager numerics bit for bit, weak types, the top-level API.

A ported JAX program prints what JAX prints only if eager results carry XLA's bits (JAX runs
every eager primitive on XLA) and the same weak types (``Array(1., dtype=float64,
weak_type=True)``); both are checked here against JAX itself, exactly.
"""
import contextlib
import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import minijax
import minijax.numpy as mnp
import minijax.nn as mnn
from minijax import lax as mlax
from minijax import runtime

import testlib  # noqa: F401  (JAX with x64, as minijax computes)

RNG = np.random.RandomState(7)
X = RNG.uniform(-3, 3, 257)
POSITIVE = RNG.uniform(0.01, 3, 257)
MATRIX = RNG.uniform(-3, 3, (20, 11))
COMPLEX = np.array([complex(np.nan, 0), 1 + 1j, complex(0, np.inf), complex(np.inf, np.nan), 2j])


def _same_bits(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual.reshape(-1).view(np.uint8),
                                  expected.reshape(-1).view(np.uint8))


# ----------------------------------------------------------------------------- eager bits

EAGER = {
    'exp': (lambda np_: np_.exp, X),
    'log': (lambda np_: np_.log, POSITIVE),
    'log1p': (lambda np_: np_.log1p, POSITIVE),
    'tanh': (lambda np_: np_.tanh, X),
    'sin': (lambda np_: np_.sin, X * 100),
    'cos': (lambda np_: np_.cos, X * 100),
    'sqrt': (lambda np_: np_.sqrt, POSITIVE),
    'tan': (lambda np_: np_.tan, X / 2),
    'expm1': (lambda np_: np_.expm1, X),
    'cbrt': (lambda np_: np_.cbrt, X),
    'arctan2': (lambda np_: lambda x: np_.arctan2(x, x[::-1]), X),
    'log2': (lambda np_: np_.log2, POSITIVE),
    'log10': (lambda np_: np_.log10, POSITIVE),
    'log10_f32': (lambda np_: np_.log10, POSITIVE.astype(np.float32)),
    'cube': (lambda np_: lambda x: x ** 3, X),
    'power': (lambda np_: lambda x: np_.power(x, 0.37), POSITIVE),
    'sum': (lambda np_: lambda x: np_.sum(x, axis=0), MATRIX),
    'sum_all': (lambda np_: np_.sum, MATRIX),
    'mean': (lambda np_: np_.mean, MATRIX),
    'mean_axis': (lambda np_: lambda x: np_.mean(x, axis=1), MATRIX),
    'dot': (lambda np_: lambda x: x @ x.T, MATRIX),
    'cumsum': (lambda np_: np_.cumsum, X),
    'divide_by_scalar': (lambda np_: lambda x: x / 10., X),  # XLA: x * (1 / 10.)
    # jnp functions JAX stages as (inline) jits: compiled eagerly in both
    'var_axis': (lambda np_: lambda x: np_.var(x, axis=0, ddof=1), MATRIX),
    'std': (lambda np_: np_.std, MATRIX),
    'nanmean': (lambda np_: lambda x: np_.nanmean(np_.where(x > 2, np.nan, x), axis=1), MATRIX),
    'linspace': (lambda np_: lambda x: np_.linspace(x[0], x[1], 7), X),
    'norm': (lambda np_: np_.linalg.norm, MATRIX),
    'log_softmax': (lambda np_: (mnn if np_ is mnp else jax.nn).log_softmax, MATRIX),
    'gelu': (lambda np_: (mnn if np_ is mnp else jax.nn).gelu, X),
    'isnan_isinf_complex': (lambda np_: lambda x: np_.isnan(x) | np_.isinf(x), COMPLEX),
}


@pytest.mark.parametrize('name', EAGER)
def test_eager_results_have_jaxs_bits(name):
    """Each transcendental and each sum runs on XLA, as in JAX: NumPy's libm and pairwise
    summation round differently in the last bit."""
    fn, x = EAGER[name]
    _same_bits(fn(mnp)(x), fn(jnp)(x))


def test_sigmoid_has_jaxs_bits_eagerly_and_under_jit():
    """``logistic`` is ``1 / (1 + exp(-x))`` in both (JAX does not lower it to
    ``stablehlo.logistic``, whose expansion rounds differently)."""
    expected = jax.nn.sigmoid(X * 10)
    _same_bits(minijax.nn.sigmoid(X * 10), expected)
    _same_bits(minijax.jit(minijax.nn.sigmoid)(X * 10), expected)


def _tanh(np_):
    def tanh(x):
        y = np_.exp(-2.0 * x)
        return (1.0 - y) / (1.0 + y)
    return tanh


DERIVATIVES = {
    'readme_tanh': _tanh,
    'rational': lambda np_: lambda x: x / (1 + x * x),
    'softplus': lambda np_: lambda x: np_.log(1 + np_.exp(x)),
    'sqrt': lambda np_: lambda x: np_.sqrt(x * x + 1),
    'sin_times_x': lambda np_: lambda x: np_.sin(x) * x,
}


@pytest.mark.parametrize('order', [1, 2, 3])
@pytest.mark.parametrize('name', DERIVATIVES)
def test_derivatives_have_jaxs_bits(name, order):
    """The JAX README's ``grad(grad(grad(tanh)))`` and others: the tangent rules are JAX's
    formulas (``div``'s uses ``integer_pow(y, -2)``) and the linearized jaxpr keeps the
    program's order, so cotangents are summed in JAX's order and round alike."""
    f, g = DERIVATIVES[name](mnp), DERIVATIVES[name](jnp)
    for _ in range(order):
        f, g = minijax.grad(f), jax.grad(g)
    for x in np.linspace(-3, 3, 13):
        assert repr(float(f(x))) == repr(float(g(x))), x


def test_mean_of_a_loss_has_jaxs_bits():
    """``jnp.mean`` divides by a constant count; XLA turns that into a product with the
    reciprocal, so minijax multiplies too (eagerly and under jit)."""
    d = (MATRIX[:, 0] * 0.3 - 0.1) ** 2
    assert repr(float(mnp.mean(d))) == repr(float(jnp.mean(d)))
    assert repr(float(minijax.jit(mnp.mean)(d))) == repr(float(jnp.mean(d)))


def test_an_eager_primitive_compiles_once_per_signature():
    minijax.clear_caches()  # (an earlier test in this process may have compiled exp f64[2,5])
    x = RNG.uniform(size=(3, 5))
    mnp.exp(x)
    before = runtime.counters['eager_compile']
    for _ in range(3):
        mnp.exp(x)
    assert runtime.counters['eager_compile'] == before
    mnp.exp(x[:2])
    assert runtime.counters['eager_compile'] == before + 1


# ----------------------------------------------------------------------------- weak types

def _f(np_):
    return lambda x, y: x * y + np_.sin(x)


def _weak_cases(ad, np_, lax):
    return {
        'grad_of_python_scalars': lambda: ad.grad(_f(np_), argnums=(0, 1))(1.0, 2.0),
        'value_and_grad': lambda: ad.value_and_grad(_f(np_))(1.0, 2.0),
        'value_and_grad_of_array_scalar': lambda: ad.value_and_grad(_f(np_))(np_.array(1.), 2.),
        'grad_times_int': lambda: ad.grad(lambda x: x * 3)(2.0),
        'grad_power': lambda: ad.grad(lambda x: x ** 2)(3.0),
        'jit_grad': lambda: ad.jit(ad.grad(_f(np_)))(1.0, 2.0),
        'jvp': lambda: ad.jvp(np_.sin, (1.0,), (1.0,)),
        'vjp': lambda: ad.vjp(np_.sin, 1.0)[1](1.0),
        'linearize': lambda: ad.linearize(np_.sin, 1.0)[1](1.0),
        'hessian': lambda: ad.hessian(lambda x: x ** 3)(2.0),
        'jacfwd': lambda: ad.jacfwd(lambda x: x ** 3)(2.0),
        'jacrev': lambda: ad.jacrev(lambda x: x ** 3)(2.0),
        'scan': lambda: lax.scan(lambda c, x: (c + x, c), 0.0, np_.arange(3.0)),
        'scan_weak_carry': lambda: lax.scan(lambda c, x: (c * 2.0, c + 1.0), 1.0, None,
                                            length=3),
        'fori_loop': lambda: lax.fori_loop(0, 3, lambda i, x: x + i, 1.0),
        'while_loop': lambda: lax.while_loop(lambda x: x < 10.0, lambda x: x * 2.0, 1.0),
        'cond': lambda: lax.cond(True, lambda x: x * 2.0, lambda x: x, 1.0),
        'switch': lambda: lax.switch(1, [lambda y: y * 2, lambda y: y * 3], 2.0),
        'array': lambda: (np_.array(1.0), np_.asarray(2), np_.array([1.0])),
        'full_like': lambda: (np_.zeros_like(1.0), np_.ones_like(np_.array(1.0)),
                              np_.full((2,), 1.0), np_.full((2,), 1.0, np_.float64)),
        'device_put': lambda: ad.device_put(1.0),
        'where': lambda: np_.where(True, 1.0, 2.0),
        'vmap': lambda: ad.vmap(lambda x: x * 2.0)(np_.arange(3.0)),
        'unary_of_weak_scalars': lambda: {n: [getattr(np_, n)(x) for x in (1.5, 2)]
                                          for n in WEAK_UNARY},
        'binary_of_weak_and_strong': lambda: {
            n: [getattr(np_, n)(*xy) for xy in ((1.5, 2), (1.5, np_.ones(2, np_.float32)))]
            for n in WEAK_BINARY},
        'reductions_are_strong': lambda: {n: getattr(np_, n)(1.5) for n in REDUCTIONS},
    }


#: Functions whose results keep the weak type of their weakly typed operands (ints
#: become weak floats), or combine it with a strong one as ``add`` does; one per helper.
WEAK_UNARY = ['ceil', 'sinc', 'arccos', 'exp2', 'positive', 'clip', 'log10']
WEAK_BINARY = ['hypot', 'logaddexp', 'floor_divide', 'power']
REDUCTIONS = ['sum', 'max', 'cumsum', 'mean']


MINI, JAX = (_weak_cases(minijax, mnp, mlax), _weak_cases(jax, jnp, jlax))


#: Errors a tutorial prints: the same type and text as JAX's (jnp is JAX's or minijax's).
ERRORS = {
    'add-shapes': lambda jnp, jit: jnp.ones(3) + jnp.ones(4),
    'max-shapes': lambda jnp, jit: jnp.maximum(jnp.ones((2, 3)), jnp.ones((2, 4))),
    'rank-promotion': lambda jnp, jit: jnp.ones(3) * jnp.ones((2, 4)),
    'where-shapes': lambda jnp, jit: jnp.where(jnp.ones(3) > 0, jnp.ones(4), 0.),
    'matmul': lambda jnp, jit: jnp.ones((2, 3)) @ jnp.ones((2, 3)),
    'matmul-jit-vectors': lambda jnp, jit: jit(jnp.matmul)(np.ones(3), np.ones(4)),
    'dot': lambda jnp, jit: jnp.dot(np.ones((2, 3)), np.ones((2, 3))),
    'tensordot': lambda jnp, jit: jnp.tensordot(np.ones((2, 3)), np.ones((3, 2))),
    'setitem': lambda jnp, jit: jnp.ones(3).__setitem__(0, 1.),
    'list-argument': lambda jnp, jit: jnp.sum([1, 2]),
    'tuple-second-argument': lambda jnp, jit: jnp.divide(2., (1., 2.)),
    'list-keyword-argument': lambda jnp, jit: jnp.average(jnp.ones(2), weights=[1., 2.]),
    'max-where-without-initial': lambda jnp, jit: jnp.max(jnp.ones(3), where=jnp.ones(3) > 0),
    'min-of-empty': lambda jnp, jit: jnp.min(jnp.ones((2, 0)), 1),
    'where-not-boolean': lambda jnp, jit: jnp.sum(jnp.ones(3), where=jnp.ones(3)),
    'initial-not-scalar': lambda jnp, jit: jnp.sum(jnp.ones(3), initial=jnp.ones(2)),
    'polyfit-x-2d': lambda jnp, jit: jnp.polyfit(jnp.ones((3, 1)), jnp.ones(3), 1),
    'polyfit-integer-x': lambda jnp, jit: jnp.polyfit(jnp.arange(3), jnp.ones(3), 1),
    'polyfit-weights': lambda jnp, jit: jnp.polyfit(jnp.ones(3), jnp.ones(3), 1, w=jnp.ones(2)),
    'polyfit-cov-too-few': lambda jnp, jit: jnp.polyfit(jnp.ones(2), jnp.ones(2), 1, cov=True),
    'polyint-k': lambda jnp, jit: jnp.polyint(jnp.ones(3), 2, k=jnp.ones(3)),
    'polyder-negative': lambda jnp, jit: jnp.polyder(jnp.ones(3), -1),
    'vander-list': lambda jnp, jit: jnp.vander([1., 2.]),
    'poly-3d': lambda jnp, jit: jnp.poly(jnp.ones((2, 2, 2))),
    'gradient-edge_order': lambda jnp, jit: jnp.gradient(jnp.ones(3), edge_order=1),
    'gradient-spacings': lambda jnp, jit: jnp.gradient(jnp.ones((3, 3)), 1., 2., 3.),
}


#: Values a tutorial prints, as ``repr`` (``jnp``: JAX's or minijax's).
PRINTED = {
    'linspace': lambda jnp: [jnp.linspace(-3., 3., 6).tolist(), jnp.linspace(0, 1, 7, False),
                             jnp.linspace(1, 5, 5), jnp.linspace(0, 10, 4, dtype=int)],
    'array-methods': lambda jnp: (lambda x: [x.itemsize, x.sort(), x.devices(), x.copy() is x,
                                             x.compress(x > 0)])(jnp.arange(3.)[::-1]),
    'result_type-of-scalar-types': lambda jnp: [
        jnp.result_type(jnp.int16, jnp.float16), jnp.result_type(int, jnp.int16),
        jnp.result_type('float32', 1.), jnp.result_type(jnp.ones(2, jnp.int8), 3)],
}


@pytest.mark.parametrize('name', PRINTED)
def test_printed_as_jax(name):
    assert repr(PRINTED[name](mnp)) == repr(PRINTED[name](jnp))


def test_histogram_as_jax():
    """Counts (weighted, as densities) and edges: JAX's values and dtypes, eagerly; JAX's
    own eager histogram compiles op by op for seconds, so its jitted one is the oracle."""
    def histograms(jnp, x, i):
        return [jnp.histogram(x, bins=3), jnp.histogram(i, jnp.array([0, 1.5, 3]), weights=i),
                jnp.histogram(x, 4, range=(-1, 5), density=True), jnp.histogram_bin_edges(i, 2)]
    x, i = np.array([1., 2., 2., 3.]), np.arange(5, dtype=np.int32) % 4
    assert repr(histograms(mnp, mnp.asarray(x), mnp.asarray(i))) == repr(
        jax.jit(histograms, static_argnums=0)(jnp, x, i))


#: Functions of a scalar whose jaxprs a tutorial prints (``jnp``: JAX's or minijax's).
JAXPRS = {
    'weak-meets-strong': lambda jnp: lambda x: (x + jnp.ones(2), x * 2.),
    # Constants created while tracing are staged as literals, converted at trace time.
    'log2-tutorial': lambda jnp: lambda x: jnp.log(x) / jnp.log(2.0),
    'constants-folded': lambda jnp: lambda x: (x * jnp.sin(2), x * jnp.float32(2),
                                               x + jnp.asarray(2.0), x * jnp.zeros(())),
    # Comparing weak values gives a weak bool; jnp makes bools strong (a bool is never weak).
    'weak-comparisons': lambda jnp: lambda x: ((x > 1.) & (x < 2.), jnp.logical_or(x > 1., True)),
}


def test_branches_closing_over_one_array_share_one_operand_as_jax():
    c = np.array([1., 2., 3.])

    def f(lax_):
        return lambda x: lax_.cond(x.sum() > 0, lambda x: x * c, lambda x: x + c, x)
    assert str(minijax.make_jaxpr(f(minijax.lax))(np.ones(3))) == str(
        jax.make_jaxpr(f(jax.lax))(np.ones(3)))


@pytest.mark.parametrize('name', JAXPRS)
def test_jaxpr_printed_as_jax(name):
    assert str(minijax.make_jaxpr(JAXPRS[name](mnp))(1.)) == str(
        jax.make_jaxpr(JAXPRS[name](jnp))(1.))


def test_dense_layer_gradient_printed_as_jax():
    """The cotangent of a matmul's left operand needs no transpose: like JAX, minijax binds
    none for an identity permutation."""
    def loss(np_):
        return lambda w, x: np_.sum(np_.tanh(x @ w) ** 2)
    w, x = np.ones((4, 8)), np.ones((3, 4))
    assert str(minijax.make_jaxpr(minijax.grad(loss(mnp), (0, 1)))(w, x)) == str(
        jax.make_jaxpr(jax.grad(loss(jnp), (0, 1)))(w, x))


#: Operand shapes of ``a @ b``: vectors, matrices, batches that match, broadcast or are 1.
MATMUL_SHAPES = {'vector-matrix': ((3,), (3, 4)), 'matrix-vector': ((2, 3), (3,)),
                 'vector-vector': ((3,), (3,)), 'batch-matrix': ((5, 2, 3), (3, 4)),
                 'vector-batch': ((3,), (5, 3, 4)), 'batch-batch': ((5, 2, 3), (5, 3, 4)),
                 'unit-batches': ((1, 2, 3), (1, 3, 4)), 'unit-meets-batch': ((4, 1, 2, 3),
                                                                            (5, 3, 4))}


@pytest.mark.parametrize('name', MATMUL_SHAPES)
def test_matmul_and_its_gradient_printed_as_jax(name):
    """``a @ b`` stages JAX's equations: one ``dot_general`` of a vector as it is (not
    widened to a matrix: a gradient then saves the vector), squeezes and a transpose where
    batch axes broadcast; and so does its gradient."""
    a, b = (np.ones(s) for s in MATMUL_SHAPES[name])

    def loss(np_):
        def f(a, b):
            out = np_.tanh(a @ b) ** 2
            return out if out.ndim == 0 else np_.sum(out)
        return f
    assert str(minijax.make_jaxpr(lambda a, b: a @ b)(a, b)) == str(
        jax.make_jaxpr(lambda a, b: a @ b)(a, b))
    assert str(minijax.make_jaxpr(minijax.grad(loss(mnp), (0, 1)))(a, b)) == str(
        jax.make_jaxpr(jax.grad(loss(jnp), (0, 1)))(a, b))


#: jnp functions that JAX stages as a nested ``jit`` of its own name (``jax``, ``jnp``: JAX's
#: or minijax's), with values whose jaxprs and modules print as JAX's line for line.
STAGED = {
    'where': (lambda jax, jnp: lambda x: jnp.where(x > 0, x, 0.), X[:4]),
    'clip-int-max': (lambda jax, jnp: lambda x: jnp.clip(x, max=1), np.arange(-2, 2)),
    'sort': (lambda jax, jnp: lambda x: jnp.sort(x, axis=0), MATRIX[:3, :2]),
    'flip-fliplr': (lambda jax, jnp: lambda x: (jnp.flip(x, 1), jnp.fliplr(x)), MATRIX[:2, :3]),
    'cumsum-axis': (lambda jax, jnp: lambda x: jnp.cumsum(x, axis=1), MATRIX[:2, :3]),
    'diff': (lambda jax, jnp: jnp.diff, X[:4]),
    'nan_to_num-where-inside': (lambda jax, jnp: jnp.nan_to_num, X[:4]),
    'vstack-atleast_2d-inside': (lambda jax, jnp: lambda x: jnp.vstack([x, x]), X[:4]),
    'hstack-rot90': (lambda jax, jnp: lambda x: jnp.rot90(jnp.hstack([x, x])), MATRIX[:2, :2]),
    'fmod-isinf-angle': (lambda jax, jnp: lambda x: (jnp.fmod(x, 2.), jnp.isinf(x),
                                                     jnp.angle(x)), X[:3]),
    'vmap-clip': (lambda jax, jnp: jax.vmap(lambda r: jnp.clip(r, 0., 2.)), MATRIX[:2, :2]),
    'jvp-flip': (lambda jax, jnp: lambda x: jax.jvp(jnp.flip, (x,), (x,)), X[:3]),
    'polyder-static-m': (lambda jax, jnp: lambda x: jnp.polyder(x, m=0), X[:3]),
}
@pytest.mark.parametrize('name', STAGED)
def test_staged_as_a_nested_jit_as_jax(name):
    """Traced, the function binds a nested jit under JAX's name (its static arguments
    static), printed and lowered (a private function and a call) as JAX does; eagerly it
    runs from the same trace."""
    make, x = STAGED[name]
    ours, theirs = make(minijax, mnp), make(jax, jnp)
    assert str(minijax.make_jaxpr(ours)(x)) == str(jax.make_jaxpr(theirs)(x))
    assert minijax.jit(ours).lower(x).as_text() == jax.jit(theirs).lower(x).as_text()
    traces = runtime.counters['trace']
    ours(x)
    assert runtime.counters['trace'] == traces


STAGED_BITS = {
    'round': lambda np_: lambda x: np_.round(x, 12),
    'sinc': lambda np_: np_.sinc,
    'hypot': lambda np_: lambda x: np_.hypot(x, 2. * x + 1.),
}


@pytest.mark.parametrize('transform', ['eager', 'vmap', 'vmap-grad'])
@pytest.mark.parametrize('name', STAGED_BITS)
def test_staged_functions_have_jaxs_bits_eagerly(name, transform):
    """Called eagerly (or under an eager vmap or grad), a function JAX wraps in a jit is
    compiled as in JAX: op by op, XLA would round some elements differently."""
    def transformed(api, np_):
        f = STAGED_BITS[name](np_)
        return {'eager': f, 'vmap': api.vmap(f), 'vmap-grad': api.vmap(api.grad(f))}[transform]
    _same_bits(transformed(minijax, mnp)(POSITIVE), transformed(jax, jnp)(POSITIVE))


def test_a_staged_function_called_in_a_loop_traces_once():
    def body(x):
        for _ in range(3):
            x = mnp.where(x > 0, x, 0.) - 1.
        return x
    traces = runtime.counters['trace']
    jaxpr = minijax.make_jaxpr(body)(X[:5])
    assert runtime.counters['trace'] - traces == 1
    assert str(jaxpr).count('jit[name=_where jaxpr=_where]') == 3


@pytest.mark.parametrize('name', ERRORS)
def test_errors_as_jax(name):
    def raised(numpy_module, jit):
        try:
            ERRORS[name](numpy_module, jit)
        except Exception as e:  # noqa: BLE001  (the point is which one)
            return type(e), str(e)
        raise AssertionError(f'{name}: no error')

    assert raised(mnp, minijax.jit) == raised(jnp, jax.jit)


#: Python asking for the contents of a traced value: JAX raises its own error classes (and
#: under grad, whose tracers know their value, only float() and tolist() refuse).
TRACER_CONVERSIONS = {
    'numpy-ufunc': lambda x: np.sin(x), 'asarray': np.asarray, 'int': int, 'float': float,
    'complex': complex, 'if': lambda x: 1. if x > 0 else 0.,
    'index': lambda x: [1., 2.][x.astype(int)], 'tolist': lambda x: x.tolist(),
}


@pytest.mark.parametrize('transform', ['jit', 'grad', 'vmap'])
def test_tracer_conversions_raise_jaxs_errors(transform):
    def raised(ad, f):
        run = {'jit': lambda: ad.jit(f)(1.), 'grad': lambda: ad.grad(lambda x: x * f(x))(1.),
               'vmap': lambda: ad.vmap(f)(np.ones(2))}[transform]
        try:
            run()
        except Exception as e:  # noqa: BLE001  (the point is which one)
            return type(e).__name__
        return None
    assert {n: raised(minijax, f) for n, f in TRACER_CONVERSIONS.items()} == \
        {n: raised(jax, f) for n, f in TRACER_CONVERSIONS.items()}


@pytest.mark.parametrize('name', MINI)
def test_weak_types_as_jax(name):
    def types(tree):
        return [(np.dtype(x.dtype), x.weak_type) for x in jax.tree_util.tree_leaves(tree)]
    assert types(MINI[name]()) == types(JAX[name]())


def test_repr_shows_the_weak_type_as_jax_does():
    assert repr(minijax.grad(_f(mnp))(1.0, 2.0)) == repr(jax.grad(_f(jnp))(1.0, 2.0))


# ----------------------------------------------------------------------------- top-level API

def _arrays_to_print(np_):
    return [np_.arange(30.).reshape(3, 10) / 7, np_.zeros((0, 3)), np_.arange(4),
            np_.ones((2, 2), np_.float32), np_.arange(20).reshape(4, 5) * 1000000007]


def test_array_repr_lays_out_as_jax():
    """Wrapped rows, a dtype that does not fit the last line, empty arrays, inside a list."""
    for ours, theirs in zip(_arrays_to_print(mnp), _arrays_to_print(jnp)):
        assert repr([ours]) == repr([theirs])


def test_config_accepts_what_minijax_does_and_refuses_the_rest():
    minijax.config.update('jax_enable_x64', True)
    minijax.config.update('jax_platform_name', 'cpu')
    minijax.config.update('jax_log_compiles', False)
    assert minijax.config.jax_enable_x64 is True
    with pytest.raises(NotImplementedError, match='64-bit'):
        minijax.config.update('jax_enable_x64', False)
    with pytest.raises(NotImplementedError, match='CPU'):
        minijax.config.update('jax_platform_name', 'gpu')
    with pytest.raises(AttributeError, match='jax_no_such_flag'):
        minijax.config.update('jax_no_such_flag', 1)


def test_disable_jit_runs_the_function_eagerly():
    seen = []

    @minijax.jit
    def f(x):
        seen.append(type(x))
        return x + 1

    with minijax.disable_jit():
        assert float(f(1.0)) == 2.0
    assert seen == [float] and minijax.config.jax_disable_jit is False


def test_eval_shape_as_jax():
    def f(x, y):
        return {'prod': x @ y, 'total': x.sum()}
    args = (np.ones((2, 3)), np.ones((3, 4)))
    got, want = minijax.eval_shape(f, *args), jax.eval_shape(f, *args)
    assert {k: (v.shape, v.dtype) for k, v in got.items()} == \
        {k: (v.shape, v.dtype) for k, v in want.items()}


def test_device_queries_and_device_get_as_jax():
    assert (minijax.default_backend(), minijax.process_index(), minijax.process_count()) == \
        ('cpu', 0, 1)
    assert minijax.device_count() == len(minijax.devices()) == minijax.local_device_count()
    got = minijax.device_get({'a': mnp.arange(3.0), 'b': 1})
    assert isinstance(got['a'], np.ndarray) and got['b'] == 1


def test_typeof_prints_as_jax():
    for x in (np.ones(3), 1.0):
        assert str(minijax.typeof(x)) == str(jax.typeof(x))


def test_debug_print_eagerly_as_jax():
    def printed(debug, np_):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            debug.print('x = {} and {y}', np_.arange(3.0), y=2.0)
        return out.getvalue()
    assert printed(minijax.debug, mnp) == printed(jax.debug, jnp)


def test_debug_print_two_call_form_and_jaxpr_as_jax():
    def run(lib):
        def f(x):
            lib.debug.print(ordered=True)('x = {x}, {}', 'static', x=x)
            lib.debug.print('no placeholders', x, skip_format_check=True)
            return x * 2
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            f(1.5)
            lib.jit(f)(2.5)
            lib.effects_barrier()
        with pytest.raises(TypeError) as raised:
            lib.debug.print(ordered=True, x=1)
        return out.getvalue(), str(lib.make_jaxpr(f)(1.5)), str(raised.value)
    assert run(minijax) == run(jax)


_I32, _I64, _F32 = np.ones(2, 'int32'), np.ones(2, 'int64'), np.ones(2, 'float32')


@pytest.mark.parametrize('name,a,b', [
    ('add', 1, 1.0), ('sub', _F32, np.ones(2)), ('mul', _I32, _I64), ('div', 1.0, 1),
    ('max', 1, 1.0), ('eq', 1, 1.0), ('lt', _I32, _I64), ('gt', 1, 1.), ('ge', 1.0, 1),
    ('le', _I32, _I64), ('ne', _I32, _I64), ('bitwise_and', _I32, _I64),
    ('rem', _I32, _I64), ('atan2', _F32, np.ones(2))])
def test_lax_binary_ops_refuse_mixed_dtypes_as_jax(name, a, b):
    """lax does not promote (jnp does): JAX's TypeError and text, Python scalars included."""
    with pytest.raises(TypeError) as expected:
        getattr(jlax, name)(a, b)
    with pytest.raises(TypeError) as actual:
        getattr(mlax, name)(a, b)
    assert str(actual.value) == str(expected.value)
