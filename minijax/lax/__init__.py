"""minijax.lax: the primitive operations, each defined once with all of its rules.

``elementwise`` holds the unary and binary arithmetic, comparisons and dtype conversion;
``structural`` broadcast and transpose; ``reductions`` reduce_sum.
"""
from minijax.lax.elementwise import (
    abs, abs_p, add, add_p, convert_element_type, convert_element_type_p, cos, cos_p, div, div_p,
    exp, exp_p, greater, greater_p, less, less_p, log, log_p, logistic, logistic_p, mul, mul_p,
    neg, neg_p, rsqrt, rsqrt_p, sign, sign_p, sin, sin_p, sqrt, sqrt_p, sub, sub_p, tanh, tanh_p)
from minijax.lax.reductions import reduce_sum, reduce_sum_p
from minijax.lax.structural import broadcast, broadcast_p, full, transpose, transpose_p
