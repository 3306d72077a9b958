"""JAX's names for types: the typing aliases JAX programs annotate with and the records
(named tuples) they build, each as JAX 0.10.2 defines it, compared by structure (an alias's
repr without module paths, a record's fields)."""
import importlib
import re

import pytest

ALIASES = [('jax.lax', 'DotDimensionNumbers'), ('jax.lax', 'PrecisionLike'),
           ('jax.lax', 'ConvGeneralDilatedDimensionNumbers'), ('jax.tree_util', 'KeyPath'),
           ('jax.tree_util', 'KeyEntry'), ('jax.stages', 'CompilerOptions'),
           *(('jax.example_libraries.optimizers', name) for name in
             ('InitFn', 'UpdateFn', 'ParamsFn', 'Schedule', 'Updates'))]
RECORDS = [('jax.ad_checkpoint', 'Offloadable'), ('jax.example_libraries.optimizers', 'Optimizer'),
           ('jax.example_libraries.optimizers', 'OptimizerState'),
           ('jax.lax', 'ConvDimensionNumbers')]


def _both(namespace, name):
    return [getattr(importlib.import_module(prefix + namespace[len('jax'):]), name)
            for prefix in ('minijax', 'jax')]


def _structure(alias):
    """An alias's repr with each name's module path dropped: ``Union[str, Precision]``."""
    return re.sub(r'\b(?:[a-z_]\w*\.)+(?=[A-Za-z_])', '', repr(alias))


@pytest.mark.parametrize('namespace,name', ALIASES, ids=[n for _, n in ALIASES])
def test_typing_alias_is_jaxs(namespace, name):
    mine, theirs = _both(namespace, name)
    assert _structure(mine) == _structure(theirs)


@pytest.mark.parametrize('namespace,name', RECORDS, ids=[n for _, n in RECORDS])
def test_record_has_jaxs_fields(namespace, name):
    mine, theirs = _both(namespace, name)
    assert mine._fields == theirs._fields
    assert repr(mine(*range(len(mine._fields)))).replace('minijax', 'jax') == repr(
        theirs(*range(len(theirs._fields))))
