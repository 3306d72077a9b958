"""The code in docs/ runs: each page's ```python blocks run in order in one namespace, and a
```text block right after a python block is the output that block must print."""
import contextlib
import io
import pathlib
import re

import pytest

DOCS = sorted((pathlib.Path(__file__).parents[2] / 'docs').glob('*.md'))
FENCE = re.compile(r'^```(\w*)\n(.*?)^```$', re.S | re.M)


def blocks(page):
    """(language, code) of each fenced block of ``page``, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(page.read_text())]


def test_there_are_docs_with_code():
    assert len(DOCS) >= 4
    assert all(any(lang == 'python' for lang, _ in blocks(page)) for page in DOCS)


@pytest.mark.parametrize('page', DOCS, ids=[p.name for p in DOCS])
def test_doc_code_runs(page):
    namespace = {'__name__': f'docs.{page.stem}'}
    previous_output = None
    for lang, code in blocks(page):
        if lang == 'python':
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, str(page), 'exec'), namespace)
            previous_output = out.getvalue()
        elif lang == 'text' and previous_output is not None:
            assert previous_output.strip() == code.strip()
            previous_output = None
        else:
            previous_output = None
