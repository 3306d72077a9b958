"""The jaxpr IR: data structures, typechecker, printer, and tracing Python into jaxprs."""
from minijax.ir.jaxpr import (
    Atom, ClosedJaxpr, Jaxpr, JaxprEqn, JaxprType, Lit, Var, eval_closed_jaxpr, eval_jaxpr,
    jaxpr_as_fun, typecheck_jaxpr)
from minijax.ir.printer import pp_jaxpr
from minijax.ir.tracing import make_jaxpr, trace_to_jaxpr

__all__ = ['Atom', 'ClosedJaxpr', 'Jaxpr', 'JaxprEqn', 'JaxprType', 'Lit', 'Var',
           'eval_closed_jaxpr', 'eval_jaxpr', 'jaxpr_as_fun', 'make_jaxpr', 'pp_jaxpr',
           'trace_to_jaxpr', 'typecheck_jaxpr']
