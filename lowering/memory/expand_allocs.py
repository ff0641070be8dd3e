"""The `expand-allocs` pass: no allocation in the body of a parallel loop.

The iterations of an `scf.parallel` may run at once, so a buffer each iteration
allocates and frees (a row's scratch arrays) cannot be shared the way `hoist-allocs`
shares it between the iterations of an `scf.for`; and a GPU kernel cannot allocate at
all. Such a buffer is *expanded*: one flat allocation before the loop holds a slice per
iteration, (iterations x elements per iteration), and iteration `i` (its linear index
over the loop's dimensions) works in elements [i * elements, (i + 1) * elements),
viewed row-major with the iteration's sizes (`memref.reinterpret_cast` with an offset:
the LLVM lowering moves an identity view's offset into its pointer). The buffer is freed
after the loop.

Which buffers: those allocated directly in the body, freed there unconditionally with
nothing that may alias them used after the free (dealloc's alias classes, as for
`hoist-allocs`, which runs first and may have brought a buffer up to the parallel
body from loops inside it), whose sizes are invariant (values from outside the loop, or
speculatable arithmetic on them, which moves out with the allocation). Element counts
and their product with the iteration count are checked: an overflow makes the count -1
and the allocation fails with "out of memory", as the original one would have.

Sizes that vary per iteration are made invariant before, where they can be computed
before the loop: `presize-allocs` takes their maximum over the iterations in a pre-pass
and allocates that (docs/lowering.md "Memory planning" says what is left). One slice per
thread instead of per iteration comes from `chunk-parallel`, which runs before.

Note [Checking the slices]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Slices that overlap (an offset of i instead of i * elements) change a result only when
two iterations use their slices at the same moment: a race, which runs on a loaded
machine seldom show and a sequential run never does, since each iteration writes its
scratch before reading it. So each slice's view is marked `ITERATION_SLICE_ATTR`, and
on the checking heap (`L0_CHECK_MEMORY=1`) the LLVM emitter reports every marked view
to it (`l0.lowering.runtime.checked_memory.claim_slice`), which records as a problem a
slice that overlaps another of the same size in the same buffer without being the
same slice. Correct slices of one size are disjoint or identical whatever order the
iterations run in (a slice of a slice, under nested parallel loops, is of another
size), so the check is deterministic: one run with two iterations shows the bug.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import CHUNK_LOOP_ATTR, chunked_rows
from l0.lowering.memory.dealloc.aliases import Aliases, Summaries, UsedMemrefs, summarise
from l0.lowering.memory.memory_plan import (
    ITERATION_SLICE_ATTR,
    Free,
    alloc_sizes,
    checked_product,
    constant_int,
    dies_at,
    fold_alloc_dims,
    hoist_invariant,
    invariant_chain,
    move_before,
    row_major_strides,
    unconditional_free,
)
from l0.passes.analysis.walk import walk_ops


@dataclass(frozen=True)
class ExpandAllocsPass(ModulePass):
    """One allocation before each `scf.parallel` for the buffers its iterations
    allocate, a slice per iteration. Runs after `dealloc`."""

    name = "expand-allocs"
    threads_apart: bool = False
    """Keep the slices of loops whose iterations are threads on cache lines of their
    own (Note [Slices of threads]; multicore: a GPU's thousands of chunks stay packed)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        summaries, _ = summarise(op)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                # Once: an expansion makes no `memref.dim` of an allocation.
                fold_alloc_dims(f)
                # Innermost first. Expanding a buffer of `loop` changes only its body
                # and what runs before it (the flat allocation, its size, in the body
                # of a loop around it, which comes later): the loops already done
                # have nothing left to expand, so each is visited once.
                for loop in reversed([o for o in walk_ops(f) if isinstance(o, scf.ParallelOp)]):
                    _expand_body(loop, summaries, self.threads_apart)


def _expand_body(loop: scf.ParallelOp, summaries: Summaries, apart: bool) -> None:
    """Expand the allocations of `loop`'s body, in order. The body's alias classes are
    computed once: an expansion makes one buffer a view of a slice of its own, which
    aliases what the buffer did and no other buffer of the body, so whether another
    dies at its free does not change."""
    body = loop.body.block
    classes = None
    for op in list(body.ops):
        if not isinstance(op, memref.AllocOp):
            continue
        free = unconditional_free(op.memref, body)
        if free is None:
            continue
        if classes is None:
            classes = Aliases(summaries, UsedMemrefs()).block(body)
        if not dies_at(op.memref, free, classes):
            continue
        chain = invariant_chain(op, loop)
        if chain is None:
            continue  # a size varying per iteration: left (module docstring)
        _expand(op, free, loop, chain, apart and _threads(loop))


def _expand(alloc: memref.AllocOp, free: Free, loop: scf.ParallelOp,
            chain: list[Operation], apart: bool) -> None:
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    outer = move_before(chain, loop)
    b = CodeBuilder.before(loop)
    sizes = alloc_sizes(alloc)
    per = checked_product(b, sizes)
    counts = [_trip_count(b, lb, ub, st)
              for lb, ub, st in zip(loop.lowerBound, loop.upperBound, loop.step, strict=True)]
    stride = _apart(b, per) if apart else per
    total = checked_product(b, [stride, *counts])
    flat_t = MemRefType(t.element_type, [DYNAMIC_INDEX])
    flat = b.val(memref.AllocOp([total], [], flat_t))
    # In the body: this iteration's slice.
    ib = CodeBuilder.before(alloc)
    ivs = list(loop.body.block.args)
    linear = ib.index(0)
    for iv, lb, st, n in zip(ivs, loop.lowerBound, loop.step, counts, strict=True):
        k = ib.val(arith.DivSIOp(ib.subi(iv, lb), st))
        linear = ib.addi(ib.muli(linear, n), k)
    offset = ib.muli(linear, stride)
    cast = memref.ReinterpretCastOp.from_dynamic(
        flat, [offset], sizes, row_major_strides(ib, sizes), t)
    cast.attributes[ITERATION_SLICE_ATTR] = UnitAttr()  # Note [Checking the slices]
    view = ib.val(cast)
    alloc.memref.replace_all_uses_with(view)
    Rewriter.erase_op(alloc)
    free.erase()
    outer.insert_op_after(memref.DeallocOp.get(flat), loop)
    _hoist_out_of_loops(flat)


LINE_ELEMENTS = 64
"""Elements (of any type, so at least 64 bytes) that keep two threads' slices off each
other's cache lines (Note [Slices of threads])."""


# Note [Slices of threads]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# The iterations of a loop over chunks (a blocked reduction's, `chunk-parallel`'s) are
# threads, each working in its slice all along: a reduction with an array accumulator
# updates its slice at every row. Slices side by side share the cache line at their
# boundary (the buffer is only 16-byte aligned), and two threads writing one line
# take it from each other at every row (false sharing: on the 2-core development
# machine a 16-bucket histogram took longer on 2 threads than on 1). So there each
# slice starts a whole number of LINE_ELEMENTS after the last, with at least
# LINE_ELEMENTS between them: C slices cost at most 2 * LINE_ELEMENTS elements more
# each, and no line holds two threads' elements. Loops over rows keep their slices
# packed (a slice per row: padding would multiply the memory of small rows), and so do
# a GPU's chunk loops (a chunk per GPU thread: thousands of slices).


def _threads(loop: scf.ParallelOp) -> bool:
    """Whether the iterations of `loop` are threads (a loop over chunks)."""
    return len(loop.lowerBound) == 1 and (CHUNK_LOOP_ATTR in loop.attributes
                                          or chunked_rows(loop.upperBound[0]) is not None)


def _apart(b: CodeBuilder, per: SSAValue) -> SSAValue:
    """The distance between two threads' slices of `per` elements each (Note [Slices of
    threads]): `per` rounded up to LINE_ELEMENTS, plus LINE_ELEMENTS; -1 (the
    allocation fails as too large) when `per` is -1 (`checked_product`'s overflow) or
    the sum leaves 64 bits."""
    line = b.index(LINE_ELEMENTS)
    rounded = b.muli(b.val(arith.DivSIOp(per, line)), line)
    padded = b.addi(rounded, b.index(2 * LINE_ELEMENTS))
    fits = b.andi(b.cmpi("sge", per, b.index(0)),
                  b.cmpi("slt", per, b.index((1 << 62) - 2 * LINE_ELEMENTS)))
    return b.select(fits, padded, b.index(-1))


def _hoist_out_of_loops(flat: SSAValue) -> None:
    """The slices' buffer leaves the `scf.for` loops around the parallel loop while its
    size is invariant in them: one allocation per loop nest, as `hoist-allocs` does."""
    alloc = flat.owner
    assert isinstance(alloc, memref.AllocOp)
    while isinstance(loop := alloc.parent_op(), scf.ForOp):
        free = unconditional_free(alloc.memref, loop.body.block)
        chain = invariant_chain(alloc, loop)
        if free is None or chain is None:
            return
        hoisted = hoist_invariant(alloc, free, loop, chain).owner
        assert isinstance(hoisted, memref.AllocOp)
        alloc = hoisted


def _trip_count(b: CodeBuilder, lb: SSAValue, ub: SSAValue, step: SSAValue) -> SSAValue:
    """max(0, ceil((ub - lb) / step)) for a positive step (no division for a unit step,
    so that the count may move before enclosing loops)."""
    span = b.subi(ub, lb)
    if constant_int(step) == 1:
        return b.maxsi(span, b.index(0))
    up = b.val(arith.DivSIOp(b.addi(span, b.subi(step, b.index(1))), step))
    return b.maxsi(up, b.index(0))
