"""The ``minijax`` command, run as a user runs it: a subprocess of the installed script.

Numbers are compared against JAX (the oracle); outputs are parsed here with ``ast``, not with
minijax's own VALUE parser.
"""
import ast
import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import jax.numpy as jnp
import numpy as np
import pytest

from testlib import assert_close

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


def test_debug_info_locates_ops_as_jax_does():
    """The name stack and primitive, the call's line and columns in the user's function,
    the argument named by its parameter."""
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '--debug-info')
    assert result.returncode == 0, result.stderr
    source = '    return lax.sin(x) * 2. + x'
    with open(BASICS) as f:
        line = 1 + f.read().splitlines().index(source)
    start = source.index('lax.sin(x)')
    assert f'basics.py":{line}:{start} to :{start + len("lax.sin(x)")})' in result.stdout
    assert 'loc("jit(f)/sin"(' in result.stdout and 'loc("jit(f)/add"(' in result.stdout
    assert '%arg0: tensor<3xf32> loc("x")' in result.stdout


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


def test_output_into_a_fifo_writes_into_it(tmp_path):
    fifo = tmp_path / 'pipe'
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '-o', str(fifo))
    reader.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert received == [minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]').stdout]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # the pipe itself, not a file renamed over it
    assert os.listdir(tmp_path) == ['pipe']


def test_output_through_a_symlink_replaces_its_target(tmp_path):
    (tmp_path / 'real.mlir').write_text('old\n')
    (tmp_path / 'link.mlir').symlink_to('real.mlir')
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '-o', str(tmp_path / 'link.mlir'))
    assert result.returncode == 0, result.stderr
    assert os.readlink(tmp_path / 'link.mlir') == 'real.mlir'  # the link stays a link
    assert (tmp_path / 'real.mlir').read_text().startswith('module @jit_f {')
    assert sorted(os.listdir(tmp_path)) == ['link.mlir', 'real.mlir']


LOOPS = """\
import os
import minijax


def started():
    open(os.environ['STARTED'], 'w').close()


def endless(x):
    started()
    return minijax.while_loop(lambda c: c > -1., lambda c: c + 1., x)


def traces_forever(x):
    started()
    while True:
        pass
"""


@pytest.mark.parametrize('args', [
    ['run', '{d}/loops.py:endless', '--arg', 'f32[]=0'],  # XLA runs the loop in C++
    ['run', '{d}/loops.py:endless', '--arg', 'f32[]=0', '--backend', 'interpreter'],
    ['lower', '{d}/loops.py:traces_forever', '--arg', 'f32[]', '-o', '{d}/out/f.mlir'],
], ids=['run', 'run interpreter', 'lower -o'])
def test_ctrl_c_exits_130_with_one_line_and_no_file(tmp_path, args):
    (tmp_path / 'loops.py').write_text(LOOPS)
    (tmp_path / 'out').mkdir()
    started = tmp_path / 'started'
    # A session of its own: Ctrl-C in a terminal signals the whole process group. SIGINT
    # as a terminal leaves it: a pytest-xdist worker ignores it, and a child would inherit
    # that (Python then installs no KeyboardInterrupt handler).
    process = subprocess.Popen([MINIJAX, *(a.format(d=tmp_path) for a in args)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, 'STARTED': str(started)},
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)  # compiled and running, or still tracing
        assert process.poll() is None, process.communicate()
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever is left of the group
    assert process.returncode == 130, stderr
    assert (stdout, stderr) == ('', 'minijax: error: interrupted\n')
    assert os.listdir(tmp_path / 'out') == []


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


def returns_str(x):
    return 'not an array'


def returns_none(x):
    return None


def returns_dict(x):
    return {'x': x, 'label': 'not an array'}


answer = 42
nothing = None
'''

# Files beside user.py that the table names: a module that raises on import, binary data, a
# valid module, a module without @main, a directory.
BAD_INPUT_FILES = {
    'raises.py': 'raise ImportError("broken at import")\n',
    'binary.bin': b'\xff\xfe\x00\x01 not text',
    'binary.py': b'x = 1\n\x00\x01\n',
    'identity.mlir': 'func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n'
                     '  return %x : tensor<2xf32>\n}\n',
    'no_main.mlir': 'func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {\n'
                    '  return %x : tensor<2xf32>\n}\n',
}
NOT_TEXT = r"minijax: error: '{d}/binary.bin' is not text \(byte 0 is not UTF-8\): expected "

# (arguments, exit status, a regex that the one line on stderr matches in full); {d} is the
# folder of user.py and BAD_INPUT_FILES, and of the directory dir/.
BAD_INPUT = [
    # TARGETs
    (['lower', '{d}/missing.py:f', '--arg', 'f32[3]'], 2,
     r"minijax: error: no such file: '{d}/missing.py'"),
    (['lower', '{d}/dir:f'], 2, r"minijax: error: '{d}/dir' is a directory, not a file"),
    (['lower', '/proc/self/mem:f'], 2,
     r"minijax: error: cannot read '/proc/self/mem': Input/output error"),
    (['lower', '{d}/binary.py:f'], 2,
     r"minijax: error: '{d}/binary.py' is not text \(it holds NUL bytes\): expected Python "
     r"source"),
    (['lower', '{d}/user.py:nothing_here', '--arg', 'f32[3]'], 2,
     r"minijax: error: {d}/user.py has no function 'nothing_here'"),
    (['lower', '{d}/user.py:fails.inner', '--arg', 'f32[3]'], 2,
     r"minijax: error: {d}/user.py has no function 'fails.inner'"),
    (['lower', '{d}/user.py:answer'], 2,
     r"minijax: error: 'answer' in {d}/user.py is not a function \(it is of type int\)"),
    (['lower', '{d}/user.py:nothing'], 2,
     r"minijax: error: 'nothing' in {d}/user.py is not a function \(it is of type NoneType\)"),
    (['lower', '{d}/user.py', '--arg', 'f32[3]'], 2, r"minijax: error: bad TARGET .*"),
    (['lower', '{d}/user.py:'], 2, r"minijax: error: bad TARGET '{d}/user.py:': .*"),
    (['lower', ':f'], 2, r"minijax: error: bad TARGET ':f': .*"),
    (['lower', 'not_a_module_anywhere:f'], 2,
     r"minijax: error: no module named 'not_a_module_anywhere'"),
    (['lower', '{d}/raises.py:f'], 1,
     r"{d}/raises.py:1: error: in <module>: ImportError: broken at import"),
    (['run', '{d}/user.py', '--arg', 'f32[3]=[1, 2, 3]'], 2,
     r"minijax: error: TARGET '{d}/user.py' needs a function: {d}/user.py:FUNCTION"),
    # SPECs and VALUEs
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3'], 2, r"minijax: error: bad SPEC 'f32\[3'.*"),
    (['lower', '{d}/user.py:fails', '--arg', 'c64[3]'], 2,
     r"minijax: error: bad SPEC 'c64\[3\]': unknown dtype 'c64' .*"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[-1]'], 2,
     r"minijax: error: bad SPEC 'f32\[-1\]': dimensions must be non-negative integers.*"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[2.5]'], 2,
     r"minijax: error: bad SPEC 'f32\[2.5\]': dimensions must be non-negative integers.*"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[99999999999999]'], 2,
     r"minijax: error: bad SPEC 'f32\[99999999999999\]': f32\[99999999999999\] takes 4e\+14 "
     r"bytes, more than this machine's memory \(.* bytes\)"),
    (['lower', '{d}/user.py:fails', '--arg', 'f64[100000,100000,100000]'], 2,
     r"minijax: error: bad SPEC 'f64\[100000,100000,100000\]': .* takes 8e\+15 bytes, .*"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[0,99999999999999999999]'], 2,
     r"minijax: error: bad SPEC 'f32\[0,99999999999999999999\]': a dimension is larger than "
     r"9223372036854775807"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]'], 2, r"minijax: error: bad VALUE 'f32\[3\]'.*"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]=[1, 2]'], 2,
     r"minijax: error: VALUE 'f32\[3\]=\[1, 2\]': the literal has shape \(2,\) .*"),
    (['run', '{d}/user.py:fails', '--arg', 'bool[]=1'], 2,
     r"minijax: error: VALUE 'bool\[\]=1': bool\[\] needs True/False values, .*"),
    (['run', '{d}/user.py:fails', '--arg', 'i32[]=2147483648'], 2,
     r"minijax: error: VALUE 'i32\[\]=2147483648': a number is out of range for i32\[\]"),
    (['run', '{d}/user.py:fails', '--arg', 'i64[2]=[1, 99999999999999999999]'], 2,
     r"minijax: error: VALUE 'i64\[2\]=\[1, 99999999999999999999\]': a number is out of range "
     r"for i64\[2\]"),
    (['run', '{d}/user.py:fails', '--arg', 'f64[]=1e400'], 2,
     r"minijax: error: bad literal '1e400': a number is out of range for float64 .*"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[99999999999]=0'], 2,
     r"minijax: error: bad SPEC 'f32\[99999999999\]': .* more than this machine's memory .*"),
    (['run', '{d}/user.py:fails', '--arg', '@{d}/user.py'], 2,
     r"minijax: error: '{d}/user.py' is not a .npy file \(write one with numpy.save\)"),
    (['run', '{d}/user.py:fails', '--arg', '@{d}/dir'], 2,
     r"minijax: error: '{d}/dir' is a directory, not a file"),
    # the number of --arg
    (['lower', '{d}/user.py:fails'], 2,
     r"minijax: error: wrong number of --arg for {d}/user.py:fails\(x\): .* \(0 given\)"),
    (['run', '{d}/user.py:mismatched', '--arg', 'f32[]=1'], 2,
     r"minijax: error: wrong number of --arg for {d}/user.py:mismatched\(x, y\): .*"),
    (['run', '{d}/identity.mlir'], 2,
     r"minijax: error: wrong number of --arg for {d}/identity.mlir: @main takes 1, 0 given"),
    (['run', '{d}/identity.mlir', '--arg', 'f64[2]=[1, 2]'], 2,
     r"minijax: error: --arg 0 for {d}/identity.mlir is a tensor<2xf64> but @main expects "
     r"tensor<2xf32>"),
    # flags
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'bytecode'], 2,
     r'minijax: error: --emit bytecode writes binary data: give an output file with -o'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'llvm'], 2,
     r"minijax lower: error: argument --emit: invalid choice: 'llvm' .*"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'jaxpr', '--debug-info'], 2,
     r'minijax: error: --debug-info applies to --emit stablehlo or bytecode, not jaxpr'),
    (['lower', '{d}/user.py:fails', '--bogus'], 2, r'minijax: error: unrecognized arguments.*'),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]=[1, 2, 3]', '--backend', 'gpu'], 2,
     r'minijax run: error: argument --backend: invalid choice.*'),
    # files given to run, check, update-checks
    (['run', '{d}/missing.mlir'], 2, r"minijax: error: no such file: '{d}/missing.mlir'"),
    (['run', '{d}/binary.bin'], 2, NOT_TEXT + 'MLIR text or a StableHLO portable artifact'),
    (['run', '{d}/no_main.mlir'], 1,
     r'{d}/no_main.mlir: error: the module has no @main function to run'),
    (['check', '{d}/user.py'], 1, r'{d}/user.py:1:1: error: .*'),
    (['check', '{d}/binary.bin'], 2, NOT_TEXT + 'MLIR text or a StableHLO portable artifact'),
    (['check', '{d}/dir'], 2, r"minijax: error: '{d}/dir' is a directory, not a file"),
    (['check', '/proc/self/mem'], 2,
     r"minijax: error: cannot read '/proc/self/mem': Input/output error"),
    (['update-checks', '{d}/user.py'], 2,
     r"{d}/user.py: error: no RUN line pipes into 'FileCheck %s'"),
    (['update-checks', '{d}/binary.bin'], 2, NOT_TEXT + 'a lit test'),
    (['update-checks', '{d}/dir'], 2, r"minijax: error: '{d}/dir' is a directory, not a file"),
    (['update-checks', '{d}/missing.py'], 2, r"minijax: error: no such file: '{d}/missing.py'"),
    # -o
    (['lower', '{d}/user.py:mismatched', '--arg', 'f32[3]', '--arg', 'f32[3]', '-o', '{d}/dir'],
     1, r"minijax: error: cannot write '{d}/dir': Is a directory"),
    (['lower', '{d}/user.py:mismatched', '--arg', 'f32[3]', '--arg', 'f32[3]', '-o',
      '{d}/missing/out.mlir'], 1,
     r"minijax: error: cannot write '{d}/missing/out.mlir': No such file or directory"),
    # the user's function fails, or gives something that is not an array
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]'], 1,
     r'{d}/user.py:9: error: in helper: RuntimeError: the user function broke'),
    (['lower', '{d}/user.py:mismatched', '--arg', 'f32[3]', '--arg', 'i32[3]'], 1,
     r'{d}/user.py:13: error: in mismatched: TypeError: mul got incompatible operands.*'),
    (['run', '{d}/user.py:returns_str', '--arg', 'f32[3]=[1, 2, 3]'], 1,
     r'minijax: error: the output of {d}/user.py:returns_str is of type str: expected an '
     r'array, or a tuple, list or dict of arrays'),
    (['lower', '{d}/user.py:returns_none', '--arg', 'f32[3]'], 1,
     r'minijax: error: the output of {d}/user.py:returns_none is None: expected an array.*'),
    (['lower', '{d}/user.py:returns_dict', '--arg', 'f32[3]', '--emit', 'jaxpr'], 1,
     r'minijax: error: the output of {d}/user.py:returns_dict is a dict holding a value of '
     r'type str: expected an array.*'),
]


def write_bad_input_files(folder):
    (folder / 'user.py').write_text(USER_MODULE)
    (folder / 'dir').mkdir()
    for name, contents in BAD_INPUT_FILES.items():
        if isinstance(contents, bytes):
            (folder / name).write_bytes(contents)
        else:
            (folder / name).write_text(contents)


@pytest.mark.parametrize('args, status, message', BAD_INPUT,
                         ids=[' '.join(c[0]).replace('{d}/', '') for c in BAD_INPUT])
def test_bad_input_is_one_line_and_an_exit_status(tmp_path, args, status, message):
    write_bad_input_files(tmp_path)
    before = sorted(os.listdir(tmp_path))
    result = minijax(*(a.format(d=tmp_path) for a in args))
    assert result.returncode == status, result.stderr
    assert result.stdout == ''
    assert 'Traceback' not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert re.fullmatch(message.format(d=re.escape(str(tmp_path))), result.stderr.rstrip('\n')), \
        result.stderr
    assert sorted(os.listdir(tmp_path)) == before  # nothing written, nothing left behind


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
