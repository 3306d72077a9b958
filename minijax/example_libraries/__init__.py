"""JAX's example libraries, rebuilt over minijax: ``stax`` (layers as ``(init_fun, apply_fun)``
pairs) and ``optimizers`` (``(init_fun, update_fun, get_params)`` triples). Like JAX's, they are
plain Python over ``numpy``, ``lax``, ``nn`` and ``random``: a program using JAX's runs by
changing its imports."""
