"""The programs of JAX's tutorial "Distributed arrays and automatic parallelization"
(docs/parallel.md, JAX 0.10.2), cell by cell, run on 8 CPU devices by
``python parallel_tutorial.py jax|minijax``: each cell's printed output (or its error's class
and text) follows a ``## cell N`` line. test_sharding_types_tutorial.py runs both and compares.
The cells are the tutorial's, less its two class sketches (``AbstractMesh``, ``Mesh``
written out to show their fields) and with the device count set before them; JAX runs with
``jax_enable_x64``, as minijax always computes."""
import contextlib
import io
import sys
import traceback

from eight_devices import library

CELLS = [
    '''
jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))  # explicit mode by default

x = jnp.arange(8 * 4.).reshape(8, 4)
x = jax.device_put(x, jax.P('X', 'Y'))
print(jax.typeof(x))  # f32[8@X, 4@Y]
''', '''
jax.debug.visualize_array_sharding(x)
''', '''
y = jnp.sin(x).T
print(jax.typeof(y))  # f32[4@Y, 8@X]
''', '''
mesh = jax.make_mesh((4, 2), ('X', 'Y'))
print(mesh)
''', '''
jax.set_mesh(mesh)
''', '''
@jax.jit
def f(x):
  abstract_mesh = jax.sharding.AbstractMesh((8,), ('A',), (jax.sharding.AxisType.Explicit,))
  with jax.sharding.use_abstract_mesh(abstract_mesh):
    y = jax.reshard(x, jax.P('A', None))
    return y * 2

z = f(x)
print(jax.typeof(z))  # f32[8@A, 4]
''', '''
print(x.sharding)
jax.debug.visualize_array_sharding(x)
''', '''
for s in x.addressable_shards:
  print(s.device, s.data, sep='\\n', end='\\n\\n')
''', '''
y = jax.device_put(x, jax.P('Y', 'X'))
print(y.sharding)
jax.debug.visualize_array_sharding(y)
''', '''
y = jax.device_put(x, jax.P('X', None))
print(y.sharding)
jax.debug.visualize_array_sharding(y)
''', '''
for s in y.addressable_shards:
  print(s.device, s.data, sep='\\n', end='\\n\\n')
''', '''
y = jax.device_put(x, jax.P(('X', 'Y')))
print(y.sharding)
jax.debug.visualize_array_sharding(y)
''', '''
y = jax.device_put(x, jax.P('X', None, unreduced={'Y'}))
print(y.sharding)
''', '''
for s in y.addressable_shards:
  print(s.device, s.data, sep='\\n', end='\\n\\n')
''', '''
mesh2 = jax.make_mesh((8,), ('A',))
z = jax.device_put(x, jax.NamedSharding(mesh2, jax.P('A', None)))
print(z.sharding)
print(y.sharding)
''', '''
print(jax.typeof(x).sharding)
''', '''
jax.jit(lambda x: print(jax.typeof(x).sharding))(x)
''', '''
arg0 = jax.device_put(np.arange(4).reshape(4, 1), jax.P("X", None))
arg1 = jax.device_put(np.arange(8).reshape(1, 8), jax.P(None, "Y"))

result = arg0 + arg1

print(f"{jax.typeof(arg0)=!s}")
print(f"{jax.typeof(arg1)=!s}")
print(f"{jax.typeof(result)=!s}")
''', '''
@jax.jit
def add_arrays(x, y):
  ans = x + y
  print(f"{jax.typeof(arg0)=!s}")
  print(f"{jax.typeof(arg1)=!s}")
  print(f"{jax.typeof(result)=!s}")
  return ans

add_arrays(arg0, arg1)
''', '''
x = jax.random.normal(jax.random.key(0), (8, 4),
                      out_sharding=jax.P('X', 'Y'))
print(jax.typeof(x))
''', '''
y = x.sum(0)
print(jax.typeof(y))
''', '''
compile_txt = jax.jit(lambda x: x.sum(0)).lower(x).compile().as_text()
print('all-reduce(' in compile_txt)
''', '''
x = jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P(None, 'X'))
y = jax.device_put(jnp.arange(4 * 16.).reshape(4, 16), jax.P('X', None))

try:
  jnp.dot(x, y)
except Exception as e:
  print("ERROR!")
  print(e)
''', '''
z = jnp.dot(x, y, out_sharding=jax.P('X', None))

print(jax.typeof(z))
''', '''
from jax.sharding import auto_axes, explicit_axes

x = jax.device_put(np.arange(16).reshape(4, 4), jax.P("X", None))
y = jax.device_put(np.arange(16).reshape(4, 4), jax.P(None, "X"))

try:
  x + y
except Exception as e:
  print("ERROR!")
  print(e)
''', '''
@auto_axes
def add2(x, y):
  print("We're in auto-sharding mode here. This is the current mesh:\\n"
        f"{jax.sharding.get_abstract_mesh()}")
  return x + y

result = add2(x, y, out_sharding=jax.P("X", None))
print(f"Result type: {jax.typeof(result)}")
''', '''
Auto = jax.sharding.AxisType.Auto
auto_mesh = jax.make_mesh((4, 2), ('X', 'Y'), (Auto, Auto))
jax.set_mesh(auto_mesh)

x = jax.device_put(jnp.arange(8 * 4. ).reshape(8, 4 ), jax.P(None, 'X'))
y = jax.device_put(jnp.arange(4 * 16.).reshape(4, 16), jax.P('X', None))

z = jnp.dot(x, y)  # not an error!
''', '''
print(z.sharding)  # works at the top-level only (i.e. outside `jit`)
''', '''
@jax.jit
def f(x, y):
  z = jnp.dot(x, y)
  z = jax.lax.with_sharding_constraint(z, jax.P('X', None))
  return z

z = f(x, y)
print(z.sharding)
''', '''
@explicit_axes
def explicit_g(y):
  print(f'mesh inside g: {jax.sharding.get_abstract_mesh()}')
  print(f'y.sharding inside g: {jax.typeof(y) = }')
  z = y * 2
  print(f'z.sharding inside g: {jax.typeof(z) = }', end='\\n\\n')
  return z

@jax.jit
def f(arr1):
  print(f'mesh inside f: {jax.sharding.get_abstract_mesh()}', end='\\n\\n')
  x = jnp.sin(arr1)
  z = explicit_g(x, in_sharding=jax.P("X", "Y"))
  return z + 1

x = jax.device_put(np.arange(16).reshape(4, 4), jax.P("X", "Y"))
f(x)
''', '''
def compare_shardings(x):
  print(f"=== with mesh: {jax.sharding.get_abstract_mesh()} ===")
  print(f"Concrete value sharding: {x.sharding.spec}")
  print(f"Type-specified sharding: {jax.typeof(x).sharding.spec}\\n")

my_array = jnp.sin(jax.device_put(np.arange(8), jax.P("X")))
compare_shardings(my_array)

@auto_axes
def check_in_auto_context(x):
  compare_shardings(x)
  return x

check_in_auto_context(my_array, out_sharding=jax.P("X"))
''',
]

#: The tutorial's programs lowered: (name, the jitted function's source, its arguments'
#: source), each printed as ``jax.jit(f).lower(*args).as_text()``.
LOWERED = [
    ('sin_transpose', 'lambda x: jnp.sin(x).T',
     "jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P('X', 'Y'))"),
    ('use_abstract_mesh', 'f_abstract_mesh',
     "jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P('X', 'Y'))"),
    ('add_arrays', 'lambda x, y: x + y',
     "jax.device_put(np.arange(4).reshape(4, 1), jax.P('X', None)), "
     "jax.device_put(np.arange(8).reshape(1, 8), jax.P(None, 'Y'))"),
    ('sum0', 'lambda x: x.sum(0)',
     "jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P('X', 'Y'))"),
    ('dot_out_sharding', "lambda x, y: jnp.dot(x, y, out_sharding=jax.P('X', None))",
     "jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P(None, 'X')), "
     "jax.device_put(jnp.arange(4 * 16.).reshape(4, 16), jax.P('X', None))"),
    ('auto_axes', "lambda x, y: jax.sharding.auto_axes(lambda a, b: a + b)("
                  "x, y, out_sharding=jax.P('X', None))",
     "jax.device_put(np.arange(16).reshape(4, 4), jax.P('X', None)), "
     "jax.device_put(np.arange(16).reshape(4, 4), jax.P(None, 'X'))"),
]

ABSTRACT_MESH_F = '''
def f_abstract_mesh(x):
  abstract_mesh = jax.sharding.AbstractMesh((8,), ('A',), (jax.sharding.AxisType.Explicit,))
  with jax.sharding.use_abstract_mesh(abstract_mesh):
    y = jax.reshard(x, jax.P('A', None))
    return y * 2
'''


def setup(framework):
    """The namespace the cells run in: ``jax`` (JAX or minijax, under JAX's module names),
    ``jnp``, ``np``, on 8 CPU devices."""
    import numpy as np
    jax = library(framework)
    if framework == 'minijax':
        sys.modules.update({'jax': jax, 'jax.numpy': jax.numpy, 'jax.sharding': jax.sharding})
    return {'jax': jax, 'jnp': jax.numpy, 'np': np}


def run(framework):
    ns = setup(framework)
    for i, cell in enumerate(CELLS):
        print(f'## cell {i}')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(cell, f'<cell {i}>', 'exec'), ns)
            except Exception as err:  # noqa: BLE001 (the error is the cell's output)
                print(f'{type(err).__name__}: {err}')
                traceback.print_exc(file=sys.stderr)
        print(out.getvalue(), end='')
    jax = ns['jax']
    jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))
    exec(ABSTRACT_MESH_F, ns)
    for name, fun, args in LOWERED:
        print(f'## lowered {name}')
        print(eval(f'jax.jit({fun}).lower({args}).as_text()', ns))


if __name__ == '__main__':
    run(sys.argv[1])
