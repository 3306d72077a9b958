"""Printing a benchmark's table, and recording it in bench/results/ when asked (--write)."""
import pathlib
import sys


def report(script: str, title: str, how: str, rows: list[str]) -> None:
    """Print the markdown table ``rows``; with ``--write``, save it as
    bench/results/<script>.md under ``title``, saying ``how`` it was measured."""
    table = '\n'.join(rows)
    print(table)
    if '--write' in sys.argv:
        out = pathlib.Path(__file__).parent / 'results' / f'{script}.md'
        out.parent.mkdir(exist_ok=True)
        out.write_text(f'# {title}\n\nMeasured with `python bench/{script}.py --write` '
                       f'({how}).\n\n{table}\n')
