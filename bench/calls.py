"""Calls of jitted functions across the shapes programs give them, minijax beside JAX 0.10.2
in the same run: the time of one call of an already compiled function.

    python bench/calls.py [--write] [NAME ...]

speed.py's dispatch rows measure the simplest call (one array in, one out); this table is
the class: several arrays, pytrees of parameters, dicts, static arguments by position and by
keyword, traced keyword arguments, Python and NumPy scalars, NumPy arrays, several outputs,
an SGD step, ``Compiled``. Each figure is the best CPU time per call over many short windows,
minijax and JAX alternating window by window (eager.py's method). ``--write`` records the table in
bench/results/calls.md.
"""
import sys

import numpy as np

from eager import side_by_side
from report import report
from speed import frameworks


def calls(jax, jnp, lax):
    """name -> a call of no arguments of a function jitted (and compiled) beforehand."""
    rng = np.random.default_rng(0)
    x_host, y_host = rng.normal(size=(4, 8)), rng.normal(size=(4, 8))
    x, y = jnp.asarray(x_host), jnp.asarray(y_host)
    params = [(jnp.asarray(rng.normal(size=(8, 8))), jnp.asarray(rng.normal(size=8)))
              for _ in range(3)]

    def loss(params, x, y):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.mean((x - y) ** 2)

    @jax.jit
    def sgd_step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)]

    add = jax.jit(lambda a, b: a + b)
    add4 = jax.jit(lambda a, b, c, d: a + b + c + d)
    add8 = jax.jit(lambda *xs: sum(xs[1:], xs[0]))
    both = jax.jit(lambda a, b: (a + b, a - b))
    scale = jax.jit(lambda a, s: a * s)
    power = jax.jit(lambda a, n: a ** n, static_argnums=1)
    power_kw = jax.jit(lambda a, n=2: a ** n, static_argnames='n')
    scale_kw = jax.jit(lambda a, *, s: a * s)
    doubled = jax.jit(lambda d: {k: 2 * v for k, v in d.items()})
    tree = {'a': x, 'b': y, 'c': (x, y)}
    apply = jax.jit(loss)
    compiled = jax.jit(lambda a, b: a * b).lower(x, y).compile()
    return {
        'f(x)': lambda: add(x, x),
        'f(x, y)': lambda: add(x, y),
        'f(4 arrays)': lambda: add4(x, y, x, y),
        'f(8 arrays)': lambda: add8(x, y, x, y, x, y, x, y),
        'f(x, y) -> (a, b)': lambda: both(x, y),
        'f(x, 2.0)': lambda: scale(x, 2.0),
        'f(x, np.float64(2))': lambda: scale(x, np.float64(2.)),
        'f(x, n), n static': lambda: power(x, 3),
        'f(x, n=3), n static': lambda: power_kw(x, n=3),
        'f(x), static default': lambda: power_kw(x),
        'f(x, s=2.0), traced keyword': lambda: scale_kw(x, s=2.),
        'f(dict)': lambda: doubled(tree),
        'f(params, x, y), loss': lambda: apply(params, x, y),
        'sgd step': lambda: sgd_step(params, x, y),
        'f(ndarray, ndarray)': lambda: add(x_host, y_host),
        'compiled(x, y)': lambda: compiled(x, y),
    }


def main():
    only = [a for a in sys.argv[1:] if not a.startswith('--')]
    rows = side_by_side([calls(jax, jnp, lax) for _, jax, jnp, lax in frameworks()], only,
                        number=100, windows=100)
    report('calls', 'Jitted calls of every common shape: minijax beside JAX',
           'the 2-core CPU machine, x64 on both, CPU time per call, the best of 100 windows '
           'of 100 calls, alternating the two', rows)


if __name__ == '__main__':
    main()
