"""Complex numbers against JAX: dtypes and promotion, jnp's complex functions eagerly and under
jit, gradients with JAX's convention (grad of a real function of complex z is the VJP with
cotangent 1: df/dx - i df/dy), holomorphic=True, and JAX's errors. The per-primitive rules
(real, imag, conj, complex, and the elementwise ops on complex operands) are in test_rules."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close

import minijax
import minijax.numpy as mnp
from minijax import lax as mlax

Z = np.array([1 + 2j, -0.5 + 0.3j, 2 - 1j])


def _program(np_):
    """A real-valued function of complex z through every complex-aware operation."""
    def f(z):
        w = np_.exp(z) * np_.sin(z) / (z + 2.) + np_.sqrt(z) + z ** 3 + np_.conj(z) * 2j
        return np_.sum(np_.abs(w) ** 2 + np_.real(w) * np_.imag(w)) + np_.real(np_.dot(w, z))
    return f


def _values_and_derivatives(j, np_):
    """f, its gradient and holomorphic Jacobians, in one jit (one compile)."""
    f = _program(np_)

    def g(z):
        return np_.log(z) * z + np_.tanh(z) ** 2

    return j.jit(lambda z: (f(z), j.grad(f)(z), j.jacfwd(g, holomorphic=True)(z),
                            j.jacrev(g, holomorphic=True)(z)))


def test_values_and_derivatives_match_jax():
    for mine, theirs in zip(_values_and_derivatives(minijax, mnp)(Z),
                            _values_and_derivatives(jax, jnp)(Z)):
        assert_close(mine, theirs)


def test_cookbook_examples_match_jax():
    """The autodiff cookbook's complex examples, printed as JAX prints them (their repr:
    a gradient at a Python complex is strongly typed, for real and imag transpose to a
    complex of strong zeros)."""
    def f(np_):
        return lambda z: np_.real(z) ** 2 + np_.imag(z) ** 2

    z = 3. + 4j
    for mine, theirs in [(minijax.grad(f(mnp))(z), jax.grad(f(jnp))(z)),
                         (minijax.grad(lambda z: mnp.abs(z) ** 2)(z),
                          jax.grad(lambda z: jnp.abs(z) ** 2)(z)),
                         (minijax.grad(mnp.sin, holomorphic=True)(z),
                          jax.grad(jnp.sin, holomorphic=True)(z)),
                         (minijax.grad(mnp.imag)(z), jax.grad(jnp.imag)(z)),
                         (minijax.grad(lambda z: mnp.real(z * z))(z),
                          jax.grad(lambda z: jnp.real(z * z))(z))]:
        assert repr(mine) == repr(theirs)
        assert_close(mine, theirs)


def test_dtypes_promotion_and_printing_match_jax():
    cases = [lambda np_: np_.float32(2) * 1j, lambda np_: np_.complex64(1 + 2j) * 2,
             lambda np_: np_.array([1, 2], np_.int32) + 1j,
             lambda np_: np_.complex64(1j) + np_.float64(1.),
             lambda np_: np_.array([1 + 2j, 3.]).real, lambda np_: np_.array([1 + 2j, 3.]).imag,
             lambda np_: np_.array([1 - 2j]).conj(), lambda np_: np_.abs(np_.complex64(3 + 4j)),
             lambda np_: np_.isreal(np_.array([1j, 2.])), lambda np_: np_.iscomplex(np_.array([1j, 2.])),
             lambda np_: np_.angle(np_.array([-1., 1j])),
             lambda np_: np_.conj(np_.float32(2.)), lambda np_: np_.real(3),
             lambda np_: np_.array([1 + 2j, 3j]) == np_.array([1 + 2j, 3.]),
             # infinite parts stay where they are put (``1j * inf`` would be ``nan + inf j``)
             lambda np_: jax.lax.complex(np_.array([-np.inf, 1.]), np_.array([np.inf, -np.inf]))
             if np_ is jnp else mlax.complex(np_.array([-np.inf, 1.]),
                                             np_.array([np.inf, -np.inf]))]
    for case in cases:
        mine, theirs = case(mnp), case(jnp)
        assert (repr(mine), str(mine)) == (repr(theirs), str(theirs))
    assert mnp.result_type(mnp.float32, 1j) == jnp.result_type(jnp.float32, 1j)
    assert mnp.iscomplexobj([1j]) and not mnp.iscomplexobj(np.ones(2))
    assert (str(minijax.make_jaxpr(lambda z: mlax.conj(z) * (1 + 2j))(1j))
            == str(jax.make_jaxpr(lambda z: jax.lax.conj(z) * (1 + 2j))(1j)))


@pytest.mark.parametrize('call,message', [
    (lambda j: j.grad(lambda z: z * z)(1j), 'grad requires real-valued outputs'),
    (lambda j: j.grad(lambda z: z * z, holomorphic=True)(1.),
     'grad with holomorphic=True requires inputs with complex dtype, but got float64.'),
    (lambda j: j.grad(lambda z: j.numpy.abs(z), holomorphic=True)(1j),
     'grad with holomorphic=True requires outputs with complex dtype, but got float64.'),
    (lambda j: j.jacfwd(lambda z: z * z)(1j), 'jacfwd requires real-valued inputs'),
    (lambda j: j.jacrev(lambda z: z * z)(1j), 'jacrev requires real-valued outputs'),
    (lambda j: j.lax.lt(np.array(1j), np.array(2j)), 'complex128'),
    (lambda j: j.lax.real(1.), 'real does not accept dtype float64. Accepted dtypes are '
                               'subtypes of complexfloating.'),
    (lambda j: j.lax.complex(np.array(1j), np.array(2.)),
     'complex does not accept dtype complex128 at position 0'),
], ids=['grad-complex-out', 'holomorphic-real-in', 'holomorphic-real-out', 'jacfwd-complex-in',
        'jacrev-complex-out', 'less', 'real', 'complex'])
def test_errors_match_jax(call, message):
    """A TypeError as JAX raises it (the same text, but for the names of primitives)."""
    with pytest.raises(TypeError) as theirs:
        call(jax)
    with pytest.raises(TypeError) as mine:
        call(minijax)
    assert message in str(theirs.value)
    assert message in str(mine.value)


_EDGES = np.array([2 + 0j, complex(-0., 0.), complex(0., -0.), complex(-0., -0.),
                   complex(-np.inf, -0.), complex(-np.inf, 0.),
                   complex(0, np.inf), complex(0, -np.inf), complex(1, np.inf),
                   complex(np.inf, 1), complex(np.inf, np.inf), complex(np.nan, 0),
                   complex(0, np.nan), complex(np.inf, np.nan), complex(np.nan, -np.inf),
                   1e-8 + 1e-9j, 3e-39 + 4e-39j, 3 - 700j, 1e308 + 1e308j, -2 + 5j])


def _same_bits(mine, theirs):
    """Equal parts, signed zeros included (NaN equals NaN)."""
    mine, theirs = (np.asarray(v).view(np.asarray(theirs).real.dtype) for v in (mine, theirs))
    assert ((mine == theirs) & (np.signbit(mine) == np.signbit(theirs))
            | np.isnan(mine) & np.isnan(theirs)).all(), (mine, theirs)


@pytest.mark.parametrize('dtype', [np.complex64, np.complex128])
@pytest.mark.parametrize('name', ['sin', 'cos', 'sign', 'sqrt', 'abs'])
def test_complex_functions_at_zeros_and_infinities_are_jaxs_bits(name, dtype):
    """sin and cos by JAX's formula (not XLA's sine and cosine: sin(inf j) is inf j, not
    nan + inf j; cos(2+0j) has imaginary part -0.), sign by parts (sign(inf + 1j) is NaN),
    sqrt, abs and sign as XLA computes them (sqrt(-inf-0j) is inf j, NumPy's -inf j; abs(inf
    + nan j) is NaN, NumPy's inf; a subnormal complex64 has magnitude 0 and is its own
    sign), eagerly and under jit (fuzz seed 140811)."""
    z = _EDGES.astype(dtype)
    theirs = jax.jit(getattr(jax.lax, name))(z)
    _same_bits(getattr(mlax, name)(z), theirs)
    _same_bits(minijax.jit(getattr(mlax, name))(z), theirs)


@pytest.mark.parametrize('computation', ['max', 'min'])
def test_complex_window_max_and_min_order_real_parts_first(computation):
    """The identity is -inf (inf) + 0j and the order JAX's: real parts, then imaginary."""
    z = np.array([1 - 8j, 3 + np.inf * 1j, 3 - 4j, complex(np.nan, 1), 5, 5 - 1j])
    init = (-np.inf if computation == 'max' else np.inf) + 0j

    def window(ns):
        return lambda z: ns.lax.reduce_window(z, init, getattr(ns.lax, computation), (3,),
                                              (1,), 'SAME')
    theirs = jax.jit(window(jax))(z)
    _same_bits(window(minijax)(z), theirs)
    _same_bits(minijax.jit(window(minijax))(z), theirs)


@pytest.mark.parametrize('reverse', [False, True])
@pytest.mark.parametrize('name', ['cummax', 'cummin'])
def test_complex_running_max_and_min_meet_nans_in_xlas_order(name, reverse):
    """A NaN loses a complex comparison, so which one wins depends on the order XLA
    compares in: eager runs on XLA for complex operands (fuzz seed 70252)."""
    z = np.array([[0.5 + 1j, complex(np.nan, 0), -2 + 3j, 1 - 1j],
                  [complex(0, np.nan), 3j, complex(np.nan, np.nan), -1j]], np.complex64)
    theirs = jax.jit(lambda z: getattr(jax.lax, name)(z, axis=1, reverse=reverse))(z)
    _same_bits(getattr(mlax, name)(z, axis=1, reverse=reverse), theirs)


def test_complex_sort_orders_each_part_with_nans_last():
    """Real parts first, then imaginary parts, each with NaN last (JAX's comparator), where
    NumPy puts every number with a NaN part last (fuzz seed 100230)."""
    z = np.array([3j, 1 + 1j, complex(0, np.nan), -1 - 1j, complex(np.nan, 0), 2,
                  complex(np.nan, -1)], np.complex64)
    theirs = jax.jit(lambda z: jax.lax.sort(z))(z)
    _same_bits(mlax.sort(z), theirs)
    _same_bits(minijax.jit(mlax.sort)(z), theirs)


#: Functions that order or compare complex operands, or refuse them, each of (numpy, a, b).
_ORDERED = {
    'less': lambda np_, a, b: np_.less(a, b), 'less_equal': lambda np_, a, b: a <= b,
    'greater': lambda np_, a, b: np_.greater(a, b), 'greater_equal': lambda np_, a, b: a >= b,
    'less, Python scalar': lambda np_, a, b: np_.less(a, 1 + 1j),
    'greater, real array': lambda np_, a, b: np_.greater(np_.real(a), b),
    'fmax': lambda np_, a, b: np_.fmax(a, b), 'fmin': lambda np_, a, b: np_.fmin(a, b),
    'heaviside': lambda np_, a, b: np_.heaviside(a, 1.),
    'hypot': lambda np_, a, b: np_.hypot(a, 2.),
    'ldexp of complex': lambda np_, a, b: np_.ldexp(a, 2),
    'ldexp by a float': lambda np_, a, b: np_.ldexp(np_.real(a), 2.5),
    'ldexp by a bool': lambda np_, a, b: np_.ldexp(np_.real(a), True),
}


def _ordered(np_, name):
    a = np_.asarray(np.array([1 + 2j, 1 + 1j, 0 + 5j, 2 - 1j, np.nan + 0j, 1 + 1j]))
    b = np_.asarray(np.array([1 + 1j, 1 + 2j, 1 + 0j, 2 - 1j, 1 + 1j, np.nan + 1j]))
    try:
        out = _ORDERED[name](np_, a, b)
    except Exception as err:  # noqa: BLE001  (the type is compared)
        return type(err).__name__
    return str(np.asarray(out).dtype), np.asarray(out).tolist()


@pytest.mark.parametrize('name', _ORDERED)
def test_complex_operands_are_ordered_or_refused_as_in_jax(name):
    """jnp orders complex numbers by real part, then imaginary part, in its comparisons and
    what is built on them (fmax, fmin), as JAX does (lax refuses them); heaviside, hypot
    and ldexp refuse them with JAX's exception types (and ldexp a float exponent)."""
    assert repr(_ordered(mnp, name)) == repr(_ordered(jnp, name))


_WEAK_COMPLEX = {
    'asarray': lambda np_: np_.asarray(1 + 2j), 'array': lambda np_: np_.array(-1j),
    'float16 ** complex': lambda np_: np_.power(np_.ones(3, np_.float16), 1 + 2j),
    'int8 ** complex': lambda np_: np_.power(np_.ones(3, np_.int8), 1 + 2j),
    'dot of int8 and complex': lambda np_: np_.dot(np_.ones(3, np_.int8), 2j),
    'asarray(complex) * float32': lambda np_: np_.asarray(1j) * np_.ones(2, np_.float32),
}


@pytest.mark.parametrize('name', _WEAK_COMPLEX)
def test_a_python_complex_is_weakly_typed_as_in_jax(name):
    """``jnp.asarray(1 + 2j)`` is weakly typed, as a Python int or float is, so it meets a
    float32 array as complex64 (it was a strong complex128)."""
    ours, theirs = _WEAK_COMPLEX[name](mnp), _WEAK_COMPLEX[name](jnp)
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)
