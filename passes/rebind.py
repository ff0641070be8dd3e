"""`rebind`: the thesis's Rebinder, hoisting and CSE in one traversal (thesis 6.3).

The 2014 compiler collected the bindings of a body into a "potentially hoistable set",
split it into what may leave the body (6.3.1) and what stays, and performed CSE while
re-inserting the bindings (6.3.2). In SSA the same happens in one walk of each
function: the CSE core (`l0.passes.cores.common_subexpressions.CseDriver`) visits ops
in program order with a scope per region; when it has finished the regions of a SOAC,
`scf.for` or `scf.if`, the hoisting core (`l0.passes.cores.hoisting.Hoister`) moves the
invariant ops out of them, and CSE visits the moved ops in the enclosing scope, where
they meet what is computed there already. So an invariant `a[i]` inside a `reduce`
leaves the lambda and merges with the `a[i]` computed before it (the `main` of thesis
6.3), and equal ops hoisted out of the two branches of an `if` merge into one.

The legality is that of the two passes: see `hoist` (invariance, prints, consumption,
failure, zero-trip loops, branches) and `cse` (prints, consumption, dominance).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from l0.passes.analysis.speculation import Speculation
from l0.passes.cores.common_subexpressions import CseDriver
from l0.passes.cores.hoisting import Hoister


def rebind(module: ModuleOp, aggressive: bool = False) -> int:
    """Hoist and CSE every function of `module` in one traversal; returns the number
    of ops replaced by CSE."""
    rewriter = PatternRewriter(InsertPoint.at_start(module.body.block))
    speculation = Speculation(module)
    hoister = Hoister(speculation, aggressive)
    driver = CseDriver(module, rewriter, lambda op: hoister.hoist(op, rewriter), speculation)
    return driver.run()


@dataclass(frozen=True)
class RebindPass(ModulePass):
    """Hoist invariant ops out of lambdas, loops and branches, and merge equal ops, in one walk.

    Thesis 6.3: the Rebinder. Each function is walked once in program order; equal ops
    are merged as in `cse` (commutative and sum-of-products forms, checks of the same
    condition, structural comparison of lambdas), and when the regions of a SOAC,
    `scf.for` or `scf.if` are done, what `hoist` may move out of them moves just before
    it and is merged there with what the enclosing scope already computes. Legality is
    that of `hoist` and `cse`: nothing that prints moves or merges, nothing whose array
    result is consumed is hoisted or shared, nothing that may fail leaves a branch, and
    a check leaves a loop that may run zero times only as `assert (c || empty)`.

    Options: `aggressive` (default false), as for `hoist`.

    Before (thesis 6.3):
        %i0 = soac.index %a[%i] : tensor<?xi64> -> i64
        %t0 = arith.muli %v, %i0 : i64
        %r = soac.reduce(%s = %t0 : i64) over(%x = %a : tensor<?xi64>) {
          %p = arith.addi %s, %x : i64
          %i1 = soac.index %a[%i] : tensor<?xi64> -> i64
          %t1 = arith.muli %v, %i1 : i64
          %q = arith.addi %p, %t1 : i64
          soac.yield %q : i64
        }
    After:
        %i0 = soac.index %a[%i] : tensor<?xi64> -> i64
        %t0 = arith.muli %v, %i0 : i64
        %r = soac.reduce(%s = %t0 : i64) over(%x = %a : tensor<?xi64>) {
          %p = arith.addi %s, %x : i64
          %q = arith.addi %p, %t0 : i64
          soac.yield %q : i64
        }
    """

    name = "rebind"

    aggressive: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rebind(op, self.aggressive)
