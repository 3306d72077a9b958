"""``jax.checkpoint_policies``: which intermediate values ``checkpoint`` may save.

A policy answers, for one equation ``(primitive, *avals, **params)``, whether its result may
be kept for the backward pass (True, or ``Saveable``; ``Offloadable(src, dst)`` to keep it in
another memory) or must be recomputed (False, or ``Recompute``). ``minijax.checkpoint``
accepts a policy and keeps every residual whatever it says (it recomputes nothing), so these
only let programs that name a policy run unchanged; they answer as JAX's do, the name-based
ones on the values ``ad_checkpoint.checkpoint_name`` named (its ``name`` equations).
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ['checkpoint_dots', 'checkpoint_dots_with_no_batch_dims', 'dots_saveable',
           'dots_with_no_batch_dims_saveable', 'everything_saveable', 'nothing_saveable',
           'offload_dot_with_no_batch_dims', 'save_and_offload_only_these_names',
           'save_any_names_but_these', 'save_anything_except_these_names',
           'save_from_both_policies', 'save_only_these_names']

_DOTS = ('dot_general', 'conv_general_dilated')


class _Answer:
    """A policy's answer about one value, printed by its name."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


Saveable, Recompute = _Answer('Saveable'), _Answer('Recompute')


class Offloadable(NamedTuple):
    """Save the value, moved from memory ``src`` to ``dst`` (``'device'``, ``'pinned_host'``)."""
    src: str
    dst: str


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
    """Offload the results of matrix products without batch dimensions."""
    def policy(primitive, *avals, **params):
        if dots_with_no_batch_dims_saveable(primitive, *avals, **params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def _name(primitive, params):
    """The name ``checkpoint_name`` gave the equation's value, or None."""
    return params['name'] if primitive.name == 'name' else None


def save_only_these_names(*names_which_can_be_saved):
    """Save the named values whose name is given, only."""
    names = frozenset(names_which_can_be_saved)
    return lambda primitive, *_, **params: _name(primitive, params) in names


def save_any_names_but_these(*names_not_to_save):
    """Save the named values but those whose name is given."""
    names = frozenset(names_not_to_save)
    return lambda primitive, *_, **params: (primitive.name == 'name' and
                                            params['name'] not in names)


def save_anything_except_these_names(*names_not_to_save):
    """Everything (JAX's policy ignores the names too)."""
    return everything_saveable


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """Save the values of the first names, offload those of the second, recompute the rest."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError('The names should be exclusive and should not intersect in '
                         '`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got '
                         f'names_which_can_be_saved={saved}, names_which_can_be_offloaded='
                         f'{offloaded} and the intersection={saved & offloaded}')

    def policy(primitive, *_, **params):
        name = _name(primitive, params)
        if name in saved:
            return Saveable
        if name in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves (each must answer True or False)."""
    def policy(primitive, *args, **params):
        out1, out2 = policy_1(primitive, *args, **params), policy_2(primitive, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError('The return value of the policies should be a boolean. Got: '
                             f'{out1} and {out2}. Please write a custom policy function '
                             'directly, rather than using this helper function.')
        return out1 or out2
    return policy
