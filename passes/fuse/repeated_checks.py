"""A fold's neutral element checked after its producer, with a check the producer repeats.

The sum of vectors, `reduce(addVectors, replicate(n, 0.0), map(f, xs))` where `f`
builds each row from `replicate(n, 0.0)` too (thesis R0's sum over chunks of paths),
has the neutral element's size check `0 <= n` between the producer and the fold: a
check that may fail, which blocks fusion when the producer may fail as well
(`legality.py`: fused, the check would run before the producer's rows and report its
error instead of theirs). See Note [A check the producer repeats].

Note [A check the producer repeats]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Let the producer `P` be a map whose lambda asserts, at its top level (so on every row,
before the row is done), the very condition `c = (0 <= n)` that the check `X` between
`P` and the consumer `C` asserts for the size of `C`'s neutral element
`replicate(n, v)` (used by `C` alone). If `P` has rows and `c` is false, every row of
`P` fails (or does not terminate) before `X` is reached; so `X` can report its error
only when `P` has no rows, when `P` does nothing at all. Hence:

* `X` becomes `assert(c || rows(P) != 0)`, with its message, values and location,
  and moves before `P`: where it fails, `P` would have done nothing before it; where
  the original `X` would fail after `P`, the moved one fails (with no rows) or `P`
  fails first in both programs (with rows);
* the replicate's size becomes `select(c, n, 0)`, never negative: where `c` is false
  and `P` has rows, the fused SOAC's first row fails before it folds anything, so the
  (empty) neutral element is never read; where `c` holds it is `n`, as before.

Nothing else between `P` and `C` may fail or print, and `C` itself must not (its
lambda and checks), or the order of failures would still change; the rewrite is made
only when it is all that keeps `P` from fusing into `C`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.effects import has_effects
from l0.passes.analysis.scope import defined_outside

_SLE, _SGE = 3, 5


def _checks_nonnegative(cond: SSAValue, n: SSAValue) -> bool:
    """Whether `cond` is `0 <= n` (or `n >= 0`)."""
    op = cond.owner
    if not isinstance(op, arith.CmpiOp):
        return False
    pred = op.predicate.value.data
    if pred not in (_SLE, _SGE):
        return False
    lhs, rhs = (op.lhs, op.rhs) if pred == _SLE else (op.rhs, op.lhs)
    if rhs is not n:
        return False
    zero = lhs.owner
    return isinstance(zero, arith.ConstantOp) and isinstance(zero.value, IntegerAttr) \
        and zero.value.value.data == 0


def _available_before(v: SSAValue, producer: Operation, home: Block) -> bool:
    """Whether `v` is defined where an op placed just before `producer` can use it: not
    after `producer` in its block, nor inside it."""
    owner = v.owner
    if isinstance(owner, Operation) and owner.parent_block() is home:
        return owner.is_before_in_block(producer)
    return defined_outside(v, producer)


def _repeated(producer: soac.MapOp) -> set[SSAValue]:
    """The conditions, defined outside it, that the producer's lambda asserts at its top
    level (so on every row)."""
    return {op.cond for op in producer.body.block.ops
            if isinstance(op, soac.AssertOp) and defined_outside(op.cond, producer)}


def _neutral_replicate(check: soac.AssertOp, consumer: Operation) -> soac.ReplicateOp | None:
    """The replicate certified by `check` alone, whose size `check` proves non-negative,
    used only as a neutral element of `consumer`; None if there is none."""
    users = [u.operation for u in check.cert.uses]
    if len(users) != 1 or not isinstance(users[0], soac.ReplicateOp):
        return None
    rep = users[0]
    if list(rep.certs) != [check.cert] or not _checks_nonnegative(check.cond, rep.n):
        return None
    neutrals = len(getattr(consumer, "neutral", ()))
    uses = list(rep.result.uses)
    if not uses or any(u.operation is not consumer or u.index >= neutrals for u in uses):
        return None
    return rep


def movable_checks(producer: Operation, consumer: Operation,
                   failing: frozenset[str] | set[str]) -> list[soac.AssertOp] | None:
    """The checks between `producer` and `consumer` that Note [A check the producer
    repeats] moves, when they are all that may fail or print on the way (the consumer
    included); None when there are none or something else is in the way."""
    if not isinstance(producer, soac.MapOp) or not producer.inputs:
        return None
    home = producer.parent_block()
    if home is None or consumer.parent_block() is not home or has_effects(consumer, failing):
        return None
    repeated = _repeated(producer)
    found: list[soac.AssertOp] = []
    op = producer.next_op
    while op is not None and op is not consumer:
        if has_effects(op, failing):
            if not isinstance(op, soac.AssertOp) or op.cond not in repeated \
                    or _neutral_replicate(op, consumer) is None \
                    or not all(_available_before(v, producer, home) for v in op.operands):
                return None
            found.append(op)
        op = op.next_op
    return found or None


def move_checks(rewriter: PatternRewriter, producer: soac.MapOp,
                consumer: Operation, checks: list[soac.AssertOp]) -> None:
    """Note [A check the producer repeats]: each check before `producer`, failing only
    when it has no rows; the neutral element it guarded built with a size never
    negative."""
    before = InsertPoint.before(producer)
    rows = soac.SizeOp(producer.inputs[0], 0)
    zero = arith.ConstantOp(IntegerAttr(0, i64))
    some = arith.CmpiOp(rows, zero, "ne")
    rewriter.insert([rows, zero, some], before)
    for check in checks:
        rep = _neutral_replicate(check, consumer)
        assert rep is not None
        either = arith.OrIOp(check.cond, some)
        moved = soac.AssertOp(either, check.msg.data, check.loc.data, list(check.values))
        rewriter.insert([either, moved], before)
        size = arith.SelectOp(check.cond, rep.n, zero)
        rewriter.insert(size, InsertPoint.before(rep))
        rep.operands[0] = size.result
        rewriter.replace(check, [], [moved.cert])
