"""`simplify`: copy and constant propagation, constant folding and algebraic
simplification (thesis 5.3; the Accelerate seed's simplification section).

In SSA, copy and constant propagation are what replacing a value by another does:
every rule below replaces an op's result by an existing value or a constant, and
its users see the new value at once. The rules live by construct:

* `arith`: folding of every scalar op (Note [Exact folding]), identities, constants
  to the front of commutative operators, reassociation;
* `disjunctions`: `x || y` that always holds (Note [Assuming the other side]);
* `arrays`: `size` and indexing folded through the op that built the array;
* `certs`: `Checked` in cert lists; and the soac ops' canonicalisation patterns
  (`assert(True)`, `conjoin`, `transpose(k, 0, a)`; `l0.dialects.soac.canonicalization`);
* `control`: `if` and `loop` on constants, branch- or iteration-invariant results,
  calls with constant arguments;
* `soacs`: `map`, `reduce`, `scan`, `filter` and `redomap` over small arrays of known
  constants evaluated at compile time (Note [Unrolling constant SOACs]), and SOACs
  over `empty` (Note [SOACs over empty]);
* and the `dce` pass's dead-op rule, since folding leaves dead ops behind (thesis 5.3:
  "if none of the names in pat are used, remove the binding").

One `PatternRewriteWalker` applies them all, dispatching on the op's class, until
nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.arith import OrIOp
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait

from l0.dialects import soac
from l0.passes.analysis.consumption import Consumption
from l0.passes.cores.erase_dead import EraseDeadOp
from l0.passes.cores.rewrite_walker import RewriteWalker
from l0.passes.simplify.arith import arith_patterns
from l0.passes.simplify.arrays import FoldIndex, FoldSize
from l0.passes.simplify.certs import CERTIFIED_OPS, PruneCerts
from l0.passes.simplify.control import (
    AssertHeldByBranch,
    FoldConstantCall,
    ForInvariantMerge,
    ForKnownTrips,
    IfConstant,
    IfDropUnusedResults,
    IfSameResult,
)
from l0.passes.simplify.disjunctions import ProveDisjunction
from l0.passes.simplify.soacs import SOAC_OPS, EmptySoac, UnrollConstantSoac

__all__ = ["SimplifyPass", "simplify_walker"]


class Dispatch(RewritePattern):
    """Erase the op if it is dead, else try the patterns registered for its class in
    order until one rewrites."""

    def __init__(self, dead: RewritePattern,
                 table: dict[type[Operation], list[RewritePattern]]) -> None:
        self.dead = dead
        self.table = table

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.dead.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            return
        for pattern in self.table.get(type(op), ()):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def _table(module: ModuleOp, walker: Callable[[], PatternRewriteWalker]
           ) -> dict[type[Operation], list[RewritePattern]]:
    table: dict[type[Operation], list[RewritePattern]] = {}

    def add(classes: tuple[type[Operation], ...], *patterns: RewritePattern) -> None:
        for c in classes:
            table.setdefault(c, []).extend(patterns)

    for pattern, classes in arith_patterns():
        add(classes, pattern)
    add((OrIOp,), ProveDisjunction())
    add(CERTIFIED_OPS, PruneCerts())
    for op_class in soac.SOAC.operations:  # the ops' own rewrites (canonicalisation)
        for trait in op_class.get_traits_of_type(HasCanonicalizationPatternsTrait):  # type: ignore[type-abstract]  # its concrete subclasses
            add((op_class,), *trait.get_patterns(op_class))
    consumed = Consumption(module).may_be_consumed
    add((soac.SizeOp,), FoldSize(consumed))
    add((soac.IndexOp,), FoldIndex(consumed))
    add((scf.IfOp,), IfConstant(), IfSameResult(), IfDropUnusedResults())
    add((soac.AssertOp,), AssertHeldByBranch())
    add((scf.ForOp,), ForKnownTrips(), ForInvariantMerge())
    add((func.CallOp,), FoldConstantCall(module, walker))
    add(SOAC_OPS, EmptySoac(), UnrollConstantSoac(module, walker, consumed))
    return table


def simplify_walker(module: ModuleOp) -> PatternRewriteWalker:
    """A walker applying every simplification rule to the functions of `module`."""
    dispatch = Dispatch(EraseDeadOp(module), {})
    # Constant calls are evaluated by a walker of their own over a copy of the callee.
    dispatch.table = _table(module, lambda: RewriteWalker(dispatch))
    return RewriteWalker(dispatch)


class SimplifyPass(ModulePass):
    """Copy/constant propagation, constant folding and algebraic simplification.

    Thesis 5.3 and the Accelerate seed's simplifier, as rewrite patterns applied until
    nothing changes:

    * every scalar op with constant operands is folded exactly as it would compute at
      run time (wrapping integers, IEEE reals); what would fail at run time (division
      by zero, a negative shift, `trunc` of NaN) is left to fail there;
    * identities (`x + 0`, `x * 1`, `x - x`, `x & x`, `1.0 * x`, `-0.0 + x`, ...),
      constants to the front of commutative operators and reassociation of integer
      `+ * & | ^` (`x + 1 + 2` -> `3 + x`); `not (a < b)` -> `a >= b`;
    * `if` on a constant becomes its branch, a check of its condition in its first
      branch holds; results equal in both branches are
      propagated; loops running zero or one times disappear; merge values the body
      passes on unchanged are propagated and dropped;
    * `size` of `iota`, `replicate`, literals, `reshape`, rows, and of arrays of known
      shape (`map` and `scan` outputs, copies, let-with results, loop merge values) is
      folded, minding the sizes of empty arrays;
    * indexing into `iota`, `replicate`, literals, rows (`b[j]` then `[i]`),
      `transpose`, `reshape` and `copy` is folded; the bounds checks stay;
    * `x || y` becomes true when `x` holds wherever `y` does not (`m = select(n != 0,
      m, 0) || n = 0`, a hoisted zip check of a map's rows);
    * `assert(True)` becomes `Checked`; `Checked` leaves cert lists and `conjoin`;
    * a call of a non-recursive function with constant arguments becomes the constants
      it returns, when its body simplifies to constants;
    * `map`, `reduce`, `scan`, `filter` and `redomap` over known constant arrays
      (`iota`, `replicate` or literals of constants) of at most 64 rows, with a
      lambda that cannot fail or print and reads only constants, are evaluated as
      the interpreter would (left folds); the SOAC becomes the constants, or a
      literal of them, when everything folds, and stays otherwise;
    * dead ops are erased as by `dce`.

    Before:
        %x = arith.constant 2 : i64
        %y = arith.constant 3 : i64
        %s = arith.addi %x, %y : i64
        %c = arith.cmpi slt, %s, %n : i64
        %t = arith.addi %a, %s : i64
    After:
        %0 = arith.constant 5 : i64
        %c = arith.cmpi slt, %0, %n : i64
        %t = arith.addi %0, %a : i64
    """

    name = "simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify_walker(op).rewrite_module(op)
