"""The code in README.md and docs/ runs: each page's ```python blocks run in order in one
namespace, and a ```text block right after a python block is the output that block must print.
Every block says what it is (``LANGUAGES``), so that no Python goes unrun for want of a label."""
import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parents[2]
PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]
FENCE = re.compile(r'^```(\w*)\n(.*?)^```$', re.S | re.M)
#: The language of each kind of block, and what the tests do with it.
LANGUAGES = {'python': 'runs, after the python blocks above it on the page',
             'text': 'output, compared with what a python block right before it prints; '
                     'else plain text',
             'sh': 'shell commands, not run',
             'mlir': 'IR, not run',
             'layers': "docs/architecture.md's layer table, read by test_architecture.py"}


def blocks(page):
    """(language, code, line number) of each fenced block of ``page``, in order."""
    text = page.read_text()
    return [(m.group(1), m.group(2), text.count('\n', 0, m.start()) + 1)
            for m in FENCE.finditer(text)]


def test_there_are_docs_with_code():
    assert len(PAGES) >= 5
    assert all(any(lang == 'python' for lang, _, _ in blocks(page)) for page in PAGES)


@pytest.mark.parametrize('page', PAGES, ids=[p.name for p in PAGES])
def test_every_block_says_what_it_is(page):
    unknown = [line for lang, _, line in blocks(page) if lang not in LANGUAGES]
    assert not unknown, (
        f'{page.relative_to(ROOT)}: the code blocks at lines {unknown} have no known '
        'language: open each with one of ' + '; '.join(
            f'```{lang} ({means})' for lang, means in LANGUAGES.items()))


@pytest.mark.parametrize('page', PAGES, ids=[p.name for p in PAGES])
def test_doc_code_runs(page):
    namespace = {'__name__': f'docs.{page.stem}'}
    previous_output = None
    for lang, code, line in blocks(page):
        if lang == 'python':
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile('\n' * line + code, str(page), 'exec'), namespace)
            previous_output = out.getvalue()
        elif lang == 'text' and previous_output is not None:
            assert previous_output.strip() == code.strip(), f'{page.name}, line {line}'
            previous_output = None
        else:
            previous_output = None
