"""Whether the iterations of a parallel loop can run in SIMD lanes, in lock-step, and
which values of its body differ between lanes (the analysis of `simd-map`).

Note [Lanes in lock-step]
~~~~~~~~~~~~~~~~~~~~~~~~~
`simd-map` runs W iterations of an `scf.parallel` at once: each op of the body once per
lane, lane after lane, the sequential loops and branches of the body shared by the lanes
(unroll-and-jam). A lane executes the ops its iteration executes, in the same order, on
the same values (and, under a mask or in a select, ops whose results it drops): the
result is bit for bit the sequential one, with no fast-math. That holds when

* every loop of the body has the same trip count in every lane (its bounds do not
  vary): a lane never runs an iteration its own loop would not. A loop whose upper
  bound varies runs to the lanes' largest under a mask when its body only computes
  (no load, store, branch or loop): a lane past its own bound still computes, on its
  last values, and drops the results (a select per carried value), which changes
  nothing and cannot fail. Otherwise it falls back: an iteration past a lane's bound
  could read out of bounds;
* every branch either takes the same arm in every lane (its condition does not vary),
  or is cheap and cannot fail: both arms are arithmetic only (no load, which could be
  out of bounds on the arm not taken, no loop), at most `CHEAP_ARM` ops each, and become
  selects;
* the body cannot fail: no `soac.assert`, call, allocation or copy. A failing iteration
  must report the smallest failing index, which lanes running side by side would not
  guarantee (a lane further on could fail first);
* the lanes share no memory they write: every store goes to a buffer from outside the
  loop at the loop's own index or into the iteration's own row (a view one row high at
  that index; a window `a[i : i + k]` overlaps the next ones), so to a place of its own
  per iteration, and every load from a buffer the body stores to is at such a place
  too. A buffer written at another index (a scratch row shared by the iterations, an
  in-place update of a carried array) carries a dependence from one iteration to the
  next, and the loop falls back.

Values that do not vary (defined outside, loop counters of the body's loops, loads at
such addresses from buffers the body does not write) are computed once for all lanes;
the others once per lane. A load that varies at an index other than the loop's in its
last dimension (a row `points[i]` read along a column loop) is a gather: each lane reads
its own stream, W streams at once. `simd-map` falls back when the body's innermost loops
do more than one gather per two other ops and fold no real (`gathers_pay`): an integer
fold over a row, which LLVM vectorises along the row with contiguous loads as it is.
A fold over reals is a chain in strict order that LLVM runs in one lane: W lanes of
gathers beat it (a row sum over 4000 x 1000 reals: 2.1 ms against 4.0 ms; over ints,
1.6 against 1.7 ms, about even, and it falls back).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, SymbolRefAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from l0.lowering.loop_ir.parallel_loops import defined_inside
from l0.passes.analysis.walk import walk_ops

CHEAP_ARM = 16
"""The most ops an arm of a branch whose condition varies may have to become selects."""


@dataclass
class Lanes:
    """What `simd-map` needs to know of a parallel loop's body: the values that vary
    between lanes (the rest are computed once), or why it cannot run in lanes."""

    loop: scf.ParallelOp
    varying: set[SSAValue] = field(default_factory=set)
    selects: set[scf.IfOp] = field(default_factory=set)  # branches that become selects
    gathers: int = 0  # in the innermost loops: varying loads not at the loop's index
    arithmetic: int = 0  # ... and effect-free ops
    real_fold: bool = False  # an innermost loop carries a real (a chain in strict order)
    masked: set[scf.ForOp] = field(default_factory=set)  # loops run to the lanes' longest
    why_not: str | None = None


def _index_of_loop(v: SSAValue, iv: SSAValue) -> bool:
    """Whether `v` is the loop's induction variable, directly or through casts."""
    while v is not iv:
        owner = v.owner
        if not isinstance(owner, Operation) or owner.name != "arith.index_cast":
            return False
        v = owner.operands[0]
    return True


def _own_place(m: SSAValue, indices: Sequence[SSAValue], iv: SSAValue) -> bool:
    """Whether an access to `m` at `indices` is at the iteration's own place: one of the
    indices is the loop's, or `m` is a view of the iteration's own row (a subview one
    row high at the loop's index), so no two iterations meet there."""
    if any(_index_of_loop(i, iv) for i in indices):
        return True
    while isinstance(m.owner, memref.SubviewOp | memref.CastOp):
        view = m.owner
        if isinstance(view, memref.SubviewOp) and _row_at(view, iv):
            return True
        m = view.operands[0]
    return False


def _row_at(view: memref.SubviewOp, iv: SSAValue) -> bool:
    """Whether `view` is one row (size 1 in a dimension) at the loop's index there: a
    window `a[i : i + k]` would overlap its neighbours'."""
    dynamic = iter(view.offsets)
    for offset, size in zip(view.static_offsets.get_values(), view.static_sizes.get_values(),
                            strict=True):
        if offset == DYNAMIC_INDEX and _index_of_loop(next(dynamic), iv) and size == 1:
            return True
    return False


def _root(m: SSAValue) -> SSAValue:
    """The buffer a view of it is taken from (subviews and casts followed back)."""
    while isinstance(m.owner, Operation) and isinstance(
            m.owner, memref.SubviewOp | memref.CastOp | memref.ReinterpretCastOp):
        m = m.owner.operands[0]
    return m


def _refusal(op: Operation) -> str | None:
    """Why `op` (a region-free op) cannot run in lanes, or None."""
    if isinstance(op, memref.LoadOp | memref.StoreOp | memref.DimOp):
        return None
    if op.name == "soac.assert":
        return "its body may fail (a check): the smallest failing index must be reported"
    if op.name == "func.call":
        callee = op.properties["callee"]
        assert isinstance(callee, SymbolRefAttr)
        return f"its body calls @{callee.string_value()}"
    if isinstance(op, memref.AllocOp | memref.AllocaOp | memref.DeallocOp):
        return "its body allocates or frees memory"
    if not is_side_effect_free(op):
        return f"its body has an effect ({op.name})"
    return None


def analyse(loop: scf.ParallelOp) -> Lanes:
    """The `Lanes` of a one-dimensional `scf.parallel` without reductions."""
    lanes = Lanes(loop)
    block = loop.body.block
    iv = block.args[0]
    lanes.varying.add(iv)
    written: set[SSAValue] = set()
    for op in walk_ops(loop):
        if type(op) is memref.StoreOp:
            written.add(_root(op.memref))
    try:
        _block(lanes, block, iv, written)
    except _CannotVectorise as why:
        lanes.why_not = str(why)
    return lanes


class _CannotVectorise(Exception):
    pass


def _block(lanes: Lanes, block: Block, iv: SSAValue, written: set[SSAValue]) -> None:
    varying = lanes.varying
    innermost = not any(isinstance(o, scf.ForOp) for o in block.ops)
    for op in block.ops:
        if isinstance(op, scf.ReduceOp | scf.YieldOp):
            continue
        if isinstance(op, scf.ForOp):
            if op.ub in varying and not (op.lb in varying or op.step in varying) \
                    and _computes_only(op):
                lanes.masked.add(op)
            elif any(v in varying for v in (op.lb, op.ub, op.step)):
                raise _CannotVectorise("a loop in its body has a trip count that differs "
                                       "between lanes and touches memory or branches (its "
                                       "lanes cannot run to the longest under a mask)")
            # Carried values may vary (each lane keeps its own); the counter does not.
            varying.update(op.body.block.args[1:])
            _block(lanes, op.body.block, iv, written)
            if not any(isinstance(o, scf.ForOp) for o in op.body.block.ops) and any(
                    isinstance(a.type, AnyFloat) for a in op.body.block.args[1:]):
                lanes.real_fold = True
            varying.update(op.results)
            continue
        if isinstance(op, scf.IfOp):
            _branch(lanes, op, iv, written)
            continue
        if op.regions:
            raise _CannotVectorise(f"its body has a {op.name}")
        why = _refusal(op)
        if why is not None:
            raise _CannotVectorise(why)
        if isinstance(op, memref.StoreOp):
            _store(op, iv, lanes)
            continue
        if isinstance(op, memref.LoadOp):
            if _root(op.memref) in written and not _own_place(op.memref, op.indices, iv):
                raise _CannotVectorise("it reads a buffer it writes at another index than "
                                       "its own (a dependence between iterations)")
            if any(v in varying for v in op.operands):
                varying.update(op.results)
                # Consecutive across lanes only at the loop's index in the last dimension.
                if innermost and not (op.indices and _index_of_loop(op.indices[-1], iv)):
                    lanes.gathers += 1
            continue
        if innermost and not isinstance(op, arith.IndexCastOp | arith.ConstantOp):
            lanes.arithmetic += 1
        if isinstance(op, memref.DimOp) and _same_size_in_lanes(op, varying):
            continue
        if any(v in varying for v in op.operands):
            varying.update(op.results)


def _computes_only(loop: scf.ForOp) -> bool:
    """Whether `loop`'s body only computes: effect-free ops without regions, no load
    (past a lane's own trip count one could read out of bounds), so its iterations may
    run for a lane that has finished, their results dropped."""
    return all(isinstance(o, scf.YieldOp) or (
        not o.regions and not isinstance(o, memref.LoadOp | memref.StoreOp | memref.DimOp)
        and _refusal(o) is None) for o in loop.body.block.ops)


def _same_size_in_lanes(op: memref.DimOp, varying: set[SSAValue]) -> bool:
    """Whether the size `op` asks for is that of a view whose sizes do not vary (a row
    of a matrix: each lane's row is another, but all are as long)."""
    view = op.source.owner
    return isinstance(view, memref.SubviewOp) and op.index not in varying and \
        not any(v in varying for v in view.sizes)


def _store(op: memref.StoreOp, iv: SSAValue, lanes: Lanes) -> None:
    target = _root(op.memref)
    if target in lanes.varying or defined_inside(target, lanes.loop):
        raise _CannotVectorise("it stores into a buffer of its own body")
    if not _own_place(op.memref, op.indices, iv):
        raise _CannotVectorise("it stores at another index than its own (a dependence "
                               "between iterations)")


def _branch(lanes: Lanes, op: scf.IfOp, iv: SSAValue, written: set[SSAValue]) -> None:
    varying = lanes.varying
    if op.cond not in varying:
        for region in op.regions:
            if region.blocks:
                _block(lanes, region.block, iv, written)
        for r, *ys in zip(op.results, *(_yielded(reg.block) for reg in op.regions
                                        if reg.blocks), strict=True):
            if any(y in varying for y in ys):
                varying.add(r)
        return
    for region in op.regions:
        if not region.blocks:
            continue
        ops = [o for o in region.block.ops if not isinstance(o, scf.YieldOp)]
        if len(ops) > CHEAP_ARM or any(
                o.regions or isinstance(o, memref.LoadOp | memref.StoreOp) or _refusal(o)
                for o in ops):
            raise _CannotVectorise("a branch in its body whose condition differs between "
                                   "lanes is not cheap (loads, loops or more than "
                                   f"{CHEAP_ARM} ops in an arm)")
        for o in ops:
            varying.update(o.results)
            lanes.arithmetic += 1
    lanes.selects.add(op)
    varying.update(op.results)


def _yielded(block: Block) -> list[SSAValue]:
    term = block.last_op
    assert isinstance(term, scf.YieldOp)
    return list(term.operands)


def gathers_pay(lanes: Lanes) -> bool:
    """Whether the body's gathers pay (Note [Lanes in lock-step]): they are few (at most
    one per two other ops in the innermost loops), or an innermost loop folds reals,
    a chain of dependent operations that LLVM may not reorder, which runs in one lane
    without the strip and in W independent ones with it."""
    return 2 * lanes.gathers <= lanes.arithmetic or lanes.real_fold
