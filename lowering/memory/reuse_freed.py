"""The `reuse-freed` pass: an allocation takes the buffer freed just before it.

A loop that computes a new array from the one it carries (LocVolCalib's time steps:
`loop (myResult) = for ... do rollback(..., myResult, ...)`) frees the previous
iteration's array, under its ownership flag, once the last read of it is done, and then
allocates the next one: one allocation per iteration that `hoist-allocs` cannot remove,
since the new array outlives its iteration. When a free and then an allocation of the
same type follow each other in one block, the allocation reuses the freed buffer if the
sizes agree (and the flag says the block owned it):

    scf.if %owned { memref.dealloc %old }          %fits = %owned && dims(%old) == sizes
    ...                                       =>   ...
    %new = memref.alloc(sizes)                      %new = scf.if %fits { yield %old }
                                                          else { free %old if %owned;
                                                                 yield alloc(sizes) }

Nothing reads `%old` after its free (dealloc placed it after the last use of anything
that may alias it), so its contents are garbage, as a fresh buffer's are. The types must
be equal and of identity layout: `%old` is then a whole buffer, not a view into one.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder


@dataclass(frozen=True)
class ReuseFreedPass(ModulePass):
    """An allocation reuses the buffer of the same type freed before it in its block,
    when the sizes agree. Runs after `dealloc` (and `hoist-allocs`)."""

    name = "reuse-freed"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                for block in [b for o in f.walk() for r in o.regions for b in r.blocks]:
                    reuse_in_block(block)


@dataclass
class _Free:
    """A free in a block: `memref.dealloc %buffer`, alone or under `scf.if %owned`."""

    op: Operation
    buffer: SSAValue
    owned: SSAValue | None


def reuse_in_block(block: Block) -> None:
    """Pair each allocation of `block` with the latest unpaired free of its type before it."""
    frees: list[_Free] = []
    for op in list(block.ops):
        free = _as_free(op)
        if free is not None:
            frees.append(free)
            continue
        if not isinstance(op, memref.AllocOp) or not _whole_buffer(op.memref.type):
            continue
        for k in range(len(frees) - 1, -1, -1):
            if frees[k].buffer.type == op.memref.type:
                _reuse(frees.pop(k), op)
                break


def _as_free(op: Operation) -> _Free | None:
    if isinstance(op, memref.DeallocOp):
        return _Free(op, op.memref, None)
    if isinstance(op, scf.IfOp) and not op.results and not op.false_region.blocks:
        ops = list(op.true_region.block.ops)
        if len(ops) == 2 and isinstance(ops[0], memref.DeallocOp):
            return _Free(op, ops[0].memref, op.cond)
    return None


def _whole_buffer(t: object) -> bool:
    return isinstance(t, MemRefType) and isinstance(t.layout, NoneAttr)


def _reuse(free: _Free, alloc: memref.AllocOp) -> None:
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    b = CodeBuilder.before(alloc)
    dynamic = iter(alloc.dynamic_sizes)
    fits = free.owned if free.owned is not None else b.bool(True)
    for k, d in enumerate(t.get_shape()):
        if d == DYNAMIC_INDEX:
            have = b.val(memref.DimOp(free.buffer, b.index(k)))
            fits = b.andi(fits, b.cmpi("eq", have, next(dynamic)))
    old, owned, sizes = free.buffer, free.owned, list(alloc.dynamic_sizes)

    def free_old(bb: CodeBuilder) -> list[SSAValue]:
        bb.add(memref.DeallocOp.get(old))
        return []

    def fresh(bb: CodeBuilder) -> list[SSAValue]:
        if owned is None:
            free_old(bb)
        else:
            bb.if_(owned, [], free_old)
        return [bb.val(memref.AllocOp(sizes, [], t))]

    (buffer,) = b.if_(fits, [t], lambda bb: [old], fresh)
    alloc.memref.replace_all_uses_with(buffer)
    Rewriter.erase_op(alloc)
    Rewriter.erase_op(free.op)

