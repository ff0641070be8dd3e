"""`simplify` folds scalars exactly as the interpreter computes them (Note [Exact folding]
in `l0.passes.simplify.arith`), and `inline`/`simplify`/`dce` keep a program's result.

Random straight-line functions of integer and real ops over two parameters and
interesting constants (0, -0.0, 1, -1, the extremes of i64, NaN, infinities, shift
counts around 64, ...) are run in the interpreter before and after the pass, on random
arguments: results must agree bit for bit (reals by their `repr`, so -0.0 differs from
0.0 and NaN equals NaN), and a run that fails must fail with the same message after it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from l0.diagnostics import L0Error
from l0.dialects.context import l0_context
from l0.interp import Interpreter
from l0.passes import PASSES

I64_MIN = -(2**63)
I64_MAX = 2**63 - 1

INT_CONSTANTS = [0, 1, -1, 2, 3, -7, 10, 63, 64, 65, 100, I64_MIN, I64_MAX, I64_MIN + 1]
REAL_CONSTANTS = ["0.0", "-0.0", "1.0", "-1.0", "2.5", "0.1", "1.0e300", "-1.0e-300",
                  "0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000", "3.0",
                  "9.3e18", "-9.3e18"]

INT_BINARY = ["addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "shli", "shrsi",
              "shrui", "floordivsi", "divsi", "remsi"]
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
REAL_BINARY = ["addf", "subf", "mulf", "divf"]
CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "true"]
BOOL_BINARY = ["andi", "ori", "xori"]


class _Gen:
    """Builds a random function `@main(%x: i64, %y: i64, %u: f64, %v: f64)` returning one
    value of each of i64, f64 and i1."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.ints = ["%x", "%y"]
        self.reals = ["%u", "%v"]
        self.bools: list[str] = []
        self.n = 0

    def fresh(self, rhs: str) -> str:
        name = f"%t{self.n}"
        self.n += 1
        self.lines.append(f"    {name} = {rhs}")
        return name

    def int_operand(self) -> str:
        if self.rng.random() < 0.35:
            return self.fresh(f"arith.constant {self.rng.choice(INT_CONSTANTS)} : i64")
        return self.rng.choice(self.ints)

    def real_operand(self) -> str:
        if self.rng.random() < 0.35:
            return self.fresh(f"arith.constant {self.rng.choice(REAL_CONSTANTS)} : f64")
        return self.rng.choice(self.reals)

    def bool_operand(self) -> str:
        if not self.bools or self.rng.random() < 0.2:
            return self.fresh(f"arith.constant {self.rng.choice(['true', 'false'])}")
        return self.rng.choice(self.bools)

    def step(self) -> None:
        r = self.rng
        kind = r.randrange(10)
        if kind < 4:
            op = r.choice(INT_BINARY)
            self.ints.append(self.fresh(
                f"arith.{op} {self.int_operand()}, {self.int_operand()} : i64"))
        elif kind == 4:
            self.bools.append(self.fresh(
                f"arith.cmpi {r.choice(CMPI)}, {self.int_operand()}, {self.int_operand()} : i64"))
        elif kind == 5:
            op = r.choice(REAL_BINARY)
            self.reals.append(self.fresh(
                f"arith.{op} {self.real_operand()}, {self.real_operand()} : f64"))
        elif kind == 6:
            self.bools.append(self.fresh(
                f"arith.cmpf {r.choice(CMPF)}, {self.real_operand()}, {self.real_operand()} : f64"))
        elif kind == 7:
            op = r.choice(["negf", "sqrt", "exp", "log", "absf"])
            dialect = "arith" if op == "negf" else "math"
            self.reals.append(self.fresh(f"{dialect}.{op} {self.real_operand()} : f64"))
        elif kind == 8:
            choice = r.randrange(4)
            if choice == 0:
                self.reals.append(self.fresh(f"arith.sitofp {self.int_operand()} : i64 to f64"))
            elif choice == 1:
                self.ints.append(self.fresh(f"arith.fptosi {self.real_operand()} : f64 to i64"))
            elif choice == 2:
                self.ints.append(self.fresh(
                    f"math.ipowi {self.int_operand()}, {self.int_operand()} : i64"))
            else:
                self.reals.append(self.fresh(
                    f"math.powf {self.real_operand()}, {self.real_operand()} : f64"))
        else:
            choice = r.randrange(3)
            if choice == 0:
                self.bools.append(self.fresh(
                    f"arith.{r.choice(BOOL_BINARY)} {self.bool_operand()}, "
                    f"{self.bool_operand()} : i1"))
            elif choice == 1:
                self.ints.append(self.fresh(
                    f"arith.select {self.bool_operand()}, {self.int_operand()}, "
                    f"{self.int_operand()} : i64"))
            else:
                self.reals.append(self.fresh(
                    f"arith.select {self.bool_operand()}, {self.real_operand()}, "
                    f"{self.real_operand()} : f64"))

    def program(self, steps: int) -> str:
        for _ in range(steps):
            self.step()
        results = [self.ints[-1], self.reals[-1], self.bool_operand()]
        body = "\n".join(self.lines)
        return (
            "func.func @main(%x: i64, %y: i64, %u: f64, %v: f64) -> (i64, f64, i1) {\n"
            f"{body}\n    func.return {', '.join(results)} : i64, f64, i1\n}}\n"
        )


def _parse(src: str) -> ModuleOp:
    module = Parser(l0_context(), src).parse_module()
    module.verify()
    return module


def _outcome(module: ModuleOp, args: list[Any]) -> tuple[str, ...]:
    try:
        results = Interpreter(module).call("main", list(args))
    except L0Error as err:
        return ("error", err.message)
    return tuple(repr(r) for r in results)


def _apply(pipeline: str, module: ModuleOp) -> None:
    ctx = l0_context()
    for name in pipeline.split(","):
        PASSES[name]()().apply(ctx, module)
    module.verify()


ARG_INTS = st.sampled_from(INT_CONSTANTS) | st.integers(I64_MIN, I64_MAX)
ARG_REALS = st.sampled_from([0.0, -0.0, 1.0, -2.5, float("inf"), float("nan"), 1e300]) | (
    st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), x=ARG_INTS, y=ARG_INTS, u=ARG_REALS, v=ARG_REALS)
def test_simplify_folds_exactly(seed: int, x: int, y: int, u: float, v: float) -> None:
    src = _Gen(random.Random(seed)).program(12)
    before = _outcome(_parse(src), [x, y, u, v])
    module = _parse(src)
    _apply("simplify", module)
    assert _outcome(module, [x, y, u, v]) == before, src


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_constant_functions_fold_to_constants(seed: int) -> None:
    """With constant arguments and only foldable ops, nothing but constants is left,
    unless the function fails (then the failing op stays and still fails)."""
    gen = _Gen(random.Random(seed))
    src = gen.program(10)
    src = src.replace("@main(%x: i64, %y: i64, %u: f64, %v: f64)", "@main()")
    prelude = ("    %x = arith.constant 7 : i64\n    %y = arith.constant -3 : i64\n"
               "    %u = arith.constant 2.5 : f64\n    %v = arith.constant -0.0 : f64\n")
    src = src.replace("{\n", "{\n" + prelude, 1)
    before = _outcome(_parse(src), [])
    module = _parse(src)
    _apply("simplify", module)
    assert _outcome(module, []) == before, src
    if before[0] != "error":
        ops = {op.name for op in module.walk()} - {"builtin.module", "func.func", "func.return"}
        assert ops <= {"arith.constant"}, (src, ops)


@pytest.mark.parametrize("pipeline", ["dce", "inline,simplify,dce"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), x=ARG_INTS, y=ARG_INTS, u=ARG_REALS, v=ARG_REALS)
def test_passes_keep_results_and_faults(pipeline: str, seed: int, x: int, y: int, u: float,
                                        v: float) -> None:
    src = _Gen(random.Random(seed)).program(10)
    before = _outcome(_parse(src), [x, y, u, v])
    module = _parse(src)
    _apply(pipeline, module)
    assert _outcome(module, [x, y, u, v]) == before, src


TABLE_INTS = [0, 1, -1, 2, -7, 63, 64, I64_MIN, I64_MAX]
TABLE_REALS = ["0.0", "-0.0", "1.0", "-2.5", "0.1", "1.0e300", "0x7FF0000000000000",
               "0xFFF0000000000000", "0x7FF8000000000000"]
# Ops that do not fail share one function per pair of constants; an op that fails at
# run time (a shift or `ipowi` by a negative count, a division by 0) gets its own.
SAFE_INT = ["addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi"]
FAULTY_INT = ["shli", "shrsi", "shrui", "floordivsi", "divsi", "remsi"]


def _function(k: int, constants: list[str], ops: list[tuple[str, str]]) -> str:
    """`@f<k>`: the constants `%a`, `%b`, ... then `ops` as (rhs, type), returning all."""
    lines = [f"    %{chr(97 + i)} = arith.constant {c}" for i, c in enumerate(constants)]
    lines += [f"    %r{j} = {rhs}" for j, (rhs, _) in enumerate(ops)]
    names = ", ".join(f"%r{j}" for j in range(len(ops)))
    types = ", ".join(t for _, t in ops)
    return (f"func.func @f{k}() -> ({types}) {{\n" + "\n".join(lines)
            + f"\n    func.return {names} : {types}\n}}\n")


def _int_cases() -> list[tuple[list[str], list[tuple[str, str]]]]:
    cases = []
    for a in TABLE_INTS:
        for b in TABLE_INTS:
            consts = [f"{a} : i64", f"{b} : i64"]
            safe = [(f"arith.{op} %a, %b : i64", "i64") for op in SAFE_INT]
            safe += [(f"arith.cmpi {p}, %a, %b : i64", "i1") for p in CMPI]
            for op in [*FAULTY_INT, "ipowi"]:
                rhs = (f"{'math' if op == 'ipowi' else 'arith'}.{op} %a, %b : i64", "i64")
                fails = b == 0 if op in ("floordivsi", "divsi", "remsi") else b < 0
                if fails:
                    cases.append((consts, [rhs]))
                else:
                    safe.append(rhs)
            cases.append((consts, safe))
    for a in ("true", "false"):
        for b in ("true", "false"):
            ops = [(f"arith.{op} %a, %b : i1", "i1") for op in SAFE_INT]
            ops += [(f"arith.cmpi {p}, %a, %b : i1", "i1") for p in CMPI]
            ops += [("arith.sitofp %a : i1 to f64", "f64")]
            cases.append(([a, b], ops))
    return cases


def _real_cases() -> list[tuple[list[str], list[tuple[str, str]]]]:
    cases = []
    for a in TABLE_REALS:
        for b in TABLE_REALS:
            ops = [(f"arith.{op} %a, %b : f64", "f64") for op in REAL_BINARY]
            ops += [("math.powf %a, %b : f64", "f64")]
            ops += [(f"arith.cmpf {p}, %a, %b : f64", "i1") for p in CMPF]
            cases.append(([f"{a} : f64", f"{b} : f64"], ops))
        unary = [(f"{op} %a : f64", "f64")
                 for op in ["arith.negf", "math.sqrt", "math.exp", "math.log", "math.absf"]]
        cases.append(([f"{a} : f64"], unary))
        cases.append(([f"{a} : f64"], [("arith.fptosi %a : f64 to i64", "i64")]))
    for c in ("9.2233720368547748e18", "-9.2233720368547758e18", "2.5", "-3.99"):
        cases.append(([f"{c} : f64"], [("arith.fptosi %a : f64 to i64", "i64")]))
    ints = [(f"arith.sitofp %{chr(97 + i)} : i64 to f64", "f64") for i in range(len(TABLE_INTS))]
    cases.append(([f"{i} : i64" for i in TABLE_INTS], ints))
    return cases


@pytest.mark.parametrize("cases", [_int_cases(), _real_cases()], ids=["integers", "reals"])
def test_every_op_on_interesting_constants(
    cases: list[tuple[list[str], list[tuple[str, str]]]],
) -> None:
    """Every foldable op on every pair of interesting constants: the folded module gives
    what the interpreter computes, and what fails at run time still fails."""
    src = "".join(_function(k, consts, ops) for k, (consts, ops) in enumerate(cases))
    module = _parse(src)
    before = Interpreter(module.clone())
    _apply("simplify", module)
    after = Interpreter(module)
    failing = 0
    for k, f in enumerate(module.ops):
        expected = _call(before, f"f{k}")
        assert _call(after, f"f{k}") == expected, src.split("func.func")[k + 1]
        names = {op.name for op in f.walk()} - {"func.func", "func.return"}
        if expected[0] == "error":
            failing += 1
        else:  # what does not fail folds to constants
            assert names == {"arith.constant"}, src.split("func.func")[k + 1]
    assert failing > 0  # the table does exercise the faults


def _call(engine: Interpreter, name: str) -> tuple[str, ...]:
    try:
        return tuple(repr(r) for r in engine.call(name, []))
    except L0Error as err:
        return ("error", err.message)
