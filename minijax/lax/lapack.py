"""What the matrix decompositions share: the matrices LAPACK takes, their vmap rule and
NumPy impls, and calling one of jaxlib's LAPACK kernels as JAX does (``call``: the custom call
with its layouts, attributes and Shardy rule; ``nan_unless``: NaNs where the kernel's ``info``
says a matrix failed). ``linalg``, ``householder``, ``tridiagonal_solve`` and
``matrix_updates`` lower their primitives with it."""
import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes, lowering
from minijax.interpreters import batching
from minijax.lowering import ops, shardings


# ----------------------------------------------------------------------------- shared rules


def check_matrix(name, x, square=True, what='operand', symmetrized=False):
    """``x`` must be a non-empty matrix LAPACK takes (or a batch of them). JAX's errors:
    TypeError for another dtype or a rank below 2; ValueError for a matrix that is not
    square, but TypeError if it is ``symmetrized`` (added to its transpose, whose shape
    differs)."""
    if x.dtype not in PREFIX:
        raise TypeError(f'{name}: LAPACK decomposes float32, float64, complex64 or complex128 '
                        f'matrices, got the {what} {x.str_short()}')
    if x.ndim < 2:
        raise TypeError(f'{name}: the {what} must have rank at least 2 (a matrix [..., m, n]),'
                        f' got {x.str_short()}')
    if square and x.shape[-1] != x.shape[-2]:
        error, why = ((TypeError, ' to be added to its transpose (symmetrize_input=True)')
                      if symmetrized else (ValueError, ''))
        raise error(f'{name}: the {what} must be a square matrix [..., m, m]{why}, got '
                    f'{x.str_short()}')
    if 0 in x.shape[-2:]:
        raise ValueError(f'{name}: minijax does not decompose empty matrices, got '
                         f'{x.str_short()}')


def batch_at_front(primitive):
    """A vmap rule for a primitive that handles leading batch axes: every operand's batch
    axis moved to the front (an unbatched operand broadcast), as JAX's ``expand_dims``
    batcher."""
    def rule(vals, dims, **params):
        size = batching.axis_size_of(vals, dims)
        out = primitive.bind(*[batching.move_batch_axis(size, d, 0, x)
                               for x, d in zip(vals, dims)], **params)
        return out, [0] * len(out) if primitive.multiple_results else 0
    primitive.def_batching(rule)


def per_matrix_impl(decompose):
    """A NumPy impl from ``decompose(matrix) -> tuple of arrays``, applied to every matrix
    of a batch; a decomposition that fails (``LinAlgError``) gives NaNs, as LAPACK's info
    makes the lowering give."""
    def impl(x, **params):
        x = np.asarray(x)
        results = []
        for index in np.ndindex(x.shape[:-2]):
            results.append(decompose(x[index], **params))
        stacked = [np.stack(r).reshape(*x.shape[:-2], *r[0].shape).astype(r[0].dtype)
                   for r in zip(*results)]
        return stacked
    return impl

# ----------------------------------------------------------------------------- LAPACK calls

PREFIX = {dtypes.float32: 's', dtypes.float64: 'd', dtypes.complex64: 'c',
                  dtypes.complex128: 'z'}


def _char(c):
    """A LAPACK character option (``'L'``, ``'N'``, ...), as the kernels' ui8 attribute."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _option(value):
    """A kernel's option as JAX writes it: a character (``str``) as ui8, a flag (``bool``) as
    a boolean, an index (``np.int32``, gehrd's ``low`` and ``high``) as i32."""
    if isinstance(value, str):
        return _char(value)
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))


def _layout(aval, matrix_rank):
    """Column-major matrices (the batch axes outermost) for LAPACK; other operands row-major."""
    n = aval.ndim
    if n == matrix_rank:
        return (n - 2, n - 1, *range(n - 3, -1, -1))
    return tuple(range(n - 1, -1, -1))


def _layouts(avals, matrix_rank):
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.asarray(_layout(a, matrix_rank), np.int64).reshape(-1),
                                    type=ir.IndexType.get()) for a in avals])


def call(kernel, operands, avals_in, avals_out, aliases, prefixed=True, **options):
    """``stablehlo.custom_call @lapack_<s|d|c|z><kernel>_ffi`` as JAX emits it: ``aliases`` maps
    an operand to the result that reuses its buffer; ``options`` are the kernel's
    attributes (``_option``), in ``mhlo.backend_config``; ``kernel`` is the name after the
    dtype's letter, or the whole target when it has none (``prefixed=False``)."""
    rank = max(a.ndim for a in avals_in)
    target = (f'lapack_{PREFIX[avals_in[0].dtype]}{kernel}_ffi' if prefixed
              else kernel)
    op = hlo.CustomCallOp(
        [lowering.tensor_type(a) for a in avals_out], list(operands), target,
        backend_config=ir.StringAttr.get(''),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        operand_layouts=_layouts(avals_in, rank), result_layouts=_layouts(avals_out, rank),
        output_operand_aliases=ir.ArrayAttr.get([
            hlo.OutputOperandAlias.get([out] if len(avals_out) > 1 else [], operand, [])
            for operand, out in aliases.items()]))
    op.operation.attributes['mhlo.backend_config'] = ir.DictAttr.get(
        {k: _option(v) for k, v in options.items()})
    batch = rank - 2
    op.operation.attributes['mhlo.frontend_attributes'] = ir.DictAttr.get(
        {'num_batch_dims': ir.StringAttr.get(str(batch))})
    op.operation.attributes['sdy.sharding_rule'] = _sharding_rule(avals_in, avals_out, batch)
    return list(op.results)


def _sharding_rule(avals_in, avals_out, batch):
    """Shardy's rule for a kernel, as JAX writes it: the ``batch`` leading axes of every
    operand and result share factors (the kernel runs matrix by matrix), every other axis
    has a factor of its own."""
    sizes = list(avals_in[0].shape[:batch])

    def factors(aval):
        own = aval.shape[batch:] if aval.ndim >= batch else aval.shape
        names = list(range(batch)) if aval.ndim >= batch else []
        for size in own:
            names.append(len(sizes))
            sizes.append(size)
        return '[' + ', '.join(_factor_name(n) for n in names) + ']'
    lhs = ', '.join(factors(a) for a in avals_in)
    rhs = ', '.join(factors(a) for a in avals_out)
    sized = ', '.join(f'{_factor_name(n)}={size}' for n, size in enumerate(sizes))
    return ir.Attribute.parse(f'#sdy.op_sharding_rule<({lhs})->({rhs}) {{{sized}}}, custom>')


def _factor_name(n):
    """Shardy's names of factors: ``i`` to ``z``, then ``z_1``, ``z_2``, ..."""
    return chr(ord('i') + n) if n < 18 else f'z_{n - 17}'


def info_aval(aval):
    return core.ShapedArray(aval.shape[:-2], dtypes.int32)


def full(aval, value):
    return ops.broadcast_in_dim(lowering.constant(np.array(value, aval.dtype)), aval, ())


def nan_unless(ctx, ok, x, aval, ok_aval):
    """``x`` where the kernel succeeded (``ok``, one per matrix), else NaNs (in both parts
    of a complex number, as JAX fills). As JAX builds it: ``ok`` with unit matrix axes,
    the NaNs, then ``ok`` broadcast to the matrices, constrained to ``aval``'s sharding
    under sharding in types (the result's type, which the select is not constrained to)."""
    mask_aval = aval.update(shape=(*ok_aval.shape, *[1] * (aval.ndim - ok_aval.ndim)),
                            dtype=dtypes.bool_)
    ok = ops.broadcast_in_dim(ok, mask_aval, range(ok_aval.ndim))
    nan = complex(np.nan, np.nan) if dtypes.is_complex(aval.dtype) else np.nan
    nans = full(aval, nan)
    if mask_aval.shape != aval.shape:
        ok_aval = aval.update(dtype=dtypes.bool_)
        ok = shardings.constrain_to_type(
            ctx, ops.broadcast_in_dim(ok, ok_aval, range(aval.ndim)), ok_aval)
    return hlo.SelectOp(ok, x, nans).result


def succeeded(info, info_aval, direction='EQ'):
    return ops.compare(info, full(info_aval, 0), direction, dtypes.int32)


def lowered_triu(x, aval):
    """``x`` with zeros below its diagonal, by the ops of JAX's ``_triu`` (64-bit row
    numbers offset by -1 against the column numbers)."""
    int_aval = aval.update(shape=aval.shape[-2:], dtype=dtypes.int64)
    rows = hlo.AddOp(hlo.IotaOp(lowering.tensor_type(int_aval), 0).result,
                     full(int_aval, -1)).result
    cols = hlo.IotaOp(lowering.tensor_type(int_aval), 1).result
    below = ops.compare(rows, cols, 'GE', dtypes.int64)
    if aval.ndim > 2:
        below = ops.broadcast_in_dim(below, aval.update(dtype=dtypes.bool_),
                                     (aval.ndim - 2, aval.ndim - 1))
    return hlo.SelectOp(below, full(aval, 0), x).result
