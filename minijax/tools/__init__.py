"""The pieces of the ``minijax`` command (``minijax.cli``), one idea per module.

``errors``: the two kinds of error the command reports (usage, failure); ``specs``: argument
types and values written on the command line; ``targets``: finding the function or module to
work on; ``output``: writing results atomically; ``update_checks``: regenerating the CHECK lines
of a lit test.
"""
