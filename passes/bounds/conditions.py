"""The conditions of checks, as conjunctions of affine comparisons (for `bounds`).

A bounds check built by the internaliser is `assert (0 <= i && i < size(0, a))`, a
zip check `assert (size(0, r) = size(0, b))`: conjunctions (`arith.andi` trees) of
integer comparisons. `leaves(cond)` lists the conjuncts; `Atom.of` reads one as
`lhs pred rhs` with affine sides (`l0.passes.bounds.ranges`), `pred` one of `sle`,
`slt`, `eq`, `ne` (`sgt`/`sge` are turned around), or `true` for the constant; any
other conjunct is an atom with `pred` None, which nothing can prove or move.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i1, i64
from xdsl.ir import SSAValue

from l0.passes.bounds.ranges import Affine, Facts, Ranges

_PREDICATES = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge"}
_TURNED = {"sgt": "slt", "sge": "sle"}


def leaves(cond: SSAValue) -> list[SSAValue]:
    """The conjuncts of the i1 value `cond` (through `arith.andi`), in order, once each."""
    out: list[SSAValue] = []
    stack = [cond]
    while stack:
        v = stack.pop()
        op = v.owner
        if isinstance(op, arith.AndIOp) and v.type == i1:
            stack.extend((op.rhs, op.lhs))
        elif v not in out:
            out.append(v)
    return out


@dataclass(frozen=True)
class Atom:
    """One conjunct: `lhs pred rhs`; `pred` is None when it is not such a comparison."""

    value: SSAValue
    pred: str | None
    lhs: Affine
    rhs: Affine

    @staticmethod
    def of(leaf: SSAValue, ranges: Ranges) -> Atom:
        op = leaf.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return Atom(leaf, "true" if op.value.value.data else None, Affine(), Affine())
        if not isinstance(op, arith.CmpiOp) or op.lhs.type != i64:
            return Atom(leaf, None, Affine(), Affine())
        pred = _PREDICATES.get(op.predicate.value.data)
        if pred is None:
            return Atom(leaf, None, Affine(), Affine())
        lhs, rhs = ranges.affine(op.lhs), ranges.affine(op.rhs)
        if pred in _TURNED:
            return Atom(leaf, _TURNED[pred], rhs, lhs)
        return Atom(leaf, pred, lhs, rhs)

    def slack(self) -> Affine:
        """For `sle`/`slt`: the form that is >= 0 exactly when the atom holds."""
        d = self.rhs - self.lhs
        return d.plus(-1) if self.pred == "slt" else d

    def proved(self, ranges: Ranges, facts: Facts | None = None) -> bool:
        """Whether the atom holds wherever it is evaluated; `facts`: what holds there
        (`Ranges.facts_at`)."""
        if self.pred == "true":
            return True
        if self.pred is None:
            return False
        d = self.rhs - self.lhs
        if self.pred == "eq":
            return d == Affine()  # equal in the ring: equal as i64 values
        if not (ranges.exact(self.lhs, facts) and ranges.exact(self.rhs, facts)):
            return False  # Note [Overflow]
        if self.pred == "ne":
            return (ranges.nonneg(d.plus(-1), facts)
                    or ranges.nonneg(d.scale(-1).plus(-1), facts))
        return ranges.nonneg(self.slack(), facts)
