"""Building the parallel loop form: `scf.parallel` loops and chunked iteration spaces.

`scf.parallel` takes `index` bounds; the SOAC lowering computes with i64 (as everywhere
in the loop-level IR), so `parallel_for` converts the bounds and hands the body an i64
induction variable.

Note [Parallel width]
~~~~~~~~~~~~~~~~~~~~~
The blocked forms (scan, filter, and the multicore reduction) split n iterations into
C chunks, C = max(1, min(width, n / MIN_CHUNK)), where the width is how many threads can run them:
`func.call @l0_parallel_width() : () -> i64`, a body-less function the LLVM emitter
defines for the back end at hand (`l0.lowering.llvm.omp`): 1 on the sequential `cpu`
back end, the thread count on `multicore` (1 inside a thread: nested levels run
sequentially). With one chunk every blocked form is exactly the sequential loop (the
scan's carry-in is the neutral element, the filter's offset 0), so the `cpu` back end
runs the same IR with the results and the speed it had before. Chunk c covers rows
[c*n/C, (c+1)*n/C): contiguous, in order, none empty when n >= C. Chunk 0 always
starts from the neutral element, so that with one chunk (any input shorter than
2 * MIN_CHUNK) even an operator that is not associative gives the left fold; with more
chunks the operator must be associative, as the thesis requires of reduce and scan.

Note [Blocked reductions]
~~~~~~~~~~~~~~~~~~~~~~~~~
A blocked reduction is two loops, both marked `BLOCKED_REDUCTION_ATTR`: the chunk loop,
`scf.parallel (%c) = (0) to (C)`, whose body folds chunk c (its bounds computed from
%c and C) from the neutral elements and ends by storing each accumulator into a
partials array at %c; and, after it, the combining loop, `scf.for %c = 1 to C` carrying
the accumulators from `memref.load partial[0]`, whose body loads partial[%c] and applies
the operator. The marks let the GPU back end give the same reduction a thread per chunk
and a tree in workgroup memory (Note [Kernel forms] in `l0.lowering.gpu.kernels`); the
other back ends ignore them, and a later pass that rebuilds either loop drops the mark
(the GPU back end then runs the loops as they are).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder

MIN_CHUNK = 1 << 12
"""The fewest rows a chunk gets: below 2 * MIN_CHUNK rows a blocked form runs as one
chunk, where forking threads would cost more than it saves."""

WIDTH_FUNCTION = "l0_parallel_width"
"""The function giving the number of chunks a parallel level may use
(Note [Parallel width])."""

BLOCKED_REDUCTION_ATTR = "l0.blocked_reduction"
"""Marks the two loops of a blocked reduction (Note [Blocked reductions])."""

CHUNK_LOOP_ATTR = "l0.chunks"
"""Marks a loop over the threads' chunks of rows (`parallel_chunks`): its iterations are
threads, not a map's rows (`simd-map` leaves it alone)."""

MAP_LOC_ATTR = "l0.loc"
"""The source location of the map an `scf.parallel` runs (for reports on the loop:
`simd-map`'s, which `l0-run -v` prints); passes that rebuild the loop drop it."""

ParallelBody = Callable[[CodeBuilder, SSAValue], None]
"""(builder at the end of the body, i64 induction variable) -> None."""


def parallel_for(b: CodeBuilder, lb: SSAValue, ub: SSAValue,
                 body: ParallelBody) -> scf.ParallelOp:
    """`scf.parallel (%i) = (lb) to (ub) step (1)` with i64 bounds, no reductions."""
    block = Block(arg_types=[b.to_index(lb).type])
    inner = CodeBuilder.at_end(block)
    body(inner, inner.to_i64(block.args[0]))
    inner.add(scf.ReduceOp())
    return b.add(scf.ParallelOp([b.to_index(lb)], [b.to_index(ub)], [b.index(1)],
                                Region(block)))


def mark_blocked_reduction(chunks: Operation, combine: Operation) -> None:
    """Mark the chunk loop and the combining loop of a blocked reduction."""
    for op in (chunks, combine):
        op.attributes[BLOCKED_REDUCTION_ATTR] = UnitAttr()


def parallel_width(b: CodeBuilder, anchor: Operation) -> SSAValue:
    """The parallel width (Note [Parallel width]), declaring the function in the module
    holding `anchor` on first use."""
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    if not any(isinstance(f, func.FuncOp) and f.sym_name.data == WIDTH_FUNCTION
               for f in module.ops):
        decl = func.FuncOp.external(WIDTH_FUNCTION, [], [i64])
        decl.sym_visibility = StringAttr("private")
        Rewriter.insert_op(decl, InsertPoint.at_start(module.body.block))
    return b.add(func.CallOp(WIDTH_FUNCTION, [], [i64])).res[0]


def chunk_count(b: CodeBuilder, n: SSAValue, anchor: Operation) -> SSAValue:
    """C = max(1, min(width, n / MIN_CHUNK)): the number of chunks for `n` iterations."""
    width = parallel_width(b, anchor)
    most = b.val(arith.DivSIOp(n, b.i64(MIN_CHUNK)))
    return b.maxsi(b.val(arith.MinSIOp(width, most)), b.i64(1))


def chunk_start(b: CodeBuilder, c: SSAValue, n: SSAValue, count: SSAValue) -> SSAValue:
    """The first row of chunk `c` of `count` over `n` rows: c*n/count."""
    return b.val(arith.DivSIOp(b.muli(c, n), count))


def chunk_bounds(b: CodeBuilder, c: SSAValue, n: SSAValue,
                 count: SSAValue) -> tuple[SSAValue, SSAValue]:
    """[start, end) of chunk `c` (Note [Parallel width])."""
    return chunk_start(b, c, n, count), chunk_start(b, b.addi(c, b.i64(1)), n, count)


ChunkBody = Callable[[CodeBuilder, SSAValue, SSAValue], None]
"""(builder at the end of the chunk's body, first row, row after its last) -> None; rows
are counted from the loop's lower bound."""


def parallel_chunks(b: CodeBuilder, par: scf.ParallelOp, body: ChunkBody) -> scf.ParallelOp:
    """`scf.parallel (%c) = (0) to (C)` over C = max(1, min(width, n)) chunks of the
    n = ub - lb rows of the one-dimensional `par` (Note [Parallel width]), one per
    thread; `body` gets chunk c's rows [c*n/C, (c+1)*n/C), counted from `par`'s lower
    bound. `par` itself is left to the caller."""
    lb = b.to_i64(par.lowerBound[0])
    n = b.maxsi(b.subi(b.to_i64(par.upperBound[0]), lb), b.i64(0))
    count = b.maxsi(b.val(arith.MinSIOp(parallel_width(b, par), n)), b.i64(1))

    def run_chunk(cb: CodeBuilder, c: SSAValue) -> None:
        body(cb, *chunk_bounds(cb, c, n, count))

    chunks = parallel_for(b, b.i64(0), count, run_chunk)
    chunks.attributes[CHUNK_LOOP_ATTR] = UnitAttr()
    return chunks


def nested_in_parallel(op: Operation) -> bool:
    """Whether `op` runs inside a parallel loop (then it stays sequential)."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ParallelOp):
            return True
        parent = parent.parent_op()
    return False


def defined_inside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined within `op`'s regions (or is one of its results)."""
    owner = v.owner
    cur: Operation | None = owner if isinstance(owner, Operation) else owner.parent_op()
    while cur is not None:
        if cur is op:
            return True
        cur = cur.parent_op()
    return False
