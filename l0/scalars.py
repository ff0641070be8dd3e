"""The meaning of L0's scalar operations where Python's own differs: what the
interpreter computes at run time and what `simplify` folds at compile time, defined
once so the two cannot disagree (docs/reference.md §§3 and 5).

Integers are Python ints kept in the signed range of their width (i64: L0's wrapping
`int`). Reals are Python floats (IEEE doubles) and follow the C library, which the CPU
back end calls: Python's `math` functions are libm's, and where they raise instead of
returning an IEEE special value (`1.0 / 0.0`, `sqrt(-1)`, `log(0)`, `exp(1000)`,
`pow(0, -1)`) the value is taken from numpy, which returns it: an infinity or NaN.
No Python exception escapes a function here.

This module is at the bottom: it imports neither xDSL nor any other part of l0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

_INF = float("inf")
_NAN = float("nan")

# ---------------------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------------------


def wrap64(x: int) -> int:
    """`x` wrapped to a signed 64-bit integer."""
    return ((x + 0x8000000000000000) & 0xFFFFFFFFFFFFFFFF) - 0x8000000000000000


def wrap_signed(x: int, width: int) -> int:
    """`x` wrapped to a signed `width`-bit integer (two's complement; 0 or -1 for one bit)."""
    half = 1 << (width - 1)
    return ((x + half) & ((1 << width) - 1)) - half


# ---------------------------------------------------------------------------------------
# Reals
# ---------------------------------------------------------------------------------------


def fdiv0(a: float, b: float) -> float:
    """`a / b` for a zero `b` (IEEE: a signed infinity, or NaN for 0/0 and NaN/0)."""
    if a != a or a == 0.0:
        return _NAN
    return math.copysign(_INF, a) * math.copysign(1.0, b)


def divf(a: float, b: float) -> float:
    """IEEE `a / b`, division by zero included."""
    return a / b if b else fdiv0(a, b)


def powf(x: float, y: float) -> float:
    """C `pow` (IEEE: `0.0 pow 0.0 = 1.0`, `0.0 pow -1.0 = inf`, overflow to inf)."""
    try:
        return math.pow(x, y)
    except (ValueError, OverflowError, ZeroDivisionError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(x), np.float64(y)))


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
"""Real functions of one real, by the name of their `math` op: (the scalar function,
the numpy ufunc computing the same function on arrays, or None). Whether the ufunc
gives the scalar function's bits on this machine is for its user to check (the
interpreter's vectoriser does)."""
