"""Rule mutation testing: does a wrong rule make a test fail, and does that test name it?

Each mutant is one cell of the rule matrix (a primitive and a rule kind: jvp, vmap,
transpose, lowering, ...) and one way to get it wrong: delete the rule from its table, or
replace it with a subtly wrong one (a wrong sign, batch axis, dtype or op, a permutation
that is not its own inverse, a dropped weak type, a while loop run as a do-while, ...).

Two roles in one file:

* a pytest plugin (``PYTHONPATH=bench pytest -p mutants``): with ``MINIJAX_MUTANT=<name>``
  set it plants that mutant at ``pytest_configure`` (so in xdist workers too) and runs the
  tests whose id names the mutated cell first, so ``-x`` stops at the most telling failure;
* a driver (``python bench/mutants.py [--only NAME ...] [--jobs N]``): runs the unit suite
  once per mutant with ``-x`` and a timeout (a hang inside XLA counts as caught, by timeout,
  and the test that hung is reported), then prints one row per mutant: caught?, the first
  failing test, and whether its id names the primitive and the rule kind
  (``test_jvp[sin-f64]`` names (sin, jvp)).

Not collected by pytest (``testpaths`` is ``test/unit``).
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANT_ENV, PROGRESS_ENV = 'MINIJAX_MUTANT', 'MINIJAX_MUTANT_PROGRESS'

# ----------------------------------------------------------------------------- rule tables


def _primitives() -> dict:
    """Every built-in primitive by name (imports minijax and its control flow)."""
    import minijax  # noqa: F401  (defines the primitives and fills the tables)
    from minijax.core import Primitive
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith('minijax.') and module is not None:
            found.update((v.name, v) for v in vars(module).values() if isinstance(v, Primitive))
    return found


def rule_table(prim, kind):
    """The table that holds ``prim``'s rule of ``kind`` (a jvp rule lives in one of two)."""
    from minijax import core
    if kind == 'jvp' and prim not in core.rule_tables['jvp']:
        return core.rule_tables['symbolic_zero_jvp']
    return core.rule_tables[kind]


def rule_of(prim_name, kind):
    prim = _primitives()[prim_name]
    return rule_table(prim, kind)[prim]


# ----------------------------------------------------------------------------- mistakes
# Each maker takes the correct rule and returns the mutated one; DELETE removes the rule.

DELETE = None


def negate_tangent(rule):
    """jvp: the tangent output with the wrong sign."""
    def mutated(primals, tangents, **params):
        from minijax import lax
        out, tangent = rule(primals, tangents, **params)
        return out, lax.neg(_instantiate(tangent))
    return mutated


def negate_cotangent(index):
    """transpose: operand ``index``'s cotangent with the wrong sign."""
    def make(rule):
        def mutated(ct, *args, **params):
            from minijax import lax
            cts = list(rule(ct, *args, **params))
            cts[index] = lax.neg(cts[index])
            return cts
        return mutated
    return make


def shift_batch_dim(rule):
    """vmap: claim the batch axis is the next axis (wrong whenever the result has two)."""
    def mutated(vals, dims, **params):
        from minijax import core
        out, dim = rule(vals, dims, **params)
        ndim = core.get_aval(out).ndim
        return out, (dim + 1) % ndim if isinstance(dim, int) and ndim > 1 else dim
    return mutated


def drop_weak_type(rule):
    """abstract_eval: the output is never weakly typed (a Python scalar's type leaks)."""
    def mutated(*avals, **params):
        out = rule(*avals, **params)
        return out.update(weak_type=False)
    return mutated


def output_dtype_of_operand(rule):
    """abstract_eval: the output has the first operand's dtype (wrong for a comparison)."""
    def mutated(*avals, **params):
        out = rule(*avals, **params)
        return out.update(dtype=avals[0].dtype)
    return mutated


def double_result(rule):
    """flops: count every operation twice."""
    return lambda *args, **params: 2 * rule(*args, **params)


def replaced_by(make_rule):
    """Ignore the correct rule: use ``make_rule()`` (built when the mutant is planted)."""
    return lambda rule: make_rule()


def patched_during(module_name, name, make_value):
    """Run the rule with ``module.name`` replaced by ``make_value(original)``: plants a
    mistake in a helper the rule uses, for this rule only."""
    def make(rule):
        module = importlib.import_module(module_name)
        getattr(module, name)  # planting fails now if the helper has moved

        def mutated(*args, **params):
            original = getattr(module, name)
            setattr(module, name, make_value(original))
            try:
                return rule(*args, **params)
            finally:
                setattr(module, name, original)
        return mutated
    return make


class _Overridden(types.SimpleNamespace):
    """A module with some attributes replaced (so one rule sees a wrong ``lax.select_n``)."""

    def __init__(self, module, **overrides):
        super().__init__(**overrides)
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)


def _instantiate(t):
    from minijax.interpreters import jvp as ad
    return ad.instantiate(t)


# ----------------------------------------------------------------------------- wrong rules

def _sub_transpose_unsigned():
    """sub's transpose with ``-y`` forgotten (wrong sign on the second operand)."""
    return negate_cotangent(1)(rule_of('sub', 'transpose'))


def _convert_transpose_keeps_dtype():
    return lambda ct, x, *, new_dtype: [ct]


def _transpose_transpose_not_inverted():
    from minijax import lax
    return lambda ct, x, *, perm: [lax.transpose(ct, perm)]


def _dot_general_permutation_not_inverted(original_transpose):
    """dot_general's transpose puts the cotangent's axes back with the permutation itself,
    not its inverse (the same when the permutation is its own inverse)."""
    import numpy as np
    return lambda x, perm: original_transpose(x, np.argsort(perm))


def _pow_jvp_unguarded():
    """pow's jvp with d/dy = log(x) x**y even at x == 0 (JAX takes 0 there)."""
    from minijax import lax
    from minijax.interpreters import jvp as ad
    from minijax.lax import elementwise

    def rule(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        terms = []
        if not isinstance(tx, ad.Zero):
            terms.append(elementwise._pow_jvp_base(tx, x, y))
        if not isinstance(ty, ad.Zero):
            terms.append(lax.mul(ty, lax.mul(lax.log(x), lax.pow(x, y))))
        return lax.pow(x, y), terms[0] if len(terms) == 1 else lax.add(*terms)
    return rule


def _mul_jvp_one_term():
    from minijax import lax

    def rule(primals, tangents):
        (x, y), (tx, _) = primals, tangents
        return lax.mul(x, y), lax.mul(_instantiate(tx), y)
    return rule


def _div_jvp_wrong_sign():
    from minijax import lax

    def rule(primals, tangents):
        (x, y), (tx, ty) = primals, [_instantiate(t) for t in tangents]
        return lax.div(x, y), lax.add(lax.div(tx, y), lax.div(lax.mul(ty, x), lax.mul(y, y)))
    return rule


def _max_jvp_ties_to_x():
    """max's jvp sending a tie's whole tangent through x (JAX splits it in halves)."""
    from minijax import lax

    def rule(primals, tangents):
        (x, y), (tx, ty) = primals, [_instantiate(t) for t in tangents]
        return lax.max(x, y), lax.select_n(lax.ge(x, y), ty, tx)
    return rule


def _abs_jvp_no_sign():
    from minijax import lax
    return lambda primals, tangents: (lax.abs(primals[0]), tangents[0])


def _integer_pow_jvp_off_by_one():
    from minijax import lax

    def rule(primals, tangents, *, y):
        (x,), (t,) = primals, tangents
        return lax.integer_pow(x, y), lax.mul(t, lax.mul(float(y), lax.integer_pow(x, y)))
    return rule


def _select_n_transpose_swapped(rule):
    def mutated(ct, which, *cases):
        which_ct, *case_cts = rule(ct, which, *cases)
        return [which_ct, *reversed(case_cts)]
    return mutated


def _select_n_lowering_swapped(rule):
    return lambda ctx, which, *cases: rule(ctx, which, *reversed(cases))


def _tanh_lowering_is_sine():
    from jaxlib.mlir.dialects import stablehlo as hlo
    return lambda ctx, x: hlo.SineOp(x).result


def _sqrt_lowering_is_rsqrt():
    from jaxlib.mlir.dialects import stablehlo as hlo
    return lambda ctx, x: hlo.RsqrtOp(x).result


def _argmax_impl_is_argmin():
    return rule_of('argmin', 'impl')


def _log_abstract_eval_float32(rule):
    import numpy as np
    return lambda x: rule(x).update(dtype=np.dtype('float32'))


def _while_impl_do_while():
    """The body runs once before the predicate is first asked."""
    from minijax import core
    from minijax.ir.jaxpr import eval_closed_jaxpr

    def impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
        cond_consts, rest = core.split_list(args, cond_nconsts)
        body_consts, carry = core.split_list(rest, body_nconsts)
        while True:
            carry = eval_closed_jaxpr(body_jaxpr, [*body_consts, *carry])
            if not eval_closed_jaxpr(cond_jaxpr, [*cond_consts, *carry])[0]:
                return carry
    return impl


def _scan_pe_jaxpr_drops_forwarded(rule):
    """Forget the known operands the staged scan reads (an init the loop makes unknown)."""
    def mutated(unknowns, eqn):
        split = rule(unknowns, eqn)
        if split is None:
            return None
        known, unknown, out_uk, residuals = split
        return known, unknown, out_uk, [r for r in residuals
                                        if not any(r is x for x in eqn.inputs)]
    return mutated


def _while_pe_jaxpr_no_residuals(rule):
    def mutated(unknowns, eqn):
        split = rule(unknowns, eqn)
        return None if split is None else (*split[:3], [])
    return mutated


def _no_fixed_point(fixed_point):
    return lambda step, flags: list(flags)


def _unmasked_select(lax):
    """while's vmap without masking: every example takes the new carry."""
    return _Overridden(lax, select_n=lambda which, old, new: new)


# ----------------------------------------------------------------------------- the table

@dataclass(frozen=True)
class Mutant:
    name: str
    primitive: str
    kind: str
    mutate: Callable | None  # the correct rule -> the wrong one; DELETE removes it
    note: str = ''

    def plant(self):
        prim = _primitives()[self.primitive]
        table = rule_table(prim, self.kind)
        if prim not in table:
            raise LookupError(f'mutant {self.name}: {self.primitive} has no {self.kind} rule')
        if self.mutate is DELETE:
            del table[prim]
            return
        try:
            table[prim] = self.mutate(table[prim])
        except Exception as e:  # the code it mutates has moved: report, do not count
            raise LookupError(f'mutant {self.name}: cannot be planted: {e!r}') from e


def _deleted(primitive, kind):
    return Mutant(f'{primitive}.{kind}:deleted', primitive, kind, DELETE)


def _wrong(primitive, kind, how, mutate, note=''):
    return Mutant(f'{primitive}.{kind}:{how}', primitive, kind, mutate, note)


_EW = 'minijax.lax.elementwise'
_WHILE = 'minijax.control_flow.while_loop'

MUTANTS = [
    # elementwise
    _deleted('sin', 'jvp'),
    _wrong('sin', 'jvp', 'sign', negate_tangent),
    _deleted('cos', 'jvp'),
    _deleted('exp', 'vmap'),
    _wrong('exp', 'vmap', 'batch_axis', shift_batch_dim),
    _wrong('log', 'abstract_eval', 'float32', _log_abstract_eval_float32),
    _wrong('tanh', 'lowering', 'sine_op', replaced_by(_tanh_lowering_is_sine)),
    _wrong('sqrt', 'lowering', 'rsqrt_op', replaced_by(_sqrt_lowering_is_rsqrt)),
    _wrong('abs', 'jvp', 'no_sign', replaced_by(_abs_jvp_no_sign)),
    _deleted('add', 'transpose'),
    _deleted('sub', 'transpose'),
    _wrong('sub', 'transpose', 'sign', negate_cotangent(1), 'issue 10 survivor'),
    _wrong('mul', 'jvp', 'one_term', replaced_by(_mul_jvp_one_term)),
    _wrong('mul', 'vmap', 'batch_axis', shift_batch_dim),
    _wrong('div', 'jvp', 'sign', replaced_by(_div_jvp_wrong_sign)),
    _wrong('neg', 'transpose', 'sign', negate_cotangent(0)),
    _wrong('max', 'jvp', 'ties', replaced_by(_max_jvp_ties_to_x)),
    _wrong('pow', 'jvp', 'no_zero_guard', replaced_by(_pow_jvp_unguarded), 'issue 10 survivor'),
    _wrong('integer_pow', 'jvp', 'off_by_one', replaced_by(_integer_pow_jvp_off_by_one)),
    _wrong('eq', 'abstract_eval', 'operand_dtype', output_dtype_of_operand),
    _deleted('convert_element_type', 'transpose'),
    _wrong('convert_element_type', 'transpose', 'dtype',
           replaced_by(_convert_transpose_keeps_dtype), 'issue 10 survivor'),
    _deleted('select_n', 'vmap'),
    _wrong('select_n', 'abstract_eval', 'weak_type', drop_weak_type, 'issue 10 survivor'),
    _wrong('select_n', 'transpose', 'swapped', _select_n_transpose_swapped),
    _wrong('select_n', 'lowering', 'swapped', _select_n_lowering_swapped, 'issue 10: hang'),
    # structural, reductions, slicing, linalg
    _wrong('broadcast_in_dim', 'abstract_eval', 'weak_type', drop_weak_type,
           'issue 10 survivor'),
    _deleted('broadcast_in_dim', 'transpose'),
    _deleted('reshape', 'transpose'),
    _wrong('transpose', 'transpose', 'not_inverted',
           replaced_by(_transpose_transpose_not_inverted)),
    _wrong('transpose', 'vmap', 'batch_axis', shift_batch_dim),
    _deleted('reduce_sum', 'transpose'),
    _wrong('reduce_sum', 'vmap', 'batch_axis', shift_batch_dim),
    _deleted('reduce_max', 'jvp'),
    _wrong('argmax', 'impl', 'argmin', replaced_by(_argmax_impl_is_argmin)),
    _deleted('concatenate', 'transpose'),
    _deleted('pad', 'transpose'),
    _deleted('slice', 'transpose'),
    _deleted('dynamic_slice', 'vmap'),
    _deleted('dynamic_update_slice', 'transpose'),
    _deleted('iota', 'lowering'),
    _wrong('dot_general', 'transpose', 'permutation_not_inverted',
           patched_during('minijax.lax.dot_general', 'transpose',
                          _dot_general_permutation_not_inverted), 'issue 10 survivor'),
    _wrong('dot_general', 'vmap', 'batch_axis', shift_batch_dim),
    _deleted('dot_general', 'lowering'),
    _wrong('dot_general', 'flops', 'doubled', double_result),
    # control flow and jit
    _deleted('cond', 'jvp'),
    _deleted('cond', 'vmap'),
    _deleted('cond', 'transpose'),
    _deleted('cond', 'partial_eval'),
    _deleted('cond', 'dce'),
    _deleted('scan', 'transpose'),
    _deleted('scan', 'vmap'),
    _wrong('scan', 'partial_eval_jaxpr', 'drops_forwarded', _scan_pe_jaxpr_drops_forwarded,
           'issue 10 survivor'),
    _wrong('while', 'impl', 'do_while', replaced_by(_while_impl_do_while),
           'issue 10 survivor'),
    _wrong('while', 'jvp', 'no_fixed_point', patched_during(_WHILE, 'fixed_point',
                                                             _no_fixed_point),
           'issue 10 survivor'),
    _wrong('while', 'vmap', 'unmasked', patched_during(_WHILE, 'lax', _unmasked_select),
           'issue 10 survivor'),
    _deleted('while', 'partial_eval_jaxpr'),
    _wrong('while', 'partial_eval_jaxpr', 'no_residuals', _while_pe_jaxpr_no_residuals),
    _deleted('xla_call', 'partial_eval_jaxpr'),
    _deleted('xla_call', 'dce'),
]
MUTANTS_BY_NAME = {m.name: m for m in MUTANTS}

# ----------------------------------------------------------------------------- naming

#: Words a test name may use for a rule kind (``test_<word>[<primitive>-<case>]``).
KIND_WORDS = {'impl': ('impl', 'eager'), 'vmap': ('vmap', 'batching'),
              'lowering': ('lowering',)}


def names_cell(test_id, primitive, kind):
    """(names the primitive, names the rule kind): ``test_jvp[sin-f64]`` names (sin, jvp);
    the kind is the test function's name after ``test_``, the primitive one of the
    dash-separated parameters."""
    function, _, params = test_id.split('::')[-1].partition('[')
    names_prim = primitive in params.rstrip(']').split('-')
    words = KIND_WORDS.get(kind, (kind,))
    names_kind = function.removeprefix('test_') in words
    return names_prim, names_kind


# ----------------------------------------------------------------------------- the plugin

def pytest_configure(config):
    name = os.environ.get(MUTANT_ENV)
    if name:
        MUTANTS_BY_NAME[name].plant()


def pytest_collection_modifyitems(session, config, items):
    """Tests naming the mutated cell first, then those naming its primitive, then the rest."""
    name = os.environ.get(MUTANT_ENV)
    if name:
        mutant = MUTANTS_BY_NAME[name]
        items.sort(key=lambda item: _rank(item.nodeid, mutant))


def _rank(test_id, mutant):
    names_prim, names_kind = names_cell(test_id, mutant.primitive, mutant.kind)
    return 0 if names_prim and names_kind else 1 if names_prim else 2


def pytest_runtest_logstart(nodeid, location):
    """Record the running test, so the driver can say which test hung."""
    path = os.environ.get(PROGRESS_ENV)
    if path:
        with open(path, 'w') as f:
            f.write(nodeid)


# ----------------------------------------------------------------------------- the driver

@dataclass
class Outcome:
    mutant: Mutant
    caught: str  # 'failed', 'timeout', 'survived' or 'error' (the mutant did not plant)
    test_id: str
    seconds: float

    def row(self):
        names_prim, names_kind = names_cell(self.test_id, self.mutant.primitive,
                                            self.mutant.kind)
        named = ('prim+kind' if names_prim and names_kind else 'prim' if names_prim
                 else 'kind' if names_kind else '-') if self.test_id else ''
        return [self.mutant.name, self.caught, named, self.test_id, f'{self.seconds:.0f}']


_FAILED = re.compile(r'^(?:FAILED|ERROR) (.+?)(?: - .*)?$', re.MULTILINE)


def run_mutant(mutant, root, timeout, pytest_args):
    """Run the suite with ``mutant`` planted; stop at the first failure."""
    with tempfile.NamedTemporaryFile('r', suffix='.progress') as progress:
        env = dict(os.environ, **{MUTANT_ENV: mutant.name, PROGRESS_ENV: progress.name,
                                  'PYTHONPATH': os.pathsep.join(
                                      [root, os.path.join(REPO, 'bench'),
                                       os.environ.get('PYTHONPATH', '')])})
        command = [sys.executable, '-m', 'pytest', '-p', 'mutants', '-x', '-q', '-rfE',
                   '-p', 'no:cacheprovider', '-p', 'no:randomly', *pytest_args]
        start = time.monotonic()
        process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # a hang inside XLA ignores SIGINT
            process.communicate()
            return Outcome(mutant, 'timeout', progress.read().strip(), time.monotonic() - start)
        seconds = time.monotonic() - start
    if f'mutant {mutant.name}:' in output:
        return Outcome(mutant, 'error', '', seconds)
    failed = _FAILED.search(output)
    if failed:
        return Outcome(mutant, 'failed', failed.group(1), seconds)
    if process.returncode != 0:
        return Outcome(mutant, 'failed', f'(exit {process.returncode})', seconds)
    return Outcome(mutant, 'survived', '', seconds)


def print_table(outcomes):
    rows = [['mutant', 'caught', 'named', 'first failing test', 's']]
    rows += [o.row() for o in outcomes]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print('  '.join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    caught = [o for o in outcomes if o.caught in ('failed', 'timeout')]
    named = [o for o in caught if o.row()[2] == 'prim+kind']
    cells = {(o.mutant.primitive, o.mutant.kind) for o in outcomes}
    print(f'\n{len(outcomes)} mutants over {len(cells)} cells: {len(caught)} caught, '
          f'{len(named)} by a test naming the primitive and the rule; survivors: '
          + (', '.join(o.mutant.name for o in outcomes if o.caught == 'survived') or 'none'))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--only', nargs='+', metavar='NAME',
                        help='mutants to run (a name, or a prefix such as "while.")')
    parser.add_argument('--jobs', type=int, default=1, help='mutants run at once')
    parser.add_argument('--timeout', type=float, default=600, help='seconds per mutant')
    parser.add_argument('--root', default=REPO,
                        help='the minijax checkout to test (default: this one)')
    parser.add_argument('--list', action='store_true', help='list the mutants and exit')
    parser.add_argument('pytest_args', nargs='*', help='passed to pytest (after --)')
    args = parser.parse_args(argv)
    mutants = [m for m in MUTANTS
               if not args.only or any(m.name == o or m.name.startswith(o) for o in args.only)]
    if args.list:
        for m in mutants:
            print(m.name, f'({m.note})' if m.note else '')
        return 0
    def run(mutant):
        outcome = run_mutant(mutant, os.path.abspath(args.root), args.timeout,
                             args.pytest_args)
        print('  '.join(outcome.row()), file=sys.stderr, flush=True)  # progress
        return outcome

    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(run, mutants))
    print_table(outcomes)
    return 0


if __name__ == '__main__':
    sys.exit(main())
