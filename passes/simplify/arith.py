"""Scalar rules of `simplify`: constant folding, algebraic simplification and
reassociation (thesis 5.3; the Accelerate seed's "constant folding", "algebraic
simplification" and "algebraic reassociation").

Folding computes exactly what the interpreter would at run time (Note [Exact
folding]); algebra is applied only where it is exact: on integers (wrapping i64,
i1, i32) every identity below holds, and `+ * & | ^` are associative and
commutative, so constants are moved to the front of those operators and combined
(`x + 1 + 2` -> `1 + x + 2` -> `3 + x`); on reals only identities that hold for
every double, NaN, infinities and -0.0 included (`x * 1.0`, `x / 1.0`, `x + -0.0`,
`x - 0.0`, `--x`), and constants move to the front of `+` and `*`, which are
commutative in IEEE arithmetic, but nothing is reassociated.

Note [Exact folding]
~~~~~~~~~~~~~~~~~~~~
What fails at run time is never folded, so it still fails at run time with its own
message: an integer division or remainder by zero (its `soac.assert` reports it),
a shift by a negative count, `fptosi` of NaN, an infinity or an out-of-range real,
`ipowi` with a negative exponent. Integers wrap to their width as the interpreter's
do; `floordivsi` floors, `divsi` and `remsi` truncate; shifts by 64 or more shift
every bit out. Reals are Python floats, i.e. IEEE doubles rounded as at run time;
where Python raises (division by zero, `sqrt(-1)`, `log(0)`, overflow in `exp` or
`pow`) the IEEE result is taken from numpy: the real functions are `l0.scalars`', which
the interpreter runs, so the two cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import f64, i1
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from l0.passes.analysis.constants import constant_float, constant_int
from l0.passes.simplify.common import (
    make_constant,
    replace_by_constant,
    same_constant,
    signed,
    width_of,
    wrap,
)
from l0.scalars import UNARY_REAL, divf, powf

# ---------------------------------------------------------------------------------------
# Integer semantics (Note [Exact folding]); None means "do not fold"
# ---------------------------------------------------------------------------------------


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _shl(a: int, b: int, w: int) -> int | None:
    return None if b < 0 else (wrap(a << b, w) if b < w else 0)


def _shrs(a: int, b: int, w: int) -> int | None:
    return None if b < 0 else a >> min(b, w - 1)


def _shru(a: int, b: int, w: int) -> int | None:
    return None if b < 0 else (wrap((a & ((1 << w) - 1)) >> b, w) if b < w else 0)


def _floordiv(a: int, b: int, w: int) -> int | None:
    return None if b == 0 else wrap(a // b, w)


def _divsi(a: int, b: int, w: int) -> int | None:
    return None if b == 0 else wrap(_trunc_div(a, b), w)


def _remsi(a: int, b: int, w: int) -> int | None:
    return None if b == 0 else wrap(a - b * _trunc_div(a, b), w)


def _ipow(a: int, k: int, w: int) -> int | None:
    if k < 0:
        return None
    m = 1 << w
    return wrap(pow(a, k, m), w)


# On widths > 1, with signed operands.
_INT_BINARY: dict[str, Callable[[int, int, int], int | None]] = {
    "arith.addi": lambda a, b, w: wrap(a + b, w),
    "arith.subi": lambda a, b, w: wrap(a - b, w),
    "arith.muli": lambda a, b, w: wrap(a * b, w),
    "arith.andi": lambda a, b, w: a & b,
    "arith.ori": lambda a, b, w: a | b,
    "arith.xori": lambda a, b, w: a ^ b,
    "arith.maxsi": lambda a, b, w: max(a, b),
    "arith.minsi": lambda a, b, w: min(a, b),
    "arith.shli": _shl,
    "arith.shrsi": _shrs,
    "arith.shrui": _shru,
    "arith.floordivsi": _floordiv,
    "arith.divsi": _divsi,
    "arith.remsi": _remsi,
    "math.ipowi": _ipow,
}

# On i1, with operands 0 or 1.
_BOOL_BINARY: dict[str, Callable[[int, int], int]] = {
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.addi": lambda a, b: a ^ b,
    "arith.subi": lambda a, b: a ^ b,
    "arith.muli": lambda a, b: a & b,
    # signed, true (-1) is the smaller
    "arith.maxsi": lambda a, b: a & b,
    "arith.minsi": lambda a, b: a | b,
}

# arith.cmpi predicates by number: (compare signed?, Python comparison).
_CMPI: dict[int, tuple[bool, Callable[[int, int], bool]]] = {
    0: (True, lambda a, b: a == b),
    1: (True, lambda a, b: a != b),
    2: (True, lambda a, b: a < b),
    3: (True, lambda a, b: a <= b),
    4: (True, lambda a, b: a > b),
    5: (True, lambda a, b: a >= b),
    6: (False, lambda a, b: a < b),
    7: (False, lambda a, b: a <= b),
    8: (False, lambda a, b: a > b),
    9: (False, lambda a, b: a >= b),
}
_CMPI_NEGATED = {0: 1, 1: 0, 2: 5, 3: 4, 4: 3, 5: 2, 6: 9, 7: 8, 8: 7, 9: 6}
_CMPI_REFLEXIVE = {0: True, 1: False, 2: False, 3: True, 4: False, 5: True,
                   6: False, 7: True, 8: False, 9: True}

# arith.cmpf predicates by number, as the interpreter evaluates them.
_CMPF: dict[int, Callable[[float, float], bool]] = {
    0: lambda a, b: False,
    1: lambda a, b: a == b,
    2: lambda a, b: a > b,
    3: lambda a, b: a >= b,
    4: lambda a, b: a < b,
    5: lambda a, b: a <= b,
    6: lambda a, b: a < b or a > b,
    7: lambda a, b: a == a and b == b,
    8: lambda a, b: not (a < b or a > b),
    9: lambda a, b: not (a <= b),
    10: lambda a, b: not (a < b),
    11: lambda a, b: not (a >= b),
    12: lambda a, b: not (a > b),
    13: lambda a, b: a != b,
    14: lambda a, b: a != a or b != b,
    15: lambda a, b: True,
}
# The negation of an ordered predicate is the unordered opposite (and vice versa):
# false/true, oeq/une, ogt/ule, oge/ult, olt/uge, ole/ugt, one/ueq, ord/uno.
_CMPF_NEGATED = {0: 15, 1: 13, 2: 12, 3: 11, 4: 10, 5: 9, 6: 8, 7: 14}
_CMPF_NEGATED |= {v: k for k, v in _CMPF_NEGATED.items()}

# ---------------------------------------------------------------------------------------
# Real semantics (Note [Exact folding])
# ---------------------------------------------------------------------------------------


_REAL_BINARY: dict[str, Callable[[float, float], float]] = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": divf,
    "math.powf": powf,
}

_REAL_UNARY: dict[str, Callable[[float], float]] = {
    "arith.negf": lambda a: -a,
    "math.absf": abs,
    "math.sqrt": UNARY_REAL["math.sqrt"][0],
    "math.exp": UNARY_REAL["math.exp"][0],
    "math.log": UNARY_REAL["math.log"][0],
}

# ---------------------------------------------------------------------------------------
# Constant folding
# ---------------------------------------------------------------------------------------


def fold_binary(op: Operation) -> int | float | None:
    """The constant value of the binary arith/math op `op`, or None."""
    if len(op.operands) != 2 or len(op.results) != 1:
        return None
    lhs, rhs = op.operands
    name = op.name
    if name in _REAL_BINARY:
        a, b = constant_float(lhs), constant_float(rhs)
        if a is None or b is None:
            return None
        return _REAL_BINARY[name](a, b)
    if isinstance(op, arith.CmpfOp):
        a, b = constant_float(lhs), constant_float(rhs)
        if a is None or b is None:
            return None
        return int(_CMPF[op.predicate.value.data](a, b))
    x, y = constant_int(lhs), constant_int(rhs)
    w = width_of(lhs.type)
    if x is None or y is None or w is None:
        return None
    if isinstance(op, arith.CmpiOp):
        is_signed, cmp = _CMPI[op.predicate.value.data]
        if is_signed:
            return int(cmp(signed(x, w), signed(y, w)))
        return int(cmp(x & ((1 << w) - 1), y & ((1 << w) - 1)))
    return combine(name, x, y, w)


def fold_unary(op: Operation) -> int | float | None:
    """The constant value of a unary arith/math op (including conversions), or None."""
    if len(op.operands) != 1 or len(op.results) != 1:
        return None
    v = op.operands[0]
    name = op.name
    if name in _REAL_UNARY:
        a = constant_float(v)
        return None if a is None else _REAL_UNARY[name](a)
    if name == "arith.sitofp":
        x, w = constant_int(v), width_of(v.type)
        return None if x is None or w is None else float(signed(x, w))
    if name == "arith.fptosi":
        a, w = constant_float(v), width_of(op.results[0].type)
        if a is None or w is None or w == 1:
            return None
        lo, hi = -(1 << (w - 1)), 1 << (w - 1)
        return int(a) if lo <= a < hi else None
    if name in ("arith.extsi", "arith.trunci"):
        x, w = constant_int(v), width_of(v.type)
        return None if x is None or w is None else signed(x, w)
    if name == "arith.extui":
        x, w = constant_int(v), width_of(v.type)
        return None if x is None or w is None else x & ((1 << w) - 1)
    return None


def combine(name: str, a: int, b: int, width: int) -> int | None:
    """`a op b` for the integer op named `name` (constants as `constant_int` gives
    them), or None where it would fail at run time."""
    if width == 1:
        fn = _BOOL_BINARY.get(name)
        return None if fn is None else fn(a, b)
    fn2 = _INT_BINARY.get(name)
    return None if fn2 is None else fn2(a, b, width)


class FoldConstantOp(RewritePattern):
    """`2 + 3` -> `5`: an arith/math op whose operands are all constants becomes the
    constant it computes (Note [Exact folding])."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        operands = op._operands  # the op's own tuple; `op.operands` builds a view
        # Only constants fold (every rule reads its operands with `constant_int` or
        # `constant_float`): rejecting the rest first is the common, cheap case.
        if not operands or any(type(v.owner) is not arith.ConstantOp for v in operands):
            return
        if isinstance(op, arith.ConstantOp) or len(op.results) != 1:
            return
        t = op.results[0].type
        if t != f64 and width_of(t) is None:
            return  # l0 has f64 reals only; other types are left alone
        value = fold_unary(op) if len(op.operands) == 1 else fold_binary(op)
        if value is not None:
            replace_by_constant(rewriter, op, value)


class FoldSelect(RewritePattern):
    """`select(true, a, b)` -> `a`; `select(c, a, a)` -> `a`; on booleans
    `select(c, true, false)` -> `c` and `select(c, false, true)` -> `not c`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.SelectOp):
            return
        c = constant_int(op.cond)
        if c is not None:
            rewriter.replace(op, [], [op.lhs if c else op.rhs])
            return
        if same_constant(op.lhs, op.rhs):
            rewriter.replace(op, [], [op.lhs])
            return
        if op.result.type != i1:
            return
        t, f = constant_int(op.lhs), constant_int(op.rhs)
        if t == 1 and f == 0:
            rewriter.replace(op, [], [op.cond])
        elif t == 0 and f == 1:
            true = make_constant(1, i1)
            rewriter.replace(op, [true, arith.XOrIOp(op.cond, true)])


# ---------------------------------------------------------------------------------------
# Algebraic simplification
# ---------------------------------------------------------------------------------------

_COMMUTATIVE_INT = {"arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
                    "arith.maxsi", "arith.minsi"}
_COMMUTATIVE_REAL = {"arith.addf", "arith.mulf"}
_ASSOCIATIVE_INT = {"arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori"}
# Each class is built from its two operands.
_INT_OP_CLASSES: dict[str, Callable[[SSAValue | Operation, SSAValue | Operation], Operation]] = {
    "arith.addi": arith.AddiOp, "arith.muli": arith.MuliOp, "arith.andi": arith.AndIOp,
    "arith.ori": arith.OrIOp, "arith.xori": arith.XOrIOp, "arith.subi": arith.SubiOp,
}


def _is_const(v: SSAValue) -> bool:
    return type(v.owner) is arith.ConstantOp  # `isinstance` on op classes (ABCs) is slow


class ConstantsToFront(RewritePattern):
    """`x + 1` -> `1 + x`: a constant operand of a commutative operator goes first, so
    that reassociation finds it (the Accelerate seed's algebraic reassociation)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name not in _COMMUTATIVE_INT and op.name not in _COMMUTATIVE_REAL:
            return
        lhs, rhs = op._operands
        if _is_const(rhs) and not _is_const(lhs):
            op.operands = [rhs, lhs]
            rewriter.notify_op_modified(op)


def _int_identity(op: Operation) -> SSAValue | int | None:
    """What an integer op simplifies to by an algebraic identity: an operand, a
    constant, or None. Constants are already in front of commutative operators."""
    lhs, rhs = op.operands
    w = width_of(op.results[0].type)
    if w is None:
        return None
    a, b = constant_int(lhs), constant_int(rhs)
    all_ones = 1 if w == 1 else -1
    name = op.name
    if name == "arith.addi" or name == "arith.ori" or name == "arith.xori":
        if a == 0:
            return rhs
    if name == "arith.muli" or name == "arith.andi":
        if a == 0:
            return 0
    if name == "arith.muli" and a == 1 and w > 1:
        return rhs
    if name == "arith.andi" and a == all_ones:
        return rhs
    if name == "arith.ori" and a == all_ones:
        return all_ones
    if lhs is rhs:
        if name in ("arith.andi", "arith.ori", "arith.maxsi", "arith.minsi"):
            return lhs
        if name in ("arith.xori", "arith.subi"):
            return 0
    if name in ("arith.subi", "arith.shli", "arith.shrsi", "arith.shrui") and b == 0:
        return lhs
    if name in ("arith.floordivsi", "arith.divsi") and b == 1 and w > 1:
        return lhs
    if name == "arith.remsi" and b in (1, -1) and w > 1:
        return 0
    return None


class IntIdentities(RewritePattern):
    """`x + 0`, `x * 1`, `x - 0`, `x / 1`, `x & -1`, `x | 0`, `x ^ 0`, `x << 0` -> `x`;
    `x * 0`, `x & 0`, `x - x`, `x ^ x`, `x % 1` -> `0`; `x & x`, `x | x` -> `x`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        operands = op._operands
        if len(operands) != 2 or len(op.results) != 1 or not op.name.startswith("arith."):
            return
        lhs, rhs = operands
        # Every identity needs a constant operand or both operands the same value.
        if lhs is not rhs and not _is_const(lhs) and not _is_const(rhs):
            return
        if isinstance(op, arith.CmpiOp):
            if op.lhs is op.rhs:
                replace_by_constant(rewriter, op, int(_CMPI_REFLEXIVE[op.predicate.value.data]))
            return
        r = _int_identity(op)
        if r is None:
            return
        if isinstance(r, SSAValue):
            rewriter.replace(op, [], [r])
        else:
            replace_by_constant(rewriter, op, r)


class NegateComparison(RewritePattern):
    """`not (a < b)` -> `a >= b`: `xori(cmp, true)` becomes the negated comparison (for
    reals the ordered/unordered opposite, exact with NaN)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.XOrIOp) or op.result.type != i1:
            return
        if constant_int(op.lhs) != 1:
            return
        cmp = op.rhs.owner
        if isinstance(cmp, arith.CmpiOp):
            p = _CMPI_NEGATED[cmp.predicate.value.data]
            rewriter.replace(op, arith.CmpiOp(cmp.lhs, cmp.rhs, p))
        elif isinstance(cmp, arith.CmpfOp):
            p = _CMPF_NEGATED[cmp.predicate.value.data]
            rewriter.replace(op, arith.CmpfOp(cmp.lhs, cmp.rhs, p))


class SubToAdd(RewritePattern):
    """`x - c` -> `(-c) + x`, `c1 - (c2 + x)` -> `(c1 - c2) - x` and
    `c1 + (c2 - x)` -> `(c1 + c2) - x`, `0 - (0 - x)` -> `x` (integers, wrapping)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) is not arith.SubiOp and type(op) is not arith.AddiOp:
            return
        lhs, rhs = op._operands
        if not _is_const(lhs) and not _is_const(rhs):
            return  # every rule needs a constant operand
        t = op.result.type
        w = width_of(t)
        if w is None or w == 1:
            return
        a, b = constant_int(lhs), constant_int(rhs)
        if isinstance(op, arith.SubiOp) and b is not None and a is None:
            c = make_constant(-b, t)
            rewriter.replace(op, [c, arith.AddiOp(c, op.lhs)])
            return
        if a is None:
            return
        inner = op.rhs.owner
        if not isinstance(inner, arith.AddiOp | arith.SubiOp):
            return
        ic = constant_int(inner.lhs)
        if ic is None:
            return
        x = inner.rhs
        if isinstance(op, arith.SubiOp) and isinstance(inner, arith.SubiOp):
            if a == 0 and ic == 0:  # -(-x)
                rewriter.replace(op, [], [x])
            else:  # c1 - (c2 - x) = (c1 - c2) + x
                c = make_constant(a - ic, t)
                rewriter.replace(op, [c, arith.AddiOp(c, x)])
        elif isinstance(op, arith.SubiOp):  # c1 - (c2 + x) = (c1 - c2) - x
            c = make_constant(a - ic, t)
            rewriter.replace(op, [c, arith.SubiOp(c, x)])
        elif isinstance(inner, arith.SubiOp):  # c1 + (c2 - x) = (c1 + c2) - x
            c = make_constant(a + ic, t)
            rewriter.replace(op, [c, arith.SubiOp(c, x)])


class Reassociate(RewritePattern):
    """For `+ * & | ^` on integers: `c1 + (c2 + x)` -> `(c1 + c2) + x`, and a constant
    inside a single-use operand moves out, `(c + x) + y` -> `c + (x + y)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        name = op.name
        if name not in _ASSOCIATIVE_INT:
            return
        lhs, rhs = op._operands
        cls = _INT_OP_CLASSES[name]
        t = op.results[0].type
        w = width_of(t)
        if w is None:
            return
        a = constant_int(lhs)
        inner = rhs.owner
        if a is not None:
            if not isinstance(inner, Operation) or inner.name != name:
                return
            b = constant_int(inner.operands[0])
            value = None if b is None else combine(name, a, b, w)
            if value is not None:
                c = make_constant(value, t)
                rewriter.replace(op, [c, cls(c, inner.operands[1])])
            return
        for mine, other in ((lhs, rhs), (rhs, lhs)):
            o = mine.owner
            # a block has no `name`: the name test first, as `isinstance` is slow
            if (getattr(o, "name", None) == name and isinstance(o, Operation)
                    and mine.has_one_use() and _is_const(o.operands[0])):
                rest = cls(o.operands[1], other)
                rewriter.replace(op, [rest, cls(o.operands[0], rest)])
                return


def _is_real_const(v: SSAValue, value: float, negative_zero: bool = False) -> bool:
    x = constant_float(v)
    return x is not None and x == value and math.copysign(1.0, x) == (
        -1.0 if negative_zero else 1.0
    )


class RealIdentities(RewritePattern):
    """Identities exact for every double: `1.0 * x`, `x / 1.0`, `-0.0 + x`, `x - 0.0`,
    `-(-x)` -> `x`; `-0.0 - x` -> `-x`. (`x + 0.0` is not `x` for `x = -0.0`,
    `0.0 - x` not `-x` for `x = 0.0`, `x * 0.0` not `0.0` for NaN, infinities and
    negatives: none of them is rewritten.)"""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.results and op.results[0].type != f64:
            return
        r: SSAValue | None = None
        if isinstance(op, arith.MulfOp) and _is_real_const(op.lhs, 1.0):
            r = op.rhs
        elif isinstance(op, arith.DivfOp) and _is_real_const(op.rhs, 1.0):
            r = op.lhs
        elif isinstance(op, arith.AddfOp) and _is_real_const(op.lhs, 0.0, negative_zero=True):
            r = op.rhs
        elif isinstance(op, arith.SubfOp) and _is_real_const(op.rhs, 0.0):
            r = op.lhs
        elif isinstance(op, arith.NegfOp) and isinstance(op.operand.owner, arith.NegfOp):
            r = op.operand.owner.operand
        elif isinstance(op, arith.SubfOp) and _is_real_const(op.lhs, 0.0, negative_zero=True):
            rewriter.replace(op, arith.NegfOp(op.rhs))  # -0.0 - x is -x, even for x = 0.0
            return
        if r is not None:
            rewriter.replace(op, [], [r])


ARITH_OPS: tuple[type[Operation], ...] = (
    arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
    arith.MaxSIOp, arith.MinSIOp, arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp,
    arith.FloorDivSIOp, arith.DivSIOp, arith.RemSIOp, arith.CmpiOp, arith.CmpfOp,
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.NegfOp, arith.SIToFPOp,
    arith.FPToSIOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.SelectOp,
    mathd.PowFOp, mathd.IPowIOp, mathd.SqrtOp, mathd.ExpOp, mathd.LogOp, mathd.AbsFOp,
)
"""The op classes the patterns of this module look at."""


_BINARY_ARITH: tuple[type[Operation], ...] = tuple(
    c for c in ARITH_OPS if c.name.startswith("arith.") and c not in (
        arith.NegfOp, arith.SIToFPOp, arith.FPToSIOp, arith.ExtSIOp, arith.ExtUIOp,
        arith.TruncIOp, arith.SelectOp))
_INT_ASSOCIATIVE = (arith.AddiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp)


def arith_patterns() -> list[tuple[RewritePattern, tuple[type[Operation], ...]]]:
    """This module's patterns, in the order they are tried, each with the op classes
    it can rewrite (a subset of `ARITH_OPS`): `simplify` tries a pattern only on
    those, as most would reject every other op only after reading its operands."""
    return [
        (FoldConstantOp(), ARITH_OPS),
        (FoldSelect(), (arith.SelectOp,)),
        (IntIdentities(), _BINARY_ARITH),
        (RealIdentities(), (arith.MulfOp, arith.DivfOp, arith.AddfOp, arith.SubfOp,
                            arith.NegfOp)),
        (NegateComparison(), (arith.XOrIOp,)),
        (ConstantsToFront(), (*_INT_ASSOCIATIVE, arith.MaxSIOp, arith.MinSIOp,
                              arith.AddfOp, arith.MulfOp)),
        (SubToAdd(), (arith.SubiOp, arith.AddiOp)),
        (Reassociate(), _INT_ASSOCIATIVE),
    ]


