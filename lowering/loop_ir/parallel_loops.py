"""Building the parallel loop form: `scf.parallel` loops and chunked iteration spaces.

`scf.parallel` takes `index` bounds; the SOAC lowering computes with i64 (as everywhere
in the loop-level IR), so `parallel_for` converts the bounds and hands the body an i64
induction variable.

Note [Parallel width]
~~~~~~~~~~~~~~~~~~~~~
The blocked forms (scan, filter, and the multicore reduction) split n iterations into
C chunks, C = max(1, min(width, n / MIN_CHUNK)) (MIN_CHUNK: `l0.lowering.runtime.min_chunk`,
4096 unless a test lowers it), where the width is how many threads can run them:
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

Note [Chunk bounds without overflow]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Chunk c of C over n rows starts at floor(c*n/C), but c*n leaves 64 bits long before n
does: with 3 chunks from n = 2^62, with 2^18 GPU threads from n = 2^46 (a reduction over
`iota(n)` streams its rows and stores none, so such an n runs). With q = n / C and
r = n % C, c*n = c*q*C + c*r, so floor(c*n/C) = c*q + floor(c*r/C): the same
boundaries, exactly, so results (and the order in which partial results combine) do
not change. c*q <= n, and c*r < C*C, which fits for any C below 2^31 (C is at most the
thread count). `chunk_bounds` builds it; the GPU's block fold
(`l0.lowering.gpu.kernels.block_fold`) splits its rows with it too.

Note [Stepped loops without overflow]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`scf.for %v = lo to hi step s` runs while v < hi, adding s each time: when hi is within
s of 2^63, the last v + s leaves 64 bits and wraps to a negative number below hi, and
the loop goes on (a GPU's grid-stride loop steps by the thread count, up to 2^28; a tile
loop by the tile's width). `stepped_for` counts the loop's trips instead,
ceil((hi - lo) / s) by `ceil_div` (no n + s - 1 either), and computes v = lo + k*s in
trip k: k*s < hi - lo, so nothing wraps, and the values of v are those of the stepped
loop. The trip count costs a division per loop, not per iteration.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.runtime.min_chunk import min_chunk

WIDTH_FUNCTION = "l0_parallel_width"
"""The function giving the number of chunks a parallel level may use
(Note [Parallel width])."""

CHUNK_COUNT_ATTR = "l0.chunk_count"
"""Marks the op computing a chunk count (`chunked_rows`)."""

BLOCKED_REDUCTION_ATTR = "l0.blocked_reduction"
"""Marks the two loops of a blocked reduction (Note [Blocked reductions])."""

INTERLEAVED_ATTR = "l0.interleaved"
"""Marks a parallel reduction (`scf.parallel` + `scf.reduce`) whose operator commutes:
a thread may fold interleaved rows (Note [Interleaved chunks] in
`l0.lowering.scf.segment_reductions`)."""

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
    """C = max(1, min(width, n / MIN_CHUNK)): the number of chunks for `n` iterations
    (marked, `chunked_rows`)."""
    width = parallel_width(b, anchor)
    most = b.val(arith.DivSIOp(n, b.i64(min_chunk())))
    return _marked_count(b, width, most, n)


def _marked_count(b: CodeBuilder, width: SSAValue, most: SSAValue,
                  rows: SSAValue) -> SSAValue:
    """max(1, min(width, most)), a chunk count over `rows` rows: the op carries
    CHUNK_COUNT_ATTR, whose value says which operand of the `min` `rows` is found
    from (`chunked_rows`)."""
    least = b.val(arith.MinSIOp(width, most))
    count = b.maxsi(least, b.i64(1))
    assert isinstance(count.owner, Operation)
    count.owner.attributes[CHUNK_COUNT_ATTR] = StringAttr(
        "rows" if most is rows else "rows/min_chunk")
    return count


def chunk_count_over(b: CodeBuilder, count: SSAValue, rows: SSAValue) -> SSAValue:
    """max(1, min(count, rows)): `count` >= 1 chunks covering `rows` rows, marked so
    that a loop over them is judged by its rows (`chunked_rows`); the segmented
    reductions' (row, chunk) pairs over all elements."""
    return _marked_count(b, count, rows, rows)


def chunked_rows(v: SSAValue) -> SSAValue | None:
    """The rows `v` (through index casts) divides into chunks, when `v` is a chunk count
    (`chunk_count`, `parallel_chunks`): what a loop over the chunks works on."""
    owner = v.owner
    while isinstance(owner, arith.IndexCastOp):
        owner = owner.input.owner
    if not isinstance(owner, arith.MaxSIOp):
        return None
    kind = owner.attributes.get(CHUNK_COUNT_ATTR)
    least = owner.lhs.owner
    if not isinstance(kind, StringAttr) or not isinstance(least, arith.MinSIOp):
        return None
    most = least.rhs
    if kind.data == "rows":
        return most
    div = most.owner
    return div.lhs if isinstance(div, arith.DivSIOp) else None


def chunk_bounds(b: CodeBuilder, c: SSAValue, n: SSAValue,
                 count: SSAValue) -> tuple[SSAValue, SSAValue]:
    """[start, end) of chunk `c` of `count` over `n` >= 0 rows: chunk c starts at
    floor(c*n/count), computed without the product c*n (Note [Parallel width], Note
    [Chunk bounds without overflow])."""
    q = b.val(arith.DivSIOp(n, count))
    r = b.val(arith.RemSIOp(n, count))

    def start(k: SSAValue) -> SSAValue:
        return b.addi(b.muli(k, q), b.val(arith.DivSIOp(b.muli(k, r), count)))

    return start(c), start(b.addi(c, b.i64(1)))


def ceil_div(b: CodeBuilder, n: SSAValue, d: SSAValue) -> SSAValue:
    """ceil(n / d) for i64 n >= 0, d > 0 (at most 0 for n < 0), as n / d + (n % d > 0):
    n + d - 1 would leave 64 bits for n near 2^63."""
    inexact = b.cmpi("sgt", b.val(arith.RemSIOp(n, d)), b.i64(0))
    return b.addi(b.val(arith.DivSIOp(n, d)), b.val(arith.ExtUIOp(inexact, i64)))


def stepped_for(b: CodeBuilder, lo: SSAValue, hi: SSAValue, step: SSAValue,
                body: Callable[[CodeBuilder, SSAValue], None]) -> None:
    """`for v = lo; v < hi; v += step: body(v)` for i64 bounds (step > 0, hi - lo
    within i64), as a loop over its trip count (Note [Stepped loops without
    overflow])."""
    trips = ceil_div(b, b.maxsi(b.subi(hi, lo), b.i64(0)), step)

    def trip(tb: CodeBuilder, k: SSAValue, _: object) -> list[SSAValue]:
        body(tb, tb.addi(lo, tb.muli(k, step)))
        return []

    b.for_(b.i64(0), trips, [], trip)


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
    count = _marked_count(b, parallel_width(b, par), n, n)

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
