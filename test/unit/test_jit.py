"""jit: values against JAX for composition, caching, lower/compile,
and device-resident Arrays."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import F32, F64, assert_close, random_array

import minijax
from minijax import lax, runtime
from minijax.array import Array


def f_np(x, y):
    return -(lax.sin(x) * 2.) + lax.mul(x, lax.cos(y))


def f_jx(x, y):
    return -(jnp.sin(x) * 2.) + x * jnp.cos(y)


@pytest.mark.parametrize('dtype', [F32, F64])
def test_jit_of_jit(dtype, rng):
    inner = minijax.jit(f_np)
    outer = minijax.jit(lambda x, y: lax.add(inner(x, y), inner(y, x)))
    x, y = random_array(rng, (3,), dtype), random_array(rng, (3,), dtype)
    assert_close(outer(x, y), f_jx(x, y) + f_jx(y, x))


@pytest.mark.parametrize('dtype', [F32, F64])
def test_jvp_of_jit(dtype, rng):
    x, y, tx, ty = (random_array(rng, (3,), dtype) for _ in range(4))
    out, tan = minijax.jvp(minijax.jit(f_np), (x, y), (tx, ty))
    out_ref, tan_ref = jax.jvp(f_jx, (x, y), (tx, ty))
    assert_close(out, out_ref)
    assert_close(tan, tan_ref)


def test_jvp_of_jit_of_jit_second_order():
    f = minijax.jit(lambda x: minijax.jit(f_np)(x, x))
    d = lambda g: lambda x: minijax.jvp(g, (x,), (1.,))[1]  # noqa: E731
    dj = lambda g: lambda x: jax.jvp(g, (x,), (1.,))[1]  # noqa: E731
    assert_close(d(d(f))(0.7), dj(dj(lambda x: f_jx(x, x)))(0.7))


@pytest.mark.parametrize('in_axes', [0, (1, None), (None, 0)])
def test_vmap_of_jit(in_axes, rng):
    x = random_array(rng, (4, 3), F64)
    y = random_array(rng, {0: (4, 3), (1, None): (4,), (None, 0): (3,)}[in_axes], F64)
    if in_axes == (None, 0):
        x, y = y, x
    out = minijax.vmap(minijax.jit(f_np), in_axes)(x, y)
    assert_close(out, jax.vmap(f_jx, in_axes)(x, y))


def test_vmap_of_jit_keeps_an_output_unbatched(rng):
    """An output of a jitted function that depends only on unbatched inputs stays unbatched,
    so out_axes=None accepts it, as in JAX."""
    def f(m):
        return lambda x, y: (m.sin(x) * y, m.cos(y))
    x, y = random_array(rng, (4, 3), F64), random_array(rng, (3,), F64)
    out = minijax.vmap(minijax.jit(f(lax)), (0, None), (0, None))(x, y)
    expected = jax.vmap(jax.jit(f(jnp)), (0, None), (0, None))(x, y)
    assert_close(out[0], expected[0])
    assert_close(out[1], expected[1])


def test_jit_of_vmap_of_jvp(rng):
    x, t = random_array(rng, (5, 3), F32), random_array(rng, (5, 3), F32)
    g = lambda x, t: minijax.jvp(lambda x: f_np(x, x), (x,), (t,))  # noqa: E731
    gj = lambda x, t: jax.jvp(lambda x: f_jx(x, x), (x,), (t,))  # noqa: E731
    out = minijax.jit(minijax.vmap(g))(x, t)
    ref = jax.vmap(gj)(x, t)
    assert_close(out[0], ref[0])
    assert_close(out[1], ref[1])


@pytest.mark.parametrize('args,dtype', [
    ((3., 4.), F64),                                     # Python floats are float64
    ((np.float32(3.), np.float32(4.)), F32),
    ((np.ones(3, np.float32), 4.), F32),                 # a weak scalar takes the array's dtype
])
def test_jit_result_dtypes(args, dtype):
    out = minijax.jit(lambda x, y: lax.mul(lax.sin(x), lax.cos(y)))(*args)
    ref = jax.jit(lambda x, y: jnp.sin(x) * jnp.cos(y))(*args)
    assert out.dtype == dtype == ref.dtype
    assert_close(out, ref)


def test_jit_pytree_args_and_outputs():
    f = minijax.jit(lambda d: {'a': lax.sin(d['x']), 'b': [d['y'], None]})
    out = f({'x': np.ones(2), 'y': 2.})
    assert set(out) == {'a', 'b'} and out['b'][1] is None
    assert_close(out['a'], jnp.sin(np.ones(2)))
    assert_close(out['b'][0], np.float64(2.))


@pytest.mark.parametrize('output', [None, (), {}, [None]], ids=repr)
def test_jit_of_a_function_returning_no_array(output, capsys):
    """A jitted function may return a tree without leaves (a debug.print's None): the
    one-leaf fast path took None for a leaf and failed to unpack its zero results."""
    def f(lib):
        def body(x):
            lib.debug.print('x={x}', x=x)
            return output
        return body
    assert minijax.jit(f(minijax))(1.5) == jax.jit(f(jax))(1.5) == output
    assert capsys.readouterr().out == 'x=1.5\nx=1.5\n'


def test_jit_constant_output_and_closure(rng):
    c = random_array(rng, (3,), F64)
    assert_close(minijax.jit(lambda: lax.sin(c))(), jnp.sin(c))
    assert_close(minijax.jit(lambda x: lax.add(x, c))(c), c + c)


# ----------------------------------------------------------------------------- caching

def _counts():
    """Traces, lowerings and executables made (compiled, or loaded from the persistent
    compilation cache the test suite shares between its processes)."""
    return {'trace': runtime.counters['trace'], 'lower': runtime.counters['lower'],
            'compile': runtime.counters['compile'] + runtime.counters['compilation_cache_hit']}


def _delta(before):
    return {k: v - before[k] for k, v in _counts().items()}


def test_second_call_same_types_does_no_work():
    def f(x, y):
        return lax.mul(lax.sin(x), lax.cos(y))
    g = minijax.jit(f)
    before = _counts()
    g(np.ones(3), 2.)
    assert _delta(before) == {'trace': 1, 'lower': 1, 'compile': 1}
    before = _counts()
    g(np.zeros(3), 5.)  # other values, same types
    assert _delta(before) == {'trace': 0, 'lower': 0, 'compile': 0}
    before = _counts()
    g(np.ones(4), 2.)   # a new shape: traced, lowered and compiled once more
    assert _delta(before) == {'trace': 1, 'lower': 1, 'compile': 1}
    before = _counts()
    g(np.ones(4, np.float32), np.float32(2.))  # a new dtype
    assert _delta(before) == {'trace': 1, 'lower': 1, 'compile': 1}


def test_seed_tracing_printed_once(capsys):
    @minijax.jit
    def f(x, y):
        print('tracing!')
        return lax.mul(lax.sin(x), lax.cos(y))
    assert float(f(3., 4.)) == pytest.approx(-0.09224219304455371, abs=1e-16)
    assert float(f(4., 5.)) == pytest.approx(-0.21467624978306993, abs=1e-16)
    assert capsys.readouterr().out == 'tracing!\n'


@pytest.mark.parametrize('transform', ['grad', 'linearize', 'grad_of_cond', 'jit_of_grad'])
def test_reverse_mode_of_jit_compiles_nothing_when_called_again(transform):
    """The known and unknown halves of a jitted function (and their pruned, transposed
    forms) are cached per jaxpr, as JAX caches its transformations: a second call with the
    same types reuses their compiled programs."""
    f = minijax.jit(lambda x: lax.reduce_sum(lax.mul(lax.sin(x), x), (0,)))
    g = {'grad': minijax.grad(f),
         'linearize': lambda x: minijax.linearize(f, x)[1](x),
         'grad_of_cond': minijax.grad(minijax.jit(lambda x: minijax.cond(
             lax.reduce_sum(x, (0,)) > 0, lambda y: f(y), lambda y: f(lax.cos(y)), x))),
         'jit_of_grad': minijax.jit(minijax.grad(f))}[transform]
    first = g(np.arange(3.))
    before = _counts()
    again = g(np.arange(3.))
    assert _delta(before) == {'trace': 0, 'lower': 0, 'compile': 0}
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))
    assert_close(minijax.grad(f)(np.arange(3.)),
                 jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(np.arange(3.)))


def test_jvp_of_jit_caches_the_transformed_jaxpr():
    g = minijax.jit(lambda x: lax.sin(lax.mul(x, 2.)))
    minijax.jvp(g, (1.,), (1.,))
    before = _counts()
    out, tan = minijax.jvp(g, (2.,), (3.,))
    assert _delta(before) == {'trace': 0, 'lower': 0, 'compile': 0}
    assert_close(tan, jax.jvp(lambda x: jnp.sin(2. * x), (2.,), (3.,))[1])


def test_vmap_of_jit_caches_the_transformed_jaxpr():
    g = minijax.jit(lambda x: lax.sin(lax.mul(x, 2.)))
    minijax.vmap(g)(np.ones(3))
    before = _counts()
    minijax.vmap(g)(np.zeros(3))
    assert _delta(before) == {'trace': 0, 'lower': 0, 'compile': 0}


def test_lower_then_call_does_not_recompile():
    g = minijax.jit(lambda x: lax.exp(x))
    lowered = g.lower(np.ones(2))
    compiled = lowered.compile()
    before = _counts()
    g(np.ones(2))
    compiled(np.ones(2))
    g.lower(np.ones(2)).compile()
    assert _delta(before) == {'trace': 0, 'lower': 0, 'compile': 0}


# ----------------------------------------------------------------------------- lower / compile

def test_lower_as_text_and_compiler_ir():
    def sincos(x, y):
        return lax.mul(lax.sin(x), lax.cos(y))
    lowered = minijax.jit(sincos).lower(minijax.ShapeDtypeStruct((3,), np.float32), 2.)
    text = lowered.as_text()
    assert 'module @jit_sincos' in text
    assert 'func.func public @main' in text
    assert 'stablehlo.sine' in text and 'stablehlo.cosine' in text
    assert 'tensor<3xf32>' in text and 'loc(' not in text
    assert 'loc(' in lowered.as_text(debug_info=True)
    module = lowered.compiler_ir()
    assert str(module.operation.attributes['sym_name']) == '"jit_sincos"'
    module.operation.verify()


def _shape_dtype_struct_calls(jx):
    """Calls that compute with a ShapeDtypeStruct, which has a type but no value."""
    s = jx.ShapeDtypeStruct((3,), np.float32)
    return [lambda: jx.lax.sin(s), lambda: jx.jit(jx.lax.sin)(s),
            lambda: jx.jit(lambda x: x * 2)(s), lambda: jx.vmap(jx.lax.sin)(s),
            lambda: jx.jit(jx.lax.sin).lower(s).compile()(s), lambda: jx.lax.sin('a')]


@pytest.mark.parametrize('i', range(len(_shape_dtype_struct_calls(minijax))))
def test_a_shape_dtype_struct_is_lowered_not_computed_with_as_in_jax(i):
    with pytest.raises(TypeError):  # (or JAX's subclass of it, InvalidInputException)
        _shape_dtype_struct_calls(jax)[i]()
    with pytest.raises(TypeError, match=r'(argument|sin: argument 0:) .*(ShapeDtypeStruct of '
                                        r'shape float32\[3\] is a type without a value|str)'):
        _shape_dtype_struct_calls(minijax)[i]()


def test_jit_of_jit_lowering_calls_one_private_function_twice():
    inner = minijax.jit(lambda x: lax.sin(x))
    text = minijax.jit(lambda x: lax.add(inner(x), inner(x))).lower(1.).as_text()
    assert text.count('func.func private') == 1
    assert text.count('call @') == 2  # func.call, printed in its short form


def test_compile_hlo_and_cost_analysis(rng):
    x = random_array(rng, (8, 8), F32)
    compiled = minijax.jit(lambda x: lax.reduce_sum(lax.mul(x, x))).lower(x).compile()
    hlo = compiled.as_text()
    assert 'HloModule' in hlo and 'f32[8,8]' in hlo
    cost = compiled.cost_analysis()
    assert cost['flops'] > 0
    assert_close(compiled(x), jnp.sum(x * x))
    with pytest.raises(TypeError):
        compiled(np.ones((2, 2), np.float32))


@pytest.mark.parametrize('transform', ['vmap', 'grad', 'jit'])
def test_a_compiled_function_refuses_tracers_as_jax(transform):
    """A ``Compiled`` is one signature's executable: a transformation's tracer is JAX's
    TypeError, naming the tracer's type (minijax's), not a failed conversion to NumPy."""
    errors = []
    for jx in (jax, minijax):
        compiled = jx.jit(lambda x: x * 2.).lower(np.ones(3)).compile()
        f = {'vmap': lambda: jx.vmap(compiled)(np.ones((2, 3))),
             'grad': lambda: jx.grad(lambda x: compiled(x).sum())(np.ones(3)),
             'jit': lambda: jx.jit(compiled)(np.ones(3))}[transform]
        with pytest.raises(TypeError) as e:
            f()
        errors.append(str(e.value).split('<class')[0])
    assert errors[0] == errors[1]


# ----------------------------------------------------------------------------- Arrays on device

def test_array_passed_back_is_not_copied_through_host(monkeypatch):
    g = minijax.jit(lambda x: lax.mul(x, 2.))
    a = g(np.arange(4.))
    assert isinstance(a, Array)
    buffer = a.buffer

    def no_host_copy(*args, **kwargs):
        raise AssertionError('an Array went through host memory')

    seen = []
    original_call = runtime.Executable.__call__

    def spy(self, buffers):
        seen.append(list(buffers))
        return original_call(self, buffers)

    monkeypatch.setattr(Array, '__array__', no_host_copy)
    monkeypatch.setattr(runtime, 'device_put', no_host_copy)
    monkeypatch.setattr(runtime.Executable, '__call__', spy)
    b = g(a)
    c = minijax.jit(lambda x, y: lax.add(x, y))(a, b)
    assert seen[0][0] is buffer
    assert seen[1][0] is buffer and seen[1][1] is b.buffer
    monkeypatch.undo()
    np.testing.assert_array_equal(np.asarray(c), np.arange(4.) * 6)


def test_array_duck_types_numpy():
    a = minijax.jit(lambda x: lax.mul(x, 2.))(np.arange(6.).reshape(2, 3))
    assert (a.shape, a.dtype, a.ndim, a.size) == ((2, 3), np.float64, 2, 6)
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.).reshape(2, 3) * 2)
    np.testing.assert_array_equal(np.asarray(a + 1.), np.arange(6.).reshape(2, 3) * 2 + 1)
    np.testing.assert_array_equal(np.asarray(-a), -np.arange(6.).reshape(2, 3) * 2)
    np.testing.assert_array_equal(np.asarray(a > 3.), np.arange(6.).reshape(2, 3) * 2 > 3)
    np.testing.assert_array_equal(np.asarray(a / 2.), np.arange(6.).reshape(2, 3))
    assert float(minijax.jit(lambda: lax.sin(1.))()) == pytest.approx(np.sin(1.), abs=1e-16)


def test_tracing_and_lowering_leave_the_garbage_collector_as_they_found_it():
    """They pause it (for speed) and restore it, also when the function raises."""
    import gc
    assert gc.isenabled()
    minijax.jit(lambda x: lax.sin(x)).lower(1.).as_text()
    with pytest.raises(ZeroDivisionError):
        minijax.jit(lambda x: 1 / 0)(1.)
    assert gc.isenabled()
    gc.disable()
    try:
        minijax.jit(lambda x: lax.cos(x))(2.)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_tracing_a_chain_keeps_neither_dropped_tracers_nor_a_type_or_stack_per_equation():
    """The jaxpr is what tracing keeps: a tracer the function dropped is freed, an
    elementwise equation shares its operand's type, and equations traced at the same place
    share its stack. (Tracing holds the garbage collector off, so every object it keeps
    alive is walked by the next collection: a 30,000-equation trace kept 45,000 dead
    tracers and 30,000 types, and a stack of some 400 bytes per equation.)"""
    import gc
    from minijax.core import ShapedArray
    from minijax.ir.tracing import JaxprTracer

    def live(kind):
        return sum(type(o) is kind for o in gc.get_objects())

    counts = {}

    def chain(x):
        for _ in range(200):
            x = lax.sin(x) * 1.5
        counts.update(tracers=live(JaxprTracer), types=live(ShapedArray))
        return x

    before = {'tracers': live(JaxprTracer), 'types': live(ShapedArray)}
    jaxpr = minijax.make_jaxpr(chain)(np.ones(3, np.float32))
    assert len(jaxpr.eqns) == 400
    assert counts['tracers'] - before['tracers'] < 10
    assert counts['types'] - before['types'] < 10
    assert len({id(eqn.source_info) for eqn in jaxpr.eqns}) == 2  # the sin and the mul


def test_static_argnums_example_of_seed_002():
    """seeds/002: ``jit(lambda x, y: square_add(x, y), static_argnums=1)(2., 10.) == 14.``;
    the static argument reaches the function as its Python value."""
    def square_add(x, y):
        assert isinstance(y, float)
        return x * x + y
    assert minijax.jit(lambda x, y: square_add(x, y), static_argnums=1)(2., 10.) == 14. == \
        jax.jit(lambda x, y: square_add(x, y), static_argnums=1)(2., 10.)


def _located(np_, jit_, grad_):
    """A jitted function calling a jitted one, and a jitted gradient: the two kinds of name
    stacks JAX writes (``jit(f)/jit(g)``, ``jit(f)/transpose(jvp())/mul``)."""
    def inner(y):
        return np_.cos(y) * 2.

    def outer(x, params):
        return jit_(inner)(np_.sin(x)) * params['w']

    def loss(x):
        return np_.sum(np_.sin(x))

    x = np.ones(3)
    return (jit_(outer).lower(x, {'w': 2.}).as_text(debug_info=True),
            jit_(grad_(loss)).lower(x).as_text(debug_info=True))


def _locations(text):
    """The name stacks of the ops, the argument names, and the lines and columns of this
    file's frames in a module's locations."""
    stacks = {n for n in re.findall(r'loc\("([^"]+)"\(#loc', text) if '/' in n}
    args = re.findall(r'%arg\d+: tensor<[^>]*> loc\("([^"]*)"\)', text)
    frames = set(re.findall(r'test_jit.py":(\d+:\d+ to :\d+)\)', text))
    return stacks, args, frames


def _located_control_flow(np_, jit_, grad_, lax_):
    """A jitted gradient through a scan and a cond: the ops of their bodies, made by jvp,
    partial evaluation and transposition, keep the body's lines and the construct's name."""
    def body(c, x):
        y = np_.sin(c) * x
        return y, y

    def f(x):
        c, ys = lax_.scan(body, x[0], x)
        z = lax_.cond(c > 0, lambda a: np_.cos(a), lambda a: a * 2., c)
        return z + ys.sum()

    return jit_(grad_(f)).lower(np.arange(3.)).as_text(debug_info=True)


def test_debug_locations_in_control_flow_under_grad_are_jaxs():
    ours, theirs = (_locations(_located_control_flow(*api)) for api in
                    [(minijax.numpy, minijax.jit, minijax.grad, minijax.lax),
                     (jnp, jax.jit, jax.grad, jax.lax)])
    assert ours[2] == theirs[2]  # every line of the program, the bodies' among them
    # Which ops each branch holds differs: JAX's jvp of cos defers its neg to the transpose,
    # and it builds the zero tangent of branch 0 with an op (minijax returns a literal).
    ours_scopes, jax_scopes = ({s.rsplit('/', 1)[0] for s in stacks if '/branch_' in s}
                               for stacks in (ours[0], theirs[0]))
    assert ours_scopes == jax_scopes - {'jit(f)/jvp()/cond/branch_0_fun'}


def _constant_locations(text):
    """The location of each constant @main holds, its aliases resolved, up to its innermost
    frame (``jit(f)`` at the line of the ``lower`` call), with file names dropped."""
    aliases = dict(re.findall(r'^(#loc\d*) = loc\((.*)\)$', text, re.M))
    resolve = lambda loc: re.sub(r'#loc\d*', lambda m: resolve(aliases[m[0]]), loc)  # noqa: E731
    main = text.split('func.func private')[0]
    return [re.sub(r'"[^"]*\.py"', 'file', resolve(loc)).split(' at ')[0]
            for loc in re.findall(r'stablehlo.constant .* loc\((#loc\d*)\)', main)]


@pytest.mark.parametrize('nesting', ['vmap of grad', 'grad of vmap', 'grad of jit'])
def test_debug_name_stacks_of_nested_transformations_are_jaxs(nesting):
    """Each transformation wraps those inside it, and the call of a jitted function, as JAX
    writes them: ``vmap(jvp())``, ``transpose(jvp(vmap()))``, ``transpose(jvp(jit(g)))``."""
    def stacks(api, np_):
        f = lambda x: np_.sin(x) * x  # noqa: E731
        g = {'vmap of grad': lambda: api.vmap(api.grad(f)),
             'grad of vmap': lambda: api.grad(lambda x: api.vmap(f)(x).sum()),
             'grad of jit': lambda: api.grad(lambda x: api.jit(f)(x * 2.).sum())}[nesting]
        text = api.jit(g()).lower(np.ones(3)).as_text(debug_info=True)
        # (JAX also locates a private function itself, at ``.../jit``)
        return {s for s in _locations(text)[0] if not s.endswith('/jit')}
    assert stacks(minijax, minijax.numpy) == stacks(jax, jnp)


def test_debug_locations_of_constants_are_jaxs():
    """An array the function closes over and a literal it returns are located where JAX
    locates them (the function's name stack where it was lowered), not at loc(unknown)."""
    c = np.arange(3.)

    def f(x):
        return x * c, 1.

    ours, theirs = (_constant_locations(jit_(f).lower(np.ones(3)).as_text(debug_info=True))
                    for jit_ in (minijax.jit, jax.jit))
    assert ours == theirs and 'unknown' not in ''.join(ours)


def test_hlo_text_with_debug_info_is_jaxs():
    """``as_text(dialect='hlo', debug_info=True)``: XLA's metadata (name stack; the frames'
    table, whose ids count frames minijax and JAX keep differently, aside)."""
    def f(x):
        return np.float64(2.) * (x + 1.)

    def entry(lowered, **kwargs):
        text = lowered.as_text(dialect='hlo', **kwargs)
        return re.sub(r' stack_frame_id=\d+', '', text[text.index('ENTRY'):])

    ours, theirs = (jit_(f).lower(np.ones(3)) for jit_ in (minijax.jit, jax.jit))
    assert entry(ours, debug_info=True) == entry(theirs, debug_info=True)
    assert 'metadata={op_name="jit(f)/add"}' in entry(ours, debug_info=True)
    assert ours.as_text(dialect='hlo') == theirs.as_text(dialect='hlo')
    with pytest.raises(ValueError):
        ours.as_text(dialect='llvm')


def test_debug_info_inline_is_the_aliases_written_out():
    lowered = minijax.jit(lambda x: x * 2.).lower(np.ones(3))
    aliased, inline = (lowered.as_text(debug_info=form) for form in (True, 'inline'))
    assert '#loc' not in inline and 'loc(#loc' in aliased
    ops = [line for line in lowered.as_text().splitlines() if 'stablehlo.' in line]
    assert [line.split(' loc(')[0] for line in inline.splitlines() if 'stablehlo.' in line] == ops
    assert re.search(r'stablehlo.multiply .* loc\("jit\(<lambda>\)/mul"\(callsite\(', inline)


def test_debug_locations_are_jaxs():
    ours, theirs = ([_locations(t) for t in _located(*api)]  # one call site for both
                    for api in [(minijax.numpy, minijax.jit, minijax.grad), (jnp, jax.jit, jax.grad)])
    assert [a for _, a, _ in ours] == [a for _, a, _ in theirs]
    assert [f for _, _, f in ours] == [f for _, _, f in theirs]
    assert set.union(*(s for s, _, _ in ours)) == set.union(*(s for s, _, _ in theirs))


def _compiled_calls(jax_, jnp_):
    """A Compiled called again and again (NumPy arrays, Arrays, both), then with wrong types
    and a deleted Array: the values and error types of each call."""
    compiled = jax_.jit(lambda a, b: (a * b, a.sum())).lower(np.ones(3), np.ones(3)).compile()
    x = jax_.device_put(np.arange(3.))
    calls = [(np.arange(3.), np.ones(3)), (x, x), (x, np.ones(3)), (np.arange(3.), np.ones(3)),
             (np.ones(4), np.ones(3)), (np.ones(3, np.float32), np.ones(3)), (1., np.ones(3))]
    seen = []
    for args in calls + ['deleted']:
        if args == 'deleted':
            x.delete()
            args = (x, np.ones(3))
        try:
            seen.append([np.asarray(o).tolist() for o in compiled(*args)])
        except Exception as err:  # noqa: BLE001  (the type is compared)
            seen.append(type(err).__name__)
    return seen


def test_compiled_calls_repeat_as_jax():
    """``Compiled`` keeps a fast path per argument types once a call checked them (as jit):
    repeated calls give JAX's values, and types it was not compiled for still raise."""
    assert _compiled_calls(minijax, minijax.numpy) == _compiled_calls(jax, jnp)
