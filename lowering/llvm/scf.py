"""`scf` to LLVM IR: loops become header/body/exit blocks with phis, `if` a diamond.

Loop shape (LLVM's loop passes rotate it into a guarded do-while):

    pre:   br head
    head:  %iv = phi [lb, pre], [next, latch]; loop-carried phis
           br (iv < ub), body, exit           ; signed compare, as MLIR's scf.for
    body:  ...; next = iv + step; br head      ; `nsw` when step is the constant 1:
                                               ; iv < ub <= max, so iv + 1 cannot wrap
    exit:  results are the header phis

`scf.parallel` is emitted as a sequential loop nest (one loop per dimension), its
`scf.reduce` regions folding each iteration's values into the accumulators in order.

Stack memory: a loop whose body (at any depth) holds a `memref.alloca` that is not
hoisted to the function entry saves the stack pointer at the start of each iteration
and restores it at the end, so such allocas take O(1) stack, not O(iterations); the
buffer is therefore dead after its iteration, unless the loop carries memrefs (then
nothing is restored, see `memref.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import llvmlite.ir as ir
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from l0.lowering.llvm.types import LoweringError
from l0.passes.analysis.walk import walk_ops

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FunctionEmitter, Handler, Value


def carries_memrefs(op: Operation) -> bool:
    """Whether a loop passes memrefs from one iteration to the next."""
    return any(isinstance(r.type, MemRefType) for r in op.results) or any(
        isinstance(a.type, MemRefType) for region in op.regions for blk in region.blocks
        for a in blk.args
    )


def _needs_stack_scope(fe: FunctionEmitter, op: Operation) -> bool:
    if carries_memrefs(op):
        return False
    return any(isinstance(o, memref.AllocaOp) and o not in fe.entry_allocas
               for region in op.regions for o in walk_ops(region))


class _StackScope:
    """stacksave at iteration start, stackrestore at its end (when the loop needs it)."""

    def __init__(self, fe: FunctionEmitter, op: Operation) -> None:
        self.fe = fe
        self.active = _needs_stack_scope(fe, op)
        self.sp: ir.Value | None = None

    def enter(self) -> None:
        if self.active:
            self.sp = self.fe.b.call(self.fe.rt.stacksave(), [])

    def leave(self) -> None:
        if self.sp is not None:
            self.fe.b.call(self.fe.rt.stackrestore(), [self.sp])


def _emit_if(fe: FunctionEmitter, op: scf.IfOp) -> None:
    cond = fe.get(op.cond)
    then_bb = fe.block("if.then")
    has_else = bool(op.false_region.blocks) and bool(op.false_region.block.ops)
    else_bb = fe.block("if.else") if has_else else None
    merge = fe.block("if.end")
    fe.b.cbranch(cond, then_bb, else_bb or merge)
    incoming: list[tuple[Sequence[Value], ir.Block]] = []
    fe.b.position_at_end(then_bb)
    incoming.append((fe.yielded(op.true_region.block, []), fe.b.block))
    fe.b.branch(merge)
    if else_bb is not None:
        fe.b.position_at_end(else_bb)
        incoming.append((fe.yielded(op.false_region.block, []), fe.b.block))
        fe.b.branch(merge)
    fe.b.position_at_end(merge)
    if op.output:
        if else_bb is None:
            raise LoweringError("expected scf.if with results to have an else region")
        for r, v in zip(op.output, fe.merge([r.type for r in op.output], incoming), strict=True):
            fe.set(r, v)


def _emit_for(fe: FunctionEmitter, op: scf.ForOp) -> None:
    lb, ub, step = fe.get(op.lb), fe.get(op.ub), fe.get(op.step)
    pre = fe.b.block
    head, body, exit_ = fe.block("for.head"), fe.block("for.body"), fe.block("for.end")
    fe.b.branch(head)
    fe.b.position_at_end(head)
    iv = fe.b.phi(lb.type)
    iv.add_incoming(lb, pre)
    types = [a.type for a in op.iter_args]
    carried, phis = fe.loop_phis(types, [fe.any(v) for v in op.iter_args], pre)
    fe.b.cbranch(fe.b.icmp_signed("<", iv, ub), body, exit_)
    fe.b.position_at_end(body)
    scope = _StackScope(fe, op)
    scope.enter()
    new = fe.yielded(op.body.block, [iv, *carried])
    scope.leave()
    unit = isinstance(step, ir.Constant) and step.constant == 1
    nxt = fe.b.add(iv, step, flags=("nsw",) if unit else ())
    iv.add_incoming(nxt, fe.b.block)
    fe.close_loop(phis, new, fe.b.block)
    fe.b.branch(head)
    fe.b.position_at_end(exit_)
    for r, v in zip(op.res, carried, strict=True):
        fe.set(r, v)


def _emit_while(fe: FunctionEmitter, op: scf.WhileOp) -> None:
    pre = fe.b.block
    head, after, exit_ = fe.block("while.head"), fe.block("while.body"), fe.block("while.end")
    fe.b.branch(head)
    fe.b.position_at_end(head)
    types = [a.type for a in op.arguments]
    carried, phis = fe.loop_phis(types, [fe.any(v) for v in op.arguments], pre)
    scope = _StackScope(fe, op)
    scope.enter()
    term = fe.emit_region_block(op.before_region.block, carried)
    if not isinstance(term, scf.ConditionOp):
        raise LoweringError("expected scf.condition to end the before region of scf.while")
    forwarded = [fe.any(v) for v in term.args]
    fe.b.cbranch(fe.get(term.condition), after, exit_)
    fe.b.position_at_end(after)
    new = fe.yielded(op.after_region.block, forwarded)
    scope.leave()
    fe.close_loop(phis, new, fe.b.block)
    fe.b.branch(head)
    fe.b.position_at_end(exit_)
    for r, v in zip(op.res, forwarded, strict=True):
        fe.set(r, v)


def _emit_parallel(fe: FunctionEmitter, op: scf.ParallelOp) -> None:
    accs = [fe.any(v) for v in op.initVals]
    results = _parallel_level(fe, op, 0, accs, [])
    for r, v in zip(op.res, results, strict=True):
        fe.set(r, v)


def _parallel_level(fe: FunctionEmitter, op: scf.ParallelOp, k: int, accs: list[Value],
                    ivs: list[ir.Value]) -> list[Value]:
    """Loop over dimension `k` (the body when all are open); return the accumulators."""
    if k == len(op.lowerBound):
        return _parallel_body(fe, op, accs, ivs)
    lb, ub, step = fe.get(op.lowerBound[k]), fe.get(op.upperBound[k]), fe.get(op.step[k])
    pre = fe.b.block
    head, body, exit_ = fe.block("par.head"), fe.block("par.body"), fe.block("par.end")
    fe.b.branch(head)
    fe.b.position_at_end(head)
    iv = fe.b.phi(lb.type)
    iv.add_incoming(lb, pre)
    types = [v.type for v in op.initVals]
    carried, phis = fe.loop_phis(types, accs, pre)
    fe.b.cbranch(fe.b.icmp_signed("<", iv, ub), body, exit_)
    fe.b.position_at_end(body)
    scope = _StackScope(fe, op) if k == len(op.lowerBound) - 1 else None
    if scope is not None:
        scope.enter()
    new = _parallel_level(fe, op, k + 1, carried, [*ivs, iv])
    if scope is not None:
        scope.leave()
    unit = isinstance(step, ir.Constant) and step.constant == 1
    iv.add_incoming(fe.b.add(iv, step, flags=("nsw",) if unit else ()), fe.b.block)
    fe.close_loop(phis, new, fe.b.block)
    fe.b.branch(head)
    fe.b.position_at_end(exit_)
    return carried


def _parallel_body(fe: FunctionEmitter, op: scf.ParallelOp, accs: list[Value],
                   ivs: list[ir.Value]) -> list[Value]:
    term = fe.emit_region_block(op.body.block, ivs)
    if not isinstance(term, scf.ReduceOp):
        raise LoweringError("expected scf.reduce to end the body of scf.parallel")
    out: list[Value] = []
    for acc, arg, region in zip(accs, term.args, term.reductions, strict=True):
        ret = fe.emit_region_block(region.block, [acc, fe.any(arg)])
        if not isinstance(ret, scf.ReduceReturnOp):
            raise LoweringError("expected scf.reduce.return to end a reduction region")
        out.append(fe.any(ret.result))
    return out


def _emit_index_switch(fe: FunctionEmitter, op: scf.IndexSwitchOp) -> None:
    flag = fe.get(op.arg)
    default = fe.block("switch.default")
    merge = fe.block("switch.end")
    sw = fe.b.switch(flag, default)
    incoming: list[tuple[Sequence[Value], ir.Block]] = []
    for value, region in zip(op.cases.get_values(), op.case_regions, strict=True):
        bb = fe.block("switch.case")
        sw.add_case(ir.Constant(flag.type, int(value)), bb)
        fe.b.position_at_end(bb)
        incoming.append((fe.yielded(region.block, []), fe.b.block))
        fe.b.branch(merge)
    fe.b.position_at_end(default)
    incoming.append((fe.yielded(op.default_region.block, []), fe.b.block))
    fe.b.branch(merge)
    fe.b.position_at_end(merge)
    for r, v in zip(op.output, fe.merge([r.type for r in op.output], incoming), strict=True):
        fe.set(r, v)


def _emit_execute_region(fe: FunctionEmitter, op: scf.ExecuteRegionOp) -> None:
    incoming: list[tuple[Sequence[Value], ir.Block]] = []
    merge = fe.block("region.end")

    def on_exit(term: Operation) -> None:
        if not isinstance(term, scf.YieldOp):
            raise LoweringError(f"expected scf.yield to leave scf.execute_region, "
                                f"found {term.name}")
        incoming.append(([fe.any(v) for v in term.operands], fe.b.block))
        fe.b.branch(merge)

    fe.emit_cfg(op.region, [], on_exit)
    fe.b.position_at_end(merge)
    for r, v in zip(op.outs, fe.merge([r.type for r in op.outs], incoming), strict=True):
        fe.set(r, v)


HANDLERS: dict[type[Operation], Handler] = {
    scf.IfOp: cast("Handler", _emit_if),
    scf.ForOp: cast("Handler", _emit_for),
    scf.WhileOp: cast("Handler", _emit_while),
    scf.ParallelOp: cast("Handler", _emit_parallel),
    scf.IndexSwitchOp: cast("Handler", _emit_index_switch),
    scf.ExecuteRegionOp: cast("Handler", _emit_execute_region),
}

