"""The Rebinder passes (`hoist`, `cse`, `rebind`) and `bounds`: legality reasons, and
that programs behave exactly as before, failures included (thesis 6, docs/reference.md §5).

The lit tests (`test/lit/passes/{hoist,cse,rebind,bounds}.mlir`) show what the passes
do; here each pass runs on small L0 programs whose checks sit in loops and lambdas, and
the interpreter must print the same result, or report the same error with the same
message and location, with and without the pass, on inputs that make the checks fail
on different iterations.
"""

from __future__ import annotations

from typing import Any

import pytest
from behaviour import behaviour
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from l0.bigstack import call_with_big_stack
from l0.dialects import soac
from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.passes import PASSES
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.order import DefinitionOrder
from l0.passes.analysis.speculation import Speculation
from l0.passes.bounds.pattern import HoistChecks, loop_of
from l0.passes.bounds.ranges import Ranges
from l0.passes.cores.common_subexpressions import cse, why_not_mergeable
from l0.passes.cores.hoisting import Hoister, RegionKind, RegionScan


def parse(src: str) -> ModuleOp:
    module = Parser(l0_context(), src).parse_module()
    module.verify()
    return module


def first(module: ModuleOp, name: str) -> Any:
    return next(op for op in module.walk() if op.name == name)


# ---------------------------------------------------------------------------------------
# Legality reasons
# ---------------------------------------------------------------------------------------

_LOOP = """
func.func @f(%a: tensor<?xi64>, %b: tensor<?xi64>, %k: i64, %y: i64,
             %c: !soac.cert) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %s = soac.size(0) %b : tensor<?xi64>
  %ok = arith.cmpi slt, %k, %s : i64
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %t = soac.trace(%y : i64) at "t.l0:1:1"
    %v = arith.cmpi sle, %zero, %x : i64
    %c1 = soac.assert %v, "negative" at "t.l0:1:1"
    %n = soac.size(0) %b : tensor<?xi64>
    %c2 = soac.assert %ok, "out of bounds" at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %w = arith.addi %e, %t : i64
    soac.yield %w : i64
  }
  func.return %r : tensor<?xi64>
}
"""


def test_hoist_reasons() -> None:
    module = parse(_LOOP)
    hoister = Hoister(Speculation(module))
    holder = first(module, "soac.map")
    scan = RegionScan(holder, RegionKind.LOOP, nonempty=False)
    trace, check1 = first(module, "soac.trace"), first(module, "soac.assert")
    assert hoister.why_not(trace, scan) == "it prints"
    assert hoister.why_not(check1, scan) == "it uses a value defined inside the region"
    size = first(module, "soac.size")
    assert hoister.why_not(size, scan) is None
    scan.blocked_by = check1
    check2 = [op for op in module.walk() if isinstance(op, soac.AssertOp)][1]
    reason = hoister.why_not(check2, scan)
    assert reason is not None and "after 'soac.assert', which stays" in reason
    scan.blocked_by = None
    assert hoister.why_not(check2, scan) is None  # moves, guarded
    index = first(module, "soac.index")
    reason = hoister.why_not(index, scan)
    assert reason is not None and "the loop may run zero times" in reason
    branch = RegionScan(holder, RegionKind.BRANCH, nonempty=False)
    reason = hoister.why_not(check2, branch)
    assert reason is not None and "the branch may not be taken" in reason


def test_cse_reasons() -> None:
    module = parse("""
func.func @f(%n: i64, %x: i64) -> tensor<?xi64> {
  %a = soac.iota %n
  %b = soac.update %a[%x] = %x : tensor<?xi64>
  %t = soac.trace(%x : i64) at "t.l0:1:1"
  func.return %b : tensor<?xi64>
}
""")
    spec = Speculation(module)
    assert why_not_mergeable(first(module, "soac.iota"), spec) == "its result may be consumed"
    assert why_not_mergeable(first(module, "soac.update"), spec) == "it consumes an array"
    assert why_not_mergeable(first(module, "soac.trace"), spec) == "it prints"


def test_bounds_reasons() -> None:
    module = parse("""
func.func @f(%a: tensor<?xi64>, %n: i64, %d: i64) -> tensor<?xi64> {
  %in = soac.iota %n
  %r = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %q = arith.floordivsi %i, %d : i64
    %s = soac.size(0) %a : tensor<?xi64>
    %hi = arith.cmpi slt, %i, %s : i64
    %c = soac.assert %hi, "out of bounds" at "t.l0:1:1"
    %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
    %t = arith.addi %e, %q : i64
    soac.yield %t : i64
  }
  func.return %r : tensor<?xi64>
}
""")
    holder = first(module, "soac.map")
    pattern = HoistChecks(Ranges(DefinitionOrder(module)), Speculation(module),
                          Consumption(module))
    loop = loop_of(holder)
    assert loop is not None
    assert pattern.why_not(holder, loop) == "'arith.floordivsi' in the body may fail or print"


# ---------------------------------------------------------------------------------------
# Same behaviour, failures included
# ---------------------------------------------------------------------------------------

PROGRAMS: dict[str, tuple[str, list[str]]] = {
    "two_checks": (
        "fun [int] main([int] a, int n) = map(fn int (int i) => a[i] + a[2*i - 1], iota(n))",
        ["[1, 2, 3, 4, 5]\n3\n", "[1, 2, 3, 4, 5]\n4\n", "[1, 2, 3]\n0\n", "[]\n2\n",
         "[1, 2, 3, 4, 5]\n1\n", "[1, 2]\n-1\n"],
    ),
    "reversed": (
        "fun [int] main([int] a, int n) = "
        "map(fn int (int i) => a[size(0, a) - 1 - 2*i] * a[i], iota(n))",
        ["[1, 2, 3, 4, 5]\n3\n", "[1, 2, 3, 4, 5]\n4\n", "[1, 2, 3, 4, 5, 6]\n4\n", "[]\n0\n"],
    ),
    "loop": (
        "fun int main([int] a, int n) = loop (s = 0) = for i < n do s + a[i + 1] * a[n - i] in s",
        ["[1, 2, 3, 4]\n3\n", "[1, 2, 3, 4]\n4\n", "[1, 2, 3, 4]\n0\n", "[1]\n1\n"],
    ),
    "zip_rows": (
        "fun [[int]] main([[int]] a, [int] b) = map(fn [int] ([int] r) => map(op +, zip(r, b)), a)",
        ["[[1, 2], [3, 4]]\n[10, 20]\n", "[[1, 2], [3, 4]]\n[10]\n", "empty([int])\n[1]\n"],
    ),
    "invariant_in_loop": (
        "fun int main([int] a, int n, int k) = "
        "loop (s = 0) = for i < n do let x = a[k] in let y = a[i] in s + x * y + 10 / k in s",
        ["[1, 2, 3]\n3\n1\n", "[1, 2, 3]\n3\n5\n", "[1, 2, 3]\n0\n5\n", "[1, 2, 3]\n4\n1\n",
         "[1, 2, 3]\n2\n0\n"],
    ),
    "trace_then_check": (
        "fun [int] main([int] a, int n) = map(fn int (int i) => let t = trace(i) in a[i] + t, "
        "iota(n))",
        ["[5, 6, 7]\n2\n", "[5, 6, 7]\n5\n"],
    ),
    "branches": (
        "fun int main(bool c, int x, int y) = if c then (y / x) + (x * y) else (y * x) - 1",
        ["True\n2\n7\n", "False\n0\n7\n", "True\n0\n7\n"],
    ),
    "unique": (
        "fun int f(*[int] a, int i) = let a[0] = i in a[0] + size(0, a)\n"
        "fun {[int], [int]} main([int] b) = let o = iota(3) in "
        "{o, map(fn int (int i) => let a = iota(3) in f(a, i) + f(iota(3), i), b)}",
        ["[1, 2]\n"],
    ),
}


_run = behaviour


@pytest.mark.parametrize("pipeline", ["hoist", "cse", "rebind", "bounds", "rebind,bounds"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_behaviour(name: str, pipeline: str) -> None:
    src, inputs = PROGRAMS[name]

    def check() -> None:
        prog = load_program(src, "p.l0")
        optimised = to_module(prog)
        ctx = l0_context()
        for pass_name in pipeline.split(","):
            PASSES[pass_name]()().apply(ctx, optimised)
            optimised.verify()
        for text in inputs:
            assert _run(optimised, src, text) == _run(to_module(prog), src, text), text

    call_with_big_stack(check)


def test_cse_counts_the_ops_it_replaces() -> None:
    module = parse("""
func.func @f(%x: i64, %y: i64) -> (i64, i64, i64) {
  %a = arith.muli %x, %y : i64
  %b = arith.muli %y, %x : i64
  %c = arith.muli %x, %y : i64
  func.return %a, %b, %c : i64, i64, i64
}
""")
    assert cse(module) == 2
    assert cse(module) == 0
