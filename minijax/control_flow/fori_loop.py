"""``fori_loop``: a counted loop, built on ``scan`` when its bounds are Python ints (so it
can be reverse-differentiated) and on ``while_loop`` otherwise, as JAX does."""
from __future__ import annotations

import numpy as np

from minijax import core, lax
from minijax.control_flow.scan import scan
from minijax.control_flow.while_loop import while_loop
from minijax.lax.elementwise import promote_weak_scalars


def fori_loop(lower, upper, body_fun, init_val):
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val); return val``."""
    for name, bound in (('lower', lower), ('upper', upper)):
        aval = core.get_aval(bound)
        if aval.shape != () or not np.issubdtype(aval.dtype, np.integer):
            raise TypeError(f'fori_loop: {name} must be a scalar integer, got '
                            f'{aval.str_short()}')
    if isinstance(lower, int) and isinstance(upper, int):
        def step(carry, _):
            i, val = carry
            return (lax.add(i, 1), body_fun(i, val)), None

        (_, val), _ = scan(step, (lower, init_val), None, length=max(upper - lower, 0))
        return val

    # the counter takes the bounds' dtype (a Python int bound joins the other's)
    lower, upper = promote_weak_scalars('fori_loop', lower, upper)

    def cond(carry):
        i, stop, _ = carry
        return lax.less(i, stop)

    def body(carry):
        i, stop, val = carry
        return lax.add(i, 1), stop, body_fun(i, val)

    return while_loop(cond, body, (lower, upper, init_val))[2]
