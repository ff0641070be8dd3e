"""`bounds`: symbolic range analysis that proves bounds checks, or moves them out of loops.

Beyond the thesis: its 6.1 describes the idea (with symbolic range propagation, the
check of `a[i]` in a map over `iota(n)` needs testing only at the extremes of i), and
notes that the 2014 compiler lacked it. The package:

* `ranges`: affine forms of i64 values over sizes and opaque values, iterator ranges
  (`scf.for` induction variables, lambda parameters over `iota`), and proofs of
  `e >= 0`, with the overflow discipline of Note [Overflow];
* `conditions`: checks as conjunctions of affine comparisons;
* `pattern`: `ProveCheck` and `HoistChecks`, with Note [Exact first failure].

Only `BoundsPass` is exported.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier

from l0.dialects import soac
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.order import DefinitionOrder
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.walk import contains_op
from l0.passes.bounds.pattern import HoistChecks, ProveCheck
from l0.passes.bounds.ranges import Ranges
from l0.passes.cores.rewrite_walker import RewriteWalker

__all__ = ["BoundsPass"]


@dataclass(frozen=True)
class BoundsPass(ModulePass):
    """Prove bounds and size checks with symbolic ranges, or move them before their loop.

    Each conjunct of a `soac.assert` (`0 <= i`, `i < size(0, a)`, `size(0, r) = n`) is
    read as a comparison of affine forms over sizes and values, where `scf.for` induction
    variables and lambda parameters over `iota(n)` range over their iterations. A
    conjunct that holds for every value in range is dropped; a check with none left
    goes, and its users get a `soac.checked` (`a[i]` over `iota(size(0, a))`). Then the
    checks of a loop or lambda whose conditions are affine in the iteration number are
    computed once before it, at the iteration where each would first fail, so that the
    program fails exactly as before, with the same message: `a[i] + a[2*i]` over
    `iota(n)` checks `n <= size(0, a)` and `n <= (size(0, a) - 1) / 2 + 1` (that is
    `2*(n-1) < size(0, a)`) before the map, and a map that runs zero times checks
    nothing. Only when nothing else in the body can fail first (other ops that may fail
    must carry certificates), and only with arithmetic that cannot overflow.

    A row size `select(m != 0, n, 0)` (how the simplifier writes `size(1, a)`, and the
    size of the rows of a map over `m` rows) is a symbol of its own, never negative and
    as small as a size, and a check is proved with what holds where it runs: inside a
    lambda over the rows of an array of `m` rows, or an `scf.for` from 0 to `m`, an
    iteration runs, so there the select is `n` (LocVolCalib's tridiagonal solves along x
    index rows of size `select(numY != 0, numX, 0)` and coefficient arrays of size
    `numX`: all their checks go). In the then-branch of an `scf.if`, the conjuncts of
    its condition that compare an iterator with an exact form narrow that iterator's
    range: a stencil's `if j < n - 1 then a[j + 1]` and `if 0 < j then a[j - 1]` need
    no check.

    An `int` value compared with an iterator is trusted like a size where a SOAC over
    `iota` of it has run before the loop (it counted that SOAC's iterations): the
    checks `i < numX` of LocVolCalib's coefficient maps, `numX` a parameter, move out,
    and the maps fuse. Where such a SOAC encloses a check or has run before it, the
    value is as good as a size in proofs too (bounded, never negative): `numX - 1` in
    a branch fact cannot wrap, and `select(m != 0, numX, 0)` is a row-size select
    (LocVolCalib's stencils and tridiagonal solves, once `size-hindrance` has written
    their sizes as the parameters `numX` and `numY`).

    Before (`%iota = soac.iota %n`):
        %r = soac.map(%i = %iota : tensor<?xi64>) -> tensor<?xi64> {
          %s = soac.size(0) %a : tensor<?xi64>
          %lo = arith.cmpi sle, %zero, %i : i64
          %hi = arith.cmpi slt, %i, %s : i64
          %ok = arith.andi %lo, %hi : i1
          %c = soac.assert %ok, "index {0} out of bounds" (%i : i64) at "p.l0:2:25"
          %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
          soac.yield %e : i64
        }
    After (the first failure would be on i = size(0, a), if n > size(0, a)):
        %s = soac.size(0) %a : tensor<?xi64>
        %ok = arith.cmpi sle, %n, %s : i64
        %c = soac.assert %ok, "index {0} out of bounds" (%s : i64) at "p.l0:2:25"
        %r = soac.map(%i = %iota : tensor<?xi64>) -> tensor<?xi64> {
          %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
          soac.yield %e : i64
        }
    """

    name = "bounds"

    REWRITES = (soac.AssertOp,)
    """The ops the pass rewrites: without them it changes nothing, and returns at once
    (Note [Passes known to change nothing] in `l0.passes.pipeline`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not contains_op(op, self.REWRITES):
            return  # both rules rewrite checks: nothing to prove or hoist
        ranges = Ranges(DefinitionOrder(op))
        speculation = Speculation(op)
        patterns = GreedyRewritePatternApplier(
            [ProveCheck(ranges, speculation),
             HoistChecks(ranges, speculation, Consumption(op))],
            dce_enabled=False,  # erasing dead ops is `dce`'s business
        )
        RewriteWalker(
            patterns, walk_regions_first=True, apply_recursively=False
        ).rewrite_module(op)
