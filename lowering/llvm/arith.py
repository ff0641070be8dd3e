"""`arith` to LLVM IR, with every operation defined on every input.

L0 integers wrap (docs/ir.md), so `addi/subi/muli` get no `nsw`/`nuw` unless the op
itself carries `overflow<...>` flags. Operations that are undefined (poison or a trap) in
LLVM for some inputs get a defined result instead, so that compiled code never traps:

* integer division by 0: quotient 0, remainder the dividend (for every div/rem op);
* signed division of INT_MIN by -1: wraps (quotient INT_MIN, remainder 0);
* shifts by an amount outside [0, width): `shli`/`shrui` give 0, `shrsi` gives the sign
  fill (0 or -1), as if shifting one bit at a time;
* `fptosi`/`fptoui`: saturating (`llvm.fptosi.sat`): NaN gives 0, out-of-range values
  the nearest representable integer.

L0 guards division by zero with a `soac.assert` before the division, so these selects
only cost a compare on paths that passed the check, and LLVM removes them when the
divisor is a known constant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import llvmlite.ir as ir
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Operation

from l0.lowering.llvm.types import (
    I1,
    LoweringError,
    MemRefDesc,
    from_components,
    scalar_type,
    type_suffix,
)

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FunctionEmitter, Handler


def _constant(fe: FunctionEmitter, op: arith.ConstantOp) -> None:
    ty = scalar_type(op.result.type)
    value = op.value
    if isinstance(value, IntegerAttr):
        n = int(value.value.data)
        if isinstance(ty, ir.IntType):
            n &= (1 << ty.width) - 1  # two's complement bit pattern, also for i1 `true` = -1
            if n >= 1 << (ty.width - 1) and ty.width > 1:
                n -= 1 << ty.width
        fe.set(op.result, ir.Constant(ty, n))
    elif isinstance(value, FloatAttr):
        fe.set(op.result, ir.Constant(ty, float(value.value.data)))
    else:
        raise LoweringError(f"expected a scalar arith.constant, found {value}")


# ---- integer arithmetic


def _int_flags(op: Operation) -> tuple[str, ...]:
    flags = getattr(op.properties.get("overflowFlags"), "data", None)
    return tuple(sorted(str(f) for f in flags)) if flags else ()


def _binop(method: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        lhs, rhs = fe.get(op.operands[0]), fe.get(op.operands[1])
        fe.set(op.results[0], getattr(fe.b, method)(lhs, rhs, flags=_int_flags(op)))

    return emit


def _plain(method: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        lhs, rhs = fe.get(op.operands[0]), fe.get(op.operands[1])
        fe.set(op.results[0], getattr(fe.b, method)(lhs, rhs))

    return emit


def _float_binop(method: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        lhs, rhs = fe.get(op.operands[0]), fe.get(op.operands[1])
        fe.set(op.results[0], getattr(fe.b, method)(lhs, rhs, flags=fe.float_flags(op)))

    return emit


def _intrinsic2(base: str) -> Handler:
    """Binary ops that are LLVM intrinsics overloaded on the operand type (`llvm.smax.i64`)."""

    def emit(fe: FunctionEmitter, op: Operation) -> None:
        lhs, rhs = fe.get(op.operands[0]), fe.get(op.operands[1])
        fn = fe.rt.intrinsic(f"{base}.{type_suffix(lhs.type)}", lhs.type, [lhs.type, lhs.type])
        flags = fe.float_flags(op) if not isinstance(lhs.type, ir.IntType) else ()
        fe.set(op.results[0], fe.b.call(fn, [lhs, rhs], fastmath=flags))

    return emit


def _c(ty: ir.Type, n: int) -> ir.Constant:
    return ir.Constant(ty, n)


def _division(kind: str) -> Handler:
    """Integer division and remainder, defined for a zero divisor and INT_MIN / -1."""

    def emit(fe: FunctionEmitter, op: Operation) -> None:
        b = fe.b
        x, d = fe.get(op.operands[0]), fe.get(op.operands[1])
        ty = x.type
        zero = b.icmp_signed("==", d, _c(ty, 0))
        if kind in ("divui", "remui", "ceildivui"):
            safe = b.select(zero, _c(ty, 1), d)
            q, r = b.udiv(x, safe), b.urem(x, safe)
            if kind == "divui":
                res = b.select(zero, _c(ty, 0), q)
            elif kind == "remui":
                res = b.select(zero, x, r)
            else:
                up = b.zext(b.icmp_signed("!=", r, _c(ty, 0)), ty)
                res = b.select(zero, _c(ty, 0), b.add(q, up))
            fe.set(op.results[0], res)
            return
        minus_one = b.icmp_signed("==", d, _c(ty, -1))
        safe = b.select(b.or_(zero, minus_one), _c(ty, 1), d)
        q, r = b.sdiv(x, safe), b.srem(x, safe)
        if kind == "remsi":
            res = b.select(minus_one, _c(ty, 0), b.select(zero, x, r))
            fe.set(op.results[0], res)
            return
        if kind in ("floordivsi", "ceildivsi"):
            # Round q (truncated) down / up when the remainder is non-zero and the exact
            # quotient is negative / positive, i.e. r and d have different / equal signs.
            inexact = b.icmp_signed("!=", r, _c(ty, 0))
            opposite = b.icmp_signed("<", b.xor(r, d), _c(ty, 0))
            if kind == "floordivsi":
                q = b.sub(q, b.zext(b.and_(inexact, opposite), ty))
            else:
                q = b.add(q, b.zext(b.and_(inexact, b.not_(opposite)), ty))
        res = b.select(minus_one, b.sub(_c(ty, 0), x), b.select(zero, _c(ty, 0), q))
        fe.set(op.results[0], res)

    return emit


def _shift(kind: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        b = fe.b
        x, s = fe.get(op.operands[0]), fe.get(op.operands[1])
        ty = cast(ir.IntType, x.type)
        # Unsigned compare: negative amounts are out of range too.
        in_range = b.icmp_unsigned("<", s, _c(ty, ty.width))
        safe = b.select(in_range, s, _c(ty, 0))
        if kind == "shli":
            res = b.select(in_range, b.shl(x, safe), _c(ty, 0))
        elif kind == "shrui":
            res = b.select(in_range, b.lshr(x, safe), _c(ty, 0))
        else:
            res = b.ashr(x, b.select(in_range, s, _c(ty, ty.width - 1)))
        fe.set(op.results[0], res)

    return emit


def _extended(kind: str) -> Handler:
    """`addui_extended` (sum, carry) and `mul{s,u}i_extended` (low, high halves)."""

    def emit(fe: FunctionEmitter, op: Operation) -> None:
        b = fe.b
        x, y = fe.get(op.operands[0]), fe.get(op.operands[1])
        ty = cast(ir.IntType, x.type)
        if kind == "addui":
            pair = b.uadd_with_overflow(x, y)
            fe.set(op.results[0], b.extract_value(pair, 0))
            fe.set(op.results[1], b.extract_value(pair, 1))
            return
        wide = ir.IntType(2 * ty.width)
        ext = b.sext if kind == "mulsi" else b.zext
        prod = b.mul(ext(x, wide), ext(y, wide))
        fe.set(op.results[0], b.trunc(prod, ty))
        fe.set(op.results[1], b.trunc(b.lshr(prod, _c(wide, ty.width)), ty))

    return emit


# ---- comparisons and select

_CMPI = {0: (True, "=="), 1: (True, "!="), 2: (True, "<"), 3: (True, "<="), 4: (True, ">"),
         5: (True, ">="), 6: (False, "<"), 7: (False, "<="), 8: (False, ">"), 9: (False, ">=")}

# arith.cmpf predicate -> (ordered?, llvmlite operator); 0 and 15 are the constants.
_CMPF = {1: (True, "=="), 2: (True, ">"), 3: (True, ">="), 4: (True, "<"), 5: (True, "<="),
         6: (True, "!="), 7: (True, "ord"), 8: (False, "=="), 9: (False, ">"),
         10: (False, ">="), 11: (False, "<"), 12: (False, "<="), 13: (False, "!="),
         14: (False, "uno")}


def _cmpi(fe: FunctionEmitter, op: arith.CmpiOp) -> None:
    signed, pred = _CMPI[op.predicate.value.data]
    lhs, rhs = fe.get(op.lhs), fe.get(op.rhs)
    cmp = fe.b.icmp_signed if signed else fe.b.icmp_unsigned
    fe.set(op.result, cmp(pred, lhs, rhs))


def _cmpf(fe: FunctionEmitter, op: arith.CmpfOp) -> None:
    code = op.predicate.value.data
    if code in (0, 15):
        fe.set(op.result, ir.Constant(I1, int(code == 15)))
        return
    ordered, pred = _CMPF[code]
    lhs, rhs = fe.get(op.lhs), fe.get(op.rhs)
    cmp = fe.b.fcmp_ordered if ordered else fe.b.fcmp_unordered
    fe.set(op.result, cmp(pred, lhs, rhs, flags=fe.float_flags(op)))


def _select(fe: FunctionEmitter, op: arith.SelectOp) -> None:
    cond = fe.get(op.cond)
    lhs, rhs = fe.any(op.lhs), fe.any(op.rhs)
    if isinstance(lhs, MemRefDesc) and isinstance(rhs, MemRefDesc):
        parts = [fe.b.select(cond, x, y) for x, y in zip(lhs.components(), rhs.components(),
                                                          strict=True)]
        fe.set(op.result, from_components(fe.b, op.result.type, parts))
        return
    assert not isinstance(lhs, MemRefDesc) and not isinstance(rhs, MemRefDesc)
    fe.set(op.result, fe.b.select(cond, lhs, rhs))


def _negf(fe: FunctionEmitter, op: arith.NegfOp) -> None:
    fe.set(op.result, fe.b.fneg(fe.get(op.operand), flags=fe.float_flags(op)))


# ---- casts


def _cast(kind: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        b = fe.b
        x = fe.get(op.operands[0])
        to = scalar_type(op.results[0].type)
        if kind in ("fptosi", "fptoui"):
            name = f"llvm.{kind}.sat.{type_suffix(to)}.{type_suffix(x.type)}"
            fe.set(op.results[0], b.call(fe.rt.intrinsic(name, to, [x.type]), [x]))
            return
        fe.set(op.results[0], getattr(b, kind)(x, to))

    return emit


def _resize(fe: FunctionEmitter, x: ir.Value, to: ir.Type, *, signed: bool) -> ir.Value:
    frm = cast(ir.IntType, x.type)
    assert isinstance(to, ir.IntType)
    if to.width == frm.width:
        return x
    if to.width < frm.width:
        return fe.b.trunc(x, to)
    return fe.b.sext(x, to) if signed else fe.b.zext(x, to)


def _index_cast(fe: FunctionEmitter, op: arith.IndexCastOp) -> None:
    fe.set(op.result, _resize(fe, fe.get(op.input), scalar_type(op.result.type), signed=True))


def _bitcast(fe: FunctionEmitter, op: arith.BitcastOp) -> None:
    x = fe.get(op.input)
    to = scalar_type(op.result.type)
    fe.set(op.result, x if x.type == to else fe.b.bitcast(x, to))


HANDLERS: dict[type[Operation], Handler] = {
    arith.ConstantOp: cast("Handler", _constant),
    arith.AddiOp: _binop("add"),
    arith.SubiOp: _binop("sub"),
    arith.MuliOp: _binop("mul"),
    arith.AndIOp: _plain("and_"),
    arith.OrIOp: _plain("or_"),
    arith.XOrIOp: _plain("xor"),
    arith.DivUIOp: _division("divui"),
    arith.RemUIOp: _division("remui"),
    arith.CeilDivUIOp: _division("ceildivui"),
    arith.DivSIOp: _division("divsi"),
    arith.RemSIOp: _division("remsi"),
    arith.FloorDivSIOp: _division("floordivsi"),
    arith.CeilDivSIOp: _division("ceildivsi"),
    arith.ShLIOp: _shift("shli"),
    arith.ShRUIOp: _shift("shrui"),
    arith.ShRSIOp: _shift("shrsi"),
    arith.MinSIOp: _intrinsic2("llvm.smin"),
    arith.MaxSIOp: _intrinsic2("llvm.smax"),
    arith.MinUIOp: _intrinsic2("llvm.umin"),
    arith.MaxUIOp: _intrinsic2("llvm.umax"),
    arith.AddUIExtendedOp: _extended("addui"),
    arith.MulSIExtendedOp: _extended("mulsi"),
    arith.MulUIExtendedOp: _extended("mului"),
    arith.AddfOp: _float_binop("fadd"),
    arith.SubfOp: _float_binop("fsub"),
    arith.MulfOp: _float_binop("fmul"),
    arith.DivfOp: _float_binop("fdiv"),
    arith.NegfOp: cast("Handler", _negf),
    arith.MinimumfOp: _intrinsic2("llvm.minimum"),
    arith.MaximumfOp: _intrinsic2("llvm.maximum"),
    arith.MinnumfOp: _intrinsic2("llvm.minnum"),
    arith.MaxnumfOp: _intrinsic2("llvm.maxnum"),
    arith.CmpiOp: cast("Handler", _cmpi),
    arith.CmpfOp: cast("Handler", _cmpf),
    arith.SelectOp: cast("Handler", _select),
    arith.IndexCastOp: cast("Handler", _index_cast),
    arith.BitcastOp: cast("Handler", _bitcast),
    arith.ExtSIOp: _cast("sext"),
    arith.ExtUIOp: _cast("zext"),
    arith.TruncIOp: _cast("trunc"),
    arith.ExtFOp: _cast("fpext"),
    arith.TruncFOp: _cast("fptrunc"),
    arith.SIToFPOp: _cast("sitofp"),
    arith.UIToFPOp: _cast("uitofp"),
    arith.FPToSIOp: _cast("fptosi"),
    arith.FPToUIOp: _cast("fptoui"),
}

