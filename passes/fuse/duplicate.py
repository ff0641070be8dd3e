"""Splitting a map between its consumers, duplicating only cheap work (thesis 7.1.3,
9.2, and the splitting chapter 10 asks for under figure 44).

Vertical fusion never duplicates work, and the thesis found that too conservative: in
R1 (figure 42) a map of a few arithmetic operations feeds two consumers, and in R2
(figure 44) a map computes two arrays, sharing one multiplication, for two folds. Here
a `map` that could not be fused is cut into *parts*, one per consumer it can fuse with
(the consumer's part computes only the outputs that consumer reads) and one for the
outputs that must exist as arrays (returned, indexed, read inside a loop...); each part
keeps only the ops its outputs need, and the consumers' parts fuse into them.

Note [What may be duplicated]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The ops needed by two or more parts run once per part: that is the duplicated work.
When parts share nothing (a map computing independent arrays) nothing is duplicated
and the split is always made. Otherwise the shared ops must be *cheap*, constant-time
scalar work: no SOAC, no loop, no call, no op building an array (a row copy is not
constant-time), and at most `MAX_DUPLICATED_OPS` operations (constants and
terminators do not count; the ops inside an `if` do). Nothing is duplicated into a loop
or a lambda: a consumer there is not a part (its work would run once per iteration,
9.2: "we must also be careful not to inline into a loop").

When a map is split: its lambda can neither fail nor print (a duplicated failure or
trace could be reported twice or in another order) and yields rows of one known shape;
its lambda and the consumers' consume nothing (no update, call or loop: the moved
reads must not meet a consumption the legality checks did not see); each consumer
passes the vertical checks (`Fusibility.problem`); and at least one output is read by
consumers only, so that an array is no longer built. The outputs needed elsewhere stay
in a map of their own, where the original was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue, Use
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from l0.dialects import soac
from l0.passes.analysis.consumption import SOACS, consumed_operands
from l0.passes.analysis.effects import has_effects
from l0.passes.fuse.legality import Fusibility, _home_chain, regular

MAX_DUPLICATED_OPS = 8
"""The most scalar operations a split may duplicate (Note [What may be duplicated])."""

Fuse = Callable[[PatternRewriter, soac.MapOp, Block, Operation],
                tuple[Operation, list[SSAValue]]]
"""Vertical fusion of a producer into one consumer (`l0.passes.fuse._fused`)."""


def duplication_cost(ops: Sequence[Operation]) -> int | str:
    """The number of scalar operations in `ops` (and the ops nested in them), or why
    they may not be duplicated (Note [What may be duplicated])."""
    total = 0
    for top in ops:
        for op in top.walk():
            if isinstance(op, SOACS):
                return f"it would duplicate a '{op.name}'"
            if isinstance(op, scf.ForOp | scf.WhileOp):
                return "it would duplicate a loop"
            if isinstance(op, func.CallOp):
                return "it would duplicate a call"
            if any(isinstance(r.type, TensorType) for r in op.results):
                return f"it would duplicate '{op.name}', which builds an array"
            if isinstance(op, arith.ConstantOp) or op.has_trait(IsTerminator):
                continue
            total += 1
    if total > MAX_DUPLICATED_OPS:
        return (f"it would duplicate {total} scalar operations (at most "
                f"{MAX_DUPLICATED_OPS})")
    return total


def _top_level(v: SSAValue, tops: set[Operation]) -> Operation | None:
    """The op among `tops` (a lambda's ops) that defines `v` or holds its definition."""
    op: Operation | None
    if isinstance(v, OpResult):
        op = v.op
    else:
        assert isinstance(v, BlockArgument)
        op = v.block.parent_op()
    while op is not None and op not in tops:
        op = op.parent_op()
    return op


def slice_of(block: Block, values: Sequence[SSAValue]) -> set[Operation]:
    """The ops of lambda `block` needed to compute `values` (its top-level ops)."""
    tops = set(block.ops)
    needed: set[Operation] = set()
    work = list(values)
    while work:
        op = _top_level(work.pop(), tops)
        if op is None or op in needed:
            continue
        needed.add(op)
        for inner in op.walk():
            work.extend(inner.operands)
    return needed


def pruned(producer: soac.MapOp, outputs: Sequence[int]) -> soac.MapOp:
    """A copy of `producer` computing only its outputs `outputs` (in that order), with
    the ops and inputs they do not need removed; not inserted."""
    region = producer.body.clone()
    block = region.block
    done = block.last_op
    assert isinstance(done, soac.YieldOp)
    block.insert_op_before(soac.YieldOp(*(done.values[i] for i in outputs)), done)
    block.erase_op(done)
    for op in reversed(list(block.ops)[:-1]):
        if all(r.first_use is None for r in op.results):
            block.erase_op(op)  # the lambda has no effects: what is unused may go
    # Inputs whose rows are no longer read go, but one stays: it gives the size.
    inputs = list(producer.inputs)
    for k in reversed(range(len(inputs))):
        if len(inputs) > 1 and block.args[k].first_use is None:
            block.erase_arg(block.args[k])
            del inputs[k]
    loc = None if producer.loc is None else producer.loc.data
    new = soac.MapOp(inputs, [producer.result_types[i] for i in outputs],
                     region, list(producer.certs), loc)
    new.attributes |= producer.attributes
    return new


def _input_use(user: Operation, index: int) -> bool:
    """Whether operand `index` of `user` is one of its input arrays."""
    if not isinstance(user, SOACS):
        return False
    start = len(user.neutral) if hasattr(user, "neutral") else 0
    return start <= index < start + len(user.inputs)


@dataclass
class Split:
    """How to cut a map: the outputs each consumer's part computes, and the outputs
    that must stay arrays."""

    parts: list[tuple[Operation, list[int]]]
    kept: list[int]


@dataclass
class SplitProducer(RewritePattern):
    """A `map` left unfused, cut into one part per consumer it can fuse with (each then
    fused) and one for the outputs needed as arrays (see the module docstring)."""

    fusibility: Callable[[], Fusibility]
    changed: Callable[[], None]
    fuse: Fuse
    accepts: tuple[type[Operation], ...]
    """The consumers a map fuses with."""
    unfused: dict[Operation, str] = field(default_factory=dict[Operation, str])
    """Why maps were not fused (`FuseProducer.unfused`): the reason not to split is added."""

    def plan(self, op: soac.MapOp) -> Split | str:
        """How to split `op`, or why not."""
        if not regular(op) or has_effects(op, self.fusibility().failing):
            return "its lambda may fail or print"
        if consumed_operands(op):
            return "its lambda has an update, a call or a loop"
        check = self.fusibility()
        home = op.parent_block()
        assert home is not None
        fusible: dict[Operation, bool] = {}
        targets: dict[Operation, list[int]] = {}
        elsewhere: set[int] = set()
        for i, r in enumerate(op.results):
            for use in r.uses:
                user = use.operation
                if user not in fusible:
                    fusible[user] = self._target(op, user, home, check)
                if fusible[user] and _input_use(user, use.index):
                    outs = targets.setdefault(user, [])
                    if i not in outs:
                        outs.append(i)
                else:
                    elsewhere.add(i)
        parts = [(t, [i for i in outs if i not in elsewhere]) for t, outs in targets.items()]
        parts = [(t, outs) for t, outs in parts if outs]
        if not parts:
            return "no consumer reads only outputs it may fuse with"
        kept = sorted(elsewhere)
        if len(parts) == 1 and not kept:
            return "no consumer to split it between"
        lam = op.body.block
        yielded = list(lam.last_op.operands)  # type: ignore[union-attr]  # a lambda ends with its yield
        slices = [slice_of(lam, [yielded[i] for i in outs]) for _, outs in parts]
        if kept:
            slices.append(slice_of(lam, [yielded[i] for i in kept]))
        seen: set[Operation] = set()
        shared: set[Operation] = set()
        for s in slices:
            shared |= s & seen
            seen |= s
        cost = duplication_cost([o for o in lam.ops if o in shared])
        if isinstance(cost, str):
            return cost
        return Split(parts, kept)  # each part fuses where its consumer is: any order

    def _target(self, op: soac.MapOp, user: Operation, home: Block,
                check: Fusibility) -> bool:
        """Whether `user`, reading an output of `op`, may get a part of `op` fused into
        it (the outputs it reads as input arrays)."""
        return (isinstance(user, self.accepts)
                and _home_chain(user, home) is not None and not consumed_operands(user)
                and check.problem(op, user) is None)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp) or op not in self.unfused:
            return
        split = self.plan(op)
        if isinstance(split, str):
            why = self.unfused[op]
            if "; not split" not in why:
                self.unfused[op] = f"{why}; not split between its consumers: {split}"
            return
        for consumer, outputs in split.parts:
            part = pruned(op, outputs)
            rewriter.insert(part, InsertPoint.before(op))
            for j, i in enumerate(outputs):
                rewriter.replace_uses_with_if(op.results[i], part.results[j], _by(consumer))
            new, values = self.fuse(rewriter, part, part.body.block, consumer)
            rewriter.replace(consumer, new, values)
            rewriter.erase(part)
        if split.kept:
            rest = pruned(op, split.kept)
            rewriter.insert(rest, InsertPoint.before(op))
            for j, i in enumerate(split.kept):
                rewriter.replace_all_uses_with(op.results[i], rest.results[j])
        rewriter.erase(op)
        self.unfused.pop(op, None)
        self.changed()


def _by(user: Operation) -> Callable[[Use], bool]:
    """Whether a use is one of `user`'s."""
    return lambda u: u.operation is user
