"""The ``minijax`` command, called in this process (``minijax.cli.main(argv)`` with its
standard streams captured) except where only a real process can tell: standard input, Ctrl-C,
``python -m minijax`` and the exit status of the installed script.

Numbers are compared against JAX (the oracle); outputs are parsed here with ``ast``, not with
minijax's own VALUE parser.
"""
import ast
import contextlib
import dataclasses
import io
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from minijax import cli
from testlib import assert_close

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASICS = os.path.join(REPO, 'examples', 'basics.py')
MINIJAX = os.path.join(os.path.dirname(sys.executable), 'minijax')
FILECHECK = os.path.join(os.path.dirname(sys.executable), 'filecheck')


@dataclasses.dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


def minijax(*args, cwd=None, env=None, stdin=b''):
    """``minijax ARGS`` in this process: its exit status and what it wrote. ``sys.path`` and
    ``sys.modules`` are restored after it (a TARGET file is imported as a module)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding='utf-8', write_through=True)
    err = io.StringIO()
    path, modules = list(sys.path), dict(sys.modules)
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(_stdin(stdin))
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(_environ(env or {}))
        try:
            status = cli.main(list(args))
        except SystemExit as exit_:  # argparse: --help, --version and usage errors
            status = exit_.code
        finally:
            sys.path[:] = path
            for name in set(sys.modules) - set(modules):
                del sys.modules[name]
    data = out.buffer.getvalue()
    return Result(status, data.decode(errors='replace'), err.getvalue(), data)


@contextlib.contextmanager
def _stdin(data: bytes):
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding='utf-8')
    try:
        yield
    finally:
        sys.stdin = saved


@contextlib.contextmanager
def _environ(env):
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def minijax_process(*args, **kwargs):
    """The installed ``minijax`` script as a subprocess, for what needs a real process."""
    return subprocess.run([MINIJAX, *args], capture_output=True, **kwargs)


def parse_outputs(stdout):
    """``f32[3]=[1.0, 2.0]`` lines -> NumPy arrays of the named dtype."""
    dtypes = {name: dtype for name, (_, dtype, _) in EVERY_DTYPE.items()}
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
    assert result.stdout.startswith('module @jit_f attributes {mhlo.num_partitions = 1 : i32, '
                                    'mhlo.num_replicas = 1 : i32} {')
    assert ('func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> '
            '{jax.result_info = "result"})') in result.stdout
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


def _lower_f(*flags):
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', *flags)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_debug_info_inline_writes_each_location_on_its_op():
    """``--inline-locations``: the locations of ``--debug-info``'s alias form, written out."""
    inline = _lower_f('--debug-info', '--inline-locations')
    assert '#loc' not in inline
    assert re.search(r'stablehlo.sine .* loc\("jit\(f\)/sin"\("f"\(".*basics.py":\d+:\d+ '
                     r'to :\d+\)\)\)\n', inline)
    assert 'loc(#loc' in _lower_f('--debug-info')


def test_debug_info_for_jaxpr_and_hlo():
    """Every emit that prints text takes ``--debug-info``: the jaxpr's equations end with
    their line (JAX's ``pretty_print(source_info=True)``), the HLO's instructions carry XLA's
    metadata; without the flag neither HLO has metadata."""
    with open(BASICS) as f:
        line = 1 + f.read().splitlines().index('    return lax.sin(x) * 2. + x')
    jaxpr = _lower_f('--emit', 'jaxpr', '--debug-info')
    assert re.search(rf'b:f32\[3\] = sin a +# .*basics.py:{line}:11 \(f\)\n', jaxpr)
    assert '#' not in _lower_f('--emit', 'jaxpr')
    hlo = _lower_f('--emit', 'hlo', '--debug-info')
    assert 'metadata={op_name="jit(f)/sin" stack_frame_id=' in hlo
    assert f'line={line}' in hlo
    for emit in ('hlo', 'hlo-optimized'):
        assert 'metadata' not in _lower_f('--emit', emit)
    assert 'op_name="jit(f)/sin"' in _lower_f('--emit', 'hlo-optimized', '--debug-info')


def test_emit_jaxpr_and_hlo():
    jaxpr = minijax('lower', f'{BASICS}:norm', '--arg', 'f32[4]', '--emit', 'jaxpr')
    assert jaxpr.returncode == 0, jaxpr.stderr
    assert jaxpr.stdout.startswith('{ lambda ; a:f32[4]. let')
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
    assert (tmp_path / 'real.mlir').read_text().startswith('module @jit_f attributes')
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


def test_run_takes_and_prints_complex_values_as_jax_computes_them(tmp_path):
    (tmp_path / 'user.py').write_text('import minijax.numpy as jnp\n\n\n'
                                      'def f(z, w):\n    return z * w, jnp.abs(z)\n')
    result = minijax('run', f'{tmp_path}/user.py:f', '--arg', 'c64[3]=[1+2j, -3j, 0.5]',
                     '--arg', 'c128[]=-1.5+0.25j')
    assert result.returncode == 0, result.stderr
    z, w = np.array([1 + 2j, -3j, 0.5], np.complex64), np.complex128(-1.5 + 0.25j)
    product, magnitude = parse_outputs(result.stdout)
    assert result.stdout.startswith('c128[3]=[') and '\nf32[3]=[' in result.stdout
    assert_close(product, z * w)
    assert_close(magnitude, jnp.abs(z))


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


def test_run_a_module_written_by_jax_that_calls_lapack(tmp_path):
    """The LAPACK kernels a module calls (``lapack_dpotrf_ffi``...) are registered for it,
    though nothing in the process lowered a decomposition (a process of its own: importing
    jax registers them too)."""
    a = np.array([[4., 1.], [1., 3.]])
    path = tmp_path / 'cholesky.mlir'
    path.write_text(jax.jit(jnp.linalg.cholesky).lower(a).as_text())
    result = minijax_process('run', str(path), '--arg', 'f64[2,2]=[[4, 1], [1, 3]]', text=True)
    assert result.returncode == 0, result.stderr
    np.testing.assert_array_equal(parse_outputs(result.stdout)[0], jnp.linalg.cholesky(a))


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
    error, note = result.stderr.splitlines()  # as mlir-opt prints them
    assert error.startswith(f"{path}:2:8: error: 'stablehlo.sine' op requires compatible")
    assert note.startswith(f'{path}:2:8: note: see current operation: ')


# ----------------------------------------------------------------------------- bad input

USER_MODULE = '''\
from minijax import debug, lax


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


def calls_back(x):
    debug.print('x = {}', x)
    return x


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
NOT_MLIR = (r"minijax: error: '{d}/binary.bin' is a binary file but neither MLIR bytecode nor a "
            r"StableHLO portable artifact .*jax.export.*")

# (arguments, exit status, a regex that the one line on stderr matches in full); {d} is the
# folder of user.py and BAD_INPUT_FILES, and of the directory dir/.
BAD_INPUT = [
    # TARGETs
    (['lower', '{d}/missing.py:f', '--arg', 'f32[3]'], 2,
     r"minijax: error: no such file: '{d}/missing.py'"),
    (['lower', '{d}/dir:f'], 2, r"minijax: error: '{d}/dir' is a directory, not a file"),
    (['lower', '/proc/self/mem:f'], 2,
     r"minijax: error: cannot read '/proc/self/mem': Input/output error"),
    (['lower', '{d}/binary.py:f'], 1,
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
    (['lower', '{d}/user.py:fails', '--arg', 'c32[3]'], 2,
     r"minijax: error: bad SPEC 'c32\[3\]': unknown dtype 'c32' .*"),
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
    (['run', '{d}/user.py:fails', '--arg', 'c64[]=1+2'], 2,
     r"minijax: error: bad literal '1\+2': '1 \+ 2' is not a complex number \(write it as "
     r"REAL\+IMAGj, such as 1.0-2.0j\)"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[2]=[1, 2j]'], 2,
     r"minijax: error: VALUE 'f32\[2\]=\[1, 2j\]': f32\[2\] needs real numbers, the literal "
     r"has complex128"),
    (['run', '{d}/user.py:fails', '--arg', 'c64[]=1e39j'], 2,
     r"minijax: error: VALUE 'c64\[\]=1e39j': a number is out of range for c64\[\]"),
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
     r'minijax: error: --emit bytecode writes binary data: give an output file with -o '
     r'\(-o - for stdout\)'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'bytecode', '-o', '-',
      '--target-version', '1.2'], 2,
     r"minijax: error: bad --target-version '1.2': expected a StableHLO version X.Y.Z from "
     r'\d+\.\d+\.\d+ to \d+\.\d+\.\d+'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--target-version', '1.5.0'], 2,
     r'minijax: error: --target-version applies to --emit bytecode, not stablehlo'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--passes', 'cse,bogus'], 2,
     r"minijax: error: bad --passes 'cse,bogus': 'bogus' does not refer to a registered pass "
     r'or pass pipeline'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'llvm'], 2,
     r"minijax lower: error: argument --emit: invalid choice: 'llvm' .*"),
    (['lower', '{d}/user.py:calls_back', '--arg', 'f32[3]', '--emit', 'bytecode', '-o',
      '{d}/out.mlirbc'], 1,
     r'minijax: error: the function calls back into Python \(debug.print, debug.callback, '
     r'pure_callback\): a portable artifact cannot carry the Python function, so nothing '
     r'could run it'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'hlo', '--debug-info',
      '--inline-locations'],
     2, r'minijax: error: --inline-locations applies to the text of --emit stablehlo \(and '
        r'jaxpr, always inline\), not hlo'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--inline-locations'], 2,
     r'minijax: error: --inline-locations writes the locations of --debug-info: give both'),
    (['lower', '{d}/user.py:fails', '--bogus'], 2, r'minijax: error: unrecognized arguments.*'),
    (['run', '{d}/user.py:fails', '--arg', 'f32[3]=[1, 2, 3]', '--backend', 'gpu'], 2,
     r'minijax run: error: argument --backend: invalid choice.*'),
    # files given to run, check, update-checks
    (['run', '{d}/missing.mlir'], 2, r"minijax: error: no such file: '{d}/missing.mlir'"),
    (['run', '{d}/binary.bin'], 1, NOT_MLIR),
    (['run', '{d}/no_main.mlir'], 1,
     r'{d}/no_main.mlir: error: the module has no @main function to run \(its functions: '
     r'@other; pick one with --entry NAME\)'),
    (['run', '{d}/no_main.mlir', '--entry', 'missing'], 1,
     r'{d}/no_main.mlir: error: the module has no function @missing \(its functions: @other\)'),
    (['run', '{d}/identity.mlir', '--entry', '', '--arg', 'f32[2]=[1, 2]'], 2,
     r'minijax run: error: argument --entry: expected the name of a function, got an empty '
     r'one \(see minijax run --help\)'),
    (['check', '{d}/identity.mlir', '--entry', ''], 2,
     r'minijax check: error: argument --entry: expected the name of a function, got an empty '
     r'one \(see minijax check --help\)'),
    (['run', '{d}/user.py:fails', '--entry', 'main'], 2,
     r'minijax: error: --entry picks a function of a module file.*'),
    (['check', '{d}/user.py'], 1, r'{d}/user.py:1:1: error: .*'),
    (['check', '{d}/binary.bin'], 1, NOT_MLIR),   # read, and not a module: as mlir-opt
    (['check', '{d}/dir'], 2, r"minijax: error: '{d}/dir' is a directory, not a file"),
    (['check', '/proc/self/mem'], 2,
     r"minijax: error: cannot read '/proc/self/mem': Input/output error"),
    (['update-checks', '{d}/user.py'], 2,
     r"{d}/user.py: error: no RUN line pipes into 'FileCheck %s'"),
    (['update-checks', '{d}/binary.bin'], 1, NOT_TEXT + 'a lit test'),
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
     r'{d}/user.py:13: error: in mismatched: TypeError: lax.mul requires arguments to '
     r'have the same dtypes, got float32, int32.*'),
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
    command = "minijax lower examples/basics.py:f --arg 'f32[3]'"
    assert command in readme
    shown = readme.split('```mlir\n', 1)[1].split('```', 1)[0]
    assert minijax(*shlex.split(command)[1:], cwd=REPO).stdout == shown


# ----------------------------------------------------------------------------- JAX's modules

def jax_corpus():
    """(name, JAX's module text, the argument VALUEs, JAX's outputs, whether the reference
    interpreter can run it): functions JAX lowers with chlo ops and Shardy annotations."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec
    x = np.array([[0.5, -1.25, 2.], [3., -0.75, 0.125]], np.float32)
    key = np.array([0, 42], np.uint32)
    sharded = NamedSharding(jax.make_mesh((1,), ('x',)), PartitionSpec('x'))
    functions = [  # (name, function, argument, jit's keyword arguments)
        ('var', jnp.var, x, {}),
        ('erf_sinh_tan', lambda v: jax.scipy.special.erf(v) + jnp.sinh(v) * jnp.tan(v), x, {}),
        ('top_k', lambda v: jax.lax.top_k(v, 2), x, {}),
        ('random_bits', lambda k: jax.random.bits(jax.random.wrap_key_data(k), (3,)), key, {}),
        ('shardy', lambda v: jnp.cos(v) * 2, x[0, :2],
         dict(in_shardings=sharded, out_shardings=sharded)),
    ]
    corpus = []
    for name, fn, arg, jit_kwargs in functions:
        jitted = jax.jit(fn, **jit_kwargs)
        outputs = [np.asarray(o) for o in jax.tree.leaves(jitted(arg))]
        corpus.append((name, jitted.lower(arg).as_text(), arg, outputs, name != 'shardy'))
    return corpus


def value_arg(array):
    """A VALUE for ``array``, written here rather than by minijax."""
    names = {np.float32: 'f32', np.uint32: 'u32'}
    return f'{names[array.dtype.type]}[{",".join(map(str, array.shape))}]={array.tolist()}'


def test_modules_that_jax_writes_check_and_run_with_jax_numbers(tmp_path):
    for name, text, arg, expected, interpretable in jax_corpus():
        assert 'chlo.' in text or 'sdy.' in text or name == 'random_bits'
        path = tmp_path / f'{name}.mlir'
        path.write_text(text)
        assert minijax('check', str(path)).returncode == 0
        for backend in ('pjrt', 'interpreter'):
            result = minijax('run', str(path), '--arg', value_arg(arg), '--backend', backend)
            if backend == 'interpreter' and not interpretable:
                assert result.returncode == 1 and len(result.stderr.splitlines()) == 1
                assert 'cannot run sdy.mesh' in result.stderr
                continue
            assert result.returncode == 0, (name, backend, result.stderr)
            outputs = parse_outputs(result.stdout)
            assert len(outputs) == len(expected)
            for got, want in zip(outputs, expected):
                assert got.dtype == want.dtype
                assert_close(got, want)


EVERY_DTYPE = {  # SPEC name -> (MLIR element type, NumPy dtype, extreme values)
    'u8': ('ui8', np.uint8, [0, 255]), 'u16': ('ui16', np.uint16, [0, 65535]),
    'u32': ('ui32', np.uint32, [0, 2 ** 32 - 1]), 'u64': ('ui64', np.uint64, [0, 2 ** 64 - 1]),
    'i8': ('i8', np.int8, [-128, 127]), 'i16': ('i16', np.int16, [-2 ** 15, 2 ** 15 - 1]),
    'i32': ('i32', np.int32, [-2 ** 31, 2 ** 31 - 1]),
    'i64': ('i64', np.int64, [-2 ** 63, 2 ** 63 - 1]),
    'f16': ('f16', np.float16, [6e-08, -65504.0]), 'bf16': ('bf16', jnp.bfloat16, [0.1, -3e38]),
    'f32': ('f32', np.float32, [1e-45, float('-inf')]),
    'f64': ('f64', np.float64, [5e-324, float('nan')]), 'bool': ('i1', np.bool_, [True, False]),
    'c64': ('complex<f32>', np.complex64, [complex(1, -2.5), complex(float('inf'), float('nan'))]),
    'c128': ('complex<f64>', np.complex128, [complex(-1.5, 5e-324), complex(1e300, -0.0)]),
}


def test_every_dtype_runs_and_every_printed_value_reads_back(tmp_path):
    types = [f'tensor<2x{mlir}>' for mlir, _, _ in EVERY_DTYPE.values()]
    arguments = ', '.join(f'%a{i}: {t}' for i, t in enumerate(types))
    returned = ', '.join(f'%a{i}' for i in range(len(types)))
    path = tmp_path / 'identity.mlir'
    path.write_text(f'func.func @main({arguments}) -> ({", ".join(types)}) {{\n'
                    f'  return {returned} : {", ".join(types)}\n}}\n')
    values = [f'{name}[2]={values}' for name, (_, _, values) in EVERY_DTYPE.items()]
    first = minijax('run', str(path), *[a for v in values for a in ('--arg', v)])
    assert first.returncode == 0, first.stderr
    printed = first.stdout.splitlines()
    again = minijax('run', str(path), *[a for v in printed for a in ('--arg', v)])
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
    for line, (name, (_, dtype, values)) in zip(printed, EVERY_DTYPE.items()):
        spec, literal = line.split('=')
        assert spec == f'{name}[2]'
        np.testing.assert_array_equal(_read_printed(literal, dtype), np.array(values, dtype))


def _read_printed(literal, dtype):
    """A printed list of numbers read by Python: complex numbers by ``complex()`` (which
    reads ``inf+nanj``), nan and inf by ``float()``."""
    if np.dtype(dtype).kind == 'c':
        return np.array([complex(v) for v in literal.strip('[]').split(', ')], dtype)
    quoted = re.sub(r'(-?inf|nan)\b', r'"\1"', literal)  # for ast, then float()
    return np.array([float(v) if isinstance(v, str) else v
                     for v in ast.literal_eval(quoted)], dtype)


ENTRY_MODULE = '''\
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = call @double(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func private @double(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
'''


@pytest.mark.parametrize('backend', ['pjrt', 'interpreter'])
def test_entry_picks_the_function_to_run_or_check(tmp_path, backend):
    path = tmp_path / 'm.mlir'
    path.write_text(ENTRY_MODULE)
    result = minijax('run', str(path), '--entry', 'double', '--arg', 'f32[2]=[1.5, -2]',
                     '--backend', backend)
    assert (result.returncode, result.stdout) == (0, 'f32[2]=[3.0, -4.0]\n'), result.stderr
    checked = minijax('check', str(path), '--entry', 'double')
    assert checked.stdout == 'func.func private @double(tensor<2xf32>) -> tensor<2xf32>\n'


# ----------------------------------------------------------------------------- MLIR habits

def test_version_names_minijax_jaxlib_and_stablehlo():
    import jaxlib
    from jaxlib.mlir.dialects import stablehlo
    result = minijax('--version')
    assert result.returncode == 0
    assert re.fullmatch(rf'minijax \d+\.\d+\.\d+ \(jaxlib {re.escape(jaxlib.__version__)}, '
                        rf'StableHLO {stablehlo.get_current_version()}\)\n', result.stdout)


def test_stdin_python_m_and_exit_status_in_a_real_process():
    bad = ENTRY_MODULE.replace('%y = stablehlo.add %x, %x : tensor<2xf32>',
                               '%y = stablehlo.add %x, %x : tensor<3xf32>')
    result = subprocess.run([sys.executable, '-m', 'minijax', 'check', '-'], input=bad,
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [  # as mlir-opt prints them
        "<stdin>:6:22: error: use of value '%x' expects different type than prior uses: "
        "'tensor<3xf32>' vs 'tensor<2xf32>'",
        '<stdin>:5:27: note: prior use here']
    ran = minijax_process('run', '-', '--arg', 'f32[2]=[1, 2]', input=ENTRY_MODULE.encode())
    assert (ran.returncode, ran.stdout) == (0, b'f32[2]=[2.0, 4.0]\n'), ran.stderr


def test_a_crash_while_parsing_bytecode_is_one_line():
    corrupt = os.path.join(REPO, 'test', 'lit', 'Inputs', 'corrupt.mlirbc')
    result = minijax('check', corrupt)
    assert result.returncode == 1
    assert result.stderr == (f'{corrupt}: error: MLIR crashed (SIGSEGV) reading this file: it '
                             'is corrupt or not a module this jaxlib can read\n')


def test_bytecode_to_stdout_targets_the_version_jax_export_writes():
    import jax
    exported = jax.export.export(jax.jit(jnp.sin))(np.ones(3, np.float32))
    jax_version = re.search(rb'StableHLO_v\d+\.\d+\.\d+', exported.mlir_module_serialized)[0]
    default = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '--emit', 'bytecode',
                      '-o', '-')
    assert default.returncode == 0, default.stderr
    assert default.stdout_bytes.startswith(b'ML\xefR')
    assert re.search(rb'StableHLO_v\d+\.\d+\.\d+', default.stdout_bytes)[0] == jax_version
    older = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '--emit', 'bytecode', '-o', '-',
                    '--target-version', '1.0.0')
    assert b'StableHLO_v1.0.0' in older.stdout_bytes


def test_emit_hlo_is_unoptimized_and_hlo_optimized_is_compiled():
    import jax
    jax_hlo = jax.jit(lambda x: jnp.sin(x) * 2. + x).lower(np.ones(3, np.float32)).as_text(
        dialect='hlo')
    ours = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '--emit', 'hlo').stdout

    def opcodes(hlo):
        return re.findall(r'= \S+ (\w+)\(', hlo)
    assert opcodes(ours) == opcodes(jax_hlo)  # sine, constant, broadcast, multiply, add
    optimized = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '--emit', 'hlo-optimized')
    assert 'fusion' in optimized.stdout and 'fusion' not in ours


def test_passes_run_on_the_module_before_it_is_emitted(tmp_path):
    (tmp_path / 'user.py').write_text(
        'from minijax import lax\n\n\ndef f(x):\n    return lax.sin(x) + lax.sin(x)\n')
    plain = minijax('lower', f'{tmp_path}/user.py:f', '--arg', 'f32[2]')
    assert plain.stdout.count('stablehlo.sine') == 2
    merged = minijax('lower', f'{tmp_path}/user.py:f', '--arg', 'f32[2]', '--passes',
                     'canonicalize,cse,symbol-dce')
    assert merged.returncode == 0, merged.stderr
    assert merged.stdout.count('stablehlo.sine') == 1
    assert 'stablehlo.add %0, %0' in merged.stdout


def test_output_to_dev_null_writes_into_it():
    result = minijax('lower', f'{BASICS}:f', '--arg', 'f32[3]', '-o', os.devnull)
    assert (result.returncode, result.stdout, result.stderr) == (0, '', '')
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_update_checks_labels_every_function_and_keeps_region_captures_apart(tmp_path):
    test = tmp_path / 'switch.py'
    source = open(os.path.join(REPO, 'test', 'lit', 'control_flow', 'switch.py')).read()
    test.write_text(re.sub(r'^# CHECK.*\n', '', source, flags=re.M))
    assert minijax('update-checks', str(test)).returncode == 0
    updated = test.read_text()
    assert updated.startswith('# NOTE: Assertions have been autogenerated by '
                              '`minijax update-checks`\n# RUN:')
    assert '# CHECK-LABEL: func.func public @main(\n# CHECK-SAME: %[[ARG0:.*]]: ' in updated
    defined = re.findall(r'\[\[(\w+):', updated)
    assert len(defined) == len(set(defined))  # each case region's %2 a capture of its own
    assert filecheck(test) == 0
    assert minijax('update-checks', str(test)).returncode == 0
    assert test.read_text() == updated
