"""Run-time checks that the lowering itself adds, with the interpreter's messages.

The IR guards every fault it can check before an op runs with a `soac.assert`
(`docs/ir.md`); what is left is the one fault only the op itself can see: rows of
different shapes where a regular array is built (an array literal, the rows a `map`
yields, `concat`). Shapes are compared normalised: every dimension after the first 0
counts as 0 (Note [Empty arrays and irregularity] in `l0.interp.soac`). The messages
are those of `l0.interp.soac`, so both back ends report the same error.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from l0.dialects.soac import CertType
from l0.lowering.loop_ir.builder import CodeBuilder


def fault_loc(op: Operation) -> str:
    """Where a fault of `op` is reported: its own location, else that of the check
    guarding it (a `soac.iota` or `soac.replicate` has none, but takes a certificate
    from the `soac.assert` made for the same construct), else `enclosing_loc`."""
    for where in (op, *(v.owner for v in op.operands if isinstance(v.type, CertType))):
        if isinstance(where, Operation):
            loc = where.properties.get("loc") or where.attributes.get("loc")
            if isinstance(loc, StringAttr):
                return loc.data
    return enclosing_loc(op)


def enclosing_loc(op: Operation) -> str:
    """The source location of `op`: its `loc` property, else that of the nearest
    enclosing op with one (as the interpreter's `op_loc`), else ""."""
    cur: Operation | None = op
    while cur is not None:
        loc = cur.properties.get("loc") or cur.attributes.get("loc")
        if isinstance(loc, StringAttr):
            return loc.data
        cur = cur.parent_op()
    return ""


def normalised(b: CodeBuilder, dims: Sequence[SSAValue]) -> list[SSAValue]:
    """`dims` with every dimension after the first 0 set to 0 (i64 values)."""
    out = [dims[0]] if dims else []
    if len(dims) < 2:
        return out
    zero = b.i64(0)
    alive: SSAValue | None = None
    for k in range(1, len(dims)):
        nz = b.cmpi("ne", dims[k - 1], zero)
        alive = nz if alive is None else b.andi(alive, nz)
        out.append(b.select(alive, dims[k], zero))
    return out


def same_shape(b: CodeBuilder, xs: Sequence[SSAValue], ys: Sequence[SSAValue]) -> SSAValue:
    """Whether two shapes (i64 dims, same rank) are equal once normalised."""
    nx, ny = normalised(b, xs), normalised(b, ys)
    return b.all_of([b.cmpi("eq", x, y) for x, y in zip(nx, ny, strict=True)])


def _shape_text(first: int, rank: int) -> str:
    return "[" + ", ".join(f"{{{first + k}}}" for k in range(rank)) + "]"


def check_row(b: CodeBuilder, row: int | SSAValue, dims: Sequence[SSAValue],
              expected: Sequence[SSAValue], loc: str) -> None:
    """Fail with "irregular array" at `loc` unless row `row` (a constant or an i64) with
    shape `dims` has the shape `expected` of row 0."""
    if not dims:
        return
    ok = same_shape(b, dims, expected)
    rank = len(dims)
    if isinstance(row, int):
        msg = (f"irregular array: row {row} has shape {_shape_text(0, rank)}, expected "
               f"{_shape_text(rank, rank)} (the shape of row 0)")
        b.check(ok, msg, loc, [*dims, *expected])
        return
    msg = (f"irregular array: row {{0}} has shape {_shape_text(1, rank)}, expected "
           f"{_shape_text(rank + 1, rank)} (the shape of row 0)")
    b.check(ok, msg, loc, [row, *dims, *expected])


def check_concat(b: CodeBuilder, n_a: SSAValue, n_b: SSAValue, rows_a: Sequence[SSAValue],
                 rows_b: Sequence[SSAValue], loc: str) -> None:
    """Fail unless the rows of two non-empty arrays have one shape (`concat`)."""
    if not rows_a:
        return
    zero = b.i64(0)
    either_empty = b.ori(b.cmpi("eq", n_a, zero), b.cmpi("eq", n_b, zero))
    ok = b.ori(either_empty, same_shape(b, rows_a, rows_b))
    rank = len(rows_a)
    msg = (f"irregular array: concatenation of arrays whose rows have shapes "
           f"{_shape_text(0, rank)} and {_shape_text(rank, rank)}")
    b.check(ok, msg, loc, [*rows_a, *rows_b])
