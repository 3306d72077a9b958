"""JAX's tutorial "Distributed arrays and automatic parallelization" on minijax: each cell
of ``parallel_tutorial.py`` prints what it prints under JAX 0.10.2 (x64), and its programs
lower to JAX's text. Both run in fresh processes of 8 CPU devices (the unit tests' own
processes have 4)."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def _output(framework) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ('XLA_FLAGS', 'MINIJAX_NUM_CPU_DEVICES')}
    env['PYTHONPATH'] = ROOT
    out = subprocess.run([sys.executable, os.path.join(HERE, 'parallel_tutorial.py'),
                          framework], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    parts = re.split(r'^## (.*)\n', out, flags=re.M)[1:]
    return {name: _without_drawings(text) for name, text in zip(parts[::2], parts[1::2])}


def _without_drawings(text):
    """``visualize_array_sharding``'s table (minijax's, drawn as JAX draws it without rich,
    checked in test_sharding.py) and JAX's error without rich, left out of the output."""
    return '\n'.join(line for line in text.splitlines()
                     if not re.match('[┌│├└]', line)
                     and 'requires `rich` to be installed' not in line)


@pytest.fixture(scope='module')
def outputs():
    return _output('minijax'), _output('jax')


def test_every_cell_prints_what_jax_prints(outputs):
    mine, theirs = outputs
    assert mine.keys() == theirs.keys()
    for name in theirs:
        assert mine[name] == theirs[name], name
