"""Running a StableHLO module in the StableHLO reference interpreter shipped with jaxlib.

The interpreter executes the ops as the StableHLO specification defines them, independently
of XLA: running one module both ways cross-checks minijax's lowering and XLA's compilation
(``minijax run --backend interpreter``, and tests). It is slow; use it on small inputs.

The interpreter aborts the whole process (LLVM ERROR, SIGFPE) on what it does not support,
misreads ``dense_resource`` constants and gets an IRFFT to an odd number of points wrong (one
to no points aborts). So ``run_module`` first walks the module and refuses the known cases
with an ``InterpreterError`` naming the op or type; then it runs the interpreter in a child
process (``minijax.isolation``), so that a crash it could not foresee (an integer division by
zero, whose operands are only known at run time, or an op not in the list) becomes an
``InterpreterError`` too. The module travels to the child as bytecode. A run costs about
10 ms more than in-process (the first one starts the fork server: about 0.4 s), against
0.4 ms for interpreting a 160-op module: cheap for a tool that is slow anyway.
"""
from __future__ import annotations

import io
import signal
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import stablehlo

from minijax.isolation import Crashed, call_isolated
from minijax.lowering.context import new_context
from minijax.lowering.module import main_function
from minijax.lowering.types import dense_elements


class InterpreterError(RuntimeError):
    """The reference interpreter cannot run this module: an op, a type or a value it does not
    support. Nothing was computed."""


def run_module(module: ir.Module, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Evaluate ``module``'s ``@main`` on NumPy arguments; return NumPy results."""
    check_runnable(module)
    args = [np.require(a, requirements='C') for a in args]
    bytecode = io.BytesIO()
    module.operation.write_bytecode(bytecode)
    ok, value = _in_child_process(_evaluate, bytecode.getvalue(), args)
    if not ok:
        raise InterpreterError(f'the reference interpreter failed: {value}')
    return value


def _evaluate(bytecode: bytes, args: list[np.ndarray]) -> tuple[bool, list[np.ndarray] | str]:
    """(in the child process) Run the module serialized as ``bytecode``: (True, the results),
    or (False, what the interpreter said went wrong), which its ValueError leaves out (it
    reports the cause, such as arguments that do not match ``@main``'s types or the op that
    failed, as MLIR diagnostics)."""
    with new_context(multithreaded=False) as ctx:
        diagnostics = []
        ctx.attach_diagnostic_handler(lambda d: diagnostics.append(_described(d)) or True)
        module = ir.Module.parse(bytecode)
        _legalize_chlo(module)
        _copy_scatter_operands(module)
        attrs = [dense_elements(a) for a in args]
        try:
            return True, [np.array(result) for result in stablehlo.eval_module(module, attrs)]
        except ValueError as err:
            return False, '; '.join(diagnostics) or str(err)


def _legalize_chlo(module: ir.Module) -> None:
    """``chlo`` ops (which minijax and JAX write for ``erf``, ``top_k``...) rewritten into
    StableHLO, the only dialect the interpreter runs (XLA legalizes them itself)."""
    passmanager.PassManager.parse(
        'builtin.module(func.func(chlo-legalize-to-stablehlo))').run(module.operation)


def _described(diagnostic) -> str:
    """An MLIR diagnostic as one line: its message, and where, when it is known."""
    where = str(diagnostic.location)
    return diagnostic.message + ('' if where == 'loc(unknown)' else f' (at {where})')


def _copy_scatter_operands(module: ir.Module) -> None:
    """Give each ``stablehlo.scatter`` copies of the tensors it scatters into: the interpreter
    updates them in place, so every other reader of the same value (a result returned as it
    is, a later op) would see the scattered values (jaxlib 0.10.2). A ``convert`` to the same
    type makes the copy."""
    scatters = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == 'stablehlo.scatter':
            scatters.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in scatters:
        with ir.InsertionPoint(op), op.location:
            for i in range((len(op.operands) - 1) // 2):  # inputs..., indices, updates...
                value = op.operands[i]
                op.operands[i] = stablehlo.ConvertOp(value.type, value).result

# ----------------------------------------------------------------------------- before running

#: Ops the interpreter aborts on (checked on jaxlib 0.10.2), with the reason shown.
_UNSUPPORTED_OPS = {
    'stablehlo.custom_call': 'a custom call runs code outside StableHLO',
    **dict.fromkeys(
        ['stablehlo.dot', 'stablehlo.einsum', 'stablehlo.unary_einsum', 'stablehlo.broadcast',
         'stablehlo.cross-replica-sum', 'stablehlo.rng', 'stablehlo.rng_bit_generator',
         'stablehlo.create_token'],
        'the interpreter does not implement it (see openxla/stablehlo issue 1571)'),
}
_DIALECTS = ('builtin', 'func', 'stablehlo', 'chlo')  # (chlo: legalized first)
#: Element types whose values come back to NumPy (the interpreter aborts on the others).
_RESULT_ELEMENT_TYPES = (ir.F16Type, ir.F32Type, ir.F64Type, ir.IntegerType)


def check_runnable(module: ir.Module) -> None:
    """Raise an InterpreterError for what the interpreter is known to crash or err on."""
    problems = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        problems.append(_unsupported(op))
        return ir.WalkResult.INTERRUPT if problems[-1] else ir.WalkResult.ADVANCE

    with module.context:
        _check_signature(_main(module))
        module.operation.walk(visit)
    if problems[-1]:
        raise InterpreterError(f'the reference interpreter cannot run {problems[-1]}')


def _main(module: ir.Module):
    main = main_function(module)
    if main is None:
        raise InterpreterError('the module has no @main function to run')
    return main


def _check_signature(main) -> None:
    function_type = ir.FunctionType(ir.TypeAttr(main.attributes['function_type']).value)
    for kind, types in (('argument', function_type.inputs), ('result', function_type.results)):
        for i, t in enumerate(types):
            if not (isinstance(t, ir.RankedTensorType)
                    and isinstance(t.element_type, _RESULT_ELEMENT_TYPES)):
                raise InterpreterError(f'@main {kind} {i} has type {t}: the reference '
                                       'interpreter exchanges only tensors of integers or '
                                       'f16/f32/f64 (no tuples, complex or bf16 values)')


def _unsupported(op: ir.Operation) -> str | None:
    """What the interpreter cannot run in ``op`` itself (not its regions), or None."""
    name = op.name
    if name == 'stablehlo.custom_call':  # (name the kernel: a lax.linalg decomposition)
        target = ir.StringAttr(op.attributes['call_target_name']).value
        return f"{name} @{target}: {_UNSUPPORTED_OPS[name]}"
    if name.split('.')[0] not in _DIALECTS or name in _UNSUPPORTED_OPS:
        return f"{name}: {_UNSUPPORTED_OPS.get(name, 'it runs only StableHLO and func ops')}"
    if name == 'stablehlo.constant' and _is_dense_resource(op):
        return f'{name} of a dense_resource value: it misreads resource blobs'
    if name == 'stablehlo.dot_general' and _contracts_zero_elements(op):
        return f'{name} contracting a zero-size dimension'
    if name == 'stablehlo.dot_general' and _narrows_its_sum(op):
        return (f'{name} to a narrower or other result type than its operands\' (it converts '
                'the operands to it first; XLA converts the sum)')
    if name == 'stablehlo.fft':
        return _irfft_problem(op)
    return None


def _is_dense_resource(constant: ir.Operation) -> bool:
    try:  # (the bindings cannot read a complex dense value back: a dense one, no resource)
        attr = constant.attributes['value']
    except TypeError:
        return False
    try:  # (the bindings do not downcast a resource: isinstance says no)
        ir.DenseResourceElementsAttr(attr)
    except ValueError:
        return False
    return True


def _irfft_problem(fft: ir.Operation) -> str | None:
    """An IRFFT to an odd number of points, whose result is wrong even for a Hermitian
    spectrum, or to none, which aborts the interpreter (jaxlib 0.10.2; the other lengths
    and kinds agree with XLA)."""
    if stablehlo.FftTypeAttr(fft.attributes['fft_type']).value != 'IRFFT':
        return None
    lengths = ir.DenseI64ArrayAttr(fft.attributes['fft_length'])
    n = lengths[len(lengths) - 1]
    if n == 0:
        return f'{fft.name} IRFFT to no points: the interpreter aborts'
    if n % 2 == 1:
        return f'{fft.name} IRFFT to an odd number of points: the interpreter computes it wrongly'
    return None


def _narrows_its_sum(dot_general: ir.Operation) -> bool:
    """Whether the result's element type is no widening of the operands' (float64 to float32,
    float32 to int32: a ``preferred_element_type``)."""
    result = ir.RankedTensorType(dot_general.result.type).element_type
    return any(not _widens(ir.RankedTensorType(x.type).element_type, result)
               for x in dot_general.operands)


def _widens(element: ir.Type, result: ir.Type) -> bool:
    if element == result:
        return True
    if isinstance(element, ir.FloatType) and isinstance(result, ir.FloatType):
        return result.width > element.width
    return (isinstance(element, ir.IntegerType) and isinstance(result, ir.IntegerType)
            and element.is_signed == result.is_signed and result.width > element.width)


def _contracts_zero_elements(dot_general: ir.Operation) -> bool:
    numbers = stablehlo.DotDimensionNumbers(dot_general.attributes['dot_dimension_numbers'])
    lhs_shape = ir.RankedTensorType(dot_general.operands[0].type).shape
    return any(lhs_shape[d] == 0 for d in numbers.lhs_contracting_dimensions)

# ----------------------------------------------------------------------------- the safety net


def _in_child_process(fn, *args):
    """``fn(*args)`` in a child process: its result, or an InterpreterError (naming the
    crash) if it raised or died from a signal."""
    try:
        return call_isolated(fn, *args)
    except Crashed as crash:
        if crash.signal_number is None:
            raise InterpreterError(f'the reference interpreter failed: {crash}') from None
        raise InterpreterError(_crash_message(crash.signal_number, crash.last_line)) from None


def _crash_message(signal_number: int, last_line: str) -> str:
    name = signal.Signals(signal_number).name
    if signal_number == signal.SIGFPE:
        cause = 'an integer division (stablehlo.divide or remainder) by zero'
    else:
        cause = f'an op or value it does not support ({last_line or "no message"})'
    return f'the reference interpreter crashed ({name}) running this module: {cause}'
