"""The `segment-reductions` pass: few segments of folds run over all elements.

`map(fn row => reduce(op, z, row), rows)` (or a redomap, a tuple operator, a fold over
`zip(row, v)` with `v` the same in every row; or a `scan`, a scanomap) over m rows of n
elements runs, as `convert-soac-to-scf` makes it, one row per thread with its fold
sequential: with 4 rows of 10^6 elements, 4 threads work and the rest of the machine
waits. So does a 2-D grid of such rows (`map(fn plane => map(fn row => reduce(..),
plane), xs)`, a matrix product), a lambda with scalar work around its fold
(`w / (1.0 + reduce(op +, 0.0, row))`), and one with several folds (a row's sum and
its maximum). This pass (multicore, gpu and gpu-sim; before `convert-soac-to-scf`, on
`msoac`) keeps that code and adds the segmented form beside it, chosen at run time
(Note [Segmented reductions], Note [Several folds], Note [Choosing the segmented
form]); on the GPU back ends a fold whose operator commutes reads interleaved chunks
(Note [Interleaved chunks]); on multicore a nest of many columns over shared rows
may run its columns over each thread's chunk of the rows (Note [Chunks of rows under
the columns]). Which nests it takes is Note [Segment nests] in
`l0.lowering.scf.segment_forms`.

Before:
    msoac.map ins(%rows : memref<?x?xf64>) outs(%o : memref<?xf64>) at "..." {
    ^bb0(%row: memref<?xf64>):
      %s = msoac.reduce(%zero : f64) over(%row : memref<?xf64>) attributes {operator} ...
      msoac.yield %s : f64
    }
After:
    %T = <the parameter SITE.segmented_below>
    %C = max(1, min(ceil(T / m), n / MIN_CHUNK))
    scf.if (0 < m < T and C > 1) {
      scf.parallel (%k) = (0) to (m * C) {l0.chunks}     // chunk k % C of row k / C
        scf.for ... fold the chunk ... ; store partial[k]
      scf.parallel (%s) = (0) to (m)                     // each row's partials, in order
        scf.for %c = 1 to C ... operator ... ; store %o[s]
    } else {
      msoac.map ... (as it was, marked so that it is not segmented again)
    }

Note [Segmented reductions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
The m segments are the nest's levels collapsed row-major (m = m_1 * ... * m_d; a
segment's level indices are recovered by division, and every array read is indexed
by them: `Indexed`). Segment s's row is cut into C contiguous chunks (the blocked
reduction's chunks,
Note [Parallel width] and `chunk_bounds` in `l0.lowering.loop_ir.parallel_loops`), and
one parallel loop over the m * C (row, chunk) pairs, row-major, folds every chunk:
on multicore one OpenMP region over all elements, on the GPU one kernel with a thread
per chunk. Chunk 0 of a row folds from the neutral elements; with a `combine`
operator (redomap) every chunk does, as the blocked reduction's; when the lambda is
the operator itself (a plain reduce), chunk c > 0 folds from its first element, as
`multicore`'s plain reductions do, so that an initial value that is not neutral is
counted once. A second parallel loop, over the segments, folds each segment's C
partial results in chunk order with the operator, then runs the lambda's scalar work
on the results and stores what the innermost lambda yields. Scalar values the folds
use (`map(op * (w), row)` with w from the segment's element) are recomputed where a
chunk is folded: pure arithmetic of the segment's elements. The order of combination
depends only on n and C (fixed before the loops from the parameter): no atomics,
results independent of timing; the operator must be associative (thesis 2.3), need
not commute.

A map of scans (each row scanned into the map's destination row) is the blocked scan of
`convert-soac-to-scf` for all rows at once: one parallel loop over the pairs computes
each chunk's total (a plain scan's chunks from their first element, a scanomap's from
the neutral elements), one over the rows each chunk's carry-in (the neutral elements,
then the totals before it combined in order), one over the pairs scans each chunk from
its carry-in.

Errors: a fold that fails stops its chunk at its first failing element; the chunks of
the flattened loop are in element order (row-major), and the back ends report the
failure of the lowest failing iteration, so the error is the lowest failing element's,
the one the sequential fold reports. A check of the lambda's scalar work is evaluated
with the chunks of the folds after it (Note [Several folds]), so it fails at the first
of them, before any element of those folds. The operator itself is applied to partial
results the sequential fold never forms, so a reduction whose operator may fail (a
check, a call) is left alone (Note [Segment nests] lists the rest).
A scan's totals are taken for every chunk, the last of each row too (whose total no
carry needs), so that its first loop meets a failing element in element order before
any chunk is scanned.

Note [Several folds]
~~~~~~~~~~~~~~~~~~~~
A lambda with F folds (a row's sum and its maximum that fusion did not merge, folds of
two rows) runs them in one chunk loop over the m * F * C (segment, fold, chunk)
triples, row-major, each triple folding chunk c of fold f in segment s into fold f's
partials, and one combining loop over the segments. One loop of triples rather than a
phase per fold, or one fold of a tuple accumulator over the chunk: the sequential map
runs segment 0's folds in order, then segment 1's; the triples are in that order, so
the lowest failing triple holds the failure the sequential run reports (a phase per
fold would report fold 1's failure in segment 9 before fold 2's in segment 0, a
tuple fold fold 2's element 5 before fold 1's element 100), and the folds need not
have the same length. Every fold has C chunks, C from the shortest fold's length, so
that no chunk is empty (a plain fold's chunk starts with its first element). The
lambda's checks are recomputed in the triples of the folds after them, so a check
between fold 1 and fold 2 fails at (s, 2, 0): after fold 1's elements of segment s,
before fold 2's, as in the sequential run; a check after the last fold, or on a
fold's result, is not segmented (it could only run once all segments are folded).

Note [Interleaved chunks]
~~~~~~~~~~~~~~~~~~~~~~~~~
On a GPU the chunk loop is a kernel with a thread per (segment, fold, chunk) triple,
row-major (Note [Several folds]), so the threads of a warp are consecutive chunks of
one fold's row in one segment. With contiguous chunks of n / C elements, thread t's
j-th load is at t * n / C + j: a warp's 32 loads are thousands of elements apart, 32
memory transactions where one would do. With `interleave` (the GPU back ends:
`l0.lowering.pipeline.segmenting`), chunk c of a fold's row of n elements folds
elements c, c + C, c + 2C, ... (ceil((n - c) / C) of them, in that order), so at each
step the warp's threads read consecutive elements: coalesced. Chunk 0 of a plain fold
starts from the neutral element and the others from their first element (element c),
as the contiguous ones do; the combining loop is unchanged (each fold's C partials of
a segment in chunk order), and so is the segment's scalar work around the folds.

A chunk then holds elements from all over the row, so the operator must commute as
well as associate. Which chunks a fold takes is decided per fold: in the triples, a
reduction whose operator `commutative_operator` (`l0.lowering.scf.commutative`)
recognises is interleaved (integer `+`, `*`, `&`, `|`, `^`, `&&`, `||`, min, max; real
`+` and `*`; tuples of these, component by component: sibling folds fused into one),
a fold beside it whose operator does not keeps its contiguous chunks, and scans always
do; every segment of a grid folds its rows the same way. Integer results are the left
fold's exactly. A real sum is reassociated, as with contiguous chunks, but in another
fixed order: it may differ from the sequential fold, and from the contiguous form, in
its last bits (the corpus compares reals within `l0.values.compare`'s tolerance), and
it depends only on n and C, never on timing (no atomics). A fold whose lambda may fail
is never interleaved: thread t would meet its first failing element after elements of
higher index than thread t + 1's, and the lowest failing thread would no longer hold
the lowest failing element. The lambda's checks before a fold are recomputed alike in
each of its chunks, so they still fail first at chunk 0 of their (segment, fold),
interleaved or not. Multicore keeps contiguous chunks: a thread striding through a row
would touch a cache line per element.

Plain reductions (not in a map) interleave the same way on the GPU back ends, under
the same condition (`interleavable`): `convert-soac-to-scf{interleave=true}` folds a
blocked reduction's chunk c of C as rows c, c + C, ... (the kernel takes C as its
thread count P, so thread t folds t, t + P, ...), and marks a reduction with
`scf.reduce` `l0.interleaved`, whose kernel (`block_fold` in `l0.lowering.gpu.kernels`)
then has thread t fold rows t, t + P, ...; the blocks still combine their threads'
results in thread order, and the final kernel the blocks' in block order. A marked
reduction that reads no rows from memory (`iota`'s, made indices by `forward-iota`)
keeps contiguous chunks: nothing to coalesce, and LLVM sums such a chunk in closed
form (`_interleaved` in `l0.lowering.gpu.host`).

Note [Choosing the segmented form]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Both forms are in the code; which runs is decided each time the map is reached, from
m, n and the run-time parameter `SITE.segmented_below` (T; `l0.lowering.loop_ir.run_params`,
SITE the outermost map's name, Note [Names of parallel sites]): the segmented form
runs when 0 < m < T and C = max(1, min(ceil(T / m), n / MIN_CHUNK)) > 1 (n the shortest
fold's length), i.e. when the segments alone would leave the device's T threads idle
and each row is long enough to split into chunks of at least MIN_CHUNK elements.
C * m is then about T: each thread (or GPU thread) gets one chunk (F chunks with F
folds). T defaults to the device's parallelism (the pass option
`threshold`, a `run_tables.default_value` spec: `threads*1` on multicore, the GPU's
resident threads `gpu_threads*1` on gpu and gpu-sim); `--param SITE.segmented_below=0`
forces the map as it was, a large value the segmented form wherever rows split.

Note [Chunks of rows under the columns]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
What `iswim` leaves of a histogram (a reduce of one-hot rows with a vector `+`) is a
map over the k buckets (columns) of one fold each over all the points, every fold
reading the same array. With more columns than threads the segmented form does not
run, and the map as it was splits the columns between the threads (`simd-map` runs 8
in lanes, a strip): with 16 buckets on 2 threads each thread takes one strip and reads
all 10^6 points. With `columns` (multicore: `l0.lowering.pipeline.segmenting`) such a
nest gets a third version, the column chunks: the shared rows are cut into C chunks
(C = max(1, min(threads, n / MIN_CHUNK)), Note [Parallel width]), one parallel loop
over the chunks (`l0.chunks`, a thread each) runs the whole map over the m columns on
its chunk, in strips of lanes, into partials[c, s], and a loop over the columns
combines each column's C partials in chunk order with the operator, runs the scalar
work on the results and stores them. Each thread then reads only its own part of the
rows, and reads it while the earlier strips left it in its caches. The order of
combination depends only on n and C, never on timing; the operator must be
associative (thesis 2.3), as for the segmented form; chunk 0 folds from the neutral
elements, a plain fold's other chunks from their first element.

It is taken only when every fold reads arrays the segments share (an `Indexed` of no
level: a row of the segment's own would be read by one column only) other than those
the outermost map maps (n-body's map over the bodies of folds over all bodies has as
many columns as rows, never few columns over long rows: its third version would only
cost compile time, 1.4 times n-body's multicore compile), is a reduction, and nothing
in the nest may fail (`may_fail`): a thread runs every column over its
chunk, so the lowest failing chunk would hold the first failure of its rows in any
column, not the sequential run's first (column 0's whole fold runs before column 1's).

The choice is made at run time after the segmented form's: the column chunks run when
0 < m < `SITE.column_chunks_below` (default `threads*64`, `COLUMNS_DEFAULT`) and C > 1;
`--param SITE.column_chunks_below=0` forces the map as it was. Measured on the 2-core
development machine, 2 threads, histograms of 10^6 points (`l0-run -r 40`, medians,
high-priority autogroup; docs/backend.md): 16 buckets 0.51-0.54 ms against the map as
it was 0.61-0.64 (`cpu` 0.92-1.01); 64 buckets 1.75-1.78 against 2.05-2.35 (`cpu`
3.45-3.51); 256 buckets (128 a thread) 7.9 against 7.9-8.1, no difference, hence the
default below that.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, UnitAttr
from xdsl.ir import Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from l0.dialects import msoac
from l0.lowering.loop_ir import run_params
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import (
    CHUNK_LOOP_ATTR,
    ceil_div,
    chunk_bounds,
    chunk_count,
    chunk_count_over,
    parallel_for,
)
from l0.lowering.loop_ir.profile import site_name, tag
from l0.lowering.runtime.min_chunk import min_chunk
from l0.lowering.scf.commutative import interleavable
from l0.lowering.scf.segment_forms import (
    KEPT_ATTR,
    Fold,
    SegmentedReduction,
    constant_axis,
    depending_on,
    may_fail,
    segmented,
)
from l0.passes.analysis.walk import walk_ops

PARAM_SUFFIX = "segmented_below"
"""The suffix of a map's threshold: `SITE.segmented_below`."""

COLUMNS_SUFFIX = "column_chunks_below"
"""The suffix of a map's threshold for its column chunks: `SITE.column_chunks_below`."""

COLUMNS_DEFAULT = "threads*64"
"""Column chunks run below 64 segments a thread (Note [Chunks of rows under the
columns])."""

_SPEC = re.compile(r"((threads|gpu_threads)\*)?[0-9]+")
_FOLDS = (msoac.ReduceOp, msoac.ScanOp)


@dataclass
class _Segment:
    """One segment inside a loop body: its level indices and the nest's values of it
    computed there (`env`: the lambdas' values to theirs)."""

    idx: list[SSAValue]
    env: dict[SSAValue, SSAValue]


def _segment(b: CodeBuilder, seg: SegmentedReduction, sizes: Sequence[SSAValue],
             s: SSAValue, until: Operation | None = None) -> _Segment:
    """Segment s's level indices (row-major over `sizes`) and its scalar values: the
    lambdas' scalar work that depends on no fold, in order, before `until` (a fold:
    what it may use) or all of it; the levels' elements are loaded where first used
    (after the checks before them: a zip's sizes)."""
    idx: list[SSAValue] = []
    rest = s
    for size in reversed(sizes[1:]):
        q = b.val(arith.DivSIOp(rest, size))
        idx.append(b.subi(rest, b.muli(q, size)))
        rest = q
    at = _Segment([rest, *reversed(idx)], {})
    body = seg.body
    ops = [o for m in seg.maps[:-1] for o in m.body.block.ops
           if not isinstance(o, msoac.MapOp | msoac.YieldOp)]
    later = _on_folds(seg)
    for o in body.ops:
        if o is until or isinstance(o, msoac.YieldOp):
            break
        if not isinstance(o, _FOLDS) and o not in later:
            ops.append(o)
    for o in ops:
        _recompute(b, seg, at, o)
    end = until if until is not None else body.last_op
    assert end is not None
    _load_used(b, seg, at, end)
    return at


def _on_folds(seg: SegmentedReduction) -> set[Operation]:
    """The innermost lambda's scalar work on the folds' results."""
    ops = list(seg.body.ops)
    return depending_on(ops, {r for o in ops if isinstance(o, _FOLDS) for r in o.results})


def _finish(b: CodeBuilder, seg: SegmentedReduction, at: _Segment,
            folded: dict[SSAValue, SSAValue]) -> list[SSAValue]:
    """The scalar work on the folds' results `folded`, in order: what the innermost
    lambda yields."""
    at.env.update(folded)
    on_folds = _on_folds(seg)
    for o in seg.body.ops:
        if o in on_folds and not isinstance(o, (*_FOLDS, msoac.YieldOp)):
            _recompute(b, seg, at, o)
    term = seg.body.last_op
    assert isinstance(term, msoac.YieldOp)
    _load_used(b, seg, at, term)
    return [at.env.get(v, v) for v in term.values]


def _recompute(b: CodeBuilder, seg: SegmentedReduction, at: _Segment, o: Operation) -> None:
    """A copy of the scalar work `o` in the segment (a row's size read from its array)."""
    if isinstance(o, memref.DimOp) and o.source in seg.args:
        axis = constant_axis(o)
        assert axis is not None
        array = seg.args[o.source]
        at.env[o.result] = b.val(memref.DimOp(array.base, b.index(len(array.levels) + axis)))
        return
    _load_used(b, seg, at, o)
    b.add(o.clone(value_mapper=at.env))


def _load_used(b: CodeBuilder, seg: SegmentedReduction, at: _Segment, o: Operation) -> None:
    """The segment's elements that `o` uses and are not loaded yet."""
    for v in (v for inner in walk_ops(o) for v in inner.operands):
        array = seg.args.get(v)
        if v not in at.env and array is not None and array.rank == 0:
            at.env[v] = array.at(b, at.idx, [])


def segment(seg: SegmentedReduction, threshold: str, profile: bool = False,
            interleave: bool = False, columns: bool = False) -> None:
    """Replace the nest by the choice between it and its segmented form (module
    docstring). With `profile`, the segment counts compared with the threshold are
    noted for `l0 autotune` (`run_params.reaches`); with `interleave`, each fold that
    `interleaves` folds interleaved chunks (Note [Interleaved chunks])."""
    op = seg.map
    b = CodeBuilder.before(op)
    name = site_name(op, "map")
    sizes = seg.level_sizes(b)
    m = b.product(sizes) if len(sizes) > 1 else sizes[0]
    lengths = [f.length(b, 0) for f in seg.folds]
    n = lengths[0]
    for other in lengths[1:]:
        n = b.val(arith.MinSIOp(n, other))
    param = f"{name}.{PARAM_SUFFIX}"
    below = run_params.load(b, op, param, threshold)
    per_row = b.val(arith.CeilDivSIOp(below, b.maxsi(m, b.i64(1))))
    count = b.maxsi(b.val(arith.MinSIOp(per_row, b.val(arith.DivSIOp(n, b.i64(min_chunk()))))),
                    b.i64(1))
    # Rows of equal length only (the map as it was reports a mismatch, if anything).
    same = [b.cmpi("eq", f.length(b, i), f.length(b, 0))
            for f in seg.folds for i in range(1, len(f.inputs))]
    few_rows = b.xori(run_params.reaches(b, op, param, threshold, m, record=profile),
                      b.bool(True))
    use = b.all_of([b.cmpi("sgt", m, b.i64(0)), few_rows,
                    b.cmpi("sgt", count, b.i64(1)), *same])

    def segmented_form(sb: CodeBuilder) -> list[SSAValue]:
        if seg.scan:
            _segmented_scan(sb, seg, sizes, m, n, count, name)
        else:
            _segmented_reduction(sb, seg, sizes, m, count, name, interleave)
        return []

    kept: list[scf.IfOp] = []

    def otherwise(eb: CodeBuilder) -> list[SSAValue]:
        if columns and chunks_columns(seg):
            _choose_column_chunks(eb, seg, sizes, m, n, same, name, profile)
            choice = eb.ip.block.last_op
            assert isinstance(choice, scf.IfOp)
            kept.append(choice)
        return []

    b.if_(use, [], segmented_form, otherwise)
    # The map as it was moves into the innermost else branch.
    choice = op.prev_op
    assert isinstance(choice, scf.IfOp)
    op.detach()
    block = (kept[0] if kept else choice).false_region.block
    Rewriter.insert_op(op, InsertPoint.at_start(block))
    op.attributes[KEPT_ATTR] = UnitAttr()


def chunks_columns(seg: SegmentedReduction) -> bool:
    """Whether the nest may run as column chunks (Note [Chunks of rows under the
    columns]): reductions only, every fold reading arrays shared by all segments but
    none the outermost map maps (n-body's pulls: as many columns as rows, never few
    columns over many rows), and nothing in the nest that may fail."""
    mapped = set(seg.map.inputs)
    return (not seg.scan
            and all(a.levels == () and a.base not in mapped for f in seg.folds
                    for a in f.inputs)
            and not any(may_fail(m.body) for m in seg.maps))


def _choose_column_chunks(b: CodeBuilder, seg: SegmentedReduction, sizes: Sequence[SSAValue],
                          m: SSAValue, n: SSAValue, same: Sequence[SSAValue], name: str,
                          profile: bool) -> None:
    """The choice between the column chunks (then branch) and an empty else branch,
    which receives the map as it was: the column chunks run when m is below
    `SITE.column_chunks_below`, the rows split into more than one chunk and the
    arrays each fold zips are of one length (`same`: else the map reports it)."""
    param = f"{name}.{COLUMNS_SUFFIX}"
    few = b.xori(run_params.reaches(b, seg.map, param, COLUMNS_DEFAULT, m, record=profile),
                 b.bool(True))
    count = chunk_count(b, n, seg.map)
    use = b.all_of([b.cmpi("sgt", m, b.i64(0)), few, b.cmpi("sgt", count, b.i64(1)), *same])

    def column_chunks(cb: CodeBuilder) -> list[SSAValue]:
        _column_chunks(cb, seg, sizes, m, count, name)
        return []

    b.if_(use, [], column_chunks, lambda eb: [])


def _column_chunks(b: CodeBuilder, seg: SegmentedReduction, sizes: Sequence[SSAValue],
                   m: SSAValue, count: SSAValue, name: str) -> None:
    """One parallel loop over the chunks of the shared rows, each running the map over
    the m segments (columns) on its chunk into partials[c, s]; then each segment's
    partials combined in chunk order, the scalar work run and the results stored."""
    folds = seg.folds
    # partials[c, s]: a 2-D array, so that each column stores at its own index
    # (`simd-map` runs the columns in lanes).
    parts = [[b.alloc(MemRefType(z.type, [DYNAMIC_INDEX, DYNAMIC_INDEX]), [count, m])
              for z in f.op.neutral] for f in folds]

    def chunk(cb: CodeBuilder, c: SSAValue) -> None:
        def column(sb: CodeBuilder, s: SSAValue) -> None:
            at_part = [c, s]
            for i, fold in enumerate(folds):
                at = _segment(sb, seg, sizes, s, until=fold.op)
                lo, hi = chunk_bounds(sb, c, fold.length(sb, 0), count)
                for v, p in zip(_fold_chunk(sb, fold, at, c, lo, hi), parts[i], strict=True):
                    sb.store(v, p, at_part)

        tag(parallel_for(cb, cb.i64(0), m, column), f"{name}.columns.map")

    loop = parallel_for(b, b.i64(0), count, chunk)
    loop.attributes[CHUNK_LOOP_ATTR] = UnitAttr()
    tag(loop, f"{name}.columns")

    def partial(cb: CodeBuilder, s: SSAValue) -> PartialIndex:
        return lambda lb, c: [lb.i64(0) if c is None else c, s]

    _combine_segments(b, seg, sizes, parts, m, count, partial, f"{name}.columns.combine")


def _chunk(b: CodeBuilder, k: SSAValue, n: SSAValue,
           count: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    """Row s, chunk c and its elements [lo, hi) of the pair k = s * count + c."""
    s = b.val(arith.DivSIOp(k, count))
    c = b.subi(k, b.muli(s, count))
    lo, hi = chunk_bounds(b, c, n, count)
    return s, c, lo, hi


def interleaves(fold: Fold) -> bool:
    """Whether `fold`'s chunks may be interleaved (Note [Interleaved chunks])."""
    return interleavable(fold.op)


def _fold_interleaved(b: CodeBuilder, fold: Fold, at: _Segment, c: SSAValue, n: SSAValue,
                      count: SSAValue) -> list[SSAValue]:
    """The fold of interleaved chunk c of the segment's row of n elements: elements c,
    c + count, c + 2 count, ... below n, in that order, counted by trips (Note [Stepped
    loops without overflow] in `l0.lowering.loop_ir.parallel_loops`); its start as
    `_fold_chunk`'s (a plain fold's chunk past the first from its first element, c)."""
    trips = ceil_div(b, b.maxsi(b.subi(n, c), b.i64(0)), count)
    neutral = [at.env.get(z, z) for z in fold.op.neutral]
    if fold.plain:
        first = b.cmpi("eq", c, b.i64(0))
        start = b.select(first, b.i64(0), b.i64(1))
        accs = [b.select(first, z, x)
                for z, x in zip(neutral, fold.elements(b, at.idx, c), strict=True)]
    else:
        start, accs = b.i64(0), neutral

    def step(lb: CodeBuilder, t: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        j = lb.addi(c, lb.muli(t, count))
        return _apply(lb, fold.op.body, [*acc, *fold.elements(lb, at.idx, j)], at.env)

    return b.for_(start, trips, accs, step)


def _fold_chunk(b: CodeBuilder, fold: Fold, at: _Segment, c: SSAValue, lo: SSAValue,
                hi: SSAValue, *, total: bool = False) -> list[SSAValue]:
    """The fold of chunk c of the segment's row, elements [lo, hi): from the neutral
    elements, or, for a plain fold, from the chunk's first element, except chunk 0 of a
    reduction (a scan's `total` of chunk 0 is combined after the neutral elements, its
    carry)."""
    neutral = [at.env.get(z, z) for z in fold.op.neutral]
    if fold.plain and total:
        accs = fold.elements(b, at.idx, lo)
        return _fold_elements(b, fold, at, b.addi(lo, b.i64(1)), hi, accs)
    if fold.plain:
        first = b.cmpi("eq", c, b.i64(0))
        start = b.select(first, lo, b.addi(lo, b.i64(1)))
        accs = [b.select(first, z, x)
                for z, x in zip(neutral, fold.elements(b, at.idx, lo), strict=True)]
    else:
        start, accs = lo, neutral
    return _fold_elements(b, fold, at, start, hi, accs)


def _fold_elements(b: CodeBuilder, fold: Fold, at: _Segment, lo: SSAValue, hi: SSAValue,
                   accs: Sequence[SSAValue], outs: Sequence[SSAValue] = ()) -> list[SSAValue]:
    """Fold elements [lo, hi) of the segment's row into `accs` with the fold's lambda;
    with `outs` (the destinations, indexed by the segment's levels), store each accumulator at its
    element (a scan)."""

    def step(lb: CodeBuilder, j: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        ys = _apply(lb, fold.op.body, [*acc, *fold.elements(lb, at.idx, j)], at.env)
        for y, o in zip(ys, outs, strict=False):
            lb.store(y, o, [*at.idx, j])
        return ys

    return b.for_(lo, hi, list(accs), step)


def _chunk_loop(b: CodeBuilder, pairs: SSAValue, work: SSAValue,
                body: Callable[[CodeBuilder, SSAValue], None], name: str) -> None:
    """The parallel loop over the (segment, chunk) pairs, judged by the `work`
    elements it folds (`chunk_count_over`)."""
    loop = parallel_for(b, b.i64(0), chunk_count_over(b, pairs, work), body)
    loop.attributes[CHUNK_LOOP_ATTR] = UnitAttr()
    tag(loop, name)


def _partials(b: CodeBuilder, fold: Fold, m: SSAValue, count: SSAValue) -> list[SSAValue]:
    """An array of m * count partial results per accumulator of `fold`."""
    return [b.alloc(MemRefType(z.type, [DYNAMIC_INDEX]), [b.muli(m, count)])
            for z in fold.op.neutral]


def _segmented_reduction(b: CodeBuilder, seg: SegmentedReduction, sizes: Sequence[SSAValue],
                         m: SSAValue, count: SSAValue, name: str,
                         interleave: bool = False) -> None:
    """Every chunk of every fold of every segment folded into its partials, in one
    parallel loop over the (segment, fold, chunk) triples (Note [Several folds]); then
    each segment's partials combined in chunk order, the lambda's scalar work run on
    the results and what it yields stored. With `interleave`, a fold that `interleaves`
    folds interleaved chunks, the others contiguous ones (Note [Interleaved chunks])."""
    folds = seg.folds
    interleaved = [interleave and interleaves(f) for f in folds]
    parts = [_partials(b, f, m, count) for f in folds]
    per_segment = b.muli(b.i64(len(folds)), count)

    def fold_chunk(cb: CodeBuilder, k: SSAValue) -> None:
        s = cb.val(arith.DivSIOp(k, per_segment))
        r = cb.subi(k, cb.muli(s, per_segment))
        f = cb.val(arith.DivSIOp(r, count))
        c = cb.subi(r, cb.muli(f, count))
        at_pair = cb.addi(cb.muli(s, count), c)
        for i, fold in enumerate(folds):

            def one(fb: CodeBuilder, fold: Fold = fold, i: int = i) -> list[SSAValue]:
                at = _segment(fb, seg, sizes, s, until=fold.op)
                length = fold.length(fb, 0)
                if interleaved[i]:
                    folded = _fold_interleaved(fb, fold, at, c, length, count)
                else:
                    lo, hi = chunk_bounds(fb, c, length, count)
                    folded = _fold_chunk(fb, fold, at, c, lo, hi)
                for v, p in zip(folded, parts[i], strict=True):
                    fb.store(v, p, [at_pair])
                return []

            if len(folds) == 1:
                one(cb)
            else:
                cb.if_(cb.cmpi("eq", f, cb.i64(i)), [], one)

    work = b.muli(m, _sum(b, [f.length(b, 0) for f in folds]))
    _chunk_loop(b, b.muli(m, per_segment), work, fold_chunk, f"{name}.segments")

    def partial(cb: CodeBuilder, s: SSAValue) -> PartialIndex:
        base = cb.muli(s, count)
        return lambda lb, c: [base if c is None else lb.addi(base, c)]

    _combine_segments(b, seg, sizes, parts, m, count, partial, f"{name}.segments.combine")


PartialIndex = Callable[[CodeBuilder, SSAValue | None], list[SSAValue]]
"""The indices of a segment's partial of chunk c (None: of chunk 0) in the partials."""


def _combine_segments(b: CodeBuilder, seg: SegmentedReduction, sizes: Sequence[SSAValue],
                      parts: Sequence[Sequence[SSAValue]], m: SSAValue, count: SSAValue,
                      partial: Callable[[CodeBuilder, SSAValue], PartialIndex],
                      site: str) -> None:
    """One parallel loop over the m segments: each folds its `count` partials of every
    fold in chunk order (from chunk 0's, with the fold's operator), runs the lambda's
    scalar work on the results and stores what it yields. `partial(cb, s)` says where
    segment s's partials are (a layout of each form's own)."""

    def combine_segment(cb: CodeBuilder, s: SSAValue) -> None:
        index = partial(cb, s)
        at = _segment(cb, seg, sizes, s)
        folded: dict[SSAValue, SSAValue] = {}
        for fold, ps in zip(seg.folds, parts, strict=True):

            def step(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue],
                     fold: Fold = fold, ps: Sequence[SSAValue] = ps) -> list[SSAValue]:
                at_c = index(lb, c)
                return _apply(lb, fold.operator, [*acc, *[lb.load(p, at_c) for p in ps]],
                              at.env)

            _load_used(cb, seg, at, fold.op)
            at_0 = index(cb, None)
            first = [cb.load(p, at_0) for p in ps]
            folded.update(zip(fold.op.results, cb.for_(cb.i64(1), count, first, step),
                              strict=True))
        for v, dest in zip(_finish(cb, seg, at, folded), seg.destinations(), strict=True):
            cb.store(v, dest.base, at.idx)

    tag(parallel_for(b, b.i64(0), m, combine_segment), site)


def _sum(b: CodeBuilder, values: Sequence[SSAValue]) -> SSAValue:
    total = values[0]
    for v in values[1:]:
        total = b.addi(total, v)
    return total


def _segmented_scan(b: CodeBuilder, seg: SegmentedReduction, sizes: Sequence[SSAValue],
                    m: SSAValue, n: SSAValue, count: SSAValue, name: str) -> None:
    """The blocked scan of every row at once (Note [Segmented reductions]): (1) the
    total of every chunk, in one parallel loop; (2) per row, in parallel, each chunk's
    carry-in: the neutral elements, then the totals before it combined in order; (3)
    every chunk scanned from its carry-in into the map's destination, in one parallel
    loop. (1) folds the last chunk of each row too, whose total no carry needs, so that
    a failing element is met in element order there (the lowest failing pair holds the
    lowest failing element) before (3) runs anything."""
    fold = seg.folds[0]
    totals = _partials(b, fold, m, count)
    work = b.muli(m, n)

    def total(cb: CodeBuilder, k: SSAValue) -> None:
        s, c, lo, hi = _chunk(cb, k, n, count)
        at = _segment(cb, seg, sizes, s, until=fold.op)
        for v, t in zip(_fold_chunk(cb, fold, at, c, lo, hi, total=True), totals,
                        strict=True):
            cb.store(v, t, [k])

    _chunk_loop(b, b.muli(m, count), work, total, f"{name}.segments")
    carries = _partials(b, fold, m, count)

    def carry_row(cb: CodeBuilder, s: SSAValue) -> None:
        base = cb.muli(s, count)
        at = _segment(cb, seg, sizes, s, until=fold.op)
        neutral = [at.env.get(z, z) for z in fold.op.neutral]
        for z, cr in zip(neutral, carries, strict=True):
            cb.store(z, cr, [base])

        def step(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            k = lb.addi(base, c)
            before = lb.subi(k, lb.i64(1))
            new = _apply(lb, fold.operator, [*acc, *[lb.load(t, [before]) for t in totals]],
                         at.env)
            for v, cr in zip(new, carries, strict=True):
                lb.store(v, cr, [k])
            return new

        cb.for_(cb.i64(1), count, neutral, step)

    rows = parallel_for(b, b.i64(0), m, carry_row)
    tag(rows, f"{name}.segments.carries")

    def scan_chunk(cb: CodeBuilder, k: SSAValue) -> None:
        s, _, lo, hi = _chunk(cb, k, n, count)
        at = _segment(cb, seg, sizes, s, until=fold.op)
        _fold_elements(cb, fold, at, lo, hi, [cb.load(cr, [k]) for cr in carries],
                       [d.base for d in seg.destinations()])

    _chunk_loop(b, b.muli(m, count), work, scan_chunk, f"{name}.segments.scan")


def _apply(b: CodeBuilder, region: Region, args: Sequence[SSAValue],
           env: dict[SSAValue, SSAValue]) -> list[SSAValue]:
    """A copy of the lambda `region`, its uses of the nest's values replaced by `env`'s,
    applied to `args` where `b` inserts: its results."""
    copy = Region()
    region.clone_into(copy, value_mapper=dict(env))
    block = copy.block
    term = block.last_op
    assert isinstance(term, msoac.YieldOp)
    Rewriter.inline_block(block, b.ip, list(args))
    values = list(term.values)
    Rewriter.erase_op(term)
    return values


@dataclass(frozen=True)
class SegmentReductionsPass(ModulePass):
    """A nest of maps over folds (reductions or a scan) with few segments runs them
    over all elements: chunks of every segment folded in one parallel loop, then
    combined per segment in order; chosen at run time against the nest as it was
    (`SITE.segmented_below`, default `threshold`: `threads*1`, `gpu_threads*1`, or a
    number). With `columns` (multicore), a nest whose folds all read arrays shared by its
    segments, not segmented, runs as column chunks below `SITE.column_chunks_below`
    (default `threads*64`): each chunk of the shared rows runs the whole map over the
    segments, then each segment's partials are combined in chunk order (Note [Chunks of
    rows under the columns])."""

    name = "segment-reductions"

    threshold: str = "threads*1"
    profile: bool = False
    """Note the segment counts compared with the threshold (`l0 autotune`'s candidates)."""
    interleave: bool = False
    """A fold whose operator commutes folds interleaved chunks (Note [Interleaved
    chunks]: coalesced loads on a GPU); else contiguous ones."""
    columns: bool = False
    """A nest whose folds read arrays shared by its segments may run as column chunks
    (Note [Chunks of rows under the columns]): multicore."""

    def __post_init__(self) -> None:
        if not _SPEC.fullmatch(self.threshold):
            raise ValueError(f"segment-reductions: threshold must be N, threads*N or "
                             f"gpu_threads*N, not {self.threshold!r}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for found in [s for o in walk_ops(op) if isinstance(o, msoac.MapOp)
                      if (s := segmented(o)) is not None]:
            segment(found, self.threshold, self.profile, self.interleave, self.columns)
