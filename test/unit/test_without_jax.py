"""minijax runs with jaxlib alone: jax is only the tests' oracle.

jax is installed in the test environment, so a subprocess hides it (an import hook that
refuses ``jax`` and ``jax.*``, but not ``jaxlib``) and exercises jit, grad, vmap, control
flow and Arrays there.
"""
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent('''
    import sys

    class HideJax:
        def find_spec(self, name, path=None, target=None):
            if name == 'jax' or name.startswith('jax.'):
                raise ModuleNotFoundError(f'No module named {name!r} (hidden by the test)')
            return None

    sys.meta_path.insert(0, HideJax())

    import numpy as np
    import minijax as mj
    from minijax import lax

    x = np.arange(4.)
    f = mj.jit(lambda x: lax.reduce_sum(lax.sin(x) * x))
    y = f(x)
    assert y.shape == () and y.dtype == np.float64
    assert [d.id for d in y.devices()] == [0]  # read without jax's Array methods
    np.testing.assert_allclose(y, np.sum(np.sin(x) * x))
    g = mj.jit(mj.grad(f))(x)
    np.testing.assert_allclose(g, np.sin(x) + x * np.cos(x))
    np.testing.assert_allclose(mj.vmap(mj.jit(lambda v: v * 2.))(x), x * 2.)
    z = mj.jit(lambda v: mj.cond(lax.reduce_sum(v) > 0., lambda: v + 1., lambda: v))(x)
    np.testing.assert_allclose(f(z), np.sum(np.sin(x + 1.) * (x + 1.)))
    # bfloat16 has no buffer-protocol format: its values are read by jaxlib's own copy
    half = mj.jit(lambda v: v / 4)(np.arange(3, dtype=mj.numpy.bfloat16))
    assert np.asarray(half).dtype == mj.numpy.bfloat16 and half.tolist() == [0, 0.25, 0.5]
    assert repr(half) == 'Array([0, 0.25, 0.5], dtype=bfloat16)', repr(half)
    assert mj.pmap(lambda v: v * 2)(np.ones((1, 2), mj.numpy.bfloat16)).tolist() == [[2, 2]]
    # Arrays pickle and deep-copy by their values (jaxlib's buffers do not, without jax)
    import copy, pickle
    params = {'w': f(x), 'key': mj.random.key(1)}
    for again in (copy.deepcopy, lambda tree: pickle.loads(pickle.dumps(tree))):
        back = again(params)
        assert back['w'].item() == params['w'].item()
        assert mj.random.key_data(back['key']).tolist() == [0, 1]
    assert 'jax' not in sys.modules
    print('ok')
''')


def test_minijax_runs_without_jax():
    result = subprocess.run([sys.executable, '-c', PROGRAM], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == 'ok'


NEVER_IMPORTS = textwrap.dedent('''
    import sys
    import numpy as np
    import minijax as mj
    import minijax.numpy as mnp

    x = np.arange(4.)
    f = mj.jit(lambda v: (mnp.sum(mnp.sin(v) * v), v > 1))
    f(x)
    f(f(x)[0])
    mj.grad(lambda v: mnp.sum(mnp.exp(v)))(x)
    mnp.tanh(x) + 1
    print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))
    from minijax import runtime
    print(runtime.counters['cpu_client'], len(runtime.client().devices()))
''')


def test_minijax_never_imports_jax_even_where_it_is_installed():
    """jaxlib's generic way to split results into arrays imports all of ``jax``; minijax
    builds its results with per-output result handlers instead. With 4 devices asked for,
    ordinary work still makes one client only, with one device (more make every call
    slower): the 4-device client is for replicated programs."""
    result = subprocess.run([sys.executable, '-c', NEVER_IMPORTS], capture_output=True,
                            text=True, env=dict(os.environ, MINIJAX_NUM_CPU_DEVICES='4'))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split('\n')[:2] == ['[]', '1 1']
