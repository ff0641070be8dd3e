"""ISWIM where it cancels transpositions (thesis 8.3, Figure 35), a rule of `fuse`.

A scan of row-wise maps over transposed arrays is a column-wise scan written with
transposes: `transpose(scan(fn (x, y) => map(f, x, y), ne, transpose(a)))` scans each
row of `a`. Interchanging the scan with its inner maps (`l0.passes.iswim`) transposes
its inputs once more and its results back, so here the transpositions cancel: the scan
becomes `map(fn (e, r) => scan(f, e, r), ne, a)`, one scan per row of `a`, all rows in
parallel, each reading contiguous memory, and the map over the rows fuses with the
map that produces `a` (inside the scans: a scanomap per row) where the transposed scan
fused with nothing. With a nest of d maps (Figure 36) the transpositions that cancel
are `transpose(d, -d)` on the inputs and `transpose(0, d)` on the results.

It fires when every input of the scan is such a transposition (it is what makes the
rewrite a gain), and under `iswim`'s conditions (`l0.passes.iswim.why_not`: the nest's
checks made before the scan, an element lambda that can neither fail nor print). A
result used other than by the cancelling transposition is transposed back. As in
`iswim`, the new form runs only when there are rows; with none, the results are those
of the scan (and of its transpositions): arrays with every dimension 0.

The producer side of FUSE-ISWIM (`SinkIntoIswim`): the new form is an `scf.if`, and no
rule fuses through its results, so a SOAC consuming a result of it (a map after the
scan) moves into it (Note [Consumers of the interchanged scan]), where it fuses with
the nest as with any map.

Note [Consumers of the interchanged scan]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`r = if rows == 0 then empty else nest` followed by `c = map(g, r, ...)` is
`if rows == 0 then empty else map(g, nest, ...)`: with no rows, `c` maps over an array
without rows, runs nothing and is itself an array with every dimension 0 (for a scan
too; a reduce or redomap gives its neutral elements, which the first branch yields
instead). So the consumer moves into the second branch, and the `if` to where the
consumer was. Legal when `r` has no other use (it would be needed as an array), the
`if` and the consumer are in one block and every other use of the `if`'s results
comes after the consumer, the `if` can neither fail nor print (it runs later, after
the ops between them), and no array the `if` reads may be consumed before the
consumer (which would change what it reads). The consumer's checks and other operands
are defined before it, so before the moved `if` too.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.effects import has_effects
from l0.passes.analysis.scope import free_values
from l0.passes.cores.interchange import interchanged, nest_depth, transposed_by, why_not


def applies(scan: Operation, failing: Set[str]) -> bool:
    """Whether the rule rewrites `scan`."""
    if not isinstance(scan, soac.ScanOp | soac.ScanomapOp):
        return False
    depth = nest_depth(scan)
    if depth is None or why_not(scan, frozenset(failing)) is not None:
        return False
    return all(transposed_by(a, depth, -depth) for a in scan.inputs)


def interchange(rewriter: PatternRewriter, scan: soac.ScanOp | soac.ScanomapOp) -> None:
    """Rewrite `scan` (`applies`): its results, and the transpositions of them that
    cancel, become those of `if rows == 0 then empty else map^d(scan, ne, a)`."""
    depth = nest_depth(scan)
    assert depth is not None
    untransposed: list[SSAValue] = []
    for a in scan.inputs:
        assert isinstance(a.owner, soac.TransposeOp)
        untransposed.append(a.owner.array)
    # Per result: the transpositions that cancel (all its uses), or None.
    cancelled: list[list[soac.TransposeOp] | None] = []
    for r in scan.results:
        users = [u.operation for u in r.uses]
        ok = users and all(isinstance(t, soac.TransposeOp) and transposed_by(t.result, 0, depth)
                           for t in users)
        cancelled.append([t for t in users if isinstance(t, soac.TransposeOp)] if ok else None)
    types = [scan.results[j].type if c is None else c[0].result.type
             for j, c in enumerate(cancelled)]

    zero = arith.ConstantOp(IntegerAttr(0, i64))
    rows = soac.SizeOp(untransposed[0], depth)  # the scanned dimension
    empty = arith.CmpiOp(rows, zero, "eq")
    for new in (zero, rows, empty):
        rewriter.insert(new, InsertPoint.before(scan))

    then_block = Block()
    empties = [soac.EmptyOp(t) for t in types]
    then_block.add_ops([*empties, scf.YieldOp(*(e.result for e in empties))])

    else_block = Block()
    nests, per_row = interchanged(scan, untransposed)
    else_block.add_ops(nests)
    yielded: list[SSAValue] = []
    for y, c in zip(per_row, cancelled, strict=True):
        if c is None:
            k, n = (0, 1) if depth == 1 else (depth, -depth)
            back = soac.TransposeOp(y, k, n)
            else_block.add_op(back)
            yielded.append(back.result)
        else:
            yielded.append(y)
    else_block.add_op(scf.YieldOp(*yielded))

    chosen = scf.IfOp(empty, types, Region(then_block), Region(else_block))
    rewriter.insert(chosen, InsertPoint.before(scan))
    for r, c, v in zip(scan.results, cancelled, chosen.results, strict=True):
        if c is None:
            rewriter.replace_all_uses_with(r, v)
        else:
            for t in c:
                rewriter.replace(t, [], [v])
    transposes = list(dict.fromkeys(a.owner for a in scan.inputs))
    rewriter.erase(scan)
    for owner in transposes:
        if isinstance(owner, soac.TransposeOp) and not owner.result.uses:
            rewriter.erase(owner)  # else it would keep its array from fusing


@dataclass
class FuseIswim(RewritePattern):
    """The rule as a pattern of `fuse`; `changed` says the module's analyses are stale."""

    failing: Set[str]
    changed: Callable[[], None]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, soac.ScanOp | soac.ScanomapOp) and applies(op, self.failing):
            interchange(rewriter, op)
            self.changed()


# ---------------------------------------------------------------------------------------
# The producer side: a consumer of the interchanged scan moves into its `if`
# ---------------------------------------------------------------------------------------

SINKING_CONSUMERS = (soac.MapOp, soac.ScanOp, soac.ScanomapOp, soac.ReduceOp, soac.RedomapOp)
"""The SOACs whose result over an array without rows is known without running them."""


def _empty_branch(chosen: scf.IfOp, index: int) -> bool:
    """Whether the first branch of `chosen` yields an array without rows as result
    `index` (as the interchange's `if` does)."""
    last = chosen.true_region.block.last_op
    if not isinstance(last, scf.YieldOp):
        return False
    v = last.operands[index]
    return isinstance(v, OpResult) and isinstance(v.op, soac.EmptyOp)


def _in_block_after(op: Operation, anchor: Operation) -> bool:
    """Whether `op`, or its ancestor in `anchor`'s block, comes after `anchor`."""
    while op.parent_block() is not anchor.parent_block():
        parent = op.parent_op()
        if parent is None:
            return False
        op = parent
    return anchor.is_before_in_block(op)


def sinking_input(consumer: Operation, failing: Set[str],
                  consumption: Callable[[], Consumption]) -> SSAValue | None:
    """The input of `consumer` that is a result of an interchanged scan's `if` it may
    move into (Note [Consumers of the interchanged scan]), or None."""
    if not isinstance(consumer, SINKING_CONSUMERS):
        return None
    for r in consumer.inputs:
        if not isinstance(r, OpResult) or not isinstance(r.op, scf.IfOp):
            continue
        chosen = r.op
        if not r.has_one_use() or chosen.parent_block() is not consumer.parent_block() \
                or not _empty_branch(chosen, r.index):
            continue
        others = [u.operation for v in chosen.results if v is not r for u in v.uses]
        if not all(_in_block_after(u, consumer) for u in others):
            continue
        if has_effects(chosen, failing):
            continue
        read = [v for v in free_values(chosen) if isinstance(v.type, TensorType)]
        if consumption().consumed_between(read, chosen, consumer) is not None:
            continue
        return r
    return None


def sink(rewriter: PatternRewriter, consumer: Operation, r: SSAValue) -> None:
    """Move `consumer` into the second branch of the `if` defining its input `r`
    (`sinking_input`), and the `if` to where the consumer was."""
    assert isinstance(r, OpResult) and isinstance(r.op, scf.IfOp)
    assert isinstance(consumer, SINKING_CONSUMERS)
    old = r.op
    then_yield = old.true_region.block.last_op
    else_yield = old.false_region.block.last_op
    assert isinstance(then_yield, scf.YieldOp) and isinstance(else_yield, scf.YieldOp)
    kept = [i for i in range(len(old.results)) if i != r.index]
    types = [old.results[i].type for i in kept] + list(consumer.result_types)
    moved = scf.IfOp(old.cond, types, Region(), Region())
    rewriter.insert(moved, InsertPoint.before(consumer))
    for j, i in enumerate(kept):
        rewriter.replace_all_uses_with(old.results[i], moved.results[j])
    for j, v in enumerate(consumer.results):
        rewriter.replace_all_uses_with(v, moved.results[len(kept) + j])

    # Without rows: arrays with every dimension 0, or the fold's neutral elements.
    if isinstance(consumer, soac.ReduceOp | soac.RedomapOp):
        none: list[SSAValue] = list(consumer.neutral)
    else:
        empties = [soac.EmptyOp(t) for t in consumer.result_types]
        rewriter.insert(empties, InsertPoint.before(then_yield))
        none = [e.result for e in empties]
    rewriter.replace(then_yield, scf.YieldOp(*[then_yield.operands[i] for i in kept], *none))

    # With rows: the consumer, on the value the branch yielded for `r`.
    inside = else_yield.operands[r.index]
    consumer.detach()
    rewriter.insert(consumer, InsertPoint.before(else_yield))
    consumer.operands = [inside if v is r else v for v in consumer.operands]
    rewriter.replace(else_yield, scf.YieldOp(*[else_yield.operands[i] for i in kept],
                                             *consumer.results))
    old.true_region.move_blocks(moved.true_region)
    old.false_region.move_blocks(moved.false_region)
    rewriter.erase(old)


@dataclass
class SinkIntoIswim(RewritePattern):
    """The producer side of FUSE-ISWIM, a pattern of `fuse`: a consumer of the
    interchanged scan moves into its `if` (Note [Consumers of the interchanged scan]);
    `consumption` gives the module's current consumption analysis."""

    failing: Set[str]
    consumption: Callable[[], Consumption]
    changed: Callable[[], None]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        r = sinking_input(op, self.failing, self.consumption)
        if r is not None:
            sink(rewriter, op, r)
            self.changed()
