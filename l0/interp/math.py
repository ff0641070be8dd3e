"""Scalar `math` ops in the interpreter (docs/reference.md §§3 and 5).

Reals follow the C library (the CPU back end calls the same libm); the real functions
that need more than Python's `math` (an IEEE result where it raises: `sqrt(-1)`,
`log(0)`, `exp(1000)`, `pow(0, -1)`) are `l0.scalars`', which `simplify` folds with.
No Python exception escapes a math op.

`math.ipowi` is L0's integer `pow` for exponents >= 0: exact repeated multiplication
wrapped to 64 bits, `0 pow 0 = 1`. The internaliser composes negative exponents from
it with floor division; a negative exponent reaching `ipowi` is a run-time error.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NoReturn

from xdsl.ir import Operation

from l0.diagnostics import L0Error, Loc
from l0.interp.arith import emit_wrap, is_i1
from l0.interp.core import HELPERS, Emitter, InternalError, emits, helper, int_width
from l0.scalars import UNARY_REAL, powf


def _helper_name(op_name: str) -> str:
    return "real_" + op_name.removeprefix("math.")


for _name, (_fn, _) in UNARY_REAL.items():
    HELPERS[_helper_name(_name)] = _fn


@emits(*UNARY_REAL)
def _unary_real(e: Emitter, op: Operation) -> None:
    x = e.name(op.operands[0])
    e.line(f"{e.name(op.results[0])} = {_helper_name(op.name)}({x})")


@emits("math.absf")
def _absf(e: Emitter, op: Operation) -> None:
    e.line(f"{e.name(op.results[0])} = abs({e.name(op.operands[0])})")  # fabs: abs(-0.0) = 0.0


@emits("math.absi")
def _absi(e: Emitter, op: Operation) -> None:
    r, a = e.name(op.results[0]), e.name(op.operands[0])
    if is_i1(op.results[0].type):  # |-1| = 1, which is true again in one bit
        e.line(f"{r} = {a}")
        return
    e.line(f"{r} = -{a} if {a} < 0 else {a}")
    emit_wrap(e, r, int_width(op.results[0].type))


helper(powf)


@emits("math.powf")
def _powf(e: Emitter, op: Operation) -> None:
    x, y = e.names(op.operands)
    e.line(f"{e.name(op.results[0])} = powf({x}, {y})")


@emits("math.fpowi")
def _fpowi(e: Emitter, op: Operation) -> None:
    x, n = e.names(op.operands)
    e.line(f"{e.name(op.results[0])} = powf({x}, float({n}))")


@helper
def negative_exponent(k: int, loc: Loc) -> NoReturn:
    raise L0Error(loc, f"integer power with a negative exponent: {k}", "runtime-error")


@helper
def ipow(a: int, k: int, w: int, loc: Loc) -> int:
    """`a pow k` for k >= 0, wrapped to `w` bits (exact modular exponentiation)."""
    if k < 0:
        negative_exponent(k, loc)
    m = 1 << w
    r = pow(a, k, m)
    return r - m if r >= m >> 1 else r


@emits("math.ipowi")
def _ipowi(e: Emitter, op: Operation) -> None:
    a, k = e.names(op.operands)
    w = int_width(op.results[0].type)
    if w == 1:
        raise_unsupported(op)
    e.line(f"{e.name(op.results[0])} = ipow({a}, {k}, {w}, {e.loc(op)})")


def raise_unsupported(op: Operation) -> NoReturn:
    raise InternalError(f"the interpreter does not support {op.name} on {op.results[0].type}")


@helper
def real_copysign(x: float, y: float) -> float:
    return math.copysign(x, y)


@helper
def real_atan2(y: float, x: float) -> float:
    return math.atan2(y, x)  # defined for all inputs, infinities and NaN included


@helper
def real_fma(x: float, y: float, z: float) -> float:
    """`x * y + z` with one rounding."""
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:  # the sign of an exact zero: as x * y + z
        return x * y + z
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(float("inf"), exact)


@emits("math.copysign", "math.atan2")
def _real_binary(e: Emitter, op: Operation) -> None:
    a, b = e.names(op.operands)
    e.line(f"{e.name(op.results[0])} = real_{op.name.removeprefix('math.')}({a}, {b})")


@emits("math.fma")
def _fma(e: Emitter, op: Operation) -> None:
    x, y, z = e.names(op.operands)
    e.line(f"{e.name(op.results[0])} = real_fma({x}, {y}, {z})")


@helper
def bitcount(op: str, a: int, w: int) -> int:
    """ctlz / cttz / ctpop of the `w`-bit pattern of `a`."""
    u = a & ((1 << w) - 1)
    if op == "ctpop":
        return u.bit_count()
    if op == "ctlz":
        return w - u.bit_length()
    return w if u == 0 else (u & -u).bit_length() - 1


@emits("math.ctlz", "math.cttz", "math.ctpop")
def _bitcount(e: Emitter, op: Operation) -> None:
    w = int_width(op.results[0].type)
    if w == 1:
        raise_unsupported(op)
    a = e.name(op.operands[0])
    e.line(f"{e.name(op.results[0])} = bitcount({op.name.removeprefix('math.')!r}, {a}, {w})")


def vector_ufunc(op_name: str) -> Any:
    """The numpy ufunc computing the unary real op `op_name` on arrays, or None."""
    entry = UNARY_REAL.get(op_name)
    return None if entry is None else entry[1]
