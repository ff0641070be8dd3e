"""Scalar ops whose faults the interpreter reports and LLVM would leave undefined.

Integer division by zero and negative `pow` exponents are checked by the IR itself
(`soac.assert`s of the internaliser). Two faults are not: a shift by a negative amount,
and `trunc` (`arith.fptosi`) of NaN, an infinity or a real outside the `int` range.
The interpreter reports both (Note [Integer faults] in `l0.interp.arith`); so does
compiled code, with a `soac.assert` before the op at the location the interpreter
reports (the nearest enclosing op with one). Without it the back end would give a
defined but different result (0, or a saturated integer; `docs/backend.md`).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i64
from xdsl.ir import Operation, OpResult, SSAValue

from l0.lowering.bufferise.convert import Converter, handles
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import enclosing_loc

_TWO_63 = math.ldexp(1.0, 63)


def _non_negative_constant(v: SSAValue) -> bool:
    return (isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp)
            and isinstance(v.op.value, IntegerAttr) and v.op.value.value.data >= 0)


@handles(arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)
def _shift(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    amount = op.operands[1]
    if amount.type == i64 and not _non_negative_constant(amount):
        n = cv.get(amount)
        ok = b.cmpi("sge", n, b.i64(0))
        b.check(ok, "shift by a negative amount: {0}", enclosing_loc(op), [n])
    b.add(op.clone(value_mapper=cv.values))


@handles(arith.FPToSIOp)
def _fptosi(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, arith.FPToSIOp)
    if op.input.type == f64 and op.result.type == i64:
        x = cv.get(op.input)
        lo = b.val(arith.ConstantOp(FloatAttr(-_TWO_63, f64)))
        hi = b.val(arith.ConstantOp(FloatAttr(_TWO_63, f64)))
        # Ordered comparisons: false for NaN.
        ok = b.andi(b.val(arith.CmpfOp(x, lo, "oge")), b.val(arith.CmpfOp(x, hi, "olt")))
        b.check(ok, "cannot convert a real to an integer: expected a finite value in the "
                "integer range", enclosing_loc(op))
    b.add(op.clone(value_mapper=cv.values))
