"""`hoist`: loop-invariant code motion out of lambdas, loops and branches (thesis 6.1, 6.3.1).

An op whose operands are all defined outside a SOAC lambda, an `scf.for` body or an
`scf.if` branch computes the same value on every run of that region, so it can run once,
just before the SOAC, loop or `if` (thesis Figure 15). Inner regions are processed
first, so an op climbs out of as many levels as it is invariant in. Which ops may move,
and how a check leaves a loop that may run zero times, is the hoisting core's business
(`l0.passes.cores.hoisting`, which `rebind` shares): invariance, printing, uniqueness,
failure and cost. `HoistPass` shows an example.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from l0.passes.analysis.speculation import Speculation
from l0.passes.cores.hoisting import Hoister, hoisting_regions

# ---------------------------------------------------------------------------------------
# Patterns and pass
# ---------------------------------------------------------------------------------------


@dataclass
class HoistOutOfRegions(RewritePattern):
    """Hoist invariant ops out of the lambdas of a SOAC, an `scf.for` body or the
    branches of an `scf.if` (`hoisting_regions` says which regions, and how they run)."""

    hoister: Hoister

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if hoisting_regions(op):
            self.hoister.hoist(op, rewriter)


@dataclass(frozen=True)
class HoistPass(ModulePass):
    """Hoist loop-invariant ops out of SOAC lambdas, `scf.for` bodies and `scf.if` branches.

    Thesis 6.1 with the restrictions of 6.1.1: an op moves to just before the SOAC, loop
    or `if` when its operands are defined outside, it does not print, and no run of
    the region needs a fresh copy of its array result (it is not consumed). An op that
    may fail (a check, division, indexing, ...) never leaves a branch, and leaves a loop
    only when nothing before it in the body that may fail stays behind, and only when
    the loop certainly runs: a check leaves any loop as `assert (c || the loop runs
    zero times)`. Out of branches only cheap ops move, unless `aggressive` is set.

    Options: `aggressive` (default false): also hoist SOACs, loops and array
    construction that cannot fail out of branches, as the thesis's compiler did.

    Before:
        %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
          %k = arith.addi %y, %z : i64
          %s = arith.addi %x, %k : i64
          soac.yield %s : i64
        }
    After:
        %k = arith.addi %y, %z : i64
        %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
          %s = arith.addi %x, %k : i64
          soac.yield %s : i64
        }
    """

    name = "hoist"

    aggressive: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hoister = Hoister(Speculation(op), self.aggressive)
        patterns = GreedyRewritePatternApplier(
            [HoistOutOfRegions(hoister)],
            dce_enabled=False,  # erasing dead ops is `dce`'s business
        )
        PatternRewriteWalker(
            patterns, walk_regions_first=True, apply_recursively=False
        ).rewrite_module(op)
