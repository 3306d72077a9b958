"""The multiply_add walkthrough (seeds/002): a user primitive gains one rule at a time, and
each missing rule is a NotImplementedError that names the rule and the primitive."""
import importlib.util
import pathlib

import numpy as np
import pytest

import minijax
from minijax import core
from minijax.lowering import register_lowering

EXAMPLE = pathlib.Path(__file__).parents[2] / 'examples' / 'multiply_add.py'
spec = importlib.util.spec_from_file_location('multiply_add_example', EXAMPLE)
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
square_add = example.square_add
xs, ys = np.array([2., 3.]), np.array([10., 20.])


def test_the_seed_values():
    assert square_add(2., 10.) == 14.
    assert minijax.jit(square_add)(2., 10.) == 14.
    assert minijax.jvp(square_add, (2., 10.), (1., 1.)) == (14., 5.)
    assert minijax.jit(lambda p, t: minijax.jvp(square_add, p, t))((2., 10.), (1., 1.)) \
        == (14., 5.)
    assert minijax.grad(square_add)(2., 10.) == 4.
    assert minijax.jit(minijax.grad(square_add))(2., 10.) == 4.
    np.testing.assert_allclose(minijax.vmap(square_add)(xs, ys), [14., 29.])
    np.testing.assert_allclose(minijax.jit(minijax.vmap(square_add))(xs, ys), [14., 29.])
    np.testing.assert_allclose(minijax.vmap(square_add, (0, None))(xs, 1.), [5., 10.])


def test_the_lowering_is_the_user_rule():
    text = minijax.jit(square_add).lower(2., 10.).as_text()
    assert 'stablehlo.multiply %arg0, %arg0' in text and 'stablehlo.add' in text


def fresh_primitive(*rules):
    """multiply_add again, with only the named rules."""
    p = minijax.Primitive('multiply_add')
    source = example.multiply_add_p
    for rule in rules:
        if rule == 'lowering':
            register_lowering(p, example.multiply_add_lowering)
        elif rule == 'jvp':  # the example's rule binds the example's primitive: bind p instead
            p.def_jvp(lambda primals, tangents: (
                p.bind(*primals),
                p.bind(tangents[0], primals[1], p.bind(primals[0], *tangents[1:]))))
        else:
            table = core.rule_tables[rule]
            table[p] = table[source]
    return lambda a, b: p.bind(a, a, b)


@pytest.mark.parametrize('present,call,missing', [
    ([], lambda f: f(2., 10.), 'impl'),
    (['impl'], lambda f: minijax.jit(f)(2., 10.), 'abstract_eval'),
    (['impl', 'abstract_eval'], lambda f: minijax.jit(f)(2., 10.), 'lowering'),
    (['impl', 'abstract_eval', 'lowering'], lambda f: minijax.jvp(f, (2., 10.), (1., 1.)),
     'jvp'),
    (['impl', 'abstract_eval', 'lowering', 'jvp'], lambda f: minijax.grad(f)(2., 10.),
     'transpose'),
    (['impl', 'abstract_eval', 'lowering'], lambda f: minijax.vmap(f)(xs, ys), 'vmap'),
])
def test_each_missing_rule_is_named(present, call, missing):
    with pytest.raises(NotImplementedError, match=f"'multiply_add' has no {missing} rule"):
        call(fresh_primitive(*present))
