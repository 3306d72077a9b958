"""``python -m minijax``: the ``minijax`` command (see ``minijax.cli``)."""
import sys

from minijax.cli import main

sys.exit(main())
