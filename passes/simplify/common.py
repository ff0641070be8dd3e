"""What the simplification rules share: reading and making constants and editing an
op's certificate list. Whether a rule may make a later op read an earlier array is
`l0.passes.analysis.consumption` (Note [Using an array again]).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    f64,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter

from l0.dialects.soac import is_checked, join_certs
from l0.passes.analysis.constants import constant_float, constant_int
from l0.scalars import wrap_signed

__all__ = [
    "is_checked",
    "join_certs",
    "make_constant",
    "set_certs",
    "width_of",
    "wrap",
]

# ---------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------


def width_of(t: Attribute) -> int | None:
    """The bit width of an integer type (1 for i1), None for any other type."""
    return t.width.data if isinstance(t, IntegerType) else None


def wrap(x: int, width: int) -> int:
    """`x` wrapped to a `width`-bit integer: signed, except i1 which is 0 or 1."""
    return x & 1 if width == 1 else wrap_signed(x, width)


def signed(x: int, width: int) -> int:
    """The signed value of a constant as `constant_int` gives it (i1 true is -1)."""
    return -x if width == 1 else x


def make_constant(value: int | float, t: Attribute) -> arith.ConstantOp:
    """An `arith.constant` of type `t` (an integer type or f64) holding `value`."""
    if t == f64:
        return arith.ConstantOp(FloatAttr(float(value), f64))
    width = width_of(t)
    assert width is not None, f"no constants of type {t}"
    assert isinstance(t, IntegerType)
    v = wrap(int(value), width)
    return arith.ConstantOp(IntegerAttr(-1 if width == 1 and v else v, t))


def replace_by_constant(rewriter: PatternRewriter, op: Operation, value: int | float) -> None:
    """Replace the single-result `op` by a constant of its result type."""
    rewriter.replace(op, make_constant(value, op.results[0].type))


def real_bits(x: float) -> int:
    """The bits of a double: tells -0.0 from 0.0 and NaNs of different signs apart."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


def same_constant(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` are the same value or equal constants of one type (reals
    compare bit for bit, so -0.0 and 0.0 differ and NaN equals the same NaN)."""
    if a is b:
        return True
    if a.type != b.type:
        return False
    ia, ib = constant_int(a), constant_int(b)
    if ia is not None:
        return ia == ib
    fa, fb = constant_float(a), constant_float(b)
    if fa is None or fb is None:
        return False
    return real_bits(fa) == real_bits(fb)


# ---------------------------------------------------------------------------------------
# Certificates
# ---------------------------------------------------------------------------------------


def set_certs(op: IRDLOperation, certs: Sequence[SSAValue], rewriter: PatternRewriter) -> None:
    """Replace the `certs` operands of the soac op `op` by `certs`."""
    definition = type(op).get_irdl_definition()
    groups: list[list[SSAValue]] = []
    for name, _ in definition.operands:
        if name == "certs":
            groups.append(list(certs))
            continue
        value = getattr(op, name)
        groups.append([value] if isinstance(value, SSAValue) else list(value))
    op.operands = [v for g in groups for v in g]
    if any(isinstance(o, AttrSizedOperandSegments) for o in definition.options):
        op.properties[AttrSizedOperandSegments.attribute_name] = DenseArrayBase.from_list(
            i32, [len(g) for g in groups]
        )
    rewriter.notify_op_modified(op)
