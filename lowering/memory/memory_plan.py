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

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, UnitAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import INDEX, CodeBuilder
from l0.lowering.loop_ir.parallel_loops import WIDTH_FUNCTION, nested_in_parallel
from l0.lowering.memory.dealloc.aliases import UnionFind, defined_inside, pointer_source
from l0.passes.analysis.walk import walk_ops

SPECULATABLE = (arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp,
                arith.IndexCastOp, arith.MaxSIOp, arith.MinSIOp, arith.SelectOp,
                arith.CmpiOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ExtSIOp,
                arith.ExtUIOp, arith.TruncIOp, memref.DimOp)
"""Ops that may run before a loop instead of in it: no effect, no trap (no division:
`safe_division` says which divisions may), and `memref.dim` only reads a descriptor."""

DIVISIONS = (arith.DivSIOp, arith.RemSIOp, arith.CeilDivSIOp, arith.FloorDivSIOp)


def safe_division(op: Operation) -> bool:
    """A signed division by a divisor that is at least 1 (a chunk count, `max(1, x)`,
    the divisor of `checked_product`): it cannot trap (neither by 0 nor INT_MIN / -1),
    so it may run before a loop as `SPECULATABLE` ops do (Note [Sizes invariant in a
    sequential loop])."""
    return isinstance(op, DIVISIONS) and at_least_one(op.operands[1])


def at_least_one(v: SSAValue) -> bool:
    """Whether the IR says that `v` is at least 1: a constant, a `max` with such a
    value, a `min` of two (a threshold's work estimate divides by its per-iteration
    cost clamped that way), or an index cast of one."""
    if (k := constant_int(v)) is not None:
        return k >= 1
    if isinstance(v, OpResult) and isinstance(v.op, arith.MaxSIOp):
        return any(at_least_one(o) for o in v.op.operands)
    if isinstance(v, OpResult) and isinstance(v.op, arith.MinSIOp):
        return all(at_least_one(o) for o in v.op.operands)
    if isinstance(v, OpResult) and isinstance(v.op, arith.IndexCastOp):
        return at_least_one(v.op.input)
    return False

FAILING_COUNT_ATTR = "l0.failing_count"
"""Marks the op computing an element count that is -1 when the allocation must fail
(`checked_product`, the pre-pass of `presize-allocs`): `fails_if_negative`."""

ITERATION_SLICE_ATTR = "l0.iteration_slice"
"""Marks the view `expand-allocs` gives each parallel iteration of its buffer, so that
the checking heap can check that no two iterations' slices overlap (Note [Checking the
slices] in `l0.lowering.memory.expand_allocs`)."""


def fold_alloc_dims(root: Operation) -> None:
    """`memref.dim` of a `memref.alloc` result is the alloc's size: say so, so that sizes
    computed from a buffer allocated in a loop are seen to be invariant once the
    allocation has left the loop."""
    for op in list(walk_ops(root)):
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
        for inner in walk_ops(op):
            for v in inner.operands:
                if v in members or pointer_source(v) in members:
                    return False
        op = op.next_op
    return True


def invariant_chain(alloc: memref.AllocOp, loop: Operation) -> list[Operation] | None:
    """The ops in `loop` computing `alloc`'s sizes from values defined outside the loop
    (operands first), if they may all run before the loop, even those in a branch:
    `SPECULATABLE` ops and `safe_division`s; out of a sequential loop also calls of the
    parallel width and `scf.for` loops of such ops (a pre-pass of `presize-allocs`,
    Note [Sizes invariant in a sequential loop]). None otherwise."""
    chain: dict[Operation, None] = {}
    sequential = isinstance(loop, scf.ForOp)

    def movable(op: Operation) -> bool:
        return (isinstance(op, SPECULATABLE) or safe_division(op)
                or (sequential and _width_call(op))) and not op.regions

    def visit(v: SSAValue) -> bool:
        if not defined_inside(v, loop):
            return True
        if not isinstance(v, OpResult):
            return False
        op = v.op
        if op in chain:
            return True
        if movable(op):
            ok = all(visit(o) for o in op.operands)
        elif sequential and isinstance(op, scf.ForOp):
            ok = _pure_loop(op, movable, visit)
        else:
            ok = False
        if ok:
            chain[op] = None
        return ok

    if all(visit(s) for s in alloc.dynamic_sizes):
        return list(chain)
    return None


def _pure_loop(loop: scf.ForOp, movable: Callable[[Operation], bool],
               visit: Callable[[SSAValue], bool]) -> bool:
    """Whether `loop` only computes: every op in it `movable` (or a nested `scf.for`,
    or a yield), every value it uses from outside it accepted by `visit`."""
    for op in walk_ops(loop):
        if not (op is loop or movable(op) or isinstance(op, scf.ForOp | scf.YieldOp)):
            return False
        if not all(visit(v) for v in op.operands if not defined_inside(v, loop)):
            return False
    return True


def _width_call(op: Operation) -> bool:
    """A call of the parallel width (Note [Parallel width] in
    `l0.lowering.loop_ir.parallel_loops`): no effect, and the same value before a
    sequential loop as in it (the thread it runs on is the same; not so before a
    parallel loop, in whose body it is 1 on multicore)."""
    return isinstance(op, func.CallOp) and op.callee.string_value() == WIDTH_FUNCTION


def move_before(chain: list[Operation], loop: Operation) -> Block:
    """Move the ops of `chain` (an `invariant_chain`, operands first) before `loop`;
    the block of `loop`."""
    outer = loop.parent_block()
    assert outer is not None
    for op in chain:
        op.detach()
        outer.insert_op_before(op, loop)
    return outer


# Note [Sizes invariant in a sequential loop]
# On the gpu target `interchange` puts LocVolCalib's time loop on the host around the
# kernels of each step, and the scratch rows of the steps' tridiagonal solves become,
# after `presize-allocs` and `expand-allocs`, one flat buffer per kernel in the loop's
# body: (strikes x rows x the pre-pass's maximum row). Their sizes are the same in
# every step, but they are computed by `checked_product`, whose overflow test divides,
# and (on the CPU back ends, whose loops are chunked) from the chunk count, a call of
# `l0_parallel_width`; neither was an op that may move before a loop, so every step
# allocated and freed them: 1292 allocations per run of `main` on Small.
#
# Both may move: a signed division by a divisor that is at least 1 cannot trap (neither
# by 0 nor INT_MIN / -1; `checked_product` divides by max(v, 1), which says so in the
# IR), and the parallel width is the same before a sequential loop as in it (not before
# a parallel loop, in whose body it is 1 on multicore: `invariant_chain` moves it only
# out of an `scf.for`). The buffers then leave the loop as any invariant buffer does
# (`hoist_invariant`): allocated once before it and freed after it (Small: 27).
#
# Why hoisting and not `reuse-freed{across_iterations=true}`: the sizes are invariant,
# so one allocation serves every step without a carried spare, its ownership flag and
# a size comparison per step, and the buffer keeps its allocation site (its alias
# scopes, docs/backend.md). It is safe for the same reason as any hoisting here: a
# buffer leaves a loop only when the body frees it unconditionally and nothing that
# may alias it is used after the free (`unconditional_free`, `dies_at`), so no value of
# a previous step is live when the next step writes it. A buffer the loop carries or
# yields (the time loop's own grid, which `reuse-freed` swaps with the next step's) is
# not freed that way and stays; so does a buffer whose size varies per step.

# Note [Hoisting before a loop that may not run]
# A hoisted allocation runs even when the loop runs no iteration, and before the checks
# the iteration would have made first (a negative size given to iota, say). Its sizes are
# therefore clamped at 0: an invariant size that is negative allocates nothing, and the
# iteration's own check still reports the error in order. A loop of no iterations with an
# invariant but huge size would allocate what the original never did; sizes in L0 are
# array sizes that exist, so this is not a case worth a branch around every hoisted
# allocation.
#
# Counts that memory planning computes itself are another matter: -1 from
# `checked_product` (or a pre-pass of `presize-allocs`) means "fail with out of memory"
# (a size that overflows), and a count clamped at 0 would allocate nothing and let the
# loop write past it. Such a count (`fails_if_negative`, marked `FAILING_COUNT_ATTR`)
# is hoisted as `select(loop runs, count, 0)`: a loop that runs fails before it, as the
# pre-pass of `presize-allocs` does, instead of in its first iteration; one that runs no
# iteration allocates nothing. Inside a parallel body (a chunk's loop over its rows) the
# count is hoisted as it is: the pre-pass counted only the iterations that allocate, its
# loops included, so -1 there means one of them does, and a size varying per parallel
# iteration (the chunk's bounds) would keep `expand-allocs` from expanding the buffer.
# In a branch of the body it may not be hoisted at all (the arm might never run):
# `hoist-allocs` leaves it there.


def hoist_invariant(alloc: memref.AllocOp, free: Free | None, loop: Operation,
                    chain: list[Operation]) -> SSAValue:
    """Move `alloc` (and `chain`, the ops computing its sizes) before `loop`, `free` (if
    any) after it; the hoisted buffer. Sizes are clamped at 0, counts that fail when
    negative made 0 when the loop runs no iteration (Note [Hoisting before a loop that
    may not run])."""
    outer = move_before(chain, loop)
    b = CodeBuilder.before(loop)
    zero = b.index(0)
    sizes: list[SSAValue] = []
    for s in alloc.dynamic_sizes:
        if fails_if_negative(s) and isinstance(loop, scf.ForOp) and not nested_in_parallel(loop):
            sizes.append(b.select(b.cmpi("slt", loop.lb, loop.ub), s, zero))
        elif fails_if_negative(s):
            sizes.append(s)  # counted only where the loop runs: see the Note
        else:
            sizes.append(b.val(arith.MaxSIOp(s, zero)))
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
        # prod / v != acc, for v > 0, is an overflow (v < 0 is bad anyway, v == 0 cannot
        # overflow). The divisor max(v, 1) cannot trap, so the count may be computed
        # before a loop (`safe_division`, Note [Sizes invariant in a sequential loop]).
        safe = b.maxsi(v, b.index(1))
        wrapped = b.cmpi("ne", b.val(arith.DivSIOp(prod, safe)), acc)
        nonzero = b.cmpi("ne", v, zero)
        bad = b.ori(bad, b.ori(b.cmpi("slt", v, zero), b.andi(nonzero, wrapped)))
        acc = prod
    count = b.select(bad, minus_one, acc)
    assert isinstance(count, OpResult)
    count.op.attributes[FAILING_COUNT_ATTR] = UnitAttr()
    return count


def fails_if_negative(v: SSAValue) -> bool:
    """Whether `v` is a count memory planning computed, -1 when the allocation must fail
    (`FAILING_COUNT_ATTR`; Note [Hoisting before a loop that may not run])."""
    return isinstance(v, OpResult) and FAILING_COUNT_ATTR in v.op.attributes


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
