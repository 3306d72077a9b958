"""Donated arguments: which output may be written into which input's buffer.

``jit(f, donate_argnums=...)`` lets XLA reuse an argument's buffer for a result, so a training
step updates its parameters in place instead of holding two copies. The module says so on
``@main``'s arguments, as JAX lowers it: ``tf.aliasing_output = i`` where an output has the
argument's shape and dtype (XLA writes it into that buffer), ``jax.buffer_donor = true``
where only an output of the same number of elements is left (XLA may reuse the buffer for
whatever fits). A donated argument no output can use is reported, as JAX warns about it. PJRT
takes a donated buffer away from its Array when it runs the program (``Array.is_deleted``).
"""
from __future__ import annotations

import collections
import warnings
from collections.abc import Sequence

from jaxlib.mlir import ir

_NOT_USABLE = ('Some donated buffers were not usable: {}.\n'
               'See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.')


def donation_attrs(in_avals: Sequence, out_avals: Sequence, donated: Sequence[bool],
                   num_tokens: int = 0, result_shardings: Sequence | None = None
                   ) -> list[dict]:
    """Per argument of ``@main`` (after its ``num_tokens`` tokens), its donation attributes
    (empty for an argument not donated), pairing each donated argument with the first
    output left of its type, then with one of its size (JAX's ``_set_up_aliases``). Over a
    mesh (``result_shardings``, None for a single device), an output laid out as XLA chooses
    (a None sharding) is not aliased: its argument is a donor."""
    free_inputs = collections.defaultdict(collections.deque)
    for i, (aval, given) in enumerate(zip(in_avals, donated, strict=True)):
        if given:
            free_inputs[_type_key(aval)].append(i)
    aliases: dict[int, int] = {}
    donors: set[int] = set()
    for j, aval in enumerate(out_avals):
        waiting = free_inputs.get(_type_key(aval))
        if waiting:
            i = waiting.popleft()
            if result_shardings is None or result_shardings[j] is not None:
                aliases[i] = j
            else:
                donors.add(i)
    aliased_outputs = set(aliases.values())
    free_outputs = collections.defaultdict(collections.deque)
    for j, aval in enumerate(out_avals):
        if j not in aliased_outputs and _is_array(aval):
            free_outputs[aval.size].append(j)
    unusable = []
    for i, (aval, given) in enumerate(zip(in_avals, donated)):
        if not given or i in aliases or i in donors or not _is_array(aval):
            continue
        if free_outputs.get(aval.size):
            free_outputs[aval.size].popleft()
            donors.add(i)
        elif result_shardings is not None and None in result_shardings:
            donors.add(i)  # (XLA lays some results out: it may find a use for the buffer)
        else:
            unusable.append(aval)
    if unusable:
        warnings.warn(_NOT_USABLE.format(', '.join(map(str, unusable))))
    i32 = ir.IntegerType.get_signless(32)
    return [{'tf.aliasing_output': ir.IntegerAttr.get(i32, aliases[i] + num_tokens)}
            if i in aliases else
            {'jax.buffer_donor': ir.BoolAttr.get(True)} if i in donors else {}
            for i in range(len(in_avals))]


def _type_key(aval):
    """What an output must share with a donated argument to be written into its buffer: the
    shape and dtype (not the weak type)."""
    return (aval.shape, aval.dtype) if _is_array(aval) else aval


def _is_array(aval) -> bool:
    return hasattr(aval, 'shape')  # (a token has no buffer to give)
