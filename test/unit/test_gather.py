"""gather, the scatters and NumPy indexing on them, against JAX: values (eagerly and under
jit), out-of-bounds modes, gradients, vmap and the errors."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close, jax_answer

import minijax
import minijax.numpy as mnp
from minijax import lax as mlax

X = np.arange(60.).reshape(3, 4, 5) / 7 - 2
SCATTERS = ['scatter', 'scatter_add', 'scatter_mul', 'scatter_min', 'scatter_max']
MODES = [None, 'clip', 'fill', 'promise_in_bounds']


def _both_ways(f, *args):
    """``f`` eagerly and under jit."""
    return [f(*args), minijax.jit(f)(*args)]


# ----------------------------------------------------------------------------- lax

def _gather_fn(lax, mode, fill_value=None):
    dnums = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                       start_index_map=(0,))
    return lambda x, i: lax.gather(x, i, dnums, (1, 2), mode=mode, fill_value=fill_value)


@pytest.mark.parametrize('mode', MODES, ids=str)
def test_lax_gather_out_of_bounds_modes(mode):
    """Windows of 1x2 at rows -1..4 of a 3x4 operand: clamped, or filled (NaN, or the given
    fill value) where the window does not fit."""
    x = np.arange(12.).reshape(3, 4)
    indices = np.array([[-1], [0], [2], [3], [4]], np.int32)
    for fill_value in ([None, -5.] if mode == 'fill' else [None]):
        expected = _gather_fn(jax.lax, mode, fill_value)(x, indices)
        for got in _both_ways(_gather_fn(mlax, mode, fill_value), x, indices):
            assert_close(got, expected)


def _scatter_fn(lax, name, mode):
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,))
    return lambda x, i, u: getattr(lax, name)(x, i, u, dnums, mode=mode)


@pytest.mark.parametrize('mode', MODES, ids=str)
@pytest.mark.parametrize('name', SCATTERS)
def test_lax_scatter_repeated_and_out_of_bounds(name, mode):
    """Rows at repeated indices combine (the last set wins); a window out of bounds is
    dropped, or clamped in with mode='clip'."""
    x = np.arange(12.).reshape(3, 4)
    indices = np.array([[1], [1], [-1], [3], [0]], np.int32)
    updates = np.arange(20.).reshape(5, 4) - 8
    expected = _scatter_fn(jax.lax, name, mode)(x, indices, updates)
    for got in _both_ways(_scatter_fn(mlax, name, mode), x, indices, updates):
        assert_close(got, expected)


@pytest.mark.parametrize('name', SCATTERS)
def test_lax_scatter_gradients(name, rng):
    """Repeated indices and ties between operand and updates (min/max share the gradient
    among tied values, as JAX does); scatter_mul with unique indices."""
    x = np.round(rng.normal(size=(4, 3)))
    updates = np.round(rng.normal(size=(3, 3)))
    unique = name == 'scatter_mul'
    indices = np.array([[2], [0], [3]] if unique else [[2], [0], [2]], np.int32)
    ct = rng.normal(size=x.shape)

    def loss(lax):
        dnums = lax.ScatterDimensionNumbers((1,), (0,), (0,))
        f = getattr(lax, name)
        return lambda x, u: (f(x, indices, u, dnums, unique_indices=unique) * ct).sum()

    expected = jax.jit(jax.grad(loss(jax.lax), (0, 1)))(x, updates)
    for got in _both_ways(minijax.grad(loss(mlax), (0, 1)), x, updates):
        for g, e in zip(got, expected):
            assert_close(g, e)


def test_scatter_mul_updates_gradient_needs_unique_indices():
    dnums = mlax.ScatterDimensionNumbers((1,), (0,), (0,))

    def f(u):
        return mlax.scatter_mul(np.ones((4, 3)), np.array([[1], [1]]), u, dnums).sum()

    with pytest.raises(NotImplementedError, match='unique_indices=True'):
        minijax.grad(f)(np.ones((2, 3)))


@pytest.mark.parametrize('call,message', [
    (lambda: mlax.gather(X, np.zeros((2, 1), np.int32), mlax.GatherDimensionNumbers(
        (1, 2), (0,), (0, 1)), (1, 4, 5)), r'start_index_map=\(0, 1\).*index vector'),
    (lambda: mlax.gather(X, np.zeros((2, 1), np.int32), mlax.GatherDimensionNumbers(
        (1, 2), (1,), (0,)), (1, 4, 5)), r'collapsed_slice_dims=\(1,\).*size 1'),
    (lambda: mlax.gather(X, np.zeros((2, 1), np.int32), mlax.GatherDimensionNumbers(
        (1, 2), (0,), (0,)), (1, 4, 9)), r'window sizes \(1, 4, 9\) do not fit'),
    (lambda: mlax.gather(X, np.zeros((2, 1), np.int32), mlax.GatherDimensionNumbers(
        (1,), (0,), (0,)), (1, 4, 5)), r'offset_dims=\(1,\) must be 2'),
    (lambda: mlax.scatter_add(X, np.zeros((2, 1), np.int32), np.ones((3, 4, 5)),
                              mlax.ScatterDimensionNumbers((1, 2), (0,), (0,))),
     r'updates float64\[3,4,5\] must have shape \(2, 4, 5\)'),
    (lambda: mlax.scatter(X, np.zeros((2, 1), np.int32), np.ones((2, 4, 5), np.float32),
                          mlax.ScatterDimensionNumbers((1, 2), (0,), (0,))),
     'dtype of the operand'),
    (lambda: mlax.scatter(X, np.zeros((2, 1), np.int32), np.ones((2, 4, 5)),
                          mlax.ScatterDimensionNumbers((1, 2), (0,), (0,), (1,), (0,))),
     'must pair axes of equal size'),
], ids=['index-vector', 'collapsed-size', 'window-size', 'offset-dims', 'updates-shape',
        'updates-dtype', 'batching-dims'])
def test_bad_dimension_numbers_name_the_field(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_float_indices_are_jax_s_value_error():
    with pytest.raises(ValueError, match=r'integer array.*float32\[2,1\]'):
        mlax.gather(X, np.zeros((2, 1), np.float32), mlax.GatherDimensionNumbers(
            (1, 2), (0,), (0,)), (1, 4, 5))


def test_unknown_mode():
    with pytest.raises(ValueError, match="unknown gather/scatter mode 'bogus'"):
        mlax.scatter_add(X, np.zeros((1, 1), np.int32), np.ones((1, 4, 5)),
                         mlax.ScatterDimensionNumbers((1, 2), (0,), (0,)), mode='bogus')

# ----------------------------------------------------------------------------- jnp indexing


I2 = np.array([[0, 2], [1, -1]])
#: (id, f(jnp module, x)): each reads or updates X through NumPy indexing.
INDEXING = [
    ('int-array', lambda m, x: x[np.array([0, 2, 2, -1])]),
    ('second-axis', lambda m, x: x[:, np.array([3, 0])]),
    ('strided-and-array', lambda m, x: x[:, 1:4:2, np.array([3, 0])]),
    ('separated-arrays-go-first', lambda m, x: x[np.array([0, 2]), :, np.array([1, 4])]),
    ('adjacent-arrays-broadcast', lambda m, x: x[I2[:, :1], np.array([1, 3])]),
    ('int-beside-array', lambda m, x: x[I2, 1]),
    ('int-separated-from-array', lambda m, x: x[1, :, I2]),
    ('none-and-ellipsis', lambda m, x: x[None, I2, None, ..., 2]),
    ('out-of-bounds-clamps', lambda m, x: x[np.array([5, -7, 2])]),
    ('get-fill', lambda m, x: x.at[np.array([5, -7, 2])].get(mode='fill')),
    ('get-fill-static', lambda m, x: x.at[1, 9].get(mode='fill', fill_value=-1.)),
    ('add-repeated', lambda m, x: x.at[np.array([0, 0, 2])].add(1.)),
    ('add-repeated-rows', lambda m, x: x.at[np.array([0, 0, 2]), 1].add(
        np.arange(15.).reshape(3, 5))),
    ('set-drops-out-of-bounds', lambda m, x: x.at[:, np.array([1, 1, 7])].set(-1.)),
    ('set-clip', lambda m, x: x.at[:, np.array([1, 6, 7])].set(np.arange(9.).reshape(3, 3, 1),
                                                               mode='clip')),
    ('mul-strided', lambda m, x: x.at[::2, np.array([1, 1, 3]), 1:3].mul(2.)),
    ('min-repeated', lambda m, x: x.at[np.array([1, 1]), :, np.array([0, 0])].min(
        -np.arange(8.).reshape(2, 4))),
    ('max-repeated', lambda m, x: x.at[np.array([1, 1]), :, np.array([0, 0])].max(
        np.arange(8.).reshape(2, 4) - 1)),
    ('static-set', lambda m, x: x.at[1, 2].set(7.)),
    ('static-set-out-of-bounds', lambda m, x: x.at[7].set(7.)),
    ('static-set-clip', lambda m, x: x.at[7].set(7., mode='clip')),
    ('divide', lambda m, x: x.at[np.array([0, 2, 2])].divide(2.)),
    ('subtract-with-none', lambda m, x: x.at[None, 1, ..., np.array([0, 2])].subtract(2.)),
    ('backward-strided', lambda m, x: x[::-1, 3:0:-2, ::-3]),
    ('backward-empty', lambda m, x: x[1:2:-1]),
    ('backward-and-array', lambda m, x: x[np.array([2, 0]), ::-1, 1]),
    ('set-backward', lambda m, x: x.at[:, ::-2].set(np.arange(10.).reshape(2, 5))),
    ('add-backward-view-of-array', lambda m, x: x.at[np.array([0, 2]), ::-1].add(
        np.arange(4.)[:, None])),
    ('take-fill', lambda m, x: m.take(x, np.array([[0, 9], [-1, 2]]), axis=2)),
    ('take-clip', lambda m, x: m.take(x, np.array([[0, 9], [-1, 2]]), axis=2, mode='clip')),
    ('take-wrap', lambda m, x: m.take(x, np.array([[0, 9], [-1, 2]]), axis=1, mode='wrap')),
    ('take-flat', lambda m, x: m.take(x, np.array([0, 59, -60]))),
    ('take-method', lambda m, x: x.take(np.array([1, 0]), axis=0)),
    ('take_along_axis', lambda m, x: m.take_along_axis(x, np.array([[[0], [4], [-1], [9]]]),
                                                       axis=2)),
    ('take_along_axis-argsort', lambda m, x: m.take_along_axis(x, m.argsort(-x, axis=1),
                                                               axis=1)),
    ('take_along_axis-none', lambda m, x: m.take_along_axis(x[0, 0], np.array([3, -1, 0]),
                                                            axis=None)),
]
INDEXING_IDS = [name for name, _ in INDEXING]
INDEXING_FNS = [f for _, f in INDEXING]


@pytest.mark.parametrize('f', INDEXING_FNS, ids=INDEXING_IDS)
def test_numpy_indexing_values(f):
    expected = f(jnp, jnp.asarray(X))
    for got in _both_ways(lambda x: f(mnp, x), mnp.asarray(X)):
        assert_close(got, expected)


@pytest.mark.parametrize('dtype', ['complex64', 'complex128', 'float16', 'int8', 'uint32',
                                   'bool'])
@pytest.mark.parametrize('name', ['take-fill', 'take-flat', 'take_along_axis'])
def test_filled_reads_of_every_dtype(name, dtype):
    """An out-of-bounds read fills with JAX's value for the dtype (NaN+0j for complex)."""
    f = dict(INDEXING)[name]
    x = X.astype(dtype)
    expected = f(jnp, jnp.asarray(x))
    for got in _both_ways(lambda x: f(mnp, x), mnp.asarray(x)):
        assert_close(got, expected)


#: Reads whose gradient is JAX's: not out of bounds (see the test after this one), not filled.
GRADIENT_CASES = [(n, f) for n, f in INDEXING if not any(
    w in n for w in ('argsort', 'fill', 'out-of-bounds-clamps'))]


@pytest.mark.parametrize('f', [f for _, f in GRADIENT_CASES], ids=[n for n, _ in GRADIENT_CASES])
def test_numpy_indexing_gradients(f, rng):
    """The vjp of each read or update (gather <-> scatter_add), in float64."""
    shape = jax.eval_shape(lambda x: f(jnp, x), X).shape
    ct = rng.normal(size=shape)
    expected = jax.jit(jax.grad(lambda x: (f(jnp, x) * ct).sum()))(X)
    for got in _both_ways(minijax.grad(lambda x: (f(mnp, x) * ct).sum()), X):
        assert_close(got, expected)


def test_gradient_of_a_clamped_read_goes_to_the_element_read(rng):
    """x[i] out of bounds reads the clamped element, and its gradient goes there (the exact
    adjoint; JAX's default mode leaves it undefined and gives zero)."""
    idx = np.array([5, -7, 2, 1])
    ct = rng.normal(size=(4, 4, 5))
    expected = np.zeros_like(X)
    np.add.at(expected, np.clip(np.where(idx < 0, idx + 3, idx), 0, 2), ct)
    for got in _both_ways(minijax.grad(lambda x: (x[idx] * ct).sum()), X):
        assert_close(got, expected)


def test_at_set_gradient_with_repeated_indices(rng):
    """The update that wins an element gets its gradient; the others none (as in JAX)."""
    idx = np.array([1, 3, 1, 1])

    def loss(m):
        return lambda x, v: (x.at[idx].set(v) ** 2).sum()

    x, v = rng.normal(size=5), rng.normal(size=4)
    expected = jax.jit(jax.grad(loss(jnp), (0, 1)))(x, v)
    for got in _both_ways(minijax.grad(loss(mnp), (0, 1)), x, v):
        for g, e in zip(got, expected):
            assert_close(g, e)


def test_traced_scalar_index_under_vmap_and_jit():
    """x[i] with a traced i: batched over i, over x, over both; jit of vmap; and its grad."""
    i = np.array([2, -1, 0, 7], np.int32)
    xs = np.stack([X[0]] * 4) + np.arange(4.)[:, None, None]

    def pick(m):
        return lambda x, i: m.asarray(x)[i, 1:3] * 2

    for in_axes, args in [((None, 0), (X[0], i)), ((0, None), (xs, np.int32(1))),
                          ((0, 0), (xs, i))]:
        expected = jax_answer(jax.vmap(pick(jnp), in_axes), *args)
        assert_close(minijax.vmap(pick(mnp), in_axes)(*args), expected)
        assert_close(minijax.jit(minijax.vmap(pick(mnp), in_axes))(*args), expected)
    i = np.array([2, 1, 0], np.int32)
    expected = jax_answer(jax.vmap(jax.grad(lambda x, i: pick(jnp)(x, i).sum()), (None, 0)),
                          X[0], i)
    got = minijax.vmap(minijax.grad(lambda x, i: pick(mnp)(x, i).sum()), (None, 0))(X[0], i)
    assert_close(got, expected)


@pytest.mark.parametrize('kind', ['set', 'add', 'mul', 'min', 'max'])
def test_update_at_a_traced_scalar_index_differentiates_in_both_arguments(kind, rng):
    """A traced scalar index is one index point, unique and sorted as JAX marks it: the
    scatter (scatter_mul too) differentiates in the operand and in the updates."""
    def loss(m):
        def f(x, u, i, j):
            return (m.sin(getattr(x.at[i, 1:3, j], kind)(u)) * x[j, i]).sum()
        return f

    x, u = rng.normal(size=X.shape), rng.normal(size=2)
    expected = jax.jit(jax.grad(loss(jnp), (0, 1)))(x, u, 2, -1)
    for got in _both_ways(minijax.grad(loss(mnp), (0, 1)), x, u, 2, -1):
        for g, e in zip(got, expected):
            assert_close(g, e)


@pytest.mark.parametrize('in_axes,x_shape,idx_shape', [
    ((0, None), (2, 3, 4), (2, 3)), ((None, 1), (3, 4), (3, 2)), ((2, 0), (3, 4, 2), (2, 3))],
    ids=str)
def test_vmap_of_at_add_with_repeated_indices(in_axes, x_shape, idx_shape, rng):
    idx = np.array([[0, 2, 0], [1, 1, 1]]).reshape(idx_shape)
    x = rng.normal(size=x_shape)

    def add(m):
        return lambda x, i: m.asarray(x).at[i].add(10.)

    expected = jax.vmap(add(jnp), in_axes)(x, idx)
    assert_close(minijax.vmap(add(mnp), in_axes)(x, idx), expected)
    assert_close(minijax.jit(minijax.vmap(add(mnp), in_axes))(x, idx), expected)


@pytest.mark.parametrize('call,error,message', [
    (lambda: mnp.asarray(X)[np.array([0.5])], TypeError, 'indices must be integers'),
    (lambda: mnp.asarray(X)[np.array([True])], IndexError, r'boolean index 0 has shape \(1,\)'),
    (lambda: mnp.take(X, np.array([1]), mode='raise'), NotImplementedError, "mode 'raise'"),
    (lambda: mnp.take(X, np.array([1]), mode='bogus'), ValueError, "mode 'bogus'"),
    (lambda: mnp.take_along_axis(X, np.array([1]), 0), ValueError, 'same rank'),
    (lambda: mnp.asarray(X)[0, 0, 0, np.array([0])], IndexError, 'too many indices'),
], ids=['float-index', 'bool-mask', 'take-raise', 'take-bogus', 'take_along_axis-rank',
        'too-many'])
def test_indexing_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


#: Indices int32 cannot hold, and small ones of narrow types (signed and unsigned).
_WIDE_INDICES = [np.int64(2**32 + 1), np.int64(-2**32 - 1), np.int64(2**31), np.uint32(2**32 - 1),
                 np.uint64(2**63), np.uint64(2**64 - 1), np.int8(-1), np.uint8(200), np.int64(-7)]
_WIDE_USES = {
    'vector': lambda x, i: x[2][i],
    'row': lambda x, i: x[i],
    'element': lambda x, i: x[i, 1],
    'diagonal': lambda x, i: x[i, i],
    'column-backward': lambda x, i: x[::-1, i],
    'with-none': lambda x, i: x[i, None, ::-1],
    'strided': lambda x, i: x[i, ::2],
    'clip-get': lambda x, i: x.at[i, 2].get(mode='clip'),
    'fill-get': lambda x, i: x.at[i].get(mode='fill', fill_value=-1.),
    'set': lambda x, i: x.at[i, 1].set(-5.),
    'clip-set': lambda x, i: x.at[1, i].set(-5., mode='clip'),
    'add-array': lambda x, i: x.at[np.array([0, 1]), i].add(1.),
}


@pytest.mark.parametrize('use', list(_WIDE_USES))
def test_indices_int32_cannot_hold_as_jax_takes_them(use):
    """JAX's conversions, on every path: a read of one scalar index per axis is a
    dynamic_slice (of a vector: clamped in the index's own dtype; of two axes or more: the
    starts converted to int32 together, wrapping); gathers and scatters count a signed index
    from the end, then wrap it to int32 (an unsigned one is never counted from the end).
    Static (concrete) and traced indices alike, eagerly and under jit."""
    f = _WIDE_USES[use]
    x = np.arange(12.).reshape(3, 4)
    for i in _WIDE_INDICES:
        for mine, theirs in [(f(mnp.asarray(x), i), f(jnp.asarray(x), i)),
                             (minijax.jit(f)(x, i), jax.jit(f)(x, i))]:
            assert np.asarray(mine).tolist() == np.asarray(theirs).tolist(), repr(i)
            assert_close(mine, theirs)


def test_a_traced_scalar_read_is_a_dynamic_slice_as_in_jax():
    text = minijax.jit(lambda x, i: x[i, 1:3]).lower(np.ones((3, 4)), np.int64(1)).as_text()
    assert 'stablehlo.dynamic_slice' in text and 'gather' not in text


@pytest.mark.parametrize('name', ['scatter_min', 'scatter_max'])
def test_complex_scatter_min_and_max_order_real_parts_first(name):
    """JAX's order (real parts, then imaginary; a NaN part loses every comparison), with
    repeated indices combining in turn (fuzz seed 71933)."""
    operand = np.array([1 + 1j, complex(np.nan, 0), 2 - 1j, complex(0, np.inf), 3], np.complex64)
    indices = np.array([[0], [1], [1], [3], [0], [2], [4]], np.int32)
    updates = np.array([1 - 1j, 5j, complex(0, np.nan), -1j, complex(1, np.nan),
                        complex(np.inf, 0), complex(3, -0.)], np.complex64)

    def scatter(lax):
        dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                            scatter_dims_to_operand_dims=(0,))
        return lambda o, i, u: getattr(lax, name)(o, i, u, dnums)
    expected = np.asarray(jax.jit(scatter(jax.lax))(operand, indices, updates))
    for got in _both_ways(scatter(mlax), operand, indices, updates):
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_a_gather_of_no_window_need_not_fit_the_operand():
    """With no index there is no window, so its sizes are not checked against an empty
    operand, as in JAX: take_along_axis of an empty batch, and the derivative of lu there
    (fuzz seed 82165)."""
    x, i = np.ones((0, 3, 1)), np.zeros((0, 3, 1), np.int32)
    for got in _both_ways(lambda x, i: mnp.take_along_axis(x, i, axis=1), x, i):
        assert np.shape(got) == (0, 3, 1)
    a = np.ones((0, 3, 2))
    expected = jax_answer(jax.grad(lambda a: jax.lax.linalg.lu(a)[0].sum()), a)
    for got in _both_ways(minijax.grad(lambda a: mlax.linalg.lu(a)[0].sum()), a):
        assert_close(got, expected)


NO_INDEX = np.array([], np.int32)
EMPTY_READS_AND_UPDATES = {
    'read': lambda np_: lambda x: np_.sum(np_.exp(x)[NO_INDEX]),
    'read-of-a-window': lambda np_: lambda x: np_.sum(np_.exp(x)[1:1, None][NO_INDEX]),
    'update': lambda np_: lambda x: np_.sum(np_.asarray(x).at[NO_INDEX].set(np_.exp(x[0]))),
    'static-update': lambda np_: lambda x: np_.sum(np_.asarray(x).at[1:1].add(np_.exp(x[0]))),
}


@pytest.mark.parametrize('name', EMPTY_READS_AND_UPDATES)
def test_an_empty_read_or_update_depends_on_nothing_as_in_jax(name):
    """As JAX, a read of no element is zeros and an update of none is ``x``, with no gather
    or scatter: no cotangent flows back, so an infinite derivative there (exp(1000)) does
    not turn the gradient into NaN (fuzz seed 120849)."""
    make = EMPTY_READS_AND_UPDATES[name]
    x = np.array([1000., 0.])
    np.testing.assert_array_equal(minijax.grad(make(mnp))(x), jax.grad(make(jnp))(x))
    np.testing.assert_array_equal(make(mnp)(x), make(jnp)(x))
