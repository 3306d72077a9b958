"""Neural-network helpers built from ``minijax.numpy``: ``logsumexp`` and ``softmax``.

Both subtract the maximum before exponentiating, so large inputs do not overflow.
"""
import numpy as np

from minijax import numpy as mnp


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, computed stably.

    The shift cancels in the derivative, so its gradient is ``softmax(x)``; an all ``-inf``
    slice shifts by 0 instead (and gives ``-inf``, not NaN).
    """
    shift = mnp.max(x, axis, keepdims=True)
    shift = mnp.where(mnp.less(mnp.abs(shift), np.inf), shift, 0.)
    out = mnp.log(mnp.sum(mnp.exp(x - shift), axis, keepdims=True)) + shift
    return out if keepdims else mnp.squeeze(out, axis)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``: non-negative, summing to 1."""
    unnormalized = mnp.exp(x - mnp.max(x, axis, keepdims=True))
    return unnormalized / mnp.sum(unnormalized, axis, keepdims=True)
