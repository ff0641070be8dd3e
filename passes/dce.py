"""`dce`: erase dead operations, keeping every one that may fail or print (thesis 5.3).

The thesis's simplifier removes a `let` binding none of whose names is used
(chapter 5.3, "let pat = e in body"); in SSA that is an operation none of whose
results is used. Unlike xDSL's generic `dce`, which trusts the effect traits alone,
this pass knows which L0 operations observably do something besides computing their
results, and keeps those even when nothing uses them (docs/reference.md §5: checks are
raised even if the value is unused):

* `soac.assert` (it may fail) and `soac.trace` (it prints);
* an op the interpreter can fail on without an assert guarding it (an irregular
  array, a shift, division, `fptosi` or `ipowi` not known to be safe);
* a call of a function that may do either, and an op with regions any of whose
  nested ops has effects.

Everything else (arithmetic, `soac.index`, `soac.iota`, a SOAC with a pure lambda,
a call of a pure function, a loop whose body is pure) is erased when unused.
Non-termination is not an effect: a dead call of a pure recursive function goes,
as it did in the 2014 compiler.

The effect analysis is `l0.passes.analysis.effects`, and the pattern that erases
(which `simplify` runs too) `l0.passes.cores.erase_dead.EraseDeadOp`.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from l0.passes.cores.erase_dead import EraseDeadOp
from l0.passes.cores.rewrite_walker import RewriteWalker


class DcePass(ModulePass):
    """Erase operations whose results are unused, keeping every one that may fail or print.

    An op goes when none of its results is used and it has no effects (thesis 5.3:
    a binding none of whose names is used is removed). `soac.assert` and `soac.trace`
    always stay, and so does anything the interpreter could fail on: a literal,
    `concat`, `map` or `scan` that may build an irregular array, an integer shift,
    division or `ipowi` whose count, divisor or exponent is not a known safe constant,
    `fptosi` of a real not known to be in range, and calls of functions containing
    any of these. An op with regions goes only if all its nested ops could.

    Before:
        %n = soac.size(0) %a : tensor<?xi64>
        %c = soac.assert %ok, "assertion failed" at "p.l0:2:9"
        %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
        func.return %n : i64
    After:
        %n = soac.size(0) %a : tensor<?xi64>
        %c = soac.assert %ok, "assertion failed" at "p.l0:2:9"
        func.return %n : i64
    """

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        RewriteWalker(EraseDeadOp(op), walk_reverse=True).rewrite_module(op)
