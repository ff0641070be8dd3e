"""A consumer moves into the branches of the `if` that computes its input, to meet the
producer there.

    let s = if c then A else map(f, x) in map(g, s)
      =  if c then map(g, A) else map(g, map(f, x))

after which `map(g, map(f, x))` fuses in its branch (and the other branch's copy runs
on `A` alone). Only one copy runs, so no work is duplicated, only code. The `if`s that
need this are often the fusion pass's own: ISWIM (`iswim_rule.py`) guards the
interchanged scan with `if` there are no rows, so a map over the result of a scan of
columns would otherwise stay apart from the per-row maps it computes.

Note [Moving a consumer into branches]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A SOAC `C` moves into both branches of `scf.if` `I` when

* an input of `C` is a result of `I`, in `C`'s block, that nothing but `C` uses (`I`
  then stops yielding it);
* in some branch, what `I` yields for it is built there by a `map` or `filter` (or a
  `transpose` of one) of a kind that fuses into `C`: the move must let something
  fuse;
* every other value `C` uses is defined before `I` (it is computed at `I` instead);
* `C` can neither fail nor print, or nothing between `I` and `C` can (the first
  error, or the order of the output, would change), and `C` consumes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.consumption import consumed_operands
from l0.passes.analysis.effects import has_effects
from l0.passes.analysis.scope import free_values
from l0.passes.fuse.compose import detach_region

CONSUMERS = (soac.MapOp, soac.FilterOp, soac.ReduceOp, soac.RedomapOp, soac.ScanOp,
             soac.ScanomapOp)


# What each kind of producer fuses into (`fuse`'s vertical rules).
_MAP_CONSUMERS = (soac.MapOp, soac.ReduceOp, soac.RedomapOp, soac.ScanOp, soac.ScanomapOp)
_FILTER_CONSUMERS = (soac.FilterOp, soac.ReduceOp, soac.RedomapOp)


def _built_by_producer(v: SSAValue, block: Block, consumer: Operation) -> bool:
    """Whether `v` is the output of a map or filter in `block` (or a transposition of
    one) of a kind that fuses into `consumer`."""
    if isinstance(v, OpResult) and isinstance(v.op, soac.TransposeOp):
        v = v.op.array
    if not isinstance(v, OpResult) or v.op.parent_block() is not block:
        return False
    if isinstance(v.op, soac.MapOp):
        return isinstance(consumer, _MAP_CONSUMERS)
    return isinstance(v.op, soac.FilterOp) and isinstance(consumer, _FILTER_CONSUMERS)


def _yielded(block: Block) -> list[SSAValue]:
    last = block.last_op
    assert isinstance(last, scf.YieldOp)
    return list(last.operands)


def movable_into(consumer: Operation, failing: Set[str]) -> tuple[scf.IfOp, int] | None:
    """The `if` `consumer` may move into, and the index of the result it reads (Note
    [Moving a consumer into branches]), or None."""
    block = consumer.parent_block()
    inputs = list(getattr(consumer, "inputs", ()))
    found: tuple[scf.IfOp, int] | None = None
    for v in inputs:
        if isinstance(v, OpResult) and isinstance(v.op, scf.IfOp) \
                and v.op.parent_block() is block \
                and all(u.operation is consumer for u in v.uses) \
                and any(_built_by_producer(_yielded(b)[v.index], b, consumer)
                        for r in v.op.regions for b in r.blocks):
            found = (v.op, v.index)
            break
    if found is None or consumed_operands(consumer):
        return None
    branch, index = found
    if len(branch.regions) != 2 or any(not r.blocks for r in branch.regions):
        return None
    moved = branch.results[index]
    later: set[Operation] = set()
    op = branch.next_op
    while op is not None and op is not consumer:
        later.add(op)
        op = op.next_op
    for v in [*consumer.operands, *free_values(consumer, own_operands=False)]:
        if v is not moved and isinstance(v, OpResult) and (v.op in later or v.op is consumer):
            return None
    if has_effects(consumer, failing) and any(has_effects(o, failing) for o in later):
        return None
    return found


def move_into(rewriter: PatternRewriter, consumer: Operation, branch: scf.IfOp,
              index: int) -> scf.IfOp:
    """Move `consumer` into both branches of `branch` (which stops yielding its result
    `index`); returns the new `if`, whose last results are the consumer's."""
    moved = branch.results[index]
    regions = [detach_region(r) for r in branch.regions]
    for region in regions:
        for b in region.blocks:
            done = b.last_op
            assert isinstance(done, scf.YieldOp)
            values = list(done.operands)
            copy = consumer.clone(value_mapper={moved: values[index]})
            rewriter.insert(copy, InsertPoint.before(done))
            kept = values[:index] + values[index + 1:]
            rewriter.replace(done, scf.YieldOp(*kept, *copy.results))
    types = [r.type for r in branch.results if r is not moved]
    new = scf.IfOp(branch.cond, [*types, *(r.type for r in consumer.results)],
                   regions[0], regions[1])
    rewriter.insert(new, InsertPoint.before(branch))
    kept_results = [r for r in branch.results if r is not moved]
    for old, now in zip(kept_results, new.results, strict=False):
        old.replace_all_uses_with(now)
    for old, now in zip(consumer.results, new.results[len(kept_results):], strict=True):
        old.replace_all_uses_with(now)
    rewriter.erase(consumer)
    rewriter.erase(branch)
    return new


@dataclass
class IntoBranches(RewritePattern):
    """A SOAC whose input an `if` computes moves into its branches, when that lets it
    meet a producer there (Note [Moving a consumer into branches])."""

    failing: Set[str]
    changed: Callable[[], None]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, CONSUMERS):
            return
        found = movable_into(op, self.failing)
        if found is None:
            return
        move_into(rewriter, op, *found)
        self.changed()
