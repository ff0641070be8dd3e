"""The hoisting core: which ops may leave a lambda, loop or branch, and moving them (thesis 6.1).

An op whose operands are all defined outside a SOAC lambda, an `scf.for` body or an
`scf.if` branch computes the same value on every run of that region, so it can run once,
just before the SOAC, loop or `if` (thesis Figure 15). Both users process inner
holders first, so an op climbs out of as many levels as it is invariant in. Which ops may move
is decided here, from the IR, by `Hoister.why_not` (a reason, or None when it may):

1. It must be invariant: no operand (of the op or of an op nested in it) is defined
   inside the region.
2. It must not print (`soac.trace`, a call of a tracing function): moving it would
   change how often the program prints (`l0.passes.analysis.speculation`).
3. Uniqueness (thesis 6.1.1): an op whose array result may be consumed (by a
   `soac.update`, a unique parameter, a consumed merge value, directly or through an
   alias) stays: each run of the region needs a fresh array. So does an op whose array
   result is carried, as a loop merge value or fold accumulator, into a parameter that
   the body consumes. An op that consumes something never leaves a branch (the other
   branch may still use what it consumes).
4. Failure (thesis 6.1.1, "what not to hoist"). An op that may fail
   (`Speculation.may_fail`: checks, division, indexing, ...) never leaves a branch,
   nor the combining lambda of a `redomap` (which the sequential semantics never runs).
   It leaves a loop or lambda only if every op before it in the body that may fail
   leaves too, so the first error the program reports is unchanged (Note [Hoisting
   checks]), and only if the loop is known to run at least once, except for a check:
   see Note [Loops that run zero times].
5. Cost: out of a branch, only cheap ops move (no regions, no array built); the
   thesis's compiler hoisted everything that cannot fail out of branches, which the
   option `aggressive` restores (`hoist{aggressive=true}`).

Note [Loops that run zero times]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The thesis's compiler hoisted out of loops as if every loop ran at least once (6.1.1).
Here an op that cannot fail is hoisted regardless (if the loop runs zero times, the
value is computed and not used, which costs time, not meaning). An op that may fail is
hoisted out of a loop only when the loop is known to run at least once (constant
bounds; a SOAC over a literal, or `iota`/`replicate` of a positive constant). A check
(`soac.assert %c`) is hoisted in any case, as `soac.assert (%c || <the loop runs zero
times>)` with the same message and location: when the loop runs, that is the original
check, and when it does not, it cannot fail. The ops the check guards stay in the loop
(they may fail: their certificate no longer proves anything when the loop is empty),
so what is saved is the check on every iteration.

Note [Hoisting checks]
~~~~~~~~~~~~~~~~~~~~~~
The 2014 compiler moved checks out of loops freely (thesis 10), which can change which
of two failing checks is reported. L0's interpreter reports the first failure in
evaluation order (docs/reference.md §5), so here a check, or any op that may fail, leaves a
loop only if everything before it in the body that may fail has left too: then, if it
fails, it fails on the first iteration before anything else could have, exactly as in
the original. An invariant check behind a variant one stays (the `bounds` pass moves
such checks with their exact first failure).

`Hoister.hoist(holder, rewriter)` moves what may leave the regions of one holder and
returns the ops it moved, in order: the `hoist` pass calls it on every SOAC, loop and
`if`, inner regions first; `rebind` calls it on each holder after CSE has visited its
regions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.consumption import SOACS, consumes, why_result_consumed
from l0.passes.analysis.scope import defined_inside
from l0.passes.analysis.shapes import static_shape
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.walk import block_ops, walk_ops


class RegionKind(Enum):
    """How often a region runs when its holder runs."""

    LOOP = "loop"
    """Once per iteration (or row): zero or more times."""
    BRANCH = "branch"
    """Once or not at all, depending on a condition."""
    COMBINE = "combine"
    """The combining lambda of a `redomap` or `scanomap`: an unknown number of times,
    maybe never."""


def hoisting_regions(holder: Operation) -> list[tuple[Region, RegionKind]]:
    """The regions of `holder` that ops can be hoisted out of, with how they run."""
    match holder:
        case scf.ForOp():
            return [(holder.body, RegionKind.LOOP)]
        case scf.IfOp():
            return [(holder.true_region, RegionKind.BRANCH),
                    (holder.false_region, RegionKind.BRANCH)]
        case soac.RedomapOp() | soac.ScanomapOp():
            return [(holder.inner, RegionKind.LOOP), (holder.outer, RegionKind.COMBINE)]
        case soac.MapOp() | soac.ReduceOp() | soac.ScanOp() | soac.FilterOp():
            return [(holder.body, RegionKind.LOOP)]
        case _:
            return []


# ---------------------------------------------------------------------------------------
# Facts about loops
# ---------------------------------------------------------------------------------------


def runs_at_least_once(holder: Operation) -> bool:
    """Whether the loop or SOAC `holder` certainly runs its body at least once."""
    if isinstance(holder, scf.ForOp):
        lb, ub = constant_int(holder.lb), constant_int(holder.ub)
        return lb is not None and ub is not None and ub > lb
    if isinstance(holder, SOACS):
        for v in holder.inputs:
            shape = static_shape(v)
            if shape is not None and shape[0] >= 1:
                return True
    return False


def build_runs_zero_times(holder: Operation) -> tuple[list[Operation], SSAValue]:
    """Ops (not yet inserted) computing whether the loop or SOAC `holder` runs zero
    times, and their i1 result."""
    if isinstance(holder, scf.ForOp):
        empty = arith.CmpiOp(holder.ub, holder.lb, "sle")
        return [empty], empty.result
    assert isinstance(holder, SOACS)
    size = soac.SizeOp(holder.inputs[0], 0)
    zero = arith.ConstantOp.from_int_and_width(0, i64)
    empty = arith.CmpiOp(size.result, zero.result, "eq")
    return [size, zero, empty], empty.result


def is_invariant(op: Operation, holder: Operation) -> bool:
    """Whether every value `op` (or an op nested in it) uses from outside `op` is also
    defined outside `holder`."""
    for inner in walk_ops(op):
        for v in inner.operands:
            if defined_inside(v, holder) and not defined_inside(v, op):
                return False
    return True


# ---------------------------------------------------------------------------------------
# Legality
# ---------------------------------------------------------------------------------------


def is_cheap(op: Operation) -> bool:
    """Whether `op` costs about as much as an arithmetic op: no regions, no array built."""
    if op.regions:
        return False
    if isinstance(op, soac.TransposeOp):
        return True  # a view
    return not any(isinstance(r.type, TensorType) for r in op.results)


@dataclass
class RegionScan:
    """What is known while scanning one region of a holder, op by op."""

    holder: Operation
    kind: RegionKind
    nonempty: bool
    blocked_by: Operation | None = None
    """An op that may fail and stays in the region (later ops that may fail stay too)."""
    runs_zero_times: SSAValue | None = None
    hoisted: list[Operation] = field(default_factory=list[Operation])


@dataclass
class Hoister:
    """The legality and mechanics of hoisting (see the module docstring)."""

    speculation: Speculation
    aggressive: bool = False
    """Also hoist costly ops that cannot fail out of branches (as the thesis did)."""

    def why_not(self, op: Operation, scan: RegionScan) -> str | None:
        """Why `op` may not leave its region of `scan.holder`; None if it may."""
        if op.has_trait(IsTerminator):
            return "it is the region's terminator"
        if not is_invariant(op, scan.holder):
            return "it uses a value defined inside the region"
        if self.speculation.prints(op):
            return "it prints"
        reason = why_result_consumed(op)
        if reason is not None:
            return reason
        if scan.kind is RegionKind.BRANCH:
            return self._why_not_out_of_branch(op)
        failure = self.speculation.why_may_fail(op)
        if failure is None:
            return None
        if scan.kind is RegionKind.COMBINE:
            return f"it may fail ({failure}) and the combining lambda may never run"
        if scan.blocked_by is not None:
            return f"it may fail ({failure}) after '{scan.blocked_by.name}', which stays"
        if scan.nonempty or isinstance(op, soac.AssertOp):
            return None
        return f"it may fail ({failure}) and the loop may run zero times"

    def _why_not_out_of_branch(self, op: Operation) -> str | None:
        failure = self.speculation.why_may_fail(op)
        if failure is not None:
            return f"it may fail ({failure}) and the branch may not be taken"
        if consumes(op):
            return "it consumes an array, which the other branch may still use"
        if not self.aggressive and not is_cheap(op):
            return "it is costly and the branch may not be taken"
        return None

    # -- mechanics ----------------------------------------------------------------------

    def hoist(self, holder: Operation, rewriter: PatternRewriter) -> list[Operation]:
        """Move every op that may leave a region of `holder` to just before `holder`,
        in order; return the moved (and created) ops, in program order."""
        hoisted: list[Operation] = []
        for region, kind in hoisting_regions(holder):
            if not region.blocks:
                continue
            nonempty = kind is RegionKind.LOOP and runs_at_least_once(holder)
            scan = RegionScan(holder, kind, nonempty)
            self._hoist_block(region.block, scan, rewriter)
            hoisted.extend(scan.hoisted)
        return hoisted

    def _hoist_block(self, block: Block, scan: RegionScan, rewriter: PatternRewriter) -> None:
        for op in block_ops(block):
            if self.why_not(op, scan) is None:
                self._move(op, scan, rewriter)
            elif scan.kind is RegionKind.LOOP and self.speculation.may_fail(op):
                scan.blocked_by = scan.blocked_by or op

    def _move(self, op: Operation, scan: RegionScan, rewriter: PatternRewriter) -> None:
        where = InsertPoint.before(scan.holder)
        if isinstance(op, soac.AssertOp) and not scan.nonempty:
            self._move_guarded_check(op, scan, rewriter)
            return
        op.detach()
        rewriter.insert(op, where)
        scan.hoisted.append(op)

    def _move_guarded_check(self, op: soac.AssertOp, scan: RegionScan,
                            rewriter: PatternRewriter) -> None:
        """Note [Loops that run zero times]: `assert c` becomes `assert (c || empty)`."""
        created: list[Operation] = []
        if scan.runs_zero_times is None:
            ops, scan.runs_zero_times = build_runs_zero_times(scan.holder)
            created.extend(ops)
        guard = arith.OrIOp(op.cond, scan.runs_zero_times)
        check = soac.AssertOp(guard.result, op.msg.data, op.loc.data, list(op.values))
        check.attributes |= op.attributes
        created += [guard, check]
        rewriter.insert(created, InsertPoint.before(scan.holder))
        rewriter.replace_all_uses_with(op.cert, check.cert)
        rewriter.erase(op)
        scan.hoisted.extend(created)
