"""Optimizers as ``(init_fun, update_fun, get_params)`` triples, as JAX's example library has
them.

``init_fun(params)`` gives an optimizer state, ``update_fun(step, grads, opt_state)`` the next
state and ``get_params(opt_state)`` the parameters, for any pytree of parameters: the
``optimizer`` decorator lifts a triple written for one array to pytrees. Step sizes are numbers
or schedules (``step -> step size``). The arithmetic is JAX's, so a training loop gives JAX's
values step for step.
"""
from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from minijax import numpy as jnp
from minijax import tree as pytree
from minijax import tree_util
from minijax._src.util import safe_map, safe_zip, unzip2

__all__ = [
    'InitFn', 'JoinPoint', 'Optimizer', 'OptimizerState', 'Params', 'ParamsFn', 'Schedule',
    'State', 'Step', 'UpdateFn', 'Updates', 'adagrad', 'adam', 'adamax', 'clip_grads',
    'constant', 'exponential_decay', 'inverse_time_decay', 'l2_norm', 'make_schedule',
    'momentum', 'nesterov', 'optimizer', 'pack_optimizer_state', 'piecewise_constant',
    'polynomial_decay', 'rmsprop', 'rmsprop_momentum', 'sgd', 'sm3', 'unpack_optimizer_state']


# JAX's module shadows the builtins with the strict versions; so does this one.
map = safe_map  # noqa: A001
zip = safe_zip  # noqa: A001

OptimizerState = namedtuple('OptimizerState', ['packed_state', 'tree_def', 'subtree_defs'])
OptimizerState.__doc__ = ("An optimizer's state over a pytree: the flat per-leaf states and "
                          'the treedefs to rebuild them. A pytree whose only child is the '
                          'flat state list.')
tree_util.register_pytree_node(
    OptimizerState,
    lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
    lambda defs, children: OptimizerState(children[0], defs[0], defs[1]))

Array = Any
Params = Any       # a pytree of arrays
State = Any        # one leaf's optimizer state
Updates = Params   # gradients, shaped as the parameters
InitFn = Callable[[Params], OptimizerState]
Step = int
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]
Schedule = Callable[[Step], float]


class Optimizer(NamedTuple):
    """An ``(init_fn, update_fn, params_fn)`` triple over pytrees."""
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def optimizer(opt_maker: Callable[..., tuple[Callable, Callable, Callable]]
              ) -> Callable[..., Optimizer]:
    """Lifts a maker of an ``(init, update, get_params)`` triple for one array to a maker of
    an ``Optimizer`` for pytrees of arrays (one state per leaf, kept flat)."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        def flat_states(states):
            return unzip2(map(pytree.flatten, states))

        @functools.wraps(init)
        def tree_init(x0_tree):
            leaves, treedef = pytree.flatten(x0_tree)
            states_flat, subtrees = flat_states([init(x0) for x0 in leaves])
            return OptimizerState(states_flat, treedef, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, treedef, subtrees = opt_state
            grads, grad_treedef = pytree.flatten(grad_tree)
            if grad_treedef != treedef:
                raise TypeError(
                    'optimizer update function was passed a gradient tree that did not '
                    'match the parameter tree structure with which it was initialized: '
                    f'parameter tree {treedef} and grad tree {grad_treedef}.')
            states = map(pytree.unflatten, subtrees, states_flat)
            new_flat, new_subtrees = flat_states(map(partial(update, i), grads, states))
            for before, after in zip(subtrees, new_subtrees):
                if before != after:
                    raise TypeError(
                        'optimizer update function produced an output structure that did '
                        f'not match its input structure: input {before} and output {after}.')
            return OptimizerState(new_flat, treedef, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, treedef, subtrees = opt_state
            states = map(pytree.unflatten, subtrees, states_flat)
            return pytree.unflatten(treedef, map(get_params, states))

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """Stochastic gradient descent: ``x - step_size(i) * g``."""
    step_size = make_schedule(step_size)

    def update(i, g, x):
        return x - step_size(i) * g
    return Optimizer(lambda x0: x0, update, lambda x: x)


def _momentum_optimizer(nesterov_step):
    def make(step_size: Schedule, mass: float):
        step_size = make_schedule(step_size)

        def init(x0):
            return x0, jnp.zeros_like(x0)

        def update(i, g, state):
            x, velocity = state
            velocity = mass * velocity + g
            direction = mass * velocity + g if nesterov_step else velocity
            return x - step_size(i) * direction, velocity
        return init, update, _first
    return make


@optimizer
def momentum(step_size: Schedule, mass: float):
    """SGD with momentum ``mass``."""
    return _momentum_optimizer(False)(step_size, mass)


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """SGD with Nesterov momentum ``mass``."""
    return _momentum_optimizer(True)(step_size, mass)


def _inverse_sqrt(accum):
    return jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0.0)


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011), with ``momentum`` on the scaled gradients."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        m = (1. - momentum) * (g * _inverse_sqrt(g_sq)) + momentum * m
        return x - step_size(i) * m, g_sq, m
    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: steps scaled by a running root mean square of the gradients."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
    return init, update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with ``momentum`` on the scaled steps."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom
    return init, update, _first


def _bias_correction(b, like, i):
    return 1 - jnp.asarray(b, like.dtype) ** (i + 1)


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba 2014)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / _bias_correction(b1, m, i)
        vhat = v / _bias_correction(b2, m, i)
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v
    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with an infinity-norm second moment."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / _bias_correction(b1, m, i)) * m / (u + eps)
        return x, m, u
    return init, update, _first


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): one accumulator per axis of each parameter, not per
    element."""
    step_size = make_schedule(step_size)

    def without(seq, axis, replacement):
        out = list(seq)
        out[axis:axis + 1] = replacement
        return out

    def init(x0):
        shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape], shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        vs = [v[tuple(without([None] * g.ndim, axis, [slice(None)]))]
              for axis, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        m = (1. - momentum) * (g * jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)) \
            + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(tuple(without(range(x.ndim), axis, []))) for axis in range(x.ndim)]
        return x, m, vs, x_shape

    def get_params(state):
        return state[0].reshape(state[3])
    return init, update, get_params


# Schedules: step -> step size.

def constant(step_size) -> Schedule:
    """The schedule that is always ``step_size``."""
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``."""
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)``, the ratio floored if
    ``staircase``."""
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` over ``decay_steps`` steps along
    ``(1 - i / decay_steps) ** power``; ``final_step_size`` after."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    """``values[k]`` for steps after ``k`` of the ``boundaries``."""
    boundaries, values = jnp.array(boundaries), jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError('boundaries and values must be sequences')
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError('boundaries length must be one shorter than values length')
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule as it is, or a scalar as the constant schedule."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# Utilities.

def l2_norm(tree):
    """The l2 norm of a pytree of arrays (its leaves as one vector)."""
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in pytree.leaves(tree)))


def clip_grads(grad_tree, max_norm):
    """The gradients scaled down to l2 norm ``max_norm`` if their norm is larger."""
    norm = l2_norm(grad_tree)
    return pytree.map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
    """Marks where an optimizer state's per-leaf subtree joins the parameter tree (a leaf of
    the outer tree, iterable so that serializers walk into it)."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """An ``OptimizerState`` as the parameter tree with ``JoinPoint`` leaves holding each
    leaf's state (for serializing)."""
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = map(pytree.unflatten, subtree_defs, states_flat)
    return pytree.unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of ``unpack_optimizer_state``."""
    sentinels, tree_def = pytree.flatten(marked_pytree)
    if not all(isinstance(s, JoinPoint) for s in sentinels):
        raise TypeError('pack_optimizer_state takes a pytree whose leaves are JoinPoints '
                        '(as unpack_optimizer_state returns)')
    states_flat, subtree_defs = unzip2(map(pytree.flatten, [s.subtree for s in sentinels]))
    return OptimizerState(states_flat, tree_def, subtree_defs)
