"""Ownership flags: an `i1` beside every memref that crosses a region or call boundary.

A flag says whether the value it accompanies *owns* its buffer, i.e. whether whoever
receives it must eventually free it (MLIR's ownership indicators, from its
ownership-based buffer deallocation). `add_flags` threads them through a module:

* every function gets one extra `i1` result per memref result (after the others),
  every `func.return` one extra operand, every call one extra result;
* every `scf.for` one extra carried `i1` per carried memref (initial value, body
  argument, yielded value, result), after the others;
* every `scf.if` one extra `i1` result per memref result, and its yields an operand.

The extra operands start as `false` placeholders; the deallocation pass then sets
them (`Flags.set_yield_flag`, `Flags.set_init_flag`). `Flags` records where each
memref's flag is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i1,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.memory.dealloc.aliases import is_memref
from l0.passes.analysis.walk import walk_ops

ENTRY_ATTR = "l0.entry"
"""Marks a public wrapper (see `l0.lowering.memory.dealloc`): its results carry no flags."""


@dataclass
class Flags:
    """Where the ownership flag of each boundary-crossing memref is."""

    of_value: dict[SSAValue, SSAValue] = field(default_factory=lambda: {})
    """A memref result of a call / loop / branch, or a loop body's carried memref ->
    its flag (a result, or the body's block argument)."""

    def flag(self, v: SSAValue) -> SSAValue | None:
        return self.of_value.get(v)

    @staticmethod
    def set_terminator_flag(term: Operation, k: int, flag: SSAValue) -> None:
        """Set the flag of memref operand `k` of a terminator (yield or return)."""
        memrefs = [i for i, v in enumerate(term.operands) if is_memref(v)]
        n = len(term.operands) - len(memrefs)
        term.operands[n + memrefs.index(k)] = flag

    @staticmethod
    def set_init_flag(loop: scf.ForOp, k: int, flag: SSAValue) -> None:
        """Set the initial flag of the loop's carried memref `k` (an iter_args index)."""
        inits = list(loop.iter_args)
        memrefs = [i for i, v in enumerate(inits) if is_memref(v)]
        n = len(inits) - len(memrefs)
        loop.operands[3 + n + memrefs.index(k)] = flag


def _false_before(op: Operation) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(0, i1))
    Rewriter.insert_op(c, InsertPoint.before(op))
    return c.result


def _append_false(term: Operation, count: int) -> None:
    """Give a terminator `count` extra `false` operands."""
    if count == 0:
        return
    f = _false_before(term)
    term.operands = [*term.operands, *[f] * count]


def _memref_count(values: list[SSAValue] | list[object]) -> int:
    return sum(1 for v in values if isinstance(v, SSAValue) and is_memref(v))


def add_flags(module: ModuleOp) -> Flags:
    """Thread ownership flags through `module` (module docstring)."""
    flags = Flags()
    for f in module.ops:
        if isinstance(f, func.FuncOp) and ENTRY_ATTR not in f.attributes:
            _function(f)
    for op in list(walk_ops(module)):
        if isinstance(op, func.CallOp):
            _call(op, flags)
        elif isinstance(op, scf.ForOp):
            _for(op, flags)
        elif isinstance(op, scf.IfOp):
            _if(op, flags)
    return flags


def _function(f: func.FuncOp) -> None:
    outs = list(f.function_type.outputs.data)
    count = sum(1 for t in outs if _is_memref_type(t))
    if count == 0:
        return
    f.properties["function_type"] = FunctionType.from_lists(
        list(f.function_type.inputs.data), [*outs, *[i1] * count])
    if f.res_attrs is not None:
        f.res_attrs = ArrayAttr([*f.res_attrs.data, *[DictionaryAttr({})] * count])
    for block in f.body.blocks:
        term = block.last_op
        if isinstance(term, func.ReturnOp):
            _append_false(term, count)


def _is_memref_type(t: object) -> bool:
    return isinstance(t, MemRefType)


def _call(op: func.CallOp, flags: Flags) -> None:
    memrefs = [r for r in op.res if is_memref(r)]
    if not memrefs:
        return
    new = func.CallOp(op.callee, list(op.arguments),
                      [*op.result_types, *[i1] * len(memrefs)])
    Rewriter.insert_op(new, InsertPoint.before(op))
    for old, r in zip(op.res, new.res, strict=False):
        old.replace_all_uses_with(r)
    for r, f in zip([r for r in new.res[: len(op.res)] if is_memref(r)],
                    new.res[len(op.res):], strict=True):
        flags.of_value[r] = f
    Rewriter.erase_op(op)


def _for(op: scf.ForOp, flags: Flags) -> None:
    inits = list(op.iter_args)
    count = _memref_count(inits)
    if count == 0:
        return
    body = op.detach_region(op.body)
    block = body.block
    false = _false_before(op)
    new = scf.ForOp(op.lb, op.ub, op.step, [*inits, *[false] * count], body)
    Rewriter.insert_op(new, InsertPoint.before(op))
    n = len(block.args)
    flag_args = [block.insert_arg(i1, n + j) for j in range(count)]
    carried = [a for a in block.args[1:n] if is_memref(a)]
    for a, f in zip(carried, flag_args, strict=True):
        flags.of_value[a] = f
    term = block.last_op
    assert term is not None
    _append_false(term, count)
    for old, r in zip(op.results, new.results, strict=False):
        old.replace_all_uses_with(r)
    results = [r for r in new.results[: len(inits)] if is_memref(r)]
    for r, flag in zip(results, new.results[len(inits):], strict=True):
        flags.of_value[r] = flag
    Rewriter.erase_op(op)


def _if(op: scf.IfOp, flags: Flags) -> None:
    types = list(op.result_types)
    count = sum(1 for t in types if _is_memref_type(t))
    if count == 0:
        return
    then_region, else_region = op.true_region, op.false_region
    op.detach_region(then_region)
    op.detach_region(else_region)
    new = scf.IfOp(op.cond, [*types, *[i1] * count], then_region, else_region)
    Rewriter.insert_op(new, InsertPoint.before(op))
    for region in (then_region, else_region):
        for block in region.blocks:
            term = block.last_op
            assert term is not None
            _append_false(term, count)
    for old, r in zip(op.results, new.results, strict=False):
        old.replace_all_uses_with(r)
    results = [r for r in new.results[: len(types)] if is_memref(r)]
    for r, f in zip(results, new.results[len(types):], strict=True):
        flags.of_value[r] = f
    Rewriter.erase_op(op)
