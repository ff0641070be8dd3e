"""Consecutive OpenMP regions as one region of phases, with barriers only where needed.

`convert-parallel-to-omp` makes each outermost parallel loop an `omp.parallel` region of
its own: a fork and a join per loop. `merge_regions` joins regions that follow each
other in one block into one `omp.parallel` whose body is their `omp.wsloop`s, the
phases, in program order, with an `omp.barrier` between two phases where the later
one must wait for the earlier (Note [One region per parallel phase]).

Note [One region per parallel phase]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A fork and a join per loop is what C's `#pragma omp parallel for` costs too; a C
programmer who wants fewer writes one `#pragma omp parallel` around several `#pragma
omp for` loops, each of which ends in a barrier unless it says `nowait`. Here:

* **What joins.** An `omp.parallel` joins the region before it in the same block when
  every op between them can run either before that region or after the joining one.
  Before: an op with no regions that is pure (arithmetic, `memref.dim`, views,
  `memref.get_global`, a load of a run-time parameter, which no loop writes,
  `l0_parallel_width`, a division by a value at least 1: a constant, or clamped by
  `maxsi` as a threshold's work estimate is) or, when no phase of the region can
  fail, one that may fail but writes no memory a phase uses (an allocation, a
  division, a check, a check under an `scf.if`): the region cannot fail first, so the
  order of errors stays the sequential one. A buffer's reuse-or-reallocation (`scf.if
  fits {old} else {free old if owned; allocate}`, a time loop's carried buffer) moves
  likewise when no phase touches the old buffer; when one does (the step reads the
  buffer it replaces) it splits: the allocation moves before the region and the free,
  now after it, moves after the next loop as frees do. After: an op that cannot fail
  (a reduction's combining loop, a store, a free), when the joining loop uses none of
  its results and touches nothing it writes nor writes anything it touches
  (`conflicts`); a free needs no such check, as no later code may use what it frees.
  Ops move in order, those after the region in their order after what moved there
  before. Anything else (a call, an op that may fail after a phase that may fail, a
  store the next loop reads) ends the region there. A region never runs host code on
  one thread while the others wait (`GOMP_single_start`): the host code between
  phases is moved or a boundary, which keeps each phase's static chunks and the join
  as they were; host code left between two regions costs a join and a fork, as
  before.
* **One threshold for the whole region.** Each loop's `if` clause compares its work
  with its site's `SITE.min_work` (Note [Sequential below a threshold] in
  `l0.lowering.cpu.convert_parallel_to_omp`); the region forks when any of its loops
  would have forked alone, and otherwise runs every phase on the calling thread. A
  phase too small to fork on its own then runs on the threads that are up anyway.
* **Same chunks, same order.** Each phase keeps its own static chunks (thread t of nt
  takes its share of that phase's trip count), and a reduction's chunk count is fixed
  before the region, so partial results are folded and combined exactly as they
  were, after the region (the combining loop is host code).
* **Barriers.** Phase k waits (`omp.barrier`) for the phases since the last barrier
  when it may touch a buffer one of them writes or write one they read
  (`conflicts`), or when one of them may fail: a failure must stop the phases after
  it (they may rely on its checks, and must not report an error of their own
  first), and only a barrier makes it visible to every thread. Without a barrier a
  thread goes on to the next phase as soon as its chunk is done.
* **Errors.** A failing thread records its error and goes on to the end of its phase
  (not out of the region: the others would wait for it at the next barrier); every
  phase after a barrier first checks for a failure and is skipped if there was one.
  Failures therefore come from one phase only, and the first failing thread's is the
  sequential run's (Note [Errors in threads] in `l0.lowering.llvm.omp`).

Buffers: `root` follows views to the value that made the buffer (`roots`: a buffer a
sequential loop carries, or an `scf.if` yields, is any of those it may be); two roots are
distinct when both are allocations (two live allocations never share memory), two
different globals, an allocation and a global, or an allocation and a value defined
before the allocation ran (a buffer that existed then cannot be the new one). Anything
else may alias, and a call or an op this module does not know counts as touching every
memref it is given, and a call of a function with no body as touching everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, cf, func, memref, omp, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from l0.dialects import soac
from l0.lowering.loop_ir.parallel_loops import WIDTH_FUNCTION, defined_inside
from l0.lowering.loop_ir.run_params import PARAM_PREFIX, SEEN_PREFIX
from l0.lowering.memory.dealloc.aliases import is_memref, view_source
from l0.lowering.memory.memory_plan import at_least_one
from l0.passes.analysis.walk import walk_ops

_DIVISIONS = (arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp,
              arith.CeilDivSIOp, arith.CeilDivUIOp, arith.FloorDivSIOp)
"""Integer divisions: a zero divisor traps, so they move only where failing may."""

_PURE_MEMREF = (memref.DimOp, memref.GetGlobalOp, memref.SubviewOp,
                memref.ReinterpretCastOp, memref.CastOp, memref.CollapseShapeOp,
                memref.ExpandShapeOp, memref.ExtractStridedMetaDataOp)
"""Memref ops that read no memory: shapes, views, the address of a global."""

_MAY_FAIL = (memref.AllocOp, memref.AllocaOp, soac.AssertOp, cf.AssertOp)
"""Host ops that may fail but write no memory a loop uses."""

_FAILS = (soac.AssertOp, cf.AssertOp, func.CallOp, memref.AllocOp, memref.AllocaOp)
"""Ops after which a loop body can fail (as `l0.lowering.llvm.omp` counts them)."""


# --------------------------------------------------------------------------- buffers


@dataclass(frozen=True)
class Root:
    """Where a buffer comes from: an allocation (`op`), a global (`symbol`), or
    another value (`value`: an argument, a loop's or a call's result)."""

    op: Operation | None = None
    symbol: str | None = None
    value: SSAValue | None = None


EVERYTHING = Root()
"""What a call of a function without a body may touch."""


def base(v: SSAValue) -> SSAValue:
    """The value whose buffer `v` views (`v` itself if it is no view)."""
    cur = v
    while (src := view_source(cur)) is not None:
        cur = src
    return cur


def root(v: SSAValue) -> Root:
    cur = base(v)
    if isinstance(cur, OpResult):
        if isinstance(cur.op, memref.AllocOp | memref.AllocaOp):
            return Root(op=cur.op)
        if isinstance(cur.op, memref.GetGlobalOp):
            return Root(symbol=cur.op.name_.root_reference.data)
    return Root(value=cur)


def _yielded(region: Region, i: int) -> list[SSAValue]:
    """The `i`th value `region`'s `scf.yield` passes on (none if it has no block)."""
    last = region.blocks[0].last_op if region.blocks else None
    return [last.operands[i]] if isinstance(last, scf.YieldOp) else []


def roots(v: SSAValue) -> set[Root]:
    """Every buffer `v` may be: `root`, except that a buffer carried by a sequential
    loop (`scf.for`'s argument) may be its initial value or any it yields, and an
    `scf.if`'s result either branch's (a time loop's buffer, reused or reallocated at
    each step, is its initial allocation or the step's)."""
    out: set[Root] = set()
    seen: set[SSAValue] = set()
    todo = [v]
    while todo:
        cur = base(todo.pop())
        if cur in seen:
            continue
        seen.add(cur)
        if isinstance(cur, BlockArgument) and isinstance(loop := cur.block.parent_op(), scf.ForOp) \
                and cur.index > 0:
            todo.append(loop.iter_args[cur.index - 1])
            todo.extend(_yielded(loop.body, cur.index - 1))
        elif isinstance(cur, OpResult) and isinstance(cur.op, scf.IfOp):
            for r in cur.op.regions:
                todo.extend(_yielded(r, cur.index))
        else:
            out.add(root(cur))
    return out


def _runs_before(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined before `op` runs (in `op`'s block or one around it)."""
    block: Block | None = v.block if isinstance(v, BlockArgument) else v.owner.parent_block()
    if block is None:
        return False
    cur: Operation | None = op
    while cur is not None:
        if cur.parent_block() is block:
            if isinstance(v, BlockArgument):
                return True
            owner = v.owner
            assert isinstance(owner, Operation)
            return block.get_operation_index(owner) < block.get_operation_index(cur)
        cur = cur.parent_op()
    return False


def may_alias(a: Root, b: Root) -> bool:
    if a == EVERYTHING or b == EVERYTHING or a == b:
        return True
    if a.op is not None and b.op is not None:
        return False
    if a.symbol is not None and b.symbol is not None:
        return False
    if a.op is not None or b.op is not None:
        alloc, other = (a, b) if a.op is not None else (b, a)
        assert alloc.op is not None
        if other.symbol is not None:
            return False
        assert other.value is not None
        return not _runs_before(other.value, alloc.op)
    return True


@dataclass
class Effects:
    """The buffers from outside a loop that it reads and writes."""

    reads: set[Root] = field(default_factory=set)
    writes: set[Root] = field(default_factory=set)


def effects(loop: Operation) -> Effects:
    """What `loop` (an `omp.wsloop`, or any op) and the ops in it read and write of
    buffers made outside it."""
    out = Effects()

    def outside(m: SSAValue) -> set[Root]:
        b = base(m)
        r = root(b)
        return set() if r.symbol is None and defined_inside(b, loop) else roots(b)

    def touch(m: SSAValue, read: bool, write: bool) -> None:
        rs = outside(m)
        if read:
            out.reads |= rs
        if write:
            out.writes |= rs

    for op in walk_ops(loop):
        if isinstance(op, memref.LoadOp):
            touch(op.memref, True, False)
        elif isinstance(op, memref.StoreOp):
            touch(op.memref, False, True)
        elif isinstance(op, memref.CopyOp):
            touch(op.source, True, False)
            touch(op.destination, False, True)
        elif isinstance(op, (*_PURE_MEMREF, memref.AllocOp, memref.AllocaOp)):
            continue
        elif isinstance(op, func.CallOp) and op.callee.root_reference.data == WIDTH_FUNCTION:
            continue
        elif isinstance(op, func.CallOp) and not _has_body(op):
            out.reads.add(EVERYTHING)
            out.writes.add(EVERYTHING)
        else:
            for m in op.operands:
                if is_memref(m):
                    touch(m, True, True)
    return out


def _has_body(call: func.CallOp) -> bool:
    module = call.get_toplevel_object()
    if not isinstance(module, ModuleOp):
        return False
    name = call.callee.root_reference.data
    for f in module.ops:
        if isinstance(f, func.FuncOp) and f.sym_name.data == name:
            return bool(f.body.blocks)
    return False


def _meets(a: set[Root], b: set[Root]) -> bool:
    return any(may_alias(x, y) for x in a for y in b)


def conflicts(earlier: Effects, later: Effects) -> bool:
    """Whether `later` may touch a buffer `earlier` writes, or write one it reads:
    then `later` must wait for `earlier` to finish on every thread."""
    return _meets(earlier.writes, later.reads | later.writes) \
        or _meets(earlier.reads, later.writes)


def can_fail(loop: Operation) -> bool:
    return any(isinstance(o, _FAILS) for o in walk_ops(loop))


# --------------------------------------------------------------------------- merging


def _param_load(op: memref.LoadOp) -> bool:
    src = op.memref
    return isinstance(src, OpResult) and isinstance(src.op, memref.GetGlobalOp) \
        and src.op.name_.root_reference.data.startswith(PARAM_PREFIX)


def _of_seen_table(op: Operation) -> bool:
    """Whether `op` loads from or stores into a table of compared sizes, which only a
    profiling build's thresholds touch (`run_params.reaches`) and no loop reads."""
    if not isinstance(op, memref.LoadOp | memref.StoreOp):
        return False
    src = op.memref
    return isinstance(src, OpResult) and isinstance(src.op, memref.GetGlobalOp) \
        and src.op.name_.root_reference.data.startswith(SEEN_PREFIX)


def _notes_sizes(op: Operation) -> bool:
    """Whether `op` is part of a threshold's note of the size it compared (profiling
    builds, `run_params.reaches`): loops and branches over pure code and the table of
    compared sizes, which cannot fail and touch nothing a loop touches, so they move
    before a region as pure code does (and a profiled build keeps the regions of the
    build it profiles)."""
    if _of_seen_table(op):
        return True
    if not isinstance(op, scf.ForOp | scf.IfOp):
        return False
    return all(o is op or isinstance(o, scf.YieldOp) or _of_seen_table(o)
               or (not o.regions and _pure(o)) or isinstance(o, scf.ForOp | scf.IfOp)
               for o in walk_ops(op))


def _pure(op: Operation) -> bool:
    if op.regions:
        return False
    if isinstance(op, _DIVISIONS):  # pure by a divisor >= 1 (0 traps, -1 overflows)
        return at_least_one(op.operands[1])
    if op.dialect_name() == "arith":
        return True
    if isinstance(op, _PURE_MEMREF):
        return True
    if isinstance(op, memref.LoadOp):
        return _param_load(op)
    return isinstance(op, func.CallOp) and op.callee.root_reference.data == WIDTH_FUNCTION


def _checks(op: Operation) -> bool:
    """Whether `op` is a check under a condition: an `scf.if` of asserts and pure code
    (a bounds check that only a non-empty map needs), which may fail and writes no
    memory."""
    return isinstance(op, scf.IfOp) and not op.results and all(
        o is op or isinstance(o, soac.AssertOp | cf.AssertOp | scf.YieldOp | scf.IfOp)
        or (not o.regions and _pure(o)) for o in walk_ops(op))


def _reallocates(op: Operation) -> bool:
    """Whether `op` is a buffer's reuse or reallocation: an `scf.if` that yields the
    old buffer when its shape fits, else frees it (if owned) and allocates a new one.
    It may fail (the allocation) and frees a buffer, so it moves only where no phase
    touches that buffer (`conflicts`)."""
    return isinstance(op, scf.IfOp) and all(
        o is op or isinstance(o, memref.AllocOp | memref.DeallocOp | scf.YieldOp | scf.IfOp)
        or (not o.regions and _pure(o)) for o in walk_ops(op))


def movable(op: Operation, region_can_fail: bool) -> bool:
    """Whether host op `op`, after a region, may run before it (Note [One region per
    parallel phase]); one that frees (`_reallocates`) only where it touches nothing
    the region's phases touch, which the caller checks."""
    if _pure(op) or _notes_sizes(op):
        return True
    if region_can_fail:
        return False
    if op.regions:
        return _checks(op) or _reallocates(op)
    return isinstance(op, (*_DIVISIONS, *_MAY_FAIL))


def _frees(op: Operation) -> bool:
    """Whether `op` only frees buffers: `memref.dealloc`, or some under `scf.if`s."""
    if isinstance(op, memref.DeallocOp):
        return True
    return isinstance(op, scf.IfOp) and not op.results and all(
        isinstance(o, memref.DeallocOp | scf.YieldOp) or _frees(o)
        for r in op.regions for b in r.blocks for o in b.ops)


def split_free(op: Operation) -> Operation | None:
    """For a reallocation (`_reallocates`) that frees the old buffer before allocating
    the new one, `scf.if fits {old} else {free old if owned; new}`: the free moved
    out after it, `scf.if fits {} else {free old if owned}`, which a region may run
    before (it only frees, `sinkable`) while the allocation moves before the region;
    returns the free, or None where `op` has no such form. The old buffer then lives
    until the new one is allocated; no code between uses it (the free was first)."""
    if not isinstance(op, scf.IfOp) or len(op.results) != 1 or len(op.false_region.blocks) != 1:
        return None
    frees = [o for o in op.false_region.block.ops if _frees(o)]
    if not frees:
        return None
    block = op.parent_block()
    assert block is not None
    for o in frees:
        o.detach()
    out = scf.IfOp(op.cond, [], [scf.YieldOp()], [*frees, scf.YieldOp()])
    block.insert_op_after(out, op)
    return out


def sinkable(op: Operation) -> bool:
    """Whether host op `op`, before a region, may run after it (if the region uses
    none of its results and, unless it only frees, touches nothing it touches): it
    cannot fail, so no error moves."""
    return _frees(op) or not can_fail(op)


def phases(region: omp.ParallelOp) -> list[omp.WsLoopOp]:
    return [o for o in region.region.block.ops if isinstance(o, omp.WsLoopOp)]


@dataclass
class _Open:
    """The region being extended: its phases since the last barrier, whether any of
    its phases may fail, and the host ops moved after it (with what they touch; None:
    they only free); what each of its phases touches."""

    region: omp.ParallelOp
    since_barrier: list[tuple[Effects, bool]]
    fails: bool
    sunk: list[tuple[Operation, Effects | None]] = field(default_factory=list)
    touched: list[Effects] = field(default_factory=list)


def _uses_any(region: Operation, ops: list[Operation]) -> bool:
    results = {r for o in ops for r in o.results}
    return bool(results) and any(v in results for o in walk_ops(region) for v in o.operands)


def _can_join(into: _Open, down: list[Operation], region: omp.ParallelOp) -> bool:
    """Whether the host ops sunk so far and `down` may run after `region`'s phases."""
    sunk = [fx for _, fx in into.sunk] + [None if _frees(o) else effects(o) for o in down]
    if _uses_any(region, [o for o, _ in into.sunk] + down):
        return False
    for loop in phases(region):
        fx = effects(loop)
        if any(s is not None and (conflicts(s, fx) or conflicts(fx, s)) for s in sunk):
            return False
    return True


def _join(into: _Open, up: list[Operation], down: list[Operation],
          region: omp.ParallelOp) -> None:
    """Move `up` before `into.region` and `down` after it (after what was sunk
    before), then `region`'s phases into it."""
    target = into.region
    block = target.parent_block()
    assert block is not None
    for op in up:
        op.detach()
        block.insert_op_before(op, target)
    anchor: Operation = into.sunk[-1][0] if into.sunk else target
    for op in down:
        op.detach()
        block.insert_op_after(op, anchor)
        anchor = op
        into.sunk.append((op, None if _frees(op) else effects(op)))
    assert target.if_expr is not None and region.if_expr is not None
    either = arith.OrIOp(target.if_expr, region.if_expr)
    block.insert_op_before(either, target)
    target.operands = [either.result]
    body = target.region.block
    term = body.last_op
    assert term is not None
    for loop in phases(region):
        fx, fails = effects(loop), can_fail(loop)
        if any(f or conflicts(e, fx) for e, f in into.since_barrier):
            body.insert_op_before(omp.BarrierOp(), term)
            into.since_barrier = []
        loop.detach()
        body.insert_op_before(loop, term)
        into.since_barrier.append((fx, fails))
        into.touched.append(fx)
        into.fails = into.fails or fails
    region.detach()
    region.erase()


def _open(region: omp.ParallelOp) -> _Open:
    touched = [effects(o) for o in phases(region)]
    fails = [can_fail(o) for o in phases(region)]
    return _Open(region, list(zip(touched, fails, strict=True)), any(fails),
                 touched=touched)


def _moves_up(into: _Open, down: list[Operation], op: Operation) -> bool:
    """Whether `op` (`movable`) may run before `into.region` and the host ops sunk
    after it: it uses none of their results and, if it frees a buffer, none of them
    touches that buffer."""
    if _uses_any(op, down + [o for o, _ in into.sunk]):
        return False
    if not _reallocates(op):
        return True
    # what it frees; the buffer it yields is only an alias (`roots`)
    fx = Effects(writes={r for o in walk_ops(op) if isinstance(o, memref.DeallocOp)
                         for r in roots(o.memref)})
    others = into.touched \
        + [effects(o) for o in down if not _frees(o)] \
        + [s for _, s in into.sunk if s is not None]
    return not any(conflicts(fx, o) or conflicts(o, fx) for o in others)


def _mergeable(op: Operation) -> bool:
    return isinstance(op, omp.ParallelOp) and op.if_expr is not None \
        and all(isinstance(o, omp.WsLoopOp | omp.TerminatorOp)
                for o in op.region.block.ops)


def merge_block(block: Block) -> None:
    """Join the consecutive regions of `block` (module docstring)."""
    current: _Open | None = None
    up: list[Operation] = []
    down: list[Operation] = []
    pending = list(block.ops)
    while pending:
        op = pending.pop(0)
        if _mergeable(op):
            assert isinstance(op, omp.ParallelOp)
            if current is not None and _can_join(current, down, op):
                _join(current, up, down, op)
            else:
                current = _open(op)
            up, down = [], []
        elif current is not None:
            if movable(op, current.fails) and not _moves_up(current, down, op) \
                    and (free := split_free(op)) is not None:
                # the allocation moves before the region, the free stays after it
                pending.insert(0, free)
            if movable(op, current.fails) and _moves_up(current, down, op):
                up.append(op)
            elif sinkable(op):
                down.append(op)
            else:
                current, up, down = None, [], []


def merge_regions(module: ModuleOp) -> None:
    """Join the consecutive `omp.parallel` regions of every block of `module`."""
    blocks: dict[Block, None] = {}
    for op in walk_ops(module):
        if isinstance(op, omp.ParallelOp) and (b := op.parent_block()) is not None:
            blocks[b] = None
    for b in blocks:
        merge_block(b)
