"""Tokens: values with no data that order side effects in XLA (``create_token``, and
``after_all``, which joins tokens into one that comes after them all).

A token's type is ``core.abstract_token`` (printed ``Tok``), lowered to ``!stablehlo.token``;
jit returns a ``core.Token`` for it, as JAX returns its ``Token``. Nothing in a token can be
differentiated or batched, so neither primitive has a jvp or a vmap rule (JAX's have none).
"""
from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core
from minijax.core import Primitive
from minijax.lowering import register_lowering

create_token_p = Primitive('create_token')
after_all_p = Primitive('after_all')


def create_token(_=None):
    """A new token, after nothing. The argument is ignored (JAX keeps it for programs that
    passed one)."""
    return create_token_p.bind()


def after_all(*operands):
    """A token that comes after each of the tokens ``operands``."""
    return after_all_p.bind(*operands)


def _after_all_abstract_eval(*operands):
    if any(x is not core.abstract_token for x in operands):  # (JAX's text)
        raise TypeError('Arguments to after_all must be tokens, got '
                        f'{", ".join(x.str_short() for x in operands)}')
    return core.abstract_token


create_token_p.def_impl(lambda: core.Token())
create_token_p.def_abstract_eval(lambda: core.abstract_token)
register_lowering(create_token_p, lambda ctx: hlo.CreateTokenOp().result)
after_all_p.def_impl(lambda *tokens: core.Token())
after_all_p.def_abstract_eval(_after_all_abstract_eval)
register_lowering(after_all_p, lambda ctx, *tokens: hlo.AfterAllOp(list(tokens)).result)
