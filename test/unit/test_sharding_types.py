"""Sharding in types against JAX 0.10.2 on a 2x2 mesh of ``Explicit`` axes (4 CPU devices,
conftest): for each op of the table and the shardings of its operands, the result's type
(``typeof``), its value, the lowered module's text (the ``sdy.sharding_constraint`` after
each op) and the jaxpr, or the error and its text; then grads, whose cotangents are sharded
as their primals."""
import re
import types

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import minijax
import minijax.numpy as mjnp

MJ = types.SimpleNamespace(jax=minijax, jnp=mjnp, lax=minijax.lax, s=minijax.sharding,
                           P=minijax.P)
JX = types.SimpleNamespace(jax=jax, jnp=jjnp, lax=jax.lax, s=jax.sharding, P=jax.P)

#: name -> (operands: (shape, spec entries or None for unsharded), the program of ``ns``).
CASES = {
    'sin': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.sin(x)),
    'transpose': ([((4, 2), ('X', 'Y'))], lambda ns, x: x.T),
    'exp_of_transpose': ([((4, 4), ('X', None))], lambda ns, x: ns.jnp.exp(x.T) + 1),
    'add_same': ([((4, 4), ('X', None)), ((4, 4), ('X', None))], lambda ns, x, y: x + y),
    'add_broadcast': ([((4, 1), ('X', None)), ((1, 4), (None, 'Y'))], lambda ns, x, y: x + y),
    'add_unsharded': ([((4, 4), ('X', 'Y')), ((4, 4), None)], lambda ns, x, y: x * y),
    'add_mismatch': ([((4, 4), ('X', None)), ((4, 4), (None, 'X'))], lambda ns, x, y: x + y),
    'add_incompatible': ([((4, 4), ('X', None)), ((4, 4), ('Y', None))],
                         lambda ns, x, y: x - y),
    'scalar': ([((4, 4), (('X', 'Y'), None))], lambda ns, x: x * 2 - 1),
    'sum0': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.sum(0)),
    'sum_all': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.sum()),
    'max1': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.max(1)),
    'argmax': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.argmax(1)),
    'reshape_merge': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.reshape(16)),
    'reshape_split': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.reshape(4, 2, 2)),
    'reshape_ones': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.reshape(1, 4, 4, 1)),
    'reshape_bad': ([((4, 4), (None, 'X'))], lambda ns, x: x.reshape(16)),
    'reshape_out': ([((4, 4), ('X', 'Y'))],
                    lambda ns, x: ns.jnp.reshape(x, (16,), out_sharding=ns.P('X'))),
    'astype': ([((4, 4), ('X', 'Y'))], lambda ns, x: x.astype(np.int32)),
    'where': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.where(x > 3, x, 0.)),
    'where_mismatch': ([((4, 4), ('X', None)), ((4, 4), (None, 'Y'))],
                       lambda ns, x, y: ns.lax.select(x > 3, x, y)),
    'concatenate': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.concatenate([x, x], 1)),
    'concatenate_mismatch': ([((4, 4), ('X', 'Y')), ((4, 4), None)],
                             lambda ns, x, y: ns.jnp.concatenate([x, y], 0)),
    'expand_dims': ([((4, 4), ('X', 'Y'))], lambda ns, x: x[None]),
    'broadcast_to': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.broadcast_to(x, (3, 4, 4))),
    'squeeze': ([((1, 4), (None, 'X'))], lambda ns, x: ns.jnp.squeeze(x, 0)),
    'slice': ([((4, 4), ('X', 'Y'))], lambda ns, x: x[:2]),
    'slice_indivisible': ([((4, 4), ('X', 'Y'))], lambda ns, x: x[:3]),
    'rev': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.lax.rev(x, (0,))),
    'dynamic_slice': ([((4, 4), ('X', 'Y'))],
                      lambda ns, x: ns.lax.dynamic_slice(x, (np.int64(0), np.int64(2)), (4, 2))),
    'dynamic_update_slice': ([((4, 4), ('X', 'Y')), ((4, 4), ('X', 'Y'))], lambda ns, x, y:
                             ns.lax.dynamic_update_slice(x, y[:2] * 2, (np.int64(2), np.int64(0)))),
    'split': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.lax.split(x, (2, 2), axis=0)[1]),
    'cumsum_free_axis': ([((4, 4), ('X', None))], lambda ns, x: ns.lax.cumsum(x, 1)),
    'cumsum_sharded_axis': ([((4, 4), ('X', None))], lambda ns, x: ns.lax.cumsum(x, 0)),
    'sort_sharded_axis': ([((4, 4), ('X', None))], lambda ns, x: ns.lax.sort(x, 0)),
    'top_k_free_axis': ([((4, 4), ('X', None))], lambda ns, x: ns.lax.top_k(x, 2)[0]),
    'top_k_sharded_axis': ([((4, 4), (None, 'X'))], lambda ns, x: ns.lax.top_k(x, 2)[1]),
    'gather_free_dim': ([((4, 4), (None, 'Y'))], lambda ns, x: x[np.array([0, 2, 3])]),
    'gather_sharded_dim': ([((4, 4), ('X', None))], lambda ns, x: x[np.array([0, 2])]),
    'take_along_free_axis': ([((4, 4), ('X', None))],
                             lambda ns, x: ns.jnp.take(x, np.array([1, 3]), axis=1)),
    'scatter_free_dim': ([((4, 4), (None, 'Y')), ((2, 4), (None, 'Y'))],
                         lambda ns, x, u: x.at[np.array([0, 2])].add(u)),
    'scatter_sharded_dim': ([((4, 4), ('X', None)), ((2, 4), None)],
                            lambda ns, x, u: x.at[np.array([0, 2])].set(u)),
    'conv_batch_sharded': ([((4, 2, 6, 6), ('X', None, None, None)), ((3, 2, 3, 3), None)],
                           lambda ns, x, k: ns.lax.conv_general_dilated(x, k, (1, 1),
                                                                        'SAME')),
    'conv_kernel_sharded': ([((4, 2, 6, 6), None), ((4, 2, 3, 3), ('X', None, None, None))],
                            lambda ns, x, k: ns.lax.conv_general_dilated(x, k, (1, 1),
                                                                         'VALID')),
    'tile_free_dim': ([((4, 4), ('X', None))], lambda ns, x: ns.lax.tile(x, (1, 3))),
    'tile_sharded_dim': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.lax.tile(x, (1, 2))),
    'clamp': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.lax.clamp(2., x, 5.)),
    'matmul_contracting_sharded': ([((4, 4), (None, 'X')), ((4, 4), ('X', None))],
                                   lambda ns, x, y: x @ y),
    'matmul_free': ([((4, 4), ('X', None)), ((4, 4), (None, 'Y'))], lambda ns, x, y: x @ y),
    'matmul_mixed': ([((4, 4), None), ((4, 4), ('X', None))], lambda ns, x, y: x @ y),
    'dot_out_sharding': ([((4, 4), (None, 'X')), ((4, 4), ('X', None))],
                         lambda ns, x, y: ns.jnp.dot(x, y, out_sharding=ns.P('X', None))),
    'matmul_out_sharding': ([((4, 4), (None, 'X')), ((4, 4), ('X', None))],
                            lambda ns, x, y: ns.jnp.matmul(x, y, out_sharding=ns.P(None, 'Y'))),
    'einsum_out_sharding': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.einsum(
        'ij,kj->ik', x, x, out_sharding=ns.P('X', 'Y'))),
    'batched_dot': ([((2, 4, 4), ('X', None, None)), ((2, 4, 4), ('X', None, 'Y'))],
                    lambda ns, x, y: x @ y),
    'zeros': ([], lambda ns: ns.jnp.zeros((4, 4), out_sharding=ns.P('X'))),
    'zeros_unsharded': ([], lambda ns: ns.jnp.zeros((4, 4))),
    'arange': ([], lambda ns: ns.jnp.arange(8, out_sharding=ns.P('X'))),
    'zeros_like': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.zeros_like(x) + x),
    'full_plus': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.full((4, 4), 2.) + x),
    'normal': ([], lambda ns: ns.jax.random.normal(ns.jax.random.key(0), (4, 4),
                                                   out_sharding=ns.P('X', 'Y'))),
    'reshard': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jax.reshard(x, ns.P('Y', None)) * 2),
    'constraint_holds': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.lax.with_sharding_constraint(
        ns.jnp.sin(x), ns.P('X', 'Y'))),
    'constraint_fails': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.lax.with_sharding_constraint(
        x, ns.P('Y', 'X'))),
    'auto_axes': ([((4, 4), ('X', None)), ((4, 4), (None, 'X'))], lambda ns, x, y:
                  ns.s.auto_axes(lambda a, b: a + b, out_sharding=ns.P('X', None))(x, y)),
    'explicit_axes': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.s.explicit_axes(
        lambda a: a * 2, in_sharding=ns.P('Y', 'X'))(x)),
    # out_sharding= of jnp and friends
    'full_like_out': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.full_like(
        x, 2., out_sharding=ns.P('Y', None)) * x.sum()),
    'asarray_out': ([((4, 4), ('X', 'Y'))],
                    lambda ns, x: ns.jnp.asarray(x, out_sharding=ns.P('X', None))),
    'ravel_out': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.ravel(x, out_sharding=ns.P('X'))),
    'repeat_out': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.repeat(
        x, 2, axis=1, out_sharding=ns.P('X', 'Y'))),
    'tensordot_out': ([((4, 4), (None, 'X')), ((4, 4), ('X', None))], lambda ns, x, y:
                      ns.jnp.tensordot(x, y, 1, out_sharding=ns.P('X', None))),
    'bincount_out': ([((4,), None)], lambda ns, x: ns.jnp.bincount(
        x.astype(int) % 3, length=4, out_sharding=ns.P())),
    'percentile_out': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.percentile(
        x, 50., axis=0, out_sharding=ns.P('X'))),
    'segment_sum_out': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jax.ops.segment_sum(
        x, np.array([0, 1, 1, 0]), 2, out_sharding=ns.P(None, 'Y'))),
    'zeros_init_out': ([], lambda ns: ns.jax.nn.initializers.zeros(
        None, (4, 4), out_sharding=ns.P('X', 'Y'))),
}


def _operands(ns, mesh, specs, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(-5, 9, shape).astype(np.float64) if spec is None else
            ns.jax.device_put(rng.integers(-5, 9, shape).astype(np.float64),
                              ns.s.NamedSharding(mesh, ns.P(*spec)))
            for shape, spec in specs]


def _run(ns, name):
    """(type, value, jaxpr, module) of the case under jit, or (error class, text)."""
    specs, program = CASES[name]
    mesh = ns.jax.make_mesh((2, 2), ('X', 'Y'))
    with ns.jax.set_mesh(mesh):
        args = _operands(ns, mesh, specs, seed=sum(map(ord, name)))
        fun = lambda *a: program(ns, *a)  # noqa: E731
        try:
            out = ns.jax.jit(fun)(*args)
            jaxpr = str(ns.jax.make_jaxpr(fun)(*args))
            text = ns.jax.jit(fun).lower(*args).as_text()
        except Exception as err:  # noqa: BLE001 (the error is what is compared)
            return type(err).__name__, _normalized(str(err))
        return str(ns.jax.typeof(out)), np.asarray(out).tolist(), jaxpr, text


def _normalized(text):
    """JAX's abstract meshes print their device kind; minijax's do not."""
    return re.sub(r', device_kind=cpu, num_cores=None, platform=cpu', '', text)


#: Cases whose jaxpr and module differ from JAX's for reasons of their own, not sharding:
#: minijax's random.normal is not written as JAX's (its nested jits and broadcasts), nor is
#: its indexing (JAX normalizes constant indices while tracing; minijax stages the ops);
#: asarray places its operand with device_put (JAX converts it with a sharding); the scatter
#: of bincount and segment_sum, and percentile, are minijax's own programs.
TYPES_AND_VALUES_ONLY = {'normal', 'gather_free_dim', 'take_along_free_axis',
                         'scatter_free_dim', 'asarray_out', 'bincount_out', 'percentile_out',
                         'segment_sum_out'}


@pytest.mark.parametrize('name', sorted(CASES))
def test_sharding_rule(name):
    mine, theirs = _run(MJ, name), _run(JX, name)
    assert mine[:2] == theirs[:2]
    if len(theirs) > 2 and name not in TYPES_AND_VALUES_ONLY:
        assert mine[2] == theirs[2]
        assert mine[3] == theirs[3]


GRADS = {
    'sin_sum': ([((4, 4), ('X', 'Y'))], lambda ns, x: ns.jnp.sin(x).sum()),
    'matmul': ([((4, 4), ('X', None)), ((4, 4), (None, 'Y'))],
               lambda ns, x, y: (ns.jnp.tanh(x @ y) ** 2).sum()),
    'dot_out_sharding': ([((4, 4), (None, 'X')), ((4, 4), ('X', None))],
                         lambda ns, x, y: ns.jnp.dot(x, y, out_sharding=ns.P('X', None)).sum()),
    'reshape_sum': ([((4, 4), ('X', 'Y'))], lambda ns, x: (x.reshape(16) ** 2).sum()),
    'broadcast_add': ([((4, 1), ('X', None)), ((1, 4), (None, 'Y'))],
                      lambda ns, x, y: ns.jnp.exp(x + y).sum()),
    'reshard': ([((4, 4), ('X', 'Y'))],
                lambda ns, x: (ns.jax.reshard(x, ns.P('Y', None)) ** 3).sum()),
    'tile': ([((4, 4), ('X', None))], lambda ns, x: (ns.lax.tile(x, (1, 3)) ** 2).sum()),
    'gather': ([((4, 4), (None, 'Y'))], lambda ns, x: (x[np.array([0, 2, 3])] ** 2).sum()),
}


def _grads(ns, name):
    specs, program = GRADS[name]
    mesh = ns.jax.make_mesh((2, 2), ('X', 'Y'))
    with ns.jax.set_mesh(mesh):
        args = _operands(ns, mesh, specs, seed=sum(map(ord, name)))
        argnums = tuple(range(len(args)))
        grads = ns.jax.jit(ns.jax.grad(lambda *a: program(ns, *a), argnums))(*args)
        return [(str(ns.jax.typeof(g)), np.asarray(g).tolist()) for g in grads]


@pytest.mark.parametrize('name', sorted(GRADS))
def test_grad_cotangents_sharded_as_primals(name):
    assert _grads(MJ, name) == _grads(JX, name)


def _type_texts(ns, core):
    """Types printed: entries, tuples of axes, unreduced sets, Auto axes left out."""
    mesh = ns.s.AbstractMesh((2, 2), ('X', 'Y'), (ns.s.AxisType.Explicit,) * 2)
    mixed = ns.s.AbstractMesh((2, 2), ('X', 'Y'), (ns.s.AxisType.Explicit, ns.s.AxisType.Auto))
    out = []
    for m, spec in [(mesh, ns.P('X', 'Y')), (mesh, ns.P(('X', 'Y'), None)),
                    (mesh, ns.P(None, 'Y', unreduced={'X'})), (mesh, ns.P(unreduced={'X', 'Y'})),
                    (mixed, ns.P('X', 'Y')), (mesh, ns.P())]:
        aval = core.ShapedArray((4, 8, 2), np.float32, sharding=ns.s.NamedSharding(m, spec))
        out += [str(aval), repr(aval), aval.str_short(short_dtypes=True),
                str(aval.sharding.spec)]
    return out


def test_types_print_as_jax_prints_them():
    import jax._src.core as jax_core
    assert _type_texts(MJ, minijax.core) == _type_texts(JX, jax_core)


#: Programs whose results are unreduced over a mesh axis (``{U:X}``, a partial sum left for
#: later): their jaxprs and modules, or the error of an op that cannot take one. (minijax's
#: arrays hold no partial sums, so these are traced and lowered, not run.)
UNREDUCED = {
    'dot_unreduced': lambda ns, x, y: ns.jnp.dot(x, y, out_sharding=ns.P('Y', None,
                                                                           unreduced={'X'})),
    'transpose_keeps': lambda ns, x, y: ns.jnp.dot(
        x, y, out_sharding=ns.P('Y', None, unreduced={'X'})).T,
    'reshard_reduces': lambda ns, x, y: ns.jax.reshard(ns.jnp.dot(
        x, y, out_sharding=ns.P('Y', None, unreduced={'X'})), ns.P('Y', None)),
    'sin_refuses': lambda ns, x, y: ns.jnp.sin(ns.jnp.dot(
        x, y, out_sharding=ns.P(None, None, unreduced={'X'}))),
}


def _unreduced(ns, name):
    mesh = ns.jax.make_mesh((2, 2), ('X', 'Y'))
    with ns.jax.set_mesh(mesh):
        x, y = _operands(ns, mesh, [((4, 4), (None, 'X')), ((4, 4), ('X', None))], seed=0)
        fun = lambda x, y: UNREDUCED[name](ns, x, y)  # noqa: E731
        try:
            return str(ns.jax.make_jaxpr(fun)(x, y)), ns.jax.jit(fun).lower(x, y).as_text()
        except Exception as err:  # noqa: BLE001 (the error is what is compared)
            return type(err).__name__, str(err)


@pytest.mark.parametrize('name', sorted(UNREDUCED))
def test_unreduced_types(name):
    assert _unreduced(MJ, name) == _unreduced(JX, name)


def test_an_eager_op_under_an_abstract_mesh_alone_runs_on_the_default_device():
    """Under ``use_abstract_mesh`` with no devices, an eager op whose result is typed over
    the mesh ran into a placement of None (an AttributeError from inside minijax). It runs
    on the default device now; JAX raises ``ValueError: Passing lowering_platforms ... is
    required when only AbstractMesh exists`` (docs/sharding_in_types.md)."""
    from minijax.sharding import AbstractMesh, AxisType, use_abstract_mesh
    mesh = AbstractMesh((2,), ('x',), axis_types=(AxisType.Explicit,))
    with use_abstract_mesh(mesh):
        out = mjnp.arange(4.).at[1].add(1.)
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.) + [0, 1, 0, 0])
