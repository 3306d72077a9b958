"""``jax.ad_checkpoint``: naming values for ``checkpoint`` policies, and listing the values
reverse mode saves for the backward pass.

``checkpoint_name(x, name)`` binds ``name``, the identity with a name, as JAX does, so a
jaxpr shows it (``name[name=z]``) and a name-based policy can pick it out. Its tangent is not
named, so it never reaches a linear jaxpr. ``print_saved_residuals(f, *args)`` prints, for
each residual ``vjp`` of ``f`` keeps, its type and where it comes from, in JAX's words.

The policies (``checkpoint_policies``) and their answers other than True and False
(``Saveable``, ``Recompute``, ``Offloadable(src, dst)``) are JAX's; ``minijax.checkpoint``
keeps every residual whatever the policy says.
"""

import functools
from minijax import checkpoint_policies, core, tree_util, unsupported
from minijax.checkpoint_policies import Offloadable, Recompute, Saveable
from minijax.autodiff import vjp
from minijax.core import Primitive
from minijax.flops import flops_rules
from minijax.ir.jaxpr import Lit
from minijax.ir.tracing import trace_to_jaxpr
from minijax.lowering import register_lowering
from minijax.sharding import rules as sharding_rules

__all__ = ['Offloadable', 'Recompute', 'Saveable', 'checkpoint_name', 'checkpoint_policies',
           'print_saved_residuals']

# dir() lists JAX's names only. The module keeps more: it defines ``name_p`` and writes its
# rows of the interpreters' rule tables, by name (``register_lowering``, ``flops_rules``), as
# every module defining a primitive does (JAX keeps these in ``jax._src.ad_checkpoint``).
__dir__ = unsupported.public_dir(globals())


name_p = Primitive('name')
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: core.raise_to_shaped(x))
name_p.def_jvp(lambda primals, tangents, *, name: (name_p.bind(*primals, name=name),
                                                    tangents[0]))  # (the tangent unnamed)
name_p.def_batching(lambda vals, dims, *, name: (name_p.bind(*vals, name=name), dims[0]))
register_lowering(name_p, lambda ctx, x, *, name: x)
flops_rules[name_p] = lambda eqn, known: 0
sharding_rules.register(sharding_rules.SAME_AS_OPERAND, name_p)


def checkpoint_name(x, name):
    """``x`` (a pytree), each leaf named ``name`` for ``checkpoint``'s policies."""
    return tree_util.tree_map(functools.partial(name_p.bind, name=name), x)


def saved_residuals(f, *args, **kwargs) -> list[tuple[core.ShapedArray, str]]:
    """``(type, source)`` of each value ``vjp(f, *args, **kwargs)`` keeps for the backward
    pass, as JAX describes it: an argument, a constant, a literal, or an equation's result
    (named by ``checkpoint_name``, of a nested jit, or of a primitive) and where it was
    traced."""
    from minijax.jit import jit  # (the name of each argument leaf, as jit's module has it)
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    arg_names = jit(f)._argument_names(args, kwargs)

    def vjp_of(a, k):
        return vjp(lambda *a: f(*a, **k), *a)

    flat, out_tree = tree_util.flatten_fun(vjp_of, in_tree)
    closed, _ = trace_to_jaxpr(flat, [core.shaped_aval(x) for x in leaves])
    num_res = tree_util.treedef_children(out_tree())[1].num_leaves
    jaxpr = closed.jaxpr
    residuals = jaxpr.outs[len(jaxpr.outs) - num_res:]
    found = {v: f'from the argument {name}' for v, name in zip(jaxpr.invars, arg_names)}
    found.update((v, 'from a constant') for v in jaxpr.constvars)
    for eqn in jaxpr.eqns:
        where = core.summarize_source(eqn.source_info)
        if eqn.primitive is name_p:
            what = f"named '{eqn.params['name']}' from {where}"
        elif eqn.primitive.name == 'xla_call':
            what = f"output of jitted function '{eqn.params['name']}' from {where}"
        else:
            what = f'output of {eqn.primitive.name} from {where}'
        found.update((v, what) for v in eqn.out_binders)
    out = [(x.aval, 'from a literal') for x in residuals if isinstance(x, Lit)]
    kept = {x for x in residuals if not isinstance(x, Lit)}
    ordered = [*jaxpr.constvars, *jaxpr.invars,
               *(v for eqn in jaxpr.eqns for v in eqn.out_binders)]
    return out + [(v.aval, found[v]) for v in ordered if v in kept]


def print_saved_residuals(f, *args, **kwargs):
    """Print ``saved_residuals``: one line per residual, its type then its source."""
    for aval, source in saved_residuals(f, *args, **kwargs):
        print(f'{aval.str_short(short_dtypes=True)} {source}')
