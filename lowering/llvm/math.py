"""`math` to LLVM IR: intrinsics where LLVM has them, libm calls otherwise.

Intrinsics (`llvm.sqrt`, `llvm.exp`, `llvm.pow`, ...) let LLVM fold constants and select
instructions (`sqrt` becomes `vsqrtsd`); the rest are calls to libm, declared `readnone`
(see `Runtime.libm`). `ipowi` is our own wrapping power by squaring; `fpowi` is `pow` with
the exponent converted exactly to a float; `absi` and `ctlz`/`cttz` are defined on every
input (`abs(INT_MIN)` = INT_MIN, the count of zeros of 0 is the width).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import llvmlite.ir as ir
from xdsl.dialects import math
from xdsl.ir import Operation

from l0.lowering.llvm.types import I1, type_suffix

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FunctionEmitter, Handler


def _intrinsic(base: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        args = [fe.get(v) for v in op.operands]
        ty = args[0].type
        fn = fe.rt.intrinsic(f"llvm.{base}.{type_suffix(ty)}", ty, [ty] * len(args))
        fe.set(op.results[0], fe.b.call(fn, args, fastmath=fe.float_flags(op)))

    return emit


def _libm(name: str) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        args = [fe.get(v) for v in op.operands]
        fn = fe.rt.libm(name, args[0].type, len(args))
        fe.set(op.results[0], fe.b.call(fn, args, fastmath=fe.float_flags(op)))

    return emit


def _rsqrt(fe: FunctionEmitter, op: Operation) -> None:
    x = fe.get(op.operands[0])
    flags = fe.float_flags(op)
    sqrt = fe.rt.intrinsic(f"llvm.sqrt.{type_suffix(x.type)}", x.type, [x.type])
    root = fe.b.call(sqrt, [x], fastmath=flags)
    fe.set(op.results[0], fe.b.fdiv(ir.Constant(x.type, 1.0), root, flags=flags))


def _fpowi(fe: FunctionEmitter, op: Operation) -> None:
    x, n = fe.get(op.operands[0]), fe.get(op.operands[1])
    pow_ = fe.rt.intrinsic(f"llvm.pow.{type_suffix(x.type)}", x.type, [x.type, x.type])
    y = fe.b.sitofp(n, x.type)
    fe.set(op.results[0], fe.b.call(pow_, [x, y], fastmath=fe.float_flags(op)))


def _ipowi(fe: FunctionEmitter, op: Operation) -> None:
    x, n = fe.get(op.operands[0]), fe.get(op.operands[1])
    assert isinstance(x.type, ir.IntType)
    fe.set(op.results[0], fe.b.call(fe.rt.ipowi(x.type), [x, n]))


def _bit_count(base: str, *, zero_poison_flag: bool) -> Handler:
    def emit(fe: FunctionEmitter, op: Operation) -> None:
        x = fe.get(op.operands[0])
        name = f"llvm.{base}.{type_suffix(x.type)}"
        if zero_poison_flag:
            # `false`: the result for 0 is defined (the width), and INT_MIN is its own abs.
            fn = fe.rt.intrinsic(name, x.type, [x.type, I1])
            res = fe.b.call(fn, [x, ir.Constant(I1, 0)])
        else:
            res = fe.b.call(fe.rt.intrinsic(name, x.type, [x.type]), [x])
        fe.set(op.results[0], res)

    return emit


HANDLERS: dict[type[Operation], Handler] = {
    math.AbsFOp: _intrinsic("fabs"),
    math.SqrtOp: _intrinsic("sqrt"),
    math.ExpOp: _intrinsic("exp"),
    math.Exp2Op: _intrinsic("exp2"),
    math.LogOp: _intrinsic("log"),
    math.Log2Op: _intrinsic("log2"),
    math.Log10Op: _intrinsic("log10"),
    math.SinOp: _intrinsic("sin"),
    math.CosOp: _intrinsic("cos"),
    math.FloorOp: _intrinsic("floor"),
    math.CeilOp: _intrinsic("ceil"),
    math.TruncOp: _intrinsic("trunc"),
    math.RoundOp: _intrinsic("round"),
    math.RoundEvenOp: _intrinsic("roundeven"),
    math.PowFOp: _intrinsic("pow"),
    math.CopySignOp: _intrinsic("copysign"),
    math.FmaOp: _intrinsic("fma"),
    math.AcosOp: _libm("acos"),
    math.AcoshOp: _libm("acosh"),
    math.AsinOp: _libm("asin"),
    math.AsinhOp: _libm("asinh"),
    math.AtanOp: _libm("atan"),
    math.Atan2Op: _libm("atan2"),
    math.AtanhOp: _libm("atanh"),
    math.CbrtOp: _libm("cbrt"),
    math.CoshOp: _libm("cosh"),
    math.ErfOp: _libm("erf"),
    math.ExpM1Op: _libm("expm1"),
    math.Log1pOp: _libm("log1p"),
    math.SinhOp: _libm("sinh"),
    math.TanOp: _libm("tan"),
    math.TanhOp: _libm("tanh"),
    math.RsqrtOp: _rsqrt,
    math.FPowIOp: _fpowi,
    math.IPowIOp: _ipowi,
    math.AbsIOp: _bit_count("abs", zero_poison_flag=True),
    math.CountLeadingZerosOp: _bit_count("ctlz", zero_poison_flag=True),
    math.CountTrailingZerosOp: _bit_count("cttz", zero_poison_flag=True),
    math.CtPopOp: _bit_count("ctpop", zero_poison_flag=False),
}
