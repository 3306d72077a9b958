"""``minijax.lax`` against ``jax.lax``: every public name, with JAX's parameters.

A program written for ``jax.lax`` runs on ``minijax.lax`` only if each function it calls is
there and takes its arguments by JAX's names, in JAX's order, with JAX's defaults. JAX is
enumerated here, so the class stays closed as JAX grows: a new name fails until minijax has
it (or it is listed below with what it waits for).
"""
import inspect
import re

import jax
import numpy as np
import pytest

import minijax

#: Names of jax.lax that minijax does not have yet (issues 30 and 31): none left.
NOT_YET = set()

#: Keyword-only parameters minijax has beyond JAX's: why.
EXTRA_PARAMETERS = {
    ('reduce_sum', 'axis'): "the seed's name for axes (Autodidax's reduce_sum(x, axis=0))",
    ('convert_element_type', 'weak_type'): "JAX's internal _convert_element_type's option",
    ('full', 'weak_type'): 'a weakly typed fill, as a Python scalar is (minijax makes the '
                           'zeros of a weakly typed value with it)',
}

#: Parameters JAX requires and minijax gives a default: why.
EXTRA_DEFAULTS = {
    ('reduce_sum', 'axes'): "every axis, as the seed's reduce_sum(x) sums them all",
}

PUBLIC = sorted(name for name in dir(jax.lax) if not name.startswith('_'))


def test_every_public_name_of_jax_lax_is_in_minijax_lax():
    missing = [n for n in PUBLIC if not hasattr(minijax.lax, n) and n not in NOT_YET]
    assert not missing, f'jax.lax names minijax.lax lacks: {missing}'
    done = sorted(n for n in NOT_YET if hasattr(minijax.lax, n))
    assert not done, f'minijax.lax has these now: take them out of NOT_YET: {done}'
    assert NOT_YET <= set(PUBLIC), sorted(NOT_YET - set(PUBLIC))


def _signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or a class without one
        return None


SHARED_FUNCTIONS = [n for n in PUBLIC if hasattr(minijax.lax, n)
                    and inspect.isfunction(getattr(jax.lax, n)) and _signature(getattr(jax.lax, n))]


def _default(parameter):
    """A parameter's default as compared: JAX's private sentinels (``cond``'s ``operand``)
    only as being a sentinel."""
    value = parameter.default
    return 'a sentinel' if type(value) is object else value


@pytest.mark.parametrize('name', SHARED_FUNCTIONS)
def test_parameters_are_jaxs(name):
    """JAX's parameters, in JAX's order, of JAX's kinds, with JAX's defaults; then only the
    keyword-only extras listed above."""
    theirs = list(_signature(getattr(jax.lax, name)).parameters.values())
    ours = list(inspect.signature(getattr(minijax.lax, name)).parameters.values())
    assert [(p.name, p.kind) for p in ours[:len(theirs)]] == [(p.name, p.kind) for p in theirs]
    for mine, jaxs in zip(ours, theirs):
        if jaxs.default is inspect.Parameter.empty:
            assert mine.default is inspect.Parameter.empty or (name, mine.name) in EXTRA_DEFAULTS
        else:
            assert _default(mine) == _default(jaxs), mine.name
    for extra in ours[len(theirs):]:
        assert extra.kind is inspect.Parameter.KEYWORD_ONLY and (name, extra.name) in \
            EXTRA_PARAMETERS, f'{name}: parameter {extra.name} is not JAX\'s'


X = np.arange(24.).reshape(2, 3, 4)
#: The shape arithmetic and conveniences of minijax.lax.shapes: name -> arguments.
SHAPE_HELPERS = {
    'broadcast_shapes': [((2, 1), (3,)), ((4, 1, 3), (1,), ())],
    'padtype_to_pads': [((5, 6), (2, 3), (1, 2), 'SAME'), ((5, 6), (2, 3), (1, 2), 'SAME_LOWER'),
                        ((5, 6), (2, 3), (1, 2), 'VALID')],
    'conv_shape_tuple': [((2, 3, 5, 5), (4, 3, 2, 2), (1, 1), [(0, 0), (1, 1)]),
                         ((4, 3, 5, 5), (4, 3, 2, 2), (2, 1), 'SAME', 2)],
    'conv_general_permutations': [(('NHWC', 'HWIO', 'NHWC'),), (('NCHW', 'OIHW', 'NHWC'),)],
    'conv_general_shape_tuple': [((2, 5, 6, 3), (2, 3, 3, 4), (1, 2), 'SAME',
                                  ('NHWC', 'HWIO', 'NHWC'))],
    'reduce_window_shape_tuple': [((4, 5), (2, 2), (1, 2), [(0, 0), (1, 1)]),
                                  ((4, 5), (2, 2), (1, 2), [(0, 0), (1, 1)], (2, 1), (1, 2))],
    'dtype': [(1.,), (3,), (True,), (np.float32,), (np.ones(2, np.int8),)],
}
#: Conveniences written with other lax functions: name -> a function of X (or of X and Y).
CONVENIENCES = {
    'broadcast_to_rank': lambda lax: lambda x: lax.broadcast_to_rank(x, 5),
    'broadcast_to_rank-same': lambda lax: lambda x: lax.broadcast_to_rank(x, 3),
    'broadcast_like': lambda lax: lambda x: lax.broadcast_like(lax.reduce_sum(x, (0, 1)), x),
    'collapse': lambda lax: lambda x: lax.collapse(x, 1),
    'collapse-range': lambda lax: lambda x: lax.collapse(x, -3, -1),
    'index_in_dim': lambda lax: lambda x: lax.index_in_dim(x, 1, 1),
    'index_in_dim-drop': lambda lax: lambda x: lax.index_in_dim(x, -1, 2, False),
}


@pytest.mark.parametrize('name', SHAPE_HELPERS)
def test_shape_arithmetic_as_jax(name):
    for args in SHAPE_HELPERS[name]:
        assert getattr(minijax.lax, name)(*args) == getattr(jax.lax, name)(*args)


def test_shape_as_value_is_jaxs():
    for shape in [(2, 3), (), (7,)]:
        mine, theirs = minijax.lax.shape_as_value(shape), jax.lax.shape_as_value(shape)
        np.testing.assert_array_equal(mine, theirs)
        assert mine.dtype == theirs.dtype   # a NumPy array, but an Array for ()
        assert isinstance(mine, minijax.Array) == isinstance(theirs, jax.Array)


@pytest.mark.parametrize('name', CONVENIENCES)
def test_conveniences_are_jaxs_ops(name):
    """The values and the module (the ops JAX writes) of each convenience. (Their jaxprs
    can differ: JAX squeezes where minijax reshapes, and prints unit strides it was given.)"""
    ours, theirs = CONVENIENCES[name](minijax.lax), CONVENIENCES[name](jax.lax)
    np.testing.assert_array_equal(ours(X), theirs(X))
    assert minijax.jit(ours).lower(X).as_text() == jax.jit(theirs).lower(X).as_text()


@pytest.mark.parametrize('idxs,axes', [([[0, 1, -1], [1, 5, 2]], (0, 1)), ([[3, 0]], (2,)),
                                        ([[-1, 0], [2, 2]], (1, 2))], ids=str)
def test_index_take_is_jaxs_gather(idxs, axes):
    """Its values, and the gather it ends in. (Its modulo is jnp's remainder, whose module
    differs from JAX's: docs/coming_from_jax.md.)"""
    def take(lax):
        return lambda x: lax.index_take(x, np.array(idxs), axes)
    np.testing.assert_array_equal(take(minijax.lax)(X), take(jax.lax)(X))
    ours = minijax.make_jaxpr(take(minijax.lax))(X).jaxpr.eqns[-1]
    theirs = jax.make_jaxpr(take(jax.lax))(X).jaxpr.eqns[-1]
    assert (ours.primitive.name, ours.params['dimension_numbers'], ours.params['slice_sizes']) \
        == (theirs.primitive.name, theirs.params['dimension_numbers'], theirs.params['slice_sizes'])


M = np.arange(12.).reshape(3, 4)
PRECISIONS = [None, 'highest', 'float32', 'high', 'bfloat16_3x', 'tensorfloat32', 'default',
              'bfloat16', 'fastest', ('highest', 'default'), 'HIGHEST', ('high',), 'fast']


@pytest.mark.parametrize('precision', PRECISIONS, ids=str)
def test_precision_reads_as_jax_reads_it(precision):
    """Each name (and level) of lax.Precision means what JAX's does: the same jaxpr and
    module for a product asked for it (levels too), or JAX's ValueError."""
    def product(lax, precision):
        return lambda x: lax.dot(x, x.T, precision=precision)

    try:
        theirs = jax.make_jaxpr(product(jax.lax, precision))(M)
    except ValueError:
        with pytest.raises(ValueError, match='precision'):
            minijax.make_jaxpr(product(minijax.lax, precision))(M)
        return
    assert str(minijax.make_jaxpr(product(minijax.lax, precision))(M)) == str(theirs)
    if precision is not None and not isinstance(precision, tuple):
        level = minijax.lax.Precision(precision)
        assert (repr(level), str(level)) == (repr(jax.lax.Precision(precision)),
                                             str(jax.lax.Precision(precision)))
        assert minijax.jit(product(minijax.lax, level)).lower(M).as_text() == \
            jax.jit(product(jax.lax, jax.lax.Precision(precision))).lower(M).as_text()


#: Operand dtype and preferred_element_type pairs a dot algorithm meets.
ALGORITHM_OPERANDS = [(np.float32, None), (np.float64, None), (np.float16, None),
                      ('bfloat16', None), ('bfloat16', np.float32), (np.float32, np.float64),
                      (np.int32, None)]


@pytest.mark.parametrize('preset', list(jax.lax.DotAlgorithmPreset.__members__))
def test_dot_algorithms_run_as_jaxs_run(preset, rng):
    """Each preset, on operands of each kind: JAX's module, values (jitted and eager) and
    result dtype, or JAX's error (the CPU runs few of them)."""
    for dtype, preferred in ALGORITHM_OPERANDS:
        x, y = (rng.normal(size=shape).astype(dtype) for shape in ((3, 5), (5, 2)))

        def run(lib, lax):
            def f(a, b):
                return lax.dot(a, b, precision=getattr(lax.DotAlgorithmPreset, preset),
                               preferred_element_type=preferred)
            try:
                text, out = lib.jit(f).lower(x, y).as_text(), np.asarray(lib.jit(f)(x, y))
            except ValueError as e:
                return str(e)
            return text, out.dtype, out.tobytes(), np.asarray(f(x, y)).tobytes()
        assert run(minijax, minijax.lax) == run(jax, jax.lax), (dtype, preferred)
    theirs = jax.lax.DotAlgorithmPreset[preset]
    ours = minijax.lax.DotAlgorithmPreset[preset]
    assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))


def test_a_dot_algorithm_spelled_out_is_refused_on_the_cpu_as_jax_refuses_it():
    def f(lax):
        algorithm = lax.DotAlgorithm(np.float32, np.float32, np.float32)
        return lambda x: lax.dot(x, x.T, precision=algorithm)
    assert str(minijax.make_jaxpr(f(minijax.lax))(M)) == str(jax.make_jaxpr(f(jax.lax))(M))
    with pytest.raises(ValueError) as theirs:
        jax.jit(f(jax.lax))(M)
    with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
        minijax.jit(f(minijax.lax))(M)


@pytest.mark.parametrize('n', [1, 16, 17, 40])
def test_wide_concatenations_lower_as_jax_lowers_them(n):
    """One operand is no op; more than 16 make a tree of concatenations, as in JAX (the
    case table's rows stay narrow: their tests try each subset of operands)."""
    pieces = [np.full((1, 2), k, np.float32) for k in range(n)]
    ours = minijax.jit(lambda *xs: minijax.lax.concatenate(xs, 0)).lower(*pieces)
    theirs = jax.jit(lambda *xs: jax.lax.concatenate(xs, 0)).lower(*pieces)
    assert ours.as_text() == theirs.as_text()
