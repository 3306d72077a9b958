"""Speed and memory, minijax beside JAX 0.10.2 in the same run: every figure of the
performance issue, each with its target ratio (minijax / JAX).

    python bench/speed.py [--write]

Figures that depend on what a process has imported or allocated (first call, a process
without ``jax``, memory) run in fresh subprocesses (``python bench/speed.py --child NAME``);
the others run here, minijax and JAX alternating. ``--write`` records the table in
bench/results/speed.md. Timings are the best of several repeats, with the garbage collector
running; dispatch and trace+lower are CPU times (``time.process_time``), which another process
on the machine disturbs less.
"""
import gc
import os
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

from report import report

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the minijax beside this bench, not an installed one


def best_of(fn, number, repeat=5, clock=time.perf_counter):
    """The best time per call of ``fn``, with the garbage collector running as in a user's
    program. ``timeit`` pauses it by default; that would hide the collector's walks over
    every live tracer and MLIR object, one of the costs that grow with a long trace."""
    timer = timeit.Timer(fn, setup=gc.enable, timer=clock)
    return min(timer.repeat(number=number, repeat=repeat)) / number


def frameworks():
    """(name, the jax-like module, its numpy, its lax) for minijax and JAX (x64)."""
    import jax
    jax.config.update('jax_enable_x64', True)
    import jax.numpy as jnp
    import minijax
    import minijax.numpy as mnp
    return [('minijax', minijax, mnp, minijax.lax), ('jax', jax, jnp, jax.lax)]


# ----------------------------------------------------------------------------- dispatch

def f_small(jnp):
    return lambda v: jnp.sin(v) * 2.


def dispatch_numpy(jax, jnp, lax):
    g, x = jax.jit(f_small(jnp)), np.arange(16, dtype=np.float32)
    g(x)
    return best_of(lambda: g(x), 10000, repeat=7, clock=time.process_time)


def dispatch_array(jax, jnp, lax):
    g = jax.jit(f_small(jnp))
    y = g(np.arange(16, dtype=np.float32))
    return best_of(lambda: g(y), 10000, repeat=7, clock=time.process_time)


def runtime_alone(jax, jnp, lax):
    """minijax's runtime running ``dispatch_array``'s compiled program on the device buffer
    with no ``jit`` around it (jaxlib's execution and result handling): what a jitted call
    costs before any Python dispatch, the floor of the row above."""
    g = jax.jit(f_small(jnp))
    y = g(np.arange(16, dtype=np.float32))
    run, buffers = g.lower(y).compile()._executable, [y.buffer]
    return best_of(lambda: run(buffers), 10000, repeat=7, clock=time.process_time)


# ----------------------------------------------------------------------------- eager op by op

def eager_ops(jax, jnp, lax, rounds=300):
    """The time per op of ``tanh``, ``*``, ``sin``, ``+`` on a 100-vector, ``rounds`` times
    over, each op dispatched on its own (no jit), then the result read back."""
    def ops(x):
        for _ in range(rounds):
            x = jnp.tanh(x)
            x = x * 1.0001
            x = jnp.sin(x)
            x = x + 0.5
        return x
    x = jnp.asarray(np.linspace(0., 1., 100))
    np.asarray(ops(x))  # compiles each op's program
    return best_of(lambda: np.asarray(ops(x)), 1, repeat=3, clock=time.process_time) / \
        (4 * rounds)


# ----------------------------------------------------------------------------- trace + lower

def chain(jnp, n):
    def f(x):
        for _ in range(n):
            x = jnp.sin(x) * 1.5
        return x
    return f


def trace_and_lower(n):
    def measure(jax, jnp, lax):
        x = np.ones(16, np.float32)
        return best_of(lambda: jax.jit(chain(jnp, n // 2)).lower(x).as_text(), 1, repeat=1,
                       clock=time.process_time)
    return measure


def tracing_alone(jax, jnp, n):
    """minijax's share of trace + lower spent tracing (``jit(...).trace``)."""
    x = np.ones(16, np.float32)
    return best_of(lambda: jax.jit(chain(jnp, n // 2)).trace(x), 1, repeat=5,
                   clock=time.process_time)


def bindings_alone(n):
    """The MLIR bindings' share of trace + lower: the ops the chain lowers to (per pair of
    ops a sine, then a constant, its broadcast and a multiply), built one binding call each,
    verified and printed, with no tracing or lowering interpreter around them: the floor
    of any lowering that builds ops through the bindings."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func
    from minijax.lowering.context import mlir_context

    def build():
        with mlir_context(), ir.Location.unknown():
            module = ir.Module.create()
            t = ir.RankedTensorType.get([16], ir.F32Type.get())
            scalar = ir.RankedTensorType.get([], ir.F32Type.get())
            value = ir.DenseElementsAttr.get(np.array(1.5, np.float32))
            dims = ir.DenseI64ArrayAttr.get([])
            with ir.InsertionPoint(module.body):
                main = func.FuncOp('main', ir.FunctionType.get([t], [t]))
            block = main.add_entry_block()
            with ir.InsertionPoint(block):
                x = block.arguments[0]
                for _ in range(n // 2):
                    x = ir.Operation.create('stablehlo.sine', results=[t], operands=[x]).result
                    c = ir.Operation.create('stablehlo.constant', results=[scalar],
                                            attributes={'value': value}).result
                    c = ir.Operation.create('stablehlo.broadcast_in_dim', results=[t],
                                            operands=[c],
                                            attributes={'broadcast_dimensions': dims}).result
                    x = ir.Operation.create('stablehlo.multiply', results=[t],
                                            operands=[x, c]).result
                func.ReturnOp([x])
            module.operation.verify()
            return module.operation.get_asm(binary=True, assume_verified=True)
    return best_of(build, 1, repeat=5, clock=time.process_time)


# ----------------------------------------------------------------------------- RNN through scan

def rnn_grad(jax, jnp, lax, steps=100, units=128):
    """jit(grad) of an RNN's loss over ``steps`` steps: (compiled, arguments)."""
    def loss(w, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, jnp.sum(h)
        _, ys = lax.scan(step, jnp.zeros(units), xs)
        return jnp.sum(ys)
    rng = np.random.default_rng(0)
    w = rng.normal(size=(units, units)) / np.sqrt(units)
    xs = rng.normal(size=(steps, units))
    return jax.jit(jax.grad(loss)).lower(w, xs).compile(), (w, xs)


def rnn_bytes(jax, jnp, lax):
    compiled, _ = rnn_grad(jax, jnp, lax)
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return cost['bytes accessed']


def rnn_time(jax, jnp, lax):
    compiled, args = rnn_grad(jax, jnp, lax)
    np.asarray(compiled(*args))
    return best_of(lambda: np.asarray(compiled(*args)), 20)


# ----------------------------------------------------------------------------- eager matmul

def eager_matmul(jax, jnp, lax):
    rng = np.random.default_rng(0)
    a, b = (jnp.asarray(rng.normal(size=(1024, 1024))) for _ in range(2))
    np.asarray(jnp.matmul(a, b))
    return best_of(lambda: np.asarray(jnp.matmul(a, b)), 5)


def numpy_matmul():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(1024, 1024)), rng.normal(size=(1024, 1024))
    return best_of(lambda: a @ b, 5)


# ----------------------------------------------------------------------------- in fresh processes

def child_first_call(name):
    """Import + first jitted call, and whether ``jax`` got imported (minijax must not)."""
    start = time.perf_counter()
    if name == 'minijax':
        import minijax as jax
        import minijax.numpy as jnp
    else:
        import jax
        jax.config.update('jax_enable_x64', True)
        import jax.numpy as jnp
    np.asarray(jax.jit(f_small(jnp))(np.arange(16, dtype=np.float32)))
    return time.perf_counter() - start, 'jax' in sys.modules


def child_first_grad_from_cache(name):
    """The first call of a jitted gradient of an MLP in a fresh process whose persistent
    compilation cache is the directory ``$BENCH_CACHE_DIR`` (cold when it is empty); the
    time from the call to the result, and whether the cache held the executable (minijax)."""
    if name == 'minijax':
        import minijax as jax
        import minijax.numpy as jnp
        from minijax import runtime
    else:
        import jax
        import jax.numpy as jnp
        jax.config.update('jax_enable_x64', True)
        runtime = None
    jax.config.update('jax_compilation_cache_dir', os.environ['BENCH_CACHE_DIR'])
    jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(256, 256)), rng.normal(size=256)) for _ in range(4)]
    x = rng.normal(size=(64, 256))

    def loss(params, x):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.mean(x ** 2)
    start = time.perf_counter()
    np.asarray(jax.jit(jax.grad(loss))(params, x)[0][0])
    hit = runtime is not None and runtime.counters['compilation_cache_hit'] > 0
    return time.perf_counter() - start, hit


class _NoJax:
    """A meta path finder that makes ``import jax`` fail, as where jax is not installed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == 'jax' or fullname.startswith('jax.'):
            raise ImportError(f'{fullname} is blocked (measuring without jax)')
        return None


def child_dispatch_without_jax(name):
    sys.meta_path.insert(0, _NoJax())
    import minijax
    import minijax.numpy as mnp
    return dispatch_numpy(minijax, mnp, minijax.lax), 'jax' in sys.modules


def rss_bytes():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')


def child_constants_memory(name, first=40, steady=(80, 160)):
    """RSS growth of lowering functions that each close over their own 4 MB constant: over
    the first 40 (the issue's figure: what the allocator settles at) and then from the 80th
    to the 160th function (steady state: memory kept per function; zero if nothing leaks)."""
    (_, jax, jnp, _), = [fw for fw in frameworks() if fw[0] == name]
    x = np.ones(512 * 1024)
    jax.jit(lambda v: v + 1.).lower(x)  # warm up: contexts, caches
    gc.collect()
    start, marks = rss_bytes(), {}
    for i in range(steady[1]):
        c = np.random.default_rng(i).normal(size=512 * 1024)
        jax.jit(lambda v, c=c: v + jnp.asarray(c)).lower(x)
        if i + 1 in (first, *steady):
            gc.collect()
            marks[i + 1] = rss_bytes()
    return marks[first] - start, marks[steady[1]] - marks[steady[0]]


def child_training_memory(name, steps=20000, warm=2000):
    """RSS growth of a training loop (a jitted SGD step of a small MLP, its parameters fed
    back as device arrays) from step ``warm`` to step ``steps``: zero if no step keeps
    anything."""
    (_, jax, jnp, _), = [fw for fw in frameworks() if fw[0] == name]
    rng = np.random.default_rng(0)
    params = [jnp.asarray(rng.normal(size=s) / 8) for s in [(32, 64), (64,), (64, 1), (1,)]]
    x, y = jnp.asarray(rng.normal(size=(16, 32))), jnp.asarray(rng.normal(size=(16, 1)))

    def loss(params, x, y):
        w1, b1, w2, b2 = params
        return jnp.mean((jnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)

    @jax.jit
    def step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return [p - 0.01 * g for p, g in zip(params, grads)]
    for i in range(steps):
        params = step(params, x, y)
        if i + 1 == warm:
            np.asarray(params[0])
            gc.collect()
            start = rss_bytes()
    np.asarray(params[0])
    gc.collect()
    return rss_bytes() - start, 0


def child_functions_memory(name, count=300, warm=100):
    """RSS growth from the ``warm``-th to the ``count``-th distinct jitted function, each
    traced, compiled, called once and dropped: zero if nothing keeps them."""
    (_, jax, jnp, _), = [fw for fw in frameworks() if fw[0] == name]
    x = np.ones(64)
    for i in range(count):
        f = jax.jit(lambda v, i=i: jnp.sin(v) * i + jnp.cos(v) ** (i % 7))
        np.asarray(f(x))
        del f
        if i + 1 == warm:
            gc.collect()
            start = rss_bytes()
    gc.collect()
    return rss_bytes() - start, 0


CHILDREN = {'first_call': child_first_call, 'without_jax': child_dispatch_without_jax,
            'constants_memory': child_constants_memory,
            'first_grad_from_cache': child_first_grad_from_cache,
            'training_memory': child_training_memory, 'functions_memory': child_functions_memory}

#: Environment for a child: the memory child fixes glibc's mmap threshold, so that every 4 MB
#: block is mapped on allocation and unmapped on release. Otherwise glibc raises the threshold
#: as big blocks are freed, then keeps or returns them as its heap happens to lie: the
#: steady-state figure of identical runs swung between -33 and +33 MB.
CHILD_ENV = {'constants_memory': {'MALLOC_MMAP_THRESHOLD_': '131072'}}


def in_child(figure, name, **extra_env):
    """The two values the child ``figure`` prints last (a number and a number or a flag).
    The child may write bytecode (``PYTHONDONTWRITEBYTECODE`` dropped): a fresh process
    imports compiled modules, as an installed package's are, once a run has written them."""
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    env.update(CHILD_ENV.get(figure, {}), **extra_env)
    out = subprocess.run([sys.executable, __file__, '--child', figure, name], check=True,
                         capture_output=True, text=True, cwd=HERE, env=env).stdout.split()
    second = out[-1] == 'True' if out[-1] in ('True', 'False') else float(out[-1])
    return float(out[-2]), second


# ----------------------------------------------------------------------------- the table

def recompiles_of_grad_of_jit(jax, jnp, lax):
    """Compiles in a second ``grad(jit(f))`` call with the same types (minijax's counter)."""
    from minijax import runtime
    g = jax.jit(lambda y: jnp.sin(y) * y)
    f = jax.grad(lambda x: jnp.sum(g(x)))
    x = np.ones(8)
    f(x)
    before = runtime.counters['compile']
    f(x)
    return runtime.counters['compile'] - before


def main():
    fws = frameworks()
    rows = ['| figure | minijax | JAX | minijax / JAX | target |', '|---|---|---|---|---|']

    def row(name, ours, theirs, unit, scale, target):
        ratio = ours / theirs
        rows.append(f'| {name} | {ours * scale:.1f} {unit} | {theirs * scale:.1f} {unit} | '
                    f'{ratio:.2f} | {target} |')

    def both(measure, rounds=3):
        """``measure`` of minijax and of JAX: the best of ``rounds`` rounds that alternate
        the two, so that a slow spell of a shared machine does not fall on one only."""
        best = [float('inf')] * len(fws)
        for _ in range(rounds):
            for i, (_, jax, jnp, lax) in enumerate(fws):
                best[i] = min(best[i], measure(jax, jnp, lax))
        return best

    row('eager op by op (`tanh`, `*`, `sin`, `+`, 100-vector float64; CPU)',
        *both(eager_ops, rounds=5), 'us', 1e6, '<= 1.5')
    numpy_in = both(dispatch_numpy, rounds=5)
    row('jitted call, NumPy in', *numpy_in, 'us', 1e6, '<= 1.2')
    array_in = both(dispatch_array, rounds=5)
    row('jitted call, Array in', *array_in, 'us', 1e6, '<= 1.0')
    row('. minijax\'s runtime alone on that program (no dispatch: the floor above)',
        runtime_alone(*fws[0][1:]), array_in[1], 'us', 1e6, '')
    # the best of three processes: a process now and then runs every call a third slower
    without, imported = min(in_child('without_jax', 'minijax') for _ in range(3))
    rows.append(f'| jitted call, NumPy in, `jax` not importable'
                f'{" (imported jax!)" if imported else ""} | {without * 1e6:.1f} us | '
                f'(minijax with jax: {numpy_in[0] * 1e6:.1f} us) | '
                f'{without / numpy_in[0]:.2f} of minijax with jax | about 1 |')
    for name in ('minijax', 'jax'):  # the first run of each may compile the modules
        in_child('first_call', name)
    (first_mj, mj_imports_jax), (first_jax, _) = (in_child('first_call', n) for n in
                                                  ('minijax', 'jax'))
    row('import + first jitted call, fresh process' +
        (' (minijax imported jax!)' if mj_imports_jax else ' (no `jax` import)'),
        first_mj, first_jax, 'ms', 1e3, 'no jax import')
    cold, warm = {'minijax': [], 'jax': []}, {'minijax': [], 'jax': []}
    for _ in range(4):  # rounds alternating minijax and JAX, each with a cache of its own
        for name in ('minijax', 'jax'):
            with tempfile.TemporaryDirectory() as cache:
                cold[name].append(in_child('first_grad_from_cache', name,
                                           BENCH_CACHE_DIR=cache)[0])
                warm[name] += [in_child('first_grad_from_cache', name, BENCH_CACHE_DIR=cache)
                               for _ in range(2)]
    hit = all(loaded for _, loaded in warm['minijax'])  # (minijax's counter says)
    row('first call of jit(grad(mlp)), fresh process, empty compilation cache',
        min(cold['minijax']), min(cold['jax']), 'ms', 1e3, '<= 0.8')
    row('the same, the cache written by the first process' + ('' if hit else ' (no hit!)'),
        min(t for t, _ in warm['minijax']), min(t for t, _ in warm['jax']), 'ms', 1e3,
        'well under the cold call')
    lowers = {}
    for n in (3000, 30000):
        lowers[n] = both(trace_and_lower(n), rounds=7 if n == 3000 else 5)
        row(f'trace + lower, {n}-op chain (CPU)', *lowers[n], 'ms', 1e3,
            '<= 0.35' if n == 3000 else 'growth no worse than JAX')
        if n == 3000:
            row('. of which minijax traces (`jit(...).trace`)', tracing_alone(*fws[0][1:3], n),
                lowers[n][1], 'ms', 1e3, '')
            row(". the MLIR bindings alone: that module's ops built, verified, printed (floor)",
                bindings_alone(n), lowers[n][1], 'ms', 1e3, '')
    growth = [lowers[30000][i] / lowers[3000][i] for i in range(2)]
    rows.append(f'| growth 3k -> 30k ops | x{growth[0]:.1f} | x{growth[1]:.1f} | '
                f'{growth[0] / growth[1]:.2f} | <= 1 |')
    row('RNN grad through scan (100 x 128): XLA bytes accessed', *both(rnn_bytes),
        'MB', 1e-6, '<= 1')
    row('RNN grad through scan: execution', *both(rnn_time, rounds=5), 'ms', 1e3, '<= 1.05')
    rows.append(f'| `grad(jit(f))` again, same types: compiles | '
                f'{recompiles_of_grad_of_jit(*fws[0][1:])} | 0 | | 0 |')
    mem = [in_child('constants_memory', n) for n in ('minijax', 'jax')]
    row('lowering 40 functions with distinct 4 MB constants: RSS growth', mem[0][0],
        mem[1][0], 'MB', 1e-6, 'flat')
    rows.append(f'| the 80th to the 160th such function: RSS growth | {mem[0][1] * 1e-6:.1f} MB | '
                f'{mem[1][1] * 1e-6:.1f} MB | | flat |')
    for figure, what in [('training_memory', 'a training loop (jitted SGD steps of an MLP): RSS '
                                             'growth from step 2,000 to 20,000'),
                         ('functions_memory', '300 distinct jitted functions, each called once '
                                              'and dropped: RSS growth from the 100th')]:
        grown = [in_child(figure, n)[0] for n in ('minijax', 'jax')]
        rows.append(f'| {what} | {grown[0] * 1e-6:.1f} MB | {grown[1] * 1e-6:.1f} MB | | flat |')
    matmul = both(eager_matmul)
    row('eager matmul 1024 x 1024 (float64)', *matmul, 'ms', 1e3, "NumPy's speed")
    rows.append(f"| NumPy's `@` on the same | {numpy_matmul() * 1e3:.1f} ms | | | |")
    report('speed', 'Speed and memory: minijax beside JAX',
           'the 2-core CPU machine, best of several runs, the garbage collector running', rows)


if __name__ == '__main__':
    if sys.argv[1:2] == ['--child']:
        value, flag = CHILDREN[sys.argv[2]](sys.argv[3])
        print(value, flag)
    else:
        main()
