"""Memory planning over the corpus: where allocations are left in loops, and how many.

After the CPU pipeline (`l0.lowering.pipeline.lower`), a `memref.alloc` inside a loop
must be one of the cases docs/lowering.md ("Memory planning") names:

* in a parallel loop (`scf.parallel`, at any depth): only a buffer whose size varies per
  iteration (expansion needs the sizes before the loop);
* in a sequential loop: a growing buffer's growth (`hoist-allocs`, in the branch that
  first frees the smaller one), or a buffer that outlives its block (yielded, itself or
  a view of it: the next iteration or the loop's result needs it).

Anything else is an allocation per iteration that memory planning should have removed.
The allocation count of LocVolCalib is checked through the runtime's counter: no more
than 100 per run of `main`, and the same whatever the number of time steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compiled import optimised, same_worker
from corpus import Program, runnable
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.lowering.dealloc.aliases import Aliases, UsedMemrefs, summarise
from l0.lowering.memory_plan import invariant_chain
from l0.lowering.pipeline import lower

BENCHMARKS = Path(__file__).parent.parent / "benchmarks" / "programs"


def stray_allocations(module: ModuleOp) -> list[str]:
    """The allocations in loops that are none of the documented cases (module docstring)."""
    summaries, _ = summarise(module)
    stray: list[str] = []
    for op in module.walk():
        if not isinstance(op, memref.AllocOp):
            continue
        parallel = _enclosing(op, scf.ParallelOp)
        if parallel is not None:
            if invariant_chain(op, parallel) is not None:
                stray.append(f"{op} in an scf.parallel, with a size known before it")
        elif _enclosing(op, scf.ForOp) is not None:
            if not (_grows(op) or _outlives_block(op, summaries)):
                stray.append(f"{op} in an scf.for, freed in every iteration")
    return stray


def _enclosing(op: Operation, kind: type[Operation]) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, kind):
            return parent
        parent = parent.parent_op()
    return None


def _grows(op: memref.AllocOp) -> bool:
    """A growing buffer's reallocation: in a branch that frees the old buffer first."""
    block = op.parent_block()
    return (isinstance(op.parent_op(), scf.IfOp) and block is not None
            and any(isinstance(o, memref.DeallocOp) for o in block.ops))


def _outlives_block(op: memref.AllocOp, summaries: dict) -> bool:
    block = op.parent_block()
    assert block is not None and block.last_op is not None
    members = set(Aliases(summaries, UsedMemrefs()).block(block).members(op.memref))
    return any(v in members for v in block.last_op.operands)


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name, marks=same_worker(p))
                                  for p in runnable()])
def test_no_allocation_left_in_loops(prog: Program) -> None:
    # The -O module the matrix's cells also start from (`compiled.py`); `lower` clones.
    lowered = call_with_big_stack(lambda: lower(optimised(prog)))
    assert stray_allocations(lowered) == []


PARALLEL = """
func.func private @rows(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.store %z, %buf[%c0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
"""


def test_checker_sees_allocations_in_parallel_bodies() -> None:
    """The check can fail: an scf.parallel allocating per iteration is reported before
    expand-allocs, and not after it."""
    from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
    from l0.lowering.expand_allocs import ExpandAllocsPass

    ctx = l0_context(SOAC_LEVEL + LOWERING_LEVELS)
    module = Parser(ctx, PARALLEL).parse_module()
    assert len(stray_allocations(module)) == 1
    ExpandAllocsPass().apply(ctx, module)
    assert stray_allocations(module) == []


LOCVOLCALIB_INPUT = "{outer} 32 16 {steps} 0.03 5.0 0.2 0.6 0.5"


def _locvolcalib_allocations(monkeypatch: pytest.MonkeyPatch, steps: int,
                             strikes: int = 4) -> int:
    from l0.lowering import alloc_stats

    monkeypatch.setenv(alloc_stats.ENV, "1")
    text = (BENCHMARKS / "locvolcalib.l0").read_text(encoding="utf-8")
    prog = call_with_big_stack(lambda: CompiledProgram(text, "locvolcalib.l0", "cpu"))
    before = alloc_stats.count()
    prog.run_main(LOCVOLCALIB_INPUT.format(outer=strikes, steps=steps))
    return alloc_stats.count() - before


def test_locvolcalib_allocations(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most 100 allocations per run of main, however many time steps (the issue's
    bound; before memory planning every time step allocated hundreds of rows)."""
    few = _locvolcalib_allocations(monkeypatch, 8)
    many = _locvolcalib_allocations(monkeypatch, 24)
    assert many <= 100
    assert few == many


def test_locvolcalib_allocations_per_thread_not_per_strike(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The strikes' map allocates per chunk (`chunk-parallel`: one chunk on cpu), so 16
    strikes (the Small dataset's count) stay within the bound; only each strike's own
    result grid is allocated per strike."""
    four = _locvolcalib_allocations(monkeypatch, 8, strikes=4)
    sixteen = _locvolcalib_allocations(monkeypatch, 8, strikes=16)
    assert sixteen <= 100
    assert sixteen - four <= 12  # at most one per strike


SOLVES = """
fun [[real]] main([[real]] xs) =
  map(fn [real] ([real] r) =>
        let n = size(0, r) in
        let u = copy(r) in
        loop (u) = for k < n - 1 do
          let u[k + 1] = u[k + 1] - 0.5 * u[k] in
          u
        in
        loop (u) = for k < n - 1 do
          let i = n - 2 - k in
          let u[i] = u[i] - u[i + 1] in
          u
        in u,
      xs)
"""


def test_rows_updated_in_place_are_computed_in_the_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tridiagonal solve's shape (a copy of the row, updated in place by two loops)
    works in the map's result row (Note [Rows computed in place]): the only allocation
    of a call is the result, whatever the number of rows; before, the copy had a
    buffer of its own (hoisted out of the rows' loop) and was copied into the row."""
    import numpy as np

    from l0.lowering import alloc_stats

    monkeypatch.setenv(alloc_stats.ENV, "1")
    prog = call_with_big_stack(lambda: CompiledProgram(SOLVES, "solves.l0", "cpu"))
    reference = call_with_big_stack(lambda: CompiledProgram(SOLVES, "solves.l0", "interp"))
    for rows in (3, 12):
        xs = np.arange(rows * 5, dtype=np.float64).reshape(rows, 5) * 0.25
        before = alloc_stats.count()
        got = prog.call_flat("main", [xs])
        assert alloc_stats.count() - before == 1
        assert np.array_equal(np.asarray(got[0]), np.asarray(reference.call_flat("main", [xs])[0]))
