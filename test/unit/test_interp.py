"""Tests of the reference interpreter (`l0.interp`) on hand-written soac-level IR.

Each test parses a small module in the soac dialect's syntax and calls one function.
The vectorised and per-element evaluations of lambdas are compared on random inputs
(hypothesis), bit for bit, faults included.
"""

from __future__ import annotations

import io
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from l0 import scalars
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects.context import l0_context
from l0.interp import InternalError, Interpreter, vectorise
from l0.values import CHECKED

I64_MIN = -(2**63)
I64_MAX = 2**63 - 1


def parse(src: str) -> ModuleOp:
    module = Parser(l0_context(), src).parse_module()
    module.verify()
    return module


def run(src: str, name: str, *args: Any, **options: Any) -> list[Any]:
    return Interpreter(parse(src), **options).call(name, list(args))


def run1(src: str, name: str, *args: Any, **options: Any) -> Any:
    (r,) = run(src, name, *args, **options)
    return r


VECTOR = {"vector_min_length": 1}
PER_ELEMENT = {"vector_min_length": None}


_CANONICAL_NAN = np.float64("nan").view(np.int64)


def _bits(a: np.ndarray) -> np.ndarray:
    """Reals as their bits, so -0.0 and 0.0 differ; all NaNs alike (their sign and
    payload cannot be observed in L0: NaN prints as `NaN`, compares false)."""
    return np.where(np.isnan(a), _CANONICAL_NAN, np.asarray(a, np.float64).view(np.int64))


def outcome(interp: Interpreter, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
    """The results of a call as comparable data, or the error it raised."""
    try:
        results = interp.call(name, list(args))
    except L0Error as err:
        return ("error", err.render(), err.kind)
    out: list[Any] = []
    for r in results:
        if isinstance(r, np.ndarray):
            data = _bits(r) if r.dtype == np.float64 else r
            out.append((r.dtype.str, r.shape, data.tolist()))
        elif isinstance(r, float):
            out.append(("f", _bits(np.array([r])).item()))
        else:
            out.append((type(r).__name__, r))
    return ("ok", *out)


def both_ways(src: str, name: str, *args: Any) -> tuple[Any, ...]:
    """Run vectorised and per-element; they must agree exactly. Returns the outcome."""
    module = parse(src)
    vec = outcome(Interpreter(module, **VECTOR), name, args)
    per = outcome(Interpreter(module, **PER_ELEMENT), name, args)
    assert vec == per
    return per


def is_vectorised(src: str, name: str) -> bool:
    return "np.errstate" in Interpreter(parse(src), **VECTOR).source(name)


# ---------------------------------------------------------------------------------------
# Scalar arith and math ops
# ---------------------------------------------------------------------------------------


def binop(op: str, t: str, rt: str | None = None) -> str:
    rt = rt or t
    return f"""
func.func @f(%a: {t}, %b: {t}) -> {rt} {{
  %r = {op} %a, %b : {t}
  func.return %r : {rt}
}}"""


def unop(op: str, t: str, rt: str | None = None, suffix: str = "") -> str:
    rt = rt or t
    return f"""
func.func @f(%a: {t}) -> {rt} {{
  %r = {op} %a : {t}{suffix}
  func.return %r : {rt}
}}"""


INT_CASES = [
    ("arith.addi", I64_MAX, 1, I64_MIN),
    ("arith.subi", I64_MIN, 1, I64_MAX),
    ("arith.muli", 2**62, 4, 0),
    ("arith.muli", 3037000500, 3037000500, -9223372036709301616),
    ("arith.floordivsi", -7, 2, -4),
    ("arith.floordivsi", 7, -2, -4),
    ("arith.floordivsi", -7, -2, 3),
    ("arith.floordivsi", I64_MIN, -1, I64_MIN),
    ("arith.divsi", -7, 2, -3),
    ("arith.divsi", 7, -2, -3),
    ("arith.ceildivsi", 7, 2, 4),
    ("arith.remsi", -7, 2, -1),
    ("arith.remsi", 7, -2, 1),
    ("arith.remsi", I64_MIN, -1, 0),
    ("arith.divui", -1, 2, I64_MAX),
    ("arith.remui", -1, 10, 5),
    ("arith.andi", 12, 10, 8),
    ("arith.ori", 12, 10, 14),
    ("arith.xori", 12, 10, 6),
    ("arith.shli", 1, 63, I64_MIN),
    ("arith.shli", 1, 64, 0),
    ("arith.shli", 3, 200, 0),
    ("arith.shrsi", -8, 1, -4),
    ("arith.shrsi", -8, 64, -1),
    ("arith.shrsi", 8, 100, 0),
    ("arith.shrui", -1, 60, 15),
    ("arith.maxsi", -3, 2, 2),
    ("arith.minsi", -3, 2, -3),
    ("arith.maxui", -3, 2, -3),
    ("arith.minui", -3, 2, 2),
    ("math.ipowi", 3, 40, -6289078614652622815),
    ("math.ipowi", 0, 0, 1),
    ("math.ipowi", -2, 63, I64_MIN),
    ("math.ipowi", 7, 0, 1),
]


@pytest.mark.parametrize(("op", "a", "b", "expected"), INT_CASES)
def test_int_binops(op: str, a: int, b: int, expected: int) -> None:
    r = run1(binop(op, "i64"), "f", a, b)
    assert type(r) is int and r == expected


def test_floor_division_and_modulo_compose_like_l0() -> None:
    # L0's % is floor modulo, composed from remsi, cmpi, addi and select (docs/ir.md).
    src = """
func.func @mod(%a: i64, %b: i64) -> (i64, i64) {
  %zero = arith.constant 0 : i64
  %q = arith.floordivsi %a, %b : i64
  %r = arith.remsi %a, %b : i64
  %rneg = arith.cmpi slt, %r, %zero : i64
  %bneg = arith.cmpi slt, %b, %zero : i64
  %differ = arith.xori %rneg, %bneg : i1
  %nonzero = arith.cmpi ne, %r, %zero : i64
  %fix = arith.andi %differ, %nonzero : i1
  %rb = arith.addi %r, %b : i64
  %m = arith.select %fix, %rb, %r : i64
  func.return %q, %m : i64, i64
}"""
    interp = Interpreter(parse(src))
    for a in (-7, 7, 0, 13, -13, I64_MIN, I64_MAX):
        for b in (2, -2, 5, -5, 1, -1, I64_MAX):
            q, m = interp.call("mod", [a, b])
            assert (q, m) == (((a // b) + 2**63) % 2**64 - 2**63, a % b), (a, b)


@pytest.mark.parametrize("op", ["arith.floordivsi", "arith.divsi", "arith.remsi",
                                "arith.ceildivsi", "arith.divui", "arith.remui"])
def test_integer_division_by_zero_is_a_runtime_error(op: str) -> None:
    with pytest.raises(L0Error) as info:
        run(binop(op, "i64"), "f", 5, 0)
    assert info.value.kind == "runtime-error"
    assert "division by zero" in info.value.message


@pytest.mark.parametrize("op", ["arith.shli", "arith.shrsi", "arith.shrui"])
def test_negative_shift_is_a_runtime_error(op: str) -> None:
    with pytest.raises(L0Error, match="negative amount: -1"):
        run(binop(op, "i64"), "f", 5, -1)


def test_ipowi_negative_exponent_is_a_runtime_error() -> None:
    with pytest.raises(L0Error, match="negative exponent"):
        run(binop("math.ipowi", "i64"), "f", 2, -1)


def test_cmpi_predicates() -> None:
    preds = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
    for p in preds:
        src = binop(f"arith.cmpi {p},", "i64", "i1")
        interp = Interpreter(parse(src))
        for a, b in [(-1, 1), (1, -1), (3, 3), (I64_MIN, I64_MAX)]:
            ua, ub = a % 2**64, b % 2**64
            expected = {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b,
                        "sgt": a > b, "sge": a >= b, "ult": ua < ub, "ule": ua <= ub,
                        "ugt": ua > ub, "uge": ua >= ub}[p]
            (r,) = interp.call("f", [a, b])
            assert r is expected, (p, a, b)


def test_i1_ops_are_bools() -> None:
    for op, expected in [("arith.andi", False), ("arith.ori", True), ("arith.xori", True),
                         ("arith.addi", True), ("arith.muli", False)]:
        r = run1(binop(op, "i1"), "f", True, False)
        assert r is expected, op
    # signed i1: true is -1, less than false
    assert run1(binop("arith.cmpi slt,", "i1", "i1"), "f", True, False) is True
    assert run1(binop("arith.maxsi", "i1"), "f", True, False) is False


NAN = float("nan")
INF = float("inf")


def test_cmpf_predicates_and_nan() -> None:
    preds = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
             "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]
    for p in preds:
        interp = Interpreter(parse(binop(f"arith.cmpf {p},", "f64", "i1")))
        for a, b in [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (NAN, 1.0), (1.0, NAN), (-0.0, 0.0)]:
            unordered = math.isnan(a) or math.isnan(b)
            base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b,
                    "ne": not unordered and a != b}
            if p in ("false", "true"):
                expected = p == "true"
            elif p == "ord":
                expected = not unordered
            elif p == "uno":
                expected = unordered
            elif p[0] == "o":
                expected = not unordered and base[p[1:]]
            else:
                expected = unordered or base[p[1:]]
            (r,) = interp.call("f", [a, b])
            assert r is expected, (p, a, b)


FLOAT_CASES: list[tuple[str, float, float, float]] = [
    ("arith.divf", 1.0, 0.0, INF),
    ("arith.divf", -1.0, 0.0, -INF),
    ("arith.divf", 1.0, -0.0, -INF),
    ("arith.divf", 0.0, 0.0, NAN),
    ("arith.divf", 7.0, 2.0, 3.5),
    ("arith.mulf", 1e308, 10.0, INF),
    ("arith.addf", 1e308, 1e308, INF),
    ("arith.subf", 0.1, 0.3, 0.1 - 0.3),
    ("arith.maximumf", -0.0, 0.0, 0.0),
    ("arith.minimumf", -0.0, 0.0, -0.0),
    ("arith.maximumf", NAN, 1.0, NAN),
    ("arith.maxnumf", NAN, 1.0, 1.0),
    ("math.powf", 0.0, 0.0, 1.0),
    ("math.powf", 0.0, -1.0, INF),
    ("math.powf", -8.0, 1.0 / 3.0, NAN),
    ("math.powf", 10.0, 400.0, INF),
    ("math.powf", -10.0, 401.0, -INF),
    ("math.powf", 2.0, 0.5, math.sqrt(2.0)),
    ("math.copysign", 3.0, -0.0, -3.0),
    ("math.atan2", 1.0, 1.0, math.atan2(1.0, 1.0)),
]


def same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


@pytest.mark.parametrize(("op", "a", "b", "expected"), FLOAT_CASES)
def test_float_binops(op: str, a: float, b: float, expected: float) -> None:
    r = run1(binop(op, "f64"), "f", a, b)
    assert type(r) is float and same_float(r, expected)


UNARY_CASES: list[tuple[str, float, float]] = [
    ("math.sqrt", -1.0, NAN),
    ("math.sqrt", 4.0, 2.0),
    ("math.sqrt", -0.0, -0.0),
    ("math.log", 0.0, -INF),
    ("math.log", -1.0, NAN),
    ("math.log", math.e, 1.0),
    ("math.exp", 1000.0, INF),
    ("math.exp", -INF, 0.0),
    ("math.exp", 1.0, math.exp(1.0)),
    ("arith.negf", 0.0, -0.0),
    ("math.absf", -0.0, 0.0),
    ("math.floor", -0.5, -1.0),
    ("math.ceil", -0.5, -0.0),
    ("math.trunc", -2.7, -2.0),
    ("math.round", 2.5, 3.0),
    ("math.round", -2.5, -3.0),
    ("math.round", 0.49999999999999994, 0.0),
    ("math.roundeven", 2.5, 2.0),
    ("math.log10", 1000.0, 3.0),
    ("math.tanh", INF, 1.0),
]


@pytest.mark.parametrize(("op", "a", "expected"), UNARY_CASES)
def test_float_unops(op: str, a: float, expected: float) -> None:
    r = run1(unop(op, "f64"), "f", a)
    assert type(r) is float and same_float(r, expected)


def test_conversions() -> None:
    assert run1(unop("arith.sitofp", "i64", "f64", " to f64"), "f", -3) == -3.0
    assert run1(unop("arith.sitofp", "i64", "f64", " to f64"), "f", 2**63 - 1) == 2.0**63
    fptosi = unop("arith.fptosi", "f64", "i64", " to i64")
    assert run1(fptosi, "f", -2.9) == -2
    assert run1(fptosi, "f", 2.9) == 2
    assert run1(fptosi, "f", -(2.0**63)) == I64_MIN
    for bad in (NAN, INF, -INF, 2.0**63, 1e30):
        with pytest.raises(L0Error, match="cannot convert the real") as info:
            run(fptosi, "f", bad)
        assert info.value.kind == "runtime-error"
    assert run1(unop("arith.extui", "i1", "i64", " to i64"), "f", True) == 1
    assert run1(unop("arith.extsi", "i1", "i64", " to i64"), "f", True) == -1
    assert run1(unop("arith.trunci", "i64", "i32", " to i32"), "f", 2**31) == -(2**31)
    assert run1(unop("arith.index_cast", "i64", "index", " to index"), "f", -5) == -5
    assert run1(unop("arith.bitcast", "f64", "i64", " to i64"), "f", 1.0) == 0x3FF0000000000000


def test_absi_wraps() -> None:
    assert run1(unop("math.absi", "i64"), "f", -5) == 5
    assert run1(unop("math.absi", "i64"), "f", I64_MIN) == I64_MIN


def test_constants_select_and_dense() -> None:
    src = """
func.func @f(%c: i1) -> (i64, f64, i1, f64, tensor<2x2xi64>, f64) {
  %a = arith.constant -9223372036854775808 : i64
  %b = arith.constant 0x7FF0000000000000 : f64
  %t = arith.constant true
  %m = arith.constant -0.0 : f64
  %d = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %one = arith.constant 1.0 : f64
  %s = arith.select %c, %one, %m : f64
  func.return %a, %b, %t, %m, %d, %s : i64, f64, i1, f64, tensor<2x2xi64>, f64
}"""
    a, b, t, m, d, s = run(src, "f", False)
    assert a == I64_MIN and b == INF and t is True and same_float(m, -0.0)
    assert d.tolist() == [[1, 2], [3, 4]] and not d.flags.writeable
    assert same_float(s, -0.0)


# ---------------------------------------------------------------------------------------
# Control flow and calls
# ---------------------------------------------------------------------------------------

FACT = """
func.func @fact(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %c = arith.cmpi sle, %n, %zero : i64
  %r = scf.if %c -> (i64) {
    scf.yield %one : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = func.call @fact(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  func.return %r : i64
}
func.func @count(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %c = arith.cmpi sle, %n, %zero : i64
  %r = scf.if %c -> (i64) {
    scf.yield %zero : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = func.call @count(%m) : (i64) -> i64
    %p = arith.addi %f, %one : i64
    scf.yield %p : i64
  }
  func.return %r : i64
}
"""


def test_recursion() -> None:
    interp = Interpreter(parse(FACT))
    assert interp.call("fact", [20]) == [2432902008176640000]
    assert interp.call("fact", [25]) == [7034535277573963776]  # 25! wrapped to 64 bits
    # Deep recursion runs on the big stack the drivers use. (call_with_big_stack raises the
    # recursion limit only after starting its thread, so raise it first.)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))
    assert call_with_big_stack(lambda: interp.call("count", [20000])) == [20000]


def test_scf_for_with_several_iter_args_and_zero_trips() -> None:
    src = """
func.func @fib(%n: i64) -> (i64, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r:2 = scf.for %i = %zero to %n step %one iter_args(%a = %zero, %b = %one) -> (i64, i64) : i64 {
    %s = arith.addi %a, %b : i64
    scf.yield %b, %s : i64, i64
  }
  func.return %r#0, %r#1 : i64, i64
}"""
    interp = Interpreter(parse(src))
    assert interp.call("fib", [10]) == [55, 89]
    assert interp.call("fib", [0]) == [0, 1]
    assert interp.call("fib", [-3]) == [0, 1]
    assert interp.call("fib", [100])[0] == wrap(354224848179261915075)


def wrap(x: int) -> int:
    return (x + 2**63) % 2**64 - 2**63


def test_scf_while_and_if_without_else() -> None:
    src = """
func.func @collatz(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %r:2 = scf.while (%x = %n, %k = %zero) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi ne, %x, %one : i64
    scf.condition(%go) %x, %k : i64, i64
  } do {
  ^bb0(%x2: i64, %k2: i64):
    %m = arith.remsi %x2, %two : i64
    %even = arith.cmpi eq, %m, %zero : i64
    %y = scf.if %even -> (i64) {
      %h = arith.floordivsi %x2, %two : i64
      scf.yield %h : i64
    } else {
      %t = arith.muli %x2, %three : i64
      %t1 = arith.addi %t, %one : i64
      scf.yield %t1 : i64
    }
    scf.if %even {
    }
    %k3 = arith.addi %k2, %one : i64
    scf.yield %y, %k3 : i64, i64
  }
  func.return %r#1 : i64
}"""
    assert run1(src, "collatz", 27) == 111


def test_deeply_nested_ifs_are_outlined() -> None:
    # A chain of 150 nested scf.if: deeper than CPython allows in one function.
    depth = 150
    lines = ["func.func @deep(%x: i64) -> i64 {", "  %one = arith.constant 1 : i64"]
    for i in range(depth):
        lines.append(f"  %c{i} = arith.cmpi sgt, %x, %one : i64")
        lines.append(f"  %r{i} = scf.if %c{i} -> (i64) {{")
    lines.append("  %z = arith.addi %x, %one : i64")
    lines.append("  scf.yield %z : i64")
    for i in reversed(range(depth)):
        lines.append("  } else {\n  scf.yield %one : i64\n  }")
        lines.append(f"  scf.yield %r{i} : i64" if i else "  func.return %r0 : i64")
    lines.append("}")
    interp = Interpreter(parse("\n".join(lines)))
    assert interp.call("deep", [5]) == [6]
    assert interp.call("deep", [0]) == [1]


def test_deeply_nested_loops_are_outlined() -> None:
    depth = 25  # CPython allows 20 nested loops in one function
    lines = ["func.func @loops(%n: i64) -> i64 {", "  %zero = arith.constant 0 : i64",
             "  %one = arith.constant 1 : i64"]
    for i in range(depth):
        acc = "%zero" if i == 0 else f"%a{i - 1}"
        lines.append(f"  %r{i} = scf.for %i{i} = %zero to %n step %one iter_args(%a{i} = {acc})"
                     " -> (i64) : i64 {")
    lines.append(f"  %s = arith.addi %a{depth - 1}, %one : i64")
    lines.append("  scf.yield %s : i64")
    for i in reversed(range(depth)):
        lines.append("  }")
        lines.append(f"  scf.yield %r{i} : i64" if i else "  func.return %r0 : i64")
    lines.append("}")
    assert run1("\n".join(lines), "loops", 1) == 1


def test_unknown_op_is_an_internal_error() -> None:
    src = """
func.func @f(%a: i64, %b: i64) -> i64 {
  %lo, %hi = arith.mulsi_extended %a, %b : i64
  func.return %lo : i64
}"""
    with pytest.raises(InternalError, match="arith.mulsi_extended"):
        run(src, "f", 1, 2)


# ---------------------------------------------------------------------------------------
# soac: certificates, asserts, trace
# ---------------------------------------------------------------------------------------

ASSERTS = """
func.func @check(%i: i64, %n: i64) -> !soac.cert {
  %zero = arith.constant 0 : i64
  %lo = arith.cmpi sle, %zero, %i : i64
  %hi = arith.cmpi slt, %i, %n : i64
  %ok = arith.andi %lo, %hi : i1
  %c = soac.assert %ok, "index {0} out of bounds for array of size {1} {braces}" (%i, %n : i64,
      i64) at "prog.l0:3:7"
  %d = soac.checked
  %e = soac.conjoin(%c, %d)
  func.return %e : !soac.cert
}"""


def test_assert_passes_and_fails_with_message_and_location() -> None:
    interp = Interpreter(parse(ASSERTS))
    assert interp.call("check", [1, 3]) == [CHECKED]
    with pytest.raises(L0Error) as info:
        interp.call("check", [5, 3])
    err = info.value
    assert err.kind == "runtime-error"
    assert (err.loc.file, err.loc.line, err.loc.col) == ("prog.l0", 3, 7)
    assert err.render() == "prog.l0:3:7: error: index 5 out of bounds for array of size 3 {braces}"


def test_trace_prints_and_returns_its_operands() -> None:
    src = """
func.func @f(%x: f64, %a: tensor<?xi64>, %s: tensor<?xi32>) -> (f64, tensor<?xi64>) {
  %r:3 = soac.trace(%x, %a, %s : f64, tensor<?xi64>, tensor<?xi32>) at "p.l0:1:5-1:12"
  func.return %r#0, %r#1 : f64, tensor<?xi64>
}"""
    out = io.StringIO()
    x, a = run(src, "f", 2.5, np.array([1, -2]), np.array([104, 105], dtype=np.int32),
               trace_stream=out)
    assert x == 2.5 and a.tolist() == [1, -2]
    assert out.getvalue() == "p.l0:1:5-1:12: 2.500000\np.l0:1:5-1:12: [1, -2]\np.l0:1:5-1:12: hi\n"


# ---------------------------------------------------------------------------------------
# soac: array ops
# ---------------------------------------------------------------------------------------

ARRAYS = """
func.func @create(%n: i64, %x: f64) -> (tensor<?xi64>, tensor<?xf64>, tensor<?x?xi64>,
    tensor<?x?xf64>, tensor<?x?xi1>, tensor<?x!soac.cert>) {
  %c = soac.checked
  %a = soac.iota %n <%c>
  %r = soac.replicate %n, %x <%c> : f64
  %rr = soac.replicate %n, %a : tensor<?xi64>
  %lit = soac.array [%r, %r] at "p.l0:1:9" : tensor<?x?xf64>
  %e = soac.empty : tensor<?x?xi1>
  %cs = soac.replicate %n, %c : !soac.cert
  func.return %a, %r, %rr, %lit, %e, %cs : tensor<?xi64>, tensor<?xf64>, tensor<?x?xi64>,
      tensor<?x?xf64>, tensor<?x?xi1>, tensor<?x!soac.cert>
}
func.func @sizes(%a: tensor<?x?xi64>) -> (i64, i64) {
  %s0 = soac.size(0) %a : tensor<?x?xi64>
  %s1 = soac.size(1) %a : tensor<?x?xi64>
  func.return %s0, %s1 : i64, i64
}
func.func @index(%a: tensor<?x?xi64>, %i: i64, %j: i64) -> (i64, tensor<?xi64>) {
  %e = soac.index %a[%i, %j] : tensor<?x?xi64> -> i64
  %row = soac.index %a[%i] : tensor<?x?xi64> -> tensor<?xi64>
  func.return %e, %row : i64, tensor<?xi64>
}
func.func @update(%a: tensor<?x?xi64>, %i: i64, %j: i64, %v: i64,
    %row: tensor<?xi64>) -> tensor<?x?xi64> {
  %b = soac.update %a[%i, %j] = %v : tensor<?x?xi64>
  %zero = arith.constant 0 : i64
  %c = soac.update %b[%zero] = %row : tensor<?x?xi64>
  func.return %c : tensor<?x?xi64>
}
func.func @shapes(%a: tensor<?xi64>, %d0: i64, %d1: i64, %k: i64) -> (tensor<?x?xi64>,
    tensor<?x?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %m = soac.reshape (%d0, %d1) %a : tensor<?xi64> -> tensor<?x?xi64>
  %t = soac.transpose(0, 1) %m : tensor<?x?xi64>
  %x, %y = soac.split %k, %a : tensor<?xi64>
  %yx = soac.concat %y, %x at "p.l0:2:3" : tensor<?xi64>
  %cp = soac.copy %a : tensor<?xi64>
  func.return %m, %t, %x, %y, %yx, %cp : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?xi64>,
      tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
func.func @transpose3(%a: tensor<?x?x?xi64>) -> (tensor<?x?x?xi64>, tensor<?x?x?xi64>) {
  %t = soac.transpose(1, 1) %a : tensor<?x?x?xi64>
  %u = soac.transpose(2, -2) %a : tensor<?x?x?xi64>
  func.return %t, %u : tensor<?x?x?xi64>, tensor<?x?x?xi64>
}
func.func @concat2(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %r = soac.concat %a, %b at "p.l0:7:1" : tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}
func.func @literal2(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?x?xi64> {
  %r = soac.array [%a, %b] at "p.l0:4:2" : tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}
"""


@pytest.fixture(scope="module")
def arrays() -> Interpreter:
    return Interpreter(parse(ARRAYS))


def test_creation_ops(arrays: Interpreter) -> None:
    a, r, rr, lit, e, cs = arrays.call("create", [3, 1.5])
    assert a.dtype == np.int64 and a.tolist() == [0, 1, 2]
    assert r.dtype == np.float64 and r.tolist() == [1.5] * 3
    assert rr.tolist() == [[0, 1, 2]] * 3 and rr.flags.writeable and rr.base is None
    assert lit.shape == (2, 3)
    assert e.shape == (0, 0) and e.dtype == np.bool_
    assert cs.dtype == object and list(cs) == [CHECKED] * 3
    a, r, rr, lit, e, cs = arrays.call("create", [0, 1.5])
    assert a.shape == (0,) and rr.shape == (0, 0)


def test_negative_iota_without_assert_is_an_internal_error(arrays: Interpreter) -> None:
    with pytest.raises(InternalError, match="negative count"):
        arrays.call("create", [-1, 1.5])


def test_size_of_empty_arrays_is_normalised(arrays: Interpreter) -> None:
    assert arrays.call("sizes", [np.zeros((2, 5), np.int64)]) == [2, 5]
    # The inner size of an empty array is 0, as in the original (docs/reference.md §5).
    assert arrays.call("sizes", [np.zeros((0, 5), np.int64)]) == [0, 0]


def test_index_and_bounds(arrays: Interpreter) -> None:
    m = np.arange(6).reshape(2, 3)
    e, row = arrays.call("index", [m, 1, 2])
    assert e == 5 and type(e) is int and row.tolist() == [3, 4, 5]
    for i, j in [(2, 0), (-1, 0), (0, 3), (0, -1)]:
        with pytest.raises(InternalError, match="out of bounds"):
            arrays.call("index", [m, i, j])


def test_update_in_place_and_rows(arrays: Interpreter) -> None:
    m = np.arange(6).reshape(2, 3)
    (r,) = arrays.call("update", [m, 1, 2, 99, np.array([7, 8, 9])])
    assert r.tolist() == [[7, 8, 9], [3, 4, 99]]
    assert m.tolist() == [[0, 1, 2], [3, 4, 5]]  # call() copies its arguments
    with pytest.raises(InternalError, match="out of bounds"):
        arrays.call("update", [m, 1, -1, 99, np.array([7, 8, 9])])
    with pytest.raises(InternalError, match="row of shape"):
        arrays.call("update", [m, 1, 1, 99, np.array([7, 8])])


def test_reshape_transpose_split_concat_copy(arrays: Interpreter) -> None:
    m, t, x, y, yx, cp = arrays.call("shapes", [np.arange(6), 2, 3, 4])
    assert m.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert (x.tolist(), y.tolist(), yx.tolist()) == ([0, 1, 2, 3], [4, 5], [4, 5, 0, 1, 2, 3])
    assert cp.tolist() == list(range(6))
    with pytest.raises(InternalError, match="reshape"):
        arrays.call("shapes", [np.arange(6), 4, 2, 0])
    with pytest.raises(InternalError, match="split at 7"):
        arrays.call("shapes", [np.arange(6), 2, 3, 7])
    a = np.arange(24).reshape(2, 3, 4)
    t, u = arrays.call("transpose3", [a])
    assert np.array_equal(t, np.swapaxes(a, 1, 2))
    assert np.array_equal(u, np.moveaxis(a, 2, 0))


def test_irregular_concat_and_literal(arrays: Interpreter) -> None:
    a, b = np.zeros((2, 3), np.int64), np.ones((1, 4), np.int64)
    with pytest.raises(L0Error) as info:
        arrays.call("concat2", [a, b])
    assert info.value.render().startswith("p.l0:7:1: error: irregular array")
    # An empty operand has no row shape to disagree with.
    (r,) = arrays.call("concat2", [np.zeros((0, 7), np.int64), b])
    assert r.tolist() == [[1, 1, 1, 1]]
    with pytest.raises(L0Error) as info:
        arrays.call("literal2", [np.arange(3), np.arange(2)])
    assert info.value.render() == (
        "p.l0:4:2: error: irregular array: row 1 has shape [2], expected [3] (the shape of row 0)"
    )


def test_in_place_loop_of_100000_updates_is_fast() -> None:
    src = """
func.func @prefix(%n: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %a = soac.iota %n
  %m = arith.subi %n, %one : i64
  %r = scf.for %i = %zero to %m step %one iter_args(%acc = %a) -> (tensor<?xi64>) : i64 {
    %i1 = arith.addi %i, %one : i64
    %x = soac.index %acc[%i1] : tensor<?xi64> -> i64
    %y = soac.index %acc[%i] : tensor<?xi64> -> i64
    %s = arith.addi %x, %y : i64
    %b = soac.update %acc[%i1] = %s : tensor<?xi64>
    scf.yield %b : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}"""
    module = parse(src)
    start = time.perf_counter()
    (r,) = Interpreter(module).call("prefix", [100_000])
    elapsed = time.perf_counter() - start
    print(f"\n100000 in-place updates: {elapsed:.3f} s")
    assert r[-1] == 100_000 * 99_999 // 2 and r[:4].tolist() == [0, 1, 3, 6]
    # Copying on every update gives the same result.
    (c,) = Interpreter(module, in_place=False).call("prefix", [1000])
    assert c.tolist() == np.cumsum(np.arange(1000)).tolist()


# ---------------------------------------------------------------------------------------
# SOACs
# ---------------------------------------------------------------------------------------

SOACS = """
func.func @map2(%a: tensor<?xi64>, %b: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xi1>) {
  %r, %s = soac.map(%x = %a, %y = %b : tensor<?xi64>, tensor<?xf64>) -> tensor<?xf64>,
      tensor<?xi1> {
    %fx = arith.sitofp %x : i64 to f64
    %p = arith.mulf %fx, %y : f64
    %zero = arith.constant 0.0 : f64
    %pos = arith.cmpf ogt, %p, %zero : f64
    soac.yield %p, %pos : f64, i1
  }
  func.return %r, %s : tensor<?xf64>, tensor<?xi1>
}
func.func @rows(%n: tensor<?xi64>) -> tensor<?x?xi64> {
  %r = soac.map(%k = %n : tensor<?xi64>) at "p.l0:9:3" -> tensor<?x?xi64> {
    %row = soac.iota %k
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
func.func @rowsums(%m: tensor<?x?xi64>) -> tensor<?xi64> {
  %r = soac.map(%row = %m : tensor<?x?xi64>) -> tensor<?xi64> {
    %zero = arith.constant 0 : i64
    %s = soac.reduce(%acc = %zero : i64) over(%x = %row : tensor<?xi64>) {
      %t = arith.addi %acc, %x : i64
      soac.yield %t : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
func.func @sum_and_max(%a: tensor<?xi64>, %b: tensor<?xi64>) -> (i64, i64) {
  %zero = arith.constant 0 : i64
  %min = arith.constant -9223372036854775808 : i64
  %s:2 = soac.reduce(%acc = %zero, %m = %min : i64, i64) over(%x = %a, %y = %b : tensor<?xi64>,
      tensor<?xi64>) {
    %t = arith.addi %acc, %x : i64
    %u = arith.maxsi %m, %y : i64
    soac.yield %t, %u : i64, i64
  }
  func.return %s#0, %s#1 : i64, i64
}
func.func @noncommutative(%a: tensor<?xi64>) -> i64 {
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %s = soac.reduce(%acc = %one : i64) over(%x = %a : tensor<?xi64>) {
    %t = arith.muli %acc, %ten : i64
    %u = arith.subi %t, %x : i64
    soac.yield %u : i64
  }
  func.return %s : i64
}
func.func @scan(%a: tensor<?xf64>) -> tensor<?xf64> {
  %zero = arith.constant 0.5 : f64
  %s = soac.scan(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) {
    %t = arith.addf %acc, %x : f64
    soac.yield %t : f64
  }
  func.return %s : tensor<?xf64>
}
func.func @scanrows(%m: tensor<?x?xi64>, %z: tensor<?xi64>) -> tensor<?x?xi64> {
  %s = soac.scan(%acc = %z : tensor<?xi64>) over(%row = %m : tensor<?x?xi64>) {
    %t = soac.map(%p = %acc, %q = %row : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %u = arith.addi %p, %q : i64
      soac.yield %u : i64
    }
    soac.yield %t : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
func.func @filter(%a: tensor<?xi64>, %m: tensor<?x?xf64>) -> (tensor<?xi64>, tensor<?x?xf64>) {
  %r:2 = soac.filter(%x = %a, %row = %m : tensor<?xi64>, tensor<?x?xf64>) {
    %two = arith.constant 2 : i64
    %k = arith.remsi %x, %two : i64
    %zero = arith.constant 0 : i64
    %even = arith.cmpi eq, %k, %zero : i64
    soac.yield %even : i1
  }
  func.return %r#0, %r#1 : tensor<?xi64>, tensor<?x?xf64>
}
func.func @redomap(%a: tensor<?xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %s = soac.redomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) {
    %sq = arith.mulf %x, %x : f64
    %y = arith.addf %acc, %sq : f64
    soac.yield %y : f64
  } outer {
  ^bb0(%p: f64, %q: f64):
    %y = arith.addf %p, %q : f64
    soac.yield %y : f64
  }
  func.return %s : f64
}
func.func @zipped(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = soac.map(%x = %a, %y = %b : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
    %s = arith.addi %x, %y : i64
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
func.func @identity2(%a: tensor<?xi64>, %k: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %r:3 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64>, tensor<?xi64> {
    soac.yield %x, %x, %k : i64, i64, i64
  }
  func.return %r#0, %r#1, %r#2 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
func.func @traced(%a: tensor<?xi64>) -> tensor<?xi64> {
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %t = soac.trace(%x : i64) at "t.l0:1:1-1:9"
    soac.yield %t : i64
  }
  func.return %r : tensor<?xi64>
}
"""


@pytest.fixture(scope="module", params=["vector", "per-element"])
def soacs(request: pytest.FixtureRequest) -> Interpreter:
    return Interpreter(parse(SOACS), **(VECTOR if request.param == "vector" else PER_ELEMENT))


def test_map_several_inputs_and_outputs(soacs: Interpreter) -> None:
    r, s = soacs.call("map2", [np.array([1, -2, 3]), np.array([0.5, 0.5, -1.0])])
    assert r.dtype == np.float64 and r.tolist() == [0.5, -1.0, -3.0]
    assert s.dtype == np.bool_ and s.tolist() == [True, False, False]
    r, s = soacs.call("map2", [np.zeros(0, np.int64), np.zeros(0)])
    assert r.shape == (0,) and s.shape == (0,)


def test_map_yielding_rows_and_irregularity(soacs: Interpreter) -> None:
    (r,) = soacs.call("rows", [np.array([2, 2])])
    assert r.tolist() == [[0, 1], [0, 1]]
    (r,) = soacs.call("rows", [np.zeros(0, np.int64)])
    assert r.shape == (0, 0)
    (r,) = soacs.call("rows", [np.array([0, 0])])
    assert r.shape == (2, 0)
    with pytest.raises(L0Error) as info:
        soacs.call("rows", [np.array([3, 3, 3, 2])])
    assert info.value.render() == (
        "p.l0:9:3: error: irregular array: row 3 has shape [2], expected [3] (the shape of row 0)"
    )


def test_nested_soacs(soacs: Interpreter) -> None:
    (r,) = soacs.call("rowsums", [np.arange(12).reshape(3, 4)])
    assert r.tolist() == [6, 22, 38]
    (r,) = soacs.call("scanrows", [np.arange(6).reshape(3, 2), np.array([10, 20])])
    assert r.tolist() == [[10, 21], [12, 24], [16, 29]]


def test_reduce(soacs: Interpreter) -> None:
    assert soacs.call("sum_and_max", [np.array([I64_MAX, 1, 5]), np.array([3, -9, 7])]) == [
        I64_MIN + 5, 7]
    assert soacs.call("sum_and_max", [np.zeros(0, np.int64), np.zeros(0, np.int64)]) == [
        0, I64_MIN]
    # A strict left fold: ((1*10 - 1)*10 - 2)*10 - 3.
    assert soacs.call("noncommutative", [np.array([1, 2, 3])]) == [877]


def test_scan_is_an_inclusive_left_fold(soacs: Interpreter) -> None:
    xs = [1e16, 1.0, -1e16, 1.0, 0.1]
    (r,) = soacs.call("scan", [np.array(xs)])
    acc, expected = 0.5, []
    for x in xs:
        acc += x
        expected.append(acc)
    assert r.tolist() == expected
    (r,) = soacs.call("scan", [np.zeros(0)])
    assert r.shape == (0,)


def test_filter(soacs: Interpreter) -> None:
    a = np.array([1, 2, 3, 4, -6])
    m = np.arange(10.0).reshape(5, 2)
    x, rows = soacs.call("filter", [a, m])
    assert x.tolist() == [2, 4, -6] and rows.tolist() == [[2.0, 3.0], [6.0, 7.0], [8.0, 9.0]]
    x, rows = soacs.call("filter", [np.array([1, 3]), m[:2]])
    assert x.shape == (0,) and rows.shape == (0, 2)


def test_redomap_is_a_left_fold_with_the_inner_lambda(soacs: Interpreter) -> None:
    xs = [0.1, 0.2, 0.3, 1e10]
    acc = 0.0
    for x in xs:
        acc = acc + x * x
    assert soacs.call("redomap", [np.array(xs)]) == [acc]


def test_zip_size_mismatch_is_an_internal_error(soacs: Interpreter) -> None:
    with pytest.raises(InternalError, match="different outer sizes 3 and 2"):
        soacs.call("zipped", [np.arange(3), np.arange(2)])


def test_map_results_are_fresh_buffers(soacs: Interpreter) -> None:
    a = np.arange(40)
    r0, r1, r2 = soacs.call("identity2", [a, 7])
    assert r0.tolist() == r1.tolist() == a.tolist() and r2.tolist() == [7] * 40
    assert not np.shares_memory(r0, r1)
    r0[0] = 99
    assert r1[0] == 0


def test_trace_in_a_map_prints_every_element(soacs: Interpreter) -> None:
    out = io.StringIO()
    interp = Interpreter(parse(SOACS), trace_stream=out)
    interp.call("traced", [np.arange(40)])
    assert out.getvalue().count("\n") == 40


# ---------------------------------------------------------------------------------------
# Vectorised and per-element evaluation agree
# ---------------------------------------------------------------------------------------

INT_LAMBDA = """
func.func @f(%a: tensor<?xi64>, %b: tensor<?xi64>, %k: i64) -> (tensor<?xi64>, tensor<?xi64>,
    tensor<?xi1>, tensor<?xf64>) {
  %r:4 = soac.map(%x = %a, %y = %b : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>,
      tensor<?xi64>, tensor<?xi1>, tensor<?xf64> {
    %m = arith.muli %x, %y : i64
    %s = arith.addi %m, %k : i64
    %d = arith.floordivsi %s, %y : i64
    %r = arith.remsi %x, %k : i64
    %t = arith.subi %d, %r : i64
    %c63 = arith.constant 63 : i64
    %sh = arith.andi %y, %c63 : i64
    %l = arith.shli %x, %sh : i64
    %rs = arith.shrsi %t, %sh : i64
    %lt = arith.cmpi slt, %l, %rs : i64
    %sel = arith.select %lt, %l, %rs : i64
    %mx = arith.maxsi %sel, %m : i64
    %q = arith.divsi %mx, %k : i64
    %three = arith.constant 3 : i64
    %p = math.ipowi %x, %three : i64
    %u = arith.xori %p, %q : i64
    %f = arith.sitofp %u : i64 to f64
    %ab = math.absi %u : i64
    soac.yield %u, %ab, %lt, %f : i64, i64, i1, f64
  }
  func.return %r#0, %r#1, %r#2, %r#3 : tensor<?xi64>, tensor<?xi64>, tensor<?xi1>, tensor<?xf64>
}"""

REAL_LAMBDA = """
func.func @f(%a: tensor<?xf64>, %b: tensor<?xf64>, %k: f64) -> (tensor<?xf64>, tensor<?xi1>,
    tensor<?xi64>) {
  %r:3 = soac.map(%x = %a, %y = %b : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>,
      tensor<?xi1>, tensor<?xi64> {
    %q = arith.divf %x, %y : f64
    %s = math.sqrt %q : f64
    %l = math.log %x : f64
    %e = math.exp %y : f64
    %p = math.powf %x, %k : f64
    %t = arith.addf %s, %l : f64
    %u = arith.mulf %t, %e : f64
    %v = arith.subf %u, %p : f64
    %n = arith.negf %v : f64
    %c = arith.cmpf ult, %n, %x : f64
    %d = arith.cmpf one, %n, %y : f64
    %both = arith.andi %c, %d : i1
    %w = arith.select %both, %n, %q : f64
    %a1 = math.absf %w : f64
    %f = math.floor %a1 : f64
    %i = arith.fptosi %k : f64 to i64
    soac.yield %w, %both, %i : f64, i1, i64
  }
  func.return %r#0, %r#1, %r#2 : tensor<?xf64>, tensor<?xi1>, tensor<?xi64>
}"""

TRUNC_LAMBDA = """
func.func @f(%a: tensor<?xf64>) -> tensor<?xi64> {
  %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xi64> {
    %i = arith.fptosi %x : f64 to i64
    soac.yield %i : i64
  }
  func.return %r : tensor<?xi64>
}"""

FOLDS = """
func.func @f(%a: tensor<?xi64>, %b: tensor<?xf64>, %c: tensor<?xi1>) -> (i64, i64, f64, f64, i1,
    tensor<?xi64>, tensor<?xf64>, tensor<?xi64>, tensor<?xi1>, f64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %fz = arith.constant 0.25 : f64
  %f1 = arith.constant 1.0 : f64
  %t = arith.constant true
  %r:5 = soac.reduce(%s = %zero, %p = %one, %fs = %fz, %fp = %f1, %all = %t : i64, i64, f64,
      f64, i1)
      over(%x = %a, %y = %a, %u = %b, %v = %b, %w = %c : tensor<?xi64>, tensor<?xi64>,
          tensor<?xf64>, tensor<?xf64>, tensor<?xi1>) {
    %s1 = arith.addi %s, %x : i64
    %p1 = arith.muli %y, %p : i64
    %fs1 = arith.addf %u, %fs : f64
    %fp1 = arith.mulf %fp, %v : f64
    %all1 = arith.andi %all, %w : i1
    soac.yield %s1, %p1, %fs1, %fp1, %all1 : i64, i64, f64, f64, i1
  }
  %sc:4 = soac.scan(%s = %zero, %fs = %fz, %m = %zero, %x1 = %t : i64, f64, i64, i1)
      over(%x = %a, %u = %b, %y = %a, %w = %c : tensor<?xi64>, tensor<?xf64>, tensor<?xi64>,
          tensor<?xi1>) {
    %s1 = arith.addi %s, %x : i64
    %fs1 = arith.addf %fs, %u : f64
    %m1 = arith.minsi %m, %y : i64
    %x2 = arith.xori %x1, %w : i1
    soac.yield %s1, %fs1, %m1, %x2 : i64, f64, i64, i1
  }
  %rm = soac.redomap(%acc = %fz : f64) over(%x = %a, %u = %b : tensor<?xi64>, tensor<?xf64>) {
    %fx = arith.sitofp %x : i64 to f64
    %pr = arith.mulf %fx, %u : f64
    %y = arith.addf %acc, %pr : f64
    soac.yield %y : f64
  } outer {
  ^bb0(%p: f64, %q: f64):
    %y = arith.addf %p, %q : f64
    soac.yield %y : f64
  }
  func.return %r#0, %r#1, %r#2, %r#3, %r#4, %sc#0, %sc#1, %sc#2, %sc#3, %rm : i64, i64, f64,
      f64, i1, tensor<?xi64>, tensor<?xf64>, tensor<?xi64>, tensor<?xi1>, f64
}"""

FILTER = """
func.func @f(%a: tensor<?xf64>, %k: f64) -> tensor<?xf64> {
  %r = soac.filter(%x = %a : tensor<?xf64>) {
    %s = math.sin %x : f64
    %c = arith.cmpf olt, %s, %k : f64
    soac.yield %c : i1
  }
  func.return %r : tensor<?xf64>
}"""

ints = st.one_of(st.integers(I64_MIN, I64_MAX), st.integers(-70, 70))
reals = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.floats(-100.0, 100.0),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5]),
)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("src", [INT_LAMBDA, REAL_LAMBDA, TRUNC_LAMBDA, FOLDS, FILTER])
def test_lambdas_under_test_are_vectorised(src: str) -> None:
    assert is_vectorised(src, "f")


@SETTINGS
@given(st.lists(st.tuples(ints, ints), max_size=40), ints)
def test_int_lambda_vectorised_equals_per_element(pairs: list[tuple[int, int]], k: int) -> None:
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    both_ways(INT_LAMBDA, "f", a, b, k)


@SETTINGS
@given(st.lists(st.tuples(reals, reals), max_size=40), reals)
def test_real_lambda_vectorised_equals_per_element(pairs: list[tuple[float, float]],
                                                   k: float) -> None:
    a = np.array([p[0] for p in pairs], dtype=np.float64)
    b = np.array([p[1] for p in pairs], dtype=np.float64)
    both_ways(REAL_LAMBDA, "f", a, b, k)


@SETTINGS
@given(hnp.arrays(np.float64, st.integers(0, 30), elements=reals))
def test_trunc_faults_agree(a: np.ndarray) -> None:
    result = both_ways(TRUNC_LAMBDA, "f", a)
    bad = [x for x in a.tolist() if not -(2.0**63) <= x < 2.0**63]
    assert (result[0] == "error") == bool(bad)
    if bad:  # the first bad element in order is reported
        assert repr(bad[0]) in result[1]


@SETTINGS
@given(st.lists(st.tuples(ints, reals, st.booleans()), max_size=50))
def test_folds_vectorised_equal_per_element(rows: list[tuple[int, float, bool]]) -> None:
    a = np.array([r[0] for r in rows], dtype=np.int64)
    b = np.array([r[1] for r in rows], dtype=np.float64)
    c = np.array([r[2] for r in rows], dtype=np.bool_)
    both_ways(FOLDS, "f", a, b, c)


@SETTINGS
@given(hnp.arrays(np.float64, st.integers(0, 50), elements=reals), reals)
def test_filter_vectorised_equals_per_element(a: np.ndarray, k: float) -> None:
    both_ways(FILTER, "f", a, k)


def test_vectorised_division_by_zero_reports_the_first_element() -> None:
    a = np.array([5, 6, 7, 8], dtype=np.int64)
    b = np.array([1, 0, 2, 0], dtype=np.int64)
    result = both_ways(INT_LAMBDA, "f", a, b, 3)
    assert result[0] == "error" and "division by zero" in result[1]


def test_numpy_disagreeing_with_libm_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    # numpy's SIMD exp/log/pow (AVX-512 builds) may differ from libm in the last bit; the
    # vectoriser then calls the scalar function per element instead.
    scalar, _ = scalars.UNARY_REAL["math.exp"]
    assert vectorise.numpy_agrees.__wrapped__("math.sqrt")  # IEEE requires exact sqrt
    monkeypatch.setitem(scalars.UNARY_REAL, "math.exp",
                        (scalar, lambda x: np.nextafter(np.exp(x), np.inf)))
    assert not vectorise.numpy_agrees.__wrapped__("math.exp")
    monkeypatch.setattr(vectorise, "numpy_agrees", lambda name: False)
    assert "vmap1(real_exp" in Interpreter(parse(REAL_LAMBDA), **VECTOR).source("f")
    a = np.linspace(-3.0, 3.0, 50)
    both_ways(REAL_LAMBDA, "f", a, a[::-1].copy(), 1.5)


def test_real_sums_are_left_folds_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    b = rng.standard_normal(5000) * 10.0 ** rng.integers(-8, 8, 5000)
    a = np.zeros(5000, np.int64)
    c = np.ones(5000, np.bool_)
    results = Interpreter(parse(FOLDS), **VECTOR).call("f", [a, b, c])
    acc, prefix = 0.25, []
    for x in b.tolist():
        acc = x + acc
        prefix.append(acc)
    assert results[2] == acc
    assert results[6].tolist() == prefix


# ---------------------------------------------------------------------------------------
# Speed
# ---------------------------------------------------------------------------------------

_CND_CONSTANTS = """
    %a1 = arith.constant 0.31938153 : f64
    %a2 = arith.constant -0.356563782 : f64
    %a3 = arith.constant 1.781477937 : f64
    %a4 = arith.constant -1.821255978 : f64
    %a5 = arith.constant 1.330274429 : f64
    %p = arith.constant 0.2316419 : f64
    %one = arith.constant 1.0 : f64
    %zero = arith.constant 0.0 : f64
    %mhalf = arith.constant -0.5 : f64
    %rsqrt2pi = arith.constant 0.3989422804014327 : f64
    %two = arith.constant 2.0 : f64"""


def _cnd(x: str, out: str) -> str:
    """The cumulative normal distribution of `%x` as `%out` (Black-Scholes' CND)."""
    steps = [
        f"%{out}_neg = arith.cmpf olt, %{x}, %zero : f64",
        f"%{out}_nx = arith.negf %{x} : f64",
        f"%{out}_l = arith.select %{out}_neg, %{out}_nx, %{x} : f64",
        f"%{out}_pl = arith.mulf %p, %{out}_l : f64",
        f"%{out}_d = arith.addf %one, %{out}_pl : f64",
        f"%{out}_k = arith.divf %one, %{out}_d : f64",
        f"%{out}_t5 = arith.mulf %a5, %{out}_k : f64",
        f"%{out}_t4 = arith.addf %a4, %{out}_t5 : f64",
        f"%{out}_t4k = arith.mulf %{out}_t4, %{out}_k : f64",
        f"%{out}_t3 = arith.addf %a3, %{out}_t4k : f64",
        f"%{out}_t3k = arith.mulf %{out}_t3, %{out}_k : f64",
        f"%{out}_t2 = arith.addf %a2, %{out}_t3k : f64",
        f"%{out}_t2k = arith.mulf %{out}_t2, %{out}_k : f64",
        f"%{out}_t1 = arith.addf %a1, %{out}_t2k : f64",
        f"%{out}_poly = arith.mulf %{out}_t1, %{out}_k : f64",
        f"%{out}_l2 = arith.mulf %{out}_l, %{out}_l : f64",
        f"%{out}_e1 = arith.mulf %mhalf, %{out}_l2 : f64",
        f"%{out}_e = math.exp %{out}_e1 : f64",
        f"%{out}_n = arith.mulf %rsqrt2pi, %{out}_e : f64",
        f"%{out}_np = arith.mulf %{out}_n, %{out}_poly : f64",
        f"%{out}_w = arith.subf %one, %{out}_np : f64",
        f"%{out}_mw = arith.subf %one, %{out}_w : f64",
        f"%{out} = arith.select %{out}_neg, %{out}_mw, %{out}_w : f64",
    ]
    return "\n    ".join(steps)


BLACK_SCHOLES = f"""
func.func @cnd(%x: f64) -> f64 {{
    {_CND_CONSTANTS}
    {_cnd("x", "c")}
    func.return %c : f64
}}
func.func @bs(%S: tensor<?xf64>, %X: tensor<?xf64>, %T: tensor<?xf64>, %r: f64,
    %v: f64) -> tensor<?xf64> {{
  %res = soac.map(%s = %S, %x = %X, %t = %T : tensor<?xf64>, tensor<?xf64>,
      tensor<?xf64>) -> tensor<?xf64> {{
    {_CND_CONSTANTS}
    %sqt = math.sqrt %t : f64
    %sx = arith.divf %s, %x : f64
    %lsx = math.log %sx : f64
    %v2 = arith.mulf %v, %v : f64
    %v22 = arith.divf %v2, %two : f64
    %rv = arith.addf %r, %v22 : f64
    %rvt = arith.mulf %rv, %t : f64
    %num = arith.addf %lsx, %rvt : f64
    %vst = arith.mulf %v, %sqt : f64
    %d1 = arith.divf %num, %vst : f64
    %d2 = arith.subf %d1, %vst : f64
    {_cnd("d1", "c1")}
    {_cnd("d2", "c2")}
    %nr = arith.negf %r : f64
    %nrt = arith.mulf %nr, %t : f64
    %disc = math.exp %nrt : f64
    %xd = arith.mulf %x, %disc : f64
    %sc1 = arith.mulf %s, %c1 : f64
    %xc2 = arith.mulf %xd, %c2 : f64
    %call = arith.subf %sc1, %xc2 : f64
    soac.yield %call : f64
  }}
  func.return %res : tensor<?xf64>
}}
func.func @bs_calls(%S: tensor<?xf64>, %X: tensor<?xf64>, %T: tensor<?xf64>, %r: f64,
    %v: f64) -> tensor<?xf64> {{
  %res = soac.map(%s = %S, %x = %X, %t = %T : tensor<?xf64>, tensor<?xf64>,
      tensor<?xf64>) -> tensor<?xf64> {{
    %two = arith.constant 2.0 : f64
    %sqt = math.sqrt %t : f64
    %sx = arith.divf %s, %x : f64
    %lsx = math.log %sx : f64
    %v2 = arith.mulf %v, %v : f64
    %v22 = arith.divf %v2, %two : f64
    %rv = arith.addf %r, %v22 : f64
    %rvt = arith.mulf %rv, %t : f64
    %num = arith.addf %lsx, %rvt : f64
    %vst = arith.mulf %v, %sqt : f64
    %d1 = arith.divf %num, %vst : f64
    %d2 = arith.subf %d1, %vst : f64
    %c1 = func.call @cnd(%d1) : (f64) -> f64
    %c2 = func.call @cnd(%d2) : (f64) -> f64
    %nr = arith.negf %r : f64
    %nrt = arith.mulf %nr, %t : f64
    %disc = math.exp %nrt : f64
    %xd = arith.mulf %x, %disc : f64
    %sc1 = arith.mulf %s, %c1 : f64
    %xc2 = arith.mulf %xd, %c2 : f64
    %call = arith.subf %sc1, %xc2 : f64
    soac.yield %call : f64
  }}
  func.return %res : tensor<?xf64>
}}"""


def _black_scholes_reference(s: np.ndarray, x: np.ndarray, t: np.ndarray, r: float,
                             v: float) -> np.ndarray:
    def cnd(d: np.ndarray) -> np.ndarray:
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (
            -1.821255978 + k * 1.330274429))))
        w = 1.0 - 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
        return np.where(d < 0, 1.0 - w, w)

    d1 = (np.log(s / x) + (r + v * v / 2.0) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    return s * cnd(d1) - x * np.exp(-r * t) * cnd(d2)


def test_black_scholes_2000_options() -> None:
    rng = np.random.default_rng(1)
    n = 2000
    s, x, t = rng.uniform(5, 30, n), rng.uniform(1, 100, n), rng.uniform(0.25, 10, n)
    module = parse(BLACK_SCHOLES)
    expected = _black_scholes_reference(s, x, t, 0.02, 0.30)
    results = {}
    for label, fn, options in [("vectorised", "bs", VECTOR), ("per element", "bs", PER_ELEMENT),
                               ("calling @cnd", "bs_calls", {})]:
        interp = Interpreter(module, **options)
        start = time.perf_counter()
        (r,) = interp.call(fn, [s, x, t, 0.02, 0.30])
        print(f"\nBlack-Scholes, 2000 options, {label}: {time.perf_counter() - start:.4f} s")
        np.testing.assert_allclose(r, expected, rtol=1e-12, atol=1e-12)
        results[label] = r
    assert all(np.array_equal(r, results["vectorised"]) for r in results.values())


def test_map_over_100000_elements() -> None:
    src = """
func.func @f(%a: tensor<?xi64>) -> tensor<?xf64> {
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xf64> {
    %f = arith.sitofp %x : i64 to f64
    %s = math.sqrt %f : f64
    %t = soac.trace(%s : f64) at "t.l0:1:1-1:2"
    soac.yield %t : f64
  }
  func.return %r : tensor<?xf64>
}"""
    # The trace makes the lambda non-vectorisable: this times the per-element loop.
    interp = Interpreter(parse(src), trace_stream=io.StringIO())
    start = time.perf_counter()
    (r,) = interp.call("f", [np.arange(100_000)])
    elapsed = time.perf_counter() - start
    print(f"\nmap over 100000 elements, per element with trace: {elapsed:.3f} s")
    assert r[4] == 2.0


def test_generated_code_can_be_inspected() -> None:
    src = Interpreter(parse(FACT)).source("fact")
    assert src.startswith("def ") and "_fact(" in src and "wrap64" in src


@pytest.mark.parametrize("src", ["fun int main(int n) = reduce(op +, 0, iota(n))",
                                 "fun [int] main(int n) = replicate(n, 7)"])
def test_arrays_larger_than_memory_are_out_of_memory(src: str) -> None:
    # numpy refuses them with a ValueError ("array is too big"), which l0-run reported
    # as an internal compiler error; `out of memory` is a located error (exit status 2).
    import l0

    with pytest.raises(L0Error, match="out of memory: the requested array size does not fit"):
        l0.compile(src, backend="interp").main(2**62 + 12345)
