"""`simd-map` changes no result: the corpus prints, fails and traces byte for byte the
same with and without it (`lower(..., simd=False)`), on the host's vector width and on
a width of 3 (more strips and remainders on the corpus's small inputs).

Lowering every corpus program to find those where the pass fires would cost a minute,
so the programs are chosen at the soac level first (`may_fire`: a map, not in another
SOAC's lambda, whose lambda holds a SOAC or a loop: the only maps whose parallel loop's
body loops); the test of a program where the pass does not fire then says so and
passes, having run `simd-map` only (`fires`). `test_simd_map_fires_in_the_corpus` keeps the
selection honest: the pass fires on a few programs of the shapes it was written for.
The lowerings start from the matrix's: the `cpu` `O` cell's module before `simd-map`
(the lowering without it) and after it (at the host's width), `compiled.lowered`.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass

import pytest
from compiled import front_end, lowered, optimised, same_worker
from corpus import Program, runnable
from xdsl.dialects.builtin import ModuleOp

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects.context import l0_context
from l0.lowering.loop_ir import decisions
from l0.values import format_result, from_ir_results, read_arguments, to_ir_arguments

SOACS = frozenset(f"soac.{k}" for k in ("map", "reduce", "scan", "filter", "redomap"))


def may_fire(module: ModuleOp) -> bool:
    """Whether some map outside any SOAC's lambda has a SOAC or a loop in its lambda."""
    for op in module.walk():
        if op.name != "soac.map":
            continue
        parent, nested = op.parent_op(), False
        while parent is not None:
            nested = nested or parent.name in SOACS
            parent = parent.parent_op()
        if not nested and any(o.name in SOACS or o.name in ("scf.for", "scf.while")
                              for o in list(op.walk())[1:]):
            return True
    return False


@dataclass(frozen=True)
class Outcome:
    printed: str | None
    error: str | None
    trace: str


def run(prog: Program, module: ModuleOp, loop_level: ModuleOp) -> Outcome:
    """Compile `loop_level`, the cpu lowering of `module` (with `simd-map` at some width
    or without it), and run `main` on the program's input, on the checking heap, as the
    matrix's `cpu` `O` cell does (`main` alone)."""
    from l0.lowering.backends.cpu import CpuEngine
    from l0.lowering.runtime import checked_memory

    entry = front_end(prog).entry
    params = [p.type for p in entry.params]
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        saved_env = os.environ.get(checked_memory.ENV)
        os.environ[checked_memory.ENV] = "1"
        try:
            engine = CpuEngine(module, entries=["main"], lowered=loop_level)
        finally:
            if saved_env is None:
                del os.environ[checked_memory.ENV]
            else:
                os.environ[checked_memory.ENV] = saved_env
        args = to_ir_arguments(params, read_arguments(prog.input, params, "<stdin>"))
        try:
            results = engine.call("main", args)
        except L0Error as err:
            return Outcome(None, err.render(), stderr.getvalue())
        printed = format_result(entry.ret, from_ir_results(entry.ret, results))
    return Outcome(printed, None, stderr.getvalue())


def _before_simd_map(prog: Program) -> ModuleOp:
    """The cpu lowering of the program's -O module without `simd-map`, its last step
    (shared: `compiled.lowered`)."""
    from l0.lowering.pipeline import steps

    *before, last = steps("cpu")
    assert last.name == "simd-map"
    return lowered(prog, "O", "cpu", through=before[-1].name)


def with_simd_map(loop_level: ModuleOp, width: int) -> tuple[ModuleOp, bool]:
    """A copy of `loop_level` through `simd-map` at `width`, and whether the pass
    stripped some loop."""
    from l0.lowering.cpu import simd_map

    reports: list[str] = []
    saved_report, saved_lanes = decisions.report, simd_map.lanes
    decisions.report = lambda _pass, message: reports.append(message)
    simd_map.lanes = lambda: width
    module = loop_level.clone()
    try:
        simd_map.SimdMapPass().apply(l0_context(), module)
    finally:
        decisions.report, simd_map.lanes = saved_report, saved_lanes
    return module, any("went SIMD" in r for r in reports)


def fires(module: ModuleOp, width: int) -> bool:
    """Whether simd-map strips some loop of `module` at `width` (the lowering alone)."""
    from l0.lowering.pipeline import lower

    return with_simd_map(lower(module, entries=["main"], simd=False), width)[1]


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name, marks=same_worker(p))
                                  for p in runnable()])
def test_simd_map_changes_no_output(prog: Program) -> None:
    def compare() -> None:
        module = optimised(prog)
        if not may_fire(module):
            return
        without = _before_simd_map(prog)
        at_3, fired = with_simd_map(without, 3)
        if not fired:
            return
        off = run(prog, module, without)
        for loop_level in (lowered(prog, "O", "cpu"), at_3):  # the host's width, 3
            on = run(prog, module, loop_level)
            assert (on.printed, on.error, on.trace) == (off.printed, off.error, off.trace)

    call_with_big_stack(compare)


FIRING = ["arrays/rows.l0", "basics/newton.l0", "fusion/pull_reshape_error.l0",
          "loops/compile_loops.l0"]
"""Corpus programs where simd-map fires (a map whose lambda folds or loops)."""


@pytest.mark.parametrize("name", FIRING)
def test_simd_map_fires_in_the_corpus(name: str) -> None:
    prog = next(p for p in runnable() if p.name == name)
    assert call_with_big_stack(lambda: fires(optimised(prog), 4))
