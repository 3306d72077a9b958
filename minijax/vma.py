"""Varying manual axes: along which of ``shard_map``'s manual mesh axes a value may differ
between devices (JAX's ``check_vma=True``, its types' ``{V:x}``).

JAX carries the set in every type inside a ``shard_map`` and, as it traces, casts an
operand that varies along fewer axes than the others (``pvary``, a no-op at run time) so an
equation's operands agree; a ``psum`` becomes ``psum_invariant``, whose result no longer
varies along its axes. minijax traces the body without the sets and then rewrites the
jaxpr the same way (``with_pvary``): the same equations JAX stages, in the same places. The
casts matter to reverse mode: ``pvary`` transposes to ``psum_invariant`` and back, so the
gradient of a replicated input is summed over the devices exactly where it was used
(JAX's efficient transpose), and each residual is stacked only along the axes it varies
along. ``varying_axes`` reads the sets off a jaxpr (to check ``out_specs`` and to give a
residual its spec).
"""
from __future__ import annotations

from minijax import core
from minijax.caching import cache_on_first_arg
from minijax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from minijax.lax import collectives_beyond_cpu, parallel


class ManualArray(core.ShapedArray):
    """The type of a value in a ``shard_map`` body with the manual axes it varies along, as
    JAX prints it: ``f32[2,4]{V:(x,y)}``. Equal to the ``ShapedArray`` without them: the
    axes are for reading, every rule sees an ordinary type."""
    __slots__ = ('vma',)

    def __init__(self, aval: core.ShapedArray, vma: tuple):
        super().__init__(aval.shape, aval.dtype, aval.weak_type, aval._sharding)
        self.vma = vma

    def __eq__(self, other):
        return isinstance(other, core.ShapedArray) and \
            type(other) in (core.ShapedArray, ManualArray) and self.shape == other.shape \
            and self.dtype == other.dtype and self.weak_type == other.weak_type

    __hash__ = core.ShapedArray.__hash__


def annotate(jaxpr: Jaxpr, in_axes, order) -> None:
    """Give the variables of a freshly staged body (not its sub-jaxprs, which may be shared)
    the types JAX prints, with the axes each varies along."""
    rewriter = _Rewriter(None, strict=False)
    rewriter.run(jaxpr, in_axes)
    for eqn in jaxpr.eqns:
        for v in eqn.out_binders:
            _annotated(v, rewriter.axes(v), order)
    for v, axes in zip(jaxpr.invars, in_axes):
        _annotated(v, axes, order)


def _annotated(v, axes, order):
    if axes and type(v.aval) is core.ShapedArray:
        v.aval = ManualArray(v.aval, tuple(n for n in order if n in axes))


_REDUCTIONS = (parallel.psum_p, parallel.pmax_p, parallel.pmin_p)
#: collectives whose operand is cast to vary along their axes, and whose result does too
_VARYING = (parallel.all_gather_p, parallel.psum_scatter_p, parallel.ppermute_p,
            parallel.all_to_all_p)


def _axes(eqn) -> frozenset:
    if eqn.primitive in (parallel.pvary_p, parallel.psum_invariant_p):
        return frozenset(eqn.params['axes'])
    return frozenset(parallel.axis_names_of(eqn.params['axis_name']))


def _sub_jaxpr(eqn, n_inputs):
    """The body of a call-like equation (``jit``'s) that takes the equation's operands."""
    body = eqn.params.get('jaxpr')
    if eqn.primitive.name != 'shard_map' and isinstance(body, ClosedJaxpr) and \
            len(body.jaxpr.invars) == n_inputs and 'num_consts' not in eqn.params:
        return body
    return None


def varying_axes(jaxpr: Jaxpr, in_axes) -> list[frozenset]:
    """Along which manual axes each output of ``jaxpr`` may vary, given its inputs'."""
    return _Rewriter(None, strict=False).run(jaxpr, in_axes)


class _Rewriter:
    """``with_pvary``'s walk over one jaxpr: the new equations and each value's axes."""

    def __init__(self, order, strict=True):
        self.order = order  # the mesh's axis names, ordering a cast's (None: infer only)
        self.strict = strict  # the user's body: a loop carry that grows is an error
        self.eqns: list[JaxprEqn] = []
        self.env: dict = {}

    def axes(self, x) -> frozenset:
        return self.env.get(x, frozenset()) if isinstance(x, Var) else frozenset()

    def cast(self, x, axes, source_info):
        """``x`` cast to vary along ``axes`` too (JAX's ``pvary``, for the missing ones)."""
        missing = frozenset(axes) - self.axes(x)
        if not missing or self.order is None:
            return x
        out = Var(core.raise_to_shaped(x.aval))
        self.eqns.append(JaxprEqn(parallel.pvary_p, [x],
                                  dict(axes=tuple(n for n in self.order if n in missing)),
                                  [out], source_info))
        self.env[out] = self.axes(x) | missing
        return out

    def emit(self, eqn, inputs, outs_axes, **params):
        self.eqns.append(eqn._replace(inputs=inputs, params=dict(eqn.params, **params)))
        self.env.update(zip(eqn.out_binders, outs_axes))

    def run(self, jaxpr: Jaxpr, in_axes) -> list[frozenset]:
        self.env.update(zip(jaxpr.invars, in_axes))
        for eqn in jaxpr.eqns:
            self.equation(eqn)
        return [self.axes(x) for x in jaxpr.outs]

    def equation(self, eqn):
        p, ins, info = eqn.primitive, list(eqn.inputs), eqn.source_info
        if p is parallel.psum_p:
            if eqn.params['axis_index_groups'] is not None:
                raise NotImplementedError('psum with axis_index_groups in a shard_map with '
                                          'check_vma=True (nor in JAX): pass check_vma=False')
            names = _axes(eqn)
            x = self.cast(ins[0], names, info)
            self.eqns.append(JaxprEqn(parallel.psum_invariant_p, [x],
                                      dict(axes=parallel.axis_names_of(eqn.params['axis_name'])),
                                      eqn.out_binders, info))
            self.env[eqn.out_binders[0]] = self.axes(x) - names
        elif p in _REDUCTIONS or p in _VARYING:
            x = self.cast(ins[0], _axes(eqn), info)
            axes = self.axes(x) | _axes(eqn)
            self.emit(eqn, [x], [axes - _axes(eqn) if p in _REDUCTIONS else axes])
        elif p is parallel.axis_index_p:
            self.emit(eqn, ins, [_axes(eqn)])
        elif p is collectives_beyond_cpu.precv_p:  # (its result's type is out_shape's)
            self.emit(eqn, ins, [frozenset()])
        elif p in (parallel.pvary_p, parallel.psum_invariant_p):
            change = _axes(eqn)
            self.emit(eqn, ins, [self.axes(ins[0]) | change if p is parallel.pvary_p
                                 else self.axes(ins[0]) - change])
        elif p.name in _LOOPS:
            _LOOPS[p.name](self, eqn)
        elif (body := _sub_jaxpr(eqn, len(ins))) is not None:
            new_body, outs = with_pvary(body, [self.axes(x) for x in ins], self.order,
                                        self.strict)
            self.emit(eqn, ins, outs, jaxpr=new_body)
        elif p.name == 'cond':
            self.cond(eqn)
        else:
            union = frozenset().union(*map(self.axes, ins))
            if len(ins) > 1:
                ins = [x if x is core.abstract_token else self.cast(x, union, info)
                       for x in ins]
            self.emit(eqn, ins, [union] * len(eqn.out_binders))

    def cond(self, eqn):
        """Each branch rewritten on the operands' axes; the results vary wherever one
        branch's (or the index) does, each branch cast to that at its end."""
        index, *ops = eqn.inputs
        ins = [self.axes(x) for x in ops]
        rewritten = [with_pvary(b, ins, self.order, self.strict)
                     for b in eqn.params['branches']]
        outs = [frozenset().union(self.axes(index), *col) for col in
                zip(*(o for _, o in rewritten))] if rewritten[0][1] else []
        branches = tuple(_cast_outputs(b, o, outs, self.order) for b, o in rewritten)
        self.emit(eqn, eqn.inputs, outs, branches=branches)


def _carry_fixpoint(self: '_Rewriter', eqn, rewrite, carry):
    """The axes of a loop's carry, which the body must return as it takes them: a carry
    the body makes vary along more axes is JAX's error when the user's body is staged
    (``strict``: cast the initial value with ``lax.pcast``), and is cast on the way in when
    a transformation made the loop (the casts follow the values, as JAX's do)."""
    while True:
        body, outs = rewrite(carry)
        grown = [(i, o) for i, o in zip(carry, outs) if not o <= i]
        if not grown:
            return carry, body, outs
        if self.strict:
            raise TypeError(
                f'{eqn.primitive.name} body function carry input and carry output must have '
                'equal types, but they differ in their varying manual axes: the carry input '
                f'varies along {[sorted(i) for i, _ in grown]} and the output along '
                f'{[sorted(o) for _, o in grown]}. Apply `lax.pcast(..., to="varying")` '
                'to the initial carry.')
        carry = [i | o for i, o in zip(carry, outs)]


def _scan_rule(self: '_Rewriter', eqn):
    start = eqn.params['num_consts']
    stop = start + eqn.params['num_carry']
    ins = [self.axes(x) for x in eqn.inputs]
    body = eqn.params['jaxpr']

    def rewrite(carry):
        return with_pvary(body, ins[:start] + carry + ins[stop:], self.order, self.strict)
    carry, new_body, outs = _carry_fixpoint(self, eqn, rewrite, ins[start:stop])
    new_body = _cast_outputs(new_body, outs, carry + outs[stop - start:], self.order)
    inputs = list(eqn.inputs)
    inputs[start:stop] = [self.cast(x, c, eqn.source_info) for x, c in
                          zip(inputs[start:stop], carry)]
    self.emit(eqn, inputs, carry + outs[stop - start:], jaxpr=new_body)


def _while_rule(self: '_Rewriter', eqn):
    """A while loop: the body rewritten with the carry's axes (as a scan's), the condition
    with its operands'."""
    params = eqn.params
    nc, nb = params['cond_nconsts'], params['body_nconsts']
    ins = [self.axes(x) for x in eqn.inputs]
    cond_consts, body_consts = ins[:nc], ins[nc:nc + nb]

    def rewrite(carry):
        return with_pvary(params['body_jaxpr'], body_consts + carry, self.order, self.strict)
    carry, body, outs = _carry_fixpoint(self, eqn, rewrite, ins[nc + nb:])
    body = _cast_outputs(body, outs, carry, self.order)
    cond, _ = with_pvary(params['cond_jaxpr'], cond_consts + carry, self.order, self.strict)
    inputs = list(eqn.inputs)
    inputs[nc + nb:] = [self.cast(x, c, eqn.source_info) for x, c in
                        zip(inputs[nc + nb:], carry)]
    self.emit(eqn, inputs, carry, body_jaxpr=body, cond_jaxpr=cond)


_LOOPS = {'scan': _scan_rule, 'while': _while_rule}


def _cast_outputs(closed: ClosedJaxpr, have, want, order) -> ClosedJaxpr:
    """``closed`` with its outputs cast (``pvary``) from the axes they ``have`` to those
    they must ``want``."""
    if all(w <= h for h, w in zip(have, want)):
        return closed
    rewriter = _Rewriter(order)
    jaxpr = closed.jaxpr
    rewriter.eqns = list(jaxpr.eqns)
    for x, h in zip(jaxpr.outs, have):
        if isinstance(x, Var):
            rewriter.env[x] = h
    outs = [rewriter.cast(x, w, None) for x, w in zip(jaxpr.outs, want)]
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, rewriter.eqns, outs), closed.consts)


def with_pvary(closed: ClosedJaxpr, in_axes, order, strict=True
               ) -> tuple[ClosedJaxpr, list[frozenset]]:
    """``closed`` rewritten as JAX would have traced it with the varying axes in its types
    (``pvary`` casts, ``psum_invariant``), and the axes of its outputs. ``strict``: the
    user's body, where a loop carry that grows more varying is JAX's error (a body a
    transformation made casts it instead). Cached per jaxpr, as the transformations are."""
    return _with_pvary(closed, tuple(in_axes), None if order is None else tuple(order), strict)


@cache_on_first_arg
def _with_pvary(closed: ClosedJaxpr, in_axes, order, strict):
    rewriter = _Rewriter(order, strict)
    jaxpr = closed.jaxpr
    outs = rewriter.run(jaxpr, in_axes)
    new = Jaxpr(jaxpr.constvars, jaxpr.invars, rewriter.eqns, jaxpr.outs)
    return ClosedJaxpr(new, closed.consts), outs


def cast_outputs(closed: ClosedJaxpr, in_axes, want, order) -> ClosedJaxpr:
    """``shard_map``'s body with each output cast to vary along the axes its out_spec
    splits over (JAX casts an output that varies along fewer, as ``out_specs`` says)."""
    return _cast_to_specs(closed, tuple(in_axes), tuple(want), tuple(order))


@cache_on_first_arg
def _cast_to_specs(closed, in_axes, want, order):
    have = varying_axes(closed.jaxpr, in_axes)
    return _cast_outputs(closed, have, [h | w for h, w in zip(have, want)], order)
