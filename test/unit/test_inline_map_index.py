"""`inline-map-index` (thesis 9.2): generated index-style programs behave exactly as before.

The lit tests (`test/lit/passes/inline-map-index*.mlir`) show each case and each reason
not to recompute. Here hypothesis builds small programs in the indexing style of
finpar's benchmarks: a cheap map or map of maps (whose lambda may divide by zero or
trace) read by consumers that index it at their positions in `iota` (row-major or
transposed, in bounds or past them), at data-dependent positions, inside a loop, at a
constant position, or whole (a reduction, the result). The interpreter must print the
same result and trace, or report the same error at the same place, without passes, with
`inline-map-index` alone and with the default pipeline; a few run compiled for the CPU.
"""

from __future__ import annotations

import os

import pytest
from behaviour import behaviour
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.passes.inline_map_index import InlineMapIndexPass
from l0.passes.pipeline import optimise

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")

EXAMPLES = int(os.environ.get("L0_FUZZ_EXAMPLES", "60"))
"""Programs per run; set L0_FUZZ_EXAMPLES higher for a longer search."""

INPUTS = [
    "[3, 1, 4]\n[2, 7]\n2\n",
    "[3, 1, 4]\n[2, 7]\n0\n",
    "[5, 3, 0, 2]\n[1, 2, 3]\n4\n",
    "[1]\n[4, 5, 6, 7]\n9\n",
    "empty(int)\n[1, 2]\n1\n",
]
"""Arguments of `main([int] a, [int] b, int k)`: k = 0 makes divisions fail, k beyond
the sizes makes the consumers over `iota(k)` index out of bounds, an empty `a` makes
constant indexings fail."""


@st.composite
def _scalar(draw: st.DrawFn, atoms: list[str]) -> str:
    """A cheap int expression over `atoms`: it may divide by zero or trace."""
    x, y = draw(st.sampled_from(atoms)), draw(st.sampled_from(atoms))
    form = draw(st.sampled_from(["+", "*", "-", "/", "if", "trace"]))
    if form == "if":
        return f"(if {x} < {y} then {x} else {y} + 1)"
    if form == "trace":
        return f"trace({x} + {y})"
    return f"({x} {form} {y})"


@st.composite
def _producer(draw: st.DrawFn) -> tuple[int, str]:
    """`p`: a map over `a` (rank 1) or a map of maps over `a` and `b` (rank 2)."""
    if draw(st.booleans()):
        return 1, f"map(fn int (int x) => {draw(_scalar(['x', 'k', '1']))}, a)"
    row = draw(_scalar(["x", "k", "2"]))
    element = draw(_scalar(["r", "y", "x", "3"]))
    return 2, (f"map(fn [int] (int x) => let r = {row} in "
               f"map(fn int (int y) => {element}, b), a)")


@st.composite
def _consumer(draw: st.DrawFn, rank: int) -> tuple[str, str]:
    """A use of `p`: (kind, expression), kind "vec", "mat" or "int"."""
    forms = ["positions", "positions", "past", "gather", "loop", "constant", "whole"]
    if rank == 2:
        forms += ["transposed", "transposed"]
    form = draw(st.sampled_from(forms))
    e = draw(_scalar(["v", "i", "k"]))
    if rank == 1:
        at = {"positions": ("iota(m)", "p[i]"), "past": ("iota(k)", "p[i]"),
              "gather": ("iota(m)", "p[a[i] % m]")}
        if form in at:
            over, read = at[form]
            return "vec", f"map(fn int (int i) => let v = {read} in {e}, {over})"
        if form == "loop":
            return "int", "loop (s = 0) = for t < k do s + p[t % m] in s"
        if form == "constant":
            return "int", "p[0] + 1"
        return "int", "reduce(op +, 0, p)"
    at2 = {"positions": ("iota(m)", "iota(n)", "p[i, j]"),
           "past": ("iota(k)", "iota(n)", "p[i, j]"),
           "gather": ("iota(m)", "iota(n)", "p[i, b[j] % n]")}
    if form in at2:
        rows, cols, read = at2[form]
        return "mat", (f"map(fn [int] (int i) => map(fn int (int j) => let v = {read} in "
                       f"{e}, {cols}), {rows})")
    if form == "transposed":
        return "mat", (f"map(fn [int] (int j) => map(fn int (int i) => let v = p[i, j] in "
                       f"{e}, iota(m)), iota(n))")
    if form == "loop":
        return "int", "loop (s = 0) = for t < k do s + p[t % m, t % n] in s"
    if form == "constant":
        return "int", "p[0, 1 % n] + 1"
    return "int", "reduce(op +, 0, map(fn int ([int] r) => reduce(op +, 0, r), p))"


@st.composite
def programs(draw: st.DrawFn) -> str:
    rank, producer = draw(_producer())
    uses = [draw(_consumer(rank)) for _ in range(draw(st.integers(1, 3)))]
    lets = [f"  let c{i} = {expr} in" for i, (_, expr) in enumerate(uses)]
    vecs = [f"c{i}" for i, (kind, _) in enumerate(uses) if kind == "vec"]
    mats = [f"c{i}" for i, (kind, _) in enumerate(uses) if kind == "mat"]
    ints = [f"c{i}" for i, (kind, _) in enumerate(uses) if kind == "int"]
    vec = vecs[-1] if vecs else "a"
    mat = mats[-1] if mats else "[[0]]"
    total = " + ".join(ints) or "0"
    return ("fun {[int], [[int]], int} main([int] a, [int] b, int k) =\n"
            "  let m = size(0, a) in\n  let n = size(0, b) in\n"
            f"  let p = {producer} in\n" + "\n".join(lets) +
            f"\n  {{{vec}, {mat}, {total}}}\n")


def _same_behaviour(src: str) -> None:
    """`src` behaves the same on `INPUTS` without passes, with `inline-map-index` alone
    and with -O."""
    prog = load_program(src, "p.l0")
    plain = to_module(prog)
    alone = to_module(prog)
    InlineMapIndexPass().apply(l0_context(), alone)
    alone.verify()
    full = to_module(prog)
    optimise(full, verify=True)
    for text in INPUTS:
        expected = behaviour(plain, src, text)
        assert behaviour(alone, src, text) == expected, (src, text)
        assert behaviour(full, src, text) == expected, (src, text)


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_recomputing_keeps_behaviour(src: str) -> None:
    call_with_big_stack(lambda: _same_behaviour(src))


@settings(max_examples=max(EXAMPLES // 20, 3), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_recomputing_keeps_behaviour_compiled(src: str) -> None:
    """Compiled with -O for the CPU: the result or error of the interpreter without
    passes (traces go to the process's stderr there: not compared)."""
    from l0.api import CompiledProgram

    def check() -> None:
        plain = to_module(load_program(src, "p.l0"))
        compiled = CompiledProgram(src, "p.l0", "cpu")
        for text in INPUTS:
            expected = behaviour(plain, src, text).split(" | ")[0]
            try:
                got = compiled.run_main(text)
            except L0Error as err:
                got = err.render()
            assert got == expected, (src, text)

    call_with_big_stack(check)


def test_generated_consumers_do_recompute() -> None:
    """The generator is not vacuous: a map of maps read at the consumers' positions,
    row-major and transposed, is recomputed in both and gone after -O."""
    src = ("fun {[int], [[int]], int} main([int] a, [int] b, int k) =\n"
           "  let m = size(0, a) in\n  let n = size(0, b) in\n"
           "  let p = map(fn [int] (int x) => let r = (x * k) in "
           "map(fn int (int y) => (r + y), b), a) in\n"
           "  let c0 = map(fn [int] (int i) => map(fn int (int j) => let v = p[i, j] in "
           "(v * i), iota(n)), iota(m)) in\n"
           "  let c1 = map(fn [int] (int j) => map(fn int (int i) => let v = p[i, j] in "
           "(v - k), iota(m)), iota(n)) in\n"
           "  {a, c1, reduce(op +, 0, map(fn int ([int] r) => reduce(op +, 0, r), c0))}\n")

    def check() -> None:
        full = to_module(load_program(src, "p.l0"))
        optimise(full, verify=True)
        kinds = [op.name for op in full.walk()]
        # c1's two maps; c0 fused into its sums; p gone
        assert (kinds.count("soac.map"), kinds.count("soac.redomap")) == (2, 2), kinds
        _same_behaviour(src)

    call_with_big_stack(check)
