"""Structured control flow: each construct a higher-order primitive whose branches or body
are jaxprs, with every transformation rule and a lowering to StableHLO regions."""
from minijax.control_flow.cond import cond, cond_p, switch
from minijax.control_flow.fori_loop import fori_loop
from minijax.control_flow.scan import scan, scan_p
from minijax.control_flow.while_loop import while_loop, while_p

__all__ = ['cond', 'cond_p', 'fori_loop', 'scan', 'scan_p', 'switch', 'while_loop', 'while_p']
