"""custom_linear_solve, custom_root, platform_dependent and composite against JAX: values,
derivatives, batching, jaxpr text and module text.

Their operands are functions (a matrix-free map, a solver, one branch per platform, a
decomposition), so they have no row in the case table of test_rules.py. Where a solver's
own machinery (a loop) lowers differently from JAX (see docs/semantics.md), only values are
compared.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import lax as mlax
from minijax.errors import UnexpectedTracerError
from testlib import assert_close

RNG = np.random.default_rng(0)
D = np.array([1., 2., 4.])
B = np.array([3., -1., 2.])
M = RNG.normal(size=(3, 3))
A = M @ M.T + 3 * np.eye(3)  # symmetric positive definite


def _both(make):
    """``make(lax, jnp, api)`` for minijax and for JAX."""
    return make(mlax, mnp, minijax), make(jax.lax, jnp, jax)


def _texts(ours, theirs, *args, debug_info=False):
    """The jaxprs and the modules of both, lowered from one line (the same callers)."""
    jaxprs = [str(make_jaxpr(f)(*args)) for make_jaxpr, f in ((minijax.make_jaxpr, ours),
                                                             (jax.make_jaxpr, theirs))]
    modules = [jit(f).lower(*args).as_text(debug_info=debug_info)
               for jit, f in ((minijax.jit, ours), (jax.jit, theirs))]
    return jaxprs, modules


def _assert_as_jax(make, *args, values=True, module=True, debug_info=True):
    ours, theirs = _both(make)
    if values:
        for got, expected in zip(jax.tree_util.tree_leaves(ours(*args)),
                                 jax.tree_util.tree_leaves(theirs(*args)), strict=True):
            assert_close(got, expected)
    (jaxpr, jax_jaxpr), (text, jax_text) = _texts(ours, theirs, *args)
    assert jaxpr == jax_jaxpr
    if module:
        assert text == jax_text
        if debug_info:
            _, (text, jax_text) = _texts(ours, theirs, *args, debug_info=True)
            assert text == jax_text


def _assert_values_as_jax(make, *args):
    ours, theirs = _both(make)
    for got, expected in zip(jax.tree_util.tree_leaves(ours(*args)),
                             jax.tree_util.tree_leaves(theirs(*args)), strict=True):
        assert_close(got, expected)


# ----------------------------------------------------------------------------- custom_linear_solve

def _diagonal(symmetric=False, transpose=True, has_aux=False):
    """``diag(d) x = b``, solved by a division: no loop, so every text is JAX's."""
    def make(lax, jnp, api):
        def f(d, b):
            def solve(matvec, b):
                return (b / d, (b * 2).sum()) if has_aux else b / d

            def transpose_solve(vecmat, b):
                return (b / d, (b * 3).sum()) if has_aux else b / d
            return lax.custom_linear_solve(
                lambda v: d * v, b, solve, symmetric=symmetric, has_aux=has_aux,
                transpose_solve=transpose_solve if transpose and not symmetric else None)
        return f
    return make


DIAGONAL = {'transpose_solve': {}, 'symmetric': dict(symmetric=True),
            'has_aux': dict(has_aux=True)}


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize('kind', DIAGONAL)
def test_custom_linear_solve(kind):
    _assert_as_jax(_diagonal(**DIAGONAL[kind]), D, B)


def test_custom_linear_solve_of_a_constant_map_inlines_the_solve():
    """JAX's measured example: the solve's ops alone, ~8 lines."""
    _assert_as_jax(lambda lax, jnp, api: lambda x: lax.custom_linear_solve(
        lambda v: 2 * v, x, lambda m, b: b / 2), np.arange(3, dtype=np.float32))


@pytest.mark.parametrize('kind', DIAGONAL)
@pytest.mark.parametrize('argnums', [0, (0, 1)], ids=['d', 'd-b'])
def test_custom_linear_solve_grad(kind, argnums):
    """The cotangent of b solves the transposed system; that of d goes through matvec."""
    def make(lax, jnp, api):
        solve = _diagonal(**DIAGONAL[kind])(lax, jnp, api)
        return api.grad(lambda d, b: _first(solve(d, b)).sum(), argnums=argnums)
    _assert_as_jax(make, D, B, debug_info=False)


@pytest.mark.parametrize('kind', DIAGONAL)
def test_custom_linear_solve_jvp(kind):
    _assert_as_jax(lambda lax, jnp, api: lambda d, b: api.jvp(
        _diagonal(**DIAGONAL[kind])(lax, jnp, api), (d, b), (b, d)), D, B, debug_info=False)


@pytest.mark.parametrize('kind', DIAGONAL)
@pytest.mark.parametrize('in_axes', [(None, 0), (0, None), (1, 0)], ids=str)
def test_custom_linear_solve_vmap(kind, in_axes):
    """Batched in b, in the map's constants, or both: the four jaxprs are batched alike."""
    d = D if in_axes[0] is None else np.stack([D, 2 * D], in_axes[0])
    b = B if in_axes[1] is None else np.stack([B, -B], in_axes[1])
    make = _diagonal(**DIAGONAL[kind])
    _assert_values_as_jax(lambda lax, jnp, api: api.vmap(make(lax, jnp, api), in_axes), d, b)
    if in_axes == (1, 0) and kind != 'has_aux':  # (elsewhere JAX prints np.int64 axes)
        _assert_as_jax(lambda lax, jnp, api: api.vmap(make(lax, jnp, api), in_axes), d, b,
                       debug_info=False)


def _pytree(lax, jnp, api):
    def f(d, b):
        return lax.custom_linear_solve(
            lambda v: {'a': d * v['a'], 'c': 2 * v['c']}, {'a': b, 'c': d},
            lambda matvec, v: {'a': v['a'] / d, 'c': v['c'] / 2}, symmetric=True)
    return f


def test_custom_linear_solve_of_a_pytree():
    _assert_as_jax(_pytree, D, B)
    _assert_as_jax(lambda lax, jnp, api: api.grad(
        lambda d, b: (lambda o: o['a'].sum() + (o['c'] ** 2).sum())(_pytree(lax, jnp, api)(d, b)),
        argnums=(0, 1)), D, B, debug_info=False)


def _conjugate_gradients(lax, jnp, api):
    """A few steps of CG (exact for 3 unknowns), as JAX's docs solve a positive definite
    system; the map is symmetric, so the same solver transposes it."""
    def cg(matvec, b):
        def body(state):
            x, r, p, rs, i = state
            ap = matvec(p)
            alpha = rs / (p * ap).sum()
            x, r = x + alpha * p, r - alpha * ap
            rs_new = (r * r).sum()
            return x, r, r + (rs_new / rs) * p, rs_new, i + 1
        init = (jnp.zeros_like(b), b, b, (b * b).sum(), 0)
        return lax.while_loop(lambda s: s[4] < 3, body, init)[0]

    def solve(a, b):
        return lax.custom_linear_solve(lambda x: jnp.dot(a, x), b, cg, symmetric=True)
    return solve


def test_custom_linear_solve_with_conjugate_gradients():
    ours, _ = _both(_conjugate_gradients)
    assert_close(ours(A, B), np.linalg.solve(A, B))
    _assert_values_as_jax(_conjugate_gradients, A, B)
    _assert_values_as_jax(lambda lax, jnp, api: api.grad(
        lambda a, b: _conjugate_gradients(lax, jnp, api)(a, b).sum(), argnums=(0, 1)), A, B)
    _assert_values_as_jax(lambda lax, jnp, api: api.vmap(
        _conjugate_gradients(lax, jnp, api), (None, 0)), A, np.stack([B, 2 * B]))
    _assert_values_as_jax(lambda lax, jnp, api: api.vmap(
        _conjugate_gradients(lax, jnp, api), (0, None)), np.stack([A, 2 * A]), B)


def test_custom_linear_solve_transposes_a_general_map():
    """vecmat is matvec transposed (as ``linear_transpose``), transpose_solve solves with
    it: the gradient of ``A^-1 b`` in b and in A."""
    inverse = np.linalg.inv(M)

    def make(lax, jnp, api):
        def f(m, b):
            return lax.custom_linear_solve(lambda v: jnp.dot(m, v), b,
                                           lambda mv, v: jnp.dot(inverse, v),
                                           transpose_solve=lambda vm, v: jnp.dot(inverse.T, v))
        return api.grad(lambda m, b: (f(m, b) ** 2).sum(), argnums=(0, 1))
    _assert_values_as_jax(make, M, B)


ERRORS = {
    'no-transpose_solve': (lambda lax, api: api.grad(lambda b: lax.custom_linear_solve(
        lambda v: 2 * v, b, lambda m, b: b / 2).sum())(B),
        TypeError, 'transpose_solve required for backwards mode automatic differentiation'),
    'matvec-shape': (lambda lax, api: lax.custom_linear_solve(lambda v: v[:2], B,
                                                              lambda m, b: b),
                     ValueError, r'matvec\(\) output shapes must match b, got \[\(2,\)\] and '
                                 r'\[\(3,\)\]'),
    'solve-tree': (lambda lax, api: lax.custom_linear_solve(lambda v: v, B, lambda m, b: [b]),
                   TypeError, r'solve\(\) output pytree structure must match b'),
    'has_aux': (lambda lax, api: lax.custom_linear_solve(lambda v: v, B,
                                                         lambda m, b: (b, b, b), has_aux=True),
                ValueError, r'too many values to unpack \(expected 2\)'),
    'root-tree': (lambda lax, api: lax.custom_root(lambda y: [y], 1., lambda f, x: x,
                                                   lambda g, y: y),
                  TypeError, r'f\(\) output pytree structure must match initial_guess'),
    'platform-gpu': (lambda lax, api: lax.platform_dependent(B, gpu=lambda x: x),
                     ValueError, "Use 'cuda' or 'rocm' for lax.platform_dependent."),
    'platform-callable': (lambda lax, api: lax.platform_dependent(B, cpu=3),
                          TypeError, "the 'cpu' branch must be a callable"),
    'platform-default': (lambda lax, api: lax.platform_dependent(B, cpu=abs, default=3),
                         TypeError, "the 'default' branch must be a callable"),
    'platform-none': (lambda lax, api: lax.platform_dependent(B, tpu=lambda x: x),
                      NotImplementedError, r"MLIR translation rule for primitive 'platform_index"
                                           r"\(platforms=\(\('tpu',\),\)\)' not found for "
                                           'platform cpu'),
    'platform-none-jit': (lambda lax, api: api.jit(
        lambda x: lax.platform_dependent(x, tpu=lax.sin)).lower(B),
        NotImplementedError, "'platform_index.*not found for platform cpu"),
    'composite-jvp': (lambda lax, api: api.jvp(lax.composite(lambda x: 2 * x, 'my.op'), (B,),
                                               (B,)),
                      ValueError, 'JVP rule for composite not implemented'),
    'composite-grad': (lambda lax, api: api.grad(
        lambda x: lax.composite(lambda x: 2 * x, 'my.op')(x).sum())(B),
        ValueError, 'JVP rule for composite not implemented'),
    'composite-vmap': (lambda lax, api: api.vmap(lax.composite(lambda x: 2 * x, 'my.op'))(M),
                       NotImplementedError, "Batching rule for 'composite' not implemented"),
    'composite-tracer-attribute': (lambda lax, api: api.jit(
        lambda x: lax.composite(lambda x, k: x * k, 'my.op')(x, k=x))(B),
        UnexpectedTracerError, 'Found a JAX Tracer as an attribute in the decomposition'),
    'composite-closed-over-tracer': (lambda lax, api: api.jit(
        lambda x: lax.composite(lambda y: y * x, 'my.op')(x))(B),
        UnexpectedTracerError, 'Found a JAX Tracer as a constant in the decomposition'),
}


@pytest.mark.parametrize('name', ERRORS)
def test_errors_are_jax_s(name):
    """Each raises JAX's exception type, with JAX's words, in minijax and in JAX."""
    call, error, message = ERRORS[name]
    jax_error = jax.errors.UnexpectedTracerError if error is UnexpectedTracerError else error
    with pytest.raises(error, match=message):
        call(mlax, minijax)
    with pytest.raises(jax_error, match=message):
        call(jax.lax, jax)


def test_composite_with_a_name_stablehlo_refuses_fails_to_lower():
    """JAX's verifier error at lowering (ValueError): a composite's name is namespaced."""
    op = mlax.composite(lambda x: 2 * x, name='double')
    assert_close(op(B), 2 * B)
    with pytest.raises(ValueError, match="'double' is not a namespaced op name"):
        minijax.jit(op).lower(B)
    with pytest.raises(ValueError, match='must be a valid namespaced op name'):
        jax.jit(jax.lax.composite(lambda x: 2 * x, name='double')).lower(B)


# ----------------------------------------------------------------------------- custom_root

def _root(solver, guess):
    """The square root of x as the root of ``y * y - x``."""
    def make(lax, jnp, api):
        def sqrt(x):
            return lax.custom_root(lambda y: y * y - x, guess, solver(lax, jnp, api),
                                   lambda g, y: y / g(1.))
        return sqrt
    return make


def _newton(lax, jnp, api):
    def newton(f, x0):
        def body(state):
            x, i = state
            return x - f(x) / api.grad(f)(x), i + 1
        return lax.while_loop(lambda s: s[1] < 8, body, (x0, 0))[0]
    return newton


def _bisection(lax, jnp, api):
    def bisection(f, x0, low=0., high=100.):
        def cond(state):
            low, high = state
            mid = 0.5 * (low + high)
            return (low < mid) & (mid < high)

        def body(state):
            low, high = state
            mid = 0.5 * (low + high)
            upper = f(mid) > 0
            return jnp.where(upper, low, mid), jnp.where(upper, mid, high)
        return lax.while_loop(cond, body, (low, high))[0]
    return bisection


def _closed_form(lax, jnp, api):
    """A solver without a loop (it knows the answer), so every text is JAX's."""
    return lambda f, x0: x0 * 0. + f(0.) * -0.5 + 1.


SOLVERS = {'newton': (_newton, 1.), 'bisection': (_bisection, 0.)}


@pytest.mark.parametrize('name', SOLVERS)
def test_custom_root(name):
    make = _root(*SOLVERS[name])
    ours, _ = _both(make)
    assert_close(ours(2.), np.sqrt(2.))
    _assert_values_as_jax(make, 2.)
    _assert_values_as_jax(lambda lax, jnp, api: api.grad(make(lax, jnp, api)), 2.)
    _assert_values_as_jax(lambda lax, jnp, api: api.vmap(make(lax, jnp, api)), np.array([2., 3.]))
    _assert_values_as_jax(lambda lax, jnp, api: api.vmap(api.grad(make(lax, jnp, api))),
                          np.array([2., 3.]))
    # implicit differentiation: d sqrt(x) / dx = 1 / (2 sqrt(x))
    assert_close(minijax.grad(ours)(4.), 0.25)


def test_custom_root_texts():
    """A custom_jvp call of the solver, whose rule solves the tangent system."""
    make = _root(_closed_form, 1.)
    _assert_as_jax(make, 2., debug_info=False)  # (locations JAX numbers in another order)
    _assert_as_jax(lambda lax, jnp, api: api.grad(make(lax, jnp, api)), 2., debug_info=False)
    _assert_as_jax(lambda lax, jnp, api: lambda x, t: api.jvp(make(lax, jnp, api), (x,), (t,)),
                   2., 1., debug_info=False)


def test_custom_root_has_aux():
    def make(lax, jnp, api):
        def solve(f, x0):
            return _newton(lax, jnp, api)(f, x0), x0 * 2
        return lambda x: lax.custom_root(lambda y: y * y - x, 1., solve,
                                         lambda g, y: y / g(1.), has_aux=True)
    _assert_values_as_jax(make, 2.)
    _assert_values_as_jax(lambda lax, jnp, api: api.grad(lambda x: make(lax, jnp, api)(x)[0]),
                          2.)


# ----------------------------------------------------------------------------- platform_dependent

PLATFORMS = {
    'cpu-default': dict(cpu='sin', default='cos'),
    'other-default': dict(cuda='sin', default='cos'),
    'three': dict(cuda='sin', cpu='cos', tpu='tan'),
    'shared': dict(cpu='sin', tpu='sin', default='cos'),
    'cpu-alone': dict(cpu='sin'),
    'identity': dict(cpu=None, default='cos'),
}


def _platform_dependent(branches):
    def make(lax, jnp, api):
        funs = {name: (lambda x: x) if fun is None else getattr(jnp, fun)
                for name, fun in branches.items()}
        return lambda x: lax.platform_dependent(x, **funs)
    return make


@pytest.mark.parametrize('name', PLATFORMS)
def test_platform_dependent(name):
    """Eagerly the CPU's branch runs; staged, a cond on platform_index that lowering prunes
    to the CPU's branch."""
    x = np.arange(3, dtype=np.float32)
    _assert_as_jax(_platform_dependent(PLATFORMS[name]), x)


def test_platform_dependent_vmap_and_jvp():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    make = _platform_dependent(PLATFORMS['cpu-default'])
    _assert_as_jax(lambda lax, jnp, api: api.vmap(make(lax, jnp, api)), x)
    _assert_values_as_jax(lambda lax, jnp, api: lambda x: api.jvp(
        make(lax, jnp, api), (x,), (x,)), x)
    _assert_values_as_jax(lambda lax, jnp, api: api.grad(
        lambda x: make(lax, jnp, api)(x).sum()), x)


def test_platform_dependent_pytree_operands():
    def make(lax, jnp, api):
        return lambda x, y: lax.platform_dependent(
            (x, {'y': y}), cpu=lambda t: t[0] * t[1]['y'], default=lambda t: t[0])
    _assert_as_jax(make, np.ones(3), np.arange(3.))


# ----------------------------------------------------------------------------- composite

def _tangent(lax, jnp, api):
    return lambda x: lax.composite(lambda x: lax.sin(x) / lax.cos(x), name='my.tangent')(x)


def _with_attributes(lax, jnp, api):
    @functools.partial(lax.composite, name='my.op', version=3)
    def op(x, y, /, *, i, fl, s, arr, b=None, t=True):
        return x * y + fl
    return lambda x: op(x, 2 * x, i=3, fl=1.5, s='hi', arr=np.arange(3, dtype=np.int32), b=None,
                        t=True)


ATTRIBUTES = [np.float64(2.5), 2, np.int8(3), np.array([1., 2.]), np.array(3, np.int16), (1, 2),
              [1., 2.], True, np.bool_(True), 's', np.array([True]), np.uint32(4), 2.,
              {'a': 1, 'b': [np.float32(2.)]}]

COMPOSITES = {
    'tangent': _tangent,
    'attributes': _with_attributes,
    'constant': lambda lax, jnp, api: lambda x: lax.composite(
        lambda x: x + jnp.asarray(D) + np.float32(3), name='my.c')(x),
    'called-thrice': lambda lax, jnp, api: lambda x: (lambda t: t(t(x)) + t(x[:2]).sum())(
        _tangent(lax, jnp, api)),
    'pair': lambda lax, jnp, api: lambda x: lax.composite(
        lambda x, y: (x + y, x * y), name='my.pair')(x, x),
    **{f'attribute-{i}': (lambda v: lambda lax, jnp, api: lambda x: lax.composite(
        lambda x, n: x, name='a.k')(x, n=v))(v) for i, v in enumerate(ATTRIBUTES)},
}


@pytest.mark.parametrize('name', COMPOSITES)
def test_composite(name):
    """stablehlo.composite calling @<name>, the attributes typed as JAX types them. (With
    debug info, the decomposition's function is located as a private function is:
    docs/semantics.md.)"""
    _assert_as_jax(COMPOSITES[name], np.array([0.5, 1., 2.]), debug_info=False)
