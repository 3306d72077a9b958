"""Structured control flow: each construct a higher-order primitive whose branches or body
are jaxprs, with every transformation rule and a lowering to StableHLO regions."""
from minijax.control_flow.composite import composite, composite_p
from minijax.control_flow.cond import (cond, cond_p, platform_dependent, platform_index_p,
                                       switch)
from minijax.control_flow.fori_loop import fori_loop
from minijax.control_flow.linear_solve import custom_linear_solve, custom_root, linear_solve_p
from minijax.control_flow.scan import scan, scan_p
from minijax.control_flow.while_loop import while_loop, while_p

__all__ = ['composite', 'composite_p', 'cond', 'cond_p', 'custom_linear_solve', 'custom_root',
           'fori_loop', 'linear_solve_p', 'platform_dependent', 'platform_index_p', 'scan',
           'scan_p', 'switch', 'while_loop', 'while_p']
