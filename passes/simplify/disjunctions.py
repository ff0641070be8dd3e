"""Disjunctions that always hold: `x || y` is true when `x` is true wherever `y` is false.

The zip check of a SOAC's lambda, hoisted out of it, reads
`size(a) = size(b) || n = 0` (the check ran only if the SOAC had rows), and
size-hindrance writes the size of a row of a map's output as
`select(n != 0, m, 0)` (an empty map's rows have no size but 0). Then the check is
`m = select(n != 0, m, 0) || n = 0`: under `n != 0` (the right side false) the select
is `m` and the left side `m = m`. No rule on one op proves it, and the check, left in
place, blocks fusion (a check between producer and consumer that may fail). See
Note [Assuming the other side].

Note [Assuming the other side]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`x || y` equals `x' || y`, where `x'` is `x` evaluated knowing `y` false: where `y` is
true, both are true whatever `x` is. So `x` is evaluated symbolically under the facts
`y` gives when false (`y` itself false; for `a = b`: `a != b` true, and so on for each
comparison with its negation and its operands swapped; for `y1 || y2`: both false),
with `select`s whose condition the facts decide taken through, and a comparison of a
value with itself decided (`a = a`, `a <= a` true; `a != a`, `a < a` false). If that
gives true, the disjunction is the constant true. Evaluating a condition cannot fail or
print, so nothing else changes; the evaluation looks at most a few ops deep.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i1
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from l0.passes.analysis.constants import constant_int
from l0.passes.simplify.common import replace_by_constant

DEPTH = 6
"""How many ops deep the symbolic evaluation looks."""

_NEGATED = {0: 1, 1: 0, 2: 5, 5: 2, 3: 4, 4: 3, 6: 9, 9: 6, 7: 8, 8: 7}
"""cmpi predicate -> the predicate of its negation (eq/ne, slt/sge, sle/sgt, ult/uge,
ule/ugt)."""

_SWAPPED = {0: 0, 1: 1, 2: 4, 4: 2, 3: 5, 5: 3, 6: 8, 8: 6, 7: 9, 9: 7}
"""cmpi predicate -> the predicate with the operands swapped."""

_REFLEXIVE = {0: True, 1: False, 2: False, 3: True, 4: False, 5: True,
              6: False, 7: True, 8: False, 9: True}
"""cmpi predicate -> its value on two equal operands."""

Comparison = tuple[int, SSAValue, SSAValue]


def _comparison(v: SSAValue) -> Comparison | None:
    op = v.owner
    if isinstance(op, arith.CmpiOp):
        return op.predicate.value.data, op.lhs, op.rhs
    return None


class Facts:
    """What is known about i1 values: the values themselves, and comparisons (by
    predicate and operands, so that another op computing the same comparison is
    known too)."""

    def __init__(self) -> None:
        self.values: dict[SSAValue, bool] = {}
        self.comparisons: dict[Comparison, bool] = {}

    def assume(self, v: SSAValue, holds: bool, depth: int = DEPTH) -> None:
        """Record that `v` is `holds`, and what follows from it."""
        self.values[v] = holds
        cmp = _comparison(v)
        if cmp is not None:
            pred, a, b = cmp
            if pred in _NEGATED:
                for p, x, y in ((pred, a, b), (_SWAPPED[pred], b, a)):
                    self.comparisons[(p, x, y)] = holds
                    self.comparisons[(_NEGATED[p], x, y)] = not holds
            return
        op = v.owner
        if depth and not holds and isinstance(op, arith.OrIOp):
            self.assume(op.lhs, False, depth - 1)
            self.assume(op.rhs, False, depth - 1)
        elif depth and holds and isinstance(op, arith.AndIOp):
            self.assume(op.lhs, True, depth - 1)
            self.assume(op.rhs, True, depth - 1)

    def resolve(self, v: SSAValue, depth: int = DEPTH) -> SSAValue:
        """`v`, through `select`s whose condition the facts decide."""
        while depth and isinstance(v.owner, arith.SelectOp):
            cond = self.evaluate(v.owner.cond, depth - 1)
            if cond is None:
                break
            v = v.owner.lhs if cond else v.owner.rhs
            depth -= 1
        return v

    def evaluate(self, v: SSAValue, depth: int = DEPTH) -> bool | None:
        """The value of the i1 `v` under the facts (None: not known)."""
        if v in self.values:
            return self.values[v]
        c = constant_int(v)
        if c is not None:
            return bool(c)
        if not depth:
            return None
        op = v.owner
        cmp = _comparison(v)
        if cmp is not None:
            pred, a, b = cmp
            if cmp in self.comparisons:
                return self.comparisons[cmp]
            a, b = self.resolve(a, depth - 1), self.resolve(b, depth - 1)
            if a is b and pred in _REFLEXIVE:
                return _REFLEXIVE[pred]
            return self.comparisons.get((pred, a, b))
        if isinstance(op, arith.OrIOp | arith.AndIOp):
            sides = (self.evaluate(op.lhs, depth - 1), self.evaluate(op.rhs, depth - 1))
            absorbing = isinstance(op, arith.OrIOp)
            if absorbing in sides:
                return absorbing
            return None if None in sides else not absorbing
        if isinstance(op, arith.SelectOp):
            r = self.resolve(v, depth)
            return None if r is v else self.evaluate(r, depth - 1)
        return None


def holds_unless(x: SSAValue, y: SSAValue) -> bool:
    """Whether `x` is true wherever `y` is false (Note [Assuming the other side])."""
    facts = Facts()
    facts.assume(y, False)
    return facts.evaluate(x) is True


class ProveDisjunction(RewritePattern):
    """`x || y` -> `true` when `x` holds wherever `y` does not, or `y` wherever `x` does
    not (Note [Assuming the other side])."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.OrIOp) or op.result.type != i1:
            return
        if constant_int(op.lhs) is not None or constant_int(op.rhs) is not None:
            return  # the identities fold it
        if holds_unless(op.lhs, op.rhs) or holds_unless(op.rhs, op.lhs):
            replace_by_constant(rewriter, op, 1)
