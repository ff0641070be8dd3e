"""Scalar `math` ops in the interpreter (docs/reference.md §§3 and 5).

Reals follow the C library (the CPU back end calls the same libm): Python's `math`
functions are libm's, and where they raise instead of returning an IEEE special value
(`sqrt(-1)`, `log(0)`, `exp(1000)`, `pow(0, -1)`) the value is taken from numpy, which
returns it: NaN, -inf, inf. No Python exception escapes a math op.

`math.ipowi` is L0's integer `pow` for exponents >= 0: exact repeated multiplication
wrapped to 64 bits, `0 pow 0 = 1`. The internaliser composes negative exponents from
it with floor division; a negative exponent reaching `ipowi` is a run-time error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NoReturn

import numpy as np
from xdsl.ir import Operation

from l0.diagnostics import L0Error, Loc
from l0.interp.arith import emit_wrap, is_i1
from l0.interp.core import HELPERS, Emitter, InternalError, emits, helper, int_width

_NAN = float("nan")


def _ieee(scalar: Callable[..., float], vector: np.ufunc) -> Callable[..., float]:
    """`scalar` (from `math`), with numpy's IEEE result where `math` raises."""

    def fn(*xs: float) -> float:
        try:
            return scalar(*xs)
        except (ValueError, OverflowError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                return float(vector(*xs))

    return fn


def _numpy_only(vector: np.ufunc) -> Callable[..., float]:
    def fn(*xs: float) -> float:
        with np.errstate(all="ignore"):
            return float(vector(*xs))

    return fn


def _round_away(x: float) -> float:
    """Round half away from zero (`math.round`)."""
    if not math.isfinite(x):
        return x
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return math.copysign(t, x)


def _rsqrt(x: float) -> float:
    with np.errstate(all="ignore"):
        return float(np.float64(1.0) / np.sqrt(np.float64(x)))


UNARY_REAL: dict[str, tuple[Callable[[float], float], np.ufunc | None]] = {
    "math.sqrt": (_ieee(math.sqrt, np.sqrt), np.sqrt),
    "math.exp": (_ieee(math.exp, np.exp), np.exp),
    "math.exp2": (_ieee(math.exp2, np.exp2), np.exp2),
    "math.expm1": (_ieee(math.expm1, np.expm1), np.expm1),
    "math.log": (_ieee(math.log, np.log), np.log),
    "math.log2": (_ieee(math.log2, np.log2), np.log2),
    "math.log10": (_ieee(math.log10, np.log10), np.log10),
    "math.log1p": (_ieee(math.log1p, np.log1p), np.log1p),
    "math.sin": (_ieee(math.sin, np.sin), np.sin),
    "math.cos": (_ieee(math.cos, np.cos), np.cos),
    "math.tan": (_ieee(math.tan, np.tan), np.tan),
    "math.asin": (_ieee(math.asin, np.arcsin), np.arcsin),
    "math.acos": (_ieee(math.acos, np.arccos), np.arccos),
    "math.atan": (_ieee(math.atan, np.arctan), np.arctan),
    "math.sinh": (_ieee(math.sinh, np.sinh), np.sinh),
    "math.cosh": (_ieee(math.cosh, np.cosh), np.cosh),
    "math.tanh": (_ieee(math.tanh, np.tanh), np.tanh),
    "math.asinh": (_ieee(math.asinh, np.arcsinh), np.arcsinh),
    "math.acosh": (_ieee(math.acosh, np.arccosh), np.arccosh),
    "math.atanh": (_ieee(math.atanh, np.arctanh), np.arctanh),
    "math.erf": (math.erf, None),  # never raises; numpy has no erf
    "math.cbrt": (_ieee(math.cbrt, np.cbrt), np.cbrt),
    # math.floor/ceil/trunc return ints and lose -0.0: numpy's are IEEE.
    "math.floor": (_numpy_only(np.floor), np.floor),
    "math.ceil": (_numpy_only(np.ceil), np.ceil),
    "math.trunc": (_numpy_only(np.trunc), np.trunc),
    "math.roundeven": (_numpy_only(np.rint), np.rint),
    "math.round": (_round_away, None),
    "math.rsqrt": (_rsqrt, None),
}
"""Real functions of one real: op name -> (scalar function, numpy ufunc or None).
The ufunc is what `vectorise.py` may use on whole arrays, after checking that it agrees
with the scalar function on this machine."""


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


@helper
def powf(x: float, y: float) -> float:
    """C `pow` (IEEE: `0.0 pow 0.0 = 1.0`, `0.0 pow -1.0 = inf`, overflow to inf)."""
    try:
        return math.pow(x, y)
    except (ValueError, OverflowError, ZeroDivisionError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(x), np.float64(y)))


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
