"""Size expressions and their quality, for `size-hindrance` (thesis 9.1).

An `Expr` is a symbolic integer built from sizes of arrays (`Dim`), existing i64 values
(`Val`), constants, `+`, `-`, `max` and `nonzero(g, e)` ("e if g != 0, else 0",
Note [Sizes of empty arrays] in `l0.passes.size_hindrance`). The leaves are those of
`l0.passes.analysis.shapes` (Note [Two kinds of size expression]). The smart constructors
(`nonzero`, `add`, `sub`, `maximum`) simplify as they build. `Depths` measures the
quality of 9.1: the longest data-flow path from a value to a constant or a parameter,
not counting copies and indexing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.shapes import Const, Dim, Val

# ---------------------------------------------------------------------------------------
# Size expressions
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Binary:
    """An operator applied to two expressions; equal only to the same operator (the
    dataclass equality compares classes), so `Add(x, y) != Sub(x, y)`."""

    left: Expr
    right: Expr


class Add(Binary):
    """`left + right`."""


class Sub(Binary):
    """`left - right`."""


class Max(Binary):
    """`max(left, right)`."""


@dataclass(frozen=True)
class NonZero:
    """`value` when `guard` is non-zero, else 0 (Note [Sizes of empty arrays])."""

    guard: Expr
    value: Expr


Expr = Dim | Val | Const | Add | Sub | Max | NonZero


def free_values(e: Expr) -> list[SSAValue]:
    """The SSA values an expression refers to."""
    match e:
        case Dim(array=a):
            return [a]
        case Val(value=v):
            return [v]
        case Const():
            return []
        case Binary(left=x, right=y):
            return free_values(x) + free_values(y)
        case NonZero(guard=g, value=x):
            return free_values(g) + free_values(x)


def op_count(e: Expr) -> int:
    """How many ops materialising `e` creates (`nonzero` is a compare and a select)."""
    match e:
        case Val():
            return 0
        case Dim() | Const():
            return 1
        case Binary(left=x, right=y):
            return 1 + op_count(x) + op_count(y)
        case NonZero(guard=g, value=x):
            return 3 + op_count(g) + op_count(x)


def const_value(e: Expr) -> int | None:
    """The value of `e` when it is a constant (also an `arith.constant` operand)."""
    if isinstance(e, Const):
        return e.value
    return constant_int(e.value) if isinstance(e, Val) else None


def _zero_with(guard: Expr, e: Expr) -> bool:
    """Whether `e` is 0 whenever `guard` is 0 (so that `nonzero(guard, e)` is `e`)."""
    if guard == e:
        return True
    match guard, e:
        case Dim(array=a, k=j), Dim(array=b, k=k):
            return a is b and j < k  # a dimension after a 0 counts as 0
        case _, NonZero(guard=g, value=x):
            return _zero_with(guard, g) or _zero_with(guard, x)
        case _, Max(left=x, right=y):
            return _zero_with(guard, x) and _zero_with(guard, y)
        case _:
            return False


def nonzero(guard: Expr, e: Expr) -> Expr:
    """`nonzero(guard, e)`, simplified."""
    g = const_value(guard)
    if g is not None:
        return e if g != 0 else Const(0)
    if const_value(e) == 0 or _zero_with(guard, e):
        return e
    return NonZero(guard, e)


def add(x: Expr, y: Expr) -> Expr:
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None:
        return Const(cx + cy)
    return y if cx == 0 else x if cy == 0 else Add(x, y)


def sub(x: Expr, y: Expr) -> Expr:
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None:
        return Const(cx - cy)
    return x if cy == 0 else Const(0) if x == y else Sub(x, y)


def maximum(x: Expr, y: Expr) -> Expr:
    if x == y or const_value(y) == 0:
        return x
    return y if const_value(x) == 0 else Max(x, y)


# ---------------------------------------------------------------------------------------
# Quality (thesis 9.1): the longest data-flow path to a constant or a parameter
# ---------------------------------------------------------------------------------------


_TRANSPARENT = (soac.CopyOp, soac.IndexOp)
"""Ops that do not count in the quality of a value (9.1: "copies or indexing")."""


def _dependencies(v: SSAValue) -> tuple[Operation | None, list[SSAValue]]:
    """The op that computes `v` (for a block argument: the op owning the region; None
    for a function parameter) and the values it is computed from."""
    if isinstance(v, OpResult):
        return v.op, list(v.op.operands)
    assert isinstance(v, BlockArgument)
    owner = v.block.parent_op()
    if owner is None or isinstance(owner, func.FuncOp):
        return None, []
    return owner, list(owner.operands)


@dataclass
class Depths:
    """The quality of values, memoised: (path length not counting copies and indexing,
    path length counting everything). Lower is better; parameters and constants are 0."""

    memo: dict[SSAValue, tuple[int, int]] = field(default_factory=dict)

    def of(self, value: SSAValue) -> tuple[int, int]:
        # Iterative post-order: chains of definitions are as long as the program.
        stack = [value]
        while stack:
            v = stack[-1]
            if v in self.memo:
                stack.pop()
                continue
            op, deps = _dependencies(v)
            pending = [d for d in deps if d not in self.memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            if op is None or not deps:
                self.memo[v] = (0, 0)
                continue
            depth = max(self.memo[d][0] for d in deps)
            raw = max(self.memo[d][1] for d in deps)
            transparent = isinstance(op, _TRANSPARENT) and isinstance(v, OpResult)
            self.memo[v] = (depth + (0 if transparent else 1), raw + 1)
        return self.memo[value]

    def cost(self, e: Expr) -> tuple[int, int, int]:
        """The quality of an expression: its worst free value, then how many ops it needs."""
        depths = [self.of(v) for v in free_values(e)]
        return (
            max((d for d, _ in depths), default=0),
            max((r for _, r in depths), default=0),
            op_count(e),
        )
