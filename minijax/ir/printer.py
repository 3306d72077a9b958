"""The jaxpr printer, in two syntaxes that the caller chooses explicitly.

``syntax='jax'`` (the default; what ``make_jaxpr(f)(*args)`` prints) is JAX 0.10's::

    { lambda ; a:f64[3]. let
        b:f64[3] = sin a
        c:f64[3] = mul b 2.0:f64[]
      in (c,) }

Constvars come before ``;``, dtypes are short, literals carry their type, parameters are
``name[k=v ...]``, outputs nobody reads are ``_``, and a jaxpr that does not fit in 80 columns
is broken over lines the way JAX's pretty printer breaks it (Lindig's algorithm: a group
prints on one line if it fits, else its breaks become newlines). Where a minijax primitive's
name or parameters differ from JAX's, the ``JAX_NAMES`` table says how JAX prints it.

``syntax='autodidax'`` is the Autodidax seed's, which its ``make_jaxpr(f, *avals)`` prints::

    { lambda a:float64[] .
      let b:float64[] = mul 2.0 a
      in ( b ) }
"""
from __future__ import annotations

import itertools
import re
import string
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from minijax import core
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Lit, Var

SYNTAXES = ('jax', 'autodidax')


def pp_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, syntax: str = 'jax', source_info: bool = False) -> str:
    """The text of ``jaxpr`` in ``syntax`` ('jax' or 'autodidax'). With ``source_info``
    (JAX's syntax only) each equation ends with a comment naming where it was traced, as
    JAX's ``pretty_print(source_info=True)`` writes it: ``# file.py:7:31 (f)``."""
    jaxpr = getattr(jaxpr, 'jaxpr', jaxpr)
    if syntax == 'jax':
        return render(_toplevel_doc(jaxpr, source_info))
    if syntax == 'autodidax':
        return str(_autodidax_jaxpr(jaxpr))
    raise ValueError(f'pp_jaxpr: syntax must be one of {SYNTAXES}, got {syntax!r}')


# ============================================================================ layout documents
# A document is text, a break (its text on one line, else a newline), a concatenation, a
# nesting (indentation for the newlines inside it) or a group (one line if it fits).

class Text(NamedTuple):
    text: str
    annotation: str | None = None  # a comment at the end of the line this text is on


class Break(NamedTuple):
    text: str = ' '


class Concat(NamedTuple):
    docs: tuple


class Nest(NamedTuple):
    indent: int
    doc: Any


class Group(NamedTuple):
    doc: Any


def concat(*docs):
    return Concat(docs)


def join(sep, docs):
    docs = list(docs)
    return Concat(tuple(itertools.chain.from_iterable((sep, d) for d in docs))[1:])


def render(doc, width: int = 80) -> str:
    """Lay ``doc`` out in ``width`` columns, as JAX's printer does."""
    lines, line = [], ''
    annotations: dict[int, str] = {}  # line number -> the first annotation on that line
    stack = [(0, False, doc)]  # (indentation, flat?, document)
    while stack:
        indent, flat, doc = stack.pop()
        if isinstance(doc, Text):
            line += doc.text
            if doc.annotation is not None:
                annotations.setdefault(len(lines), doc.annotation)
        elif isinstance(doc, Break):
            if flat:
                line += doc.text
            else:
                lines.append(line)
                line = ' ' * indent
        elif isinstance(doc, Concat):
            stack.extend((indent, flat, d) for d in reversed(doc.docs))
        elif isinstance(doc, Nest):
            stack.append((indent + doc.indent, flat, doc.doc))
        else:
            stack.append((indent, flat or _fits(width - len(line), doc), doc.doc))
    return '\n'.join(_annotated([*lines, line], annotations))


def _annotated(lines: list[str], annotations: dict[int, str]) -> list[str]:
    """``lines`` with their annotations as comments, in one column after the longest
    annotated line (where JAX's printer puts them)."""
    if not annotations:
        return lines
    column = max(len(lines[i]) for i in annotations)
    return [f'{line.ljust(column)} # {annotations[i]}' if i in annotations else line
            for i, line in enumerate(lines)]


def _fits(room: int, group: Group) -> bool:
    """Does ``group``, laid flat (each break its text, the groups within it flat too), fit
    in the ``room`` left on the line? JAX's printer asks no more: what follows the group on
    the line does not count (``slice[...] a`` may pass the 80th column by its operand)."""
    agenda = [group.doc]
    while agenda and room >= 0:
        doc = agenda.pop()
        if isinstance(doc, (Text, Break)):
            room -= len(doc.text)
        elif isinstance(doc, Concat):
            agenda.extend(reversed(doc.docs))
        else:  # a nesting or a group within
            agenda.append(doc.doc)
    return room >= 0


# ============================================================================ JAX's names
class PrintedAs(NamedTuple):
    """How JAX prints a primitive whose name or parameters differ from minijax's."""
    name: str | None = None                        # JAX's name for the primitive
    renamed: Mapping[str, str] = {}                # minijax parameter -> JAX's name for it
    added: Mapping[str, Callable] = {}             # JAX's parameters minijax has not: eqn -> value
    hidden: Mapping[str, Callable] = {}            # not printed when predicate(value) holds
    shown: Mapping[str, Callable] = {}             # value -> how JAX prints it
    first: tuple[str, ...] = ()                    # printed before the others (sorted)


def _always(_):
    return True


def _empty(value):
    return not value


def _is_none(value):
    return value is None


def _none_true(flags):
    return not any(flags)


def _constant(value):
    return lambda eqn: value


def _param_or_none(name):
    """A parameter JAX always has and minijax only when set (a sharding): None if unset."""
    return lambda eqn: eqn.params.get(name)


def _as_lists(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return (list(lc), list(rc)), (list(lb), list(rb))


def _names(axis_name):
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


class _Unspecified:
    """A sharding ``jit`` was not given, as JAX prints it."""

    def __repr__(self):
        return 'UnspecifiedValue'


def _unspecified_as_jax(shardings):
    return tuple(_Unspecified() if s is None else s for s in shardings)


_NAME_FIRST = dict(first=('name',))
_REDUCTION = PrintedAs(renamed={'axis_name': 'axes'}, shown={'axis_name': _names})
_AXIS_AS_AXES = dict(renamed={'axis': 'axes'}, shown={'axis': lambda axis: (axis,)})

#: minijax primitive name -> how JAX prints it. Primitives not listed print as they are.
JAX_NAMES: dict[str, PrintedAs] = {
    'xla_call': PrintedAs('jit', shown={'in_shardings': _unspecified_as_jax,
                                        'out_shardings': _unspecified_as_jax},
                          hidden={'donated_invars': _none_true}, **_NAME_FIRST),
    'reduce_sum': PrintedAs(added={'out_sharding': _param_or_none('out_sharding')}),
    'argmax': PrintedAs(**_AXIS_AS_AXES),
    'argmin': PrintedAs(**_AXIS_AS_AXES),
    'conv_general_dilated': PrintedAs(added={'out_sharding': _constant(None),
                                             'preferred_element_type': _constant(None)}),
    'transpose': PrintedAs(renamed={'perm': 'permutation'}),
    'broadcast_in_dim': PrintedAs(hidden={'shape': _always, 'broadcast_dimensions': _empty,
                                          'sharding': _always}),
    'dot_general': PrintedAs(hidden={'precision': _is_none, 'preferred_element_type': _is_none,
                                     'out_sharding': _always},
                             shown={'dimension_numbers': _as_lists}),
    'ragged_dot_general': PrintedAs(added={'group_offset': _constant(None),
                                           'out_sharding': _constant(None)}),
    'reshape': PrintedAs(added={'dimensions': _param_or_none('dimensions'),
                                'sharding': _param_or_none('sharding')}),
    'iota': PrintedAs(added={'sharding': _param_or_none('sharding')}),
    'reshard': PrintedAs(hidden={'dst_sharding': _always, 'concrete_mesh': _always}),
    'conj': PrintedAs(added={'input_dtype': lambda eqn: eqn.inputs[0].aval.dtype}),
    'scan': PrintedAs(added={'unroll': _constant(1)}),
    'custom_jvp_call': PrintedAs(added={'symbolic_zeros': _constant(False)},
                                 hidden={'num_consts': _empty}, **_NAME_FIRST),
    'custom_vjp_call': PrintedAs(added={'symbolic_zeros': _constant(False)},
                                 hidden={'num_consts': _empty}, **_NAME_FIRST),
    # collectives (lax/parallel.py): JAX names their axes with a tuple
    'psum': _REDUCTION, 'pmax': _REDUCTION, 'pmin': _REDUCTION,
    'all_gather': PrintedAs(shown={'axis_name': _names}),
    'psum_scatter': PrintedAs('reduce_scatter', shown={'axis_name': _names}),
    'ppermute': PrintedAs(shown={'axis_name': _names}),
    'all_to_all': PrintedAs(hidden={'axis_size': _always}),
}


def jax_name(primitive_name: str) -> str:
    """How JAX names a primitive (in jaxprs and in locations): ``jit`` for ``xla_call``."""
    return JAX_NAMES.get(primitive_name, PrintedAs()).name or primitive_name


def jax_params(eqn: JaxprEqn) -> tuple[str, list[tuple[str, Any]]]:
    """The primitive's name and its parameters in the order JAX prints them."""
    printed = JAX_NAMES.get(eqn.primitive.name, PrintedAs())
    params = {printed.renamed.get(k, k): printed.shown.get(k, _same)(v)
              for k, v in eqn.params.items()
              if not printed.hidden.get(k, _never)(v)}
    params.update((k, value(eqn)) for k, value in printed.added.items())
    order = [*printed.first, *sorted(k for k in params if k not in printed.first)]
    return printed.name or eqn.primitive.name, [(k, params[k]) for k in order]


def _same(v):
    return v


def _never(_):
    return False


# ============================================================================ JAX syntax
def short_type(aval) -> str:
    """``f64[3]``: the type as JAX prints it in a jaxpr (a token's is ``Tok``)."""
    if aval is core.abstract_token:
        return 'Tok'
    return aval.str_short(short_dtypes=True) + _varying(aval)


def _varying(aval) -> str:
    """``{V:x}``, ``{V:(x,y)}``: the manual axes a value inside ``shard_map`` varies along
    (``minijax.vma.ManualArray``), as JAX prints them."""
    axes = getattr(aval, 'vma', ())
    if not axes:
        return ''
    return f'{{V:{axes[0]}}}' if len(axes) == 1 else f'{{V:({",".join(map(str, axes))})}}'


def _alphabetic(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba: JAX's variable names (base 26, no 'aa')."""
    s = ''
    while not s or n:
        n, i = divmod(n, 26)
        s = string.ascii_lowercase[i] + s
    return s


class _Names:
    """Variable names for a jaxpr and all its sub-jaxprs: JAX names them from one counter,
    in the order they are printed, and shows a binder nobody reads (at top level) as ``_``."""

    def __init__(self, top: Jaxpr, source_info: bool = False):
        self.source_info = source_info  # (the printing of this jaxpr annotates its equations)
        self.names: dict[Var, str] = {v: '_' for v in _unread_binders(top)}
        self.reserved: set[str] = set()  # the names of shared jaxprs
        self.fresh = (s for s in map(_alphabetic, itertools.count()) if s not in self.reserved)
        self.shared: dict[Jaxpr, str] = {}

    def __getitem__(self, v: Var) -> str:
        if v not in self.names:
            self.names[v] = next(self.fresh)
        return self.names[v]

    def suggest_same(self, for_vars, like_atoms):
        """Name a sub-jaxpr's binders like the atoms they stand for in the calling equation
        (as JAX does for ``jit``), where those are variables not yet used for another."""
        used = set()
        for v, like in zip(for_vars, like_atoms):
            if isinstance(like, Var) and like not in used and v not in self.names:
                used.add(like)
                self.names[v] = self[like]


def _unread_binders(jaxpr: Jaxpr):
    read = {x for x in jaxpr.outs if isinstance(x, Var)}
    for eqn in reversed(jaxpr.eqns):
        yield from (v for v in eqn.out_binders if v not in read)
        read.update(x for x in eqn.inputs if isinstance(x, Var))


def _sub_jaxprs(params) -> list[Jaxpr]:
    found = []
    for value in params.values():
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, (Jaxpr, ClosedJaxpr)):
                found.append(getattr(v, 'jaxpr', v))
    return found


#: Primitives whose ``name`` JAX prints by a rule of its own, not being one of their params:
#: their sub-jaxprs, when shared, are labelled ``jaxpr`` as any other's.
_NAME_NOT_A_PARAM = frozenset({'custom_jvp_call', 'custom_vjp_call'})


def _share_repeated_jaxprs(top: Jaxpr, names: _Names) -> list[tuple[str, Jaxpr]]:
    """Sub-jaxprs used more than once, or longer than 10 equations, are printed once before
    the jaxpr as ``let name = { ... } in`` and referred to by name (as JAX does)."""
    counts: Counter[Jaxpr] = Counter()
    labels: dict[Jaxpr, str] = defaultdict(lambda: 'jaxpr')
    queue = deque([top])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] += 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
        for eqn in jaxpr.eqns:
            subs = _sub_jaxprs(eqn.params)
            queue.extend(subs)
            if 'name' in eqn.params and eqn.primitive.name not in _NAME_NOT_A_PARAM:
                for sub in subs:
                    labels.setdefault(sub, str(eqn.params['name']).strip('<>'))
    taken: Counter[str] = Counter()
    shared = []
    for jaxpr, count in counts.items():
        if count > 1:
            label = labels[jaxpr]
            if taken[label]:
                taken[label] += 1
                label += str(taken[label] - 1)
            taken[label] += 1
            names.reserved.add(label)
            names.shared[jaxpr] = label
            shared.append((label, jaxpr))
    return shared


def _toplevel_doc(jaxpr: Jaxpr, source_info: bool = False):
    names = _Names(jaxpr, source_info)
    docs = [concat(Text(f'let {label} = '), _jaxpr_doc(sub, names, skeleton=True), Text(' in'),
                   Break())
            for label, sub in _share_repeated_jaxprs(jaxpr, names)]
    return Concat((*docs, _jaxpr_doc(jaxpr, names)))


def _atom_doc(x, names: _Names, binder=False):
    if isinstance(x, Lit):
        return Text(f'{x.val.item()}:{short_type(x.aval)}')
    return Text(f'{names[x]}:{short_type(x.aval)}' if binder else names[x])


def _atoms_doc(atoms, names: _Names, sep='', binders=False):
    return Nest(2, Group(join(concat(Text(sep), Group(Break())),
                              [_atom_doc(x, names, binders) for x in atoms])))


def _jaxpr_doc(jaxpr: Jaxpr, names: _Names, skeleton=False):
    if not skeleton and jaxpr in names.shared:
        return Text(names.shared[jaxpr])
    constvars = _atoms_doc(jaxpr.constvars, names, binders=True)
    invars = _atoms_doc(jaxpr.invars, names, binders=True)
    eqns = join(Break('; '), [_eqn_doc(e, names) for e in jaxpr.eqns])
    outs = concat(Text('('), _atoms_doc(jaxpr.outs, names, sep=','),
                  Text(',)' if len(jaxpr.outs) == 1 else ')'))
    return Group(concat(Nest(2, concat(
        Text('{ lambda '), constvars, Text('; '), invars, Text('. let'),
        Nest(2, concat(Break(), eqns)), Break(), Text('in '), outs)), Text(' }')))


def _eqn_doc(eqn: JaxprEqn, names: _Names):
    name, params = jax_params(eqn)
    if eqn.primitive.name == 'xla_call' and eqn.params['jaxpr'].jaxpr not in names.shared:
        inner = eqn.params['jaxpr'].jaxpr
        names.suggest_same(inner.invars, eqn.inputs)
        names.suggest_same(inner.outs, eqn.out_binders)
    lhs = _atoms_doc(eqn.out_binders, names, binders=True)
    rhs = concat(Text(name), _params_doc(params, names),
                 concat(Text(' '), _atoms_doc(eqn.inputs, names)))
    where = core.summarize_source(eqn.source_info) if names.source_info else None
    return concat(lhs, Text(' = ', where), rhs) if eqn.out_binders else rhs


def _bracketed(open_, close, items):
    return Group(concat(Nest(2, concat(Text(open_), Break(''), join(Break(), items))),
                        Break(''), Text(close)))


def _params_doc(params, names: _Names):
    if not params:
        return Text('')
    return _bracketed('[', ']', [concat(Text(f'{k}='), _value_doc(v, names)) for k, v in params])


def _value_doc(value, names: _Names):
    if type(value) is tuple and value and all(isinstance(v, (Jaxpr, ClosedJaxpr))  # (JAX's
                                              for v in value):  # test: not a NamedTuple)
        return _bracketed('(', ')', [_value_doc(v, names) for v in value])
    if isinstance(value, (Jaxpr, ClosedJaxpr)):
        return _jaxpr_doc(getattr(value, 'jaxpr', value), names)
    if isinstance(value, frozenset):  # (sorted, as JAX prints a set: shard_map's axes)
        return Text(f"frozenset({{{', '.join(repr(e) for e in sorted(value))}}})")
    return Text(re.sub(r' at 0x([0-9a-fA-F]+)', lambda m: ' at 0x' + 'X' * len(m[1]),
                       str(value)))


# ============================================================================ Autodidax syntax
class PPrint:
    """Lines with indentation, composed with ``+`` (stack) and ``>>`` (join beside): the
    seed's own layout, where a block joined beside text is indented to the text's end."""

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


def _seed_names():
    for r in itertools.count(1):
        for chars in itertools.permutations(string.ascii_lowercase, r):
            yield ''.join(chars)


def _autodidax_jaxpr(jaxpr: Jaxpr) -> PPrint:
    names: defaultdict[Var, str] = defaultdict(_seed_names().__next__)
    binders = ' '.join(_seed_var(names, v) for v in jaxpr.constvars)
    if jaxpr.constvars:
        binders += ' ;'
    binders = ' '.join(filter(None, [binders, *(_seed_var(names, v) for v in jaxpr.invars)]))
    eqns = vcat([_autodidax_eqn(names, e) for e in jaxpr.eqns])
    outs = ', '.join(_seed_atom(names, x) for x in jaxpr.outs)
    return (pp(f'{{ lambda {binders} .') +
            ((pp('let ') >> eqns) + pp(f'in ( {outs} ) }}')).indent(2))


def _seed_var(names, v):
    return f'{names[v]}:{v.aval.str_short()}'


def _seed_atom(names, x):
    return names[x] if isinstance(x, Var) else str(x.val)


def _autodidax_eqn(names, eqn: JaxprEqn) -> PPrint:
    subs = {k: _sub_jaxprs({k: v}) for k, v in eqn.params.items()}
    plain = {k: v for k, v in eqn.params.items() if not subs[k]}
    lhs = pp(' '.join(_seed_var(names, v) for v in eqn.out_binders))
    rhs = (pp(eqn.primitive.name) >> _autodidax_params(plain) >>
           pp(' '.join(_seed_atom(names, x) for x in eqn.inputs)))
    sub_docs = [pp(f'{k}[{i}]=' if isinstance(eqn.params[k], tuple) else f'{k}=') +
                _autodidax_jaxpr(j).indent(2)
                for k, js in sorted(subs.items()) for i, j in enumerate(js)]
    return vcat([lhs >> pp(' = ') >> rhs, *(s.indent(2) for s in sub_docs)])


def _autodidax_params(params) -> PPrint:
    if not params:
        return pp(' ')
    # As the seed's pp_params: one parameter per line, aligned after ' [ '.
    items = vcat([pp(f'{k}={v.name if isinstance(v, np.dtype) else v}')
                  for k, v in sorted(params.items())])
    return pp(' [ ') >> items >> pp(' ] ')
