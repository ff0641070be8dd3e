"""Scalar operators and builtin functions (docs/reference.md §3 and 5; docs/ir.md "Scalars").

Used both for source expressions (`a + b`, `-x`, `sqrt(r)`) and for SOAC functional
arguments (`op +`, `op ~`, `map(sqrt, xs)`), so the operator is chosen from the IR type
of the operands: `i64` is int, `f64` real, `i1` bool. Integer `/` and `%` floor, and
`pow` with a negative exponent is `1 / x^k` with floor division, as the 2014 interpreter
(Haskell `div`, `mod`, `^`) computed them; a zero divisor is caught by a `soac.assert`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import StringAttr, f64, i1, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from l0.diagnostics import Loc
from l0.dialects import soac
from l0.internalise import checks
from l0.internalise.core import Ctx, const_value

_INT_OPS: dict[str, type[Operation]] = {
    "+": arith.AddiOp,
    "-": arith.SubiOp,
    "*": arith.MuliOp,
    "&": arith.AndIOp,
    "|": arith.OrIOp,
    "^": arith.XOrIOp,
    "<<": arith.ShLIOp,
    ">>": arith.ShRSIOp,
}

_REAL_OPS: dict[str, type[Operation]] = {
    "+": arith.AddfOp,
    "-": arith.SubfOp,
    "*": arith.MulfOp,
    "/": arith.DivfOp,
    "pow": math.PowFOp,
}

_BOOL_OPS: dict[str, type[Operation]] = {"&&": arith.AndIOp, "||": arith.OrIOp}

_SHIFTS = frozenset({"<<", ">>"})

_INT_CMP = {"=": "eq", "<": "slt", "<=": "sle"}
_REAL_CMP = {"=": "oeq", "<": "olt", "<=": "ole"}


def binop(ctx: Ctx, op: str, lhs: SSAValue, rhs: SSAValue, loc: Loc) -> SSAValue:
    """`lhs op rhs` on scalars of one type (the type checker guarantees it)."""
    t = lhs.type
    if t == i64:
        if op in _SHIFTS:
            shift = ctx.binary(_INT_OPS[op], lhs, rhs)
            known = const_value(rhs)
            if known is None or known < 0:
                assert isinstance(shift.owner, Operation)
                located(shift.owner, loc)  # a negative count fails at run time
            return shift
        if op in _INT_OPS:
            return ctx.binary(_INT_OPS[op], lhs, rhs)
        if op in _INT_CMP:
            return ctx.cmpi(_INT_CMP[op], lhs, rhs)
        if op == "/":
            checks.check_nonzero(ctx, rhs, "division by zero", loc)
            return ctx.binary(arith.FloorDivSIOp, lhs, rhs)
        if op == "%":
            checks.check_nonzero(ctx, rhs, "modulo by zero", loc)
            return floor_mod(ctx, lhs, rhs)
        if op == "pow":
            return int_pow(ctx, lhs, rhs, loc)
    elif t == f64:
        if op in _REAL_OPS:
            return ctx.binary(_REAL_OPS[op], lhs, rhs)
        if op in _REAL_CMP:
            return ctx.cmpf(_REAL_CMP[op], lhs, rhs)
    elif t == i1 and op in _BOOL_OPS:
        return ctx.binary(_BOOL_OPS[op], lhs, rhs)
    raise AssertionError(f"internaliser: operator '{op}' on {t}")


def located(op: Operation, loc: Loc) -> None:
    """Give `op` the source location its run-time fault is reported at (Note
    [Locations of failing arith ops])."""
    op.attributes["loc"] = StringAttr(str(loc))


# Note [Locations of failing arith ops]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Two arith ops can fail at run time without a `soac.assert` before them: a shift by a
# negative count and `fptosi` (`trunc`) of NaN, an infinity or a real outside the `int`
# range. Each carries its source location as a discardable `loc` attribute, which
# every consumer of locations reads before looking at enclosing ops (the interpreter's
# `op_loc`, the lowering's `enclosing_loc`), so the error points at the `trunc` or the
# shift itself, not at the enclosing `map` or nowhere. Passes keep it: they clone or
# move ops with their attributes, and CSE ignores it as it ignores the `loc` of SOACs.


def floor_mod(ctx: Ctx, a: SSAValue, b: SSAValue) -> SSAValue:
    """Haskell `mod`: the remainder takes the divisor's sign.

    r = a rem b; if r != 0 and (r < 0) != (b < 0) then r + b else r.
    """
    zero = ctx.const_int(0)
    r = ctx.binary(arith.RemSIOp, a, b)
    nonzero = ctx.cmpi("ne", r, zero)
    r_neg = ctx.cmpi("slt", r, zero)
    b_neg = ctx.cmpi("slt", b, zero)
    signs_differ = ctx.binary(arith.XOrIOp, r_neg, b_neg)
    fix = ctx.binary(arith.AndIOp, nonzero, signs_differ)
    return ctx.val(arith.SelectOp(fix, ctx.binary(arith.AddiOp, r, b), r))


def int_pow(ctx: Ctx, x: SSAValue, k: SSAValue, loc: Loc) -> SSAValue:
    """Integer `x pow k` (wrapping); for k < 0, `1 / x^(-k)` with floor division.

    The power is computed once as `x^|k|`; a negative exponent with a zero power (`0 pow
    -k`, or a power that wrapped to 0) is a division by zero and fails the assert.
    """
    known = const_value(k)
    if known is not None and known >= 0:
        return ctx.binary(math.IPowIOp, x, k)
    zero = ctx.const_int(0)
    negative = ctx.cmpi("slt", k, zero)
    magnitude = ctx.val(arith.SelectOp(negative, ctx.binary(arith.SubiOp, zero, k), k))
    power = ctx.binary(math.IPowIOp, x, magnitude)
    power_zero = ctx.cmpi("eq", power, zero)
    bad = ctx.binary(arith.AndIOp, negative, power_zero)
    ok = logical_not(ctx, bad)
    checks.emit_assert(ctx, ok, "division by zero in {0} pow {1}", loc, (x, k))
    then_block = Block()
    with ctx.at(then_block):
        q = ctx.binary(arith.FloorDivSIOp, ctx.const_int(1), power)
        ctx.emit(scf.YieldOp(q))
    else_block = Block()
    else_block.add_op(scf.YieldOp(power))
    return ctx.val(scf.IfOp(negative, [i64], Region(then_block), Region(else_block)))


def negate(ctx: Ctx, x: SSAValue) -> SSAValue:
    """`-x` (also `op ~`)."""
    if x.type == f64:
        return ctx.val(arith.NegfOp(x))
    return ctx.binary(arith.SubiOp, ctx.const_int(0), x)


def logical_not(ctx: Ctx, x: SSAValue) -> SSAValue:
    return ctx.binary(arith.XOrIOp, x, ctx.const_bool(True))


# ----------------------------------------------------------------------------------
# Builtin functions of one scalar argument; `trace` is handled by its callers since it
# takes a value of any type.

_BUILTINS: dict[str, Callable[[SSAValue], Operation]] = {
    "toReal": lambda x: arith.SIToFPOp(x, f64),
    "trunc": lambda x: arith.FPToSIOp(x, i64),
    "sqrt": math.SqrtOp,
    "log": math.LogOp,
    "exp": math.ExpOp,
}


def is_scalar_builtin(name: str) -> bool:
    return name in _BUILTINS


def scalar_builtin(ctx: Ctx, name: str, x: SSAValue, loc: Loc) -> SSAValue:
    op = ctx.emit(_BUILTINS[name](x))
    if name == "trunc":
        located(op, loc)  # fails on NaN, infinities and reals outside the int range
    return op.results[0]


def trace(ctx: Ctx, values: tuple[SSAValue, ...], loc: Loc) -> list[SSAValue]:
    """`trace(e)`: returns its argument and logs it with the span of the call."""
    op = soac.TraceOp(values, loc.span())
    ctx.emit(op)
    return list(op.results)
