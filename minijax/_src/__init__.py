"""``jax._src``, JAX's private namespace: minijax keeps only what JAX's own tutorials import
from it (``jax._src.util.safe_map`` in "Writing custom Jaxpr interpreters"). Everything else
of JAX's internals has a minijax counterpart under its own name (``docs/architecture.md``)."""
