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
    # depth 2 with a map fused in: the scanomap's operator keeps its (copied) zip
    # checks, which the interchange drops (Note [The operator's checks])
    "fused_cube": (
        "fun [[[int]]] main([[[int]]] a, [[int]] ne, int k) =\n"
        "  scan(fn [[int]] ([[int]] x, [[int]] y) =>\n"
        "         map(fn [int] ([int] u, [int] v) => map(op +, zip(u, v)), zip(x, y)),\n"
        "       ne, map(fn [[int]] ([[int]] p) =>\n"
        "                 map(fn [int] ([int] q) => map(op * (k), q), p), a))\n",
        ["[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]\n[[0, 0], [0, 1]]\n2\n",
         "empty([[int]])\n[[1]]\n3\n", "[[[1, 2]]]\n[[1, 2], [3, 4]]\n1\n",
         "[[[1, 2], [3, 4]]]\n[[1], [3]]\n1\n"],
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
    from l0.lowering.backends.cpu import CpuEngine

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


# Figure 36, depth 2: a scan of maps of maps over arrays of rank 3. `-O` moves both zip
# checks out of the scan (the accumulator keeps the neutral element's shape at every
# step: Note [Keeping the accumulator's shape] in the size analysis), guarded by "the
# scan has no rows", so `iswim` fires on its output.
CUBE = (
    "fun [[[int]]] main([[[int]]] a, [[int]] ne) =\n"
    "  scan(fn [[int]] ([[int]] x, [[int]] y) =>\n"
    "         map(fn [int] ([int] u, [int] v) => map(op +, zip(u, v)), zip(x, y)), ne, a)\n"
)
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
    from l0.lowering.backends.cpu import CpuEngine

    def check() -> None:
        module = _transformed(CUBE)
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


CONSUMED = (
    "fun [[int]] main([[int]] a, [int] ne) =\n"
    "  let s = scan(fn [int] ([int] x, [int] y) => map(op +, zip(x, y)), ne, a) in\n"
    "  map(fn [int] ([int] r) => map(op * (2), r), s)\n"
)


def test_fuse_after_iswim_takes_the_consumer() -> None:
    """The producer side of FUSE-ISWIM after the opt-in pass: `fuse` moves the map over
    the scan's rows into the interchanged form and fuses it with the column nest (its
    transposition pushed after it), so one map holds the scans and the doubling."""
    from l0.passes.fuse import FusePass

    def check() -> None:
        module = _transformed(CONSUMED)
        FusePass().apply(l0_context(), module)
        module.verify()
        names = [op.name for op in module.walk()]
        assert names.count("soac.map") == 2 and names.count("soac.scan") == 1, names
        plain = to_module(load_program(CONSUMED, "p.l0"))
        for text in PROGRAMS["sums"][1]:
            assert behaviour(module, CONSUMED, text) == behaviour(plain, CONSUMED, text), text

    call_with_big_stack(check)
