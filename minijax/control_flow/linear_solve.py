"""``custom_linear_solve`` and ``custom_root``: solvers differentiated implicitly, at their
solution, rather than through their iterations (JAX's ``lax.custom_linear_solve`` and
``lax.custom_root``).

``custom_linear_solve(matvec, b, solve, ...)`` binds ``linear_solve_p`` (printed
``custom_linear_solve``, as in JAX). It holds four jaxprs in a ``_LinearSolveTuple``:
``matvec`` (the linear map A), ``vecmat`` (its transpose), ``solve`` and ``transpose_solve``
(None where not given); its operands are the constants of each, in that order, then ``b``.
It evaluates and lowers as ``solve``, inline. It is linear in ``b``: its JVP solves again,
for ``db - dA x``, and its transpose is the same primitive with A and A^T (and the two
solves) swapped.

``custom_root(f, initial_guess, solve, tangent_solve)`` is, as in JAX, a ``custom_jvp``
function of the constants of ``f``, of ``solve`` and of ``tangent_solve`` applied to ``f``
linearized, and of the guess. Its JVP is the implicit function theorem: where
``f(m, u(m)) = 0``, ``du = -(df/du)^-1 (df/dm dm)``, the inverse being ``tangent_solve``'s.
"""
from __future__ import annotations

import functools
from typing import Any, NamedTuple

from minijax import core, lax, tree_util
from minijax.control_flow.common import trace_function
from minijax.core import Primitive
from minijax.interpreters import batching
from minijax.interpreters import jvp as ad
from minijax.interpreters.partial_eval import PartialVal, partial_eval_flat
from minijax.interpreters.transpose import (UndefinedPrimal, backward_pass, instantiate_cts,
                                            is_undefined_primal)
from minijax.ir.jaxpr import eval_closed_jaxpr
from minijax.lowering import lower_closed_jaxpr, register_lowering
from minijax.sharding import rules as sharding_rules

linear_solve_p = Primitive('custom_linear_solve', multiple_results=True)
sharding_rules.register(sharding_rules.AS_TRACED, linear_solve_p)  # its results: its jaxpr's types


class _LinearSolveTuple(NamedTuple):
    """One entry per role; its repr is how JAX prints ``linear_solve_p``'s params (by this
    very class name)."""
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self):
        """The roles of the transposed system: A^T's map and solves in A's places."""
        return _LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split_consts(args, lengths):
    """(a tuple of the leading groups of ``args``, ``lengths`` long each, the rest)."""
    groups = []
    for n in lengths:
        head, args = core.split_list(list(args), n)
        groups.append(head)
    return type(lengths)(*groups), args


def _flat(groups):
    return [x for group in groups for x in group]


# ----------------------------------------------------------------------------- the API

def _check_tree(fun_name, expected_name, actual, expected, has_aux=False):
    """JAX's checks of what a user function returns: its structure (with ``has_aux``, a pair
    whose first element has it)."""
    if has_aux:
        children = actual.children()
        if len(children) != 2:
            raise ValueError(f'{fun_name}() produced a pytree with structure {actual}, but a '
                             'pytree tuple with auxiliary output was expected because has_aux '
                             'was set to True.')
        actual = children[0]
    if actual != expected:
        raise TypeError(f'{fun_name}() output pytree structure must match {expected_name}, '
                        f'got {actual} and {expected}.')


def _shape_checked(fun, name, b_leaves, has_aux):
    """``fun`` checking that its output (its first, with ``has_aux``) has ``b``'s shapes."""
    expected = [core.get_aval(x).shape for x in b_leaves]

    def checked(x):
        out = fun(x)
        if has_aux:
            y, _ = out  # (a value error, as in JAX, when it is no pair)
        leaves = tree_util.tree_leaves(y if has_aux else out)
        shapes = [core.get_aval(y).shape for y in leaves]
        if shapes != expected:
            raise ValueError(f'{name}() output shapes must match b, got {shapes} and '
                             f'{expected}')
        return out
    return checked


def _linear_transpose(fun, in_tree, avals):
    """The transpose of the linear ``fun``, a flat function of cotangents (JAX's
    ``linear_transpose``): ``fun`` is partially evaluated with every input unknown, so what
    does not depend on them (products of the values it closed over) is computed now, and
    the linear rest is transposed when called."""
    flat_fun, _ = tree_util.flatten_fun(fun, in_tree)
    jaxpr, _, consts = partial_eval_flat(flat_fun, [PartialVal.unknown(a) for a in avals],
                                         instantiate=lambda n: [True] * n)

    def transposed(*cts):
        cts_in = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in avals], list(cts))
        return instantiate_cts(cts_in, avals)
    return transposed


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """``solve(matvec, b)``, differentiated as the solution ``x`` of ``matvec(x) = b``.

    ``matvec`` is linear; ``solve(matvec, b)`` returns ``x`` (and aux data with
    ``has_aux``). Reverse mode needs ``transpose_solve(vecmat, b)``, solving with the
    transposed map, or ``symmetric=True`` (then ``solve`` is used for it).
    """
    core.check_callable('custom_linear_solve', matvec=matvec, solve=solve)
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, tree = tree_util.tree_flatten(b)
    avals = [core.shaped_aval(x) for x in b_flat]
    args_tree = tree_util.tuple_treedef(tree)

    matvec_jaxpr, matvec_consts, out_tree = trace_function(
        _shape_checked(matvec, 'matvec', b_flat, False), args_tree, avals)
    _check_tree('matvec', 'b', out_tree, tree)
    solve_jaxpr, solve_consts, solve_tree = trace_function(
        _shape_checked(functools.partial(solve, matvec), 'solve', b_flat, has_aux), args_tree,
        avals)
    _check_tree('solve', 'b', solve_tree, tree, has_aux)

    vecmat_jaxpr = tr_solve_jaxpr = None
    vecmat_consts = tr_solve_consts = []
    if transpose_solve is not None:
        if symmetric:
            vecmat, vecmat_jaxpr, vecmat_consts = matvec, matvec_jaxpr, matvec_consts
        else:
            transposed = _linear_transpose(matvec, args_tree, avals)

            def vecmat(x):
                return tree_util.tree_unflatten(tree, transposed(*tree_util.tree_leaves(x)))
            vecmat_jaxpr, vecmat_consts, _ = trace_function(vecmat, args_tree, avals)
        tr_solve_jaxpr, tr_solve_consts, tr_tree = trace_function(
            _shape_checked(functools.partial(transpose_solve, vecmat), 'transpose_solve',
                           b_flat, has_aux), args_tree, avals)
        _check_tree('transpose_solve', 'b', tr_tree, tree, has_aux)

    consts = _LinearSolveTuple(matvec_consts, vecmat_consts, solve_consts, tr_solve_consts)
    outs = linear_solve_p.bind(
        *_flat(consts), *b_flat, const_lengths=_LinearSolveTuple(*map(len, consts)),
        jaxprs=_LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr))
    return tree_util.tree_unflatten(solve_tree, outs)


# ----------------------------------------------------------------------------- evaluation

def _linear_solve_impl(*args, const_lengths, jaxprs):
    consts, b = _split_consts(args, const_lengths)
    return eval_closed_jaxpr(jaxprs.solve, [*consts.solve, *b])


def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    """``b``'s types, then those of the aux data ``solve`` returns after ``x``."""
    _, b = _split_consts(avals, const_lengths)
    solve = jaxprs.solve
    if [(a.shape, a.dtype) for a in b] != [(a.shape, a.dtype) for a in solve.in_avals[
            const_lengths.solve:]]:
        raise TypeError(f'custom_linear_solve: b has types ({", ".join(a.str_short() for a in b)})'
                        f' but solve takes ({", ".join(a.str_short() for a in solve.in_avals)})')
    return [*b, *solve.out_avals[len(jaxprs.matvec.out_avals):]]


linear_solve_p.def_impl(_linear_solve_impl)
linear_solve_p.def_abstract_eval(_linear_solve_abstract_eval)


# ----------------------------------------------------------------------------- jvp

def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    """A x = b, so dA x + A dx = db: dx solves A dx = db - dA x (dA x is the tangent of
    matvec in its constants, at x). Aux outputs get zero tangents."""
    params = dict(const_lengths=const_lengths, jaxprs=jaxprs)
    x = linear_solve_p.bind(*primals, **params)
    consts, _ = _split_consts(primals, const_lengths)
    consts_dot, b_dot = _split_consts(tangents, const_lengths)
    x_leaves, aux = core.split_list(x, len(b_dot))
    rhs = b_dot
    if not all(isinstance(t, ad.Zero) for t in consts_dot.matvec):
        x_zero = [ad.Zero(core.get_aval(v)) for v in x_leaves]
        _, dA_x = ad.jvp_flat(lambda *args: eval_closed_jaxpr(jaxprs.matvec, args),
                              [*consts.matvec, *x_leaves], [*consts_dot.matvec, *x_zero])
        rhs = [_add_tangents(db, lax.neg(ad.instantiate(t))) for db, t in zip(b_dot, dA_x)]
    x_dot = linear_solve_p.bind(*_flat(consts), *map(ad.instantiate, rhs), **params)
    return x, [*x_dot[:len(b_dot)], *(ad.Zero(core.get_aval(a)) for a in aux)]


def _add_tangents(a, b):
    if isinstance(a, ad.Zero):
        return b
    return a if isinstance(b, ad.Zero) else lax.add_any(a, b)


linear_solve_p.def_jvp(_linear_solve_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------- transpose

def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    """The cotangent of ``b`` solves A^T ct_b = ct_x: the same primitive, transposed."""
    if jaxprs.transpose_solve is None:
        raise TypeError('transpose_solve required for backwards mode automatic '
                        'differentiation of custom_linear_solve')
    consts, b = _split_consts(args, const_lengths)
    if any(is_undefined_primal(x) for x in _flat(consts)):
        raise NotImplementedError('custom_linear_solve: cannot transpose with respect to the '
                                  'constants of matvec or of the solves')
    x_cts, aux_cts = core.split_list(cts, len(b))
    if any(not isinstance(ct, ad.Zero) for ct in aux_cts):
        raise NotImplementedError('custom_linear_solve: cannot transpose with respect to the '
                                  'aux data of solve')
    b_cts = linear_solve_p.bind(*_flat(consts.transpose()), *map(ad.instantiate, x_cts),
                                const_lengths=const_lengths.transpose(),
                                jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + b_cts[:len(b)]


linear_solve_p.def_transpose(_linear_solve_transpose)


# ----------------------------------------------------------------------------- vmap

def _batched(closed, size, batched_in, instantiate):
    """``closed`` batched at axis 0 of the flagged inputs, and its batched outputs."""
    if closed is None:
        return None, None
    dims = tuple(0 if b else batching.not_mapped for b in batched_in)
    return batching.batched_jaxpr(closed, size, dims, tuple(instantiate))


def _linear_solve_batching(vals, dims, *, const_lengths, jaxprs):
    """Batch all four jaxprs alike: x and b must be batched in the same parts for every
    one of them (x is what solve and vecmat return, b what matvec and transpose_solve
    return), so which are batched is grown to a fixed point, as in JAX."""
    size = batching.axis_size_of(vals, dims)
    consts_bat, b_bat_orig = _split_consts([d is not batching.not_mapped for d in dims],
                                           const_lengths)
    num_x = len(jaxprs.matvec.out_avals)
    num_aux = len(jaxprs.solve.out_avals) - num_x
    b_bat, x_bat = list(b_bat_orig), [False] * (num_x + num_aux)
    while True:
        solve, solve_x_bat = _batched(jaxprs.solve, size, consts_bat.solve + b_bat, x_bat)
        vecmat, vecmat_x_bat = _batched(jaxprs.vecmat, size, consts_bat.vecmat + b_bat, b_bat)
        x_bat_new = list(solve_x_bat) if vecmat is None else [
            a or b for a, b in zip([*vecmat_x_bat, *[True] * num_aux], solve_x_bat)]
        x_part = x_bat_new[:num_x]
        matvec, matvec_b_bat = _batched(jaxprs.matvec, size, consts_bat.matvec + x_part, b_bat)
        tr_solve, tr_b_bat = _batched(jaxprs.transpose_solve, size,
                                      consts_bat.transpose_solve + x_part, x_bat_new)
        tr_b_bat = matvec_b_bat if tr_solve is None else tr_b_bat[:num_x]
        b_bat_new = [a or b or c for a, b, c in zip(matvec_b_bat, tr_b_bat, b_bat_orig)]
        if x_bat_new == x_bat and b_bat_new == b_bat:
            break
        x_bat, b_bat = x_bat_new, b_bat_new
    consts_dims, b_dims = _split_consts(dims, const_lengths)
    consts_vals, b_vals = _split_consts(vals, const_lengths)
    new_consts = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
                  for x, d in zip(_flat(consts_vals), _flat(consts_dims))]
    new_b = [batching.move_batch_axis(size, d, 0, x) if batched else x
             for x, d, batched in zip(b_vals, b_dims, b_bat)]
    outs = linear_solve_p.bind(*new_consts, *new_b, const_lengths=const_lengths,
                               jaxprs=_LinearSolveTuple(matvec, vecmat, solve, tr_solve))
    return outs, [0 if batched else batching.not_mapped for batched in solve_x_bat]


linear_solve_p.def_batching(_linear_solve_batching)


# ----------------------------------------------------------------------------- lowering

def _linear_solve_lowering(ctx, *args, const_lengths, jaxprs):
    """``solve``'s ops, inline (JAX lowers the impl)."""
    consts, b = _split_consts(args, const_lengths)
    return lower_closed_jaxpr(ctx.module_context, jaxprs.solve, [*consts.solve, *b])


register_lowering(linear_solve_p, _linear_solve_lowering)


# ----------------------------------------------------------------------------- custom_root

class _RootTuple(NamedTuple):
    f: Any
    solve: Any
    l_and_s: Any


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """``solve(f, initial_guess)``, a root of ``f``, differentiated implicitly in the values
    ``f`` closes over: ``tangent_solve(g, y)`` solves ``g(x) = y`` for ``g`` the linear map
    of ``f`` at the root (``lambda g, y: y / g(1.0)`` for a scalar)."""
    core.check_callable('custom_root', f=f, solve=solve, tangent_solve=tangent_solve)
    from minijax.autodiff import linearize  # the layer above: differentiation's API
    guess_flat, tree = tree_util.tree_flatten(initial_guess)
    avals = [core.shaped_aval(x) for x in guess_flat]
    args_tree = tree_util.tuple_treedef(tree)
    f_jaxpr, f_consts, f_tree = trace_function(f, args_tree, avals)
    _check_tree('f', 'initial_guess', f_tree, tree)
    solve_jaxpr, solve_consts, solution_tree = trace_function(
        functools.partial(solve, f), args_tree, avals)
    _check_tree('solve', 'initial_guess', solution_tree, tree, has_aux)

    def linearize_and_solve(x, b):
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, b)

    l_and_s_jaxpr, l_and_s_consts, l_and_s_tree = trace_function(
        linearize_and_solve, tree_util.tuple_treedef(tree, tree), avals + avals)
    _check_tree('tangent_solve', 'x', l_and_s_tree, tree)
    consts = _RootTuple(f_consts, solve_consts, l_and_s_consts)
    outs = _custom_root_fn()(_RootTuple(*map(len, consts)),
                             _RootTuple(f_jaxpr, solve_jaxpr, l_and_s_jaxpr),
                             *_flat(consts), *guess_flat)
    return tree_util.tree_unflatten(solution_tree, outs)


def _custom_root(const_lengths, jaxprs, *args):
    consts, guess = _split_consts(args, const_lengths)
    return eval_closed_jaxpr(jaxprs.solve, [*consts.solve, *guess])


def _root_jvp(const_lengths, jaxprs, primals, tangents):
    """The implicit function theorem, at the solution."""
    consts, _ = _split_consts(primals, const_lengths)
    consts_dot, _ = _split_consts(tangents, const_lengths)
    solution, aux = core.split_list(_custom_root_fn()(const_lengths, jaxprs, *primals),
                                    len(jaxprs.f.out_avals))
    _, rhs = ad.jvp_flat(lambda *c: eval_closed_jaxpr(jaxprs.f, [*c, *solution]),
                         consts.f, consts_dot.f)
    solved = eval_closed_jaxpr(jaxprs.l_and_s,
                               [*consts.l_and_s, *solution, *map(ad.instantiate, rhs)])
    return [*solution, *aux], [*map(lax.neg, solved), *map(ad.zeros_like_aval,
                                                           map(core.get_aval, aux))]


@functools.cache
def _custom_root_fn():
    """``_custom_root`` as a ``custom_jvp`` function with the rule ``_root_jvp`` (made on
    first use: ``custom_jvp`` is in the layer above)."""
    from minijax.custom_derivatives import custom_jvp
    fn = custom_jvp(_custom_root, nondiff_argnums=(0, 1))
    fn.defjvp(_root_jvp)
    return fn
