"""Host callbacks (``debug.print``, ``debug.callback``, ``pure_callback``) print and return
what JAX's do: each program runs once with JAX and once with minijax, and the text it prints
(stdout, written by callbacks that XLA calls inside compiled programs) must be the same.
"""
import re

import jax
import numpy as np
import pytest

import minijax

import testlib  # noqa: F401  (JAX with x64, as minijax computes)


def transforms(jx):
    """debug.print under jit, grad (primal values), vmap (one line per element) and their
    compositions."""
    jnp = jx.numpy

    def f(x):
        jx.debug.print('f x={x} sum={s}', x=x, s=jnp.sum(x))
        return jnp.sum(jnp.sin(x) * 2)

    x, xs = jnp.array([1., 2.]), jnp.array([[1., 2.], [3., 4.]])
    for g, arg in ((jx.grad(f), x), (jx.jit(jx.grad(f)), x), (jx.grad(jx.jit(f)), x),
                   (jx.vmap(f), xs), (jx.jit(jx.vmap(f)), xs)):
        print(g(arg))


def control_flow(jx):
    """Prints in loop and branch bodies under jit, a print of a value nothing else reads
    (kept: it has an effect), and debug.callback with a static keyword argument."""
    jnp, lax = jx.numpy, jx.lax

    @jx.jit
    def loops(x):
        def body(i, c):
            jx.debug.print('fori i={} c={}', i, c)
            return c * 2

        def step(c, xi):
            jx.debug.print('scan c={} xi={}', c, xi)
            return c + xi, c

        def grow(c):
            jx.debug.print('while c={}', c)
            return c * 3

        def yes(v):
            jx.debug.print('cond yes {}', v)
            return v + 1

        def no(v):
            jx.debug.print('cond no {}', v)
            return v - 1

        y = lax.fori_loop(0, 3, body, x)
        z, ys = lax.scan(step, 0., jnp.arange(3.))
        w = lax.while_loop(lambda c: c < 10, grow, 1)
        c = lax.cond(x > 0, yes, no, x)
        jx.debug.print('unused {}', jnp.cos(x))
        jx.debug.callback(lambda a, tag: print('callback', tag, a), x, tag='T')
        return y + z + ys.sum() + w + c

    print(loops(1.5))
    print(loops(-1.5))
    print(lax.fori_loop(0, 2, lambda i, c: (jx.debug.print('eager {}', c), c + 1)[1], 1))


def pure_callbacks(jx):
    """pure_callback eagerly, under jit and under vmap with every vmap_method; one whose
    result nobody reads is dead code (not called)."""
    jnp = jx.numpy

    def pc(x):
        return jx.pure_callback(lambda a: np.sin(a) * 2, jx.ShapeDtypeStruct(x.shape, x.dtype), x)

    print(pc(jnp.arange(3.)), jx.jit(pc)(jnp.arange(3.)))
    for method in ('sequential', 'expand_dims', 'broadcast_all', 'legacy_vectorized'):
        def add(x, y):
            def callback(a, b):
                print(method, a.shape, b.shape)
                return np.asarray(a) + np.asarray(b)
            return jx.pure_callback(callback, jx.ShapeDtypeStruct(x.shape, x.dtype), x, y,
                                    vmap_method=method)
        print(jx.jit(jx.vmap(add, in_axes=(0, None)))(jnp.ones((2, 3)), jnp.arange(3.)))

    def unread(x):
        jx.pure_callback(lambda a: print('never') or a, jx.ShapeDtypeStruct((), x.dtype), x)
        return x * 2
    print(jx.jit(unread)(1.))


def under_pmap(jx):
    """Each callback kind inside pmap: one call per device, with that device's slice."""
    jnp = jx.numpy

    def f(x):
        jx.debug.print('pmap x={x}', x=x)
        jx.debug.callback(lambda a: print('callback', a), x)
        return jx.pure_callback(lambda a: np.asarray(a) * 2,
                                jx.ShapeDtypeStruct(x.shape, x.dtype), x)

    print(jx.pmap(f)(jnp.arange(4.).reshape(2, 2)))


def errors(jx):
    """JAX's exception types and texts."""
    jnp = jx.numpy

    def pc(x):
        return jx.pure_callback(lambda a: a, jx.ShapeDtypeStruct(x.shape, x.dtype), x)

    for bad in (lambda: jx.vmap(pc)(jnp.ones((2, 3))),
                lambda: jx.vmap(lambda x: jx.experimental.io_callback(
                    np.asarray, jx.ShapeDtypeStruct((), x.dtype), x, ordered=True))(
                        jnp.ones(2)),
                lambda: jx.grad(lambda x: pc(x).sum())(jnp.ones(3)),
                lambda: jx.debug.print('{} {y}', 1, 2, y=3),
                lambda: jx.debug.print('{x}', x=1, y=2)):
        try:
            bad()
        except Exception as err:  # noqa: BLE001 (the point is which one)
            print(type(err).__name__, err)


@pytest.mark.parametrize('program', [transforms, control_flow, pure_callbacks, errors])
def test_prints_what_jax_prints(program, capsys):
    program(jax)
    expected = capsys.readouterr().out
    program(minijax)
    assert capsys.readouterr().out == expected


def test_callbacks_under_pmap_print_what_jax_prints(capsys):
    """The devices run at once, so their lines may come in either order: compared sorted."""
    under_pmap(jax)
    expected = sorted(capsys.readouterr().out.splitlines())
    under_pmap(minijax)
    assert sorted(capsys.readouterr().out.splitlines()) == expected


# ----------------------------------------------------------------------------- ordered effects

def ordered_effects(jx):
    """Ordered callbacks print in program order: eagerly, under jit (again and again, a
    nested jit, branches and loops), under vmap and grad; io_callback and debug.callback
    too."""
    jnp, lax = jx.numpy, jx.lax

    def show(tag):
        return lambda *a: print(tag, *a)

    @jx.jit
    def inner(x):
        jx.debug.print('inner {}', x, ordered=True)
        return x + 1

    def f(x, batched=False):
        jx.debug.print('first {}', x, ordered=True)
        y = inner(inner(x))
        jx.debug.callback(show('callback'), y, ordered=True)
        z = lax.cond(x > 0, lambda v: (jx.debug.print('yes {}', v, ordered=True), v)[1],
                     lambda v: (jx.debug.print('no {}', v, ordered=True), -v)[1], y)
        z = lax.fori_loop(0, 2, lambda i, c: (jx.debug.print('fori {} {}', i, c,
                                                             ordered=True), c * 2)[1], z)
        z, ys = lax.scan(lambda c, xi: (jx.debug.print('scan {}', xi, ordered=True),
                                        (c + xi, c))[1], z, jnp.arange(2.))
        z = lax.while_loop(lambda c: jnp.abs(c) < 100,
                           lambda c: (jx.debug.print('while {}', c, ordered=True), c * 3)[1], z)
        w = z * 2 if batched else jx.experimental.io_callback(  # (JAX refuses it: vmap)
            lambda a: np.asarray(a) * 2, jx.ShapeDtypeStruct((), z.dtype), z, ordered=True)
        jx.debug.print('last {}', w, ordered=True)
        return w + ys.sum()

    for g, arg in ((f, 1.), (jx.jit(f), 1.), (jx.jit(f), -1.),
                   (jx.grad(lambda x: inner(x) * jnp.sin(x)), 2.)):
        print(g(arg))
    print(jx.vmap(jx.jit(lambda x: f(x, batched=True)))(jnp.array([1., -2.])))
    jx.effects_barrier()


def test_ordered_callbacks_print_what_jax_prints(capsys):
    ordered_effects(jax)
    expected = capsys.readouterr().out
    ordered_effects(minijax)
    assert capsys.readouterr().out == expected


def ordered_prints(jx):
    """Programs whose modules minijax writes as JAX does: the token of @main, of a nested
    jit's function and through a branch."""
    lax = jx.lax

    def straight(x):
        jx.debug.print('a {}', x, ordered=True)
        y = x * 2
        jx.debug.print('b {}', y, ordered=True)
        return y

    nested = jx.jit(straight)

    def branches(x):
        return lax.cond(x > 0, lambda v: (jx.debug.print('c {}', v, ordered=True), v * 2)[1],
                        lambda v: v + 1, nested(x))

    return straight, lambda x: nested(nested(x)), branches


@pytest.mark.parametrize('which', range(3))
def test_ordered_effects_lower_as_jax_lowers_them(which):
    expected = jax.jit(ordered_prints(jax)[which]).lower(1.).as_text()
    assert minijax.jit(ordered_prints(minijax)[which]).lower(1.).as_text() == expected


def test_ordered_effects_print_in_jaxprs_as_in_jax():
    """The effect of a debug callback and io_callback's ordered, as JAX prints them."""
    def f(jx):
        def g(x):
            jx.debug.callback(print, x)
            jx.debug.callback(print, x, ordered=True)
            return jx.experimental.io_callback(np.asarray, jx.ShapeDtypeStruct((), x.dtype), x,
                                               ordered=True)
        return re.findall(r'(?:effect|ordered)=\w+', str(jx.make_jaxpr(g)(1.)))

    assert f(minijax) == f(jax) == ['effect=Debug', 'effect=OrderedDebug', 'ordered=True']
