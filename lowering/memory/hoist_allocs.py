"""The `hoist-allocs` pass: a sequential loop allocates its scratch buffers once.

After `dealloc`, a buffer allocated in the body of an `scf.for` and freed there
unconditionally, with nothing that may alias it used after the free (dealloc's alias
classes, `lowering/memory/dealloc/aliases.py`), lives within one iteration. Every iteration
allocating and freeing its own is what made LocVolCalib spend a quarter of its time in
the allocator. Such a buffer is allocated once for the whole loop instead:

* **Invariant size** (the sizes, or pure arithmetic on values from outside the loop,
  which moves out with it): the `memref.alloc` moves before the loop, the
  `memref.dealloc` after it, and every iteration reuses the buffer (Note [Hoisting
  before a loop that may not run]).
* **Size varying per iteration**: the loop carries a flat buffer (`memref<?xT>`,
  its length is its capacity) from one iteration to the next. Where the buffer was
  allocated, an iteration that needs more than the capacity frees it and allocates what
  it needs; the iteration's array is a `memref.reinterpret_cast` of the flat buffer
  (row-major, as the allocation was). The buffer is threaded out through every
  enclosing `scf.for` of the nest (allocated empty before the outermost, freed after
  it), so the nest allocates only when the largest size seen so far grows
  (Note [Growing buffers]).

The pass repeats to a fixpoint: an allocation leaves a nest of loops one level at a
time, and a buffer hoisted out of an inner loop may then be hoisted out of the outer.
It stops at anything but `scf.for`: an `scf.if` (the buffer is then allocated where
the branch runs), and an `scf.parallel`, whose iterations need a buffer each: that is
`expand-allocs` for invariant sizes; a growing buffer stays each parallel iteration's
own, only its empty start is shared (Note [Growing buffers in a parallel body]).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.memory.dealloc.aliases import Aliases, Summaries, UnionFind, UsedMemrefs, summarise
from l0.lowering.memory.fold_carries import (
    fold_agreeing_ifs,
    fold_constant_ifs,
    forward_invariant_carries,
)
from l0.lowering.memory.memory_plan import (
    Free,
    add_carried,
    alloc_sizes,
    append_yield,
    checked_product,
    dies_at,
    fails_if_negative,
    fold_alloc_dims,
    hoist_invariant,
    invariant_chain,
    row_major_strides,
    unconditional_free,
)
from l0.passes.analysis.walk import walk_ops

# Note [Growing buffers]
# The flat buffer's length is a number of elements. An iteration needs the product of
# its array's sizes; a product that overflows (or a negative size) is made -1, so that the
# allocation fails with "out of memory" exactly where the original one did (its byte
# count overflowed, `lowering/llvm/memref.py`), never with a buffer too small. The
# buffer only grows: memory held is the largest array of the nest, not the sum over
# iterations. With sizes that are the same in every iteration, as in LocVolCalib's time
# loop (the grid's shape comes through the loop-carried result, so it is not provably
# invariant), the nest allocates twice per site: the empty buffer and the first array.


@dataclass(frozen=True)
class HoistAllocsPass(ModulePass):
    """Allocate the per-iteration buffers of `scf.for` loops once per loop nest
    (hoisted, or a growing buffer the loops carry). Runs after `dealloc`."""

    name = "hoist-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        summaries, _ = summarise(op)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                hoist_function(f, summaries)


def hoist_function(f: func.FuncOp, summaries: Summaries) -> None:
    """Hoist allocations out of the `scf.for` loops of `f` to a fixpoint."""
    while forward_invariant_carries(f) | fold_agreeing_ifs(f) | fold_constant_ifs(f):
        pass
    fold_alloc_dims(f)
    while _sweep(f, summaries):
        fold_alloc_dims(f)


def _sweep(f: func.FuncOp, summaries: Summaries) -> bool:
    """Every loop, innermost first, gives up what it can; whether any did. A buffer that
    leaves an inner loop is seen by the loop around it later in the same sweep; a loop
    rebuilt to carry a buffer (and the loops around it) waits for the next sweep."""
    changed = False
    for loop in _loops_innermost_first(f):
        if loop.parent_block() is not None:  # else erased: rebuilt by `_carry`
            changed |= _hoist_from(loop, summaries)
    return changed


def _hoist_from(loop: scf.ForOp, summaries: Summaries) -> bool:
    """Hoist what can leave `loop` (a carry rebuilds it and the loops around it, around
    the same body); whether anything left."""
    body = loop.body.block
    found: list[UnionFind] = []  # the body's alias classes, once needed (valid after a hoist)

    def classes() -> UnionFind:
        if not found:
            found.append(Aliases(summaries, UsedMemrefs()).block(body))
        return found[0]

    changed = False
    for op in list(body.ops):
        if op.parent_block() is not body:
            continue  # moved out with an allocation's sizes
        if isinstance(op, memref.AllocOp):
            free = unconditional_free(op.memref, body)
            if free is None or not dies_at(op.memref, free, classes()):
                continue
            chain = invariant_chain(op, loop)
            if chain is None:
                loop = _carry(op, free, loop)  # the same body, in a rebuilt loop
            else:
                hoist_invariant(op, free, loop, chain)
            changed = True
        elif isinstance(op, scf.IfOp) and _hoist_branch_allocs(op, loop, classes):
            changed = True
    return changed


def _hoist_branch_allocs(branch: scf.IfOp, loop: scf.ForOp,
                         classes: Callable[[], UnionFind]) -> bool:
    """A result of `branch` that each arm allocates itself (a literal row built in
    either arm), freed in the loop's body within the iteration: each arm's buffer is
    hoisted (invariant sizes only); whether one was."""
    body = loop.body.block
    if not branch.false_region.blocks:
        return False
    arms = [branch.true_region.block, branch.false_region.block]
    for k, res in enumerate(branch.results):
        if not isinstance(res.type, MemRefType):
            continue
        allocs = [_allocated_in(arm, k) for arm in arms]
        if any(a is None for a in allocs):
            continue
        free = unconditional_free(res, body)
        if free is None or not dies_at(res, free, classes()):
            continue
        chains = [invariant_chain(a, loop) for a in allocs if a is not None]
        if any(c is None for c in chains) or any(
                fails_if_negative(s) for a in allocs if a is not None for s in a.dynamic_sizes):
            continue  # an arm that may not run must not fail before the loop
        free.erase()
        for a, chain in zip(allocs, chains, strict=True):
            assert a is not None and chain is not None
            hoisted = hoist_invariant(a, None, loop, chain)
            after = loop.parent_block()
            assert after is not None
            after.insert_op_after(memref.DeallocOp.get(hoisted), loop)
        return True
    return False


def _allocated_in(arm: Block, k: int) -> memref.AllocOp | None:
    """The `memref.alloc` in `arm` whose buffer `arm` yields as result `k`."""
    term = arm.last_op
    assert isinstance(term, scf.YieldOp)
    v = term.operands[k]
    if isinstance(v, OpResult) and isinstance(v.op, memref.AllocOp) and v.op.parent_block() is arm:
        return v.op
    return None


def _loops_innermost_first(f: func.FuncOp) -> list[scf.ForOp]:
    loops = [op for op in walk_ops(f) if isinstance(op, scf.ForOp)]
    return list(reversed(loops))


def _nest(loop: scf.ForOp) -> list[scf.ForOp]:
    """`loop` and the `scf.for`s it is directly in the body of, innermost first."""
    nest = [loop]
    while True:
        parent = nest[-1].parent_op()
        if not isinstance(parent, scf.ForOp) or nest[-1].parent_block() is not parent.body.block:
            return nest
        nest.append(parent)


def _carry(alloc: memref.AllocOp, free: Free, loop: scf.ForOp) -> scf.ForOp:
    """Replace `alloc` by a view of a growing flat buffer that `loop` and the loops it
    is nested in carry (module docstring, Note [Growing buffers]); `loop` rebuilt."""
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    flat = MemRefType(t.element_type, [DYNAMIC_INDEX])
    nest = _nest(loop)
    outermost = nest[-1]
    shared = _in_parallel(outermost)
    if shared:
        incoming = _shared_empty(outermost, flat)
    else:
        b = CodeBuilder.before(outermost)
        incoming = b.val(memref.AllocOp([b.index(0)], [], flat))
    # Thread the buffer in, outermost loop first: each loop's new block argument is the
    # initial value of the loop inside it.
    threaded: list[scf.ForOp] = []
    for level in reversed(nest):
        level, incoming = add_carried(level, incoming)
        threaded.append(level)
    # At the allocation: grow if needed, then view.
    b = CodeBuilder.before(alloc)
    sizes = alloc_sizes(alloc)
    needed = checked_product(b, sizes)
    capacity = b.val(memref.DimOp(incoming, b.index(0)))
    grow = b.cmpi("sgt", needed, capacity)
    current = incoming

    def enlarge(bb: CodeBuilder) -> list[SSAValue]:
        if shared:
            _free_if_owned(bb, current)
        else:
            bb.add(memref.DeallocOp.get(current))
        return [bb.val(memref.AllocOp([needed], [], flat))]

    (buffer,) = b.if_(grow, [flat], enlarge, lambda bb: [current])
    strides = row_major_strides(b, sizes)
    view = b.val(memref.ReinterpretCastOp.from_dynamic(
        buffer, [0], sizes, strides, t))
    alloc.memref.replace_all_uses_with(view)
    Rewriter.erase_op(alloc)
    free.erase()
    # Thread it out, innermost loop first: each loop yields what the loop inside it
    # returned, the innermost what this iteration used.
    outgoing = buffer
    for level in reversed(threaded):
        append_yield(level, outgoing)
        outgoing = level.results[-1]
    outer = threaded[0].parent_block()
    assert outer is not None
    if shared:
        after = threaded[0].next_op
        assert after is not None
        _free_if_owned(CodeBuilder.before(after), outgoing)
    else:
        outer.insert_op_after(memref.DeallocOp.get(outgoing), threaded[0])
    return threaded[-1]


# Note [Growing buffers in a parallel body]
# A loop nest in the body of an `scf.parallel` runs once per parallel iteration, and the
# iterations may run at once: each needs its own growing buffer, so the buffer cannot be
# threaded out through the parallel loop. What can leave it is the *empty* buffer a nest
# starts from: nothing reads or writes an array of no elements, so all iterations (and all
# nests of the function with that element type) may start from one, allocated at the
# function's entry and freed before it returns. A buffer of capacity 0 is therefore never
# the iteration's own, and is not freed: growth frees the old buffer, and the nest's end
# frees its result, only when its capacity is not 0 (a growth always allocates at least
# one element, or fails). An iteration allocates only when it first needs memory, and
# again only when it needs more.


def _in_parallel(op: Operation) -> bool:
    """Whether `op` is inside the body of an `scf.parallel`."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ParallelOp):
            return True
        parent = parent.parent_op()
    return False


EMPTY_ATTR = "l0.shared_empty"
"""Marks the function's empty buffer that growing buffers in parallel bodies start from
(Note [Growing buffers in a parallel body])."""


def _shared_empty(op: Operation, flat: MemRefType) -> SSAValue:
    """The empty `flat` buffer of the function around `op`, allocated at its entry and
    freed before its return (made on first use)."""
    f = op.parent_op()
    while not isinstance(f, func.FuncOp):
        assert f is not None
        f = f.parent_op()
    entry = f.body.block
    for existing in entry.ops:
        if (isinstance(existing, memref.AllocOp) and EMPTY_ATTR in existing.attributes
                and existing.memref.type == flat):
            return existing.memref
    first = entry.first_op
    assert first is not None
    b = CodeBuilder.before(first)
    alloc = memref.AllocOp([b.index(0)], [], flat)
    alloc.attributes[EMPTY_ATTR] = UnitAttr()
    empty = b.val(alloc)
    ret = entry.last_op
    assert ret is not None
    CodeBuilder.before(ret).add(memref.DeallocOp.get(empty))
    return empty


def _free_if_owned(b: CodeBuilder, buffer: SSAValue) -> None:
    """Free `buffer` unless its capacity is 0 (the shared empty buffer)."""
    capacity = b.val(memref.DimOp(buffer, b.index(0)))
    owned = b.cmpi("ne", capacity, b.index(0))

    def free(bb: CodeBuilder) -> list[SSAValue]:
        bb.add(memref.DeallocOp.get(buffer))
        return []

    b.if_(owned, [], free)
