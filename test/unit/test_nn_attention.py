"""minijax.nn.dot_product_attention and the sparse activations against jax.nn: values and
gradients, over JAX's options (grouped heads, bias, masks, causal and local windows, sequence
lengths, the residual), each side in one jitted program; bad shapes raise JAX's errors."""
import jax
import numpy as np
import pytest

import minijax
from testlib import assert_close

jax.config.update('jax_enable_x64', True)

B, T, S, N, K, H = 2, 3, 4, 4, 2, 5

#: name -> (query, key, value, bias, mask, q_lens, kv_lens) -> attention call, given nn.
CASES = {
    'plain': lambda nn, q, k, v, bias, mask, ql, kl: nn.dot_product_attention(q, k, v),
    'bias-mask-scale': lambda nn, q, k, v, bias, mask, ql, kl: nn.dot_product_attention(
        q, k, v, bias, mask, scale=0.3),
    'causal-residual': lambda nn, q, k, v, bias, mask, ql, kl: nn.dot_product_attention(
        q, k, v, is_causal=True, return_residual=True),
    'window-lengths': lambda nn, q, k, v, bias, mask, ql, kl: nn.dot_product_attention(
        q, k, v, bias[:, :1], local_window_size=(1, 0), query_seq_lengths=ql,
        key_value_seq_lengths=kl, implementation='xla'),
    'f32-3d': lambda nn, q, k, v, bias, mask, ql, kl: nn.dot_product_attention(
        q[0].astype(np.float32), k[0].astype(np.float32), v[0].astype(np.float32),
        local_window_size=1),
}


def _program(lib, args):
    nn = lib.nn

    def loss(q, k, v, bias):
        outs = [case(nn, q, k, v, bias, *args[4:]) for case in CASES.values()]
        total = sum(lib.numpy.sum(lib.numpy.sin(o)) for o in lib.tree.leaves(outs))
        return total, outs
    grad = lib.grad(loss, argnums=(0, 1, 2, 3), has_aux=True)
    x = args[0].ravel()[:12]
    sparse = [nn.sparse_plus(x * 2), nn.sparse_sigmoid(x * 2),
              lib.vmap(lib.grad(lambda y: nn.sparse_plus(y) + nn.sparse_sigmoid(y)))(x * 2)]
    return lib.jit(lambda *a: (grad(*a[:4]), sparse))(*args[:4])


def test_dot_product_attention_and_sparse_activations_are_jaxs(rng):
    q, k, v = (rng.standard_normal(shape) for shape in [(B, T, N, H), (B, S, K, H),
                                                         (B, S, K, H)])
    bias = rng.standard_normal((B, N, T, S))
    mask = rng.random((B, 1, T, S)) < 0.8
    lengths = (np.array([2, 3], np.int32), np.array([4, 1], np.int32))
    args = (q, k, v, bias, mask, *lengths)
    mine = _program(minijax, args)
    theirs = _program(jax, args)
    mine_leaves, their_leaves = jax.tree.leaves(mine), jax.tree.leaves(theirs)
    assert len(mine_leaves) == len(their_leaves)
    for m, t in zip(mine_leaves, their_leaves):
        assert m.shape == t.shape and m.dtype == t.dtype
        assert_close(m, t, np.float32)   # JAX's softmax runs in float32, even for float64


BAD = {
    'value-shape': lambda nn: nn.dot_product_attention(np.ones((1, 2, 2, 3)),
                                                       np.ones((1, 2, 2, 3)),
                                                       np.ones((1, 2, 2, 4))),
    'heads': lambda nn: nn.dot_product_attention(np.ones((1, 2, 3, 3)), np.ones((1, 2, 2, 3)),
                                                 np.ones((1, 2, 2, 3))),
    'mask-dtype': lambda nn: nn.dot_product_attention(np.ones((1, 2, 2, 3)),
                                                      np.ones((1, 2, 2, 3)),
                                                      np.ones((1, 2, 2, 3)),
                                                      mask=np.ones((1, 1, 2, 2))),
    'lengths-dtype': lambda nn: nn.dot_product_attention(
        np.ones((1, 2, 2, 3)), np.ones((1, 2, 2, 3)), np.ones((1, 2, 2, 3)),
        query_seq_lengths=np.array([1])),
    'implementation': lambda nn: nn.dot_product_attention(
        np.ones((1, 2, 2, 3)), np.ones((1, 2, 2, 3)), np.ones((1, 2, 2, 3)),
        implementation='flash'),
}


@pytest.mark.parametrize('name', BAD)
def test_bad_attention_input_raises_jaxs_error(name):
    with pytest.raises(Exception) as theirs:
        BAD[name](jax.nn)
    with pytest.raises(type(theirs.value), match=str(theirs.value)[:20]):
        BAD[name](minijax.nn)
