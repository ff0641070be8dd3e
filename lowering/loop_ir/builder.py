"""`CodeBuilder`: builds loop-level IR (arith, memref, scf, soac.assert) at a point.

Bufferisation, the SOAC lowering and deallocation all emit the same small vocabulary:
i64 arithmetic (L0 sizes and indices are i64; memref indices are `index`, converted
with free `arith.index_cast`s), memref access and views, `scf.for` loops with i64
induction variables, `scf.if`, and run-time checks as `soac.assert`. Each helper
inserts its ops at the builder's insertion point and returns the result value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.dialects import soac
from l0.dialects.memref_types import row_of

_Op = TypeVar("_Op", bound=Operation)

INDEX = IndexType()

LoopBody = Callable[["CodeBuilder", SSAValue, Sequence[SSAValue]], Sequence[SSAValue]]
"""A loop body: (builder at the end of the body, induction variable, carried values)
-> the values carried to the next iteration."""

Branch = Callable[["CodeBuilder"], Sequence[SSAValue]]


def _uncast(v: SSAValue, t: Attribute) -> SSAValue | None:
    """The operand of the `arith.index_cast` defining `v` if it already has type `t`."""
    if isinstance(v, OpResult) and isinstance(v.op, arith.IndexCastOp) and v.op.input.type == t:
        return v.op.input
    return None


class CodeBuilder:
    """Inserts ops at a fixed point (before an op, or at the end of a block)."""

    def __init__(self, ip: InsertPoint) -> None:
        self.ip = ip

    @staticmethod
    def before(op: Operation) -> CodeBuilder:
        return CodeBuilder(InsertPoint.before(op))

    @staticmethod
    def after(op: Operation) -> CodeBuilder:
        return CodeBuilder(InsertPoint.after(op))

    @staticmethod
    def at_end(block: Block) -> CodeBuilder:
        return CodeBuilder(InsertPoint.at_end(block))

    @staticmethod
    def at_start(block: Block) -> CodeBuilder:
        return CodeBuilder(InsertPoint.at_start(block))

    def add(self, op: _Op) -> _Op:
        Rewriter.insert_op(op, self.ip)
        return op

    def val(self, op: Operation) -> SSAValue:
        """Insert `op` and return its only result."""
        return self.add(op).results[0]

    # -- constants and conversions ------------------------------------------------------

    def i64(self, n: int) -> SSAValue:
        return self.val(arith.ConstantOp(IntegerAttr(n, i64)))

    def index(self, n: int) -> SSAValue:
        return self.val(arith.ConstantOp(IntegerAttr(n, INDEX)))

    def bool(self, b: bool) -> SSAValue:
        return self.val(arith.ConstantOp(IntegerAttr(int(b), i1)))

    def to_index(self, v: SSAValue) -> SSAValue:
        if isinstance(v.type, IndexType):
            return v
        return _uncast(v, INDEX) or self.val(arith.IndexCastOp(v, INDEX))

    def to_i64(self, v: SSAValue) -> SSAValue:
        if v.type == i64:
            return v
        return _uncast(v, i64) or self.val(arith.IndexCastOp(v, i64))

    # -- i64 arithmetic -----------------------------------------------------------------

    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.AddiOp(a, b))

    def subi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.SubiOp(a, b))

    def muli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.MuliOp(a, b))

    def maxsi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.MaxSIOp(a, b))

    def cmpi(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.CmpiOp(a, b, pred))

    def andi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.AndIOp(a, b))

    def ori(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.OrIOp(a, b))

    def xori(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.XOrIOp(a, b))

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.val(arith.SelectOp(c, a, b))

    def all_of(self, conds: Sequence[SSAValue]) -> SSAValue:
        if not conds:
            return self.bool(True)
        acc = conds[0]
        for c in conds[1:]:
            acc = self.andi(acc, c)
        return acc

    def product(self, values: Sequence[SSAValue]) -> SSAValue:
        if not values:
            return self.i64(1)
        acc = values[0]
        for v in values[1:]:
            acc = self.muli(acc, v)
        return acc

    # -- memrefs ------------------------------------------------------------------------

    def dim(self, m: SSAValue, k: int) -> SSAValue:
        """Size `k` of memref `m`, as i64."""
        return self.to_i64(self.val(memref.DimOp(m, self.index(k))))

    def dims(self, m: SSAValue) -> list[SSAValue]:
        t = m.type
        assert isinstance(t, MemRefType)
        return [self.dim(m, k) for k in range(t.get_num_dims())]

    def alloc(self, t: MemRefType, sizes: Sequence[SSAValue]) -> SSAValue:
        """A fresh buffer of identity type `t` with i64 `sizes` (all dimensions dynamic)."""
        return self.val(memref.AllocOp([self.to_index(s) for s in sizes], [], t))

    def load(self, m: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        return self.val(memref.LoadOp.get(m, [self.to_index(i) for i in indices]))

    def store(self, v: SSAValue, m: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.add(memref.StoreOp.get(v, m, [self.to_index(i) for i in indices]))

    def subview(self, m: SSAValue, offsets: Sequence[SSAValue | int],
                sizes: Sequence[SSAValue | int], result_type: Attribute) -> SSAValue:
        """`memref.subview` with unit steps; i64 offsets and sizes (ints are static).
        Leading static sizes of 1 are dropped when `result_type` has a lower rank."""
        offs = [o if isinstance(o, int) else self.to_index(o) for o in offsets]
        szs = [s if isinstance(s, int) else self.to_index(s) for s in sizes]
        return self.val(memref.SubviewOp.get(m, offs, szs, [1] * len(sizes), result_type))

    def row(self, m: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """`m[indices]`: an element (a load) or a view of lower rank."""
        t = m.type
        assert isinstance(t, MemRefType)
        rank = t.get_num_dims()
        if len(indices) == rank:
            return self.load(m, indices)
        rest = [self.dim(m, k) for k in range(len(indices), rank)]
        return self.subview(m, [*indices, *[0] * len(rest)], [*[1] * len(indices), *rest],
                            row_of(t, len(indices)))

    def copy(self, src: SSAValue, dst: SSAValue) -> None:
        self.add(memref.CopyOp(src, dst))

    def cast(self, v: SSAValue, t: Attribute) -> SSAValue:
        if v.type == t:
            return v
        assert isinstance(t, MemRefType)
        return self.val(memref.CastOp.get(v, t))

    # -- control flow -------------------------------------------------------------------

    def inline(self, region: Region, args: Sequence[SSAValue]) -> Operation:
        """Inline a copy of `region`'s single block here with its arguments bound to
        `args`; return the copied terminator (still in place: the caller reads and
        erases it)."""
        copy = region.clone().block
        term = copy.last_op
        assert term is not None
        Rewriter.inline_block(copy, self.ip, list(args))
        return term

    def for_(self, lb: SSAValue, ub: SSAValue, carried: Sequence[SSAValue],
             body: LoopBody, step: SSAValue | None = None) -> list[SSAValue]:
        """`scf.for %i = lb to ub step 1` (i64 bounds unless given otherwise) carrying
        `carried`."""
        if step is None:
            step = self.i64(1)
        block = Block(arg_types=[lb.type, *[c.type for c in carried]])
        inner = CodeBuilder.at_end(block)
        nexts = body(inner, block.args[0], block.args[1:])
        inner.add(scf.YieldOp(*nexts))
        op = self.add(scf.ForOp(lb, ub, step, list(carried), Region(block)))
        return list(op.results)

    def if_(self, cond: SSAValue, types: Sequence[Attribute], then: Branch,
            otherwise: Branch | None = None) -> list[SSAValue]:
        """`scf.if` with results of `types` (an else branch is required when there are
        results)."""
        then_block = Block()
        then_b = CodeBuilder.at_end(then_block)
        then_b.add(scf.YieldOp(*then(then_b)))
        else_region = None
        if otherwise is not None:
            else_block = Block()
            else_b = CodeBuilder.at_end(else_block)
            else_b.add(scf.YieldOp(*otherwise(else_b)))
            else_region = Region(else_block)
        op = self.add(scf.IfOp(cond, list(types), Region(then_block), else_region))
        return list(op.results)

    def check(self, cond: SSAValue, msg: str, loc: str,
              values: Sequence[SSAValue] = ()) -> SSAValue:
        """A run-time check: `soac.assert` (the back end reports `msg` at `loc`)."""
        return self.val(soac.AssertOp(cond, msg, loc, [self.to_i64(v) for v in values]))
