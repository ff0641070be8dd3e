"""Constants known at compile time: the value of an `arith.constant`, if it is one.

Every analysis and rewrite that looks for a literal count, divisor or bound asks here,
so that all agree on how an `i1` reads (true is 1, though the attribute holds -1).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float64Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import SSAValue


def constant_int(v: SSAValue) -> int | None:
    """The value of an integer (or i1) `arith.constant`, else None (i1 true is 1)."""
    op = v.owner
    if type(op) is not arith.ConstantOp:  # `isinstance` on op classes (ABCs) is slow
        return None
    value = op.value
    if isinstance(value, IntegerAttr):
        data = value.value.data
        t = value.type
        return 1 if isinstance(t, IntegerType) and t.width.data == 1 and data else data
    return None


def constant_float(v: SSAValue) -> float | None:
    """The value of an f64 `arith.constant`, else None."""
    op = v.owner
    if type(op) is not arith.ConstantOp:
        return None
    value = op.value
    if isinstance(value, FloatAttr) and isinstance(value.type, Float64Type):
        return float(value.value.data)
    return None
