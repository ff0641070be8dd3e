"""`l0-run`: compile an L0 program and run its `main` on values read from standard input.

    l0-run [--backend=cpu|multicore|interp|gpu-sim|gpu] [--threads N] [--fast-math] [-O | -O0]
           [-r N] [-t FILE] [-b] [-v] prog.l0 < input

Prints `main`'s result exactly as the 2014 compiler did (docs/reference.md §6.3).
`-r N` runs `main` N times and `-t FILE` writes the time of each run in microseconds,
one per line; these times exclude compilation and value input/output, as the
benchmark harness of Futhark's compiled programs does. `-O` (the default) runs the
default optimisation pipeline (`l0.passes.pipeline`) of the back end's target before
running (gpu and gpu-sim: the gpu's, which recomputes transcendental functions more
readily; the others: the cpu's); `-O0` runs none.
`-v` (cpu) counts the heap allocations of compiled code (`l0.lowering.runtime.alloc_stats`) and
prints, after the result, `l0-run: allocations per run of main: N` on stderr (the
largest count of the runs).

`--backend=cpu` (the default) compiles `main` to native code (`l0.lowering.pipeline`);
`-r`/`-t` then time the compiled `main` only. `--fast-math` lets LLVM reassociate real
arithmetic (vectorised reductions); it is off by default, so reductions run in the
strict left-to-right order of the interpreter. `--backend=multicore` compiles as `cpu`
does and runs the outermost parallel loops on `--threads N` threads of the OpenMP
runtime (default: `L0_NUM_THREADS`, else all cores; docs/backend.md). `--backend=gpu-sim`
compiles through the GPU back end's kernels and runs them on the CPU (docs/gpu.md).
`--backend=interp` runs the reference interpreter. `--backend=gpu` runs the parallel
loops as kernels on an NVIDIA GPU (docs/gpu-codegen.md); without a GPU, its driver or
the gpu extra (`pip install 'l0[gpu]'`) it prints one line, `l0-run: error: ...`, and
exits with 2.

The input may mix text values and binary ones (Futhark's binary format,
`l0/values/binary.py`); `-b` writes the result in binary. `-v` reports the time of
each stage on stderr (`l0/cli/stages.py`) and, when it compiles for cpu or multicore,
the decisions of the lowering passes that report them (`l0.lowering.decisions`):
`l0-run: simd-map: LOC: map went SIMD, 8 lanes`, or why not (docs/backend.md).

Native code is kept in the compile cache (`l0.compile_cache`): a second run of an
unchanged program with the same options loads it instead of compiling (and imports
nothing of the compiler). `--no-cache` (or `L0_NO_CACHE=1`) compiles afresh.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time

from l0.cli.guard import run_guarded
from l0.diagnostics import L0Error, Loc, register_source

BACKENDS = ("cpu", "multicore", "interp", "gpu-sim", "gpu")
"""`l0.api.BACKENDS`, not imported: `--help` and `--version` load no compiler module
(`test_l0_run` checks the two agree)."""
ALLOC_STATS_ENV = "L0_COUNT_ALLOCATIONS"
"""`l0.lowering.runtime.alloc_stats.ENV` (not imported: the interpreter needs no back end)."""


def build_argparser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="l0-run",
        description="Compile an L0 program and run its main function on values read from stdin.",
        epilog="Exit status: 0 on success, 2 for an error in the program or its input "
        "(reported as FILE:LINE:COL: error: ...), 3 for an internal compiler error.",
    )
    ap.add_argument("program", help="the L0 source file (.l0)")
    ap.add_argument(
        "--backend",
        choices=BACKENDS,
        default="cpu",
        help="how to run the program: cpu = compiled to native code, multicore = "
        "compiled, parallel loops on threads (OpenMP), gpu-sim = compiled to GPU kernels "
        "run on the CPU, interp = the reference interpreter, "
        "gpu = compiled, parallel loops as kernels on an NVIDIA GPU "
        "(default: %(default)s)",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help="multicore: the number of threads (default: L0_NUM_THREADS, else all cores)",
    )
    ap.add_argument(
        "--fast-math",
        action="store_true",
        help="cpu: let LLVM reassociate real arithmetic (vectorised reductions; results "
        "may differ in the last bits)",
    )
    ap.add_argument(
        "-O",
        dest="optimise",
        action="store_true",
        default=True,
        help="optimise with the default pipeline of the back end's target "
        "(l0.passes.pipeline.default_pipeline) (the default)",
    )
    ap.add_argument(
        "-O0",
        dest="optimise",
        action="store_false",
        help="run no optimisation pass",
    )
    ap.add_argument(
        "-r",
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="run main N times (for timing; the result is printed once)",
    )
    ap.add_argument(
        "-t",
        "--timing",
        metavar="FILE",
        help="write the run time of each run of main in microseconds to FILE, one per line",
    )
    ap.add_argument(
        "-b",
        "--binary-output",
        action="store_true",
        help="write the result in Futhark's binary value format (one value per component)",
    )
    ap.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="report on stderr the time of each stage (parse, check, passes, LLVM, JIT, run) "
        "and, on cpu and multicore, the heap allocations per run of main and which maps "
        "run in SIMD lanes",
    )
    ap.add_argument(
        "--no-cache",
        action="store_true",
        help="cpu, multicore: compile even if the compile cache has the code, and do not "
        "keep it there (also L0_NO_CACHE=1; the cache is $XDG_CACHE_HOME/l0)",
    )
    ap.add_argument(
        "--inhibit-uniqueness-checking",
        action="store_true",
        help="skip the occurrence/consumption checks of the type checker (as l0c did); "
        "the program then runs unoptimised in the interpreter, which copies on every update",
    )
    ap.add_argument("--version", action=_VersionAction)
    return ap


class _VersionAction(argparse.Action):
    """`--version`: `l0-run VERSION`; importlib.metadata is imported only then (start-up)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import version

        print(f"{parser.prog} {version('l0')}")
        parser.exit()


def main(argv: list[str] | None = None) -> None:
    args = build_argparser().parse_args(argv)
    if args.runs < 1:
        print("l0-run: error: -r needs a positive number of runs", file=sys.stderr)
        sys.exit(2)
    if args.threads is not None and args.threads < 1:
        print("l0-run: error: --threads needs a positive number of threads", file=sys.stderr)
        sys.exit(2)
    if args.verbose:
        from l0.cli.stages import run_with_stage_times

        sys.exit(run_with_stage_times(lambda: run_guarded(lambda: run(args), what=args.program)))
    sys.exit(run_guarded(lambda: run(args), what=args.program))


def run(args: argparse.Namespace) -> int:
    from l0.api import BackendUnavailable, CompiledProgram
    from l0.values import format_result, from_ir_results, read_arguments, to_ir_arguments

    # No isolation: the inputs are ours (a fresh copy per run), and copying would be timed.
    counting = args.verbose and args.backend in ("cpu", "multicore", "gpu-sim")
    if counting:
        # before compiling: the counter is compiled into the code (l0.lowering.runtime.alloc_stats)
        os.environ[ALLOC_STATS_ENV] = "1"
    source = _read_source(args.program)
    register_source(args.program, source)
    if args.verbose:
        _report_decisions()
    try:
        prog = CompiledProgram(
            source, args.program, args.backend,
            optimise=args.optimise, fast_math=args.fast_math,
            inhibit_uniqueness=args.inhibit_uniqueness_checking, main_only=True,
            isolate=False, threads=args.threads, cache=not args.no_cache,
        )
    except BackendUnavailable as err:
        print(f"l0-run: error: {err}", file=sys.stderr)
        return 2
    if args.verbose and prog.from_cache and args.backend in ("cpu", "multicore"):
        print("l0-run: code from the compile cache: no lowering decisions to report "
              "(--no-cache)", file=sys.stderr)
    entry = prog.functions["main"]
    params = [p.type for p in entry.params]
    # Without parameters a terminal is not waited on; piped input must then be empty.
    data = _read_stdin() if params or not sys.stdin.isatty() else b""
    inputs = read_arguments(data, params, "<stdin>")  # text and binary values
    inputs = to_ir_arguments(params, inputs)

    times: list[int] = []
    allocations = 0
    results: list[object] = []
    for _ in range(args.runs):
        # main may update unique arguments in place: every run gets its own copy.
        run_inputs = copy.deepcopy(inputs) if args.runs > 1 else inputs
        before = _allocations() if counting else 0
        start = time.perf_counter_ns()
        results = prog.call_flat("main", run_inputs)
        times.append((time.perf_counter_ns() - start) // 1000)
        if counting:
            allocations = max(allocations, _allocations() - before)

    if args.binary_output:
        from l0.values.binary import write_binary_values

        sys.stdout.flush()
        sys.stdout.buffer.write(write_binary_values(entry.ret,
                                                    from_ir_results(entry.ret, results)))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(format_result(entry.ret, from_ir_results(entry.ret, results)) + "\n")
        sys.stdout.flush()
    if counting:
        print(f"l0-run: allocations per run of main: {allocations}", file=sys.stderr)
    if args.timing:
        _write_times(args.timing, times)
    return 0


def _report_decisions() -> None:
    """Print the lowering passes' decisions on stderr as they are made."""
    from l0.lowering.loop_ir import decisions

    def report(pass_name: str, message: str) -> None:
        print(f"l0-run: {pass_name}: {message}", file=sys.stderr)

    decisions.report = report


def _read_stdin() -> bytearray:
    """All of stdin as bytes: binary values are read from it without copies."""
    from l0.values.binary import read_input_bytes

    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (tests)
        return bytearray(sys.stdin.read().encode("utf-8"))
    return read_input_bytes(buffer)


def _allocations() -> int:
    from l0.lowering.runtime import alloc_stats

    return alloc_stats.count()


def _read_source(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(path, 1, 1), f"cannot read program: {reason}", "io-error") from None


def _write_times(path: str, times: list[int]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(f"{t}\n" for t in times)
    except OSError as err:
        message = f"cannot write timings: {err.strerror}"
        raise L0Error(Loc(path, 1, 1), message, "io-error") from None
