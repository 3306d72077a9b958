"""``jax.experimental``: ``io_callback``, a host callback with side effects and results
(``minijax.callback``); ``checkify``, a module every name of which is an error saying why
minijax does not have it (``from jax.experimental import checkify`` then succeeds, and the
first use of it names the reason and the alternatives)."""
import types

from minijax import unsupported
from minijax.callback import io_callback

__all__ = ['io_callback']

checkify = types.ModuleType('minijax.experimental.checkify', "``jax.experimental.checkify``: "
                            'not supported by minijax (see ``minijax.unsupported``).')
checkify.__getattr__ = unsupported.missing_name('jax.experimental.checkify')

__getattr__ = unsupported.missing_name('jax.experimental')
