"""The course kit: every rule of every built-in primitive as an assignment.

``tasks`` names them (``jvp:tanh``), ``handout`` writes a student copy of the project with
chosen rules replaced by stubs, ``grade`` runs exactly the tests of a task against a copy and
scores it. ``minijax course ...`` is their command line; docs/teaching.md, their guide.
"""
