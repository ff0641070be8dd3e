"""The CPU back end's bottom half: LLVM IR emission (`l0.lowering.llvm`) and the JIT
(`l0.lowering.backends.jit`), on hand-written loop-level IR compared with numpy / Python.

Each family of ops gets one module (compiled once per test session); `micro-benchmarks`
print timings against numpy (run with `-s` to see them) and assert only correctness.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from l0.diagnostics import L0Error, Loc
from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
from l0.lowering.backends import jit
from l0.lowering.backends.jit import JitModule, optimized_llvm_ir, parse_loc
from l0.lowering.llvm import LoweringError, print_llvm_ir

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1


def parse(src: str) -> ModuleOp:
    module = Parser(l0_context(SOAC_LEVEL + LOWERING_LEVELS), src).parse_module()
    module.verify()
    return module


def compile_(src: str, **kw: object) -> JitModule:
    return JitModule(parse(src), **kw)  # type: ignore[arg-type]


def wrap(n: int) -> int:
    return ((n + 2**63) % 2**64) - 2**63


# --------------------------------------------------------------------------- integers

INT_OPS = """
func.func @ints(%x: i64, %y: i64) -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
    i64, i64) {
  %add = arith.addi %x, %y : i64
  %sub = arith.subi %x, %y : i64
  %mul = arith.muli %x, %y : i64
  %fdiv = arith.floordivsi %x, %y : i64
  %div = arith.divsi %x, %y : i64
  %rem = arith.remsi %x, %y : i64
  %cdiv = arith.ceildivsi %x, %y : i64
  %and = arith.andi %x, %y : i64
  %or = arith.ori %x, %y : i64
  %xor = arith.xori %x, %y : i64
  %max = arith.maxsi %x, %y : i64
  %min = arith.minsi %x, %y : i64
  %pow = math.ipowi %x, %y : i64
  func.return %add, %sub, %mul, %fdiv, %div, %rem, %cdiv, %and, %or, %xor, %max, %min,
      %pow : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64
}
func.func @shifts(%x: i64, %s: i64) -> (i64, i64, i64) {
  %a = arith.shli %x, %s : i64
  %b = arith.shrsi %x, %s : i64
  %c = arith.shrui %x, %s : i64
  func.return %a, %b, %c : i64, i64, i64
}
func.func @unsigned(%x: i64, %y: i64) -> (i64, i64, i64, i64, i64) {
  %a = arith.divui %x, %y : i64
  %b = arith.remui %x, %y : i64
  %c = arith.ceildivui %x, %y : i64
  %d = arith.maxui %x, %y : i64
  %e = arith.minui %x, %y : i64
  func.return %a, %b, %c, %d, %e : i64, i64, i64, i64, i64
}
func.func @cmpi(%x: i64, %y: i64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %0 = arith.cmpi eq, %x, %y : i64
  %1 = arith.cmpi ne, %x, %y : i64
  %2 = arith.cmpi slt, %x, %y : i64
  %3 = arith.cmpi sle, %x, %y : i64
  %4 = arith.cmpi sgt, %x, %y : i64
  %5 = arith.cmpi sge, %x, %y : i64
  %6 = arith.cmpi ult, %x, %y : i64
  %7 = arith.cmpi ule, %x, %y : i64
  %8 = arith.cmpi ugt, %x, %y : i64
  %9 = arith.cmpi uge, %x, %y : i64
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
func.func @narrow(%x: i64, %c: i32, %b: i1) -> (i32, i64, i64, i1, i64, i32, i64) {
  %t = arith.trunci %x : i64 to i32
  %s = arith.extsi %c : i32 to i64
  %u = arith.extui %c : i32 to i64
  %n = arith.xori %b, %b : i1
  %bi = arith.extui %b : i1 to i64
  %m = arith.muli %c, %c : i32
  %ix = arith.index_cast %c : i32 to index
  %back = arith.index_cast %ix : index to i64
  func.return %t, %s, %u, %n, %bi, %m, %back : i32, i64, i64, i1, i64, i32, i64
}
func.func @selects(%c: i1, %x: i64, %y: i64) -> i64 {
  %r = arith.select %c, %x, %y : i64
  func.return %r : i64
}
func.func @extended(%x: i64, %y: i64) -> (i64, i1, i64, i64, i64, i64) {
  %s, %o = arith.addui_extended %x, %y : i64, i1
  %l, %h = arith.mulsi_extended %x, %y : i64
  %ul, %uh = arith.mului_extended %x, %y : i64
  func.return %s, %o, %l, %h, %ul, %uh : i64, i1, i64, i64, i64, i64
}
func.func @bits(%x: i64) -> (i64, i64, i64, i64) {
  %a = math.absi %x : i64
  %b = math.ctlz %x : i64
  %c = math.cttz %x : i64
  %d = math.ctpop %x : i64
  func.return %a, %b, %c, %d : i64, i64, i64, i64
}
"""


@pytest.fixture(scope="module")
def ints() -> JitModule:
    return compile_(INT_OPS)


def _floordiv(x: int, y: int) -> int:
    if y == 0:
        return 0
    return wrap(x // y)


def _truncdiv(x: int, y: int) -> int:
    if y == 0:
        return 0
    q = abs(x) // abs(y)
    return wrap(q if (x < 0) == (y < 0) else -q)


def _ipow(x: int, n: int) -> int:
    if n < 0:
        return 1 if x == 1 else ((-1 if n % 2 else 1) if x == -1 else 0)
    return wrap(pow(x, n, 2**64))


EDGE = [0, 1, -1, 2, -2, 7, -7, 3, 63, 64, INT_MIN, INT_MAX, 12345678901, -98765]


def test_integer_arithmetic_wraps_and_floors(ints: JitModule) -> None:
    f = ints.function("ints")
    for x in EDGE:
        for y in EDGE:
            got = f(x, y)
            rem = 0 if y == -1 else (x if y == 0 else x - _truncdiv(x, y) * y)
            cdiv = 0 if y == 0 else wrap(-((-x) // y))
            want = (wrap(x + y), wrap(x - y), wrap(x * y), _floordiv(x, y), _truncdiv(x, y),
                    wrap(rem), cdiv, x & y, x | y, x ^ y, max(x, y), min(x, y),
                    _ipow(x, y) if abs(y) < 100 else got[12])
            assert got == want, (x, y)


def test_division_edge_cases_do_not_trap(ints: JitModule) -> None:
    f = ints.function("ints")
    _, _, _, fdiv, div, rem, _, *_ = f(INT_MIN, -1)
    assert (fdiv, div, rem) == (INT_MIN, INT_MIN, 0)  # wraps, as L0 integers do
    _, _, _, fdiv, div, rem, _, *_ = f(17, 0)
    assert (fdiv, div, rem) == (0, 0, 17)  # defined, not a SIGFPE
    assert f(-7, 2)[3] == -4 and f(7, -2)[3] == -4 and f(-7, -2)[3] == 3
    u = ints.function("unsigned")
    assert u(10, 0) == (0, 10, 0, 10, 0)
    assert u(-1, 2) == (INT_MAX, 1, INT_MIN, -1, 2)  # -1 is 2**64 - 1 unsigned


def test_shifts_out_of_range_are_defined(ints: JitModule) -> None:
    f = ints.function("shifts")
    assert f(5, 2) == (20, 1, 1)
    assert f(-8, 1) == (-16, -4, wrap((2**64 - 8) >> 1))
    for s in (64, 65, 1000, -1, INT_MIN):
        assert f(-8, s) == (0, -1, 0)
        assert f(8, s) == (0, 0, 0)
    assert f(1, 63) == (INT_MIN, 0, 0)


def test_comparisons_all_predicates(ints: JitModule) -> None:
    f = ints.function("cmpi")
    for x in (0, 1, -1, INT_MIN, INT_MAX):
        for y in (0, 1, -1, INT_MIN):
            ux, uy = x % 2**64, y % 2**64
            assert f(x, y) == (x == y, x != y, x < y, x <= y, x > y, x >= y,
                               ux < uy, ux <= uy, ux > uy, ux >= uy)


def test_narrow_integers_and_casts(ints: JitModule) -> None:
    f = ints.function("narrow")
    assert f(2**32 + 5, -3, True) == (5, -3, 2**32 - 3, False, 1, 9, -3)
    assert f(-1, 2**31 - 1, False) == (-1, 2**31 - 1, 2**31 - 1, False, 0, 1, 2**31 - 1)
    assert ints.function("selects")(True, 1, 2) == 1
    assert ints.function("selects")(False, 1, 2) == 2


def test_extended_and_bit_ops(ints: JitModule) -> None:
    s, o, lo, hi, ulo, uhi = ints.function("extended")(-1, 2)
    assert (s, o) == (1, True)
    assert (lo, hi) == (-2, -1)
    assert (ulo, uhi) == (-2, 1)
    assert ints.function("bits")(INT_MIN) == (INT_MIN, 0, 63, 1)
    assert ints.function("bits")(0) == (0, 64, 64, 0)
    assert ints.function("bits")(-12) == (12, 0, 2, 61)


def test_scalar_arguments_wrap_and_are_type_checked(ints: JitModule) -> None:
    f = ints.function("ints")
    assert f(2**64 + 3, 1)[0] == 4
    with pytest.raises(TypeError):
        f(1.5, 2)
    with pytest.raises(TypeError):
        f(1)


# --------------------------------------------------------------------------- floats

FLOAT_OPS = """
func.func @floats(%x: f64, %y: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64) {
  %a = arith.addf %x, %y : f64
  %s = arith.subf %x, %y : f64
  %m = arith.mulf %x, %y : f64
  %d = arith.divf %x, %y : f64
  %n = arith.negf %x : f64
  %mx = arith.maximumf %x, %y : f64
  %mn = arith.minimumf %x, %y : f64
  %mxn = arith.maxnumf %x, %y : f64
  %p = math.powf %x, %y : f64
  func.return %a, %s, %m, %d, %n, %mx, %mn, %mxn, %p : f64, f64, f64, f64, f64, f64, f64, f64, f64
}
func.func @unary(%x: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
  %a = math.sqrt %x : f64
  %b = math.exp %x : f64
  %c = math.log %x : f64
  %d = math.absf %x : f64
  %e = math.tanh %x : f64
  %f = math.erf %x : f64
  %g = math.floor %x : f64
  %h = math.sin %x : f64
  %i = math.atan %x : f64
  %j = math.rsqrt %x : f64
  func.return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j : f64, f64, f64, f64, f64, f64, f64, f64,
      f64, f64
}
func.func @binary(%x: f64, %y: f64, %n: i32) -> (f64, f64, f64, f64) {
  %a = math.atan2 %x, %y : f64
  %b = math.copysign %x, %y : f64
  %c = math.fpowi %x, %n : f64, i32
  %d = math.fma %x, %y, %x : f64
  func.return %a, %b, %c, %d : f64, f64, f64, f64
}
func.func @cmpf(%x: f64, %y: f64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1,
    i1, i1) {
  %0 = arith.cmpf false, %x, %y : f64
  %1 = arith.cmpf oeq, %x, %y : f64
  %2 = arith.cmpf ogt, %x, %y : f64
  %3 = arith.cmpf oge, %x, %y : f64
  %4 = arith.cmpf olt, %x, %y : f64
  %5 = arith.cmpf ole, %x, %y : f64
  %6 = arith.cmpf one, %x, %y : f64
  %7 = arith.cmpf ord, %x, %y : f64
  %8 = arith.cmpf ueq, %x, %y : f64
  %9 = arith.cmpf ugt, %x, %y : f64
  %10 = arith.cmpf uge, %x, %y : f64
  %11 = arith.cmpf ult, %x, %y : f64
  %12 = arith.cmpf ule, %x, %y : f64
  %13 = arith.cmpf une, %x, %y : f64
  %14 = arith.cmpf uno, %x, %y : f64
  %15 = arith.cmpf true, %x, %y : f64
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : i1, i1, i1,
      i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
func.func @casts(%x: f64, %i: i64) -> (i64, f64, i64, f32, f64, i32) {
  %t = arith.fptosi %x : f64 to i64
  %r = arith.sitofp %i : i64 to f64
  %b = arith.bitcast %x : f64 to i64
  %f = arith.truncf %x : f64 to f32
  %g = arith.extf %f : f32 to f64
  %u = arith.fptosi %x : f64 to i32
  func.return %t, %r, %b, %f, %g, %u : i64, f64, i64, f32, f64, i32
}
"""


@pytest.fixture(scope="module")
def floats() -> JitModule:
    return compile_(FLOAT_OPS)


def same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b or math.isclose(a, b, rel_tol=1e-14)


def test_float_arithmetic(floats: JitModule) -> None:
    f = floats.function("floats")
    for x, y in [(1.5, -2.25), (0.0, -0.0), (3.0, 0.0), (float("nan"), 1.0), (-2.0, 3.0)]:
        got = f(x, y)
        with np.errstate(all="ignore"):
            want = (x + y, x - y, x * y, float(np.float64(x) / np.float64(y)), -x,
                    float(np.maximum(x, y)), float(np.minimum(x, y)), float(np.fmax(x, y)),
                    float(np.power(x, y)))
        assert all(same_float(a, b) for a, b in zip(got, want, strict=True)), (x, y, got)
    assert math.copysign(1.0, f(0.0, 1.0)[4]) == -1.0  # negf(0.0) is -0.0
    assert math.copysign(1.0, f(-0.0, 0.0)[5]) == 1.0  # maximumf orders -0 < +0


def test_math_functions(floats: JitModule) -> None:
    u = floats.function("unary")
    for x in (0.25, 1.0, 2.5, 10.0):
        got = u(x)
        want = (math.sqrt(x), math.exp(x), math.log(x), abs(x), math.tanh(x), math.erf(x),
                math.floor(x), math.sin(x), math.atan(x), 1 / math.sqrt(x))
        assert all(math.isclose(a, b, rel_tol=1e-14) for a, b in zip(got, want, strict=True))
    assert math.isnan(u(-1.0)[0]) and u(0.0)[2] == -math.inf
    a, b, c, d = floats.function("binary")(2.0, -3.0, 10)
    assert (a, b, c, d) == (math.atan2(2.0, -3.0), -2.0, 1024.0, -4.0)


def test_float_comparisons_all_predicates(floats: JitModule) -> None:
    f = floats.function("cmpf")
    nan = float("nan")
    for x, y in [(1.0, 2.0), (2.0, 2.0), (3.0, 2.0), (nan, 1.0), (1.0, nan)]:
        o = not (math.isnan(x) or math.isnan(y))
        want = (False, o and x == y, o and x > y, o and x >= y, o and x < y, o and x <= y,
                o and x != y, o, not o or x == y, not o or x > y, not o or x >= y,
                not o or x < y, not o or x <= y, not o or x != y, not o, True)
        assert f(x, y) == want, (x, y)


def test_float_to_int_is_saturating(floats: JitModule) -> None:
    f = floats.function("casts")
    t, r, b, f32, back, t32 = f(-2.75, 7)
    assert (t, r, t32) == (-2, 7.0, -2)
    assert b == np.float64(-2.75).view(np.int64)
    assert f32 == back == -2.75
    assert f(float("nan"), 0)[0] == 0
    assert f(1e300, 0)[0] == INT_MAX and f(-1e300, 0)[0] == INT_MIN
    assert f(float("inf"), 0)[5] == 2**31 - 1


# --------------------------------------------------------------------------- control flow

CONTROL = """
func.func @collatz(%n0: i64) -> (i64, i64) {
  %one = arith.constant 1 : i64
  %z = arith.constant 0 : i64
  %r:2 = scf.while (%x = %n0, %k = %z) : (i64, i64) -> (i64, i64) {
    %c = arith.cmpi sgt, %x, %one : i64
    scf.condition(%c) %x, %k : i64, i64
  } do {
  ^bb0(%x2: i64, %k2: i64):
    %two = arith.constant 2 : i64
    %three = arith.constant 3 : i64
    %m = arith.remsi %x2, %two : i64
    %even = arith.cmpi eq, %m, %z : i64
    %nx = scf.if %even -> (i64) {
      %h = arith.divsi %x2, %two : i64
      scf.yield %h : i64
    } else {
      %t = arith.muli %x2, %three : i64
      %t1 = arith.addi %t, %one : i64
      scf.yield %t1 : i64
    }
    %k3 = arith.addi %k2, %one : i64
    scf.yield %nx, %k3 : i64, i64
  }
  func.return %r#0, %r#1 : i64, i64
}
func.func @fib_loop(%n: i64) -> i64 {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r:2 = scf.for %i = %z to %n step %one iter_args(%a = %z, %b = %one) -> (i64, i64) : i64 {
    %c = arith.addi %a, %b : i64
    scf.yield %b, %c : i64, i64
  }
  func.return %r#0 : i64
}
func.func @stepped(%lo: index, %hi: index, %st: index) -> index {
  %z = arith.constant 0 : index
  %r = scf.for %i = %lo to %hi step %st iter_args(%acc = %z) -> (index) {
    %s = arith.addi %acc, %i : index
    scf.yield %s : index
  }
  func.return %r : index
}
func.func @sw(%k: index) -> i64 {
  %r = scf.index_switch %k -> i64
  case 0 {
    %a = arith.constant 10 : i64
    scf.yield %a : i64
  }
  case 5 {
    %b = arith.constant 50 : i64
    scf.yield %b : i64
  }
  default {
    %c = arith.constant -1 : i64
    scf.yield %c : i64
  }
  func.return %r : i64
}
func.func @gcd(%a: i64, %b: i64) -> i64 {
  cf.br ^loop(%a, %b : i64, i64)
^loop(%x: i64, %y: i64):
  %z = arith.constant 0 : i64
  %done = arith.cmpi eq, %y, %z : i64
  cf.cond_br %done, ^exit(%x : i64), ^body
^body:
  %r = arith.remsi %x, %y : i64
  cf.br ^loop(%y, %r : i64, i64)
^exit(%g: i64):
  func.return %g : i64
}
func.func @same_target(%c: i1) -> i64 {
  %a = arith.constant 1 : i64
  %b = arith.constant 2 : i64
  cf.cond_br %c, ^join(%a : i64), ^join(%b : i64)
^join(%v: i64):
  func.return %v : i64
}
func.func @fib(%n: i64) -> i64 {
  %two = arith.constant 2 : i64
  %one = arith.constant 1 : i64
  %small = arith.cmpi slt, %n, %two : i64
  %r = scf.if %small -> (i64) {
    scf.yield %n : i64
  } else {
    %a = arith.subi %n, %one : i64
    %b = arith.subi %n, %two : i64
    %fa = func.call @fib(%a) : (i64) -> i64
    %fb = func.call @fib(%b) : (i64) -> i64
    %s = arith.addi %fa, %fb : i64
    scf.yield %s : i64
  }
  func.return %r : i64
}
func.func @is_even(%n: i64) -> i1 {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %zero = arith.cmpi eq, %n, %z : i64
  %r = scf.if %zero -> (i1) {
    %t = arith.constant true
    scf.yield %t : i1
  } else {
    %m = arith.subi %n, %one : i64
    %o = func.call @is_odd(%m) : (i64) -> i1
    scf.yield %o : i1
  }
  func.return %r : i1
}
func.func @is_odd(%n: i64) -> i1 {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %zero = arith.cmpi eq, %n, %z : i64
  %r = scf.if %zero -> (i1) {
    %f = arith.constant false
    scf.yield %f : i1
  } else {
    %m = arith.subi %n, %one : i64
    %e = func.call @is_even(%m) : (i64) -> i1
    scf.yield %e : i1
  }
  func.return %r : i1
}
func.func private @divmod(%a: i64, %b: i64) -> (i64, i64, f64) {
  %q = arith.floordivsi %a, %b : i64
  %m = arith.muli %q, %b : i64
  %r = arith.subi %a, %m : i64
  %f = arith.sitofp %q : i64 to f64
  func.return %q, %r, %f : i64, i64, f64
}
func.func @use_divmod(%a: i64, %b: i64) -> (i64, i64, f64, i64) {
  %q, %r, %f = func.call @divmod(%a, %b) : (i64, i64) -> (i64, i64, f64)
  %c = "scf.execute_region"() ({
    %s = arith.addi %q, %r : i64
    scf.yield %s : i64
  }) : () -> i64
  func.return %q, %r, %f, %c : i64, i64, f64, i64
}
func.func @nothing(%a: i64) {
  func.return
}
func.func @cswitch(%f: i64) -> i64 {
  %a = arith.constant 100 : i64
  cf.switch %f : i64, [
    default: ^d(%a : i64),
    1: ^one,
    2: ^d(%f : i64)
  ]
^one:
  %x = arith.constant 7 : i64
  func.return %x : i64
^d(%v: i64):
  func.return %v : i64
}
"""


@pytest.fixture(scope="module")
def control() -> JitModule:
    return compile_(CONTROL)


def test_while_if_for(control: JitModule) -> None:
    assert control.function("collatz")(27) == (1, 111)
    assert control.function("fib_loop")(90) == 2880067194370816120
    assert control.function("fib_loop")(0) == 0
    assert control.function("stepped")(3, 20, 4) == 3 + 7 + 11 + 15 + 19
    assert control.function("stepped")(5, 2, 1) == 0


def test_switch_and_cfg(control: JitModule) -> None:
    assert [control.function("sw")(k) for k in (0, 5, 3, -1)] == [10, 50, -1, -1]
    assert control.function("gcd")(84, 36) == 12
    assert control.function("same_target")(True) == 1
    assert control.function("same_target")(False) == 2
    assert [control.function("cswitch")(k) for k in (0, 1, 2)] == [100, 7, 2]


def test_calls_recursion_and_results(control: JitModule) -> None:
    assert control.function("fib")(20) == 6765
    assert control.function("is_even")(1001) is False
    assert control.function("is_odd")(1001) is True
    assert control.function("use_divmod")(-7, 2) == (-4, 1, -4.0, -3)
    assert control.function("nothing")(1) is None
    assert "divmod" not in control.names  # private functions get no entry point


# --------------------------------------------------------------------------- memrefs

STRIDED2 = "memref<?x?xf64, strided<[?, ?], offset: ?>>"
STRIDED1 = "memref<?xf64, strided<[?], offset: ?>>"
STRIDED1I = "memref<?xi64, strided<[?], offset: ?>>"

MEMREFS = f"""
func.func @scale(%a: {STRIDED2}, %k: f64) -> memref<?x?xf64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : {STRIDED2}
  %m = memref.dim %a, %c1 : {STRIDED2}
  %b = memref.alloc(%n, %m) : memref<?x?xf64>
  scf.for %i = %c0 to %n step %c1 {{
    scf.for %j = %c0 to %m step %c1 {{
      %v = memref.load %a[%i, %j] : {STRIDED2}
      %w = arith.mulf %v, %k : f64
      memref.store %w, %b[%i, %j] : memref<?x?xf64>
    }}
  }}
  func.return %b : memref<?x?xf64>
}}
func.func @row(%a: {STRIDED2}, %i: index) -> {STRIDED1} {{
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c1 : {STRIDED2}
  %r = memref.subview %a[%i, 0] [1, %m] [1, 1] : {STRIDED2} to {STRIDED1}
  func.return %r : {STRIDED1}
}}
func.func @transpose(%a: {STRIDED2}) -> {STRIDED2} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : {STRIDED2}
  %m = memref.dim %a, %c1 : {STRIDED2}
  %base, %off, %s0, %s1, %t0, %t1 = memref.extract_strided_metadata %a : {STRIDED2}
      -> memref<f64>, index, index, index, index, index
  %t = memref.reinterpret_cast %a to offset: [%off], sizes: [%m, %n], strides: [%t1,
      %t0] : {STRIDED2} to {STRIDED2}
  func.return %t : {STRIDED2}
}}
func.func @split(%a: memref<?xi64>, %k: index) -> ({STRIDED1I},
    {STRIDED1I}) {{
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xi64>
  %rest = arith.subi %n, %k : index
  %x = memref.subview %a[0] [%k] [1] : memref<?xi64> to {STRIDED1I}
  %y = memref.subview %a[%k] [%rest] [1] : memref<?xi64> to {STRIDED1I}
  func.return %x, %y : {STRIDED1I}, {STRIDED1I}
}}
func.func @every_other(%a: {STRIDED1}) -> memref<?xf64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %a, %c0 : {STRIDED1}
  %h = arith.divui %n, %c2 : index
  %v = memref.subview %a[1] [%h] [2] : {STRIDED1} to {STRIDED1}
  %o = memref.alloc(%h) : memref<?xf64>
  "memref.copy"(%v, %o) : ({STRIDED1}, memref<?xf64>) -> ()
  func.return %o : memref<?xf64>
}}
func.func @copy2(%a: memref<?x?xi32>) -> (memref<?x?xi32>, memref<?x?xi32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xi32>
  %m = memref.dim %a, %c1 : memref<?x?xi32>
  %b = memref.alloc(%n, %m) : memref<?x?xi32>
  "memref.copy"(%a, %b) : (memref<?x?xi32>, memref<?x?xi32>) -> ()
  %c = memref.alloc(%n, %m) : memref<?x?xi32>
  %bt = memref.reinterpret_cast %b to offset: [0], sizes: [%n, %m], strides: [1,
      %n] : memref<?x?xi32> to memref<?x?xi32, strided<[1, ?]>>
  "memref.copy"(%bt, %c) : (memref<?x?xi32, strided<[1, ?]>>, memref<?x?xi32>) -> ()
  func.return %b, %c : memref<?x?xi32>, memref<?x?xi32>
}}
func.func @bools(%a: memref<?xi1>) -> (memref<?xi1>, i64) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xi1>
  %b = memref.alloc(%n) : memref<?xi1>
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %t = arith.constant true
  %cnt = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {{
    %v = memref.load %a[%i] : memref<?xi1>
    %nv = arith.xori %v, %t : i1
    memref.store %nv, %b[%i] : memref<?xi1>
    %inc = arith.select %v, %one, %z : i64
    %s = arith.addi %acc, %inc : i64
    scf.yield %s : i64
  }}
  func.return %b, %cnt : memref<?xi1>, i64
}}
func.func @scratch(%n: index) -> i64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %small = memref.alloca() : memref<4xi64>
  %big = memref.alloca(%n) : memref<?xi64>
  %z = arith.constant 0 : i64
  scf.for %i = %c0 to %n step %c1 {{
    %ii = arith.index_cast %i : index to i64
    memref.store %ii, %big[%i] : memref<?xi64>
  }}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {{
    %tmp = memref.alloca(%n) : memref<?xi64>
    %v = memref.load %big[%i] : memref<?xi64>
    memref.store %v, %tmp[%c0] : memref<?xi64>
    memref.store %v, %small[%c1] : memref<4xi64>
    %w = memref.load %tmp[%c0] : memref<?xi64>
    %s = arith.addi %acc, %w : i64
    scf.yield %s : i64
  }}
  func.return %r : i64
}}
func.func @fresh_and_free(%n: index) -> index {{
  %b = memref.alloc(%n) : memref<?xf64>
  %c0 = arith.constant 0 : index
  %d = memref.dim %b, %c0 : memref<?xf64>
  memref.dealloc %b : memref<?xf64>
  func.return %d : index
}}
func.func @reshape(%a: memref<?x?xi64>) -> (memref<?xi64>, memref<?x2xi64>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xi64>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<?x?xi64> into memref<?xi64>
  %len = memref.dim %flat, %c0 : memref<?xi64>
  %c2 = arith.constant 2 : index
  %h = arith.divui %len, %c2 : index
  %pairs = memref.expand_shape %flat [[0, 1]] output_shape [%h,
      2] : memref<?xi64> into memref<?x2xi64>
  %out = memref.alloc(%len) : memref<?xi64>
  "memref.copy"(%flat, %out) : (memref<?xi64>, memref<?xi64>) -> ()
  %o2 = memref.alloc(%h) : memref<?x2xi64>
  "memref.copy"(%pairs, %o2) : (memref<?x2xi64>, memref<?x2xi64>) -> ()
  func.return %out, %o2 : memref<?xi64>, memref<?x2xi64>
}}
func.func @scalar_box(%a: memref<f64>) -> (memref<f64>, f64) {{
  %v = memref.load %a[] : memref<f64>
  %b = memref.alloc() : memref<f64>
  %w = arith.addf %v, %v : f64
  memref.store %w, %b[] : memref<f64>
  func.return %b, %v : memref<f64>, f64
}}
"memref.global"() <{{sym_name = "table", sym_visibility = "private", type = memref<3xi64>,
                     initial_value = dense<[10, 20, 30]> : tensor<3xi64>, constant}}>
    : () -> ()
func.func @lookup(%i: index) -> (i64, memref<3xi64>) {{
  %t = "memref.get_global"() <{{name = @table}}> : () -> memref<3xi64>
  %v = memref.load %t[%i] : memref<3xi64>
  func.return %v, %t : i64, memref<3xi64>
}}
func.func @twice_same(%n: index) -> (memref<?xf64>, memref<?xf64>) {{
  %b = memref.alloc(%n) : memref<?xf64>
  func.return %b, %b : memref<?xf64>, memref<?xf64>
}}
func.func @psum(%a: {STRIDED2}) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : {STRIDED2}
  %m = memref.dim %a, %c1 : {STRIDED2}
  %z = arith.constant 0.0 : f64
  %r = "scf.parallel"(%c0, %c0, %n, %m, %c1, %c1, %z)
      <{{operandSegmentSizes = array<i32: 2, 2, 2, 1>}}> ({{
  ^bb0(%i: index, %j: index):
    %v = memref.load %a[%i, %j] : {STRIDED2}
    "scf.reduce"(%v) ({{
    ^bb1(%l: f64, %rr: f64):
      %s = arith.addf %l, %rr : f64
      "scf.reduce.return"(%s) : (f64) -> ()
    }}) : (f64) -> ()
  }}) : (index, index, index, index, index, index, f64) -> f64
  func.return %r : f64
}}
func.func @scoped(%n: index) -> i64 {{
  %r = "memref.alloca_scope"() ({{
    %b = memref.alloca(%n) : memref<?xi64>
    %c0 = arith.constant 0 : index
    %v = arith.constant 5 : i64
    memref.store %v, %b[%c0] : memref<?xi64>
    %w = memref.load %b[%c0] : memref<?xi64>
    "memref.alloca_scope.return"(%w) : (i64) -> ()
  }}) : () -> i64
  func.return %r : i64
}}
func.func @inplace(%a: memref<?xi64>, %i: index, %v: i64) -> memref<?xi64> {{
  memref.store %v, %a[%i] : memref<?xi64>
  func.return %a : memref<?xi64>
}}
"""


@pytest.fixture(scope="module")
def mem() -> JitModule:
    return compile_(MEMREFS)


def test_strided_inputs_any_numpy_strides(mem: JitModule) -> None:
    a = np.arange(60.0).reshape(6, 10)
    f = mem.function("scale")
    for view in (a, a[::2, 1::3], a[::-1, ::-2], a.T, a[2:3, :]):
        out = f(view, 2.0)
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(out, view * 2.0)
    assert f(np.zeros((0, 5)), 1.0).shape == (0, 5)


def test_views_row_transpose_split(mem: JitModule) -> None:
    a = np.arange(12.0).reshape(3, 4)
    r = mem.function("row")(a, 1)
    np.testing.assert_array_equal(r, a[1])
    assert np.shares_memory(r, a)  # a view of the argument, not a copy
    t = mem.function("transpose")(a[:, ::-1])
    np.testing.assert_array_equal(t, a[:, ::-1].T)
    x, y = mem.function("split")(np.arange(7), 3)
    np.testing.assert_array_equal(x, [0, 1, 2])
    np.testing.assert_array_equal(y, [3, 4, 5, 6])
    np.testing.assert_array_equal(mem.function("every_other")(np.arange(9.0)), [1, 3, 5, 7])


def test_copies_and_identity_layout_arguments(mem: JitModule) -> None:
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b, c = mem.function("copy2")(a.T)  # not contiguous: copied to fit the identity layout
    np.testing.assert_array_equal(b, a.T)
    # c reads b's buffer with strides [1, 4]: c[i, j] = b.flat[i + 4 * j]
    np.testing.assert_array_equal(c, b.reshape(-1).reshape(3, 4).T)
    flat, pairs = mem.function("reshape")(np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(flat, np.arange(6))
    np.testing.assert_array_equal(pairs, np.arange(6).reshape(3, 2))
    with pytest.raises(TypeError):
        mem.function("copy2")(np.zeros((2, 2, 2), dtype=np.int32))
    with pytest.raises(TypeError):
        mem.function("copy2")(np.zeros((2, 2)))  # float64 is not int32


def test_bools_stack_buffers_and_rank0(mem: JitModule) -> None:
    a = np.array([True, False, True, True])
    b, n = mem.function("bools")(a)
    assert b.dtype == np.bool_ and n == 3
    np.testing.assert_array_equal(b, ~a)
    assert mem.function("scratch")(1000) == sum(range(1000))
    assert mem.function("fresh_and_free")(10) == 10
    box, v = mem.function("scalar_box")(np.array(1.5))
    assert box.shape == () and float(box) == 3.0 and v == 1.5
    assert mem.function("scoped")(4) == 5


def test_parallel_loop_nest_with_reduction(mem: JitModule) -> None:
    a = np.arange(48.0).reshape(6, 8)
    assert mem.function("psum")(a[1::2, ::-3]) == a[1::2, ::-3].sum()
    assert mem.function("psum")(np.zeros((0, 3))) == 0.0


def test_globals_and_shared_results(mem: JitModule) -> None:
    v, table = mem.function("lookup")(1)
    assert v == 20
    np.testing.assert_array_equal(table, [10, 20, 30])
    x, y = mem.function("twice_same")(4)
    assert np.shares_memory(x, y)
    a = np.zeros(3, dtype=np.int64)
    out = mem.function("inplace")(a, 1, 7)
    np.testing.assert_array_equal(a, [0, 7, 0])  # updated in place, as uniqueness allows
    assert np.shares_memory(out, a)


def test_results_are_freed_when_unused(mem: JitModule) -> None:
    out = mem.function("scale")(np.ones((2, 2)), 1.0)
    owner = out.base.owner  # type: ignore[union-attr]
    dead = threading.Event()
    weakref.finalize(owner, dead.set)
    view = out[1]
    del out, owner
    assert not dead.is_set()  # a view still uses the buffer
    del view
    assert dead.is_set()


# --------------------------------------------------------------------------- errors

ERRORS = """
func.func @check(%a: memref<?xi64>, %i: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xi64>
  %n64 = arith.index_cast %n : index to i64
  %z = arith.constant 0 : i64
  %lo = arith.cmpi sge, %i, %z : i64
  %hi = arith.cmpi slt, %i, %n64 : i64
  %ok = arith.andi %lo, %hi : i1
  %cert = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%i, %n64 : i64,
      i64) at "prog.l0:4:12"
  %ix = arith.index_cast %i : i64 to index
  %v = memref.load %a[%ix] : memref<?xi64>
  func.return %v : i64
}
func.func @sum_checked(%a: memref<?xi64>, %idx: memref<?xi64>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %idx, %c0 : memref<?xi64>
  %z = arith.constant 0 : i64
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %i = memref.load %idx[%k] : memref<?xi64>
    %v = func.call @check(%a, %i) : (memref<?xi64>, i64) -> i64
    %s = arith.addi %acc, %v : i64
    scf.yield %s : i64
  }
  func.return %r : i64
}
func.func @plain_assert(%c: i1) -> i64 {
  cf.assert %c, "plain failure"
  %one = arith.constant 1 : i64
  func.return %one : i64
}
func.func @huge(%n: index) -> memref<?x?xf64> {
  %b = memref.alloc(%n, %n) : memref<?x?xf64>
  func.return %b : memref<?x?xf64>
}
func.func @deep(%n: i64) -> i64 {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %base = arith.cmpi eq, %n, %z : i64
  %r = scf.if %base -> (i64) {
    scf.yield %z : i64
  } else {
    %m = arith.subi %n, %one : i64
    %x = func.call @deep(%m) : (i64) -> i64
    %sq = arith.muli %x, %x : i64
    %y = arith.addi %sq, %n : i64
    scf.yield %y : i64
  }
  func.return %r : i64
}
func.func @big_stack(%n: index) -> i64 {
  %b = memref.alloca(%n) : memref<?xi64>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  memref.store %z, %b[%c0] : memref<?xi64>
  %v = memref.load %b[%c0] : memref<?xi64>
  func.return %v : i64
}
"""


@pytest.fixture(scope="module")
def errors() -> JitModule:
    return compile_(ERRORS)


def test_assert_reports_location_and_values(errors: JitModule) -> None:
    a = np.arange(5) * 10
    assert errors.function("check")(a, 3) == 30
    with pytest.raises(L0Error) as info:
        errors.function("check")(a, 7)
    err = info.value
    assert err.kind == "runtime-error"
    assert err.loc == Loc("prog.l0", 4, 12)
    assert err.message == "index 7 out of bounds for array of size 5"
    assert str(err) == "prog.l0:4:12: error: index 7 out of bounds for array of size 5"


def test_errors_propagate_through_loops_and_calls(errors: JitModule) -> None:
    a = np.arange(5)
    assert errors.function("sum_checked")(a, np.array([0, 4, 4])) == 8
    with pytest.raises(L0Error, match="index -1 out of bounds"):
        errors.function("sum_checked")(a, np.array([0, 1, -1, 2]))
    with pytest.raises(L0Error, match="plain failure"):
        errors.function("plain_assert")(False)
    assert errors.function("plain_assert")(True) == 1


def test_out_of_memory_is_an_error(errors: JitModule) -> None:
    with pytest.raises(L0Error, match="out of memory: the requested array size"):
        errors.function("huge")(2**32)
    with pytest.raises(L0Error, match="out of memory"):
        errors.function("huge")(-1)
    with pytest.raises(L0Error, match=r"out of memory: cannot allocate \d+ bytes"):
        errors.function("huge")(2**29)  # 2**61 bytes: representable, never available
    assert errors.function("huge")(0).shape == (0, 0)


def test_stack_overflow_is_an_error(errors: JitModule) -> None:
    assert errors.function("deep")(3) == ((0 * 0 + 1) ** 2 + 2) ** 2 + 3
    with pytest.raises(L0Error, match="stack overflow: recursion too deep in function deep"):
        errors.function("deep")(10**9)
    with pytest.raises(L0Error, match="no room for an array of 8796093022208 bytes"):
        errors.function("big_stack")(2**40)
    with pytest.raises(L0Error, match="stack overflow: the requested array size does not fit"):
        errors.function("big_stack")(2**62)
    # The same in a thread with a small stack: the floor is per thread.
    caught: list[BaseException] = []

    def run() -> None:
        try:
            errors.function("deep")(10**9)
        except L0Error as e:
            caught.append(e)

    old = threading.stack_size(1 << 21)
    try:
        t = threading.Thread(target=run)
        t.start()
    finally:
        threading.stack_size(old)
    t.join()
    assert caught and "stack overflow" in str(caught[0])


def test_parse_loc() -> None:
    assert parse_loc("a/b.l0:3:4") == Loc("a/b.l0", 3, 4)
    assert parse_loc("x.l0:1:2-3:4") == Loc("x.l0", 1, 2, 3, 4)
    assert parse_loc("") == Loc("<unknown>", 0, 0)


# --------------------------------------------------------------------------- emitted IR


def test_emitted_ir_shape(tmp_path: Path) -> None:
    """Checked with filecheck: inbounds nsw address arithmetic, no nsw on L0 ints, TBAA."""
    src = MEMREFS.split("func.func @row")[0] + INT_OPS.split("func.func @shifts")[0]
    checks = tmp_path / "checks"
    checks.write_text("""
    CHECK-LABEL: @"l0.fn.scale"(ptr noalias %"ctx", ptr %"a.allocated", ptr %"a.aligned",
    CHECK-SAME:  i64 %"a.offset", i64 %"a.size0", i64 %"a.size1", i64 %"a.stride0",
    CHECK-SAME:  i64 %"a.stride1", double %"k")
    CHECK: call ptr @"l0.rt.alloc"
    CHECK: br i1 %{{.*}}, label %"ok", label %"error", !prof
    CHECK: mul nsw i64 %{{.*}}, %"a.stride0"
    CHECK: getelementptr inbounds double, ptr %"a.aligned"
    CHECK: load double, ptr %{{.*}}, align 8, !tbaa
    CHECK: store double %{{.*}}, align 8, !tbaa
    CHECK-LABEL: @"l0.fn.ints"
    CHECK: add i64 %"x", %"y"
    CHECK-NEXT: sub i64 %"x", %"y"
    CHECK-NEXT: mul i64 %"x", %"y"
    CHECK-LABEL: define i32 @"l0.entry.scale"(ptr %"ctx", ptr %"slots")
    """)
    ir_text = print_llvm_ir(parse(src))
    filecheck = Path(sys.executable).parent / "filecheck"
    proc = subprocess.run([str(filecheck), str(checks)], input=ir_text, text=True,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr + ir_text


def test_fast_math_and_optimised_ir() -> None:
    src = """
    func.func @dot(%a: memref<?xf64>, %b: memref<?xf64>) -> f64 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %a, %c0 : memref<?xf64>
      %z = arith.constant 0.0 : f64
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
        %x = memref.load %a[%i] : memref<?xf64>
        %y = memref.load %b[%i] : memref<?xf64>
        %p = arith.mulf %x, %y : f64
        %s = arith.addf %acc, %p : f64
        scf.yield %s : f64
      }
      func.return %r : f64
    }
    """
    m = parse(src)
    assert "fadd double" in print_llvm_ir(m)
    assert "fadd fast double" in print_llvm_ir(m, fast_math=True)
    opt = optimized_llvm_ir(m, fast_math=True)
    assert re.search(r"fadd fast <\d+ x double>", opt), "a fast-math reduction vectorises"
    a, b = np.random.rand(1001), np.random.rand(1001)
    got = JitModule(m, fast_math=True).function("dot")(a, b)
    assert math.isclose(got, float(a @ b), rel_tol=1e-12)


def test_compile_cache_reuses_the_engine() -> None:
    src = ("func.func @twice(%x: f64) -> f64 {\n  %y = arith.addf %x, %x : f64\n"
           "  func.return %y : f64\n}\n")
    first = compile_(src)
    again = compile_(src)
    assert first.compiled is again.compiled
    assert compile_(src, fast_math=True).compiled is not first.compiled
    # the key is the LLVM IR (Note [The JIT's cache key]): another module text, the same
    # code, the same engine
    renamed = compile_(src.replace("%y", "%doubled"))
    assert renamed.compiled is first.compiled


def test_compile_cache_hit_keeps_its_own_element_types() -> None:
    # An array is a pointer in LLVM IR: a function returning its array of integers and
    # one returning its array of reals emit the same IR (Note [The JIT's cache key]);
    # each must still take and give its own element type.
    src = "func.func @f(%a: memref<?xT>) -> memref<?xT> {\n  func.return %a : memref<?xT>\n}\n"
    ints, reals = compile_(src.replace("T", "i64")), compile_(src.replace("T", "f64"))
    assert ints.compiled.engine is reals.compiled.engine
    assert ints.function("f")(np.arange(3)).dtype == np.int64
    assert reals.function("f")(np.array([0.5, 1.5])).tolist() == [0.5, 1.5]


def test_compile_cache_hit_keeps_its_own_error_messages() -> None:
    # Two modules that differ only in a run-time error's message emit the same LLVM IR
    # (an error is a number there); the hit must report its own message.
    src = """
    func.func @f(%c: i1) -> i64 {
      cf.assert %c, "MESSAGE"
      %r = arith.constant 1 : i64
      func.return %r : i64
    }
    """
    first = compile_(src.replace("MESSAGE", "first"))
    second = compile_(src.replace("MESSAGE", "second"))
    assert first.compiled.engine is second.compiled.engine
    messages = [[s.message for s in m.compiled.errors.sites.values()] for m in (first, second)]
    assert "first" in messages[0] and "second" in messages[1]


def test_a_multicore_module_that_calls_no_openmp_shares_the_cpu_code() -> None:
    # Note [The JIT's cache key]: without parallel loops the multicore back end emits
    # the cpu back end's IR, which runs the same on any thread count.
    from l0.frontend import l0_to_module
    from l0.targets import TARGETS

    def compiled(source: str, backend: str, threads: int | None) -> object:
        engine = TARGETS[backend].make_engine(l0_to_module(source, "t.l0"), entries=["main"],
                                              threads=threads)
        assert engine.call("main", [np.arange(4)]) is not None
        return engine._jit.compiled

    scalar = "fun int main([int] a) = a[0] + a[3]"
    parallel = "fun [int] main([int] a) = map(fn int (int x) => x * 2, a)"
    assert compiled(scalar, "cpu", None) is compiled(scalar, "multicore", 2)
    assert compiled(parallel, "cpu", None) is not compiled(parallel, "multicore", 2)


def test_unsupported_ir_is_a_lowering_error() -> None:
    src = """
    func.func @f(%a: memref<?xf64>) -> memref<?xf64> {
      %c0 = arith.constant 0 : index
      %n = memref.dim %a, %c0 : memref<?xf64>
      %b = memref.alloc(%n) : memref<?xf64, strided<[2]>>
      %c = "memref.cast"(%b) : (memref<?xf64, strided<[2]>>) -> memref<?xf64>
      func.return %c : memref<?xf64>
    }
    """
    with pytest.raises(LoweringError, match="convert-to-llvm: expected memref.alloc of an"):
        print_llvm_ir(parse(src))


# --------------------------------------------------------------------------- benchmarks

BENCH = """
func.func @saxpy(%a: f64, %x: memref<?xf64>, %y: memref<?xf64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %o = memref.alloc(%n) : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %xi = memref.load %x[%i] : memref<?xf64>
    %yi = memref.load %y[%i] : memref<?xf64>
    %p = arith.mulf %a, %xi : f64
    %s = arith.addf %p, %yi : f64
    memref.store %s, %o[%i] : memref<?xf64>
  }
  func.return %o : memref<?xf64>
}
func.func @sum(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %acc, %v : f64
    scf.yield %s : f64
  }
  func.return %r : f64
}
func.func @bs(%s: memref<?xf64>, %k: memref<?xf64>, %t: memref<?xf64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %s, %c0 : memref<?xf64>
  %o = memref.alloc(%n) : memref<?xf64>
  %r = arith.constant 0.02 : f64
  %v = arith.constant 0.30 : f64
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %rsqrt2 = arith.constant 0.7071067811865476 : f64
  scf.for %i = %c0 to %n step %c1 {
    %si = memref.load %s[%i] : memref<?xf64>
    %ki = memref.load %k[%i] : memref<?xf64>
    %ti = memref.load %t[%i] : memref<?xf64>
    %sq = math.sqrt %ti : f64
    %vs = arith.mulf %v, %sq : f64
    %ratio = arith.divf %si, %ki : f64
    %lg = math.log %ratio : f64
    %v2 = arith.mulf %v, %v : f64
    %hv2 = arith.mulf %half, %v2 : f64
    %rv = arith.addf %r, %hv2 : f64
    %rvt = arith.mulf %rv, %ti : f64
    %num = arith.addf %lg, %rvt : f64
    %d1 = arith.divf %num, %vs : f64
    %d2 = arith.subf %d1, %vs : f64
    %e1 = arith.mulf %d1, %rsqrt2 : f64
    %e2 = arith.mulf %d2, %rsqrt2 : f64
    %f1 = math.erf %e1 : f64
    %f2 = math.erf %e2 : f64
    %n1a = arith.addf %one, %f1 : f64
    %n1 = arith.mulf %half, %n1a : f64
    %n2a = arith.addf %one, %f2 : f64
    %n2 = arith.mulf %half, %n2a : f64
    %nrt = arith.negf %r : f64
    %nrtt = arith.mulf %nrt, %ti : f64
    %disc = math.exp %nrtt : f64
    %kd = arith.mulf %ki, %disc : f64
    %a = arith.mulf %si, %n1 : f64
    %b = arith.mulf %kd, %n2 : f64
    %call = arith.subf %a, %b : f64
    memref.store %call, %o[%i] : memref<?xf64>
  }
  func.return %o : memref<?xf64>
}
"""


def _best(f: object, *args: object, reps: int = 5) -> float:
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        f(*args)  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def test_micro_benchmarks_against_numpy() -> None:
    from math import erf

    jm = compile_(BENCH)
    n = 10**6
    rng = np.random.default_rng(0)
    x, y = rng.random(n), rng.random(n)
    saxpy = jm.function("saxpy")
    np.testing.assert_allclose(saxpy(2.0, x, y), 2.0 * x + y)
    total = jm.function("sum")
    assert math.isclose(total(x), float(x.sum()), rel_tol=1e-9)
    s, k, t = rng.uniform(10, 100, n), rng.uniform(10, 100, n), rng.uniform(0.1, 2, n)
    verf = np.vectorize(erf)

    def bs_numpy(s: np.ndarray, k: np.ndarray, t: np.ndarray, cdf=verf) -> np.ndarray:
        vs = 0.3 * np.sqrt(t)
        d1 = (np.log(s / k) + (0.02 + 0.5 * 0.09) * t) / vs
        d2 = d1 - vs
        return s * 0.5 * (1 + cdf(d1 / np.sqrt(2))) - k * np.exp(-0.02 * t) * 0.5 * (
            1 + cdf(d2 / np.sqrt(2)))

    s, k, t = s[: n // 4], k[: n // 4], t[: n // 4]
    bs = jm.function("bs")
    m = 20000
    np.testing.assert_allclose(bs(s, k, t)[:m], bs_numpy(s[:m], k[:m], t[:m]), rtol=1e-12,
                               atol=1e-12)
    rows = [
        ("saxpy", _best(saxpy, 2.0, x, y), _best(lambda: 2.0 * x + y)),
        ("sum", _best(total, x), _best(x.sum)),
        ("black-scholes (erf)", _best(bs, s, k, t),
         _best(lambda: bs_numpy(s, k, t, cdf=_np_erf_approx))),
    ]
    print(f"\nmicro-benchmarks, n = {n} ({n // 4} options; best of 5; numpy's Black-Scholes"
          " uses a polynomial erf)")
    for name, ours, theirs in rows:
        print(f"  {name:22s} jit {ours * 1e3:8.2f} ms   numpy {theirs * 1e3:8.2f} ms   "
              f"ratio {ours / theirs:5.2f}")


def _np_erf_approx(z: np.ndarray) -> np.ndarray:
    # Abramowitz-Stegun 7.1.26, as numpy has no erf.
    s = np.sign(z)
    z = np.abs(z)
    t = 1 / (1 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (
        -1.453152027 + t * 1.061405429))))
    return s * (1 - poly * np.exp(-z * z))


def test_jit_module_surface() -> None:
    jm = compile_("func.func @id(%x: f64) -> f64 {\n  func.return %x : f64\n}\n")
    assert jm.names == ["id"]
    with pytest.raises(KeyError):
        jm.function("nope")
    assert jit.CACHE_SIZE > 0


SLICE = """
func.func @slice(%a: memref<?xi64>, %off: index, %n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %s = memref.reinterpret_cast %a to offset: [%off], sizes: [%n], strides: [1]
    {l0.iteration_slice} : memref<?xi64> to memref<?xi64>
  %v = memref.reinterpret_cast %a to offset: [%off], sizes: [%n], strides: [1]
    : memref<?xi64> to memref<?xi64>
  %x = memref.load %s[%c0] : memref<?xi64>
  %y = memref.load %v[%c0] : memref<?xi64>
  %r = arith.addi %x, %y : i64
  func.return %r : i64
}
"""


def test_iteration_slices_are_reported_on_the_checking_heap_only() -> None:
    # Note [Checking the slices] in `l0.lowering.memory.expand_allocs`: the marked view,
    # not the other one, calls the checking heap with the buffer and the slice's bounds
    # (elements [off, off + n), 8 bytes each).
    from l0.lowering.llvm.emit import emit_module

    checked = str(emit_module(parse(SLICE), checked_memory=True).llvm)
    calls = re.findall(r'call void @"l0_checked_slice"\(ptr %"a.allocated", ptr %"[^"]+", '
                       r'ptr %"[^"]+"\)', checked)
    assert len(calls) == 1
    assert "l0_checked_slice" not in str(emit_module(parse(SLICE)).llvm)
