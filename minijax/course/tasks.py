"""Course tasks: one rule of one primitive, named ``KIND:PRIMITIVE`` (``jvp:tanh``).

A task exists where a built-in primitive has a rule of a taught kind in the rule tables
(``minijax.core.rule_tables``) and a test checks it: a test says which rules it checks with
the marker ``@pytest.mark.rule(kind, ...)`` and takes the primitive from its parameters (its
``case`` or ``primitive``); ``test/unit/conftest.py`` turns each marked test into its tasks.
"""
from __future__ import annotations

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
    """The tasks a test marked ``rule(*kinds)`` checks for one primitive: the kinds the
    primitive has a rule of. A primitive run eagerly on XLA (``eager_on_xla``) never runs
    its impl outside ``check_rules``: its eager values check its lowering."""
    primitive = primitives().get(primitive_name)
    if primitive is None:
        return set()
    if primitive.eager_on_xla:
        kinds = ['lowering' if k == 'impl' else k for k in kinds]
    return {task for task in (Task(k, primitive_name) for k in kinds) if rules(task)}
