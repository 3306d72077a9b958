"""shard_map and the collectives over mesh axes, against JAX 0.10.2 on 4 CPU devices (the
count conftest.py sets for both): module text byte for byte, values, gradients, errors.
The tutorial's programs need 8 devices: they run in a subprocess per library
(shard_map_tutorial.py)."""
import contextlib
import os
import pathlib
import pickle
import re
import subprocess
import sys
import types
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp

jax.config.update('jax_enable_x64', True)
HERE = pathlib.Path(__file__).parent


def library(lib):
    """The names a program uses, from JAX or from minijax."""
    return types.SimpleNamespace(
        jax=lib, lax=lib.lax, jnp=jnp if lib is jax else mnp, P=lib.sharding.PartitionSpec,
        shard_map=lib.shard_map, Auto=lib.sharding.AxisType.Auto,
        mesh2=lib.make_mesh((2, 2), ('x', 'y'), (lib.sharding.AxisType.Auto,) * 2),
        mesh1=lib.make_mesh((4,), ('i',), (lib.sharding.AxisType.Auto,)))


def _seeded(name, *shape):
    return np.random.default_rng(zlib.crc32(name.encode())).normal(size=shape)


def _collectives(L):
    def f(a):
        b = L.lax.psum(a, 'x')
        c = L.lax.all_gather(b, 'y', tiled=True)
        d = L.lax.ppermute(c, 'x', [(0, 1), (1, 0)])
        e = L.lax.psum_scatter(d, 'x', tiled=True)
        return e * L.lax.axis_index('x') + L.lax.axis_index('y')
    return L.shard_map(f, mesh=L.mesh2, in_specs=L.P('x', 'y'), out_specs=L.P('x', 'y'))


def _loss(L, check_vma):
    """A data-parallel loss: replicated weights, a batch split over 'x' (and 'y')."""
    def local(w, x):
        return L.lax.pmean(L.jnp.sum(L.jnp.tanh(x @ w)), ('x', 'y'))
    return L.shard_map(local, mesh=L.mesh2, in_specs=(L.P(), L.P(('x', 'y'))),
                       out_specs=L.P(), check_vma=check_vma)


#: name -> (program of a library namespace, argument shapes)
PROGRAMS = {
    'collectives': (_collectives, [(4, 4)]),
    'pmax_pmin_pmean': (lambda L: L.shard_map(
        lambda a: L.lax.pmax(a, ('x', 'y')) - L.lax.pmin(a, 'y') + L.lax.pmean(a, 'x'),
        mesh=L.mesh2, in_specs=L.P('x', 'y'), out_specs=L.P('x', 'y')), [(4, 4)]),
    'all_gather_untiled': (lambda L: L.shard_map(
        lambda a: L.lax.all_gather(a, 'i', axis=1), mesh=L.mesh1, in_specs=L.P('i'),
        out_specs=L.P('i')), [(8, 3)]),
    'psum_scatter_untiled': (lambda L: L.shard_map(
        lambda a: L.lax.psum_scatter(a, 'i', scatter_dimension=1), mesh=L.mesh1,
        in_specs=L.P('i'), out_specs=L.P('i')), [(8, 4)]),
    'all_to_all_tiled': (lambda L: L.shard_map(
        lambda a: L.lax.all_to_all(a, 'i', 0, 0, tiled=True), mesh=L.mesh1,
        in_specs=L.P('i'), out_specs=L.P('i')), [(16,)]),
    'all_to_all': (lambda L: L.shard_map(
        lambda a: L.lax.all_to_all(a, 'i', 1, 0), mesh=L.mesh1, in_specs=L.P('i'),
        out_specs=L.P('i')), [(16, 4)]),
    'replicated_and_closure': (lambda L: L.shard_map(
        lambda a, b: a * b + L.lax.axis_size('x'), mesh=L.mesh2,
        in_specs=(L.P('x'), L.P()), out_specs=L.P('x')), [(4, 3), (2, 3)]),
    'tuple_spec_pytree': (lambda L: L.shard_map(
        lambda d: {'s': d['a'] + 1, 't': L.lax.psum(d['b'], ('x', 'y'))}, mesh=L.mesh2,
        in_specs=({'a': L.P(('x', 'y')), 'b': L.P('y', 'x')},),
        out_specs={'s': L.P(('x', 'y')), 't': L.P()}), [{'a': (8,), 'b': (4, 2)}]),
    'decorator_mesh_from_context': (lambda L: L.shard_map(
        out_specs=L.P('x'), in_specs=L.P('x'))(lambda a: L.jnp.sin(a) * 2), [(4, 2)]),
    'partly_manual': (lambda L: L.shard_map(
        lambda a: L.lax.psum(L.jnp.sin(a), 'x') * 2, mesh=L.mesh2,
        in_specs=L.P('x'), out_specs=L.P(), axis_names={'x'}), [(4, 3)]),
    'static_argument': (lambda L: lambda a: L.shard_map(
        lambda n, b: b * n, mesh=L.mesh1, in_specs=(None, L.P('i')), out_specs=L.P('i'))(
        3, a), [(8,)]),
    'grad_check_vma': (lambda L: L.jax.grad(_loss(L, True)), [(3, 2), (8, 3)]),
    'grad_no_check_vma': (lambda L: L.jax.grad(_loss(L, False)), [(3, 2), (8, 3)]),
    # literals the tangent reads are residuals, varying (pvary 4.0) or not (the divisor)
    'grad_literal_residuals': (lambda L: L.jax.grad(lambda a: L.shard_map(
        lambda b: L.lax.psum(L.jnp.tanh(b) / 4 + b * 3., 'i') / 2, mesh=L.mesh1,
        in_specs=L.P('i'), out_specs=L.P())(a).sum()), [(8,)]),
    'vmap': (lambda L: L.jax.vmap(L.shard_map(
        lambda a: L.lax.psum(a, 'x'), mesh=L.mesh2, in_specs=L.P('x'), out_specs=L.P())),
        [(3, 4, 2)]),
    'jvp': (lambda L: lambda a, t: L.jax.jvp(L.shard_map(
        lambda b: L.jnp.tanh(L.lax.psum(b, 'y')), mesh=L.mesh2, in_specs=L.P('x', 'y'),
        out_specs=L.P('x')), (a,), (t,)), [(4, 4), (4, 4)]),
}
#: Programs that take their mesh from the context: run under set_mesh (mesh2)
IN_CONTEXT = {'decorator_mesh_from_context'}


def _arguments(name, shapes):
    return [{k: _seeded(f'{name}{k}', *s) for k, s in shape.items()} if isinstance(shape, dict)
            else _seeded(f'{name}{i}', *shape) for i, shape in enumerate(shapes)]


def _both(name):
    program, shapes = PROGRAMS[name]
    args = _arguments(name, shapes)
    return program(library(jax)), program(library(minijax)), args


@contextlib.contextmanager
def _context(name):
    """Both libraries' mesh in context, for the programs that read it (IN_CONTEXT)."""
    with contextlib.ExitStack() as stack:
        if name in IN_CONTEXT:
            for lib in (jax, minijax):
                stack.enter_context(lib.set_mesh(library(lib).mesh2))
        yield


def _close(mine, theirs):
    mine, theirs = minijax.tree_util.tree_leaves(mine), jax.tree_util.tree_leaves(theirs)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('name', list(PROGRAMS))
def test_module_text_is_jaxs(name):
    with _context(name):
        theirs, mine, args = _both(name)
        assert minijax.jit(mine).lower(*args).as_text() == \
            jax.jit(theirs).lower(*args).as_text()


@pytest.mark.parametrize('name', list(PROGRAMS))
def test_jaxpr_is_jaxs(name):
    """The staged body with its casts (pvary, psum_invariant) and its varying axes ({V:x}),
    the collectives' parameters, the specs and the mesh, as JAX prints them."""
    with _context(name):
        theirs, mine, args = _both(name)
        assert str(minijax.make_jaxpr(mine)(*args)) == str(jax.make_jaxpr(theirs)(*args))


@pytest.mark.parametrize('name', list(PROGRAMS))
def test_module_text_with_debug_info_is_jaxs(name):
    """(Both lowered from the same line: the call's frame is in the locations.)"""
    with _context(name):
        theirs, mine, args = _both(name)
        ours, expected = [lib.jit(f).lower(*args).as_text(debug_info=True)
                          for lib, f in ((minijax, mine), (jax, theirs))]
    assert ours == expected


@pytest.mark.parametrize('name', list(PROGRAMS))
def test_values_are_jaxs(name):
    with _context(name):
        theirs, mine, args = _both(name)
        expected = jax.jit(theirs)(*args)
        _close(minijax.jit(mine)(*args), expected)
        _close(mine(*args), expected)  # eagerly: compiled for the mesh, as JAX runs it


def test_check_vma_stages_jaxs_casts():
    """pvary where an operand varies along fewer axes, psum_invariant for psum."""
    L = library(minijax)
    f = L.shard_map(lambda a, b: L.lax.psum(a * b, 'x') * 2., mesh=L.mesh2,
                    in_specs=(L.P('x'), L.P()), out_specs=L.P())
    text = str(minijax.make_jaxpr(f)(np.ones((4, 2)), np.ones((2, 2))))
    assert re.search(r"= pvary\[axes=\('x',\)\] \w+\n", text)
    assert "psum_invariant[axes=('x',)]" in text
    assert 'pvary' not in str(minijax.make_jaxpr(L.shard_map(
        lambda a, b: a * b, mesh=L.mesh2, in_specs=(L.P('x'), L.P()), out_specs=L.P('x'),
        check_vma=False))(np.ones((4, 2)), np.ones((2, 2))))


def test_scan_inside_shard_map():
    def program(L):
        def body(c, x):
            c = L.lax.ppermute(c, 'i', [(i, (i + 1) % 4) for i in range(4)]) * x
            return c, L.lax.psum(c.sum(), 'i')
        return L.shard_map(lambda c, xs: L.lax.scan(body, c, xs), mesh=L.mesh1,
                           in_specs=(L.P('i'), L.P()), out_specs=(L.P('i'), L.P()))
    args = _arguments('scan', [(8, 2), (3,)])
    expected = jax.jit(program(library(jax)))(*args)
    _close(minijax.jit(program(library(minijax)))(*args), expected)

    def grad(L):
        return L.jax.grad(lambda c, xs: program(L)(c, xs)[1].sum(), argnums=(0, 1))
    _close(minijax.jit(grad(library(minijax)))(*args), jax.jit(grad(library(jax)))(*args))


def _scanned_steps(L):
    step = L.shard_map(lambda c, w: L.lax.psum(c * w, 'i') / 4 + c, mesh=L.mesh1,
                       in_specs=(L.P('i'), L.P('i')), out_specs=L.P('i'))
    return lambda c, ws: L.lax.scan(lambda c, w: (step(c, w), c.sum()), c, ws)


@pytest.mark.parametrize('transform', ['jit', 'grad', 'vmap'])
def test_shard_map_inside_scan(transform):
    """Under jit, grad, and vmap run eagerly (the scan then runs on the mesh)."""
    c, ws = _arguments('scan_outer', [(8,), (3, 8)])
    args = (np.stack([c, c + 1]), np.stack([ws, 2 * ws])) if transform == 'vmap' else (c, ws)

    def transformed(L):
        f = _scanned_steps(L)
        if transform == 'grad':
            return L.jax.jit(L.jax.grad(lambda c, ws: f(c, ws)[1].sum(), argnums=(0, 1)))
        return L.jax.jit(f) if transform == 'jit' else L.jax.vmap(f)
    _close(transformed(library(minijax))(*args), transformed(library(jax))(*args))


def test_a_carry_that_becomes_varying_is_jaxs_error_and_pcast_fixes_it():
    L = library(minijax)

    def swap(cast):
        def f(x, y):
            if cast:
                y = L.lax.pcast(y, 'i', to='varying')
            return L.lax.scan(lambda c, _: ((c[1], c[0]), ()), (x, y), (), length=2)[0]
        return L.shard_map(f, mesh=L.mesh1, in_specs=(L.P('i'), L.P()), out_specs=L.P('i'))
    x, y = np.arange(8.), np.arange(2.)
    with pytest.raises(TypeError, match='carry'):
        swap(False)(x, y)
    _close(swap(True)(x, y), jax.shard_map(
        lambda x, y: jax.lax.scan(lambda c, _: ((c[1], c[0]), ()),
                                  (x, jax.lax.pcast(y, 'i', to='varying')), (), length=2)[0],
        mesh=library(jax).mesh1, in_specs=(jax.P('i'), jax.P()), out_specs=jax.P('i'))(x, y))


def test_an_eager_result_is_laid_out_by_its_out_spec_as_jaxs():
    """On an Explicit mesh from set_mesh, in_specs inferred from the arguments' shardings."""
    def run(lib, np_):
        P = lib.sharding.PartitionSpec
        mesh = lib.make_mesh((2, 2), ('x', 'y'))
        with lib.set_mesh(mesh):
            a = lib.device_put(np_.arange(16.).reshape(4, 4), P('x', 'y'))
            f = lib.shard_map(lambda b: lib.lax.psum(b, 'y'), out_specs=P('x', None))
            out = f(a)
            return np.asarray(out), out.sharding
    (mine, mine_sharding), (theirs, theirs_sharding) = run(minijax, mnp), run(jax, jnp)
    np.testing.assert_array_equal(mine, theirs)
    assert repr(mine_sharding) == repr(theirs_sharding)


# ----------------------------------------------------------------------------- errors

def _error(lib, case):
    L = library(lib)
    f = lambda a: a  # noqa: E731
    x = np.ones((4, 4))
    cases = {
        'out_specs_too_long': lambda: L.shard_map(lambda a: a.sum(), mesh=L.mesh2,
                                                  in_specs=L.P('x'), out_specs=L.P('x'))(x),
        'in_specs_too_long': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=L.P('x', 'y', None),
                                                 out_specs=L.P())(x),
        'not_divisible': lambda: L.shard_map(f, mesh=L.mesh1, in_specs=L.P('i'),
                                             out_specs=L.P('i'))(np.ones(6)),
        'unknown_axis_in_specs': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=L.P('z'),
                                                     out_specs=L.P())(x),
        'unknown_axis_out_specs': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=L.P('x'),
                                                      out_specs=L.P('z'))(x),
        'spec_not_a_spec': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=('x',),
                                               out_specs=L.P())(x),
        'infer_with_auto_axes': lambda: L.shard_map(f, mesh=L.mesh2, out_specs=L.P())(x),
        'no_mesh': lambda: L.shard_map(f, in_specs=L.P(), out_specs=L.P())(x),
        'not_callable': lambda: L.shard_map(3, mesh=L.mesh2, in_specs=L.P(),
                                            out_specs=L.P()),
        'axis_names_not_a_set': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=L.P(),
                                                    out_specs=L.P(), axis_names=['x'])(x),
        'axis_names_not_in_mesh': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=L.P(),
                                                      out_specs=L.P(), axis_names={'z'})(x),
        'unreplicated_output': lambda: L.shard_map(f, mesh=L.mesh2, in_specs=L.P('x'),
                                                   out_specs=L.P())(x),
    }
    try:
        cases[case]()
    except Exception as err:
        return err
    return None


@pytest.mark.parametrize('case', ['out_specs_too_long', 'in_specs_too_long', 'not_divisible',
                                  'unknown_axis_in_specs', 'unknown_axis_out_specs',
                                  'spec_not_a_spec', 'infer_with_auto_axes', 'no_mesh',
                                  'not_callable', 'axis_names_not_a_set',
                                  'axis_names_not_in_mesh', 'unreplicated_output'])
def test_errors_are_jaxs_exception_types(case):
    theirs, mine = _error(jax, case), _error(minijax, case)
    assert theirs is not None and mine is not None
    assert isinstance(mine, type(theirs)), (mine, theirs)


def test_a_collective_over_an_axis_the_mesh_lacks_is_a_name_error():
    """(JAX 0.10.2 fails with a bare AssertionError here.)"""
    L = library(minijax)
    with pytest.raises(NameError, match='unbound axis name: z'):
        L.shard_map(lambda a: L.lax.psum(a, 'z'), mesh=L.mesh2, in_specs=L.P(),
                    out_specs=L.P())(np.ones(4))


def test_the_spec_errors_name_the_problem():
    assert 'too long' in str(_error(minijax, 'out_specs_too_long'))
    assert "mesh axis 'i' (of size 4), but 4 does not evenly divide 6" in \
        str(_error(minijax, 'not_divisible'))
    assert "refers to 'z'" in str(_error(minijax, 'unknown_axis_in_specs'))
    assert 'check_vma=False' in str(_error(minijax, 'unreplicated_output'))


# ----------------------------------------------------------------------------- the tutorial

def _run_tutorial(lib, out):
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent), JAX_PLATFORMS='cpu')
    env.pop('XLA_FLAGS', None)
    env.pop('MINIJAX_NUM_CPU_DEVICES', None)
    return subprocess.Popen([sys.executable, str(HERE / 'shard_map_tutorial.py'), lib, out],
                            env=env)


def test_the_tutorial_programs_give_jaxs_values(tmp_path):
    """Every program of JAX's shard_map tutorial on 8 devices: JAX's values (its errors,
    by type, for the two the tutorial shows failing)."""
    runs = {lib: (_run_tutorial(lib, str(tmp_path / lib)), tmp_path / lib)
            for lib in ('jax', 'minijax')}
    results = {}
    for lib, (proc, out) in runs.items():
        assert proc.wait(timeout=600) == 0, lib
        results[lib] = pickle.loads(out.read_bytes())
    theirs, mine = results['jax'], results['minijax']
    assert set(theirs) == set(mine)
    for name, expected in theirs.items():
        got = mine[name]
        if isinstance(expected, tuple):
            assert isinstance(got, tuple) and got[0] == expected[0], (name, got, expected)
            continue
        assert not isinstance(got, tuple), (name, got)
        assert len(got) == len(expected), name
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True,
                                       err_msg=name)
