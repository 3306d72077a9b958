"""Fixtures shared by minijax's unit tests.

JAX is the oracle (test-only): every number minijax computes is compared against JAX, finite
differences or a value printed in the Autodidax seed, never against minijax itself. The
helpers live in ``testlib`` and the primitive case table in ``primitive_cases``.
"""
import zlib

import numpy as np
import pytest


def _seeded_by_test_id(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def rng(request):
    """A random generator seeded from the test's name: reproducible, different per test."""
    return _seeded_by_test_id(request)


@pytest.fixture(autouse=True)
def _reseed_module_rng(request):
    """A test module whose input makers draw from a module-level ``rng`` gets it reseeded
    from the test's id before each test, so a test sees the same inputs whichever tests ran
    before it (``-k``, ``-n``)."""
    if isinstance(getattr(request.module, 'rng', None), np.random.Generator):
        request.module.rng = _seeded_by_test_id(request)
