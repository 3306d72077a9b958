"""Reverse mode: ``linearize``, ``vjp``, ``grad`` and ``value_and_grad``.

``linearize`` partially evaluates the JVP with known primals and unknown tangents, leaving a
linear jaxpr from input tangents to output tangents. ``vjp`` transposes that jaxpr;
``grad`` is ``vjp`` with a cotangent of 1 for a scalar output. The forward values are
computed once, in Python, and the linear jaxpr only refers to them as residuals, so reverse
mode costs a constant factor of the forward pass.
"""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes, tree_util
from minijax.interpreters.jvp import instantiate, jvp_flat
from minijax.interpreters.partial_eval import PartialVal, partial_eval_flat
from minijax.interpreters.transpose import UndefinedPrimal, backward_pass, instantiate_cts
from minijax.ir.jaxpr import eval_jaxpr


def _linearize_flat(f, primals):
    """Primal outputs, and the linear jaxpr (with consts) from input to output tangents."""
    n = len(primals)
    tangent_avals = [core.shaped_aval(p) for p in primals]
    pvals_in = ([PartialVal.known(p) for p in primals] +
                [PartialVal.unknown(a) for a in tangent_avals])

    def f_jvp(*primals_and_tangents):
        primals_out, tangents_out = jvp_flat(f, primals_and_tangents[:n],
                                             primals_and_tangents[n:])
        return [*primals_out, *(instantiate(t) for t in tangents_out)]

    # Tangent outputs (the second half) are always staged; primal outputs stay known.
    jaxpr, pvals_out, consts = partial_eval_flat(
        f_jvp, pvals_in, instantiate=lambda n: [False] * (n // 2) + [True] * (n // 2))
    primal_pvals = pvals_out[:len(pvals_out) // 2]
    if not all(pv.is_known for pv in primal_pvals):
        raise TypeError('linearize: a primal output depends on a tangent input')
    return [pv.const for pv in primal_pvals], jaxpr, consts, tangent_avals


def _flatten_args(what, f, primals):
    primals_flat, in_tree = tree_util.tree_flatten(tuple(primals))
    for i, p in enumerate(primals_flat):
        if not core.is_valid_value(p):
            raise TypeError(f'{what}: primal {i}: {core.invalid_type_error(p)}')
    f_flat, out_tree = tree_util.flatten_fun(f, in_tree)
    return primals_flat, in_tree, f_flat, out_tree


def linearize(f, *primals):
    """``(f(*primals), f_lin)`` where ``f_lin(*tangents)`` is the JVP at ``primals``."""
    core.check_callable('linearize', f=f)
    primals_flat, in_tree, f_flat, out_tree = _flatten_args('linearize', f, primals)
    primals_out, jaxpr, consts, tangent_avals = _linearize_flat(f_flat, primals_flat)
    out_tree = out_tree()

    def f_lin(*tangents):
        tangents_flat, tangents_tree = tree_util.tree_flatten(tuple(tangents))
        if tangents_tree != in_tree:
            raise TypeError(f'linearized function expects tangents shaped like {in_tree}, '
                            f'got {tangents_tree}')
        _check_types('linearized function: tangent', tangents_flat, tangent_avals)
        return tree_util.tree_unflatten(out_tree, eval_jaxpr(jaxpr, consts, tangents_flat))

    return tree_util.tree_unflatten(out_tree, primals_out), f_lin


def vjp(f, *primals):
    """``(f(*primals), f_vjp)`` where ``f_vjp(cotangent)`` pulls a cotangent back to inputs."""
    core.check_callable('vjp', f=f)
    primals_flat, in_tree, f_flat, out_tree = _flatten_args('vjp', f, primals)
    primals_out, jaxpr, consts, tangent_avals = _linearize_flat(f_flat, primals_flat)
    out_tree = out_tree()
    out_avals = [core.shaped_aval(x) for x in primals_out]

    def f_vjp(cotangent):
        cts_flat, ct_tree = tree_util.tree_flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError(f'vjp function expects a cotangent shaped like {out_tree}, '
                            f'got {ct_tree}')
        _check_types('vjp function: cotangent', cts_flat, out_avals)
        undefined = [UndefinedPrimal(a) for a in tangent_avals]
        cts_in = backward_pass(jaxpr, consts, undefined, cts_flat)
        return tree_util.tree_unflatten(in_tree, instantiate_cts(cts_in, tangent_avals))

    return tree_util.tree_unflatten(out_tree, primals_out), f_vjp


def _check_types(what, values, avals):
    for i, (x, aval) in enumerate(zip(values, avals, strict=True)):
        given = core.get_aval(x)
        if given.shape != aval.shape or not (given.dtype == aval.dtype or given.weak_type):
            raise TypeError(f'{what} {i} has type {given.str_short()}, expected '
                            f'{aval.str_short()}')


def value_and_grad(f, argnums=0):
    """A function returning ``(f(*args), gradient of f at args[argnums])``.

    ``f`` must return a scalar float; ``argnums`` is an int or a tuple of ints (then the
    gradient is a tuple).
    """
    core.check_callable('value_and_grad', f=f)
    name = getattr(f, '__name__', 'function')

    def value_and_grad_f(*args):
        nums = _argnums(name, argnums, len(args))
        _check_float_inputs(name, nums, args)

        def f_of_diff_args(*diff_args):
            full = list(args)
            for i, x in zip(nums, diff_args):
                full[i] = x
            return f(*full)

        out, f_vjp = vjp(f_of_diff_args, *(args[i] for i in nums))
        out_aval = core.get_aval(out) if core.is_valid_value(out) else None
        if out_aval is None or out_aval.shape != () or not dtypes.is_float(out_aval.dtype):
            what = (f'an output of type {out_aval.str_short()}' if out_aval is not None
                    else f'an output of type {type(out).__name__}')
            raise TypeError(f'grad({name}) needs a scalar float output, but the function '
                            f'returned {what}')
        grads = f_vjp(np.ones((), out_aval.dtype))
        return out, (grads[0] if isinstance(argnums, int) else grads)

    value_and_grad_f.__name__ = f'value_and_grad_{name}'
    return value_and_grad_f


def _argnums(name, argnums, nargs):
    """``argnums`` (an int or a sequence of ints) as distinct positions in ``range(nargs)``."""
    nums = tuple(argnums) if isinstance(argnums, (tuple, list)) else (argnums,)
    for i in nums:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f'grad({name}): argnums must be an int or a tuple of ints, got '
                            f'{argnums!r}')
        if not -nargs <= i < nargs:
            raise ValueError(f'grad({name}): argnums {argnums} out of range for '
                             f'{nargs} positional arguments')
    nums = tuple(int(i) % nargs for i in nums)
    if len(set(nums)) != len(nums):
        raise ValueError(f'grad({name}): argnums {argnums} names an argument more than once')
    return nums


def _check_float_inputs(name, nums, args):
    """Differentiating with respect to an integer or bool input is a mistake (its gradient
    would be a silent zero): refuse it, as JAX does."""
    for i in nums:
        for leaf in tree_util.tree_leaves(args[i]):
            if core.is_valid_value(leaf) and not dtypes.is_float(core.get_aval(leaf).dtype):
                raise TypeError(f'grad({name}) requires real-valued (floating-point) inputs, '
                                f'but argument {i} has dtype {core.get_aval(leaf).dtype.name}. '
                                'If you want to use integer- or bool-valued inputs, use vjp.')


def grad(f, argnums=0):
    """The gradient of scalar-valued ``f`` with respect to argument(s) ``argnums``."""
    core.check_callable('grad', f=f)
    value_and_grad_f = value_and_grad(f, argnums)

    def grad_f(*args):
        return value_and_grad_f(*args)[1]

    grad_f.__name__ = f"grad_{getattr(f, '__name__', 'function')}"
    return grad_f

