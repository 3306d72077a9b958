"""The Autodidax seed's Part 1-3 examples, with the values and jaxprs it prints."""
import numpy as np
import pytest

import minijax
from minijax import jit, jvp, lax, make_jaxpr, vmap
from minijax.core import ShapedArray, get_aval, raise_to_shaped
from minijax.ir import pp_jaxpr, typecheck_jaxpr
from minijax.lax import cos, sin


def f(x):
    y = sin(x) * 2.
    z = - y + x
    return z


def deriv(f):
    return lambda x: jvp(f, (x,), (1.,))[1]


def exact(value, printed):
    """The seed prints float64 reprs: the same computation gives the same bits."""
    assert float(value) == printed, (float(value), printed)


def test_eval():
    exact(f(3.0), 2.7177599838802657)


def test_jvp_of_sin_and_f():
    y, sin_deriv_at_3 = jvp(sin, (3.0,), (1.0,))
    exact(sin_deriv_at_3, -0.9899924966004454)
    exact(cos(3.0), -0.9899924966004454)
    y, ydot = jvp(f, (3.,), (1.,))
    exact(y, 2.7177599838802657)
    exact(ydot, 2.979984993200891)


@pytest.mark.parametrize('order,printed', [
    (1, -0.9899924966004454), (2, -0.1411200080598672),
    (3, 0.9899924966004454), (4, 0.1411200080598672),
])
def test_higher_derivatives_of_sin(order, printed):
    g = sin
    for _ in range(order):
        g = deriv(g)
    exact(g(3.), printed)


def test_python_control_flow():
    def g(x):
        if x > 0.:
            return 2. * x
        else:
            return x
    exact(deriv(g)(3.), 2.0)
    exact(deriv(g)(-3.), 1.0)


def test_pytree_jvp():
    def g(x):
        y = sin(x) * 2.
        z = - y + x
        return {'hi': z, 'there': [x, y]}
    y, ydot = jvp(g, (3.,), (1.,))
    assert list(y) == ['hi', 'there'] and len(y['there']) == 2
    for got, want in [(y['hi'], 2.7177599838802657), (y['there'][0], 3.0),
                      (y['there'][1], 0.2822400161197344), (ydot['hi'], 2.979984993200891),
                      (ydot['there'][0], 1.0), (ydot['there'][1], -1.9799849932008908)]:
        exact(got, want)


def test_vmap_add_one():
    def add_one_to_a_scalar(scalar):
        assert np.ndim(scalar) == 0
        return 1 + scalar
    out = vmap(add_one_to_a_scalar, (0,))(np.arange(3.))
    np.testing.assert_array_equal(np.asarray(out), [1., 2., 3.])


def test_jacfwd():
    def jacfwd(f, x):
        pushfwd = lambda v: jvp(f, (x,), (v,))[1]  # noqa: E731
        vecs_in = np.eye(np.size(x)).reshape(np.shape(x) * 2)
        return vmap(pushfwd, (0,))(vecs_in)
    out = jacfwd(lambda x: sin(x), np.arange(3.))
    np.testing.assert_allclose(np.asarray(out), [[1., 0., -0.], [0., 0.54030231, -0.],
                                                 [0., 0., -0.41614684]], atol=1e-8)


def test_printed_jaxprs():
    """Part 2's printouts: the seed's ``make_jaxpr(f, *avals)`` returns ``(jaxpr, consts,
    out_tree)``, its jaxpr printed in the seed's syntax. Called without avals, make_jaxpr is
    JAX's (``make_jaxpr(f)()``); the seed's syntax is then chosen explicitly."""
    jaxpr, consts, _ = make_jaxpr(lambda x: 2. * x, raise_to_shaped(get_aval(3.)))
    assert consts == [] and str(jaxpr) == (
        '{ lambda a:float64[] .\n'
        '  let b:float64[] = mul 2.0 a\n'
        '  in ( b ) }')
    assert str(typecheck_jaxpr(jaxpr)) == '(float64[]) -> (float64[])'
    assert pp_jaxpr(make_jaxpr(lambda: lax.mul(2., 2.))(), syntax='autodidax') == (
        '{ lambda  .\n'
        '  let a:float64[] = mul 2.0 2.0\n'
        '  in ( a ) }')


def test_printed_jvp_jaxpr():
    """The seed's JVP of ``-sin(x)``: sin's rule multiplies ``cos(x) * x_dot``."""
    def jvp_neg_sin(x, t):
        return jvp(lambda x: -sin(x), (x,), (t,))
    f64 = ShapedArray((), np.float64)
    assert str(make_jaxpr(jvp_neg_sin, f64, f64)[0]) == (
        '{ lambda a:float64[] b:float64[] .\n'
        '  let c:float64[] = sin a\n'
        '      d:float64[] = cos a\n'
        '      e:float64[] = mul d b\n'
        '      f:float64[] = neg c\n'
        '      g:float64[] = neg e\n'
        '  in ( f, g ) }')


def test_jit():
    @jit
    def g(x, y):
        return sin(x) * cos(y)
    exact(g(3., 4.), -0.09224219304455371)
    exact(g(4., 5.), -0.21467624978306993)
    exact(jit(lambda x, y: sin(x) * cos(y))(3., 4.), -0.09224219304455371)


def test_jit_reduce_sum():
    exact(jit(lambda x: lax.reduce_sum(x, axis=0))(np.array([1., 2., 3.])), 6.0)


def test_jit_of_second_derivative():
    exact(deriv(deriv(f))(3.), 0.2822400161197344)
    exact(jit(deriv(deriv(f)))(3.), 0.2822400161197344)
    assert float(deriv(deriv(f))(3.)) == float(jit(deriv(deriv(f)))(3.))


def test_jvp_and_vmap_of_jit():
    g = jit(f)
    y, ydot = jvp(g, (3.,), (1.,))
    exact(y, 2.7177599838802657)
    exact(ydot, 2.979984993200891)
    ys = vmap(g, (0,))(np.arange(3.))
    np.testing.assert_allclose(np.asarray(ys), [0., -0.68294197, 0.18140515], atol=1e-8)


def test_jvp_of_jit_on_arrays():
    """The seed's Array section: the same numbers with device-resident results."""
    y, ydot = jvp(jit(f), (3.,), (1.,))
    assert isinstance(y, minijax.Array)
    exact(y, 2.7177599838802657)
    exact(ydot, 2.979984993200891)


# ----------------------------------------------------------------------------- seeds/004's structure

def test_seed_004_sub_jaxpr_constants_are_operands():
    """seeds/004's func10, func11 and func12, with their constant ``ones`` a NumPy array (JAX
    and minijax now stage ``jnp.ones`` as an equation; the seed's JAX made it a constant).
    Their jaxprs have the seed's constvars, operands and const counts."""
    def func10(arg, n):
        ones = np.ones(arg.shape)
        return minijax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)

    def func11(arr, extra):
        ones = np.ones(arr.shape)

        def body(carry, aelems):
            ae1, ae2 = aelems
            return (carry + ae1 * ae2 + extra, carry)
        return minijax.scan(body, 0., (arr, ones))

    def func12(arg):
        @jit
        def inner(x):
            return x + arg * np.ones(1)
        return arg + inner(arg - 2.)

    def only(jaxpr, name):
        eqn, = [e for e in jaxpr.eqns if e.primitive.name == name]
        return eqn

    jaxpr = make_jaxpr(func10)(np.ones(16), 5).jaxpr  # { lambda c d ; a b. ... } c a 0 b e
    loop = only(jaxpr, 'while')
    assert len(jaxpr.constvars) == 2 and len(loop.inputs) == 5
    assert (loop.params['cond_nconsts'], loop.params['body_nconsts']) == (0, 2)
    assert loop.inputs[0] in jaxpr.constvars and loop.inputs[1] is jaxpr.invars[0]  # ones*3, arg
    jaxpr = make_jaxpr(func11)(np.ones(16), 5.).jaxpr  # { lambda c ; a b. ... } b 0.0 a c
    scan = only(jaxpr, 'scan')
    assert len(jaxpr.constvars) == 1 and (scan.params['num_consts'], len(scan.inputs)) == (1, 4)
    assert [scan.inputs[i] for i in (0, 2, 3)] == [jaxpr.invars[1], jaxpr.invars[0],
                                                   jaxpr.constvars[0]]
    jaxpr = make_jaxpr(func12)(1.).jaxpr  # { lambda b ; a. ... xla_call ... b a c }
    call = only(jaxpr, 'xla_call')
    assert call.inputs == [jaxpr.constvars[0], jaxpr.invars[0], jaxpr.eqns[0].out_binders[0]]
    assert not call.params['jaxpr'].jaxpr.constvars
