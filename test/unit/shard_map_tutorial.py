"""The programs of JAX's shard_map tutorial ("Manual parallelism with shard_map"), written once
against a library namespace: ``python shard_map_tutorial.py jax|minijax OUT`` runs them on 8
CPU devices and pickles each result (a list of arrays, or the exception's type and message)
to OUT; test_shard_map.py runs it for both libraries and compares. Prints inside the bodies
are left out (minijax traces an eager shard_map: see docs/shard_map.md).
"""
import pickle
import sys
from functools import partial

import numpy as np
from eight_devices import library

LIB, OUT = sys.argv[1], sys.argv[2]
jax = library(LIB)
import_numpy = __import__(f'{LIB}.numpy', fromlist=['numpy'])
jnp = import_numpy
lax = jax.lax
Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
P = jax.sharding.PartitionSpec
Auto = jax.sharding.AxisType.Auto

results = {}


def record(name, fn, traceable=True):
    """Run one program; keep its leaves, or its error (type and message). minijax runs it as
    the tutorial does; JAX, the oracle, in one jit unless it branches in Python on a value
    (``traceable=False``): JAX's eager shard_map compiles every operation for each device,
    three quarters of the test's time before, for the same values."""
    try:
        out = jax.jit(fn)() if LIB == 'jax' and traceable else fn()
        results[name] = [np.asarray(x) for x in jax.tree_util.tree_leaves(out)]
    except Exception as err:  # the tutorial's error examples: compared by type
        results[name] = (type(err).__name__, str(err))


def allclose(a, b):
    return jax.tree_util.tree_all(jax.tree_util.tree_map(
        partial(jnp.allclose, atol=1e-2, rtol=1e-2), a, b))


# ----------------------------------------------------------------------------- a first shard_map
mesh = jax.make_mesh((4, 2), ('x', 'y'))
jax.set_mesh(mesh)
a = jax.device_put(jnp.arange(8 * 16.).reshape(8, 16), P('x', 'y'))
b = jax.device_put(jnp.arange(16 * 4.).reshape(16, 4), P('y', None))


@jax.shard_map(in_specs=(P('x', 'y'), P('y', None)), out_specs=P('x', None))
def matmul_basic(a_block, b_block):
    c_partialsum = jnp.dot(a_block, b_block)
    return jax.lax.psum(c_partialsum, 'y')


record('matmul_basic', lambda: matmul_basic(a, b))
record('matmul_basic_jit', lambda: jax.jit(matmul_basic)(a, b))

# ----------------------------------------------------------------------------- rank-preserving
mesh = Mesh(np.array(jax.devices()[:4]), ('i',))
jax.set_mesh(mesh)
record('check_shmap', lambda: jax.shard_map(lambda x: x.T @ x, in_specs=P('i'), out_specs=P('i'))(
    jnp.arange(32).reshape(8, 4)))

mesh = jax.make_mesh((4, 2), ('i', 'j'))
jax.set_mesh(mesh)
f1 = jax.shard_map(lambda x_block: x_block, in_specs=P('i', None), out_specs=P('i', 'j'))
record('f1', lambda: f1(jax.device_put(jnp.arange(12 * 12).reshape(12, 12), P('i', None))))
f2 = jax.shard_map(lambda x_block: x_block, in_specs=P('i', 'j'), out_specs=P('i', 'j'))
record('f2', lambda: f2(jax.device_put(jnp.arange(12 * 12).reshape(12, 12), P('i', 'j'))))

auto_mesh = jax.make_mesh((4, 2), ('i', 'j'), (Auto, Auto))
with jax.set_mesh(auto_mesh):
    x3 = jnp.array([[3.]])
    for name, spec in [('tile_ij', P('i', 'j')), ('tile_i', P('i', None)),
                       ('tile_none', P(None, None))]:
        record(name, lambda spec=spec: jax.shard_map(lambda: x3, in_specs=(),
                                                     out_specs=spec)())

x = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), P('i', 'j'))
record('f3', lambda: jax.shard_map(lambda x: jax.lax.psum(x, 'j'), in_specs=P('i', 'j'),
                                   out_specs=P('i', None))(x))
record('f4', lambda: jax.shard_map(lambda x: jax.lax.psum(x, 'i'), in_specs=P('i', 'j'),
                                   out_specs=P(None, 'j'))(x))
record('f5', lambda: jax.shard_map(lambda x: jax.lax.psum(x, ('i', 'j')), in_specs=P('i', 'j'),
                                   out_specs=P(None, None))(x))

# ----------------------------------------------------------------------------- varying axes
mesh = jax.make_mesh((2,), ('i',))
jax.set_mesh(mesh)
x = jax.device_put(jnp.arange(6.), P('i'))
record('times_two', lambda: jax.shard_map(lambda x: 2 * x, in_specs=P('i'), out_specs=P('i'))(x))
record('replicated', lambda: jax.shard_map(lambda x: 2 * x, in_specs=P(), out_specs=P())(
    jnp.arange(6.)))
record('psum_invariant', lambda: jax.shard_map(lambda x: jax.lax.psum(x, 'i'), in_specs=P('i'),
                                               out_specs=P())(x))
record('out_specs_bug', lambda: jax.shard_map(lambda x: x, in_specs=P('i'), out_specs=P())(x))
record('implicit_pvary', lambda: jax.shard_map(lambda x, y: x * y, in_specs=(P('i'), P()),
                                               out_specs=P('i'))(x, jnp.arange(3.)))


def swap_scan(x, y, cast):
    def body(carry, _):
        c1, c2 = carry
        return (c2, c1), ()
    if cast:
        y = jax.lax.pcast(y, 'i', to='varying')
    (x_, y_), _ = jax.lax.scan(body, (x, y), (), length=2)
    return x_, y_


record('scan_vma_error', lambda: jax.shard_map(partial(swap_scan, cast=False),
                                               in_specs=(P('i'), P()), out_specs=P('i'))(
    jnp.arange(6.), jnp.arange(3.)))
record('scan_pcast', lambda: jax.shard_map(partial(swap_scan, cast=True), in_specs=(P('i'), P()),
                                           out_specs=P('i'))(x, jnp.arange(3.)))

# ----------------------------------------------------------------------------- collectives
mesh1d = Mesh(jax.devices()[:4], ('i',))
jax.set_mesh(mesh1d)
x16 = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
record('psum_1d', lambda: jax.shard_map(lambda b: jax.lax.psum(b, 'i'), mesh=mesh1d,
                                        in_specs=P('i'), out_specs=P(None))(x16))
mesh2d = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ('i', 'j'))
jax.set_mesh(mesh2d)
record('psum_2d', lambda: jax.shard_map(lambda b: jax.lax.psum(b, 'i'), mesh=mesh2d,
                                        in_specs=P('i', 'j'), out_specs=P(None, 'j'))(
    jnp.arange(16).reshape(4, 4)))
record('psum_2d_both', lambda: jax.shard_map(lambda b: jax.lax.psum(b, ('i', 'j')), mesh=mesh2d,
                                             in_specs=P('i', 'j'), out_specs=P(None, None))(
    jnp.arange(16).reshape(4, 4)))
jax.set_mesh(mesh1d)
record('all_gather_tiled', lambda: jax.shard_map(
    lambda b: jax.lax.all_gather(b, 'i', tiled=True), mesh=mesh1d, in_specs=P('i'),
    out_specs=P('i'))(jnp.array([3, 9, 5, 2])))
record('all_gather', lambda: jax.shard_map(
    lambda b: jax.lax.all_gather(b, 'i', tiled=False), mesh=mesh1d, in_specs=P('i'),
    out_specs=P('i'))(jnp.array([3, 9, 5, 2])))
record('psum_scatter', lambda: jax.shard_map(
    lambda b: jax.lax.psum_scatter(b, 'i', tiled=True), in_specs=P('i'), out_specs=P('i'))(x16))


def shift_right(x_block):
    sz = jax.lax.axis_size('i')
    return jax.lax.ppermute(x_block, 'i', [(i, (i + 1) % sz) for i in range(sz)])


record('ppermute', lambda: jax.shard_map(shift_right, in_specs=P('i'), out_specs=P('i'))(
    jnp.arange(8)))


def psum_scatter_by_ppermute(x, axis_name, *, tiled=False):
    size = jax.lax.axis_size(axis_name)
    idx = jax.lax.axis_index(axis_name)
    if tiled:
        x = x.reshape(size, -1, *x.shape[1:])
    shift = partial(jax.lax.ppermute, axis_name=axis_name,
                    perm=[(i, (i - 1) % size) for i in range(size)])
    for i in range(1, size):
        update = shift(x[(idx + i) % size])
        x = x.at[(idx + i + 1) % size].add(update)
    return x[idx]


record('psum_scatter_ppermute', lambda: jax.shard_map(
    lambda b: psum_scatter_by_ppermute(b, 'i', tiled=True), in_specs=P('i'),
    out_specs=P('i'))(x16))
record('all_to_all', lambda: jax.shard_map(
    lambda b: jax.lax.all_to_all(b, 'i', split_axis=0, concat_axis=0, tiled=True),
    mesh=mesh1d, in_specs=P('i'), out_specs=P('i'))(x16))

# ----------------------------------------------------------------------------- matmuls
mesh = Mesh(jax.devices()[:4], ('i',))
jax.set_mesh(mesh)


def device_put(x, pspec):
    return jax.device_put(x, NamedSharding(mesh, pspec))


lhs_spec = rhs_spec = P('i', None)
lhs = device_put(jax.random.normal(jax.random.key(0), (8, 8)), lhs_spec)
rhs = device_put(jax.random.normal(jax.random.key(1), (8, 4)), rhs_spec)


@jax.jit
@partial(jax.shard_map, in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
def matmul_allgather(lhs_block, rhs_block):
    rhs = jax.lax.all_gather(rhs_block, 'i', tiled=True)
    return lhs_block @ rhs


@jax.jit
@partial(jax.shard_map, in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
def matmul_allgather_overlapped(lhs_block, rhs_block):
    size = jax.lax.axis_size('i')
    idx = jax.lax.axis_index('i')
    shift = partial(jax.lax.ppermute, axis_name='i',
                    perm=[(i, (i + 1) % size) for i in range(size)])
    B = lhs_block.shape[1] // size
    lhs_blocks = lambda i: lax.dynamic_slice_in_dim(lhs_block, i * B, B, 1)  # noqa: E731
    out_block = lhs_blocks(idx) @ rhs_block
    for i in range(1, size):
        rhs_block = shift(rhs_block)
        out_block += lhs_blocks((idx - i) % size) @ rhs_block
    return out_block


@jax.jit
@partial(jax.shard_map, in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
def matmul_allgather_overlapped_bidi(lhs_block, rhs_block):
    size = jax.lax.axis_size('i')
    idx = jax.lax.axis_index('i')
    shift_up = partial(jax.lax.ppermute, axis_name='i',
                       perm=[(i, (i + 1) % size) for i in range(size)])
    shift_dn = partial(jax.lax.ppermute, axis_name='i',
                       perm=[(i, (i - 1) % size) for i in range(size)])
    B = lhs_block.shape[1] // size // 2
    lhs_blocks = lambda i, hi: lax.dynamic_slice_in_dim(  # noqa: E731
        lhs_block, (2 * i + hi) * B, B, 1)
    rhs_block_lo, rhs_block_hi = jnp.split(rhs_block, 2, axis=0)
    out_block = lhs_blocks(idx, 0) @ rhs_block_lo
    out_block += lhs_blocks(idx, 1) @ rhs_block_hi
    for i in range(1, size):
        rhs_block_lo = shift_up(rhs_block_lo)
        rhs_block_hi = shift_dn(rhs_block_hi)
        out_block += lhs_blocks((idx - i) % size, 0) @ rhs_block_lo
        out_block += lhs_blocks((idx + i) % size, 1) @ rhs_block_hi
    return out_block


for name, fn in [('matmul_allgather', matmul_allgather),
                 ('matmul_allgather_overlapped', matmul_allgather_overlapped),
                 ('matmul_allgather_overlapped_bidi', matmul_allgather_overlapped_bidi)]:
    record(name, lambda fn=fn: (fn(lhs, rhs), jnp.allclose(fn(lhs, rhs), lhs @ rhs, atol=1e-3,
                                                           rtol=1e-3)))

lhs_spec = P(None, 'i')
lhs = device_put(lhs, lhs_spec)
rhs_spec = P('i', None)
rhs = device_put(rhs, rhs_spec)


@partial(jax.shard_map, in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
def matmul_psumscatter(lhs_block, rhs_block):
    out_summand = lhs_block @ rhs_block
    return jax.lax.psum_scatter(out_summand, 'i', tiled=True)


@partial(jax.shard_map, in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
def matmul_psumscatter_overlapped(lhs_block, rhs_block):
    size = jax.lax.axis_size('i')
    idx = jax.lax.axis_index('i')
    shift = partial(jax.lax.ppermute, axis_name='i',
                    perm=[(i, (i - 1) % size) for i in range(size)])
    lhs_block = lhs_block.reshape(size, -1, lhs_block.shape[1])
    out_summand = lhs_block[(idx + 1) % size] @ rhs_block
    for i in range(1, size):
        out_summand = shift(out_summand)
        out_summand += lhs_block[(idx + i + 1) % size] @ rhs_block
    return out_summand


@partial(jax.shard_map, in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
def matmul_psumscatter_overlapped_bidi(lhs_block, rhs_block):
    size = jax.lax.axis_size('i')
    idx = jax.lax.axis_index('i')
    shift_up = partial(jax.lax.ppermute, axis_name='i',
                       perm=[(i, (i + 1) % size) for i in range(size)])
    shift_dn = partial(jax.lax.ppermute, axis_name='i',
                       perm=[(i, (i - 1) % size) for i in range(size)])
    B = lhs_block.shape[0] // size // 2
    lhs_blocks = lambda i, hi: lax.dynamic_slice_in_dim(  # noqa: E731
        lhs_block, (2 * i + hi) * B, B, 0)
    out_summand_lo = lhs_blocks((idx - 1) % size, 0) @ rhs_block
    out_summand_hi = lhs_blocks((idx + 1) % size, 1) @ rhs_block
    for i in range(1, size):
        out_summand_lo = shift_up(out_summand_lo)
        out_summand_hi = shift_dn(out_summand_hi)
        out_summand_lo += lhs_blocks((idx - i - 1) % size, 0) @ rhs_block
        out_summand_hi += lhs_blocks((idx + i + 1) % size, 1) @ rhs_block
    return jnp.concatenate([out_summand_lo, out_summand_hi])


for name, fn in [('matmul_psumscatter', matmul_psumscatter),
                 ('matmul_psumscatter_overlapped', matmul_psumscatter_overlapped),
                 ('matmul_psumscatter_overlapped_bidi', matmul_psumscatter_overlapped_bidi)]:
    record(name, lambda fn=fn: (fn(lhs, rhs), jnp.allclose(fn(lhs, rhs), lhs @ rhs, atol=1e-3,
                                                           rtol=1e-3)))


# ----------------------------------------------------------------------------- neural networks
def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jax.nn.relu(outputs)
    return outputs


def loss(params, batch):
    inputs, targets = batch
    predictions = predict(params, inputs)
    return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))


def init_layer(key, n_in, n_out):
    k1, k2 = jax.random.split(key)
    W = jax.random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
    b = jax.random.normal(k2, (n_out,))
    return W, b


def init(key, layer_sizes, batch_size):
    key, *keys = jax.random.split(key, len(layer_sizes))
    params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))
    key, *keys = jax.random.split(key, 3)
    inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
    targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))
    return params, (inputs, targets)


layer_sizes = [784, 128, 128, 128, 128, 128, 8]
batch_size = 32
params, batch = init(jax.random.key(0), layer_sizes, batch_size)

# 8-way batch data parallelism
mesh = jax.make_mesh((8,), ('batch',))
jax.set_mesh(mesh)
batch = jax.device_put(batch, NamedSharding(mesh, P('batch')))
params = jax.device_put(params, NamedSharding(mesh, P()))


@partial(jax.shard_map, out_specs=P())
def loss_dp(params, local_batch):
    inputs, targets = local_batch
    predictions = predict(params, inputs)
    local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
    return jax.lax.pmean(local_loss, 'batch')


record('loss', lambda: jax.jit(loss)(params, batch))
record('loss_dp', lambda: jax.jit(loss_dp)(params, batch))
record('grad_dp', lambda: (jax.jit(jax.grad(loss_dp))(params, batch),
                           allclose(jax.jit(jax.grad(loss))(params, batch),
                                    jax.jit(jax.grad(loss_dp))(params, batch))),
       traceable=False)

# 4-way fully sharded data parallelism
mesh = jax.make_mesh((4,), ('batch',))
jax.set_mesh(mesh)
batch = jax.device_put(batch, P('batch'))
params = jax.device_put(params, P('batch'))


@partial(jax.remat, policy=lambda op, *_, **__: str(op) != 'all_gather')
def predict_fsdp(params_frag, inputs):
    for W_frag, b_frag in params_frag:
        W = jax.lax.all_gather(W_frag, 'batch', tiled=True)
        b = jax.lax.all_gather(b_frag, 'batch', tiled=True)
        outputs = jnp.dot(inputs, W) + b
        inputs = jax.nn.relu(outputs)
    return outputs


@partial(jax.shard_map, out_specs=P())
def loss_fsdp(local_params, local_batch):
    inputs, targets = local_batch
    predictions = predict_fsdp(local_params, inputs)
    local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
    return jax.lax.pmean(local_loss, 'batch')


repl_params = jax.device_put(params, P())
repl_batch = jax.device_put(batch, P())
record('loss_fsdp', lambda: (jax.jit(loss)(repl_params, repl_batch),
                             jax.jit(loss_fsdp)(params, batch)))
record('grad_fsdp', lambda: (jax.jit(jax.grad(loss_fsdp))(params, batch),
                             allclose(jax.jit(jax.grad(loss))(repl_params, repl_batch),
                                      jax.jit(jax.grad(loss_fsdp))(params, batch))),
       traceable=False)

# 8-way tensor parallelism
mesh = jax.make_mesh((8,), ('feats',))
jax.set_mesh(mesh)
batch = jax.device_put(batch, NamedSharding(mesh, P(None, 'feats')))
params = jax.device_put(params, NamedSharding(mesh, P('feats')))


@partial(jax.shard_map, in_specs=(P(None, 'feats'), P('feats', None), P('feats')),
         out_specs=P(None, 'feats'))
def gemm_tp(inputs, W, b):
    block_result = jnp.dot(inputs, W)
    return jax.lax.psum_scatter(block_result, 'feats', scatter_dimension=1, tiled=True) + b


def predict_tp(params, inputs):
    for W, b in params:
        outputs = gemm_tp(inputs, W, b)
        inputs = jax.nn.relu(outputs)
    return outputs


def loss_tp(params, batch):
    inputs, targets = batch
    predictions = predict_tp(params, inputs)
    return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))


record('loss_tp', lambda: jax.jit(loss_tp)(params, batch))

# FSDP + TP
mesh = jax.make_mesh((4, 2), ('batch', 'feats'))
jax.set_mesh(mesh)
batch = jax.device_put(batch, NamedSharding(mesh, P('batch', 'feats')))
params = jax.device_put(params, NamedSharding(mesh, P(('feats', 'batch'))))


@partial(jax.remat, policy=lambda op, *_, **__: str(op) != 'all_gather')
def predict_fsdp_tp(params_frag, inputs):
    for W_frag, b_frag in params_frag:
        W = jax.lax.all_gather(W_frag, 'batch', tiled=True)
        b = jax.lax.all_gather(b_frag, 'batch', tiled=True)
        block_result = jnp.dot(inputs, W)
        outputs = jax.lax.psum_scatter(block_result, 'feats', scatter_dimension=1,
                                       tiled=True) + b
        inputs = jax.nn.relu(outputs)
    return outputs


@partial(jax.shard_map, in_specs=(P(('feats', 'batch')), P('batch', 'feats')), out_specs=P())
def loss_fsdp_tp(local_params, local_batch):
    inputs, targets = local_batch
    predictions = predict_fsdp_tp(local_params, inputs)
    sq_err = jax.lax.psum(jnp.sum((predictions - targets) ** 2, axis=-1), 'feats')
    return jax.lax.pmean(jnp.mean(sq_err), 'batch')


repl_params = jax.device_put(params, P())
repl_batch = jax.device_put(batch, P())
record('loss_fsdp_tp', lambda: (jax.jit(loss)(repl_params, repl_batch),
                                jax.jit(loss_fsdp_tp)(params, batch)))
record('grad_fsdp_tp', lambda: (jax.jit(jax.grad(loss_fsdp_tp))(params, batch),
                                allclose(jax.jit(jax.grad(loss))(repl_params, repl_batch),
                                         jax.jit(jax.grad(loss_fsdp_tp))(params, batch))),
       traceable=False)

# SPMD pipeline parallelism
L = len(params) - 2
N = batch_size
F = params[0][0].shape[1]
S, B = 2, 8
M, ragged = divmod(N, B)
K, ragged = divmod(M, S)
mesh = Mesh(jax.devices()[:S], ('stages',))


def predict_pp(params, inputs):
    (W_first, b_first), inner_params, (W_last, b_last) = params
    inputs = jax.nn.relu(jnp.dot(inputs, W_first) + b_first)
    inputs = spmd_pipeline(lambda Wb, x: jax.nn.relu(x @ Wb[0] + Wb[1]), inner_params, inputs)
    return jnp.dot(inputs, W_last) + b_last


@partial(jax.shard_map, in_specs=((P(), P('stages'), P()), P('stages')), out_specs=P())
def loss_pp(params, batch):
    inputs, targets = batch
    predictions = predict_pp(params, inputs.reshape(K, B, -1)).reshape(K * B, -1)
    local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
    return jax.lax.pmean(local_loss, 'stages')


def spmd_pipeline(fn, stage_params, inputs):
    stage = jax.lax.axis_index('stages')
    outputs = jnp.zeros_like(inputs) * jnp.nan
    state = jnp.zeros((L // S, B, F)) * jnp.nan
    for i in range(M + L - 1):
        state = state.at[0].set(jnp.where(stage == 0, inputs[i % K], state[0]))
        state = jax.vmap(fn)(stage_params, state)
        outputs = outputs.at[(i - L + 1) % K].set(
            jnp.where(stage == S - 1, state[-1], outputs[(i - L + 1) % K]))
        state, inputs, outputs = shift(i, state, inputs, outputs)
    return jax.lax.ppermute(outputs, 'stages', [(i, (i + 1) % S) for i in range(S)])


def shift(i, state, inputs, outputs):
    sh = lambda x, d: jax.lax.ppermute(  # noqa: E731
        x, 'stages', [(i, (i + d) % S) for i in range(S)])
    state = jnp.roll(state, +1, axis=0).at[0].set(sh(state[-1], +1))
    if (i % K) == (-1 % K):
        inputs = sh(inputs, +1)
    if ((i - L + 1) % K) == (-1 % K):
        outputs = sh(outputs, +1)
    return state, inputs, outputs


first_params, *inner_params, last_params = params
Ws, bs = zip(*inner_params)
params_stacked = jnp.stack(Ws), jnp.stack(bs)
first_params = jax.device_put(first_params, NamedSharding(mesh, P()))
params_stacked = jax.device_put(params_stacked, NamedSharding(mesh, P('stages')))
last_params = jax.device_put(last_params, NamedSharding(mesh, P()))
params_ = first_params, params_stacked, last_params
batch_ = jax.device_put(batch, NamedSharding(mesh, P('stages')))
jax.set_mesh(mesh)
record('loss_pp', lambda: jax.jit(loss_pp)(params_, batch_))
record('grad_pp', lambda: jax.jit(jax.grad(loss_pp))(params_, batch_))

with open(OUT, 'wb') as out:
    pickle.dump(results, out)
