"""`size-hindrance`: rewrite `soac.size` to the best equal expression (thesis 9.1).

A `soac.size` of a SOAC's output is a *hindrance*: one more use of the output, which
stops fusion from removing the producer (thesis 9, Figure 37), and a size that depends on
a value computed in a loop or lambda cannot be hoisted out of it (9.1.3). Most sizes in
internal L0 come from the checks of 4.2 (zip sizes, bounds), so removing them is what
makes fusion and hoisting work in practice.

The size analysis of 9.1.1 knows, for an array defined by some op, expressions equal to
each of its dimensions in terms of the op's operands (`iota(n)` has n rows; the outputs
of a map have as many rows as its inputs; the rows of `b[i]` have the sizes of `b`'s
inner dimensions; ...). Following these equations from an array back towards the
function's parameters gives a set of equal expressions; the pass picks the one of the
highest *quality*: the longest data-flow path from its free values to a constant or a
parameter is the shortest, not counting copies and indexing (9.1). So in

    let b = map(f, a) in let c = map(g, b) in size(0, c)

`size(0, c)` becomes `size(0, a)`, not `size(0, b)` (Figure 38).

Note [Sizes of empty arrays]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The inner shape of an empty array is unknowable in L0: `size(k, a)` for k > 0 is 0 when
`a` has no rows (docs/reference.md §5, and the interpreter's Note [Empty arrays and
irregularity]: a dimension after a 0 counts as 0). So several equations of 9.1.1 hold
only when an outer size is non-zero: `size(1, replicate(n, v))` is `size(0, v)` only
when n > 0, and `size(1, map(f, a))` is the size of what `f` returns only when `a` has
rows. The analysis keeps such an equation exactly, as `nonzero(g, e)` ("e if g != 0,
else 0", an `arith.select`), and drops the guard where `e` is 0 whenever `g` is (e.g.
`size(1, b)` is 0 whenever `size(0, b)` is). For the same reason the inner sizes of a
concatenation are `max` of the operands' (an empty operand adopts the other's rows),
and the later dimensions of a transpose keep a guard for every dimension that moves in
front of them. No equation is used for `filter` outputs (their size depends on the data)
nor for the results of `reduce`/`redomap` or calls.

Note [Sizes of consumed arrays]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
9.1.1 gives `b with [i] <- v` the sizes of `b`, but `b` is consumed there, and a size of
it afterwards is a use after consumption (`verify-uniqueness` rejects it, and a back end
may have reused `b`'s memory). So a rewrite may take the size of an array only if no op
between the array's definition and the size op may consume it or an alias of it
(`l0.passes.analysis.consumption`); when the best expression fails that test, the pass falls
back to the best one that takes sizes of never-consumed arrays only. Sizes of a loop's
initial value inside its body are fine: the loop consumes it after the body's uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from l0.dialects import soac
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.shapes import Const, Dim, Val
from l0.passes.analysis.walk import contains_op
from l0.passes.cores.rewrite_walker import RewriteWalker
from l0.passes.size_hindrance.analysis import SizeAnalysis
from l0.passes.size_hindrance.expressions import (
    Add,
    Expr,
    Max,
    NonZero,
    Sub,
)

# ---------------------------------------------------------------------------------------
# Materialising an expression
# ---------------------------------------------------------------------------------------


@dataclass
class _Builder:
    """Builds the ops of an expression (they go before the size op they replace)."""

    certs: list[SSAValue]
    ops: list[Operation] = field(default_factory=list)

    def value(self, e: Expr) -> SSAValue:
        match e:
            case Val(value=v):
                return v
            case Const(value=c):
                return self._add(arith.ConstantOp.from_int_and_width(c, i64))
            case Dim(array=a, k=k):
                return self._add(soac.SizeOp(a, k, self.certs))
            case Add(left=x, right=y):
                return self._add(arith.AddiOp(self.value(x), self.value(y)))
            case Sub(left=x, right=y):
                return self._add(arith.SubiOp(self.value(x), self.value(y)))
            case Max(left=x, right=y):
                return self._add(arith.MaxSIOp(self.value(x), self.value(y)))
            case NonZero(guard=g, value=x):
                guard, then = self.value(g), self.value(x)
                zero = self._add(arith.ConstantOp.from_int_and_width(0, i64))
                cond = self._add(arith.CmpiOp(guard, zero, "ne"))
                return self._add(arith.SelectOp(cond, then, zero))

    def _add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]


# ---------------------------------------------------------------------------------------
# The pattern and the pass
# ---------------------------------------------------------------------------------------


class RewriteSizeToBest(RewritePattern):
    """`size(k, a)` -> the best expression equal to it, when it is better (9.1)."""

    def __init__(self, analysis: SizeAnalysis) -> None:
        self.analysis = analysis

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.SizeOp, rewriter: PatternRewriter) -> None:
        best = self.analysis.replacement(op)
        if best is None:
            return
        builder = _Builder(list(op.certs))
        value = builder.value(best)
        rewriter.replace(op, builder.ops, [value])


class SizeHindrancePass(ModulePass):
    """Rewrite `soac.size` to the highest-quality equal expression (size hindrances, thesis 9.1).

    A size of a SOAC's output is a use that blocks fusing the SOAC (a *hindrance*), and a
    size of a value computed in a loop or lambda cannot be hoisted out of it. The size
    analysis of 9.1.1 relates the sizes of an array to the operands of the op that
    defines it: `iota(n)` and `replicate(n, v)` have n rows, map and scan outputs as
    many rows as their inputs (and rows of the size the lambda yields, when that does
    not depend on the lambda), a row `b[i]` or a lambda's row parameter the inner sizes
    of `b`, `transpose` permuted sizes, `reshape` the given ones, `split(i, a)` i and
    `size(0, a) - i` rows, `concat` the sum, let-with and `copy` those of their source,
    an array literal its length, and a loop's merge value (or a fold's accumulator) the
    sizes of its initial value (neutral element) when every iteration keeps them, also
    through maps of maps over its rows, or over `iota(size(k, x))` of the merge
    parameter `x` (Notes [Keeping the accumulator's shape], [Sizes taken in the body]); an
    `if` result the size both branches give, or, when the branch taken where g is 0 is
    empty, that of the other where g is not 0 (Note [Branches on an empty size]). Of the
    expressions equal to `size(k, a)`, the pass picks the one whose free values have
    the shortest data-flow path to a constant or a parameter, not counting copies and
    indexing; equations that hold only for non-empty arrays are kept exact with a
    select (Note [Sizes of empty arrays]), and no size is taken of an array that may be
    consumed before (Note [Sizes of consumed arrays]). Never fires on `filter` outputs,
    whose size depends on the data.

        %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> { ... }
        %n = soac.size(0) %b : tensor<?xi64>
      becomes
        %n = soac.size(0) %a : tensor<?xi64>
    """

    name = "size-hindrance"

    REWRITES = (soac.SizeOp,)
    """The ops the pass rewrites: without them it changes nothing, and returns at once
    (Note [Passes known to change nothing] in `l0.passes.pipeline`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not contains_op(op, self.REWRITES):
            return  # the rule rewrites sizes only
        analysis = SizeAnalysis(Consumption(op))
        analysis.warm_up(op)
        # One walk: the ops a rewrite creates are already at their best.
        walker = RewriteWalker(RewriteSizeToBest(analysis), apply_recursively=False)
        walker.rewrite_module(op)
