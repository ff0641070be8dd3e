"""The `convert-parallel-to-omp` pass: the outermost `scf.parallel` loops become OpenMP.

The multicore back end's step between the parallel form and LLVM IR
(`docs/backend.md`). Each outermost `scf.parallel` (one not inside another) becomes

    omp.parallel if(%big) {
      omp.wsloop schedule(static) {
        omp.loop_nest (%i) : index = (%lb) to (%ub) step (%s) { body; omp.yield }
      }
      omp.terminator
    }

as xDSL's `convert-scf-to-openmp` builds it (its first dimension; the others stay an
inner `scf.parallel`, run sequentially by each thread), with an `if` clause: a loop of
too little work runs on the calling thread alone (Note [Sequential below a
threshold]). Then consecutive regions of a block become one region whose `omp.wsloop`s
are its phases, with `omp.barrier` between two phases only where the later one must
wait (`l0.lowering.cpu.omp_phases`, Note [One region per parallel phase]; option
`merge`, on by default). The LLVM emitter (`l0.lowering.llvm.omp`) outlines each region
and calls libgomp. With `profile`, each region is counted (`l0.lowering.loop_ir.profile`).

Note [Sequential below a threshold]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Waking threads costs a few microseconds on an idle machine and milliseconds on a loaded
one (a worker waiting for a CPU), so a region forks only when its work pays for it: its
trip count times the estimated work of one iteration reaches the region's threshold
(`run_params.reaches`), the run-time parameter `SITE.min_work`
(`l0.lowering.loop_ir.run_params`; SITE the region's name, Note [Names of parallel
sites] in `l0.lowering.loop_ir.profile`), and it has two iterations or more. Otherwise
the `if` clause is false and the outlined loop runs on the calling thread as thread 0 of
1: no `GOMP_parallel`, no wake-up. The default threshold is WORK_PER_THREAD (2^14) times
the thread count, so each thread would get some 10^4 operations. An iteration's work is
counted at compile time (`iteration_work`): one per operation, a call or a copy
CALL_WORK, an inner loop UNKNOWN_TRIPS times its body (its trip count is not known
here), a branch its dearer side; an inner loop whose bounds are defined before the
region counts its trip count times its body instead, computed when the region is
reached (`run_time_work`: a map over 25 columns of a fold over 10^6 rows each forks).
A loop over chunks (the reductions, scans and filters of `chunk_count`, the allocating
loops of `chunk-parallel`) is judged by its rows (`chunked_rows`) times the work of one
row. The comparison is made when the region is reached, against the value the
parameter has then, so `--param` changes it without compiling again.

Which way a region ran changes no result: the sequential path runs the same
outlined body over all iterations in order, as one thread whose chunk is everything,
and a reduction's chunks (their number fixed before the region, from the thread
count) are folded and combined exactly as on the threaded path.

A parallel loop with reductions (`scf.reduce`) is first made reduction-free: its
iterations are split into C chunks (Note [Parallel width] in
`l0.lowering.loop_ir.parallel_loops`), a parallel loop folds each chunk into a partial
result (chunk 0 from the initial value, the others from their first value, so the
initial value is used once, as in the left fold), and the partials are combined in
chunk order on the calling thread; with one chunk this is the left fold itself. The
combination order depends on C, that is on the thread count: real-valued sums may
differ in their last bits from the sequential fold (`docs/backend.md`), but one
thread count always gives one result.

Note [Parallel copies]
~~~~~~~~~~~~~~~~~~~~~~
A `memref.copy` of rank 2 or more outside every parallel loop (the copy of
`transpose(y)` in a matrix product) runs on one thread: its strided reads, and the
first touch of the destination's fresh pages (a page fault each, costly in a VM), are
the serial part of the program. Such a copy of at least `GRAIN` elements becomes a
parallel loop copying one row per iteration,

    scf.if (elements >= GRAIN) {
      scf.parallel (%i) = (0) to (min(rows(src), rows(dst))) { memref.copy src[i], dst[i] }
    } else {
      memref.copy src, dst
    }

(the rows' common extent, as `memref.copy` copies the overlap), whose rows the threads
share as any parallel loop's; a smaller copy stays as it was. A copy cannot fail, so
the order of its rows is free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, omp, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.cpu.flat_nests import collapse
from l0.lowering.cpu.omp_phases import merge_regions, phases
from l0.lowering.loop_ir import profile as profile_ir
from l0.lowering.loop_ir import run_params
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import (
    chunk_bounds,
    chunk_count,
    chunked_rows,
    parallel_for,
    parallel_width,
)
from l0.lowering.loop_ir.versions import in_flat_version
from l0.passes.analysis.walk import walk_ops

GRAIN = 1 << 14
"""Elements from which a copy of rank >= 2 runs as a parallel loop over its rows (Note
[Parallel copies])."""

WORK_PER_THREAD = 1 << 14
"""The estimated work (Note [Sequential below a threshold]) a thread should get for a
fork to pay: forking and joining costs a few microseconds, ~10^4 simple operations."""

UNKNOWN_TRIPS = 16
"""What an inner loop whose trip count is not known at compile time counts as."""

CALL_WORK = 64
"""What a call (or a copy) in a loop body counts as."""

MOST_WORK = 1 << 40
"""Estimates are capped here (deep nests of unknown loops)."""


def iteration_work(op: scf.ParallelOp, per_row: bool = False) -> int:
    """The estimated work of one iteration of the parallel loop `op` (Note
    [Sequential below a threshold]), at least 1; with `per_row`, of one row of an
    iteration of a loop over chunks (its loops over the chunk's rows count once)."""
    trips = 1 if per_row else UNKNOWN_TRIPS
    return max(1, min(MOST_WORK, sum(_work(o, trips) for r in op.regions for b in r.blocks
                                     for o in b.ops)))


def _work(op: Operation, trips: int = UNKNOWN_TRIPS) -> int:
    """The estimated work of `op`; a loop at this level runs `trips` times."""
    if isinstance(op, scf.ForOp | scf.WhileOp | scf.ParallelOp):
        inner = sum(_work(o) for r in op.regions for b in r.blocks for o in b.ops)
        return min(MOST_WORK, 1 + trips * inner)
    if isinstance(op, func.CallOp | memref.CopyOp):
        return CALL_WORK
    if op.regions:  # a branch: the dearest way through it
        return 1 + max((sum(_work(o, trips) for b in r.blocks for o in b.ops)
                        for r in op.regions), default=0)
    return 1


_BOUND_OPS = frozenset({"memref.dim", "arith.constant", "arith.addi", "arith.subi",
                        "arith.muli", "arith.index_cast", "arith.minsi", "arith.maxsi"})
"""Ops a loop bound inside a region may be computed with and still be computed before
it (none can fail or has effects)."""


def _before(v: SSAValue, par: scf.ParallelOp) -> bool:
    """Whether `v` can be computed before `par`: defined outside it, or by `_BOUND_OPS`
    from such values."""
    owner = v.owner
    if isinstance(owner, Block):
        definer = owner.parent_op()
        return definer is None or not par.is_ancestor(definer)
    if not par.is_ancestor(owner):
        return True
    return owner.name in _BOUND_OPS and all(_before(o, par) for o in owner.operands)


def _computed_before(b: CodeBuilder, v: SSAValue, par: scf.ParallelOp) -> SSAValue:
    """`v` (`_before`), computed by `b` before `par`."""
    owner = v.owner
    if isinstance(owner, Block) or not par.is_ancestor(owner):
        return v
    assert isinstance(owner, Operation)
    operands = [_computed_before(b, o, par) for o in owner.operands]
    copy = owner.clone(value_mapper=dict(zip(owner.operands, operands, strict=True)))
    b.add(copy)
    assert isinstance(v, OpResult)
    return copy.results[v.index]


def _loops_counted_before(par: scf.ParallelOp) -> list[scf.ForOp]:
    """The loops of an iteration of `par` (in branches too, not inside another loop)
    whose bounds can be computed before `par` (`_before`): their trip counts are known
    when the region is reached (a fold over the rows of an array inside a map over its
    columns)."""
    found: list[scf.ForOp] = []
    pending = [b for r in par.regions for b in r.blocks]
    while pending:
        for o in pending.pop().ops:
            if isinstance(o, scf.ForOp):
                if all(_before(v, par) for v in (o.lb, o.ub, o.step)):
                    found.append(o)
            elif o.regions and not isinstance(o, scf.WhileOp | scf.ParallelOp):
                pending.extend(b for r in o.regions for b in r.blocks)
    return found


def run_time_work(b: CodeBuilder, par: scf.ParallelOp, work: int) -> int | SSAValue:
    """The work of one iteration of `par`, `work` (`iteration_work`) with each loop of
    `_loops_counted_before` counted by its trip count instead of UNKNOWN_TRIPS,
    computed before the region; at least 1, at most MOST_WORK (`work` itself where
    there is no such loop)."""
    loops = _loops_counted_before(par)
    if not loops:
        return work
    total = b.i64(work)
    for loop in loops:
        body = max(1, sum(_work(o) for o in loop.body.block.ops))
        lb, ub, step = (b.to_i64(_computed_before(b, v, par))
                        for v in (loop.lb, loop.ub, loop.step))
        span = b.subi(ub, lb)
        trips = b.maxsi(b.val(arith.CeilDivSIOp(span, b.maxsi(step, b.i64(1)))), b.i64(0))
        trips = b.val(arith.MinSIOp(trips, b.i64(MOST_WORK // body)))
        extra = b.subi(b.muli(trips, b.i64(body)), b.i64(UNKNOWN_TRIPS * body))
        total = b.addi(total, extra)
    return b.val(arith.MinSIOp(b.maxsi(total, b.i64(1)), b.i64(MOST_WORK)))


MIN_WORK = "min_work"
"""The suffix of a region's threshold: `SITE.min_work`."""


def outermost(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ParallelOp | omp.ParallelOp):
            return False
        parent = parent.parent_op()
    return True


# ---------------------------------------------------------------------------------------
# Reductions -> partial results per chunk
# ---------------------------------------------------------------------------------------


def _combine(b: CodeBuilder, reduce_op: scf.ReduceOp, accs: Sequence[SSAValue],
             values: Sequence[SSAValue]) -> list[SSAValue]:
    out: list[SSAValue] = []
    for region, acc, v in zip(reduce_op.reductions, accs, values, strict=True):
        ret = b.inline(region, [acc, v])
        assert isinstance(ret, scf.ReduceReturnOp)
        out.append(ret.result)
        Rewriter.erase_op(ret)
    return out


def _iteration(b: CodeBuilder, par: scf.ParallelOp, i: SSAValue) -> list[SSAValue]:
    """The values iteration `i` (i64) of `par` passes to its `scf.reduce`."""
    term = b.inline(par.body, [b.to_index(i)])
    assert isinstance(term, scf.ReduceOp)
    values = list(term.args)
    Rewriter.erase_op(term)
    return values


def _unit_step(par: scf.ParallelOp) -> bool:
    step = par.step[0].owner
    return isinstance(step, arith.ConstantOp) and isinstance(step.value, IntegerAttr) \
        and step.value.value.data == 1


def chunk_reduction(par: scf.ParallelOp) -> None:
    """Rewrite the one-dimensional reduction `par` into partials per chunk, combined in
    order (module docstring)."""
    b = CodeBuilder.before(par)
    reduce_op = par.body.block.last_op
    assert isinstance(reduce_op, scf.ReduceOp)
    lb = b.to_i64(par.lowerBound[0])
    n = b.subi(b.to_i64(par.upperBound[0]), lb)
    inits = list(par.initVals)
    types = [v.type for v in inits]
    count = chunk_count(b, n, par)
    # On the heap, freed below (this runs after `dealloc`): a reduction in a loop that
    # carries memrefs would otherwise grow the stack in every iteration.
    parts = [b.alloc(MemRefType(t, [DYNAMIC_INDEX]), [count]) for t in types]

    def chunk(cb: CodeBuilder, c: SSAValue) -> None:
        lo, hi = chunk_bounds(cb, c, n, count)

        def from_neutral(tb: CodeBuilder) -> list[SSAValue]:
            return [*inits, lo]

        def from_first(eb: CodeBuilder) -> list[SSAValue]:
            return [*_iteration(eb, par, eb.addi(lb, lo)), eb.addi(lo, eb.i64(1))]

        *first, start = cb.if_(cb.cmpi("eq", c, cb.i64(0)), [*types, lo.type],
                               from_neutral, from_first)

        def step(sb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            return _combine(sb, reduce_op, acc, _iteration(sb, par, sb.addi(lb, i)))

        for v, m in zip(cb.for_(start, hi, first, step), parts, strict=True):
            cb.store(v, m, [c])

    profile_ir.carry_tag(par, parallel_for(b, b.i64(0), count, chunk))

    def combine(sb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        return _combine(sb, reduce_op, acc, [sb.load(m, [c]) for m in parts])

    results = b.for_(b.i64(1), count, [b.load(m, [b.i64(0)]) for m in parts], combine)
    for m in parts:
        b.add(memref.DeallocOp.get(m))
    Rewriter.replace_op(par, [], results)


# ---------------------------------------------------------------------------------------
# Copies -> parallel loops over rows
# ---------------------------------------------------------------------------------------


def copy_by_rows(op: Operation) -> bool:
    """Whether `op` is a copy to run as a parallel loop (Note [Parallel copies])."""
    if not isinstance(op, memref.CopyOp) or not outermost(op):
        return False
    t = op.source.type
    return isinstance(t, MemRefType) and t.get_num_dims() >= 2 \
        and isinstance(op.destination.type, MemRefType)


def parallel_copy(op: memref.CopyOp) -> None:
    """Rewrite `op` as Note [Parallel copies] says."""
    b = CodeBuilder.before(op)
    src, dst = op.source, op.destination
    rows = b.val(arith.MinSIOp(b.dim(src, 0), b.dim(dst, 0)))
    big = b.cmpi("sge", b.product(b.dims(src)), b.i64(GRAIN))

    def by_rows(tb: CodeBuilder) -> list[SSAValue]:
        def row(rb: CodeBuilder, i: SSAValue) -> None:
            rb.copy(rb.row(src, [i]), rb.row(dst, [i]))

        profile_ir.tag(parallel_for(tb, tb.i64(0), rows, row), profile_ir.site_name(op, "copy"))
        return []

    def whole(eb: CodeBuilder) -> list[SSAValue]:
        eb.copy(src, dst)
        return []

    b.if_(big, [], by_rows, whole)
    Rewriter.erase_op(op)


# ---------------------------------------------------------------------------------------
# scf.parallel -> omp
# ---------------------------------------------------------------------------------------


def to_omp(par: scf.ParallelOp, name: str,
           profile: bool = False) -> tuple[omp.ParallelOp, SSAValue]:
    """The reduction-free `par` -> omp.parallel/wsloop/loop_nest over its first
    dimension (module docstring), forking only above its threshold `NAME.min_work`
    (Note [Sequential below a threshold]; with `profile`, the work it compares is noted
    for `l0 autotune`), named `name` (the site of its threshold and profile); and its
    trip count (i64)."""
    b = CodeBuilder.before(par)
    lb, ub, step = par.lowerBound[0], par.upperBound[0], par.step[0]
    span = b.to_i64(b.val(arith.SubiOp(ub, lb)))
    trips = b.maxsi(b.val(arith.CeilDivSIOp(span, b.to_i64(step))), b.i64(0))
    # A loop over chunks works on their rows: rows * work per row, else trips * work.
    rows = chunked_rows(ub)
    count = trips if rows is None else b.to_i64(rows)
    work = iteration_work(par, per_row=rows is not None)
    # Inner loops counted before the region weigh their trip counts (not chunked rows,
    # whose loops over a chunk's rows count once).
    weight = work if rows is not None else run_time_work(b, par, work)
    enough = run_params.reaches(b, par, f"{name}.{MIN_WORK}", f"threads*{WORK_PER_THREAD}",
                                run_params.saturated_product(b, count, weight),
                                record=profile)
    big = b.andi(b.cmpi("sge", trips, b.i64(2)), enough)
    body = par.body.block
    nest_block = Block(arg_types=[lb.type])
    if len(par.lowerBound) > 1:
        inner_block = Block(arg_types=[a.type for a in body.args[1:]])
        inner = scf.ParallelOp(list(par.lowerBound[1:]), list(par.upperBound[1:]),
                               list(par.step[1:]), Region(inner_block))
        for op in list(body.ops):
            op.detach()
            inner_block.add_op(op)
        body.args[0].replace_all_uses_with(nest_block.args[0])
        for old, new in zip(body.args[1:], inner_block.args, strict=True):
            old.replace_all_uses_with(new)
        nest_block.add_ops([inner, omp.YieldOp()])
    else:
        body.args[0].replace_all_uses_with(nest_block.args[0])
        for op in list(body.ops):
            op.detach()
            if isinstance(op, scf.ReduceOp):
                op.erase()
                continue
            nest_block.add_op(op)
        nest_block.add_op(omp.YieldOp())
    nest = omp.LoopNestOp(operands=[[lb], [ub], [step]], regions=[Region(nest_block)])
    wsloop = omp.WsLoopOp(operands=[[], [], [], [], [], [], []],
                          regions=[Region(Block([nest]))])
    wsloop.schedule_kind = omp.ScheduleKindAttr(omp.ScheduleKind("static"))
    parallel = omp.ParallelOp(operands=[[], [], [big], [], [], []],
                              regions=[Region(Block([wsloop, omp.TerminatorOp()]))])
    profile_ir.tag(parallel, name)
    Rewriter.replace_op(par, parallel, [])
    return parallel, trips


def count(region: omp.ParallelOp, trips: Sequence[SSAValue]) -> None:
    """Count `region` (its loops' `trips`) as one launch of its site
    (`l0.lowering.loop_ir.profile`): a region of several phases counts their
    iterations together, under its first loop's name."""
    assert region.if_expr is not None
    start = profile_ir.now(CodeBuilder.before(region), region)
    after = CodeBuilder.after(region)
    threads = after.select(region.if_expr, parallel_width(after, region), after.i64(1))
    total = trips[0]
    for t in trips[1:]:
        total = after.addi(total, t)
    profile_ir.record(after, region, profile_ir.name_of(region, "parallel"), threads, total,
                      profile_ir.since(after, region, start))




@dataclass(frozen=True)
class ConvertParallelToOmpPass(ModulePass):
    """Outermost scf.parallel loops -> omp.parallel + omp.wsloop (static schedule), with
    reductions made into partial results per chunk first, large copies of rank >= 2
    outside parallel loops made parallel loops over rows, and the loops of several
    dimensions in the flattened version of a nest made one over all their iterations
    (`l0.lowering.cpu.flat_nests`); consecutive loops of a block
    then run as the phases of one region, with barriers only where a phase must wait
    for an earlier one (`{merge=false}`: a region per loop); the multicore back end's
    input level (`docs/backend.md`)."""

    name = "convert-parallel-to-omp"

    profile: bool = False
    """Count each region's launches, threads, iterations and time
    (`l0.lowering.loop_ir.profile`)."""

    merge: bool = True
    """Join consecutive regions of a block into one region of phases (Note [One region
    per parallel phase] in `l0.lowering.cpu.omp_phases`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for par in [o for o in walk_ops(op) if isinstance(o, scf.ParallelOp)]:
            if outermost(par) and in_flat_version(par):  # all its levels on the threads
                collapse(par)
        for copy in [o for o in walk_ops(op) if copy_by_rows(o)]:
            assert isinstance(copy, memref.CopyOp)
            parallel_copy(copy)
        for par in [o for o in walk_ops(op) if isinstance(o, scf.ParallelOp)]:
            if outermost(par) and par.initVals and len(par.lowerBound) == 1 \
                    and _unit_step(par):
                chunk_reduction(par)
        names: set[str] = set()
        trips: dict[omp.WsLoopOp, SSAValue] = {}
        for par in [o for o in walk_ops(op) if isinstance(o, scf.ParallelOp)]:
            if par.parent is not None and outermost(par) and not par.initVals:
                region, n = to_omp(par, profile_ir.unique_name(
                    names, profile_ir.name_of(par, "parallel")), self.profile)
                trips[phases(region)[0]] = n
        if self.merge:
            merge_regions(op)
        if self.profile:
            for region in [o for o in walk_ops(op) if isinstance(o, omp.ParallelOp)]:
                count(region, [trips[w] for w in phases(region)])

