"""How much of JAX's public surface minijax has, measured name by name.

Every public name of jax 0.10.2 in the namespaces JAX programs import is one of:

- implemented: minijax's namespace has it; a function takes every parameter JAX's does (by
  name), or the parameters it lacks are listed;
- unsupported: ``minijax/unsupported.py`` says why and what to use instead (minijax's module
  raises that error);
- not yet: listed in ``NOT_YET`` below, the work left (issues 31 and 32).

A name that is none of these fails ``test/unit/test_coverage.py``, which also checks that
every implemented name is named by a test (``untested``), that minijax's namespaces list no
public name JAX's lack but the deliberate additions in ``ADDITIONS`` (``extras``: a user
comparing ``dir(jax.X)`` with ``dir(minijax.X)`` sees no plumbing), and that
``docs/jax_coverage.md`` is this script's current output::

    python bench/coverage.py           # the summary, one line per namespace
    python bench/coverage.py --write   # regenerate docs/jax_coverage.md, and drop the
                                       # names implemented since from NOT_YET here
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import pathlib
import re
import sys
import textwrap
import types
from typing import NamedTuple

import jax

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minijax.files import write_file  # noqa: E402
from minijax.unsupported import UNSUPPORTED  # noqa: E402

TABLE = ROOT / 'docs' / 'jax_coverage.md'
SOURCE = pathlib.Path(__file__).resolve()

#: The namespaces counted: those JAX programs import (submodules of ``jax`` itself are
#: namespaces of their own, not names of ``jax``).
NAMESPACES = (
    'jax', 'jax.numpy', 'jax.numpy.linalg', 'jax.numpy.fft', 'jax.lax', 'jax.lax.linalg',
    'jax.random', 'jax.nn', 'jax.nn.initializers', 'jax.scipy.special', 'jax.scipy.linalg',
    'jax.scipy.signal', 'jax.scipy.stats', 'jax.scipy.stats.bernoulli',
    'jax.scipy.stats.beta', 'jax.scipy.stats.betabinom', 'jax.scipy.stats.binom',
    'jax.scipy.stats.cauchy', 'jax.scipy.stats.chi2', 'jax.scipy.stats.dirichlet',
    'jax.scipy.stats.expon', 'jax.scipy.stats.gamma', 'jax.scipy.stats.gennorm',
    'jax.scipy.stats.geom', 'jax.scipy.stats.gumbel_l', 'jax.scipy.stats.gumbel_r',
    'jax.scipy.stats.laplace', 'jax.scipy.stats.logistic', 'jax.scipy.stats.multinomial',
    'jax.scipy.stats.multivariate_normal', 'jax.scipy.stats.nbinom', 'jax.scipy.stats.norm',
    'jax.scipy.stats.pareto', 'jax.scipy.stats.poisson', 'jax.scipy.stats.t',
    'jax.scipy.stats.truncnorm', 'jax.scipy.stats.uniform', 'jax.scipy.stats.vonmises',
    'jax.scipy.stats.wrapcauchy', 'jax.scipy.optimize', 'jax.scipy.integrate',
    'jax.scipy.ndimage', 'jax.scipy.fft', 'jax.scipy.sparse.linalg', 'jax.scipy.cluster.vq',
    'jax.scipy.interpolate', 'jax.scipy.spatial.transform', 'jax.tree_util', 'jax.tree',
    'jax.flatten_util', 'jax.debug', 'jax.dtypes', 'jax.errors', 'jax.image', 'jax.ops',
    'jax.custom_derivatives', 'jax.ad_checkpoint', 'jax.stages', 'jax.typing',
    'jax.example_libraries.stax', 'jax.example_libraries.optimizers', 'jax.extend.core',
    'jax.experimental', 'jax.sharding', 'jax.distributed',
)

#: Names minijax does not have yet: the work of issue 31 (SPMD) and issue 32 (the rest).
#: A name leaves this table when it is implemented (the test says so).
NOT_YET: dict[str, str] = {}

_CONTROL_FLOW = ('Autodidax\'s top-level control flow, as the seed\'s tests and '
                 'docs/reading_stablehlo.md write it (JAX\'s is `jax.lax.{}`)')
_PRIMITIVE_API = 'docs/add_a_primitive.md: {} (JAX\'s is `jax.{}`)'
_LAX_PRIMITIVE = ('the primitive of `lax.{}`, listed with the others: the rule tables and '
                  '`test_rules.py` (which checks the rules of every primitive `minijax.lax` '
                  'lists) read it there (JAX keeps it in `jax._src.lax`)')

#: minijax's public names that JAX's namespace lacks, each on purpose, with the reason (the
#: docs promise them). Any other public name of a minijax namespace is plumbing that leaked.
ADDITIONS: dict[str, dict[str, str]] = {
    'jax': {
        'Primitive': _PRIMITIVE_API.format('a user\'s primitive', 'extend.core.Primitive'),
        'ShapedArray': _PRIMITIVE_API.format('what an abstract-evaluation rule returns',
                                             'core.ShapedArray'),
        'is_undefined_primal': _PRIMITIVE_API.format(
            'a transpose rule tells linear arguments apart',
            'interpreters.ad.is_undefined_primal'),
        'flops': 'docs/write_a_transformation.md: the jaxpr interpreter that page builds',
        **{name: _CONTROL_FLOW.format(name)
           for name in ('cond', 'fori_loop', 'scan', 'switch', 'while_loop')},
    },
    'jax.lax': {
        'add_any': 'sums two cotangents in a transpose or custom rule '
                   '(JAX keeps it in `jax._src.ad_util`)',
        'add_any_p': 'the primitive of `add_any`, for rules keyed by primitive',
        'greater': 'Autodidax\'s name for `gt` (examples/basics.py uses it)',
        'less': 'Autodidax\'s name for `lt`',
        **{name: _LAX_PRIMITIVE.format(name[:-2])
           for name in ('empty_p', 'psum_scatter_p', 'ragged_dot_general_p', 'scaled_dot_p')},
    },
    'jax.errors': {
        'rule_to_write': 'the body of a stub in a course handout (docs/teaching.md)',
        'RuleToWrite': 'what `rule_to_write` raises: a course task not written yet',
        'rule_to_write_behind': 'the task a failing test waits for (the handout\'s conftest)',
        'stubbed_task': 'the same, from a test report (`minijax course grade`)',
    },
}


class Name(NamedTuple):
    namespace: str
    name: str
    status: str              # 'implemented', 'unsupported', 'not yet' or 'missing'
    lacks: tuple = ()        # JAX's parameters an implemented function does not take


def public_names(module) -> list[str]:
    """A module's public names, without its submodules."""
    return sorted(n for n in dir(module) if not n.startswith('_')
                  and not isinstance(getattr(module, n, None), types.ModuleType))


def extras(namespace: str) -> list[str]:
    """The public names of minijax's ``namespace`` that JAX's lacks and ``ADDITIONS`` does
    not list: the plumbing a user would see in ``dir()`` or tab completion."""
    mine = _minijax_module(namespace)
    if mine is None:
        return []
    theirs = set(public_names(importlib.import_module(namespace)))
    return sorted(set(public_names(mine)) - theirs - set(ADDITIONS.get(namespace, {})))


def _minijax_module(namespace):
    try:
        return importlib.import_module('minijax' + namespace[len('jax'):])
    except ImportError:
        return None


def _signature(fn) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _lacks(theirs, mine) -> tuple:
    """JAX's parameters that minijax's ``mine`` does not take (none when it takes
    ``**kwargs`` or either has no signature). A positional-only parameter, which no caller
    names, counts as taken when ``mine`` takes an argument at its position."""
    if not callable(theirs) or inspect.isclass(theirs):
        return ()
    jax_sig, my_sig = _signature(theirs), _signature(mine)
    if jax_sig is None or my_sig is None:
        return ()
    mine_params = list(my_sig.parameters.values())
    if any(p.kind == p.VAR_KEYWORD for p in mine_params):
        return ()
    positional = [p for p in mine_params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    takes_rest = any(p.kind == p.VAR_POSITIONAL for p in mine_params)
    names = {p.name for p in mine_params}
    lacking = []
    for i, p in enumerate(jax_sig.parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.kind == p.POSITIONAL_ONLY:
            if i >= len(positional) and not takes_rest:
                lacking.append(p.name)
        elif p.name not in names:
            lacking.append(p.name)
    return tuple(lacking)


def classify(namespace: str) -> list[Name]:
    theirs = importlib.import_module(namespace)
    mine = _minijax_module(namespace)
    not_yet = set(NOT_YET.get(namespace, '').split())
    out = []
    for name in public_names(theirs):
        if mine is not None and hasattr(mine, name):
            out.append(Name(namespace, name, 'implemented',
                            _lacks(getattr(theirs, name), getattr(mine, name))))
        elif name in UNSUPPORTED.get(namespace, {}):
            out.append(Name(namespace, name, 'unsupported'))
        else:
            out.append(Name(namespace, name, 'not yet' if name in not_yet else 'missing'))
    return out


def table() -> list[Name]:
    return [row for namespace in NAMESPACES for row in classify(namespace)]


def _named_in_tests() -> set[str]:
    """The words of the test sources: what a test can name."""
    return {word for path in (ROOT / 'test').rglob('*.py')
            for word in re.findall(r'[A-Za-z_][A-Za-z0-9_]*', path.read_text())}


def untested(rows: list[Name]) -> list[str]:
    """Implemented names no test under ``test/`` names: untested, since every test of a
    name compares it with JAX (a name a test mentions may still be tested poorly: this is a
    floor). A primitive object (``*_p``) is compared with JAX's, one by one, by
    ``test/unit/test_primitive_objects.py``, which enumerates them."""
    named = _named_in_tests()
    return [f'{r.namespace}.{r.name}' for r in rows if r.status == 'implemented'
            and r.name not in named and not r.name.endswith('_p')]


def _count(rows, status):
    return sum(r.status == status for r in rows)


def markdown(rows: list[Name]) -> str:
    total, done = len(rows), _count(rows, 'implemented')
    lines = [
        '# JAX names in minijax', '',
        '<!-- Generated by `python bench/coverage.py --write`: do not edit. -->', '',
        f'Of the {total} public names of jax {jax.__version__} in the namespaces below, '
        f'minijax implements {done} ({100 * done / total:.1f}%); '
        f'{_count(rows, "unsupported")} are not supported (each with the reason its error '
        f'gives), {_count(rows, "not yet")} are not there yet. Each implemented name is '
        'named by a test that compares it with JAX (`test/unit/test_coverage.py` checks '
        'that). A function "lacking" '
        'parameters takes all of JAX\'s but those. A name that is not supported is an '
        'error saying why and what to use instead (an `AttributeError`; under `from ... '
        'import`, an `ImportError` with the same text):', '',
        '```python', 'import minijax.numpy as jnp', '', 'try:', '    jnp.float8_e4m3fn',
        'except AttributeError as error:', '    print(error)', '```', '', '```text',
        f'minijax.numpy.float8_e4m3fn is not supported (jax.numpy.float8_e4m3fn is JAX\'s): '
        f'{UNSUPPORTED["jax.numpy"]["float8_e4m3fn"]}', '```', '',
        '| namespace | implemented | lacking parameters | not supported | not yet |',
        '| --- | ---: | ---: | ---: | ---: |',
    ]
    for namespace in NAMESPACES:
        mine = [r for r in rows if r.namespace == namespace]
        lines.append(f'| `{namespace}` | {_count(mine, "implemented")}/{len(mine)} | '
                     f'{sum(bool(r.lacks) for r in mine)} | {_count(mine, "unsupported")} | '
                     f'{_count(mine, "not yet")} |')
    lines += ['', '## minijax\'s additions', '',
              'Public names of minijax that JAX\'s namespace does not have, each on purpose '
              '(`bench/coverage.py` ADDITIONS; any other fails `test/unit/test_coverage.py`):',
              '']
    for namespace, names in ADDITIONS.items():
        for name, reason in names.items():
            lines.append(f'- `{"minijax" + namespace[len("jax"):]}.{name}`: {reason}')
    lines += ['', '## Not supported', '']
    for r in rows:
        if r.status == 'unsupported':
            lines.append(f'- `{r.namespace}.{r.name}`: {UNSUPPORTED[r.namespace][r.name]}')
    lines += ['', '## Parameters not taken yet', '']
    lines += [f'- `{r.namespace}.{r.name}`: {", ".join(r.lacks)}' for r in rows if r.lacks] \
        or ['None: every function takes all of its JAX parameters.']
    lines += ['', '## Not there yet', '']
    not_yet = {namespace: [r.name for r in rows if r.namespace == namespace
                           and r.status == 'not yet'] for namespace in NAMESPACES}
    lines += [f'- `{namespace}`: {", ".join(names)}' for namespace, names in not_yet.items()
              if names] or ['None.']
    return '\n'.join(lines) + '\n'


def _not_yet_source(rows) -> str:
    """This file's text with NOT_YET listing only the names neither implemented nor
    documented as not supported."""
    implemented = {(r.namespace, r.name) for r in rows
                   if r.status in ('implemented', 'unsupported')}
    entries = []
    for namespace, names in NOT_YET.items():
        left = [n for n in names.split() if (namespace, n) not in implemented]
        if left:
            lines = textwrap.wrap(' '.join(left), 88)
            entries.append(f"    '{namespace}': (\n" +
                           '\n'.join(f"        '{line} '" for line in lines) + '),\n')
    source = SOURCE.read_text()
    return re.sub(r'(?ms)^(NOT_YET: dict\[str, str\] = \{\n).*?^\}', lambda m: m.group(1) +
                  ''.join(entries) + '}', source, count=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--write', action='store_true', help=f'regenerate {TABLE.name}')
    args = parser.parse_args(argv)
    rows = table()
    if args.write:
        write_file(str(TABLE), markdown(rows))
        write_file(str(SOURCE), _not_yet_source(rows))
    for namespace in NAMESPACES:
        mine = [r for r in rows if r.namespace == namespace]
        print(f'{namespace:34} {_count(mine, "implemented"):4}/{len(mine):<4} implemented')
    leaked = [f'{"minijax" + ns[len("jax"):]}.{n}' for ns in NAMESPACES for n in extras(ns)]
    if leaked:
        print(f'{len(leaked)} public names of minijax neither JAX\'s nor in ADDITIONS: '
              f'{", ".join(leaked)}')
    missing = [f'{r.namespace}.{r.name}' for r in rows if r.status == 'missing']
    if missing:
        print(f'{len(missing)} names neither implemented, unsupported nor listed as not yet: '
              f'{", ".join(missing)}')
    return 1 if missing or leaked else 0


if __name__ == '__main__':
    sys.exit(main())
