"""The coverage table of JAX's public names (``bench/coverage.py``): every name of the
namespaces JAX programs import is implemented, documented as not supported (with an error
that says why), or listed as not there yet; every implemented name is named by a test; and
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


def test_every_implemented_name_is_named_by_a_test():
    untested = coverage.untested(ROWS)
    assert not untested, f'implemented names no test names (compare them with JAX): {untested}'


def test_the_generated_table_is_current():
    written = coverage.TABLE.read_text()
    assert written == coverage.markdown(ROWS), 'run: python bench/coverage.py --write'
