"""``lax.fft`` and ``jnp.fft`` against JAX: values, derivatives (complex ones too), vmap, the
flop count against XLA's, and the errors for bad input.

``test_rules.py`` runs every rule of the ``fft`` primitive over its rows in the case table;
it differentiates float operands only, so the transposes of FFT, IFFT and IRFFT, whose
operands are complex, are checked here.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxlib.mlir.ir import MLIRError
from testlib import C128, F32, F64, assert_close, random_array

import minijax
import minijax.numpy as mnp
from minijax import lax

#: (kind, operand shape, operand dtype, fft_lengths): each kind over 1, 2 and 3 axes.
KINDS = [('fft', (2, 8), C128, (8,)), ('fft', (2, 3, 4), C128, (2, 3, 4)),
         ('ifft', (3, 5), C128, (5,)), ('ifft', (2, 3, 4), C128, (3, 4)),
         ('rfft', (2, 7), F64, (7,)), ('rfft', (2, 3, 6), F64, (2, 3, 6)),
         ('irfft', (2, 5), C128, (8,)), ('irfft', (2, 5), C128, (9,)),
         ('irfft', (2, 3, 4), C128, (3, 6))]
KIND_IDS = [f'{k}-{"x".join(map(str, s))}-{n[-1]}' for k, s, _, n in KINDS]


def _random(rng, shape, dtype):
    return random_array(rng, shape, dtype)


@pytest.mark.parametrize('kind,shape,dtype,lengths', KINDS, ids=KIND_IDS)
def test_vjp_and_jvp_of_each_kind_match_jax(kind, shape, dtype, lengths, rng):
    """The transposes (no conjugation, JAX's convention) and the linear JVPs."""
    x = _random(rng, shape, dtype)
    out = jax.eval_shape(lambda v: jax.lax.fft(v, kind, lengths), x)
    ct, tangent = _random(rng, out.shape, out.dtype), _random(rng, shape, dtype)
    theirs_out, theirs_vjp = jax.vjp(lambda v: jax.lax.fft(v, kind, lengths), x)
    mine_out, mine_vjp = minijax.vjp(lambda v: lax.fft(v, kind, lengths), x)
    assert_close(mine_out, theirs_out)
    assert_close(mine_vjp(ct)[0], theirs_vjp(ct)[0])
    assert_close(minijax.jvp(lambda v: lax.fft(v, kind, lengths), (x,), (tangent,))[1],
                 jax.jvp(lambda v: jax.lax.fft(v, kind, lengths), (x,), (tangent,))[1])


def test_vjp_of_an_irfft_to_no_points_is_zero():
    """No output, so no cotangent flows back (JAX 0.10.2's transpose divides by the zero
    number of points here: the independent answer is the zero derivative)."""
    x = np.ones((2, 1), C128)
    _, pullback = minijax.vjp(lambda v: lax.fft(v, 'irfft', (0,)), x)
    assert_close(pullback(np.zeros((2, 0)))[0], np.zeros((2, 1), C128))


#: (function, argument shape, dtype, keyword arguments)
JNP_CASES = [
    ('fft', (4, 6), C128, {}), ('fft', (4, 6), F64, {'n': 8, 'axis': 0}),
    ('fft', (4, 6), F32, {'norm': 'ortho'}), ('fft', (5,), np.dtype('int32'), {}),
    ('rfft', (5,), np.dtype('int64'), {}), ('irfft', (5,), np.dtype('bool'), {}),
    ('ifft', (4, 6), C128, {'n': 3, 'norm': 'forward'}),
    ('rfft', (4, 6), F64, {'axis': 0}), ('rfft', (4, 6), F32, {'n': 7, 'norm': 'ortho'}),
    ('irfft', (4, 6), C128, {}), ('irfft', (4, 6), C128, {'n': 9, 'axis': 0, 'norm': 'ortho'}),
    ('hfft', (4, 6), C128, {}), ('hfft', (4, 6), C128, {'n': 7, 'norm': 'forward'}),
    ('ihfft', (4, 6), F64, {}), ('ihfft', (4, 6), F64, {'n': 4, 'norm': 'ortho'}),
    ('fft2', (3, 4, 5), C128, {}), ('ifft2', (3, 4, 5), C128, {'s': (3, 7)}),
    ('rfft2', (3, 4, 5), F64, {'axes': (0, 2)}), ('irfft2', (3, 4, 5), C128, {'s': (5, 6)}),
    # a last axis of one frequency goes back to no points
    ('irfft', (3, 1), C128, {}), ('irfft2', (3, 1), C128, {}), ('hfft', (1,), C128, {}),
    ('fftn', (3, 4, 5), C128, {}), ('ifftn', (3, 4, 5), C128, {'axes': (2, 0)}),
    ('rfftn', (3, 4, 5), F64, {'s': (2, 4, 8)}), ('irfftn', (3, 4, 5), C128, {'norm': 'ortho'}),
    # more than the 3 axes XLA transforms at once: done in groups
    ('fftn', (2, 3, 2, 4, 3), C128, {}), ('rfftn', (2, 3, 2, 4, 3, 2), F64, {}),
    ('irfftn', (2, 3, 2, 4, 3), C128, {'norm': 'forward'}),
    ('ifftn', (2, 2, 2, 3, 2, 2, 2), C128, {}),
    ('fftshift', (4, 5), F64, {}), ('ifftshift', (4, 5), F64, {'axes': 1}),
    ('fftshift', (3, 4, 5), F64, {'axes': (0, 2)}),
]
JNP_IDS = [f'{f}-{"x".join(map(str, s))}-{i}' for i, (f, s, _, _) in enumerate(JNP_CASES)]


@pytest.mark.parametrize('name,shape,dtype,kwargs', JNP_CASES, ids=JNP_IDS)
def test_jnp_fft_matches_jax_eager_and_jitted(name, shape, dtype, kwargs, rng):
    x = _random(rng, shape, dtype)
    theirs = getattr(jnp.fft, name)(x, **kwargs)
    assert_close(getattr(mnp.fft, name)(x, **kwargs), theirs)
    assert_close(minijax.jit(lambda v: getattr(mnp.fft, name)(v, **kwargs))(x), theirs)


@pytest.mark.parametrize('name,args,kwargs', [
    ('fftfreq', (8,), {}), ('fftfreq', (7, 0.5), {}), ('fftfreq', (1,), {}),
    ('rfftfreq', (9, 2.), {'dtype': np.float32}), ('rfftfreq', (10,), {})], ids=str)
def test_frequencies_match_jax(name, args, kwargs):
    assert_close(getattr(mnp.fft, name)(*args, **kwargs), getattr(jnp.fft, name)(*args, **kwargs))


@pytest.mark.parametrize('name,dtype,kwargs', [
    ('fft', C128, {'norm': 'ortho'}), ('ifft', C128, {'n': 5}), ('rfft', F64, {'n': 9}),
    ('irfft', C128, {'n': 7}), ('hfft', C128, {}), ('ihfft', F64, {'norm': 'forward'}),
    ('rfftn', F64, {}), ('irfft2', C128, {'s': (4, 5)}), ('fftshift', F64, {})], ids=str)
def test_grad_through_jnp_fft_matches_jax(name, dtype, kwargs, rng):
    """A real loss of the transform, differentiated in its (real or complex) input."""
    x = _random(rng, (3, 6), dtype)

    def loss(np_, fft):
        def f(v):
            y = getattr(fft, name)(v, **kwargs)
            return np_.sum(np_.abs(y) ** 2) + np_.sum(np_.real(y * (1.5 - 0.5j)))
        return f
    assert_close(minijax.grad(loss(mnp, mnp.fft))(x), jax.jit(jax.grad(loss(jnp, jnp.fft)))(x))


def test_vmap_of_jnp_fft_matches_jax(rng):
    x = _random(rng, (4, 3, 6), C128)
    assert_close(minijax.vmap(lambda v: mnp.fft.fft2(v, s=(2, 8)), in_axes=2)(x),
                 jax.vmap(lambda v: jnp.fft.fft2(v, s=(2, 8)), in_axes=2)(x))
    assert_close(minijax.vmap(mnp.fft.irfft, in_axes=1, out_axes=1)(x),
                 jax.vmap(jnp.fft.irfft, in_axes=1, out_axes=1)(x))


#: Small (operand shape, fft_lengths), none to 4 points, zero-size ones among them.
SMALL = [((2, m), (n,)) for n in range(5) for m in range(5)] + [
    ((0, 2), (0, 2)), ((2, 1), (2, 0)), ((0, 1), (0, 0)), ((0, 0), (0, 0)), ((0, 2), (0, 3))]


def _outcome(f):
    """The result, or the type of the error (the StableHLO verifier's ``MLIRError``, which
    JAX raises for some sizes its own checks let through, counts as a ``ValueError``)."""
    try:
        return np.asarray(f())
    except MLIRError:
        return ValueError
    except (ValueError, TypeError) as err:
        return type(err)


@pytest.mark.parametrize('kind', ['FFT', 'IFFT', 'RFFT', 'IRFFT'])
def test_size_rules_of_each_kind_match_jax_for_small_sizes(kind, rng):
    """Every small size JAX transforms gives JAX's values (eager and jitted), every one
    it refuses is refused with its exception type."""
    for shape, lengths in SMALL:
        x = _random(rng, shape, F64 if kind == 'RFFT' else C128)
        theirs = _outcome(lambda: jax.lax.fft(x, kind, lengths))
        for mine in (_outcome(lambda: lax.fft(x, kind, lengths)),
                     _outcome(lambda: minijax.jit(lambda v: lax.fft(v, kind, lengths))(x))):
            if isinstance(theirs, type):
                assert mine is theirs, (shape, lengths, mine)
            else:
                assert_close(mine, theirs)


@pytest.mark.parametrize('kind,shape,dtype,lengths', KINDS, ids=KIND_IDS)
def test_flops_match_xla_cost_analysis(kind, shape, dtype, lengths):
    f = lambda v: lax.fft(v, kind, lengths)  # noqa: E731
    x = np.zeros(shape, dtype)
    assert minijax.flops(f)(x) == minijax.jit(f).lower(x).compile().cost_analysis()['flops']


def test_jnp_fft_stages_lax_fft_as_a_nested_jit_named_fft():
    """As JAX stages it: ``jit(f).lower(x).as_text()`` has a ``func.func private @fft``."""
    text = minijax.jit(mnp.fft.rfft).lower(np.ones(8)).as_text()
    assert 'call @fft(' in text and 'func.func private @fft(' in text


@pytest.mark.parametrize('thunk,error,message', [
    (lambda: mnp.fft.fft(np.ones(4), norm='bad'), ValueError, 'norm must be "backward"'),
    (lambda: mnp.fft.fftn(np.ones((2, 3)), axes=(0, -2)), ValueError, 'repeat an axis'),
    (lambda: mnp.fft.fft(np.ones((2, 3)), axis=2), ValueError, 'axis 2 is out of bounds'),
    (lambda: mnp.fft.fft(np.ones(4), axis=(0,)), ValueError, 'one axis.*use jnp.fft.fftn'),
    (lambda: mnp.fft.fft2(np.ones((2, 3)), axes=(0,)), ValueError, 'two axes'),
    (lambda: mnp.fft.fft(np.ones(4), n=0), ValueError, 'n must be positive, got 0'),
    (lambda: mnp.fft.ifftn(np.ones((2, 3)), s=(2, 0)), ValueError, r'lengths s=\(2, 0\)'),
    (lambda: mnp.fft.fftn(np.ones((2, 3)), s=(2,), axes=(0, 1)), ValueError,
     'different lengths'),
    (lambda: mnp.fft.rfft(np.ones(4) + 1j), ValueError, 'RFFT takes real input'),
    (lambda: mnp.fft.fft([1., 2.]), TypeError, 'requires ndarray or scalar arguments'),
    (lambda: mnp.fft.fftfreq([4]), ValueError, 'n must be an int'),
    (lambda: lax.fft(np.ones(4), 'dct', (4,)), ValueError, "unknown FFT type 'dct'"),
    (lambda: lax.fft(np.ones((2, 4)) + 0j, 'fft', (3,)), ValueError,
     r"last axes to have sizes \(3,\), got complex128\[2,4\]"),
    (lambda: lax.fft(np.ones((2, 4)) + 0j, 'irfft', (4,)), ValueError,
     r"last axes to have sizes \(3,\)"),
    (lambda: lax.fft(np.ones((1, 1, 2, 2)) + 0j, 'fft', (1, 1, 2, 2)), ValueError,
     '1 to 3 axes'),
    (lambda: lax.fft(np.ones(4) + 0j, 'fft', (2, 4)), ValueError, 'more entries than'),
    (lambda: lax.fft(np.ones(4, np.float16), 'rfft', (4,)), ValueError,
     'RFFT takes a float32 or float64 operand, got float16'),
], ids=lambda v: v if isinstance(v, str) else '')
def test_bad_input_names_the_problem(thunk, error, message):
    with pytest.raises(error, match=message):
        thunk()
    with pytest.raises(error, match=message):  # at trace time too
        minijax.jit(lambda: thunk())()
