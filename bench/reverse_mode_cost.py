"""Reverse mode within a constant factor of the forward pass: FLOPs of jit(grad(loss)) over
jit(loss) for a two-layer MLP, by XLA's cost analysis, for minijax and for JAX side by side.

    python bench/reverse_mode_cost.py [--write]

``--write`` records the table in bench/results/reverse_mode_cost.md.
"""
import numpy as np

import minijax as mj
from minijax import lax
from report import report

import jax  # noqa: E402  (the oracle, measured beside minijax)
import jax.numpy as jnp  # noqa: E402

DN = (((1,), (0,)), ((), ()))
SIZES = [(128, 64, 256, 10), (1024, 784, 512, 10)]  # batch, inputs, hidden, outputs


def minijax_loss(params, x):
    w1, b1, w2, b2 = params
    h = lax.tanh(lax.add(lax.dot_general(x, w1, DN), b1))
    out = lax.add(lax.dot_general(h, w2, DN), b2)
    return lax.reduce_sum(lax.mul(out, out))


def jax_loss(params, x):
    w1, b1, w2, b2 = params
    out = jnp.tanh(x @ w1 + b1) @ w2 + b2
    return jnp.sum(out * out)


def make_args(batch, n_in, hidden, n_out):
    rng = np.random.default_rng(0)
    shapes = [(n_in, hidden), (batch, hidden), (hidden, n_out), (batch, n_out)]
    return [rng.normal(size=s).astype(np.float32) for s in shapes], \
        rng.normal(size=(batch, n_in)).astype(np.float32)


def ratio(jit, grad, loss, params, x):
    forward = jit(loss).lower(params, x).compile().cost_analysis()['flops']
    backward = jit(grad(loss)).lower(params, x).compile().cost_analysis()
    backward = backward['flops'] if isinstance(backward, dict) else backward[0]['flops']
    return forward, backward, backward / forward


def main():
    rows = ['| MLP (batch, in, hidden, out) | minijax fwd FLOPs | minijax grad FLOPs | '
            'minijax ratio | JAX ratio |', '|---|---|---|---|---|']
    for sizes in SIZES:
        params, x = make_args(*sizes)
        f, b, r = ratio(mj.jit, mj.grad, minijax_loss, params, x)
        _, _, jr = ratio(jax.jit, jax.grad, jax_loss, params, x)
        rows.append(f'| {sizes} | {f:.0f} | {b:.0f} | {r:.3f} | {jr:.3f} |')
    report('reverse_mode_cost', 'Reverse-mode cost: FLOPs of jit(grad(loss)) / jit(loss)',
           'XLA cost analysis, CPU, float32', rows)

if __name__ == '__main__':
    main()
