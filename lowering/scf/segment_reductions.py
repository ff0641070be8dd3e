"""The `segment-reductions` pass: a map of reductions or scans over few rows runs over all elements.

`map(fn row => reduce(op, z, row), rows)` (or a redomap, a tuple operator, a fold over
`zip(row, v)` with `v` the same in every row; or a `scan`, a scanomap) over m rows of n
elements runs, as `convert-soac-to-scf` makes it,
one row per thread with its fold sequential: with 4 rows of 10^6 elements, 4 threads
work and the rest of the machine waits. This pass (multicore, gpu and gpu-sim; before
`convert-soac-to-scf`, on `msoac`) keeps that code and adds the segmented form beside
it, chosen at run time (Note [Segmented reductions], Note [Choosing the segmented form]).

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

Note [Segmented reductions], Note [Choosing the segmented form]).

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
Row s of the m rows is cut into C contiguous chunks (the blocked reduction's chunks,
Note [Parallel width] and `chunk_bounds` in `l0.lowering.loop_ir.parallel_loops`), and
one parallel loop over the m * C (row, chunk) pairs, row-major, folds every chunk:
on multicore one OpenMP region over all elements, on the GPU one kernel with a thread
per chunk. Chunk 0 of a row folds from the neutral elements; with a `combine`
operator (redomap) every chunk does, as the blocked reduction's; when the lambda is
the operator itself (a plain reduce), chunk c > 0 folds from its first element, as
`multicore`'s plain reductions do, so that an initial value that is not neutral is
counted once. A second parallel loop, over the rows, folds each row's C partial
results in chunk order with the operator. The order of combination depends only on n
and C (fixed before the loops from the parameter): no atomics, results independent of
timing; the operator must be associative (thesis 2.3), need not commute.

A map of scans (each row scanned into the map's destination row) is the blocked scan of
`convert-soac-to-scf` for all rows at once: one parallel loop over the pairs computes
each chunk's total (a plain scan's chunks from their first element, a scanomap's from
the neutral elements), one over the rows each chunk's carry-in (the neutral elements,
then the totals before it combined in order), one over the pairs scans each chunk from
its carry-in.

Errors: a fold that fails stops its chunk at its first failing element; the chunks of
the flattened loop are in element order (row-major), and the back ends report the
failure of the lowest failing iteration, so the error is the lowest failing element's,
the one the sequential fold reports. The operator itself is applied to partial results
the sequential fold never forms, so a reduction whose operator may fail (a check, a
call) is left alone, and so is one whose chunks could not be folded from the row alone:
its input computed in the map's lambda (`iota(i)`, a `concat`: irregular segments), a
value of the lambda used by the fold, anything else in the lambda, array accumulators,
and a fold that traces (`trace` prints in the sequential order).
A scan's totals are taken for every chunk, the last of each row too (whose total no
carry needs), so that its first loop meets a failing element in element order before
any chunk is scanned.

Note [Interleaved chunks]
~~~~~~~~~~~~~~~~~~~~~~~~
On a GPU the chunk loop is a kernel with a thread per (row, chunk) pair, row-major, so
the threads of a warp are consecutive chunks of one row. With contiguous chunks of
n / C elements, thread t's j-th load is at t * n / C + j: a warp's 32 loads are
thousands of elements apart, 32 memory transactions where one would do. With
`interleave` (the GPU back ends: `l0.lowering.pipeline.segmenting`), chunk c of a row
folds elements c, c + C, c + 2C, ... (ceil((n - c) / C) of them, in that order), so
at each step the warp's threads read consecutive elements: coalesced. Chunk 0 of a
plain fold starts from the neutral element and the others from their first element
(element c), as the contiguous ones do; the combine kernel is unchanged (the C
partials of a row in chunk order).

A chunk then holds elements from all over the row, so the operator must commute as
well as associate: only reductions whose operator `commutative_operator`
(`l0.lowering.scf.commutative`) recognises are interleaved (integer `+`, `*`, `&`,
`|`, `^`, `&&`, `||`, min, max; real `+` and `*`; tuples of these, component by
component: sibling folds fused into one), the others keep their contiguous chunks,
and scans always do. Integer results are the left fold's exactly. A real sum
is reassociated, as with contiguous chunks, but in another fixed order: it may differ
from the sequential fold, and from the contiguous form, in its last bits (the corpus
compares reals within `l0.values.compare`'s tolerance), and it depends only on n and C,
never on timing (no atomics). A fold that may fail is never interleaved: thread t
would meet its first failing element after elements of higher index than thread
t + 1's, and the lowest failing thread would no longer hold the lowest failing element.
Multicore keeps contiguous chunks: a thread striding through a row would touch a cache
line per element.

Note [Choosing the segmented form]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Both forms are in the code; which runs is decided each time the map is reached, from
m, n and the run-time parameter `SITE.segmented_below` (T; `l0.lowering.loop_ir.run_params`,
SITE the map's name, Note [Names of parallel sites]): the segmented form runs when
0 < m < T and C = max(1, min(ceil(T / m), n / MIN_CHUNK)) > 1, i.e. when the rows
alone would leave the device's T threads idle and each row is long enough to split
into chunks of at least MIN_CHUNK elements. C * m is then about T: each thread (or GPU
thread) gets one chunk. T defaults to the device's parallelism (the pass option
`threshold`, a `run_tables.default_value` spec: `threads*1` on multicore, the GPU's
resident threads `gpu_threads*1` on gpu and gpu-sim); `--param SITE.segmented_below=0`
forces the map as it was, a large value the segmented form wherever rows split.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from l0.dialects import msoac, soac
from l0.dialects.memref_types import rank_of
from l0.dialects.soac import CertType
from l0.lowering.loop_ir import run_params
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import (
    CHUNK_LOOP_ATTR,
    ceil_div,
    chunk_bounds,
    chunk_count_over,
    defined_inside,
    nested_in_parallel,
    parallel_for,
)
from l0.lowering.loop_ir.profile import site_name, tag
from l0.lowering.runtime.min_chunk import min_chunk
from l0.lowering.scf.commutative import commutative_operator

PARAM_SUFFIX = "segmented_below"
"""The suffix of a map's threshold: `SITE.segmented_below`."""

KEPT_ATTR = "l0.unsegmented"
"""Marks the map of the version that runs as it was (never segmented again)."""

_SHAPE_QUERIES = (arith.ConstantOp, arith.IndexCastOp, memref.DimOp)
_SPEC = re.compile(r"((threads|gpu_threads)\*)?[0-9]+")


@dataclass(frozen=True)
class SegmentedReduction:
    """A map of one reduction or scan over its rows (`segmented`): the map, the fold (a
    `msoac.reduce`, or a `msoac.scan` into the map's destination rows), its operator,
    and for each input of the fold the map's input whose rows it folds, or the array
    it folds in every row."""

    map: msoac.MapOp
    fold: msoac.ReduceOp | msoac.ScanOp
    operator: Region
    arrays: list[SSAValue]
    shared: list[bool]
    """Per input of the fold: whether it is an array the map's lambda uses as it is (a
    matrix-vector product's vector), not the rows of one of the map's inputs."""

    def element(self, b: CodeBuilder, i: int, s: SSAValue, j: SSAValue) -> SSAValue:
        """Element j of the fold's input i in row s."""
        a = self.arrays[i]
        return b.load(a, [j] if self.shared[i] else [s, j])

    def elements(self, b: CodeBuilder, s: SSAValue, j: SSAValue) -> list[SSAValue]:
        return [self.element(b, i, s, j) for i in range(len(self.arrays))]

    def length(self, b: CodeBuilder, i: int) -> SSAValue:
        """The length of the fold's input i (in every row)."""
        return b.dim(self.arrays[i], 0 if self.shared[i] else 1)

    @property
    def plain(self) -> bool:
        """Whether the fold's lambda is its operator (a chunk past a row's first then
        folds from its first element, Note [Segmented reductions])."""
        return self.operator is self.fold.body


_PARALLEL_SOACS = (msoac.MapOp, msoac.ReduceOp, msoac.ScanOp, msoac.FilterOp,
                   msoac.PartitionOp)
"""The SOACs whose lambdas become the bodies of parallel loops."""


def _in_soac_lambda(op: msoac.MapOp) -> bool:
    """Whether `op` is in the lambda of another SOAC: it runs in a thread of that SOAC's
    parallel loop (a kernel's, on the gpu), sequentially, where its version choice
    would read a host global (the threshold) from device code."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, _PARALLEL_SOACS):
            return True
        parent = parent.parent_op()
    return False


def segmented(op: msoac.MapOp) -> SegmentedReduction | None:
    """`op` as a segmented reduction or scan (Note [Segmented reductions]), or None."""
    if KEPT_ATTR in op.attributes or nested_in_parallel(op) or _in_soac_lambda(op) \
            or op.allocated or not op.outs:
        return None
    block = op.body.block
    folds = [o for o in block.ops if isinstance(o, msoac.ReduceOp | msoac.ScanOp)]
    term = block.last_op
    if len(folds) != 1 or not isinstance(term, msoac.YieldOp):
        return None
    fold = folds[0]
    k = len(op.inputs)
    if isinstance(fold, msoac.ReduceOp):
        # One scalar per row, each the map's result.
        if any(rank_of(o.type) != 1 for o in op.outs) or \
                list(term.values) != list(fold.outputs) or len(fold.outputs) != len(op.outs):
            return None
        operator = fold.operator()
    else:
        # The scan of each row into the map's destination row, which the lambda yields.
        dests = list(block.args[k:])
        if fold.allocated or any(rank_of(o.type) != 2 for o in op.outs) or \
                list(fold.outs) != dests or list(term.values) != dests:
            return None
        operator = fold.operator if fold.operator is not None else fold.body
    # Besides the fold only shape queries, which the segmented form drops.
    if any(o is not fold and o is not term and not isinstance(o, _SHAPE_QUERIES)
           for o in block.ops):
        return None
    if operator is None or _may_fail(operator):
        return None
    # What a fold traces prints in the sequential order only (a scan's elements are
    # folded twice, the partials combined with the operator).
    if _may_trace(fold):
        return None
    if any(isinstance(z.type, MemRefType | CertType) for z in fold.neutral):
        return None
    arrays: list[SSAValue] = []
    shared: list[bool] = []
    for v in fold.inputs:
        if v.owner is block and block.args.index(v) < k:
            array = op.inputs[block.args.index(v)]  # the rows of a map input
        elif not defined_inside(v, op):
            array = v  # an array of the map's scope, the same for every row
        else:
            return None
        if rank_of(array.type) != (1 if array is v else 2):
            return None
        arrays.append(array)
        shared.append(array is v)
    seg = SegmentedReduction(op, fold, operator, arrays, shared)
    # A plain fold's accumulators are elements (a chunk folds from its first).
    if seg.plain and [z.type for z in fold.neutral] != [_element(a) for a in arrays]:
        return None
    # The fold and the operator may use only values from outside the map.
    if any(defined_inside(v, op) for v in fold.neutral) or _uses_lambda_values(fold, op):
        return None
    return seg


def _element(array: SSAValue) -> Attribute:
    t = array.type
    assert isinstance(t, MemRefType)
    return t.element_type


def _may_fail(region: Region) -> bool:
    return any(isinstance(o, soac.AssertOp | func.CallOp) for o in region.walk())


def _may_trace(fold: Operation) -> bool:
    """Whether `fold` traces (`l0_trace_*`) or calls a function with a body (which may)."""
    module = fold.get_toplevel_object()
    bodies = {f.sym_name.data for f in module.walk() if isinstance(f, func.FuncOp)
              and f.body.blocks} if isinstance(module, ModuleOp) else set()
    for o in fold.walk():
        if isinstance(o, soac.TraceOp):
            return True
        if isinstance(o, func.CallOp):
            callee = o.callee.root_reference.data
            if callee.startswith("l0_trace") or callee in bodies:
                return True
    return False


def _uses_lambda_values(red: msoac.ReduceOp | msoac.ScanOp, op: msoac.MapOp) -> bool:
    """Whether the fold's regions use a value the map's lambda defines outside the fold
    (its rows and destinations count: they are the fold's operands, not its lambda's)."""
    for inner in red.walk():
        if inner is red:
            continue
        for v in inner.operands:
            if defined_inside(v, op) and not defined_inside(v, red):
                return True
    return False


def segment(seg: SegmentedReduction, threshold: str, profile: bool = False,
            interleave: bool = False) -> None:
    """Replace the map by the choice between it and its segmented form (module
    docstring). With `profile`, the row counts compared with the threshold are noted
    for `l0 autotune` (`run_params.reaches`); with `interleave`, a reduction that
    `interleaves` folds interleaved chunks (Note [Interleaved chunks])."""
    op = seg.map
    b = CodeBuilder.before(op)
    name = site_name(op, "map")
    m = b.dim(op.inputs[0], 0)
    n = seg.length(b, 0)
    param = f"{name}.{PARAM_SUFFIX}"
    below = run_params.load(b, op, param, threshold)
    per_row = b.val(arith.CeilDivSIOp(below, b.maxsi(m, b.i64(1))))
    count = b.maxsi(b.val(arith.MinSIOp(per_row, b.val(arith.DivSIOp(n, b.i64(min_chunk()))))),
                    b.i64(1))
    # Rows of equal length only (the map as it was reports a mismatch, if anything).
    same = [b.cmpi("eq", seg.length(b, i), n) for i in range(1, len(seg.arrays))]
    few_rows = b.xori(run_params.reaches(b, op, param, threshold, m, record=profile),
                      b.bool(True))
    use = b.all_of([b.cmpi("sgt", m, b.i64(0)), few_rows,
                    b.cmpi("sgt", count, b.i64(1)), *same])

    def segmented_form(sb: CodeBuilder) -> list[SSAValue]:
        if isinstance(seg.fold, msoac.ReduceOp):
            _segmented_reduction(sb, seg, m, n, count, name,
                                 interleave and interleaves(seg))
        else:
            _segmented_scan(sb, seg, m, n, count, name)
        return []

    b.if_(use, [], segmented_form, lambda eb: [])
    # The map as it was moves into the else branch.
    choice = op.prev_op
    assert isinstance(choice, scf.IfOp)
    op.detach()
    Rewriter.insert_op(op, InsertPoint.at_start(choice.false_region.block))
    op.attributes[KEPT_ATTR] = UnitAttr()


def _row_and_chunk(b: CodeBuilder, k: SSAValue, count: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Row s and chunk c of the pair k = s * count + c."""
    s = b.val(arith.DivSIOp(k, count))
    return s, b.subi(k, b.muli(s, count))


def _chunk(b: CodeBuilder, k: SSAValue, n: SSAValue,
           count: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    """Row s, chunk c and its elements [lo, hi) of the pair k = s * count + c."""
    s, c = _row_and_chunk(b, k, count)
    lo, hi = chunk_bounds(b, c, n, count)
    return s, c, lo, hi


def interleaves(seg: SegmentedReduction) -> bool:
    """Whether `seg`'s chunks may be interleaved (Note [Interleaved chunks]): a
    reduction whose operator is commutative (`commutative_operator`) and whose fold
    cannot fail."""
    return (isinstance(seg.fold, msoac.ReduceOp) and commutative_operator(seg.operator)
            and not _may_fail(seg.fold.body))


def _fold_interleaved(b: CodeBuilder, seg: SegmentedReduction, s: SSAValue, c: SSAValue,
                      n: SSAValue, count: SSAValue) -> list[SSAValue]:
    """The fold of interleaved chunk c of row s: elements c, c + count, c + 2 count, ...
    below n, in that order, counted by trips (Note [Stepped loops without overflow] in
    `l0.lowering.loop_ir.parallel_loops`); its start as `_fold_chunk`'s (a plain fold's
    chunk past the first from its first element, c)."""
    trips = ceil_div(b, b.maxsi(b.subi(n, c), b.i64(0)), count)
    if seg.plain:
        first = b.cmpi("eq", c, b.i64(0))
        start = b.select(first, b.i64(0), b.i64(1))
        accs = [b.select(first, z, x)
                for z, x in zip(seg.fold.neutral, seg.elements(b, s, c), strict=True)]
    else:
        start, accs = b.i64(0), list(seg.fold.neutral)

    def step(lb: CodeBuilder, t: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        j = lb.addi(c, lb.muli(t, count))
        return _apply(lb, seg.fold.body, [*acc, *seg.elements(lb, s, j)])

    return b.for_(start, trips, accs, step)


def _fold_chunk(b: CodeBuilder, seg: SegmentedReduction, s: SSAValue, c: SSAValue,
                lo: SSAValue, hi: SSAValue, *, total: bool = False) -> list[SSAValue]:
    """The fold of chunk c of row s, elements [lo, hi): from the neutral elements, or,
    for a plain fold, from the chunk's first element, except chunk 0 of a reduction
    (a scan's `total` of chunk 0 is combined after the neutral elements, its carry)."""
    fold = seg.fold
    if seg.plain and total:
        accs = seg.elements(b, s, lo)
        return _fold_elements(b, seg, s, b.addi(lo, b.i64(1)), hi, accs)
    if seg.plain:
        first = b.cmpi("eq", c, b.i64(0))
        start = b.select(first, lo, b.addi(lo, b.i64(1)))
        accs = [b.select(first, z, x)
                for z, x in zip(fold.neutral, seg.elements(b, s, lo), strict=True)]
    else:
        start, accs = lo, list(fold.neutral)
    return _fold_elements(b, seg, s, start, hi, accs)


def _fold_elements(b: CodeBuilder, seg: SegmentedReduction, s: SSAValue, lo: SSAValue,
                   hi: SSAValue, accs: Sequence[SSAValue],
                   outs: Sequence[SSAValue] = ()) -> list[SSAValue]:
    """Fold elements [lo, hi) of row s into `accs` with the fold's lambda; with `outs`,
    store each accumulator at its element (a scan)."""

    def step(lb: CodeBuilder, j: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        ys = _apply(lb, seg.fold.body, [*acc, *seg.elements(lb, s, j)])
        for y, o in zip(ys, outs, strict=False):
            lb.store(y, o, [s, j])
        return ys

    return b.for_(lo, hi, list(accs), step)


def _chunk_loop(b: CodeBuilder, m: SSAValue, n: SSAValue, count: SSAValue,
                body: Callable[[CodeBuilder, SSAValue], None], name: str) -> None:
    """The parallel loop over the m * count (row, chunk) pairs, judged by the m * n
    elements it works on (`chunk_count_over`)."""
    pairs = chunk_count_over(b, b.muli(m, count), b.muli(m, n))
    loop = parallel_for(b, b.i64(0), pairs, body)
    loop.attributes[CHUNK_LOOP_ATTR] = UnitAttr()
    tag(loop, name)


def _partials(b: CodeBuilder, seg: SegmentedReduction, m: SSAValue,
              count: SSAValue) -> list[SSAValue]:
    """An array of m * count partial results per accumulator."""
    return [b.alloc(MemRefType(z.type, [DYNAMIC_INDEX]), [b.muli(m, count)])
            for z in seg.fold.neutral]


def _segmented_reduction(b: CodeBuilder, seg: SegmentedReduction, m: SSAValue, n: SSAValue,
                         count: SSAValue, name: str, interleaved: bool = False) -> None:
    """Every chunk folded into parts[k], in one parallel loop (chunks contiguous, or
    `interleaved`: Note [Interleaved chunks]); then each row's partials combined in
    chunk order into the map's results."""
    parts = _partials(b, seg, m, count)

    def fold_chunk(cb: CodeBuilder, k: SSAValue) -> None:
        if interleaved:
            s, c = _row_and_chunk(cb, k, count)
            folded = _fold_interleaved(cb, seg, s, c, n, count)
        else:
            s, c, lo, hi = _chunk(cb, k, n, count)
            folded = _fold_chunk(cb, seg, s, c, lo, hi)
        for v, p in zip(folded, parts, strict=True):
            cb.store(v, p, [k])

    _chunk_loop(b, m, n, count, fold_chunk, f"{name}.segments")

    def combine_row(cb: CodeBuilder, s: SSAValue) -> None:
        base = cb.muli(s, count)

        def step(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            at = lb.addi(base, c)
            return _apply(lb, seg.operator, [*acc, *[lb.load(p, [at]) for p in parts]])

        first = [cb.load(p, [base]) for p in parts]
        for v, o in zip(cb.for_(cb.i64(1), count, first, step), seg.map.outs, strict=True):
            cb.store(v, o, [s])

    rows = parallel_for(b, b.i64(0), m, combine_row)
    tag(rows, f"{name}.segments.combine")


def _segmented_scan(b: CodeBuilder, seg: SegmentedReduction, m: SSAValue, n: SSAValue,
                    count: SSAValue, name: str) -> None:
    """The blocked scan of every row at once (Note [Segmented reductions]): (1) the
    total of every chunk, in one parallel loop; (2) per row, in parallel, each chunk's
    carry-in: the neutral elements, then the totals before it combined in order; (3)
    every chunk scanned from its carry-in into the map's destination, in one parallel
    loop. (1) folds the last chunk of each row too, whose total no carry needs, so that
    a failing element is met in element order there (the lowest failing pair holds the
    lowest failing element) before (3) runs anything."""
    totals = _partials(b, seg, m, count)

    def total(cb: CodeBuilder, k: SSAValue) -> None:
        s, c, lo, hi = _chunk(cb, k, n, count)
        for v, t in zip(_fold_chunk(cb, seg, s, c, lo, hi, total=True), totals, strict=True):
            cb.store(v, t, [k])

    _chunk_loop(b, m, n, count, total, f"{name}.segments")
    carries = _partials(b, seg, m, count)

    def carry_row(cb: CodeBuilder, s: SSAValue) -> None:
        base = cb.muli(s, count)
        for z, cr in zip(seg.fold.neutral, carries, strict=True):
            cb.store(z, cr, [base])

        def step(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            at = lb.addi(base, c)
            before = lb.subi(at, lb.i64(1))
            new = _apply(lb, seg.operator, [*acc, *[lb.load(t, [before]) for t in totals]])
            for v, cr in zip(new, carries, strict=True):
                lb.store(v, cr, [at])
            return new

        cb.for_(cb.i64(1), count, list(seg.fold.neutral), step)

    rows = parallel_for(b, b.i64(0), m, carry_row)
    tag(rows, f"{name}.segments.carries")

    def scan_chunk(cb: CodeBuilder, k: SSAValue) -> None:
        s, _, lo, hi = _chunk(cb, k, n, count)
        _fold_elements(cb, seg, s, lo, hi, [cb.load(cr, [k]) for cr in carries],
                       seg.map.outs)

    _chunk_loop(b, m, n, count, scan_chunk, f"{name}.segments.scan")


def _apply(b: CodeBuilder, region: Region, args: Sequence[SSAValue]) -> list[SSAValue]:
    """A copy of the lambda `region` applied to `args` where `b` inserts: its results."""
    term = b.inline(region, args)
    assert isinstance(term, msoac.YieldOp)
    values = list(term.values)
    Rewriter.erase_op(term)
    return values


@dataclass(frozen=True)
class SegmentReductionsPass(ModulePass):
    """A map of reductions (or scans) with few rows runs them over all elements: chunks
    of every row folded in one parallel loop, then combined per row in order; chosen
    at run time against the map as it was (`SITE.segmented_below`, default
    `threshold`: `threads*1`, `gpu_threads*1`, or a number)."""

    name = "segment-reductions"

    threshold: str = "threads*1"
    profile: bool = False
    """Note the row counts compared with the threshold (`l0 autotune`'s candidates)."""
    interleave: bool = False
    """A reduction whose operator commutes folds interleaved chunks (Note [Interleaved
    chunks]: coalesced loads on a GPU); else contiguous ones."""

    def __post_init__(self) -> None:
        if not _SPEC.fullmatch(self.threshold):
            raise ValueError(f"segment-reductions: threshold must be N, threads*N or "
                             f"gpu_threads*N, not {self.threshold!r}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for found in [s for o in op.walk() if isinstance(o, msoac.MapOp)
                      if (s := segmented(o)) is not None]:
            segment(found, self.threshold, self.profile, self.interleave)


