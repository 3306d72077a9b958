"""``jax.experimental``: ``io_callback``, a host callback with side effects and results
(``minijax.callback``)."""
from minijax.callback import io_callback

__all__ = ['io_callback']
