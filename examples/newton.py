"""Newton's method in a ``while_loop``: the derivative comes from ``grad``, the loop runs on
the device until the step is small, and the whole solver is one jitted function.

``python examples/newton.py`` solves x**3 - 2x - 5 = 0 (Wallis's equation) and computes
square roots.
"""
import numpy as np

import minijax
import minijax.numpy as mnp


def newton(f, x0, tolerance=1e-12, max_steps=50):
    """A root of ``f`` near ``x0``: x <- x - f(x) / f'(x) until the step is below tolerance."""
    df = minijax.grad(f)

    def keep_going(state):
        step, _, delta = state
        return mnp.where(step < max_steps, mnp.abs(delta) > tolerance, False)

    def improve(state):
        step, x, _ = state
        delta = f(x) / df(x)
        return step + 1, x - delta, delta

    steps, root, _ = minijax.while_loop(keep_going, improve, (0, x0, mnp.asarray(np.inf)))
    return root, steps


def wallis(x):
    return x ** 3 - 2. * x - 5.


@minijax.jit
def solve_wallis(x0):
    return newton(wallis, x0)


@minijax.jit
def square_root(a):
    """sqrt(a) as the positive root of x**2 - a, vectorized over a with vmap."""
    return minijax.vmap(lambda a: newton(lambda x: x * x - a, a + 1.)[0])(a)


def main(verbose=True):
    root, steps = solve_wallis(2.)
    roots = square_root(np.array([2., 9., 10.]))
    if verbose:
        print(f'x**3 - 2x - 5 = 0 at x = {float(root):.15f} ({int(steps)} steps)')
        print(f'sqrt([2, 9, 10]) = {np.asarray(roots)}')
    return float(root), np.asarray(roots)


if __name__ == '__main__':
    main()
