"""Eager evaluation checks types before it computes.

An implementation runs NumPy, whose errors ("operands could not be broadcast ...") say nothing
about minijax's rules. Running the abstract-eval rule first makes a bad eager call fail with
the same message, naming the shapes and dtypes, as a bad call under ``jit``.
"""
from minijax import core


def def_checked_impl(prim, impl):
    """Make ``impl`` the implementation of ``prim``, preceded by its abstract-eval check."""
    def checked(*args, **params):
        prim.abstract_eval(*(core.get_aval(a) for a in args), **params)
        return impl(*args, **params)

    prim.def_impl(checked)
    return impl
