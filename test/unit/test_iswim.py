"""`iswim` (thesis 8.3): scans of row-wise maps become column-wise scans with the same
results and errors, on the interpreter and the CPU back end.

The lit test (`test/lit/passes/iswim.mlir`) shows the rewrite and where it must not
fire; here whole L0 programs run after `-O` and `iswim`, on inputs with no rows, one
row, and a neutral element of the wrong length (the zip check, made before the scan).
"""

from __future__ import annotations

import pytest
from behaviour import behaviour

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects import soac
from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.passes.iswim import IswimPass
from l0.passes.pipeline import optimise
from l0.values import format_result, from_ir_results, read_arguments, to_ir_arguments

PROGRAMS = {
    "sums": (
        "fun [[int]] main([[int]] a, [int] ne) =\n"
        "  scan(fn [int] ([int] x, [int] y) => map(op +, zip(x, y)), ne, a)\n",
        ["[[1, 2], [3, 4], [5, 6]]\n[0, 0]\n", "[[1, 2, 3]]\n[10, 20, 30]\n",
         "empty([int])\n[1, 2]\n", "[[1, 2], [3, 4]]\n[1, 2, 3]\n"],
    ),
    "maxima": (
        "fun [[real]] main([[real]] a) =\n"
        "  let ne = replicate(size(1, a), -1000.0) in\n"
        "  scan(fn [real] ([real] x, [real] y) =>\n"
        "         map(fn real (real u, real v) => if u < v then v else u, zip(x, y)), ne, a)\n",
        ["[[1.5, -2.0], [0.5, 3.0], [2.5, 1.0]]\n", "empty([real])\n"],
    ),
    # a map fused into the scan first (a scanomap), then interchanged
    "fused": (
        "fun [[int]] main([[int]] a, [int] ne) =\n"
        "  scan(fn [int] ([int] x, [int] y) => map(op -, zip(x, y)), ne,\n"
        "       map(fn [int] ([int] r) => map(op * (3), r), a))\n",
        ["[[1, 2], [3, 4], [5, 6]]\n[0, 100]\n", "empty([int])\n[1, 2]\n",
         "[[1, 2], [3, 4]]\n[1, 2, 3]\n"],
    ),
}


def _transformed(src: str):  # type: ignore[no-untyped-def]
    module = to_module(load_program(src, "p.l0"))
    optimise(module)
    IswimPass().apply(l0_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_iswim_fires_and_keeps_behaviour(name: str) -> None:
    src, inputs = PROGRAMS[name]

    def check() -> None:
        module = _transformed(src)
        scans = [op for op in module.walk() if isinstance(op, soac.ScanOp | soac.ScanomapOp)]
        assert scans and all(isinstance(s.parent_op(), soac.MapOp) for s in scans)
        plain = to_module(load_program(src, "p.l0"))
        for text in inputs:
            assert behaviour(module, src, text) == behaviour(plain, src, text), text

    call_with_big_stack(check)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_iswim_on_the_cpu(name: str) -> None:
    from l0.lowering.pipeline import CpuEngine

    src, inputs = PROGRAMS[name]

    def check() -> None:
        prog = load_program(src, "p.l0")
        entry = next(f for f in prog.fundefs if f.name == "main")
        params = [p.type for p in entry.params]
        engine = CpuEngine(_transformed(src))
        plain = to_module(prog)
        for text in inputs:
            expected = behaviour(plain, src, text).split(" | ")[0]
            try:
                args = to_ir_arguments(params, read_arguments(text, params, "<stdin>"))
                got = format_result(entry.ret, from_ir_results(entry.ret,
                                                               engine.call("main", args)))
            except L0Error as err:
                got = err.render()
            assert got == expected, text

    call_with_big_stack(check)


# Figure 36, depth 2: a scan of maps of maps over arrays of rank 3. `-O` does not yet
# move the inner zip check (of the accumulator's rows) out of the scan, so the IR is
# that of `CUBE` after `-O` with the check made before the scan by hand, as it holds
# for every step: the accumulator keeps the neutral element's shape, and with no rows
# nothing is checked.
CUBE = (
    "fun [[[int]]] main([[[int]]] a, [[int]] ne) =\n"
    "  scan(fn [[int]] ([[int]] x, [[int]] y) =>\n"
    "         map(fn [int] ([int] u, [int] v) => map(op +, zip(u, v)), zip(x, y)), ne, a)\n"
)
CUBE_IR = """
func.func @main(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>) -> tensor<?x?x?xi64> {
  %n = soac.size(0) %ne : tensor<?x?xi64>
  %r = soac.size(1) %a : tensor<?x?x?xi64>
  %zero = arith.constant 0 : i64
  %rows = soac.size(0) %a : tensor<?x?x?xi64>
  %none = arith.cmpi eq, %rows, %zero : i64
  %same = arith.cmpi eq, %n, %r : i64
  %ok = arith.ori %same, %none : i1
  %c1 = soac.assert %ok, "ZIP" (%n, %r : i64, i64) at "p.l0:3:67"
  %m = soac.size(1) %ne : tensor<?x?xi64>
  %cols = soac.size(2) %a : tensor<?x?x?xi64>
  %empty_ne = arith.cmpi eq, %n, %zero : i64
  %same2 = arith.cmpi eq, %m, %cols : i64
  %ok2a = arith.ori %same2, %empty_ne : i1
  %ok2 = arith.ori %ok2a, %none : i1
  %c2 = soac.assert %ok2, "ZIP" (%m, %cols : i64, i64) at "p.l0:3:55"
  %s = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %o = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) <%c1> -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) <%c2> -> tensor<?xi64> {
        %z = arith.addi %p, %q : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %o : tensor<?x?xi64>
  }
  func.return %s : tensor<?x?x?xi64>
}
""".replace("ZIP", "arrays given to zip have different sizes: {0}, {1}")
CUBE_INPUTS = [
    "[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]\n[[0, 0], [0, 1]]\n",
    "[[[1, 2, 3]], [[4, 5, 6]]]\n[[10, 20, 30]]\n",
    "empty([[int]])\n[[1]]\n",
    "[[[1, 2]]]\n[[1, 2], [3, 4]]\n",
    "[[[1, 2], [3, 4]]]\n[[1, 2], [3, 4, 5]]\n",
]


def test_iswim_of_depth_two() -> None:
    """The scan becomes a nest of two maps around one scan per column of the innermost
    dimension (the scanned dimension moved innermost and back), with the same results
    and errors as the source, on the interpreter and the CPU back end."""
    from xdsl.parser import Parser

    from l0.lowering.pipeline import CpuEngine

    def check() -> None:
        module = Parser(l0_context(), CUBE_IR).parse_module()
        IswimPass().apply(l0_context(), module)
        module.verify()
        scans = [op for op in module.walk() if isinstance(op, soac.ScanOp)]
        assert len(scans) == 1
        outer = scans[0].parent_op()
        assert isinstance(outer, soac.MapOp) and isinstance(outer.parent_op(), soac.MapOp)
        prog = load_program(CUBE, "p.l0")
        entry = next(f for f in prog.fundefs if f.name == "main")
        params = [p.type for p in entry.params]
        plain = to_module(prog)
        engine = CpuEngine(module.clone())
        for text in CUBE_INPUTS:
            expected = behaviour(plain, CUBE, text)
            assert behaviour(module, CUBE, text) == expected, text
            try:
                args = to_ir_arguments(params, read_arguments(text, params, "<stdin>"))
                got = format_result(entry.ret, from_ir_results(entry.ret,
                                                               engine.call("main", args)))
            except L0Error as err:
                got = err.render()
            assert got == expected.split(" | ")[0], text

    call_with_big_stack(check)
