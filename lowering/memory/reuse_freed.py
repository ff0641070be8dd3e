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

Note [Reuse across iterations]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A loop whose body reads the array it carries while it writes the next one (a radix
sort's pass: the keys are read while the partition writes the next keys) allocates the
next array before it frees the one it carries: nothing to pair in the block, and a fresh
buffer per iteration (16 MB per pass at 2 * 10^6 keys: the page faults of fresh memory
were a tenth of the sort's time). The free of iteration i can serve the allocation of
iteration i + 1 instead, a double buffer: the loop carries one more buffer, the spare,
and whether it owns it (not before the first iteration; an owned spare left after the
loop is freed there). Where the body frees the carried array
(`scf.if %owned { memref.dealloc %keys }`), the spare becomes that array, owned, when the
body owned it and it starts its buffer with unit stride (`memref.extract_strided_metadata`:
offset 0, stride 1, so its buffer holds at least its length); else the body frees it if
owned, as before, and the spare is not owned (a view never used). The allocation takes
an owned spare when the sizes agree, as above, else frees it (if owned) and allocates;
nothing is allocated that was not before. Only a one-dimensional allocation of the
carried array's element type, in the loop's body before the free, is paired, and only in
a loop outside every parallel loop (each parallel iteration would carry a spare of its
own).

It is off unless asked for (`reuse-freed{across_iterations=true}`): on the radix sort
(2 * 10^6 keys, 16 passes, 20 allocations per run of `main` down to 6) it measured
5-10% slower on `cpu` than a fresh buffer per pass (three alternating rounds of 9 runs,
medians 209/220, 182/187, 172/194 ms without/with). glibc serves the fresh 16 MB buffers
without new page faults once the first has been freed (its mmap threshold rises to
their size), so little is saved, while a buffer that is either the spare or a new one
has no allocation site of its own for the alias scopes LLVM is given
(`l0.lowering.llvm.alias`: 8 scoped accesses in the sort's LLVM IR, 6 with the reuse),
the likely cost; not investigated further.
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
from l0.lowering.loop_ir.parallel_loops import nested_in_parallel
from l0.lowering.memory.memory_plan import add_carried, append_yield
from l0.passes.analysis.walk import walk_ops


@dataclass(frozen=True)
class ReuseFreedPass(ModulePass):
    """An allocation reuses the buffer of the same type freed before it in its block,
    when the sizes agree (with `{across_iterations=true}`, also the one a loop's
    previous iteration freed: Note [Reuse across iterations]). Runs after `dealloc`
    (and `hoist-allocs`)."""

    name = "reuse-freed"

    across_iterations: bool = False
    """Also reuse, in a loop, the buffer the previous iteration freed (Note [Reuse across
    iterations]): off by default, as it measured slower than a fresh buffer per pass."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                for block in [b for o in walk_ops(f) for r in o.regions for b in r.blocks]:
                    reuse_in_block(block)
                if not self.across_iterations:
                    continue
                for loop in [o for o in walk_ops(f) if isinstance(o, scf.ForOp)]:
                    rebuilt: scf.ForOp | None = loop
                    while rebuilt is not None:
                        rebuilt = reuse_across_iterations(rebuilt)


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



def reuse_across_iterations(loop: scf.ForOp) -> scf.ForOp | None:
    """Pair one allocation of `loop`'s body with the free of the array it carries
    (Note [Reuse across iterations]); the rebuilt loop, None when nothing pairs. Not
    in a parallel loop's body, where the empty spare would be an allocation per
    parallel iteration."""
    if nested_in_parallel(loop):
        return None
    body = loop.body.block
    carried = set(body.args[1:])
    for op in body.ops:
        free = _as_free(op)
        if free is None or free.buffer not in carried or _paired(free.buffer):
            continue
        t = free.buffer.type
        if not isinstance(t, MemRefType) or t.get_num_dims() != 1:
            continue
        for alloc in body.ops:
            if alloc is free.op:
                break
            at = alloc.memref.type if isinstance(alloc, memref.AllocOp) else None
            if isinstance(at, MemRefType) and _whole_buffer(at) and at.get_num_dims() == 1 \
                    and at.get_shape()[0] == DYNAMIC_INDEX \
                    and at.element_type == t.element_type:
                assert isinstance(alloc, memref.AllocOp)
                return _double_buffer(loop, alloc, free)
    return None


def _paired(buffer: SSAValue) -> bool:
    """Whether the free of the carried `buffer` was paired already (it is then
    asked where it starts: `_double_buffer`)."""
    return any(isinstance(u.operation, memref.ExtractStridedMetaDataOp) for u in buffer.uses)


def _whole_view(b: CodeBuilder, v: SSAValue, t: MemRefType) -> SSAValue:
    """`v` (one-dimensional) seen as `t`, a buffer of its length from offset 0 with unit
    stride: only a descriptor, right where `v` starts its buffer with unit stride."""
    return b.val(memref.ReinterpretCastOp.from_dynamic(
        v, [0], [b.val(memref.DimOp(v, b.index(0)))], [1], t))


def _double_buffer(loop: scf.ForOp, alloc: memref.AllocOp, free: _Free) -> scf.ForOp:
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    body = loop.body.block
    (position,) = [k for k, a in enumerate(body.args) if a is free.buffer]
    init = loop.iter_args[position - 1]
    before = CodeBuilder.before(loop)
    none = before.bool(False)
    loop, spare = add_carried(loop, _whole_view(before, init, t))  # not owned: unused
    loop, spare_owned = add_carried(loop, none)
    # The allocation takes the spare when it owns one that fits, else frees it (if
    # owned) and allocates.
    b = CodeBuilder.before(alloc)
    (size,) = alloc.dynamic_sizes
    fits = b.andi(spare_owned, b.cmpi("eq", b.val(memref.DimOp(spare, b.index(0))), size))

    def free_spare(fb: CodeBuilder) -> list[SSAValue]:
        fb.add(memref.DeallocOp.get(spare))
        return []

    def fresh(bb: CodeBuilder) -> list[SSAValue]:
        bb.if_(spare_owned, [], free_spare)
        return [bb.val(memref.AllocOp([size], [], t))]

    (buffer,) = b.if_(fits, [t], lambda bb: [spare], fresh)
    alloc.memref.replace_all_uses_with(buffer)
    Rewriter.erase_op(alloc)
    # The free of the carried array: the array is the next spare when owned and whole
    # from its start; else it is freed if owned, and the next spare is not owned.
    old = free.buffer
    b = CodeBuilder.before(free.op)
    md = b.add(memref.ExtractStridedMetaDataOp(old))
    start = b.andi(b.cmpi("eq", md.offset, b.index(0)),
                   b.cmpi("eq", md.strides[0], b.index(1)))
    owned = free.owned if free.owned is not None else b.bool(True)
    keep = b.andi(owned, start)
    nxt = _whole_view(b, old, t)

    def free_old(fb: CodeBuilder) -> list[SSAValue]:
        fb.add(memref.DeallocOp.get(old))
        return []

    b.if_(b.andi(owned, b.xori(keep, b.bool(True))), [], free_old)
    Rewriter.erase_op(free.op)
    append_yield(loop, nxt)
    append_yield(loop, keep)
    after = loop.next_op
    assert after is not None
    last_spare, last_owned = loop.results[-2], loop.results[-1]

    def free_last(fb: CodeBuilder) -> list[SSAValue]:
        fb.add(memref.DeallocOp.get(last_spare))
        return []

    CodeBuilder.before(after).if_(last_owned, [], free_last)
    return loop
