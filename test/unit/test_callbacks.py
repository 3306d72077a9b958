"""Host callbacks (``debug.print``, ``debug.callback``, ``pure_callback``) print and return
what JAX's do: each program runs once with JAX and once with minijax, and the text it prints
(stdout, written by callbacks that XLA calls inside compiled programs) must be the same.
"""
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
