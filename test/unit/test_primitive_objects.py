"""JAX's primitive objects (``jax.lax.sin_p``, ``jax.lax.linalg.qr_p``, ...) as minijax
exports them: each is a minijax ``Primitive`` with JAX's name and JAX's ``multiple_results``,
and has the rules every primitive needs (an abstract evaluation and a lowering), so a custom
interpreter written against JAX's objects reads minijax's jaxprs by the same names."""
import importlib

import pytest
from jax.extend.core import Primitive as JaxPrimitive

from minijax import core
from minijax.lowering import lowering_rules

NAMESPACES = ('jax.lax', 'jax.lax.linalg', 'jax.custom_derivatives', 'jax.extend.core')


def _primitive_names():
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        for name in sorted(dir(module)):
            if name.endswith('_p') and isinstance(getattr(module, name), JaxPrimitive) \
                    and hasattr(importlib.import_module('minijax' + namespace[3:]), name):
                yield namespace, name


ROWS = list(_primitive_names())


def _mine(namespace, name):
    return getattr(importlib.import_module('minijax' + namespace[len('jax'):]), name)


@pytest.mark.parametrize('namespace,name', ROWS, ids=[f'{ns}.{n}' for ns, n in ROWS])
def test_a_primitive_object_is_jaxs(namespace, name):
    theirs = getattr(importlib.import_module(namespace), name)
    mine = _mine(namespace, name)
    assert isinstance(mine, core.Primitive)
    assert (mine.name, mine.multiple_results) == (theirs.name, theirs.multiple_results)
    assert mine in core.abstract_eval_rules, f'{name} has no abstract evaluation'
    assert mine in lowering_rules, f'{name} has no lowering'
