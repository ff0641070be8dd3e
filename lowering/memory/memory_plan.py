"""Memory planning's shared core: which buffers live within one iteration, and moving
allocations before loops.

`hoist-allocs` (sequential loops) and `expand-allocs` (parallel loops) run after
`dealloc` and trust its frees: a buffer allocated in a loop body and freed there in
every iteration (`unconditional_free`), with nothing that may alias it used after the
free (`dies_at`, by dealloc's alias classes), lives within one iteration. Its sizes may
be computed before the loop when they are values from outside it or `SPECULATABLE`
arithmetic on them (`invariant_chain`, moved by `move_before`); `hoist_invariant`
then allocates it once before the loop. The remaining helpers compute flat sizes
(`checked_product`, overflow made -1 so that the allocation fails as the original
would) and row-major views (`row_major_strides`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import INDEX, CodeBuilder
from l0.lowering.memory.dealloc.aliases import UnionFind, defined_inside, pointer_source

SPECULATABLE = (arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp,
                arith.IndexCastOp, arith.MaxSIOp, arith.MinSIOp, arith.SelectOp,
                arith.CmpiOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ExtSIOp,
                arith.ExtUIOp, arith.TruncIOp, memref.DimOp)
"""Ops that may run before a loop instead of in it: no effect, no trap (no division),
and `memref.dim` only reads a descriptor."""

ITERATION_SLICE_ATTR = "l0.iteration_slice"
"""Marks the view `expand-allocs` gives each parallel iteration of its buffer, so that
the checking heap can check that no two iterations' slices overlap (Note [Checking the
slices] in `l0.lowering.memory.expand_allocs`)."""


def fold_alloc_dims(root: Operation) -> None:
    """`memref.dim` of a `memref.alloc` result is the alloc's size: say so, so that sizes
    computed from a buffer allocated in a loop are seen to be invariant once the
    allocation has left the loop."""
    for op in list(root.walk()):
        if not isinstance(op, memref.DimOp):
            continue
        source, k = op.source, constant_int(op.index)
        if k is None or not isinstance(source, OpResult):
            continue
        alloc = source.op
        if not isinstance(alloc, memref.AllocOp):
            continue
        size = alloc_size(alloc, k)
        if isinstance(size, int):
            const = arith.ConstantOp(IntegerAttr(size, INDEX))
            Rewriter.insert_op(const, InsertPoint.before(op))
            size = const.result
        op.result.replace_all_uses_with(size)
        Rewriter.erase_op(op)


@dataclass
class Free:
    """Where a body frees a buffer in every iteration: `point`, an op of the body that
    is either the `memref.dealloc` itself or an `scf.if` each arm of which frees it
    (dealloc frees in each arm when the last use is in one); `ops`, the deallocs."""

    point: Operation
    ops: list[memref.DeallocOp]

    def erase(self) -> None:
        for op in self.ops:
            Rewriter.erase_op(op)


def unconditional_free(buffer: SSAValue, body: Block) -> Free | None:
    """How `body` frees `buffer` in every iteration, if it does."""
    arms: dict[Operation, list[memref.DeallocOp]] = {}
    for use in buffer.uses:
        user = use.operation
        if not isinstance(user, memref.DeallocOp):
            continue
        if user.parent_block() is body:
            return Free(user, [user])
        branch = user.parent_op()
        if isinstance(branch, scf.IfOp) and branch.parent_block() is body:
            arms.setdefault(branch, []).append(user)
    for branch, frees in arms.items():
        assert isinstance(branch, scf.IfOp)
        blocks = {f.parent_block() for f in frees}
        if (branch.false_region.blocks and len(frees) == 2
                and blocks == {branch.true_region.block, branch.false_region.block}):
            return Free(branch, frees)
    return None


def dies_at(buffer: SSAValue, free: Free, classes: UnionFind) -> bool:
    """Whether nothing that may alias `buffer` (by `classes`, dealloc's alias classes of
    the block of `free.point`) is used after `free`: then the buffer lives within one
    iteration."""
    members = set(classes.members(buffer))
    op = free.point.next_op
    while op is not None:
        for inner in op.walk():
            for v in inner.operands:
                if v in members or pointer_source(v) in members:
                    return False
        op = op.next_op
    return True


def invariant_chain(alloc: memref.AllocOp, loop: Operation) -> list[Operation] | None:
    """The ops in `loop` computing `alloc`'s sizes from values defined outside the loop
    (operands first), if they are all `SPECULATABLE` (so they may run before the loop,
    even those in a branch); None otherwise."""
    chain: dict[Operation, None] = {}

    def visit(v: SSAValue) -> bool:
        if not defined_inside(v, loop):
            return True
        if not isinstance(v, OpResult):
            return False
        op = v.op
        if op in chain:
            return True
        if not isinstance(op, SPECULATABLE) or op.regions:
            return False
        if not all(visit(o) for o in op.operands):
            return False
        chain[op] = None
        return True

    if all(visit(s) for s in alloc.dynamic_sizes):
        return list(chain)
    return None


def move_before(chain: list[Operation], loop: Operation) -> Block:
    """Move the ops of `chain` (an `invariant_chain`, operands first) before `loop`;
    the block of `loop`."""
    outer = loop.parent_block()
    assert outer is not None
    for op in chain:
        op.detach()
        outer.insert_op_before(op, loop)
    return outer


# Note [Hoisting before a loop that may not run]
# A hoisted allocation runs even when the loop runs no iteration, and before the checks
# the iteration would have made first (a negative size given to iota, say). Its sizes are
# therefore clamped at 0: an invariant size that is negative allocates nothing, and the
# iteration's own check still reports the error in order. A loop of no iterations with an
# invariant but huge size would allocate what the original never did; sizes in L0 are
# array sizes that exist, so this is not a case worth a branch around every hoisted
# allocation.


def hoist_invariant(alloc: memref.AllocOp, free: Free | None, loop: Operation,
                    chain: list[Operation]) -> SSAValue:
    """Move `alloc` (and `chain`, the ops computing its sizes) before `loop`, `free` (if
    any) after it; the hoisted buffer. Sizes are clamped at 0 (Note [Hoisting before a
    loop that may not run])."""
    outer = move_before(chain, loop)
    b = CodeBuilder.before(loop)
    zero = b.index(0)
    sizes = [b.val(arith.MaxSIOp(s, zero)) for s in alloc.dynamic_sizes]
    hoisted = b.add(memref.AllocOp(sizes, [], alloc.memref.type))
    alloc.memref.replace_all_uses_with(hoisted.memref)
    Rewriter.erase_op(alloc)
    if free is not None:
        free.erase()
        outer.insert_op_after(memref.DeallocOp.get(hoisted.memref), loop)
    return hoisted.memref


def alloc_sizes(alloc: memref.AllocOp) -> list[SSAValue | int]:
    """The sizes of `alloc`'s buffer: ints for static dimensions, index values else."""
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    dynamic = iter(alloc.dynamic_sizes)
    return [next(dynamic) if d == DYNAMIC_INDEX else d for d in t.get_shape()]


def checked_product(b: CodeBuilder, sizes: list[SSAValue | int]) -> SSAValue:
    """The number of elements, or -1 if a size is negative or the product overflows."""
    zero, minus_one = b.index(0), b.index(-1)
    acc = b.index(1)
    bad = b.bool(False)
    for s in sizes:
        v = b.index(s) if isinstance(s, int) else s
        prod = b.muli(acc, v)
        # prod / v != acc, for v != 0, is an overflow (no division when v == 0).
        safe = b.select(b.cmpi("eq", v, zero), b.index(1), v)
        wrapped = b.cmpi("ne", b.val(arith.DivSIOp(prod, safe)), acc)
        nonzero = b.cmpi("ne", v, zero)
        bad = b.ori(bad, b.ori(b.cmpi("slt", v, zero), b.andi(nonzero, wrapped)))
        acc = prod
    return b.select(bad, minus_one, acc)


def row_major_strides(b: CodeBuilder, sizes: list[SSAValue | int]) -> list[SSAValue | int]:
    """The strides of a contiguous row-major array of `sizes`: ints where static."""
    if not sizes:
        return []
    strides: list[SSAValue | int] = [1]
    for s in reversed(sizes[1:]):
        acc = strides[-1]
        if isinstance(acc, int) and isinstance(s, int):
            strides.append(acc * s)
        else:
            left = b.index(acc) if isinstance(acc, int) else acc
            right = b.index(s) if isinstance(s, int) else s
            strides.append(b.muli(left, right))
    return list(reversed(strides))


def alloc_size(alloc: memref.AllocOp, k: int) -> SSAValue | int:
    """Size `k` of `alloc`'s buffer: an int if static."""
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    if shape[k] != DYNAMIC_INDEX:
        return shape[k]
    return list(alloc.dynamic_sizes)[sum(1 for d in shape[:k] if d == DYNAMIC_INDEX)]


def constant_int(v: SSAValue) -> int | None:
    """The value of an integer constant, or None."""
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


def add_carried(loop: scf.ForOp, init: SSAValue) -> tuple[scf.ForOp, SSAValue]:
    """`loop` rebuilt with one more carried value, `init`; and its block argument."""
    body = loop.body.block
    arg = body.insert_arg(init.type, len(body.args))
    region = loop.detach_region(loop.body)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, init], region)
    parent = loop.parent_block()
    assert parent is not None
    parent.insert_op_before(new, loop)
    for old, res in zip(loop.results, new.results, strict=False):
        old.replace_all_uses_with(res)
    Rewriter.erase_op(loop)
    return new, arg


def append_yield(loop: scf.ForOp, v: SSAValue) -> None:
    term = loop.body.block.last_op
    assert isinstance(term, scf.YieldOp)
    term.operands = [*term.operands, v]
