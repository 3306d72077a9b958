"""``jax.extend``: the names a library building on minijax's internals uses (``core``)."""
from minijax.extend import core

__all__ = ['core']
