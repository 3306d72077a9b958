"""``jax.experimental``: ``io_callback``, a host callback with side effects and results
(``minijax.callback``)."""
from minijax.unsupported import missing_name
from minijax.callback import io_callback

__all__ = ['io_callback']

__getattr__ = missing_name('jax.experimental')
