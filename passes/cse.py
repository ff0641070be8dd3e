"""`cse`: common subexpression elimination for soac IR (thesis 6.2, 6.3.3).

An op that computes what an op before it (in the same block or an enclosing one, so it
has already run) computed is replaced by that op's results, and erased; ops that this
leaves unused are erased too. What counts as equal (commutative operands, sum-of-products
forms of integer arithmetic, structural comparison of regions, checks of the same
condition) and what may never merge (prints, consumption) is the CSE core's business
(`l0.passes.cores.common_subexpressions`, which `rebind` shares). `CsePass` shows an
example.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from l0.passes.cores.common_subexpressions import cse


@dataclass(frozen=True)
class CsePass(ModulePass):
    """Merge ops that compute the same value, with commutative and sum-of-products normal forms.

    Thesis 6.2 and 6.3.3. An op equal to one that has already run (earlier in its block
    or in an enclosing one) is replaced by it: `x*y` meets `y*x`, integer `+ - *`
    expressions meet when their sum-of-products forms agree (`(a+b)+c` and `c+(a+b)`,
    `(x+y)-y` and `x`), source locations are ignored, lambdas and branches compare
    structurally, and a `soac.assert` meets an earlier one of the same condition (the
    earlier one, with its message and location, is kept). Never merged: ops that print
    (`trace`), ops that consume an array, and ops whose array result may be consumed
    (two fresh arrays must stay two buffers). Ops left unused are erased.

    Before:
        %p = arith.muli %x, %y : i64
        %q = arith.muli %y, %x : i64
        %s = arith.addi %p, %q : i64
    After:
        %p = arith.muli %x, %y : i64
        %s = arith.addi %p, %p : i64
    """

    name = "cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cse(op)
