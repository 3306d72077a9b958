"""Course tasks: one rule of one primitive, named ``KIND:PRIMITIVE`` (``jvp:tanh``).

A task exists where a built-in primitive has a rule of a taught kind in the rule tables
(``minijax.core.rule_tables``) and a test checks it: a test says which rules it checks with
the marker ``@pytest.mark.rule(kind, ...)`` and takes the primitive from its parameters (its
``case`` or ``primitive``); ``test/unit/conftest.py`` turns each marked test into its tasks.
"""
from __future__ import annotations

import contextlib
import functools
import sys
from dataclasses import dataclass

from minijax import core

#: The rule kinds a task can be, in teaching order; a kind -> the tables that may hold it
#: (a jvp may be a symbolic-zero jvp rule).
KINDS = {'impl': ('impl',), 'abstract_eval': ('abstract_eval',), 'lowering': ('lowering',),
         'jvp': ('jvp', 'symbolic_zero_jvp'), 'transpose': ('transpose',),
         'vmap': ('vmap',), 'partial_eval': ('partial_eval',),
         'partial_eval_jaxpr': ('partial_eval_jaxpr',), 'dce': ('dce',),
         'flops': ('flops',)}
#: The doc a student reads to write a rule of each kind.
DOCS = {'partial_eval': 'docs/write_a_transformation.md',
        'partial_eval_jaxpr': 'docs/write_a_transformation.md',
        'dce': 'docs/write_a_transformation.md'}
DEFAULT_DOC = 'docs/add_a_primitive.md'


@dataclass(frozen=True, order=True)
class Task:
    kind: str
    primitive: str

    def __str__(self):
        return f'{self.kind}:{self.primitive}'

    @property
    def doc(self) -> str:
        return DOCS.get(self.kind, DEFAULT_DOC)

    @classmethod
    def parse(cls, text: str) -> Task:
        """``'jvp:tanh'`` -> ``Task('jvp', 'tanh')``; a ValueError naming what is wrong."""
        kind, _, name = text.partition(':')
        if kind not in KINDS or name not in primitives():
            raise ValueError(f"no course task {text!r}: a task is KIND:PRIMITIVE, KIND one of "
                             f"{', '.join(KINDS)}, PRIMITIVE a built-in primitive "
                             "('minijax course tasks' lists them)")
        return cls(kind, name)


@functools.cache
def primitives() -> dict[str, core.Primitive]:
    """The built-in primitives by name: every one a module of minijax defines at its top
    level (``lax``'s, ``lax.linalg``'s, control flow's, ``xla_call``, ...)."""
    return {value.name: value for module in minijax_modules() for value in vars(module).values()
            if isinstance(value, core.Primitive)}


def minijax_modules() -> list:
    """The modules of the package, once ``minijax.control_flow`` (imported on first use by
    ``minijax.lax``) has loaded the last of them."""
    import minijax.control_flow  # noqa: F401
    return [module for name, module in sorted(sys.modules.items())
            if name.startswith('minijax.') and not name.startswith('minijax.course')
            and str(getattr(module, '__file__', None)).endswith('.py')]


def rules(task: Task) -> list[tuple[str, object]]:
    """``(table, rule)`` of each table that holds ``task``'s rule (none: no such rule)."""
    primitive = primitives()[task.primitive]
    return [(t, core.rule_tables[t][primitive]) for t in KINDS[task.kind]
            if primitive in core.rule_tables[t]]


def tasks_checked(kinds, primitive_name: str) -> set[Task]:
    """The tasks a test marked ``rule(*kinds)`` may check for one primitive: the kinds the
    primitive has a rule of. Which of them the test checks is known once it ran
    (``tasks_exercised``)."""
    if primitive_name not in primitives():
        return set()
    return {task for task in (Task(k, primitive_name) for k in kinds) if rules(task)}


def tasks_exercised(tasks, looked_up) -> set[Task]:
    """The ``tasks`` whose rule a test looked up (``looked_up`` from ``rules_looked_up``):
    those it checks. ``vmap`` of a ``cond`` with a batched predicate becomes a ``select``:
    the cond's lowering never runs, so the test grades no ``lowering:cond``; an
    ``eager_on_xla`` primitive's eager values come from its lowering, not its impl."""
    return {task for task in tasks
            if any((table, task.primitive) in looked_up for table in KINDS[task.kind])}


@contextlib.contextmanager
def rules_looked_up():
    """Record ``(table kind, primitive name)`` of each rule looked up inside: the rules a
    test really runs. minijax's compile caches start empty, so that a rule an earlier test
    already lowered is looked up again."""
    looked_up = set()

    def getitem(table, primitive):
        looked_up.add((table.kind, getattr(primitive, 'name', primitive)))
        return dict.__getitem__(table, primitive)

    def get(table, primitive, default=None):
        return getitem(table, primitive) if primitive in table else default

    sys.modules['minijax.jit'].clear_caches()
    core.RuleTable.__getitem__, core.RuleTable.get = getitem, get
    try:
        yield looked_up
    finally:
        del core.RuleTable.__getitem__, core.RuleTable.get
