"""The bad-input promise, one row per misuse: an exception raised at trace time, of JAX's type,
whose message names the function and the offending argument, axis, shape, dtype or primitive.

JAX is the oracle for errors as for values. A row of ``ROWS`` is ``(id, misuse, regex)``:
``misuse`` is JAX code, a function of the library's top-level module, run once with ``jax``
bound to minijax and once bound to JAX. Both must raise; minijax's exception must be of JAX's
kind (an instance of the built-in exception JAX's derives from, and of minijax's mirror of
any ``jax.errors`` class among its bases) and its message must match ``regex`` (the wording
is minijax's own). A row's id starts with the module it exercises (``numpy.linalg.``,
``random.``, ...; none for the top level), and every public module has rows.

Two smaller lists sit beside the table: ``DEPARTURES``, misuses minijax refuses where JAX
accepts them (or fails by accident of its implementation), each with its reason, listed in
docs/semantics.md; ``MINIJAX_ONLY``, misuses of minijax's own API, which JAX cannot run.
The command line, which JAX does not have, has its rows in ``CLI_ROWS`` here and
``BAD_INPUT`` in test_cli.py.
"""
import functools
import importlib
import os
import pkgutil
import re
import tempfile

import jax
import numpy as np
import pytest
import test_cli
import testlib  # noqa: F401  (JAX with x64 on the CPU, as the oracle runs everywhere)

import minijax
from minijax.lowering import register_lowering
from minijax.lowering.module import LoweringError
from minijax.lowering.ops import broadcast_in_dim as hlo_broadcast_in_dim
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

X = np.ones((2, 3), np.float32)
V = np.ones(3)
M = np.eye(3)
IMAGE, KERNEL = np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 2, 2), np.float32)  # NCHW, OIHW
SUPPORTED = (r'supported: float16, bfloat16, float32, float64, int8, int16, int32, int64, '
             r'uint8, uint16, uint32, uint64, bool')

#: minijax modules with a namesake in JAX but no rows of their own, and why.
WITHOUT_ROWS = {
    'errors': 'exception classes only: every row checks that minijax raises its mirrors',
    'core': 'ShapedArray, Primitive, ...: covered as the top level',
    'custom_derivatives': 'custom_jvp, custom_vjp, checkpoint: covered as the top level',
    'dtypes': "minijax's dtype tables; jax.dtypes is JAX's",
    'tools': "the command line's helpers: covered by CLI_ROWS and test_cli.py",
    'typing': 'type annotations only: nothing to call',
}


def _jax_has(name):
    try:
        return importlib.util.find_spec(f'jax.{name}') is not None
    except ModuleNotFoundError:  # its parent package is not JAX's
        return False


def _public_modules():
    """minijax's modules that JAX has too (``minijax.scipy.stats.norm`` as
    ``jax.scipy.stats.norm``), by their names below the top level."""
    names = (info.name.removeprefix('minijax.')
             for info in pkgutil.walk_packages(minijax.__path__, 'minijax.'))
    return sorted(name for name in names if '._' not in f'.{name}' and name not in WITHOUT_ROWS
                  and _jax_has(name))


PUBLIC_MODULES = _public_modules()
for _name in PUBLIC_MODULES:  # ``jax.scipy.stats.norm`` is reachable from ``jax``
    importlib.import_module(f'jax.{_name}')
    importlib.import_module(f'minijax.{_name}')

#: minijax's mirrors of JAX's own exception classes (``jax.errors.ConcretizationTypeError``)
MIRRORED = {name for name, value in vars(minijax.errors).items()
            if isinstance(value, type) and issubclass(value, Exception)}


def _rank2(name):
    return rf'{name} 5 is out of bounds for an array of rank 2'


def _key(jax):
    return jax.random.key(0)


def _deep_list(depth):
    return functools.reduce(lambda tree, _: [tree], range(depth), 1.0)


def _fori_traced_bound(body):
    return lambda jax: jax.jit(lambda n: jax.lax.fori_loop(0, n, body, 0.))(3)


def _jvp_of_defjvps(jax, *rules):
    """jvp of a custom_jvp function of two arguments given ``rules`` by ``defjvps``."""
    f = jax.custom_jvp(lambda a, b: a * b)
    f.defjvps(*rules)
    return jax.jvp(f, (1., 2.), (1., 1.))


def _jvp_of_custom_rule(jax, returns):
    """jvp of a custom_jvp function whose rule returns ``returns(primals, tangents)``."""
    f = jax.custom_jvp(lambda a: a * 2.)
    f.defjvp(lambda primals, tangents: returns(primals, tangents))
    return jax.jvp(f, (1.,), (1.,))


def _non_callable_rows():
    """Each transformation refuses a function that is not callable, naming itself."""
    return [(f'{name}_of_a_non_callable', make, rf'{name}: f(un)? must be callable, got 3 of type '
             'int') for name, make in [
                 ('jit', lambda jax: jax.jit(3)),
                 ('grad', lambda jax: jax.grad(3)),
                 ('value_and_grad', lambda jax: jax.value_and_grad(3)),
                 ('vjp', lambda jax: jax.vjp(3, 1.)),
                 ('linearize', lambda jax: jax.linearize(3, 1.)),
                 ('jvp', lambda jax: jax.jvp(3, (1.,), (1.,))),
                 ('vmap', lambda jax: jax.vmap(3)),
                 ('make_jaxpr', lambda jax: jax.make_jaxpr(3)),
                 ('eval_shape', lambda jax: jax.eval_shape(3)),
                 ('pmap', lambda jax: jax.pmap(3))]]


def _string_output_rows():
    """Each transformation refuses a function whose output is not an array, naming it."""
    return [(f'{name}_of_a_function_returning_a_string', make,
             r'output 1 of the transformed function .* is a value of type str')
            for name, make in [
                ('jit', lambda jax: jax.jit(lambda a: (a, 'x'))(1.)),
                ('vmap', lambda jax: jax.vmap(lambda a: (a, 'x'))(np.ones(2))),
                ('jvp', lambda jax: jax.jvp(lambda a: (a, 'x'), (1.,), (1.,))),
                ('linearize', lambda jax: jax.linearize(lambda a: (a, 'x'), 1.)),
                ('make_jaxpr', lambda jax: jax.make_jaxpr(lambda a: (a, 'x'))(1.))]]


def _stats_rows():
    """Each distribution of ``scipy.stats`` refuses arguments whose shapes do not broadcast
    (to its density and its log), and a string for ``x``."""
    #: density -> how many parameters it is given after x (each V / 2, x of another shape)
    densities = {'bernoulli.pmf': 2, 'beta.pdf': 2, 'cauchy.pdf': 2, 'expon.pdf': 2,
                 'gamma.pdf': 2, 'laplace.pdf': 2, 'logistic.pdf': 2, 'norm.pdf': 2,
                 'poisson.pmf': 2, 't.pdf': 2, 'uniform.pdf': 2, 'betabinom.pmf': 3,
                 'binom.pmf': 2, 'chi2.pdf': 1, 'gennorm.pdf': 1, 'geom.pmf': 1,
                 'gumbel_l.pdf': 2, 'gumbel_r.pdf': 2, 'nbinom.pmf': 2, 'pareto.pdf': 1,
                 'truncnorm.pdf': 2, 'vonmises.pdf': 1, 'wrapcauchy.pdf': 1}
    every = {**densities, **{name.replace('.p', '.logp'): n for name, n in densities.items()}}
    logs = [name for name in every if '.logp' in name]
    return [
        *((f'scipy.stats.{name}_of_shapes_that_do_not_broadcast',
           lambda jax, name=name, n=n: _attribute(jax.scipy.stats, name)(np.ones(2),
                                                                         *[V / 2] * n),
           r'incompatible (shapes|operands)') for name, n in every.items()),
        *((f'scipy.stats.{name}_of_a_string',
           lambda jax, name=name, n=every[name]: _attribute(jax.scipy.stats, name)(
               'x', *[0.5] * n),
           r"data type 'x' not understood|value of type str is not a valid") for name in logs),
        ('scipy.stats.dirichlet.logpdf_of_a_string',
         lambda jax: jax.scipy.stats.dirichlet.logpdf('x', V), r"data type 'x' not understood"),
        ('scipy.stats.multinomial.pmf_of_floats',
         lambda jax: jax.scipy.stats.multinomial.pmf(V, 3., V / 3),
         r'x and n must be of integer type; got x.dtype=float64, n.dtype=float64')]


def _register_twice(register):
    """``register`` a fresh class as a pytree node, twice."""
    fresh = type('Fresh', (), {})
    for _ in range(2):
        register(fresh, lambda node: ((), None), lambda aux, children: fresh())


def _node_whose_flatten_gives(jax, flattened):
    """An instance of a fresh pytree node class whose flatten function gives ``flattened``."""
    fresh = type('Fresh', (), {})
    jax.tree_util.register_pytree_node(fresh, lambda node: flattened, lambda aux, kids: fresh())
    return fresh()


def _custom_vjp_whose_bwd_gives(jax, cotangent):
    """``grad`` through a ``custom_vjp`` of ``x * 2`` whose bwd rule returns ``cotangent``."""
    double = jax.custom_vjp(lambda x: x * 2.)
    double.defvjp(lambda x: (x * 2., None), lambda res, g: (cotangent,))
    return jax.grad(lambda x: double(x).sum())(V)


def _custom_jvp_whose_rule_gives(jax, make_output):
    """``jvp`` of a ``custom_jvp`` of ``x * 2`` whose rule returns ``make_output(primals)``."""
    double = jax.custom_jvp(lambda x: x * 2.)
    double.defjvp(lambda primals, tangents: make_output(primals))
    return jax.jvp(double, (V,), (V,))


def _attribute(module, dotted):
    return functools.reduce(getattr, dotted.split('.'), module)


ROWS = [
    # ------------------------------------------------------------- minijax: transformations
    # --- grad of an integer input (JAX's TypeError and text)
    ('grad_int_scalar', lambda jax: jax.grad(lambda a: a * 2.)(3),
     r'grad requires real- or complex-valued inputs .*but got int64.*allow_int'),
    ('grad_int_array', lambda jax: jax.grad(lambda a: jax.numpy.sum(a * 2.))(np.ones(3, np.int32)),
     r'but got int32'),
    ('value_and_grad_bool_in_tree', lambda jax: jax.value_and_grad(
        lambda t: t[0] * 2., argnums=0)((1.0, True)),
     r'requires real- or complex-valued .*but got bool'),
    ('grad_second_argnum_int', lambda jax: jax.grad(lambda a, n: a * n, argnums=1)(1.0, 2),
     r'requires real- or complex-valued .*but got int64'),
    ('jacfwd_int', lambda jax: jax.jacfwd(lambda a: a)(1), r'jacfwd requires real-valued inputs'),
    ('jacrev_int', lambda jax: jax.jacrev(lambda a: a)(1), r'jacrev requires real- or complex'),
    ('hessian_int', lambda jax: jax.hessian(lambda a: a)(1), r'requires real-valued inputs'),
    ('grad_non_scalar_output', lambda jax: jax.grad(lambda a: a)(V),
     r'Gradient only defined for scalar-output functions. Output had shape: \(3,\)'),
    ('value_and_grad_non_scalar_output', lambda jax: jax.value_and_grad(lambda a: a)(V),
     r'Output had shape: \(3,\)'),
    ('grad_complex_output', lambda jax: jax.grad(lambda a: a * 1j)(1.),
     r'grad requires real-valued outputs .*but got complex128.*holomorphic'),
    ('grad_has_aux_not_a_pair', lambda jax: jax.grad(lambda a: a, has_aux=True)(1.),
     r'has_aux=True.*two-element tuple'),
    ('vjp_has_aux_not_a_pair', lambda jax: jax.vjp(lambda a: a, 1., has_aux=True),
     r'vjp\(has_aux=True\): expected the function to return a two-element tuple'),
    ('linearize_string', lambda jax: jax.linearize(lambda a: a, 'x'),
     r'linearize: primal 0: value of type str is not a valid'),
    ('jvp_string', lambda jax: jax.jvp(lambda a: a, ('x',), ('x',)),
     r'value of type str is not a valid'),
    # --- argnums
    ('argnums_float', lambda jax: jax.grad(lambda a: a, argnums=0.0)(1.0),
     r'argnums must be an int or a tuple of ints, got 0\.0'),
    ('jacfwd_argnums_range', lambda jax: jax.jacfwd(lambda a: a, argnums=3)(1.),
     r'jacfwd\(<lambda>\): argnums 3 out of range for 1 positional arguments'),
    ('jacrev_argnums_float', lambda jax: jax.jacrev(lambda a: a, argnums=0.5)(1.),
     r'jacrev\(<lambda>\): argnums must be an int or a tuple of ints, got 0\.5'),
    ('argnums_str', lambda jax: jax.grad(lambda a: a, argnums='a')(1.0),
     r"argnums must be an int or a tuple of ints, got 'a'"),
    # --- jvp and vjp
    ('jvp_not_tuples', lambda jax: jax.jvp(lambda a: a, 1., 1.),
     r'jvp.*primals and tangents must be tuples or lists'),
    ('jvp_structures_differ', lambda jax: jax.jvp(lambda a: a, (1.,), (1., 2.)),
     r'jvp: primals PyTreeDef\(\(\*,\)\) and tangents PyTreeDef\(\(\*, \*\)\) differ'),
    # --- vmap in_axes / out_axes
    ('vmap_in_axes_float', lambda jax: jax.vmap(lambda a: a, in_axes=0.5)(X),
     r'vmap: in_axes must be an integer, got 0\.5'),
    ('vmap_in_axes_str', lambda jax: jax.vmap(lambda a: a, in_axes='a')(X),
     r"vmap: in_axes must be an integer, got 'a'"),
    ('vmap_in_axes_range', lambda jax: jax.vmap(lambda a: a, in_axes=3)(X),
     r'vmap: in_axes 3 is out of bounds for an array of rank 2'),
    ('vmap_out_axes_str', lambda jax: jax.vmap(lambda a: a, out_axes='a')(X),
     r"vmap: out_axes must be an integer, got 'a'"),
    ('vmap_out_axes_float', lambda jax: jax.vmap(lambda a: a, out_axes=1.0)(X),
     r'vmap: out_axes must be an integer, got 1\.0'),
    ('vmap_inconsistent_sizes', lambda jax: jax.vmap(lambda a, b: a + b)(np.ones(2), V),
     r'vmap got inconsistent sizes for the mapped axis: \[2, 3\]'),
    ('vmap_in_axes_longer_than_args', lambda jax: jax.vmap(lambda a, b: a, in_axes=(0, 0, 0))(V, V),
     r'vmap: in_axes has 3 entries but the function got 2 positional arguments'),
    ('vmap_of_a_scalar', lambda jax: jax.vmap(lambda a: a)(1.),
     r'vmap: in_axes 0 is out of bounds for an array of rank 0'),
    ('vmap_in_axes_all_none', lambda jax: jax.vmap(lambda a: a, in_axes=None)(V),
     r'vmap needs at least one mapped argument \(in_axes is all None\)'),
    ('vmap_in_axes_negative_range', lambda jax: jax.vmap(lambda a: a, in_axes=-3)(X),
     r'vmap: in_axes -3 is out of bounds for an array of rank 2'),
    ('vmap_in_axes_bool', lambda jax: jax.vmap(lambda a: a, in_axes=True)(V),
     r'vmap: in_axes must be an integer, got True of type bool'),
    ('vmap_in_axes_not_a_prefix', lambda jax: jax.vmap(lambda d: d['a'], in_axes=({'b': 0},))(
        {'a': V}), r'pytree structure error: different pytree metadata at key path\s+vmap in_axes'),
    ('vmap_out_axes_range', lambda jax: jax.vmap(lambda a: a, out_axes=3)(V),
     r'vmap: out_axes 3 is out of bounds for an array of rank 1'),
    ('vmap_out_axes_not_a_prefix', lambda jax: jax.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(V),
     r'pytree structure error: different lengths of tuple at key path\s+vmap out_axes'),
    ('vmap_out_axes_float_in_a_tuple', lambda jax: jax.vmap(lambda a: (a, a), out_axes=(0, .5))(V),
     r'vmap: out_axes must be an integer, got 0\.5'),
    ('vmap_out_axes_none_for_a_batched_output', lambda jax: jax.vmap(lambda a: a, out_axes=None)(V),
     r'vmap: out_axes=None for an output that is batched'),
    ('vmap_inconsistent_sizes_in_a_tuple', lambda jax: jax.vmap(lambda t: t[0] + t[1])(
        (V, np.ones(2))), r'vmap got inconsistent sizes for the mapped axis: \[2, 3\]'),
    ('vmap_psum_of_an_unbound_axis', lambda jax: jax.vmap(lambda a: jax.lax.psum(a, 'i'))(V),
     r'psum: unbound axis name: i'),
    ('vmap_axis_index_of_an_unbound_axis',
     lambda jax: jax.vmap(lambda a: jax.lax.axis_index('i'))(V),
     r'axis_index: unbound axis name: i'),
    # --- jit, make_jaxpr, eval_shape
    ('jit_static_argnums_range', lambda jax: jax.jit(lambda a: a, static_argnums=3)(1.),
     r'static_argnums=\(3,\), but <lambda> only accepts 1 positional arguments'),
    ('jit_static_argnames_unknown', lambda jax: jax.jit(lambda a: a, static_argnames='b')(1.),
     r"static_argnames \['b'\], which are not parameters of <lambda>"),
    ('jit_static_unhashable', lambda jax: jax.jit(lambda a: a, static_argnums=0)(V),
     r'static argument 0: Non-hashable static arguments are not supported'),
    ('jit_unknown_keyword', lambda jax: jax.jit(lambda a: a)(1., b=2.),
     r"unexpected keyword argument 'b'"),
    ('jit_lower_string', lambda jax: jax.jit(lambda a: a).lower('x'),
     r'jit\(<lambda>\): argument 0 value of type str is not a valid minijax type'),
    ('make_jaxpr_string_argument', lambda jax: jax.make_jaxpr(lambda a: a)('x'),
     r'make_jaxpr\(<lambda>\): argument 0 value of type str'),
    ('make_jaxpr_static_argnums_range',
     lambda jax: jax.make_jaxpr(lambda a: a, static_argnums=3)(1.),
     r'make_jaxpr\(<lambda>\): static_argnums 3 is out of range for 1 positional arguments'),
    ('eval_shape_string_argument', lambda jax: jax.eval_shape(lambda a: a, 'x'),
     r'eval_shape\(<lambda>\): argument 0 \(leaf 0\) value of type str'),
    ('eval_shape_shapes_that_do_not_broadcast',
     lambda jax: jax.eval_shape(lambda a: a + np.ones(4), V),
     r'add got incompatible shapes for broadcasting: \(3,\), \(4,\)'),
    ('eval_shape_unknown_keyword', lambda jax: jax.eval_shape(lambda a: a, b=1.),
     r"unexpected keyword argument 'b'"),
    ('eval_shape_object', lambda jax: jax.eval_shape(lambda a: a, object()),
     r'eval_shape\(<lambda>\): argument 0 \(leaf 0\) value of type object'),
    ('eval_shape_string_among_arguments', lambda jax: jax.eval_shape(lambda a, n: a * n, V, 'x'),
     r'eval_shape\(<lambda>\): argument 0 \(leaf 1\) value of type str is not a valid'),
    ('jit_static_argnums_float', lambda jax: jax.jit(lambda a: a, static_argnums=0.5)(1.),
     r'jit\(<lambda>\): static_argnums must be an int or a sequence of ints, got 0\.5'),
    ('config_update_unknown_flag', lambda jax: jax.config.update('jax_bogus_flag', 1),
     r"config.update: unknown or unsupported flag 'jax_bogus_flag'"),
    ('config_read_unknown_flag', lambda jax: jax.config.jax_bogus_flag,
     r"config has no flag 'jax_bogus_flag'"),
    ('pure_callback_vmap_method',
     lambda jax: jax.vmap(lambda a: jax.pure_callback(
         lambda v: v, jax.ShapeDtypeStruct((), np.float64), a, vmap_method='bogus'))(V),
     r'vmap_method must be on of the allowed methods'),
    ('pure_callback_under_vmap_without_vmap_method',
     lambda jax: jax.vmap(lambda a: jax.pure_callback(
         lambda v: v, jax.ShapeDtypeStruct((), np.float64), a))(V),
     r'vmap is only supported for the pure_callback primitive when vmap_method is one of'),
    ('pure_callback_under_grad', lambda jax: jax.grad(lambda a: jax.pure_callback(
        lambda v: v, jax.ShapeDtypeStruct((), np.float64), a))(1.),
     r'Pure callbacks do not support JVP'),
    ('pure_callback_returns_a_string',
     lambda jax: jax.pure_callback(lambda: 'x', jax.ShapeDtypeStruct((), np.float64)),
     r'Incorrect output dtype for return value #0: Expected: float64'),
    # --- jnp: values JAX refuses (each was a silent answer, or another exception class)
    ('numpy.pad_negative', lambda jax: jax.numpy.pad(X, -1),
     r'pad: pad_width must not be negative, got -1'),
    ('numpy.pad_negative_pair', lambda jax: jax.numpy.pad(X, ((1, -1), (0, 0))),
     r'pad_width must not be negative'),
    ('numpy.pad_float', lambda jax: jax.numpy.pad(X, 1.5),
     r'pad: pad_width must be integers'),
    ('numpy.pad_too_many_axes', lambda jax: jax.numpy.pad(X, ((1, 2), (1, 1), (0, 0))),
     r'pad_width .* for each axis of an array of shape \(2, 3\)'),
    ('numpy.interp_lengths', lambda jax: jax.numpy.interp(1.5, np.arange(4.), np.arange(3.)),
     r'interp: xp and fp must be one-dimensional arrays of equal size, got shapes \(4,\) '
     r'and \(3,\)'),
    ('numpy.round_float_decimals', lambda jax: jax.numpy.round(X, 1.5),
     r'round: decimals must be an integer, got 1\.5'),
    ('numpy.round_int_negative_decimals', lambda jax: jax.numpy.round(np.arange(300), -2),
     r'round: integers to decimals=-2'),
    ('numpy.round_bool', lambda jax: jax.numpy.round(X > 0),
     r'round: booleans have no decimals to round .*bool\[2,3\]'),
    ('numpy.floor_complex', lambda jax: jax.numpy.floor(X * 1j),
     r'floor does not accept dtype complex64'),
    ('numpy.ceil_complex', lambda jax: jax.numpy.ceil(X * 1j),
     r'ceil does not accept dtype'),
    ('numpy.trunc_complex', lambda jax: jax.numpy.trunc(X * 1j),
     r'trunc does not accept dtype'),
    ('numpy.clip_complex', lambda jax: jax.numpy.clip(X * 1j, 0, 1),
     r'clip: complex values have no order.*complex64'),
    ('numpy.diff_negative_order', lambda jax: jax.numpy.diff(X, -1),
     r'diff: the order n must be non-negative, got -1'),
    ('numpy.reshape_float', lambda jax: jax.numpy.reshape(X, (3., 2)),
     r'reshape: each entry of shape \(3\.0, 2\) must be an integer, got 3\.0'),
    ('numpy.broadcast_to_float', lambda jax: jax.numpy.broadcast_to(X, (2., 3)),
     r'broadcast_to: shape must be a sequence of integers, got \(2\.0, 3\)'),
    ('numpy.concatenate_ranks', lambda jax: jax.numpy.concatenate([X, X[0]]),
     r'concatenate: arrays of different ranks, shapes \(2, 3\) and \(3,\)'),
    ('numpy.matmul_scalar', lambda jax: jax.numpy.matmul(X, 2.),
     r'matmul needs operands of rank 1 or more, got shapes \(2, 3\) and \(\)'),
    ('numpy.tensordot_axes', lambda jax: jax.numpy.tensordot(X, X, 3),
     r'tensordot: axes=3 does not fit operands of shapes \(2, 3\) and \(2, 3\)'),
    ('numpy.eye_float_k', lambda jax: jax.numpy.eye(2, k=1.5),
     r'eye: k must be a scalar integer, got 1\.5'),
    ('numpy.arange_complex', lambda jax: jax.numpy.arange(3j),
     r'arange: complex start, stop or step are not supported'),
    ('numpy.einsum_output_letter', lambda jax: jax.numpy.einsum('ij,jk->il', X, X.T),
     r"einsum: output letter 'l' is in no input in subscripts 'ij,jk->il' for operands of "
     r"shapes \(2, 3\), \(3, 2\)"),
    ('numpy.einsum_repeated_output', lambda jax: jax.numpy.einsum('ij->ii', X),
     r"einsum: output letter 'i' is repeated"),
    ('numpy.einsum_sizes_implicit_output', lambda jax: jax.numpy.einsum('ij,jk', X, X),
     r"einsum: index 'j' has size 3 in one operand and 2 in another in subscripts 'ij,jk' "
     r"for operands of shapes \(2, 3\), \(2, 3\)"),
    ('numpy.einsum_diagonal_sizes', lambda jax: jax.numpy.einsum('ii->i', X),
     r"einsum: index 'i' has sizes 2 and 3 within operand 0 in subscripts 'ii->i'"),
    ('numpy.matrix_power_not_square', lambda jax: jax.numpy.linalg.matrix_power(X, 2),
     r'matrix_power: a must be \[\.\.\., n, n\].*float32\[2,3\]'),
    ('numpy.matrix_power_float', lambda jax: jax.numpy.linalg.matrix_power(np.eye(2), 1.5),
     r'matrix_power: n must be an integer, got 1\.5'),
    ('numpy.take_float_indices', lambda jax: jax.numpy.take(X[0], np.array([0.5])),
     r'take: indices must have an integer type, got float64\[1\]'),
    ('numpy.tril_vector', lambda jax: jax.numpy.tril(X[0]),
     r'tril: the argument must have 2 axes or more, got shape \(3,\)'),
    ('numpy.triu_vector', lambda jax: jax.numpy.triu(X[0]),
     r'triu: the argument must have'),
    ('numpy.eye_negative', lambda jax: jax.numpy.eye(-1),
     r'eye: negative dimensions are not allowed, got N=-1'),
    ('numpy.full_fill_shape', lambda jax: jax.numpy.full((2,), np.ones(3)),
     r'Incompatible shapes for broadcasting: shapes=\[\(3,\), \(2,\)\]'),
    ('numpy.quantile_method', lambda jax: jax.numpy.quantile(X, .5, method='foo'),
     r"quantile: method 'foo' is not supported"),
    ('numpy.median_complex', lambda jax: jax.numpy.median(X * 1j),
     r'quantile: complex input \(complex64\[2,3\]\) has no order'),
    ('numpy.nanpercentile_complex', lambda jax: jax.numpy.nanpercentile(X * 1j, 30),
     r'complex input .* has no order'),
    ('numpy.vstack_shapes', lambda jax: jax.numpy.vstack([X, X[:, :2]]),
     r'concatenate along axis 0: shapes \(2, 3\) and \(2, 2\) do not fit'),
    ('numpy.linalg.svd_vector', lambda jax: jax.numpy.linalg.svd(X[0]),
     r'jnp.linalg.svd: the argument must have shape \[\.\.\., m, n\], got float32\[3\]'),
    ('numpy.linalg.qr_vector', lambda jax: jax.numpy.linalg.qr(X[0]),
     r'jnp.linalg.qr'),
    ('numpy.linalg.cholesky_not_square', lambda jax: jax.numpy.linalg.cholesky(X),
     r'jnp.linalg.cholesky: the argument must have shape \[\.\.\., n, n\]'),
    ('numpy.linalg.eigh_vector', lambda jax: jax.numpy.linalg.eigh(X[0]),
     r'jnp.linalg.eigh'),
    ('scipy.linalg.cholesky_vector', lambda jax: jax.scipy.linalg.cholesky(X[0]),
     r'cholesky: the argument must have shape'),
    ('scipy.linalg.svd_vector', lambda jax: jax.scipy.linalg.svd(X[0]),
     r'svd'),
    ('scipy.linalg.lu_factor_vector', lambda jax: jax.scipy.linalg.lu_factor(X[0]),
     r'lu_factor: the argument must have shape \[\.\.\., m, n\]'),
    ('scipy.linalg.hessenberg_not_square', lambda jax: jax.scipy.linalg.hessenberg(X),
     r'hessenberg: the operand must be a square matrix \[..., m, m\], got float32\[2,3\]'),
    ('scipy.linalg.solve_sylvester_shapes',
     lambda jax: jax.scipy.linalg.solve_sylvester(M, np.eye(2), np.ones((3, 3))),
     r'Incompatible shapes for Sylvester equation:\nA: \(3, 3\)\nB: \(2, 2\)\nC: \(3, 3\)'),
    ('scipy.linalg.solve_sylvester_method',
     lambda jax: jax.scipy.linalg.solve_sylvester(M, M, M, method='bogus'),
     r'Unrecognized method bogus'),
    ('scipy.linalg.eigh_tridiagonal_dtypes',
     lambda jax: jax.scipy.linalg.eigh_tridiagonal(V, np.ones(2, np.float32)),
     r'diagonal and off-diagonal values must have same dtype, got float64 and float32'),
    ('scipy.linalg.eigh_tridiagonal_select_v',
     lambda jax: jax.scipy.linalg.eigh_tridiagonal(V, V[:2], select='v'),
     r"eigh_tridiagonal\(..., select='v'\) is not implemented"),
    ('scipy.linalg.eigh_tridiagonal_empty_range',
     lambda jax: jax.scipy.linalg.eigh_tridiagonal(V, V[:2], select='i', select_range=(2, 1)),
     r'Got empty index range in select_range'),
    ('scipy.linalg.qr_multiply_mode',
     lambda jax: jax.scipy.linalg.qr_multiply(M, M, mode='bogus'),
     r"mode must be 'right' or 'left', got 'bogus'"),
    ('scipy.linalg.qr_multiply_shapes',
     lambda jax: jax.scipy.linalg.qr_multiply(M, np.ones((2, 2))),
     r'Array shapes are not compatible for c @ Q operation: a has shape \(3, 3\) so Q has 3 '
     r'rows, but c has 2 columns \(expected 3\)'),
    ('numpy.linalg.inv_vector', lambda jax: jax.numpy.linalg.inv(X[0]),
     r'jnp.linalg.inv'),
    ('numpy.var_complex_real_dtype', lambda jax: jax.numpy.var(X * 1j, dtype=np.float32),
     r'var: the variance of a complex array \(complex64\) in a real dtype \(float32\)'),
    ('numpy.std_int_dtype', lambda jax: jax.numpy.std(X, dtype=np.int32),
     r'dtype argument to jnp.std must be inexact; got int32'),
    ('lax.div_bool', lambda jax: jax.lax.div(np.array(True), np.array(False)),
     r'div needs .*operands, got bool\[\]'),
    # --- lax: operands and static parameters, checked, never truncated (JAX's types)
    ('lax.reduce_sum_bool', lambda jax: jax.lax.reduce_sum(X > 0, (0,)),
     r'reduce_sum needs a numeric operand, got bool\[2,3\]'),
    ('lax.argmax_empty_axis', lambda jax: jax.lax.argmax(np.ones((2, 0)), 1, np.int32),
     r'argmax: axis 1 is out of range or empty for float64\[2,0\]'),
    ('lax.argmin_complex', lambda jax: jax.lax.argmin(X + 1j, 0, np.int32),
     r'argmin: complex numbers have no order, got complex64\[2,3\]'),
    ('lax.integer_pow_float', lambda jax: jax.lax.integer_pow(X, 1.5),
     r'integer_pow: y must be a static integer, got 1\.5 of type float'),
    ('lax.conv_padding_removes_more', lambda jax: jax.lax.conv(
        np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), ((-3, -2),)),
     r'conv_general_dilated: cannot convolve float64\[1,1,4\] with float64\[1,1,2\]: '
     r'padding=\(\(-3, -2\),\) removes more than the spatial axes \(4,\)'),
    ('lax.conv_zero_stride_same', lambda jax: jax.lax.conv(
        np.ones((1, 1, 4)), np.ones((1, 1, 2)), (0,), 'SAME'),
     r'conv_general_dilated: .*window_strides=\(0,\) must be positive'),
    ('lax.conv_float_stride', lambda jax: jax.lax.conv(
        np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1.5,), 'VALID'),
     r'conv_general_dilated: window_strides must be a sequence of integers, got \(1\.5,\)'),
    *((f'lax.{name}_float_{what}', misuse,
       rf'{name}: {what} must be (an integer|a sequence of integers), got .*\d\.5')
      for name, what, misuse in [
          ('slice', 'start_indices', lambda jax: jax.lax.slice(X, (0.5, 0), (2, 3))),
          ('slice', 'strides', lambda jax: jax.lax.slice(X, (0, 0), (2, 3), (1.5, 1))),
          ('slice_in_dim', 'start_index', lambda jax: jax.lax.slice_in_dim(X, 0.5, 2)),
          ('dynamic_slice', 'slice_sizes',
           lambda jax: jax.lax.dynamic_slice(X, (0, 0), (1.5, 2))),
          ('broadcast_in_dim', 'broadcast_dimensions',
           lambda jax: jax.lax.broadcast_in_dim(np.ones(3), (2, 3), (1.5,))),
          ('transpose', 'permutation', lambda jax: jax.lax.transpose(X, (1.5, 0))),
          ('pad', 'padding_config',
           lambda jax: jax.lax.pad(X, 0., ((0.5, 0, 0), (0, 0, 0)))),
          ('sort', 'num_keys', lambda jax: jax.lax.sort((X, X), num_keys=1.5)),
          ('top_k', 'k', lambda jax: jax.lax.top_k(np.ones(5), 1.5))]),
    ('lax.rev_dimension', lambda jax: jax.lax.rev(X, (5,)), _rank2('rev: dimensions')),
    ('lax.gather_float_indices', lambda jax: jax.lax.gather(
        np.ones(5), np.zeros((1, 1)), jax.lax.GatherDimensionNumbers(
            offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,)), (2,)),
     r'gather: indices must be an integer array .*indices float64\[1,1\]'),
    ('lax.bitcast_complex', lambda jax: jax.lax.bitcast_convert_type(X + 1j, np.float32),
     r'bitcast_convert_type does not support bool or complex values .*complex64\[2,3\]'),
    ('lax.square_bool', lambda jax: jax.lax.square(X > 0), r'square needs a number .*bool\[2,3\]'),
    ('lax.dynamic_slice_index_count', lambda jax: jax.lax.dynamic_slice(X, (0,), (1,)),
     r'dynamic_slice: 1 start indices for an operand of 2 axes \(2, 3\)'),
    ('lax.dynamic_slice_mixed_index_dtypes', lambda jax: jax.lax.dynamic_slice_p.bind(
        X, np.int8(0), np.int32(0), slice_sizes=(1, 1)),
     r'index arguments to dynamic_slice must be integers of the same type, got: int8\[\], '
     r'int32\[\]'),
    ('lax.dynamic_slice_static_negative_not_allowed', lambda jax: jax.lax.dynamic_slice(
        X, (-1, 0), (1, 1), allow_negative_indices=False),
     r'Index -1 is out of bounds for dimension 2 if allow_negative_indices=False'),
    ('lax.dynamic_slice_vector_index', lambda jax: jax.lax.dynamic_slice(
        X, (np.zeros(2, np.int32), 0), (1, 1)),
     r'dynamic_slice: start index 0 has shape \(2,\); start indices must be integer scalars'),
    ('lax.pad_config_too_short', lambda jax: jax.lax.pad(X, np.float32(0), ((0, 0, 0),)),
     r'pad: padding_config \(\(0, 0, 0\),\) does not fit float32\[2,3\]'),
    ('lax.pad_negative_interior',
     lambda jax: jax.lax.pad(X, np.float32(0), ((0, 0, -1), (0, 0, 0))),
     r'pad: padding_config .* does not fit float32\[2,3\]: .*interior >= 0'),
    ('lax.pad_removes_more', lambda jax: jax.lax.pad(X, np.float32(0), ((-3, 0, 0), (0, 0, 0))),
     r'leaving no axis negative'),
    ('lax.pad_vector_value',
     lambda jax: jax.lax.pad(X, np.zeros(2, np.float32), ((0, 0, 0),) * 2),
     r'pad: padding value float32\[2\] must be a scalar'),
    ('lax.select_n_no_cases', lambda jax: jax.lax.select_n(np.bool_(True)),
     r'select_n needs at least one case'),
    ('lax.top_k_of_a_scalar', lambda jax: jax.lax.top_k(np.float64(1), 1),
     r'top_k: operand must have at least one dimension .*float64\[\]'),
    ('lax.reduce_window_vector_init', lambda jax: jax.lax.reduce_window(
        X, np.zeros(2), jax.lax.add, (1, 1), (1, 1), 'VALID'),
     r'reduce_window: init_value must be a scalar, got float64\[2\]'),
    ('lax.reduce_window_zero_stride_same', lambda jax: jax.lax.reduce_window(
        X, 0., jax.lax.add, (1, 1), (0, 1), 'SAME'),
     r'reduce_window_sum: .*window_strides=\(0, 1\).*one positive entry per axis'),
    # --- lax operand dtypes (JAX's TypeError)
    *((f'lax.{name}_of_bool',
       lambda jax, name=name: getattr(jax.lax, name)(np.array([True, False])),
       rf'{name} needs a number \(integer, floating-point or complex\) operand, got bool\[2\]')
      for name in ('sign', 'neg')),
    *((f'lax.{name}_of_bools',
       lambda jax, name=name: getattr(jax.lax, name)(np.array([True]), np.array([True])),
       rf'{name} needs .*number.* operands, got bool\[1\]')
      for name in ('sub', 'div')),
    ('lax.bessel_i0e_of_ints', lambda jax: jax.lax.bessel_i0e(np.ones(2, np.int32)),
     r'bessel_i0e needs a floating-point operand, got int32\[2\]'),
    ('lax.igamma_of_ints', lambda jax: jax.lax.igamma(np.ones(2, np.int32), np.ones(2, np.int32)),
     r'igamma needs floating-point operands, got int32\[2\]'),
    ('lax.betainc_dtypes', lambda jax: jax.lax.betainc(X, X, X.astype(np.float64)),
     r'regularized_incomplete_beta requires arguments to have the same dtypes, got float32, '
     r'float32, float64'),
    ('lax.betainc_shapes', lambda jax: jax.lax.betainc(V, V, np.ones(4)),
     r'regularized_incomplete_beta got incompatible shapes for broadcasting: \(3,\), \(3,\), '
     r'\(4,\)'),
    ('lax.rem_of_complex', lambda jax: jax.jit(jax.lax.rem)(X + 1j, X + 1j),
     r'rem needs integer or floating-point operands, got complex64\[2,3\]'),
    *((f'lax.abs_of_{t.__name__}', lambda jax, t=t: jax.lax.abs(np.ones(2, t)),
       rf'abs needs a signed number .* operand, got {t.__name__}\[2\]')
      for t in (np.uint8, np.bool_)),
    # --- pmap
    ('pmap_more_than_the_devices', lambda jax: jax.pmap(lambda a: a)(np.ones((9, 2))),
     r'pmap <lambda>: the mapped axis has size 9 but only 4 devices are available'),
    ('pmap_in_axes_range', lambda jax: jax.pmap(lambda a: a, in_axes=2)(np.ones((2, 2))),
     r'pmap <lambda>: in_axes 2 is out of bounds for an array of rank 2'),
    ('pmap_of_a_scalar', lambda jax: jax.pmap(lambda a: a)(1.),
     r'pmap <lambda>: in_axes 0 is out of bounds for an array of rank 0'),
    ('pmap_out_axes_negative',
     lambda jax: jax.pmap(lambda a: jax.numpy.sum(a), out_axes=-2)(np.ones((2, 3))),
     r'pmap <lambda>: out_axes -2 is out of bounds for an array of rank 1'),
    ('pmap_static_not_passed',
     lambda jax: jax.pmap(lambda a: a, static_broadcasted_argnums=3)(np.ones((2, 3))),
     r'static_broadcasted_argnums=\(3,\) but was called with only 1 positional'),
    ('pmap_out_axes_beyond_rank',
     lambda jax: jax.pmap(lambda a: a, out_axes=2)(np.ones((2, 3))),
     r'pmap <lambda>: out_axes 2 is out of bounds for an array of rank 2'),
    ('pmap_unhashable_static_argument', lambda jax: jax.pmap(
        lambda a, s: a, static_broadcasted_argnums=1)(np.ones((2, 3)), [1]),
     r'pmap <lambda>: static argument 1 of type list is not hashable'),
    ('jit_of_a_shape_dtype_struct',
     lambda jax: jax.jit(jax.lax.sin)(jax.ShapeDtypeStruct((2,), np.float32)),
     r"jit\(sin\): argument 'x': a ShapeDtypeStruct of shape float32\[2\] is a type without "
     r'a value'),
    ('jit_donate_argnums_range', lambda jax: jax.jit(lambda a: a, donate_argnums=5)(1.),
     r'jit\(<lambda>\) has donate_argnums=\(5,\), but <lambda> only accepts 1'),
    ('jit_donated_and_static', lambda jax: jax.jit(lambda a: a, donate_argnums=0,
                                                   static_argnums=0)(1.),
     r'static_argnums and donate_argnums cannot intersect. Arguments \[0\]'),
    ('jit_donate_argnames_unknown', lambda jax: jax.jit(lambda a: a, donate_argnames='b'),
     r"jit\(<lambda>\) has donate_argnames \['b'\], which are not parameters"),
    ('lax.sin_of_a_string', lambda jax: jax.lax.sin('a'),
     r'sin: argument 0: value of type str is not a valid minijax type'),
    # --- PRNG keys: no derivatives, no arithmetic
    ('grad_of_a_function_of_a_key',
     lambda jax: jax.grad(lambda k: jax.random.normal(k))(jax.random.key(0)),
     r'but got key<fry>'),
    ('jvp_of_a_key', lambda jax: jax.jvp(lambda k: k, (jax.random.key(0),),
                                         (jax.random.key(0),)),
     r'jvp: tangent 0 has dtype key<fry> but its primal has dtype key<fry>: .*float0'),
    ('jit_key_times_key', lambda jax: jax.jit(lambda k: k * k)(jax.random.key(0)),
     r'multiply does not accept dtypes key<fry>, key<fry>\.'),
    ('argnums_empty', lambda jax: jax.grad(lambda a, b: a * b, argnums=())(1.0, 2.0),
     r'argnums \(\) names no argument to differentiate'),
    ('fori_loop_bounds_of_two_dtypes', lambda jax: jax.lax.fori_loop(
        np.int32(0), np.int64(3), lambda i, v: v, 0.),
     r'fori_loop: lower and upper arguments to fori_loop must have equal types, got int32 '
     r'and int64'),
    ('scan_over_a_scalar',
     lambda jax: jax.lax.scan(lambda c, x: (c, x), 0., (np.ones(3), 1.)),
     r'scan: xs must be arrays with a leading axis to scan over, got float64\[\]'),
    ('lax.map_over_a_scalar', lambda jax: jax.lax.map(lambda x: x, 1.),
     r'xs must be arrays with a leading axis to scan over, got float64\[\]'),
    ('scan_negative_unroll',
     lambda jax: jax.lax.scan(lambda c, x: (c, x), 0., X, unroll=-1),
     r'`unroll` must be a `bool` or a non-negative `int`'),
    ('scan_string_unroll', lambda jax: jax.lax.scan(lambda c, x: (c, x), 0., X, unroll='a'),
     r"scan: unroll must be a bool or a number, got 'a'"),
    # --- custom derivatives: the rule named, and what it returned
    ('custom_jvp_rule_three_values',
     lambda jax: _jvp_of_custom_rule(jax, lambda p, t: (p[0], t[0], t[0])),
     r'custom_jvp <lambda>: the rule <lambda> must return a pair \(primal_out, '
     r'tangent_out\), got a tuple of 3 values'),
    ('custom_jvp_rule_none', lambda jax: _jvp_of_custom_rule(jax, lambda p, t: None),
     r'must return a pair \(primal_out, tangent_out\), got a value of type NoneType'),
    ('custom_jvp_defjvps_too_few_rules',
     lambda jax: _jvp_of_defjvps(jax, lambda g, ans, a, b: g * b),
     r'custom_jvp <lambda>: defjvps got 1 rules for 2 differentiable arguments'),
    ('custom_jvp_defjvps_too_many_rules', lambda jax: _jvp_of_defjvps(jax, None, None, None),
     r'defjvps got 3 rules for 2 differentiable arguments'),
    # --- checkpoint, custom_jvp, custom_vjp
    ('checkpoint_of_a_non_callable', lambda jax: jax.checkpoint(3)(1.),
     r'checkpoint: fun must be callable, got 3 of type int'),
    ('remat_of_a_non_callable', lambda jax: jax.remat(3)(1.),
     r'checkpoint: fun must be callable, got 3 of type int'),
    ('custom_jvp_without_a_rule', lambda jax: jax.custom_jvp(lambda a: a)(1.),
     r'No JVP defined for custom_jvp function <lambda> using defjvp'),
    ('custom_vjp_without_a_rule', lambda jax: jax.custom_vjp(lambda a: a)(1.),
     r'No VJP defined for custom_vjp function <lambda> using defvjp'),
    # --- device_put, typeof, ShapeDtypeStruct
    ('device_put_under_jit_not_a_device', lambda jax: jax.jit(lambda a: jax.device_put(a, 3))(1.),
     r'`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, .* Received invalid value: 3'),
    ('typeof_list', lambda jax: jax.typeof([1.]), r'value of type list is not a valid'),
    ('device_put_string', lambda jax: jax.device_put('x'), r'value of type str is not a valid'),
    ('device_put_object', lambda jax: jax.device_put(object()),
     r'value of type object is not a valid'),
    ('device_put_not_a_device', lambda jax: jax.device_put(V, 3),
     r'`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, .* Received invalid value: 3'),
    ('device_put_device_name', lambda jax: jax.device_put(V, 'cpu'),
     r'`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, .* Received invalid value: cpu'),
    ('device_put_indivisible', lambda jax: jax.device_put(V, jax.sharding.NamedSharding(
        jax.make_mesh((2,), ('x',)), jax.P('x'))), r'does not evenly divide the dimension size 3'),
    ('device_put_spec_without_a_mesh', lambda jax: jax.device_put(V, jax.P('x')),
     r'Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put'),
    ('jit_in_shardings_spec_without_a_mesh', lambda jax: jax.jit(
        lambda a: a, in_shardings=jax.P('x'))(V),
     r'jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to '
     r'in_shardings'),
    ('jit_out_shardings_not_a_sharding', lambda jax: jax.jit(lambda a: a, out_shardings=3)(V),
     r'out_shardings leaf specifications are expected to be PartitionSpec instances or None, '
     r'but got 3'),
    ('sharding.named_sharding_unknown_axis', lambda jax: jax.sharding.NamedSharding(
        jax.make_mesh((2,), ('x',)), jax.P('z')), r"Resource axis: z of P\('z',\) is not found"),
    ('sharding.named_sharding_axis_twice', lambda jax: jax.sharding.NamedSharding(
        jax.make_mesh((2,), ('x',)), jax.P('x', 'x')), r'has duplicate entries for `x`'),
    ('sharding.mesh_names_and_devices', lambda jax: jax.sharding.Mesh(jax.devices()[:2],
                                                                     ('x', 'y')),
     r'Mesh requires the ndim of its first argument'),
    ('sharding.make_mesh_too_large', lambda jax: jax.make_mesh((64,), ('x',)),
     r'Number of devices \d+ must be >= the product of mesh_shape \(64,\)'),
    ('sharding.set_mesh_of_an_abstract_mesh', lambda jax: jax.set_mesh(
        jax.make_mesh((2,), ('x',)).abstract_mesh), r'Expected mesh of type `jax.sharding.Mesh`'),
    ('lax.with_sharding_constraint_rank', lambda jax: jax.lax.with_sharding_constraint(
        V, jax.sharding.NamedSharding(jax.make_mesh((2, 2), ('x', 'y')), jax.P('x', 'y'))),
     r'only valid for values of rank at least 2, but was applied to a value of rank 1'),
    ('lax.with_sharding_constraint_without_a_mesh', lambda jax: jax.jit(
        lambda a: jax.lax.with_sharding_constraint(a, jax.P('x')))(V),
     r'with_sharding_constraint requires a non-empty mesh in context'),
    ('devices_of_another_backend', lambda jax: jax.devices('gpu'),
     r"backend 'gpu' is not available: minijax runs on the CPU"),
    ('local_devices_of_another_backend', lambda jax: jax.local_devices(backend='tpu'),
     r"backend 'tpu' is not available"),
    ('distributed.initialize_after_a_computation', lambda jax: (
        jax.devices(), jax.distributed.initialize('localhost:1', 2, 1)),
     r'distributed.initialize\(\) must be called before any minijax calls that might '
     r'initialise the XLA backend'),
    ('make_array_from_callback_block_shape', lambda jax: jax.make_array_from_callback(
        (4,), jax.sharding.NamedSharding(jax.make_mesh((2,), ('x',)), jax.P('x')),
        lambda index: np.ones(3)),
     r"Expected shard shape \(2,\) doesn't match the single device array shape \(3,\)"),
    ('make_array_from_single_device_arrays_count', lambda jax:
        jax.make_array_from_single_device_arrays((4,), jax.sharding.NamedSharding(
            jax.make_mesh((2,), ('x',)), jax.P('x')), [jax.device_put(np.ones(2))]),
     r'Expected 2 per-device arrays \(this is how many devices are addressable by the '
     r'sharding\), but got 1'),
    ('make_array_from_process_local_data_global_shape', lambda jax:
        jax.make_array_from_process_local_data(jax.sharding.NamedSharding(
            jax.make_mesh((2,), ('x',)), jax.P('x')), np.ones(4), (8,)),
     r'global_shape should be None or equal to local_data.shape.Got global_shape=\(8,\)'),
    ('typeof_object', lambda jax: jax.typeof(object()), r'value of type object is not a valid'),
    ('typeof_string', lambda jax: jax.typeof('x'), r'value of type str is not a valid'),
    ('shape_dtype_struct_bad_dtype', lambda jax: jax.ShapeDtypeStruct((2,), 'bogus'),
     r"data type 'bogus' not understood"),
    ('shape_dtype_struct_eagerly', lambda jax: jax.lax.sin(jax.ShapeDtypeStruct((2,), np.float32)),
     r'sin: argument 0: a ShapeDtypeStruct of shape float32\[2\] is a type without a value'),
    ('grad_of_a_shape_dtype_struct',
     lambda jax: jax.grad(jax.lax.sin)(jax.ShapeDtypeStruct((), np.float32)),
     r'(sin: argument 0|vjp: primal 0): a ShapeDtypeStruct of shape float32\[\]'),
    ('vmap_of_a_shape_dtype_struct',
     lambda jax: jax.vmap(jax.lax.sin)(jax.ShapeDtypeStruct((2,), np.float32)),
     r'sin: argument 0: a ShapeDtypeStruct of shape float32\[2\]'),
    # --- Python conversions of traced values
    ('int_of_tracer', lambda jax: jax.jit(lambda a: int(a))(1.0),
     r'int\(\) was called on a traced value .*float64\[\].*astype'),
    ('float_of_tracer', lambda jax: jax.jit(lambda a: float(a))(1),
     r'float\(\) was called on a traced value .*int64\[\]'),
    ('complex_of_tracer', lambda jax: jax.vmap(lambda a: complex(a))(np.ones(2)),
     r'complex\(\) was called on a traced value .*BatchTracer'),
    ('index_with_tracer', lambda jax: jax.jit(lambda i: [1., 2.][i])(0),
     r'index\(\) was called on a traced value .*int64\[\]'),
    # --- unsupported dtypes: a TypeError naming the dtype and the supported ones
    ('jit_complex256_scalar', lambda jax: jax.jit(lambda a: a)(np.clongdouble(1)),
     rf'argument 0 scalar of type clongdouble has dtype complex256.*{SUPPORTED}'),
    ('vjp_complex256_scalar', lambda jax: jax.vjp(lambda a: a, np.clongdouble(1)),
     rf'vjp: primal 0: .*complex256.*{SUPPORTED}'),
    ('jit_big_endian', lambda jax: jax.jit(lambda a: a)(np.arange(3, dtype='>f8')),
     r"argument 0 array of shape \(3,\) has dtype >f8, float64 in the byte order this machine "
     r"does not use.*x\.astype\('float64'\)"),
    # --- pytrees
    ('dict_keys_of_mixed_types', lambda jax: jax.jit(lambda d: d)({1: 1., 'a': 2.}),
     r"sorting pytree dictionary keys.*\[1, 'a'\].*int.*str"),
    # --- functions and outputs
    *_non_callable_rows(),
    *_string_output_rows(),

    # ------------------------------------------------------------- lax: control flow
    ('lax.cond_branch_not_callable', lambda jax: jax.lax.cond(True, 1, lambda: 2.),
     r'cond: true_fun must be callable, got 1 of type int'),
    ('lax.cond_predicate_array', lambda jax: jax.lax.cond(np.ones(2, bool), lambda: 1., lambda: 2.),
     r'cond: the predicate must be a scalar bool or real number, got bool\[2\]'),
    ('lax.cond_branch_shapes', lambda jax: jax.lax.cond(True, lambda: V, lambda: np.ones(2)),
     r'cond: output 0 differs between branches: the false branch gives float64\[2\]'),
    ('lax.switch_branch_not_callable', lambda jax: jax.lax.switch(0, [lambda: 1., 3]),
     r'switch: branch 1 must be callable, got 3'),
    ('lax.switch_no_branch', lambda jax: jax.lax.switch(0, []),
     r'switch: needs at least one branch'),
    ('lax.switch_float_index', lambda jax: jax.lax.switch(0.5, [lambda: 1.]),
     r'switch: the index must be a scalar integer, got float64\[\]'),
    ('lax.custom_linear_solve_matvec_shape',
     lambda jax: jax.lax.custom_linear_solve(lambda v: v[:2], V, lambda m, b: b),
     r'matvec\(\) output shapes must match b, got \[\(2,\)\] and \[\(3,\)\]'),
    ('lax.custom_linear_solve_solve_tree',
     lambda jax: jax.lax.custom_linear_solve(lambda v: v, V, lambda m, b: [b]),
     r'solve\(\) output pytree structure must match b'),
    ('lax.custom_linear_solve_grad_without_transpose_solve',
     lambda jax: jax.grad(lambda b: jax.lax.custom_linear_solve(
         lambda v: 2 * v, b, lambda m, b: b / 2).sum())(V),
     r'transpose_solve required for backwards mode automatic differentiation'),
    ('lax.custom_root_f_tree',
     lambda jax: jax.lax.custom_root(lambda y: [y], 1., lambda f, x: x, lambda g, y: y),
     r'f\(\) output pytree structure must match initial_guess'),
    ('lax.platform_dependent_gpu', lambda jax: jax.lax.platform_dependent(V, gpu=abs),
     r"Use 'cuda' or 'rocm' for lax.platform_dependent"),
    ('lax.platform_dependent_not_callable', lambda jax: jax.lax.platform_dependent(V, cpu=3),
     r"lax.platform_dependent: the 'cpu' branch must be a callable"),
    ('lax.platform_dependent_no_branch_for_cpu',
     lambda jax: jax.lax.platform_dependent(V, tpu=abs),
     r"platform_index\(platforms=\(\('tpu',\),\)\)' not found for platform cpu"),
    ('lax.composite_jvp',
     lambda jax: jax.jvp(jax.lax.composite(lambda x: 2 * x, 'my.op'), (V,), (V,)),
     r'JVP rule for composite not implemented'),
    ('lax.composite_vmap', lambda jax: jax.vmap(jax.lax.composite(lambda x: 2 * x, 'my.op'))(M),
     r"Batching rule for 'composite' not implemented"),
    ('lax.while_loop_body_not_callable', lambda jax: jax.lax.while_loop(lambda v: v < 3., None, 0.),
     r'while_loop: body_fun must be callable, got None'),
    ('lax.while_loop_cond_not_scalar',
     lambda jax: jax.lax.while_loop(lambda c: c < 3., lambda c: c + 1., V),
     r'while_loop: cond_fun must return a scalar bool, got \(bool\[3\]\)'),
    ('lax.scan_f_not_callable', lambda jax: jax.lax.scan('f', 0., np.ones(3)),
     r"scan: f must be callable, got 'f'"),
    ('lax.scan_length_disagrees', lambda jax: jax.lax.scan(lambda c, x: (c, x), 0., V, length=5),
     r'scan: xs leading dimensions and length disagree: \[3, 5\]'),
    ('lax.scan_xs_lengths_disagree',
     lambda jax: jax.lax.scan(lambda c, x: (c, x), 0., (V, X[0, :2])),
     r'scan: xs leading dimensions and length disagree: \[2, 3\]'),
    ('lax.scan_no_xs_no_length', lambda jax: jax.lax.scan(lambda c, x: (c, x), 0., None),
     r'scan: needs xs or length'),
    ('lax.fori_loop_body_not_callable', lambda jax: jax.lax.fori_loop(0, 3, 0., 0.),
     r'fori_loop: body_fun must be callable'),
    ('lax.fori_loop_body_dtype', lambda jax: jax.lax.fori_loop(0, 3, lambda i, v: i, 0.),
     r'fori_loop: body_fun must return the types of init_val.*float64\[\].*int64'),
    ('lax.fori_loop_body_dtype_traced_bounds', _fori_traced_bound(lambda i, v: i),
     r'fori_loop: body_fun must return the types of init_val'),
    ('lax.fori_loop_body_structure', lambda jax: jax.lax.fori_loop(0, 3, lambda i, v: (v, v), 0.),
     r'fori_loop: body_fun must return a value shaped like init_val'),
    ('lax.fori_loop_float_bound', lambda jax: jax.lax.fori_loop(0., 3, lambda i, v: v, 0.),
     r'fori_loop: lower must be a scalar integer, got float64\[\]'),
    # ------------------------------------------------------------- lax
    # --- axes out of range wrap around no more: one normalizer, naming the axis and the rank
    ('lax.reduce_sum_axis', lambda jax: jax.lax.reduce_sum(X, (5,)), _rank2('reduce_sum: axis')),
    ('lax.broadcasted_iota_dimension', lambda jax: jax.lax.broadcasted_iota(np.int32, (2, 3), 5),
     _rank2('iota: dimension')),
    ('lax.iota_float_size', lambda jax: jax.lax.iota(np.int32, 2.5),
     r'iota: size must be an integer, got 2.5 of type float'),
    ('lax.reduce_max_axis', lambda jax: jax.lax.reduce_max(X, (0, 5)), _rank2('reduce_max: axis')),
    ('lax.reduce_min_axis', lambda jax: jax.lax.reduce_min(X, (-3,)),
     r'reduce_min: axis -3 is out of bounds for an array of rank 2'),
    ('lax.reduce_sum_float_axis', lambda jax: jax.lax.reduce_sum(X, 1.0),
     r'reduce_sum: axis must be an integer, got 1\.0'),
    ('lax.argmax_axis', lambda jax: jax.lax.argmax(X, 5, np.int32), _rank2('argmax: axis')),
    ('lax.argmin_axis', lambda jax: jax.lax.argmin(X, -3, np.int32), 'argmin: axis -3'),
    ('lax.expand_dims_axis', lambda jax: jax.lax.expand_dims(X, (5,)),
     r'expand_dims: axis 5 is out of bounds for an array of rank 3'),
    ('lax.squeeze_axis', lambda jax: jax.lax.squeeze(np.ones((1, 2)), (5,)),
     _rank2('squeeze: axis')),
    ('lax.slice_in_dim_axis', lambda jax: jax.lax.slice_in_dim(X, 0, 1, axis=5),
     _rank2('slice_in_dim: axis')),
    ('lax.sort_dimension', lambda jax: jax.lax.sort(X, dimension=5), _rank2('sort: dimension')),
    ('lax.cumsum_axis', lambda jax: jax.lax.cumsum(X, axis=5), _rank2('cumsum: axis')),
    # --- randomness, tokens, accuracy
    ('lax.rng_bit_generator_dtype', lambda jax: jax.lax.rng_bit_generator(
        np.ones(4, np.uint32), (2,), np.int32), r'rng_bit_generator: unsupported dtype int32'),
    ('lax.rng_uniform_dtypes', lambda jax: jax.lax.rng_uniform(np.float32(0), np.float64(1), (2,)),
     r'rng_uniform must have identical dtypes, got float32 and float64'),
    ('lax.rng_uniform_shapes', lambda jax: jax.lax.rng_uniform(np.zeros(2), np.ones(2), (2,)),
     r'rng_uniform must be scalars; got shapes \(2,\) and \(2,\)'),
    ('lax.after_all_not_a_token', lambda jax: jax.lax.after_all(np.ones(2)),
     r'after_all must be tokens'),
    ('lax.accuracy_not_an_accuracy', lambda jax: jax.lax.exp(X, accuracy='highest'),
     r'Accuracy highest not supported'),
    ('lax.tolerance_negative', lambda jax: jax.lax.Tolerance(atol=-1.), r'non-negative'),
    ('lax.tolerance_none', lambda jax: jax.lax.Tolerance(), r'At least one of atol, rtol'),
    # --- slicing
    ('lax.dynamic_slice_float_start', lambda jax: jax.lax.dynamic_slice(np.ones(4), (1.5,), (2,)),
     r'dynamic_slice: start index 0 has dtype float64; start indices must be int'),
    ('lax.dynamic_slice_traced_float_start', lambda jax: jax.jit(
        lambda i: jax.lax.dynamic_slice(np.ones((4, 4)), (0, i), (2, 2)))(1.0),
     r'dynamic_slice: start index 1 has dtype float64'),
    ('lax.dynamic_update_slice_float_start',
     lambda jax: jax.lax.dynamic_update_slice(np.ones(4), np.ones(2), (np.float32(1),)),
     r'dynamic_update_slice: start index 0 has dtype float32'),
    ('lax.dynamic_slice_too_large', lambda jax: jax.lax.dynamic_slice(V, (0,), (5,)),
     r'dynamic_slice: slice_sizes \(5,\) do not fit float64\[3\]'),
    ('lax.slice_beyond_the_end', lambda jax: jax.lax.slice(V, (0,), (5,)),
     r'slice: start \(0,\), limit \(5,\) and strides \(1,\) do not fit float64\[3\]'),
    # --- concatenate of nothing, dot_general dimension numbers
    ('lax.concatenate_empty', lambda jax: jax.lax.concatenate([], 0),
     r'concatenate needs at least one operand'),
    ('lax.dot_general_int', lambda jax: jax.lax.dot_general(X, X, 5),
     r'dot_general: dimension_numbers must be .* got 5'),
    ('lax.dot_general_float_axis',
     lambda jax: jax.lax.dot_general(X, X, (((0.5,), (0,)), ((), ()))),
     r'dot_general: dimension_numbers must be'),
    ('lax.dot_shapes', lambda jax: jax.lax.dot(X, X), r'dimension_numbers must be specified'),
    # --- windows and strides
    ('lax.reduce_window_dimensions_length', lambda jax: jax.lax.reduce_window(
        X, np.float32(0), jax.lax.add, (1,), (1, 1), 'VALID'),
     r'reduce_window_sum: window_dimensions=\(1,\), window_strides=\(1, 1\)'),
    ('lax.reduce_window_zero_stride', lambda jax: jax.lax.reduce_window(
        X, np.float32(0), jax.lax.add, (1, 1), (0, 1), 'VALID'),
     r'reduce_window_sum: .*window_strides=\(0, 1\)'),
    ('lax.slice_negative_stride', lambda jax: jax.lax.slice(V, (0,), (3,), (-1,)),
     r'slice: start \(0,\), limit \(3,\) and strides \(-1,\) do not fit float64\[3\]'),
    ('lax.top_k_more_than_the_axis', lambda jax: jax.lax.top_k(V, 5),
     r'top_k: k=5 must be between 0 and the size 3 of axis 0'),
    ('lax.top_k_negative', lambda jax: jax.lax.top_k(V, -1),
     r'top_k: k=-1 must be between 0 and the size 3'),
    ('lax.approx_max_k_more_than_the_axis', lambda jax: jax.lax.approx_max_k(V, 5),
     r'approx_top_k: k must be smaller than the size of reduction_dim 3, got 5'),
    ('lax.approx_min_k_of_integers', lambda jax: jax.lax.approx_min_k(np.arange(4), 2),
     r'approx_top_k: operand must be a floating type, got int64\[4\]'),
    ('lax.ragged_dot_float_group_sizes', lambda jax: jax.lax.ragged_dot(
        np.ones((6, 3)), np.ones((2, 3, 4)), np.array([2., 4.])),
     r'ragged_dot_general requires that group_sizes.dtype is subtype of np.integer'),
    ('lax.ragged_dot_group_count', lambda jax: jax.lax.ragged_dot(
        np.ones((6, 3)), np.ones((3, 3, 4)), np.array([2, 4])),
     r'ragged_dot_general: expected rhs group dimension size to be 2, got 3'),
    ('lax.scaled_dot_vectors', lambda jax: jax.lax.scaled_dot(
        V, V, lhs_scale=np.ones(1), rhs_scale=np.ones(1)),
     r'scaled_dot does not support 0-rank and 1-rank operands'),
    ('lax.scaled_dot_a_scale_per_position', lambda jax: jax.lax.scaled_dot(
        np.ones((4, 8)), np.ones((8, 3)), lhs_scale=np.ones((4, 8)), rhs_scale=np.ones((2, 3))),
     r"scaled_dot: The ratio of LHS contracting dim 1 to its scale's dim size \(1\) must be at "
     r'least 2'),
    ('lax.scaled_dot_scale_shape', lambda jax: jax.lax.scaled_dot(
        np.ones((4, 8)), np.ones((8, 3)), lhs_scale=np.ones((3, 2)), rhs_scale=np.ones((2, 3))),
     r'scaled_dot: LHS dim 0 of size 4 does not match scale dim size 3'),
    ('lax.scaled_dot_axis_out_of_range', lambda jax: jax.lax.scaled_dot(
        np.ones((4, 8)), np.ones((8, 3)), lhs_scale=np.ones((4, 2)), rhs_scale=np.ones((2, 3)),
        dimension_numbers=(((5,), (0,)), ((), ()))),
     r'scaled_dot: lhs axis 5 of dimension_numbers .* is out of range for lhs of rank 2'),
    ('lax.argmax_float_index_dtype', lambda jax: jax.lax.argmax(X, 0, np.float32),
     r'argmax: index_dtype must be an integer dtype, got float32'),
    ('lax.bitcast_convert_type_widths', lambda jax: jax.lax.bitcast_convert_type(
        np.ones(3, np.int8), np.int64),
     r'bitcast_convert_type: int8\[3\] -> int64 needs a trailing axis of 8 elements'),
    ('lax.map_not_callable', lambda jax: jax.lax.map(3, V),
     r'lax.map: f must be callable, got 3 of type int'),
    ('lax.associative_scan_not_callable', lambda jax: jax.lax.associative_scan(3, V),
     r'associative_scan: fn must be callable, got 3 of type int'),
    # --- negative sizes (JAX: TypeError)
    ('lax.full_negative', lambda jax: jax.lax.full((-1,), 0., np.float32),
     r'shape \(-1,\) has a negative dimension'),
    ('lax.full_of_an_array', lambda jax: jax.lax.full((2,), np.ones(2)),
     r'full must be called with scalar fill_value, got fill_value.shape \(2,\)'),
    ('lax.reshape_negative', lambda jax: jax.lax.reshape(X, (-6, -1)),
     r'reshape: shape \(-6, -1\) has a negative dimension'),
    ('lax.broadcast_in_dim_negative',
     lambda jax: jax.lax.broadcast_in_dim(np.float32(1), (-1,), ()),
     r'broadcast_in_dim: shape \(-1,\) has a negative dimension'),
    ('lax.iota_negative', lambda jax: jax.lax.iota(np.int32, -3),
     r'iota: shape \(-3,\) has a negative dimension'),
    # --- operands that do not fit together
    ('lax.add_shapes', lambda jax: jax.lax.add(X, np.ones((3, 2), np.float32)),
     r'add got incompatible shapes for broadcasting: \(2, 3\), \(3, 2\)\.'),
    ('lax.add_dtypes', lambda jax: jax.lax.add(X, np.ones((2, 3))),
     r'lax.add requires arguments to have the same dtypes, got float32, float64'),
    ('lax.broadcast_in_dim_dimensions', lambda jax: jax.lax.broadcast_in_dim(X, (2, 3), (0,)),
     r'broadcast_in_dim: operand float32\[2,3\] cannot be broadcast to shape \(2, 3\)'),
    ('lax.select_shapes', lambda jax: jax.lax.select(np.ones(3, bool), V, np.ones(2)),
     r'select_n cases must share one type, got float64\[2\], float64\[3\]'),
    ('lax.select_float_predicate', lambda jax: jax.lax.select(V, V, V),
     r'select `which` must be boolean or integer type, got float64'),
    ('lax.transpose_not_a_permutation', lambda jax: jax.lax.transpose(X, (0,)),
     r'transpose: perm \(0,\) is not a permutation of the axes of float32\[2,3\]'),
    ('lax.clamp_shapes', lambda jax: jax.lax.clamp(np.ones(2), V, np.ones(4)),
     r'clamp requires min.shape == x.shape or min.shape == \(\), got min float64\[2\]'),
    ('lax.sin_of_int', lambda jax: jax.lax.sin(np.ones(2, np.int32)),
     r'sin needs a floating-point or complex operand, got int32\[2\]'),
    ('lax.and_of_float', lambda jax: jax.lax.bitwise_and(V, V),
     r'and needs boolean or integer operands, got float64\[3\]'),
    ('lax.convert_element_type_bogus', lambda jax: jax.lax.convert_element_type(X, 'bogus'),
     r"data type 'bogus' not understood"),
    ('lax.fft_type', lambda jax: jax.lax.fft(V, 'bogus', (3,)), r"fft: unknown FFT type 'bogus'"),
    ('lax.eager_complex256_scalar', lambda jax: jax.lax.sin(np.clongdouble(1)),
     rf'complex256.*{SUPPORTED}'),
    ('lax.full_complex256', lambda jax: jax.lax.full((2,), 1., np.clongdouble),
     rf'full has dtype complex256.*{SUPPORTED}'),
    ('lax.stop_gradient_string', lambda jax: jax.lax.stop_gradient('x'),
     r'value of type str is not a valid'),
    # ------------------------------------------------------------- lax.linalg
    ('lax.linalg.triangular_solve_shapes',
     lambda jax: jax.lax.linalg.triangular_solve(M, np.ones((2, 2))),
     r'triangular_solve: a float64\[3,3\] does not fit b float64\[2,2\]'),
    ('lax.linalg.hessenberg_not_square', lambda jax: jax.lax.linalg.hessenberg(X),
     r'hessenberg: the operand must be a square matrix \[..., m, m\], got float32\[2,3\]'),
    ('lax.linalg.hessenberg_vector', lambda jax: jax.lax.linalg.hessenberg(V),
     r'hessenberg: the operand must have rank at least 2 .*got float64\[3\]'),
    ('lax.linalg.hessenberg_int', lambda jax: jax.lax.linalg.hessenberg(np.eye(2, dtype=int)),
     r'hessenberg: LAPACK decomposes float32, .* got the operand int64\[2,2\]'),
    ('lax.linalg.hessenberg_grad',
     lambda jax: jax.grad(lambda a: jax.lax.linalg.hessenberg(a)[0].sum())(M),
     r"primitive 'hessenberg' has no jvp rule"),
    ('lax.linalg.tridiagonal_not_square', lambda jax: jax.lax.linalg.tridiagonal(X),
     r'tridiagonal: the operand must be a square matrix \[..., m, m\], got float32\[2,3\]'),
    ('lax.linalg.householder_product_wide',
     lambda jax: jax.lax.linalg.householder_product(X, np.ones(2, np.float32)),
     r'householder_product: a must have at least as many rows as columns, got float32\[2,3\]'),
    ('lax.linalg.householder_product_taus',
     lambda jax: jax.lax.linalg.householder_product(M, np.ones(4)),
     r'householder_product: taus must have at most min\(m, n\) = 3 entries, got float64\[4\]'),
    ('lax.linalg.householder_product_dtypes',
     lambda jax: jax.lax.linalg.householder_product(M, np.ones(2, np.float32)),
     r'householder_product: the operands must have one dtype, got float64\[3,3\], '
     r'float32\[2\]'),
    ('lax.linalg.ormqr_rows',
     lambda jax: jax.lax.linalg.ormqr(M, np.ones(2), np.ones((2, 2))),
     r'ormqr: with left=True, c must have as many rows as a has rows \(3\), got a '
     r'float64\[3,3\] and c float64\[2,2\]'),
    ('lax.linalg.tridiagonal_solve_diagonals',
     lambda jax: jax.lax.linalg.tridiagonal_solve(V, V, V[:2], np.ones((3, 1))),
     r'tridiagonal_solve: the diagonals dl, d, du must have one shape, got float64\[3\], '
     r'float64\[3\], float64\[2\]'),
    ('lax.linalg.tridiagonal_solve_b_rows',
     lambda jax: jax.lax.linalg.tridiagonal_solve(V, V, V, np.ones((2, 1))),
     r'tridiagonal_solve: b must be \[..., m, k\] for diagonals \[..., m\], got b '
     r'float64\[2,1\]'),
    ('lax.linalg.tridiagonal_solve_batch',
     lambda jax: jax.lax.linalg.tridiagonal_solve(*[np.ones((2, 3))] * 3, np.ones((4, 3, 1))),
     r'tridiagonal_solve: the operands must have one batch shape, got float64\[2,3\], '
     r'float64\[2,3\], float64\[2,3\], float64\[4,3,1\]'),
    ('lax.linalg.tridiagonal_solve_b_vector',
     lambda jax: jax.lax.linalg.tridiagonal_solve(V, V, V, V),
     r'tridiagonal_solve: operand 3 must have rank at least 2, got float64\[3\]'),
    ('lax.linalg.tridiagonal_solve_int',
     lambda jax: jax.lax.linalg.tridiagonal_solve(*[np.ones(3, int)] * 3, np.ones((3, 1), int)),
     r'tridiagonal_solve: LAPACK takes float32, .* got operand 0 int64\[3\]'),
    ('lax.linalg.symmetric_product_shapes',
     lambda jax: jax.lax.linalg.symmetric_product(np.ones((3, 2)), np.ones((2, 2))),
     r'symmetric_product: a must be \[..., m, n\] and c \[..., m, m\], got a float64\[3,2\]'),
    ('lax.linalg.symmetric_product_complex',
     lambda jax: jax.lax.linalg.symmetric_product(M + 0j, M + 0j),
     r'symmetric_product: operand 0 must be float32 or float64, got complex128\[3,3\]'),
    ('lax.linalg.cholesky_update_shapes',
     lambda jax: jax.lax.linalg.cholesky_update(M, V[:2]),
     r'cholesky_update: r must be a square matrix \[n, n\] and w a vector \[n\], got r '
     r'float64\[3,3\] and w float64\[2\]'),
    ('lax.linalg.cholesky_update_batch',
     lambda jax: jax.lax.linalg.cholesky_update(np.stack([M, M]), np.stack([V, V])),
     r'cholesky_update: operand 0 must have rank exactly 2, got float64\[2,3,3\]'),
    ('lax.linalg.cholesky_update_vmap',
     lambda jax: jax.vmap(jax.lax.linalg.cholesky_update)(np.stack([M, M]), np.stack([V, V])),
     r"primitive 'cholesky_update' has no vmap rule"),
    # ------------------------------------------------------------- numpy
    ('numpy.expand_dims_axis', lambda jax: jax.numpy.expand_dims(X, 5),
     r'expand_dims: axis 5 is out of bounds for an array of rank 3'),
    ('numpy.transpose_axis', lambda jax: jax.numpy.transpose(X, (0, 5)),
     _rank2('transpose: axis')),
    ('numpy.swapaxes_axis', lambda jax: jax.numpy.swapaxes(X, 0, 5), _rank2('swapaxes: axis2')),
    ('numpy.moveaxis_axis', lambda jax: jax.numpy.moveaxis(X, 5, 0), _rank2('moveaxis: source')),
    ('numpy.sum_float_axis', lambda jax: jax.numpy.sum(X, 1.5),
     r'sum: axis must be an integer, got 1\.5 of type float'),
    ('numpy.sum_repeated_axis', lambda jax: jax.numpy.sum(X, (1, -1)),
     r'sum: axis \(1, -1\) repeats an axis'),
    ('numpy.mean_axis', lambda jax: jax.numpy.mean(X, 5), _rank2('mean: axis')),
    ('numpy.argmax_axis', lambda jax: jax.numpy.argmax(X, 5), _rank2('argmax: axis')),
    ('numpy.squeeze_axis', lambda jax: jax.numpy.squeeze(X, 5), _rank2('squeeze: axis')),
    ('numpy.concatenate_axis', lambda jax: jax.numpy.concatenate([X, X], 5),
     _rank2('concatenate: axis')),
    ('numpy.stack_axis', lambda jax: jax.numpy.stack([X, X], 5),
     r'stack: axis 5 is out of bounds for an array of rank 3'),
    ('numpy.take_axis', lambda jax: jax.numpy.take(X, 0, axis=5), _rank2('take: axis')),
    ('numpy.cumsum_axis', lambda jax: jax.numpy.cumsum(X, 5), _rank2('cumsum: axis')),
    ('numpy.sort_axis', lambda jax: jax.numpy.sort(X, 5), _rank2('sort: axis')),
    ('numpy.concatenate_empty', lambda jax: jax.numpy.concatenate([]),
     r'concatenate needs at least one array'),
    ('numpy.stack_empty', lambda jax: jax.numpy.stack([]), r'stack needs at least one array'),
    ('numpy.full_negative', lambda jax: jax.numpy.full((-1, 2), 0.),
     r'full: shape \(-1, 2\) has a negative dimension'),
    ('numpy.full_of_shapes_that_do_not_broadcast', lambda jax: jax.numpy.full((2,), V),
     r'Incompatible shapes for broadcasting: shapes=\[\(3,\), \(2,\)\]'),
    ('numpy.zeros_negative', lambda jax: jax.numpy.zeros(-3),
     r'shape \(-3,\) has a negative dimension'),
    ('numpy.repeat_negative', lambda jax: jax.numpy.repeat(V, -1),
     r'broadcast_in_dim: shape \(3, -1\) has a negative dimension'),
    ('numpy.linspace_negative_num', lambda jax: jax.numpy.linspace(0, 1, -1),
     r'linspace: number of samples, -1, must be non-negative'),
    ('numpy.zeros_bogus_dtype', lambda jax: jax.numpy.zeros(2, 'bogus'),
     r"data type 'bogus' not understood"),
    ('numpy.astype_bogus', lambda jax: jax.numpy.asarray(X).astype('bogus'),
     r"data type 'bogus' not understood"),
    ('numpy.eager_big_endian', lambda jax: jax.numpy.sin(np.arange(3, dtype='>i4')),
     r'has dtype >i4, int32 in the byte order'),
    ('numpy.reshape_size', lambda jax: jax.numpy.reshape(X, (4,)),
     r'cannot reshape an array of shape \(2, 3\) into shape \(4,\)'),
    ('numpy.reshape_two_unknown', lambda jax: jax.numpy.reshape(X, (-1, -1)),
     r'cannot reshape an array of shape \(2, 3\) into shape \(-1, -1\)'),
    ('numpy.reshape_size_of_an_array', lambda jax: jax.numpy.ones(3).reshape(4),
     r'cannot reshape an array of shape \(3,\) into shape \(4,\)'),
    ('numpy.reshape_size_of_a_python_scalar', lambda jax: jax.numpy.reshape(1., (2,)),
     r'cannot reshape an array of shape \(\) into shape \(2,\)'),
    ('eval_shape_of_a_bad_reshape', lambda jax: jax.eval_shape(lambda a: a.reshape(4), V),
     r'cannot reshape an array of shape \(3,\) into shape \(4,\)'),
    ('numpy.matmul_shapes', lambda jax: jax.numpy.matmul(X, X),
     r'dot_general requires contracting dimensions to have the same shape, got \(3,\) and \(2,\)'),
    ('numpy.add_shapes', lambda jax: jax.numpy.add(X, np.ones(4)),
     r'Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]'),
    ('numpy.broadcast_to_shape', lambda jax: jax.numpy.broadcast_to(X, (3, 3)),
     r'Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(3, 3\)\]'),
    ('numpy.array_of_a_string', lambda jax: jax.numpy.array('x'),
     r'asarray of shape \(\) has dtype str32, which minijax does not support'),
    ('numpy.array_ragged', lambda jax: jax.numpy.array([[1, 2], [3]]),
     r'inhomogeneous shape after 1 dimensions'),
    ('numpy.split_uneven', lambda jax: jax.numpy.split(V, 2),
     r'split: an axis of size 3 does not divide into 2 equal sections'),
    ('numpy.diag_3d', lambda jax: jax.numpy.diag(np.ones((2, 2, 2))),
     r'diag needs a 1-D or 2-D array, got shape \(2, 2, 2\)'),
    ('numpy.einsum_operand_count', lambda jax: jax.numpy.einsum('ij,jk->ik', M),
     r"einsum: 2 operands in 'ij,jk->ik', got 1"),
    ('numpy.einsum_sizes', lambda jax: jax.numpy.einsum('ij,jk->ik', M, X),
     r"einsum: index 'j' has size 3 in one operand and 2 in another"),
    ('numpy.sum_where_shape', lambda jax: jax.numpy.sum(X, where=np.ones(4, bool)),
     r'Incompatible shapes for broadcasting: shapes=\[\(4,\), \(2, 3\), \(\)\]'),
    ('numpy.mean_bogus_dtype', lambda jax: jax.numpy.mean(X, dtype='bogus'),
     r"data type 'bogus' not understood"),
    ('numpy.nonzero_under_jit', lambda jax: jax.jit(lambda a: jax.numpy.where(a))(V),
     r'jnp.nonzero\(\) was called on a traced value .*bool\[3\].*size'),
    ('numpy.index_too_many', lambda jax: jax.numpy.asarray(X)[0, 0, 0],
     r'too many indices \(3\) for an array of shape \(2, 3\)'),
    ('numpy.index_float', lambda jax: jax.numpy.asarray(X)[1.5],
     r'an index must be an int, slice, None, Ellipsis or integer array, got float'),
    ('numpy.boolean_index_under_jit', lambda jax: jax.jit(lambda a: a[a > 0])(V),
     r'Array boolean indices must be concrete; got bool\[3\]'),
    # ------------------------------------------------------------- numpy.linalg
    ('numpy.linalg.inv_not_square', lambda jax: jax.numpy.linalg.inv(X),
     r'jnp.linalg.inv: the argument must have shape \[..., n, n\], got float32\[2,3\]'),
    ('numpy.linalg.det_of_a_vector', lambda jax: jax.numpy.linalg.det(V),
     r'jnp.linalg.det: the argument must have shape \[..., n, n\], got float64\[3\]'),
    ('numpy.linalg.slogdet_not_square', lambda jax: jax.numpy.linalg.slogdet(X),
     r'jnp.linalg.slogdet: the argument must have shape'),
    ('numpy.linalg.solve_shapes', lambda jax: jax.numpy.linalg.solve(M, np.ones(2)),
     r'jnp.linalg.solve: a must be \[..., m, m\] and b \[m\] or \[..., m, k\]'),
    ('numpy.linalg.lstsq_shapes', lambda jax: jax.numpy.linalg.lstsq(X, V),
     r'jnp.linalg.lstsq: a must be \[m, n\] and b \[m\] or \[m, k\]'),
    ('numpy.linalg.pinv_of_a_vector', lambda jax: jax.numpy.linalg.pinv(V),
     r'jnp.linalg.pinv: the argument must have shape \[..., m, n\], got float64\[3\]'),
    ('numpy.linalg.norm_ord', lambda jax: jax.numpy.linalg.norm(M, ord='bogus'),
     r"norm: ord='bogus' is not a matrix norm"),
    ('numpy.linalg.norm_axis', lambda jax: jax.numpy.linalg.norm(M, axis=5), _rank2('norm: axis')),
    ('numpy.linalg.qr_mode', lambda jax: jax.numpy.linalg.qr(M, mode='bogus'),
     r"jnp.linalg.qr: mode must be 'reduced', 'complete' or 'r'"),
    # ------------------------------------------------------------- numpy.fft
    ('numpy.fft.fft_axis', lambda jax: jax.numpy.fft.fft(V, axis=5),
     r'jnp.fft.fft: axis 5 is out of bounds for an array of rank 1'),
    ('numpy.fft.fft_n_zero', lambda jax: jax.numpy.fft.fft(V, n=0),
     r'jnp.fft.fft: n must be positive, got 0'),
    ('numpy.fft.fft_norm', lambda jax: jax.numpy.fft.fft(V, norm='bogus'),
     r"jnp.fft.fft: norm must be \"backward\", \"ortho\" or \"forward\", got 'bogus'"),
    ('numpy.fft.fft_of_a_scalar', lambda jax: jax.numpy.fft.fft(1.),
     r'jnp.fft.fft: axis -1 is out of bounds for an array of rank 0'),
    ('numpy.fft.fft2_of_a_vector', lambda jax: jax.numpy.fft.fft2(V),
     r'jnp.fft.fft2: axis -2 is out of bounds for an array of rank 1'),
    ('numpy.fft.fftn_s_and_axes', lambda jax: jax.numpy.fft.fftn(M, s=(2, 2, 2), axes=(0, 1)),
     r'jnp.fft.fftn: s=\(2, 2, 2\) and axes=\(0, 1\) have different lengths'),
    ('numpy.fft.rfft_of_complex', lambda jax: jax.numpy.fft.rfft(V * 1j),
     r'fft: RFFT takes real input, got a complex operand of dtype complex128'),

    # ------------------------------------------------------------- random
    ('random.key_float_seed', lambda jax: jax.random.key(1.5),
     r'PRNG key seed must be an integer; got float64\[\]'),
    ('random.key_array_seed', lambda jax: jax.random.key(np.ones(2, np.int32)),
     r'key accepts a scalar seed, but was given an array of shape \(2,\)'),
    ('random.key_of_a_key', lambda jax: jax.random.key(_key(jax)),
     r'key accepts a scalar seed, but was given a PRNG key'),
    ('random.PRNGKey_of_a_key', lambda jax: jax.random.PRNGKey(_key(jax)),
     r'PRNGKey accepts a scalar seed, but was given a PRNG key'),
    ('random.PRNGKey_float_seed', lambda jax: jax.random.PRNGKey(1.5),
     r'PRNG key seed must be an integer; got float64\[\]'),
    ('random.normal_of_an_int', lambda jax: jax.random.normal(0, (2,)),
     r'invalid PRNG key data: expected key_data.dtype = uint32; got dtype=int64'),
    ('random.raw_key_of_three_words', lambda jax: jax.random.normal(np.zeros(3, np.uint32), (2,)),
     r'invalid PRNG key data: expected key_data.shape to end with \(2,\); got shape=\(3,\)'),
    ('random.raw_key_of_floats', lambda jax: jax.random.normal(np.zeros(2, np.float32), (2,)),
     r'invalid PRNG key data: expected key_data.dtype = uint32; got dtype=float32'),
    ('random.key_data_of_an_array', lambda jax: jax.random.key_data(V),
     r'invalid PRNG key data: expected key_data.dtype = uint32; got dtype=float64'),
    ('random.wrap_key_data_of_three_words',
     lambda jax: jax.random.wrap_key_data(V.astype(np.uint32)),
     r'expected key_data.shape to end with \(2,\); got shape=\(3,\)'),
    ('random.key_impl_of_an_array', lambda jax: jax.random.key_impl(V),
     r'invalid PRNG key data'),
    ('random.key_of_a_bogus_impl', lambda jax: jax.random.key(0, impl='bogus'),
     r"key: minijax implements only the threefry2x32 PRNG, got 'bogus'"),
    ('random.split_of_floats', lambda jax: jax.random.split(V),
     r'invalid PRNG key data: expected key_data.dtype = uint32; got dtype=float64'),
    ('random.key_data_of_an_int', lambda jax: jax.random.key_data(3), r'invalid PRNG key data'),
    ('random.split_of_a_key_array', lambda jax: jax.random.split(jax.random.split(_key(jax), 2)),
     r'split accepts a single key, but was given a key array of shape \(2,\)'),
    ('random.fold_in_an_array', lambda jax: jax.random.fold_in(_key(jax), np.ones(2, np.uint32)),
     r'fold_in accepts a scalar, but was given an array of shape \(2,\)'),
    ('random.normal_string_shape', lambda jax: jax.random.normal(_key(jax), 'ab'),
     r"normal: shape: shape must be a sequence of integers, got 'ab'"),
    ('random.exponential_float_shape', lambda jax: jax.random.exponential(_key(jax), (1.5,)),
     r'exponential: shape: shape must be a sequence of integers, got \(1\.5,\)'),
    ('random.normal_float_shape', lambda jax: jax.random.normal(_key(jax), (2.5,)),
     r'normal: shape: shape must be a sequence of integers, got \(2\.5,\)'),
    ('random.split_float_num', lambda jax: jax.random.split(_key(jax), 2.5),
     r'split: num: shape must be a sequence of integers, got \(2\.5,\)'),
    ('random.normal_int_dtype', lambda jax: jax.random.normal(_key(jax), (2,), np.int32),
     r'dtype argument to `normal` must be a float dtype, got int32'),
    ('random.uniform_int_dtype', lambda jax: jax.random.uniform(_key(jax), (2,), np.int32),
     r'dtype argument to `uniform` must be a float dtype, got int32'),
    ('random.truncated_normal_int_dtype',
     lambda jax: jax.random.truncated_normal(_key(jax), -1., 1., (2,), np.int32),
     r'dtype argument to `truncated_normal` must be a float dtype, got int32'),
    ('random.exponential_int_dtype', lambda jax: jax.random.exponential(_key(jax), (2,), np.int32),
     r'dtype argument to `exponential` must be a float dtype, got int32'),
    ('random.t_int_dtype', lambda jax: jax.random.t(_key(jax), 3., (2,), np.int32),
     r'dtype argument to `t` must be a float dtype, got int32'),
    ('random.gumbel_int_dtype', lambda jax: jax.random.gumbel(_key(jax), (2,), np.int32),
     r'dtype argument to `gumbel` must be a float dtype, got int32'),
    ('random.laplace_int_dtype', lambda jax: jax.random.laplace(_key(jax), (2,), np.int32),
     r'dtype argument to `laplace` must be a float dtype, got int32'),
    ('random.cauchy_int_dtype', lambda jax: jax.random.cauchy(_key(jax), (2,), np.int32),
     r'dtype argument to `cauchy` must be a float dtype, got int32'),
    ('random.logistic_int_dtype', lambda jax: jax.random.logistic(_key(jax), (2,), np.int32),
     r'dtype argument to `logistic` must be a float dtype, got int32'),
    ('random.gamma_int_dtype', lambda jax: jax.random.gamma(_key(jax), 1., (2,), np.int32),
     r'dtype argument to `gamma` must be a float dtype, got int32'),
    ('random.loggamma_int_dtype', lambda jax: jax.random.loggamma(_key(jax), 1., (2,), np.int32),
     r'dtype argument to `loggamma` must be a float dtype, got int32'),
    ('random.bits_float_dtype', lambda jax: jax.random.bits(_key(jax), (2,), np.float32),
     r'dtype argument to `bits` must be an unsigned int dtype, got float32'),
    ('random.randint_float_dtype',
     lambda jax: jax.random.randint(_key(jax), (2,), 0, 5, np.float32),
     r'randint only accepts integer dtypes, got float32'),
    ('random.poisson_float_dtype', lambda jax: jax.random.poisson(_key(jax), 2., (2,), np.float32),
     r'dtype argument to `poisson` must be an integer dtype, got float32'),
    ('random.bernoulli_int_p', lambda jax: jax.random.bernoulli(_key(jax), 1),
     r'bernoulli probability `p` must have a floating dtype, got int64'),
    ('random.categorical_int_logits',
     lambda jax: jax.random.categorical(_key(jax), np.ones(3, np.int32)),
     r'categorical: logits must be floating-point, got int32\[3\]'),
    ('random.randint_shapes', lambda jax: jax.random.randint(_key(jax), (2,), np.zeros(3, int), 5),
     r'Incompatible shapes for broadcasting'),
    ('random.bernoulli_shapes', lambda jax: jax.random.bernoulli(_key(jax), V / 2, (2,)),
     r'bernoulli parameter shapes must be broadcast-compatible with shape argument, got a '
     r'parameter of shape \(3,\) for shape \(2,\)'),
    ('random.gamma_shapes', lambda jax: jax.random.gamma(_key(jax), V, (2,)),
     r'gamma parameter shapes must be broadcast-compatible'),
    ('random.beta_shapes', lambda jax: jax.random.beta(_key(jax), V, V, (2,)),
     r'beta parameter shapes must be broadcast-compatible'),
    ('random.truncated_normal_shapes',
     lambda jax: jax.random.truncated_normal(_key(jax), V, 1., (2,)),
     r'truncated_normal parameter shapes must be broadcast-compatible'),
    ('random.t_shapes', lambda jax: jax.random.t(_key(jax), V, (2,)),
     r't parameter shapes must be broadcast-compatible'),
    ('random.poisson_shapes', lambda jax: jax.random.poisson(_key(jax), V, (2,)),
     r'Incompatible shapes for broadcasting: shapes=\[\(3,\), \(2,\)\]'),
    ('random.categorical_shape', lambda jax: jax.random.categorical(_key(jax), X, shape=(4,)),
     r'shape mismatch: objects cannot be broadcast to a single shape'),
    ('random.categorical_axis', lambda jax: jax.random.categorical(_key(jax), X, axis=5),
     _rank2('categorical: axis')),
    ('random.categorical_of_a_scalar', lambda jax: jax.random.categorical(_key(jax), 1.),
     r'categorical: axis -1 is out of bounds for an array of rank 0'),
    ('random.choice_axis', lambda jax: jax.random.choice(_key(jax), X, (2,), axis=5),
     _rank2('choice: axis')),
    ('random.choice_of_nothing', lambda jax: jax.random.choice(_key(jax), 0, (2,)),
     r'a must be greater than 0 unless no samples are taken'),
    ('random.permutation_axis', lambda jax: jax.random.permutation(_key(jax), X, axis=5),
     _rank2('permutation: axis')),
    ('random.permutation_of_a_scalar', lambda jax: jax.random.permutation(_key(jax), np.float32(3)),
     r'x must be an integer or at least 1-dimensional'),
    ('random.permutation_of_a_traced_int',
     lambda jax: jax.jit(lambda n: jax.random.permutation(_key(jax), n))(3),
     r'traced value .*permutation: x sets the shape of the result'),
    ('random.choice_more_than_the_population',
     lambda jax: jax.random.choice(_key(jax), 3, (5,), replace=False),
     r'Cannot take a larger sample \(size 5\) than population \(size 3\)'),
    ('random.choice_p_size', lambda jax: jax.random.choice(_key(jax), 3, (2,), p=np.ones(4) / 4),
     r'p has shape \(4,\) and a.shape\[axis\] is 3'),
    ('random.multivariate_normal_cov_shape',
     lambda jax: jax.random.multivariate_normal(_key(jax), V, np.eye(2)),
     r'multivariate_normal requires cov.shape == \(..., n, n\) for n=3'),
    ('random.multivariate_normal_method',
     lambda jax: jax.random.multivariate_normal(_key(jax), V, M, method='x'),
     r"method must be one of \{'svd', 'eigh', 'cholesky'\}"),
    ('random.dirichlet_of_a_scalar', lambda jax: jax.random.dirichlet(_key(jax), 1.0),
     r'dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0'),

    # ------------------------------------------------------------- nn
    ('nn.softmax_axis', lambda jax: jax.nn.softmax(X, 5), _rank2('max: axis')),
    ('nn.log_softmax_axis', lambda jax: jax.nn.log_softmax(X, 5), _rank2('max: axis')),
    ('nn.logsumexp_axis', lambda jax: jax.nn.logsumexp(X, 5), _rank2('max: axis')),
    ('nn.logmeanexp_axis', lambda jax: jax.nn.logmeanexp(X, 5), _rank2('max: axis')),
    ('nn.standardize_axis', lambda jax: jax.nn.standardize(X, 5), _rank2('standardize: axis')),
    ('nn.glu_axis', lambda jax: jax.nn.glu(X, 5), _rank2('glu: axis')),
    ('nn.one_hot_axis', lambda jax: jax.nn.one_hot(np.arange(3), 3, axis=5),
     r'one_hot: axis 5 is out of bounds for an array of rank 2'),
    ('nn.one_hot_float_num_classes', lambda jax: jax.nn.one_hot(np.arange(3), 2.5),
     r'one_hot: num_classes must be an integer, got 2\.5'),
    ('nn.one_hot_traced_num_classes',
     lambda jax: jax.jit(lambda n: jax.nn.one_hot(np.arange(3), n))(2),
     r'traced value .*one_hot: num_classes sets the shape of the result'),
    ('nn.softmax_axes', lambda jax: jax.nn.softmax(X, (0, 5)), _rank2('max: axis')),
    ('nn.softmax_float_axis', lambda jax: jax.nn.softmax(X, 1.5),
     r'max: axis must be an integer, got 1\.5 of type float'),
    ('nn.one_hot_negative_num_classes', lambda jax: jax.nn.one_hot(np.arange(3), -1),
     r'iota: shape \(1, -1\) has a negative dimension'),
    ('nn.one_hot_array_num_classes', lambda jax: jax.nn.one_hot(np.arange(3), V),
     r'one_hot: num_classes must be an integer, got array'),
    ('nn.one_hot_bogus_dtype', lambda jax: jax.nn.one_hot(np.arange(3), 3, dtype='bogus'),
     r"data type 'bogus' not understood"),
    ('nn.standardize_algorithm', lambda jax: jax.nn.standardize(X, algorithm='bogus'),
     r"standardize: unknown algorithm 'bogus' \(expected 'fast' or 'stable'\)"),
    ('nn.relu_of_a_string', lambda jax: jax.nn.relu('x'), r'value of type str is not a valid'),
    ('nn.gelu_of_a_string', lambda jax: jax.nn.gelu('x'), r'dtype str32'),
    ('nn.leaky_relu_slope_shape', lambda jax: jax.nn.leaky_relu(X, np.ones(4)),
     r'Incompatible shapes for broadcasting: shapes=\[\(4,\), \(2, 3\)\]'),
    ('nn.softplus_of_a_string', lambda jax: jax.nn.softplus('x'),
     r'value of type str is not a valid'),
    ('nn.celu_alpha_shape', lambda jax: jax.nn.celu(X, np.ones(4)),
     r'Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]'),
    ('nn.elu_alpha_shape', lambda jax: jax.nn.elu(X, np.ones(4)),
     r'Incompatible shapes for broadcasting'),
    ('nn.logsumexp_b_shape', lambda jax: jax.nn.logsumexp(X, b=np.ones(4)),
     r'Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]'),
    ('nn.squareplus_b_shape', lambda jax: jax.nn.squareplus(X, np.ones(4)),
     r'Incompatible shapes for broadcasting'),
    # ------------------------------------------------------------- nn.initializers
    ('nn.initializers.glorot_normal_of_a_vector',
     lambda jax: jax.nn.initializers.glorot_normal()(_key(jax), (3,)),
     r"Can't compute input and output sizes of a 1-dimensional weights tensor"),
    ('nn.initializers.normal_int_dtype',
     lambda jax: jax.nn.initializers.normal()(_key(jax), (2,), np.int32),
     r'dtype argument to `normal` must be a float dtype, got int32'),
    ('nn.initializers.constant_of_another_shape',
     lambda jax: jax.nn.initializers.constant(np.ones(4))(_key(jax), (2,)),
     r'Incompatible shapes for broadcasting: shapes=\[\(4,\), \(2,\)\]'),
    ('nn.initializers.he_normal_of_a_vector',
     lambda jax: jax.nn.initializers.he_normal()(_key(jax), (3,)),
     r"Can't compute input and output sizes of a 1-dimensional weights tensor"),
    ('nn.initializers.lecun_uniform_of_a_scalar',
     lambda jax: jax.nn.initializers.lecun_uniform()(_key(jax), ()),
     r"Can't compute input and output sizes of a 0-dimensional weights tensor"),
    ('nn.initializers.uniform_int_dtype',
     lambda jax: jax.nn.initializers.uniform()(_key(jax), (2,), np.int32),
     r'dtype argument to `uniform` must be a float dtype, got int32'),
    ('nn.initializers.truncated_normal_int_dtype',
     lambda jax: jax.nn.initializers.truncated_normal()(_key(jax), (2,), np.int32),
     r'dtype argument to `truncated_normal` must be a float dtype, got int32'),
    ('nn.initializers.zeros_negative_shape',
     lambda jax: jax.nn.initializers.zeros(_key(jax), (-1,)),
     r'full: shape \(-1,\) has a negative dimension'),
    ('nn.initializers.xavier_uniform_float_shape',
     lambda jax: jax.nn.initializers.xavier_uniform()(_key(jax), (2.5, 2)),
     r'variance_scaling: shape: shape must be a sequence of integers, got \(2\.5, 2\)'),
    ('nn.initializers.normal_of_an_int_key', lambda jax: jax.nn.initializers.normal()(0, (2,)),
     r'invalid PRNG key data'),
    ('nn.initializers.variance_scaling_in_axis', lambda jax: jax.nn.initializers.variance_scaling(
        1., 'fan_in', 'normal', in_axis=5)(_key(jax), (2, 2)), _rank2('variance_scaling: in_axis')),
    ('nn.initializers.variance_scaling_mode',
     lambda jax: jax.nn.initializers.variance_scaling(1., 'bogus', 'normal')(_key(jax), (2, 2)),
     r'invalid mode for variance scaling initializer: bogus'),
    ('nn.initializers.variance_scaling_distribution',
     lambda jax: jax.nn.initializers.variance_scaling(1., 'fan_in', 'bogus')(_key(jax), (2, 2)),
     r'invalid distribution for variance scaling initializer: bogus'),

    # ------------------------------------------------------------- scipy
    ('scipy.special.logsumexp_b_shape', lambda jax: jax.scipy.special.logsumexp(X, b=np.ones(4)),
     r'Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]'),
    ('scipy.special.logsumexp_axis', lambda jax: jax.scipy.special.logsumexp(X, 5),
     _rank2('max: axis')),
    ('scipy.special.xlogy_of_a_string', lambda jax: jax.scipy.special.xlogy('a', 1.),
     r'value of type str is not a valid'),
    ('scipy.special.erf_of_a_string', lambda jax: jax.scipy.special.erf('x'), r'dtype str32'),
    ('scipy.special.betainc_complex', lambda jax: jax.scipy.special.betainc(1., 2., .5 + 1j),
     r'betainc does not support complex-valued inputs'),
    ('scipy.special.gammainc_shapes', lambda jax: jax.scipy.special.gammainc(np.ones(2), V),
     r'igamma got incompatible shapes for broadcasting: \(2,\), \(3,\)'),
    ('scipy.special.betaln_shapes', lambda jax: jax.scipy.special.betaln(np.ones(2), V),
     r'incompatible shapes for broadcasting: \(2,\), \(3,\)'),
    ('scipy.special.multigammaln_traced_d',
     lambda jax: jax.jit(lambda d: jax.scipy.special.multigammaln(3., d))(2),
     r'traced value .*multigammaln: d sets the shape of the result'),
    ('scipy.special.gammaln_of_a_string', lambda jax: jax.scipy.special.gammaln('x'),
     r'dtype str32, which minijax does not support'),
    ('scipy.special.ndtri_of_a_string', lambda jax: jax.scipy.special.ndtri('x'),
     r"data type 'x' not understood"),
    ('scipy.special.betaln_of_a_string', lambda jax: jax.scipy.special.betaln('x', 1.),
     r'jit\(betaln\): argument 0 value of type str is not a valid'),
    ('scipy.special.xlog1py_shapes', lambda jax: jax.scipy.special.xlog1py(np.ones(2), V),
     r'incompatible shapes for broadcasting: \(2,\), \(3,\)'),
    ('scipy.special.softmax_axis', lambda jax: jax.scipy.special.softmax(X, axis=5),
     _rank2('max: axis')),
    ('scipy.special.log_softmax_axis', lambda jax: jax.scipy.special.log_softmax(X, axis=5),
     _rank2('max: axis')),
    ('scipy.special.fresnel_complex', lambda jax: jax.scipy.special.fresnel(1j),
     r'Support for complex-valued inputs is not implemented yet'),
    ('scipy.special.hyp1f1_complex', lambda jax: jax.scipy.special.hyp1f1(1., 2., 1j),
     r'hyp1f1 does not support complex-valued inputs'),
    ('scipy.special.hyp2f1_complex', lambda jax: jax.scipy.special.hyp2f1(1., 1., 2., .5j),
     r'hyp2f1 does not support complex-valued inputs'),
    ('scipy.special.hyp1f1_shapes', lambda jax: jax.scipy.special.hyp1f1(np.ones(2), 1., V),
     r'Incompatible shapes for broadcasting: shapes=\[\(2,\), \(\), \(3,\)\]'),
    ('scipy.special.owens_t_shapes', lambda jax: jax.scipy.special.owens_t(np.ones(2), V),
     r'mul got incompatible shapes for broadcasting: \(3,\), \(2,\)'),
    ('scipy.special.sph_harm_y_diff_n',
     lambda jax: jax.scipy.special.sph_harm_y(np.array([1]), np.array([0]), .3, .2, diff_n=1),
     r"The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported"),
    ('scipy.special.sph_harm_y_traced_n_max',
     lambda jax: jax.jit(lambda n: jax.scipy.special.sph_harm_y(n, np.array([0]), .3, .2))(
         np.array([1])),
     r'traced value .*The `n_max` argument of `jnp.scipy.special.sph_harm` must be '
     r'statically specified'),
    ('scipy.special.sph_harm_y_scalar_n', lambda jax: jax.scipy.special.sph_harm_y(1, 0, .3, .2),
     r'len\(\) of a scalar \(0-d\) array'),
    ('scipy.special.sph_harm_y_float_n',
     lambda jax: jax.scipy.special.sph_harm_y(np.array([1.]), np.array([0]), .3, .2),
     r'indices must be integers, got float64\[1\]'),
    ('scipy.special.sph_harm_y_negative_n_max',
     lambda jax: jax.scipy.special.sph_harm_y(np.array([1]), np.array([0]), .3, .2, n_max=-1),
     r'sph_harm_y: n_max must be >= 0 \(a degree\), got -1'),
    ('scipy.linalg.solve_not_square', lambda jax: jax.scipy.linalg.solve(X, np.ones(2)),
     r'solve: the argument must have shape \[..., n, n\], got float32\[2,3\]'),
    ('scipy.linalg.solve_shapes', lambda jax: jax.scipy.linalg.solve(M, np.ones(2)),
     r'a must be \[..., m, m\] and b \[m\] or \[..., m, k\], got a float64\[3,3\] and b '
     r'float64\[2\]'),
    ('scipy.linalg.det_not_square', lambda jax: jax.scipy.linalg.det(X),
     r'det: the argument must have shape \[..., n, n\], got float32\[2,3\]'),
    ('scipy.linalg.inv_not_square', lambda jax: jax.scipy.linalg.inv(X),
     r'inv: the argument must have shape \[..., n, n\], got float32\[2,3\]'),
    ('scipy.linalg.expm_not_square', lambda jax: jax.scipy.linalg.expm(X),
     r'expm: the argument must have shape \[..., n, n\], got float32\[2,3\]'),
    ('scipy.linalg.solve_triangular_shapes',
     lambda jax: jax.scipy.linalg.solve_triangular(M, np.ones(2)),
     r'solve_triangular: a must be \[..., m, m\] and b \[m\] or \[..., m, k\]'),
    ('scipy.linalg.solve_triangular_trans',
     lambda jax: jax.scipy.linalg.solve_triangular(M, V, trans='X'),
     r"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got 'X'"),
    ('scipy.linalg.lu_solve_shapes',
     lambda jax: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(M), np.ones(2)),
     r'lu_solve: a must be \[..., m, m\]'),
    ('scipy.linalg.cho_solve_shapes',
     lambda jax: jax.scipy.linalg.cho_solve((M, False), np.ones(2)),
     r'cho_solve: a must be \[..., m, m\]'),
    ('scipy.linalg.cholesky_of_a_vector', lambda jax: jax.scipy.linalg.cholesky(V),
     r'cholesky: the argument must have shape \[..., n, n\], got float64\[3\]'),
    ('scipy.linalg.qr_mode', lambda jax: jax.scipy.linalg.qr(M, mode='bogus'),
     r"qr: mode must be 'full', 'economic' or 'r', got 'bogus'"),
    ('scipy.linalg.solve_assume_a', lambda jax: jax.scipy.linalg.solve(M, V, assume_a='bogus'),
     r"solve: assume_a must be 'gen', 'sym', 'her' or 'pos', got 'bogus'"),
    ('scipy.linalg.solve_triangular_of_a_vector',
     lambda jax: jax.scipy.linalg.solve_triangular(V, V),
     r'solve_triangular: the argument must have shape \[..., n, n\], got float64\[3\]'),
    ('scipy.linalg.cho_solve_of_a_vector', lambda jax: jax.scipy.linalg.cho_solve((V, False), V),
     r'cho_solve: the argument must have shape \[..., n, n\], got float64\[3\]'),
    ('scipy.linalg.cho_factor_of_a_vector', lambda jax: jax.scipy.linalg.cho_factor(V),
     r'cholesky: the argument must have shape \[..., n, n\], got float64\[3\]'),
    ('scipy.linalg.expm_of_a_vector', lambda jax: jax.scipy.linalg.expm(V),
     r'expm: the argument must have shape \[..., n, n\], got float64\[3\]'),
    ('scipy.linalg.det_of_a_string', lambda jax: jax.scipy.linalg.det('x'),
     r'jit\(det\): argument 0 value of type str is not a valid'),
    ('scipy.linalg.eigh_generalized', lambda jax: jax.scipy.linalg.eigh(M, M),
     r'eigh: only b=None, type=1, eigvals=None are supported'),
    ('scipy.fft.dct_type', lambda jax: jax.scipy.fft.dct(V, type=3),
     r'Only DCT type 2 is implemented'),
    ('scipy.integrate.trapezoid_axis', lambda jax: jax.scipy.integrate.trapezoid(M, axis=5),
     r'out of bounds'),
    ('scipy.ndimage.map_coordinates_order',
     lambda jax: jax.scipy.ndimage.map_coordinates(M, [V, V], 3),
     r'map_coordinates currently requires order<=1'),
    ('scipy.optimize.minimize_method',
     lambda jax: jax.scipy.optimize.minimize(lambda x: x @ x, V, method='bogus'),
     r'Method bogus not recognized'),
    ('scipy.signal.convolve_mode', lambda jax: jax.scipy.signal.convolve(V, V, mode='bogus'),
     r"mode must be one of \['full', 'same', 'valid'\]"),
    ('scipy.signal.convolve_method', lambda jax: jax.scipy.signal.convolve(V, V, method='bogus'),
     r"Got method='bogus'; expected 'auto', 'fft', or 'direct'"),
    ('scipy.signal.convolve_ranks', lambda jax: jax.scipy.signal.convolve(V, M),
     r'in1 and in2 must have the same number of dimensions'),
    ('scipy.signal.convolve_empty', lambda jax: jax.scipy.signal.convolve(np.ones(0), V),
     r'zero-size arrays not supported in convolutions, got shapes \(0,\) and \(3,\)'),
    ('scipy.signal.convolve2d_of_vectors', lambda jax: jax.scipy.signal.convolve2d(V, V),
     r'convolve2d\(\) only supports 2-dimensional inputs'),
    ('scipy.signal.correlate2d_3d', lambda jax: jax.scipy.signal.correlate2d(np.ones((2, 2, 2)), M),
     r'correlate2d\(\) only supports 2-dimensional inputs'),
    ('scipy.signal.correlate_mode', lambda jax: jax.scipy.signal.correlate(V, V, mode='bogus'),
     r"mode must be one of \['full', 'same', 'valid'\]"),
    ('scipy.signal.correlate_ranks', lambda jax: jax.scipy.signal.correlate(V, M),
     r'in1 and in2 must have the same number of dimensions'),
    ('scipy.signal.convolve2d_mode', lambda jax: jax.scipy.signal.convolve2d(M, M, mode='bogus'),
     r"mode must be one of \['full', 'same', 'valid'\]"),
    ('scipy.signal.convolve2d_boundary',
     lambda jax: jax.scipy.signal.convolve2d(M, M, boundary='wrap'),
     r"convolve2d\(\) only supports boundary='fill', fillvalue=0"),
    ('scipy.signal.convolve2d_empty', lambda jax: jax.scipy.signal.convolve2d(np.ones((0, 2)), M),
     r'zero-size arrays not supported in convolutions, got shapes \(0, 2\) and \(3, 3\)'),
    ('scipy.stats.norm.pdf_of_a_string', lambda jax: jax.scipy.stats.norm.pdf('x'),
     r"data type 'x' not understood"),
    ('scipy.stats.norm.cdf_of_a_string', lambda jax: jax.scipy.stats.norm.cdf('x'),
     r"data type 'x' not understood"),
    ('scipy.stats.multivariate_normal.logpdf_cov_shape',
     lambda jax: jax.scipy.stats.multivariate_normal.logpdf(V, V, np.eye(2)),
     r'multivariate_normal.logpdf got incompatible shapes: mean \(3,\), cov \(2, 2\)'),
    ('scipy.stats.multivariate_normal.logpdf_mean_shape',
     lambda jax: jax.scipy.stats.multivariate_normal.logpdf(V, np.ones(2), M),
     r'multivariate_normal.logpdf got incompatible shapes: mean \(2,\), cov \(3, 3\)'),
    ('scipy.stats.multivariate_normal.logpdf_x_shape',
     lambda jax: jax.scipy.stats.multivariate_normal.logpdf(np.ones(2), V, M),
     r'sub got incompatible shapes for broadcasting: \(2,\), \(3,\)'),
    ('scipy.stats.norm.pdf_loc_shape', lambda jax: jax.scipy.stats.norm.pdf(V, np.ones(2)),
     r'sub got incompatible shapes for broadcasting: \(3,\), \(2,\)'),
    *_stats_rows(),
    ('scipy.cluster.vq.vq_ranks', lambda jax: jax.scipy.cluster.vq.vq(M, V),
     r'Observation and code_book should have the same rank'),
    ('scipy.interpolate.RegularGridInterpolator_method',
     lambda jax: jax.scipy.interpolate.RegularGridInterpolator((V, V), M, method='cubic'),
     r"method 'cubic' is not defined"),
    ('scipy.sparse.linalg.cg_shapes', lambda jax: jax.scipy.sparse.linalg.cg(M, np.ones(2)),
     r'dot_general requires contracting dimensions to have the same shape'),
    ('scipy.sparse.linalg.gmres_solve_method',
     lambda jax: jax.scipy.sparse.linalg.gmres(M, V, solve_method='bogus'),
     r"invalid solve_method bogus, must be either 'incremental' or 'batched'"),
    ('scipy.spatial.transform.Rotation_from_euler_seq',
     lambda jax: jax.scipy.spatial.transform.Rotation.from_euler('xyzq', V),
     r'Expected axis specification to be a non-empty string of upto 3 characters, got xyzq'),

    # ------------------------------------------------------------- example_libraries, image
    ('example_libraries.stax.Dense_of_another_width', lambda jax: (lambda init, apply: apply(
        init(jax.random.PRNGKey(0), (-1, 3))[1], np.ones((2, 5))))(
        *jax.example_libraries.stax.Dense(4)),
     r'dot_general requires contracting dimensions to have the same shape'),
    ('example_libraries.stax.serial_of_a_number',
     lambda jax: jax.example_libraries.stax.serial(3), r"'int' object is not iterable"),
    ('example_libraries.optimizers.sgd_of_a_string_step',
     lambda jax: (lambda init, update, get: update(0, V, init(V)))(
         *jax.example_libraries.optimizers.sgd('x')), r"ufunc 'multiply' did not contain"),
    ('example_libraries.optimizers.unpack_optimizer_state_of_a_number',
     lambda jax: jax.example_libraries.optimizers.unpack_optimizer_state(3),
     r'cannot unpack non-iterable int object'),
    ('image.resize_of_another_rank', lambda jax: jax.image.resize(M, (2,), 'linear'),
     r'shape must have length equal to the number of dimensions of x'),
    ('image.resize_method', lambda jax: jax.image.resize(M, (2, 2), 'bogus'),
     r'Unknown resize method "bogus"'),

    # ------------------------------------------------------------- tree_util, tree
    ('tree_util.tree_unflatten_too_few_leaves',
     lambda jax: jax.tree_util.tree_unflatten(jax.tree_util.tree_structure((1, 2)), [1]),
     r'Too few leaves for PyTreeDef; expected 2, got 1'),
    ('tree_util.tree_map_structures',
     lambda jax: jax.tree_util.tree_map(lambda a, b: a, (1, 2), (1,)),
     r'pytree structure error: different lengths of tuple'),
    ('tree_util.tree_map_dict_keys',
     lambda jax: jax.tree_util.tree_map(lambda a, b: a, {'a': 1}, {'b': 1}),
     r'pytree structure error: different pytree metadata'),
    ('tree_util.tree_map_not_callable', lambda jax: jax.tree_util.tree_map(3, (1, 2)),
     r"'int' object is not callable"),
    ('tree_util.tree_reduce_of_nothing', lambda jax: jax.tree_util.tree_reduce(lambda a, b: a, ()),
     r'reduce\(\) of empty iterable with no initial value'),
    ('tree_util.register_twice',
     lambda jax: _register_twice(jax.tree_util.register_pytree_node),
     r"Duplicate custom PyTreeDef type registration for <class .*Fresh'>"),
    ('tree_util.register_pytree_with_keys_twice',
     lambda jax: _register_twice(jax.tree_util.register_pytree_with_keys),
     r"Duplicate custom PyTreeDef type registration for <class .*Fresh'>"),
    ('tree_util.flatten_returns_no_pair',
     lambda jax: jax.tree_util.tree_leaves(_node_whose_flatten_gives(jax, 1.)),
     r'The flatten function for the custom pytree node Fresh should return a \(children, '
     r'aux_data\) tuple'),
    ('tree_util.register_dataclass_of_a_plain_class',
     lambda jax: jax.tree_util.register_dataclass(type('Fresh', (), {})),
     r'register_dataclass: data_fields and meta_fields are required when nodetype is not a '
     r'dataclass'),
    ('tree_util.tree_transpose_inner_structures', lambda jax: jax.tree_util.tree_transpose(
        jax.tree_util.tree_structure([0, 0]), jax.tree_util.tree_structure((0, 0)), [(1, 2), (3,)]),
     r'Mismatch\s+PyTreeDef'),
    ('tree_util.tree_flatten_with_path_is_leaf_not_callable',
     lambda jax: jax.tree_util.tree_flatten_with_path([1], is_leaf=3),
     r"'int' object is not callable"),
    ('tree_util.tree_unflatten_not_a_treedef', lambda jax: jax.tree_util.tree_unflatten(3, [1]),
     r"'int' object has no attribute"),
    ('tree_util.treedef_children_not_a_treedef', lambda jax: jax.tree_util.treedef_children(3),
     r"'int' object has no attribute 'children'"),
    ('tree_util.register_dataclass_overlapping_fields',
     lambda jax: jax.tree_util.register_dataclass(type('D', (), {}), data_fields=['a'],
                                                  meta_fields=['a']),
     r"data_fields and meta_fields must not overlap. Overlapping fields: \{'a'\}"),
    ('tree_util.Partial_of_a_non_callable', lambda jax: jax.tree_util.Partial(3),
     r'the first argument must be callable'),
    ('tree.map_structures', lambda jax: jax.tree.map(lambda a, b: a, [1, 2], [1]),
     r'pytree structure error: different lengths of list'),
    ('tree.unflatten_too_many_leaves',
     lambda jax: jax.tree.unflatten(jax.tree.structure([1, 2]), [1, 2, 3]),
     r'Too many leaves for PyTreeDef'),
    ('tree.map_not_callable', lambda jax: jax.tree.map(3, [1]), r"'int' object is not callable"),
    ('tree.map_with_path_structures',
     lambda jax: jax.tree.map_with_path(lambda p, a, b: a, [1, 2], [1]),
     r'pytree structure error: different lengths of list'),
    ('tree.transpose_structures', lambda jax: jax.tree.transpose(
        jax.tree.structure([0, 0]), jax.tree.structure((0,)), [(1,), (2,), (3,)]),
     r'Mismatch\s+PyTreeDef\(\[\(\*,\), \(\*,\), \(\*,\)\]\)'),
    ('tree.reduce_not_callable', lambda jax: jax.tree.reduce(3, [1, 2]),
     r"'int' object is not callable"),
    ('tree.leaves_is_leaf_not_callable', lambda jax: jax.tree.leaves((1, 2), is_leaf=3),
     r"'int' object is not callable"),
    ('flatten_util.ravel_pytree_of_a_string', lambda jax: jax.flatten_util.ravel_pytree(('x', 1.)),
     r'dtype str32, which minijax does not support'),
    ('flatten_util.ravel_pytree_of_an_object',
     lambda jax: jax.flatten_util.ravel_pytree([object()]),
     r'dtype object, which minijax does not support'),
    ('flatten_util.unravel_of_another_dtype', lambda jax: jax.flatten_util.ravel_pytree(
        [V, np.ones(2, np.float32)])[1](np.ones(5, np.float32)),
     r'unravel function given array of dtype float32, but expected dtype float64'),
    ('flatten_util.unravel_of_another_size',
     lambda jax: jax.flatten_util.ravel_pytree([V, V])[1](np.ones(5)),
     r'unravel function given an array of shape \(5,\), but expected shape \(6,\)'),

    # ------------------------------------------------ ad_checkpoint, stages, experimental, extend
    ('ad_checkpoint.checkpoint_name_of_a_string',
     lambda jax: jax.ad_checkpoint.checkpoint_name('a', 'n'), r'value of type str'),
    ('stages.compiled_called_with_other_types',
     lambda jax: jax.jit(lambda a: a).lower(1.).compile()(np.ones(2)),
     r'called with types \(float64\[2\]\) but compiled for \(float64\[\]\)'),
    ('experimental.io_callback_result_of_another_shape',
     lambda jax: jax.experimental.io_callback(lambda: np.ones(3),
                                              jax.ShapeDtypeStruct((2,), np.float64)),
     r'Incorrect output shape for return value #0: Expected: \(2,\), Actual: \(3,\)'),
    ('extend.core.check_jaxpr_unbound_variable',
     lambda jax: jax.extend.core.check_jaxpr(jax.extend.core.Jaxpr(
         [], [], [jax.extend.core.Var(jax.core.ShapedArray((), np.float32))], [],
         jax.extend.core.no_effects)), r'unbound variable'),

    # ------------------------------------------------------------- debug, ops, test_util
    ('debug.print_missing_name', lambda jax: jax.debug.print('{x}', 1.), r"'x'"),
    ('debug.print_missing_name_under_jit',
     lambda jax: jax.jit(lambda a: jax.debug.print('{x}', a))(1.), r"'x'"),
    ('debug.print_format_not_a_string', lambda jax: jax.debug.print(3, 1.),
     r'expected str, got int'),
    ('debug.print_bad_format_spec', lambda jax: jax.debug.print('{x:q}', x=1.),
     r"Unknown format code 'q' for object of type 'float'"),
    ('debug.print_missing_name_under_vmap',
     lambda jax: jax.vmap(lambda a: jax.debug.print('{y}', x=a))(V), r"'y'"),
    ('debug.print_missing_name_under_grad',
     lambda jax: jax.grad(lambda a: (jax.debug.print('{y}', x=a), a)[1])(1.), r"'y'"),
    ('debug.callback_not_callable_under_vmap', lambda jax: jax.vmap(
        lambda a: jax.debug.callback(3, a))(V),
     r'debug_callback: callback must be callable, got 3 of type int'),
    ('debug.callback_not_callable', lambda jax: jax.debug.callback(3, 1.),
     r'debug_callback: callback must be callable, got 3 of type int'),
    ('ops.segment_sum_negative_num_segments',
     lambda jax: jax.ops.segment_sum(V, np.zeros(3, int), num_segments=-1),
     r'segment_sum: num_segments must be non-negative, got -1'),
    ('ops.segment_sum_float_num_segments',
     lambda jax: jax.ops.segment_sum(V, np.zeros(3, int), num_segments=2.5),
     r'segment_sum: num_segments must be an integer, got 2\.5'),
    ('ops.segment_max_traced_num_segments', lambda jax: jax.jit(
        lambda n: jax.ops.segment_max(V, np.zeros(3, int), num_segments=n))(2),
     r'traced value .*segment_max: num_segments sets the shape of the result'),
    ('ops.segment_sum_traced_ids_without_num_segments',
     lambda jax: jax.jit(lambda ids: jax.ops.segment_sum(V, ids))(np.zeros(3, int)),
     r'traced value .*segment_sum: num_segments sets the shape of the result'),
    ('ops.segment_sum_ids_shape',
     lambda jax: jax.ops.segment_sum(V, np.zeros(2, int), num_segments=2),
     r'Incompatible shapes for broadcasting: shapes=\[\(3,\), \(2,\)\]'),
    ('ops.segment_sum_float_ids', lambda jax: jax.ops.segment_sum(V, np.zeros(3), num_segments=2),
     r'indices must be integers, got an index of type Array with dtype float64'),
    ('test_util.check_grads_of_a_non_callable',
     lambda jax: jax.test_util.check_grads(3, (1.,), 1),
     r'f must be callable, got 3 of type int'),
    ('test_util.check_grads_args_not_a_tuple',
     lambda jax: jax.test_util.check_grads(lambda a: a, 1., 1), r"'float' object is not iterable"),
    ('test_util.check_grads_without_a_jvp_rule',
     lambda jax: jax.test_util.check_grads(jax.custom_jvp(lambda a: a), (1.,), 1),
     r'No JVP defined for custom_jvp function <lambda> using defjvp'),
    ('test_util.check_jvp_structures',
     lambda jax: jax.test_util.check_jvp(lambda a: a, lambda p, t: (p, t), (V,)),
     r'pytree structure error: different types'),
    ('test_util.check_grads_of_a_string',
     lambda jax: jax.test_util.check_grads(lambda a: a, ('x',), 1),
     r'value of type str is not a valid'),
    ('jvp_tangent_dtype', lambda jax: jax.jvp(lambda a: a, (1.,), (np.float32(1.),)),
     r'jvp: tangent 0 has dtype float32 but its primal has dtype float64'),
    ('jvp_tangent_shape', lambda jax: jax.jvp(lambda a: a, (V,), (np.ones(2),)),
     r'jvp: tangent 0 has shape \(2,\) but its primal has shape \(3,\)'),
    ('vjp_cotangent_shape', lambda jax: jax.vjp(lambda a: a, V)[1](np.ones(2)),
     r'cotangent 0 has type float64\[2\], expected float64\[3\]'),
    ('vjp_cotangent_dtype', lambda jax: jax.vjp(lambda a: a, V)[1](np.ones(3, np.float32)),
     r'cotangent 0 has type float32\[3\], expected float64\[3\]'),
    ('grad_argnums_range', lambda jax: jax.grad(lambda a: a, argnums=2)(1.),
     r'argnums 2 out of range for 1 positional arguments'),
    ('value_and_grad_argnums_range',
     lambda jax: jax.value_and_grad(lambda a: a, argnums=3)(1.),
     r'argnums 3 out of range for 1 positional arguments'),
    ('custom_vjp_bwd_cotangent_shape', lambda jax: _custom_vjp_whose_bwd_gives(jax, np.ones(2)),
     r'bwd returned a cotangent of type float64\[2\] for differentiable argument leaf 0, '
     r'of type float64\[3\]'),
    ('custom_jvp_rule_not_a_pair',
     lambda jax: _custom_jvp_whose_rule_gives(jax, lambda primals: primals[0] * 2.),
     r'custom_jvp.*pair'),
    ('lax.cond_branch_dtypes', lambda jax: jax.lax.cond(True, lambda: 1., lambda: np.float32(2.)),
     r'cond: output 0 differs between branches'),
    ('lax.linalg.cholesky_of_a_vector', lambda jax: jax.lax.linalg.cholesky(V),
     r'cholesky: the operand must have rank at least 2 .*got float64\[3\]'),
    ('lax.linalg.qr_of_a_vector', lambda jax: jax.lax.linalg.qr(V),
     r'qr: the operand must have rank at least 2 .*got float64\[3\]'),
    ('lax.linalg.eigh_not_square', lambda jax: jax.lax.linalg.eigh(X),
     r'eigh: the operand must be a square matrix .*got float32\[2,3\]'),
    ('lax.linalg.svd_of_a_vector', lambda jax: jax.lax.linalg.svd(V),
     r'svd: the operand must have rank at least 2 .*got float64\[3\]'),
    ('lax.linalg.lu_of_a_vector', lambda jax: jax.lax.linalg.lu(V),
     r'lu: the operand must have rank at least 2 .*got float64\[3\]'),
    ('lax.linalg.lu_pivots_to_permutation_small_size',
     lambda jax: jax.lax.linalg.lu_pivots_to_permutation(np.array([2, 0], np.int32), 1),
     r'permutation_size 1 is smaller than the number of pivots, 2'),
    ('lax.linalg.lu_pivots_to_permutation_float',
     lambda jax: jax.lax.linalg.lu_pivots_to_permutation(V, 3),
     r'lu_pivots_to_permutation.*float64'),
    ('random.key_plus_one', lambda jax: jax.random.key(0) + 1,
     r'add does not accept dtypes key<fry>, int64\.'),
    ('random.grad_of_a_key', lambda jax: jax.grad(lambda k: 1.)(jax.random.key(0)),
     r'grad requires real- or complex-valued inputs.*key<fry>'),
    ('linearize_int_tangent', lambda jax: jax.linearize(lambda a: a * 2, 1)[1](1),
     r'linearized function: tangent 0 has type int64\[\], expected float0\[\]'),
    ('linearize_float0_tangent_of_a_float',
     lambda jax: jax.linearize(lambda a: a * 2, 1.)[1](np.zeros((), jax.dtypes.float0)),
     r'linearized function: tangent 0 has type float0\[\], expected float64\[\]'),
    ('jvp_int_tangent_of_an_int', lambda jax: jax.jvp(lambda a: a * 2, (1,), (1,)),
     r'jvp: tangent 0 has dtype int64 but its primal has dtype int64: .*must be float0'),
    ('jvp_float0_tangent_of_a_float',
     lambda jax: jax.jvp(lambda a: a * 2, (1.,), (np.zeros((), jax.dtypes.float0),)),
     r'jvp: tangent 0 has dtype float0 but its primal has dtype float64'),
    ('test_util.check_grads_of_an_int', lambda jax: jax.test_util.check_grads(
        lambda a: a * 2, (1,), 1), r'jvp: tangent 0 has dtype int64 .*must be float0'),
    ('numpy.floor_of_complex', lambda jax: jax.numpy.floor(V * 1j),
     r'floor'),
    ('numpy.ceil_of_complex', lambda jax: jax.numpy.ceil(V * 1j),
     r'ceil'),
    ('numpy.einsum_output_index_not_in_the_inputs',
     lambda jax: jax.numpy.einsum('ij,jk->ikz', M, M),
     r'einsum.*z'),
    ('numpy.transpose_not_permutation', lambda jax: jax.numpy.transpose(X, (0, 0)),
     r'transpose: axes \(0, 0\) are not a permutation'),
    ('numpy.matmul_of_a_scalar', lambda jax: jax.numpy.matmul(1., X),
     r'matmul'),
    ('numpy.arange_step_zero', lambda jax: jax.numpy.arange(0, 5, 0),
     r'arange: step'),
    ('numpy.linalg.cholesky_of_a_vector', lambda jax: jax.numpy.linalg.cholesky(V),
     r'cholesky'),
    ('numpy.linalg.eigh_not_square', lambda jax: jax.numpy.linalg.eigh(X),
     r'eigh'),
    ('numpy.linalg.eigvalsh_of_a_vector', lambda jax: jax.numpy.linalg.eigvalsh(V),
     r'eigh'),
    ('numpy.linalg.svd_of_a_vector', lambda jax: jax.numpy.linalg.svd(V),
     r'svd'),
    ('numpy.linalg.matrix_power_not_square', lambda jax: jax.numpy.linalg.matrix_power(X, 2),
     r'matrix_power'),
    ('scipy.linalg.lu_factor_of_a_vector', lambda jax: jax.scipy.linalg.lu_factor(V),
     r'lu_factor'),
    ('scipy.linalg.qr_of_a_vector', lambda jax: jax.scipy.linalg.qr(V), r'qr'),
    ('scipy.linalg.eigh_not_square', lambda jax: jax.scipy.linalg.eigh(X),
     r'eigh'),
    ('scipy.linalg.svd_of_a_vector', lambda jax: jax.scipy.linalg.svd(V),
     r'svd'),
    ('scipy.linalg.lu_of_a_vector', lambda jax: jax.scipy.linalg.lu(V),
     r'lu'),
    ('lax.conv_feature_sizes', lambda jax: jax.lax.conv(IMAGE, np.ones((1, 2, 2, 2), np.float32),
                                                        (1, 1), 'VALID'),
     r'conv_general_dilated'),
    ('lax.conv_zero_stride', lambda jax: jax.lax.conv(IMAGE, KERNEL, (0, 1), 'VALID'),
     r'window_strides'),
    ('lax.conv_strides_length', lambda jax: jax.lax.conv(IMAGE, KERNEL, (1,), 'VALID'),
     r'window_strides'),
    ('lax.conv_padding_beyond_the_axis', lambda jax: jax.lax.conv_general_dilated(
        IMAGE, KERNEL, (1, 1), [(-5, 0), (0, 0)]),
     r'padding'),
    ('lax.reduce_window_init_not_a_scalar', lambda jax: jax.lax.reduce_window(
        X, np.zeros(2, np.float32), jax.lax.add, (1, 1), (1, 1), 'VALID'),
     r'init'),
    ('lax.integer_pow_of_a_float', lambda jax: jax.lax.integer_pow(V, 1.5),
     r'integer_pow'),
    ('lax.concatenate_dimension', lambda jax: jax.lax.concatenate([X, X], 5),
     _rank2('concatenate: dimension')),
    ('lax.pad_config_length', lambda jax: jax.lax.pad(X, np.float32(0), [(0, 0, 0)]),
     r'pad: padding_config'),
    ('lax.pad_value_not_scalar',
     lambda jax: jax.lax.pad(X, np.ones(2, np.float32), [(0, 0, 0)] * 2),
     r'pad: padding value'),
    ('checkpoint_static_argnums_range',
     lambda jax: jax.checkpoint(lambda a: a, static_argnums=3)(1.),
     r'checkpoint: static_argnums 3 is out of range for 1 positional arguments'),
]

#: (id, misuse, minijax's exception type, regex, why minijax departs): JAX accepts these, or
#: fails by accident of its implementation (an MLIR verifier error, an ``assert``, a missing
#: attribute). docs/semantics.md ("Bad input") points here.
DEPARTURES = [
    ('lax.linalg.ormqr_taus', lambda jax: jax.lax.linalg.ormqr(
        np.ones((3, 2)), np.ones(3), np.ones((3, 2))), ValueError,
     r'ormqr: taus must have at most min\(m, n\) = 2 entries, got float64\[3\]',
     "JAX hands LAPACK's ormqr a reflector past the end of a (householder_product refuses "
     'it in both)'),
    ('lax.scaled_dot_without_scales', lambda jax: jax.lax.scaled_dot(
        np.ones((4, 8)), np.ones((8, 3))), NotImplementedError,
     r'scaled_dot: lhs_scale was left out; JAX makes or takes float8_e8m0fnu scales .* minijax '
     r'has no float8 dtypes', 'JAX makes float8_e8m0fnu ones for a scale left out; minijax has '
     'no float8 dtypes (docs/semantics.md)'),
    ('lax.rng_bit_generator_key', lambda jax: jax.lax.rng_bit_generator(
        np.ones(3, np.uint32), (2,)), TypeError,
     r'rng_bit_generator: the key must be uint32\[4\] or uint64\[2\], got uint32\[3\]',
     'JAX accepts it when tracing and fails lowering it (AssertionError)'),
    ('lax.conv_bogus_padding', lambda jax: jax.lax.conv(IMAGE, KERNEL, (1, 1), 'BOGUS'),
     ValueError, r"padding must be 'SAME', 'SAME_LOWER', 'VALID' or \(low, high\) pairs, "
     r"got 'BOGUS'", "JAX raises RuntimeError for a bad padding string; minijax ValueError, "
     "as for the other malformed parameters"),
    ('lax.slice_zero_stride', lambda jax: jax.lax.slice(V, (0,), (3,), (0,)),
     TypeError, r'slice: start \(0,\), limit \(3,\) and strides \(0,\) do not fit '
     r'float64\[3\]', "JAX divides by the stride (ZeroDivisionError)"),
    ('lax.reshape_size', lambda jax: jax.lax.reshape(X, (4,)),
     TypeError, r'reshape: cannot reshape float32\[2,3\] \(6 elements\) to shape \(4,\)',
     "JAX accepts it and fails in MLIR's verifier when lowering (ValueError)"),
    ('lax.gather_float_offset_dims', lambda jax: jax.lax.gather(
        np.ones(5), np.zeros((1, 1), np.int32), jax.lax.GatherDimensionNumbers(
            offset_dims=(1.5,), collapsed_slice_dims=(), start_index_map=(0,)), (2,)),
     TypeError, r'GatherDimensionNumbers: offset_dims must be a sequence of integers, got '
     r'\(1\.5,\)', "JAX fails by accident (RuntimeError: 'generator raised StopIteration')"),
    ('argnums_duplicate', lambda jax: jax.grad(lambda a, b: a * b, argnums=(0, 0))(1.0, 2.0),
     ValueError, r'argnums \(0, 0\) names an argument more than once',
     'JAX fails multiplying None (TypeError)'),
    ('shape_dtype_struct_negative', lambda jax: jax.ShapeDtypeStruct((-1, 2), np.float32),
     TypeError, r'ShapeDtypeStruct: shape \(-1, 2\) has a negative dimension',
     'JAX accepts the shape, and fails where it is used'),
    ('shape_dtype_struct_float_dim', lambda jax: jax.ShapeDtypeStruct((2.5,), np.float32),
     TypeError, r'ShapeDtypeStruct: shape must be a sequence of integers, got \(2\.5,\)',
     'as shape_dtype_struct_negative'),
    ('jit_of_a_pytree_too_deep', lambda jax: jax.jit(lambda t: t)(_deep_list(5000)),
     ValueError, r'pytree is nested too deeply', "JAX's C++ flattener fails (SystemError)"),
    ('pure_callback_not_callable',
     lambda jax: jax.pure_callback(3, jax.ShapeDtypeStruct((), np.float32)), TypeError,
     r'pure_callback: callback must be callable, got 3 of type int',
     'JAX fails when XLA calls the callback (a JaxRuntimeError); minijax checks at the call'),
    ('lax.scan_negative_length',
     lambda jax: jax.lax.scan(lambda c, _: (c, None), 0., None, length=-1), ValueError,
     r'scan: length must be a non-negative integer, got -1', 'JAX scans nothing'),
    ('lax.scan_float_length',
     lambda jax: jax.lax.scan(lambda c, _: (c, None), 0., None, length=2.5), ValueError,
     r'scan: length must be a non-negative integer, got 2\.5', 'JAX rounds the length down'),
    ('lax.dot_general_two_entries', lambda jax: jax.lax.dot_general(X, X, ((0,), (0,))),
     TypeError, r'dot_general: dimension_numbers must be \(\(lhs_contracting, rhs_contracting\), '
     r'\(lhs_batch, rhs_batch\)\).*got \(\(0,\), \(0,\)\)',
     'JAX fails unpacking the pair (ValueError)'),
    ('lax.gather_dimension_numbers_int',
     lambda jax: jax.lax.gather(V, np.zeros((1, 1), np.int32), 3, (1,)), TypeError,
     r'dimension_numbers must be a GatherDimensionNumbers, got 3',
     'JAX fails reading an attribute of the int (AttributeError)'),
    ('numpy.tile_negative', lambda jax: jax.numpy.tile(V, -1), TypeError,
     r'tile: reps \(-1,\) has a negative dimension',
     'JAX fails in its MLIR verifier; minijax refuses the reps as jnp.zeros a shape'),
    ('random.normal_negative_shape', lambda jax: jax.random.normal(_key(jax), (-1,)), TypeError,
     r'normal: shape: shape \(-1,\) has a negative dimension', 'as numpy.tile_negative'),
    ('random.split_negative_num', lambda jax: jax.random.split(_key(jax), -1), TypeError,
     r'split: num: shape \(-1,\) has a negative dimension', 'as numpy.tile_negative'),
    ('random.bits_negative_shape', lambda jax: jax.random.bits(_key(jax), (-1,)), TypeError,
     r'bits: shape: shape \(-1,\) has a negative dimension', 'as numpy.tile_negative'),
    ('random.uniform_minval_shape',
     lambda jax: jax.random.uniform(_key(jax), (2,), minval=V), ValueError,
     r'uniform parameter shapes must be broadcast-compatible with shape argument',
     "JAX fails in lax.mul (TypeError); minijax's ValueError is JAX's for the other "
     'distributions'),
    ('random.fold_in_a_string', lambda jax: jax.random.fold_in(_key(jax), 'x'), TypeError,
     r'value of type str is not a valid', "JAX calls int('x') (ValueError)"),
    ('nn.initializers.normal_negative_shape',
     lambda jax: jax.nn.initializers.normal()(_key(jax), (-1,)), TypeError,
     r'normal: shape: shape \(-1,\) has a negative dimension', 'as numpy.tile_negative'),
    ('nn.glu_odd_size', lambda jax: jax.nn.glu(X), ValueError,
     r'glu: axis -1 has odd size 3: it must split in two',
     'JAX asserts (AssertionError, which python -O removes)'),
    ('scipy.special.multigammaln_float_d',
     lambda jax: jax.scipy.special.multigammaln(3., 1.5), TypeError,
     r'multigammaln: d must be an integer, got 1\.5',
     'JAX rounds d down to an integer; SciPy refuses it too'),
    ('scipy.signal.convolve_of_a_string', lambda jax: jax.scipy.signal.convolve('x', V),
     TypeError, r"data type 'x' not understood",
     "JAX reads the string's ndim (AttributeError)"),
    ('tree_util.tree_flatten_too_deep',
     lambda jax: jax.tree_util.tree_flatten(_deep_list(5000)), ValueError,
     r'pytree is nested too deeply', 'as jit_of_a_pytree_too_deep'),
]


# ----------------------------------------------------------------------------- minijax only

def _user_primitive(*, abstract_eval=None, lowering=None, jvp=None, batching=None):
    """A fresh ``multiply_add`` (as in examples/multiply_add.py) with one rule replaced by a
    faulty one; the other rules are correct."""
    p = minijax.Primitive('multiply_add')
    p.def_impl(lambda x, y, z: x * y + z)
    p.def_abstract_eval(abstract_eval or (lambda x, y, z: minijax.ShapedArray(x.shape, x.dtype)))
    register_lowering(p, lowering or (
        lambda ctx, x, y, z: hlo.AddOp(hlo.MulOp(x, y).result, z).result))
    p.def_jvp(jvp or (lambda primals, tangents: (p.bind(*primals), tangents[2])))
    p.def_batching(batching or (lambda vals, dims: (p.bind(*vals), dims[0])))
    return p


def _jit_user(**rules):
    p = _user_primitive(**rules)
    return lambda: minijax.jit(lambda x: p.bind(x, x, x))(np.ones(3, np.float32))


def _jvp_user(**rules):
    p = _user_primitive(**rules)
    x = np.ones(3, np.float32)
    return lambda: minijax.jvp(lambda x: p.bind(x, x, x), (x,), (x,))


def _vmap_user(**rules):
    p = _user_primitive(**rules)
    return lambda: minijax.vmap(lambda x: p.bind(x, x, x))(np.ones((2, 3), np.float32))


def _to_f64(ctx, x, y, z):
    out = hlo.AddOp(hlo.MulOp(x, y).result, z).result
    return hlo.ConvertOp(ir.RankedTensorType.get([3], ir.F64Type.get()), out).result


def _to_2x3(ctx, x, y, z):
    out = hlo.AddOp(hlo.MulOp(x, y).result, z).result
    return hlo_broadcast_in_dim(out, minijax.ShapedArray((2, 3), np.float32), (1,))


def _jit_with_dump_dir_that_is_a_file():
    with tempfile.NamedTemporaryFile() as f:
        old = os.environ.get('MINIJAX_DUMP_DIR')
        os.environ['MINIJAX_DUMP_DIR'] = f.name
        try:
            minijax.jit(lambda x: x * 3. + 2.)(np.ones(7, np.float32))
        finally:
            if old is None:
                del os.environ['MINIJAX_DUMP_DIR']
            else:
                os.environ['MINIJAX_DUMP_DIR'] = old


#: Misuses of what minijax has and JAX does not (its lowering registry, its environment
#: variables): (id, misuse, exception type, regex).
MINIJAX_ONLY = [
    ('dump_dir_is_a_file', _jit_with_dump_dir_that_is_a_file, NotADirectoryError,
     r'MINIJAX_DUMP_DIR=.* is a file, not a directory'),
    # --- user-defined primitives whose rules misbehave: named primitive and rule kind
    ('lowering_two_values', _jit_user(lowering=lambda ctx, x, y, z: [x, y]), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned 2 values, expected 1"),
    ('lowering_returns_none', _jit_user(lowering=lambda ctx, x, y, z: None), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned a NoneType"),
    ('lowering_returns_array', _jit_user(lowering=lambda ctx, x, y, z: np.ones(3)),
     LoweringError, r"primitive 'multiply_add': the lowering rule returned a ndarray"),
    ('lowering_changes_dtype', _jit_user(lowering=_to_f64), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned tensor<3xf64>, "
     r'the abstract eval says float32\[3\]'),
    ('lowering_changes_shape', _jit_user(lowering=_to_2x3), LoweringError,
     r"primitive 'multiply_add': the lowering rule returned tensor<2x3xf32>, "
     r'the abstract eval says float32\[3\]'),
    ('abstract_eval_tuple', _jit_user(
        abstract_eval=lambda x, y, z: (minijax.ShapedArray(x.shape, x.dtype),)), TypeError,
     r"primitive 'multiply_add': the abstract eval rule returned a tuple of 1 values, "
     r'expected one result'),
    ('abstract_eval_not_an_aval', _jit_user(abstract_eval=lambda x, y, z: x.shape), TypeError,
     r"primitive 'multiply_add': the abstract eval rule returned a tuple of 1 values"),
    ('abstract_eval_returns_shape', _jit_user(abstract_eval=lambda x, y, z: 'f32[3]'),
     TypeError, r"primitive 'multiply_add': the abstract eval rule returned a str, "
     r'expected a ShapedArray'),
    ('jvp_rule_not_a_pair', _jvp_user(jvp=lambda primals, tangents: primals[0]), TypeError,
     r"primitive 'multiply_add': the jvp rule must return a pair \(primal_out, tangent_out\)"),
    ('jvp_rule_lists', _jvp_user(jvp=lambda primals, tangents: ([primals[0]], [tangents[0]])),
     TypeError, r"primitive 'multiply_add': the jvp rule returned a list of 1 values, "
     r'expected one result'),
    ('vmap_rule_not_a_pair', _vmap_user(batching=lambda vals, dims: vals[0]), TypeError,
     r"primitive 'multiply_add': the vmap rule must return a pair"),
    ('vmap_rule_two_outputs', _vmap_user(batching=lambda vals, dims: (vals[:2], 0)),
     TypeError, r"primitive 'multiply_add': the vmap rule returned a list of 2 values"),
]


# ----------------------------------------------------------------------------- the tests

def _raised(misuse, library):
    """The exception ``misuse(library)`` raises, or None (JAX's results are awaited: XLA
    reports some errors only when the computation runs)."""
    try:
        jax.block_until_ready(misuse(library))
    except Exception as error:  # noqa: BLE001 (any exception is an answer)
        return error
    return None


def assert_of_jax_kind(mine, theirs):
    """``mine`` is an instance of every built-in exception class ``theirs`` derives from, and
    of minijax's mirror of every ``jax.errors`` class it derives from (minijax does not import
    JAX, so it cannot raise JAX's own classes)."""
    for cls in type(theirs).__mro__:
        if cls.__module__ == 'builtins':
            assert isinstance(mine, cls), (mine, theirs)
        elif cls.__name__ in MIRRORED:
            assert isinstance(mine, getattr(minijax.errors, cls.__name__)), (mine, theirs)


def _check_row(misuse, pattern):
    theirs = _raised(misuse, jax)
    assert theirs is not None, 'JAX accepts this: move the row to DEPARTURES, with the reason'
    mine = _raised(misuse, minijax)
    assert mine is not None, f'minijax accepts what JAX refuses with {theirs!r}'
    assert_of_jax_kind(mine, theirs)
    assert re.search(pattern, str(mine)), (pattern, str(mine))


@pytest.mark.parametrize('misuse,pattern', [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_bad_input_raises_what_jax_raises(misuse, pattern):
    _check_row(misuse, pattern)


@pytest.mark.parametrize('misuse,error,pattern,reason', [row[1:] for row in DEPARTURES],
                         ids=[row[0] for row in DEPARTURES])
def test_departures_from_jax(misuse, error, pattern, reason):
    theirs = _raised(misuse, jax)
    assert theirs is None or not isinstance(theirs, error), (
        f'JAX raises {theirs!r} too: move the row to ROWS')
    with pytest.raises(error, match=pattern):
        misuse(minijax)


@pytest.mark.parametrize('misuse,error,pattern', [row[1:] for row in MINIJAX_ONLY],
                         ids=[row[0] for row in MINIJAX_ONLY])
def test_bad_input_to_minijax_only_api(misuse, error, pattern):
    with pytest.raises(error, match=pattern):
        misuse()


def test_every_public_module_has_rows():
    """A row's id starts with its module (``scipy.stats.norm.``; the top level has no dot)."""
    ids = [row[0] for table in (ROWS, DEPARTURES) for row in table]
    assert any('.' not in i for i in ids), 'no row for the top level'
    missing = [name for name in PUBLIC_MODULES if not any(i.startswith(f'{name}.') for i in ids)]
    assert not missing, f'public modules without a bad-input row: {missing}'


def test_row_ids_are_unique():
    ids = [row[0] for table in (ROWS, DEPARTURES, MINIJAX_ONLY) for row in table]
    assert len(ids) == len(set(ids))


# ----------------------------------------------------------------------------- the command line

#: (arguments, exit status, a regex the one line on stderr matches in full), beside test_cli.py's
#: ``BAD_INPUT`` (same files, same harness; {d} is their folder): commands, flags, SPECs,
#: VALUEs and files that table does not try.
CLI_ROWS = [
    ([], 2, r'minijax: error: the following arguments are required: COMMAND \(see minijax '
     r'--help\)'),
    (['bogus'], 2, r"minijax: error: argument COMMAND: invalid choice: 'bogus' .*"),
    (['run'], 2, r'minijax run: error: the following arguments are required: TARGET .*'),
    (['run', '{d}/identity.mlir', '--entry', '', '--arg', 'f32[2]=[1, 2]'], 2,
     r'minijax run: error: argument --entry: expected the name of a function, got an empty '
     r'one \(see minijax run --help\)'),
    (['update-checks'], 2, r'minijax update-checks: error: the following arguments are required: '
     r'FILE .*'),
    (['lower', '{d}/user.py:fails', '--arg'], 2,
     r'minijax lower: error: argument --arg: expected one argument .*'),
    (['lower', '{d}/user.py:fails', '--arg', ''], 2, r'minijax: error: bad SPEC: empty .*'),
    (['lower', '{d}/user.py:fails', '--arg', 'f32'], 2,
     r"minijax: error: bad SPEC 'f32': expected a type like f32\[3,4\] .* at 'f32'"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3][2]'], 2,
     r"minijax: error: bad SPEC 'f32\[3\]\[2\]': .* at '\[2\]'"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]=[1, 2, 3]'], 2,
     r"minijax: error: bad SPEC 'f32\[3\]=\[1, 2, 3\]': .* at '=\[1, 2, 3\]'"),
    (['lower', '{d}/user.py:fails', '--arg', 'f32[3]', '--emit', 'bytecode', '-o', '-',
      '--target-version', '99.0.0'], 2,
     r"minijax: error: bad --target-version '99.0.0': expected a StableHLO version X.Y.Z .*"),
    (['run', '{d}/missing.py:f', '--arg', 'f32[]=1'], 2,
     r"minijax: error: no such file: '{d}/missing.py'"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[]='], 2,
     r"minijax: error: bad literal '': expected a number, True/False or a \[list\] of them"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[2]=[1, x]'], 2,
     r"minijax: error: bad literal '\[1, x\]': 'x' is not a number, a boolean or a list of them"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[2]=[1, 2'], 2,
     r"minijax: error: bad literal '\[1, 2': .*"),
    (['run', '{d}/user.py:fails', '--arg', 'f32[2]=[[1, 2]]'], 2,
     r"minijax: error: VALUE 'f32\[2\]=\[\[1, 2\]\]': the literal has shape \(1, 2\) but "
     r'f32\[2\] has shape \(2,\)'),
    (['run', '{d}/user.py:fails', '--arg', 'u8[]=-1'], 2,
     r"minijax: error: VALUE 'u8\[\]=-1': a number is out of range for u8\[\]"),
    (['run', '{d}/user.py:fails', '--arg', '@{d}/missing.npy'], 2,
     r"minijax: error: no such file: '{d}/missing.npy'"),
    (['run', '{d}/identity.mlir', '--arg', 'f32[3]=[1, 2, 3]'], 2,
     r'minijax: error: --arg 0 for {d}/identity.mlir is a tensor<3xf32> but @main expects '
     r'tensor<2xf32>'),
    (['run', '{d}/identity.mlir', '--arg', 'f32[2]=[1, 2]', '--arg', 'f32[2]=[1, 2]'], 2,
     r'minijax: error: wrong number of --arg for {d}/identity.mlir: @main takes 1, 2 given'),
    (['check', '{d}/missing.mlir'], 2, r"minijax: error: no such file: '{d}/missing.mlir'"),
    (['lower', '{d}/user.py:mismatched', '--arg', 'f32[3]', '--arg', 'f32[3]', '-o', ''], 2,
     r'minijax lower: error: argument -o: an empty path \(write to stdout with -o - or no '
     r'-o\) \(see minijax lower --help\)'),
    (['check', '{d}/identity.mlir', '--entry', 'missing'], 1,
     r'{d}/identity.mlir: error: the module has no function @missing \(its functions: @main\)'),
]



def _cli_param(row):
    return pytest.param(*row, id=' '.join(row[0]).replace('{d}/', ''))


@pytest.mark.parametrize('args, status, message', list(map(_cli_param, CLI_ROWS)))
def test_bad_command_line_is_one_line_and_an_exit_status(tmp_path, args, status, message):
    test_cli.test_bad_input_is_one_line_and_an_exit_status(tmp_path, args, status, message)
