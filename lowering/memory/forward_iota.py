"""The `forward-iota` pass: an element of an `iota` buffer is its index.

`map(f, iota(n))`, the way an L0 program loops over indices, becomes a loop that fills a
buffer with 0..n-1 and a loop that loads element i of it back: the index comes from
memory, so LLVM knows nothing of it (every bounds check on it stays) and the load of
an `i64` in the middle of real arithmetic keeps the loop from vectorising. LocVolCalib's
explicit steps and the coefficient maps of its tridiagonal systems are such loops.

Right after `convert-soac-to-scf`, a buffer is an iota buffer when (Note [Iota buffers])

* it is a one-dimensional `memref.alloc` of `i64`;
* it is written once, by a loop in the allocation's block from 0 to its size, step 1,
  whose body stores the induction variable at the induction variable;
* every other use is a `memref.load` after that loop (a `memref.dim` and a
  `memref.dealloc` are allowed too): no view, no call, no other store.

Then each load `%x = memref.load %buf[%k]` is `%k` itself (cast to `i64`). When nothing
reads the buffer any more, the fill loop and the allocation are erased (the buffer's
`memref.dim`s become the allocation's size): the map loops over its index directly.

Before:
    %buf = memref.alloc(%n) : memref<?xi64>
    "scf.parallel"(%c0, %n, %c1) ({
    ^bb0(%i: index):
      %v = arith.index_cast %i : index to i64
      memref.store %v, %buf[%i] : memref<?xi64>
      scf.reduce
    })
    ... %x = memref.load %buf[%k] : memref<?xi64> ...
After:
    ... %x = arith.index_cast %k : index to i64 ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp, i64
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.memory.memory_plan import constant_int
from l0.passes.analysis.walk import walk_ops

# Note [Iota buffers]
# A buffer written only by its fill loop holds i at every index i < n once the loop has
# run, and nothing can change it afterwards: it has no view through which a store could
# reach it and is passed to no call. A load after the loop, at an index k, therefore
# reads k when k is in bounds; out of bounds the load was undefined behaviour (the
# program's own bounds checks come first), so reading k there refines it. "After the
# loop" is checked in the block of the allocation, where bufferisation puts the fill
# loop: the load's ancestor in that block comes after the loop. Deallocations are not
# there yet (the pass runs before `dealloc`), but are allowed all the same.


@dataclass(frozen=True)
class ForwardIotaPass(ModulePass):
    """An element of an iota buffer is its index: loads of it become the index.

    Runs after `convert-soac-to-scf` (and before `dealloc`): a `memref.load` from a
    buffer that only its fill loop writes (0..n-1, the lowering of `iota`) becomes the
    index it loads at; a buffer nobody reads then is not allocated or filled at all.
    See the module docstring of `l0.lowering.memory.forward_iota`.
    """

    name = "forward-iota"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for alloc in [o for o in walk_ops(op) if isinstance(o, memref.AllocOp)]:
            forward(alloc)


def forward(alloc: memref.AllocOp) -> None:
    """Replace the loads of `alloc`'s buffer by their index when it is an iota buffer;
    erase the buffer when nothing else reads it."""
    fill = _fill_loop(alloc)
    if fill is None:
        return
    loads = [u.operation for u in alloc.memref.uses if isinstance(u.operation, memref.LoadOp)]
    if not all(_after(load, fill) for load in loads):
        return
    for load in loads:
        assert isinstance(load, memref.LoadOp)
        index = arith.IndexCastOp(load.indices[0], i64)
        Rewriter.replace_op(load, index)
    _erase_if_unread(alloc, fill)


def _fill_loop(alloc: memref.AllocOp) -> scf.ForOp | scf.ParallelOp | None:
    """The loop filling `alloc`'s buffer with 0..n-1, if it is an iota buffer (module
    docstring); None otherwise."""
    t = alloc.memref.type
    if not (isinstance(t, MemRefType) and t.get_num_dims() == 1
            and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 64):
        return None
    stores: list[memref.StoreOp] = []
    for use in alloc.memref.uses:
        user = use.operation
        if isinstance(user, memref.StoreOp) and user.memref is alloc.memref:
            stores.append(user)
        elif isinstance(user, memref.LoadOp | memref.DimOp | memref.DeallocOp):
            continue
        else:
            return None
    if len(stores) != 1:
        return None
    (store,) = stores
    loop = store.parent_op()
    if (not isinstance(loop, scf.ForOp | scf.ParallelOp)
            or loop.parent_block() is not alloc.parent_block()):
        return None
    iv = _induction_variable(loop)
    if iv is None or not _covers(loop, alloc):
        return None
    if _integer(store.indices[0]) is not iv or _integer(store.value) is not iv:
        return None
    return loop


def _induction_variable(loop: scf.ForOp | scf.ParallelOp) -> BlockArgument | None:
    """The induction variable of a one-dimensional loop from 0, step 1."""
    if isinstance(loop, scf.ParallelOp):
        if len(loop.lowerBound) != 1 or loop.initVals:
            return None
        lb, step = loop.lowerBound[0], loop.step[0]
    else:
        lb, step = loop.lb, loop.step
    if constant_int(_integer(lb)) != 0 or constant_int(_integer(step)) != 1:
        return None
    return loop.body.block.args[0]


def _covers(loop: scf.ForOp | scf.ParallelOp, alloc: memref.AllocOp) -> bool:
    """Whether `loop` runs up to the size of `alloc`'s buffer (its size operand, or a
    `memref.dim` of the buffer, through casts)."""
    ub = _integer(loop.upperBound[0] if isinstance(loop, scf.ParallelOp) else loop.ub)
    (size,) = alloc.dynamic_sizes
    if ub is _integer(size):
        return True
    return (isinstance(ub, OpResult) and isinstance(ub.op, memref.DimOp)
            and ub.op.source is alloc.memref and constant_int(ub.op.index) == 0)


def _integer(v: SSAValue) -> SSAValue:
    """`v` with the `arith.index_cast`s between `index` and `i64` taken off: two values
    with the same `_integer` are the same integer."""
    while (isinstance(v, OpResult) and isinstance(v.op, arith.IndexCastOp)
           and isinstance(v.op.input.type, IndexType | IntegerType)):
        v = v.op.input
    return v


def _after(op: Operation, loop: Operation) -> bool:
    """Whether `op` runs after `loop` has finished: its ancestor in `loop`'s block comes
    after `loop` (Note [Iota buffers])."""
    block = loop.parent_block()
    assert block is not None
    ancestor = _ancestor_in(op, block)
    if ancestor is None or ancestor is loop:
        return False
    return block.get_operation_index(loop) < block.get_operation_index(ancestor)


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _erase_if_unread(alloc: memref.AllocOp, fill: scf.ForOp | scf.ParallelOp) -> None:
    """Erase the buffer, its fill loop and its frees when only `memref.dim`s still read
    it and the loop does nothing else; the dims become the allocation's size."""
    users = [u.operation for u in alloc.memref.uses]
    if any(isinstance(u, memref.LoadOp) for u in users):
        return
    for o in fill.body.block.ops:
        if isinstance(o, memref.StoreOp) and o.memref is alloc.memref:
            continue
        if not isinstance(o, arith.IndexCastOp | scf.YieldOp | scf.ReduceOp):
            return
    (size,) = alloc.dynamic_sizes
    for user in users:
        if isinstance(user, memref.DimOp):
            user.result.replace_all_uses_with(size)
            Rewriter.erase_op(user)
        elif isinstance(user, memref.DeallocOp):
            Rewriter.erase_op(user)
    Rewriter.erase_op(fill)
    Rewriter.erase_op(alloc)

