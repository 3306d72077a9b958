"""Imports point down: every module-level import of a minijax module goes to its own layer
or a lower one, as the layer table in docs/architecture.md draws them."""
import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parents[2]
PACKAGE = ROOT / 'minijax'


def layers():
    """[(layer name, [paths relative to the root])], top layer first, from the docs."""
    page = (ROOT / 'docs' / 'architecture.md').read_text()
    block = re.search(r'^```layers\n(.*?)^```$', page, re.S | re.M).group(1)
    return [(line.split()[0], line.split()[1:]) for line in block.splitlines() if line.strip()]


def layer_of(path: pathlib.Path) -> int:
    """The layer number of a source file: 0 is the bottom."""
    table = layers()
    relative = path.relative_to(ROOT).as_posix()
    for depth, (_, paths) in enumerate(table):
        if any(relative == p or (p.endswith('/') and relative.startswith(p)) for p in paths):
            return len(table) - 1 - depth
    raise LookupError(f'{relative} is in no layer of docs/architecture.md')


def module_path(name: str) -> pathlib.Path:
    """The source file of the minijax module ``name``."""
    path = ROOT.joinpath(*name.split('.'))
    return path / '__init__.py' if path.is_dir() else path.with_suffix('.py')


def imported_modules(source: str):
    """The minijax modules ``source`` imports at module level (not inside functions)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (node.module or '').startswith('minijax'):
            if node.module == 'minijax':
                yield from (f'minijax.{alias.name}' for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith('minijax'))


SOURCES = sorted(p for p in PACKAGE.rglob('*.py'))


def test_every_module_has_a_layer():
    for path in SOURCES:
        layer_of(path)


def upward_imports(path: pathlib.Path, source: str) -> list[str]:
    return [name for name in imported_modules(source)
            if layer_of(module_path(name)) > layer_of(path)]


@pytest.mark.parametrize('path', SOURCES, ids=[p.relative_to(ROOT).as_posix() for p in SOURCES])
def test_imports_point_down(path):
    upward = upward_imports(path, path.read_text())
    assert not upward, f'{path.relative_to(ROOT)} imports from a higher layer: {upward}'


def test_an_upward_import_is_caught():
    """The check itself: the interpreters importing lax at module level (as they once did)
    is upward; importing it inside a rule is not."""
    jvp = PACKAGE / 'interpreters' / 'jvp.py'
    assert upward_imports(jvp, 'from minijax import core, lax\n') == ['minijax.lax']
    assert upward_imports(jvp, 'def rule():\n    from minijax import lax\n') == []
