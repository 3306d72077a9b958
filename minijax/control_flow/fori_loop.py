"""``fori_loop``: a counted loop, built on ``scan`` when its bounds are Python ints (so it
can be reverse-differentiated) and on ``while_loop`` otherwise, as JAX does."""
from __future__ import annotations

import numpy as np

from minijax import core, dtypes, lax, tree_util
from minijax.control_flow.scan import scan
from minijax.control_flow.while_loop import while_loop
from minijax.lax.elementwise import promote_weak_scalars


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val); return val``.
    ``unroll`` is ``scan``'s, for static bounds only (as in JAX)."""
    core.check_callable('fori_loop', body_fun=body_fun)
    body_fun = _checked_body(body_fun)
    for name, bound in (('lower', lower), ('upper', upper)):
        aval = core.get_aval(bound)
        if aval.shape != () or not np.issubdtype(aval.dtype, np.integer):
            raise TypeError(f'fori_loop: {name} must be a scalar integer, got '
                            f'{aval.str_short()}')
    if isinstance(lower, int) and isinstance(upper, int):
        def step(carry, _):
            i, val = carry
            return (lax.add(i, 1), body_fun(i, val)), None

        (_, val), _ = scan(step, (lower, init_val), None, length=max(upper - lower, 0),
                           unroll=1 if unroll is None else unroll)
        return val
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError('Can only use `unroll` in `fori_loop` if the loop bounds are '
                         'statically known.')

    # the counter takes the bounds' dtype (a Python int bound joins the other's)
    lower, upper = promote_weak_scalars('fori_loop', lower, upper)
    lower_dtype, upper_dtype = core.get_aval(lower).dtype, core.get_aval(upper).dtype
    if lower_dtype != upper_dtype:
        raise TypeError(f'fori_loop: lower and upper arguments to fori_loop must have equal '
                        f'types, got {lower_dtype.name} and {upper_dtype.name}')

    def cond(carry):
        i, stop, _ = carry
        return lax.less(i, stop)

    def body(carry):
        i, stop, val = carry
        return lax.add(i, 1), stop, body_fun(i, val)

    return while_loop(cond, body, (lower, upper, init_val))[2]


def _checked_body(body_fun):
    """``body_fun`` with its result checked against its carry, so that a mistake is reported
    as fori_loop's, not as one of the scan or while_loop it is built on (whose carry also
    holds the counter). A weakly typed carry may change dtype, as the loops allow."""
    def body(i, val):
        out = body_fun(i, val)
        val_flat, val_tree = tree_util.tree_flatten(val)
        out_flat, out_tree = tree_util.tree_flatten(out)
        if out_tree != val_tree:
            raise TypeError(f'fori_loop: body_fun must return a value shaped like init_val '
                            f'({val_tree}), got {out_tree}')
        for k, (v, o) in enumerate(zip(val_flat, out_flat)):
            given, want = core.get_aval(o), core.get_aval(v)
            if given.shape != want.shape or given.dtype != want.dtype and not (
                    want.weak_type and dtypes.weak_join(given.dtype, want.dtype) is not None):
                raise TypeError(f'fori_loop: body_fun must return the types of init_val, but '
                                f'leaf {k} is {want.str_short()} in the carry and '
                                f'{given.str_short()} in what body_fun returned')
        return out
    return body
