"""The test matrix: every corpus program on every back end, through every pipeline.

A cell of the matrix is (program, back end, pipeline). Its test compiles the program's
module through the pipeline, runs `main` on the program's input with the back end, and
compares the printed result (or the run-time error, with its location) and what `trace`
printed with the corpus's expectations (`corpus.py`). The axes are the two tables below:

* `BACKENDS`: how a module is run. A new back end is one line here; `every_pass` says
  whether it also runs the module after each pass alone (the interpreter does: that is
  where a pass that changes a program's meaning is blamed by name), `checked_heap`
  whether its code allocates through the checking heap (`l0.lowering.runtime.checked_memory`),
  after which no buffer may be freed twice and none may be left live (no leaks),
  `pipelines` and `programs` limit a costly line to some pipelines and programs. The
  multicore back end runs with 2 threads (`l0-run --backend multicore --threads 2`),
  and with 1 and 3 threads at `-O` on the whole corpus; `gpu-sim` (the GPU's
  kernel extraction, whose input is the optimiser's output) runs `O` only (`O0` is left
  to `cpu`, which shares the lowering before it), with the gpu target's `-O` (Note [One
  pipeline per target] in `l0.passes.pipeline`), as `l0-run --backend gpu-sim` does;
* `PIPELINES`: `O0` (the front end's module), `O` (the default pipeline, what `l0-run`
  runs) and `pass NAME` for every registered optimisation pass alone (picked up as
  passes are registered). Pipelines check their output: the IR must verify and pass
  `verify-uniqueness` after every pass (`run_pass(..., verify=True)`).

Note [The cost of the matrix]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`make test` runs on two cores and must stay well under 15 minutes, so work is shared:
per worker process, each program goes through the front end once and through the
default pipeline once per target, cpu and gpu (both cached: `compiled.py`, shared with
the memory-planning and PTX checks), whatever the back ends; the cells read these
modules and copy them only to change them (`_through`, `compiled.lowered`). The
tests of one program form one xdist group (`--dist loadgroup` in the Makefile), so a
program's cache is filled by one worker only. The CPU back end runs on the checking
heap: it costs little more than libc's allocator (compile time dominates) and checks
more (fresh and freed buffers poisoned, double frees, leaks), so the corpus is not run
twice on native code; so does the multicore back end, at every thread count (buffers
allocated and freed by libgomp's threads). Its 1- and 3-thread lines run every program at
`-O`. They compile nothing: the thread count is set when the code
is called, not compiled in (`l0.lowering.runtime.openmp_runtime`), so they run the machine code
of the 2-thread `-O` cell, which its worker keeps (`_multicore`; the cell runs just
before them, in the program's group), with the thread count they name: neither the
lowering nor the JIT's look-up by the LLVM IR is done again. Run alone (`-k
multicore-1`), they compile, and the JIT's cache finds nothing. Compile-time
failures do not depend on the back end: they are one test per program (`test_rejected`).

Note [Split reductions]
~~~~~~~~~~~~~~~~~~~~~~~
A blocked reduction, redomap, scan or filter combines partial results only from
2 * MIN_CHUNK rows (4096 by default; Note [Parallel width] in
`l0.lowering.loop_ir.parallel_loops`), and every corpus input is shorter: on the lines above the
chunks' results are never combined, so an error in combining them (partial results
taken in the wrong order, a chunk's carry-in or offset from the wrong chunk) changes no
output. The `-split` lines compile with `L0_MIN_CHUNK=1` (`l0.lowering.runtime.min_chunk`, a
test-only setting), so from 2 rows every such SOAC splits: on multicore 2 and 3 threads
(the 3-thread line runs the 2-thread line's machine code: the JIT caches by the lowered
module, whose chunk size is a constant in it) and on `gpu-sim` (a chunk per thread,
the block's tree and the final kernel). They run `O` (where maps become redomaps and
scanomaps, and sibling folds merge), the 2-thread line `O0` too (plain reductions and
scans of arrays), on the programs of `split/`, whose operators are
associative and not commutative (products of 2x2 matrices, string concatenation as a
hash, composition of affine maps: a wrong order prints another value), and on other
programs with reductions, scans and filters over their inputs, all but those whose
operators are not associative (`NOT_ASSOCIATIVE`: a left fold is their meaning, and
any split changes it).

Note [LLVM's level in the matrix]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The suite compiles at LLVM's level 0 (Note [LLVM's level in the tests] in
`conftest.py`). The cells that run what `l0-run` ships, the `O` cells of `cpu` and of
`multicore` at every thread count (`Backend.shipped`), compile at O3 whatever the
suite's level, so the code the optimised modules make is checked as users run it, on
the checking heap. The other cells (the front end's module, kernel extraction on
`gpu-sim`, the chunked forms of the `-split` lines) are about what is decided before
LLVM, and compile at the suite's level.

Note [Programs about fusion's structure]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The `fusion/hidden_<rule>_<n>` programs (73, several per fusion rule, written as users
write) are there for the structure `-O` must reach (`test_fusion_structure.py`) and for
`-O` against `-O0` on every back end; so are the `fusion/thesis_*` programs (the
thesis's R0 and R1 patterns, written as in 2014). Each pass alone on the interpreter is
checked on the rest of the corpus and by the differential fuzzers; on these programs it
would add about 1,300 cells for little, so they run `O0` and `O` only.

Note [A pass that changes nothing]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Most `pass NAME` cells run a pass that finds nothing to do in the program (seven in
ten over the corpus). Whether it changed the module is decided as the `-O` pipeline
decides it, by the module's fingerprint before and after the pass (Note [Fingerprints
by identity] in `l0.passes.pipeline`); the passes change ops, never a value's type in
place. A pass that changed nothing left the front end's module, which `front_end`
checked already, and which the `O0` cell ran on the same back end: the cell takes the
`O0` cell's outcome (`_outcomes`) and compares it with the expectations as its own. So
only a module that a pass changed is checked (`verify` and `verify-uniqueness`, the
failure naming the pass) and run. Back ends on the checking heap run every cell,
since each run's heap is checked.

Note [Collecting only the cell's garbage]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A checking-heap cell counts the live buffers before and after its run, with the garbage
collected both times, so that a buffer held by a reference cycle is not taken for a
leak. A full collection walks every object of the worker (the cached modules of every
program so far, pytest's items): about 0.1 s, twice per cell, as long as the cell's
compilation. So the cell first collects and then freezes what is left
(`gc.freeze`): what the cell allocates is all the second collection has to walk,
and the first walks only what was allocated since the last cell froze. The second
freezes what the cell left alive (the lowered modules it cached, say), so that the
next cell's first collection does not walk it again. A frozen cycle
that becomes garbage later is never collected; every `_FULL_COLLECTION_EVERY` cells
the frozen objects are thawed first, which bounds that waste.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from unittest.mock import patch

import pytest
from compiled import front_end, lowered, optimised, same_worker
from corpus import ROOT, Program, expected_kind, incomplete, rejected, runnable
from xdsl.dialects.builtin import ModuleOp

from l0 import collector
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.lowering.runtime import checked_memory, llvm_level, min_chunk
from l0.passes import PASSES
from l0.passes.pipeline import _fingerprint, check, optimisation_passes, run_pass
from l0.targets import TARGETS
from l0.testing import squash
from l0.values import format_result, from_ir_results, read_arguments, to_ir_arguments


class Engine(Protocol):
    def call(self, name: str, args: list[Any]) -> list[Any]: ...


def _interpreter(module: ModuleOp, cell: tuple[Program, str]) -> Engine:
    from l0.interp import Interpreter

    # The stream is bound now: `sys.stderr` is the cell's capture (see `_run`).
    return Interpreter(module, trace_stream=sys.stderr)


_compiled_for_threads: dict[tuple[tuple[str, str], bool, str | None], Any] = {}
"""The last 2-thread multicore engine compiled, by its module's (program, pipeline), the
checking heap and the chunk size (`L0_MIN_CHUNK`)."""


def _compiled(name: str, threads: int | None = None, *,
              reuse: bool = False) -> Callable[[ModuleOp, tuple[Program, str]], Engine]:
    """The engine of back end `name` (`l0.targets`), compiling `main` as l0-run does
    (`--threads`, where it takes them), from the program's lowered module, which other
    test files share (`compiled.lowered`); with `reuse`, on the machine code of the last
    2-thread engine of the same module when there is one (Note [The cost of the
    matrix]: its lowering and the JIT's look-up are not done again)."""
    def make(module: ModuleOp, cell: tuple[Program, str]) -> Engine:
        prog, pipeline = cell

        def engine() -> Engine:
            return TARGETS[name].make_engine(module, entries=["main"], threads=threads,
                                             lowered=lowered(prog, pipeline, name))

        if not reuse and threads != 2:
            return engine()
        # the module is the one `_through` makes of (program, pipeline), `cell`
        key = ((prog.name, pipeline), checked_memory.enabled(), os.environ.get(min_chunk.ENV))
        compiled = _compiled_for_threads.get(key) if reuse else None
        if compiled is not None:
            return compiled.on_threads(threads)
        made = engine()
        if threads == 2:
            _compiled_for_threads.clear()
            _compiled_for_threads[key] = made
        return made

    return make


def _everything(prog: Program) -> bool:
    return True


SPLIT_MIN_CHUNK = 1
"""The chunk size of the `-split` lines (`L0_MIN_CHUNK`, `l0.lowering.runtime.min_chunk`): from
2 rows, every blocked reduction, redomap, scan and filter combines partial results."""

SPLIT_PROGRAMS = ("split/", "soacs/", "fusion/scanomap_", "fusion/filter_reduce",
                  "fusion/horizontal_", "fusion/redomap_", "fusion/map_reduce",
                  "fusion/map_scan", "fusion/fuse_filter",
                  "tuples/zip_unzip", "uniqueness/reduce_unique_acc")
NOT_ASSOCIATIVE = ("soacs/reduce_noncomm.l0", "soacs/cse_lambda_constants.l0")
"""Left folds with operators that are not associative: legal only unsplit."""


def _splittable(prog: Program) -> bool:
    """A program of Note [Split reductions]: SOACs over its input whose operators are
    associative (with a neutral element that is one), so any split gives the left fold."""
    return prog.name.startswith(SPLIT_PROGRAMS) and prog.name not in NOT_ASSOCIATIVE


@dataclass(frozen=True)
class Backend:
    """One back end of the matrix: how to make an engine that runs a soac-level module."""

    make: Callable[[ModuleOp, tuple[Program, str]], Engine]  # (module, (program, pipeline))
    every_pass: bool = False
    checked_heap: bool = False
    pipelines: tuple[str, ...] = ("O0", "O")
    programs: Callable[[Program], bool] = _everything
    trace_in_order: bool = True  # False: threads trace in any order (the lines compared)
    back_end: str = "interp"  # its record in `l0.targets`: whose `-O` pipeline makes the
    # `O` cell's module (`Target.pipeline`)

    @property
    def target(self) -> str:
        return TARGETS[self.back_end].pipeline
    min_chunk: int | None = None  # `L0_MIN_CHUNK` while compiling (Note [Split reductions])
    shipped: tuple[str, ...] = ()  # the pipelines compiled as l0-run compiles them, at
    # LLVM's O3; the others at the suite's level (Note [LLVM's level in the matrix])


BACKENDS: dict[str, Backend] = {
    "interp": Backend(_interpreter, every_pass=True),
    "cpu": Backend(_compiled("cpu"), checked_heap=True, back_end="cpu", shipped=("O",)),
    "gpu-sim": Backend(_compiled("gpu-sim"), checked_heap=True, pipelines=("O",),
                       back_end="gpu-sim"),
    "multicore": Backend(_compiled("multicore", 2), checked_heap=True, trace_in_order=False,
                         back_end="multicore", shipped=("O",)),
    # One thread runs the chunked forms in one chunk; three, more threads than cores.
    "multicore-1": Backend(_compiled("multicore", 1, reuse=True), checked_heap=True,
                           pipelines=("O",), programs=_everything, back_end="multicore",
                           shipped=("O",)),
    "multicore-3": Backend(_compiled("multicore", 3, reuse=True), checked_heap=True,
                           pipelines=("O",), programs=_everything, trace_in_order=False,
                           back_end="multicore", shipped=("O",)),
    # Note [Split reductions]: the 3-thread line runs the 2-thread line's machine code.
    "multicore-split": Backend(_compiled("multicore", 2), checked_heap=True,
                               programs=_splittable, trace_in_order=False,
                               back_end="multicore", min_chunk=SPLIT_MIN_CHUNK),
    "multicore-3-split": Backend(_compiled("multicore", 3, reuse=True), checked_heap=True,
                                 pipelines=("O",), programs=_splittable,
                                 trace_in_order=False, back_end="multicore",
                                 min_chunk=SPLIT_MIN_CHUNK),
    "gpu-sim-split": Backend(_compiled("gpu-sim"), checked_heap=True, pipelines=("O",),
                             programs=_splittable, back_end="gpu-sim",
                             min_chunk=SPLIT_MIN_CHUNK),
}

PIPELINES: list[str] = ["O0", "O", *(f"pass {name}" for name in optimisation_passes())]


def _structure_only(prog: Program | None) -> bool:
    """A `fusion/hidden_*` or `fusion/thesis_*` program: run `O0` and `O` on every back
    end, not each pass alone (Note [Programs about fusion's structure])."""
    return prog is not None and prog.name.startswith(("fusion/hidden_", "fusion/thesis_"))


def _cells(prog: Program | None = None) -> list[tuple[str, str]]:
    """The (back end, pipeline) cells of `prog` (of any program: None)."""
    return [(b, p) for b, backend in BACKENDS.items() for p in PIPELINES
            if (p in backend.pipelines
                or (backend.every_pass and not _structure_only(prog)))
            and (prog is None or backend.programs(prog))]


# -- the module of a cell -------------------------------------------------------------


def _through(prog: Program, pipeline: str, target: str = "cpu") -> ModuleOp:
    """The program's module after `pipeline` (`O`: that of `target`): for `O0` and `O`
    the module every cell of the program shares, which no engine changes (the
    interpreter reads it; the compiled back ends compile its shared lowering,
    `compiled.lowered`, and read its signatures), so it is not copied; for a pass, a
    fresh one."""
    front = front_end(prog)
    if pipeline == "O0":
        return front.module
    if pipeline == "O":
        return optimised(prog, target)
    name = pipeline.removeprefix("pass ")
    module = front.module.clone()
    before = _fingerprint(module)
    run_pass(PASSES[name]()(), module, l0_context(), verify=False)
    if front.problem is not None:
        module.verify()  # the input already fails verify-uniqueness: no pass is to blame
    elif _fingerprint(module, before).same(before):
        return front.module  # Note [A pass that changes nothing]
    else:
        check(module, l0_context(), name)
    return module


# -- collecting garbage --------------------------------------------------------------

_FULL_COLLECTION_EVERY = 64
_cells_since_full_collection = 0


def _collect_before_cell() -> None:
    """Collect garbage, then freeze the survivors (Note [Collecting only the cell's
    garbage]), so that `_collect_after_cell` walks only the cell's own objects."""
    global _cells_since_full_collection
    _cells_since_full_collection += 1
    if _cells_since_full_collection >= _FULL_COLLECTION_EVERY:
        _cells_since_full_collection = 0
        collector.release()
    gc.collect()
    collector.hold()  # the compiler's stages leave it (Note [Who froze the collector])


def _collect_after_cell() -> None:
    """Collect the cell's garbage, then freeze the survivors, so that the next cell's
    `_collect_before_cell` does not walk them again."""
    gc.collect()
    collector.hold()


# -- running ----------------------------------------------------------------------------


@dataclass
class Outcome:
    printed: str | None
    error: L0Error | None
    trace: str


def _run(prog: Program, backend: Backend, module: ModuleOp, pipeline: str) -> Outcome:
    """Compile `module` for `backend` and run `main` on the program's input, capturing
    what `trace` prints (back ends print traces on the current `sys.stderr`)."""
    entry = front_end(prog).entry
    params = [p.type for p in entry.params]
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        settings = {}  # the environment of the compile; the rest as it is
        if backend.checked_heap:
            settings[checked_memory.ENV] = "1"
        if backend.min_chunk is not None:
            settings[min_chunk.ENV] = str(backend.min_chunk)
        if pipeline in backend.shipped:
            settings[llvm_level.ENV] = str(llvm_level.DEFAULT)
        with patch.dict(os.environ, settings):
            engine = backend.make(module, (prog, pipeline))
        args = to_ir_arguments(params, read_arguments(prog.input, params, "<stdin>"))
        try:
            results = engine.call("main", args)
        except L0Error as err:
            return Outcome(None, err, stderr.getvalue())
        printed = format_result(entry.ret, from_ir_results(entry.ret, results))
    return Outcome(printed, None, stderr.getvalue())


_outcomes: dict[tuple[str, str, int], tuple[ModuleOp, Outcome]] = {}
"""The current program's outcomes on the back ends without a checking heap, by
(program, back end, identity of the module run), with that module (Note [A pass that
changes nothing])."""


def _check_cell(prog: Program, backend_name: str, pipeline: str) -> list[str]:
    backend = BACKENDS[backend_name]
    front = front_end(prog)
    failures = []
    if front.problem is not None and pipeline == "O0":
        failures.append(f"the front end's module: {front.problem}")
    module = _through(prog, pipeline, backend.target)
    if any(k[0] != prog.name for k in _outcomes):
        _outcomes.clear()  # another program's: its tests are done
    key = (prog.name, backend_name, id(module))
    if key in _outcomes:
        outcome = _outcomes[key][1]
    else:
        if backend.checked_heap:
            checked_memory.reset_problems()
            _collect_before_cell()
            live = checked_memory.live()
        outcome = _run(prog, backend, module, pipeline)
        if not backend.checked_heap:
            _outcomes[key] = (module, outcome)
    expected_out, expected_err = prog.expected_output, prog.expected_error
    if expected_out is not None:
        if outcome.error is not None:
            failures.append(f"expected {expected_out.strip()!r}, failed: {outcome.error.render()}")
        elif squash(outcome.printed or "") != squash(expected_out):
            failures.append(f"expected {expected_out.strip()!r}, printed {outcome.printed!r}")
    elif outcome.error is None:
        failures.append(f"expected the error `{expected_err}`, printed {outcome.printed!r}")
    elif expected_err is None:
        failures.append(f"expected neither an output nor an error, failed: "
                        f"{outcome.error.render()}")
    else:
        mismatch = expected_err.mismatch(outcome.error)
        if mismatch:
            failures.append(mismatch)
    if backend.trace_in_order:
        traced_as_expected = outcome.trace == prog.expected_trace
    else:
        traced_as_expected = sorted(outcome.trace.splitlines()) == sorted(
            prog.expected_trace.splitlines())
    if not traced_as_expected:
        failures.append(f"traced {outcome.trace!r}, expected {prog.expected_trace!r}")
    if backend.checked_heap:
        del outcome
        _collect_after_cell()
        failures += [f"checking heap: {p}" for p in checked_memory.problems()]
        if expected_out is not None and checked_memory.live() != live:
            failures.append(f"checking heap: {checked_memory.live() - live} buffers leaked")
    return failures


# -- the tests ---------------------------------------------------------------------------


def _matrix() -> list[Any]:
    return [
        pytest.param(prog, b, p, id=f"{prog.name}-{b}-{p.replace(' ', '-')}",
                     marks=same_worker(prog))
        for prog in runnable() for b, p in _cells(prog)
    ]


@pytest.mark.parametrize(("prog", "backend", "pipeline"), _matrix())
def test_cell(prog: Program, backend: str, pipeline: str) -> None:
    failures = call_with_big_stack(lambda: _check_cell(prog, backend, pipeline))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", rejected(), ids=[str(p.relative_to(ROOT)) for p in rejected()])
def test_rejected(path: Path) -> None:
    """A program without an input fails to compile, with the kind its first line names."""
    def compile_it() -> None:
        to_module(load_program(path.read_text(encoding="utf-8"), str(path)), verify=False)

    with pytest.raises(L0Error) as info:
        call_with_big_stack(compile_it)
    kind = expected_kind(path)
    if kind is not None:
        assert info.value.kind == kind, info.value.render()


def test_every_program_with_an_input_has_an_expected_result() -> None:
    """Nothing in the corpus only compiles: each input has an expected output or error."""
    assert incomplete() == []


def test_the_matrix_covers_every_back_end_with_and_without_the_optimiser() -> None:
    cells = set(_cells())
    for b in ("interp", "cpu", "multicore"):
        assert {(b, "O0"), (b, "O")} <= cells
        assert BACKENDS[b].programs is _everything
    assert all((b, "O") in cells for b in BACKENDS)
    # every back end of the registry that runs without a GPU (test_gpu.py: on one)
    assert {b.back_end for b in BACKENDS.values()} == {
        t.name for t in TARGETS.values() if not t.device}
    assert all(("interp", f"pass {n}") in cells for n in optimisation_passes())
    for b in ("multicore-1", "multicore-3"):  # every program at every thread count
        assert (b, "O") in cells and BACKENDS[b].programs is _everything
