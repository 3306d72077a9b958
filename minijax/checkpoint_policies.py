"""``jax.checkpoint_policies``: which intermediate values ``checkpoint`` may save.

A policy answers, for one equation ``(primitive, *avals, **params)``, whether its result may
be kept for the backward pass (True) or must be recomputed (False). ``minijax.checkpoint``
accepts a policy and keeps every residual whatever it says (it recomputes nothing), so these
only let programs that name a policy run unchanged; they answer as JAX's do. minijax has no
``checkpoint_name``, so no value is named and the name-based policies save nothing named.
"""
from __future__ import annotations

__all__ = ['checkpoint_dots', 'checkpoint_dots_with_no_batch_dims', 'dots_saveable',
           'dots_with_no_batch_dims_saveable', 'everything_saveable', 'nothing_saveable',
           'offload_dot_with_no_batch_dims', 'save_and_offload_only_these_names',
           'save_any_names_but_these', 'save_anything_except_these_names',
           'save_from_both_policies', 'save_only_these_names']

_DOTS = ('dot_general', 'conv_general_dilated')


def everything_saveable(*_, **__):
    """Save everything: as if there were no ``checkpoint``."""
    return True


def nothing_saveable(*_, **__):
    """Recompute everything: ``checkpoint``'s default."""
    return False


def dots_saveable(primitive, *_, **__):
    """Save the results of matrix products and convolutions."""
    return primitive.name in _DOTS


def dots_with_no_batch_dims_saveable(primitive, *_, **params):
    """Save the results of matrix products without batch dimensions."""
    if primitive.name != 'dot_general':
        return False
    _, (lhs_batch, rhs_batch) = params['dimension_numbers']
    return not lhs_batch and not rhs_batch


checkpoint_dots = dots_saveable
checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """JAX moves these products to host memory; minijax has one memory, so it saves them."""
    return dots_with_no_batch_dims_saveable


def _names_policy(*_names, **__):
    """A policy on named values: minijax has none, so it saves nothing."""
    return nothing_saveable


save_only_these_names = save_any_names_but_these = _names_policy
save_and_offload_only_these_names = _names_policy


def save_anything_except_these_names(*_names):
    """Everything (JAX's policy ignores the names too)."""
    return everything_saveable


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    return lambda primitive, *args, **params: (policy_1(primitive, *args, **params)
                                               or policy_2(primitive, *args, **params))
