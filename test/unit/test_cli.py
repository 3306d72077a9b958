"""The ``minijax`` command, run as a user runs it: a subprocess of the installed script.

Numbers are compared against JAX (the oracle); outputs are parsed here with ``ast``, not with
minijax's own VALUE parser.
"""
import ast
import os
import shutil
import subprocess
import sys
import textwrap

import jax.numpy as jnp
import numpy as np
import pytest

from conftest import assert_close

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASICS = os.path.join(REPO, 'examples', 'basics.py')
MINIJAX = os.path.join(os.path.dirname(sys.executable), 'minijax')
FILECHECK = os.path.join(os.path.dirname(sys.executable), 'filecheck')


def minijax(*args, cwd=None, env=None):
    return subprocess.run([MINIJAX, *args], capture_output=True, text=True, cwd=cwd,
                          env=None if env is None else {**os.environ, **env})


def parse_outputs(stdout):
    """``f32[3]=[1.0, 2.0]`` lines -> NumPy arrays of the named dtype."""
    dtypes = {'f32': np.float32, 'f64': np.float64, 'i32': np.int32, 'i64': np.int64,
              'bool': np.bool_}
    arrays = []
    for line in stdout.splitlines():
        spec, _, literal = line.partition('=')
        arrays.append(np.array(ast.literal_eval(literal), dtypes[spec.split('[')[0]]))
    return arrays


# ----------------------------------------------------------------------------- help

HELP_FLAGS = {
    (): ['lower', 'run', 'check', 'update-checks', '--traceback', '--help'],
    ('lower',): ['TARGET', '--arg', 'SPEC', '-o', 'OUT', '--emit', 'stablehlo', 'jaxpr', 'hlo',
                 'bytecode', '--debug-info', '--traceback', 'f32[3,4]', '(f32[3], f32[3])'],
    ('run',): ['TARGET', '--arg', 'VALUE', '@file.npy', '--backend', 'pjrt', 'interpreter',
               '.mlir', 'portable artifact', '--traceback'],
    ('check',): ['FILE', '--traceback'],
    ('update-checks',): ['FILE', '--traceback'],
}


@pytest.mark.parametrize('command', list(HELP_FLAGS))
def test_help_documents_every_flag(command):
    result = minijax(*command, '--help')
    assert result.returncode == 0, result.stderr
    help_text = ' '.join(result.stdout.split())  # argparse wraps lines
    for flag in HELP_FLAGS[command]:
        assert flag in help_text, flag


# ----------------------------------------------------------------------------- lower

def test_lower_prints_the_stablehlo_of_jit():
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]')
    assert result.returncode == 0 and result.stderr == ''
    assert result.stdout.startswith('module @jit_f {')
    assert 'func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32>' in result.stdout
    assert 'stablehlo.sine' in result.stdout and 'loc(' not in result.stdout


def test_lower_accepts_a_dotted_module_target():
    result = minijax('lower', 'minijax.lax:cos', '--arg', 'float64[2,2]')
    assert result.returncode == 0, result.stderr
    assert 'stablehlo.cosine %arg0 : tensor<2x2xf64>' in result.stdout


def test_debug_info_names_the_user_line_and_the_primitive():
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '--debug-info')
    assert result.returncode == 0, result.stderr
    with open(BASICS) as f:
        line = 1 + f.read().splitlines().index('    return lax.sin(x) * 2. + x')
    assert f'basics.py":{line}:0)' in result.stdout
    assert 'loc("sin"(' in result.stdout and 'loc("add"(' in result.stdout


def test_emit_jaxpr_and_hlo():
    jaxpr = minijax('lower', f'{BASICS}:norm', '--arg', 'f32[4]', '--emit', 'jaxpr')
    assert jaxpr.returncode == 0, jaxpr.stderr
    assert jaxpr.stdout.startswith('{ lambda a:float32[4] .')
    assert 'reduce_sum' in jaxpr.stdout and 'sqrt' in jaxpr.stdout
    hlo = minijax('lower', f'{BASICS}:norm', '--arg', 'f32[4]', '--emit', 'hlo')
    assert hlo.returncode == 0, hlo.stderr
    assert hlo.stdout.startswith('HloModule jit_norm') and 'ENTRY' in hlo.stdout


def test_output_file_is_written_whole(tmp_path):
    out = tmp_path / 'f.mlir'
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '-o', str(out))
    assert result.returncode == 0 and result.stdout == ''
    expected = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]').stdout
    assert out.read_text() == expected
    assert os.listdir(tmp_path) == ['f.mlir']  # no temporary file left


@pytest.mark.parametrize('bad_args', [
    ['--arg', 'f32[3]', '--arg', 'f32[3]'],  # wrong number of --arg
    ['--arg', 'q32[3]'],  # bad SPEC
])
def test_output_file_is_untouched_on_error(tmp_path, bad_args):
    out = tmp_path / 'f.mlir'
    out.write_text('previous contents\n')
    result = minijax('lower', f'{BASICS}:f', *bad_args, '-o', str(out))
    assert result.returncode == 2
    assert out.read_text() == 'previous contents\n'
    assert os.listdir(tmp_path) == ['f.mlir']


def test_output_file_is_not_created_when_the_function_raises(tmp_path):
    source = tmp_path / 'user.py'
    source.write_text('def f(x):\n    raise ValueError("nope")\n')
    result = minijax('lower', f'{source}:f', '--arg', 'f32[3]', '-o', str(tmp_path / 'out.mlir'))
    assert result.returncode == 1
    assert sorted(os.listdir(tmp_path)) == ['user.py']


def test_output_file_keeps_its_permissions(tmp_path):
    out = tmp_path / 'f.mlir'
    out.write_text('old\n')
    out.chmod(0o640)
    assert minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '-o', str(out)).returncode == 0
    assert out.stat().st_mode & 0o777 == 0o640


# ----------------------------------------------------------------------------- run

# (function, --arg VALUEs, the same values as arrays, the oracle)
EXAMPLES = [
    ('f', ['f32[4]=[0, 1, -2.5, 3]'], [np.array([0, 1, -2.5, 3], np.float32)],
     lambda x: jnp.sin(x) * 2 + x),
    ('norm', ['f64[3]=[1, 2, 2]'], [np.array([1., 2., 2.])],
     lambda v: jnp.sqrt(jnp.sum(v * v))),
    ('softplus_sum', ['f32[2,3]=[[0, 1, 2], [3, 4, 5]]', 'f32[2,3]=[[1, 1, 1], [-1, -2, -3]]'],
     [np.arange(6, dtype=np.float32).reshape(2, 3),
      np.array([[1, 1, 1], [-1, -2, -3]], np.float32)],
     lambda x, y: jnp.sum(jnp.log(1 + jnp.exp(x + y)), axis=0)),
    ('count_positive', ['f64[5]=[1, -2, 3, 0, 0.5]'], [np.array([1, -2, 3, 0, .5])],
     lambda x: jnp.sum(x > 0).astype(jnp.int32)),
    ('affine', ['(f32[2], f32[2,3])=([1, 2], [[1, 2, 3], [4, 5, 6]])'],
     [(np.array([1, 2], np.float32), np.arange(1, 7, dtype=np.float32).reshape(2, 3))],
     lambda pair: pair[1].T @ pair[0]),
]


@pytest.mark.parametrize('name, values, arrays, oracle', EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_examples_give_the_oracle_numbers_on_both_backends(name, values, arrays, oracle):
    outputs = {}
    for backend in ('pjrt', 'interpreter'):
        args = [a for v in values for a in ('--arg', v)]
        result = minijax('run', f'{BASICS}:{name}', *args, '--backend', backend)
        assert result.returncode == 0, result.stderr
        (outputs[backend],) = parse_outputs(result.stdout)
        assert_close(outputs[backend], oracle(*arrays))
    assert_close(outputs['pjrt'], outputs['interpreter'])


def test_run_reads_npy_arguments(tmp_path):
    x = np.linspace(-1, 1, 5)
    np.save(tmp_path / 'x.npy', x)
    result = minijax('run', f'{BASICS}:f', '--arg', f'@{tmp_path / "x.npy"}')
    assert result.returncode == 0, result.stderr
    assert_close(parse_outputs(result.stdout)[0], np.sin(x) * 2 + x)


@pytest.mark.parametrize('emit, suffix', [('stablehlo', '.mlir'), ('bytecode', '.mlirbc')])
@pytest.mark.parametrize('backend', ['pjrt', 'interpreter'])
def test_run_a_lowered_module_file(tmp_path, emit, suffix, backend):
    path = tmp_path / f'softplus{suffix}'
    lowered = minijax('lower', f'{BASICS}:softplus_sum', '--arg', 'f64[2,2]', '--arg',
                      'f64[2,2]', '--emit', emit, '-o', str(path))
    assert lowered.returncode == 0, lowered.stderr
    if emit == 'bytecode':
        assert path.read_bytes().startswith(b'ML\xefR')
    result = minijax('run', str(path), '--arg', 'f64[2,2]=[[0, 1], [2, 3]]', '--arg',
                     'f64[2,2]=[[1, 0], [0, -1]]', '--backend', backend)
    assert result.returncode == 0, result.stderr
    x, y = np.array([[0., 1], [2, 3]]), np.array([[1., 0], [0, -1]])
    assert_close(parse_outputs(result.stdout)[0], jnp.sum(jnp.log1p(jnp.exp(x + y)), axis=0))


def test_dump_dir_receives_the_compiled_module(tmp_path):
    result = minijax('run', f'{BASICS}:norm', '--arg', 'f32[2]=[3, 4]',
                     env={'MINIJAX_DUMP_DIR': str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert os.listdir(tmp_path) == ['jit_norm.mlir']
    dumped = (tmp_path / 'jit_norm.mlir').read_text()
    assert dumped == minijax('lower', f'{BASICS}:norm', '--arg', 'f32[2]').stdout


# ----------------------------------------------------------------------------- check

def test_check_prints_signatures(tmp_path):
    path = tmp_path / 'm.mlir'
    source = '''\
        import minijax
        from minijax import lax

        inner = minijax.jit(lax.sin)


        def outer(x, y):
            return inner(x), inner(y)
    '''
    (tmp_path / 'user.py').write_text(textwrap.dedent(source))
    assert minijax('lower', f'{tmp_path}/user.py:outer', '--arg', 'f32[2]', '--arg', 'f32[2]',
                   '-o', str(path)).returncode == 0
    result = minijax('check', str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        'func.func public @main(tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)',
        'func.func private @sin(tensor<2xf32>) -> tensor<2xf32>']


def test_check_reports_the_mlir_diagnostic(tmp_path):
    path = tmp_path / 'bad.mlir'
    path.write_text('func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n'
                    '  %y = stablehlo.sine %x : (tensor<2xf32>) -> tensor<3xf32>\n'
                    '  return %y : tensor<3xf32>\n'
                    '}\n')
    result = minijax('check', str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(f'{path}:2:8: error: ')
    assert len(result.stderr.splitlines()) == 1


# ----------------------------------------------------------------------------- bad input

USER_MODULE = '''\
from minijax import lax


def fails(x):
    return helper(x)


def helper(x):
    raise RuntimeError('the user function broke')


def mismatched(x, y):
    return lax.mul(x, y)


answer = 42
'''

# (arguments, exit status, the start of the one-line message); {d} is the user module's folder
BAD_INPUT = [
    (['lower', '{d}/missing.py:f', '--arg', 'f32[3]'], 2, "minijax: error: no such file"),
    (['lower', '{d}/user.py:nothing', '--arg', 'f32[3]'], 2,
     "minijax: error: {d}/user.py has no function 'nothing'"),
    (['lower', '{d}/user.py:answer'], 2, "minijax: error: 'answer' in {d}/user.py is not"),
    (['lower', '{d}/user.py', '--arg', 'f32[3]'], 2, "minijax: error: bad TARGET"),
    (['lower', 'not_a_module_anywhere:f'], 2, "minijax: error: no module named"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3'], 2, "minijax: error: bad SPEC 'f32[3'"),
    (['lower', '{d}/user.py:fails', '--arg', 'c64[3]'], 2, "minijax: error: bad SPEC"),
    (['lower', '{d}/user.py:fails'], 2, 'minijax: error: wrong number of --arg'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'bytecode'], 2,
     'minijax: error: --emit bytecode writes binary data'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'llvm'], 2,
     'minijax lower: error: argument --emit: invalid choice'),
    (['lower', '{d}/user.py:fails', '--bogus'], 2, 'minijax: error: unrecognized arguments'),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]'], 2, "minijax: error: bad VALUE 'f32[3]'"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]=[1, 2]'], 2,
     "minijax: error: VALUE 'f32[3]=[1, 2]': the literal has shape (2,)"),
    (['run', '{d}/user.py:fails', '--arg', 'bool[]=1'], 2, "minijax: error: VALUE 'bool[]=1'"),
    (['run', '{d}/user.py:fails', '--arg', 'i32[]=2147483648'], 2,
     'minijax: error: VALUE \'i32[]=2147483648\': a number is out of range'),
    (['run', '{d}/user.py:fails', '--arg', '@{d}/user.py'], 2,
     "minijax: error: '{d}/user.py' is not a .npy file"),
    (['run', '{d}/missing.mlir'], 2, 'minijax: error: no such file'),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]=[1, 2, 3]', '--backend', 'gpu'], 2,
     'minijax run: error: argument --backend: invalid choice'),
    (['check', '{d}/user.py'], 1, '{d}/user.py:1:1: error: '),
    (['update-checks', '{d}/user.py'], 2, "{d}/user.py: error: no RUN line"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]'], 1,
     '{d}/user.py:9: error: in helper: RuntimeError: the user function broke'),
    (['lower', '{d}/user.py:mismatched', '--arg', 'f32[3]', '--arg', 'i32[3]'], 1,
     '{d}/user.py:13: error: in mismatched: TypeError: mul got incompatible operands'),
]


@pytest.mark.parametrize('args, status, message', BAD_INPUT,
                         ids=[' '.join(c[0][:2] + c[0][3:]) for c in BAD_INPUT])
def test_bad_input_is_one_line_and_an_exit_status(tmp_path, args, status, message):
    (tmp_path / 'user.py').write_text(USER_MODULE)
    result = minijax(*(a.format(d=tmp_path) for a in args))
    assert result.returncode == status, result.stderr
    assert result.stdout == ''
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(message.format(d=tmp_path)), result.stderr


def test_traceback_flag_shows_the_traceback(tmp_path):
    (tmp_path / 'user.py').write_text(USER_MODULE)
    plain = minijax('lower', f'{tmp_path}/user.py:fails', '--arg', 'f32[3]')
    full = minijax('lower', f'{tmp_path}/user.py:fails', '--arg', 'f32[3]', '--traceback')
    assert 'Traceback' not in plain.stderr
    assert full.returncode == 1
    assert full.stderr.startswith('Traceback (most recent call last):')
    assert "raise RuntimeError('the user function broke')" in full.stderr
    assert full.stderr.splitlines()[-1] == plain.stderr.strip()


# ----------------------------------------------------------------------------- update-checks

STALE_TEST = '''\
# RUN: %python %s | FileCheck %s
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

print(jit(lax.exp).lower(ShapeDtypeStruct((2,), np.float32)).as_text())
# CHECK-LABEL: module @jit_exp
# CHECK: stablehlo.log

print(jit(lax.add).lower(np.ones((2, 2)), np.ones((2, 2))).as_text())
# CHECK-LABEL: module @jit_add
# CHECK: stale
'''


def filecheck(test):
    """Run ``test``'s pipeline as lit would: ``python test | filecheck test``."""
    produced = subprocess.run([sys.executable, str(test)], capture_output=True, text=True)
    return subprocess.run([FILECHECK, str(test)], input=produced.stdout,
                          capture_output=True, text=True).returncode


def test_update_checks_round_trip(tmp_path):
    test = tmp_path / 'golden.py'
    test.write_text(STALE_TEST)
    assert filecheck(test) != 0
    result = minijax('update-checks', str(test))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f'{test}: wrote 2 check blocks\n'
    updated = test.read_text()
    assert filecheck(test) == 0
    assert 'stale' not in updated and 'stablehlo.log' not in updated
    assert '# CHECK-LABEL: module @jit_exp\n' in updated  # labels kept as written
    assert '%[[ARG0:.*]]: tensor<2x2xf64>' in updated and '%arg0' not in updated
    assert minijax('update-checks', str(test)).returncode == 0
    assert test.read_text() == updated


def test_update_checks_leaves_the_file_alone_when_the_run_fails(tmp_path):
    test = tmp_path / 'broken.py'
    test.write_text(STALE_TEST.replace('import numpy as np', 'import numpy as np\n1 / 0'))
    result = minijax('update-checks', str(test))
    assert result.returncode == 1
    assert 'ZeroDivisionError' in result.stderr and len(result.stderr.splitlines()) == 1
    assert test.read_text() == STALE_TEST.replace('import numpy as np',
                                                  'import numpy as np\n1 / 0')


def test_a_hand_written_lit_test_regenerates_and_still_passes(tmp_path):
    source = os.path.join(REPO, 'test', 'lit', 'primitives', 'reduce_sum.py')
    test = tmp_path / 'reduce_sum.py'
    shutil.copy(source, test)
    assert minijax('update-checks', str(test)).returncode == 0
    assert filecheck(test) == 0


def test_readme_shows_what_its_lower_command_prints():
    with open(os.path.join(REPO, 'README.md')) as f:
        readme = f.read()
    command = 'minijax lower examples/basics.py:f --arg f32[3]'
    assert command in readme
    shown = readme.split('```mlir\n', 1)[1].split('```', 1)[0]
    assert minijax(*command.split()[1:], cwd=REPO).stdout == shown
