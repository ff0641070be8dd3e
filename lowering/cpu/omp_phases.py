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
  `l0_parallel_width`, a division by a constant) or, when no phase of the region can
  fail, one that may fail but writes no memory a phase uses (an allocation, a
  division, a check): the region cannot fail first, so the order of errors stays the
  sequential one. After: an op that cannot fail (a reduction's combining loop, a store,
  a free), when the joining loop uses none of its results and touches nothing it
  writes nor writes anything it touches (`conflicts`); a free needs no such check, as
  no later code may use what it frees. Ops move in order, those after the region in
  their order after what moved there before. Anything else (a call, an op that may
  fail after a phase that may fail, a store the next loop reads) ends the region
  there. A region never runs host code on one thread while the others wait
  (`GOMP_single_start`): the host code between phases is moved or a boundary, which
  keeps each phase's static chunks and the join as they were; host code left between
  two regions costs a join and a fork, as before.
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

Buffers: `root` follows views to the value that made the buffer; two roots are
distinct when both are allocations (two live allocations never share memory), two
different globals, an allocation and a global, or an allocation and a value defined
before the allocation ran (a buffer that existed then cannot be the new one). Anything
else may alias, and a call or an op this module does not know counts as touching every
memref it is given, and a call of a function with no body as touching everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, cf, func, memref, omp, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.lowering.loop_ir.parallel_loops import WIDTH_FUNCTION, defined_inside
from l0.lowering.loop_ir.run_params import PARAM_PREFIX
from l0.lowering.memory.dealloc.aliases import is_memref, view_source

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

    def outside(m: SSAValue) -> Root | None:
        b = base(m)
        r = root(b)
        return None if r.symbol is None and defined_inside(b, loop) else r

    def touch(m: SSAValue, read: bool, write: bool) -> None:
        r = outside(m)
        if r is not None:
            if read:
                out.reads.add(r)
            if write:
                out.writes.add(r)

    for op in loop.walk():
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
    return any(isinstance(o, _FAILS) for o in loop.walk())


# --------------------------------------------------------------------------- merging


def _param_load(op: memref.LoadOp) -> bool:
    src = op.memref
    return isinstance(src, OpResult) and isinstance(src.op, memref.GetGlobalOp) \
        and src.op.name_.root_reference.data.startswith(PARAM_PREFIX)


def _constant(v: SSAValue) -> int | None:
    """The integer constant `v` is, through index casts."""
    while isinstance(v, OpResult) and isinstance(v.op, arith.IndexCastOp):
        v = v.op.input
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) \
            and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return None


def _pure(op: Operation) -> bool:
    if op.regions:
        return False
    if isinstance(op, _DIVISIONS):  # pure by a constant other than 0 (and -1: overflow)
        return _constant(op.operands[1]) not in (None, 0, -1)
    if op.dialect_name() == "arith":
        return True
    if isinstance(op, _PURE_MEMREF):
        return True
    if isinstance(op, memref.LoadOp):
        return _param_load(op)
    return isinstance(op, func.CallOp) and op.callee.root_reference.data == WIDTH_FUNCTION


def movable(op: Operation, region_can_fail: bool) -> bool:
    """Whether host op `op`, after a region, may run before it (Note [One region per
    parallel phase])."""
    if _pure(op):
        return True
    return not region_can_fail and not op.regions \
        and isinstance(op, (*_DIVISIONS, *_MAY_FAIL))


def _frees(op: Operation) -> bool:
    """Whether `op` only frees buffers: `memref.dealloc`, or one under `scf.if`."""
    if isinstance(op, memref.DeallocOp):
        return True
    return isinstance(op, scf.IfOp) and not op.results and all(
        isinstance(o, memref.DeallocOp | scf.YieldOp)
        for r in op.regions for b in r.blocks for o in b.ops)


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
    they only free)."""

    region: omp.ParallelOp
    since_barrier: list[tuple[Effects, bool]]
    fails: bool
    sunk: list[tuple[Operation, Effects | None]] = field(default_factory=list)


def _uses_any(region: Operation, ops: list[Operation]) -> bool:
    results = {r for o in ops for r in o.results}
    return bool(results) and any(v in results for o in region.walk() for v in o.operands)


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
        into.fails = into.fails or fails
    region.detach()
    region.erase()


def _open(region: omp.ParallelOp) -> _Open:
    loops = phases(region)
    return _Open(region, [(effects(o), can_fail(o)) for o in loops],
                 any(can_fail(o) for o in loops))


def _mergeable(op: Operation) -> bool:
    return isinstance(op, omp.ParallelOp) and op.if_expr is not None \
        and all(isinstance(o, omp.WsLoopOp | omp.TerminatorOp)
                for o in op.region.block.ops)


def merge_block(block: Block) -> None:
    """Join the consecutive regions of `block` (module docstring)."""
    current: _Open | None = None
    up: list[Operation] = []
    down: list[Operation] = []
    for op in list(block.ops):
        if _mergeable(op):
            assert isinstance(op, omp.ParallelOp)
            if current is not None and _can_join(current, down, op):
                _join(current, up, down, op)
            else:
                current = _open(op)
            up, down = [], []
        elif current is not None:
            if movable(op, current.fails) \
                    and not _uses_any(op, down + [o for o, _ in current.sunk]):
                up.append(op)
            elif sinkable(op):
                down.append(op)
            else:
                current, up, down = None, [], []


def merge_regions(module: ModuleOp) -> None:
    """Join the consecutive `omp.parallel` regions of every block of `module`."""
    blocks: dict[Block, None] = {}
    for op in module.walk():
        if isinstance(op, omp.ParallelOp) and (b := op.parent_block()) is not None:
            blocks[b] = None
    for b in blocks:
        merge_block(b)
