"""Reverse mode and the derived transformations built on ``jvp``, ``vjp`` and ``vmap``.

``linearize`` partially evaluates the JVP with known primals and unknown tangents, leaving a
linear jaxpr from input tangents to output tangents. ``vjp`` transposes that jaxpr;
``grad`` is ``vjp`` with a cotangent of 1 for a scalar output. The forward values are
computed once, in Python, and the linear jaxpr only refers to them as residuals, so reverse
mode costs a constant factor of the forward pass.

``jacfwd`` and ``jacrev`` are ``vmap`` of ``jvp`` over a basis of the inputs and ``vmap`` of a
``vjp`` over a basis of the outputs: one column, or one row, per basis vector, all computed
in one batched program. ``hessian`` is ``jacfwd(jacrev(f))``.
"""
from __future__ import annotations

import functools

import numpy as np

from minijax import core, dtypes, lax, tree_util
from minijax.array import host_array, scalar
from minijax.interpreters import jvp as ad
from minijax.interpreters.batching import vmap
from minijax.interpreters.jvp import (has_tangent, instantiate, jvp_flat, tangent_type,
                                      type_text, zero_tangent)
from minijax.interpreters.partial_eval import PartialEvalTracer, PartialVal, partial_eval_flat
from minijax.interpreters.transpose import UndefinedPrimal, backward_pass, instantiate_cts
from minijax.ir.jaxpr import eval_jaxpr
from minijax.ir.tracing import abstractify_args, trace_to_jaxpr
from minijax.lax.reshard import reshard

__all__ = ['fwd_and_bwd', 'grad', 'hessian', 'jacfwd', 'jacobian', 'jacrev', 'jvp',
           'linear_transpose', 'linearize', 'value_and_grad', 'vjp']


def _linearize_flat(f, primals):
    """Primal outputs, and the linear jaxpr (with consts) from the tangents of the inputs
    that have them (``has_tangent``) to those of the outputs that have them."""
    n = len(primals)
    avals_in = [core.shaped_aval(p) for p in primals]
    pvals_in = ([PartialVal.known(p) for p in primals] +
                [PartialVal.unknown(a) for a in avals_in if has_tangent(a)])
    num_primals_out = []

    def f_jvp(*primals_and_tangents):
        staged = iter(primals_and_tangents[n:])
        tangents = [next(staged) if has_tangent(a) else ad.Zero(a) for a in avals_in]
        primals_out, tangents_out = jvp_flat(f, primals_and_tangents[:n], tangents,
                                             staged_by=core.trace_stack[-1])
        num_primals_out.append(len(primals_out))
        return [*primals_out, *(instantiate(t) for t, p in zip(tangents_out, primals_out)
                                if has_tangent(core.get_aval(p)))]

    # Tangent outputs are always staged; primal outputs stay known.
    jaxpr, pvals_out, consts = partial_eval_flat(
        f_jvp, pvals_in,
        instantiate=lambda k: [False] * num_primals_out[0] + [True] * (k - num_primals_out[0]))
    primal_pvals = pvals_out[:num_primals_out[0]]
    if not all(pv.is_known for pv in primal_pvals):
        raise ValueError('Linearization failed to produce known values for all output primals. '
                         'This is typically caused by attempting to differentiate a function '
                         'uses an operation that does not support reverse-mode autodiff.')
    return [pv.const for pv in primal_pvals], jaxpr, consts, avals_in


def _flatten_args(what, f, primals):
    primals_flat, in_tree = tree_util.tree_flatten(tuple(primals))
    for i, p in enumerate(primals_flat):
        if not core.is_valid_value(p):
            raise TypeError(f'{what}: primal {i}: {core.invalid_type_error(p)}')
    f_flat, out_tree = tree_util.flatten_fun(f, in_tree)
    return primals_flat, in_tree, f_flat, out_tree



# ----------------------------------------------------------------------------- auxiliary outputs

def _with_aux(what, f, has_aux):
    """``(function the transformation sees, getter of the aux values)`` for ``has_aux``.

    ``f`` returns ``(output, aux)``; only ``output`` is differentiated. ``aux`` leaves the
    transformation as plain values: the tracers of the transformations started after this
    call (those at or above the current level) are peeled off down to their primals.
    """
    if not has_aux:
        return f, None
    base_level = len(core.trace_stack)
    aux_cell = []

    def f_without_aux(*args, **kwargs):
        out = f(*args, **kwargs)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f'{what}(has_aux=True): expected the function to return a '
                            f'two-element tuple (output, aux), but it returned a value of type '
                            f'{type(out).__name__}')
        aux_cell[:] = [out[1]]
        return out[0]

    def aux():
        return tree_util.tree_map(functools.partial(_primal_below, base_level), aux_cell[0])

    return f_without_aux, aux


#: How to step from a tracer to the value it carries for the computation it differentiates.
_PRIMAL_OF = {ad.JVPTracer: lambda t: t.primal, PartialEvalTracer: lambda t: t.pval.const}


def _primal_below(level, x):
    while isinstance(x, core.Tracer) and x._trace.main.level >= level and \
            type(x) in _PRIMAL_OF:
        x = _PRIMAL_OF[type(x)](x)
    return x


def _with_aux_result(results, aux):
    return (*results, aux()) if aux is not None else results


# ----------------------------------------------------------------------------- jvp, linearize, vjp

def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode derivative: ``(f(*primals), df(primals) . tangents)`` as pytrees; with
    ``has_aux``, ``fun`` returns ``(output, aux)`` and ``aux`` comes third."""
    core.check_callable('jvp', fun=fun)
    f_main, aux = _with_aux('jvp', fun, has_aux)
    return _with_aux_result(ad.jvp(f_main, primals, tangents), aux)


def linearize(fun, *primals, has_aux=False):
    """``(f(*primals), f_lin)`` where ``f_lin(*tangents)`` is the JVP at ``primals`` (and
    ``aux`` third with ``has_aux``)."""
    core.check_callable('linearize', fun=fun)
    f_main, aux = _with_aux('linearize', fun, has_aux)
    primals_flat, in_tree, f_flat, out_tree = _flatten_args('linearize', f_main, primals)
    primals_out, jaxpr, consts, avals_in = _linearize_flat(f_flat, primals_flat)
    out_tree = out_tree()
    avals_out = [core.shaped_aval(x) for x in primals_out]

    def f_lin(*tangents):
        tangents_flat, tangents_tree = tree_util.tree_flatten(tuple(tangents))
        if tangents_tree != in_tree:
            raise TypeError(f'linearized function expects tangents shaped like {in_tree}, '
                            f'got {tangents_tree}')
        _check_types('linearized function: tangent', tangents_flat, avals_in)
        outs = iter(eval_jaxpr(jaxpr, consts, [t for t, a in zip(tangents_flat, avals_in)
                                               if has_tangent(a)]))
        return tree_util.tree_unflatten(out_tree, [next(outs) if has_tangent(a) else
                                                   zero_tangent(a) for a in avals_out])

    return _with_aux_result((tree_util.tree_unflatten(out_tree, primals_out), f_lin), aux)


def vjp(fun, *primals, has_aux=False, reduce_axes=()):
    """``(f(*primals), f_vjp)`` where ``f_vjp(cotangent)`` pulls a cotangent back to a tuple
    of input cotangents (and ``aux`` third with ``has_aux``). An integer, bool or key input's
    cotangent is zeros (``zero_tangent``); an integer output's cotangent is not looked at.

    ``f_vjp`` is a ``Partial`` whose children are the residuals, as JAX's, so it crosses a
    ``jit`` boundary (``fwd_and_bwd``)."""
    core.check_callable('vjp', fun=fun)
    _no_reduce_axes('vjp', reduce_axes)
    f_main, aux = _with_aux('vjp', fun, has_aux)
    primals_flat, in_tree, f_flat, out_tree = _flatten_args('vjp', f_main, primals)
    primals_out, jaxpr, consts, avals_in = _linearize_flat(f_flat, primals_flat)
    out_tree = out_tree()
    out_avals = [core.shaped_aval(x) for x in primals_out]
    def pullback(residuals, cotangent):  # (a closure: Partial would merge a partial's args)
        return _pullback(jaxpr, in_tree, out_tree, avals_in, out_avals, residuals, cotangent)

    return _with_aux_result((tree_util.tree_unflatten(out_tree, primals_out),
                             tree_util.Partial(pullback, list(consts))), aux)


def _pullback(jaxpr, in_tree, out_tree, avals_in, out_avals, consts, cotangent):
    """The cotangents of ``vjp``'s inputs for its output's ``cotangent``: the linear
    ``jaxpr`` (with its residuals ``consts``) transposed."""
    cts_flat, ct_tree = tree_util.tree_flatten(cotangent)
    if ct_tree != out_tree:
        raise ValueError(f'vjp function expects a cotangent shaped like {out_tree}, '
                         f'got {ct_tree}')
    staged = [(ct, a) for ct, a in zip(cts_flat, out_avals) if has_tangent(a)]
    _check_types('vjp function: cotangent', *map(list, zip(*staged)) if staged else ([], []))
    staged_in = [a for a in avals_in if has_tangent(a)]
    cts_in = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in staged_in],
                           [ct for ct, _ in staged])
    cts_in = iter(instantiate_cts(cts_in, staged_in))
    return tree_util.tree_unflatten(in_tree, [next(cts_in) if has_tangent(a) else
                                              zero_tangent(a) for a in avals_in])


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """``(fwd, bwd)``: ``fwd(*args)`` is ``vjp`` of ``fun`` in the arguments ``argnums``
    picks, ``(output, f_vjp)`` (and ``aux``), and ``bwd(f_vjp, cotangent)`` applies the
    pullback (one cotangent for an int ``argnums``). Jitted (the default), each compiles
    once for its types, where ``jit(f_vjp)`` would trace again for every new ``f_vjp``."""
    core.check_callable('fwd_and_bwd', fun=fun)
    from minijax.jit import jit

    def fwd(*args):
        nums = _argnums('fwd_and_bwd', argnums, len(args))
        f_partial, diff_args = _partial_over(fun, nums, args, {})
        return vjp(f_partial, *diff_args, has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        cts = f_vjp(outgrad)
        return cts[0] if isinstance(argnums, int) else cts

    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of ``fun``, promised linear, at the types of ``primals`` (arrays,
    scalars or ``ShapeDtypeStruct``, in pytrees): a function from a cotangent of ``fun``'s
    output to a tuple of ``primals``' cotangents, computed without ``fun``'s forward pass.
    Inputs and outputs are all inexact, or all integers (JAX's TypeError otherwise)."""
    core.check_callable('linear_transpose', fun=fun)
    _no_reduce_axes('transpose', reduce_axes)
    avals, in_tree, _ = abstractify_args('linear_transpose', primals)
    flat_fun, out_tree = tree_util.flatten_fun(fun, in_tree)
    closed, closed_over = trace_to_jaxpr(lambda *xs: flat_fun(*xs), avals)
    if closed_over:
        raise core.UnexpectedTracerError('linear_transpose: the function closes over a '
                                         'traced value; pass it as an argument')
    in_dtypes = [a.dtype for a in avals]
    out_dtypes = [a.dtype for a in closed.out_avals]
    if not (all(dtypes.is_inexact(d) for d in in_dtypes + out_dtypes) or
            all(np.issubdtype(d, np.integer) for d in in_dtypes + out_dtypes)):
        raise TypeError('linear_transpose only supports [float or complex] -> [float or '
                        'complex], and integer -> integer functions, but got '
                        f'{in_dtypes} -> {out_dtypes}.')
    out_tree = out_tree()

    def transposed(consts, out_cotangent):
        return _transposed(closed.jaxpr, in_tree, out_tree, avals, closed.out_avals, consts,
                           out_cotangent)

    return tree_util.Partial(transposed, list(closed.consts))


def _transposed(jaxpr, in_tree, out_tree, in_avals, out_avals, consts, out_cotangent):
    cts, ct_tree = tree_util.tree_flatten(out_cotangent)
    if ct_tree != out_tree:
        raise TypeError('cotangent tree does not match function output, expected '
                        f'{out_tree} but got {ct_tree}')
    if not all((core.shaped_aval(ct).shape, core.shaped_aval(ct).dtype) == (a.shape, a.dtype)
               for ct, a in zip(cts, out_avals)):
        raise TypeError('cotangent type does not match function output, expected '
                        f'{[a.str_short() for a in out_avals]} but got '
                        f'{[core.shaped_aval(ct).str_short() for ct in cts]}')
    cts_in = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in in_avals], cts)
    return tree_util.tree_unflatten(in_tree, instantiate_cts(cts_in, in_avals))


def _check_types(what, values, avals):
    """A cotangent (tangent) has its output's (input's) shape and tangent dtype (``float0``
    for an integer, bool or key value), a Python scalar's dtype too; else JAX's ValueError."""
    for i, (x, aval) in enumerate(zip(values, avals, strict=True)):
        given = tangent_type(x)
        expected = (aval.shape, aval.dtype if has_tangent(aval) else dtypes.float0)
        if given != expected:
            raise ValueError(f'{what} {i} has type {type_text(*given)}, expected '
                             f'{type_text(*expected)}')


# ----------------------------------------------------------------------------- argnums

def _name(f):
    return getattr(f, '__name__', 'function')


#: JAX's exception for an argnums past the last positional argument: grad finds too few
#: arguments in the call (TypeError), the Jacobians an index out of range (ValueError).
_PAST_THE_END = {'grad': TypeError}


def _argnums(what, argnums, nargs, past_the_end=ValueError):
    """``argnums`` (an int or a sequence of ints) as distinct positions in ``range(nargs)``."""
    nums = tuple(argnums) if isinstance(argnums, (tuple, list)) else (argnums,)
    if not nums:
        raise ValueError(f'{what}: argnums {argnums!r} names no argument to differentiate')
    for i in nums:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f'{what}: argnums must be an int or a tuple of ints, got '
                            f'{argnums!r}')
        if not -nargs <= i < nargs:
            error = past_the_end if i >= nargs else ValueError
            raise error(f'{what}: argnums {argnums} out of range for '
                        f'{nargs} positional arguments')
    nums = tuple(int(i) % nargs for i in nums)
    if len(set(nums)) != len(nums):
        raise ValueError(f'{what}: argnums {argnums} names an argument more than once')
    return nums


#: JAX's error for an integer or bool input, in reverse mode and in forward mode.
_REVERSE_INPUT_ERROR = (
    '{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of '
    'np.inexact), but got {dtype}. If you want to use Boolean- or integer-valued inputs, use '
    'vjp or set allow_int to True.')
_FORWARD_INPUT_ERROR = (
    '{name} requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but '
    'got {dtype}. For holomorphic differentiation, pass holomorphic=True. For differentiation '
    'of non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp '
    'directly.')


def _differentiated(what, f, argnums, args, kwargs, inputs, allow_int=False):
    """``f`` as a function of the arguments ``argnums`` picks (the others and ``kwargs``
    fixed), and those arguments, whose leaves must be of the kinds ``inputs`` allows (see
    ``_check_input_leaves``), or integers too with ``allow_int``."""
    nums = _argnums(what, argnums, len(args), _PAST_THE_END.get(inputs[0], ValueError))
    f_partial, diff_args = _partial_over(f, nums, args, kwargs)
    _check_input_leaves(diff_args, inputs, allow_int)
    return f_partial, diff_args


def _partial_over(f, nums, args, kwargs):
    """``f`` as a function of the arguments at ``nums`` only (the others, and the keyword
    arguments, fixed), and the values of those arguments."""
    def f_of_diff_args(*diff_args):
        full = list(args)
        for i, x in zip(nums, diff_args):
            full[i] = x
        return f(*full, **kwargs)

    return f_of_diff_args, tuple(args[i] for i in nums)


def _inputs(transformation, holomorphic, real_kinds='f'):
    """What the differentiated inputs may be: ``(transformation, kinds)``, kinds as in
    ``dtypes.kind``. grad and jacrev take complex inputs too (``real_kinds='fc'``), jacfwd
    only real ones, and a holomorphic function only complex ones."""
    return transformation, 'c' if holomorphic else real_kinds


def _check_input_leaves(args, inputs, allow_int):
    """Differentiating with respect to an integer or bool input is a mistake (its gradient
    would be a silent zero): refuse it, as JAX does, with JAX's text; so is a real input of
    a holomorphic function, or a complex input of jacfwd."""
    transformation, kinds = inputs
    for leaf in tree_util.tree_leaves(args):
        dtype = core.get_aval(leaf).dtype if core.is_valid_value(leaf) else None
        if dtype is None or (not dtypes.is_key(dtype) and dtypes.kind(dtype) in kinds):
            continue
        if dtypes.is_key(dtype) and not allow_int:
            raise TypeError(_REVERSE_INPUT_ERROR.format(name=transformation, dtype=dtype.name))
        if kinds == 'c':
            raise TypeError(f'{transformation} with holomorphic=True requires inputs with '
                            f'complex dtype, but got {dtype.name}.')
        if allow_int and (dtypes.is_key(dtype) or not dtypes.is_complex(dtype)):
            continue  # its gradient: zeros (zero_tangent)
        error = _REVERSE_INPUT_ERROR if 'c' in kinds else _FORWARD_INPUT_ERROR
        raise TypeError(error.format(name=transformation, dtype=dtype.name))


def _check_scalar_output(out, holomorphic):
    """``grad`` differentiates a scalar, real unless ``holomorphic``: JAX's errors for
    another output."""
    if not core.is_valid_value(out):
        raise TypeError(f'Gradient only defined for scalar-output functions. Output was '
                        f'{out!r} of type {type(out).__name__}.')
    aval = core.get_aval(out)
    if aval.shape != ():
        raise TypeError(f'Gradient only defined for scalar-output functions. Output had '
                        f'shape: {aval.shape}.')
    _check_output_dtype('grad', aval.dtype, holomorphic)


def _check_output_dtype(transformation, dtype, holomorphic):
    """A holomorphic function's output must be complex; any other's must be real floating
    point (the derivative of a complex output is not a linear map over the reals, that of an
    integer one is zero): JAX's errors."""
    if holomorphic and not dtypes.is_complex(dtype):
        raise TypeError(f'{transformation} with holomorphic=True requires outputs with complex '
                        f'dtype, but got {dtype.name}.')
    if not holomorphic and dtypes.is_complex(dtype):
        raise TypeError(f'{transformation} requires real-valued outputs (output dtype that is '
                        f'a sub-dtype of np.floating), but got {dtype.name}. '
                        'For holomorphic differentiation, pass holomorphic=True. '
                        'For differentiation of non-holomorphic functions involving complex '
                        'outputs, use jax.vjp directly.')
    if not dtypes.is_inexact(dtype):
        raise TypeError(f'{transformation} requires real-valued outputs (output dtype that is '
                        f'a sub-dtype of np.floating), but got {dtype.name}. For '
                        'differentiation of functions with integer outputs, use jax.vjp '
                        'directly.')


# ----------------------------------------------------------------------------- grad

def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """A function returning ``(f(*args), gradient of f at args[argnums])``.

    ``fun`` must return a scalar float; ``argnums`` is an int or a tuple of ints (then the
    gradient is a tuple). With ``has_aux``, ``fun`` returns ``(value, aux)`` and the result is
    ``((value, aux), gradient)``. Keyword arguments are passed through, not differentiated.
    The gradient is the VJP with cotangent 1, as in JAX: for a real ``fun`` of complex ``z``
    that is ``df/dx - i df/dy``; with ``holomorphic``, ``fun`` maps complex to complex and the
    gradient is its complex derivative ``f'(z)``. ``allow_int`` lets integer, bool and key
    inputs through: their gradient is zeros (``zero_tangent``; JAX's ``float0``).
    """
    core.check_callable('value_and_grad', fun=fun)
    _no_reduce_axes('grad', reduce_axes)
    what = f'grad({_name(fun)})'
    allowed = _inputs('grad', holomorphic, real_kinds='fc')

    def value_and_grad_f(*args, **kwargs):
        f_partial, diff_args = _differentiated(what, fun, argnums, args, kwargs, allowed,
                                               allow_int)
        out, f_vjp, *aux = vjp(f_partial, *diff_args, has_aux=has_aux)
        _check_scalar_output(out, holomorphic)
        out_aval = core.get_aval(out)
        seed = scalar(1, out_aval.dtype, out_aval.weak_type)
        if out_aval._sharding is not None and isinstance(out, core.Tracer):
            # (traced over a mesh: the seed typed as the output, as JAX's)
            seed = reshard(seed, out_aval._sharding)
        grads = f_vjp(seed)
        value = (out, aux[0]) if has_aux else out
        return value, (grads[0] if isinstance(argnums, int) else grads)

    return core.named_after(fun, value_and_grad_f)


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued ``fun`` with respect to argument(s) ``argnums``; with
    ``has_aux``, ``(gradient, aux)``; ``holomorphic``: see ``value_and_grad``."""
    core.check_callable('grad', fun=fun)
    value_and_grad_f = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int,
                                      reduce_axes)

    def grad_f(*args, **kwargs):
        value, g = value_and_grad_f(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return core.named_after(fun, grad_f)


def _no_reduce_axes(what, reduce_axes):
    """JAX keeps ``reduce_axes`` in the signatures of grad and vjp only to reject it."""
    if reduce_axes:
        raise NotImplementedError(f'reduce_axes argument to {what} is deprecated')


# ----------------------------------------------------------------------------- Jacobians

def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of ``fun`` by forward mode: ``vmap`` of ``jvp`` over a basis of the inputs.

    Its structure is the output's, each leaf holding the input's structure (a tuple of them
    when ``argnums`` is a tuple); the leaf for output ``y`` and input ``x`` has shape
    ``y.shape + x.shape``. Columns cost one JVP each: best when inputs are few. With
    ``holomorphic``, inputs and outputs are complex and the Jacobian is complex.
    """
    core.check_callable('jacfwd', fun=fun)
    what = f'jacfwd({_name(fun)})'
    allowed = _inputs('jacfwd', holomorphic)

    def jacfun(*args, **kwargs):
        f_partial, diff_args = _differentiated(what, fun, argnums, args, kwargs, allowed)

        def push_forward(tangents):  # the output tangents (and aux); the output is not needed
            return jvp(f_partial, diff_args, tangents, has_aux=has_aux)[1:]

        out_axes = (-1, None) if has_aux else (-1,)
        columns, *aux = vmap(push_forward, out_axes=out_axes)(_std_basis(diff_args))
        if holomorphic:
            for leaf in tree_util.tree_leaves(columns):
                _check_output_dtype('jacfwd', core.get_aval(leaf).dtype, holomorphic)
        inputs = _selected(argnums, diff_args)
        jac = tree_util.tree_map(functools.partial(_split_columns, inputs), columns)
        return (jac, aux[0]) if has_aux else jac

    return core.named_after(fun, jacfun)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of ``fun`` by reverse mode: ``vmap`` of a ``vjp`` over a basis of the
    outputs. The same structure as ``jacfwd``; rows cost one VJP each: best when outputs are
    few."""
    core.check_callable('jacrev', fun=fun)
    what = f'jacrev({_name(fun)})'
    allowed = _inputs('jacrev', holomorphic, real_kinds='fc')

    def jacfun(*args, **kwargs):
        f_partial, diff_args = _differentiated(what, fun, argnums, args, kwargs, allowed,
                                               allow_int)
        y, pullback, *aux = vjp(f_partial, *diff_args, has_aux=has_aux)
        _check_float_outputs(y, holomorphic)
        rows = _selected(argnums, vmap(pullback)(_std_basis(y)))
        jac = _split_rows(y, rows)
        return (jac, aux[0]) if has_aux else jac

    return core.named_after(fun, jacfun)


jacobian = jacrev


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(f))``, forward over reverse, the cheap
    order for a scalar output (one reverse pass per forward basis vector)."""
    core.check_callable('hessian', fun=fun)
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def _selected(argnums, diff_values):
    """A single argument's value for an int ``argnums``, the tuple for a tuple of them."""
    return diff_values[0] if isinstance(argnums, int) else diff_values


def _check_float_outputs(y, holomorphic):
    for leaf in tree_util.tree_leaves(y):
        _check_output_dtype('jacrev', core.get_aval(leaf).dtype, holomorphic)


def _std_basis(tree):
    """The standard basis of the space of ``tree``'s leaves, as ``tree`` with a leading axis:
    entry k of every leaf is the k-th unit vector of the flattened leaves (in each leaf's
    own dtype and weak type, so that every tangent has its primal's type)."""
    leaves, treedef = tree_util.tree_flatten(tree)
    avals = [core.get_aval(x) for x in leaves]
    total = sum(a.size for a in avals)
    basis, offset = [], 0
    for aval in avals:
        block = np.zeros((total, aval.size), aval.dtype)
        block[offset + np.arange(aval.size), np.arange(aval.size)] = 1
        basis.append(host_array(block.reshape((total, *aval.shape)), aval.weak_type))
        offset += aval.size
    return tree_util.tree_unflatten(treedef, basis)


def _leaf_spans(tree):
    """Each leaf's (offset, size, shape) in the flattened leaves of ``tree``."""
    spans, offset = [], 0
    for leaf in tree_util.tree_leaves(tree):
        aval = core.get_aval(leaf)
        spans.append((offset, aval.size, aval.shape))
        offset += aval.size
    return spans


def _split_columns(inputs, columns):
    """An output's Jacobian columns (``y.shape + (n,)``) as the structure of ``inputs``, each
    leaf of shape ``y.shape + x.shape``."""
    out_shape = core.get_aval(columns).shape[:-1]
    pieces = [lax.reshape(lax.slice_in_dim(columns, offset, offset + size, axis=len(out_shape)),
                          (*out_shape, *shape))
              for offset, size, shape in _leaf_spans(inputs)]
    return tree_util.tree_unflatten(tree_util.tree_structure(inputs), pieces)


def _split_rows(y, rows):
    """Rows (every input leaf with a leading axis over all output elements) as the structure
    of the output ``y``, each leaf holding the structure of the inputs."""
    def rows_of(offset, size, shape):
        return tree_util.tree_map(
            lambda r: lax.reshape(lax.slice_in_dim(r, offset, offset + size, axis=0),
                                  (*shape, *core.get_aval(r).shape[1:])), rows)

    jac_leaves = [rows_of(*span) for span in _leaf_spans(y)]
    return tree_util.tree_unflatten(tree_util.tree_structure(y), jac_leaves)
