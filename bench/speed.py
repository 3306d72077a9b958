"""Dispatch and lowering speed, minijax beside JAX in the same run.

    python bench/speed.py [--write]

- dispatch: a cached jitted call on small arrays (NumPy in, device array out);
- device-resident dispatch: the same call fed its own output (no host transfer);
- trace + lower: a fresh function of N chained elementwise ops to StableHLO text.
``--write`` records the table in bench/results/speed.md.
"""
import timeit

import numpy as np

import minijax as mj
from minijax import lax
from report import report

import jax  # noqa: E402  (measured beside minijax)
import jax.numpy as jnp  # noqa: E402


def best_of(fn, number, repeat=5):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def dispatch(jit, f, x, number=2000):
    g = jit(f)
    g(x)
    return best_of(lambda: g(x), number)


def resident_dispatch(jit, f, x, number=2000):
    g = jit(f)
    y = g(x)
    return best_of(lambda: g(y), number)


def chain(n, sin, mul):
    def f(x):
        for _ in range(n):
            x = mul(sin(x), 1.5)
        return x
    return f


def trace_and_lower(lower_text, n, x, number=3):
    return best_of(lambda: lower_text(chain(n, *OPS[lower_text]), x), number, repeat=3)


def minijax_lower(f, x):
    return mj.jit(f).lower(x).as_text()


def jax_lower(f, x):
    return jax.jit(f).lower(x).as_text()


OPS = {minijax_lower: (lax.sin, lax.mul), jax_lower: (jnp.sin, jnp.multiply)}


def main():
    x = np.arange(16, dtype=np.float32)
    f_mj = lambda v: lax.sin(v) * 2.  # noqa: E731
    f_jax = lambda v: jnp.sin(v) * 2.  # noqa: E731
    rows = ['| measurement | minijax | JAX | minijax / JAX |', '|---|---|---|---|']

    def row(name, ours, theirs, unit, scale):
        rows.append(f'| {name} | {ours * scale:.1f} {unit} | {theirs * scale:.1f} {unit} | '
                    f'{ours / theirs:.2f} |')

    row('jitted call, NumPy argument', dispatch(mj.jit, f_mj, x),
        dispatch(jax.jit, f_jax, x), 'us', 1e6)
    row('jitted call, device-resident argument', resident_dispatch(mj.jit, f_mj, x),
        resident_dispatch(jax.jit, f_jax, x), 'us', 1e6)
    for n in (100, 1000):
        row(f'trace + lower {2 * n} ops to text', trace_and_lower(minijax_lower, n, x),
            trace_and_lower(jax_lower, n, x), 'ms', 1e3)
    report('speed', 'Speed: minijax beside JAX',
           'the 2-core CPU machine, best of several runs', rows)

if __name__ == '__main__':
    main()
