"""Structured control flow and calls in the interpreter: `scf.for`, `scf.if`,
`scf.while` and `func.call` (L0's `loop`, `if` and function calls, `docs/ir.md`).

They become Python `for`/`if`/`while` statements over the region's code, inlined into
the enclosing generated function (Note [Compiling to Python] in core.py); a region's
block arguments are plain Python locals assigned before each iteration.
"""

from __future__ import annotations

from typing import NoReturn

from xdsl.dialects import func, scf
from xdsl.ir import Operation

from l0.interp.core import Emitter, InternalError, assign, emits, helper


@helper
def bad_step(step: int) -> NoReturn:
    raise InternalError(f"scf.for with a step of {step}: expected a positive step")


def _yielded(e: Emitter, term: Operation | None, expected: str) -> list[str]:
    if term is None or term.name != expected:
        found = "nothing" if term is None else term.name
        raise InternalError(f"expected a region ending in {expected}, found {found}")
    return e.names(term.operands)


@emits("scf.for")
def _for(e: Emitter, op: Operation) -> None:
    assert isinstance(op, scf.ForOp)
    lb, ub, step = e.name(op.lb), e.name(op.ub), e.name(op.step)
    block = op.body.block
    iv, carried = block.args[0], block.args[1:]
    e.bind(carried, e.names(op.iter_args))
    e.line(f"if {step} <= 0: bad_step({step})")
    e.line(f"for {e.name(iv)} in range({lb}, {ub}, {step}):")
    with e.indented(block=True):
        ys = _yielded(e, e.emit_block(block), "scf.yield")
        e.bind(carried, ys)
    e.line(assign(e.names(op.results), e.names(carried)))


@emits("scf.if")
def _if(e: Emitter, op: Operation) -> None:
    assert isinstance(op, scf.IfOp)
    results = e.names(op.results)
    e.line(f"if {e.name(op.cond)}:")
    with e.indented():
        e.line(assign(results, _yielded(e, e.emit_block(op.true_region.block), "scf.yield")))
    if op.false_region.blocks:
        e.line("else:")
        with e.indented():
            ys = _yielded(e, e.emit_block(op.false_region.block), "scf.yield")
            e.line(assign(results, ys))
    elif results:
        raise InternalError("scf.if with results needs an else region")


@emits("scf.while")
def _while(e: Emitter, op: Operation) -> None:
    assert isinstance(op, scf.WhileOp)
    before, after = op.before_region.block, op.after_region.block
    e.bind(before.args, e.names(op.arguments))
    e.line("while True:")
    with e.indented(block=True):
        term = e.emit_block(before)
        if not isinstance(term, scf.ConditionOp):
            raise InternalError("expected the before region of scf.while to end in scf.condition")
        forwarded = e.names(term.args)
        e.line(f"if not {e.name(term.condition)}:")
        with e.indented():
            e.line(assign(e.names(op.results), forwarded))
            e.line("break")
        e.bind(after.args, forwarded)
        e.bind(before.args, _yielded(e, e.emit_block(after), "scf.yield"))


@emits("func.call")
def _call(e: Emitter, op: Operation) -> None:
    assert isinstance(op, func.CallOp)
    callee = op.callee.root_reference.data
    py = e.unit.py_names.get(callee)
    if py is None:
        raise InternalError(f"call of @{callee}, which the module does not define")
    call = f"{py}({', '.join(e.names(op.arguments))})"
    results = e.names(op.results)
    if not results:
        e.line(call)
    elif len(results) == 1:
        e.line(f"{results[0]} = {call}")
    else:
        e.line(f"{', '.join(results)} = {call}")

