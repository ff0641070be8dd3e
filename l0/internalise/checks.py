"""Run-time checks made explicit as `soac.assert` (thesis 4.2, docs/ir.md "Certificates").

Each helper emits the condition with `arith` ops, then a `soac.assert` carrying the
message (with `{0}`, `{1}`... filled from i64 values at run time) and the source
location, and returns the assert's certificate. Callers hand that certificate to the
op the check guards, so dataflow keeps the check first and passes can treat checks as
ordinary values. Checks whose outcome is known from integer literals are not emitted.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from l0.diagnostics import L0Error, Loc
from l0.dialects import soac
from l0.internalise.core import Ctx, const_value


def size(ctx: Ctx, array: SSAValue, dim: int) -> SSAValue:
    """`soac.size` of one dimension (for checks; unpredicated)."""
    return ctx.val(soac.SizeOp(array, dim, []))


def cmp(ctx: Ctx, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    return ctx.cmpi(pred, a, b)


def all_of(ctx: Ctx, conds: Sequence[SSAValue]) -> SSAValue:
    """The conjunction of i1 values (`true` for none)."""
    if not conds:
        return ctx.const_bool(True)
    acc = conds[0]
    for c in conds[1:]:
        acc = ctx.binary(arith.AndIOp, acc, c)
    return acc


def any_of(ctx: Ctx, conds: Sequence[SSAValue]) -> SSAValue:
    acc = conds[0]
    for c in conds[1:]:
        acc = ctx.binary(arith.OrIOp, acc, c)
    return acc


def emit_assert(
    ctx: Ctx, cond: SSAValue, msg: str, loc: Loc, values: Sequence[SSAValue] = ()
) -> SSAValue:
    """`soac.assert cond` with `msg` at `loc`; returns the certificate."""
    op = soac.AssertOp(cond, msg, str(loc), tuple(values))
    ctx.emit(op)
    return op.cert


def first_component(values: Sequence[SSAValue], loc: Loc) -> SSAValue:
    """The component of an array value whose sizes stand for the whole array.

    Every component of an array of tuples has the same outer dimensions. An array
    whose elements have no components at all (`[{}]`) has no IR value to measure.
    """
    if not values:
        raise L0Error(
            loc,
            "arrays of empty tuples are not supported: expected an element type with at "
            "least one component, found '{}'",
            "unsupported",
        )
    return values[0]


def check_index(ctx: Ctx, index: SSAValue, n: SSAValue, loc: Loc) -> SSAValue:
    """`0 <= index < n`."""
    lo = cmp(ctx, "sle", ctx.const_int(0), index)
    hi = cmp(ctx, "slt", index, n)
    ok = ctx.binary(arith.AndIOp, lo, hi)
    return emit_assert(
        ctx, ok, "index {0} out of bounds for array of size {1}", loc, (index, n)
    )


def check_indices(
    ctx: Ctx, array: SSAValue, indices: Sequence[SSAValue], loc: Loc
) -> list[SSAValue]:
    """Bounds checks of `array[indices...]`, one per index."""
    return [check_index(ctx, i, size(ctx, array, d), loc) for d, i in enumerate(indices)]


def check_count(ctx: Ctx, n: SSAValue, what: str, loc: Loc) -> list[SSAValue]:
    """`n >= 0` for the size given to `iota`/`replicate` (none if `n` is a literal)."""
    known = const_value(n)
    if known is not None and known >= 0:
        return []
    ok = cmp(ctx, "sle", ctx.const_int(0), n)
    return [emit_assert(ctx, ok, f"negative size {{0}} given to {what}", loc, (n,))]


def check_same_sizes(
    ctx: Ctx, arrays: Sequence[SSAValue], what: str, loc: Loc
) -> list[SSAValue]:
    """Equal outer sizes of the arrays a zip or a T-SOAC takes together."""
    if len(arrays) < 2:
        return []
    sizes = [size(ctx, a, 0) for a in arrays]
    ok = all_of(ctx, [cmp(ctx, "eq", sizes[0], s) for s in sizes[1:]])
    shown = ", ".join(f"{{{i}}}" for i in range(len(sizes)))
    msg = f"arrays given to {what} have different sizes: {shown}"
    return [emit_assert(ctx, ok, msg, loc, sizes)]


def check_nonzero(ctx: Ctx, divisor: SSAValue, what: str, loc: Loc) -> list[SSAValue]:
    """`divisor != 0` before an integer division or modulo."""
    known = const_value(divisor)
    if known is not None and known != 0:
        return []
    ok = cmp(ctx, "ne", divisor, ctx.const_int(0))
    return [emit_assert(ctx, ok, what, loc)]


def shape_text(first: int, rank: int) -> str:
    """`({first}, {first+1}, ...)`: a shape made of message placeholders."""
    return "(" + ", ".join(f"{{{first + i}}}" for i in range(rank)) + ")"
