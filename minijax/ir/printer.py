"""The jaxpr printer, in the format of the Autodidax seed:

    { lambda a:float64[] .
      let b:float64[] = mul 2.0 a
      in ( b ) }

Constvars come first, separated from the inputs by ``;``. Parameters that are jaxprs
(``xla_call``, ``cond``, loops) are printed indented under their equation.
"""
from __future__ import annotations

import itertools
import string
from collections import defaultdict

import numpy as np

from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var


class PPrint:
    """Lines with indentation, composed with ``+`` (stack) and ``>>`` (join beside)."""

    def __init__(self, lines):
        self.lines = lines

    def indent(self, n):
        return PPrint([(n + i, s) for i, s in self.lines])

    def __add__(self, rhs):
        return PPrint(self.lines + rhs.lines)

    def __rshift__(self, rhs):
        if not rhs.lines:
            return self
        if not self.lines:
            return rhs
        indent, s = self.lines[-1]
        block = rhs.indent(indent + len(s))
        joined = s + ' ' * rhs.lines[0][0] + rhs.lines[0][1]
        return PPrint(self.lines[:-1] + [(indent, joined)] + block.lines[1:])

    def __str__(self):
        return '\n'.join(' ' * i + s for i, s in self.lines)


def pp(s) -> PPrint:
    return PPrint([(0, line) for line in str(s).splitlines()])


def vcat(ps) -> PPrint:
    return sum(ps, PPrint([]))


def _names():
    for r in itertools.count(1):
        for chars in itertools.permutations(string.ascii_lowercase, r):
            yield ''.join(chars)


def pp_jaxpr(jaxpr: Jaxpr) -> PPrint:
    names: defaultdict[Var, str] = defaultdict(_names().__next__)
    binders = ' '.join(_var_str(names, v) for v in jaxpr.constvars)
    if jaxpr.constvars:
        binders += ' ;'
    binders = ' '.join(filter(None, [binders, *(_var_str(names, v) for v in jaxpr.invars)]))
    eqns = vcat([_pp_eqn(names, e) for e in jaxpr.eqns])
    outs = ', '.join(_atom_str(names, x) for x in jaxpr.outs)
    return pp(f'{{ lambda {binders} .') + ((pp('let ') >> eqns) + pp(f'in ( {outs} ) }}')).indent(2)


def _var_str(names, v):
    return f'{names[v]}:{v.aval.str_short()}'


def _atom_str(names, x):
    return names[x] if isinstance(x, Var) else str(x.val)


def _is_jaxpr(value):
    return isinstance(value, (Jaxpr, ClosedJaxpr))


def _sub_jaxprs(value):
    if _is_jaxpr(value):
        return [value]
    if isinstance(value, tuple) and value and all(map(_is_jaxpr, value)):
        return list(value)
    return []


def _pp_eqn(names, eqn: JaxprEqn) -> PPrint:
    sub_jaxprs = {k: _sub_jaxprs(v) for k, v in eqn.params.items()}
    plain = {k: v for k, v in eqn.params.items() if not sub_jaxprs[k]}
    lhs = pp(' '.join(_var_str(names, v) for v in eqn.out_binders))
    rhs = (pp(eqn.primitive.name) >> _pp_params(plain) >>
           pp(' '.join(_atom_str(names, x) for x in eqn.inputs)))
    subs = [pp(f'{k}[{i}]=' if isinstance(eqn.params[k], tuple) else f'{k}=') +
            pp_jaxpr(getattr(j, 'jaxpr', j)).indent(2)
            for k, js in sorted(sub_jaxprs.items()) for i, j in enumerate(js)]
    return vcat([lhs >> pp(' = ') >> rhs, *(s.indent(2) for s in subs)])


def _pp_params(params) -> PPrint:
    if not params:
        return pp(' ')
    # As the seed's pp_params: one parameter per line, aligned after ' [ '.
    items = vcat([pp(f'{k}={_param_str(v)}') for k, v in sorted(params.items())])
    return pp(' [ ') >> items >> pp(' ] ')


def _param_str(v):
    return v.name if isinstance(v, np.dtype) else str(v)
