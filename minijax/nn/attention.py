"""``jax.nn.dot_product_attention``: softmax(q k^T scale + bias, masked) v, with JAX's
options (grouped-query heads, causal and local-window masks, sequence lengths, the
log-sum-exp residual) and JAX's numerics: logits in at least float32, the softmax in
float32, the probabilities in the keys' dtype.

Shapes are JAX's: ``query`` ``(B, T, N, H)``, ``key`` and ``value`` ``(B, S, K, H)`` with
``N`` a multiple of ``K`` (each key/value head serves ``N // K`` query heads), ``bias`` and
``mask`` broadcastable to ``(B, N, T, S)``; leading axes may be left out.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as mnp
from minijax.nn import softmax  # defined before minijax.nn imports this module
from minijax.scipy.special import logsumexp


def _ensure_4d(t):
    t = mnp.asarray(t)
    return mnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check(t, shape, dtype, name):
    """``t``'s rank, dtype and the entries of ``shape`` that are not -1, as JAX checks."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f'{name} ndim should be {len(shape)}, but got {t.ndim}')
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f'{name} dtype should be {dtype}, but got {t.dtype}')
    if any(want not in (-1, have) for want, have in zip(shape, t.shape)):
        raise ValueError(f'{name} shape should be {shape}: but got {t.shape}')


def _grouped(t, heads, groups):
    """A ``(B, N or 1, T, S)`` bias or mask as ``(B, K, G, T, S)`` (or broadcastable)."""
    if t is None:
        return None
    b, n, tq, s = t.shape
    return t[:, :, None] if n == 1 else mnp.reshape(t, (b, heads, groups, tq, s))


def _mask(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
    """``logits`` (B, K, G, T, S) with masked-out entries set to a large negative number
    (not -inf: a fully masked row stays finite)."""
    if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None \
            and local_window_size is None:
        return logits
    keep = mnp.ones_like(logits, dtype=bool)
    if mask is not None:
        keep = keep & mask
    t, s = logits.shape[-2:]
    query_pos, key_pos = mnp.arange(t)[:, None], mnp.arange(s)[None, :]
    if is_causal:
        keep = keep & mnp.tril(mnp.ones((t, s), dtype=bool))
    if local_window_size is not None:
        left, right = local_window_size
        keep = keep & (query_pos <= key_pos + left) & (query_pos >= key_pos - right)
    if q_seqlen is not None:
        keep = keep & (query_pos < q_seqlen[:, None, None, None, None])
    if kv_seqlen is not None:
        keep = keep & (key_pos < kv_seqlen[:, None, None, None, None])
    large_negative = -0.7 * min(dtypes.finfo(logits.dtype).max, dtypes.finfo(np.float32).max)
    return mnp.where(keep, logits, mnp.asarray(large_negative, dtype=logits.dtype))


def _attention(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
               local_window_size, return_residual):
    b, t, n, h = query.shape
    heads = key.shape[2]
    groups = n // heads
    query = mnp.reshape(query, (b, t, heads, groups, h))
    logits_dtype = mnp.promote_types(query.dtype, np.float32)
    logits = mnp.einsum('BTKGH,BSKH->BKGTS', query.astype(logits_dtype),
                        key.astype(logits_dtype))
    logits = logits * mnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, heads, groups)).astype(logits.dtype)
    logits = _mask(logits, _grouped(mask, heads, groups), is_causal, q_seqlen, kv_seqlen,
                   local_window_size).astype(np.float32)
    probs = softmax(logits, axis=-1).astype(key.dtype)
    encoded = mnp.einsum('BKGTS,BSKH->BTKGH', probs, value)
    if q_seqlen is not None:
        valid = mnp.arange(t)[None, :] < q_seqlen[:, None]
        encoded = encoded * valid[:, :, None, None, None].astype(encoded.dtype)
    encoded = mnp.reshape(encoded, (b, t, n, h))
    if not return_residual:
        return encoded
    lse = logsumexp(logits, axis=-1).astype(key.dtype)               # (B, K, G, T)
    lse = mnp.reshape(mnp.transpose(lse, (0, 3, 1, 2)), (b, t, n))
    return encoded, lax.stop_gradient(lse)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """Scaled dot-product attention (the XLA path of JAX's; ``implementation='cudnn'``
    needs an NVIDIA GPU, which minijax does not run on)."""
    output_shape = mnp.asarray(query).shape
    query, key, value = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    q_seqlen = None if query_seq_lengths is None else mnp.asarray(query_seq_lengths)
    kv_seqlen = None if key_value_seq_lengths is None else mnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    b, s, k, h = key.shape
    _check(value, [b, s, k, h], key.dtype, 'value')
    _check(query, [b, -1, -1, h], key.dtype, 'query')
    _check(mask, [-1] * 4, np.dtype(bool), 'mask')
    _check(bias, [-1] * 4, None, 'bias')
    _check(q_seqlen, [b], np.dtype('int32'), 'query_seq_lengths')
    _check(kv_seqlen, [b], np.dtype('int32'), 'key_value_seq_lengths')
    if query.shape[-2] % k != 0:
        raise ValueError(f'The number of query heads must be a multiple of key/value heads, '
                         f'but got {query.shape[-2]} vs {k}')
    if implementation == 'cudnn':
        raise NotImplementedError("dot_product_attention: implementation='cudnn' runs on "
                                  "NVIDIA GPUs; minijax runs on CPU: use implementation=None "
                                  "or 'xla'")
    if implementation not in (None, 'xla'):
        raise ValueError(f'Unsupported implementation option: {implementation}')
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    out = _attention(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                     local_window_size, return_residual)
    if return_residual:
        return mnp.reshape(out[0], output_shape), mnp.reshape(out[1], output_shape[:-1])
    return mnp.reshape(out, output_shape)
