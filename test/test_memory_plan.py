"""Memory planning over the corpus: where allocations are left in loops, and how many.

After the loop-level passes every back end runs (`l0.lowering.pipeline.PIPELINE`), a
`memref.alloc` inside a loop must be one of the cases docs/lowering.md ("Memory
planning") names:

* in a parallel loop (`scf.parallel`, at any depth): only a buffer whose size is computed
  from a value of the loop's body (a loop's result or carried value, a call's, a load of
  memory the loop writes: `presize-allocs` cannot compute it before the loop), under
  `scf.for` loops and `scf.if` branches of the innermost parallel loop around it;
* in a sequential loop: a growing buffer's growth (`hoist-allocs`, in the branch that
  first frees the smaller one), or a buffer that outlives its block (yielded, itself or
  a view of it: the next iteration or the loop's result needs it).

Anything else is an allocation per iteration that memory planning should have removed.
In the LLVM IR of the multicore back end, the parallel bodies (the outlined functions of
its OpenMP regions) call the allocator exactly as often as the first case allows.
The allocation count of LocVolCalib is checked through the runtime's counter: no more
than 100 per run of `main`, and the same whatever the number of time steps.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from compiled import lowered, same_worker
from corpus import Program, runnable
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects.context import l0_context
from l0.lowering.llvm.emit import print_llvm_ir
from l0.lowering.memory.dealloc.aliases import Aliases, UsedMemrefs, summarise
from l0.lowering.memory.presize_allocs import PresizeAllocsPass, levels_to_parallel, size_slice
from l0.lowering.pipeline import PIPELINE, lower, passes_of
from l0.targets import TARGETS

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
            levels = levels_to_parallel(op)
            if levels is None:
                stray.append(f"{op} in an scf.parallel, under another kind of loop")
            elif not size_slice(op, levels).body_values:
                stray.append(f"{op} in an scf.parallel, with a size computable before it")
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


KNOWN_GAPS = {
    "loops/time_loop_in_map.l0": "a grid that a time loop in a map carries is allocated "
    "once per row (docs/lowering.md, What is left: a buffer a loop of a parallel body "
    "carries, LocVolCalib's shape)",
    "loops/distribute_time_loop.l0": "the same shape as loops/time_loop_in_map.l0 on the "
    "cpu's -O, which neither interchanges nor distributes",
    "loops/distribute_branch.l0": "a buffer allocated in a branch of an if inside a "
    "parallel loop and yielded is allocated per iteration (docs/lowering.md, What is "
    "left: a buffer an if of a parallel body returns), on the cpu's -O",
}
"""Corpus programs with an allocation memory planning does not yet remove (strict: the
test fails once the gap is closed, so the entry goes)."""


def _known_gap(p: Program) -> list[pytest.MarkDecorator]:
    why = KNOWN_GAPS.get(p.name)
    return [] if why is None else [pytest.mark.xfail(reason=why, strict=True)]


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name,
                                               marks=[same_worker(p), *_known_gap(p)])
                                  for p in runnable()])
def test_no_allocation_left_in_loops(prog: Program) -> None:
    """The loop level every back end starts from (`PIPELINE`), and the LLVM IR of the
    multicore back end, whose parallel bodies are the outlined functions of its OpenMP
    regions: these call the allocator only for the documented allocations. The cpu -O
    module, `main` alone public (as the matrix compiles it), where the shared lowerings
    end, then after cpu's own lowerings (those of multicore, without its options) and
    multicore's `convert-parallel-to-omp`: both shared with the matrix's `cpu` `O` cell
    (`compiled.py`, Note [Sharing lowered modules]), not changed (the last pass runs on
    a clone)."""
    def planned() -> tuple[int, str]:
        module = lowered(prog, "O", "cpu", through=PIPELINE[-1].name)
        stray = stray_allocations(module)
        assert stray == []
        documented = sum(1 for op in module.walk() if isinstance(op, memref.AllocOp)
                         and _enclosing(op, scf.ParallelOp) is not None)
        regions = lowered(prog, "O", "cpu").clone()
        cpu_own = len(TARGETS["cpu"].lowerings)
        assert passes_of("multicore")[:cpu_own] == passes_of("cpu")
        for pass_class in passes_of("multicore")[cpu_own:]:
            pass_class().apply(l0_context(), regions)
        return documented, print_llvm_ir(regions, target=TARGETS["multicore"])

    documented, llvm_ir = call_with_big_stack(planned)
    assert allocation_calls_in_parallel_bodies(llvm_ir) == documented


def allocation_calls_in_parallel_bodies(llvm_ir: str) -> int:
    """How many calls of the runtime's allocator the outlined OpenMP regions make."""
    calls = 0
    for function in re.split(r"\n(?=define )", llvm_ir):
        if function.startswith("define") and '@"l0.omp.' in function.split("\n", 1)[0]:
            calls += len(re.findall(r'call ptr @"l0\.rt\.alloc"\(', function))
    return calls


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
    from l0.lowering.memory.expand_allocs import ExpandAllocsPass

    ctx = l0_context(SOAC_LEVEL + LOWERING_LEVELS)
    module = Parser(ctx, PARALLEL).parse_module()
    assert len(stray_allocations(module)) == 1
    ExpandAllocsPass().apply(ctx, module)
    assert stray_allocations(module) == []


VARYING = """
func.func private @rows(%n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %by_index = memref.alloc(%i) : memref<?xf64>
    memref.store %z, %by_index[%c0] : memref<?xf64>
    memref.dealloc %by_index : memref<?xf64>
    %sum = scf.for %j = %c0_i64 to %m step %c1_i64 iter_args(%acc = %c0_i64) -> (i64) : i64 {
      %next = arith.addi %acc, %j : i64
      scf.yield %next : i64
    }
    %k = arith.index_cast %sum : i64 to index
    %by_body = memref.alloc(%k) : memref<?xf64>
    memref.store %z, %by_body[%c0] : memref<?xf64>
    memref.dealloc %by_body : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
"""


def test_checker_allows_only_sizes_from_the_body() -> None:
    """A size that varies with the index is reported until `presize-allocs` (then
    `chunk-parallel`, `hoist-allocs`, `expand-allocs`) takes it out of the body; a size
    computed by a loop of the body is the documented case that stays."""
    from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
    from l0.lowering.pipeline import PIPELINE

    ctx = l0_context(SOAC_LEVEL + LOWERING_LEVELS)
    module = Parser(ctx, VARYING).parse_module()
    (stray,) = stray_allocations(module)
    assert "%by_index = memref.alloc" in stray
    planning = PIPELINE[PIPELINE.index(PresizeAllocsPass):]
    for pass_class in planning:
        pass_class().apply(ctx, module)
    assert stray_allocations(module) == []
    left = [op for op in module.walk()
            if isinstance(op, memref.AllocOp) and _enclosing(op, scf.ParallelOp)]
    assert len(left) == 1  # %by_body's, grown in its chunk's loop by hoist-allocs


VARYING_ROWS = """
fun int rowsum(int k, int x) =
  let a = copy(replicate(k, x)) in
  loop (a) = for j < k do
    let a[j] = a[j] * j + x in
    a
  in reduce(op +, 0, a) + k

fun {[int], [int]} main([int] lens, int d) =
  { map(fn int (int i) => rowsum(lens[i + d], i), iota(size(0, lens) - d))
  , map(fn int (int i) => rowsum(i, 3), iota(size(0, lens))) }
"""


def _outcome(prog: CompiledProgram, text: str) -> str:
    try:
        return prog.run_main(text)
    except L0Error as err:
        return err.render()


@pytest.mark.parametrize("backend", ["cpu", "multicore", "gpu-sim"])
def test_rows_of_varying_sizes(backend: str) -> None:
    """Rows whose sizes vary per iteration (an input's values, the index), 0 among
    them, and a map of no rows: the results of the interpreter, its errors where a size
    is negative or read out of bounds (checked by the iteration, not by the pre-pass),
    and the parallel bodies allocate nothing (`presize-allocs`)."""
    inputs = ["[3, 0, 5, 1, 0, 2] 0", "empty(int) 0", "[3, 1, 2] 1",
              "[3, 1, -1, 2] 0", "[3, 1, 4, 2] -1"]
    interp = CompiledProgram(VARYING_ROWS, "rows.l0", "interp")
    compiled = call_with_big_stack(lambda: CompiledProgram(
        VARYING_ROWS, "rows.l0", backend, threads=3 if backend == "multicore" else None))
    for text in inputs:
        assert _outcome(compiled, text) == _outcome(interp, text)
    # A row too large for memory: the pre-pass's maximum fails to allocate, as the row
    # would have (the interpreter cannot make such an array either).
    assert "out of memory" in _outcome(compiled, "[1, 4611686018427387904] 0")
    if backend == "cpu":
        lowered = call_with_big_stack(lambda: lower(compiled.module))
        inside = [op for op in lowered.walk()
                  if isinstance(op, memref.AllocOp) and _enclosing(op, scf.ParallelOp)]
        assert inside == []


LOCVOLCALIB_INPUT = "{outer} 32 16 {steps} 0.03 5.0 0.2 0.6 0.5"


def _locvolcalib_allocations(monkeypatch: pytest.MonkeyPatch, steps: int,
                             strikes: int = 4) -> int:
    from l0.lowering.runtime import alloc_stats

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


HUGE_ROWS_IN_A_LOOP = """
fun [int] main(int steps, [int] xs, int n) =
  loop (acc = xs) = for k < steps do
    map(fn int (int x) =>
          let r = replicate(n, x + acc[0]) in
          let r[k % n] = 1 in
          reduce(op +, 0, r), xs)
  in acc
"""


@pytest.mark.parametrize("backend", ["cpu", "gpu-sim"])
def test_hoisted_count_that_overflows_fails_only_when_the_loop_runs(backend: str) -> None:
    """The rows' buffer (one slice per element on gpu-sim) leaves the sequential loop
    with its count (Note [Hoisting before a loop that may not run]): 16 rows of 2^59
    elements overflow the count, which fails with "out of memory" when the loop runs,
    as each step's allocation would, and allocates nothing when it does not. (Clamped at
    0, the count let gpu-sim's kernel write its rows past the buffer: a crash.)"""
    interp = CompiledProgram(HUGE_ROWS_IN_A_LOOP, "rows.l0", "interp")
    compiled = call_with_big_stack(
        lambda: CompiledProgram(HUGE_ROWS_IN_A_LOOP, "rows.l0", backend))
    xs, huge = str(list(range(1, 17))), 1 << 59
    for steps in (0, 1):
        got, want = (_outcome(p, f"{steps} {xs} {huge}") for p in (compiled, interp))
        assert got == want if steps == 0 else "out of memory" in got and "out of memory" in want
    assert _outcome(compiled, f"2 {xs} 4") == _outcome(interp, f"2 {xs} 4")


def test_locvolcalib_flattened_allocations(monkeypatch: pytest.MonkeyPatch) -> None:
    """On gpu-sim the time loop is on the host around the kernels of each step
    (flattening); the kernels' scratch buffers, whose sizes are the same in every step,
    are allocated once before the loop (Note [Sizes invariant in a sequential loop] in
    `l0.lowering.memory.memory_plan`): the same count for 8 and 24 steps, within the
    bound (before: about 5 more per step)."""
    from l0.lowering.runtime import alloc_stats

    monkeypatch.setenv(alloc_stats.ENV, "1")
    text = (BENCHMARKS / "locvolcalib.l0").read_text(encoding="utf-8")
    prog = call_with_big_stack(lambda: CompiledProgram(text, "locvolcalib.l0", "gpu-sim"))
    counts = []
    for steps in (8, 24):
        before = alloc_stats.count()
        prog.run_main(LOCVOLCALIB_INPUT.format(outer=4, steps=steps))
        counts.append(alloc_stats.count() - before)
    assert counts[0] == counts[1] <= 100


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

    from l0.lowering.runtime import alloc_stats

    monkeypatch.setenv(alloc_stats.ENV, "1")
    prog = call_with_big_stack(lambda: CompiledProgram(SOLVES, "solves.l0", "cpu"))
    reference = call_with_big_stack(lambda: CompiledProgram(SOLVES, "solves.l0", "interp"))
    for rows in (3, 12):
        xs = np.arange(rows * 5, dtype=np.float64).reshape(rows, 5) * 0.25
        before = alloc_stats.count()
        got = prog.call_flat("main", [xs])
        assert alloc_stats.count() - before == 1
        assert np.array_equal(np.asarray(got[0]), np.asarray(reference.call_flat("main", [xs])[0]))


SCRATCH_ROWS = """
fun [int] main(int m, [int] xs) =
  map(fn int (int x) =>
        let a = copy(replicate(m, x)) in
        let a[0] = 7 in
        reduce(op +, 0, a),
      xs)
"""


def _iteration_slices(module: ModuleOp) -> list[memref.ReinterpretCastOp]:
    from l0.lowering.memory.memory_plan import ITERATION_SLICE_ATTR

    return [op for op in module.walk() if isinstance(op, memref.ReinterpretCastOp)
            and ITERATION_SLICE_ATTR in op.attributes]


@pytest.mark.parametrize("backend", ["multicore", "gpu-sim"])
def test_iteration_slices_are_reported_to_the_checking_heap(
        monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    """Each parallel iteration's scratch slice (`expand-allocs`) reaches the checking
    heap, which sees them disjoint (Note [Checking the slices]): a program whose rows
    each fill and sum a scratch array, on 3 threads and on the simulated GPU."""
    import numpy as np

    from l0.lowering.runtime import checked_memory

    monkeypatch.setenv(checked_memory.ENV, "1")
    checked_memory.reset_problems()
    prog = call_with_big_stack(lambda: CompiledProgram(
        SCRATCH_ROWS + "// checked", "rows.l0", backend,
        threads=3 if backend == "multicore" else None))
    before = checked_memory.slice_claims()
    got = prog.call_flat("main", [50, np.arange(7, dtype=np.int64)])
    assert [int(v) for v in np.asarray(got[0])] == [7 + 49 * x for x in range(7)]
    assert checked_memory.slice_claims() - before >= 3  # one per chunk or thread at least
    assert checked_memory.problems() == []


def test_overlapping_iteration_slices_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same program's loop-level IR with each slice at offset i instead of
    i * elements (the slices overlap, a race only a parallel run could show): on the
    checking heap, one run on 3 threads reports the overlap, every time."""
    import numpy as np

    from l0.frontend import load_program, to_module
    from l0.lowering.backends.jit import JitModule
    from l0.lowering.runtime import checked_memory

    lowered = call_with_big_stack(lambda: lower(
        to_module(load_program(SCRATCH_ROWS, "rows.l0")), entries=["main"],
        target="multicore"))
    slices = _iteration_slices(lowered)
    assert slices
    for view in slices:
        (offset,) = view.offsets
        assert isinstance(offset.owner, arith.MuliOp)  # linear index * elements
        view.operands[1] = offset.owner.lhs
    monkeypatch.setenv(checked_memory.ENV, "1")
    main = JitModule(lowered, entries=["main"], target=TARGETS["multicore"],
                     threads=3).function("main")
    for _ in range(3):
        checked_memory.reset_problems()
        main(50, np.arange(7, dtype=np.int64))
        assert checked_memory.problems(), "the overlapping slices went unseen"
        assert all("slices of 400 bytes overlap" in p for p in checked_memory.problems())
    checked_memory.reset_problems()
