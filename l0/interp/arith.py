"""Scalar `arith` ops in the interpreter (docs/reference.md §5, `docs/ir.md`).

Integers are Python ints kept in the signed range of their width (i64: L0's wrapping
`int`); i1 values are Python bools, whose signed value is 0 or -1 as in MLIR. Results of
`+ - *` and shifts are wrapped to the width. Reals are Python floats (IEEE doubles), and
no Python exception may escape an op: real division by zero gives an infinity or NaN.

Note [Integer faults]
~~~~~~~~~~~~~~~~~~~~~
The IR guards integer division by an explicit `soac.assert`, but the interpreter still
raises `L0Error` (kind `runtime-error`) for a zero divisor instead of inventing a value,
for `fptosi` of NaN, an infinity or a real outside the integer range (the original gave
a meaningless number), and for a negative shift count. The op's location is its own
`loc` attribute, which the internaliser gives the shifts and `fptosi` (Note [Locations of
failing arith ops] in `l0.internalise.operators`), else that of the nearest enclosing op
with one. xDSL marks `floordivsi` and `remsi`
`Pure`, so a pass could speculate them above their guard (e.g. out of a loop that runs
zero times); such a pass breaks the program's meaning and this interpreter reports it.

Shifts follow Haskell's `shiftL`/`shiftR` on a 64-bit `Int`, which the 2014 interpreter
used: a count of 64 or more shifts every bit out (0, or -1 for `>>` of a negative
number); a negative count is a run-time error.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np
from xdsl.dialects import arith, builtin
from xdsl.ir import Attribute, Operation

from l0.diagnostics import L0Error, Loc
from l0.interp.core import Emitter, InternalError, dtype_of, emits, helper, int_width
from l0.scalars import fdiv0, wrap64, wrap_signed

_MIN64 = "-0x8000000000000000"
_MAX64 = "0x7fffffffffffffff"
_NAN = float("nan")


# ---------------------------------------------------------------------------------------
# Run-time helpers
# ---------------------------------------------------------------------------------------


# The scalar semantics shared with `simplify` (`l0.scalars`), callable by generated code.
helper(wrap64)
helper(fdiv0)


@helper
def wrapn(x: int, w: int) -> Any:
    """`x` wrapped to a signed `w`-bit integer (a bool for w = 1)."""
    return bool(x & 1) if w == 1 else wrap_signed(x, w)


def _unsigned(x: int, w: int) -> int:
    return int(x) & ((1 << w) - 1)


@helper
def divzero(loc: Loc) -> NoReturn:
    raise L0Error(loc, "division by zero", "runtime-error")


@helper
def divsi(a: int, b: int, loc: Loc) -> int:
    """Division rounding toward zero."""
    if not b:
        divzero(loc)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@helper
def ceildivsi(a: int, b: int, loc: Loc) -> int:
    if not b:
        divzero(loc)
    return -((-a) // b)


@helper
def divui(a: int, b: int, w: int, loc: Loc) -> Any:
    ub = _unsigned(b, w)
    if not ub:
        divzero(loc)
    return wrapn(_unsigned(a, w) // ub, w)


@helper
def ceildivui(a: int, b: int, w: int, loc: Loc) -> Any:
    ub = _unsigned(b, w)
    if not ub:
        divzero(loc)
    return wrapn(-(-_unsigned(a, w) // ub), w)


@helper
def remui(a: int, b: int, w: int, loc: Loc) -> Any:
    ub = _unsigned(b, w)
    if not ub:
        divzero(loc)
    return wrapn(_unsigned(a, w) % ub, w)


def _bad_shift(count: int, loc: Loc) -> NoReturn:
    raise L0Error(loc, f"shift by a negative amount: {count}", "runtime-error")


@helper
def shl(a: int, b: int, w: int, loc: Loc) -> Any:
    """`a << b` (Note [Integer faults])."""
    if b < 0:
        _bad_shift(b, loc)
    return wrapn(a << b, w) if b < w else wrapn(0, w)


@helper
def shrs(a: int, b: int, w: int, loc: Loc) -> Any:
    """Arithmetic `a >> b` (Note [Integer faults])."""
    if b < 0:
        _bad_shift(b, loc)
    return a >> min(b, w - 1) if w > 1 else a


@helper
def shru(a: int, b: int, w: int, loc: Loc) -> Any:
    """Logical shift right of the `w`-bit pattern of `a`."""
    if b < 0:
        _bad_shift(b, loc)
    return wrapn(_unsigned(a, w) >> b, w) if b < w else wrapn(0, w)


@helper
def maxui(a: int, b: int, w: int) -> int:
    return a if _unsigned(a, w) >= _unsigned(b, w) else b


@helper
def minui(a: int, b: int, w: int) -> int:
    return a if _unsigned(a, w) <= _unsigned(b, w) else b


@helper
def remf(a: float, b: float) -> float:
    """C `fmod`: the remainder with the sign of `a`; NaN for a zero `b` or infinite `a`."""
    try:
        return math.fmod(a, b)
    except ValueError:
        return _NAN


def _extreme(a: float, b: float, larger: bool) -> float:
    """The larger (or smaller) of `a` and `b` as LLVM's `maximum` and `minimum` choose:
    NaN if either is NaN, and -0.0 is less than +0.0."""
    if a != a or b != b:
        return _NAN
    if a == b:  # equal, or zeros of opposite signs
        a_first = (math.copysign(1.0, a) > 0) == larger
    else:
        a_first = (a > b) == larger
    return a if a_first else b


@helper
def maximumf(a: float, b: float) -> float:
    """LLVM `maximum`: NaN if either is NaN; +0.0 is greater than -0.0."""
    return _extreme(a, b, larger=True)


@helper
def minimumf(a: float, b: float) -> float:
    """LLVM `minimum`: NaN if either is NaN; -0.0 is less than +0.0."""
    return _extreme(a, b, larger=False)


def _unless_nan(a: float, b: float, pick: Callable[[float, float], float]) -> float:
    """The other operand when one is NaN, else `pick(a, b)` (IEEE `minNum`/`maxNum`)."""
    if a != a:
        return b
    if b != b:
        return a
    return pick(a, b)


@helper
def maxnumf(a: float, b: float) -> float:
    """IEEE `maxNum`: the other operand when one is NaN (then as `maximumf`)."""
    return _unless_nan(a, b, maximumf)


@helper
def minnumf(a: float, b: float) -> float:
    """IEEE `minNum`: the other operand when one is NaN (then as `minimumf`)."""
    return _unless_nan(a, b, minimumf)


@helper
def ftoi_error(x: float, loc: Loc) -> NoReturn:
    raise L0Error(
        loc,
        f"cannot convert the real {x!r} to an integer: expected a finite value in the "
        "integer range",
        "runtime-error",
    )


@helper
def bits_to_f64(a: int) -> float:
    return struct.unpack("<d", struct.pack("<q", a))[0]


@helper
def f64_to_bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


# ---------------------------------------------------------------------------------------
# Emission helpers
# ---------------------------------------------------------------------------------------


def is_i1(t: Attribute) -> bool:
    return isinstance(t, builtin.IntegerType) and t.width.data == 1


def emit_wrap(e: Emitter, r: str, w: int) -> None:
    """Wrap the Python int in `r` to a `w`-bit signed integer (a bool for w = 1)."""
    if w == 64:
        e.line(f"if not {_MIN64} <= {r} <= {_MAX64}: {r} = wrap64({r})")
    else:
        e.line(f"{r} = wrapn({r}, {w})")


def float_literal(e: Emitter, x: float) -> str:
    if math.isfinite(x):
        return repr(x)
    return e.const(x, ("float", repr(x)))


def _operands(e: Emitter, op: Operation) -> tuple[str, str, str]:
    """Names of the result and the two operands of a binary op."""
    a, b = e.names(op.operands)
    return e.name(op.results[0]), a, b


# ---------------------------------------------------------------------------------------
# Constants and select
# ---------------------------------------------------------------------------------------


@emits("arith.constant")
def _constant(e: Emitter, op: Operation) -> None:
    assert isinstance(op, arith.ConstantOp)
    r = e.name(op.result)
    v = op.value
    if isinstance(v, builtin.IntegerAttr):
        data = v.value.data
        t = v.type
        if is_i1(t):
            e.line(f"{r} = {bool(data)}")
        elif isinstance(t, builtin.IndexType):
            e.line(f"{r} = {data}")
        else:
            e.line(f"{r} = {wrapn(data, int_width(t))}")
        return
    if isinstance(v, builtin.FloatAttr):
        if not isinstance(v.type, builtin.Float64Type):
            raise InternalError(f"the interpreter supports f64 reals only, found {v.type}")
        e.line(f"{r} = {float_literal(e, v.value.data)}")
        return
    if isinstance(v, builtin.DenseIntOrFPElementsAttr):
        e.line(f"{r} = {e.const(_dense_array(v))}")
        return
    raise InternalError(f"the interpreter does not support the constant {v}")


def _dense_array(v: builtin.DenseIntOrFPElementsAttr) -> Any:
    """A dense tensor constant as a read-only numpy array (Note [Fresh buffers and
    in-place updates] in core.py: updating it in place would be a bug)."""
    t = v.type
    assert isinstance(t, builtin.TensorType)
    values: Sequence[object] = v.get_values()
    if is_i1(t.element_type):
        values = [bool(x) for x in values]
    a = np.array(values, dtype=dtype_of(t)).reshape(tuple(t.get_shape()))
    a.flags.writeable = False
    return a


@emits("arith.select")
def _select(e: Emitter, op: Operation) -> None:
    c, a, b = e.names(op.operands)
    e.line(f"{e.name(op.results[0])} = {a} if {c} else {b}")


# ---------------------------------------------------------------------------------------
# Integer arithmetic
# ---------------------------------------------------------------------------------------

# Ops on the signed values whose result needs wrapping to the width.
_WRAPPING = {"arith.addi": "{a} + {b}", "arith.subi": "{a} - {b}", "arith.muli": "{a} * {b}"}
# On i1 (bools) the same ops, modulo 2.
_I1_WRAPPING = {"arith.addi": "{a} ^ {b}", "arith.subi": "{a} ^ {b}", "arith.muli": "{a} & {b}"}


@emits(*_WRAPPING)
def _wrapping(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    t = op.results[0].type
    if is_i1(t):
        e.line(f"{r} = " + _I1_WRAPPING[op.name].format(a=a, b=b))
        return
    e.line(f"{r} = " + _WRAPPING[op.name].format(a=a, b=b))
    emit_wrap(e, r, int_width(t))


@emits("arith.andi", "arith.ori", "arith.xori")
def _bitwise(e: Emitter, op: Operation) -> None:
    # & | ^ of in-range signed ints (or of bools) stay in range.
    r, a, b = _operands(e, op)
    sym = {"arith.andi": "&", "arith.ori": "|", "arith.xori": "^"}[op.name]
    e.line(f"{r} = {a} {sym} {b}")


@emits("arith.maxsi", "arith.minsi")
def _minmax_signed(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    if is_i1(op.results[0].type):  # signed i1: true (-1) < false (0)
        e.line(f"{r} = {a} {'&' if op.name == 'arith.maxsi' else '|'} {b}")
        return
    cmp = ">=" if op.name == "arith.maxsi" else "<="
    e.line(f"{r} = {a} if {a} {cmp} {b} else {b}")


@emits("arith.maxui", "arith.minui")
def _minmax_unsigned(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    fn = "maxui" if op.name == "arith.maxui" else "minui"
    e.line(f"{r} = {fn}({a}, {b}, {int_width(op.results[0].type)})")


def _signed_operands(op: Operation, a: str, b: str) -> tuple[str, str]:
    """Operands as signed ints: i1 `true` is -1."""
    if is_i1(op.operands[0].type):
        return f"(-{a})", f"(-{b})"
    return a, b


def _signed_division(e: Emitter, op: Operation) -> tuple[str, str, str, int]:
    """The result name, the operands as signed ints and the width of a signed division."""
    r, a, b = _operands(e, op)
    a, b = _signed_operands(op, a, b)
    return r, a, b, int_width(op.results[0].type)


@emits("arith.floordivsi")
def _floordivsi(e: Emitter, op: Operation) -> None:
    r, a, b, w = _signed_division(e, op)
    e.line(f"{r} = {a} // {b} if {b} else divzero({e.loc(op)})")
    if w == 64:  # only MIN // -1 overflows
        e.line(f"if {r} == 0x8000000000000000: {r} = {_MIN64}")
    else:
        emit_wrap(e, r, w)


@emits("arith.divsi", "arith.ceildivsi")
def _divsi(e: Emitter, op: Operation) -> None:
    r, a, b, w = _signed_division(e, op)
    fn = "divsi" if op.name == "arith.divsi" else "ceildivsi"
    e.line(f"{r} = {fn}({a}, {b}, {e.loc(op)})")
    emit_wrap(e, r, w)


@emits("arith.remsi")
def _remsi(e: Emitter, op: Operation) -> None:
    r, a, b, w = _signed_division(e, op)
    # Python's % floors; the remainder of truncating division has the sign of a.
    e.line(f"{r} = {a} % {b} if {b} else divzero({e.loc(op)})")
    e.line(f"if {r} and ({r} < 0) != ({a} < 0): {r} -= {b}")
    if w == 1:
        emit_wrap(e, r, w)


@emits("arith.divui", "arith.remui", "arith.ceildivui")
def _unsigned_div(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    fn = op.name.removeprefix("arith.")
    e.line(f"{r} = {fn}({a}, {b}, {int_width(op.results[0].type)}, {e.loc(op)})")


@emits("arith.shli", "arith.shrsi", "arith.shrui")
def _shift(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    fn = {"arith.shli": "shl", "arith.shrsi": "shrs", "arith.shrui": "shru"}[op.name]
    w = int_width(op.results[0].type)
    if w == 1:  # the value as signed; the count stays unsigned
        a = f"(-{a})"
    e.line(f"{r} = {fn}({a}, {b}, {w}, {e.loc(op)})")
    if w == 1 and op.name == "arith.shrsi":
        emit_wrap(e, r, w)


# Predicates by index (arith.CMPI_COMPARISON_OPERATIONS).
_CMPI_SIGNED = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">="}
_CMPI_UNSIGNED = {6: "<", 7: "<=", 8: ">", 9: ">="}


@emits("arith.cmpi")
def _cmpi(e: Emitter, op: Operation) -> None:
    assert isinstance(op, arith.CmpiOp)
    r, a, b = _operands(e, op)
    p = op.predicate.value.data
    t = op.lhs.type
    if p in (0, 1):
        e.line(f"{r} = {a} {_CMPI_SIGNED[p]} {b}")
    elif p in _CMPI_SIGNED:
        a, b = _signed_operands(op, a, b)
        e.line(f"{r} = {a} {_CMPI_SIGNED[p]} {b}")
    elif is_i1(t):  # bools compare as 0 and 1
        e.line(f"{r} = {a} {_CMPI_UNSIGNED[p]} {b}")
    else:
        mask = hex((1 << int_width(t)) - 1)
        e.line(f"{r} = ({a} & {mask}) {_CMPI_UNSIGNED[p]} ({b} & {mask})")


# Templates by predicate index (arith.CMPF_COMPARISON_OPERATIONS): "o" predicates are
# false when either operand is NaN, "u" ones true; Python's comparisons are ordered,
# except `!=`, which is `une`.
CMPF_TEMPLATES = {
    0: "False",
    1: "{a} == {b}",
    2: "{a} > {b}",
    3: "{a} >= {b}",
    4: "{a} < {b}",
    5: "{a} <= {b}",
    6: "({a} < {b} or {a} > {b})",
    7: "({a} == {a} and {b} == {b})",
    8: "not ({a} < {b} or {a} > {b})",
    9: "not ({a} <= {b})",
    10: "not ({a} < {b})",
    11: "not ({a} >= {b})",
    12: "not ({a} > {b})",
    13: "{a} != {b}",
    14: "({a} != {a} or {b} != {b})",
    15: "True",
}


@emits("arith.cmpf")
def _cmpf(e: Emitter, op: Operation) -> None:
    assert isinstance(op, arith.CmpfOp)
    r, a, b = _operands(e, op)
    e.line(f"{r} = " + CMPF_TEMPLATES[op.predicate.value.data].format(a=a, b=b))


# ---------------------------------------------------------------------------------------
# Real arithmetic
# ---------------------------------------------------------------------------------------


@emits("arith.addf", "arith.subf", "arith.mulf")
def _float_binop(e: Emitter, op: Operation) -> None:
    # Python float + - * are IEEE and never raise (overflow gives an infinity).
    r, a, b = _operands(e, op)
    sym = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*"}[op.name]
    e.line(f"{r} = {a} {sym} {b}")


@emits("arith.divf")
def _divf(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    e.line(f"{r} = {a} / {b} if {b} else fdiv0({a}, {b})")


@emits("arith.remf", "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf")
def _float_helper_binop(e: Emitter, op: Operation) -> None:
    r, a, b = _operands(e, op)
    e.line(f"{r} = {op.name.removeprefix('arith.')}({a}, {b})")


@emits("arith.negf")
def _negf(e: Emitter, op: Operation) -> None:
    e.line(f"{e.name(op.results[0])} = -{e.name(op.operands[0])}")


# ---------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------


@emits("arith.sitofp", "arith.uitofp")
def _itofp(e: Emitter, op: Operation) -> None:
    r, a = e.name(op.results[0]), e.name(op.operands[0])
    t = op.operands[0].type
    if is_i1(t):
        true = "-1.0" if op.name == "arith.sitofp" else "1.0"
        e.line(f"{r} = {true} if {a} else 0.0")
    elif op.name == "arith.sitofp":
        e.line(f"{r} = float({a})")  # correctly rounded, as a C conversion
    else:
        e.line(f"{r} = float({a} & {hex((1 << int_width(t)) - 1)})")


@emits("arith.fptosi", "arith.fptoui")
def _fptoi(e: Emitter, op: Operation) -> None:
    r, x = e.name(op.results[0]), e.name(op.operands[0])
    w = int_width(op.results[0].type)
    lo, hi = (-(1 << (w - 1)), 1 << (w - 1)) if op.name == "arith.fptosi" else (0, 1 << w)
    # int() truncates toward zero; Python compares the float and int bounds exactly, and
    # NaN fails every comparison.
    e.line(f"{r} = int({x}) if {lo} <= {x} < {hi} else ftoi_error({x}, {e.loc(op)})")
    if op.name == "arith.fptoui" or w == 1:
        e.line(f"{r} = wrapn({r}, {w})")


def _int_resize(e: Emitter, r: str, a: str, src: Attribute, dst: Attribute, signed: bool) -> None:
    ws, wd = int_width(src), int_width(dst)
    if wd < ws:
        e.line(f"{r} = wrapn({a}, {wd})")
    elif is_i1(src):
        e.line(f"{r} = {'-' if signed and wd > 1 else ''}int({a})")
    elif wd > ws and not signed:
        e.line(f"{r} = {a} & {hex((1 << ws) - 1)}")
    else:
        e.line(f"{r} = {a}")


@emits("arith.extsi", "arith.trunci", "arith.index_cast")
def _extsi(e: Emitter, op: Operation) -> None:
    src, dst = op.operands[0].type, op.results[0].type
    _int_resize(e, e.name(op.results[0]), e.name(op.operands[0]), src, dst, signed=True)


@emits("arith.extui", "arith.index_castui")
def _extui(e: Emitter, op: Operation) -> None:
    src, dst = op.operands[0].type, op.results[0].type
    _int_resize(e, e.name(op.results[0]), e.name(op.operands[0]), src, dst, signed=False)


@emits("arith.bitcast")
def _bitcast(e: Emitter, op: Operation) -> None:
    r, a = e.name(op.results[0]), e.name(op.operands[0])
    src, dst = op.operands[0].type, op.results[0].type
    if src == dst:
        e.line(f"{r} = {a}")
    elif isinstance(src, builtin.Float64Type) and dst == builtin.i64:
        e.line(f"{r} = f64_to_bits({a})")
    elif src == builtin.i64 and isinstance(dst, builtin.Float64Type):
        e.line(f"{r} = bits_to_f64({a})")
    else:
        raise InternalError(f"the interpreter does not support arith.bitcast {src} to {dst}")
