"""Eager calls across the ``jax.numpy`` surface, minijax beside JAX 0.10.2 in the same run:
the time of one call of each function on small operands (a 100-vector, a 10 x 10 matrix),
no ``jit`` around it, as a notebook cell runs it.

    python bench/eager.py [--write] [NAME ...]

speed.py's eager row measures four elementwise ops; this table is the class: reductions,
products, indexing, shape functions, creation, random numbers, ``nn``. Each figure is the
best CPU time per call (``time.process_time``) over short windows, minijax and JAX
alternating window by window; the summary rows give the geometric mean of the ratios and
the worst ones.
``--write`` records the table in bench/results/eager.md.
"""
import gc
import math
import sys
import time

import numpy as np

from report import report
from speed import frameworks


def calls(jax, jnp, lax):
    """name -> a call of no arguments, the same on both frameworks."""
    v = jnp.asarray(np.linspace(0., 1., 100))
    m = jnp.asarray(np.linspace(0., 1., 100).reshape(10, 10))
    i = jnp.asarray(np.arange(5))
    key = jax.random.PRNGKey(0)
    return {
        # elementwise
        'sin': lambda: jnp.sin(v), 'exp': lambda: jnp.exp(v), 'abs': lambda: jnp.abs(v),
        'sqrt': lambda: jnp.sqrt(v), 'square': lambda: jnp.square(v),
        'floor': lambda: jnp.floor(v), 'round': lambda: jnp.round(v),
        'isnan': lambda: jnp.isnan(v), 'v + v': lambda: v + v, 'v * 2.0': lambda: v * 2.0,
        'v ** 2': lambda: v ** 2, 'v % 0.3': lambda: v % 0.3, 'v // 0.3': lambda: v // 0.3,
        'v > 0.5': lambda: v > 0.5, 'maximum': lambda: jnp.maximum(v, 0.3),
        'clip': lambda: jnp.clip(v, 0.1, 0.9), 'where': lambda: jnp.where(v > 0.5, v, 0.),
        'nan_to_num': lambda: jnp.nan_to_num(v), 'astype': lambda: v.astype(jnp.float32),
        'lax.add': lambda: lax.add(v, v),
        # reductions
        'sum': lambda: jnp.sum(v), 'sum(axis=0)': lambda: jnp.sum(m, axis=0),
        'mean': lambda: jnp.mean(v), 'm.mean(axis=1)': lambda: m.mean(axis=1),
        'max': lambda: jnp.max(v), 'v.min()': lambda: v.min(), 'prod': lambda: jnp.prod(v),
        'argmax': lambda: jnp.argmax(v), 'any': lambda: jnp.any(v > 0.5),
        'var': lambda: jnp.var(v), 'std': lambda: jnp.std(v), 'cumsum': lambda: jnp.cumsum(v),
        'allclose': lambda: jnp.allclose(v, v), 'linalg.norm': lambda: jnp.linalg.norm(v),
        # products
        'dot': lambda: jnp.dot(v, v), 'm @ m': lambda: m @ m, 'outer': lambda: jnp.outer(v, v),
        'einsum': lambda: jnp.einsum('ij,jk->ik', m, m),
        'linalg.inv': lambda: jnp.linalg.inv(m + 10 * jnp.eye(10)),
        # shapes
        'reshape': lambda: v.reshape(10, 10), 'm.T': lambda: m.T, 'v[None]': lambda: v[None],
        'squeeze': lambda: jnp.squeeze(m[None]),
        'broadcast_to': lambda: jnp.broadcast_to(v, (3, 100)),
        'concatenate': lambda: jnp.concatenate([v, v]), 'stack': lambda: jnp.stack([v, v]),
        'split': lambda: jnp.split(v, 4), 'flip': lambda: jnp.flip(v),
        'roll': lambda: jnp.roll(v, 3), 'tile': lambda: jnp.tile(v, 2),
        'repeat': lambda: jnp.repeat(v, 2), 'pad': lambda: jnp.pad(v, 2),
        'triu': lambda: jnp.triu(m), 'diff': lambda: jnp.diff(v),
        'meshgrid': lambda: jnp.meshgrid(v[:10], v[:10]),
        # indexing and sorting
        'v[3]': lambda: v[3], 'v[2:50]': lambda: v[2:50], 'm[2, 3:7]': lambda: m[2, 3:7],
        'v[i]': lambda: v[i], 'take': lambda: jnp.take(v, i),
        'v.at[3].set': lambda: v.at[3].set(0.), 'v.at[i].add': lambda: v.at[i].add(1.),
        'sort': lambda: jnp.sort(v), 'argsort': lambda: jnp.argsort(v),
        'searchsorted': lambda: jnp.searchsorted(v, 0.5), 'float(v[0])': lambda: float(v[0]),
        # creation
        'zeros': lambda: jnp.zeros(100), 'ones_like': lambda: jnp.ones_like(v),
        'full': lambda: jnp.full((10,), 3.), 'arange': lambda: jnp.arange(100),
        'linspace': lambda: jnp.linspace(0., 1., 100), 'eye': lambda: jnp.eye(10),
        'array(list)': lambda: jnp.array([1., 2., 3.]),
        'asarray(ndarray)': lambda: jnp.asarray(np.ones(100)),
        # nn and random
        'nn.relu': lambda: jax.nn.relu(v), 'nn.sigmoid': lambda: jax.nn.sigmoid(v),
        'nn.gelu': lambda: jax.nn.gelu(v), 'nn.softmax': lambda: jax.nn.softmax(v),
        'nn.logsumexp': lambda: jax.nn.logsumexp(v),
        'random.normal': lambda: jax.random.normal(key, (100,)),
        'random.uniform': lambda: jax.random.uniform(key, (100,)),
        'random.split': lambda: jax.random.split(key),
    }


def window(fn, number: int) -> float:
    """The CPU time per call of ``number`` calls of ``fn`` in a row, the garbage collector
    running as in a user's program."""
    gc.enable()
    start = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - start) / number


def side_by_side(tables: list[dict], only=(), number=50, windows=15) -> list[str]:
    """Time each call of ``tables`` (minijax's, then JAX's: name -> call), the best of
    ``windows`` short windows of ``number`` calls, alternating the two window by window (a
    shared machine's load swings over seconds: both see the same quiet moments). The
    table's rows, ending with the geometric mean of the ratios and the five worst."""
    times = {}
    for name in tables[0]:
        if only and name not in only:
            continue
        for table in tables:  # (two calls that compile)
            table[name]()
            table[name]()
        best = [math.inf, math.inf]
        for _ in range(windows):
            for k, table in enumerate(tables):
                best[k] = min(best[k], window(table[name], number))
        times[name] = best
    ratios = {name: ours / theirs for name, (ours, theirs) in times.items()}
    rows = ['| call | minijax | JAX | minijax / JAX |', '|---|---|---|---|']
    rows += [f'| `{name}` | {ours * 1e6:.1f} us | {theirs * 1e6:.1f} us | {ratios[name]:.2f} |'
             for name, (ours, theirs) in times.items()]
    mean = math.exp(sum(map(math.log, ratios.values())) / len(ratios))
    worst = sorted(ratios, key=ratios.get, reverse=True)[:5]
    rows.append(f'| geometric mean of the {len(ratios)} ratios | | | {mean:.2f} |')
    rows.append(f'| the worst | | | {", ".join(f"`{n}` {ratios[n]:.2f}" for n in worst)} |')
    return rows


def main():
    only = [a for a in sys.argv[1:] if not a.startswith('--')]
    rows = side_by_side([calls(jax, jnp, lax) for _, jax, jnp, lax in frameworks()], only)
    report('eager', 'Eager calls across jax.numpy: minijax beside JAX',
           'the 2-core CPU machine, x64 on both, CPU time per call, the best of 15 windows '
           'of 50 calls, alternating the two', rows)


if __name__ == '__main__':
    main()
