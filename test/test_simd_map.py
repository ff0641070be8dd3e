"""`simd-map` changes no result: the corpus prints, fails and traces byte for byte the
same with and without it (`lower(..., simd=False)`), on the host's vector width and on
a width of 3 (more strips and remainders on the corpus's small inputs).

Lowering every corpus program to find those where the pass fires would cost a minute,
so the programs are chosen at the soac level first (`may_fire`: a map, not in another
SOAC's lambda, whose lambda holds a SOAC or a loop: the only maps whose parallel loop's
body loops); the test of a program where the pass does not fire then says so and
passes, having lowered it only (`fires`). `test_simd_map_fires_in_the_corpus` keeps the
selection honest: the pass fires on a few programs of the shapes it was written for.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass

import pytest
from compiled import front_end, optimised, same_worker
from corpus import Program, runnable
from xdsl.dialects.builtin import ModuleOp

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
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
    simd: tuple[str, ...]  # what simd-map reported


def run(prog: Program, module: ModuleOp, simd: bool, width: int = 0) -> Outcome:
    """Compile `module` for `cpu` (simd-map at `width`, 0: the host's; or not at all)
    and run `main` on the program's input.

    It is compiled as the matrix's `cpu` `O` cell compiles it (`main` alone, on the
    checking heap), so that at the host's width the JIT's cache holds its code: a
    program's tests run on one worker, the matrix's first (`same_worker`)."""
    from l0.lowering.backends.cpu import CpuEngine
    from l0.lowering.cpu import simd_map
    from l0.lowering.runtime import checked_memory

    reports: list[str] = []
    saved_report, saved_lanes = decisions.report, simd_map.lanes
    decisions.report = lambda _pass, message: reports.append(message)
    if width:
        simd_map.lanes = lambda: width
    entry = front_end(prog).entry
    params = [p.type for p in entry.params]
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            saved_env = os.environ.get(checked_memory.ENV)
            os.environ[checked_memory.ENV] = "1"
            try:
                engine = CpuEngine(module, simd=simd, entries=["main"])
            finally:
                if saved_env is None:
                    del os.environ[checked_memory.ENV]
                else:
                    os.environ[checked_memory.ENV] = saved_env
            args = to_ir_arguments(params, read_arguments(prog.input, params, "<stdin>"))
            try:
                results = engine.call("main", args)
            except L0Error as err:
                return Outcome(None, err.render(), stderr.getvalue(), tuple(reports))
            printed = format_result(entry.ret, from_ir_results(entry.ret, results))
    finally:
        decisions.report, simd_map.lanes = saved_report, saved_lanes
    return Outcome(printed, None, stderr.getvalue(), tuple(reports))


def fires(module: ModuleOp, width: int) -> bool:
    """Whether simd-map strips some loop of `module` at `width` (the lowering alone)."""
    from l0.lowering.cpu import simd_map
    from l0.lowering.pipeline import lower

    reports: list[str] = []
    saved_report, saved_lanes = decisions.report, simd_map.lanes
    decisions.report = lambda _pass, message: reports.append(message)
    simd_map.lanes = lambda: width
    try:
        lower(module, entries=["main"])
    finally:
        decisions.report, simd_map.lanes = saved_report, saved_lanes
    return any("went SIMD" in r for r in reports)


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name, marks=same_worker(p))
                                  for p in runnable()])
def test_simd_map_changes_no_output(prog: Program) -> None:
    def compare() -> None:
        module = optimised(prog)
        if not may_fire(module) or not fires(module, 3):
            return
        off = run(prog, module, simd=False)
        for width in (0, 3):
            on = run(prog, module, simd=True, width=width)
            assert (on.printed, on.error, on.trace) == (off.printed, off.error, off.trace)

    call_with_big_stack(compare)


FIRING = ["arrays/rows.l0", "basics/newton.l0", "fusion/pull_reshape_error.l0",
          "loops/compile_loops.l0"]
"""Corpus programs where simd-map fires (a map whose lambda folds or loops)."""


@pytest.mark.parametrize("name", FIRING)
def test_simd_map_fires_in_the_corpus(name: str) -> None:
    prog = next(p for p in runnable() if p.name == name)
    assert call_with_big_stack(lambda: fires(optimised(prog), 4))
