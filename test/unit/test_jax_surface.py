"""The rest of JAX's top-level surface (issue 32), against JAX (x64): the config flags as
top-level names, linear_transpose, fwd_and_bwd, custom_gradient, closure_convert,
named_scope/named_call, ensure_compile_time_eval, the AOT stages (``jax.stages``),
``jax.ad_checkpoint``, ``jax.debug.log``/``inspect_array_sharding`` and
``jax.experimental.io_callback``. Each test groups its checks so it compiles few programs."""
import inspect
import logging
import re

import jax
import jax.ad_checkpoint
import jax.experimental
import numpy as np
import pytest
from testlib import F64, assert_close, random_array

import minijax
import minijax.numpy as mnp
from minijax import runtime

#: The flags that became top-level names, each with a value minijax refuses (None: any value
#: is accepted, as the flag changes nothing minijax computes).
NEW_FLAGS = {
    'allow_f16_reductions': False, 'array_garbage_collection_guard': None,
    'auto_pcast': False, 'check_tracer_leaks': True, 'debug_key_reuse': True,
    'default_prng_impl': 'rbg', 'enable_checks': None, 'enable_custom_prng': True,
    'legacy_prng_key': 'error', 'no_execution': True, 'no_tracing': True,
    'remove_size_one_mesh_axis_from_type': True,
    'softmax_custom_jvp': True, 'thread_guard': True, 'threefry_partitionable': False,
    'transfer_guard_device_to_device': 'disallow', 'transfer_guard_device_to_host': 'log',
    'transfer_guard_host_to_device': 'disallow_explicit',
}


def assert_trees_close(actual, expected):
    actual_leaves, actual_tree = jax.tree_util.tree_flatten(actual)
    expected_leaves, expected_tree = jax.tree_util.tree_flatten(expected)
    assert str(actual_tree) == str(expected_tree)
    for a, e in zip(actual_leaves, expected_leaves):
        assert_close(a, e)


def _plain(value):
    """A flag's value as text: JAX's enum values are their strings."""
    return getattr(value, 'value', value)


def test_config_flags_as_top_level_names():
    for name, refused in NEW_FLAGS.items():
        mine, theirs = getattr(minijax, name), getattr(jax, name)
        assert _plain(mine.value) == _plain(theirs.value), name
        with mine(_plain(theirs.value)):  # JAX's default is accepted
            assert _plain(mine.value) == _plain(theirs.value)
        if refused is None:
            with mine(True):
                assert mine.value is True
            assert _plain(mine.value) == _plain(theirs.value)
        else:
            with pytest.raises(NotImplementedError, match=name):
                with mine(refused):
                    pass
    # State() sets a boolean flag to True, and needs a value for any other (TypeError, as JAX)
    with minijax.enable_checks():
        assert minijax.enable_checks.value is True
    for module in (jax, minijax):
        with pytest.raises(TypeError):
            module.numpy_dtype_promotion()
    with minijax.transfer_guard('allow'), jax.transfer_guard('allow'):
        assert minijax.transfer_guard_host_to_device.value == 'allow'
    with pytest.raises(NotImplementedError, match='transfer guard'):
        with minijax.transfer_guard('disallow'):
            pass
    with pytest.raises(NotImplementedError, match='leaked tracer'):
        with minijax.checking_leaks():
            pass
    assert list(inspect.signature(minijax.enable_x64).parameters) == \
        list(inspect.signature(jax.enable_x64).parameters)


def _strict_promotions(api):
    jnp = api.numpy
    return [lambda: jnp.float32(1) + 1, lambda: jnp.float32(1) + 1.5, lambda: jnp.add(1, 2.5),
            lambda: jnp.int32(1) + 1.5, lambda: jnp.bool_(True) + 1,
            lambda: jnp.int8(1) + 1j, lambda: jnp.float32(1) * jnp.float32(2),
            lambda: jnp.float32(1) + jnp.int32(1), lambda: jnp.float32(1) + jnp.float64(1),
            lambda: jnp.result_type(jnp.float32, jnp.int32),
            lambda: jnp.result_type(jnp.uint8, jnp.int8)]


def test_a_jitted_function_traces_again_under_strict_promotion():
    """The promotion rules are part of what a trace depends on (JAX's trace context): a
    function jitted and called before is traced again, and refuses, under 'strict'."""
    outcomes = []
    for api in (jax, minijax):
        f = api.jit(lambda x, y: x + y)
        before = f(np.float32(1), np.int32(2)).dtype
        with api.numpy_dtype_promotion('strict'):
            with pytest.raises(api.dtypes.TypePromotionError):
                f(np.float32(1), np.int32(2))
        outcomes.append((before, f(np.float32(1), np.int32(2)).dtype))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize('i', range(len(_strict_promotions(jax))))
def test_strict_dtype_promotion_as_jax(i):
    """``numpy_dtype_promotion('strict')`` (the type-promotion page): a Python scalar meets
    an array of its kind or a wider one; two dtypes never promote (JAX's TypePromotionError,
    naming them). Outside the block, the standard lattice again."""
    outcomes = []
    for api in (jax, minijax):
        with api.numpy_dtype_promotion('strict'):
            try:
                out = _strict_promotions(api)[i]()
                outcomes.append(('ok', np.dtype(getattr(out, 'dtype', out)).name,
                                 getattr(out, 'weak_type', None)))
            except api.dtypes.TypePromotionError as e:
                outcomes.append(('error', sorted(str(e).split(')')[0].split('(')[1].split(', ')),
                                 str(e).split(')', 1)[1]))
        assert api.numpy.result_type(api.numpy.float32, api.numpy.int32) == np.float32
    assert outcomes[0] == outcomes[1]
    with pytest.raises(ValueError, match='jax_numpy_dtype_promotion'):
        minijax.config.update('jax_numpy_dtype_promotion', 'lenient')


def test_process_names_and_small_utilities():
    assert minijax.process_indices() == jax.process_indices()
    for name in ('host_id', 'host_count', 'host_ids'):  # JAX's old names: a warning says so
        with pytest.warns(UserWarning, match='renamed'):
            theirs = getattr(jax, name)()
        with pytest.warns(UserWarning, match='renamed'):
            assert getattr(minijax, name)() == theirs
    assert minijax.float0 == jax.dtypes.float0
    x = mnp.arange(3.)
    tree = {'a': x, 'b': 'text'}
    assert minijax.copy_to_host_async(tree) is tree
    assert any(a is x for a in minijax.live_arrays())
    x.delete()
    assert not any(a is x for a in minijax.live_arrays())
    mine = minijax.print_environment_info(return_string=True).splitlines()
    theirs = jax.print_environment_info(return_string=True).replace('"', '').splitlines()
    assert mine[1:7] == theirs[1:7]  # jaxlib, numpy, python, devices, processes, platform


def test_effects_barrier():
    """After the barrier, every callback of the programs run so far has returned."""
    import time
    calls = []

    def slow(x):
        time.sleep(0.05)
        calls.append(float(x))

    f = minijax.jit(lambda x: minijax.debug.callback(slow, x))
    for i in range(3):
        f(float(i))
    minijax.effects_barrier()
    assert calls == [0., 1., 2.]
    minijax.effects_barrier()  # (nothing left to wait for)


# ---------------------------------------------------------------------------- transposes

def test_linear_transpose(rng):
    a = random_array(rng, (3, 2), F64)

    def f(mod):
        return lambda p: {'y': p['u'] @ a - 0.5 * p['v'].sum(), 'z': 2 * p['v']}

    primals = {'u': random_array(rng, (3,), F64), 'v': random_array(rng, (2,), F64)}
    ct = {'y': random_array(rng, (2,), F64), 'z': random_array(rng, (2,), F64)}
    assert_trees_close(minijax.linear_transpose(f(minijax), primals)(ct),
                       jax.linear_transpose(f(jax), primals)(ct))
    # ShapeDtypeStruct primals; the transpose is a pytree, so it crosses jit
    s = minijax.ShapeDtypeStruct((), np.float32)
    mine = minijax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, s, s)
    theirs = jax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y,
                                  jax.ShapeDtypeStruct((), np.float32),
                                  jax.ShapeDtypeStruct((), np.float32))
    assert_trees_close(minijax.jit(lambda t, c: t(c))(mine, np.float32(1.5)),
                       theirs(np.float32(1.5)))
    for module in (jax, minijax):
        with pytest.raises(TypeError, match='linear_transpose only supports'):
            module.linear_transpose(lambda x: x.astype(np.int64), 1.)
        transposed = module.linear_transpose(f(module), primals)
        with pytest.raises(TypeError, match='cotangent tree does not match'):
            transposed(ct['y'])
        with pytest.raises(TypeError, match='cotangent type does not match'):
            transposed({'y': ct['y'], 'z': np.ones(3)})


def test_fwd_and_bwd(rng):
    x, w = random_array(rng, (2, 3), F64), random_array(rng, (3, 4), F64)
    ct = random_array(rng, (2, 4), F64)

    def f(mod):
        return lambda x, w: mod.numpy.tanh(x @ w)

    fwd, bwd = minijax.fwd_and_bwd(f(minijax), argnums=(0, 1))
    jfwd, jbwd = jax.fwd_and_bwd(f(jax), argnums=(0, 1))
    before = runtime.counters['trace']
    for _ in range(3):
        y, f_vjp = fwd(x, w)
        cts = bwd(f_vjp, ct)
    assert runtime.counters['trace'] - before == 2  # each of fwd and bwd traced once
    jy, jf_vjp = jfwd(x, w)
    assert_close(y, jy)
    assert_trees_close(cts, jbwd(jf_vjp, ct))
    fwd, bwd = minijax.fwd_and_bwd(f(minijax), argnums=1, has_aux=False, jitted=False)
    jfwd, jbwd = jax.fwd_and_bwd(f(jax), argnums=1, jitted=False)
    assert_close(bwd(fwd(x, w)[1], ct), jbwd(jfwd(x, w)[1], ct))


# ---------------------------------------------------------------------------- custom derivatives

def test_custom_gradient(rng):
    x, y = random_array(rng, (3,), F64), random_array(rng, (3,), F64)

    def make(mod):
        @mod.custom_gradient
        def f(x, y):
            out = mod.numpy.sin(x) * y
            return out, lambda g: (g * y * 3, g * x)

        @mod.custom_gradient
        def clip_gradient(x):
            return x, lambda g: mod.numpy.clip(g, -0.1, 0.1)

        def loss(x, y):
            return (f(x, y) + clip_gradient(5 * mod.numpy.cos(x))).sum()
        return f, loss

    (f, loss), (jf, jloss) = make(minijax), make(jax)
    assert_close(f(x, y), jf(x, y))
    grads = minijax.jit(minijax.grad(loss, argnums=(0, 1)))(x, y)
    assert_trees_close(grads, jax.grad(jloss, argnums=(0, 1))(x, y))
    batched = random_array(rng, (2, 3), F64)
    assert_trees_close(minijax.vmap(minijax.grad(loss))(batched, batched),
                       jax.vmap(jax.grad(jloss))(batched, batched))


def test_closure_convert(rng):
    """The hoisted values are those a derivative reaches, and a custom_vjp taking them as
    arguments differentiates through the closure, as JAX's docs use it."""
    x0, w = random_array(rng, (3,), F64), random_array(rng, (), F64)

    def program(mod):
        np_ = mod.numpy

        def apply(fn, x, *hoisted):
            return fn(x, *hoisted)

        def fwd(fn, x, *hoisted):
            return fn(x, *hoisted), (x, hoisted)

        def bwd(fn, res, g):
            x, hoisted = res
            return mod.vjp(fn, x, *hoisted)[1](g)

        apply = mod.custom_vjp(apply, nondiff_argnums=(0,))
        apply.defvjp(fwd, bwd)

        def outer(w, x):
            def objective(z):
                return np_.sum(np_.sin(z * w) + z * 2.0)
            converted, hoisted = mod.closure_convert(objective, x)
            return apply(converted, x, *hoisted), len(hoisted)
        return outer

    mine, theirs = program(minijax), program(jax)
    assert_trees_close(mine(w, x0), theirs(w, x0))
    assert_trees_close(minijax.grad(lambda w, x: mine(w, x)[0], argnums=(0, 1))(w, x0),
                       jax.grad(lambda w, x: theirs(w, x)[0], argnums=(0, 1))(w, x0))
    assert_close(minijax.jit(lambda w: mine(w, x0)[0])(w), theirs(w, x0)[0])
    for module in (jax, minijax):
        converted, _ = module.closure_convert(lambda a: a * 2, x0)
        with pytest.raises(TypeError, match='same Pytree structure'):
            converted((x0,))


def test_linear_call(rng):
    """JAX's docstring examples: the custom transpose is used, transposing twice is the
    function again; under jit, grad and jvp too."""
    x, d = random_array(rng, (3,), F64), random_array(rng, (3,), F64, 'pos')

    def make(mod):
        linear_call = mod.custom_derivatives.linear_call

        def div_add(x, denom):
            return x + linear_call(lambda r, x: x / r, lambda r, t: t / r, denom, x)

        def custom_id(x):
            return linear_call(lambda _, x: x, lambda _, t: 7. * mod.numpy.ones_like(t),
                               (), x)

        def transpose(f, example):
            return lambda y: mod.linear_transpose(f, example)(y)[0]
        return div_add, custom_id, transpose

    (div_add, custom_id, transpose), (jdiv_add, jcustom_id, jtranspose) = make(minijax), \
        make(jax)
    assert_close(div_add(x, d), jdiv_add(x, d))
    assert_close(transpose(lambda x: div_add(x, d), x)(x),
                 jtranspose(lambda x: jdiv_add(x, d), x)(x))
    once, twice = transpose(custom_id, x), transpose(transpose(custom_id, x), x)
    assert_close(once(x), jtranspose(jcustom_id, x)(x))
    assert_close(twice(x), jtranspose(jtranspose(jcustom_id, x), x)(x))
    assert_close(minijax.jit(div_add)(x, d), jax.jit(jdiv_add)(x, d))
    assert_trees_close(minijax.jvp(lambda x: div_add(x, d), (x,), (d,)),
                       jax.jvp(lambda x: jdiv_add(x, d), (x,), (d,)))
    assert_close(minijax.grad(lambda x: minijax.jit(custom_id)(x).sum())(x),
                 jax.grad(lambda x: jax.jit(jcustom_id)(x).sum())(x))
    thunk = re.compile(r'\n *transpose_thunk=[^\n]*')
    assert thunk.sub('', str(minijax.make_jaxpr(div_add)(x, d))) == \
        thunk.sub('', str(jax.make_jaxpr(jdiv_add)(x, d)))


def test_symbolic_zeros(rng):
    """With symbolic_zeros, a custom_jvp rule sees SymbolicZero for the tangents known to be
    zero, and a custom_vjp's fwd sees which arguments are perturbed, as JAX's do."""
    x, y = random_array(rng, (3,), F64), random_array(rng, (3,), F64)

    def make(mod, seen):
        cd = mod.custom_derivatives

        @mod.custom_jvp
        def f(x, y):
            return x * mod.numpy.sin(y)

        def f_jvp(primals, tangents):
            (x, y), (tx, ty) = primals, tangents
            seen.append([isinstance(t, cd.SymbolicZero) for t in tangents])
            t = cd.SymbolicZero.from_primal_value(x)
            if not isinstance(tx, cd.SymbolicZero):
                t = tx * mod.numpy.sin(y)
            if not isinstance(ty, cd.SymbolicZero):
                t = x * mod.numpy.cos(y) * ty + (0 if isinstance(t, cd.SymbolicZero) else t)
            return f(x, y), t
        f.defjvp(f_jvp, symbolic_zeros=True)

        @mod.custom_vjp
        def g(x, y):
            return x * y

        def g_fwd(x, y):
            seen.append((x.perturbed, y.perturbed))
            x, y = cd.custom_vjp_primal_tree_values((x, y))
            return x * y, (x, y)

        def g_bwd(res, ct):
            return ct * res[1] * 2, None
        g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
        return lambda x, y: (f(x, y) + g(x, y)).sum()

    mine_seen, their_seen = [], []
    h, jh = make(minijax, mine_seen), make(jax, their_seen)
    for argnums in (0, 1, (0, 1)):
        assert_trees_close(minijax.grad(h, argnums)(x, y), jax.grad(jh, argnums)(x, y))
    assert_trees_close(minijax.vmap(minijax.grad(h))(x[:, None], y[:, None]),
                       jax.vmap(jax.grad(jh))(x[:, None], y[:, None]))
    assert mine_seen[:6] == their_seen[:6]
    for module in (minijax, jax):
        cd = module.custom_derivatives
        zeros = cd.zero_from_primal({'a': 1., 'b': np.ones(2), 'i': np.int32(3)})
        assert [np.asarray(z).dtype for z in jax.tree.leaves(zeros)] == \
            [np.dtype(np.float64), np.dtype(np.float64), jax.dtypes.float0]
        assert repr(cd.zero_from_primal(x, symbolic_zeros=True)) == 'SymbolicZero'
        assert repr(cd.CustomVJPPrimal(1., True)) == 'CustomVJPPrimal(value=1.0, perturbed=True)'


# ---------------------------------------------------------------------------- names, eval

def _locations(text):
    return sorted(set(re.findall(r'loc\("([^"]*)"', text)))


def test_named_scope_named_call_and_compile_time_eval():
    def make(mod):
        @mod.named_scope('layer')
        def layer(x):
            with mod.named_scope('act'):
                y = mod.numpy.sin(x)
            return y * 2

        def f(x):
            return mod.named_call(layer, name='outer')(x) + 1

        def g(x):
            with mod.ensure_compile_time_eval():
                c = mod.numpy.cos(2.0) * 3  # computed now, a constant of the jaxpr
            return x * c
        return f, g

    (f, g), (jf, jg) = make(minijax), make(jax)
    x = np.ones(3)
    mine = minijax.jit(f).lower(x)
    theirs = jax.jit(jf).lower(x)
    assert _locations(mine.as_text(debug_info=True)) == \
        _locations(theirs.as_text(debug_info=True))
    name = 'op_name="jit(f)/outer/layer/act/sin"'
    assert name in mine.as_text(dialect='hlo', debug_info=True)
    assert str(minijax.make_jaxpr(g)(1.)) == str(jax.make_jaxpr(jg)(1.))
    for module in (jax, minijax):
        with pytest.raises(TypeError, match='must be a string'):
            module.named_scope(3)


# ---------------------------------------------------------------------------- AOT stages

def test_stages(rng):
    x, a = random_array(rng, (3, 3), F64), random_array(rng, (), F64)

    def make(mod):
        def f(x, y, *, scale):
            return mod.numpy.sin(x) @ x * scale, y
        return f

    mine = minijax.jit(make(minijax)).trace(x, {'a': a}, scale=2.0)
    theirs = jax.jit(make(jax)).trace(x, {'a': a}, scale=2.0)
    assert isinstance(minijax.jit(make(minijax)), minijax.stages.Wrapped)
    assert isinstance(mine, minijax.stages.Traced)
    assert str(mine.jaxpr) == str(theirs.jaxpr)
    assert mine.fun_name == theirs.fun_name
    for attribute in ('args_info', 'in_tree', 'in_avals', 'out_avals'):
        assert str(getattr(mine, attribute)) == str(getattr(theirs, attribute)), attribute
    assert str(mine.out_info).replace(', weak_type=True', '') == str(theirs.out_info)
    assert_trees_close(mine(x, {'a': a}, scale=3.0), theirs(x, {'a': a}, scale=3.0))
    lowered, their_lowered = mine.lower(), theirs.lower()
    assert isinstance(lowered, minijax.stages.Lowered)
    for attribute in ('args_info', 'in_tree', 'in_avals', 'out_info'):
        assert str(getattr(lowered, attribute)) == str(getattr(their_lowered, attribute))
    costs, their_costs = lowered.cost_analysis(), their_lowered.cost_analysis()
    assert {k: costs[k] for k in ('flops', 'transcendentals')} == \
        {k: their_costs[k] for k in ('flops', 'transcendentals')}
    compiled = lowered.compile()
    assert isinstance(compiled, minijax.stages.Compiled)
    assert str(compiled.args_info) == str(their_lowered.compile().args_info)
    assert_trees_close(compiled(x, {'a': a}, scale=2.0),
                       their_lowered.compile()(x, {'a': a}, scale=2.0))
    info = minijax.stages.ArgInfo(minijax.ShapedArray((2,), np.float32), False)
    assert str(info) == str(jax.stages.ArgInfo(jax.core.ShapedArray((2,), np.float32), False))
    assert (info.shape, info.dtype) == ((2,), np.float32)
    assert_trees_close(lowered.compile({'xla_cpu_enable_fast_math': False})(x, {'a': a}, scale=2.),
                       their_lowered.compile({'xla_cpu_enable_fast_math': False})(
                           x, {'a': a}, scale=2.))


# ---------------------------------------------------------------------------- ad_checkpoint

def _saved(mod, f, *args):
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        mod.ad_checkpoint.print_saved_residuals(f, *args)
    return out.getvalue()


def test_checkpoint_name_and_saved_residuals(rng):
    x, y = random_array(rng, (3,), F64), random_array(rng, (3,), F64)
    p = {'w': random_array(rng, (3,), F64)}

    def make(mod):
        np_ = mod.numpy

        def f(x, y):
            z = mod.ad_checkpoint.checkpoint_name(np_.sin(x), 'z')
            return np_.sum(z * y)

        def g(p, x):
            h = mod.ad_checkpoint.checkpoint_name(np_.sin(p['w'] * x), 'h')
            return np_.sum(mod.jit(lambda h: h * h)(h) * x + 2.0 * h)
        return f, g

    (f, g), (jf, jg) = make(minijax), make(jax)
    assert str(minijax.make_jaxpr(f)(x, y)) == str(jax.make_jaxpr(jf)(x, y))
    assert_trees_close(minijax.grad(f, argnums=(0, 1))(x, y),
                       jax.grad(jf, argnums=(0, 1))(x, y))
    assert_close(minijax.vmap(minijax.grad(f))(x[:, None], y[:, None]),
                 jax.vmap(jax.grad(jf))(x[:, None], y[:, None]))
    assert _saved(minijax, f, x, y) == _saved(jax, jf, x, y)
    assert _saved(minijax, g, p, x) == _saved(jax, jg, p, x)
    assert minijax.ad_checkpoint.checkpoint_policies is minijax.checkpoint_policies


def _answer(module, answer):
    """A policy's answer as text: JAX's ``Saveable`` and ``Recompute`` have no repr."""
    for kind in ('Saveable', 'Recompute'):
        if answer is getattr(module.ad_checkpoint, kind):
            return kind
    return str(tuple(answer)) if isinstance(answer, tuple) else str(answer)


def test_checkpoint_policies_answer_as_jaxs():
    """Each policy's answer for a named value, an unnamed one and a product, as JAX's."""
    from jax._src import ad_checkpoint as jax_ad_checkpoint
    from jax._src.lax import lax as jax_lax

    from minijax.ad_checkpoint import name_p
    mine, theirs = minijax.checkpoint_policies, jax.checkpoint_policies
    offload = dict(offload_src='device', offload_dst='pinned_host')
    policies = [
        ('save_only_these_names', ('a',), {}), ('save_any_names_but_these', ('a',), {}),
        ('save_anything_except_these_names', ('a',), {}),
        ('save_and_offload_only_these_names', (), dict(
            names_which_can_be_saved=['a'], names_which_can_be_offloaded=['b'], **offload)),
        ('offload_dot_with_no_batch_dims', (), offload)]
    dims = ((([1], [0]), ([], [])),)
    equations = [(name_p, jax_ad_checkpoint.name_p, dict(name='a')),
                 (name_p, jax_ad_checkpoint.name_p, dict(name='b')),
                 (minijax.lax.dot_general_p, jax_lax.dot_general_p,
                  dict(dimension_numbers=dims[0])),
                 (minijax.lax.sin_p, jax_lax.sin_p, {})]
    for name, args, kwargs in policies:
        for my_prim, their_prim, params in equations:
            my_answer = getattr(mine, name)(*args, **kwargs)(my_prim, **params)
            their_answer = getattr(theirs, name)(*args, **kwargs)(their_prim, **params)
            assert _answer(minijax, my_answer) == _answer(jax, their_answer), (name, params)
    for module in (jax, minijax):
        with pytest.raises(ValueError, match='should not intersect'):
            module.checkpoint_policies.save_and_offload_only_these_names(
                names_which_can_be_saved=['a'], names_which_can_be_offloaded=['a'], **offload)


# ---------------------------------------------------------------------------- debug, io_callback

def test_debug_log_and_inspect_array_sharding(caplog):
    x = np.arange(4.)

    def make(mod, seen):
        def f(x):
            mod.debug.inspect_array_sharding(x * 2, callback=seen.append)
            mod.debug.log('x is {} and {y}', x, y=x[0])
            return x
        return f

    mine_seen, their_seen = [], []
    f, jf = make(minijax, mine_seen), make(jax, their_seen)
    with caplog.at_level(logging.INFO):
        for fun, module in ((f, minijax), (jf, jax)):
            fun(module.numpy.asarray(x))  # eagerly
            jitted = module.jit(fun)
            jitted(x)
            jitted(x)  # inspected when lowered: once
    messages = [r.getMessage() for r in caplog.records if 'x is' in r.getMessage()]
    assert messages[:3] == messages[3:] and len(messages) == 6
    lines = {r.lineno for r in caplog.records if 'x is' in r.getMessage()}
    assert len(lines) == 1  # the line that called log
    assert len(mine_seen) == len(their_seen) == 2
    assert str(mine_seen[0]) == str(their_seen[0])  # an Array's own sharding
    assert isinstance(mine_seen[1], minijax.sharding.SingleDeviceSharding)


def test_io_callback(rng):
    x = random_array(rng, (3,), F64)

    def make(mod, calls):
        def cb(v):
            calls.append(np.asarray(v).copy())
            return np.asarray(v) * 2

        def f(x):
            spec = mod.ShapeDtypeStruct(x.shape, x.dtype)
            y = mod.experimental.io_callback(cb, spec, x)
            mod.experimental.io_callback(cb, spec, x + 1)  # unread: still called
            return y + 1
        return f

    mine_calls, their_calls = [], []
    f, jf = make(minijax, mine_calls), make(jax, their_calls)
    assert_close(f(x), jf(x))
    assert_close(minijax.jit(f)(x), jax.jit(jf)(x))
    batch = random_array(rng, (2, 3), F64)
    assert_close(minijax.vmap(f)(batch), jax.vmap(jf)(batch))
    assert len(mine_calls) == len(their_calls) == 8
    for module, fun in ((jax, jf), (minijax, f)):
        with pytest.raises(ValueError, match='IO callbacks do not support JVP'):
            module.grad(lambda x: fun(x).sum())(x)


def test_tree_util_default_registry():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    trees = [[1, (2., 3)], {'b': [4], 'a': None}, 5]
    for module in (jax, minijax):
        module.tree_util.default_registry.register_node(
            Pair, lambda p: ((p.a, p.b), None), lambda _, children: Pair(*children))
    mine, theirs = minijax.tree_util.default_registry, jax.tree_util.default_registry
    for tree in [*trees, Pair(1, [2, 3])]:
        (leaves, treedef), (jleaves, jtreedef) = mine.flatten(tree), theirs.flatten(tree)
        assert leaves == jleaves and treedef.num_leaves == jtreedef.num_leaves
        assert str(mine.flatten_with_path(tree)[0]) == str(theirs.flatten_with_path(tree)[0])
    for tree in trees[:2]:  # (children in a sequence of the node's choosing)
        (children, aux), (jchildren, jaux) = (mine.flatten_one_level(tree),
                                              theirs.flatten_one_level(tree))
        assert (list(children), aux) == (list(jchildren), jaux)
        assert str(mine.flatten_one_level_with_keys(tree)) == \
            str(theirs.flatten_one_level_with_keys(tree))
    assert mine.flatten_one_level(5) is theirs.flatten_one_level(5) is None
    assert [mine.is_node(t) for t in (list, dict, int, Pair)] == \
        [theirs.is_node(t) for t in (list, dict, int, Pair)]
    assert mine.flatten([1, 2], leaf_predicate=lambda x: isinstance(x, list))[0] == [[1, 2]]


# ---------------------------------------------------------------------------- jax.extend.core

def _notebook_eval_jaxpr(module, jaxpr, consts, *args):
    """The interpreter of JAX's "Writing custom jaxpr interpreters" notebook, with its imports
    (``jax.extend.core``, ``jax._src.util.safe_map``)."""
    core, safe_map = module.extend.core, module._src.util.safe_map
    env = {}

    def read(var):
        return var.val if type(var) is core.Literal else env[var]

    def write(var, val):
        env[var] = val

    safe_map(write, jaxpr.invars, args)
    safe_map(write, jaxpr.constvars, consts)
    for eqn in jaxpr.eqns:
        outvals = eqn.primitive.bind(*safe_map(read, eqn.invars), **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        safe_map(write, eqn.outvars, outvals)
    return safe_map(read, jaxpr.outvars)


def test_extend_core_custom_interpreter(rng):
    import jax._src.util
    import jax.extend

    import minijax._src.util  # noqa: F401 (the notebook's import)
    x = random_array(rng, (5,), F64)

    def f(mod):
        return lambda x: mod.numpy.exp(mod.numpy.tanh(x)) * 2.0 + mod.numpy.sum(x)

    results = []
    for module in (minijax, jax):
        core = module.extend.core
        closed = module.make_jaxpr(f(module))(x)

        def run(x):
            return _notebook_eval_jaxpr(module, closed.jaxpr, closed.literals, x)[0]
        results.append([run(x), module.jit(run)(x), module.grad(lambda x: run(x).sum())(x),
                        core.jaxpr_as_fun(closed)(x)[0], core.jaxpr_as_fun(closed, x)()[0]])
        assert isinstance(closed.jaxpr, core.Jaxpr) and isinstance(closed, core.ClosedJaxpr)
        assert all(isinstance(e, core.JaxprEqn) for e in closed.jaxpr.eqns)
    for mine, theirs in zip(*results):
        assert_close(mine, theirs)


def test_private_util_helpers_are_jaxs():
    """``jax._src.util``'s ``safe_map``/``safe_zip``, which the custom-interpreter notebook
    imports: lists, and JAX's error for sequences of different lengths."""
    import jax._src.util as theirs

    import minijax._src.util as mine
    for name, f, args in [('safe_map', lambda a, b: a + b, ([1, 2], (3, 4))),
                          ('safe_zip', None, ([1, 2], 'ab'))]:
        call = [lambda m: getattr(m, name)(f, *args), lambda m: getattr(m, name)(*args)][f is None]
        assert call(mine) == call(theirs)
    for name, args in [('safe_map', (min, [1, 2], [1])), ('safe_map', (min, [1], [1, 2])),
                       ('safe_zip', ([1, 2], [1]))]:
        errors = []
        for m in (mine, theirs):
            with pytest.raises(ValueError) as e:
                getattr(m, name)(*args)
            errors.append(str(e.value))
        assert errors[0] == errors[1]


def test_extend_core_builds_and_checks_jaxprs():
    import jax.extend
    texts, errors = [], []
    for module in (minijax, jax):
        core = module.extend.core
        aval = core.ShapedArray((3,), np.float32) if hasattr(core, 'ShapedArray') else \
            module.core.ShapedArray((3,), np.float32)
        a, b, dropped = core.gensym()(aval), core.Var(aval), core.DropVar(aval)
        eqns = [core.new_jaxpr_eqn([a], [b], module.lax.sin_p, {}, core.no_effects),
                core.new_jaxpr_eqn([b], [dropped], module.lax.cos_p, {}, core.no_effects)]
        jaxpr = core.Jaxpr([], [a], [b], eqns, core.no_effects)
        core.check_jaxpr(jaxpr)
        texts.append(str(jaxpr))
        bad = core.Jaxpr([], [a], [b], eqns[1:], core.no_effects)  # b read, never bound
        with pytest.raises(core.JaxprTypeError) as raised:
            core.check_jaxpr(bad)
        errors.append(type(raised.value).__mro__[1])
        closed = module.make_jaxpr(lambda x: module.jit(module.numpy.sin)(x) + 1)(1.)
        assert len(list(core.subjaxprs(closed.jaxpr))) == 1
        assert [core.mapped_aval(3, 1, module.core.ShapedArray((4, 3), np.float32)).shape,
                core.unmapped_aval(3, 0, module.core.ShapedArray((4,), np.float32)).shape] == \
            [(4,), (3, 4)]
        assert core.primal_dtype_to_tangent_dtype(np.int32) == jax.dtypes.float0
        assert (core.valid_jaxtype(1.), core.valid_jaxtype('a')) == (True, False)
        assert np.ndarray in core.array_types
        flags = []
        module.vmap(lambda x: flags.append(
            (core.unsafe_am_i_under_a_vmap_DO_NOT_USE(), core.unsafe_get_axis_names_DO_NOT_USE(),
             core.nonempty_axis_env_DO_NOT_USE(),
             type(core.find_top_trace(None)).__name__)) or x, axis_name='i')(np.ones(2))
        module.jit(lambda x: flags.append(core.unsafe_am_i_under_a_jit_DO_NOT_USE()) or x)(1.)
        assert flags == [(True, ['i'], True, 'BatchTrace'), True]
        assert type(core.find_top_trace(None)).__name__ == 'EvalTrace'
        assert core.concrete_or_error(float, 2) == 2.0
        with pytest.raises(module.errors.ConcretizationTypeError):
            module.jit(lambda x: core.concrete_or_error(float, x, 'context'))(1.)
    assert texts[0] == texts[1]
    assert errors[0] is TypeError and errors[1].__name__ in ('TypeError', 'JAXTypeError')


def test_extend_core_tokens_and_subjaxprs():
    """A token and its type as a custom interpreter meets them, and the jaxprs an equation's
    params hold (a cond's branches)."""
    import jax.extend
    seen = []
    for module in (minijax, jax):
        core = module.extend.core
        token = module.lax.create_token()
        closed = module.make_jaxpr(lambda: module.lax.create_token())()
        cond = module.make_jaxpr(lambda p, x: module.lax.cond(
            p, module.numpy.sin, module.numpy.cos, x))(True, 1.).jaxpr.eqns[-1]
        seen.append([isinstance(token, core.Token),
                     isinstance(closed.jaxpr.outvars[0].aval, core.AbstractToken),
                     [str(j) for j in core.jaxprs_in_params(cond.params)]])
    assert seen[0] == seen[1]


def test_smap(rng):
    """A single-axis shard_map with vmap's in_axes/out_axes, over the mesh set_mesh set."""
    x, y = random_array(rng, (4, 2), F64), random_array(rng, (3,), F64)
    outs = []
    for module in (minijax, jax):
        mesh = module.make_mesh((1,), ('x',), axis_types=(module.sharding.AxisType.Auto,))
        with module.set_mesh(mesh):
            f = module.smap(lambda a, b: a * 2 + b.sum(), in_axes=(0, None), out_axes=0,
                            axis_name='x')
            g = module.smap(lambda a: module.lax.psum(a, 'x'), in_axes=1, out_axes=None,
                            axis_name='x')
            outs.append([module.jit(f)(x, y), g(x)])
            with pytest.raises(TypeError, match='smap in_axes must be'):
                module.smap(lambda a: a, in_axes=[0], out_axes=0, axis_name='x')
            with pytest.raises(TypeError, match='smap axis_name should be'):
                module.smap(lambda a: a, in_axes=0, out_axes=0, axis_name=('x',))
    for mine, theirs in zip(*outs):
        assert_close(mine, theirs)


def test_make_user_context():
    """A jitted function is traced again when a user context's value changes, and finds its
    earlier trace when the value comes back."""
    results = []
    for module in (minijax, jax):
        ctx = module.make_user_context(default_value=1.0)
        f = module.jit(lambda x: x * ctx.value)
        before = runtime.counters['trace']
        values = [f(2.)]
        with ctx(3.0):
            values += [f(2.), f(2.)]
        values.append(f(2.))
        ctx.set_global(5.0)
        values += [f(2.), ctx.value, ctx.get_global()]
        results.append([float(v) for v in values])
        if module is minijax:
            assert runtime.counters['trace'] - before == 3
    assert results[0] == results[1]


def test_jit_and_checkpoint_parameters(rng):
    x = random_array(rng, (3,), F64)

    def make(mod):
        inner = mod.jit(lambda x: mod.numpy.sin(x) * 2, inline=True)
        return lambda x: inner(x) + 1
    assert str(minijax.make_jaxpr(make(minijax))(x)) == str(jax.make_jaxpr(make(jax))(x))
    assert_close(minijax.jit(make(minijax))(x), jax.jit(make(jax))(x))
    for module in (jax, minijax):
        with pytest.warns(DeprecationWarning):
            f = module.jit(lambda x: x * 2, backend='cpu')
        assert_close(f(x), x * 2)
        with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match='both'):
            module.jit(lambda x: x, backend='cpu', device=module.devices()[0])
        with pytest.raises(NotImplementedError, match='concrete'):
            module.checkpoint(lambda x: x, concrete=True)
        g = module.checkpoint(lambda x, n: x * n, static_argnames=('n',))
        assert_close(g(x, n=3), x * 3)


def test_debug_breakpoint(rng):
    """The (jdb) session JAX's cli debugger gives, for a breakpoint reached eagerly and inside
    a compiled program (its traced locals arrive as arrays)."""
    import io
    x = random_array(rng, (3,), F64)
    commands = 'p y\npp z + 1\ny * 2\np nope\nl\nu\nd\nw\nc\n'
    transcripts = []
    for module in (minijax, jax):
        out = io.StringIO()

        def f(x):
            y = module.numpy.sin(x)
            z = 3
            module.debug.breakpoint(stdin=io.StringIO(commands), stdout=out, num_frames=2)
            return y * 2

        def g(x):
            return f(x) + 1
        for run in (g, module.jit(g)):
            assert_close(run(x), np.sin(x) * 2 + 1)
        passed = module.jit(lambda x: module.debug.breakpoint(
            token=x, stdin=io.StringIO('c\n'), stdout=io.StringIO()) * 2)(x)
        assert_close(passed, x * 2)
        transcripts.append(out.getvalue())
    assert transcripts[0] == transcripts[1]
    assert transcripts[0].count('Entering jdb:') == 2


def test_version_is_minijaxs_own():
    """``__version__`` names minijax's release, the one pip installed (not JAX's)."""
    import importlib.metadata
    assert isinstance(jax.__version__, str)
    assert minijax.__version__ == importlib.metadata.version('minijax')
