"""The coverage table of JAX's public names (``bench/coverage.py``): every name of the
namespaces JAX programs import is implemented, documented as not supported (with an error
that says why), or listed as not there yet; every implemented name is named by a test;
minijax's namespaces list no public name but JAX's and the documented additions; and
``docs/jax_coverage.md`` is up to date."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location('coverage_table', ROOT / 'bench' / 'coverage.py')
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)

ROWS = coverage.table()


def test_every_public_name_is_implemented_unsupported_or_not_yet():
    missing = [f'{r.namespace}.{r.name}' for r in ROWS if r.status == 'missing']
    assert not missing, ('JAX names minijax neither has nor lists (in minijax/unsupported.py '
                         f'or bench/coverage.py NOT_YET): {missing}')


def test_not_yet_lists_only_names_still_missing():
    listed = {(ns, name) for ns, names in coverage.NOT_YET.items() for name in names.split()}
    status = {(r.namespace, r.name): r.status for r in ROWS}
    done = sorted(f'{ns}.{n}' for ns, n in listed if status.get((ns, n)) == 'implemented')
    assert not done, f'implemented now: take them out of NOT_YET: {done}'
    unknown = sorted(f'{ns}.{n}' for ns, n in listed if (ns, n) not in status)
    assert not unknown, f'not public names of JAX: {unknown}'


@pytest.mark.parametrize('row', [r for r in ROWS if r.status == 'unsupported'],
                         ids=lambda r: f'{r.namespace}.{r.name}')
def test_an_unsupported_name_is_an_error_giving_the_reason(row):
    module = importlib.import_module('minijax' + row.namespace[len('jax'):])
    with pytest.raises(AttributeError, match='is not supported') as raised:
        getattr(module, row.name)
    assert coverage.UNSUPPORTED[row.namespace][row.name] in str(raised.value)
    with pytest.raises(ImportError, match='is not supported') as raised:  # not Python's bare
        exec(f'from {module.__name__} import {row.name}', {})     # "cannot import name"
    assert coverage.UNSUPPORTED[row.namespace][row.name] in str(raised.value)


def test_every_implemented_name_is_named_by_a_test():
    untested = coverage.untested(ROWS)
    assert not untested, f'implemented names no test names (compare them with JAX): {untested}'


@pytest.mark.parametrize('namespace', coverage.NAMESPACES)
def test_a_namespace_lists_only_jax_names_and_documented_additions(namespace):
    """``dir(minijax.X)`` is ``dir(jax.X)``'s names (those minijax has) plus the additions
    ``bench/coverage.py`` lists with a reason: no imported helper or internal table."""
    leaked = coverage.extras(namespace)
    assert not leaked, (f'public names of minijax{namespace[len("jax"):]} that JAX\'s lacks: '
                        f'{leaked} (make them private, import their module instead, or list '
                        'them in ADDITIONS with a reason)')


def test_every_addition_is_a_public_name_jax_lacks():
    for namespace, names in coverage.ADDITIONS.items():
        mine = importlib.import_module('minijax' + namespace[len('jax'):])
        theirs = set(coverage.public_names(importlib.import_module(namespace)))
        stale = sorted(n for n in names if not hasattr(mine, n) or n in theirs)
        assert not stale, f'{namespace}: take them out of ADDITIONS: {stale}'


def test_the_generated_table_is_current():
    written = coverage.TABLE.read_text()
    assert written == coverage.markdown(ROWS), 'run: python bench/coverage.py --write'
